"""load_urdf against Pinocchio's own parse of the same files (example-robot-data).

Pinocchio merges fixed joints into their moving ancestor; the description keeps them, so the
comparison goes through `pinmodel.pinocchio_model`, which merges the description's fixed joints
the same way, and then compares per moving joint: placement (model.jointPlacements), axis (the
joint's LOCAL Jacobian column), spatial inertia in the joint frame (model.inertias), position,
effort and velocity limits, damping and friction. Round-off bound 1e-12: both sides compute
the same rpy -> matrix products and inertia sums in double precision.
"""

import re
import warnings

import numpy as np
import pinocchio as pin
import pytest

from porthamiltonian.errors import RobotFileWarning
from porthamiltonian.robots import example, example_robots, load_urdf

from .pinmodel import joint_axis, pinocchio_model

ROBOTS = [name for name in ("go1", "solo12", "anymal_c", "talos", "g1", "a1") if name in example_robots()]
TOL = 1e-12


def _load(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RobotFileWarning)
        description = load_urdf(example(name), mimic="independent", balance_inertia=True)
    excess = {}
    for w in caught:
        m = re.search(r"link '([^']+)' <inertial>: principal moments break the triangle inequality by (\S+) kg", str(w.message))
        assert m, str(w.message)
        excess[m.group(1)] = float(m.group(2))
    return description, excess


def _close(a, b, tol=TOL):
    scale = max(1.0, float(np.max(np.abs(b))))
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) <= tol * scale


@pytest.fixture(scope="module", params=ROBOTS)
def robot(request):
    name = request.param
    ref = pin.buildModelFromUrdf(str(example(name)), pin.JointModelFreeFlyer())
    description, excess = _load(name)
    ours, link_frame = pinocchio_model(description)
    return name, description, excess, ours, link_frame, ref


def test_examples_listed():
    # example-robot-data 6.0 ships these; the acceptance robots must all be there
    assert {"go1", "solo12", "anymal_c", "talos", "g1"} <= set(example_robots())


def test_same_moving_joints(robot):
    name, description, excess, ours, link_frame, ref = robot
    # the order may differ (Pinocchio's parser and the description's topological order visit
    # siblings differently): the joints are matched by name
    assert sorted(ours.names) == sorted(ref.names)
    assert ours.nv == ref.nv == description.nv
    for jid in range(1, ref.njoints):
        o = ours.getJointId(ref.names[jid])
        assert ours.names[ours.parents[o]] == ref.names[ref.parents[jid]]


def test_placements_and_axes(robot):
    name, description, excess, ours, link_frame, ref = robot
    for jid in range(1, ref.njoints):
        o = ours.getJointId(ref.names[jid])
        assert _close(ours.jointPlacements[o].homogeneous, ref.jointPlacements[jid].homogeneous), ref.names[jid]
        if ref.joints[jid].nv == 1:
            kind_o, axis_o = joint_axis(ours, o)
            kind_r, axis_r = joint_axis(ref, jid)
            assert kind_o == kind_r and _close(axis_o, axis_r), ref.names[jid]


def test_inertias(robot):
    name, description, excess, ours, link_frame, ref = robot
    balanced_at = {}
    for link, e in excess.items():
        name_ = ours.names[link_frame[link][0]]
        balanced_at[name_] = balanced_at.get(name_, 0.0) + e
    assert (name in ("go1", "anymal_c")) == bool(excess)  # the two files whose inertias break the triangle inequality
    for jid in range(1, ref.njoints):
        Yo, Yr = ours.inertias[ours.getJointId(ref.names[jid])], ref.inertias[jid]
        assert abs(Yo.mass - Yr.mass) <= TOL * max(1.0, Yr.mass), ref.names[jid]
        assert _close(Yo.mass * Yo.lever, Yr.mass * Yr.lever), ref.names[jid]
        dI = Yo.inertia - Yr.inertia
        if ref.names[jid] in balanced_at:
            # balancing adds e/2 to two principal moments of each repaired link: trace grows by e, and
            # the change is positive semidefinite
            assert abs(np.trace(dI) - balanced_at[ref.names[jid]]) <= TOL
            assert np.linalg.eigvalsh(dI).min() >= -TOL
        else:
            assert _close(Yo.inertia, Yr.inertia), ref.names[jid]


def test_limits_and_dynamics(robot):
    name, description, excess, ours, link_frame, ref = robot
    inf = np.finfo(float).max
    checked = 0
    for jid in range(1, ref.njoints):
        joint = description.joint(ref.names[jid])
        if joint.kind not in ("revolute", "prismatic"):
            continue
        iq, iv = ref.joints[jid].idx_q, ref.joints[jid].idx_v
        assert _close(joint.lower, ref.lowerPositionLimit[iq]) and _close(joint.upper, ref.upperPositionLimit[iq]), joint.name
        for ours_value, ref_value in ((joint.effort, ref.effortLimit[iv]), (joint.velocity, ref.velocityLimit[iv])):
            assert (ours_value == np.inf and ref_value >= inf) or _close(ours_value, ref_value), joint.name
        assert _close(joint.damping, ref.damping[iv]) and _close(joint.friction, ref.friction[iv]), joint.name
        checked += 1
    assert checked >= 12
