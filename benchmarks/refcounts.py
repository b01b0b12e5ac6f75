"""numba's reference counts per evaluation of the Go1-sized quadruped's compiled right-hand side,
and per call of one foot's contact kernels.

Why: numba counts the references to every array it allocates with an atomic increment or
decrement (its runtime's ``NRT_incref`` / ``NRT_decref``). `perf record` on the compiled rhs put
53 % of its time there (2026-11-29, session 14: 3,830 counts per evaluation); the borrowed views
of `porthamiltonian.kernels.borrow` took most of them off. This counts them, so the next change
can be measured.

How: numba's runtime is compiled by numba itself (`numba.core.runtime.nrtdynmod`); before
anything is compiled, its atomic add and subtract are replaced by versions that also bump a
counter in this process (`ctypes` memory registered as an LLVM symbol). Machine code compiled
so refers to that symbol, which no other process defines: this script therefore compiles
everything into its own temporary caches (``NUMBA_CACHE_DIR``, ``PORTHAMILTONIAN_CACHE``, set
before numba is imported), never the package's (a kernel cached with the counter crashes every
later process that loads it). Every run compiles the kernels anew: 3-5 minutes.

Counts of one evaluation of the whole rhs (increments, decrements; their difference is the
arrays allocated and freed), then per call of each foot kernel with its inputs borrowed as the
generated code passes them (`robot_profile.contact_profile`'s kernels), and of the articulated
body's two kernels.

Usage: ``PYTHONPATH=. python benchmarks/refcounts.py``.
"""

from __future__ import annotations

import ctypes
import os
import sys
import tempfile
from pathlib import Path

_TMP = tempfile.mkdtemp(prefix="refcounts_")
os.environ["NUMBA_CACHE_DIR"] = os.path.join(_TMP, "numba")
os.environ["PORTHAMILTONIAN_CACHE"] = os.path.join(_TMP, "rhs")

import llvmlite.binding as ll  # noqa: E402
import numba.core.runtime.nrtdynmod as _nrt  # noqa: E402
from llvmlite import ir  # noqa: E402

_COUNTS = (ctypes.c_int64 * 2)()
ll.add_symbol("ph_refcount_add", ctypes.addressof(_COUNTS))
ll.add_symbol("ph_refcount_sub", ctypes.addressof(_COUNTS) + 8)


def _counting_atomic(module, op, ordering):
    """numba's ``nrt_atomic_add`` / ``nrt_atomic_sub`` (`nrtdynmod._define_atomic_inc_dec`), also
    adding 1 to this process's counter of `op`."""
    word = _nrt._word_type
    fn = ir.Function(module, ir.FunctionType(word, [word.as_pointer()]), name=f"nrt_atomic_{op}")
    b = ir.IRBuilder(fn.append_basic_block())
    one = ir.Constant(word, 1)
    res = getattr(b, op)(b.atomic_rmw(op, fn.args[0], one, ordering=ordering), one)
    counter = ir.GlobalVariable(module, word, name=f"ph_refcount_{op}")
    b.store(b.add(b.load(counter), one), counter)
    b.ret(res)
    return fn


_nrt._define_atomic_inc_dec = _counting_atomic

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numba  # noqa: E402
import numba.extending  # noqa: E402
import numpy as np  # noqa: E402


def counts():
    """(increments, decrements) so far in this process."""
    return _COUNTS[0], _COUNTS[1]


def _borrowed(name, value):
    """The source of `value` (an argument `name`) as the generated code passes it: arrays
    borrowed (`porthamiltonian.kernels.borrow`), tuples item by item."""
    if isinstance(value, np.ndarray):
        return f"_b({name})"
    if isinstance(value, tuple):
        return "(" + "".join(_borrowed(f"{name}[{i}]", v) + ", " for i, v in enumerate(value)) + ")"
    return name


def per_call(kernel, args_list, calls=100):
    """Increments plus decrements per call of `kernel` in a compiled loop, its array arguments
    borrowed as the generated code passes them (the loop's own, with 0 calls, subtracted)."""
    from porthamiltonian.kernels import borrow
    from porthamiltonian.kernels._njit import separate

    @numba.extending.register_jitable
    def whole(a):
        return borrow.record((a,))[0]

    names = ", ".join(f"a{i}" for i in range(len(args_list[0])))
    args = ", ".join(_borrowed(f"a{i}", v) for i, v in enumerate(args_list[0]))
    ns = {"call": separate(kernel), "_b": whole}
    exec(f"def run(n, {names}):\n    for _ in range(n):\n        call({args})\n", ns)
    run = numba.njit(ns["run"])
    run(1, *args_list[0])
    total = 0
    for a in args_list:
        for n, sign in ((0, -1), (calls, 1)):
            c0 = counts()
            run(n, *a)
            c1 = counts()
            total += sign * ((c1[0] - c0[0]) + (c1[1] - c0[1]))
    return total / (calls * len(args_list))


def main():
    import robot_profile as RP
    from speed import quadruped_graph

    from porthamiltonian.kernels import articulated as K

    _, system = RP.profile(20, rhs_only=True, repeats=1)
    _, _, q0 = quadruped_graph()
    ts, xs = RP.states(system, system.initial_state({"go1.q": q0}), 20)
    j = system._jit
    u0 = np.zeros(system.n_inputs)

    @numba.njit
    def run(fn, ts, xs, u, F, I):
        for i in range(ts.shape[0]):
            fn(ts[i], xs[i], u, F, I)

    xs = np.ascontiguousarray(xs)
    run(j["fn"], ts, xs, u0, j["F"], j["I"])
    c0 = counts()
    run(j["fn"], ts, xs, u0, j["F"], j["I"])
    c1 = counts()
    inc, dec = ((b - a) / len(ts) for a, b in zip(c0, c1))
    print(f"whole rhs, per evaluation: {inc:.0f} increments, {dec:.0f} decrements ({dec - inc:.0f} arrays freed)")
    print("one touching foot, per call (increments + decrements):")
    for k, v in RP.contact_profile(system, ts, xs, measure=per_call).items():
        print(f"  {k:60s} {v:7.1f}")
    el = system.elements["go1"]
    own = [np.ascontiguousarray(x[system.layout.element_slice("go1")]) for x in xs]
    W = np.zeros(sum(p.dim for p in el.ports()))
    print(f"  {'articulated body, rates (tree_rates_flat)':60s} {per_call(K.tree_rates_flat, [(x, W, el._F, el._I) for x in own]):7.1f}")
    print(f"  {'articulated body, outputs (tree_outputs_flat)':60s} {per_call(K.tree_outputs_flat, [(x, el._F, el._I) for x in own]):7.1f}")


if __name__ == "__main__":
    main()
