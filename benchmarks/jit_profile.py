"""Where the first run's compile time goes, kernel by kernel (issue 10; not a test):

    python benchmarks/jit_profile.py [--model two-ellipsoids] [--sizes] [--top 40]

Runs `porthamiltonian run MODEL` for 0.01 s in this interpreter with numba's and the
generated right-hand sides' caches pointed at new directories (every kernel the model uses
compiles), and prints the kernels compiled for more than one signature, then one line per compiled
function (numba dispatcher, one line per compiled signature):

- ``incl`` / ``excl`` [s]: its compile, with / without the compiles it triggered (the
  kernels it calls compile while it is typed);
- ``opt`` / ``emit`` [s]: LLVM's optimization of its final module (numba's "cheap" and "full"
  passes) and the machine-code generation, both included in ``excl``; the rest of ``excl`` is
  numba's front end (typing, lowering to LLVM IR, per-function passes, the cache);
- with ``--sizes``, ``own`` / ``linked``: LLVM instructions of its final module after
  optimization, in its own functions and in the callees numba linked in (counting them takes
  time of its own: compare the other columns from runs without it).

A kernel called through `porthamiltonian.kernels._njit.separate` is not linked into its
callers: its tree appears once, under its own line. The profile is of one process compiling
everything: no helper processes (``PORTHAMILTONIAN_COMPILE_HELPERS=0`` unless set otherwise;
`porthamiltonian.kernels._parallel`), whose kernels would appear as loads.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="two-ellipsoids")
    ap.add_argument("--sizes", action="store_true", help="count own and linked LLVM instructions")
    ap.add_argument("--top", type=int, default=40, help="lines printed, by exclusive time")
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="jit_profile_")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba")
    os.environ["PORTHAMILTONIAN_CACHE"] = os.path.join(tmp, "rhs")
    os.environ.setdefault("PORTHAMILTONIAN_COMPILE_HELPERS", "0")

    from numba.core import codegen, event

    stack, rows, sizes = [], [], []   # stack entries: [name, t0, children, opt, emit]

    class Compiles(event.Listener):
        def on_start(self, ev):
            fn = ev.data["dispatcher"].py_func
            stack.append([f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__qualname__}", time.perf_counter(), 0.0, 0.0, 0.0])

        def on_end(self, ev):
            name, t0, children, opt, emit = stack.pop()
            incl = time.perf_counter() - t0
            if stack:
                stack[-1][2] += incl
            rows.append((name, incl, incl - children, opt, emit))

    event.register("numba:compile", Compiles())

    def timed(method, slot, count=False):
        def wrapper(self):
            t = time.perf_counter()
            method(self)
            if stack:
                stack[-1][slot] += time.perf_counter() - t
            if count and args.sizes:
                own = getattr(self, "_own_names", set())
                n_own = n_linked = 0
                for f in self._final_module.functions:
                    if not f.is_declaration:
                        n = sum(1 for b in f.blocks for _ in b.instructions)
                        n_own, n_linked = (n_own + n, n_linked) if f.name in own else (n_own, n_linked + n)
                sizes.append((n_own, n_linked))
        return wrapper

    finalize = codegen.CPUCodeLibrary.finalize

    def remember_own(self):
        if not self._finalized:
            self._own_names = {f.name for f in self._final_module.functions if not f.is_declaration}
        finalize(self)

    codegen.CPUCodeLibrary.finalize = remember_own
    codegen.CPUCodeLibrary._optimize_final_module = timed(codegen.CPUCodeLibrary._optimize_final_module, 3, True)
    codegen.JITCodeLibrary._finalize_specific = timed(codegen.JITCodeLibrary._finalize_specific, 4)

    t0 = time.perf_counter()
    from porthamiltonian.cli import main as cli

    imports = time.perf_counter() - t0
    try:
        cli(["run", args.model, "--t-end", "0.01", "--no-progress", "--out", os.path.join(tmp, "out")])
    except SystemExit:
        pass
    total = time.perf_counter() - t0
    excl = sum(r[2] for r in rows)
    print(f"\n{args.model}: {total:.1f} s in all, imports {imports:.1f} s; {len(rows)} compiled functions, "
          f"{excl:.1f} s of compiling: LLVM optimization {sum(r[3] for r in rows):.1f} s, "
          f"code generation {sum(r[4] for r in rows):.1f} s, the rest numba's front end")
    if sizes:
        own, linked = sum(s[0] for s in sizes), sum(s[1] for s in sizes)
        print(f"LLVM instructions after optimization: {own} in the functions' own code, {linked} linked "
              f"({100 * linked / (own + linked):.0f} %)")
    versions = {}
    for name, *_ in rows:
        versions[name] = versions.get(name, 0) + 1
    repeated = {n: k for n, k in versions.items() if k > 1}
    print(f"{len(versions)} kernels; compiled for more than one signature: "
          + (", ".join(f"{n} ({k})" for n, k in sorted(repeated.items(), key=lambda i: -i[1])) or "none"))
    print(f"{'function':48s} {'incl':>6s} {'excl':>6s} {'opt':>6s} {'emit':>6s}")
    for name, incl, ex, opt, emit in sorted(rows, key=lambda r: -r[2])[:args.top]:
        print(f"{name[:48]:48s} {incl:6.2f} {ex:6.2f} {opt:6.2f} {emit:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
