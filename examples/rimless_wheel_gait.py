"""Rimless wheel down a slope: strikes, the steady gait as a stride-map fixed point, and the
energy of every stride, with stiff and with compliant feet.

Runs the `rimless-wheel` model with sliding-plane feet (plastic, no slip) from mid-stance,
prints every strike's speed ratio against the closed form eta, the stride map's fixed point
and Floquet multiplier against omega* and eta^2 (`porthamiltonian.studies`), and the
per-stride energy table; then the same wheel on compliant feet (spring-dampers), whose
strikes the dampers book as dissipated instead of lost, and on feet in sandy loam, whose
strides lose plastic work per footprint. Plots the limit cycle (wheel angle, angular speed)
and the per-stride energy bars of each.

    python examples/rimless_wheel_gait.py [--slope 0.1] [--t-end 6] [--out out/rimless_wheel]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import plot_limit_cycle, plot_stride_energy, save_figure
from porthamiltonian.models import build_model
from porthamiltonian.models import rimless_wheel as rw
from porthamiltonian.studies import PoincareSection, fixed_point, stride_energy


def run(contact, slope, t_end):
    """(model, system, trajectory, section): a stiff wheel's strikes are its impacts; a
    compliant foot bounces and a foot in sand sinks, so their strides are cut at the strike
    pose."""
    model = build_model("rimless-wheel", contact=contact, slope=slope)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    pose = rw.strike_pose(system, 8, slope)
    events = [] if contact == "sliding_plane" else [pose]
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), events=events, **model.solver)
    return model, system, traj, PoincareSection(pose if events else rw.STRIKE)


def observe(model, system, traj, name):
    return np.array([model.observables[name](system, t, x) for t, x in zip(traj.t, traj.x)])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slope", type=float, default=0.1, help="slope gamma [rad]")
    ap.add_argument("--t-end", type=float, default=6.0, help="simulated time [s]")
    ap.add_argument("--out", default="out/rimless_wheel")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    geometry = dict(spokes=8, leg=1.0, foot=0.02, gyration=0.1)
    eta = rw.impact_factor(*geometry.values())
    w_star = rw.steady_speed(*geometry.values(), args.slope)
    print(f"closed forms: eta = {eta:.12g}, omega* = {w_star:.12g} rad/s, critical slope "
          f"{rw.critical_slope(*geometry.values()):.6g} rad")

    for contact in rw.CONTACTS:
        model, system, traj, section = run(contact, args.slope, args.t_end)
        hits = section.crossings(traj)
        print(f"\n{contact} feet: {len(hits)} strikes in {args.t_end:g} s")
        if contact == "sliding_plane":
            w = model.observables["angular speed"]
            for t, _ in hits:
                at = np.flatnonzero(traj.t == t)
                before, after = w(system, t, traj.x[at[0]]), w(system, t, traj.x[at[-1]])
                print(f"  t = {t:8.5f} s: omega {before:.9f} -> {after:.9f} rad/s, ratio / eta - 1 = "
                      f"{after / before / eta - 1:.2e}")
            fp = fixed_point(rw.speed_map(system, hits[0][1], **model.solver), [after])
            print(f"  stride-map fixed point {fp.z[0]:.12g} rad/s (closed form {w_star:.12g}), period {fp.period:.6g} s, "
                  f"Floquet multiplier {fp.multipliers[0]:.8f} (eta^2 = {eta ** 2:.8f}), stable: {fp.stable}")
        energy = stride_energy(traj, section)
        print(energy.table())
        angle, speed = observe(model, system, traj, "stance angle"), observe(model, system, traj, "angular speed")
        marks = [(model.observables["stance angle"](system, t, x), model.observables["angular speed"](system, t, x))
                 for t, x in hits]
        save_figure(plot_limit_cycle(angle, speed, sections=marks, xlabel="stance spoke's angle from the slope normal [rad]",
                                     ylabel="angular speed [rad/s]", title=f"Rimless wheel, {contact} feet"),
                    out / f"limit_cycle_{contact}.png")
        save_figure(plot_stride_energy(energy, title=f"Energy per stride, {contact} feet"),
                    out / f"stride_energy_{contact}.png")
    print(f"\nfigures in {out}/")


if __name__ == "__main__":
    main()
