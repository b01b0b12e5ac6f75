"""Benchmark: speed of every registered model variant and of the kernels (not a test).

    python benchmarks/speed.py [--t-end 0.5] [--cap 60] [--methods RK45 DOP853 Radau BDF LSODA]
                               [--models two-ellipsoids ...] [--out benchmarks/results/speed.md]

Three tables, printed and written to `--out` (markdown) with the numbers as JSON alongside:

1. Variants: every registered model in every variant the registry tests build (each model
   with a contact parameter with both contact kinds, compliant and sliding_plane, plus the
   other variants listed in `VARIANTS`), at its own solver settings (or with each method of
   `--methods`, same tolerances), for `--t-end` simulated seconds. Columns: simulated time
   reached, wall time of the integration [s], wall per simulated second, rhs evaluations,
   µs per rhs over the whole run (solver overhead included) and measured alone (`system.rhs`
   on ~100 states of the trajectory), events, ledger relative residual.
2. Kernels: µs per rhs and compile time of a 50- and a 500-mass linear chain (I, C, R on
   junctions), one rigid body in free flight, and the cost of the two-ellipsoids contacts
   (the model's rhs minus that of the same two bodies with gravity and no contact, at the
   same states); quadruped-trot (Go1 under PD on compliant ground, 1 s at its own solver
   settings: CPU per simulated second against real time) with MuJoCo on the same robot and
   gait in the same job (`mujoco_trot`), and their ratio (give it `--cap` 300 on a loaded
   machine: ~40 s of compile and warm-up, then ~1 s of CPU per simulated second at the
   model's RK23 rtol 1e-4; benchmarks/results/quadruped_trot.md).
3. First run: the README's first run, `porthamiltonian run two-ellipsoids` (5 s simulated,
   the energy report, plots and files), timed end to end in a fresh interpreter, once with
   every cache empty (numba's `NUMBA_CACHE_DIR`, the generated right-hand sides'
   `PORTHAMILTONIAN_CACHE`, matplotlib's `MPLCONFIGDIR`, all pointed at new directories, so
   the JIT cost is included without deleting the shared `__pycache__`: a fresh install) and
   once again with them filled. The difference is the first run's extra cost. Then once more
   with new empty caches and no helper processes (``PORTHAMILTONIAN_COMPILE_HELPERS=0``: the
   model's own process compiles every kernel; `porthamiltonian.kernels._parallel`).

Every measurement runs in its own subprocess: a variant still running after `--cap` wall
seconds is stopped and reported as "> cap" with the simulated time it had reached (read
from `simulate`'s progress output, which in a pipe prints one line per 10 %). Each variant
first builds its compiled right-hand side (`PHSystem.compiled`, column "rhs": numba or
python) and runs a short warm-up integration, so the timed run measures the steady state,
not the JIT; the warm-up and setup time is reported separately. A timed run that still
compiles (kernels of a later contact phase the warm-up did not reach, with cold caches) is
run and timed again; its note gives the first run's numba compiles and wall time.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

#: extra variants besides the contact kinds (as in tests/models/test_registry.py)
EXTRA_VARIANTS = {
    "four-bar-clearance": [dict(model="massless_link")],
    "cam-follower": [dict(cam="eccentric", contact=c) for c in ("compliant", "sliding_plane")],
    "rocking-ellipsoid": [dict(friction="rolling", contact=c) for c in ("compliant", "sliding_plane", "reduced")]
    + [dict(contact="reduced")],
    "rimless-wheel": [dict(contact="soil")],
    "hopping-leg": [dict(contact="soil")],
}

#: states at which the rhs is timed alone
N_STATES = 100


def variants(names=None):
    """(model name, parameters) of every registered variant, optionally of the named models only."""
    from porthamiltonian.models import MODELS

    out = []
    for name, spec in sorted(MODELS.items()):
        if names and name not in names:
            continue
        choices = [dict(contact=c) for c in ("compliant", "sliding_plane")] if "contact" in spec.parameters else [{}]
        out += [(name, params) for params in choices + EXTRA_VARIANTS.get(name, [])]
    return out


# --------------------------------------------------------------------------- workers
def _time_rhs(system, ts, xs, repeats=5):
    """µs per `system.rhs` call over the given states: the best of `repeats` passes (the least
    disturbed by other processes on a shared machine)."""
    for t, x in zip(ts, xs):  # once untimed: any kernel not yet compiled compiles here
        system.rhs(t, x)
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        for t, x in zip(ts, xs):
            system.rhs(t, x)
        best = min(best, (time.perf_counter() - t0) / len(xs))
    return best * 1e6


def _time_compiled_call(system, ts, xs, repeats=5):
    """µs per call of the bare compiled right-hand side (``system._jit["fn"]``, what `_time_rhs`'s
    `PHSystem.rhs` calls after checking the state and choosing the path), the best of `repeats`
    passes of CPU time (`time.process_time`: a pass preempted on a loaded machine is not charged
    for the wait)."""
    j = system._jit
    u = np.zeros(system.n_inputs)
    for t, x in zip(ts, xs):
        j["fn"](t, x, u, j["F"], j["I"])
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        for t, x in zip(ts, xs):
            j["fn"](t, x, u, j["F"], j["I"])
        best = min(best, (time.process_time() - t0) / len(xs))
    return best * 1e6


def _sample(traj, n=N_STATES):
    idx = np.unique(np.linspace(0, traj.t.size - 1, min(n, traj.t.size)).astype(int))
    return traj.t[idx], traj.x[idx]


def job_variant(name, params, method, t_end):
    """Build, compile, warm up and time one model variant (see module docstring)."""
    import porthamiltonian as ph
    from porthamiltonian.models import build_model

    t_setup = time.perf_counter()
    model = build_model(name, **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    path = system.compiled   # builds (or loads) the compiled right-hand side now: the timed run is steady
    solver = dict(model.solver)
    if method:
        solver["method"] = method
    # warm-up: compiles (or loads from the cache) the kernels the first instants use
    ph.simulate(system, (0.0, min(1e-3, t_end / 20)), x0, throw=False, **solver)
    setup = time.perf_counter() - t_setup
    compiled, wall_compiling = 0, None
    for _ in range(2):   # a run that compiled (a later contact phase with cold caches) is run again
        counting = _count_compiles()
        t0 = time.perf_counter()
        traj = ph.simulate(system, (0.0, t_end), x0, throw=False, progress=True, **solver)
        wall = time.perf_counter() - t0
        n = counting()
        if not n:
            break
        compiled, wall_compiling = n, wall
    ts, xs = _sample(traj)
    reached = float(traj.t[-1])
    return dict(
        t_reached=reached, wall=wall, nfev=traj.nfev, setup=setup, method=traj.method, path=path.split(":")[0],
        rtol=solver.get("rtol"), atol=solver.get("atol"),
        us_per_rhs_run=wall / max(traj.nfev, 1) * 1e6, us_per_rhs=_time_rhs(system, ts, xs),
        events=len(traj.events), residual=traj.power_budget().relative_residual,
        status=traj.status, message="" if traj.success else traj.message[:160], compiled_in_run=compiled,
        wall_compiling=wall_compiling,
    )


def _count_compiles():
    """Start counting numba's compiles; returns a function that stops and gives the count (a
    run that compiles what the warm-up did not reach, a later contact phase's kernels with
    cold caches, times the compiler too: `job_variant` runs it again, and the table says so)."""
    from numba.core import event

    count = [0]

    class Count(event.Listener):
        def on_start(self, ev):
            count[0] += 1

        def on_end(self, ev):
            pass

    listener = Count()
    event.register("numba:compile", listener)

    def stop():
        event.unregister("numba:compile", listener)
        return count[0]

    return stop


def chain_graph(n):
    """A chain of n unit masses, neighbours joined by a spring (100 N/m) and a damper
    (0.1 N s/m) in parallel, the first mass pushed by a constant force.

        F -> 1:v0 -> 0:s0 -> 1:v1 -> 0:s1 -> ... -> 1:v(n-1)      each 1:vi -> I:mi
                       |              |
                     1:d0 -> C:k0, R:b0 (relative velocity v0 - v1)
    """
    import porthamiltonian as ph

    bg = ph.BondGraph(f"chain{n}")
    bg.add(ph.Se("F", 1.0))
    for i in range(n):
        bg.add(ph.Junction1(f"v{i}"), ph.I(f"m{i}", mass=1.0))
        bg.connect(f"v{i}", f"m{i}")
    bg.connect("F", "v0")
    for i in range(n - 1):
        bg.add(ph.Junction0(f"s{i}"), ph.Junction1(f"d{i}"), ph.C(f"k{i}", stiffness=100.0), ph.R(f"b{i}", 0.1))
        bg.connect(f"v{i}", f"s{i}")
        bg.connect(f"s{i}", f"v{i + 1}")
        bg.connect(f"s{i}", f"d{i}")
        bg.connect(f"d{i}", f"k{i}")
        bg.connect(f"d{i}", f"b{i}")
    return bg


def job_chain(n):
    """Build and compile time and µs per rhs of the n-mass chain at seeded random states."""
    import porthamiltonian as ph

    t0 = time.perf_counter()
    bg = chain_graph(n)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    system = ph.compile(bg)
    compile_time = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(N_STATES, system.layout.size))
    return dict(build=build, compile=compile_time, us_per_rhs=_time_rhs(system, np.zeros(N_STATES), xs),
                n_state=system.layout.size)


def job_free_body():
    """µs per rhs of one rigid body in free flight (no gravity), at states along its motion."""
    import porthamiltonian as ph
    from porthamiltonian.library import RigidBody

    bg = ph.BondGraph("free_body")
    bg.add(RigidBody("body", 1.0, [0.1, 0.2, 0.25], twist=[1.0, 2.0, 3.0, 0.1, 0.0, 0.0]))
    t0 = time.perf_counter()
    system = ph.compile(bg)
    compile_time = time.perf_counter() - t0
    traj = ph.simulate(system, (0.0, 1.0), system.initial_state(), rtol=1e-9, atol=1e-11)
    ts, xs = _sample(traj)
    return dict(compile=compile_time, us_per_rhs=_time_rhs(system, ts, xs), n_state=system.layout.size)


def job_contact(t_end):
    """Cost of the three two-ellipsoids contacts: the model's rhs minus the rhs of the same two
    bodies with gravity and no contact, at the same body states (from a run of the model)."""
    import porthamiltonian as ph
    from porthamiltonian.library import Gravity, RigidBody
    from porthamiltonian.models import build_model
    from porthamiltonian.models.two_ellipsoids import ellipsoid_inertia

    model = build_model("two-ellipsoids")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), throw=False, **model.solver)
    ts, xs = _sample(traj)
    bg = ph.BondGraph("two_bodies")
    I = ellipsoid_inertia(1.0, (0.25, 0.15, 0.1))
    lower, upper = RigidBody("lower", 1.0, I), RigidBody("upper", 1.0, I)
    bg.add(lower, upper, Gravity("g_lower", lower), Gravity("g_upper", upper))
    bg.connect(lower.frame().port, "g_lower")
    bg.connect(upper.frame().port, "g_upper")
    bodies = ph.compile(bg)
    ys = np.zeros((len(xs), bodies.layout.size))
    for block in bodies.layout.blocks:  # the bodies' own blocks, same names in the model
        ys[:, block.start:block.stop] = xs[:, system.layout[block.key]]
    full, free = _time_rhs(system, ts, xs), _time_rhs(bodies, ts, ys)
    return dict(us_per_rhs_model=full, us_per_rhs_bodies=free, us_per_rhs=full - free, t_reached=float(traj.t[-1]))


def quadruped_graph(kind="compliant"):
    """The Go1-sized quadruped of `porthamiltonian.robots.examples` standing on a floor: four
    sphere feet in `kind` contacts, every leg joint held at its standing angle by a joint
    spring (40 N m/rad) and damper (1 N m s/rad), the base 1 mm above its resting height
    (the feet touching), the feet of robot-drop's material (`robot_drop.feet_material`: linear
    5e4 N/m, restitution 0.3, friction 0.8; the compliant kind's default, Hertz between stated
    solids, is stiff enough that RK4 at dt 1 ms does not resolve a landing, and the feet
    chattered: 10,000 touch/release events by 0.6 s). Returns (graph, robot, q0)."""
    import porthamiltonian as ph
    from porthamiltonian.geometry import Plane, Sphere
    from porthamiltonian.library import ArticulatedBody, Ground, JointDamper, JointSpring, contact
    from porthamiltonian.models.robot_drop import feet_material
    from porthamiltonian.robots.examples import HIPS, quadruped

    robot = ArticulatedBody("go1", quadruped())
    ground = Ground("ground")
    bg = ph.BondGraph("quadruped")
    bg.add(robot, ground)
    stand = {}
    for leg in HIPS:
        stand.update({f"{leg}_hip_joint": 0.0, f"{leg}_thigh_joint": 0.8, f"{leg}_calf_joint": -1.6})
    for jn, angle in stand.items():
        spring = JointSpring(f"k_{jn}", robot, jn, stiffness=40.0, rest=angle)
        damper = JointDamper(f"c_{jn}", robot, jn, damping=1.0)
        bg.add(spring, damper)
        bg.connect((robot, spring.port_name), (spring, "p"))
        bg.connect((robot, damper.port_name), (damper, "p"))
    for leg in HIPS:
        foot = robot.link(f"{leg}_foot")
        bg.add(contact(kind, f"foot_{leg}", foot, Sphere(0.02), ground, Plane(), material=feet_material(1e-3)))
        bg.connect(foot.frame().port, (f"foot_{leg}", "a"))
        bg.connect(ground.frame().port, (f"foot_{leg}", "b"))
    x = robot.state(joints=stand)
    foot_z = min(H[2, 3] for l, H in zip(robot.link_names, robot.link_poses(x[: robot.nq])) if l.endswith("_foot"))
    q0 = robot.state(joints=stand, base_pose=np.r_[1.0, 0, 0, 0, 0, 0, 0.02 - foot_z + 1e-3])[: robot.nq]
    return bg, robot, q0


#: the adaptive run of `job_quadruped`: scipy's RK23 with its step loop compiled, at this rtol
#: (atol 1e-2 x), at least as accurate as RK4 at dt 1e-3 on the quadruped (measured 2026-11-29
#: at 1 s from the DOP853 reference: joints 3.4e-8 rad, base 1.0e-8 m, 1,662 evaluations;
#: RK4's 7.3e-8 rad, 1.4e-8 m, 4,023; rtol 1e-5 read the base 0.7 % worse than RK4)
ADAPTIVE_RTOL = 5e-6


def adaptive_against_rk4(system, x0, t_end, block, nq):
    """The quadruped's whole `simulate` at the accuracy of RK4 at dt 1e-3 (the integrator and
    step MuJoCo runs; on the same tree in the air ours and MuJoCo's RK4 agree with the
    reference equally, `job_go1_accuracy`) in fewer evaluations: `CompiledRK23` at
    `ADAPTIVE_RTOL`. Both against DOP853 at rtol 1e-10: the largest joint-angle and
    base-position error at `t_end` (block `block` of the state, `nq` positions), and the
    adaptive run's CPU per simulated second (best of 3) and evaluations."""
    import porthamiltonian as ph
    from porthamiltonian.integrate.compiled_rk import CompiledRK23

    ref = ph.simulate(system, (0.0, t_end), x0, method="DOP853", rtol=1e-10, atol=1e-12).state(block)[-1][:nq]

    def errors(traj):
        q = traj.state(block)[-1][:nq]
        return dict(joints=float(np.abs(q[7:] - ref[7:]).max()), base=float(np.abs(q[4:7] - ref[4:7]).max()))

    rk4 = errors(ph.simulate(system, (0.0, t_end), x0, method="RK4", step=1e-3))
    solver = dict(method=CompiledRK23, rtol=ADAPTIVE_RTOL, atol=1e-2 * ADAPTIVE_RTOL)
    ph.simulate(system, (0.0, 2e-3), x0, **solver)   # warm-up: the compiled step loop loads
    cpu = np.inf
    for _ in range(3):
        t0 = time.process_time()
        traj = ph.simulate(system, (0.0, t_end), x0, **solver)
        cpu = min(cpu, (time.process_time() - t0) / t_end)
    return dict(adaptive_cpu_per_s=cpu, adaptive_nfev=int(traj.nfev), adaptive_error=errors(traj), rk4_error=rk4)


