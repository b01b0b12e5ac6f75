"""DistanceJoint (a massless link between body points) by finite differences, and as a pendulum."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.library import DistanceConstraint, DistanceJoint, Frame, Ground, PointMass, RigidBody

from .helpers import TIGHT, derivative, pose7, random_pose, two_exp_motion

H = 1e-3


@pytest.mark.parametrize("ground_a", [False, True])
def test_rates_by_finite_differences(ground_a):
    rng = np.random.default_rng(5 + ground_a)
    a = Ground("g") if ground_a else RigidBody("a", 1.0, [0.1, 0.1, 0.1])
    b = RigidBody("b", 1.0, [0.1, 0.1, 0.1])
    fa = Frame(a, "B", random_pose(rng, 0.3))
    fb = Frame(b, "B", random_pose(rng, 0.3))
    j = DistanceJoint("link", fa, fb, 0.7, point_a=rng.normal(size=3) * 0.2, point_b=rng.normal(size=3) * 0.2)
    ma = None if ground_a else two_exp_motion(random_pose(rng), rng.normal(size=6), rng.normal(size=6))
    mb = two_exp_motion(random_pose(rng), rng.normal(size=6), rng.normal(size=6))

    def refs(t):
        return ((pose7(ma(t)[0]),) if ma else ()) + (pose7(mb(t)[0]),)

    def flows(t):
        return ((ma(t)[1], ma(t)[2]) if ma else (np.zeros(6), np.zeros(6))), (mb(t)[1], mb(t)[2])

    def c(t):
        (Ta, _), (Tb, _) = flows(t)
        return j.jacobian(t, np.zeros(0), refs(t)) @ np.concatenate((Ta, Tb))

    def gap(t):
        return j.gap(t, np.zeros(0), refs(t))

    for t in (0.0, 0.4):
        (Ta, dTa), (Tb, dTb) = flows(t)
        J = j.jacobian(t, np.zeros(0), refs(t))
        beta = j.acceleration_bias(t, np.zeros(0), refs(t), (Ta, Tb))
        # measured ~1e-11 (4th-order differences of smooth motions of unit size)
        assert_allclose(c(t), derivative(gap, t, H), rtol=0, atol=1e-9)
        assert_allclose(J @ np.concatenate((dTa, dTb)) + beta, derivative(c, t, H), rtol=0, atol=1e-8)


def test_link_to_ground_is_the_point_mass_pendulum():
    """A small ball on a massless link to the ground swings like PointMass + DistanceConstraint."""
    m, L, g = 1.0, 0.8, 9.81
    theta0 = 1.0
    r0 = L * np.array([np.sin(theta0), 0.0, -np.cos(theta0)])
    H0 = np.eye(4)
    H0[:3, 3] = r0
    ball = RigidBody("ball", m, [1e-8] * 3, pose=H0)  # point-like: rotation decoupled
    G = Ground("ground")
    bg = ph.BondGraph("link")
    from porthamiltonian.library import Gravity

    bg.add(ball, G, Gravity("grav", ball, g=(0, 0, -g)), DistanceJoint("link", G.frame(), ball.frame(), L))
    bg.connect(ball.frame().port, "grav")
    bg.connect(G.frame().port, ("link", "a"))
    bg.connect(ball.frame().port, ("link", "b"))
    s = ph.compile(bg)
    tr = ph.simulate(s, (0, 2.0), s.initial_state(), t_eval=np.linspace(0, 2, 41), **TIGHT)

    ref = ph.BondGraph("pm")
    pm = PointMass("pm", m, dim=3, r0=r0)
    ref.add(pm, ph.Se("w", [0, 0, -m * g]), DistanceConstraint("rod", pm, L))
    ref.connect("w", (pm, "p"))
    ref.connect((pm, "p"), "rod")
    sr = ph.compile(ref)
    trr = ph.simulate(sr, (0, 2.0), sr.initial_state(), t_eval=np.linspace(0, 2, 41), **TIGHT)
    # same motion to integration tolerance (measured ~1e-10 m)
    assert_allclose(tr.state("ball.pose")[:, 4:], trr.state("pm.r"), rtol=0, atol=1e-8)
    assert tr.power_budget().relative_residual < 1e-9
