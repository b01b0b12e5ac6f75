"""Independent references for the lie tests: 40-digit mpmath power series.

The Jacobians of exp are the series J_l(x) = sum_k ad(x)^k/(k+1)! and
J_r(x) = sum_k (-ad(x))^k/(k+1)!, with ad built here from the matrix commutator, so no
closed form or small-angle branch of the package is reused.
"""

import mpmath as mp
import numpy as np


def hat3(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def hat4(xi):
    X = np.zeros((4, 4))
    X[:3, :3] = hat3(xi[:3])
    X[:3, 3] = xi[3:]
    return X


def vee4(X):
    return np.array([X[2, 1], X[0, 2], X[1, 0], X[0, 3], X[1, 3], X[2, 3]])


def ad_from_bracket(xi):
    """ad(xi) whose columns are vee([hat(xi), hat(e_i)])."""
    X = hat4(xi)
    cols = []
    for i in range(6):
        E = hat4(np.eye(6)[i])
        cols.append(vee4(X @ E - E @ X))
    return np.array(cols).T


def _dexp_mp(A, sign):
    M = mp.matrix(A.tolist()) * sign
    term = mp.eye(M.rows)
    total = mp.eye(M.rows)
    k = 0
    while True:
        k += 1
        term = term * M / (k + 1)
        total += term
        if k > 5 and mp.mnorm(term, 1) < mp.mpf(10) ** -45:
            return total


def dexp_series(A, sign=1):
    """Return sum_k (sign A)^k/(k+1)! in 40-digit arithmetic, rounded to float."""
    with mp.workdps(40):
        return np.array(_dexp_mp(A, sign).tolist(), dtype=float)


def dexp_inverse_series(A, sign=1):
    """Return the inverse of `dexp_series(A, sign)`, inverted in 40-digit arithmetic."""
    with mp.workdps(40):
        return np.array(mp.inverse(_dexp_mp(A, sign)).tolist(), dtype=float)
