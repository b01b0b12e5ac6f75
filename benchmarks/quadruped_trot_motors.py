"""Go1 trotting 5 s with every joint driven by a Go1-like DC motor (`quadruped-trot -p motors=true`):
distance, base clearance, the ledger split (electrical input, Joule heat, gearbox loss, joint
damping, the robot's and motors' stored energy, contacts), the check that every motor's
supplied electrical power is u i at every sample, and the cost of transport from the
electrical energy.

    python benchmarks/quadruped_trot_motors.py [--t-end 5] [--out benchmarks/results/quadruped_trot_motors.md]

Acceptance (issue 34 item 2, as the torque-driven trot's): >= 1 m advanced in 5 s, the base
never touching (base height > TRUNK_HALF_HEIGHT, the trunk box's half height), the ledger's
split closing to the integration tolerance. Wall times were measured on a loaded machine
(2 cores shared by several jobs): read them as upper bounds.
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
from porthamiltonian.models import build_model  # noqa: E402
from porthamiltonian.models.quadruped_trot import TRUNK_HALF_HEIGHT  # noqa: E402
from porthamiltonian.studies.transport import categorize  # noqa: E402


def electrical_power_check(system, traj, controller):
    """max over samples and sources of |P_booked - u_applied i| [W], and the largest |u i| [W]:
    the supplied power the ledger books for each voltage source (the rate of its ledger entry
    in the compiled right-hand side) against the applied voltage (the command limited to the
    bus) times the current read from the state (L i / L)."""
    names = system.layout.names()
    booked = [names.index(f"ledger.{sv.source}.supplied") for sv in controller.servos]
    current = [names.index(sv.current) for sv in controller.servos]
    worst, scale = 0.0, 0.0
    for t, x in zip(traj.t, traj.x):
        u = controller(t, x)
        xdot = system.rhs(t, x, u)
        for sv, slot, b, c in zip(controller.servos, controller._slots, booked, current):
            k = sv.constants
            ui = float(np.clip(u[slot], -k.bus_voltage, k.bus_voltage)) * float(x[c]) / k.inductance
            worst = max(worst, abs(float(xdot[b]) - ui))
            scale = max(scale, abs(ui))
    return worst, scale


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=5.0)
    ap.add_argument("--out", default=str(HERE / "results" / "quadruped_trot_motors.md"))
    args = ap.parse_args(argv)

    wall = time.perf_counter()
    model = build_model("quadruped-trot", motors=True)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    controller = model.inputs(system)
    x0 = system.initial_state(model.initial)
    system.compiled   # noqa: B018 - the compiled right-hand side, built (or loaded) before the clock starts
    build = time.perf_counter() - wall
    t_eval = np.linspace(0.0, args.t_end, int(round(args.t_end * 200)) + 1)
    wall = time.perf_counter()
    traj = ph.simulate(system, (0.0, args.t_end), x0, inputs=controller, t_eval=t_eval, **model.solver)
    run = time.perf_counter() - wall
    q = traj.state("robot.q")
    height, x = q[:, 6], q[:, 4]
    budget = traj.power_budget()
    e = budget.entries
    last = {k: {p: float(np.asarray(v)[-1]) for p, v in e[k].items()} for k in e}
    cats = categorize(budget.labels, last["supplied"], last["dissipated"], last["lost"], last["stabilization"])
    joint_damping = sum(v for p, v in last["dissipated"].items() if budget.labels.get(p, "").startswith("JointDamper:"))
    stored = {p: float(np.asarray(v)[-1] - np.asarray(v)[0]) for p, v in budget.stored.items()}
    robot_dH = stored.get("robot", 0.0)
    magnetic = sum(v for p, v in stored.items() if p.endswith("/inductance"))
    mass = sum(link.inertia.mass for link in system.report.flat.elements["robot"].description.links)
    distance = float(x[-1] - x[0])
    E = float(cats["electrical"])
    worst, scale = electrical_power_check(system, traj, controller)
    ok = distance >= 1.0 and height.min() > TRUNK_HALF_HEIGHT and budget.max_residual <= budget.residual_bound
    rows = [
        f"# quadruped-trot -p motors=true, {args.t_end:g} s on compliant ground",
        "",
        f"Command: `python benchmarks/quadruped_trot_motors.py --t-end {args.t_end:g}` "
        f"(the model's solver: {model.solver}); status {traj.status}, {traj.nfev} right-hand sides.",
        f"Wall (loaded machine): build + compile {build:.1f} s, integration {run:.1f} s "
        f"({run / args.t_end:.2f} s per simulated second).",
        "",
        f"- distance (base x) {distance:.4f} m (acceptance >= 1 m), lateral drift {q[-1, 5] - q[0, 5]:+.4f} m",
        f"- base height min {height.min():.4f} m (touches below {TRUNK_HALF_HEIGHT} m)",
        f"- ledger: max |residual| {budget.max_residual:.3g} J, bound {budget.residual_bound:.3g} J, "
        f"relative {budget.relative_residual:.3g}",
        f"- supplied power at the voltage sources vs u_applied * i at the {traj.t.size} samples: "
        f"max |difference| {worst:.3g} W (largest |u i| {scale:.4g} W, ratio {worst / scale:.2g})",
        f"- acceptance: {'met' if ok else 'NOT met'}",
        "",
        "## Where the electrical energy went [J]",
        "",
        "| category | energy [J] |",
        "|---|---|",
        f"| electrical input (VoltageSource) | {E:.6g} |",
        f"| Joule heat (R:armature) | {float(cats['joule']):.6g} |",
        f"| gearbox loss (R:gear_loss) | {float(cats['gearbox']):.6g} |",
        f"| rotor friction (R:viscous, R:coulomb) | {float(cats['motor_friction']):.6g} |",
        f"| joint damping (JointDamper) | {joint_damping:.6g} |",
        f"| contacts (damping, slip) | {float(cats['contact']):.6g} |",
        f"| impacts (lost) | {float(cats['impacts']):.6g} |",
        f"| other dissipated (besides joint damping) | {float(cats['other_dissipated']) - joint_damping:.6g} |",
        f"| stored: robot (kinetic incl. rotors as armature, weight) | {robot_dH:.6g} |",
        f"| stored: motors' inductances | {magnetic:.6g} |",
        f"| mechanical work into the joints: electrical - Joule - gearbox - rotor friction - magnetic | "
        f"{E - float(cats['joule']) - float(cats['gearbox']) - float(cats['motor_friction']) - magnetic:.6g} |",
        f"| residual: dH - supplied + dissipated + lost | {float(np.asarray(budget.residual)[-1]):.3g} |",
        "",
        f"Cost of transport from the electrical energy: E / (m g d) = {E:.6g} / ({mass:.4g} x 9.81 x "
        f"{distance:.4f}) = {E / (mass * 9.81 * distance):.4g}; mean electrical power {E / args.t_end:.4g} W.",
    ]
    text = "\n".join(rows) + "\n"
    print(text)
    Path(args.out).write_text(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
