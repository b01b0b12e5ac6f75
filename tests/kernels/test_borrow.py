"""Borrowed views (porthamiltonian.kernels.borrow) and the generated code's use of them.

References: numpy's slice (the values and the memory a view must see), and the memory of the
generated function's arguments (what no array it returns may share: a borrowed view returned
to Python is an array that owns nothing, `np.shares_memory` finds it).
"""

import re

import numba
import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.compile import jit as _jit
from porthamiltonian.kernels import borrow
from porthamiltonian.models import build_model


@numba.njit
def _compiled_span(a, start, stop):
    v = borrow.span(a, start, stop)
    v[0] = -1   # a view: the write reaches `a`
    return v.copy(), v.shape[0]


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_a_borrowed_span_is_the_slice_as_a_view(dtype):
    a = np.arange(10, dtype=dtype)
    ref = a[3:7].copy()
    ref[0] = -1
    values, n = _compiled_span(a, 3, 7)
    np.testing.assert_array_equal(values, ref)   # integers and copies of them: exact
    assert n == 4 and a[3] == -1
    np.testing.assert_array_equal(borrow.span(a, 2, 5), a[2:5])   # from Python: the slice


def test_a_borrowed_span_returned_to_python_owns_nothing():
    """Why the generated code never returns one (the next tests): Python gets an array over the
    argument's memory that does not keep it alive."""
    a = np.arange(6.0)
    v = numba.njit(lambda a: borrow.span(a, 1, 4))(a)
    assert np.shares_memory(v, a) and not v.flags.owndata and v.base is None


@numba.njit
def _local_sums(x, n):
    """Sums of scratch arrays filled in a loop of `n` passes (a vector and a matrix on the stack)."""
    total = 0.0
    for k in range(n):
        a = borrow.local(5)
        M = borrow.local(2, 3)
        for i in range(5):
            a[i] = x[i] * (k + 1)
        for i in range(2):
            for j in range(3):
                M[i, j] = a[i] + a[j + 2]
        total += a.sum() + M.sum()
    return total, a.shape, M.shape


def test_a_local_array_holds_its_values_on_the_stack_and_allocates_nothing():
    """Brute force in Python (`local` is `numpy.empty` there) gives the same sums; a million
    passes reuse one stack slot (no growth, no crash), and numba's allocation counter sees no
    more allocations for 1000 passes than for none."""
    from numba.core.runtime import _nrt_python, rtsys

    x = np.array([0.5, -1.25, 2.0, 3.5, -0.75])
    ref = _local_sums.py_func(x, 7)
    got = _local_sums(x, 7)
    assert got[1:] == ref[1:] == ((5,), (2, 3))
    assert got[0] == pytest.approx(ref[0], rel=1e-15, abs=0.0)   # the same sums of a few terms
    _local_sums(x, 1_000_000)
    _nrt_python.memsys_enable_stats()
    try:
        counts = []
        for n in (0, 1000):   # 0 passes: what the call itself allocates (its argument's boxing)
            before = rtsys.get_allocation_stats().alloc
            _local_sums(x, n)
            counts.append(rtsys.get_allocation_stats().alloc - before)
    finally:
        _nrt_python.memsys_disable_stats()
    assert counts[1] == counts[0]


#: a main job, a robot on compliant feet, a rigid contact, a constrained top, the trotting Go1
MODELS = [("two-ellipsoids", {}), ("robot-drop", {}), ("rimless-wheel", {"contact": "sliding_plane"}),
          ("heavy-top", {}), ("quadruped-trot", {})]


@pytest.mark.parametrize("name, params", MODELS, ids=[n for n, _ in MODELS])
def test_generated_code_borrows_only_its_arguments_and_returns_nothing_borrowed(name, params):
    """Every borrowed slice in the source is of an argument of ``rhs`` (in an outlined helper,
    of a parameter every call binds to one), and every array the function returns is its own
    (held by numba's memory record: a borrowed view is boxed without one) and shares no memory
    with its arguments (the multipliers of one constraint are copied), at the initial state
    and a perturbed one."""
    model = build_model(name, **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    src = _jit.generate_jit(system._plan)[0]
    body = src.split("def rhs(")[1]
    assert set(re.findall(r"_bsp\((\w+),", body)) <= set(_jit.ARGUMENTS)
    for helper in re.findall(r"def (_h\d+)_\(", src):
        params_ = re.search(rf"def {helper}_\(([^)]*)\)", src).group(1).split(", ")
        hsrc = src.split(f"def {helper}_(")[1].split("\n\n\n")[0]
        for p in set(re.findall(r"_bsp\((\w+),", hsrc)):
            calls = re.findall(rf"\b{helper}\(([^\n]*)\)\n", body)
            assert calls and all(c.split(", ")[params_.index(p)] in _jit.ARGUMENTS for c in calls), (helper, p)
    assert system.compiled == "numba"
    j, u = system._jit, np.zeros(system.n_inputs)
    x0 = system.initial_state(model.initial)
    for x in (x0, x0 + 1e-3 * np.sin(np.arange(x0.size))):
        out = j["fn"](0.0, x, u, j["F"], j["I"])
        for value in (v for v in (out[0], *out[2:]) if v is not None):   # None: no multipliers
            assert value.base is not None, name
            for arg in (x, u, j["F"], j["I"]):
                assert not np.shares_memory(value, arg), name
