"""Swap stiff and compliant contact: the sliding plane against spring-dampers of growing stiffness.

Two models, each built with ``contact="sliding_plane"`` (a constraint: Tasora & Righettini)
and with ``contact="compliant"`` (a spring-damper: Duindam & Stramigioli) at several
stiffnesses:

* rocking-ellipsoid (frictionless and no-slip rolling, bilateral): the compliant trajectory
  converges to the stiff one as 1/k. Prints the largest tilt error against the stiffness
  and plots the tilts and the error against k. The third submodel, reduced contact
  coordinates (``contact="reduced"``, Kry & Pai), is printed against the sliding plane: two
  formulations of the same rigid contact (they agree to the integration tolerance).
* two-ellipsoids (impacts): the stiff model bounces with Newton's restitution, the compliant
  ones with the restitution of their spring-damper, which is kept the same by scaling the
  damping with sqrt(k). Prints the largest height errors against the stiffness, up to the
  second impact (the first landing converges, as 1/sqrt(k)) and over the run (off-centre
  impacts with friction: the two laws differ there, see `two_ellipsoids`), and plots the
  heights.

    python examples/contact_swap.py [--stiffness 1e4 1e5 1e6] [--two-t-end 0.5] [--out out/contact_swap]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import figure, plot_series, save_figure
from porthamiltonian.models import build_model


def simulate(model, t_eval, *, rtol=None):
    """(trajectory, observables on t_eval, wall time [s]) with the model's solver settings
    (`rtol` overrides them)."""
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    solver = dict(model.solver)
    if rtol is not None:
        solver.update(rtol=rtol, atol=1e-2 * rtol)
    wall = time.perf_counter()
    traj = ph.simulate(system, (0.0, t_eval[-1]), system.initial_state(model.initial), t_eval=t_eval, **solver)
    wall = time.perf_counter() - wall
    # events add their times (twice: before and after the jump); the observables compared
    # here are continuous, so they are read back on t_eval
    obs = {k: np.interp(t_eval, traj.t, [f(system, t, x) for t, x in zip(traj.t, traj.x)])
           for k, f in model.observables.items()}
    return traj, obs, wall


def rocking(stiffnesses, out, t_end=1.0):
    """Compliant vs sliding-plane rocking ellipsoid; returns {friction: [(k, error)]}."""
    t = np.linspace(0.0, t_end, 501)
    table = {}
    for friction in ("frictionless", "rolling"):
        common = dict(friction=friction, unilateral=False)
        _, stiff, wall = simulate(build_model("rocking-ellipsoid", contact="sliding_plane", **common), t, rtol=1e-10)
        _, reduced, wall_r = simulate(build_model("rocking-ellipsoid", contact="reduced", friction=friction), t,
                                      rtol=1e-10)
        print(f"\nrocking-ellipsoid, {friction}: sliding plane {wall:.1f} s wall; reduced coordinates {wall_r:.1f} s "
              f"wall, max |tilt difference| {np.max(np.abs(reduced['tilt'] - stiff['tilt'])):.2e} rad")
        print(f"{'k [N/m]':>10}{'max |tilt error| [rad]':>26}{'k * error':>12}{'wall [s]':>10}")
        tilts = {"sliding plane": stiff["tilt"]}
        rows = []
        for k in stiffnesses:
            model = build_model("rocking-ellipsoid", contact="compliant", stiffness=k, **common)
            _, soft, wall = simulate(model, t, rtol=1e-9)
            err = float(np.max(np.abs(soft["tilt"] - stiff["tilt"])))
            rows.append((k, err))
            tilts[f"compliant k = {k:.0e} N/m"] = soft["tilt"]
            print(f"{k:>10.0e}{err:>26.3e}{k * err:>12.3g}{wall:>10.1f}")
        table[friction] = rows
        fig = plot_series(t, tilts, ylabel="tilt [rad]",
                          title=f"rocking ellipsoid ({friction}): compliant vs sliding plane")
        save_figure(fig, out / f"rocking_{friction}_tilt.png")
    fig, ax = figure(figsize=(6, 4.5))
    for friction, rows in table.items():
        k, e = np.array(rows).T
        ax.loglog(k, e, "o-", label=friction)
    k = np.array(stiffnesses, dtype=float)
    ax.loglog(k, table["frictionless"][0][1] * k[0] / k, "k:", lw=0.8, label="1/k")
    ax.set_xlabel("stiffness k [N/m]")
    ax.set_ylabel("max |tilt error| [rad]")
    ax.set_title("rocking ellipsoid: compliant -> stiff")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    save_figure(fig, out / "rocking_error_vs_stiffness.png")
    return table


def two_ellipsoids(stiffnesses, out, t_end):
    """Compliant vs sliding-plane two-ellipsoids (impacts); returns [(k, errors...)].

    Errors of the two heights up to the stiff run's second impact (the lower ellipsoid's
    first landing, flat: the compliant bounce converges as its duration pi sqrt(m/k), so as
    1/sqrt(k)) and over the whole run (later impacts are off-centre: the compliant law's
    restitution depends on the effective mass at the contact point, while the model sets
    the stiff restitution from the body mass; the stiff impulses hold the rolling contact's
    no-slip rows, unlimited friction, where the compliant impacts carry the finite friction of
    their tangential spring-damper, so the two need not converge there).
    """
    t = np.linspace(0.0, t_end, int(400 * t_end) + 1)
    traj, stiff, wall = simulate(build_model("two-ellipsoids", contact="sliding_plane"), t)
    impacts = [e.t for e in traj.events if e.name.endswith("impact")]
    first = t < (impacts[1] if len(impacts) > 1 else t_end + 1.0)
    print(f"\ntwo-ellipsoids (t <= {t_end:g} s): sliding plane {wall:.1f} s wall, {len(impacts)} impacts; "
          f"max |height error| [m] up to the second impact (t < {t[first][-1]:.3f} s) and over the run")
    print(f"{'k [N/m]':>10}{'lower, 1st':>12}{'upper, 1st':>12}{'lower, run':>12}{'upper, run':>12}{'wall [s]':>10}")
    k0, c0 = 4000.0, 8.0  # the model's defaults; damping ~ sqrt(k) keeps the restitution
    series = {"lower, sliding plane": stiff["height lower"], "upper, sliding plane": stiff["height upper"]}
    rows = []
    for k in stiffnesses:
        model = build_model("two-ellipsoids", contact="compliant", stiffness=k, damping=c0 * np.sqrt(k / k0))
        _, soft, wall = simulate(model, t)
        err = [np.abs(soft[h] - stiff[h]) for h in ("height lower", "height upper")]
        row = [float(np.max(e[first])) for e in err] + [float(np.max(e)) for e in err]
        rows.append((k, *row))
        series[f"lower, k = {k:.0e}"] = soft["height lower"]
        series[f"upper, k = {k:.0e}"] = soft["height upper"]
        print(f"{k:>10.0e}" + "".join(f"{v:>12.2e}" for v in row) + f"{wall:>10.1f}")
    fig = plot_series(t, series, ylabel="height of the centre [m]", title="two ellipsoids: compliant vs sliding plane",
                      events=[(ti, "impact") for ti in impacts])
    save_figure(fig, out / "two_ellipsoids_heights.png")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stiffness", type=float, nargs="+", default=[1e4, 1e5, 1e6], help="rocking: stiffnesses [N/m]")
    ap.add_argument("--two-stiffness", type=float, nargs="+", default=[4e3, 4e4, 4e5],
                    help="two-ellipsoids: stiffnesses [N/m]")
    ap.add_argument("--two-t-end", type=float, default=0.5, help="two-ellipsoids: simulated time [s]")
    ap.add_argument("--out", default="out/contact_swap")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rocking(args.stiffness, out)
    two_ellipsoids(args.two_stiffness, out, args.two_t_end)
    print(f"\nfigures in {out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
