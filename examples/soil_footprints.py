"""Feet in sand: a ball pressing a footprint, and a hopping leg losing plastic work per hop.

First a 1 kg ball (radius 5 cm) arrives at 1 m/s on dry sand (no gravity): it sinks along
Bekker's loading curve, unloads along the stiffer elastic line and leaves an imprint; the
deepest sinkage, the rebound speed and the imprint are printed beside their closed forms
(`porthamiltonian.contact.SoilLaw`) and the force-sinkage loop is drawn. Then the
`hopping-leg` model hops on the same sand: the energy of every hop (apex to apex), with the
plastic work the soil books.

    python examples/soil_footprints.py [--out out/soil]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.contact import SoilLaw
from porthamiltonian.diagnostics.plots import plot_limit_cycle, plot_stride_energy, save_figure
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import Ground, RigidBody, contact
from porthamiltonian.models import build_model
from porthamiltonian.models.hopping_leg import APEX
from porthamiltonian.studies import PoincareSection, stride_energy

R, MASS, SPEED = 0.05, 1.0, 1.0


def ball_drop(sand):
    """(system, trajectory) of the ball arriving at SPEED on the sand, without gravity."""
    H = np.eye(4)
    H[2, 3] = R + 0.002
    ball = RigidBody("ball", MASS, [0.4 * MASS * R * R] * 3, pose=H, twist=(0, 0, 0, 0, 0, -SPEED))
    ground = Ground("ground")
    bg = ph.BondGraph("soil_drop")
    bg.add(ball, ground, contact("soil", "c", ball, Sphere(R), ground, Plane(), soil=sand))
    bg.connect(ball.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    system = ph.compile(bg)
    return system, ph.simulate(system, (0.0, 0.06), system.initial_state(), rtol=1e-11, atol=1e-13, method="DOP853")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/soil")
    out = Path(ap.parse_args(argv).out)
    out.mkdir(parents=True, exist_ok=True)
    sand = SoilLaw.terrain("dry_sand", radius=R)
    N, K = sand.exponent, sand.stiffness

    system, traj = ball_drop(sand)
    deepest = (0.5 * MASS * SPEED**2 * (N + 1) / K) ** (1 / (N + 1))
    memory = traj.state("c/spring.soil")[-1, 0]
    rebound = traj.state("ball.P")[-1, 5] / MASS
    print(f"deepest sinkage {memory:.9g} m (closed form {deepest:.9g}); rebound {rebound:.9g} m/s "
          f"(closed form {sand.restitution() * SPEED:.9g}); imprint {sand.permanent_sinkage(memory):.6g} m")
    print(traj.power_budget())
    z = R - traj.state("ball.pose")[:, 6]
    force = np.array([system.rhs(t, x)[system.layout["ball.P"]][5] for t, x in zip(traj.t, traj.x)])
    touching = z > 0
    save_figure(plot_limit_cycle(z[touching], force[touching], xlabel="sinkage z [m]", ylabel="soil force [N]",
                                 title="A ball pressing dry sand: loading (Bekker) and elastic unloading"),
                out / "force_sinkage.png")

    model = build_model("hopping-leg", contact="soil")
    hopper = ph.compile(model.graph, baumgarte=model.baumgarte)
    apex = APEX(hopper)
    traj = ph.simulate(hopper, (0.0, 1.5), hopper.initial_state(model.initial), events=[apex], **model.solver)
    energy = stride_energy(traj, PoincareSection(apex))
    print("\nhopping leg on dry sand, energy of every hop (apex to apex):")
    print(energy.table())
    save_figure(plot_stride_energy(energy, title="Hopping leg on dry sand: energy per hop"), out / "hop_energy.png")
    print(f"\nfigures in {out}/")


if __name__ == "__main__":
    main()
