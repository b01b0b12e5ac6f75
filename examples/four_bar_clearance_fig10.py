"""Reproduce Fig. 10 of Tasora & Righettini (seed 001 sec. 6.3): clearance vs the massless-link model.

The four-bar's coupler-rocker pair has a radial clearance e = R1 - R2: the pin (radius R2)
stays on the wall of the hole (radius R1) through a bilateral sliding-plane contact. The
classical massless-link model joins the two centres by a link of length e. Both start from
the same state and are driven by the same crank; the figure overlays the link angles, the
direction of the pin in the hole and the contact force / link tension, and shows the
differences (the package's massless link is a body of negligible but nonzero moment of
inertia, see `porthamiltonian.models.four_bar_clearance`).

    python examples/four_bar_clearance_fig10.py [--t-end 1] [--out out/four_bar_clearance_fig10]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import figure, plot_series, save_figure
from porthamiltonian.models import build_model


def simulate(which, t_end, n):
    model = build_model("four-bar-clearance", model=which)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), t_eval=np.linspace(0.0, t_end, n),
                       progress=True, **model.solver)
    print(traj)
    print(traj.power_budget())
    series = {k: np.array([f(system, t, x) for t, x in zip(traj.t, traj.x)]) for k, f in model.observables.items()}
    return series, traj.t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=1.0, help="simulated time [s] (1 s is one crank turn)")
    ap.add_argument("--out", default="out/four_bar_clearance_fig10")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    n = int(200 * args.t_end) + 1
    clr, t = simulate("clearance", args.t_end, n)
    mll, _ = simulate("massless_link", args.t_end, n)

    fig, axes = figure(3, 2, figsize=(12, 9), sharex=True)
    panels = (
        ("coupler angle", "angle [rad]", "coupler angle"),
        ("rocker angle", "angle [rad]", "rocker angle"),
        ("clearance angle", "angle [rad]", "direction of the pin centre in the hole"),
    )
    for row, (key, unit, title) in enumerate(panels):
        a, b = clr[key], mll[key]
        if key == "clearance angle":
            a, b = np.unwrap(a), np.unwrap(b)
        plot_series(t, {"sliding plane (pin in hole)": a, "massless link": b}, ylabel=unit, title=title,
                    ax=axes[row, 0])
        plot_series(t, {"clearance - massless link": a - b}, ylabel=unit, title=f"{title}: difference",
                    ax=axes[row, 1])
        print(f"max |difference| of {key}: {np.max(np.abs(a - b)):.3e} rad")
    fig.suptitle("Fig. 10 (seed 001): clearance by the sliding-plane contact vs the massless-link model")
    fig.tight_layout()
    save_figure(fig, out / "fig10_clearance_vs_massless_link.png")

    fig, ax = figure(figsize=(9, 4))
    forces = {"contact force (sliding plane)": clr["pin force"], "link tension (massless link)": mll["pin force"]}
    plot_series(t, forces, ylabel="force on the pin toward the hole centre [N]", title="clearance force", ax=ax)
    save_figure(fig, out / "pin_force.png")
    print(f"figures in {out}/")


if __name__ == "__main__":
    main()
