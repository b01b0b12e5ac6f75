"""PD control through voltage-driven DC motors (`MotorPD`, `motor_drive`, `go1_motor`) and the
compiled right-hand side of models with external inputs.

References
----------
- A disk on a revolute joint of an `ArticulatedBody` (axle inertia I, the rotor as armature
  N^2 J, joint damping c), driven by `motor_drive` under `MotorPD` holding a fixed target:
  with the voltage law the closed loop is the linear system

      theta' = w
      (I + N^2 J) w' = N K i - (c + N^2 b_g) w
      L i' = (R + k_c) (i* - i),   i* = (kp (theta* - theta) - kd w) / (N K)

  whose solution is the matrix exponential (scipy `expm`): the trajectory is compared with it.
- The ledger: the Joule heat R int i^2 dt of that closed form (scipy `quad`) against the
  armature resistor's booked dissipation; the electrical input against Joule + gearbox +
  joint damping + the change of stored energy (the ledger's split closing).
- Every sample: the voltage source's power from the system's port variables equals the
  applied voltage (the command limited to the bus) times the current read from the state.
- The compiled right-hand side (external inputs passed to the input sources' kernels) against
  the Python path, in and out of the voltage limit.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import quad
from scipy.linalg import expm

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.library import ArticulatedBody, add_joint_dynamics
from porthamiltonian.library.controllers import MotorPD, MotorServo, PeriodicReference
from porthamiltonian.library.motors import (GO1_MAX_SPEED, GO1_STALL_TORQUE, MotorConstants, go1_motor,
                                            motor_drive)
from porthamiltonian.robots.description import Joint, Link, LinkInertia, RobotDescription

TIGHT = dict(rtol=1e-11, atol=1e-12, method="DOP853")
I_AXIS, DAMPING, TARGET, KP, KD = 0.3, 0.05, 0.4, 20.0, 1.5
MOTOR = MotorConstants(resistance=0.8, inductance=4e-3, torque_constant=0.05, rotor_inertia=2e-4, gear_ratio=10.0,
                       gear_loss=3e-4, bus_voltage=24.0)


def disk_drive(constants=MOTOR, *, jit=True, target=TARGET, current_gain=0.0):
    """The disk on its axle driven by a motor under MotorPD holding `target` (module docs)."""
    system = ph.compile(_graph(constants), jit=jit)
    reference = PeriodicReference(1.0, np.full(4, target))
    servo = MotorServo("drive/source", "drive/motor/inductance.p", "w.q", "w.v", constants, reference, 0, KP, KD)
    return system, MotorPD(system, [servo], current_gain=current_gain)


def col(traj, name):
    """A one-entry state block over the samples, shape (N,)."""
    return traj.state(name).reshape(traj.t.size, -1)[:, 0]


def closed_loop(constants, kc):
    """(A, b) of z = (theta, w, i): z' = A z + b (module docs)."""
    c = constants
    NK, J = c.gear_ratio * c.torque_constant, I_AXIS + c.reflected_inertia
    g = (c.resistance + kc) / c.inductance
    A = np.array([[0.0, 1.0, 0.0],
                  [0.0, -(DAMPING + c.gear_ratio ** 2 * c.gear_loss) / J, NK / J],
                  [-g * KP / NK, -g * KD / NK, -g]])
    b = np.array([0.0, 0.0, g * KP * TARGET / NK])
    return A, b


def exact(constants, kc, t, h=0.05):
    """z(t) from z(0) = 0: the augmented matrix exponential over steps of at most h [s] (the
    loop's fast electrical mode, 200 1/s, makes expm of the whole span lose digits)."""
    A, b = closed_loop(constants, kc)
    M = np.zeros((4, 4))
    M[:3, :3], M[:3, 3] = A, b
    n = int(np.ceil(t / h))
    step = expm(M * (t / n)) if n else np.eye(4)
    z = np.array([0.0, 0.0, 0.0, 1.0])
    for _ in range(n):
        z = step @ z
    return z[:3]


