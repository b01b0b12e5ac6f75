"""Compiled versions per kernel after a cold first run (issue 36, "The first run"; not a test):

    python benchmarks/jit_signatures.py [--model two-ellipsoids]

Runs `porthamiltonian run MODEL` for 0.01 s in this interpreter with numba's and the
generated right-hand sides' caches pointed at new directories (so every kernel the model uses
is compiled and typed here, not loaded: a kernel loaded from the cache never types its
callees), then prints every kernel compiled for more than one signature, with the
signatures, and the total count over `porthamiltonian.kernels`. One process, no helper
processes (``PORTHAMILTONIAN_COMPILE_HELPERS=0`` unless set otherwise). Results:
`benchmarks/results/jit_signatures.md`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import tempfile


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="two-ellipsoids")
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="jit_signatures_")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba")
    os.environ["PORTHAMILTONIAN_CACHE"] = os.path.join(tmp, "rhs")
    os.environ.setdefault("PORTHAMILTONIAN_COMPILE_HELPERS", "0")

    from numba.core.registry import CPUDispatcher

    from porthamiltonian import cli, kernels

    code = cli.main(["run", args.model, "--t-end", "0.01", "--no-progress", "--out", os.path.join(tmp, "out")])
    total, repeated = 0, []
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"{kernels.__name__}.{info.name}")
        for name, obj in sorted(vars(module).items()):
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                total += len(obj.signatures)
                if len(obj.signatures) > 1:
                    repeated.append((f"{info.name}.{name}", obj.signatures))
    print(f"\n{args.model}: {total} compiled versions of the kernels; more than one for:")
    for name, sigs in repeated:
        print(f"  {name} ({len(sigs)}): " + "; ".join(str(s) for s in sigs))
    return code


if __name__ == "__main__":
    sys.exit(main())
