"""Reproduce Figs. 5 and 6 of Duindam & Stramigioli (seed 003): two ellipsoids bouncing on a floor.

Fig. 5: the three signed distances (lower/floor, upper/floor, upper/lower) over time, with the
contact events marked. Fig. 6: snapshots of the bodies (side view) with their contact frames
at the generalized contact points, at the instants (a)-(f) of the seed's narrative, chosen
from the events: start, lower lands, upper lands on lower, they roll, upper reaches the
floor, end.

    python examples/two_ellipsoids_figures.py [--t-end 5] [--out out/two_ellipsoids_figures]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import draw_scene, figure, save_figure
from porthamiltonian.models import build_model
from porthamiltonian.models.two_ellipsoids import CONTACTS


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=5.0)
    ap.add_argument("--out", default="out/two_ellipsoids_figures")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model = build_model("two-ellipsoids")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    t_eval = np.linspace(0.0, args.t_end, int(400 * args.t_end) + 1)  # smooth curves between solver steps
    traj = ph.simulate(
        system, (0.0, args.t_end), system.initial_state(model.initial), t_eval=t_eval, progress=True, **model.solver
    )
    print(traj)
    print(traj.power_budget())

    # ---- Fig. 5: distances with events
    names = [f"Delta {n.replace('_', '/')}" for n, _, _ in CONTACTS]
    dist = {k: np.array([model.observables[k](system, t, x) for t, x in zip(traj.t, traj.x)]) for k in names}
    contact_events = [e for e in traj.events if e.name.endswith(("touch", "release"))]
    fig, ax = figure(figsize=(9, 4.5))
    for k, y in dist.items():
        ax.plot(traj.t, 1000 * y, label=k)
    for e in contact_events:
        ax.axvline(e.t, color="0.75", lw=0.6, ls=":")
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("signed distance [mm]")
    ax.set_title("Fig. 5 (seed 003): distances between the three objects; dotted: contact events")
    ax.legend()
    save_figure(fig, out / "fig5_distances.png")

    # ---- Fig. 6: snapshots at the narrative's instants
    def first(name, kind, after=0.0):
        return next((e.t for e in contact_events if e.name == f"{name}/spring.{kind}" and e.t > after), None)

    t_low = first("lower_floor", "touch")
    t_up = first("upper_lower", "touch")
    t_upfloor = first("upper_floor", "touch")
    t_roll = 0.5 * (t_up + t_upfloor) if t_up and t_upfloor else None
    instants = [("a", 0.0), ("b", t_low), ("b'", t_up), ("c-d", t_roll), ("e", t_upfloor), ("f", traj.t[-1])]
    instants = [(lab, t) for lab, t in instants if t is not None]
    fig, axes = figure(2, 3, figsize=(12, 7))
    E = system.elements["lower_floor/spring"].pair.S1
    centres = np.array([traj.x[:, system.layout[f"{b}.pose"]][:, 4] for b in ("lower", "upper")])
    xlim = (centres.min() - 0.35, centres.max() + 0.35)
    for ax, (lab, t) in zip(np.ravel(axes), instants):
        x = traj.x[np.flatnonzero(traj.t <= t)[-1]]  # at an event time: the state after it
        bodies = []
        for body, color in (("lower", "tab:gray"), ("upper", "k")):
            H = system.elements[body].pose_matrix(x[system.layout[body]])
            bodies.append((E, H, color))
        frames = []
        for name, a, _ in CONTACTS:
            path = f"{name}/spring"
            own, refs = system.element_state(path, x)
            pair = system.elements[path].pair
            st = pair.state(own[:4], own[4:6], refs)
            H_Wa = pair.body_poses(refs)[0]
            H_WC = H_Wa @ pair.H_aS1 @ st.H_1C
            frames.append((H_WC, "tab:red" if own[6] > 0.5 else "tab:blue"))
        draw_scene(ax, bodies, frames, floor=0.0, title=f"({lab}) t = {t:.3f} s")
        ax.set_xlim(*xlim)
        ax.set_ylim(-0.05, 0.95)
    fig.suptitle("Fig. 6 (seed 003): snapshots with the contact frames (red: in contact, blue: tracked)")
    save_figure(fig, out / "fig6_snapshots.png")
    print(f"saved {out / 'fig5_distances.png'} and {out / 'fig6_snapshots.png'}")


if __name__ == "__main__":
    main()