def job_quadruped(t_end):
    """The quadruped on a compliant floor: build + compile, µs per compiled rhs along a run,
    and CPU per simulated second with RK4 at dt 1e-3 (ours, and MuJoCo's on the same tree),
    and with the adaptive solver at RK4's accuracy (`adaptive_against_rk4`)."""
    import porthamiltonian as ph

    t0 = time.perf_counter()
    bg, robot, q0 = quadruped_graph()
    system = ph.compile(bg)
    build = time.perf_counter() - t0
    x0 = system.initial_state({"go1.q": q0})
    t0 = time.perf_counter()
    path = system.compiled
    compile_time = time.perf_counter() - t0
    ph.simulate(system, (0.0, 2e-3), x0, method="RK4", step=1e-3)   # warm-up
    t0 = time.process_time()
    traj = ph.simulate(system, (0.0, t_end), x0, method="RK4", step=1e-3)
    cpu = (time.process_time() - t0) / t_end
    ts, xs = _sample(traj)
    out = dict(build=build, compile=compile_time, path=path, us_per_rhs=_time_rhs(system, ts, xs),
               us_per_compiled_call=_time_compiled_call(system, ts, xs), n_state=system.layout.size,
               cpu_per_s=cpu, residual=traj.power_budget().relative_residual)
    out.update(adaptive_against_rk4(system, x0, t_end, "go1", robot.nq))
    try:
        out["mujoco_cpu_per_s"] = mujoco_quadruped_cpu(robot, q0, t_end)
    except ImportError as exc:
        out["mujoco"] = f"not run: {exc}"
    return out


