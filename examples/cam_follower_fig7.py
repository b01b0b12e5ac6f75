"""Reproduce Fig. 7 of Tasora & Righettini (seed 001 sec. 6.1): exact and simulated follower motion.

The cam is a periodic quintic B-spline surface synthesized from a cycloidal
rise-dwell-return-dwell law; the follower, pushed only by the sliding-plane contact, should
reproduce that law. Three panels (position, speed, acceleration), exact vs simulated, and
their differences; the acceleration carries the interpolation's small noise, as in the seed.
A second figure shows the eccentric circular cam above the lift-off threshold
(e omega^2 > g): the follower leaves the cam and lands again (detach and impact events).

    python examples/cam_follower_fig7.py [--turns 1] [--out out/cam_follower_fig7]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import figure, plot_series, save_figure
from porthamiltonian.models import build_model


def simulate(model, t_end, n):
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), t_eval=np.linspace(0.0, t_end, n),
                       progress=True, **model.solver)
    series = {k: np.array([f(system, t, x) for t, x in zip(traj.t, traj.x)]) for k, f in model.observables.items()}
    return traj, series


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=float, default=1.0, help="cam revolutions to simulate")
    ap.add_argument("--out", default="out/cam_follower_fig7")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    # ---- Fig. 7: the NURBS cam
    model = build_model("cam-follower")
    omega = 2 * math.pi  # the model's default cam speed [rad/s]
    traj, s = simulate(model, args.turns * 2 * math.pi / omega, int(720 * args.turns) + 1)
    print(traj)
    print(traj.power_budget())
    phi = np.degrees(omega * traj.t)
    fig, axes = figure(3, 2, figsize=(12, 9), sharex=True)
    for row, (name, unit, scale) in enumerate((("lift", "mm", 1e3), ("speed", "mm/s", 1e3),
                                               ("acceleration", "m/s^2", 1.0))):
        exact, sim = scale * s[f"exact {name}"], scale * s[name]
        plot_series(phi, {"exact (motion law)": exact, "simulated (contact)": sim}, ylabel=f"{name} [{unit}]",
                    title=f"follower {name}", ax=axes[row, 0])
        plot_series(phi, {"simulated - exact": sim - exact}, ylabel=f"[{unit}]", title=f"{name} error",
                    ax=axes[row, 1])
        print(f"max |{name} error| = {np.max(np.abs(sim - exact)):.3e} {unit}")
    for ax in axes.flat:  # plot_series labels time; the abscissa here is the cam angle
        ax.set_xlabel("cam angle [deg]" if ax in axes[-1] else "")
    fig.suptitle("Fig. 7 (seed 001): exact and simulated motion of a follower moved by a NURBS cam")
    fig.tight_layout()
    save_figure(fig, out / "fig7_follower_motion.png")

    # ---- lift-off: eccentric circle with e omega^2 = 1.25 g
    e, g = 0.01, 9.81
    omega = math.sqrt(1.25 * g / e)
    model = build_model("cam-follower", cam="eccentric", omega=omega, eccentricity=e)
    traj, s = simulate(model, 2 * 2 * math.pi / omega, 801)
    for ev in traj.events:
        print(ev)
    events = [(ev.t, ev.name) for ev in traj.events]
    fig, axes = figure(2, 1, figsize=(9, 7), sharex=True)
    plot_series(traj.t, {"follower": 1e3 * s["lift"], "cam top (law)": 1e3 * s["exact lift"]}, ylabel="lift [mm]",
                title="eccentric cam, e omega^2 = 1.25 g: lift-off at cos(omega t) = -g / (e omega^2)", events=events,
                ax=axes[0])
    plot_series(traj.t, {"contact force": s["contact force"]}, ylabel="force [N]", events=events, ax=axes[1])
    save_figure(fig, out / "lift_off.png")
    print(f"figures in {out}/")


if __name__ == "__main__":
    main()
