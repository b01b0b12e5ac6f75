"""Diagnosis: where the rimless wheel on sand spends its right-hand-side evaluations (not a test).

    python benchmarks/sand_stall.py [--t-end 0.9] [--max-nfev N] [--window 0.01] [--method DOP853]

Runs ``rimless-wheel --contact soil`` at the model's own solver settings, keeping the
solver's accepted steps, and prints: the wall time and rhs evaluations; the accepted steps
per `--window` of simulated time (the densest windows, with their smallest and median
step); the events in the densest window (none of them repeating there would rule out a Zeno
sequence of mode switches); and, for each foot touching in that window, its normal force
F_n [N], its tangential force |f_t| [N] against its friction limit mu F_n, at up to 200
accepted steps of the window.

What it showed (issue 10, main at c3e7f7b, 0.9 s): 1.29 M evaluations, 1.26 M of them in
0.81-0.84 s at accepted steps of 0.2 us. At t = 0.8115095532 s foot 1 leaves its imprint's
floor (release, z = z_p, dz/dt = -0.098 m/s: the foot moves out) and its touch fires at the
same instant: the touch function restarts at -6.2e-17 m (round-off; the engine's start value
is +1e-300 at the start time only) and the segment's first step ends with it unchanged, which
solve_ivp reads as a fall through 0. So the contact stays active while the foot rises above
the floor (z - z_p down to -0.3 mm by 0.815 s) with no normal force (F_n ~1e-23 N), where the
Dahl spring's friction limit is 0 and its slip law (`kernels.contact.slip_rates`) is the
relay ``ds/dt = v - |v| s / |s|``: the tangential deformation flips sign every step
(+-1.04e-11 m), the Jacobian's stiffest eigenvalue is -1.95e7 1/s, on foot 1's tangential
spring. No unload or yield fires in the window (the soil's modes do not chatter) and the
sinkage range (35 mm loaded under a 20 mm sole) is not what stalls it. With
`porthamiltonian.integrate.events.wrap_event` keeping the leaving sign within the start's
round-off, the first second takes 37,405 evaluations (2.6 s), the same 37 events but the
spurious touch.
"""
from __future__ import annotations

import argparse
import time
from types import SimpleNamespace

import numpy as np


def _run(t_end, max_nfev, method):
    from porthamiltonian.studies.records import RunSpec, integrate, model_reference, prepare, resolve_parameters

    model = model_reference("rimless-wheel")
    solver = {"method": method} if method else {}
    spec = RunSpec(model, resolve_parameters(model, {"contact": "soil"}), t_end, solver, 0, max_nfev, None)
    prepared = prepare(spec)
    return integrate(prepared)


def _densest(t, width):
    """``[(count, lo, min step, median step)]`` of the accepted steps per window, densest first."""
    edges = np.arange(0.0, t[-1] + width, width)
    h = np.diff(t)
    rows = []
    for lo in edges[:-1]:
        sel = (t[1:] > lo) & (t[1:] <= lo + width) & (h > 0)
        if sel.any():
            rows.append((int(sel.sum()), float(lo), float(h[sel].min()), float(np.median(h[sel]))))
    return sorted(rows, reverse=True)


def _feet(traj, lo, hi, samples=200):
    """Normal and tangential forces of every touching foot at up to `samples` steps in [lo, hi]."""
    from porthamiltonian.diagnostics.contact_forces import contact_forces

    idx = np.where((traj.t >= lo) & (traj.t <= hi))[0]
    idx = idx[:: max(1, len(idx) // samples)]
    part = SimpleNamespace(system=traj.system, t=traj.t[idx], x=traj.x[idx])
    names = sorted({k.split("/")[0] for k in traj.system.elements if k.endswith("/slip")})
    for name in names:
        slip = traj.system.elements[f"{name}/slip"]
        mu = slip.p.mu
        cf = contact_forces(part, name)
        touching = cf.normal > 0.0
        if not touching.any():
            continue
        Fn = cf.normal[touching]
        ft = np.linalg.norm(cf.tangential[touching], axis=1)
        print(f"  {name}: touching at {touching.sum()} of {len(idx)} steps; F_n [N] min {Fn.min():.3g} median "
              f"{np.median(Fn):.3g} max {Fn.max():.3g}; |f_t| / (mu F_n) median {np.median(ft / (mu * Fn)):.3g}")


def _stiff_modes(traj, lo, hi, count=3):
    """The most negative eigenvalues [1/s] of the right-hand side's Jacobian (central
    differences, physical states only) at the median accepted step of [lo, hi], each with the
    states that carry most of its eigenvector."""
    system = traj.system
    k = np.where((traj.t >= lo) & (traj.t <= hi))[0]
    k = k[len(k) // 2]
    t, x = traj.t[k], np.array(traj.x[k], dtype=float)
    n = system.layout.n_physical
    J = np.zeros((n, n))
    for j in range(n):
        h = 1e-7 * max(1e-3, abs(x[j]))
        xp, xm = x.copy(), x.copy()
        xp[j] += h
        xm[j] -= h
        J[:, j] = (system.rhs(t, xp)[:n] - system.rhs(t, xm)[:n]) / (2 * h)
    lam, vec = np.linalg.eig(J)
    names = system.layout.names()
    print(f"stiffest modes of the Jacobian at t = {t:.6f} s (central differences):")
    for i in np.argsort(lam.real)[:count]:
        top = np.argsort(-np.abs(vec[:, i]))[:3]
        print(f"  {lam[i].real:.3g} {lam[i].imag:+.3g}j 1/s: " + ", ".join(names[m] for m in top))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--t-end", type=float, default=0.9)
    ap.add_argument("--max-nfev", type=int, default=None)
    ap.add_argument("--window", type=float, default=0.01, help="width of the step-count windows [s]")
    ap.add_argument("--method", default=None, help="solve_ivp method (default: the model's)")
    args = ap.parse_args(argv)
    wall = time.perf_counter()
    traj, run_wall = _run(args.t_end, args.max_nfev, args.method)
    print(f"{traj}\nintegration {run_wall:.2f} s wall, {traj.nfev} rhs evaluations "
          f"(with the build: {time.perf_counter() - wall:.1f} s)")
    rows = _densest(traj.t, args.window)
    print(f"accepted steps per {args.window} s (densest first): count, window, smallest and median step [s]")
    for count, lo, hmin, hmed in rows[:5]:
        print(f"  {count:8d}  {lo:.3f}..{lo + args.window:.3f}  {hmin:.3g}  {hmed:.3g}")
    lo = rows[0][1]
    hi = lo + args.window
    events = [e for e in traj.events if lo <= e.t <= hi]
    print(f"events in {lo:.3f}..{hi:.3f} s: {len(events)}")
    for e in events:
        print(f"  {e}")
    _feet(traj, lo, hi)
    _stiff_modes(traj, lo, hi)


if __name__ == "__main__":
    main()