def mujoco_quadruped_cpu(robot, q0, t_end):
    """CPU per simulated second of MuJoCo on the same tree (its MJCF written from the
    description: same masses, inertias, axes, sphere feet; RK4, dt 1e-3; joint springs and
    dampers as MuJoCo's own joint stiffness/damping)."""
    import mujoco

    from porthamiltonian.lie import quaternion

    d = robot.description
    children = {}
    for j in d.joints:
        children.setdefault(j.parent, []).append(j)
    stand = {j.name: q0[robot._qo[k]] for k, j in enumerate(d.joints) if j.nq == 1}

    def body(j, indent):
        link = d.link(j.child)
        H = j.placement
        qw = quaternion.from_matrix(H[:3, :3])
        li = link.inertia
        I = li.inertia
        xml = [f'{indent}<body name="{link.name}" pos="{H[0, 3]} {H[1, 3]} {H[2, 3]}" quat="{qw[0]} {qw[1]} {qw[2]} {qw[3]}">']
        xml.append(f'{indent}  <inertial pos="{li.com[0]} {li.com[1]} {li.com[2]}" mass="{li.mass}" '
                   f'fullinertia="{I[0, 0]} {I[1, 1]} {I[2, 2]} {I[0, 1]} {I[0, 2]} {I[1, 2]}"/>')
        if j.kind == "free":
            xml.append(f"{indent}  <freejoint/>")
        elif j.kind == "revolute":
            a = j.axis
            xml.append(f'{indent}  <joint name="{j.name}" type="hinge" axis="{a[0]} {a[1]} {a[2]}" stiffness="40" '
                       f'springref="{stand[j.name]}" damping="1"/>')
        for s in link.collisions:
            xml.append(f'{indent}  <geom type="sphere" size="{s.size[0]}"/>')
        for c in children.get(link.name, []):
            xml += body(c, indent + "  ")
        xml.append(f"{indent}</body>")
        return xml

    xml = "\n".join(['<mujoco><compiler angle="radian"/><option timestep="0.001" integrator="RK4" gravity="0 0 -9.81"/>',
                      '<default><geom contype="1" conaffinity="1"/></default><worldbody>',
                      '<geom type="plane" size="5 5 0.1"/>', *body(d.joints[0], "  "), "</worldbody></mujoco>"])
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qpos[:] = np.r_[q0[4:7], q0[:4], q0[7:]]
    steps = int(round(t_end / 1e-3))
    t0 = time.process_time()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    return (time.process_time() - t0) / t_end


