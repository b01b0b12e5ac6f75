"""`porthamiltonian.kernels.algebra`: the generated right-hand side's array algebra against the
numpy expressions the Python right-hand side evaluates (`porthamiltonian.compile.codegen`),
called through their symbols from a compiled function with contiguous arrays and with views
(one declared version each, `separate` converting the layouts).

The kernels sum in their own order, numpy's ``@`` in BLAS's: results agree within a few units
of round-off of the largest term (bound: 8 n eps max|terms| for an n-term sum)."""

import numpy as np
import pytest

from porthamiltonian.kernels import algebra
from porthamiltonian.kernels._njit import njit, separate

EPS = np.finfo(float).eps
_mv, _mva, _mm, _mtv, _mtm = (separate(algebra.mv), separate(algebra.mv_add), separate(algebra.mm),
                              separate(algebra.mtv), separate(algebra.mtm))
_fin, _bl, _blr, _srow = (separate(algebra.all_finite), separate(algebra.blend), separate(algebra.blend_rows),
                          separate(algebra.stabilized_row))
_rpow, _dpow, _solve, _red = (separate(algebra.residual_power), separate(algebra.difference_power),
                              separate(algebra.solve), separate(algebra.reduceat))
_cat, _catr, _sc, _asc, _scr, _ascr, _mat = (separate(algebra.join), separate(algebra.join_rows),
                                             separate(algebra.scaled), separate(algebra.add_scaled),
                                             separate(algebra.scaled_rows), separate(algebra.add_scaled_rows),
                                             separate(algebra.matrix))
_putr = separate(algebra.put_rows)


@njit(cache=False)
def _products(A, v, b, B, C, W):
    """Each product on contiguous operands and on column views (layout A) of `W`."""
    V = W[:, 1:4]
    return (_mv(A, v), _mva(A, v, b), _mm(A, B), _mtv(A, b), _mtm(A, C),
            _mv(V, v[:3]), _mtv(V, b), _mtm(V, W[:, 0:2]), _mm(V.T, W[:, 0:2]))


def _close(got, want, n):
    scale = max(np.abs(want).max(), 1.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=8 * n * EPS * scale)


def test_products_equal_numpy_on_contiguous_arrays_and_views():
    rng = np.random.default_rng(3)
    A, v, b = rng.standard_normal((3, 12)), rng.standard_normal(12), rng.standard_normal(3)
    B, C, W = rng.standard_normal((12, 26)), rng.standard_normal((3, 26)), rng.standard_normal((3, 6))
    got = _products(A, v, b, B, C, W)
    V = W[:, 1:4]
    want = (A @ v, A @ v + b, A @ B, A.T @ b, A.T @ C, V @ v[:3], V.T @ b, V.T @ W[:, 0:2], V.T @ W[:, 0:2])
    for g, w in zip(got, want):
        assert g.shape == w.shape
        _close(g, w, 12)


@njit(cache=False)
def _rows(a, row, lam, R, S, cd, c, g, kc, kg, J, F, D):
    return (_bl(a, row, lam), _blr(a, R, S), _srow(cd, c, g, kc, kg), _rpow(lam, c, J, F), _dpow(lam, D, J, F),
            _fin(row), _fin(R))


def test_rows_blends_and_powers_equal_the_python_expressions():
    rng = np.random.default_rng(4)
    a = np.array([1.0, 0.0, 1.0])
    row, lam, cd, c = (rng.standard_normal(3) for _ in range(4))
    g = np.array([0.3, np.nan, -np.inf])
    R, S = rng.standard_normal((3, 26)), np.eye(26)[:3]
    J, D, F = rng.standard_normal((3, 12)), rng.standard_normal((3, 12)), rng.standard_normal(12)
    got = _rows(a, row, lam, R, S, cd, c, g, 2.0, 0.25, J, F, D)
    np.testing.assert_array_equal(got[0], a * row + (1.0 - a) * lam)   # one product and sum per entry: exact
    np.testing.assert_array_equal(got[1], a[:, None] * R + (1.0 - a)[:, None] * S)
    np.testing.assert_array_equal(got[2], cd + 2.0 * c + 0.25 * np.nan_to_num(g))
    _close(got[3], lam @ (c - J @ F), 16)
    _close(got[4], lam @ ((D - J) @ F), 16)
    assert got[5] and got[6]


