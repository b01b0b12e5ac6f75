"""Where quadruped-trot's CPU goes: its compiled right-hand side part by part, and `simulate`
as a whole (not a test; issue 34, "Speed").

    python benchmarks/trot_profile.py [--t-end 0.45] [--method RK45 --rtol 1e-6 --atol 1e-8]

1. The right-hand side. The generated numba source of the model (its cache file) is compiled
   again with each statement of one part wrapped in ``for _ in range(R[g])``: the part's cost
   is the time added by `EXTRA` extra repetitions / `EXTRA` (the kernels are called through their
   machine-code symbols, `porthamiltonian.kernels._njit.separate`, which LLVM cannot drop, so
   a repeated call is really made). Parts: the articulated body's outputs (forward
   kinematics, link twists) and rates (articulated-body algorithm); the four foot contacts
   (spring outputs, friction and damper laws, rates, event values); the 12 PD references
   (spline kernels), the 12 PD dampers (linear resistor kernels), the assembled linear
   products of the PD springs; the ledger's power dot products. The rest of the evaluation
   (allocating the rate vector, the finiteness check, the call from Python) is the
   difference to the whole numba function.
2. `simulate` as a whole at the model's solver (or the one given), from the model's initial
   state, sparse output (`t_eval`, 4 samples) and no audit: CPU, right-hand-side evaluations,
   accepted steps, evaluations per step, element event functions asked per step; the part
   of the CPU not spent in the right-hand side (measured alone at the run's states) is the
   solver's and the events' overhead. Then the post-run audit (`Trajectory.audit`, the stored
   energies at every sample) of the same run with every step stored (`t_eval` None).

   Also: how many of the events' functions are asked per step (one look-up of all their
   values, `PHSystem.event_values`, and the single functions of the root searches and the
   segment starts), and the events' work at one step's end, one by one as solve_ivp asked
   them before branch trot-events against one vector (`_event_step_cost`).
3. With ``--compare ROUNDS``, instead: the solvers before and after and MuJoCo, alternated
   in one process (`compare`), RK23 with the events one by one (solve_ivp, before branch
   trot-events) and as one vector (now).

Times are CPU time (`time.process_time`), best of `REPEATS` passes over ~100 states of the
run: read them on a loaded machine as upper bounds.
"""

from __future__ import annotations

import argparse
import importlib
import re
import time
import types

import numpy as np

REPEATS = 3
EXTRA = 30

#: the statements of each part in the generated source (regular expressions on its lines)
PARTS = {
    "articulated body: outputs (kinematics, link twists)": [r"^    _o1 = _k0\("],
    "articulated body: rates (ABA)": [r"^    xd0 = _k7\("],
    "4 foot contacts (outputs, friction, damper, rates, events)": [
        r"^    _o[3-6] = _k2\(", r"^    _o_\d+ = \(\(ZI", r"^    xd(62|67|72|77) = ", r"^    _put\(_ev"],
    "12 PD references (spline kernels)": [r"^    f\d+ = _k3\("],
    "12 PD dampers (resistor kernels)": [r"^    _o_\d+ = _k6\("],
    "PD springs: assembled linear products": [r"^    _lin0 = ", r"^    _linr = ", r"^    xdot\[LINR_ledger\]"],
    "ledger powers (dot products)": [r"^    xdot\[1\d\d\] = "],
}


def _instrumented(source):
    """The generated source with each part's statements repeatable (``R[g]`` times)."""
    lines = source.split("\n")
    n = 0
    for i, line in enumerate(lines):   # one name per reused `_o`: a loop must not unify their types
        if line.startswith("    _o = "):
            n += 1
        if n:
            lines[i] = re.sub(r"\b_o\b", f"_o_{n}", line)
    out, found = [], [0] * len(PARTS)
    for line in lines:
        g = next((k for k, pats in enumerate(PARTS.values()) if any(re.match(p, line) for p in pats)), None)
        if line.startswith("def rhs("):
            line = "def rhs(t, x, u_in, F, I, R):"
        if g is None:
            out.append(line)
        else:
            found[g] += 1
            out += [f"    for _rep in range(R[{g}]):", "    " + line]
    missing = [name for name, k in zip(PARTS, found) if not k]
    if missing:
        raise SystemExit(f"the generated source has no statements for {missing}: update PARTS")
    return "\n".join(out).replace("@njit\ndef rhs", "@_plain_njit\ndef rhs")


