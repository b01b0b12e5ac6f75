"""Actuators, motors and controllers on joint axes, against closed forms and the ledger.

- DC motor with gearbox and load: current and speed against the closed-form solution of the
  linear second-order system (matrix exponential by Sylvester's formula), and the ledger's
  Joule heat, friction and stored energy against quadratures of that solution;
- a joint actuator's supplied power against torque x joint speed computed from the body twist;
- a PD-held pendulum: converges to the static equilibrium (root of K (theta* - theta) =
  m g L cos theta, by brentq); controller energy balance from the ledger;
- a torque limit: the applied torque is clipped, the ledger books the applied power only;
- a user feedback controller on an input port: supplied energy equals the integral of u y.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import integrate, optimize

import porthamiltonian as ph
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.library import Frame, Gravity, Ground, Joint, RigidBody
from porthamiltonian.library.actuators import JointActuator, add_joint_axis, joint_axis, withheld_power
from porthamiltonian.library.controllers import FeedbackController, PeriodicReference, pd_controller
from porthamiltonian.library.motors import VoltageSource, battery, dc_motor, gear_loss_coefficient

# solver for the linear motor: DOP853 at 1e-12 keeps the step response at ~1e-11 of its scale
MOTOR_TOL = dict(rtol=1e-12, atol=1e-14, method="DOP853")
TIGHT = dict(rtol=1e-11, atol=1e-13, method="DOP853")


def _assert_ledger_closes(budget):
    """Residual within 30 x rtol of the energy exchanged. Not of `budget.scale` (max |H|):
    a pendulum released level with its hinge has H(0) = 0, and its kinetic and potential
    energies cancel in H, so H is a poor scale; the exchanged energy is the one the
    quadratures integrate. Why 30, not 10: measured on the same pendulum *without* an
    actuator, the ledger residual is 6.4 x rtol of the exchanged energy at rtol 1e-10 (the
    quadrature of a fast fall), and with the actuator 8.5 x at 1e-10, 10.8 x at 1e-11."""
    assert budget.max_residual < 30 * TIGHT["rtol"] * budget.exchanged, budget.table()

MOTOR = dict(resistance=1.9, inductance=2.2e-3, torque_constant=0.06, rotor_inertia=4.0e-5, viscous=2.0e-6)
N, V, LOAD = 6.0, 12.0, 0.15


def _motor_graph(gear_loss=0.0):
    mot = dc_motor("motor", **MOTOR, gear_ratio=N, gear_loss=gear_loss)
    bg = ph.BondGraph("motor_alone")
    bg.add(mot, VoltageSource("V", V), ph.Se("load", LOAD))
    bg.connect("V", (mot, "electric"))
    bg.connect("load", (mot, "shaft"))   # a load torque opposing the output shaft
    return bg


def _closed_form(t, b_extra=0.0):
    """(i, w_m) of L di/dt = V - R i - K w, J dw/dt = K i - b w - tau_L / N from rest."""
    R, L, K, J, b = (MOTOR[k] for k in ("resistance", "inductance", "torque_constant", "rotor_inertia", "viscous"))
    b = b + b_extra
    A = np.array([[-R / L, -K / L], [K / J, -b / J]])
    c = np.array([V / L, -LOAD / (N * J)])
    x_ss = -np.linalg.solve(A, c)
    tr, det = np.trace(A), np.linalg.det(A)
    disc = np.sqrt(complex(tr * tr - 4 * det))
    l1, l2 = (tr + disc) / 2, (tr - disc) / 2
    I2 = np.eye(2)
    out = []
    for ti in np.atleast_1d(t):
        E = (np.exp(l1 * ti) * (A - l2 * I2) - np.exp(l2 * ti) * (A - l1 * I2)) / (l1 - l2)
        out.append(x_ss + np.real(E) @ (-x_ss))
    return np.array(out)


@pytest.mark.parametrize("gear_loss", [0.0, 3.0e-6])
def test_dc_motor_step_response_and_ledger_split(gear_loss):
    system = ph.compile(_motor_graph(gear_loss))
    T = 0.05
    t = np.linspace(0.0, T, 26)
    traj = ph.simulate(system, (0.0, T), system.initial_state({}), t_eval=t, **MOTOR_TOL)
    i = traj.state("motor/inductance.p") / MOTOR["inductance"]
    w = traj.state("motor/rotor.p") / MOTOR["rotor_inertia"]
    ref = _closed_form(t, gear_loss)
    assert abs(ref[-1, 1]) > 10.0  # the motor has spun up
    # measured: 1.2e-10 A (of 5.6 A) and 2.3e-10 rad/s (of 170 rad/s)
    assert_allclose(i, ref[:, 0], rtol=0, atol=1e-8 * np.max(np.abs(ref[:, 0])))
    assert_allclose(w, ref[:, 1], rtol=0, atol=1e-8 * np.max(np.abs(ref[:, 1])))

    budget = traj.power_budget()
    R, b = MOTOR["resistance"], MOTOR["viscous"]
    cur = lambda s: _closed_form(s, gear_loss)[0, 0]   # noqa: E731
    spd = lambda s: _closed_form(s, gear_loss)[0, 1]   # noqa: E731
    quad = lambda f: integrate.quad(f, 0.0, T, epsabs=1e-14, epsrel=1e-13, limit=200)[0]   # noqa: E731
    joule = quad(lambda s: R * cur(s) ** 2)
    supplied = quad(lambda s: V * cur(s))
    friction = quad(lambda s: b * spd(s) ** 2)
    work = quad(lambda s: LOAD * spd(s) / N)
    scale = supplied
    d, s_ = budget.entries["dissipated"], budget.entries["supplied"]
    tol = 1e-9 * scale  # the ledger's quadratures ride on the solver at 1e-12 (ledger residual measured 1.5e-13 J of 1.5 J)
    assert_allclose(s_["V"][-1], supplied, rtol=0, atol=tol)
    assert_allclose(d["motor/armature"][-1], joule, rtol=0, atol=tol)
    assert_allclose(d["motor/viscous"][-1], friction, rtol=0, atol=tol)
    assert_allclose(s_["load"][-1], -work, rtol=0, atol=tol)
    if gear_loss:
        assert_allclose(d["motor/gear_loss"][-1], quad(lambda s: gear_loss * spd(s) ** 2), rtol=0, atol=tol)
    stored = 0.5 * MOTOR["inductance"] * ref[-1, 0] ** 2 + 0.5 * MOTOR["rotor_inertia"] * ref[-1, 1] ** 2
    assert_allclose(budget.H[-1] - budget.H[0], stored, rtol=0, atol=tol)
    assert budget.max_residual < 1e-10 * scale, budget.table()


def test_battery_books_its_internal_heat():
    mot = dc_motor("motor", **MOTOR, gear_ratio=N)
    bat = battery("bat", 24.0, 0.3, command=V)
    bg = ph.BondGraph("bat")
    bg.add(mot, bat, ph.Se("load", LOAD))
    bg.connect((bat, "terminal"), (mot, "electric"))
    bg.connect("load", (mot, "shaft"))
    system = ph.compile(bg)
    traj = ph.simulate(system, (0.0, 0.02), system.initial_state({}), t_eval=np.linspace(0, 0.02, 11), **MOTOR_TOL)
    budget = traj.power_budget()
    d = budget.entries["dissipated"]
    # the same current runs through the internal and the armature resistance
    assert_allclose(d["bat/internal"][-1] / 0.3, d["motor/armature"][-1] / MOTOR["resistance"], rtol=1e-9)
    assert budget.relative_residual < 1e-9


def test_gear_loss_coefficient_gives_the_rated_efficiency():
    eta, tau_r, w_r = 0.85, 2.0, 10.0
    bg_ = gear_loss_coefficient(eta, N, tau_r, w_r)
    loss = bg_ * (N * w_r) ** 2
    assert_allclose(tau_r * w_r / (tau_r * w_r + loss), eta, rtol=1e-14)


# --------------------------------------------------------------------------- pendulum on a hinge
M, LEN, G = 0.8, 0.5, 9.81


def _pendulum(name="p"):
    body = RigidBody("bob", M, [1e-3, 2e-3, 3e-3], com=[LEN, 0.0, 0.0], pose=np.eye(4))
    ground = Ground("ground")
    hinge = Joint("hinge", Frame(ground, "M", np.eye(4)), body.frame("B"), kind="revolute")
    bg = ph.BondGraph(name)
    bg.add(ground, body, hinge, Gravity("gravity", body, g=(0.0, -G, 0.0)))
    bg.connect(body.frame().port, "gravity")
    bg.connect(ground.frame().port, (hinge, "a"))
    bg.connect(body.frame().port, (hinge, "b"))
    return bg, body, hinge


def _angle(body, traj):
    R = [body.pose_matrix(x)[:3, :3] for x in traj.state("bob.pose")]
    return np.array([np.arctan2(r[1, 0], r[0, 0]) for r in R])


def _speed(body, traj):
    # hinge about the world z axis: the body's angular velocity z (body frame z = world z)
    return np.array([body.twist(np.r_[p, P])[2] for p, P in zip(traj.state("bob.pose"), traj.state("bob.P"))])


def test_actuator_supplies_torque_times_joint_speed():
    bg, body, hinge = _pendulum()
    axis = add_joint_axis(bg, "axis", hinge)
    tau = lambda t: 0.7 * np.sin(3.0 * t) + 0.2   # noqa: E731
    bg.add(JointActuator("drive", tau))
    bg.connect("drive", (axis, "axis"))
    system = ph.compile(bg)
    t = np.linspace(0.0, 2.0, 41)
    traj = ph.simulate(system, (0.0, 2.0), system.initial_state({}), t_eval=t, **TIGHT)
    w = _speed(body, traj)
    assert np.max(np.abs(w)) > 0.5
    supplied = -traj.port_powers["drive"]
    # the joint-axis map is exact algebra on the sample's state: round-off only
    assert_allclose(supplied, tau(t) * w, rtol=0, atol=1e-12 * np.max(np.abs(tau(t) * w)))
    # and a positive torque accelerates the joint positively from rest (tau(0) = 0.2 > 0 > gravity's - part)
    budget = traj.power_budget()
    _assert_ledger_closes(budget)


def test_torque_limit_clips_and_books_the_applied_power_only():
    bg, body, hinge = _pendulum()
    axis = add_joint_axis(bg, "axis", hinge)
    cmd = lambda t: 3.0 * np.sin(4.0 * t)   # noqa: E731
    act = JointActuator("drive", cmd, limit=1.0)
    bg.add(act)
    bg.connect("drive", (axis, "axis"))
    system = ph.compile(bg)
    t = np.linspace(0.0, 2.0, 81)
    traj = ph.simulate(system, (0.0, 2.0), system.initial_state({}), t_eval=t, **TIGHT)
    w = _speed(body, traj)
    applied = np.clip(cmd(t), -1.0, 1.0)
    assert np.any(np.abs(cmd(t)) > 1.0)
    assert_allclose(-traj.port_powers["drive"], applied * w, rtol=0, atol=1e-12 * np.max(np.abs(applied * w)))
    assert_allclose(withheld_power(act, t, None, w), (cmd(t) - applied) * w, rtol=0, atol=1e-15)
    budget = traj.power_budget()
    _assert_ledger_closes(budget)


def test_pd_held_pendulum_converges_and_its_energy_balances():
    K, D, target = 40.0, 2.0, 0.3
    bg, body, hinge = _pendulum()
    axis = add_joint_axis(bg, "axis", hinge)
    pd = pd_controller("pd", K, D, target=target, angle0=0.0)
    bg.add(pd)
    bg.connect((pd, "axis"), (axis, "axis"))
    system = ph.compile(bg)
    t = np.linspace(0.0, 15.0, 151)
    traj = ph.simulate(system, (0.0, 15.0), system.initial_state({}), t_eval=t, **TIGHT)
    theta = _angle(body, traj)
    eq = optimize.brentq(lambda th: K * (target - th) - M * G * LEN * np.cos(th), -1.0, 1.0, xtol=1e-15)
    # measured: 2e-13 rad after 15 s (decay rate ~ D / (2 I) = 4.5 1/s)
    assert_allclose(theta[-1], eq, rtol=0, atol=1e-9)
    assert_allclose(traj.state("pd/spring.q")[-1], target - eq, rtol=0, atol=1e-9)
    budget = traj.power_budget()
    # energy the controller gave the pendulum = -(its stored change) - its dissipation + reference's supply
    st, d, s = budget.stored, budget.entries["dissipated"], budget.entries["supplied"]
    controller = -(st["pd/spring"] - st["pd/spring"][0]) - d["pd/damper"] + s.get("pd/reference", 0.0)
    plant = (st["bob"] - st["bob"][0]) + (st["gravity"] - st["gravity"][0])
    assert abs(controller[-1]) > 0.1
    assert_allclose(plant, controller, rtol=0, atol=1e-9 * budget.scale)


def test_pd_tracks_a_moving_reference_which_supplies_power():
    K, D, period = 200.0, 8.0, 1.0
    th = 0.4 * np.sin(2 * np.pi * np.arange(32) / 32)
    ref = PeriodicReference(period, th)
    bg, body, hinge = _pendulum()
    axis = add_joint_axis(bg, "axis", hinge)
    pd = pd_controller("pd", K, D, reference=ref, angle0=0.0)
    bg.add(pd)
    bg.connect((pd, "axis"), (axis, "axis"))
    system = ph.compile(bg)
    t = np.linspace(0.0, 4.0, 81)
    traj = ph.simulate(system, (0.0, 4.0), system.initial_state({}), t_eval=t, **TIGHT)
    theta = _angle(body, traj)
    # the spring's state is the tracking error, exactly: theta_ref - theta
    assert_allclose(traj.state("pd/spring.q"), ref.position(t, 0) - theta, rtol=0, atol=1e-8)
    budget = traj.power_budget()
    assert np.max(np.abs(budget.entries["supplied"]["pd/reference"])) > 0.1
    _assert_ledger_closes(budget)


def test_feedback_controller_books_u_times_y():
    bg, body, hinge = _pendulum()
    axis = add_joint_axis(bg, "axis", hinge)
    bg.add(JointActuator("drive", input=True, limit=5.0))
    bg.connect("drive", (axis, "axis"))
    system = ph.compile(bg)
    ctrl = FeedbackController(system, lambda t, y: -0.3 * y + 0.5 * np.cos(2 * t))
    t = np.linspace(0.0, 2.0, 41)
    x0 = system.initial_state({})
    traj = ph.simulate(system, (0.0, 2.0), x0, t_eval=t, inputs=ctrl, **TIGHT)
    w = _speed(body, traj)
    u = -0.3 * w + 0.5 * np.cos(2 * t)
    assert_allclose([ctrl.outputs(ti, xi)[0] for ti, xi in zip(t, traj.x)], w, rtol=0, atol=1e-12)
    supplied = budget_supplied = traj.power_budget().entries["supplied"]["drive"]
    ref = integrate.cumulative_trapezoid(u * w, t, initial=0.0)
    # trapezoid on 41 samples: its error bounds the tolerance, not the ledger
    assert_allclose(supplied, ref, rtol=0, atol=2e-3 * np.max(np.abs(ref)))
    assert budget_supplied[-1] != 0.0


# --------------------------------------------------------------------------- bad input
def test_bad_input_is_a_typed_error_naming_it():
    body = RigidBody("bob", M, [1e-3, 2e-3, 3e-3], com=[LEN, 0.0, 0.0], pose=np.eye(4))
    ground = Ground("ground")
    weld = Joint("weld", Frame(ground, "M", np.eye(4)), body.frame("B"), kind="weld")
    with pytest.raises(ModelError, match="fixed joint"):
        joint_axis("axis", weld)
    hinge = Joint("hinge", Frame(ground, "M", np.eye(4)), body.frame("B"), kind="revolute")
    with pytest.raises(ModelError, match="'rx' of joint 'hinge'.*locked"):
        joint_axis("axis", hinge, axis="rx")
    with pytest.raises(ParameterError, match="gear_ratio.*positive.*-2"):
        dc_motor("m", **MOTOR, gear_ratio=-2.0)
    with pytest.raises(ParameterError, match="m.resistance.*positive"):
        dc_motor("m", **{**MOTOR, "resistance": -1.0})
    with pytest.raises(ParameterError, match="viscous.*nonnegative"):
        dc_motor("m", **{**MOTOR, "viscous": -1e-3})
    for lim in (0.0, -1.0, np.nan):
        with pytest.raises(ParameterError, match="drive.limit.*limit > 0"):
            JointActuator("drive", 1.0, limit=lim)
    with pytest.raises(ParameterError, match="3 joints"):
        PeriodicReference(1.0, np.zeros((8, 2)), n_joints=3)
    with pytest.raises(ParameterError, match="n >= 4"):
        PeriodicReference(1.0, np.zeros(3))
    bad = np.zeros((8, 3))
    bad[5, 1] = np.nan
    with pytest.raises(ParameterError, match="finite.*sample 5, joint 1"):
        PeriodicReference(1.0, bad)
    with pytest.raises(ParameterError, match="joint.*column"):
        pd_controller("pd", 1.0, 0.1, reference=PeriodicReference(1.0, np.zeros((8, 2))), joint=2)


def test_controller_returning_the_wrong_shape_is_named():
    bg, body, hinge = _pendulum()
    axis = add_joint_axis(bg, "axis", hinge)
    bg.add(JointActuator("drive", input=True))
    bg.connect("drive", (axis, "axis"))
    system = ph.compile(bg)
    ctrl = FeedbackController(system, lambda t, y: np.zeros(2))
    with pytest.raises(ParameterError, match=r"controller `f` must return shape \(1,\).*got shape \(2,\)"):
        ctrl(0.0, system.initial_state({}))
    with pytest.raises(ParameterError, match="not an input source"):
        FeedbackController(system, lambda t, y: y, sources=["nope"])


def test_driven_joint_saves_and_loads(tmp_path):
    """A hinge driven by a PD controller and a limited torque on one 1-junction survives
    save/load: the reloaded model integrates to the same state."""
    bg, body, hinge = _pendulum()
    axis = add_joint_axis(bg, "axis", hinge)
    bg.add(pd_controller("pd", 40.0, 2.0, target=0.3), JointActuator("tau", 0.1, limit=1.0), ph.Junction1("knee"))
    bg.connect("knee", (axis, "axis"))
    bg.connect((bg["pd"], "axis"), "knee")
    bg.connect("tau", "knee")
    bg.save(tmp_path / "driven.json")
    again = ph.load(tmp_path / "driven.json")
    ends = []
    for g in (bg, again):
        system = ph.compile(g)
        ends.append(ph.simulate(system, (0.0, 1.0), system.initial_state({}), t_eval=[0.0, 1.0], **TIGHT).x[-1])
    # same model, same solver: equal up to round-off in the rebuilt parameters
    assert_allclose(ends[1], ends[0], rtol=0, atol=1e-13)


def test_actuator_between_two_moving_bodies_and_on_a_slider():
    """Both sides of the axis map: an elbow between two links of a planar double pendulum
    (joint speed = difference of the links' angular velocities about the world z axis), and
    a prismatic joint on the second link (speed = relative velocity along the slide)."""
    g = (0.0, -G, 0.0)
    ground = Ground("ground")
    upper = RigidBody("upper", 1.0, [1e-2, 1e-2, 1e-2], com=[0.2, 0.0, 0.0], pose=np.eye(4))
    H_lower = np.eye(4)
    H_lower[0, 3] = 0.4
    lower = RigidBody("lower", 0.6, [5e-3, 5e-3, 5e-3], com=[0.15, 0.0, 0.0], pose=H_lower)
    H_slide = H_lower.copy()
    H_slide[0, 3] = 0.7
    slider = RigidBody("slider", 0.3, [1e-3, 1e-3, 1e-3], pose=H_slide)
    H_elbow = np.eye(4)
    H_elbow[0, 3] = 0.4
    rot_x = np.array([[0.0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1]])   # slide along the link's x
    H_rail = rot_x.copy()
    H_rail[0, 3] = 0.3
    shoulder = Joint("shoulder", Frame(ground, "M", np.eye(4)), upper.frame("B"), kind="revolute")
    elbow = Joint("elbow", Frame(upper, "E", H_elbow), lower.frame("B"), kind="revolute")
    rail = Joint("rail", Frame(lower, "R", H_rail), Frame(slider, "S", rot_x), kind="prismatic")
    bg = ph.BondGraph("arm")
    bg.add(ground, upper, lower, slider, shoulder, elbow, rail)
    for b in (upper, lower, slider):
        bg.add(Gravity(f"g_{b.name}", b, g=g))
        bg.connect(b.frame().port, f"g_{b.name}")
    for j in (shoulder, elbow, rail):
        bg.connect(j.ma.body.frame().port, (j, "a"))
        bg.connect(j.mb.body.frame().port, (j, "b"))
    e_axis = add_joint_axis(bg, "elbow_axis", elbow)
    r_axis = add_joint_axis(bg, "rail_axis", rail)
    tau = lambda t: 0.8 * np.cos(2.0 * t)   # noqa: E731
    force = lambda t: 1.5 * np.sin(3.0 * t)   # noqa: E731
    bg.add(JointActuator("elbow_tau", tau), JointActuator("rail_force", force))
    bg.connect("elbow_tau", (e_axis, "axis"))
    bg.connect("rail_force", (r_axis, "axis"))
    system = ph.compile(bg)
    t = np.linspace(0.0, 1.5, 31)
    traj = ph.simulate(system, (0.0, 1.5), system.initial_state({}), t_eval=t, **TIGHT)

    def world_twist(body, name):
        X = np.hstack((traj.state(f"{name}.pose"), traj.state(f"{name}.P")))
        out = []
        for x in X:
            R = body.pose_matrix(x)[:3, :3]
            T = body.twist(x)
            out.append((R @ T[:3], R @ T[3:], body.pose_matrix(x)))
        return out

    up, lo, sl = world_twist(upper, "upper"), world_twist(lower, "lower"), world_twist(slider, "slider")
    w_elbow = np.array([b[0][2] - a[0][2] for a, b in zip(up, lo)])
    # slide speed: slider origin's velocity relative to the lower link's material point there, along the rail
    v_rail = []
    for (wl, vl, Hl), (_, vs, Hs) in zip(lo, sl):
        r = Hs[:3, 3] - Hl[:3, 3]
        axis_w = Hl[:3, :3] @ np.array([1.0, 0.0, 0.0])
        v_rail.append(axis_w @ (vs - (vl + np.cross(wl, r))))
    v_rail = np.array(v_rail)
    assert np.max(np.abs(w_elbow)) > 0.5 and np.max(np.abs(v_rail)) > 0.05
    pp = traj.port_powers
    # algebra on each sample's state: round-off only
    assert_allclose(-pp["elbow_tau"], tau(t) * w_elbow, rtol=0, atol=1e-12 * np.max(np.abs(tau(t) * w_elbow)))
    assert_allclose(-pp["rail_force"], force(t) * v_rail, rtol=0, atol=1e-12 * np.max(np.abs(force(t) * v_rail)))
    _assert_ledger_closes(traj.power_budget())
