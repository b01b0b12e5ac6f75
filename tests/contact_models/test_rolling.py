"""A sphere rolling and sliding on a plane under gravity (issue 5, acceptance 3 and 6).

The ball starts in static contact (penetration delta0 = m g / k, centre at r - delta0).
The contact frame's origin lies on the average tangent plane, at depth
rho = r - alpha delta0 below the centre, so "rolling without slip" is v = w x (0, 0, rho).
Forces on the ball are read from the system's right-hand side, the penetration from the
closed form r - z.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph

from .conftest import assert_ledger_closes, ball, body_on_plane, world_force, world_momenta
from .reference import G, sliding_sphere_final_speed

M, R_BALL, K, C = 1.0, 0.1, 1e4, 20.0
DELTA0 = M * G / K
I_BALL = 0.4 * M * R_BALL**2


def ball_at_rest_contact(twist, **law):
    return body_on_plane(*ball(M, R_BALL, R_BALL - DELTA0, twist=twist), gravity=True, stiffness=K, damping=C, **law)


def velocities(traj):
    """World velocity of the centre and world angular velocity, (N, 3) each."""
    p, L = world_momenta(traj)
    return p / M, L / I_BALL


def slip_velocity(traj, rho):
    """Velocity of the ball's material point at depth rho below the centre (world)."""
    v, w = velocities(traj)
    return v + np.cross(w, [0.0, 0.0, -rho])


# ------------------------------------------------------------------ rolling
W_ROLL = np.array([3.0, 8.0, 0.0])  # rad/s, horizontal axis


