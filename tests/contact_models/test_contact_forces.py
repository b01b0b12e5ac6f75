"""Contact forces read from trajectories (issue 11): both contact kinds against statics and
Coulomb's law, and the centre of pressure of two contacts against the moment balance."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import ContactMaterial, Gravity, Ground, RigidBody, contact

M, R_BALL, G, MU = 1.0, 0.1, 9.81, 0.2
K = 1e5


def scene(kind, twist=(0, 0, 0, 0, 0, 0), offsets=((0.0, 0.0),), mass_x=0.0):
    """A body with one sphere per offset (in its frame, at the body's height) on the floor."""
    material = ContactMaterial(friction=MU, restitution=0.5,
                               normal=ph.contact.laws.NormalLaw("linear", stiffness=K))
    n = len(offsets)
    sink = M * G / (n * K) if kind == "compliant" else 0.0
    H = np.eye(4)
    H[:3, 3] = (mass_x, 0.0, R_BALL - sink)
    body = RigidBody("body", M, [0.4 * M * R_BALL**2] * 3, pose=H, twist=twist)
    ground = Ground("ground")
    bg = ph.BondGraph("forces")
    bg.add(body, ground, Gravity("gravity", body))
    bg.connect(body.frame().port, "gravity")
    for i, (dx, dy) in enumerate(offsets):
        pose = np.eye(4)
        pose[:2, 3] = (dx - mass_x, dy)
        bg.add(contact(kind, f"c{i}", body, Sphere(R_BALL), ground, Plane(), pose_a=pose, material=material))
        bg.connect(body.frame().port, (f"c{i}", "a"))
        bg.connect(ground.frame().port, (f"c{i}", "b"))
    system = ph.compile(bg)
    return system, system.initial_state()


@pytest.mark.parametrize("kind", ["compliant", "sliding_plane"])
def test_a_resting_ball_presses_with_its_weight(kind):
    system, x0 = scene(kind)
    traj = ph.simulate(system, (0.0, 0.05), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    f = traj.contact_forces("c0")
    assert (f.body_a, f.body_b) == ("body", "ground")
    # on the ground (body b), pushing it away from the ball: along n_a = -z, the weight
    assert_allclose(f.normal, M * G, rtol=1e-6)
    assert_allclose(f.normal_direction, np.broadcast_to((0.0, 0.0, -1.0), f.point.shape), atol=1e-12)
    assert_allclose(f.tangential, 0.0, atol=1e-8 * M * G)     # measured 4e-8 N: integration noise
    assert_allclose(f.point[:, :2], 0.0, atol=1e-12)


@pytest.mark.parametrize("kind", ["compliant", "sliding_plane"])
def test_a_sliding_ball_feels_coulombs_friction(kind):
    """Sliding along +x at 1 m/s: the floor (body b) is dragged along +x by mu N, i.e. the
    ball is braked (the first 5 ms charge the compliant contact's tangential spring)."""
    system, x0 = scene(kind, twist=(0, 0, 0, 1.0, 0, 0))
    traj = ph.simulate(system, (0.0, 0.05), x0, rtol=1e-10, atol=1e-12, method="DOP853",
                       t_eval=np.linspace(0.0, 0.05, 51))
    f = traj.contact_forces("c0")
    late = traj.t > 0.005
    assert_allclose(f.tangential[late, 0], MU * f.normal[late], rtol=1e-3)
    assert_allclose(f.tangential[late, 1:], 0.0, atol=1e-5 * MU * M * G)   # measured 2e-6 mu N


@pytest.mark.parametrize("kind", ["compliant", "sliding_plane"])
def test_center_of_pressure_of_two_feet_is_under_the_centre_of_mass(kind):
    """Two spheres at x = -0.2 and 0.3 under a body whose centre of mass is at x = 0.05:
    statics puts the centre of pressure under the centre of mass and the total at m g."""
    system, x0 = scene(kind, offsets=((-0.2, 0.0), (0.3, 0.0)), mass_x=0.05)
    traj = ph.simulate(system, (0.0, 0.02), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    cop, total = traj.center_of_pressure("body")
    assert_allclose(total, M * G, rtol=1e-6)
    assert_allclose(cop[:, 0], 0.05, atol=1e-6)
    assert_allclose(cop[:, 1], 0.0, atol=1e-9)


def test_unknown_contact_names_the_ones_there_are():
    system, x0 = scene("compliant")
    traj = ph.simulate(system, (0.0, 0.001), x0)
    with pytest.raises(ph.ModelError, match=r"no contact component 'c9'; its contacts are \['c0'\]"):
        traj.contact_forces("c9")


def test_support_polygon_of_three_feet_holds_the_centre_of_pressure_and_is_drawn():
    """Three spheres under a body (compliant floor): the support polygon is their three contact
    points (each under its sphere's centre, on the floor), the centre of pressure lies inside
    it (under the centre of mass, by statics), and the figure's top view draws the polygon's
    outline through those points with x and y in metres."""
    from matplotlib.path import Path as MplPath

    from porthamiltonian.diagnostics.contact_forces import support_polygon
    from porthamiltonian.diagnostics.plots import plot_center_of_pressure

    feet = ((-0.2, -0.1), (0.3, -0.1), (0.0, 0.25))
    system, x0 = scene("compliant", offsets=feet, mass_x=0.05)
    traj = ph.simulate(system, (0.0, 0.01), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    when, points = support_polygon(traj, "body")
    assert when is not None and points.shape == (3, 3)
    # each point under its sphere (the compliant contact's point sits between the surfaces: within the
    # sinkage); the body, started near its equilibrium, not at it, moves ~1e-6 m sideways in the 10 ms
    assert_allclose(np.sort(points[:, 0]), [-0.2, 0.0, 0.3], atol=1e-5)
    assert_allclose(points[:, 2], 0.0, atol=M * G / K)
    cop, _ = traj.center_of_pressure("body")
    assert MplPath(points[:, :2]).contains_point(cop[-1, :2])
    fig = plot_center_of_pressure(traj.t, {"body": cop}, supports={"body": (when, points)})
    top = fig.axes[0]
    assert (top.get_xlabel(), top.get_ylabel()) == ("x [m]", "y [m]")
    outline = next(line for line in top.get_lines() if line.get_linestyle() == "--")
    xy = np.column_stack(outline.get_data())
    assert len(xy) == 4 and np.allclose(xy[0], xy[-1])   # a closed triangle
    assert_allclose(np.sort(xy[:3, 0]), np.sort(points[:, 0]), rtol=0, atol=1e-15)
