"""The bowl thrown on a table of Kry & Pai (seed 002 Figs. 6-7) at the seed's step sizes.

The seed integrates 3 s with RK4 at maximum steps of 1, 16 and 64 ms and plots the planar
trajectory of the bowl's centre of mass for each, marked with the collisions, the patch
transitions, the switches between dynamic and no-slip friction and the transitions to and
from continuous contact; all three runs are plausible (the bowl bounces, then rolls and
slides to rest on the table). This script runs `bowl-on-table` (reduced contact, patch
networks) at those steps, prints per run the wall time, the events of each kind, where the
bowl ends, its kinetic energy at the end, the largest gap while in continuous contact and
the ledger's residual, and draws the figure.

    python examples/bowl_fig7.py [--t-end 3] [--out out/bowl]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import plot_planar_paths, save_figure
from porthamiltonian.models import build_model

STEPS_MS = (1, 16, 64)
CONTACT = "contact/constraint"


def event_kind(system, traj, record):
    """The `plot_planar_paths` kind of one event record (None: not drawn): an impact after
    which the contact stays on (plastic, slower than `rest_speed`) starts continuous contact."""
    name = record.name
    if name == f"{CONTACT}.impact":
        after = traj.x[np.flatnonzero(traj.t == record.t)[-1]]     # the sample after the jump
        on = system.elements[CONTACT].is_active(after[system.layout.element_slice(CONTACT)])
        return "contact" if on else "impact"
    for suffix, kind in ((".chart", "patch"), (".separation", "separation"), (".stick", "stick"), (".slip", "slip")):
        if name == CONTACT + suffix:
            return kind
    return None


def run(step, t_end):
    """One run at an RK4 step [s]: ``(system, model, trajectory, wall time)``."""
    model = build_model("bowl-on-table", step=step)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    wall = time.perf_counter()
    traj = ph.simulate(system, (0.0, t_end), x0, **model.solver)
    return system, model, traj, time.perf_counter() - wall


def contact_gap(system, traj):
    """Largest |distance| between the surfaces over the samples in continuous contact [m]."""
    el, sl = system.elements[CONTACT], system.layout.element_slice(CONTACT)
    gaps = [abs(el.distance(x[sl], system.element_state(CONTACT, x)[1]))
            for x in traj.x if el.is_active(x[sl])]
    return max(gaps) if gaps else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=3.0)
    ap.add_argument("--out", default="out/bowl")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths, markers = {}, []
    print(f"{'max step':<10}{'wall [s]':>9}{'evals':>7}{'impacts':>8}{'patches':>8}{'stick':>6}{'slip':>5}"
          f"{'end x, y [m]':>18}{'end T [J]':>11}{'max gap [m]':>12}{'residual [J]':>13}")
    for ms in STEPS_MS:
        system, model, traj, wall = run(ms / 1000.0, args.t_end)
        label = f"RK4 {ms} ms"
        xy = np.array([[model.observables[k](system, t, x) for k in ("x", "y")] for t, x in zip(traj.t, traj.x)])
        paths[label] = (xy[:, 0], xy[:, 1])
        counts = dict.fromkeys(("impact", "contact", "patch", "stick", "slip"), 0)
        for rec in traj.events:
            kind = event_kind(system, traj, rec)
            if kind is None:
                continue
            counts[kind] = counts.get(kind, 0) + 1
            markers.append((label, model.observables["x"](system, rec.t, rec.x), model.observables["y"](system, rec.t, rec.x),
                            kind))
        kinetic = model.observables["kinetic"](system, traj.t[-1], traj.x[-1])
        residual = float(np.abs(traj.power_budget().residual).max())
        print(f"{label:<10}{wall:>9.2f}{traj.nfev:>7}{counts['impact'] + counts['contact']:>8}{counts['patch']:>8}"
              f"{counts['stick']:>6}{counts['slip']:>5}{xy[-1, 0]:>9.4f},{xy[-1, 1]:>8.4f}{kinetic:>11.2e}"
              f"{contact_gap(system, traj):>12.1e}{residual:>13.1e}   {traj.message if traj.status else ''}")
    fig = plot_planar_paths(paths, markers=markers, title="Planar trajectory of the bowl's centre of mass (seed 002 "
                            "Fig. 7)")
    print("wrote", save_figure(fig, out / "bowl_fig7.png"))


if __name__ == "__main__":
    main()
