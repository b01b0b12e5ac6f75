"""Go1 trotting for 5 s on each ground: distance, base clearance, ledger, cost of transport and
the per-stride ledger, and a figure of where one stride's energy went.

    python examples/quadruped_trot_grounds.py [--t-end 5] [--grounds compliant sliding_plane soil]
                                              [--out benchmarks/results/quadruped_trot.md] [--figure trot_energy.png]
                                              [-p kp=150 ...]

For each ground kind the registered model `quadruped-trot` is built (a kind the model does not
offer yet is reported with the registry's reason and skipped), simulated at the model's own
solver settings, and checked against the acceptance of issue 34: the base advances >= 1 m,
the trunk's box stays clear of the ground (base height > TRUNK_HALF_HEIGHT all along), the
ledger closes to the integration tolerance. The strides are cut by a time section at
t = T/4 + k T (T the stride period: a mid-stance instant of the (FL, RR) pair) and the
per-stride ledger is printed by category (`StrideEnergy.by_category`) with each stride's
cost of transport E / (m g d) (E everything the PD references supplied). When soil and a
harder ground ran (rigid ``sliding_plane`` when the model offers it, and ``compliant``), the
soil's extra cost is split, for the whole run and per stride, into the ground's share (the
soil's plastic and slip work against the harder ground's contact losses) and the rest (the
PD controllers' losses, the stored change), to the ledgers' residuals
(`studies.transport.compare_transport`). ``-p terrain=...`` picks the soil (default sandy loam).

Every run takes tens of seconds (the compiled rhs, ~0.2 ms per evaluation on a loaded
machine, most of it the articulated body's); the printed table is what benchmarks/results/quadruped_trot.md holds.
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
from porthamiltonian.models import MODELS, build_model  # noqa: E402
from porthamiltonian.models.quadruped_trot import TRUNK_HALF_HEIGHT  # noqa: E402
from porthamiltonian.studies.gait import PoincareSection, stride_energy  # noqa: E402
from porthamiltonian.studies.transport import compare_transport, stride_transport, transport_energy  # noqa: E402

CLEARANCE = 0.05   # m: the trunk box's bottom stays this far above the ground


def _parse(items):
    out = {}
    for item in items:
        key, value = item.split("=", 1)
        out[key] = value if value.isidentifier() else float(value)
    return out


def run_ground(kind, t_end, params):
    try:
        model = build_model("quadruped-trot", contact=kind, **params)
    except ph.ParameterError as exc:
        return dict(kind=kind, refused=str(exc))
    system = ph.compile(model.graph)
    n = int(round(t_end * 200)) + 1
    start = time.perf_counter()
    period = float(params.get("period", MODELS["quadruped-trot"].parameters["period"].default))
    section = PoincareSection(_TimeSection(period))
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), t_eval=np.linspace(0.0, t_end, n),
                       events=section.events, **model.solver)
    wall = time.perf_counter() - start
    q = traj.state("robot.q")
    mass = model.graph["robot"].description.mass
    strides = stride_energy(traj, section)
    x_at = np.interp(strides.t, traj.t, q[:, 4])
    cot = strides.cost_of_transport(mass, np.maximum(np.diff(x_at), 1e-12))
    distance = float(q[-1, 4] - q[0, 4])
    totals = transport_energy(traj, mass=mass, distance=max(distance, 1e-12))
    # the PD's references are the only energy source: CoT = what they supplied / (m g d)
    # (`TransportEnergy.cost_of_transport` counts electrical energy or the positive work of
    # `joint_axis` ports, neither of which this model has)
    supplied = sum(totals.by_category.get(c, 0.0) for c in ("electrical", "joint_input", "reference", "other_supplied"))
    # convergence to the periodic orbit: the section state (base height, joint angles, base and
    # joint speeds, PD errors; not the base's x, y and orientation, which drift) stride to stride
    idx = [int(np.argmin(np.abs(traj.t - ts))) for ts in strides.t]
    pd = [b.key for b in system.layout.blocks if b.key.startswith("pd-") and b.key.endswith("spring.q")]
    Z = np.column_stack([q[idx, 6:], traj.state("robot.v")[idx]] + [traj.state(n)[idx].reshape(len(idx), -1) for n in pd])
    change = np.linalg.norm(np.diff(Z, axis=0), axis=1)
    return dict(kind=kind, traj=traj, wall=wall, nfev=traj.nfev if hasattr(traj, "nfev") else None, distance=distance,
                lateral=float(q[-1, 5] - q[0, 5]), zmin=float(q[:, 6].min()), residual=traj.power_budget().relative_residual,
                strides=strides, stride_distance=np.diff(x_at), cot=cot, totals=totals, mass=mass,
                cost=supplied / (mass * 9.81 * distance), supplied=supplied, change=change)


class _TimeSection:
    """g(t, x) = cos(2 pi t / T), crossing downward at t = T/4 + k T."""

    direction = -1

    def __init__(self, period):
        self.period = period
        self.__name__ = f"t = T/4 + k T (T = {period} s)"

    def __call__(self, t, x):
        return np.cos(2 * np.pi * t / self.period)


def report(results, t_end):
    lines = []
    for r in results:
        lines.append(f"## {r['kind']}")
        lines.append("")
        if "refused" in r:
            lines += [f"not run: {r['refused']}", ""]
            continue
        ok_d = r["distance"] >= 1.0 if t_end >= 5.0 else None
        ok_z = r["zmin"] > TRUNK_HALF_HEIGHT + CLEARANCE
        lines += [
            f"- simulated {t_end:g} s in {r['wall']:.0f} s wall (loaded machine), {r['nfev']} rhs evaluations",
            f"- base advanced {r['distance']:.3f} m (lateral drift {r['lateral']:.3f} m)"
            + ("" if ok_d is None else f": >= 1 m {'yes' if ok_d else 'NO'}"),
            f"- lowest base height {r['zmin']:.4f} m > trunk half-height {TRUNK_HALF_HEIGHT} + {CLEARANCE} m: "
            f"{'yes' if ok_z else 'NO'}",
            f"- ledger relative residual {r['residual']:.2e}",
            "",
            "```",
            str(r["totals"]).replace("\n  cost of transport", "\n  (positive work of joint_axis ports only) cost of transport"),
            "```",
            "",
            f"Cost of transport of the whole run: {r['supplied']:.4g} J supplied by the references / "
            f"(m g d = {r['mass']:.4g} kg x 9.81 m/s^2 x {r['distance']:.4g} m) = {r['cost']:.4f}",
            "",
            "Per stride (t = T/4 + k T .. next), by category [J], distance [m] and cost of transport:",
            "",
        ]
        cats = r["strides"].by_category()
        names = [c for c, v in cats.items() if np.any(v)]
        lines.append("| stride | t0 [s] | " + " | ".join(names) + " | residual | d [m] | CoT |")
        lines.append("|" + "---|" * (len(names) + 5))
        for i in range(r["cot"].size):
            lines.append(f"| {i + 1} | {r['strides'].t[i]:.3f} | " + " | ".join(f"{cats[c][i]:.4g}" for c in names)
                         + f" | {r['strides'].residual[i]:.2e} | {r['stride_distance'][i]:.4f} | {r['cot'][i]:.3f} |")
        ch = r["change"]
        ratio = ch[1:] / ch[:-1]
        lines += ["", "Stride-to-stride change of the section state |z(k+1) - z(k)| (base height, joint angles, "
                  "base and joint speeds, PD errors) and its ratio (the magnitude of the dominant Floquet "
                  "multiplier, when one dominates):", "",
                  "| k | " + " | ".join(str(k + 1) for k in range(ch.size)) + " |", "|---|" + "---|" * ch.size,
                  "| change | " + " | ".join(f"{v:.3g}" for v in ch) + " |",
                  "| ratio | - | " + " | ".join(f"{v:.2f}" for v in ratio) + " |"]
        lines.append("")
    done = {r["kind"]: r for r in results if "refused" not in r}
    for base in ("sliding_plane", "compliant"):   # rigid ground when the model offers it
        if base in done and "soil" in done:
            lines += comparison(done[base], done["soil"])
    return "\n".join(lines)


def comparison(a, b):
    """The cost of transport of run b against run a: the whole run and stride by stride, split
    into the ground's share (contact, soil's plastic work and slip, impacts) and the rest
    (`studies.transport.compare_transport`)."""
    whole = compare_transport(a["totals"], b["totals"])
    lines = [f"## {b['kind']} against {a['kind']} ground", "",
             "Whole run (a = " + a["kind"] + ", b = " + b["kind"] + "):", "", "```", whole.table(), "```", ""]
    sa = stride_transport(a["strides"], mass=a["mass"], distances=np.maximum(a["stride_distance"], 1e-12))
    sb = stride_transport(b["strides"], mass=b["mass"], distances=np.maximum(b["stride_distance"], 1e-12))
    lines += ["Per stride: CoT(b) - CoT(a) = ground + rest + unbooked; ground = the difference of the shares of "
              "contact, soil (plastic, slip, damping) and impacts; rest = controller, stored change; unbooked = "
              "the two ledgers' residuals, against the stride's cost (|unbooked| / CoT(b)):", "",
              "| stride | CoT(a) | CoT(b) | b - a | ground | of which soil | rest | unbooked / CoT(b) |",
              "|---|---|---|---|---|---|---|---|"]
    for i, (ea, eb) in enumerate(zip(sa, sb)):
        c = compare_transport(ea, eb)
        lines.append(f"| {i + 1} | {ea.cost_of_transport:.4f} | {eb.cost_of_transport:.4f} | {c.difference:+.4f} | "
                     f"{c.ground:+.4f} | {c.shares['soil']:+.4f} | {c.rest:+.4f} | "
                     f"{abs(c.closure) / abs(eb.cost_of_transport):.2e} |")
    lines.append("")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=5.0)
    ap.add_argument("--grounds", nargs="+", default=["compliant", "sliding_plane", "soil"])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--figure", type=Path, default=None, help="plot_energy_flow of the first ground's whole run")
    ap.add_argument("-p", dest="params", action="append", default=[], help="model parameter key=value")
    args = ap.parse_args(argv)
    params = _parse(args.params)
    results = []
    for kind in args.grounds:
        r = run_ground(kind, args.t_end, params)
        results.append(r)
        print(f"{kind}: " + (r["refused"] if "refused" in r else
                             f"{r['distance']:.3f} m in {args.t_end:g} s, CoT {r['cost']:.3f}, "
                             f"residual {r['residual']:.2e}, wall {r['wall']:.0f} s"), flush=True)
    text = report(results, args.t_end)
    print(text)
    if args.out:
        head = (f"# quadruped-trot on three grounds (examples/quadruped_trot_grounds.py)\n\n"
                f"{time.strftime('%Y-%m-%d')}, t_end {args.t_end:g} s, parameters {params or 'defaults'}; "
                f"wall times on a loaded 2-core machine.\n\n")
        args.out.write_text(head + text + "\n")
    ran = [r for r in results if "refused" not in r]
    if args.figure and ran:
        from porthamiltonian.diagnostics.plots import plot_energy_flow

        fig = plot_energy_flow(ran[0]["totals"], title=f"Go1 trot, {ran[0]['kind']} ground, {args.t_end:g} s")
        fig.savefig(args.figure, dpi=120, bbox_inches="tight")


if __name__ == "__main__":
    main()