def job_quadruped_trot(t_end):
    """quadruped-trot (Go1, PD joints, compliant ground) at its own solver settings: wall and
    CPU per simulated second (real time is 1), the distance advanced; and MuJoCo on the same
    robot and gait in the same process (`mujoco_trot`), with the ratio."""
    import porthamiltonian as ph
    from porthamiltonian.models import build_model

    t0 = time.perf_counter()
    model = build_model("quadruped-trot")
    system = ph.compile(model.graph)
    x0 = system.initial_state(model.initial)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    path = system.compiled
    compile_time = time.perf_counter() - t0
    ph.simulate(system, (0.0, 2e-3), x0, **model.solver)   # warm-up (JIT)
    w0, c0 = time.perf_counter(), time.process_time()
    traj = ph.simulate(system, (0.0, t_end), x0, t_eval=np.linspace(0.0, t_end, 11), **model.solver)
    wall, cpu = (time.perf_counter() - w0) / t_end, (time.process_time() - c0) / t_end
    q = traj.state("robot.q")
    ts, xs = _sample(traj)
    out = dict(build=build, compile=compile_time, path=path, us_per_rhs=_time_rhs(system, ts, xs),
               n_state=system.layout.size, wall_per_s=wall, cpu_per_s=cpu, nfev=int(traj.nfev),
               distance=float(q[-1, 4] - q[0, 4]), residual=traj.power_budget().relative_residual,
               solver=" ".join(f"{k} {v:g}" if isinstance(v, float) else str(v) for k, v in model.solver.items()))
    try:
        out.update(mujoco_trot(model, t_end))
    except ImportError as exc:
        out["mujoco"] = f"not run: {exc}"
    return out


