"""robot-drop: real robots from their URDFs dropped on the ground.

References: the energy ledger (stored kinetic + weight + joint springs + contact, supplied,
dissipated by joint dampers and contacts) closes to the integration tolerance; at rest the feet
carry the robot's weight m g (the static balance of the free base).
"""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.diagnostics.contact_forces import contact_forces, contact_names
from porthamiltonian.errors import ParameterError
from porthamiltonian.models import build_model
from porthamiltonian.models.robot_drop import ROBOTS, robot_description

pytest.importorskip("yourdfpy")

TIGHT = dict(method="DOP853", rtol=1e-10, atol=1e-12)


def _run(model, t_end, n=5, **solver):
    system = ph.compile(model.graph)
    return system, ph.simulate(system, (0.0, t_end), system.initial_state(model.initial),
                               t_eval=np.linspace(0.0, t_end, n), **(solver or TIGHT))


@pytest.mark.parametrize("robot", ROBOTS)
def test_drop_closes_its_ledger(robot):
    # a 2 cm drop: touchdown at 64 ms, the landing inside the 0.12 s run
    model = build_model("robot-drop", robot=robot, contact="compliant", drop=0.02)
    system, tr = _run(model, 0.12)
    assert tr.status == 0, tr.message
    base = tr.state("robot.q")[:, 6]
    assert base[-1] < base[0] - 0.02  # it fell onto its feet
    # rtol 1e-10: the residual of the balance is at the integration tolerance
    assert tr.power_budget().relative_residual < 1e-8




@pytest.mark.parametrize("contact", ["sliding_plane", "soil"])
def test_slow_contacts_refused_by_name(contact):
    with pytest.raises(ParameterError, match=rf"model 'robot-drop' is not built for the {contact} contact kind.*ran more than 400 s"):
        build_model("robot-drop", contact=contact)
    with pytest.raises(ParameterError, match=r"model 'robot-drop': `robot` must be one of .*'go1'.*, got 'cassie'"):
        build_model("robot-drop", robot="cassie")


def test_standing_pose_and_feet():
    for robot in ROBOTS:
        description, feet = robot_description(robot, joint_stiffness=40.0, joint_damping=0.5)
        assert len(feet) == 4, robot
        springs = [j for j in description.joints if j.nv == 1]
        assert len(springs) == 12 and all(j.stiffness == 40.0 * description.mass for j in springs)
