"""The decorator of every compiled kernel: numba's ``njit`` with the package's options.

Every kernel and every generated right-hand side is compiled with `OPTIONS`:

- ``cache=True``: machine code is kept on disk (beside the kernels, or under
  ``NUMBA_CACHE_DIR``), so a machine compiles each kernel once.
- ``error_model="numpy"``: a float division by zero gives ``inf``/``nan`` instead of raising
  ``ZeroDivisionError``. The kernels never rely on the exception: a non-finite rate is a
  status the caller answers by evaluating the Python path at the same state, which raises
  the element's own error. numba's Python error model wraps every division in a test and an
  exception block, which is compiled again in every caller the kernel is linked into.
- ``no_cfunc_wrapper=True``: numba otherwise builds, for every kernel, a C-callable wrapper
  used only when a function is passed as a first-class function value, which the package
  never does.

Together the last two take 2 to 5 s off the first run of the main job (`porthamiltonian
run two-ellipsoids` on empty caches) on the 2-core CI machine: 44.3 -> 39.5 s in one
measurement, 47-48 -> 44-46 s in runs interleaved with the commit before (2026-11-26, numba
0.68; `benchmarks/results/speed_after.md`). The saving is larger than the code they remove
because numba links a kernel's whole call tree into every function compiled above it and
optimizes and emits it again there, so everything a kernel carries is paid at every level of
the tree. The calling convention is unchanged (every kernel stays callable
from Python).
"""

import numba

__all__ = ["njit", "OPTIONS"]

#: numba options of every kernel and generated right-hand side (module docstring)
OPTIONS = {"cache": True, "error_model": "numpy", "no_cfunc_wrapper": True}


def njit(*args, **options):
    """``numba.njit`` with `OPTIONS` (``options`` add to or override them), used as
    ``@njit``, ``@njit(inline="always")`` or ``@njit("signature")``."""
    return numba.njit(*args, **{**OPTIONS, **options})