def mujoco_trot(model, t_end, dt=1e-3):
    """MuJoCo on the same robot and gait: the MJCF written from the same URDF description (masses,
    inertias, joint axes and placements; the foot spheres the only colliding geoms, friction
    as the model's), compiled by mujoco; each joint a `position` actuator with kp and kv the
    model's PD gains and ctrl = theta_ref + (kd/kp) w_ref, so MuJoCo's
    kp (ctrl - q) - kv qdot is the same law kp (theta_ref - q) + kd (w_ref - qdot). RK4 at `dt`,
    from the model's initial pose. Returns CPU per simulated second and the distance advanced."""
    import mujoco

    from porthamiltonian.lie import quaternion
    from porthamiltonian.models import MODELS
    from porthamiltonian.models.quadruped_trot import _description, trot_references

    P = {k: p.default for k, p in MODELS["quadruped-trot"].parameters.items()}
    d = _description()
    refs = trot_references(d, speed=P["speed"], period=P["period"], step_height=P["step_height"], height=P["height"])
    robot = model.graph["robot"]
    q0 = np.asarray(robot.q0)
    children = {}
    for j in d.joints:
        children.setdefault(j.parent, []).append(j)

    def body(j, indent):
        link = d.link(j.child)
        H = j.placement
        qw = quaternion.from_matrix(H[:3, :3])
        li = link.inertia
        I = li.inertia
        xml = [f'{indent}<body name="{link.name}" pos="{H[0, 3]} {H[1, 3]} {H[2, 3]}" quat="{qw[0]} {qw[1]} {qw[2]} {qw[3]}">']
        if li.mass > 0:
            xml.append(f'{indent}  <inertial pos="{li.com[0]} {li.com[1]} {li.com[2]}" mass="{li.mass}" '
                       f'fullinertia="{I[0, 0]} {I[1, 1]} {I[2, 2]} {I[0, 1]} {I[0, 2]} {I[1, 2]}"/>')
        if j.kind == "free":
            xml.append(f"{indent}  <freejoint/>")
        elif j.kind == "revolute":
            a = j.axis
            xml.append(f'{indent}  <joint name="{j.name}" type="hinge" axis="{a[0]} {a[1]} {a[2]}"/>')
        if link.name.endswith("_foot"):
            xml.append(f'{indent}  <geom type="sphere" size="0.02" friction="{P["friction"]} 0.005 0.0001"/>')
        for c in children.get(link.name, []):
            xml += body(c, indent + "  ")
        xml.append(f"{indent}</body>")
        return xml

    legs = [(leg, k, f"{leg}_{part}_joint") for leg in refs for k, part in enumerate(("hip", "thigh", "calf"))]
    acts = [f'<position joint="{jn}" kp="{P["kp"]}" kv="{P["kd"]}"/>' for _, _, jn in legs]
    xml = "\n".join([f'<mujoco><option timestep="{dt}" integrator="RK4" gravity="0 0 -9.81"/>',
                      # balanceinertia: the description's balanced base inertia (A + B = C) is refused by
                      # MuJoCo 4's compiler at round-off (A + B < C by ~1e-17); it rebalances as we did
                      '<compiler angle="radian" boundmass="1e-6" boundinertia="1e-10" balanceinertia="true"/>',
                      '<worldbody><geom type="plane" size="50 50 0.1" friction="%s 0.005 0.0001"/>' % P["friction"],
                      *body(d.joints[0], "  "), "</worldbody><actuator>", *acts, "</actuator></mujoco>"])
    m = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(m)
    data.qpos[:] = np.r_[q0[4:7], q0[:4], q0[7:]]
    adr = [m.jnt_qposadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, jn)] for _, _, jn in legs]
    gain = P["kd"] / P["kp"]
    steps = int(round(t_end / dt))
    ts = np.arange(steps) * dt
    # the commands at every step, tabulated before the timed loop (held over each RK4 step)
    ctrl = np.column_stack([refs[leg].position(ts, k) + gain * refs[leg].velocity(ts, k) for leg, k, _ in legs])
    zmin = data.qpos[2]
    c0 = time.process_time()
    for i in range(steps):
        data.ctrl[:] = ctrl[i]
        mujoco.mj_step(m, data)
        zmin = min(zmin, data.qpos[2])
    cpu = (time.process_time() - c0) / t_end
    return dict(mujoco_cpu_per_s=cpu, mujoco_distance=float(data.qpos[0] - q0[4]), mujoco_min_height=float(zmin))


def job_tree_chain(n):
    """µs per compiled rhs of an n-link chain (revolute joints) under gravity, along a run."""
    import porthamiltonian as ph
    from porthamiltonian.library import ArticulatedBody
    from porthamiltonian.robots.examples import chain

    robot = ArticulatedBody("chain", chain(n))
    bg = ph.BondGraph(f"tree_chain{n}")
    bg.add(robot)
    system = ph.compile(bg)
    t0 = time.perf_counter()
    system.compiled
    compile_time = time.perf_counter() - t0
    q0 = np.full(robot.nq, 0.3)
    traj = ph.simulate(system, (0.0, 0.05), system.initial_state({"chain.q": q0}), rtol=1e-6, atol=1e-8)
    ts, xs = _sample(traj)
    return dict(compile=compile_time, us_per_rhs=_time_rhs(system, ts, xs), n_state=system.layout.size)


def job_robot(name, t_end):
    """A robot of example-robot-data from its URDF: "go1" (and the other robots of the model
    'robot-drop': its drop on a compliant floor, sphere feet, joint springs and dampers) or
    "g1" (the humanoid, 29 joints + free base, falling under its own weight: its mesh feet
    have no contact yet). Build, compile and load times (warm caches on a second run), µs per
    compiled rhs alone along an RK4 run at dt 1e-3, and its CPU per simulated second."""
    import warnings

    import porthamiltonian as ph
    from porthamiltonian.errors import RobotFileWarning
    from porthamiltonian.library import ArticulatedBody
    from porthamiltonian.models import build_model
    from porthamiltonian.robots import example, load_urdf

    t0 = time.perf_counter()
    if name == "g1":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RobotFileWarning)
            robot = ArticulatedBody("robot", load_urdf(example("g1"), balance_inertia=True))
        bg = ph.BondGraph("g1")
        bg.add(robot)
        initial = {}
    else:
        model = build_model("robot-drop", robot=name)
        bg, initial = model.graph, model.initial
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    system = ph.compile(bg)
    compile_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    path = system.compiled
    load = time.perf_counter() - t0
    x0 = system.initial_state(initial)
    ph.simulate(system, (0.0, 2e-3), x0, method="RK4", step=1e-3)   # warm-up
    t0 = time.process_time()
    traj = ph.simulate(system, (0.0, t_end), x0, method="RK4", step=1e-3)
    cpu = (time.process_time() - t0) / t_end
    ts, xs = _sample(traj)
    out = dict(build=build, compile=compile_time, load=load, path=path, us_per_rhs=_time_rhs(system, ts, xs),
               n_state=system.layout.size, cpu_per_s=cpu, residual=traj.power_budget().relative_residual)
    if system._jit["fn"] is not None:
        out["us_per_compiled_call"] = _time_compiled_call(system, ts, xs)
    return out


