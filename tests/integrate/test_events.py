"""Element events at the start of an integration segment.

Scenario: a ball (radius 0.1 m, 1 kg) under gravity touching the floor z = 0 at t = 0, its
unilateral sliding-plane contact detached (gap exactly 0), with a vertical speed v0. Closed
forms: an approaching ball (v0 < 0) is struck at t = 0 and leaves at -e v0, losing
m v0^2 (1 - e^2) / 2; a separating ball (v0 > 0) flies freely, z(t) = R + v0 t - g t^2 / 2.
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.errors import ContactWarning
from porthamiltonian.library import Gravity, Ground, RigidBody, contact

RADIUS, MASS, G, E = 0.1, 1.0, 9.81, 0.5
T_END = 0.05


def ball_touching_the_floor(v0):
    pose = np.eye(4)
    pose[2, 3] = RADIUS
    system = ph.compile(_rebuild(pose))
    x0 = system.initial_state({"ball.P": [0.0, 0.0, 0.0, 0.0, 0.0, MASS * v0], "c/constraint.active": [0.0]})
    return system, x0


def height(system, traj):
    return traj.x[:, system.layout["ball.pose"]][:, 6]  # pose = (quaternion, position)


@pytest.mark.parametrize("v0", [-1.0, -0.01])
def test_approaching_start_fires_the_impact_at_once(v0):
    system, x0 = ball_touching_the_floor(v0)
    traj = ph.simulate(system, (0.0, T_END), x0, method="DOP853", rtol=1e-10, atol=1e-12)
    first = traj.events[0]
    assert (first.t, first.name) == (0.0, "c/constraint.impact")
    assert_allclose(first.lost, 0.5 * MASS * v0**2 * (1 - E**2), rtol=1e-12)
    t_flight = 2 * E * abs(v0) / G
    mask = (traj.t > 0) & (traj.t < min(t_flight, T_END) * 0.99)
    t = traj.t[mask]
    assert_allclose(height(system, traj)[mask], RADIUS - E * v0 * t - 0.5 * G * t**2, rtol=0, atol=1e-9)
    b = traj.power_budget()
    assert b.max_residual <= 1e-9 * b.scale, b.table()


def test_approach_below_the_rest_speed_is_plastic():
    """Below `rest_speed` (1 mm/s by default) the impact is plastic: all of the approach
    energy is lost and the ball stays on the floor."""
    v0 = -5e-4
    system, x0 = ball_touching_the_floor(v0)
    traj = ph.simulate(system, (0.0, T_END), x0, method="DOP853", rtol=1e-10, atol=1e-12)
    assert [(e.t, e.name) for e in traj.events] == [(0.0, "c/constraint.impact")]
    assert_allclose(traj.events[0].lost, 0.5 * MASS * v0**2, rtol=1e-12)
    assert_allclose(height(system, traj), RADIUS, rtol=0, atol=1e-12)


def test_separating_start_flies_freely():
    v0 = 1.0
    system, x0 = ball_touching_the_floor(v0)
    traj = ph.simulate(system, (0.0, T_END), x0, method="DOP853", rtol=1e-10, atol=1e-12)
    assert traj.events == []
    assert_allclose(height(system, traj), RADIUS + v0 * traj.t - 0.5 * G * traj.t**2, rtol=0, atol=1e-9)


def test_grazing_start_is_left_to_the_integration():
    """At rest on the floor, detached: the gap leaves zero at zero rate (-g t^2 / 2), so the
    start rule does not fire it; the integration finds the (lossless) touchdown at once.

    The gap at the start is zero up to round-off of either sign (the closed-form contact
    points give -4e-34 m): a grazing start counts as lying above the floor, so the touchdown
    is found whatever that sign, at the start or an instant later, and the ball stays put.
    """
    system, x0 = ball_touching_the_floor(0.0)
    traj = ph.simulate(system, (0.0, T_END), x0, method="DOP853", rtol=1e-10, atol=1e-12)
    assert [e.name for e in traj.events] == ["c/constraint.impact"]
    assert 0.0 <= traj.events[0].t < 1e-12 and traj.events[0].lost < 1e-20
    assert_allclose(height(system, traj), RADIUS, rtol=0, atol=1e-12)


@pytest.mark.parametrize("offset", [-1e-15, 1e-15])
def test_grazing_start_touches_down_whatever_the_round_off_sign(offset):
    """A ball at rest 1e-15 m into or above the floor (round-off of 'exactly touching'):
    either way the contact is made (at once, or after the free fall of the offset) and the
    ball stays on the floor; before the grazing rule, a negative round-off let it fall
    through."""
    system, x0 = ball_touching_the_floor(0.0)
    x0[system.layout["ball.pose"].start + 6] += offset
    traj = ph.simulate(system, (0.0, T_END), x0, method="DOP853", rtol=1e-10, atol=1e-12)
    assert [e.name for e in traj.events] == ["c/constraint.impact"]
    assert traj.events[0].t <= np.sqrt(2 * max(offset, 0.0) / G) * 1.01 + 1e-15
    assert_allclose(height(system, traj), RADIUS + offset, rtol=0, atol=1e-12)


def test_a_unilateral_contact_starting_a_hair_above_warns_and_says_how_to_touch():
    """1 µm above the floor: detached by the rule (gap above max_gap), which the user rarely
    means; the warning says so and how to start in contact, and the ball does fall."""
    pose = np.eye(4)
    pose[2, 3] = RADIUS + 1e-6
    bg = _rebuild(pose)
    system = ph.compile(bg)
    with pytest.warns(ContactWarning, match=r"starts detached, 1e-06 m above .* block `active` the value 1"):
        x0 = system.initial_state()
    assert x0[system.layout["c/constraint.active"]][0] == 0.0
    traj = ph.simulate(system, (0.0, 0.01), x0, method="DOP853", rtol=1e-10, atol=1e-12)
    assert traj.events[0].name == "c/constraint.impact"
    assert_allclose(traj.events[0].t, np.sqrt(2e-6 / G), rtol=1e-6)
    # touching (gap 0) or far above (1 cm): no warning
    for z in (RADIUS, RADIUS + 0.01):
        pose[2, 3] = z
        with warnings.catch_warnings():
            warnings.simplefilter("error", ContactWarning)
            ph.compile(_rebuild(pose)).initial_state()


def _rebuild(pose):
    ball = RigidBody("ball", MASS, [0.4 * MASS * RADIUS**2] * 3, pose=pose)
    ground = Ground("ground")
    bg = ph.BondGraph("ball")
    bg.add(ball, ground, Gravity("gravity", ball),
           contact("sliding_plane", "c", ball, Sphere(RADIUS), ground, Plane(), unilateral=True, restitution=E))
    bg.connect(ball.frame().port, "gravity")
    bg.connect(ball.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    return bg


def test_dense_output_follows_the_bouncing_ball_across_impacts():
    """Issue 17: `Trajectory.sol(t)` interpolates across segments and events: a ball dropped
    from rest 1 mm above the floor (restitution e) against the closed form of its flights
    z(t) = R + h - g t^2 / 2, then after the impact at t1 = sqrt(2 h / g) with speed
    e g t1; at the impact time itself, the state after the jump. A user event records the
    state where it fired."""
    h = 1e-3
    pose = np.eye(4)
    pose[2, 3] = RADIUS + h
    system = ph.compile(_rebuild(pose))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContactWarning)
        x0 = system.initial_state()

    def halfway(t, x):
        return x[system.layout["ball.pose"]][6] - (RADIUS + h / 2)

    traj = ph.simulate(system, (0.0, 0.03), x0, method="DOP853", rtol=1e-11, atol=1e-13, dense_output=True,
                       events=[halfway])
    # the non-terminal user event crossed in the step of a terminal element event: the run
    # goes on (it used to be taken for the terminal event and stop the run there)
    assert traj.status == 0, traj.message
    t1 = np.sqrt(2 * h / G)
    impact = next(e for e in traj.events if e.name == "c/constraint.impact")
    assert_allclose(impact.t, t1, rtol=1e-9)
    z = lambda tt: traj.sol(tt)[..., system.layout["ball.pose"]][..., 6]  # noqa: E731
    before = np.linspace(0.0, t1 * 0.999, 7)
    assert_allclose(z(before), RADIUS + h - 0.5 * G * before**2, rtol=0, atol=1e-11)
    v1 = E * G * t1
    after = np.linspace(t1 * 1.001, t1 + 2 * v1 / G * 0.999, 7)
    assert_allclose(z(after), RADIUS + v1 * (after - t1) - 0.5 * G * (after - t1) ** 2, rtol=0, atol=1e-11)
    P = traj.sol(impact.t)[system.layout["ball.P"]]
    assert_allclose(P[5], MASS * v1, rtol=1e-8)          # after the jump
    assert traj.sol(0.0).shape == (system.layout.size,)
    crossing = [e for e in traj.events if e.name == "halfway"]
    assert crossing and abs(halfway(crossing[0].t, crossing[0].x)) < 1e-12
    with pytest.raises(ph.ParameterError, match="within the run"):
        traj.sol(0.5)
    plain = ph.simulate(system, (0.0, 0.001), x0)
    with pytest.raises(ph.ParameterError, match="dense_output=True"):
        plain.sol(0.0005)
