"""First-run JIT cost of the main job under three compile designs (issue 10): ``python benchmarks/jit_boundary.py``.

The main job (`porthamiltonian run two-ellipsoids`, the README's first command) is run in a
fresh interpreter with every cache empty (``NUMBA_CACHE_DIR`` and ``PORTHAMILTONIAN_CACHE``
pointed at new directories), under each design in turn, round after round (A B C A B C: the
machine is shared, so only interleaved figures compare), plus once warm for the baseline:

- ``baseline``: the package as it is.
- ``pointer``: prototype of a call boundary numba does not relink. `compliant.pair_state`
  calls `contact.evaluate` (the Newton chain: contact -> closest -> surfaces, with the tape
  interpreter) through its machine-code address with numba's native calling convention (a
  small ``numba.extending.intrinsic``, `pointer_caller`), so the element kernels and the
  generated right-hand side link a declaration instead of re-optimizing and re-emitting the
  chain. The address is baked into the caller as a constant: valid for a cold run only (a
  warm run would load a stale address from numba's cache), which is all this measures; a
  product would pass the address at run time. The child applies it by giving `compliant` a
  copy of the `contact` module whose ``evaluate`` is the pointer call.
- ``pointer-rhs``: ``pointer`` plus the same boundary between the generated right-hand side
  and the five contact element kernels it calls (`compliant.spring_outputs`, ...): the
  child replaces them in `compliant` with inlined wrappers calling their machine code
  through `pointer_caller`, so the right-hand side's own level links none of the contact
  chain.
- ``parallel``: prototype of compiling on the second core. A worker process compiles
  `compliant.spring_outputs` (whose tree holds the whole contact chain: 17 s of the ~31 s the
  kernels take alone) into numba's cache while the main process compiles the other
  top-level kernels, then the main job runs and loads both from the cache.

The two prototypes need each kernel's argument types, recorded once per invocation from an
in-process compile (`record_signatures`). Every run's trajectory is compared bit for bit with
the baseline's. Writes ``benchmarks/results/jit_boundary.md``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
JOB = ["run", "two-ellipsoids", "--no-progress"]
K = "porthamiltonian.kernels"
#: the generated right-hand side's top-level kernels, as the worker / main process split them
WORKER = [f"{K}.compliant:spring_outputs"]
MAIN = [f"{K}.compliant:{n}" for n in ("spring_rates", "spring_events", "friction_law", "damper_law")] + [
    f"{K}.bodies:{n}" for n in ("rigid_body_outputs1", "ground_outputs1", "gravity_outputs", "rigid_body_rates")]


# ----------------------------------------------------------------------- prototypes (child side)
def pointer_caller(disp, argtypes):
    """An intrinsic ``call(args_tuple)`` calling ``disp``'s machine code for ``argtypes``
    through its address (numba's native ABI: return slot, exception info, flattened
    arguments), with the callee's errors propagated; raises at typing if the caller's
    argument types differ from ``argtypes``."""
    from llvmlite import ir
    from numba.core import cgutils
    from numba.core.callconv import excinfo_t
    from numba.extending import intrinsic

    disp.compile(argtypes)
    cres = disp.overloads[tuple(argtypes)]
    addr = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    restype = cres.signature.return_type

    @intrinsic
    def call(typingctx, args):
        if tuple(args.types) != tuple(argtypes):
            raise TypeError(f"pointer call types {args.types} != {argtypes}")

        def codegen(context, builder, signature, llargs):
            cc = context.call_conv
            fnty = cc.get_function_type(restype, argtypes)
            fnptr = builder.inttoptr(ir.Constant(ir.IntType(64), addr), fnty.as_pointer())
            retty = cc.get_return_type(restype).pointee
            ret = cgutils.alloca_once(builder, retty)
            builder.store(cgutils.get_null_value(retty), ret)
            excinfo = cgutils.alloca_once(builder, ir.PointerType(excinfo_t), name="excinfo")
            packed = list(cc._get_arg_packer(argtypes).as_arguments(builder, cgutils.unpack_tuple(builder, llargs[0])))
            code = builder.call(fnptr, [ret, excinfo] + packed)
            status = cc._get_return_status(builder, code, builder.load(excinfo))
            with cgutils.if_unlikely(builder, status.is_error):
                cc.return_status_propagate(builder, status)
            return context.get_returned_value(builder, restype, builder.load(ret))

        return restype(args), codegen

    return call


def install_pointer(sigs):
    """Make `compliant` call `contact.evaluate` through `pointer_caller` (module docstring)."""
    from porthamiltonian.kernels import compliant, contact
    from porthamiltonian.kernels._njit import njit

    call = pointer_caller(contact.evaluate, sigs[(f"{K}.contact", "evaluate")][0])

    @njit(inline="always")
    def evaluate(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17):
        return call((a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17))

    shim = types.ModuleType(contact.__name__)
    shim.__dict__.update(contact.__dict__)
    shim.evaluate = evaluate
    compliant._kc = shim


def install_element_pointers(sigs):
    """Make the generated right-hand side call the contact element kernels (`MAIN`'s and
    `WORKER`'s compliant ones) through `pointer_caller` too (after `install_pointer`)."""
    import numba

    from porthamiltonian.kernels import compliant

    for item in WORKER + MAIN:
        module, name = item.rsplit(":", 1)
        if not module.endswith("compliant"):
            continue
        argtypes = sigs[(module, name)][0]
        names = ", ".join(f"a{i}" for i in range(len(argtypes)))
        ns = {"call": pointer_caller(getattr(compliant, name), argtypes), "__name__": compliant.__name__}
        exec(f"def {name}({names}):\n    return call(({names},))\n", ns)
        # no cache=True: an exec'd function has no file for numba's cache (inlined anyway)
        setattr(compliant, name, numba.njit(inline="always", error_model="numpy")(ns[name]))


def precompile(sigs, items):
    """Compile each ``module:function`` for its recorded signatures (fills numba's cache)."""
    for item in items:
        module, name = item.rsplit(":", 1)
        disp = getattr(importlib.import_module(module), name)
        for sig in sigs[(module, name)]:
            disp.compile(sig)


def record_signatures(path):
    """Compile the main job's right-hand side in this process and pickle every kernel's
    signatures ``{(module, name): [argument types]}`` to ``path``."""
    from numba.core.registry import CPUDispatcher

    import porthamiltonian
    from porthamiltonian.models.two_ellipsoids import two_ellipsoids

    assert porthamiltonian.compile(two_ellipsoids().graph).compiled == "numba"
    sigs = {}
    for name, module in list(sys.modules.items()):
        if name.startswith(K):
            for fname, obj in vars(module).items():
                if isinstance(obj, CPUDispatcher) and obj.__module__ == name and obj.signatures:
                    sigs[(name, fname)] = list(obj.signatures)
    Path(path).write_bytes(pickle.dumps(sigs))


def child(design, sigs_path, out):
    """Run the main job in this process under ``design``."""
    sigs = pickle.loads(Path(sigs_path).read_bytes())
    if design in ("pointer", "pointer-rhs"):
        install_pointer(sigs)
    if design == "pointer-rhs":
        install_element_pointers(sigs)
    elif design == "parallel-main":
        precompile(sigs, MAIN)
        return
    elif design == "parallel-worker":
        precompile(sigs, WORKER)
        return
    from porthamiltonian.cli import main

    if main([*JOB, "--out", out]):
        raise SystemExit("the main job failed")


# ----------------------------------------------------------------------- driver
def _python(args, env):
    return subprocess.Popen([sys.executable, __file__, *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def _check(proc):
    _, err = proc.communicate()
    if proc.returncode:
        raise RuntimeError(f"child failed ({proc.returncode}): {err[-2000:]}")


def run(design, sigs, out, cache, cold=True):
    """Wall seconds of the main job under ``design`` (caches emptied first when ``cold``)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache / "nb"), "PORTHAMILTONIAN_CACHE": str(cache / "pc"),
           "MPLCONFIGDIR": str(cache / "mpl")}
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    t0 = time.perf_counter()
    if design == "parallel":
        worker = _python(["_child", "parallel-worker", sigs, out], env)
        _check(_python(["_child", "parallel-main", sigs, out], env))
        _check(worker)
        design = "baseline"
    _check(_python(["_child", design, sigs, out], env))
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--designs", nargs="+", default=["baseline", "pointer", "pointer-rhs", "parallel"])
    ap.add_argument("--out", type=Path, default=HERE / "results" / "jit_boundary.md")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="jit_boundary-"))
    sigs = str(tmp / "sigs.pkl")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / "sig_nb"), "PORTHAMILTONIAN_CACHE": str(tmp / "sig_pc")}
    subprocess.run([sys.executable, __file__, "_record", sigs], env=env, check=True)
    walls = {d: [] for d in args.designs}
    same = {d: True for d in args.designs}
    ref = None
    for r in range(args.rounds):
        for d in args.designs:
            out = tmp / f"out_{d}_{r}"
            walls[d].append(run(d, sigs, str(out), tmp / "cache"))
            x = np.load(out / "trajectory.npz")["x"]
            ref = x if ref is None else ref
            same[d] &= bool(np.array_equal(x, ref))
            print(f"round {r}: {d} cold {walls[d][-1]:.1f} s, trajectory identical: {np.array_equal(x, ref)}", flush=True)
    run("baseline", sigs, str(tmp / "warm"), tmp / "cache")
    warm = run("baseline", sigs, str(tmp / "warm"), tmp / "cache", cold=False)
    rows = ["| design | cold wall per round [s] | mean [s] | extra over warm [s] | trajectory bit-identical |",
            "|---|---|---|---|---|"]
    for d in args.designs:
        w = walls[d]
        rows.append(f"| {d} | {', '.join(f'{v:.1f}' for v in w)} | {np.mean(w):.1f} | {np.mean(w) - warm:.1f} | {same[d]} |")
    text = (f"# First-run JIT cost of `porthamiltonian {' '.join(JOB[:2])}` by compile design\n\n"
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, `python benchmarks/jit_boundary.py`, "
            f"{os.cpu_count()} cores (shared), warm baseline {warm:.1f} s. Designs: module docstring.\n\n"
            + "\n".join(rows) + "\n")
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["_record"]:
        record_signatures(sys.argv[2])
    elif sys.argv[1:2] == ["_child"]:
        child(*sys.argv[2:5])
    else:
        main()
