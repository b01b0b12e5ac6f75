"""The spherical Geneva wheel's rotation against crank angle (seed 001 sec. 6.4, Fig. 11).

Simulates the `spherical-geneva` model over two crank turns and plots the wheel angle beta
against the crank angle alpha, with the closed-form law of the slot flank the pin drives
(psi_A while the wheel accelerates, psi_B while it brakes; module docstring of the model)
and the classical law tan psi = cos alpha of the mechanism without clearance. A second
figure shows the wheel speed over time with the contact events, a third the energy ledger.

    python examples/spherical_geneva_rotation.py [--turns 2] [--out out/spherical_geneva]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import figure, plot_power_budget, plot_series, save_figure
from porthamiltonian.models import build_model, get_model
from porthamiltonian.models.spherical_geneva import cone_angle


def flank_laws(alpha, radius, clearance):
    """Slot azimuth [rad] with the pin on flank A and on flank B, for crank angles in [0, pi]."""
    theta = cone_angle(radius, clearance)
    phi = np.arctan(np.tan(theta) * np.cos(alpha))
    rho = radius * np.sqrt(np.cos(theta) ** 2 + (np.sin(theta) * np.cos(alpha)) ** 2)
    return phi + np.arcsin(clearance / rho), phi - np.arcsin(clearance / rho)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--out", default="out/spherical_geneva")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    params = {k: p.default for k, p in get_model("spherical-geneva").parameters.items()}
    model = build_model("spherical-geneva")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    period = 2 * math.pi / params["speed"]
    t_end = args.turns * period
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial),
                       t_eval=np.linspace(0.0, t_end, 1000 * args.turns + 1), progress=True, **model.solver)
    print(traj)
    print(traj.power_budget())
    obs = {k: np.array([f(system, t, x) for t, x in zip(traj.t, traj.x)]) for k, f in model.observables.items()}
    alpha = np.unwrap(obs["crank angle"])
    beta = np.unwrap(obs["wheel angle"])

    # ---- beta against alpha, with the closed forms over each motion phase; below, the
    # departure from the classical law (clearance: entry impact, crossing of the slot)
    radius, clearance = params["radius"], params["clearance"]
    delta = math.asin(clearance / radius)
    fig, (ax, dev) = figure(2, 1, figsize=(9, 8), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    a = np.linspace(0.0, math.pi, 400)
    psi_a, psi_b = flank_laws(a, radius, clearance)
    classical = np.arctan(np.cos(a)) - 0.5 * delta  # the slot is at pi/4 - delta/2 at entry
    departure = np.full_like(beta, np.nan)
    for k in range(args.turns):
        x, shift = np.degrees(a + 2 * math.pi * k), -k * math.pi / 2  # slot k engaged in turn k
        labels = ("pin on flank A (closed form)", "pin on flank B (closed form)",
                  "tan psi = cos alpha (no clearance)") if k == 0 else (None, None, None)
        ax.plot(x, np.degrees(psi_a + shift), "--", color="tab:green", lw=1, label=labels[0])
        ax.plot(x, np.degrees(psi_b + shift), "--", color="tab:red", lw=1, label=labels[1])
        ax.plot(x, np.degrees(classical + shift), ":", color="0.4", lw=1, label=labels[2])
        dev.plot(x, np.degrees(psi_a - classical), "--", color="tab:green", lw=1)
        dev.plot(x, np.degrees(psi_b - classical), "--", color="tab:red", lw=1)
        on = (alpha >= 2 * math.pi * k) & (alpha <= 2 * math.pi * k + math.pi)
        departure[on] = beta[on] - shift - (np.arctan(np.cos(alpha[on] - 2 * math.pi * k)) - 0.5 * delta)
    plot_series(np.degrees(alpha), {"simulated wheel angle beta": np.degrees(beta)}, ax=ax,
                ylabel="wheel angle beta [deg]",
                title="Spherical Geneva wheel (seed 001 Fig. 11): strokes of 90 deg, dwells of 180 deg")
    plot_series(np.degrees(alpha), {"simulated beta - classical law": np.degrees(departure)}, ax=dev,
                ylabel="beta - classical [deg]")
    ax.set_xlabel("")
    dev.set_xlim(np.degrees(alpha[0]), np.degrees(alpha[-1]))
    dev.set_xlabel("crank angle alpha [deg]")
    save_figure(fig, out / "wheel_angle_vs_crank_angle.png")

    # ---- wheel speed over time with the flank contact events
    events = [(e.t, e.name) for e in traj.events if e.name.endswith(("impact", "detach"))]
    fig = plot_series(traj.t, {"wheel speed [rad/s]": obs["wheel speed"]}, ylabel="wheel speed [rad/s]",
                      title="Wheel speed; lines: pin-flank impacts and releases", events=events)
    save_figure(fig, out / "wheel_speed.png")
    ledger = plot_power_budget(traj.power_budget(), title="spherical-geneva: energy ledger")
    save_figure(ledger, out / "energy_budget.png")
    for e in traj.events:
        if e.name.endswith(("impact", "detach")):
            print(f"alpha = {math.degrees(alpha[np.searchsorted(traj.t, e.t)]):8.3f} deg  {e}")
    print(f"wheel rotation per crank turn: {math.degrees((beta[-1] - beta[0]) / args.turns):.9f} deg")
    print(f"figures in {out}/")


if __name__ == "__main__":
    main()
