"""Where one right-hand side of the Go1-sized quadruped on a compliant floor goes.

Times, each the best of `REPEATS` passes over the same states (the least disturbed by other
processes on a shared machine), the parts of one evaluation:

- the whole compiled rhs as `PHSystem.rhs` runs it (Python wrapper included) and the bare
  numba function (``system._jit["fn"]``);
- the articulated body's own kernels: forward kinematics + link velocities, the
  articulated-body algorithm, the element's rates and outputs kernels;
- the same robot and joint springs/dampers without the four foot contacts (the contacts'
  share is the difference);
- the generated Python rhs (the path taken before the compiled one).

Usage: ``python benchmarks/robot_profile.py [--states N]``; prints a table (µs).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

REPEATS = 7


def best_us(fn, args_list, repeats=REPEATS):
    """Best-of-`repeats` mean µs per call of ``fn(*args)`` over `args_list`."""
    for a in args_list:
        fn(*a)
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        for a in args_list:
            fn(*a)
        best = min(best, (time.perf_counter() - t0) / len(args_list))
    return best * 1e6


def states(system, x0, n):
    import porthamiltonian as ph

    traj = ph.simulate(system, (0.0, 0.2), x0, method="RK4", step=1e-3)
    idx = np.linspace(0, traj.t.size - 1, n).astype(int)
    return traj.t[idx], traj.x[idx]


def profile(n_states=50):
    import porthamiltonian as ph
    from porthamiltonian.kernels import articulated as K
    from speed import quadruped_graph

    rows = {}
    bg, robot, q0 = quadruped_graph()
    system = ph.compile(bg)
    x0 = system.initial_state({"go1.q": q0})
    system.compiled
    ts, xs = states(system, x0, n_states)
    j = system._jit
    u0 = np.zeros(system.n_inputs)
    rows["rhs (PHSystem.rhs, compiled)"] = best_us(system.rhs, list(zip(ts, xs)))
    rows["bare compiled function"] = best_us(j["fn"], [(t, x, u0, j["F"], j["I"]) for t, x in zip(ts, xs)])
    rows["Python generated rhs"] = best_us(lambda t, x: system._rhs(t, x, u0, False), list(zip(ts[:10], xs[:10])), 3)

    el = system.elements["go1"]
    sl = system.layout.element_slice("go1")
    own = [x[sl].copy() for x in xs]
    F, I = el._F, el._I
    n = I[0]
    W = np.zeros(sum(p.dim for p in el.ports()))
    Rl, tl, Rw, pw, vel, acc = (np.empty(s * n) for s in (9, 3, 9, 3, 6, 6))
    qdd = np.empty(el.nv)
    tau, fext = np.zeros(el.nv), np.zeros(6 * n)

    def fk(x):
        K.forward_kinematics(F, I, x[: el.nq], Rl, tl, Rw, pw)
        K.link_velocities(F, I, Rl, tl, x[el.nq : el.nq + el.nv], vel)

    def aba(x):
        K.aba(F, I, x[: el.nq], x[el.nq : el.nq + el.nv], tau, fext, Rl, tl, Rw, pw, vel, acc, qdd)

    rows["  FK + link velocities"] = best_us(fk, [(x,) for x in own])
    rows["  ABA (its FK included)"] = best_us(aba, [(x,) for x in own])
    rows["  robot rates kernel (ABA + dq/dt + mirrors)"] = best_us(K.tree_rates_flat, [(x, W, F, I) for x in own])
    rows["  robot outputs kernel (FK again)"] = best_us(K.tree_outputs_flat, [(x, F, I) for x in own])

    # without the contacts: robot, springs and dampers only
    from porthamiltonian.library import JointDamper, JointSpring  # noqa: F401 (the graph below)

    bg2, robot2, _ = quadruped_graph()
    for leg in ("FL", "FR", "RL", "RR"):
        bg2.remove(f"foot_{leg}")
    sys2 = ph.compile(bg2)
    sys2.compiled
    x2 = sys2.initial_state({"go1.q": q0})
    xs2 = []
    for x in xs:
        y = x2.copy()
        for path in sys2.elements:
            if path in system.elements:
                y[sys2.layout.element_slice(path)] = x[system.layout.element_slice(path)]
        xs2.append(y)
    j2 = sys2._jit
    u2 = np.zeros(sys2.n_inputs)
    rows["bare compiled function without contacts"] = best_us(j2["fn"], [(t, x, u2, j2["F"], j2["I"]) for t, x in zip(ts, xs2)])
    rows["=> four foot contacts (difference)"] = rows["bare compiled function"] - rows["bare compiled function without contacts"]
    rows["=> PHSystem.rhs wrapper (difference)"] = rows["rhs (PHSystem.rhs, compiled)"] - rows["bare compiled function"]
    return rows, system


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=50)
    a = ap.parse_args(argv)
    rows, system = profile(a.states)
    print(f"state size {system.layout.size}")
    for k, v in rows.items():
        print(f"{k:55s} {v:9.2f} µs")


if __name__ == "__main__":
    main()
