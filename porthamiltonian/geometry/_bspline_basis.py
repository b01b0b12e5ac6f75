"""B-spline basis functions and their derivatives (Piegl & Tiller, The NURBS Book, A2.1, A2.3).

Construction-time helpers: they build the local power form evaluated by `porthamiltonian.kernels.surfaces`.
"""

from __future__ import annotations

import numpy as np


def find_span(knots: np.ndarray, degree: int, x: float) -> int:
    """Index ``i`` with ``knots[i] <= x < knots[i+1]`` inside the domain
    ``[knots[p], knots[n]]`` (``n = len(knots) - p - 1``), the last nonempty span at the
    upper end (Piegl & Tiller A2.1)."""
    n = len(knots) - degree - 1
    if x >= knots[n]:
        i = n - 1
        while knots[i] == knots[i + 1]:
            i -= 1
        return i
    i = int(np.searchsorted(knots, x, side="right")) - 1
    return max(i, degree)


def basis_derivatives(knots: np.ndarray, degree: int, span: int, x: float, n: int) -> np.ndarray:
    """Derivatives of the nonzero basis functions at `x` (Piegl & Tiller A2.3).

    Parameters
    ----------
    knots : ndarray, shape (m,)
    degree : int
        ``p``.
    span : int
        From `find_span`.
    x : float
    n : int
        Highest derivative order (orders above `degree` are zero).

    Returns
    -------
    ders : ndarray, shape (n+1, p+1)
        ``ders[k, j] = d^k N_{span-p+j, p} / dx^k (x)``.
    """
    p = degree
    ndu = np.zeros((p + 1, p + 1))
    left = np.zeros(p + 1)
    right = np.zeros(p + 1)
    ndu[0, 0] = 1.0
    for j in range(1, p + 1):
        left[j] = x - knots[span + 1 - j]
        right[j] = knots[span + j] - x
        saved = 0.0
        for r in range(j):
            ndu[j, r] = right[r + 1] + left[j - r]
            temp = ndu[r, j - 1] / ndu[j, r]
            ndu[r, j] = saved + right[r + 1] * temp
            saved = left[j - r] * temp
        ndu[j, j] = saved
    ders = np.zeros((n + 1, p + 1))
    ders[0] = ndu[:, p]
    a = np.zeros((2, p + 1))
    for r in range(p + 1):
        s1, s2 = 0, 1
        a[0, 0] = 1.0
        for k in range(1, min(n, p) + 1):
            d = 0.0
            rk, pk = r - k, p - k
            if r >= k:
                a[s2, 0] = a[s1, 0] / ndu[pk + 1, rk]
                d = a[s2, 0] * ndu[rk, pk]
            j1 = 1 if rk >= -1 else -rk
            j2 = k - 1 if r - 1 <= pk else p - r
            for j in range(j1, j2 + 1):
                a[s2, j] = (a[s1, j] - a[s1, j - 1]) / ndu[pk + 1, rk + j]
                d += a[s2, j] * ndu[rk + j, pk]
            if r <= pk:
                a[s2, k] = -a[s1, k - 1] / ndu[pk + 1, r]
                d += a[s2, k] * ndu[r, pk]
            ders[k, r] = d
            s1, s2 = s2, s1
    fac = float(p)
    for k in range(1, min(n, p) + 1):
        ders[k] *= fac
        fac *= p - k
    return ders
