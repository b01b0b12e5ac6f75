"""The trot's periodic orbit: the time-T map's fixed point and Floquet multipliers of
`quadruped-trot` (issue 34 item 5), and a direct check of the decay they predict.

    python benchmarks/quadruped_trot_orbit.py [--contact compliant] [--periods 6] [-p kp=150 ...]
                                              [--out benchmarks/results/quadruped_trot_orbit.md]

The trot is driven by periodic references of period T (the stride), so its stride map is the
time-T map (`studies.gait.PeriodMap`) taken at t0 = T/4 (mid-stance of the (FL, RR) pair,
mid-swing of the others: no foot touches down or lifts off at the section). The section is
reduced by the gait's symmetries on flat ground: the base's horizontal position and heading
(yaw) are cyclic (the references live in the body frame), so they are left out, which also
removes the multipliers exactly 1 they would add (Newton's I - dP/dz would be singular). The
section coordinates z (45):

    roll, pitch of the base (ZYX angles, yaw removed), base height,
    the 12 joint angles, the base twist (6, base frame) and the 12 joint speeds,
    the four contacts' deformation states (phi, s_x, s_y)

`lift(z)` builds the state at t0 with yaw 0 and the base over the origin; the link-pose
mirrors and the contact points follow from the configuration (`PHSystem.initial_state`),
the contact flags are the reference state's (the same feet in stance near the orbit), the
PD springs' tracking errors are theta_ref(t0) - theta (their meaning). `project(x)` reads z
back, the yaw rotated out.

On rigid ground (``--contact sliding_plane``) the section has no contact coordinates (33),
and its points must lie on the constraint manifold: the lift moves roll, pitch and height
(least change, Gauss-Newton) until the reference state's stance feet touch the ground, and
projects the velocities onto their active rows (`PHSystem.project_constraints`: normal, and
no slip for a stuck foot). P(z) lies on that manifold, so the fixed point does, and the
directions the lift projects out have multipliers 0. The stride map is smooth only while a
perturbation changes no landing's number of bounces (the rest speed cuts them off): checked
on the way, a column of the Jacobian agrees at steps 1e-6 and 1e-5 to 1e-7 relative.

Newton (`newton_fixed_point`, forward differences: 46 strides per iteration) starts from the
state after `--periods` strides of the transient from the model's initial state; the Floquet
multipliers come from the central-difference Jacobian at the fixed point (90 strides). The
fixed point is then checked: its residual |P(z*) - z*|, and a direct simulation from z*
perturbed along the dominant mode, whose modal coordinate must shrink by |lambda_max| per
period. The strides run one after another in this process: on this machine's two shared
cores Dask workers would only compete for the same cores (`--workers` runs them on a local
Dask cluster where cores are free). Wall times were measured on a loaded machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import porthamiltonian as ph  # noqa: E402
from porthamiltonian.lie import quaternion  # noqa: E402
from porthamiltonian.models import build_model  # noqa: E402
from porthamiltonian.models.quadruped_trot import LEGS, _description, _offsets, trot_references  # noqa: E402
from porthamiltonian.robots import feet as find_feet  # noqa: E402
from porthamiltonian.studies.gait import PeriodMap, newton_fixed_point  # noqa: E402

FEET = ("FR", "FL", "RR", "RL")


class TrotSection:
    """lift/project of the reduced section (module docstring); picklable."""

    def __init__(self, system, x_ref, refs, t0, motors, rigid=False):
        self.system, self.x_ref, self.t0, self.rigid = system, np.array(x_ref), float(t0), rigid
        L = system.layout
        self.q, self.v = L["robot.q"], L["robot.v"]
        self.contacts = [f"{f}_foot-contact/{'constraint' if rigid else 'spring'}" for f in FEET]
        robot = system.report.flat.elements["robot"]
        self.robot, self.feet = robot, find_feet(robot.description)
        # rigid: the stance feet of the reference state (on, stuck), which the lift puts on the ground
        self.stance = [(f"{f}_foot", c) for f, c in zip(FEET, self.contacts)
                       if rigid and self.x_ref[L[f"{c}.active"]][0] > 0.5]
        self.pd = []
        if not motors:
            offsets = dict(_offsets(system.report.flat.elements["robot"].description))
            for leg, ref in refs.items():
                for k, part in enumerate(("hip", "thigh", "calf")):
                    joint = f"{leg}_{part}_joint"
                    self.pd.append((f"pd-{joint}/spring.q", offsets[joint], float(ref.position(self.t0, k))))

    def project(self, x):
        q, v = x[self.q], x[self.v]
        yaw, pitch, roll = Rotation.from_matrix(quaternion.to_matrix(q[:4])).as_euler("ZYX")
        s = [] if self.rigid else [x[self.system.layout[f"{c}.s"]] for c in self.contacts]
        return np.concatenate(([roll, pitch, q[6]], q[7:], v, *s))

    @staticmethod
    def _configuration(roll, pitch, height, joints):
        q = np.zeros(19)
        xyzw = Rotation.from_euler("ZYX", [0.0, pitch, roll]).as_quat()
        q[:4] = (xyzw[3], xyzw[0], xyzw[1], xyzw[2])
        q[6] = height
        q[7:] = joints
        return q

    def _gaps(self, q):
        poses = dict(zip(self.robot.link_names, self.robot.link_poses(q)))
        return np.array([(poses[link] @ self.feet[link][0])[2, 3] - self.feet[link][1].radius for link, _ in self.stance])

    def _on_ground(self, z):
        """Rigid ground: (roll, pitch, height) moved by Gauss-Newton (least change) until the
        reference state's stance feet touch the ground (to 1e-13 m; the contacts accept 1e-9)."""
        a = np.array(z[:3], dtype=float)
        for _ in range(20):
            g = self._gaps(self._configuration(*a, z[3:15]))
            if np.abs(g).max() < 1e-13:
                break
            J = np.column_stack([(self._gaps(self._configuration(*(a + 1e-7 * e), z[3:15])) - g) / 1e-7
                                 for e in np.eye(3)])
            a -= np.linalg.lstsq(J, g, rcond=None)[0]
        return a

    def lift(self, z):
        roll, pitch, height = self._on_ground(z) if self.rigid else z[:3]
        q = self._configuration(roll, pitch, height, z[3:15])
        v = z[15:33]
        values = {"robot.q": q, "robot.v": v}
        for k, c in enumerate(self.contacts):
            if not self.rigid:
                values[f"{c}.s"] = z[33 + 3 * k : 36 + 3 * k]
            for block in ("active", "charts"):
                values[f"{c}.{block}"] = self.x_ref[self.system.layout[f"{c}.{block}"]]
        for block, qi, theta_ref in self.pd:
            values[block] = np.array([theta_ref - q[qi]])
        x = self.system.initial_state(values)
        if self.rigid:   # the stance feet's velocities consistent with their rows (normal, no slip)
            x = self.system.project_constraints(self.t0, x, position=False, velocity=True)
        return x