@pytest.mark.parametrize("alpha, rho", [
    (0.0, R_BALL), (0.5, R_BALL - 0.5 * DELTA0), (1.0, R_BALL - DELTA0),
    (1.0, R_BALL),  # rolls on the sphere's radius while the frame is on the plane: slides
], ids=["alpha0", "alpha0.5", "alpha1", "alpha1-wrong-radius"])
def test_rolling_does_not_charge_the_tangential_spring(alpha, rho):
    twist = np.concatenate((W_ROLL, np.cross(W_ROLL, [0.0, 0.0, rho])))
    system, x0 = ball_at_rest_contact(twist, friction=2.0, alpha=alpha)
    traj = ph.simulate(system, (0.0, 0.5), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    s = traj.state("c/spring.s")
    slide = abs(rho - (R_BALL - alpha * DELTA0)) * np.linalg.norm(W_ROLL)  # sliding speed [m/s]
    if slide > 0:  # control: an initial sliding speed of 8e-3 m/s does charge it
        assert np.abs(s[:, 1:]).max() > 1e-6  # measured 3e-5 m before the ball adapts to rolling
        return
    # measured max |s| 3e-12 m (atol 1e-12 per step over ~130 steps)
    assert_allclose(s, 0.0, atol=1e-10)
    v, w = velocities(traj)
    assert_allclose(v, np.broadcast_to(twist[3:], v.shape), rtol=0, atol=1e-10)  # no force at all
    assert_allclose(w, np.broadcast_to(W_ROLL, w.shape), rtol=0, atol=1e-9)
    assert_allclose(R_BALL - traj.state("ball.pose")[:, 6], DELTA0, rtol=1e-8)
    b = assert_ledger_closes(traj, 1e-11)
    assert_allclose(b.dissipated[-1], 0.0, atol=1e-12)


# ------------------------------------------------------------------ sliding
MU, K_T, C_SLIP = 0.3, 1e3, 0.1  # c_slip / k_t = 0.1 ms; excess force c_slip v <= 0.1 N at 1 m/s
# the anchor slips at v_slip + (c_slip / k_t) a while the sliding decelerates at a (< 40 m/s^2
# here): the regularization allows |f_t| - mu N up to c_slip (v_slip + 0.01 m/s)
V_REG = 0.01
V0 = np.array([0.8, 0.6, 0.0])  # m/s, |v0| = 1, oblique to the sphere's chart axes
T_SLIDE = (2.0 / 7.0) * 1.0 / (MU * G)  # duration of the sliding phase, rigid Coulomb [s]


def sliding(v0=V0, **law):
    """The viscous slip law with these explicit parameters (the Dahl default is tested in
    test_friction_defaults)."""
    system, x0 = ball_at_rest_contact(np.concatenate((np.zeros(3), v0)), friction=MU, tangential_stiffness=K_T,
                                      slip_damping=C_SLIP, alpha=0.0, friction_law="viscous", **law)
    return system, x0


def sliding_mask(traj, rho=R_BALL):
    """Samples of the sliding phase: after the spring has charged (3 ms = mu N / (k_t v0))
    and before the sliding speed first drops below 0.05 m/s (later, in stick, the
    spring-ball oscillation moves the contact point without slipping)."""
    speed = np.linalg.norm(slip_velocity(traj, rho)[:, :2], axis=1)
    slow = speed < 0.05
    t_stop = traj.t[np.argmax(slow)] if slow.any() else np.inf  # still sliding at the end of the run
    assert t_stop > 0.0
    return (traj.t > 0.01) & (traj.t < t_stop), speed


def sliding_phase_forces(system, traj):
    """(|f_t|, N, cos(f_t, v_slip), |v_slip|) of the ball at the sliding samples."""
    mask, _ = sliding_mask(traj)
    vs = slip_velocity(traj, R_BALL)
    rows = []
    for t, x, u in zip(traj.t[mask], traj.x[mask], vs[mask]):
        F = world_force(system, t, x)
        speed = np.linalg.norm(u[:2])
        rows.append((np.linalg.norm(F[:2]), F[2] + M * G, F[:2] @ u[:2] / (np.linalg.norm(F[:2]) * speed), speed))
    return np.array(rows)


@pytest.fixture(scope="module", params=[(1.0, 0.0, 0.0), (0.8, 0.6, 0.0)], ids=["along-x", "oblique"])
def coulomb_slide(request):
    """Sliding with no tangential damper: the spring-slip branch alone carries the friction.
    Launched along a body axis and obliquely: friction must not depend on the direction."""
    system, x0 = sliding(np.array(request.param), tangential_damping=0.0)
    return system, ph.simulate(system, (0.0, 0.15), x0, rtol=1e-9, atol=1e-11, method="DOP853")


def test_sliding_ball_feels_coulomb_friction(coulomb_slide):
    system, traj = coulomb_slide
    rows = sliding_phase_forces(system, traj)
    assert len(rows) > 20
    ft, N, cos, speed = rows.T
    assert_allclose(N, M * G, rtol=1e-3)  # static normal load (measured 2e-5)
    # at the friction limit, up to the regularization: mu N <= |f_t| <= mu N + c_slip |v_slip|
    assert np.all(ft >= MU * N * (1 - 1e-6))
    assert np.all(ft <= MU * N + C_SLIP * (speed + V_REG))
    s = traj.state("c/spring.s")
    assert np.linalg.norm(s[:, 1:], axis=1).max() > 0.9 * MU * M * G / K_T  # the spring is charged


def test_friction_opposes_the_sliding_velocity(coulomb_slide):
    """The sliding velocity keeps its direction, so the regularized slip settles exactly
    against it (measured angle 0 along x; the check is at the integration tolerance)."""
    system, traj = coulomb_slide
    cos = sliding_phase_forces(system, traj)[:, 2]
    angle = np.arccos(np.clip(-cos, -1.0, 1.0))
    assert angle.max() < 1e-4, f"friction force {angle.max():.3g} rad off the sliding direction"


def test_sliding_ends_in_rolling_with_slip_losses_in_the_ledger(coulomb_slide):
    system, traj = coulomb_slide
    speed = np.linalg.norm(slip_velocity(traj, R_BALL)[:, :2], axis=1)
    stop = traj.t[np.argmax(speed < 0.01)]  # the sliding speed falls linearly to zero
    # rigid Coulomb sliding lasts (2/7) v0 / (mu g); the regularization (c_slip v < 0.1 N of
    # 2.9 N) shortens it and the 3 ms charge of the spring lengthens it (measured -0.8 %)
    assert_allclose(stop, T_SLIDE, rtol=0.02)
    b = assert_ledger_closes(traj, 1e-8)
    assert b.labels["c/slip"].startswith("SlipFriction")
    slip = b.entries["dissipated"]["c/slip"]
    # the kinetic energy lost, 1/7 J, goes to slip except what the spring holds at the stick
    assert slip[-1] > 0.9 / 7
    assert np.all(np.diff(slip) >= -1e-12)


@pytest.fixture(scope="module")
def slide_to_roll():
    """Sliding then rolling, with a tangential damper that settles the stick oscillation
    (zeta about 0.7 for the effective mass m I / (I + m r^2) = 2/7 kg)."""
    system, x0 = sliding(tangential_damping=24.0)
    return system, ph.simulate(system, (0.0, 0.6), x0, rtol=1e-9, atol=1e-11, method="DOP853")


def test_sliding_ball_rolls_at_five_sevenths(slide_to_roll):
    system, traj = slide_to_roll
    v, w = velocities(traj)
    v_f = sliding_sphere_final_speed(1.0, M, I_BALL, R_BALL)
    assert_allclose(v_f, 5 / 7, rtol=1e-15)
    # measured |v - 5/7 v0| 1e-12 after 0.5 s of damped stick oscillation (decay e^-41t)
    assert_allclose(v[-1], v_f * V0, rtol=0, atol=1e-6)
    assert_allclose(np.cross(w[-1], [0, 0, R_BALL]), v[-1], rtol=0, atol=1e-6)  # rolling
    # angular momentum about the contact point, I w + m r e_z x v, is conserved throughout
    Lc = I_BALL * w + M * R_BALL * np.cross([0.0, 0.0, 1.0], v)
    assert_allclose(Lc, np.broadcast_to(Lc[0], Lc.shape), rtol=0, atol=1e-7)
    s = traj.state("c/spring.s")
    assert_allclose(s[-1], 0.0, atol=1e-8)  # the spring has relaxed


def test_spring_force_sits_at_the_friction_limit_while_sliding(slide_to_roll):
    system, traj = slide_to_roll
    s = traj.state("c/spring.s")
    N = K * (R_BALL - traj.state("ball.pose")[:, 6])  # elastic normal force, closed-form delta
    sliding, speed = sliding_mask(traj)
    assert sliding.sum() > 10
    f_spring = K_T * np.linalg.norm(s[:, 1:], axis=1)
    # |k_t s| = mu N + c_slip v_anchor, v_anchor <= v_slip: within the regularization
    assert np.all(f_spring[sliding] >= MU * N[sliding] * (1 - 1e-6))
    assert np.all(f_spring[sliding] <= MU * N[sliding] + C_SLIP * (speed[sliding] + V_REG))


def test_slide_to_roll_ledger_matches_the_kinetic_energy_lost(slide_to_roll):
    system, traj = slide_to_roll
    b = assert_ledger_closes(traj, 1e-8)
    v_f = sliding_sphere_final_speed(1.0, M, I_BALL, R_BALL)
    lost = 0.5 * M * 1.0 - 0.5 * (M + I_BALL / R_BALL**2) * v_f**2  # = 1/7 J
    assert_allclose(b.dissipated[-1] + b.lost[-1], lost, rtol=1e-6)
    assert b.entries["dissipated"]["c/slip"][-1] > 0.0


def test_sliding_ball_feels_coulomb_friction_with_default_tangential_damping():
    """The default tangential damper must not add viscous drag beyond the friction limit."""
    system, x0 = sliding()
    traj = ph.simulate(system, (0.0, 0.05), x0, rtol=1e-9, atol=1e-11, method="DOP853")
    rows = sliding_phase_forces(system, traj)
    ft, N, cos, speed = rows.T
    assert np.all(ft <= MU * N + C_SLIP * (speed + V_REG)), (
        f"tangential force up to {ft.max():.3g} N while sliding, friction limit mu N = {MU * M * G:.3g} N"
    )
