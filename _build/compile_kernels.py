"""Run by the build backend (`backend.py`) in a fresh interpreter: compile the contact-chain
kernels and the element kernels' prebuilt versions (``njit``'s ``prebuilt``) of the package
unpacked at ``sys.argv[1]`` into numba's cache (``NUMBA_CACHE_DIR``, set by the backend), as
``porthamiltonian warmup`` does for its first steps.

Only numpy, numba and the kernels are imported (and scipy's LAPACK, by numba, for
``np.linalg``): the build environment holds the build requirements, not the package's other
dependencies, so the package's ``__init__`` (which imports the model layer: networkx, sympy,
...) is not run; an empty module stands for
the package, whose ``__path__`` is the unpacked one. With ``--pass-over`` the kernels another
process is compiling are passed over first (two processes share the work through the
kernels' claims), then waited for.
"""

import sys
import types
from pathlib import Path


def main(argv):
    site, pass_over = Path(argv[0]).resolve(), "--pass-over" in argv[1:]
    package = types.ModuleType("porthamiltonian")
    package.__path__ = [str(site / "porthamiltonian")]
    sys.modules["porthamiltonian"] = package
    from porthamiltonian.kernels import _njit

    if not _njit.__file__.startswith(str(site)):
        raise RuntimeError(f"compiled {_njit.__file__}, not the package unpacked at {site}")
    if pass_over:
        _njit.compile_declared(skip_claimed=True)
        _njit.compile_prebuilt(skip_claimed=True)
    n, cached = _njit.compile_declared()
    m, m_cached = _njit.compile_prebuilt()
    print(f"{n} contact kernels ({cached} found cached), {m} element kernel versions ({m_cached} found cached)")


if __name__ == "__main__":
    main(sys.argv[1:])
