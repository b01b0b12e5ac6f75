"""Heavy symmetric top on a spherical joint: steady precession at the closed-form rate.

Reference (e.g. Goldstein sec. 5.7): a top of mass m, centre of mass at distance r from
the fixed tip along its symmetry axis, moments I1 (transverse, about the centre of mass) and
I3 (axial); theta the angle between the axis and the upward vertical, Omega the precession
rate about the vertical and w3 the axial component of the angular velocity. The axis
precesses steadily, without nutation, if

    I1' cos(theta) Omega^2 - I3 w3 Omega + m g r = 0,     I1' = I1 + m r^2.

Started on that motion, the axis keeps its tilt theta and its azimuth grows as Omega t.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.library import Gravity, Ground, Joint, RigidBody

from .helpers import TIGHT, pose, pose7, rot

M, R_COM, G = 0.5, 0.1, 9.81
I1, I3 = 2e-3, 3e-3
W3 = 60.0

# (tilt, root of the quadratic): slow and fast precession of a raised top, and a hanging top
# (cos theta < 0: one positive and one negative root)
CASES = [
    pytest.param(0.4, "slow", id="raised-slow"),
    pytest.param(0.4, "fast", id="raised-fast"),
    pytest.param(2.2, "positive", id="hanging"),
]


def precession_rate(theta, root):
    I1p = I1 + M * R_COM**2
    a, b, c = I1p * np.cos(theta), -I3 * W3, M * G * R_COM
    roots = np.sort((-b + np.array([-1.0, 1.0]) * np.sqrt(b * b - 4 * a * c)) / (2 * a))
    if root == "slow":
        return roots[np.argmin(np.abs(roots))]
    if root == "fast":
        return roots[np.argmax(np.abs(roots))]
    return roots[roots > 0][0]


def top_system(theta, Omega, azimuth=0.3):
    """Body frame at the tip, symmetry axis = body z, started on the steady precession."""
    R0 = rot([0.0, 0.0, azimuth]) @ rot([theta, 0.0, 0.0])
    w_body = R0.T @ np.array([0.0, 0.0, Omega])
    w_body[2] = W3  # the spin adds to the axial component only
    top = RigidBody("top", M, [I1, I1, I3], com=[0.0, 0.0, R_COM])
    ground = Ground("ground")
    tip = Joint("tip", ground.frame("B"), top.frame("B"), kind="spherical")
    bg = ph.BondGraph("top")
    bg.add(top, ground, tip, Gravity("gravity", top, g=(0.0, 0.0, -G)))
    bg.connect(top.frame("B").port, "gravity")
    bg.connect(ground.frame("B").port, (tip, "a"))
    bg.connect(top.frame("B").port, (tip, "b"))
    system = ph.compile(bg)
    x0 = system.initial_state({"top.pose": pose7(pose(R0, np.zeros(3))), "top.P": top.M @ np.r_[w_body, 0.0, 0.0, 0.0]})
    return system, top, x0


@pytest.mark.parametrize("theta, root", CASES)
def test_steady_precession_rate_is_the_closed_form(theta, root):
    Omega = precession_rate(theta, root)
    system, top, x0 = top_system(theta, Omega)
    horizon = min(1.0, 2 * np.pi / abs(Omega))
    t = np.linspace(0.0, horizon, 101)
    traj = ph.simulate(system, (0.0, horizon), x0, t_eval=t, **TIGHT)
    X = np.hstack((traj.state("top.pose"), traj.state("top.P")))
    axis = np.array([top.pose_matrix(x)[:3, 2] for x in X])
    tilt = np.arccos(np.clip(axis[:, 2], -1.0, 1.0))
    azimuth = np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))
    # no nutation; measured: at most 2.3e-10 rad
    assert_allclose(tilt, theta, rtol=0, atol=1e-8)
    # azimuth = azimuth(0) + Omega t; measured: at most 2e-10 relative to the angle swept
    assert_allclose(azimuth - azimuth[0], Omega * t, rtol=0, atol=1e-8 * abs(Omega) * horizon)
    slope = np.polyfit(t, azimuth, 1)[0]
    assert_allclose(slope, Omega, rtol=1e-8, atol=0)  # measured: 1.6e-10 relative
    # axial spin unchanged, tip fixed, energy ledger closed
    w3 = np.array([top.twist(x)[2] for x in X])
    assert_allclose(w3, W3, rtol=1e-9, atol=0)
    assert_allclose(traj.state("top.pose")[:, 4:], 0.0, rtol=0, atol=1e-10 * R_COM)
    assert traj.power_budget().relative_residual < 10 * TIGHT["rtol"]


@pytest.mark.parametrize("theta, root", CASES)
def test_off_the_closed_form_rate_the_top_nutates(theta, root):
    """The check above can fail: 1 % off the closed-form rate, the tilt oscillates visibly."""
    Omega = precession_rate(theta, root)
    system, top, x0 = top_system(theta, 1.01 * Omega)
    traj = ph.simulate(system, (0.0, 0.2), x0, t_eval=np.linspace(0.0, 0.2, 41), **TIGHT)
    axis = np.array([top.pose_matrix(x)[:3, 2] for x in traj.state("top.pose")])
    tilt = np.arccos(np.clip(axis[:, 2], -1.0, 1.0))
    assert np.max(np.abs(tilt - theta)) > 1e-5
