"""robot-drop on soil for every robot: evaluations, wall time, deepest sinkage, ledger.

    python benchmarks/robot_drop_soil.py [--robots go1 a1 anymal_c solo12] [--terrain sandy_loam]
                                         [--drop 0.1] [--t-end 1.0] [--out benchmarks/results/robot_drop_soil.md]

Each robot of `models.robot_drop.ROBOTS` is built by the registered model (`contact="soil"`,
the model's own solver: DOP853 rtol 1e-8, atol 1e-10), dropped `drop` onto `terrain` and
simulated for `t-end`. Reported per robot: right-hand-side evaluations, events, wall time
(the compile excluded, but not the first loading of a cached compiled right-hand side,
which a robot's first run pays; on a loaded machine an upper bound; the counts are not), the deepest sinkage of any foot (the soil's memory at its unload events, or
the last sinkage of a foot still loading) against the sole's radius (the law's range), the
audit's flags, the ledger's relative residual, and the sum of the feet's normal forces over
m g at the end (1 when the robot has come to rest; the drop's joint dampers settle it in
about 1 s).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import porthamiltonian as ph  # noqa: E402
from porthamiltonian.diagnostics.contact_forces import contact_forces, contact_names  # noqa: E402
from porthamiltonian.models import build_model  # noqa: E402
from porthamiltonian.models.robot_drop import ROBOTS, SOIL_TERRAIN  # noqa: E402


def run(robot, terrain, drop, t_end):
    model = build_model("robot-drop", robot=robot, contact="soil", drop=drop, terrain=terrain)
    system = ph.compile(model.graph)
    x0 = system.initial_state(model.initial)
    system.rhs(0.0, x0)   # load the compiled code before the clock starts
    start = time.perf_counter()
    traj = ph.simulate(system, (0.0, t_end), x0, t_eval=np.linspace(0.0, t_end, 201), **model.solver)
    wall = time.perf_counter() - start
    names = contact_names(system)
    depth, radius = 0.0, None
    for name in names:
        spring = system.elements[f"{name}/spring"]
        radius = spring.soil.max_sinkage
        memory = traj.state(f"{name}/spring.soil")[:, 0]
        depth = max(depth, float(memory.max()))
        own, refs = system.element_state(f"{name}/spring", traj.x[-1])
        if own[6] > 0.5 and own[11] > 0.5:   # touching (entry 6) and still loading (11): its sinkage now
            depth = max(depth, float(spring.pair.state(own[:4], own[4:6], refs).delta))
    mass = model.graph["robot"].description.mass
    carried = sum(contact_forces(traj, n).normal[-1] for n in names) / (mass * 9.81)
    return dict(robot=robot, mass=mass, nfev=traj.nfev, events=len(traj.events), wall=wall, status=traj.status,
                flags=_flags(traj), depth=depth, radius=radius,
                residual=traj.power_budget().relative_residual, carried=carried,
                vmax=float(np.abs(traj.state("robot.v")[-1]).max()))


def _flags(traj):
    """The audit's codes and how many findings: e.g. ["soil_depth x4"]."""
    found = re.search(r"Flagged by the energy audit \(([^)]*)\)", traj.message or "")
    return [f"{code.strip()} x{len(traj.warnings)}" for code in found.group(1).split(",")] if found else []


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", nargs="+", default=list(ROBOTS))
    ap.add_argument("--terrain", default=SOIL_TERRAIN)
    ap.add_argument("--drop", type=float, default=0.1)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    rows = []
    for robot in args.robots:
        r = run(robot, args.terrain, args.drop, args.t_end)
        rows.append(r)
        print(r, flush=True)
    lines = [f"robot-drop --contact soil, terrain {args.terrain}, drop {args.drop} m, {args.t_end} s, DOP853 rtol 1e-8 "
             "(the model's solver); wall times after compiling, on a loaded 2-core machine (upper bounds; the counts "
             "are not)", "",
             "| robot | mass [kg] | rhs evaluations | events | wall [s] | deepest sinkage / sole radius [cm] | flags | "
             "ledger relative residual | feet's force / m g at the end | max |v| at the end |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['robot']} | {r['mass']:.4g} | {r['nfev']} | {r['events']} | {r['wall']:.0f} | "
                     f"{100 * r['depth']:.3g} / {100 * r['radius']:.3g} | {', '.join(r['flags']) or 'none'} | "
                     f"{r['residual']:.2e} | {r['carried']:.6f} | {r['vmax']:.2g} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