def _best(f, n):
    best = np.inf
    for _ in range(REPEATS):
        c = time.process_time()
        for k in range(n):
            f(k)
        best = min(best, (time.process_time() - c) / n)
    return best


def _parts(source, F, I, u, ts, xs, whole):
    """Section 1: print each part's µs (module docstring)."""
    import numba

    prof = types.ModuleType("trot_rhs_profile")
    prof.__dict__["_plain_njit"] = numba.njit(cache=False)
    exec(compile(_instrumented(source), "<trot_rhs_profile>", "exec"), prof.__dict__)
    R1 = np.ones(len(PARTS), dtype=np.int64)
    for t, x in zip(ts, xs):
        prof.rhs(t, x, u, F, I, R1)   # compiles
    m = len(ts)
    print("| part of one right-hand side | µs | share |\n|---|---|---|")
    total = 0.0
    for g, name in enumerate(PARTS):
        R = R1.copy()
        R[g] = 1 + EXTRA
        # the plain and the repeated evaluation timed in alternation (best of each): a change of
        # the machine's load between the two does not read as the part's cost
        b = r = np.inf
        for _ in range(REPEATS):
            b = min(b, _best(lambda k: prof.rhs(ts[k % m], xs[k % m], u, F, I, R1), 300))
            r = min(r, _best(lambda k: prof.rhs(ts[k % m], xs[k % m], u, F, I, R), 300))
        d = (r - b) / EXTRA
        total += d
        print(f"| {name} | {d * 1e6:.1f} | {d / whole:.0%} |")
    print(f"| the rest (rate vector, slices, finiteness check, call from Python) | {(whole - total) * 1e6:.1f} | "
          f"{(whole - total) / whole:.0%} |")


def _event_step_cost(system, t, x):
    """CPU [s] of the events' work at one step's end, at a state of the run (mid-segment, the
    compiled evaluation at the step's end already made, as after an RK step): ``(one by one,
    as one vector)``. One by one: every wrapped event function asked (each matched to the last
    evaluation by its state's bytes) and scipy's activity test on the two lists, as solve_ivp
    did before branch trot-events; as one vector: `SegmentEvents` and `ivp.active_events`."""
    from scipy.integrate._ivp.ivp import find_active_events

    from porthamiltonian.integrate.events import SegmentEvents, wrap_event
    from porthamiltonian.integrate.ivp import active_events

    rhs = system.rhs
    evs = [wrap_event(lambda tt, xx, k=k: system.event_value(k, tt, xx), b.spec.direction, True, t, x, rhs)
           for k, b in enumerate(system.events)]
    vector = SegmentEvents(system.event_values, evs, len(evs))
    d = np.array([e.direction for e in evs])
    t1, x1 = t + 1e-4, x + 1e-9 * np.abs(x)
    rhs(t1, x1)
    g = vector(t1, x1)
    one = _best(lambda k: find_active_events(g, [e(t1, x1) for e in evs], d), 3000)
    vec = _best(lambda k: active_events(g, vector(t1, x1), d), 3000)
    return one, vec


