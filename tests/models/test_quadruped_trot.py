"""quadruped-trot: Go1 under PD joint control tracking a trot reference.

References: the leg's analytic kinematics (`ThreeJointLeg`) against the articulated body's own
forward kinematics from the URDF (the trot reference really puts the feet on the foot path);
the energy ledger (closes to the integration tolerance); each PD controller's reference
source supplies tau w_ref and the joint receives tau w, with tau = kp e + kd (w_ref - w)
recomputed from the state (to round-off). The 5 s acceptance run (>= 1 m advanced, base
clear of the ground) takes minutes on the articulated body: it is
examples/quadruped_trot_grounds.py, results in benchmarks/results/quadruped_trot.md.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.models import build_model
from porthamiltonian.models.quadruped_trot import (LEGS, TRUNK_HALF_HEIGHT, _description, _leg_geometry,
                                                   trot_foot_path, trot_references)

pytest.importorskip("yourdfpy")

DEFAULTS = dict(speed=0.5, period=0.3, step_height=0.08, height=0.25)


def _v_offsets(description):
    start, out = 0, {}
    for j in description.joints:
        out[j.name] = start
        start += j.nv
    return out


def test_reference_puts_the_feet_on_the_foot_path():
    from porthamiltonian.library import ArticulatedBody

    description = _description()
    refs = trot_references(description, **DEFAULTS)
    body = ArticulatedBody("robot", description, gravity=(0.0, 0.0, -9.81))
    qoff = {}
    start = 0
    for j in description.joints:
        qoff[j.name] = start
        start += j.nq
    P = {j.name: j.placement for j in description.joints}
    for t in np.linspace(0.0, DEFAULTS["period"], 9):
        q = body.q0.copy()
        q[:7] = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for leg, ref in refs.items():
            for k, part in enumerate(("hip", "thigh", "calf")):
                q[qoff[f"{leg}_{part}_joint"]] = ref.position(t, k)
        poses = dict(zip(body.link_names, body.link_poses(q)))
        for leg, phase in LEGS.items():
            # the foot in the hip frame (the ab/ad joint's parent marker, base-aligned), from the URDF chain
            hip = P[f"{leg}_hip_joint"][:3, 3]
            foot = poses[f"{leg}_foot"][:3, 3] - hip
            g = _leg_geometry(description, leg)
            path = trot_foot_path(t, period=DEFAULTS["period"], stride=DEFAULTS["speed"] * DEFAULTS["period"] / 2,
                                  step_height=DEFAULTS["step_height"], height=DEFAULTS["height"], offset=g.offset,
                                  phase=phase)
            # the spline passes through the IK exactly at the 64 samples (t = i T/64, which these
            # 9 times are); off the samples it differs by the spline's interpolation error
            assert_allclose(foot, path, rtol=0, atol=1e-12)


@pytest.fixture(scope="module")
def short_trot():
    # 0.1 s (a quarter stride: touchdown transient and the first swing), at the model's own solver
    model = build_model("quadruped-trot")
    system = ph.compile(model.graph)
    t = np.linspace(0.0, 0.1, 11)
    traj = ph.simulate(system, (0.0, 0.1), system.initial_state(model.initial), t_eval=t, **model.solver)
    return model, system, traj


def test_short_trot_ledger_closes_and_base_stays_clear(short_trot):
    model, system, traj = short_trot
    assert traj.status == 0, traj.message
    # the ledger closes to the integration tolerance: at the model's RK23 rtol 1e-4 measured
    # 3.2e-6 over this 0.1 s (5e-8 at the RK45 rtol 1e-6 of before: the residual follows rtol)
    assert traj.power_budget().relative_residual < 0.1 * model.solver["rtol"]
    # the trunk box's bottom stays 10 cm above the ground
    assert traj.state("robot.q")[:, 6].min() > TRUNK_HALF_HEIGHT + 0.10


def test_trot_runs_compiled_and_matches_the_python_path(short_trot):
    model, system, traj = short_trot
    # the PD references are compiled spline kernels: the whole right-hand side is numba
    assert system.compiled == "numba"
    python = ph.compile(model.graph, jit=False)
    assert python.compiled.startswith("python")
    # the right-hand side at the run's states: the same formulas, round-off apart
    for x, t in zip(traj.x[::3], traj.t[::3]):
        a, b = system.rhs(t, x), python.rhs(t, x)
        assert_allclose(a, b, rtol=0, atol=1e-9 * max(1.0, np.max(np.abs(b))))
    # a short run (5 ms: the Python path costs ~0.25 ms per evaluation) on both paths
    x0 = system.initial_state(model.initial)
    t = np.linspace(0.0, 0.005, 3)
    a = ph.simulate(system, (0.0, 0.005), x0, t_eval=t, **model.solver)
    b = ph.simulate(python, (0.0, 0.005), x0, t_eval=t, **model.solver)
    assert a.status == 0 and b.status == 0
    # measured 0.0: both paths call the same kernels; the bound allows the generated code's
    # different order of sums (round-off) amplified over the ~100 steps by the stiff contact
    assert_allclose(a.x, b.x, rtol=0, atol=1e-8 * max(1.0, np.max(np.abs(b.x))))


def test_pd_supplied_power_is_torque_times_speed(short_trot):
    model, system, traj = short_trot
    description = _description()
    refs = trot_references(description, **DEFAULTS)
    voff = _v_offsets(description)
    v = traj.state("robot.v")
    kp, kd = 150.0, 3.0
    moving = 0.0
    for leg, ref in refs.items():
        for k, part in enumerate(("hip", "thigh", "calf")):
            joint = f"{leg}_{part}_joint"
            e = traj.state(f"pd-{joint}/spring.q").reshape(-1)
            w_ref = ref.velocity(traj.t, k)
            w = v[:, voff[joint]]
            tau = kp * e + kd * (w_ref - w)
            supplied = -traj.port_powers[f"pd-{joint}/reference"]
            scale = np.max(np.abs(tau * w_ref)) + 1e-300
            moving = max(moving, scale)
            # algebra on each sample's state: round-off only
            assert_allclose(supplied, tau * w_ref, rtol=0, atol=1e-12 * max(scale, 1.0))
    assert moving > 0.1   # the references move: the sources supply power


def test_trot_on_rigid_feet_runs_its_strides_without_chatter():
    # 1.2 s, four strides, at the model's own solver. Before the contacts came to rest at every
    # event (`PHSystem.come_to_rest`) and a foot separating slower than its rest speed counted as
    # staying, the run stopped at 1.03 s: a front and a rear foot landed in turn at one instant,
    # each landing's impulse lifting the other at 0.7-1 mm/s, 3,000 events (issue 34)
    model = build_model("quadruped-trot", contact="sliding_plane")
    system = ph.compile(model.graph)
    t_end = 1.2
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), max_events=1000, **model.solver)
    assert traj.status == 0, traj.message      # 0, not 2: no audit flag (no contact generates energy)
    assert traj.power_budget().relative_residual < 0.1 * model.solver["rtol"]
    q = traj.state("robot.q")
    assert q[:, 6].min() > TRUNK_HALF_HEIGHT + 0.10
    assert q[-1, 4] - q[0, 4] > 0.3            # it trots forward (0.37 m measured; the reference's 0.6 m)
    # each foot lands once per stride, shortly before its reference stance starts (t = k T, or
    # (k + 1/2) T for FR and RL: measured 19-35 ms early, the base sagging onto the stance pair);
    # a landing is its first impact losing more than 0.05 J (0.1-0.7 J measured, a foot arriving
    # at ~1 m/s) after 50 ms without one: its bounces at restitution 0.3 settle within 1 ms, and
    # a stance foot's touches after a slip or a start's release lose < 0.005 J
    period = 0.3
    for leg, phase in LEGS.items():
        times = [e.t for e in traj.events if e.name == f"{leg}_foot-contact/constraint.impact" and e.lost > 0.05]
        landings = [t for k, t in enumerate(times) if k == 0 or t - times[k - 1] > 0.05]
        starts = [s for s in period * (np.arange(5) + (phase if phase else 1.0)) if s <= t_end + 0.02]
        assert len(landings) == len(starts), (leg, landings)
        assert all(-0.05 < t - s < 0.0 for t, s in zip(landings, starts)), (leg, landings)


def test_refused_choices_are_named():
    with pytest.raises(ParameterError, match=r"`terrain`.*got 'moon_dust'"):
        build_model("quadruped-trot", terrain="moon_dust")
    with pytest.raises(ParameterError, match=r"reference of joint 'FL_calf_joint' spans"):
        build_model("quadruped-trot", height=0.42)


def test_cost_of_transport_counts_the_pd_references_work(short_trot):
    from porthamiltonian.studies.transport import transport_energy

    model, system, traj = short_trot
    budget = traj.power_budget()
    supplied = sum(float(np.asarray(v)[-1] - np.asarray(v)[0]) for v in budget.entries["supplied"].values())
    te = transport_energy(traj, mass=12.0, distance=0.05)
    # no voltage source, no joint_axis: the energy spent is what the drives (the 12 moving PD
    # references, the model's only sources) supplied, booked as "reference" by the ledger;
    # the same ledger numbers summed in another order: round-off
    assert te.electrical == 0.0 and te.positive_work == 0.0
    assert abs(supplied) > 0.1
    assert_allclose(te.by_category["reference"], supplied, rtol=1e-9)
    assert_allclose(te.spent, supplied, rtol=1e-9)
    assert_allclose(te.cost_of_transport, supplied / (12.0 * 9.81 * 0.05), rtol=1e-9)


def test_default_solver_tracks_a_tight_reference(short_trot):
    # the model's default solver (RK23 rtol 1e-4, chosen for speed: module docstring "Solver")
    # against DOP853 at rtol 1e-10 over the same 0.1 s (touchdown transient and first swing)
    model, system, traj = short_trot
    grid = np.linspace(0.0, 0.1, 11)
    ref = ph.simulate(system, (0.0, 0.1), system.initial_state(model.initial), t_eval=grid, audit=False,
                      method="DOP853", rtol=1e-10, atol=1e-12)

    def on_grid(tr):   # the samples at the grid's times (an event adds samples between them)
        return tr.state("robot.q")[[np.flatnonzero(tr.t == tk)[-1] for tk in grid]]

    q, r = on_grid(traj), on_grid(ref)
    base = np.max(np.linalg.norm(q[:, 4:7] - r[:, 4:7], axis=1))
    joints = np.max(np.abs(q[:, 7:] - r[:, 7:]))
    # measured 2.5e-6 m and 1.1e-5 rad (over 1 s: 1.6e-5 m with this solver, 3.8e-6 m with RK45 at
    # rtol 1e-6, the default before, 8.8e-4 m with RK4 at MuJoCo's 1 ms step); the bounds leave a
    # factor ~4 for other platforms' round-off in the contacts' event times
    assert base < 1e-5
    assert joints < 5e-5


def test_motors_drive_the_trot_and_book_u_times_i():
    """`motors=true`: every joint through a Go1-like motor under the PD voltage law (`MotorPD`).

    A 10 ms run on the Python path (the compiled one costs a numba compile of this model's
    right-hand side, ~30 s cold; the compiled path with inputs is tested on a small model in
    tests/library/test_motor_pd.py). The 5 s acceptance run is
    benchmarks/quadruped_trot_motors.py (results/quadruped_trot_motors.md)."""
    from porthamiltonian.library.controllers import MotorPD
    from porthamiltonian.studies.transport import categorize

    model = build_model("quadruped-trot", motors=True)
    system = ph.compile(model.graph, jit=False)
    ctrl = model.inputs(system)
    assert isinstance(ctrl, MotorPD) and len(ctrl.servos) == 12 and system.n_inputs == 12
    t = np.linspace(0.0, 0.01, 6)
    # RK45 at rtol 1e-6 (the model's default before its RK23 rtol 1e-4, chosen for speed): the
    # split below is checked to 1e-6 of the electrical input, which needs a solver that tight
    traj = ph.simulate(system, (0.0, 0.01), system.initial_state(model.initial), inputs=ctrl, t_eval=t,
                       method="RK45", rtol=1e-6, atol=1e-8)
    assert traj.status == 0, traj.message
    budget = traj.power_budget()
    # the ledger closes to the integration tolerance (rtol 1e-6)
    assert budget.relative_residual < 1e-6
    # every voltage source books u_applied * i at every sample (algebra on the state: round-off)
    names = system.layout.names()
    worst = scale = 0.0
    for ti, x in zip(traj.t, traj.x):
        u = ctrl(ti, x)
        xdot = system.rhs(ti, x, u)
        for sv, slot in zip(ctrl.servos, ctrl._slots):
            k = sv.constants
            ui = np.clip(u[slot], -k.bus_voltage, k.bus_voltage) * x[names.index(sv.current)] / k.inductance
            worst = max(worst, abs(xdot[names.index(f"ledger.{sv.source}.supplied")] - ui))
            scale = max(scale, abs(ui))
    assert scale > 1.0 and worst <= 1e-12 * scale
    # the split: electrical input = Joule + gearbox + joint damping + contacts + stored change
    last = {k: {p: float(np.asarray(v)[-1]) for p, v in budget.entries[k].items()} for k in budget.entries}
    cats = categorize(budget.labels, last["supplied"], last["dissipated"], last["lost"], last["stabilization"])
    dH = float(budget.H[-1] - budget.H[0])
    assert float(cats["electrical"]) > 0 and float(cats["joule"]) > 0 and float(cats["gearbox"]) > 0
    joint_damping = sum(v for p, v in last["dissipated"].items() if budget.labels[p].startswith("JointDamper:"))
    assert joint_damping > 0
    spent = float(cats["joule"] + cats["gearbox"] + cats["contact"] + cats["impacts"]) + joint_damping + dH
    assert_allclose(float(cats["electrical"]), spent, rtol=0, atol=1e-6 * float(cats["electrical"]))
    # the cost of transport counts the electrical energy (the same ledger entries: round-off)
    from porthamiltonian.studies.transport import transport_energy

    te = transport_energy(traj, mass=12.0, distance=0.01, inputs=ctrl)
    assert_allclose(te.spent, float(cats["electrical"]), rtol=1e-12)
    assert_allclose(te.cost_of_transport, float(cats["electrical"]) / (12.0 * 9.81 * 0.01), rtol=1e-12)