def _parse(items):
    out = {}
    for item in items:
        key, value = item.split("=", 1)
        out[key] = value if value.isidentifier() else float(value)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contact", default="compliant")
    ap.add_argument("--periods", type=int, default=6, help="transient strides before Newton starts")
    ap.add_argument("--tol", type=float, default=1e-5, help="Newton's |P(z) - z| target")
    ap.add_argument("--max-iter", type=int, default=4, help="Newton iterations at most")
    ap.add_argument("--method", default="RK45", help="the strides' solver")
    ap.add_argument("--rtol", type=float, default=1e-7, help="the strides' relative tolerance (atol 1e-2 x)")
    ap.add_argument("--step", type=float, default=1e-4,
                    help="finite-difference step, x max(1, |z_i|): above the strides' noise (rtol |z|) / step")
    ap.add_argument("--workers", type=int, default=0, help="Dask workers for the Jacobians' strides (0: here)")
    ap.add_argument("-p", action="append", default=[], help="model parameter name=value")
    ap.add_argument("--out", default=None, help="default benchmarks/results/quadruped_trot_orbit.md "
                                                  "(_sliding_plane.md, _soil.md for the other grounds)")
    args = ap.parse_args(argv)

    params = dict(contact=args.contact, **_parse(args.p))
    if args.out is None:
        suffix = "" if args.contact == "compliant" else f"_{args.contact}"
        args.out = str(HERE / "results" / f"quadruped_trot_orbit{suffix}.md")
    model = build_model("quadruped-trot", **params)
    spec = {k: v for k, v in params.items() if k in ("speed", "period", "step_height", "height")}
    defaults = dict(speed=0.5, period=0.3, step_height=0.08, height=0.25)
    shape = {**defaults, **spec}
    T = shape["period"]
    t0 = T / 4
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    inputs = model.inputs(system) if model.inputs is not None else None
    solver = dict(method=args.method, rtol=args.rtol, atol=args.rtol * 1e-2)
    wall = time.perf_counter()
    x0 = system.initial_state(model.initial)
    t_warm = args.periods * T + t0
    warm = ph.simulate(system, (0.0, t_warm), x0, inputs=inputs, **solver)
    x_ref = warm.x[-1]
    refs = trot_references(_description(), **shape)
    section = TrotSection(system, x_ref, refs, t0, bool(params.get("motors", False)),
                          rigid=args.contact == "sliding_plane")
    pmap = PeriodMap(system, T, section.lift, section.project, t0=t0, inputs=inputs, **solver)
    z0 = section.project(x_ref)
    # the lift is a true inverse of the projection on the reference state
    lift_error = float(np.max(np.abs(section.project(section.lift(z0)) - z0)))
    transient = time.perf_counter() - wall
    print(f"transient {transient:.1f} s, |P(z0) - z0| to come; lift round trip {lift_error:.2g}", flush=True)

    from porthamiltonian.studies.cluster import open_executor

    wall = time.perf_counter()
    with open_executor(args.workers) as client:
        fp = newton_fixed_point(pmap, z0, tol=args.tol, max_iter=args.max_iter, client=client,
                                step=args.step * np.maximum(1.0, np.abs(z0)))
    newton = time.perf_counter() - wall

    mu, _ = fp.dominant_mode()
    mus, V = np.linalg.eig(fp.jacobian)
    k = int(np.argmax(np.abs(mus)))
    _, vec = fp.dominant_mode()
    delta = 1e-4
    z = fp.z + delta * vec
    modal = [abs(np.linalg.solve(V, z - fp.z)[k])]
    for _ in range(4):
        z = pmap(z)
        modal.append(abs(np.linalg.solve(V, z - fp.z)[k]))
    ratios = np.array(modal[1:]) / np.array(modal[:-1])

    names = (["roll", "pitch", "base z"] + [f"{leg}_{p}" for leg in LEGS for p in ("hip", "thigh", "calf")]
             + [f"base twist {i}" for i in range(6)] + [f"w {leg}_{p}" for leg in LEGS for p in ("hip", "thigh", "calf")]
             + [f"{f} {c}" for f in FEET for c in ("phi", "s_x", "s_y")])
    rows = [
        f"# quadruped-trot periodic orbit ({args.contact} ground{', motors' if params.get('motors') else ''})",
        "",
        f"Command: `python benchmarks/quadruped_trot_orbit.py --contact {args.contact} --periods {args.periods} "
        f"--tol {args.tol:g} --max-iter {args.max_iter} --method {args.method} --rtol {args.rtol:g} --step {args.step:g}"
        + "".join(f" -p {p}" for p in args.p) + "`",
        f"Model parameters {params}; stride T = {T} s, section at t0 = T/4 = {t0:g} s; strides at {args.method} rtol "
        f"{args.rtol:g}, atol {args.rtol * 1e-2:g}; finite-difference step {args.step:g} x max(1, |z_i|).",
        "",
        f"- section: {fp.z.size} coordinates (roll, pitch, base height, 12 joint angles, base twist, 12 joint "
        f"speeds{'' if section.rigid else ', 4 x contact (phi, s_x, s_y)'}); lift/project round trip on the "
        f"reference state {lift_error:.2g}"
        + (" (rigid ground: the lift puts the stance feet on the ground by roll, pitch and height, and their "
           "velocities on their rows: the section's points are on the constraint manifold)" if section.rigid else ""),
        f"- start: after {args.periods} strides of the transient, |P(z0) - z0| = {fp.history[0]:.3g}",
        f"- Newton: {fp.iterations} iterations, residual history {[float(f'{h:.3g}') for h in fp.history]}, "
        f"{fp.evaluations} strides in all (forward-difference Jacobians of {fp.z.size + 1} strides, the final "
        f"central one {2 * fp.z.size})",
        f"- fixed point residual |P(z*) - z*| = {fp.residual:.3g}",
        f"- Floquet multipliers: largest |lambda| = {abs(mu):.6g} ({'stable' if fp.stable else 'UNSTABLE'}); "
        f"the 8 largest: {', '.join(f'{m:.4g}' for m in fp.multipliers[:8])}",
        f"- direct check: from z* + 1e-4 v (v the dominant eigenvector), the dominant modal coordinate shrank per "
        f"period by {', '.join(f'{r:.5g}' for r in ratios)}, geometric mean {np.prod(ratios) ** (1 / ratios.size):.5g} "
        f"(|lambda_max| = {abs(mu):.5g}; the single ratios scatter by the strides' noise, rtol |z| against the 1e-4 "
        "perturbation, and the faster modes' remainder)",
        f"- wall (loaded machine): transient {transient:.1f} s, Newton and multipliers {newton:.1f} s "
        f"({newton / max(fp.evaluations, 1):.2f} s per stride)",
        "",
        "Fixed point (section coordinates):",
        "",
        "| coordinate | z* |",
        "|---|---|",
    ] + [f"| {n} | {v:.9g} |" for n, v in zip(names, fp.z)]
    text = "\n".join(rows) + "\n"
    print(text)
    Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
