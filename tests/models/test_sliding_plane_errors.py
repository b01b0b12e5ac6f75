"""Bad inputs to the stiff contact and to the contact factory give clear errors (issue 6, item 7).

Scenario: a ball (radius 0.1 m) above the floor z = 0, with its centre at `height`; the
signed distance is height - 0.1 (closed form).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import Gravity, Ground, RigidBody, contact

RADIUS, MASS = 0.1, 1.0


def ball_and_ground(height):
    pose = np.eye(4)
    pose[2, 3] = height
    return RigidBody("ball", MASS, [0.4 * MASS * RADIUS**2] * 3, pose=pose), Ground("ground")


def ball_on_floor(height, kind="sliding_plane", **params):
    """Compiled system: the ball under gravity on the floor through a contact of `kind`."""
    ball, ground = ball_and_ground(height)
    bg = ph.BondGraph("ball_on_floor")
    c = contact(kind, "c", ball, Sphere(RADIUS), ground, Plane(), **params)
    bg.add(ball, ground, Gravity("gravity", ball), c)
    bg.connect(ball.frame().port, "gravity")
    bg.connect(ball.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    return ph.compile(bg)


# ---------------------------------------------------------------- initialised far from the surfaces
@pytest.mark.parametrize(
    "height, unilateral, distance",
    [
        (0.2, False, "0.1"),    # bilateral, 10 cm apart
        (0.095, False, "-0.005"),  # bilateral, 5 mm deep
        (0.095, True, "-0.005"),   # unilateral, 5 mm deep
    ],
)
def test_contact_initialised_far_from_the_surfaces(height, unilateral, distance):
    system = ball_on_floor(height, unilateral=unilateral, max_gap=1e-3)
    with pytest.raises(
        ph.GeometryError,
        match=rf"initialised far from the surfaces \(signed distance {distance} m, max_gap 0.001 m\); "
        r"start the bodies in contact",
    ):
        system.initial_state()


def test_unilateral_contact_starting_below_the_surface_is_refused():
    """Without max_gap a bilateral contact starts wherever it is, but a unilateral one (a foot
    on the ground) must not start penetrating: the stabilization would push it out."""
    system = ball_on_floor(0.099, unilateral=True)
    with pytest.raises(ph.GeometryError, match=r"c/constraint: .*start 0.001 m into each other .* never penetrating"):
        system.initial_state()


def test_far_contact_error_names_the_contact():
    """With several contacts in a model (two-ellipsoids has three), the message must say
    which one: its component name ("floor" here) or its path ("floor/constraint")."""
    ball, ground = ball_and_ground(0.2)
    bg = ph.BondGraph("ball_on_floor")
    c = contact("sliding_plane", "floor", ball, Sphere(RADIUS), ground, Plane(), unilateral=False, max_gap=1e-3)
    bg.add(ball, ground, c)
    bg.connect(ball.frame().port, ("floor", "a"))
    bg.connect(ground.frame().port, ("floor", "b"))
    system = ph.compile(bg)
    with pytest.raises(ph.GeometryError, match=r"floor.*initialised far from the surfaces"):
        system.initial_state()


def test_unilateral_contact_may_start_apart():
    """Not an error: a unilateral contact farther than max_gap starts detached and closes by
    an impact when the ball lands (free fall from 5 cm: t = sqrt(2 h / g))."""
    system = ball_on_floor(RADIUS + 0.05, unilateral=True, max_gap=1e-3, restitution=0.5)
    x0 = system.initial_state()
    own = x0[system.layout.element_slice("c/constraint")]
    assert own[6] == 0.0
    traj = ph.simulate(system, (0.0, 0.12), x0, method="DOP853", rtol=1e-10, atol=1e-12)
    impacts = [e for e in traj.events if e.name == "c/constraint.impact"]
    assert len(impacts) == 1
    # event times are located to ~rtol
    assert_allclose(impacts[0].t, np.sqrt(2 * 0.05 / 9.81), rtol=1e-8, atol=0)


def test_within_max_gap_is_accepted():
    system = ball_on_floor(RADIUS + 5e-4, unilateral=False, max_gap=1e-3)
    x0 = system.initial_state()
    own, refs = system.element_state("c/constraint", x0)
    # the signed distance of a sphere above a plane: height - radius
    assert_allclose(system.elements["c/constraint"].distance(own, refs), 5e-4, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------- parameters of the sliding plane
@pytest.mark.parametrize(
    "params, match",
    [
        (dict(restitution=1.5), r"`restitution` must lie in \[0, 1\], got 1.5"),
        (dict(restitution=-0.1), r"`restitution` must lie in \[0, 1\], got -0.1"),
        (dict(restitution=float("nan")), r"`restitution` must be finite, got nan"),
        (dict(friction="rollin"),
         r"`friction` must be one of \('frictionless', 'coulomb', 'rolling'\), got 'rollin'; did you mean 'rolling'\?"),
        (dict(friction="Coulomb"), r"got 'Coulomb'; did you mean 'coulomb'\?"),
        (dict(friction="sticky"), r"`friction` must be one of \('frictionless', 'coulomb', 'rolling'\), got 'sticky'$"),
        (dict(mu=-0.2), r"`mu` must be >= 0, got -0.2"),
        (dict(max_gap=0.0), r"`max_gap` must be > 0, got 0.0"),
        (dict(softening=-1.0), r"`softening` must be >= 0, got -1.0"),
        (dict(stiffness=1e5), r"sliding_plane contact 'c' takes no parameter `stiffness`; it takes .*restitution"),
    ],
)
def test_bad_sliding_plane_parameters(params, match):
    ball, ground = ball_and_ground(RADIUS)
    with pytest.raises(ph.ParameterError, match=match):
        contact("sliding_plane", "c", ball, Sphere(RADIUS), ground, Plane(), **params)


def test_restitution_bounds_are_accepted():
    ball, ground = ball_and_ground(RADIUS)
    for e in (0.0, 1.0):
        c = contact("sliding_plane", "c", ball, Sphere(RADIUS), ground, Plane(), restitution=e)
        assert c["constraint"].restitution == e


# ---------------------------------------------------------------- the contact factory
@pytest.mark.parametrize(
    "kind, match",
    [
        ("sliding-plane", r"unknown contact kind 'sliding-plane'; use one of "
                          r"\['compliant', 'reduced', 'sliding_plane', 'soil'\] \(did you mean 'sliding_plane'\?\)"),
        ("complaint", r"unknown contact kind 'complaint'.*\(did you mean 'compliant'\?\)"),
        ("rigid", r"unknown contact kind 'rigid'; use one of \['compliant', 'reduced', 'sliding_plane', 'soil'\]$"),
        (None, r"unknown contact kind None"),
    ],
)
def test_unknown_contact_kind(kind, match):
    ball, ground = ball_and_ground(RADIUS)
    with pytest.raises(ph.ParameterError, match=match):
        contact(kind, "c", ball, Sphere(RADIUS), ground, Plane())


def test_compliant_contact_rejects_sliding_plane_parameters():
    ball, ground = ball_and_ground(RADIUS)
    with pytest.raises(ph.ParameterError, match=r"compliant contact 'c' takes no parameter `restitution`.*material="):
        contact("compliant", "c", ball, Sphere(RADIUS), ground, Plane(), restitution=0.5)
