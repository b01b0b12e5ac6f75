"""Coulomb friction in impacts (`porthamiltonian.compile.impact_friction`) against Routh's
closed form of a solid ball's oblique impact on a plane.

A solid sphere (mass m, radius r, I = 2/5 m r^2) without spin hits the plane with normal speed
v_n and tangential speed v_t; Newton's law with restitution e gives the normal impulse
P_n = m (1 + e) v_n. The contact point's tangential mobility is isotropic, 1/m + r^2/I = 3.5/m,
so the slip keeps its direction, and a tangential impulse 3.5/m P_t would stop it:

- stick, if (2/7) v_t <= mu (1 + e) v_n: P_t = (2/7) m v_t, the ball leaves rolling at 5/7 v_t,
  losing m v_n^2 (1 - e^2) / 2 + m v_t^2 / 7;
- else slide: P_t = mu P_n, v_t+ = v_t - mu (1 + e) v_n, the spin r omega = 2.5 mu (1 + e) v_n,
  losing m v_n^2 (1 - e^2) / 2 + mu P_n (s- + s+) / 2 (s = v_t - r omega, the slip).

Before, impacts were frictionless (the ball kept v_t and no spin).
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.lie import quaternion
from porthamiltonian.models import build_model

M, R, H, G = 1.0, 0.05, 0.3, 9.81
VN = math.sqrt(2.0 * G * (H - R))
T1 = math.sqrt(2.0 * (H - R) / G)


def _after_impact(vt, direction, mu, e):
    """(velocity, angular velocity, impact) of the ball-drop ball right after its first impact,
    thrown with horizontal speed vt along `direction` (unit, in the plane)."""
    model = build_model("ball-drop", contact="sliding_plane", friction=mu, restitution=e, mass=M, radius=R,
                        height=H)
    system = ph.compile(model.graph)
    x0 = system.initial_state(model.initial)
    lay = system.layout
    P = x0[lay["ball.P"]].copy()
    P[3:5] = M * vt * np.asarray(direction)
    x0[lay["ball.P"]] = P
    traj = ph.simulate(system, (0.0, T1 + 1e-3), x0, rtol=1e-12, atol=1e-14)
    impact = next(ev for ev in traj.events if ev.name.endswith(".impact"))
    x = traj.x[np.flatnonzero(traj.t == impact.t)[-1]]
    Rot = quaternion.to_matrix(x[lay["ball.pose"]][:4])
    P = x[lay["ball.P"]]
    return Rot @ P[3:6] / M, Rot @ P[:3] / (0.4 * M * R * R), impact, traj


@pytest.mark.parametrize("direction", [(1.0, 0.0), (0.6, -0.8)])
@pytest.mark.parametrize("vt, mu, e", [(1.0, 0.3, 0.5),    # stick: (2/7) 1 = 0.29 <= 0.3 * 1.5 * 2.21 = 0.99
                                       (1.0, 0.2, 0.0),    # stick, plastic
                                       (5.0, 0.2, 0.5),    # slide: 1.43 > 0.66
                                       (5.0, 0.1, 0.0)])   # slide, plastic
def test_an_oblique_impact_follows_rouths_closed_form(vt, mu, e, direction):
    v, w, impact, traj = _after_impact(vt, direction, mu, e)
    d = np.array([direction[0], direction[1], 0.0])
    spin_axis = np.cross(np.array([0.0, 0.0, 1.0]), d)   # rolling along d: omega along z x d
    stick = 2.0 / 7.0 * vt <= mu * (1.0 + e) * VN
    if stick:
        vt_after, spin = 5.0 / 7.0 * vt, 5.0 / 7.0 * vt / R
        friction = M * vt * vt / 7.0
    else:
        vt_after, spin = vt - mu * (1.0 + e) * VN, 2.5 * mu * (1.0 + e) * VN / R
        slip_after = vt_after - R * spin
        friction = mu * M * (1.0 + e) * VN * 0.5 * (vt + slip_after)
    assert impact.t == pytest.approx(T1, rel=1e-9)
    # round-off of the impulse solve and of the slip ratio's root (1e-13 of the slip)
    np.testing.assert_allclose(v, vt_after * d + [0.0, 0.0, e * VN], rtol=0, atol=1e-9 * vt)
    np.testing.assert_allclose(w, spin * spin_axis, rtol=0, atol=1e-9 * vt / R)
    assert impact.lost == pytest.approx(0.5 * M * VN * VN * (1.0 - e * e) + friction, rel=1e-9)
    assert traj.power_budget().relative_residual < 1e-10


def test_a_frictionless_contact_keeps_its_tangential_speed():
    """mu = 0: the impulse is the frictionless one, the ball keeps v_t and gets no spin."""
    v, w, impact, traj = _after_impact(2.0, (1.0, 0.0), 0.0, 0.5)
    np.testing.assert_allclose(v, [2.0, 0.0, 0.5 * VN], rtol=0, atol=1e-9)
    np.testing.assert_allclose(w, 0.0, rtol=0, atol=1e-9)
    assert impact.lost == pytest.approx(0.5 * M * VN * VN * 0.75, rel=1e-9)


def test_two_balls_landing_together_stick_and_slide_in_one_impulse():
    """Two balls dropped from the same height land at the same instant: one simultaneous Newton
    impact (the second contact joins the first's impulse, `PHSystem.apply_impulse`) in which
    each contact's friction is settled (one sticks: v_t = 1 m/s, mu 0.3; the other slides:
    v_t = 5 m/s, mu 0.2). The bodies are independent, so each ball ends as Routh's closed form
    for its own impact, and the impact's loss is the sum of both."""
    from porthamiltonian.geometry import Plane, Sphere
    from porthamiltonian.library import Gravity, Ground, RigidBody, SlidingPlaneContact
    from porthamiltonian.lie import se3

    e = 0.5
    balls = {"stick": (1.0, 0.3, 1.0), "slide": (5.0, 0.2, -1.0)}   # v_t, mu, y position
    ground = Ground("ground")
    bg = ph.BondGraph("two_balls")
    bg.add(ground)
    for name, (vt, mu, y) in balls.items():
        ball = RigidBody(name, M, [0.4 * M * R * R] * 3, pose=se3.make(np.eye(3), (0.0, y, H)))
        bg.add(ball, Gravity(f"g-{name}", ball, (0.0, 0.0, -G)))
        bg.connect(ball.frame().port, f"g-{name}")
        bg.add(SlidingPlaneContact(f"c-{name}", ball, Sphere(R), ground, Plane(), friction="coulomb", mu=mu,
                                   restitution=e))
        bg.connect(ball.frame().port, (f"c-{name}", "a"))
        bg.connect(ground.frame().port, (f"c-{name}", "b"))
    system = ph.compile(bg)
    x0 = system.initial_state()
    lay = system.layout
    for name, (vt, mu, y) in balls.items():
        P = x0[lay[f"{name}.P"]].copy()
        P[3] = M * vt
        x0[lay[f"{name}.P"]] = P
    traj = ph.simulate(system, (0.0, T1 + 1e-3), x0, rtol=1e-12, atol=1e-14)
    impacts = [ev for ev in traj.events if ev.name.endswith(".impact")]
    assert len(impacts) == 1 and impacts[0].t == pytest.approx(T1, rel=1e-9)
    x = traj.x[np.flatnonzero(traj.t == impacts[0].t)[-1]]
    lost = 0.5 * 2 * M * VN * VN * (1.0 - e * e)
    for name, (vt, mu, y) in balls.items():
        P = x[lay[f"{name}.P"]]
        Rot = quaternion.to_matrix(x[lay[f"{name}.pose"]][:4])
        v, w = Rot @ P[3:6] / M, Rot @ P[:3] / (0.4 * M * R * R)
        if name == "stick":
            assert 2.0 / 7.0 * vt <= mu * (1.0 + e) * VN
            vt_after, spin, lost = 5.0 / 7.0 * vt, 5.0 / 7.0 * vt / R, lost + M * vt * vt / 7.0
        else:
            assert 2.0 / 7.0 * vt > mu * (1.0 + e) * VN
            vt_after, spin = vt - mu * (1.0 + e) * VN, 2.5 * mu * (1.0 + e) * VN / R
            lost += mu * M * (1.0 + e) * VN * 0.5 * (vt + vt_after - R * spin)
        np.testing.assert_allclose(v, [vt_after, 0.0, e * VN], rtol=0, atol=1e-9 * vt)
        np.testing.assert_allclose(w, [0.0, spin, 0.0], rtol=0, atol=1e-9 * vt / R)
    assert impacts[0].lost == pytest.approx(lost, rel=1e-9)
    assert traj.power_budget().relative_residual < 1e-10
