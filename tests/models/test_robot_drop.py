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
from porthamiltonian.models.robot_drop import ROBOTS, assemble, feet_material, robot_description

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


def _standing_equilibrium(system, q_guess, given=None):
    """The robot at rest on its feet: the root of the generalized accelerations over the base
    height, roll, pitch and the joint angles (base x, y and yaw are left where they are: the
    frictionless-at-rest feet do not fix them), velocities zero, the contacts' friction
    (Dahl) states zero, contact points found at each configuration (`initial_state`), the
    blocks in `given` (e.g. the soil's memory) as given."""
    from scipy.optimize import least_squares

    qs, vs = system.layout["robot.q"], system.layout["robot.v"]

    def state(z):
        q = q_guess.copy()
        tilt = np.array([z[1], z[2], 0.0])
        angle = np.linalg.norm(tilt)
        q[:4] = (1.0, 0.0, 0.0, 0.0) if angle == 0 else (np.cos(angle / 2), *(np.sin(angle / 2) * tilt / angle))
        q[6], q[7:] = z[0], z[3:]
        return system.initial_state({"robot.q": q, "robot.v": np.zeros(vs.stop - vs.start), **(given or {})})

    z0 = np.concatenate([[q_guess[6], 0.0, 0.0], q_guess[7:]])
    sol = least_squares(lambda z: system.rhs(0.0, state(z))[vs], z0, method="lm", xtol=1e-15, ftol=1e-15, gtol=1e-15)
    return state(sol.x), float(np.abs(sol.fun).max())


@pytest.mark.parametrize("contact", ["compliant", "sliding_plane"])
@pytest.mark.parametrize("robot", ROBOTS)
def test_standing_robot_feet_carry_its_weight(robot, contact):
    # reference: the total mass of Pinocchio's own parse of the same URDF, times g
    pin = pytest.importorskip("pinocchio")
    from porthamiltonian.robots import example

    mass = pin.computeTotalMass(pin.buildModelFromUrdf(str(example(robot)), pin.JointModelFreeFlyer()))
    model = build_model("robot-drop", robot=robot, contact=contact, drop=0.001)
    given = None
    if contact == "sliding_plane":
        # the registered scene, its feet held on, built with a 1 m `max_gap` (the gap within which a
        # contact may start on: the root search's first steps move the held feet centimetres off
        # the ground); the rows' stabilization terms put the root's feet on it (their gaps enter
        # the rows: at the root the gaps vanish with the accelerations)
        model = assemble(robot, contact, 0.001, feet_material(0.001), max_gap=1.0)
    system = ph.compile(model.graph)
    q_guess = system.initial_state(model.initial)[system.layout["robot.q"]]
    if contact == "sliding_plane":
        q_guess[6] -= 0.001   # the feet on the ground
        given = {f"{p}.active": 1.0 for p in system.elements if p.endswith("-contact/constraint")}
        assert len(given) == 4
    else:
        q_guess[6] -= 0.0015  # the feet ~0.5 mm into the floor: near the static penetration m g / (4 k)
    x, residual = _standing_equilibrium(system, q_guess, given)
    # the generalized accelerations [m/s^2, rad/s^2] vanish to round-off at the root
    assert residual < 1e-8
    # it is a rest state of the whole system (contact states included): it stays there
    tr = ph.simulate(system, (0.0, 0.01), x, t_eval=[0.0, 0.01], **TIGHT)
    assert tr.status == 0, tr.message
    assert np.abs(tr.state("robot.v")).max() < 1e-9
    weight = sum(contact_forces(tr, name).normal[0] for name in contact_names(system))
    # sum F_z - m g = m a_com,z with |a_com,z| <= residual: 1e-8 / 9.81 relative, well inside 1e-6
    assert weight == pytest.approx(mass * 9.81, rel=1e-6)
    # every foot carries part of it (the robot stands on all four feet)
    assert all(contact_forces(tr, name).normal[0] > 0.05 * mass * 9.81 for name in contact_names(system))
    # the robot's feet share one centre of pressure (its links are one body, the robot's), and
    # at rest on flat ground with no tangential force it lies under the centre of mass:
    # Pinocchio's centre of mass of the same URDF at the same q. The moment balance holds to
    # the accelerations' residual (1e-8) times inertia / weight, far below the 1e-7 m asked.
    cop, total = tr.center_of_pressure("robot")
    assert total[0] == pytest.approx(weight, rel=1e-12)
    com = pin.centerOfMass(*_pinocchio(robot, system.elements["robot"].description, x[system.layout["robot.q"]]))
    assert np.abs(cop[0, :2] - com[:2]).max() < 1e-7


def test_unknown_robots_and_kinds_refused_by_name():
    with pytest.raises(ParameterError, match=r"model 'robot-drop' is not built for the reduced contact kind"):
        build_model("robot-drop", contact="reduced")
    with pytest.raises(ParameterError, match=r"model 'robot-drop': `robot` must be one of .*'go1'.*, got 'cassie'"):
        build_model("robot-drop", robot="cassie")


