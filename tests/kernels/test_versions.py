"""`njit(versions=...)`: a small helper called with literal arguments or several array
layouts compiles one declared version, not one per literal value or layout (issue 36, "The
first run": `closest.row3` compiled 5 times in the main job, `lie.mm` twice)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.core.errors import TypingError

import porthamiltonian
from porthamiltonian.kernels._njit import njit


@njit(cache=False, versions=("f8[:], i8",))
def _pick(a, i):
    return a[i]


@njit(cache=False)
def _literal_calls(a):
    return _pick(a, 0) + 10.0 * _pick(a, 2) + 100.0 * _pick(a[::2], 1)


def test_literal_indices_and_layouts_share_one_version():
    """Three calls: two literal indices on a C array, one on a strided view (layout A)."""
    a = np.array([1.0, 2.0, 3.0])
    assert _literal_calls(a) == 1.0 + 10.0 * 3.0 + 100.0 * 3.0
    assert len(_pick.signatures) == 1


@njit(cache=False)
def _wrong_type(a):
    return _pick(a, 0)


def test_a_call_no_declared_version_takes_is_a_typing_error():
    with pytest.raises(TypingError):
        _wrong_type(np.array([1, 2, 3]))


_COLD = """
import numpy as np
from porthamiltonian.kernels import closest
D = np.random.default_rng(0).standard_normal((3, 3, 3))
closest.weingarten(D)
print(len(closest.row3.signatures))
"""


def test_the_derivative_rows_compile_once_in_a_cold_cache(tmp_path):
    """In a fresh process with an empty cache (a cached caller never types its callees), the
    curvature of a surface reads five rows of its derivative array with literal indices:
    one compiled version of `closest.row3` (five before)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", _COLD], cwd=Path(porthamiltonian.__file__).parent.parent, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]