def test_a_gap_term_of_weight_zero_is_not_read():
    """Without Baumgarte's gap term the row does not read the gaps (a constraint without gaps
    hands its NaN placeholder)."""
    cd, c = np.array([1.0, 2.0]), np.array([0.5, -0.5])
    got = _rows(np.ones(2), cd, c, np.ones((2, 2)), np.ones((2, 2)), cd, c, np.full(2, np.nan), 3.0, 0.0,
                np.ones((2, 2)), np.ones(2), np.ones((2, 2)))[2]
    np.testing.assert_array_equal(got, cd + 3.0 * c)


@njit(cache=False)
def _joins_and_sums(a, b, A, B, W, F):
    """Each on contiguous operands and on views (a column of `W`, a block of its columns)."""
    V = W[:, 1:3]
    return (_cat(a, b), _cat(W[:, 0], a), _catr(A, B), _catr(V, A[:, :2]), _sc(-2.5, a), _asc(a, -1.0, b[1:]),
            _asc(W[:, 0], 3.0, b[:3]), _scr(0.5, A), _ascr(A, -1.0, B), _ascr(V, 2.0, A[:, :2]), _mat(F, 2, 3, 4))


def test_joins_sums_and_packed_matrices_equal_numpy():
    """A copy, or one product and one sum per entry, as numpy computes them: exact."""
    rng = np.random.default_rng(6)
    a, b, A, B, W = (rng.standard_normal(4), rng.standard_normal(5), rng.standard_normal((3, 2)),
                     rng.standard_normal((3, 2)), rng.standard_normal((3, 3)))
    F = rng.standard_normal(20)
    got = _joins_and_sums(a, b, A, B, W, F)
    V = W[:, 1:3]
    want = (np.concatenate((a, b)), np.concatenate((W[:, 0], a)), np.concatenate((A, B), axis=0),
            np.concatenate((V, A[:, :2]), axis=0), -2.5 * a, a + -1.0 * b[1:],
            W[:, 0] + 3.0 * b[:3], 0.5 * A, A + -1.0 * B, V + 2.0 * A[:, :2], F[2:14].reshape(3, 4))
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, k
        np.testing.assert_array_equal(g, w)
    stacked = np.full((7, 2), np.nan)
    _stack(stacked, A, W[:, 1:3], W[:1, :2])
    np.testing.assert_array_equal(stacked, np.concatenate((A, W[:, 1:3], W[:1, :2]), axis=0))


@njit(cache=False)
def _stack(out, A, B, C):
    _putr(out, 0, A)
    _putr(out, 3, B)
    _putr(out, 6, C)


@njit(cache=False)
def _checks(v, M):
    return _fin(v), _fin(M), _fin(M[:, 1:])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_all_finite_finds_one_bad_entry_anywhere(bad):
    v, M = np.ones(5), np.ones((3, 4))
    assert _checks(v, M) == (True, True, True)
    for k in range(5):
        w = v.copy()
        w[k] = bad
        assert not _checks(w, M)[0]
    for i, j in np.ndindex(3, 4):
        N = M.copy()
        N[i, j] = bad
        assert _checks(v, N)[1] is False
        assert _checks(v, N)[2] is (j == 0)


@njit(cache=False)
def _solves(A, b, values, starts):
    return _solve(A, b), _red(values, starts)


def test_solve_is_lu_then_minimum_norm_least_squares_and_reduceat_is_numpys():
    rng = np.random.default_rng(5)
    A, b = rng.standard_normal((4, 4)), rng.standard_normal(4)
    values, starts = rng.standard_normal(9), np.array([0, 2, 3, 7])
    x, r = _solves(A, b, values, starts)
    np.testing.assert_allclose(A @ x, b, rtol=0, atol=1e3 * EPS * np.abs(b).max())
    np.testing.assert_allclose(r, np.add.reduceat(values, starts), rtol=0, atol=16 * EPS * np.abs(values).max())
    # two equal rows: singular; a consistent right side gets the minimum-norm solution
    S = A.copy()
    S[1] = S[0]
    c = S @ rng.standard_normal(4)
    x, _ = _solves(S, c, values, starts)
    np.testing.assert_allclose(x, np.linalg.lstsq(S, c, rcond=None)[0], rtol=0, atol=1e-12)


def test_each_kernel_has_one_version_for_both_layouts():
    """The calls above passed contiguous arrays and views: `separate` took the declared
    any-layout version for both (a second version would be a second compile per model)."""
    _products(np.ones((3, 12)), np.ones(12), np.ones(3), np.ones((12, 26)), np.ones((3, 26)), np.ones((3, 6)))
    for k in (algebra.mv, algebra.mtv, algebra.mtm, algebra.mm):
        assert len(k.signatures) == 1, (k, k.signatures)
    assert len(algebra.all_finite.signatures) <= 2   # one per number of dimensions
