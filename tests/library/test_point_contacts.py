"""Point contacts (issue 36): a `porthamiltonian.geometry.Point` (a sphere of radius 0) as the
partner of a smooth surface in the compliant contact (rest depth against the law's closed
form, on the compiled path) and what a point cannot meet (typed errors at construction)."""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import porthamiltonian as ph
from porthamiltonian.contact.laws import LocalHertzLaw
from porthamiltonian.errors import GeometryError, ModelError, ParameterError
from porthamiltonian.geometry import Plane, Point, Sphere
from porthamiltonian.library import CompliantContact, Gravity, Ground, RigidBody, SlidingPlaneContact
from porthamiltonian.lie import se3

G = 9.81


def _resting_point(mass, **law):
    """A body whose centre is a point foot, touching a horizontal plane, released at rest."""
    body = RigidBody("body", mass, 1e-3 * np.ones(3), pose=se3.make(np.eye(3), (0.0, 0.0, 0.0)))
    ground = Ground("ground")
    bg = ph.BondGraph("point_on_plane")
    c = CompliantContact("foot", ground, Plane(), body, Point(), friction=0.5, **law)
    bg.add(body, ground, Gravity("gravity", body, (0.0, 0.0, -G)), c)
    bg.connect(body.frame().port, "gravity")
    bg.connect(ground.frame().port, ("foot", "a"))
    bg.connect(body.frame().port, ("foot", "b"))
    return bg


@pytest.mark.parametrize("normal, exponent", [("linear", 1.0), ("hertz", 1.5)])
def test_compliant_point_rests_at_the_laws_depth(normal, exponent):
    """F = k delta^n + c d(delta)/dt under the weight m g: the rest depth is (m g / k)^(1/n).
    Critically damped at rest (c = 2 sqrt(k_0 m), k_0 = n k delta_0^(n-1) the stiffness there:
    the transient decays as (1 + w t) e^(-w t), w = sqrt(k_0 / m) >= 30 rad/s, below 1e-11 of
    the depth at 1 s); the compiled right-hand side ran without falling back to Python."""
    m, k = 2.0, 1e4
    depth = (m * G / k) ** (1.0 / exponent)
    k0 = exponent * k * depth ** (exponent - 1.0)
    bg = _resting_point(m, normal=normal, stiffness=k, damping=2.0 * math.sqrt(k0 * m))
    system = ph.compile(bg)
    traj = ph.simulate(system, (0.0, 1.0), system.initial_state(), method="RK45", rtol=1e-10, atol=1e-12)
    assert traj.status == 0, traj.message
    z = traj.x[-1][system.layout["body.pose"]][6]
    # the solver's tolerance: rtol 1e-10 of states of order 1 and 1e-2 m, atol 1e-12
    assert -z == pytest.approx(depth, rel=1e-7)
    assert system._jit["fallbacks"] == 0   # no evaluation of the run fell back to Python
    assert system.compiled == "numba", system.compiled
    j = system._jit
    for x in traj.x[:: max(1, len(traj.x) // 5)]:   # the compiled evaluation handles the contact
        ref = system._rhs(0.0, x, system._u0, False)
        xdot, status, _, _, _, _ = j["fn"](0.0, x, system._u0, j["F"], j["I"])
        assert status == 0
        np.testing.assert_allclose(xdot, ref, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(ref).max()))


def test_what_a_point_cannot_meet_is_refused_at_construction():
    body, ground = RigidBody("body", 1.0, np.ones(3)), Ground("ground")
    with pytest.raises(ParameterError, match=r"`surface_a` = Point.* is a point: .*as `surface_b`"):
        CompliantContact("c", body, Point(), ground, Plane(), stiffness=1e4)
    with pytest.raises(ParameterError, match="two points have no contact normal"):
        SlidingPlaneContact("c", ground, Point(), body, Point())
    with pytest.raises(ParameterError, match="is a point, which has no size"):
        CompliantContact("c", ground, Plane(), body, Point())
    with pytest.raises(ModelError, match="no radius of curvature"):
        CompliantContact("c", ground, Plane(), body, Point(), normal=LocalHertzLaw(1e9))


def test_a_point_off_the_edge_of_a_bounded_plane_is_a_geometry_error():
    """A point's contact normal is the surface's, which an edge does not have."""
    body = RigidBody("body", 1.0, np.ones(3), pose=se3.make(np.eye(3), (1.0, 0.0, 0.1)))
    ground = Ground("ground")
    bg = ph.BondGraph("edge")
    bg.add(body, ground, SlidingPlaneContact("c", ground, Plane(extent=((-0.5, 0.5), (-0.5, 0.5))), body, Point()))
    bg.connect(ground.frame().port, ("c", "a"))
    bg.connect(body.frame().port, ("c", "b"))
    system = ph.compile(bg)
    with pytest.raises(GeometryError, match="lies on an edge of the patch"):
        system.initial_state()


def test_sliding_plane_point_is_a_pin_on_both_paths():
    """A body standing on a point foot pinned by a rolling sliding-plane contact falls as an
    inverted pendulum about the foot: phi'' = m g l sin(phi) / (I + m l^2), integrated
    independently (scipy); the compiled right-hand side handles the run's states and equals the
    Python one there."""
    from scipy.integrate import solve_ivp

    m, I, l, phi0, w0 = 1.0, 0.01, 0.5, 0.05, 0.2
    R = Rotation.from_rotvec((0.0, phi0, 0.0)).as_matrix()
    p = R @ np.array((0.0, 0.0, l))
    w = np.array((0.0, w0, 0.0))
    body = RigidBody("body", m, I * np.ones(3), pose=se3.make(R, p),
                     twist=np.concatenate((R.T @ w, R.T @ np.cross(w, p))))
    ground = Ground("ground")
    bg = ph.BondGraph("pin")
    bg.add(body, ground, Gravity("gravity", body, (0.0, 0.0, -G)),
           SlidingPlaneContact("foot", ground, Plane(), body, Point((0.0, 0.0, -l)), friction="rolling"))
    bg.connect(body.frame().port, "gravity")
    bg.connect(ground.frame().port, ("foot", "a"))
    bg.connect(body.frame().port, ("foot", "b"))
    system = ph.compile(bg)
    traj = ph.simulate(system, (0.0, 0.4), system.initial_state(), method="DOP853", rtol=1e-10, atol=1e-12)
    assert traj.status == 0, traj.message

    def angle(x):
        q = x[system.layout["body.pose"]]
        Rq = Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_matrix()
        return math.atan2(Rq[0, 2], Rq[2, 2])

    ref = solve_ivp(lambda t, y: (y[1], m * G * l * math.sin(y[0]) / (I + m * l * l)), (0.0, 0.4), (phi0, w0),
                    rtol=1e-12, atol=1e-14, dense_output=True)
    # both integrations at rtol <= 1e-10; the constraint drift is held by Baumgarte: 1e-8 rad
    np.testing.assert_allclose([angle(x) for x in traj.x], ref.sol(traj.t)[0], rtol=0, atol=1e-8)
    assert system.compiled == "numba", system.compiled
    j = system._jit
    for x in traj.x[:: max(1, len(traj.x) // 5)]:
        want = system._rhs(0.0, x, system._u0, False)
        xdot, status, _, _, _, _ = j["fn"](0.0, x, system._u0, j["F"], j["I"])
        assert status == 0
        np.testing.assert_allclose(xdot, want, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(want).max()))
