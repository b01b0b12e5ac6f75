"""A robot from example-robot-data dropped on sand, written from the docs alone (issue 35):
docs/robots.md (reading the robot, its feet, the articulated body, the drop script) and
docs/soil.md (`SoilLaw.terrain`, `contact("soil", ...)`, the ledger's plastic work)."""

import warnings

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.contact import SoilLaw
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import ArticulatedBody, Ground, add_joint_dynamics, contact
from porthamiltonian.robots import example, example_robots, feet, load_urdf, standing_pose

pytestmark = pytest.mark.skipif("go1" not in example_robots(), reason="example-robot-data (extra `robots`) not installed")


@pytest.fixture(scope="module")
def landing():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # Go1's base inertia, balanced (docs/robots.md)
        description = load_urdf(example("go1"), balance_inertia=True)
    standing = ArticulatedBody("go1", description).standing_state(standing_pose("go1"), gap=0.005)
    robot = ArticulatedBody("go1", description, q=standing[: description.nq])
    ground = Ground("ground")
    bg = ph.BondGraph("go1_on_sand")
    bg.add(robot, ground)
    add_joint_dynamics(bg, robot)
    for link, (H, sphere) in feet(description).items():
        name = f"{link}-soil"
        sand = SoilLaw.terrain("dry_sand", radius=sphere.radius)
        bg.add(contact("soil", name, robot.link(link), Sphere(sphere.radius, center=H[:3, 3]), ground, Plane(),
                       soil=sand))
        bg.connect(robot.frame(link).port, (name, "a"))
        bg.connect(ground.frame().port, (name, "b"))
    system = ph.compile(bg)
    # 5 mm of fall take 32 ms: 60 ms is the landing and the first sinking into the sand
    traj = ph.simulate(system, (0.0, 0.06), system.initial_state({}), method="DOP853", rtol=1e-7, atol=1e-9)
    return system, traj


def test_the_robot_lands_in_the_sand_and_the_ledger_closes(landing):
    system, traj = landing
    budget = traj.power_budget()
    assert traj.status == 0 and traj.warnings == []                # the audit passed (docs/integration.md)
    assert budget.max_residual < budget.residual_bound
    base_z = traj.x[:, system.layout["go1.q"]][:, 6]               # q: quaternion, then the base position
    assert base_z[-1] < base_z[0] - 0.005                          # fell its 5 mm and sank in


def test_every_foot_left_plastic_work_in_the_sand(landing):
    _, traj = landing
    budget = traj.power_budget()
    plastic = {row.element: row.dissipated for row in budget.rows() if row.element.endswith("/plastic")}
    assert sorted(plastic) == [f"{leg}_foot-soil/plastic" for leg in ("FL", "FR", "RL", "RR")]
    assert all(w > 0 for w in plastic.values())
    # what the sand took is what the robot lost, to the audit's bound (docs/soil.md: the plastic
    # work is booked under `plastic`, the rest of the ledger's dissipation is joints and dampers)
    total = budget.dissipated[-1] + budget.lost[-1]
    assert abs((budget.H[0] - budget.H[-1]) - total) <= budget.residual_bound
