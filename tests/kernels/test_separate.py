"""`porthamiltonian.kernels._njit.separate`: kernels calling each other through their symbols,
compiled and loaded from numba's cache in fresh processes, in every order a cache is filled."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

KERNELS = textwrap.dedent('''
    import numpy as np
    from porthamiltonian.kernels._njit import njit, separate

    @njit
    def leaf(a, k):
        out = np.empty(a.shape[0])
        for i in range(a.shape[0]):
            out[i] = a[i] * k
        return out, a.sum() * k

    _leaf = separate(leaf)

    @njit
    def mid(a):
        r, s = _leaf(a, 2)          # a literal argument: leaf's int64 version
        return r + s

    @njit
    def top(a):
        return mid(a).sum() + 1.0   # a linked call of a kernel holding a symbol call

    @njit
    def fails(a):
        if a.shape[0] > 2:
            raise ValueError("too long")
        return a.sum()

    _fails = separate(fails)

    @njit
    def calls_failing(a):
        return _fails(a) + 1.0
''')


def _run(tmp_path, code):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.split()


def _expected(a):
    r = 2.0 * a + 2.0 * a.sum()
    return r, r.sum() + 1.0


@pytest.fixture
def kernels(tmp_path):
    (tmp_path / "separate_kernels.py").write_text(KERNELS)
    return tmp_path


def test_a_symbol_call_gives_the_linked_result(kernels):
    a = np.array([0.5, -1.25, 3.0])
    r, t = _expected(a)
    got = _run(kernels, f"""
        import numpy as np, separate_kernels as k
        a = np.array({a.tolist()})
        print(*k.mid(a).tolist(), k.top(a))
    """)
    assert [float(v) for v in got] == r.tolist() + [t]


def test_a_caller_built_on_a_cached_callee_loads_in_a_third_process(kernels):
    """The order that loses numba's hooks: `mid` compiled and cached alone, then `top` compiled
    on `mid` loaded from the cache (linking its symbol call), then `top` loaded from the cache
    in a fresh process, which must register `leaf`'s symbol before loading `top`'s code (an
    unregistered symbol aborts the process in LLVM's linker)."""
    a = np.array([1.0, 2.0, 4.0])
    r, t = _expected(a)
    code = """
        import numpy as np, separate_kernels as k
        a = np.array([1.0, 2.0, 4.0])
        print({call}, sum(k.{fn}.stats.cache_hits.values()))
    """
    assert _run(kernels, code.format(call="k.mid(a).sum()", fn="mid")) == [repr(float(r.sum())), "0"]
    assert _run(kernels, code.format(call="k.top(a)", fn="mid")) == [repr(float(t)), "1"]
    assert _run(kernels, code.format(call="k.top(a)", fn="top")) == [repr(float(t)), "1"]


def test_an_error_raised_by_the_callee_reaches_the_caller(kernels):
    got = _run(kernels, """
        import numpy as np, separate_kernels as k
        print(k.calls_failing(np.ones(2)))
        try:
            k.calls_failing(np.ones(3))
        except ValueError as exc:
            print(exc)
    """)
    assert got == ["3.0", "too", "long"]
