"""Leaving a bounded surface (issue 17): a body sliding off a plane's extent is no longer held
up. The compliant contact releases where the contact point crosses the edge and the body
falls freely; the sliding-plane contact, which cannot represent leaving its surface, stops
with an error saying so (before, both held the body up in the air at x = 1 m). A point foot
(`geometry.Point`, the plane as the contact's surface a) does the same (issue 36: it raised
GeometryError after the release, when the foot of its normal had left the extent)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.geometry import Ellipsoid, Plane, Point
from porthamiltonian.library import Gravity, Ground, RigidBody, contact

G, HALF, V, C = 9.81, 0.1, 1.0, 0.05    # extent +-HALF, sliding speed V along x, semi-axis c


def sliding_off(kind, foot="ellipsoid"):
    H = np.eye(4)
    H[2, 3] = C - (G / 1e4 if kind == "compliant" else 0.0)     # resting (static penetration)
    body = RigidBody("body", 1.0, [1e-3] * 3, pose=H, twist=(0, 0, 0, V, 0, 0))
    ground = Ground("ground")
    # the compliant contact's law before issue 36's defaults, given: the test is about the edge, not the law
    friction = ({"friction": 0.0, "normal": "linear", "stiffness": 1e4, "damping": 20.0} if kind == "compliant"
                else {"friction": "frictionless"})
    table = Plane(extent=((-HALF, HALF), (-HALF, HALF)))
    bg = ph.BondGraph("table")
    # a point is the contact's surface b (it meets the plane's normal): the bodies swap sides
    pair = ((body, Ellipsoid(0.1, 0.1, C), ground, table) if foot == "ellipsoid" else
            (ground, table, body, Point((0.0, 0.0, -C))))
    bg.add(body, ground, Gravity("g", body), contact(kind, "c", *pair, **friction))
    bg.connect(body.frame().port, "g")
    bg.connect(body.frame().port, ("c", "a" if foot == "ellipsoid" else "b"))
    bg.connect(ground.frame().port, ("c", "b" if foot == "ellipsoid" else "a"))
    system = ph.compile(bg)
    return system, system.initial_state()


@pytest.mark.parametrize("foot", ["ellipsoid", "point"])
def test_the_compliant_contact_releases_at_the_edge_and_the_body_falls(foot):
    system, x0 = sliding_off("compliant", foot)
    traj = ph.simulate(system, (0.0, 0.4), x0, rtol=1e-10, atol=1e-12, method="DOP853",
                       t_eval=np.linspace(0.0, 0.4, 41))
    (release,) = [e for e in traj.events if e.name == "c/spring.release"]
    assert_allclose(release.t, HALF / V, rtol=1e-6)                # the contact point crosses the edge
    z = traj.state("body.pose")[:, 6]
    after = traj.t > release.t
    z_release = np.interp(release.t, traj.t, z)
    assert_allclose(z[after], z_release - 0.5 * G * (traj.t[after] - release.t) ** 2, atol=1e-6)
    forces = traj.contact_forces("c")
    assert np.all(forces.normal[after] == 0.0) and np.all(np.isnan(forces.point[after]))
    b = traj.power_budget()
    assert b.max_residual <= 1e-8 * b.scale, b.table()


@pytest.mark.parametrize("foot", ["ellipsoid", "point"])
def test_the_sliding_plane_contact_stops_with_a_clear_error(foot):
    system, x0 = sliding_off("sliding_plane", foot)
    with pytest.raises(ph.IntegrationError, match=r"at t = 0.1 s.*left a bounded surface.*use the compliant contact"):
        ph.simulate(system, (0.0, 0.4), x0, rtol=1e-10, atol=1e-12, method="DOP853")
