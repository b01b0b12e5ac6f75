"""Benchmark: wall time per simulated second and right-hand-side evaluations of two-ellipsoids.

    python benchmarks/bench_two_ellipsoids.py [--t-end 2] [--methods RK45 DOP853 LSODA]

Reports, per solver: simulated time, wall time, wall time per simulated second, rhs
evaluations, microseconds per evaluation, events, and the ledger residual. Not a test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import porthamiltonian as ph
from porthamiltonian.models import build_model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--methods", nargs="+", default=["RK45", "DOP853", "LSODA"])
    args = ap.parse_args(argv)
    print(f"{'method':<8}{'t_end':>7}{'wall [s]':>10}{'wall/sim s':>12}{'rhs evals':>11}{'us/eval':>9}{'events':>8}{'residual':>11}")
    for method in args.methods:
        model = build_model("two-ellipsoids")
        system = ph.compile(model.graph)
        x0 = system.initial_state(model.initial)
        solver = dict(model.solver, method=method)
        t0 = time.perf_counter()
        traj = ph.simulate(system, (0.0, args.t_end), x0, throw=False, **solver)
        wall = time.perf_counter() - t0
        xs = traj.x[:: max(1, len(traj.x) // 200)]
        t1 = time.perf_counter()
        for x in xs:
            system.rhs(0.0, x)
        per_eval = (time.perf_counter() - t1) / len(xs) * 1e6
        res = traj.power_budget().relative_residual
        print(f"{method:<8}{traj.t[-1]:>7.2f}{wall:>10.2f}{wall / traj.t[-1]:>12.2f}{traj.nfev:>11d}{per_eval:>9.0f}"
              f"{len(traj.events):>8d}{res:>11.2e}" + ("" if traj.success else f"  FAILED: {traj.message[:80]}"))


if __name__ == "__main__":
    main()
