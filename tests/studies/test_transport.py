"""Energy by category and cost of transport of a motor-driven joint, against the ledger and
an independent route to the joint power (the pendulum's own storages' dH/dt).

A DC motor with a gearbox and a battery swings a pendulum on a hinge; the battery's bridge
commands a sinusoidal voltage. `transport_energy`
must give: electrical = the battery emf's supplied energy; Joule = armature + internal heat;
the categories' balance closing with the stored change; the joint powers equal to the
pendulum's dH/dt at every sample; and the cost of transport = E / (m g d).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.library import Frame, Gravity, Ground, Joint, RigidBody
from porthamiltonian.library.actuators import add_joint_axis
from porthamiltonian.library.motors import battery, dc_motor, gear_loss_coefficient
from porthamiltonian.studies import CATEGORIES, joint_powers, transport_energy

TOL = dict(rtol=1e-11, atol=1e-13, method="DOP853")
M, LEN, G = 0.8, 0.3, 9.81


@pytest.fixture(scope="module")
def driven():
    body = RigidBody("bob", M, [1e-3, 2e-3, 3e-3], com=[LEN, 0.0, 0.0], pose=np.eye(4))
    ground = Ground("ground")
    hinge = Joint("hinge", Frame(ground, "M", np.eye(4)), body.frame("B"), kind="revolute")
    bg = ph.BondGraph("driven")
    bg.add(ground, body, hinge, Gravity("gravity", body, g=(0.0, -G, 0.0)))
    bg.connect(body.frame().port, "gravity")
    bg.connect(ground.frame().port, (hinge, "a"))
    bg.connect(body.frame().port, (hinge, "b"))
    axis = add_joint_axis(bg, "axis", hinge)
    mot = dc_motor("motor", resistance=1.2, inductance=1e-3, torque_constant=0.05, rotor_inertia=2e-5,
                   viscous=1e-6, coulomb=2e-3, coulomb_speed=0.5, gear_ratio=20.0,
                   gear_loss=gear_loss_coefficient(0.9, 20.0, 2.0, 5.0))
    bat = battery("battery", 24.0, 0.2, command=lambda t: 12.0 * np.sin(2.0 * t))
    bg.add(mot, bat)
    bg.connect((bat, "terminal"), (mot, "electric"))
    bg.connect((mot, "shaft"), (axis, "axis"))
    system = ph.compile(bg)
    t = np.linspace(0.0, 3.0, 601)
    traj = ph.simulate(system, (0.0, 3.0), system.initial_state({}), t_eval=t, **TOL)
    return system, body, traj


def test_categories_follow_the_ledger(driven):
    system, body, traj = driven
    te = transport_energy(traj, mass=M, distance=0.5)
    budget = traj.power_budget()
    s, d = budget.entries["supplied"], budget.entries["dissipated"]
    assert te.electrical > 0.1
    assert te.electrical == pytest.approx(s["battery/emf"][-1], rel=1e-14)
    assert te.by_category["joule"] == pytest.approx(d["motor/armature"][-1] + d["battery/internal"][-1], rel=1e-14)
    assert te.by_category["gearbox"] == pytest.approx(d["motor/gear_loss"][-1], rel=1e-14)
    assert te.by_category["motor_friction"] == pytest.approx(d["motor/viscous"][-1] + d["motor/coulomb"][-1], rel=1e-14)
    assert set(te.by_category) == set(CATEGORIES)
    sup = sum(te.by_category[c] for c in ("electrical", "joint_input", "reference", "other_supplied"))
    out = sum(te.by_category[c] for c in ("joule", "motor_friction", "gearbox", "controller", "contact", "soil",
                                          "other_dissipated", "impacts", "stabilization"))
    # the ledger closes: what came in = stored change + what went out (integration tolerance)
    assert abs(sup - out - te.stored_change) < 30 * TOL["rtol"] * budget.exchanged
    assert te.cost_of_transport == pytest.approx(te.electrical / (M * G * 0.5), rel=1e-15)


def test_joint_power_is_the_pendulums_dH_dt(driven):
    system, body, traj = driven
    P = joint_powers(traj)["axis"]
    pp = traj.port_powers
    # the storages' port powers are their dH/dt: a second route to the power into the pendulum
    ref = pp["bob"] + pp["gravity"]
    assert np.max(np.abs(ref)) > 0.1
    assert_allclose(P, ref, rtol=0, atol=1e-10 * np.max(np.abs(ref)))
    te = transport_energy(traj, mass=M, distance=0.5)
    assert te.positive_work == pytest.approx(np.trapezoid(np.maximum(ref, 0.0), traj.t), rel=1e-9)
    # the motor delivers less than it draws
    assert 0 < te.positive_work < te.electrical


def test_window_and_bad_input(driven):
    system, body, traj = driven
    whole = transport_energy(traj, mass=M, distance=0.5)
    a = transport_energy(traj, mass=M, distance=0.5, t1=1.5)
    b = transport_energy(traj, mass=M, distance=0.5, t0=1.5)
    assert a.electrical + b.electrical == pytest.approx(whole.electrical, rel=1e-13)
    with pytest.raises(ParameterError, match="`distance` must be a positive"):
        transport_energy(traj, mass=M, distance=0.0)
    with pytest.raises(ParameterError, match="window"):
        transport_energy(traj, mass=M, distance=1.0, t0=2.0, t1=1.0)


def test_energy_flow_plot(driven, tmp_path):
    from porthamiltonian.diagnostics.plots import plot_energy_flow, save_figure

    system, body, traj = driven
    fig = plot_energy_flow(transport_energy(traj, mass=M, distance=0.5))
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[0] == "electrical" and "joule" in labels and "gearbox" in labels
    save_figure(fig, tmp_path / "flow.png")
    assert (tmp_path / "flow.png").stat().st_size > 1000


def test_stride_energy_by_category_and_cost_of_transport(driven):
    """`StrideEnergy.by_category` splits each stride like `transport_energy` over its window."""
    from porthamiltonian.studies import PoincareSection, stride_energy

    system, body, _ = driven
    section = PoincareSection(lambda t, x: np.sin(np.pi * t - 0.5))   # t = 0.159, 1.159, 2.159
    t = np.linspace(0.0, 3.0, 601)
    traj = ph.simulate(system, (0.0, 3.0), system.initial_state({}), t_eval=t, events=section.events, **TOL)
    strides = stride_energy(traj, section)
    cats = strides.by_category()
    assert cats["electrical"].shape == (2,)
    for k in range(2):
        te = transport_energy(traj, mass=M, distance=0.5, t0=strides.t[k], t1=strides.t[k + 1])
        for c in ("electrical", "joule", "gearbox", "motor_friction"):
            assert cats[c][k] == pytest.approx(te.by_category[c], rel=1e-12, abs=1e-15)
    cot = strides.cost_of_transport(M, [0.5, 0.25])
    assert_allclose(cot, cats["electrical"] / (M * G * np.array([0.5, 0.25])), rtol=1e-15)
    with pytest.raises(ParameterError, match="distances"):
        strides.cost_of_transport(M, [0.5])
