"""`PHSystem.come_to_rest`: the impulse that zeroes the velocity residuals of the contacts that
are on (the integration's drift), against closed forms.

A solid ball (m, r, I = 2/5 m r^2) on the plane z = 0, its sliding-plane contact on. The
normal row passes through the centre, so a normal residual delta is removed by the impulse
m delta alone (no spin), losing m delta^2 / 2; a stuck contact's slip s (tangential
mobility 3.5 / m) by the tangential impulse m s / 3.5 at the contact point, losing
(m / 3.5) s^2 / 2, after which the ball rolls with the angular momentum about the contact
point it had. The impulse of least kinetic energy is these, whatever the sign: a residual
that separates is removed by a pull. A softened contact keeps its residual: it is its motion.
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import Ground, RigidBody, SlidingPlaneContact
from porthamiltonian.lie import quaternion, se3

from .test_stick_phase import M, R, _ball, _motion


def _with_residual(delta, v0, flag):
    system, x = _ball(v0, mu=0.3, eps=1e-3, rolling=False)
    x[system.layout["c/constraint.active"]] = flag
    x[system.layout["ball.P"].start + 5] = M * delta   # body frame = world frame here: z velocity delta
    return system, x


@pytest.mark.parametrize("delta", [2e-3, -2e-3])   # approaching (into the plane), separating
def test_a_normal_drift_is_removed_and_its_energy_booked(delta):
    system, x = _with_residual(-delta, 0.4, 1.0)   # sliding at 0.4 m/s; residual c = -v_z
    c0 = system.velocity_residuals(0.0, x)   # the one constraint's rows
    assert c0[0] == pytest.approx(delta, rel=1e-12)
    xn, works = system.come_to_rest(0.0, x, work=True)
    v, w, slip = _motion(system, xn)
    # round-off of one 6x6 solve and the least-squares check, on residuals of order 1
    np.testing.assert_allclose(v, [0.4, 0.0, 0.0], rtol=0, atol=1e-14)
    np.testing.assert_allclose(w, 0.0, rtol=0, atol=1e-12)
    supplied, absorbed = works["c/constraint"]
    assert supplied == 0.0   # a scleronomic contact supplies nothing (exactly: its b is zero)
    assert absorbed == pytest.approx(0.5 * M * delta * delta, rel=1e-10)
    # velocities only, exactly: the impulse's state change G lambda has structurally zero pose rows
    assert np.all(xn[system.layout["ball.pose"]] == x[system.layout["ball.pose"]])


def test_a_stuck_contacts_creep_is_stopped_with_the_rolling_closed_form():
    v0, s, delta = 0.3, 4e-4, 1e-3
    system, x = _with_residual(delta, v0, 2.0)   # stuck: the no-slip rows active; creeping at slip s
    P = x[system.layout["ball.P"]]
    P[1] = 0.4 * M * R * R * (v0 - s) / R          # spin about y: slip v - r w_y = s
    x[system.layout["ball.P"]] = P
    assert _motion(system, x)[2] == pytest.approx(s, rel=1e-12)
    before = 0.5 * M * v0 * v0 + 0.2 * M * (v0 - s) ** 2   # translation + spin (I/2 w^2 = m (r w)^2 / 5)
    xn, works = system.come_to_rest(0.0, x, work=True)
    v, w, slip = _motion(system, xn)
    assert abs(slip) < 1e-14
    # angular momentum about the contact point kept: m v r + I w = (7/5) m r v_after
    v_after = (v0 + 0.4 * (v0 - s)) / 1.4
    np.testing.assert_allclose(v, [v_after, 0.0, 0.0], rtol=0, atol=1e-14)
    after = 0.7 * M * v_after * v_after
    absorbed = works["c/constraint"][1]
    assert absorbed == pytest.approx(0.5 * M / 3.5 * s * s + 0.5 * M * delta * delta, rel=1e-9)
    assert before + 0.5 * M * delta * delta - after == pytest.approx(absorbed, rel=1e-9)


def test_a_contact_off_and_a_consistent_state_are_left_alone():
    system, x = _with_residual(-1e-3, 0.4, 0.0)    # off: its residual is a real motion
    assert system.come_to_rest(0.0, x) is x
    system, x = _with_residual(0.0, 0.4, 1.0)      # on, no residual: nothing to do
    xn, works = system.come_to_rest(0.0, x, work=True)
    assert xn is x and works == {}
    q = x[system.layout["ball.pose"]][:4]
    assert np.linalg.norm(quaternion.to_matrix(q) - np.eye(3)) < 1e-15


def test_a_softened_contacts_residual_is_its_motion_and_is_kept():
    ball = RigidBody("ball", M, [0.4 * M * R * R] * 3, pose=se3.make(np.eye(3), (0.0, 0.0, R)))
    ground = Ground("ground")
    bg = ph.BondGraph("soft")
    bg.add(ball, ground, SlidingPlaneContact("c", ball, Sphere(R), ground, Plane(), friction="frictionless",
                                             softening=1e-3))
    bg.connect(ball.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    system = ph.compile(bg)
    x = system.initial_state({"c/constraint.active": 1.0})
    x[system.layout["ball.P"].start + 5] = -M * 1e-3    # sinking into the compliant rows at 1 mm/s
    assert math.isclose(system.velocity_residuals(0.0, x)[0], 1e-3, rel_tol=1e-12)
    assert system.come_to_rest(0.0, x) is x


def test_a_projection_onto_the_constraints_leaves_a_detached_contact_and_a_slip_alone():
    # `project_constraints` (simulate's `projection`, a gait's lift) projects the active rows only,
    # along J (least kinetic energy): before, it pulled a detached ball onto the plane and stopped
    # it, and the normal correction of a sliding ball carried friction (slip 0.4 -> 0.3997 m/s)
    system, x = _ball(0.4, mu=0.3, eps=1e-3)
    x[system.layout["c/constraint.active"]] = 0.0
    x[system.layout["ball.pose"].start + 6] = R + 0.01            # 1 cm above the plane
    x[system.layout["ball.P"].start + 5] = -M * 0.2              # falling at 0.2 m/s
    xp = system.project_constraints(0.0, x)
    np.testing.assert_allclose(xp, x, rtol=0, atol=1e-15)          # quaternion renormalized: round-off
    system, x = _with_residual(-1e-3, 0.4, 1.0)                    # on, sliding at 0.4 m/s, sinking 1 mm/s
    xp = system.project_constraints(0.0, x)
    v, w, slip = _motion(system, xp)
    np.testing.assert_allclose(v, [0.4, 0.0, 0.0], rtol=0, atol=1e-14)   # the normal drift zeroed, the slip kept
    assert slip == pytest.approx(0.4, rel=1e-12)
