"""Check: every registered model's trajectory before and after a refactoring (not a test).

    python benchmarks/trajectory_identity.py record OUT.npz [--t-end 0.05] [--models NAME ...]
    python benchmarks/trajectory_identity.py compare BEFORE.npz AFTER.npz

`record` runs every variant of `benchmarks/speed.py` (each registered model with both contact
kinds where it has a contact parameter, plus the extra variants) at the model's own solver
settings for `--t-end` simulated seconds, and a few runs with the fixed-step methods ("RK4",
"discrete_gradient") and with dense output, and stores times, states, status, counts and the
dense output at fixed times. Run it from the checkout to measure (it imports the package from
the current directory). `compare` prints a markdown table: per run, whether the samples are
bit-identical, else the largest difference relative to the state's scale.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: (model, parameters, solver overrides): runs of the fixed-step methods and with dense output
EXTRA_RUNS = [
    ("rocking-ellipsoid", dict(contact="sliding_plane"), dict(method="discrete_gradient", step=2e-3)),
    ("heavy-top", {}, dict(method="discrete_gradient", step=1e-3)),
    ("rocking-ellipsoid", dict(contact="reduced"), dict(method="RK4", step=1e-3)),
    ("two-ellipsoids", {}, dict(dense_output=True)),
    ("rimless-wheel", {}, dict(method="DOP853", rtol=1e-8, atol=1e-10, dense_output=True)),
]


def runs(names=None):
    from speed import variants

    out = [(n, p, {}) for n, p in variants(names)]
    out += [(n, p, s) for n, p, s in EXTRA_RUNS if not names or n in names]
    return out


def key(name, params, solver):
    return f"{name} {params} {solver}".replace(" ", "").replace("'", "")


def record(path, t_end, names):
    import porthamiltonian as ph
    from porthamiltonian.models import build_model

    data = {}
    for name, params, over in runs(names):
        k = key(name, params, over)
        start = time.perf_counter()
        try:
            model = build_model(name, **params)
            system = ph.compile(model.graph, baumgarte=model.baumgarte)
            x0 = system.initial_state(model.initial)
            solver = dict(model.solver)
            if "step" in over:
                solver.pop("max_step", None)
                solver.pop("first_step", None)
            solver.update(over)
            traj = ph.simulate(system, (0.0, t_end), x0, throw=False, audit=False, **solver)
            data[k + "|t"] = traj.t
            data[k + "|x"] = traj.x
            data[k + "|info"] = np.array([traj.status, traj.nfev, len(traj.events)], dtype=float)
            if solver.get("dense_output"):
                data[k + "|dense"] = traj.sol(np.linspace(0.0, float(traj.t[-1]), 41))
            print(f"{k}: status {traj.status}, {traj.t.size} samples, nfev {traj.nfev}, "
                  f"{time.perf_counter() - start:.1f} s", flush=True)
        except Exception as exc:   # recorded as such: the comparison shows it
            data[k + "|error"] = np.array(f"{type(exc).__name__}: {exc}")
            print(f"{k}: ERROR {type(exc).__name__}: {exc}", flush=True)
            traceback.print_exc()
    np.savez(path, **data)


def compare(before, after):
    a, b = np.load(before), np.load(after)
    keys = sorted({k.rsplit("|", 1)[0] for k in a.files} | {k.rsplit("|", 1)[0] for k in b.files})
    print("| run | samples | bit-identical | max rel. difference | status, nfev, events |")
    print("|---|---|---|---|---|")
    for k in keys:
        if k + "|error" in a.files or k + "|error" in b.files:
            ea = str(a[k + "|error"]) if k + "|error" in a.files else "ok"
            eb = str(b[k + "|error"]) if k + "|error" in b.files else "ok"
            print(f"| {k} | - | {ea == eb} | before: {ea[:60]}; after: {eb[:60]} | - |")
            continue
        ta, tb, xa, xb = a[k + "|t"], b[k + "|t"], a[k + "|x"], b[k + "|x"]
        ia, ib = a[k + "|info"], b[k + "|info"]
        same = ta.shape == tb.shape and np.array_equal(ta, tb) and np.array_equal(xa, xb) \
            and np.array_equal(ia, ib)
        if k + "|dense" in a.files:
            same = same and np.array_equal(a[k + "|dense"], b[k + "|dense"])
        if ta.shape == tb.shape and xa.shape == xb.shape:
            scale = np.maximum(np.max(np.abs(xa), axis=0), 1e-300)
            diff = float(np.max(np.abs(xa - xb) / scale)) if xa.size else 0.0
        else:
            diff = float("nan")
        print(f"| {k} | {ta.size} / {tb.size} | {'yes' if same else 'NO'} | {diff:.3g} | "
              f"{ia.astype(int).tolist()} / {ib.astype(int).tolist()} |")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("--t-end", type=float, default=0.05)
    r.add_argument("--models", nargs="*")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = p.parse_args(argv)
    if args.cmd == "record":
        record(args.out, args.t_end, args.models)
    else:
        compare(args.before, args.after)


if __name__ == "__main__":
    main()
