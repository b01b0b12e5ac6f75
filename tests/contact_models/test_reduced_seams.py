"""Rolling across the seams of piecewise surfaces in reduced contact coordinates: a ball on a
flat B-spline with uneven spans and parametrization rolls as on a plane; on a curved surface
it rolls the same whether the surface is one polynomial patch or the same surface cut into
spans by knot insertion (the seams leave no trace)."""

import numpy as np

import porthamiltonian as ph
from porthamiltonian.geometry import BSplineSurface, Sphere
from porthamiltonian.library import Gravity, Ground, RigidBody, contact
from porthamiltonian.lie import se3

R, M = 0.05, 0.2


def insert_knot(knots, P, t, axis, p):
    """Boehm's knot insertion of `t` into the `axis` direction of a polynomial B-spline
    surface of degree `p` there: the same surface, one more span."""
    P = np.moveaxis(P, axis, 0)
    k = int(np.searchsorted(knots, t, side="right")) - 1
    Q = np.empty((P.shape[0] + 1,) + P.shape[1:])
    for i in range(Q.shape[0]):
        if i <= k - p:
            Q[i] = P[i]
        elif i >= k + 1:
            Q[i] = P[i - 1]
        else:
            a = (t - knots[i]) / (knots[i + p] - knots[i])
            Q[i] = (1 - a) * P[i - 1] + a * P[i]
    return np.insert(knots, k + 1, t), np.moveaxis(Q, 0, axis)


def _rolling_ball(surface, position, velocity, g, normal=(0.0, 0.0, 1.0)):
    """A ball whose centre is at `position`, touching `surface` (on the ground) where its
    outward normal is `normal`, rolling without slip at `velocity` (made tangent)."""
    n = np.asarray(normal, dtype=float)
    velocity = velocity - (velocity @ n) * n
    w = np.cross(n, velocity) / R
    ball = RigidBody("ball", M, 0.4 * M * R * R * np.ones(3), pose=se3.make(np.eye(3), np.asarray(position, float)),
                     twist=np.r_[w, velocity])
    ground = Ground("ground")
    bg = ph.BondGraph("ball_on_patches")
    bg.add(ball, ground, Gravity("gravity", ball, (0.0, 0.0, -g)),
           contact("reduced", "contact", ball, Sphere(R), ground, surface, friction="rolling"))
    bg.connect(ball.frame().port, "gravity")
    bg.connect(ball.frame().port, ("contact", "a"))
    bg.connect(ground.frame().port, ("contact", "b"))
    return ph.compile(bg)


def _centres(system, traj):
    return traj.x[:, system.layout["ball.pose"]][:, 4:]


def test_rolling_across_the_seams_of_a_flat_spline_is_rolling_on_a_plane():
    """A flat bicubic B-spline over [-0.5, 0.5]^2 with uneven knots and unevenly spaced control
    points (a non-affine parametrization whose third derivatives jump at every seam): the
    ball's centre moves on the straight line at constant speed, to 1e-9 m over 2 s."""
    knots = np.array([0, 0, 0, 0, 0.2, 0.45, 0.55, 0.8, 1, 1, 1, 1], dtype=float)
    xs = np.array([-0.5, -0.42, -0.3, -0.05, 0.1, 0.2, 0.36, 0.5])
    ys = np.array([-0.5, -0.35, -0.28, -0.1, 0.05, 0.25, 0.4, 0.5])
    P = np.zeros((8, 8, 3))
    P[..., 0], P[..., 1] = xs[:, None], ys[None, :]
    S = BSplineSurface(knots, knots, 3, 3, P)
    v = np.array([0.3, 0.2, 0.0])
    start = np.array([-0.3, -0.25, R])
    system = _rolling_ball(S, start, v, 9.81)
    t = np.linspace(0.0, 2.0, 41)
    traj = ph.simulate(system, (0.0, 2.0), system.initial_state({}), rtol=1e-11, atol=1e-13, t_eval=t)
    assert traj.status == 0 and all(e.name.endswith(".chart") for e in traj.events)   # the ball's own atlas
    assert np.abs(_centres(system, traj) - (start + np.outer(traj.t, v))).max() < 1e-9
    own = traj.x[:, system.layout["contact/constraint.x"]]              # (ball u, v, floor u, v)
    crossed = [int(np.sum((own[:, k].min() < knots[4:8]) & (knots[4:8] < own[:, k].max()))) for k in (2, 3)]
    assert crossed[0] >= 2 and crossed[1] >= 2, crossed                 # seams in both directions


def test_a_curved_surface_cut_into_spans_rolls_like_the_single_patch():
    """A shallow bicubic bump as one polynomial patch, and the same surface with knots
    inserted at u = 0.3, 0.6 and v = 0.5 (checked equal pointwise): the rolling ball's
    trajectories under gravity agree to 1e-9 m over 1 s while it crosses the new seams."""
    knots = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=float)
    g = np.linspace(-0.5, 0.5, 4)
    P = np.zeros((4, 4, 3))
    P[..., 0], P[..., 1] = g[:, None], g[None, :]
    P[1:3, 1:3, 2] = 0.03                      # a gentle bump (radii of curvature >> R)
    P[1, 2, 2] = 0.05
    single = BSplineSurface(knots, knots, 3, 3, P)
    ku, Q = insert_knot(knots, P, 0.3, 0, 3)
    ku, Q = insert_knot(ku, Q, 0.6, 0, 3)
    kv, Q = insert_knot(knots, Q, 0.5, 1, 3)
    cut = BSplineSurface(ku, kv, 3, 3, Q)
    rng = np.random.default_rng(3)
    for u, w in rng.uniform(0, 1, size=(20, 2)):
        assert np.abs(cut.point(u, w) - single.point(u, w)).max() < 1e-15
    out = []
    for S in (single, cut):
        n = S.normal(0.2, 0.35)
        system = _rolling_ball(S, S.point(0.2, 0.35) + R * n, np.array([0.25, 0.1, 0.0]), 9.81, n)
        x0 = system.initial_state({})
        traj = ph.simulate(system, (0.0, 1.0), x0, rtol=1e-11, atol=1e-13, t_eval=np.linspace(0.0, 1.0, 21))
        assert traj.status == 0 and all(e.name.endswith(".chart") for e in traj.events)
        out.append((system, traj, x0))
    (s1, a, x1), (s2, b, _) = out
    assert np.abs(_centres(s1, a) - _centres(s2, b)).max() < 1e-9
    own = b.x[:, s2.layout["contact/constraint.x"]]
    assert own[:, 2].min() < 0.3 < own[:, 2].max()                       # crossed u = 0.3
    assert np.abs(a.power_budget().residual).max() < 1e-9 * s1.energy(x1)