def test_standing_pose_and_feet():
    for robot in ROBOTS:
        description, feet = robot_description(robot, joint_stiffness=40.0, joint_damping=0.5)
        assert len(feet) == 4, robot
        springs = [j for j in description.joints if j.nv == 1]
        assert len(springs) == 12 and all(j.stiffness == 40.0 * description.mass for j in springs)


@pytest.mark.parametrize("robot", ROBOTS)
def test_stand_on_feet_puts_every_foot_on_the_ground(robot):
    # reference: Pinocchio's forward kinematics of the same URDF at the returned q (its free
    # flyer takes the base position then the quaternion x, y, z, w)
    pin = pytest.importorskip("pinocchio")
    from porthamiltonian.library import ArticulatedBody
    from porthamiltonian.models.robot_drop import stand_on_feet

    description, feet = robot_description(robot, joint_stiffness=40.0, joint_damping=0.5)
    body = ArticulatedBody("robot", description)
    q, heights = stand_on_feet(body, feet, gap=0.0)
    model, data, qp = _pinocchio(robot, description, q)
    pin.forwardKinematics(model, data, qp)
    pin.updateFramePlacements(model, data)
    for link, (H, sphere) in feet.items():
        oMf = data.oMf[model.getFrameId(link)]
        bottom = (oMf.rotation @ H[:3, 3] + oMf.translation)[2] - sphere.radius
        # the same forward kinematics by two codes: agreement to round-off of ~1 m of chain
        assert bottom == pytest.approx(heights[link], abs=1e-12)
        # standing poses are symmetric: every foot touches (its bottom on z = 0 to round-off)
        assert abs(bottom) < 1e-9, (robot, link, bottom)


def _pinocchio(robot, description, q):
    """(model, data, q) of Pinocchio's own parse of `robot`'s URDF on a free flyer at our joint
    positions `q` (its free flyer takes the base position then the quaternion x, y, z, w)."""
    import pinocchio as pin
    from porthamiltonian.robots import example

    model = pin.buildModelFromUrdf(str(example(robot)), pin.JointModelFreeFlyer())
    qp = pin.neutral(model)
    qp[:3], qp[3:7] = q[4:7], (q[1], q[2], q[3], q[0])
    for joint in description.joints:
        if joint.nv == 1:
            qp[model.joints[model.getJointId(joint.name)].idx_q] = q[_q_index(description, joint.name)]
    return model, model.createData(), qp


def _q_index(description, name):
    start = 0
    for joint in description.joints:
        if joint.name == name:
            return start
        start += joint.nq
    raise KeyError(name)


#: the feet's friction of the rigid drops: ANYmal C's landing at the default 0.8 meets Painlevé's
#: paradox (`test_anymal_rigid_landing_at_friction_08_stops_at_painleves_paradox`)
RIGID_FRICTION = {"anymal_c": 0.5}


@pytest.mark.parametrize("robot", ROBOTS)
def test_rigid_drop_lands_at_the_free_fall_time_and_closes_its_ledger(robot):
    drop = 0.02
    model = build_model("robot-drop", robot=robot, contact="sliding_plane", drop=drop,
                        friction=RIGID_FRICTION.get(robot, 0.8))
    system, tr = _run(model, 0.12)
    assert tr.status == 0, tr.message
    impacts = [e for e in tr.events if e.name.endswith(".impact")]
    # the feet, level, land together at the free-fall time sqrt(2 h / g): an event's root (rtol 1e-10)
    assert impacts[0].t == pytest.approx(np.sqrt(2.0 * drop / 9.81), rel=1e-8)
    assert all(e.lost >= 0.0 for e in impacts) and sum(e.lost for e in impacts) > 0.0
    base = tr.state("robot.q")[:, 6]
    assert base[-1] < base[0] - drop   # it fell onto its feet (and the joints gave)
    # the impacts' losses are booked: the balance closes at the integration tolerance
    assert tr.power_budget().relative_residual < 1e-8


def test_anymal_rigid_landing_at_friction_08_sticks_its_feet():
    """ANYmal C's legs, landing on sliding-plane feet with friction 0.8. With frictionless
    impacts the landing left the four feet on, sliding, where friction reversed their normal
    mobility (Painlevé's paradox: held, their forces pulled at -4,700 N; released, they moved into
    the ground) and the run had to stop there. The impacts' Coulomb friction
    (`compile.impact_friction`) now stops the slip where friction is strong enough (the
    stick of a tangential impact: the feet's normal impulse grows as friction turns their
    mobility), so the landing completes: every impact loses energy, none is refused, and the
    ledger closes over the landing."""
    model = build_model("robot-drop", robot="anymal_c", contact="sliding_plane", drop=0.02)
    system = ph.compile(model.graph)
    tr = ph.simulate(system, (0.0, 0.12), system.initial_state(model.initial), throw=False, **TIGHT)
    assert tr.status == 0, tr.message
    impacts = [e for e in tr.events if e.name.endswith(".impact")]
    assert len(impacts) >= 2 and all(e.lost > 0.0 and not e.message.startswith("not applied") for e in impacts)
    assert 0.0638 < impacts[0].t < 0.0640   # touchdown: sqrt(2 h / g) after release, 0.06386 s
    assert tr.power_budget().relative_residual < 1e-8
