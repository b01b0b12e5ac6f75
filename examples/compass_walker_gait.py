"""Compass walker down a slope: the periodic gait as a stride-map fixed point, its Floquet
multipliers, and the energy of every step, with stiff and with compliant feet.

Runs the `compass-walker` model (Goswami et al. 1998's walker with round feet) from just
after a heel strike. With sliding-plane feet (plastic, no slip) it finds the stride map's
fixed point and multipliers (`porthamiltonian.studies`) and prints the per-step energy
table: gravity supplies what each heel strike loses. With compliant feet (spring-dampers)
the strides are cut at the strike pose and the dampers book what the stiff walker loses at
its impacts. The swing foot's scuffing at mid-stance is ignored (touchdown guards, see the
model's docstring). Plots the limit cycle (stance leg's angle and speed) and the per-step
energy bars of both.

    python examples/compass_walker_gait.py [--slope 0.0524] [--t-end 4] [--out out/compass_walker]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import plot_limit_cycle, plot_stride_energy, save_figure
from porthamiltonian.models import build_model
from porthamiltonian.models import compass_walker as cw
from porthamiltonian.studies import PoincareSection, fixed_point, stride_energy


def run(contact, slope, t_end):
    """(model, system, trajectory, section): the stiff walker's strikes are its impacts; a
    compliant foot's strides are cut at the strike pose."""
    model = build_model("compass-walker", contact=contact, slope=slope)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    pose = cw.strike_pose(system, slope)
    events = [pose] if contact == "compliant" else []
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), events=events, **model.solver)
    return model, system, traj, PoincareSection(pose if events else cw.STRIKE)


def observe(model, system, traj, name):
    return np.array([model.observables[name](system, t, x) for t, x in zip(traj.t, traj.x)])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slope", type=float, default=0.0524, help="slope gamma [rad]")
    ap.add_argument("--t-end", type=float, default=4.0, help="simulated time [s]")
    ap.add_argument("--out", default="out/compass_walker")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    for contact in cw.CONTACTS:
        model, system, traj, section = run(contact, args.slope, args.t_end)
        hits = section.crossings(traj)
        print(f"\n{contact} feet: {len(hits)} heel strikes in {args.t_end:g} s")
        if contact == "sliding_plane":
            smap = cw.stride_map(system, **model.solver)
            z0 = smap.project(hits[0][1])
            fp = fixed_point(smap, z0)
            print(f"  stride-map fixed point (q, w_stance, w_swing) = {np.array2string(fp.z, precision=9)}, period "
                  f"{fp.period:.6g} s, |P(z) - z| = {fp.residual:.2g}")
            print(f"  Floquet multipliers {np.array2string(fp.multipliers, precision=6)} (moduli "
                  f"{np.array2string(np.abs(fp.multipliers), precision=6)}): {'stable' if fp.stable else 'unstable'}")
        energy = stride_energy(traj, section)
        print(energy.table())
        angle, speed = observe(model, system, traj, "stance angle"), observe(model, system, traj, "stance speed")
        marks = [(model.observables["stance angle"](system, t, x), model.observables["stance speed"](system, t, x))
                 for t, x in hits]
        save_figure(plot_limit_cycle(angle, speed, sections=marks, xlabel="stance leg's angle from the slope normal [rad]",
                                     ylabel="stance leg's angular speed [rad/s]",
                                     title=f"Compass walker, {contact} feet"),
                    out / f"limit_cycle_{contact}.png")
        save_figure(plot_stride_energy(energy, title=f"Energy per step, {contact} feet"),
                    out / f"stride_energy_{contact}.png")
    print(f"\nfigures in {out}/")


if __name__ == "__main__":
    main()
