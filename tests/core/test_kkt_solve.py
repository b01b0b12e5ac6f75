"""The multipliers' linear solve (`compile.codegen._solve`, compiled: `compile.jit._solve`).

References: numpy's LU solve for a regular system; for redundant constraint rows (a
singular but consistent system) the minimum-norm least-squares solution (`np.linalg.lstsq`),
which the solve must return instead of LU's round-off-driven null-space component.
"""

import numpy as np
import pytest

from porthamiltonian.compile.codegen import SINGULAR_GROWTH, _solve
from porthamiltonian.kernels.algebra import solve as _solve_compiled

SOLVES = [_solve, _solve_compiled]


@pytest.mark.parametrize("solve", SOLVES, ids=["python", "numba"])
def test_regular_system_is_solved_by_lu(solve):
    rng = np.random.default_rng(3)
    A = rng.normal(size=(7, 7)) + 7 * np.eye(7)
    b = rng.normal(size=7)
    np.testing.assert_allclose(solve(A, b), np.linalg.solve(A, b), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("solve", SOLVES, ids=["python", "numba"])
def test_redundant_rows_give_the_minimum_norm_multipliers(solve):
    # two no-slip feet of a planar body: rows (n1, t1, n2, t2) on (vx, vz, w), the two
    # tangential rows equal up to round-off (the feet on one line), so A = J M^-1 J^T is
    # singular but LU meets a round-off pivot instead of a zero one
    J = np.array([[0.0, 1.0, 0.3], [1.0, 0.0, -0.9], [0.0, 1.0, -0.3], [1.0, 0.0, -0.9 * (1 + 4.4e-16)]])
    A = J @ np.diag([1.0, 1.0, 1.0 / 0.05]) @ J.T
    lam0 = np.array([0.4, -1.2, 2.0, 0.7])
    # the two feet's stabilization terms differ by their drift: b is consistent only up to it,
    # and LU's multipliers grow as drift / round-off
    b = A @ lam0 + 1e-4 * np.array([0.0, 1.0, 0.0, -1.0])
    lu = np.linalg.solve(A, b)
    assert np.abs(lu).max() * np.abs(A).max() > SINGULAR_GROWTH * np.abs(b).max()   # a huge null-space part
    lam = solve(A, b)
    np.testing.assert_allclose(lam, np.linalg.lstsq(A, b, rcond=None)[0], rtol=1e-9, atol=1e-12)
    # the constraint forces J^T lam are those of the consistent part, up to the drift
    np.testing.assert_allclose(J.T @ lam, J.T @ lam0, atol=1e-3)
