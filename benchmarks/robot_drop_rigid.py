"""robot-drop on rigid (sliding-plane) feet for every robot: evaluations, events, ledger, rest.

    python benchmarks/robot_drop_rigid.py [--robots go1 a1 anymal_c solo12] [--drop 0.1] [--t-end 1.0]
                                          [--slip-speed 0.01] [--friction 0.8]
                                          [--out benchmarks/results/robot_drop_rigid.md]

Each robot of `models.robot_drop.ROBOTS` is built by the registered model
(``contact="sliding_plane"``, the model's own solver: DOP853 rtol 1e-8, atol 1e-10), dropped
`drop` onto the rigid ground and simulated for `t-end` on the compiled right-hand side (built
before the clock starts). Reported per robot: right-hand-side evaluations, impact events (with
energy lost, and without: a contact that took no impulse), detach events, the energy the
impacts took, wall time (on a loaded machine an upper bound; the counts are not), the ledger's
relative residual, and at the end the sum of the feet's normal forces over m g (Pinocchio's
total mass of the same URDF when available, else the description's) and the largest joint or
base speed (the robot at rest: 1 and 0).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import porthamiltonian as ph  # noqa: E402
from porthamiltonian.diagnostics.contact_forces import contact_forces, contact_names  # noqa: E402
from porthamiltonian.models.robot_drop import ROBOTS, SLIP_SPEED, assemble, feet_material  # noqa: E402


def total_mass(robot, description):
    try:
        import pinocchio as pin
        from porthamiltonian.robots import example
    except ImportError:
        return description.mass, "description"
    model = pin.buildModelFromUrdf(str(example(robot)), pin.JointModelFreeFlyer())
    return pin.computeTotalMass(model), "Pinocchio"


def run(robot, drop, t_end, slip_speed, friction):
    # the registered model's scene (`assemble`), its defaults (restitution 0.3) but the slip
    # speed and friction given
    model = assemble(robot, "sliding_plane", drop, feet_material(drop, friction=friction), eps=slip_speed)
    system = ph.compile(model.graph)
    x0 = system.initial_state(model.initial)
    assert system.compiled == "numba", system.compiled   # built now, before the clock starts
    t0 = time.perf_counter()
    traj = ph.simulate(system, (0.0, t_end), x0, t_eval=np.linspace(0.0, t_end, 201), throw=False, **model.solver)
    wall = time.perf_counter() - t0
    impacts = [e for e in traj.events if e.name.endswith(".impact") and not e.message.startswith("not applied")]
    mass, source = total_mass(robot, system.elements["robot"].description)
    names = contact_names(system)
    support = sum(contact_forces(traj, name).normal[-1] for name in names) / (mass * 9.81)
    return dict(robot=robot, status=traj.status, message=traj.message, nfev=traj.nfev, wall=wall,
                impacts=sum(1 for e in impacts if e.lost > 0), idle=sum(1 for e in impacts if e.lost <= 0),
                detach=sum(1 for e in traj.events if e.name.endswith(".detach")),
                first=impacts[0].t if impacts else float("nan"), last=impacts[-1].t if impacts else float("nan"),
                lost=sum(e.lost for e in impacts), residual=traj.power_budget().relative_residual,
                support=support, vmax=float(np.abs(traj.state("robot.v")[-1]).max()), mass=mass, source=source)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", nargs="+", default=list(ROBOTS))
    ap.add_argument("--drop", type=float, default=0.1)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--slip-speed", type=float, default=SLIP_SPEED)
    ap.add_argument("--friction", type=float, default=0.8)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    lines = [f"drop {args.drop} m, {args.t_end} s, slip_speed {args.slip_speed} m/s, friction {args.friction}, DOP853 rtol 1e-8 atol 1e-10",
             "", "| robot | status | rhs evaluations | impacts (lossy + none) | detach | first / last impact [s] | "
             "lost [J] | ledger residual | feet's force / m g at the end | max speed at the end | wall [s] |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for robot in args.robots:
        r = run(robot, args.drop, args.t_end, args.slip_speed, args.friction)
        row = (f"| {robot} ({r['mass']:.4g} kg, {r['source']}) | {r['status']} | {r['nfev']} | {r['impacts']} + "
               f"{r['idle']} | {r['detach']} | {r['first']:.5f} / {r['last']:.5f} | {r['lost']:.4g} | "
               f"{r['residual']:.2e} | {r['support']:.9f} | {r['vmax']:.2e} | {r['wall']:.0f} |")
        print(row, flush=True)
        if r["status"] < 0:
            print("   ", r["message"], flush=True)
        lines.append(row)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