# k_c = 0.5 Ohm keeps the first command (1.3 x 16 A = 20.8 V) inside the 24 V bus: the closed
# form has no limit
@pytest.mark.parametrize("kc", [0.0, 0.5], ids=["voltage-law", "current-loop"])
def test_motor_pd_equals_the_closed_form_and_its_ledger_splits(kc):
    system, ctrl = disk_drive(jit=False, current_gain=kc)
    # compared at the solver's own steps (the dense output's interpolation between them is
    # 1e-5 relative for the current, the fast variable: a separate error, not this test's)
    traj = ph.simulate(system, (0.0, 2.0), system.initial_state(), inputs=ctrl, **TIGHT)
    assert traj.status == 0, traj.message
    k = np.linspace(0, traj.t.size - 1, 21).astype(int)
    z = np.array([exact(MOTOR, kc, ti) for ti in traj.t[k]])
    i = col(traj, "drive/motor/inductance.p") / MOTOR.inductance
    # errors in units of the tolerance: the run's global error over ~1000 steps at rtol 1e-11
    assert_allclose(col(traj, "w.q")[k], z[:, 0], rtol=0, atol=1e-8)
    assert_allclose(col(traj, "w.v")[k], z[:, 1], rtol=0, atol=1e-8)
    assert_allclose(i[k], z[:, 2], rtol=0, atol=1e-8 * np.abs(z[:, 2]).max())
    # the target is reached: the loop's slowest mode decays as exp(-2.5 t) (damping ratio 0.31
    # at 7.9 rad/s), so after 2 s the error is below 1 % of the step
    assert abs(col(traj, "w.q")[-1] - TARGET) < 0.01 * TARGET
    budget = traj.power_budget()
    assert budget.relative_residual < 1e-9
    dis = {p: float(np.asarray(v)[-1]) for p, v in budget.entries["dissipated"].items()}
    sup = {p: float(np.asarray(v)[-1]) for p, v in budget.entries["supplied"].items()}
    joule = quad(lambda s: MOTOR.resistance * exact(MOTOR, kc, s)[2] ** 2, 0.0, 2.0, epsabs=1e-13, limit=200)[0]
    assert_allclose(dis["drive/motor/armature"], joule, rtol=1e-8)
    gear = quad(lambda s: MOTOR.gear_loss * (MOTOR.gear_ratio * exact(MOTOR, kc, s)[1]) ** 2, 0.0, 2.0,
                epsabs=1e-13, limit=200)[0]
    assert_allclose(dis["drive/motor/gear_loss"], gear, rtol=1e-8)
    # electrical input = Joule + gearbox + joint damping + stored change (robot incl. the rotor, inductance)
    stored = sum(float(np.asarray(v)[-1] - np.asarray(v)[0]) for v in budget.stored.values())
    assert set(sup) == {"drive/source"}
    assert_allclose(sup["drive/source"], sum(dis.values()) + stored, rtol=0, atol=1e-9 * sup["drive/source"])
    assert "w-axle-damper" in dis and dis["w-axle-damper"] > 0


def _source_power_and_ui(system, ctrl, t, x, bus):
    """(the supplied power the ledger books for the source: the rate of its ledger entry in
    the right-hand side; the applied voltage times the current read from the state)."""
    u = ctrl(t, x)
    names = system.layout.names()
    booked = system.rhs(t, x, u)[names.index("ledger.drive/source.supplied")]
    v = float(np.clip(u[0], -bus, bus))
    return float(booked), v * float(x[names.index("drive/motor/inductance.p")]) / MOTOR.inductance


@pytest.mark.parametrize("bus", [24.0, 2.0], ids=["free", "saturated"])
def test_supplied_power_is_applied_voltage_times_current_at_every_sample(bus):
    motor = MotorConstants(**{**MOTOR.__dict__, "bus_voltage": bus})
    system, ctrl = disk_drive(motor, jit=False)
    t = np.linspace(0.0, 0.3, 31)
    traj = ph.simulate(system, (0.0, 0.3), system.initial_state(), inputs=ctrl, t_eval=t, **TIGHT)
    pairs = np.array([_source_power_and_ui(system, ctrl, ti, xi, bus) for ti, xi in zip(traj.t, traj.x)])
    scale = np.abs(pairs[:, 1]).max()
    assert scale > 0
    assert_allclose(pairs[:, 0], pairs[:, 1], rtol=0, atol=1e-12 * scale)
    commands = np.array([ctrl(ti, xi)[0] for ti, xi in zip(traj.t, traj.x)])
    # the saturated case really is saturated (the command beyond the bus at the start)
    assert (np.abs(commands).max() > bus) == (bus < 24.0)


def _motor_on_a_damper(limit):
    """A motor with its rotor, its shaft on a damper, driven by an input voltage source limited to `limit`."""
    from porthamiltonian.bondgraph.elements import R as Resistor
    from porthamiltonian.library.motors import VoltageSource, dc_motor

    bg = ph.BondGraph("motor_on_damper")
    bg.add(VoltageSource("V", input=True, limit=limit),
           dc_motor("m", resistance=0.8, inductance=4e-3, torque_constant=0.05, rotor_inertia=2e-4, gear_ratio=10.0),
           Resistor("load", 0.3))
    bg.connect("V", ("m", "electric"))
    bg.connect(("m", "shaft"), "load")
    return bg


def test_compiled_path_passes_the_inputs_and_their_limit():
    # before: a model with external inputs ran on the Python path only ("python: external inputs")
    system, python = ph.compile(_motor_on_a_damper(2.0)), ph.compile(_motor_on_a_damper(2.0), jit=False)
    assert system.compiled == "numba"
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = np.zeros(system.layout.size)
        x[:system.layout.n_physical] = rng.normal(size=system.layout.n_physical)
        for u in ([1.5], [-7.0], [30.0]):   # inside and beyond the 2 V limit, both signs
            a, b = system.rhs(0.2, x, np.array(u)), python.rhs(0.2, x, np.array(u))
            assert_allclose(a, b, rtol=0, atol=1e-12 * max(1.0, np.abs(b).max()))
            # the limited voltage reaches the mesh: the source's booked power is clip(u) i
            i = x[system.layout.names().index("m/inductance.p")] / 4e-3
            assert_allclose(a[system.layout.names().index("ledger.V.supplied")], np.clip(u[0], -2.0, 2.0) * i,
                            rtol=1e-13, atol=1e-14)


