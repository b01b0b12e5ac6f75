"""A model's own compiled right-hand side: its compile time, its size and its speed (issue 36's
"a user's model that uses only built-in kernels compiles its right-hand side in at most 5 s";
not a test)::

    python benchmarks/rhs_compile.py [MODEL[:param=value,...] ...] [--calls 300]

For each model (default: the main job, the compass walker, the 8-foot rimless wheel on
sliding-plane and on compliant feet, Go1's robot-drop and the trotting Go1): the
generated source (`porthamiltonian.compile.jit.generate_jit`) is written to a new module and
its ``rhs`` compiled in this process with numba's cache of the kernels kept (run once before,
so that only the model's own function compiles; its first line says whether an element kernel
compiled too). Printed per model: the compile [s], LLVM's share of it (numba's
``numba:llvm_lock`` events) [s], the optimized LLVM IR of the function's library [MB], and the
best of 7 rounds of ``--calls`` evaluations at the initial state [µs per call]. The machine
is shared: compare figures from one run, models interleaved, or the same model run twice.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT = ["two-ellipsoids", "compass-walker", "rimless-wheel", "rimless-wheel:contact=compliant", "robot-drop",
           "quadruped-trot"]


def _model(spec):
    from porthamiltonian.models import build_model

    name, _, params = spec.partition(":")
    kw = dict(p.split("=") for p in params.split(",") if p)
    return build_model(name, **kw)


def measure(spec, calls, folder):
    from numba import typeof
    from numba.core import event

    from porthamiltonian.compile import compile as compile_graph
    from porthamiltonian.compile.jit import generate_jit

    model = _model(spec)
    system = compile_graph(model.graph)
    src, F, I = generate_jit(system._plan)
    if src is None:
        return f"{spec}: not compiled ({F})"
    path = Path(folder) / f"bench_rhs_{abs(hash(spec))}_{time.time_ns()}.py"
    path.write_text(src.replace("@njit\ndef rhs", "@njit(cache=False)\ndef rhs"))
    spec_ = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec_)
    sys.modules[path.stem] = mod
    spec_.loader.exec_module(mod)
    x = np.asarray(system.initial_state(model.initial), float)
    args = (0.0, x, np.zeros(0), F, I)
    sig = tuple(typeof(a) for a in args)
    t0 = time.perf_counter()
    with event.install_recorder("numba:llvm_lock") as rec:
        mod.rhs.compile(sig)
    dt = time.perf_counter() - t0
    llvm = sum(b[0] - a[0] for a, b in zip(rec.buffer[::2], rec.buffer[1::2]))
    ir = len(mod.rhs.overloads[sig].library.get_llvm_str()) / 1e6
    best = np.inf
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(calls):
            mod.rhs(*args)
        best = min(best, (time.perf_counter() - t) / calls * 1e6)
    lines = src.count("\n")
    return f"{spec:32s} compile {dt:6.2f} s  llvm {llvm:6.2f} s  IR {ir:5.2f} MB  {lines:4d} lines  {best:8.1f} us/call"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", default=DEFAULT)
    ap.add_argument("--calls", type=int, default=300)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        for spec in a.models:
            print(measure(spec, a.calls, folder), flush=True)


if __name__ == "__main__":
    main()
