"""Touchdown guards on a ball thrown onto the ground (`library.touchdown`): ballistic closed forms.

A ball (radius r) leaves height z0 with horizontal speed vx; its centre is at
x = vx t, z = z0 - g t^2 / 2, so it meets the floor at t1 = sqrt(2 (z0 - r) / g). Its
contact has a guard armed once the centre is past x_arm (a point of the ground ahead of
which the ball must be, along +x), which it passes at t_arm = x_arm / vx.
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import Gravity, Ground, RigidBody, TouchdownGuard, contact

G, RADIUS, Z0, VX = 9.81, 0.1, 0.6, 2.0
T1 = math.sqrt(2 * (Z0 - RADIUS) / G)
LAWS = {"sliding_plane": dict(friction="frictionless", restitution=0.5),
        "compliant": dict(stiffness=1e5, damping=50.0, friction=0.0)}
EVENT = {"sliding_plane": "ball_floor/constraint.impact", "compliant": "ball_floor/spring.touch"}


def throw(kind, x_arm, t_end):
    ball, ground = RigidBody("ball", 1.0, [4e-3] * 3, pose=np.array(
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, Z0], [0, 0, 0, 1]], dtype=float), twist=(0, 0, 0, VX, 0, 0)), Ground()
    guard = TouchdownGuard((ball, (0, 0, 0)), (ground, (x_arm, 0, 0)), (1, 0, 0))
    bg = ph.BondGraph("throw")
    bg.add(ball, ground, Gravity("gravity", ball, (0, 0, -G)),
           contact(kind, "ball_floor", ball, Sphere(RADIUS), ground, Plane(), guard=guard, **LAWS[kind]))
    bg.connect(ball.frame().port, "gravity")
    bg.connect(ball.frame().port, ("ball_floor", "a"))
    bg.connect(ground.frame().port, ("ball_floor", "b"))
    system = ph.compile(bg)
    return system, ph.simulate(system, (0.0, t_end), system.initial_state(), method="DOP853", rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", list(LAWS))
def test_an_armed_guard_lets_the_ball_land(kind):
    system, traj = throw(kind, x_arm=-1.0, t_end=T1 + 0.01)
    touch = [r for r in traj.events if r.name == EVENT[kind]]
    assert len(touch) == 1 and "guard" not in touch[0].message
    assert touch[0].t == pytest.approx(T1, abs=1e-9)
    z = traj.x[-1][system.layout["ball.pose"]][6]
    assert z > RADIUS - 0.01    # it did not fall through the floor


@pytest.mark.parametrize("kind", list(LAWS))
def test_a_guard_not_yet_armed_lets_the_ball_through(kind):
    """Touching down at x = vx t1 before the guard arms: no contact; the guard arms at
    t_arm with the ball (r + g t_arm^2 / 2 - z0) deep in the floor: still no contact."""
    x_arm = VX * T1 + 0.1
    t_arm = x_arm / VX
    system, traj = throw(kind, x_arm=x_arm, t_end=t_arm + 0.02)
    events = [r for r in traj.events if r.name == EVENT[kind]]
    assert len(events) == 1
    assert events[0].t == pytest.approx(t_arm, abs=1e-9)
    depth = RADIUS + 0.5 * G * t_arm ** 2 - Z0
    assert f"touchdown guard armed {depth:.3g} m inside the surface" in events[0].message
    z = traj.x[-1][system.layout["ball.pose"]][6]
    assert z == pytest.approx(Z0 - 0.5 * G * traj.t[-1] ** 2, abs=1e-9)    # free fall throughout


def test_a_bilateral_contact_takes_no_guard():
    ball, ground = RigidBody("ball", 1.0, [4e-3] * 3), Ground()
    guard = TouchdownGuard((ball, (0, 0, 0)), (ground, (0, 0, 0)), (1, 0, 0))
    with pytest.raises(ph.ParameterError, match="bilateral"):
        contact("sliding_plane", "c", ball, Sphere(RADIUS), ground, Plane(), unilateral=False, guard=guard)
    with pytest.raises(ph.ParameterError, match="TouchdownGuard"):
        contact("compliant", "c", ball, Sphere(RADIUS), ground, Plane(), guard=(1, 0, 0))