def mujoco_mjcf(description, q0, *, contacts=True):
    """MJCF text of a `RobotDescription` for MuJoCo: the same bodies, placements, masses,
    inertias (about the centre of mass), axes and armatures; each one-dof joint's spring
    (``stiffness``, ``rest``) and ``damping`` as MuJoCo's own joint stiffness/springref/damping;
    sphere collision shapes as geoms (with `contacts`, plus a floor plane); RK4 at dt 1e-3.
    `q0` is only used for free roots (none written when the root joint is not free)."""
    from porthamiltonian.lie import quaternion

    children = {}
    for j in description.joints:
        children.setdefault(j.parent, []).append(j)

    def body(j, indent):
        link = description.link(j.child)
        H = j.placement
        qw = quaternion.from_matrix(H[:3, :3])
        li = link.inertia
        I = li.inertia
        xml = [f'{indent}<body name="{link.name}" pos="{H[0, 3]} {H[1, 3]} {H[2, 3]}" quat="{qw[0]} {qw[1]} {qw[2]} {qw[3]}">']
        if li.mass > 0:
            xml.append(f'{indent}  <inertial pos="{li.com[0]} {li.com[1]} {li.com[2]}" mass="{li.mass}" '
                       f'fullinertia="{I[0, 0]} {I[1, 1]} {I[2, 2]} {I[0, 1]} {I[0, 2]} {I[1, 2]}"/>')
        if j.kind == "free":
            xml.append(f"{indent}  <freejoint/>")
        elif j.kind in ("revolute", "continuous", "prismatic"):
            a = j.axis
            kind = "slide" if j.kind == "prismatic" else "hinge"
            xml.append(f'{indent}  <joint name="{j.name}" type="{kind}" axis="{a[0]} {a[1]} {a[2]}" stiffness="{j.stiffness}" '
                       f'springref="{j.rest}" damping="{j.damping}" armature="{j.armature}" limited="false"/>')
        if contacts:
            for sh in link.collisions:
                if sh.kind == "sphere":
                    c = sh.placement[:3, 3]
                    xml.append(f'{indent}  <geom type="sphere" size="{sh.size[0]}" pos="{c[0]} {c[1]} {c[2]}"/>')
        for c in children.get(link.name, []):
            xml += body(c, indent + "  ")
        xml.append(f"{indent}</body>")
        return xml

    floor = ['<geom type="plane" size="5 5 0.1"/>'] if contacts else []
    return "\n".join(['<mujoco><compiler angle="radian"/><option timestep="0.001" integrator="RK4" gravity="0 0 -9.81"/>',
                       '<default><geom contype="1" conaffinity="1"/></default><worldbody>', *floor,
                       *body(description.joints[0], "  "), "</worldbody></mujoco>"])


def job_go1_accuracy(t_end):
    """Go1 from its URDF (example-robot-data; the joints of 'robot-drop': springs to the
    standing pose and dampers), falling in the air from a pose off its springs' rest (no
    contact: the two programs' contact models differ, so the comparison is of the tree
    dynamics), integrated by RK4 at dt 1e-3 by us and by MuJoCo (MJCF written from the same
    parsed file: `mujoco_mjcf`), both compared against our DOP853 run at rtol 1e-10: the
    largest joint-angle and base-position error at `t_end`, and CPU per simulated second."""
    import mujoco

    import porthamiltonian as ph
    from porthamiltonian.library import ArticulatedBody, add_joint_dynamics
    from porthamiltonian.models.robot_drop import robot_description

    description, _ = robot_description("go1", joint_stiffness=40.0 / 12.0, joint_damping=0.5 / 12.0)
    robot = ArticulatedBody("robot", description)
    q0 = robot.q0.copy()
    q0[:7] = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5)
    rng = np.random.default_rng(0)
    for k, j in enumerate(description.joints):
        if j.nv == 1:
            q0[robot._qo[k]] = j.rest + rng.uniform(-0.3, 0.3)
    bg = ph.BondGraph("go1_air")
    bg.add(robot)
    add_joint_dynamics(bg, robot)
    system = ph.compile(bg)
    system.compiled
    x0 = system.initial_state({"robot.q": q0})
    ref = ph.simulate(system, (0.0, t_end), x0, method="DOP853", rtol=1e-10, atol=1e-12).state("robot")[-1][: robot.nq]
    ph.simulate(system, (0.0, 2e-3), x0, method="RK4", step=1e-3)   # warm-up
    t0 = time.process_time()
    ours = ph.simulate(system, (0.0, t_end), x0, method="RK4", step=1e-3).state("robot")[-1][: robot.nq]
    cpu = (time.process_time() - t0) / t_end
    model = mujoco.MjModel.from_xml_string(mujoco_mjcf(description, q0, contacts=False))
    data = mujoco.MjData(model)
    data.qpos[:] = np.r_[q0[4:7], q0[:4], q0[7:]]
    steps = int(round(t_end / 1e-3))
    t0 = time.process_time()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    mj_cpu = (time.process_time() - t0) / t_end
    mj = np.r_[data.qpos[3:7], data.qpos[0:3], data.qpos[7:]]

    def errors(q):
        return dict(joints=float(np.abs(q[7:] - ref[7:]).max()), base=float(np.abs(q[4:7] - ref[4:7]).max()))

    return dict(ours=errors(ours), mujoco=errors(mj), cpu_per_s=cpu, mujoco_cpu_per_s=mj_cpu,
                us_per_rhs=cpu / (4 * steps / t_end) * 1e6, n_state=system.layout.size)


#: the main job of the README's first command
FIRST_RUN = ["run", "two-ellipsoids", "--no-progress"]


