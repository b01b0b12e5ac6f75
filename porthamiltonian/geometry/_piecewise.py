"""Fast evaluation of tensor-product piecewise polynomials (and their rational quotients).

Bezier and B-spline surfaces are converted once, at construction, to a local Taylor
(power) form on every span pair, expanded about the span midpoints::

    F(u, v) = sum_{c, d} A[su, sv, c, d] t_u^c t_v^d,   t = (u - mid) / h  in [-1/2, 1/2]

so that one evaluation is a span lookup, two small monomial matrices and two matrix
products. Expanding about the midpoint (rather than an end) keeps the power form well
conditioned for the degrees used in practice. Rational surfaces carry homogeneous
coordinates ``(w x, w y, w z, w)``; `rational_quotient` turns their derivatives into the
derivatives of the projected surface.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

MAX_ORDER = 3

# MASKS[o][i, j] = 1 when i + j <= o
MASKS = tuple(np.add.outer(np.arange(o + 1), np.arange(o + 1))[:, :, None] <= o for o in range(4))
MASKS = tuple(m.astype(float) for m in MASKS)


@dataclass(frozen=True, eq=False)
class SpanAxis:
    """Precomputed span data of one parameter direction.

    Attributes
    ----------
    degree : int
    lower, upper : float
        Ends of the parameter domain.
    period : float
        ``upper - lower`` for a periodic direction, 0 otherwise.
    breaks : list of float
        Interior breakpoints; ``bisect_right(breaks, u)`` is the span index (parameters
        beyond the ends fall in the end spans: polynomial extrapolation).
    mid, hinv : tuple of float
        Span midpoints and inverse span lengths.
    scaled : tuple of ndarray
        ``scaled[o][s, i, c] = c! / (c - i)! h_s^-i`` (0 for ``c < i``), shape (n_spans, o+1, p+1).
    shift : tuple of ndarray
        ``shift[o][i, c] = c - i + 1`` for ``c >= i``, else 0: indices into
        ``(0, 1, t, t^2, ...)`` giving ``t^(c-i)``, shape (o+1, p+1).
    """

    degree: int
    lower: float
    upper: float
    period: float
    breaks: list
    mid: tuple
    hinv: tuple
    scaled: tuple
    shift: tuple


def make_axis(edges: np.ndarray, degree: int, periodic: bool) -> SpanAxis:
    """Span data for distinct increasing breakpoints `edges` (n_spans + 1 values)."""
    edges = np.asarray(edges, dtype=float)
    h = np.diff(edges)
    mid = 0.5 * (edges[:-1] + edges[1:])
    c = np.arange(degree + 1)
    scaled, shift = [], []
    for o in range(MAX_ORDER + 1):
        i = np.arange(o + 1)[:, None]
        falling = np.array([[math.perm(cc, ii) for cc in c] for ii in range(o + 1)], dtype=float)
        scaled.append(falling[None, :, :] * (1.0 / h)[:, None, None] ** i[None, :, :])
        shift.append(np.where(c[None, :] >= i, c[None, :] - i + 1, 0))
    period = float(edges[-1] - edges[0]) if periodic else 0.0
    return SpanAxis(degree, float(edges[0]), float(edges[-1]), period, edges[1:-1].tolist(),
                    tuple(mid.tolist()), tuple((1.0 / h).tolist()), tuple(scaled), tuple(shift))


def _monomials(axis: SpanAxis, s: int, x: float, order: int) -> np.ndarray:
    """``M[i, c] = d^i/dx^i t^c`` with ``t = (x - mid_s) / h_s``, shape (order+1, p+1)."""
    t = (x - axis.mid[s]) * axis.hinv[s]
    powers = [0.0, 1.0]
    for _ in range(axis.degree):
        powers.append(powers[-1] * t)
    return axis.scaled[order][s] * np.array(powers).take(axis.shift[order])


def tensor_derivatives(au: SpanAxis, av: SpanAxis, coeffs: np.ndarray, u: float, v: float,
                       order: int) -> np.ndarray:
    """Derivatives up to `order` of the piecewise polynomial, shape (order+1, order+1, dim).

    `coeffs` has shape (n_spans_u, n_spans_v, p+1, (q+1) * dim). Entries with
    ``i + j > order`` are left as computed (callers mask them). Periodic directions are
    wrapped; no other checks.
    """
    if au.period and not au.lower <= u < au.upper:
        u = au.lower + (u - au.lower) % au.period
    if av.period and not av.lower <= v < av.upper:
        v = av.lower + (v - av.lower) % av.period
    su = bisect_right(au.breaks, u)
    sv = bisect_right(av.breaks, v)
    T = (_monomials(au, su, u, order) @ coeffs[su, sv]).reshape(order + 1, av.degree + 1, -1)
    return _monomials(av, sv, v, order) @ T


def _quotient_tables(o: int):
    """Index and binomial coefficient arrays of the Leibniz rule
    ``S[k, l] = sum_{i<=k, j<=l} C(k, i) C(l, j) r[i, j] A[k-i, l-j]`` on the flat
    (o+1)^2 grid, with zero rows for ``k + l > o``."""
    n = o + 1
    idx = np.zeros((n * n, n * n), dtype=np.intp)
    coef = np.zeros((n * n, n * n))
    for k in range(n):
        for l in range(n):
            if k + l > o:
                continue
            for kk in range(k + 1):
                for ll in range(l + 1):
                    i, j = k - kk, l - ll
                    idx[k * n + l, kk * n + ll] = i * n + j
                    coef[k * n + l, kk * n + ll] = math.comb(k, i) * math.comb(l, j)
    return idx, coef


_QUOTIENT = tuple(_quotient_tables(o) for o in range(MAX_ORDER + 1))


def _reciprocal_derivatives(w, o: int) -> list:
    """Partials of ``r = 1/w`` up to total order `o` from those of ``w`` (nested lists),
    as a flat list on the (o+1)^2 grid (entries with ``i + j > o`` are 0).

    Faa di Bruno with ``g(w) = 1/w``: ``g' = -1/w^2``, ``g'' = 2/w^3``, ``g''' = -6/w^4``.
    """
    n = o + 1
    r = [0.0] * (n * n)
    r0 = 1.0 / w[0][0]
    r[0] = r0
    if o == 0:
        return r
    g1 = -r0 * r0
    w10, w01 = w[1][0], w[0][1]
    r[n] = g1 * w10
    r[1] = g1 * w01
    if o == 1:
        return r
    g2 = 2.0 * r0 * r0 * r0
    w20, w11, w02 = w[2][0], w[1][1], w[0][2]
    r[2 * n] = g2 * w10 * w10 + g1 * w20
    r[n + 1] = g2 * w10 * w01 + g1 * w11
    r[2] = g2 * w01 * w01 + g1 * w02
    if o == 2:
        return r
    g3 = -6.0 * r0 * r0 * r0 * r0
    w30, w21, w12, w03 = w[3][0], w[2][1], w[1][2], w[0][3]
    r[3 * n] = g3 * w10 ** 3 + 3.0 * g2 * w10 * w20 + g1 * w30
    r[2 * n + 1] = g3 * w10 * w10 * w01 + g2 * (w20 * w01 + 2.0 * w10 * w11) + g1 * w21
    r[n + 2] = g3 * w10 * w01 * w01 + g2 * (w02 * w10 + 2.0 * w01 * w11) + g1 * w12
    r[3] = g3 * w01 ** 3 + 3.0 * g2 * w01 * w02 + g1 * w03
    return r


def rational_quotient(H: np.ndarray, order: int) -> np.ndarray:
    """Derivatives of ``x / w`` from those of the homogeneous ``(x, w)``.

    Parameters
    ----------
    H : ndarray, shape (order+1, order+1, 4)
        Partials of ``(w x, w y, w z, w)``.
    order : int

    Returns
    -------
    D : ndarray, shape (order+1, order+1, 3)
        Partials of the rational surface, zero for ``i + j > order``.

    Notes
    -----
    Leibniz rule on ``S = A r`` with ``r = 1/w``; equivalent to the recursion of
    Piegl & Tiller, The NURBS Book, eq. (4.20) / algorithm A4.4, but as one matrix product.
    """
    n = order + 1
    r = _reciprocal_derivatives(H[:, :, 3].tolist(), order)
    idx, coef = _QUOTIENT[order]
    R = np.array(r).take(idx) * coef
    return (R @ H.reshape(n * n, 4)[:, :3]).reshape(n, n, 3)