def _graph(constants):
    """The disk, its joint damper and the motor drive on its axle."""
    inert = LinkInertia(2.0, (0, 0, 0), np.diag([0.2, 0.25, I_AXIS]))
    description = RobotDescription("w", (Link("disk", inert),),
                                   (Joint("axle", "revolute", None, "disk", damping=DAMPING,
                                          armature=constants.reflected_inertia),))
    robot = ArticulatedBody("w", description, gravity=(0, 0, 0))
    bg = ph.BondGraph("disk_drive")
    bg.add(robot)
    add_joint_dynamics(bg, robot)
    drive = motor_drive("drive", constants, rotor=False)
    bg.add(drive)
    bg.connect((drive, "shaft"), (robot, robot.joint_port("axle")))
    return bg


@pytest.mark.parametrize("knee", [False, True], ids=["hip", "knee"])
def test_go1_constants_reproduce_the_urdf_limits(knee):
    c = go1_motor(knee=knee)
    scale = 1.5 if knee else 1.0
    # the derivation's two conditions: stall torque and no-load speed on the 21.6 V bus
    assert_allclose(c.stall_torque, GO1_STALL_TORQUE * scale, rtol=1e-12)
    assert_allclose(c.no_load_speed, GO1_MAX_SPEED / scale, rtol=1e-12)
    assert_allclose(c.gear_ratio, 9.1 * scale, rtol=1e-12)
    # the gearbox efficiency 0.9 at the rated point: loss / delivered = 1/eta - 1
    tau, w = GO1_STALL_TORQUE * scale / 3, GO1_MAX_SPEED / scale / 2
    assert_allclose(c.gear_loss * (c.gear_ratio * w) ** 2 / (tau * w), 1 / 0.9 - 1, rtol=1e-12)


def test_motor_pd_bad_input():
    system, _ = disk_drive(jit=False)
    ref = PeriodicReference(1.0, np.zeros(4))
    good = dict(source="drive/source", current="drive/motor/inductance.p", angle="w.q", speed="w.v",
                constants=MOTOR, reference=ref, column=0, kp=KP, kd=KD)
    with pytest.raises(ParameterError, match=r"`servos\[0\].source`: 'nope' is not an input source"):
        MotorPD(system, [MotorServo(**{**good, "source": "nope"})])
    with pytest.raises(ParameterError, match=r"`servos\[0\].angle`: the system has no state entry 'w.q\[3\]'"):
        MotorPD(system, [MotorServo(**{**good, "angle": "w.q[3]"})])
    with pytest.raises(ParameterError, match=r"'drive/source' is driven by two servos"):
        MotorPD(system, [MotorServo(**good), MotorServo(**good)])
    with pytest.raises(ParameterError, match=r"`servos\[0\].kp` must be a positive finite number, got -1.0"):
        MotorPD(system, [MotorServo(**{**good, "kp": -1.0})])
    with pytest.raises(ParameterError, match=r"`servos\[0\].column` must be a column of its reference \(0..0\), got 2"):
        MotorPD(system, [MotorServo(**{**good, "column": 2})])
    with pytest.raises(ParameterError, match=r"`current_gain` must be a nonnegative finite number, got nan"):
        MotorPD(system, [MotorServo(**good)], current_gain=float("nan"))
    with pytest.raises(ParameterError, match=r"`drive.constants` must be MotorConstants"):
        motor_drive("drive", {"resistance": 1.0})
    with pytest.raises(ParameterError, match=r"`electrical_time_constant` must be a positive finite number, got 0"):
        go1_motor(electrical_time_constant=0)


def test_a_limited_signal_actuator_is_limited_on_the_compiled_path_too():
    # before: JointActuator exported its signal's kernel unlimited, so the compiled
    # right-hand side applied the full reference torque past the limit (the Python path clipped)
    from porthamiltonian.bondgraph.elements import I as Inertia
    from porthamiltonian.library import JointActuator

    ref = PeriodicReference(1.0, [0.0, 5.0, 0.0, -5.0])   # peaks near +-5, beyond the limit 1
    bg = ph.BondGraph("limited_signal")
    bg.add(JointActuator("tau", ref.signal(0, 0), limit=1.0), Inertia("wheel", mass=0.2))
    bg.connect("tau", "wheel")
    system, python = ph.compile(bg), ph.compile(bg, jit=False)
    x = system.initial_state()
    system.compiled   # noqa: B018 - whichever path compile chooses, it must apply the limit
    for t in np.linspace(0.0, 1.0, 9):
        expected = np.clip(ref.position(t, 0), -1.0, 1.0)
        assert_allclose(system.rhs(t, x)[system.layout["wheel.p"]], expected, rtol=1e-14, atol=1e-14)
        assert_allclose(python.rhs(t, x)[system.layout["wheel.p"]], expected, rtol=1e-14, atol=1e-14)