def first_run(cap):
    """The README's first run, `porthamiltonian run two-ellipsoids` (5 s simulated, its energy
    report, plots and files), in a fresh interpreter: once with every cache empty (numba's,
    the generated right-hand sides', matplotlib's: a fresh install), once again with them
    filled, and once with new empty caches and no helper processes. Returns {label: {"wall",
    "compile" (the CLI's "to compile or load it")}}."""
    out = {}
    runs = [("cold caches", "a", {}), ("warm caches", "a", {}),
            ("cold caches, no helper processes", "b", {"PORTHAMILTONIAN_COMPILE_HELPERS": "0"})]
    with tempfile.TemporaryDirectory(prefix="first-run-") as tmp:
        for label, caches, extra in runs:
            env = dict(os.environ, NUMBA_CACHE_DIR=f"{tmp}/{caches}/numba", PORTHAMILTONIAN_CACHE=f"{tmp}/{caches}/rhs",
                       MPLCONFIGDIR=f"{tmp}/{caches}/matplotlib", **extra)
            cmd = [sys.executable, "-c", "from porthamiltonian.cli import main; main()"] + FIRST_RUN + ["--out", f"{tmp}/out"]
            t0 = time.perf_counter()
            try:
                p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=cap)
            except subprocess.TimeoutExpired:
                out[label] = dict(wall=None, error=f"> {cap:g} s")
                continue
            wall = time.perf_counter() - t0
            if p.returncode:
                out[label] = dict(wall=wall, error=(p.stderr.strip().splitlines() or ["?"])[-1][:160])
                continue
            found = re.search(r"\(([0-9.]+) s to compile or load it\)", p.stdout)
            out[label] = dict(wall=wall, compile=float(found.group(1)) if found else None)
    return out


JOBS = {"variant": job_variant, "chain": job_chain, "free_body": job_free_body, "contact": job_contact,
        "quadruped": job_quadruped, "tree_chain": job_tree_chain, "quadruped_trot": job_quadruped_trot,
        "robot": job_robot, "go1_accuracy": job_go1_accuracy}


