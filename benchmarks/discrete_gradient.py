"""Wall time to a given energy error: the discrete gradient against DOP853 and Radau (issue 16).

Scenes: the heavy top (`heavy-top`: spin 100 rad/s, a spherical joint) and the frictionless
rocking ellipsoid on the sliding-plane constraint (`rocking-ellipsoid`, tilt 0.1 rad). Each
method runs over the same horizon at a sweep of its setting (the discrete gradient's step,
the scipy methods' rtol with atol = rtol / 100); a row gives the wall time, the right-hand
side evaluations, the largest relative energy error max|H(t) - H(0)| / |H(0)| and the
ledger's largest residual relative to |H(0)|. The summary gives, for each target energy
error, the fastest run of each method that reaches it.

The long runs are the issue's figures: the heavy top for 1000 s at h = 10 ms beside RK45
at (at least) the same wall time, and the rocking ellipsoid for 60 s at h = 5 ms with its
largest gap.

    python benchmarks/discrete_gradient.py [--out benchmarks/results/discrete_gradient.md] [--no-long]

Not a test: timings depend on the machine (and on its load); ratios within one run compare.
Every system's compiled right-hand side is built before the timed runs.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.models import build_model

HERE = Path(__file__).resolve().parent
SCENES = {
    "heavy top": dict(name="heavy-top", params={}, horizon=20.0, steps=(0.04, 0.02, 0.01, 0.005)),
    "rocking ellipsoid (sliding plane)": dict(name="rocking-ellipsoid", params=dict(contact="sliding_plane"),
                                              horizon=10.0, steps=(0.02, 0.01, 0.005)),
}
RTOLS = {"DOP853": (1e-5, 1e-7, 1e-9, 1e-11, 1e-13), "Radau": (1e-4, 1e-6, 1e-8)}
TARGETS = (1e-4, 1e-6, 1e-8, 1e-10, 1e-12)
#: a run longer than this [s] of wall time is stopped and reported as such
TIMEOUT = 600.0


def system_of(scene):
    spec = SCENES[scene]
    model = build_model(spec["name"], **spec["params"])
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    system.compiled  # noqa: B018 - build the compiled right-hand side outside the timed runs
    return system, x0


def run(system, x0, horizon, method, setting, **extra):
    """One timed run: dict(wall, nfev, energy, residual, status)."""
    opts = dict(step=setting) if method == "discrete_gradient" else dict(rtol=setting, atol=setting / 100)
    t0 = time.perf_counter()
    traj = ph.simulate(system, (0.0, horizon), x0, method=method, throw=False, timeout=TIMEOUT, **opts, **extra)
    wall = time.perf_counter() - t0
    H = traj.hamiltonian
    scale = abs(H[0])
    return dict(wall=wall, nfev=traj.nfev, energy=float(np.max(np.abs(H - H[0])) / scale),
                residual=float(traj.power_budget().max_residual / scale), status=traj.status, traj=traj)


def sweep(scene):
    system, x0 = system_of(scene)
    spec = SCENES[scene]
    rows = []
    for h in spec["steps"]:
        rows.append(("discrete_gradient", f"h = {h * 1e3:g} ms", run(system, x0, spec["horizon"], "discrete_gradient", h)))
    for method, rtols in RTOLS.items():
        for rtol in rtols:
            rows.append((method, f"rtol = {rtol:g}", run(system, x0, spec["horizon"], method, rtol)))
    return rows


def fastest(rows, target):
    """Per method, the fastest successful run whose energy error is at most `target`."""
    out = {}
    for method, setting, r in rows:
        if r["status"] == 0 and r["energy"] <= target and (method not in out or r["wall"] < out[method][1]["wall"]):
            out[method] = (setting, r)
    return out


def _gap(system, x):
    own, refs = system.element_state("contact/constraint", x)
    return abs(float(system.elements["contact/constraint"].distance(own, refs)))


def long_runs():
    lines = ["## Long runs", "",
             "| scene | method | setting | horizon [s] | wall [s] | evaluations | max rel. energy error | other |",
             "|---|---|---|---|---|---|---|---|"]
    system, x0 = system_of("heavy top")
    dg = run(system, x0, 1000.0, "discrete_gradient", 0.01)
    lines.append(f"| heavy top | discrete_gradient | h = 10 ms | 1000 | {dg['wall']:.1f} | {dg['nfev']} | "
                 f"{dg['energy']:.2e} | ledger residual {dg['residual']:.1e} |")
    for rtol in (1e-4, 1e-6, 1e-8):   # RK45 at about the same cost: the first whose wall time exceeds it
        rk = run(system, x0, 1000.0, "RK45", rtol)
        lines.append(f"| heavy top | RK45 | rtol = {rtol:g} | 1000 | {rk['wall']:.1f} | {rk['nfev']} | "
                     f"{rk['energy']:.2e} | status {rk['status']} |")
        if rk["wall"] >= dg["wall"]:
            break
    system, x0 = system_of("rocking ellipsoid (sliding plane)")
    r = run(system, x0, 60.0, "discrete_gradient", 0.005)
    gap = max(_gap(system, x) for x in r["traj"].x)
    lines.append(f"| rocking ellipsoid (sliding plane) | discrete_gradient | h = 5 ms | 60 | {r['wall']:.1f} | "
                 f"{r['nfev']} | {r['energy']:.2e} | max gap {gap:.1e} m |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "results" / "discrete_gradient.md"))
    parser.add_argument("--no-long", action="store_true", help="skip the 1000 s and 60 s runs")
    args = parser.parse_args()
    lines = ["# Discrete gradient vs DOP853 vs Radau: wall time to an energy error", "",
             "Written by `benchmarks/discrete_gradient.py` (see its docstring). Energy errors are",
             "max|H(t) - H(0)| / |H(0)|; the ledger residual is relative to |H(0)| too.", ""]
    for scene, spec in SCENES.items():
        rows = sweep(scene)
        lines += [f"## {scene}, {spec['horizon']:g} s", "",
                  "| method | setting | wall [s] | evaluations | max rel. energy error | ledger residual | status |",
                  "|---|---|---|---|---|---|---|"]
        for method, setting, r in rows:
            lines.append(f"| {method} | {setting} | {r['wall']:.2f} | {r['nfev']} | {r['energy']:.2e} | "
                         f"{r['residual']:.1e} | {r['status']} |")
        lines += ["", "Fastest run reaching each energy error:", "",
                  "| target | " + " | ".join(["discrete_gradient", *RTOLS]) + " |", "|---|---|---|---|"]
        for target in TARGETS:
            best = fastest(rows, target)
            cells = [f"{best[m][1]['wall']:.2f} s ({best[m][0]})" if m in best else "not reached"
                     for m in ["discrete_gradient", *RTOLS]]
            lines.append(f"| {target:g} | " + " | ".join(cells) + " |")
        lines.append("")
        print("\n".join(lines[-12:]), flush=True)
    if not args.no_long:
        lines += long_runs()
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
