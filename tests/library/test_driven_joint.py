"""Joints with prescribed marker motion in a simulation: the body follows, the ledger pays.

A body welded (or held by a spherical joint with gravity) to a ground marker that moves
along H_WM(t) = H0 exp(t xi) exp(t eta): for the weld the body pose is H_WM(t) H_NB exactly,
and the work the driven joint supplies equals the change of the stored energy (the ledger's
"supplied" entry for a rheonomic constraint).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp

import porthamiltonian as ph
from porthamiltonian.library import Frame, Gravity, Ground, Joint, RigidBody

from .helpers import TIGHT, Ad, inv, pose7, random_pose, spd, two_exp_motion

HORIZON = 1.0


@pytest.mark.parametrize("seed", [0, 1])
def test_welded_body_follows_a_moving_marker(seed):
    rng = np.random.default_rng(seed)
    motion = two_exp_motion(random_pose(rng), rng.normal(size=6), rng.normal(size=6))
    H_BN = random_pose(rng, 0.3)  # marker N on the body
    body = RigidBody("b", 1.3, spd(rng, 3, 0.2, cond=1.5), com=rng.normal(scale=0.1, size=3))
    ground = Ground("ground")
    weld = Joint("drive", Frame(ground, "M", motion(0.0)[0]), Frame(body, "N", H_BN), kind="weld", motion_a=motion)
    bg = ph.BondGraph("driven")
    bg.add(ground, body, weld)
    bg.connect(ground.frame().port, (weld, "a"))
    bg.connect(body.frame().port, (weld, "b"))
    system = ph.compile(bg)
    H_NB = inv(H_BN)
    T0 = Ad(H_BN) @ motion(0.0)[1]  # body twist = Ad(H_BN) T_N, with T_N the marker's body twist
    x0 = system.initial_state({"b.pose": pose7(motion(0.0)[0] @ H_NB), "b.P": body.M @ T0})
    t = np.linspace(0.0, HORIZON, 21)
    traj = ph.simulate(system, (0.0, HORIZON), x0, t_eval=t, **TIGHT)
    X = np.hstack((traj.state("b.pose"), traj.state("b.P")))
    for ti, x in zip(t, X):
        H, T, _ = motion(ti)
        # measured: 2e-15 and 2e-14 (a weld leaves nothing to integrate but round-off)
        assert_allclose(body.pose_matrix(x), H @ H_NB, rtol=0, atol=1e-10)
        assert_allclose(body.twist(x), Ad(H_BN) @ T, rtol=0, atol=1e-10 * np.linalg.norm(T))
    budget = traj.power_budget()
    kinetic = np.array([0.5 * Ad(H_BN) @ motion(ti)[1] @ body.M @ (Ad(H_BN) @ motion(ti)[1]) for ti in t])
    assert_allclose(budget.H, kinetic, rtol=1e-10, atol=0)
    assert abs(budget.supplied[-1]) > 1e-2 * budget.scale  # the drive does work
    assert_allclose(budget.supplied, kinetic - kinetic[0], rtol=0, atol=1e-8 * budget.scale)
    assert budget.relative_residual < 10 * TIGHT["rtol"], budget.table()


def test_pendulum_on_a_shaken_pivot_keeps_its_length_and_ledger():
    """Spherical joint to a pivot oscillating vertically (Kapitza's pendulum), planar start.

    Reference: in the pivot's accelerating frame, (m L^2 + I) theta'' = -m L (g + z_p'') sin(theta)
    with z_p = a sin(w t), integrated by scipy.
    """
    m, L, g, a, w = 0.8, 0.5, 9.81, 0.05, 12.0

    def pivot(t):
        H = np.eye(4)
        H[2, 3] = a * np.sin(w * t)
        return H, np.r_[0.0, 0.0, 0.0, 0.0, 0.0, a * w * np.cos(w * t)], np.r_[0.0, 0.0, 0.0, 0.0, 0.0, -a * w**2 * np.sin(w * t)]

    body = RigidBody("bob", m, [1e-3, 1e-3, 1e-3], com=[0.0, 0.0, -L], pose=np.eye(4))
    ground = Ground("ground")
    joint = Joint("pivot", Frame(ground, "M", np.eye(4)), body.frame("B"), kind="spherical", motion_a=pivot)
    bg = ph.BondGraph("shaken")
    bg.add(ground, body, joint, Gravity("gravity", body, g=(0.0, 0.0, -g)))
    bg.connect(body.frame().port, "gravity")
    bg.connect(ground.frame().port, (joint, "a"))
    bg.connect(body.frame().port, (joint, "b"))
    system = ph.compile(bg)
    th = 0.6
    R0 = np.array([[1.0, 0, 0], [0, np.cos(th), -np.sin(th)], [0, np.sin(th), np.cos(th)]])
    H0 = np.eye(4)
    H0[:3, :3] = R0
    # start consistent: body origin on the pivot, moving with it (v_B = R^T v_pivot)
    x0 = system.initial_state({"bob.pose": pose7(H0), "bob.P": body.M @ np.r_[0.3, 0.0, 0.0, R0.T @ [0.0, 0.0, a * w]]})
    t = np.linspace(0.0, 1.5, 31)
    traj = ph.simulate(system, (0.0, 1.5), x0, t_eval=t, **TIGHT)
    p = traj.state("bob.pose")[:, 4:]
    assert_allclose(p, np.c_[np.zeros((t.size, 2)), a * np.sin(w * t)], rtol=0, atol=1e-9)
    I_pivot = m * L**2 + 1e-3
    ref = solve_ivp(lambda t, y: [y[1], -m * L * (g - a * w**2 * np.sin(w * t)) * np.sin(y[0]) / I_pivot],
                    (0.0, 1.5), [th, 0.3], t_eval=t, rtol=1e-12, atol=1e-12, method="DOP853")
    R = np.array([body.pose_matrix(x)[:3, :3] for x in traj.state("bob.pose")])
    theta = np.arctan2(R[:, 2, 1], R[:, 1, 1])
    # measured: 1.4e-12 rad after 1.5 s
    assert_allclose(theta, ref.y[0], rtol=0, atol=1e-8)
    budget = traj.power_budget()
    assert np.max(np.abs(budget.supplied)) > 1e-3 * budget.scale
    assert budget.relative_residual < 10 * TIGHT["rtol"], budget.table()