def run_job(kind, args, cap):
    """Run one job in a subprocess with a wall cap; its result dict, or a "> cap" record with
    the simulated time reached (from the progress lines on its stderr)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--job", json.dumps([kind, args])]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        # no progress line: stopped before the timed run (build, compile, JIT warm-up)
        reached = [float(v) for v in re.findall(r"t = ([-+0-9.eE]+) /", err)]
        return dict(capped=True, t_reached=max(reached) if reached else None)
    if p.returncode:
        lines = p.stderr.strip().splitlines()
        return dict(error=lines[-1][:200] if lines else f"exit code {p.returncode}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- tables
def _f(v, fmt):
    return "-" if v is None else format(v, fmt)


def variant_rows(results, cap):
    head = ["model", "variant", "method", "rhs", "t reached [s]", "wall [s]", "wall / sim s", "rhs evals",
            "µs/rhs run", "µs/rhs alone", "events", "ledger rel. residual", "note"]
    rows = []
    for r in results:
        variant = ", ".join(f"{k}={v}" for k, v in r["params"].items()) or "default"
        if r.get("capped"):
            if r["t_reached"] is None:
                reached, note = "-", "stopped at the cap before the timed run (build, compile, JIT warm-up)"
            else:
                reached, note = f"≥ {r['t_reached']:.3g}", "stopped at the cap"
            rows.append([r["model"], variant, r["method"], "-", reached, f"> {cap:g}", "-", "-", "-", "-", "-", "-", note])
            continue
        if "error" in r:
            rows.append([r["model"], variant, r["method"], "-", "-", "-", "-", "-", "-", "-", "-", "-", r["error"]])
            continue
        rows.append([
            r["model"], variant, r["method"], r.get("path", "-"), f"{r['t_reached']:.3g}", f"{r['wall']:.2f}",
            _f(r["wall"] / r["t_reached"] if r["t_reached"] > 0 else None, ".3g"), str(r["nfev"]),
            f"{r['us_per_rhs_run']:.0f}", f"{r['us_per_rhs']:.1f}", str(r["events"]), f"{r['residual']:.2e}",
            "; ".join(m for m in (r["message"], f"timed again: the first run compiled {r['compiled_in_run']} "
                                  f"functions ({r['wall_compiling']:.2f} s)" if r.get("compiled_in_run") else "")
                      if m),
        ])
    return head, rows


def markdown(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "/") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _git_commit():
    """The checkout's commit, or "unknown" outside a git checkout (e.g. an exported tree)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True).stdout
    except OSError:
        out = ""
    return out.strip() or "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # 0.5 s: two-ellipsoids touches the floor at 0.23 s, and the slowest variant (compliant
    # eccentric cam) needs about a minute for it today
    ap.add_argument("--t-end", type=float, default=0.5, help="simulated time of every variant [s]")
    ap.add_argument("--cap", type=float, default=60.0, help="wall-time cap per variant [s]")
    ap.add_argument("--methods", nargs="+", default=None,
                    help="solve_ivp methods to run each variant with (default: each model's own)")
    ap.add_argument("--models", nargs="+", default=None, help="only these registered models")
    ap.add_argument("--no-kernels", action="store_true", help="skip the kernel and first-run tables")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "speed.md")
    ap.add_argument("--note", default="", help="a line for the header of the result file")
    ap.add_argument("--job", help=argparse.SUPPRESS)  # internal: run one job, print its JSON
    args = ap.parse_args(argv)
    if args.job:
        kind, job_args = json.loads(args.job)
        print(json.dumps(JOBS[kind](*job_args)))
        return

    started = time.perf_counter()
    results = []
    print(f"{'model':<20}{'variant':<38}{'method':<8}{'t [s]':>8}{'wall [s]':>9}{'rhs':>8}{'µs/rhs':>8}{'residual':>10}",
          flush=True)
    for name, params in variants(args.models):
        for method in args.methods or [None]:
            r = run_job("variant", [name, params, method, args.t_end], args.cap)
            r.update(model=name, params=params, method=r.get("method", method or "default"))
            results.append(r)
            variant = ", ".join(f"{k}={v}" for k, v in params.items()) or "default"
            if "nfev" in r:
                print(f"{name:<20}{variant:<38}{r['method']:<8}{r['t_reached']:>8.3g}{r['wall']:>9.2f}{r['nfev']:>8d}"
                      f"{r['us_per_rhs']:>8.0f}{r['residual']:>10.2e} {r['message'][:60]}", flush=True)
            else:
                outcome = r.get("error") or f"> cap at t = {r['t_reached']}"
                print(f"{name:<20}{variant:<38}{r['method']:<8} {outcome}", flush=True)

    kernels, first = {}, {}
    if not args.no_kernels:
        for label, kind, job_args in (("chain of 50 masses", "chain", [50]), ("chain of 500 masses", "chain", [500]),
                                      ("rigid body in free flight", "free_body", []),
                                      ("two-ellipsoids: the 3 contacts", "contact", [args.t_end]),
                                      ("articulated chain of 10 links", "tree_chain", [10]),
                                      ("articulated chain of 100 links", "tree_chain", [100]),
                                      ("Go1-sized quadruped, 4 feet, compliant floor", "quadruped", [1.0]),
                                      ("Go1 URDF (example-robot-data), robot-drop, compliant floor", "robot", ["go1", 0.3]),
                                      ("G1 humanoid URDF, free fall", "robot", ["g1", 0.3]),
                                      ("Go1 URDF in the air, joint springs: accuracy vs MuJoCo", "go1_accuracy", [0.3]),
                                      ("quadruped-trot: Go1, PD trot, compliant ground", "quadruped_trot", [1.0])):
            kernels[label] = run_job(kind, job_args, args.cap)
            print(label, kernels[label], flush=True)
        first = first_run(10 * args.cap)
        print("first run", first, flush=True)

    head, rows = variant_rows(results, args.cap)
    parts = [
        "# Speed: every model variant and kernel (benchmarks/speed.py)",
        "",
        f"{datetime.date.today().isoformat()}, commit {_git_commit()}, {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} cores. Arguments: t_end = {args.t_end:g} s, cap = {args.cap:g} s"
        + (f", methods {' '.join(args.methods)}" if args.methods else ", each model's own solver settings") + ".",
        "",
        "The machine is shared with other engineers running tests: wall times are noisy (compare µs/rhs "
        "alone, the best of 5 passes, and rhs evaluations, which are exact). Total benchmark wall: "
        f"{time.perf_counter() - started:.0f} s." + (f" {args.note}" if args.note else ""),
        "",
        "## Model variants",
        "",
        markdown(head, rows),
    ]
    if kernels:
        krows = []
        for label, r in kernels.items():
            if "us_per_rhs" not in r:
                krows.append([label, "-", "-", "-", r.get("error") or "> cap"])
                continue
            extra = ""
            if "us_per_rhs_model" in r:
                extra = f"model {r['us_per_rhs_model']:.1f} µs - two bodies with gravity {r['us_per_rhs_bodies']:.1f} µs"
            if "cpu_per_s" in r and "wall_per_s" not in r:
                extra = f"RK4 dt 1e-3: {r['cpu_per_s']:.3f} s CPU per simulated second"
                if "mujoco_cpu_per_s" in r:
                    extra += f", MuJoCo {r['mujoco_cpu_per_s']:.4f} s ({r['cpu_per_s'] / r['mujoco_cpu_per_s']:.0f}x)"
                if "adaptive_cpu_per_s" in r:
                    a, k = r["adaptive_error"], r["rk4_error"]
                    extra += (f"; CompiledRK23 rtol {ADAPTIVE_RTOL:g} ({r['adaptive_nfev']} rhs): "
                              f"{r['adaptive_cpu_per_s']:.3f} s CPU"
                              + (f" ({r['adaptive_cpu_per_s'] / r['mujoco_cpu_per_s']:.1f}x MuJoCo)"
                                 if "mujoco_cpu_per_s" in r else "")
                              + f", error at t_end against DOP853 rtol 1e-10 joints {a['joints']:.1e} rad, base "
                              f"{a['base']:.1e} m (RK4 dt 1e-3: {k['joints']:.1e} rad, {k['base']:.1e} m)")
            if "ours" in r:
                extra += (f"; error at t_end against DOP853 rtol 1e-10: ours joints {r['ours']['joints']:.1e} rad, "
                          f"base {r['ours']['base']:.1e} m; MuJoCo {r['mujoco']['joints']:.1e} rad, {r['mujoco']['base']:.1e} m")
            if "load" in r:
                extra += f"; build {r['build']:.2f} s + compile {r['compile']:.2f} s + load {r['load']:.2f} s"
            if "wall_per_s" in r:   # quadruped-trot: real time is 1 s per simulated second
                extra = (f"own solver ({r.get('solver', '')}, {r['nfev']} rhs): {r['cpu_per_s']:.3f} s CPU, {r['wall_per_s']:.3f} s wall per "
                         f"simulated second ({1 / r['cpu_per_s']:.3g}x real time), advanced {r['distance']:.3f} m")
                if "mujoco_cpu_per_s" in r:
                    extra += (f"; MuJoCo RK4 dt 1e-3 {r['mujoco_cpu_per_s']:.4f} s CPU (advanced {r['mujoco_distance']:.3f} m; "
                              f"ours / MuJoCo {r['cpu_per_s'] / r['mujoco_cpu_per_s']:.0f}x)")
            krows.append([label, f"{r['us_per_rhs']:.1f}", str(r.get("n_state", "-")), _f(r.get("compile"), ".3f"), extra])
        parts += ["", "## Kernels", "", markdown(["case", "µs/rhs", "states", "compile [s]", "note"], krows)]
        frows = [[label, _f(r.get("wall"), ".1f"), _f(r.get("compile"), ".1f"), r.get("error", "")]
                 for label, r in first.items()]
        parts += ["", f"## First run: `porthamiltonian {' '.join(FIRST_RUN[:2])}` in a fresh interpreter", "",
                  markdown(["caches", "wall [s]", "compile or load the right-hand side [s]", "note"], frows)]
    text = "\n".join(parts) + "\n"
    print()
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    args.out.with_suffix(".json").write_text(json.dumps(
        dict(args={k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k != "job"},
             commit=_git_commit(), variants=results, kernels=kernels, first_run=first), indent=1))
    print(f"written {args.out} and {args.out.with_suffix('.json')}")


if __name__ == "__main__":
    main()
