"""`place_on`: a body resting on a plane with a given orientation and motion (issue 17).

References: the closed form of a ball rolling on the floor (v = w x r), and the model itself:
the state place_on returns must satisfy the rolling contact's constraints to round-off, so
that `project_constraints` has nothing to change (it used to move the spin of a hand-made
rattleback state from (0, 0, -5) to (2.43, 0.008, -4.54) rad/s).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

import porthamiltonian as ph
from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import Cylinder, Ellipsoid, Plane, Sphere
from porthamiltonian.library import Gravity, Ground, RigidBody, contact, place_on

# Kane & Levinson's rattleback: semi-axes 0.20 / 0.03 / 0.02 m, centre of mass 0.01 m below
# the ellipsoid's centre, inertia with the small product of inertia that couples spin and rocking
AXES = (0.20, 0.03, 0.02)
MASS = 1.0
INERTIA = np.array([[0.0002, -0.00002, 0.0], [-0.00002, 0.0016, 0.0], [0.0, 0.0, 0.0017]])


def rattleback(rotation=None, spin=-5.0):
    body = RigidBody("rb", MASS, INERTIA)
    shell = Ellipsoid(*AXES, center=(0.0, 0.0, 0.01))   # the centre 0.01 m above the CoM
    ground = Ground("ground")
    bg = ph.BondGraph("rattleback")
    bg.add(body, ground, Gravity("gravity", body),
           contact("sliding_plane", "c", body, shell, ground, Plane(), friction="rolling", unilateral=False))
    bg.connect(body.frame().port, "gravity")
    bg.connect(body.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    system = ph.compile(bg)
    values = place_on(body, shell, rotation=rotation, angular_velocity=(0.0, 0.0, spin))
    return system, body, system.initial_state(values), values


@pytest.mark.parametrize("tilt", [0.0, 0.15])
def test_the_rattleback_starts_rolling_with_its_spin_unchanged(tilt):
    R = Rotation.from_rotvec([tilt, 0.5 * tilt, 0.3]).as_matrix()
    system, body, x0, values = rattleback(rotation=R)
    res = system.constraint_residuals(0.0, x0)
    assert max(np.abs(v).max() for v in res["c"].values()) <= 1e-12
    # the normal row's gap (the rolling rows have none: NaN)
    assert max(np.nanmax(np.abs(v)) for v in res["g"].values()) <= 1e-12
    own = x0[system.layout.element_slice("rb")]
    w_world = R @ body.twist(own)[:3]
    assert_allclose(w_world, [0.0, 0.0, -5.0], rtol=0, atol=1e-12)
    projected = system.project_constraints(0.0, x0)
    assert_allclose(projected, x0, rtol=0, atol=1e-12)      # nothing to correct


def test_a_ball_rolls_and_slides_by_the_closed_form():
    ball = RigidBody("ball", 2.0, [0.008] * 3)
    v = place_on(ball, Sphere(0.1), position=(1.0, 2.0, 5.0), angular_velocity=(0.0, 10.0, 0.0),
                 sliding_velocity=(0.5, 0.0, 0.0))
    assert_allclose(v["ball.pose"], [1, 0, 0, 0, 1.0, 2.0, 0.1], rtol=0, atol=1e-15)
    T = np.linalg.solve(ball.M, v["ball.P"])
    assert_allclose(T, [0.0, 10.0, 0.0, 0.5 + 10.0 * 0.1, 0.0, 0.0], rtol=0, atol=1e-13)
    # on a tilted plane, with a gap
    plane = Plane(point=(0.0, 0.0, 1.0), normal=(0.0, 1.0, 1.0))
    v = place_on(ball, Sphere(0.1), plane, gap=0.05)
    n = np.array([0.0, 1.0, 1.0]) / np.sqrt(2.0)
    centre = v["ball.pose"][4:]
    assert_allclose(n @ (centre - [0.0, 0.0, 1.0]), 0.15, rtol=0, atol=1e-14)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(rotation=np.diag([1.0, 1.0, -1.0])), ParameterError, r"`rotation` must be a rotation matrix"),
    (dict(sliding_velocity=(0.0, 0.0, 1.0)), ParameterError, r"`sliding_velocity` must lie in the plane"),
    (dict(gap=-0.1), ParameterError, r"`gap` must be >= 0, got -0.1"),
    (dict(angular_velocity=(1.0, 2.0)), ParameterError, r"`angular_velocity`"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        place_on(RigidBody("b", 1.0, [0.01] * 3), Sphere(0.1), **kwargs)


def test_a_surface_without_a_unique_lowest_point_is_refused():
    with pytest.raises(GeometryError, match="convex closed surface"):
        place_on(RigidBody("b", 1.0, [0.01] * 3), Cylinder(0.1, 0.3))
