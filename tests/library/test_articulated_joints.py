"""Joint-space elements on an `ArticulatedBody`'s joint ports: closed forms and the ledger.

References
----------
- One link on a revolute joint about its principal axis, no gravity: I qdd = -k (q - rest)
  (harmonic, closed form) and I vd = -c v (exponential decay, closed form).
- The energy ledger: stored (kinetic, weight, springs, stops) + dissipated (dampers,
  friction, stop damping) is constant to the integration tolerance.
"""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import ModelError
from porthamiltonian.library import (ArticulatedBody, JointDamper, JointFriction, JointLimit, JointLimitDamper,
                                     JointSpring, add_joint_dynamics)
from porthamiltonian.robots.description import Joint, Link, LinkInertia, RobotDescription

TIGHT = dict(rtol=1e-11, atol=1e-12, method="DOP853")
I_AXIS = 0.3


def wheel(**joint):
    inert = LinkInertia(2.0, (0, 0, 0), np.diag([0.2, 0.25, I_AXIS]))
    return RobotDescription("w", (Link("disk", inert),), (Joint("axle", "revolute", None, "disk", **joint),))


def run(bg, t_end, n=41):
    system = ph.compile(bg)
    t = np.linspace(0, t_end, n)
    return system, ph.simulate(system, (0, t_end), system.initial_state(), t_eval=t, **TIGHT)


def test_joint_spring_is_a_harmonic_oscillator():
    k, rest = 5.0, 0.3
    robot = ArticulatedBody("w", wheel(stiffness=k, rest=rest), gravity=(0, 0, 0), q=[1.0])
    bg = ph.BondGraph("osc")
    bg.add(robot)
    added = add_joint_dynamics(bg, robot)
    assert [type(e).__name__ for e in added] == ["JointSpring"]
    _, tr = run(bg, 3.0)
    q = tr.state("w.q")
    w = np.sqrt(k / I_AXIS)
    assert np.abs(q - (rest + (1.0 - rest) * np.cos(w * tr.t))).max() < 1e-9
    assert tr.power_budget().relative_residual < 1e-9


def test_joint_damper_decays_exponentially():
    c = 0.6
    robot = ArticulatedBody("w", wheel(damping=c), gravity=(0, 0, 0), v=[2.0])
    bg = ph.BondGraph("decay")
    bg.add(robot, JointDamper("d", robot, "axle"))
    bg.connect((robot, robot.joint_port("axle")), ("d", "p"))
    _, tr = run(bg, 2.0)
    v = tr.state("w.v")
    assert np.abs(v - 2.0 * np.exp(-c / I_AXIS * tr.t)).max() < 1e-9
    budget = tr.power_budget()
    assert budget.relative_residual < 1e-9
    # everything the damper took is the kinetic energy lost: 1/2 I v0^2 (1 - e^{-2 c t / I})
    E_lost = 0.5 * I_AXIS * 4.0 * (1 - np.exp(-2 * c / I_AXIS * 2.0))
    assert abs(tr.hamiltonian[0] - tr.hamiltonian[-1] - E_lost) < 1e-9


def test_damped_limited_sprung_tree_closes_its_ledger():
    """A 3-link arm under gravity with damping, friction, springs and compliant, damped stops
    that it hits: the ledger closes to the integration tolerance and the stops are reached."""
    links, joints = [], []
    for k in range(3):
        links.append(Link(f"l{k}", LinkInertia(1.0, (0.0, 0.0, -0.25), np.diag([0.02, 0.02, 0.005]))))
        H = np.eye(4)
        H[2, 3] = -0.5 if k else 0.0
        joints.append(Joint(f"j{k}", "revolute", None if k == 0 else f"l{k - 1}", f"l{k}", placement=H, axis=(0, 1, 0),
                            lower=-0.4, upper=0.4, damping=0.05, friction=0.02, stiffness=1.0, rest=0.1))
    robot = ArticulatedBody("arm", RobotDescription("arm", tuple(links), tuple(joints)), q=[0.3, -0.2, 0.1], v=[3.0, -2.0, 4.0])
    bg = ph.BondGraph("arm")
    bg.add(robot)
    added = add_joint_dynamics(bg, robot, limit_stiffness=200.0, limit_damping=5.0)
    assert len(added) == 15
    system, tr = run(bg, 3.0, 301)
    budget = tr.power_budget()
    # the ledger quadratures carry rtol 1e-11: measured below 1e-11
    assert budget.relative_residual < 1e-9, budget.table()
    q = tr.state("arm.q")
    assert q.max() > 0.4 or q.min() < -0.4   # a stop was hit
    E = tr.energies
    assert any(np.abs(E[e.name]).max() > 0 for e in added if isinstance(e, JointLimit))


def test_joint_elements_reject_bad_input():
    robot = ArticulatedBody("w", wheel(), gravity=(0, 0, 0))
    with pytest.raises(ModelError, match="no finite limit"):
        JointLimit("lim", robot, "axle", stiffness=10.0)
    with pytest.raises(ModelError, match="no joint 'elbow'"):
        JointDamper("d", robot, "elbow", damping=1.0)
    with pytest.raises(Exception, match="speed"):
        JointFriction("f", robot, "axle", friction=1.0, speed=0.0)
    free = ArticulatedBody("b", RobotDescription("b", (Link("a", LinkInertia(1.0, (0, 0, 0), np.eye(3))),),
                                                 (Joint("root", "free", None, "a"),)), gravity=(0, 0, 0))
    with pytest.raises(ModelError, match="one degree of freedom"):
        JointSpring("s", free, "root", stiffness=1.0)
    assert JointLimitDamper  # exported


def test_compiled_and_python_right_hand_sides_agree():
    """The quadruped with joint springs and dampers and four compliant sphere feet pressed
    into the floor: the compiled right-hand side (numba) equals the Python one (the same
    kernels called from Python) to round-off."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import speed

    bg, robot, q0 = speed.quadruped_graph()
    system = ph.compile(bg)
    x0 = system.initial_state({"go1.q": q0})
    tr = ph.simulate(system, (0.0, 0.05), x0, method="RK4", step=1e-3)   # the feet sink in: contacts active
    assert system.compiled == "numba"
    for x in tr.x[[0, -1]]:
        fast = system.rhs(0.05, x)
        slow = system._rhs(0.05, x, system._u0, False)
        assert np.abs(fast - slow).max() <= 1e-12 * max(1.0, np.abs(slow).max())
