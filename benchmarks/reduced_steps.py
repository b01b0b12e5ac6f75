"""Wall time of 3 s simulated in reduced contact coordinates against the fixed RK4 step: the
analogue of Kry & Pai's Table II (seed 002), with the seed's bowl-on-table times beside.

Scenes: the seed's own, a bowl thrown on a table (`bowl-on-table`: patch networks, Coulomb
stick/slip, impacts), and the other registered reduced-contact models: the Bezier
rattleback (one bicubic patch, rolling) and the rocking ellipsoid (frictionless and
rolling). For each step the table gives the wall time of 3 s, the evaluations, the largest
gap while in continuous contact (it stays at round-off: the reduced coordinates keep the
contact exact whatever the step), the ledger's largest residual relative to H(0) (RK4's
truncation error of the energy balance), for the rattleback the time the spin passes zero
(7.99 s with DOP853 at rtol 1e-9, over 12 s), and for the bowl the events and where it ends.

    python benchmarks/reduced_steps.py [--out benchmarks/results/reduced_steps.md]

Not a test: timings depend on the machine (the seed's were on a 1.8 GHz Xeon; ratios within
one run are what compare).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.models import build_model

HERE = Path(__file__).resolve().parent
STEPS_MS = (1, 2, 4, 8, 16, 32, 64)
#: seed 002 Table II: bowl on table, 3 s, seconds of CPU per maximum step (1.8 GHz Xeon)
SEED_TABLE_II = {1: 6.542, 2: 3.328, 4: 1.766, 8: 0.974, 16: 0.521, 32: 0.370, 64: 0.286}
SCENES = {
    "bowl-on-table": {},
    "bezier-rattleback": {},
    "rocking-ellipsoid frictionless": dict(contact="reduced", friction="frictionless", spin=1.0, tilt=0.3),
    "rocking-ellipsoid rolling": dict(contact="reduced", friction="rolling", spin=1.0, tilt=0.3),
}


def _gap(system, x):
    """|distance| of the contact while it is on (NaN off)."""
    el = system.elements["contact/constraint"]
    own, refs = system.element_state("contact/constraint", x)
    return abs(el.distance(own, refs)) if el.is_active(own) else np.nan


def run(scene, params, step, t_end=3.0):
    model = build_model(scene.split()[0], **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    system.compiled  # noqa: B018 - the compiled right-hand side now, not inside the timed run
    ph.simulate(system, (0.0, 0.05), x0, method="RK4", step=step)          # warm: the reduced kernels
    t0 = time.perf_counter()
    traj = ph.simulate(system, (0.0, t_end), x0, method="RK4", step=step, throw=False)
    wall = time.perf_counter() - t0
    row = dict(wall=wall, nfev=traj.nfev, gap=float(np.nanmax([_gap(system, x) for x in traj.x])),
               residual=float(np.abs(traj.power_budget().residual).max() / system.energy(x0)), status=traj.status)
    if scene == "bezier-rattleback":
        long = ph.simulate(system, (0.0, 12.0), x0, method="RK4", step=step)
        spin = np.array([model.observables["spin"](system, t, x) for t, x in zip(long.t, long.x)])
        up = np.flatnonzero(spin > 0.0)
        row["reversal"] = float(long.t[up[0]]) if up.size else None
    if scene == "bowl-on-table":
        names = [e.name.rsplit(".", 1)[1] for e in traj.events]
        xe = traj.x[-1]
        row["bowl"] = (f"{names.count('impact')} impacts, {names.count('chart')} patch transitions, "
                       f"{names.count('stick')} stick, {names.count('slip')} slip; ends at "
                       f"({model.observables['x'](system, t_end, xe):.3f}, {model.observables['y'](system, t_end, xe):.3f}) m "
                       f"with T = {model.observables['kinetic'](system, t_end, xe):.1e} J"
                       + ("" if traj.status == 0 else f"; {traj.message[:120]}"))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE / "results" / "reduced_steps.md"))
    args = ap.parse_args()
    lines = ["# Reduced contact coordinates: wall time of 3 s against the RK4 step (seed 002 Table II analogue)", "",
             f"porthamiltonian {ph.__version__}; seed: bowl on table, 1.8 GHz Xeon.", ""]
    for scene, params in SCENES.items():
        lines += [f"## {scene}", "",
                  "| step | wall [s] | seed Table II [s] | evaluations | max gap in contact [m] | ledger residual / H(0) |"
                  + {"bezier-rattleback": " spin passes zero [s] |", "bowl-on-table": " events, end |"}.get(scene, ""),
                  "|---|---|---|---|---|---|" + ("---|" if scene in ("bezier-rattleback", "bowl-on-table") else "")]
        for ms in STEPS_MS:
            r = run(scene, params, ms / 1000.0)
            cells = [f"{ms} ms", f"{r['wall']:.3f}", f"{SEED_TABLE_II[ms]:.3f}", str(r["nfev"]), f"{r['gap']:.1e}",
                     f"{r['residual']:.1e}"]
            if "reversal" in r:
                cells.append("none" if r["reversal"] is None else f"{r['reversal']:.2f}")
            if "bowl" in r:
                cells.append(r["bowl"])
            lines.append("| " + " | ".join(cells) + " |")
            print(scene, cells, flush=True)
        lines.append("")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