def main():
    import sys

    import porthamiltonian as ph
    _simulate = importlib.import_module("porthamiltonian.integrate.simulate")   # the module (the package exports the function)
    from porthamiltonian.models import build_model

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--t-end", type=float, default=0.45)
    ap.add_argument("--method")
    ap.add_argument("--rtol", type=float)
    ap.add_argument("--atol", type=float)
    ap.add_argument("--simulate-only", action="store_true", help="skip the right-hand side's parts (section 1)")
    ap.add_argument("--compare", type=int, metavar="ROUNDS",
                    help="instead: section 3, the solvers alternated ROUNDS times over 1 s, with MuJoCo")
    args = ap.parse_args()
    if args.compare:
        return compare(args.compare)
    model = build_model("quadruped-trot")
    solver = dict(model.solver)
    solver.update({k: v for k, v in (("method", args.method), ("rtol", args.rtol), ("atol", args.atol)) if v})
    system = ph.compile(model.graph)
    x0 = system.initial_state(model.initial)
    assert system.compiled == "numba", system.compiled
    T = args.t_end
    ph.simulate(system, (0.0, 2e-3), x0, audit=False, **solver)   # warm-up
    stats = {"events": 0, "steps": 0, "vectors": 0}
    cls = type(system)
    value, values, record = cls.event_value, cls.event_values, _simulate._StepRecorder.__call__

    def counted(self, k, t, x):   # the system is frozen: counted on its class, for this run only
        stats["events"] += 1
        return value(self, k, t, x)

    def counted_all(self, t, x):
        stats["vectors"] += 1
        return values(self, t, x)

    def recorded(self, t, x):   # `solve_segment` calls it once per accepted step
        stats["steps"] += 1
        return record(self, t, x)

    cls.event_value, cls.event_values, _simulate._StepRecorder.__call__ = counted, counted_all, recorded
    traj = ph.simulate(system, (0.0, T), x0, t_eval=np.linspace(0.0, T, 4), audit=False, **solver)
    cls.event_value, cls.event_values, _simulate._StepRecorder.__call__ = value, values, record
    steps = stats["steps"]
    c0 = time.process_time()
    traj = ph.simulate(system, (0.0, T), x0, t_eval=np.linspace(0.0, T, 4), audit=False, **solver)
    cpu = time.process_time() - c0
    full = ph.simulate(system, (0.0, T), x0, audit=False, **solver)
    c0 = time.process_time()
    full.audit()
    audit = time.process_time() - c0
    idx = np.unique(np.linspace(0, full.t.size - 1, 100).astype(int))
    ts, xs = full.t[idx], full.x[idx]
    j = system._jit
    fn, F, I, u = j["fn"], j["F"], j["I"], system._u0
    module = sys.modules[fn.__module__]
    with open(module.__file__) as fh:
        source = fh.read()
    m = len(ts)
    # the call `simulate` makes (`PHSystem.rhs`: the compiled function, its status check and the
    # event values kept for the step's end; no validation)
    whole_py = _best(lambda k: system.rhs(ts[k % m], xs[k % m], u), 1000)
    whole = _best(lambda k: fn(ts[k % m], xs[k % m], u, F, I), 1000)
    print(f"quadruped-trot, {solver}, {T} s; CPU times on this machine (uptime load: see `uptime`)\n")
    if not args.simulate_only:
        _parts(source, F, I, u, ts, xs, whole)
    print(f"| whole: numba function / as `simulate` calls it (`PHSystem.rhs`) | {whole * 1e6:.1f} / {whole_py * 1e6:.1f} µs |\n")
    per_eval = cpu / traj.nfev
    print("| simulate | value |\n|---|---|")
    print(f"| CPU per simulated second | {cpu / T:.3f} s |")
    print(f"| rhs evaluations per simulated second | {traj.nfev / T:.0f} |")
    print(f"| accepted steps per simulated second (mean step) | {steps / T:.0f} ({T / steps * 1e3:.3f} ms) |")
    print(f"| evaluations per step | {traj.nfev / steps:.2f} |")
    one, vec = _event_step_cost(system, ts[m // 2], xs[m // 2])
    print(f"| all-event look-ups (`event_values`) per step | {stats['vectors'] / steps:.2f} |")
    print(f"| the events' work per step: one by one (before) / as one vector | {one * 1e6:.1f} / {vec * 1e6:.1f} µs |")
    print(f"| single event functions asked per step (root searches, segment starts) | {stats['events'] / steps:.2f} |")
    print(f"| events (impacts, contact phases) per simulated second | {len(traj.events) / T:.0f} |")
    print(f"| CPU per evaluation, all included / rhs alone | {per_eval * 1e6:.1f} / {whole_py * 1e6:.1f} µs |")
    print(f"| solver + events + wrapper overhead | {(per_eval - whole_py) * 1e6:.1f} µs per evaluation, "
          f"{(cpu - traj.nfev * whole_py) / cpu:.0%} of the CPU |")
    print(f"| post-run audit, every step stored ({full.t.size} samples) | {audit / T:.3f} s per simulated second "
          f"({audit / full.t.size * 1e3:.2f} ms per sample) |")


def _solve_ivp_per_event(fun, t_span, y0, *, events=(), values=None, on_step=None, **options):
    """`simulate`'s segment loop before branch trot-events: scipy's solve_ivp, which asks every
    event function one by one at each step's end (each element event matched to the last
    compiled evaluation by its state's bytes), the steps kept by a never-crossing event
    function. Stands in for `porthamiltonian.integrate.ivp.solve_segment` in `compare`."""
    from scipy.integrate import solve_ivp

    def recorder(t, y):
        on_step(t, y)
        return 1.0

    recorder.direction, recorder.terminal = 0.0, False
    return solve_ivp(fun, t_span, y0, events=list(events) + [recorder], **options)


def compare(rounds, t_end=1.0):
    """Section 3: CPU per simulated second of the solvers before and after (RK45 rtol 1e-6,
    RK23 rtol 1e-4 with the events asked one by one as before branch trot-events, RK23 rtol
    1e-4, `CompiledRK23` rtol 1e-4) and of MuJoCo (`speed.mujoco_trot`), each run in turn
    `rounds` times in this process (so a change of the machine's load hits them alike), from
    the model's start with `t_eval` 11 samples and the audit (as `speed.py`). The runs with
    events one by one must take the same steps and events as the others (checked)."""
    import sys
    from pathlib import Path

    import porthamiltonian as ph
    from porthamiltonian.integrate.compiled_rk import CompiledRK23
    from porthamiltonian.models import build_model

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from speed import mujoco_trot

    model = build_model("quadruped-trot")
    system = ph.compile(model.graph)
    x0 = system.initial_state(model.initial)
    assert system.compiled == "numba", system.compiled
    simulate_module = importlib.import_module("porthamiltonian.integrate.simulate")
    vector_loop = simulate_module.solve_segment
    rk23 = dict(method="RK23", rtol=1e-4, atol=1e-6)
    cases = {"RK45 rtol 1e-6 atol 1e-8 (default before), events one by one": (dict(method="RK45", rtol=1e-6, atol=1e-8), True),
             "RK23 rtol 1e-4 atol 1e-6 (default), events one by one (before trot-events)": (rk23, True),
             "RK23 rtol 1e-4 atol 1e-6 (default), events as one vector (now)": (rk23, False),
             "CompiledRK23 rtol 1e-4 atol 1e-6, events as one vector": (dict(method=CompiledRK23, rtol=1e-4, atol=1e-6), False)}

    def run(kw, per_event, t):
        simulate_module.solve_segment = _solve_ivp_per_event if per_event else vector_loop
        try:
            return ph.simulate(system, (0.0, t), x0, t_eval=np.linspace(0.0, t, 11), **kw)
        finally:
            simulate_module.solve_segment = vector_loop

    for kw, per_event in cases.values():   # warm-up: a stride each (kernels loaded, the compiled step built)
        run(kw, per_event, 0.3)
    cpu = {name: [] for name in [*cases, "MuJoCo RK4 dt 1e-3"]}
    nfev, found = {}, {}
    for _ in range(rounds):
        for name, (kw, per_event) in cases.items():
            c0 = time.process_time()
            traj = run(kw, per_event, t_end)
            cpu[name].append((time.process_time() - c0) / t_end)
            nfev[name] = traj.nfev
            found.setdefault(str(kw), []).append((traj.nfev, [(e.t, e.name) for e in traj.events]))
        cpu["MuJoCo RK4 dt 1e-3"].append(mujoco_trot(model, t_end)["mujoco_cpu_per_s"])
    for kw, runs in found.items():   # the two event loops: the same evaluations and event times, exactly
        assert all(r == runs[0] for r in runs), f"{kw}: the runs differ in evaluations or events"
    mujoco = float(np.median(cpu["MuJoCo RK4 dt 1e-3"]))
    print(f"| solver ({rounds} rounds alternated, {t_end} s each) | rhs evaluations | CPU per simulated second, "
          "min / median [s] | / MuJoCo (median) |\n|---|---|---|---|")
    for name, v in cpu.items():
        print(f"| {name} | {nfev.get(name, '-')} | {min(v):.3f} / {np.median(v):.3f} | {np.median(v) / mujoco:.1f}x |")


if __name__ == "__main__":
    main()
