"""The Bezier rattleback of Kry & Pai (seed 002 Figs. 10-11) at the seed's step sizes.

The seed reports, for its one-patch rattleback integrated in reduced contact coordinates:
reversal after about eight seconds with a maximum step of 10 ms, rocking at about 0.5 s just
before; "best results for step sizes smaller than 50 ms"; at about 50 ms "the top losing most
of its energy during the reversal"; at 100 ms it spins stably but "does not reverse". This
script runs `bezier-rattleback` (reduced contact, no slip) with RK4 at 1, 10, 50 and 100 ms and
with DOP853 at rtol 1e-9 for 15 s, prints the first reversal, the rocking period before it and
the energy error of each run, and plots the spin about the vertical (the analogue of Fig. 11)
and the energy.

    python examples/rattleback_fig11.py [--t-end 15] [--out out/rattleback]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import plot_series, save_figure
from porthamiltonian.models import build_model

RUNS = {"RK4 1 ms": dict(method="RK4", step=0.001), "RK4 10 ms": dict(method="RK4", step=0.01),
        "RK4 50 ms": dict(method="RK4", step=0.05), "RK4 100 ms": dict(method="RK4", step=0.1),
        "DOP853 rtol 1e-9": dict(method="DOP853", rtol=1e-9, atol=1e-12)}


def first_reversal(t, spin):
    """The first time the spin passes zero, or None."""
    k = np.flatnonzero(np.sign(spin[1:]) != np.sign(spin[:-1]))
    return None if k.size == 0 else float(t[k[0] + 1])


def rocking_period(t, roll, before):
    """Twice the mean spacing of the roll angle's zero crossings in the 2 s before `before`."""
    w = (t > before - 2.0) & (t < before - 0.3)
    r = roll[w] - roll[w].mean()
    z = t[w][1:][np.sign(r[1:]) != np.sign(r[:-1])]
    return 2.0 * float(np.diff(z).mean()) if z.size > 2 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=15.0)
    ap.add_argument("--out", default="out/rattleback")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = build_model("bezier-rattleback")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    t = np.linspace(0.0, args.t_end, int(100 * args.t_end) + 1)
    spins, energies = {}, {}
    print(f"{'run':<18}{'wall [s]':>9}{'evals':>8}{'reversal [s]':>14}{'rocking [s]':>13}{'max |H - H0| / H0':>19}")
    for label, solver in RUNS.items():
        wall = time.perf_counter()
        try:
            traj = ph.simulate(system, (0.0, args.t_end), x0, **solver)
        except ph.IntegrationError as exc:   # e.g. rocked onto the patch's edge: an edge contact, not modelled
            print(f"{label:<18} failed: {str(exc)[:300]}")
            continue
        wall = time.perf_counter() - wall
        spin = np.array([model.observables["spin"](system, tk, x) for tk, x in zip(traj.t, traj.x)])
        roll = np.array([model.observables["roll"](system, tk, x) for tk, x in zip(traj.t, traj.x)])
        H = np.array([system.energy(x) for x in traj.x])
        rev = first_reversal(traj.t, spin)
        period = rocking_period(traj.t, roll, rev) if rev is not None else None
        spins[label] = np.interp(t, traj.t, spin)
        energies[label] = np.interp(t, traj.t, H)
        print(f"{label:<18}{wall:>9.2f}{traj.nfev:>8}{'none' if rev is None else f'{rev:.2f}':>14}"
              f"{'-' if period is None else f'{period:.2f}':>13}{np.abs(H - H[0]).max() / H[0]:>19.2e}")
    save_figure(plot_series(t, spins, ylabel="spin about the vertical [rad/s]",
                            title="Bezier rattleback, reduced contact (seed 002 Fig. 11)"), out / "spin.png")
    save_figure(plot_series(t, energies, ylabel="energy H [J]", title="Bezier rattleback: energy"),
                out / "energy.png")
    print(f"figures in {out}/")


if __name__ == "__main__":
    main()
