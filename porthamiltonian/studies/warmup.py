"""Compiling ahead: `warmup` (``porthamiltonian warmup``) compiles the contact chain's kernels
and the right-hand side of every built-in model, in every contact kind it offers, into numba's
cache ahead of time: for CI images, clusters and Dask workers (which share ``NUMBA_CACHE_DIR``
and ``PORTHAMILTONIAN_CACHE`` with the process that warmed them). It prepares runs as the
command line does (`records.prepare`); the notice a first compile prints is
`porthamiltonian.compile.notice`.

``pip install .`` already compiles the contact chain (its first step) into the installed
package (``_build/backend.py``; `porthamiltonian.kernels._njit.KernelCache` reads it there):
after such an install, `warmup` loads those kernels and compiles the rest.
"""

from __future__ import annotations

import sys
import time

__all__ = ["warmup"]


def _variants(models):
    """(model name, contact kind or None) for every registered model in `models`, in every
    contact kind it builds (the others raise ParameterError at build and are passed over)."""
    from porthamiltonian.library.contacts import CONTACT_KINDS
    from porthamiltonian.models import MODELS

    for name in models:
        spec = MODELS[name]
        if "contact" not in spec.parameters:
            yield name, None
            continue
        kinds = [spec.parameters["contact"].default] + [k for k in CONTACT_KINDS if k != spec.parameters["contact"].default]
        for kind in kinds:
            yield name, kind


def warmup(models=None, *, out=None):
    """Compile every built-in kernel into numba's cache ahead of time.

    First the kernels' cache entries compiled against other kernel sources are deleted
    (`porthamiltonian.kernels._njit.prune_stale_cache`: never read, but kept on disk until
    overwritten; importing the package deletes nothing), then the contact chain's kernels
    (`porthamiltonian.kernels._parallel.DECLARED`, each for its declared argument types, under
    the claims other processes honour) and the element kernels' prebuilt versions (`porthamiltonian.
    kernels._parallel.PREBUILT`: those the main job calls), then, for each
    model of `models` in every contact kind it builds at its default parameters, its compiled
    right-hand side (`records.prepare`: the path of every run), which compiles the element
    kernels it calls for the argument types it calls them with. What is already in the cache
    is loaded, not compiled again, and reported as such.

    Parameters
    ----------
    models : sequence of str, optional
        Registered model names; None: every registered model; ``[]``: the contact chain only.
    out : file, optional
        Where each line of the report goes as it happens (default stdout).

    Returns
    -------
    list of dict
        One per item: ``what`` ("stale cache entries" when some were deleted, "contact
        kernels", "element kernel versions" or "MODEL (KIND)"), ``status``
        ("compiled", "cached", "python: <why>" for a model without a compiled right-hand side,
        or "refused: <why>" for a contact kind the model does not offer), ``seconds``.

    Raises
    ------
    ModelError
        An unknown model name (the nearest one suggested), before any compile.
    """
    from porthamiltonian.errors import ParameterError
    from porthamiltonian.models import MODELS, get_model

    from ..kernels import _njit, _parallel
    from .records import RunSpec, prepare, resolve_parameters

    out = out if out is not None else sys.stdout
    names = sorted(MODELS) if models is None else [get_model(m).name for m in models]
    _parallel.import_kernel_modules()
    report = []

    def tell(what, status, seconds):
        report.append({"what": what, "status": status, "seconds": seconds})
        print(f"{what:<40} {status:<22} {seconds:7.1f} s", file=out, flush=True)

    start = time.perf_counter()
    pruned = _njit.prune_stale_cache()
    if pruned:
        tell("stale cache entries", f"deleted ({pruned} files)", time.perf_counter() - start)
    n, cached = _njit.compile_declared()
    tell(f"contact kernels ({n})", "cached" if cached == n else f"compiled ({n - cached} of {n})",
         time.perf_counter() - start)
    t0 = time.perf_counter()
    n, cached = _njit.compile_prebuilt()
    tell(f"element kernel versions ({n})", "cached" if cached == n else f"compiled ({n - cached} of {n})",
         time.perf_counter() - t0)
    for name, kind in _variants(names):
        label = name if kind is None else f"{name} ({kind})"
        t0 = time.perf_counter()
        try:
            spec = RunSpec(name, resolve_parameters(name, {} if kind is None else {"contact": kind}))
            prepared = prepare(spec)
        except ParameterError as exc:
            if kind is not None and kind != MODELS[name].parameters["contact"].default:
                continue   # a contact kind this model does not offer
            tell(label, f"refused: {exc}", time.perf_counter() - t0)
            continue
        first = prepared.system._jit.get("first_compile")
        status = prepared.jit if prepared.jit != "numba" else ("compiled" if first else "cached")
        tell(label, status, time.perf_counter() - t0)
    print(f"{'warmup':<40} {'done':<22} {time.perf_counter() - start:7.1f} s", file=out, flush=True)
    return report
