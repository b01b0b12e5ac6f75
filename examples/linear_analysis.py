"""Linear analysis: modes of the rocking ellipsoid and the double pendulum, Bode plot of a chain.

The rocking ellipsoid (sliding-plane contact, frictionless and rolling) and the double
pendulum are linearized at rest; a damped mass-spring chain is driven by a force at its free
end (input "F", collocated output the end's velocity).

Prints, per model, the natural frequencies [rad/s and Hz], damping ratios and the largest
entries of each mode shape (by tangent-coordinate name), next to the closed forms the tests
check (`tests/linear/`), and saves the chain's Bode plot.

    python examples/linear_analysis.py [--masses 20] [--out out/linear]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import plot_bode, save_figure
from porthamiltonian.models import build_model


def print_modes(title, lin, closed_forms=(), top=3):
    print(f"\n{title}: {lin!r}")
    for mode in lin.modes():
        if mode.natural_frequency < 1e-6:
            continue  # neutral directions (free position, yaw)
        big = sorted(mode.shape.items(), key=lambda kv: -abs(kv[1]))[:top]
        shape = ", ".join(f"{name} {value.real:+.3f}{value.imag:+.3f}j" for name, value in big)
        print(f"  {mode.natural_frequency:10.6f} rad/s  {mode.natural_frequency / (2 * math.pi):9.5f} Hz  "
              f"zeta {mode.damping_ratio:+.2e}  [{shape}]")
    if closed_forms:
        print("  closed forms: " + ", ".join(f"{w:.6f}" for w in closed_forms) + " rad/s")


def rocking(friction):
    model = build_model("rocking-ellipsoid", contact="sliding_plane", friction=friction, unilateral=False, tilt=0.0)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    a, b, c = 0.2, 0.15, 0.1
    extra = c * c if friction == "rolling" else 0.0
    closed = [math.sqrt(9.81 * (s * s / c - c) / ((s * s + c * c) / 5 + extra)) for s in (b, a)]
    print_modes(f"rocking ellipsoid, {friction}", system.linearize(0.0, system.initial_state(model.initial)), closed)


def double_pendulum():
    model = build_model("double-pendulum", theta1=0.0, theta2=0.0)
    system = ph.compile(model.graph)
    print_modes("double pendulum (unit rods)", system.linearize(0.0, system.initial_state(model.initial)))


def chain(n, out):
    bg = ph.BondGraph("chain")
    bg.add(ph.Se("F", input=True))
    for i in range(n):
        bg.add(ph.Junction1(f"v{i}"), ph.I(f"m{i}", mass=1.0), ph.Junction1(f"L{i}"),
               ph.C(f"k{i}", stiffness=100.0), ph.R(f"b{i}", 0.2))
        bg.connect(f"v{i}", f"m{i}")
        bg.connect(f"L{i}", f"k{i}")
        bg.connect(f"L{i}", f"b{i}")
        if i == 0:
            bg.connect("v0", "L0")
        else:
            bg.add(ph.Junction0(f"z{i}"))
            bg.connect(f"v{i - 1}", f"z{i}")
            bg.connect(f"z{i}", f"v{i}")
            bg.connect(f"z{i}", f"L{i}")
    bg.connect("F", f"v{n - 1}")
    system = ph.compile(bg)
    lin = system.linearize(0.0, system.default_state())
    print_modes(f"{n}-mass chain", lin, top=2)
    fig = plot_bode(lin, np.logspace(-1, 1.5, 600), title=f"{n}-mass chain: end velocity / end force")
    out.mkdir(parents=True, exist_ok=True)
    save_figure(fig, out / "chain_bode.png")
    print(f"  Bode plot: {out / 'chain_bode.png'}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--masses", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path("out/linear"))
    args = parser.parse_args(argv)
    for friction in ("frictionless", "rolling"):
        rocking(friction)
    double_pendulum()
    chain(args.masses, args.out)


if __name__ == "__main__":
    main()
