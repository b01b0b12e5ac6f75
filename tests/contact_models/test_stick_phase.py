"""The sliding-plane contact's stick phase with Coulomb friction, against closed forms.

A solid ball (m, r, I = 2/5 m r^2) on a plane, friction coefficient mu, slip speed eps. Its
contact point's tangential mobility is 3.5 / m (effective mass m / 3.5), so:

- sliding, the regularized friction mu m g v / sqrt(v^2 + eps^2) reduces the slip v as
  dv/dt = -3.5 mu g v / sqrt(v^2 + eps^2): it reaches eps at
  t = [S(v0) - S(eps)] / (3.5 mu g), S(v) = sqrt(v^2 + eps^2) - eps ln((eps + sqrt(v^2 + eps^2)) / v);
  the stick impulse then removes the last eps, losing (m / 3.5) eps^2 / 2, and the ball rolls
  at 5/7 of its speed (angular momentum about the contact point is kept) with no slip;
- on a slope theta it rolls from rest with the acceleration 5/7 g sin(theta) while the
  no-slip force (2/7) m g sin(theta) lies in the cone mu m g cos(theta), else it slides;
- held back by a spring k at its centre, it rolls as an oscillator of mass 7/5 m
  (x = v0 sin(w t) / w, w^2 = 5 k / (7 m)); the no-slip force (2/7) k x leaves the cone when
  k x = 3.5 mu m g, and the contact slips there.

Before, the friction between impacts was the regularized law only: a ball on a slope crept
(0.3 mm/s at eps = 1 mm/s and theta = 0.3 rad) and never stuck.
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import Gravity, Ground, PointSpring, RigidBody, SlidingPlaneContact
from porthamiltonian.lie import quaternion, se3

M, R, G = 1.0, 0.05, 9.81
TIGHT = dict(method="DOP853", rtol=1e-10, atol=1e-12)


def _ball(v0=0.0, mu=0.3, eps=1e-3, slope=0.0, spring=None, rolling=False):
    """(system, state): the ball touching the plane z = 0 at the origin, moving at v0 along x
    without spin (or `rolling`: spinning at v0 / r about y), gravity tilted by `slope` (a slope down +x), optionally a spring of stiffness
    `spring` pulling its centre back along x."""
    ball = RigidBody("ball", M, [0.4 * M * R * R] * 3, pose=se3.make(np.eye(3), (0.0, 0.0, R)))
    ground = Ground("ground")
    bg = ph.BondGraph("ball")
    bg.add(ball, ground, Gravity("g", ball, (G * math.sin(slope), 0.0, -G * math.cos(slope))))
    bg.connect(ball.frame().port, "g")
    bg.add(SlidingPlaneContact("c", ball, Sphere(R), ground, Plane(), friction="coulomb", mu=mu, eps=eps))
    bg.connect(ball.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    if spring is not None:
        # anchored 1 m behind at the centre's height, rest length 1 m: along x it pulls -k x exactly
        bg.add(PointSpring("k", ball.frame(), ground.frame(), stiffness=spring, rest_length=1.0,
                           point_b=(-1.0, 0.0, R)))
        bg.connect(ball.frame().port, ("k", "a"))
        bg.connect(ground.frame().port, ("k", "b"))
    system = ph.compile(bg)
    x0 = system.initial_state({"c/constraint.active": 1.0})
    P = x0[system.layout["ball.P"]].copy()
    P[3] = M * v0
    P[1] = 0.4 * M * R * R * v0 / R if rolling else 0.0
    x0[system.layout["ball.P"]] = P
    return system, x0


def _motion(system, x):
    """(velocity, angular velocity) of the ball in the world frame, and its slip along x."""
    lay = system.layout
    Rot = quaternion.to_matrix(x[lay["ball.pose"]][:4])
    v, w = Rot @ x[lay["ball.P"]][3:6] / M, Rot @ x[lay["ball.P"]][:3] / (0.4 * M * R * R)
    return v, w, v[0] - R * w[1]


def _S(v, eps):
    root = math.sqrt(v * v + eps * eps)
    return root - eps * math.log((eps + root) / v)


def test_a_sliding_ball_sticks_when_its_slip_falls_below_the_slip_speed():
    v0, mu, eps = 2.0, 0.3, 1e-3
    system, x0 = _ball(v0, mu, eps)
    traj = ph.simulate(system, (0.0, 0.5), x0, **TIGHT)
    assert traj.status == 0, traj.message
    sticks = [e for e in traj.events if e.name == "c/constraint.stick"]
    assert len(sticks) == 1
    assert sticks[0].t == pytest.approx((_S(v0, eps) - _S(eps, eps)) / (3.5 * mu * G), rel=1e-8)
    assert sticks[0].lost == pytest.approx(0.5 * M / 3.5 * eps * eps, rel=1e-8)
    v, w, slip = _motion(system, traj.x[-1])
    assert v[0] == pytest.approx(5.0 / 7.0 * v0, rel=1e-10)
    assert abs(slip) < 1e-9 * v0                      # rolling: no creep
    assert traj.power_budget().relative_residual < 1e-9


@pytest.mark.parametrize("slope", [0.3, 1.2])
def test_a_ball_on_a_slope_rolls_within_the_cone_and_slides_beyond_it(slope):
    mu = 0.3
    system, x0 = _ball(0.0, mu, 1e-3, slope)
    traj = ph.simulate(system, (0.0, 1.0), x0, **TIGHT)
    assert traj.status == 0, traj.message
    v, w, slip = _motion(system, traj.x[-1])
    if math.tan(slope) <= 3.5 * mu:        # rolls from rest, stuck from the start
        assert [e.name for e in traj.events if not e.name.endswith(".chart")] == ["c/constraint.stick"]
        assert v[0] == pytest.approx(5.0 / 7.0 * G * math.sin(slope), rel=1e-9)
        assert abs(slip) < 1e-9
    else:                                  # slides, the slip growing from rest: full friction past eps
        assert not [e for e in traj.events if e.name.endswith(".stick")]
        a = G * (math.sin(slope) - mu * math.cos(slope))
        assert v[0] == pytest.approx(a, rel=1e-3)      # the first ms within eps: mu less than full
        assert slip > 1.0
    assert traj.power_budget().relative_residual < 1e-9


def test_a_ball_held_back_by_a_spring_slips_where_the_cone_is_left():
    v0, mu, k = 1.0, 0.1, 200.0
    omega = math.sqrt(5.0 * k / (7.0 * M))
    system, x0 = _ball(v0, mu, 1e-3, spring=k, rolling=True)
    traj = ph.simulate(system, (0.0, 0.5), x0, **TIGHT)
    assert traj.status == 0, traj.message
    names = [e.name for e in traj.events if not e.name.endswith(".chart")]
    assert names[:2] == ["c/constraint.stick", "c/constraint.slip"]
    slip = next(e for e in traj.events if e.name.endswith(".slip"))
    x_slip = 3.5 * mu * M * G / k
    assert v0 / omega > x_slip                            # the premise: the spring stretches that far
    assert slip.t == pytest.approx(math.asin(x_slip * omega / v0) / omega, rel=1e-8)
    assert slip.lost == 0.0
    assert traj.power_budget().relative_residual < 1e-9
