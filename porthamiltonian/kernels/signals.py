"""Compiled signals of time: the periodic cubic spline of a joint reference.

A periodic cubic spline of period T through n samples has n intervals of length h = T / n;
on interval i (t in [i h, (i + 1) h)), with s = t - i h,

    p(s) = c0 s^3 + c1 s^2 + c2 s + c3,   p'(s) = 3 c0 s^2 + 2 c1 s + c2,
    p''(s) = 6 c0 s + 2 c1,                p'''(s) = 6 c0,

the coefficients of `scipy.interpolate.CubicSpline` (``c[m, i, j]``, highest degree first),
computed once when the reference is built. Time is wrapped into [0, T) by the floored
remainder (negative times too); a time at which round-off puts the index at n is read on the
last interval (s = h there: the value at T, equal to the value at 0 by periodicity).

Packed layout of a signal kernel (`Kernel` ``F, I``)::

    F = [T, c[0, 0, 0], c[0, 0, 1], ..., c[3, n-1, k-1]]      (1 + 4 n k floats)
    I = [n, k, nu]                                             (nu: derivative order)

`spline_value` returns the order-nu derivative (shape (k,)) and `spline_rate` the order
nu + 1, the "value" and "value_rate" kernels of a source (`porthamiltonian.bondgraph.elements`)
whose signal is a `porthamiltonian.library.controllers.ReferenceSignal`.
"""

from __future__ import annotations

import math

import numpy as np

from ._njit import njit

__all__ = ["spline_at", "spline_series", "spline_value", "spline_rate", "pack"]


@njit
def spline_at(t, F, n, k, nu, out):
    """Write the order-`nu` derivative (0..3) of the packed spline `F` at time `t` [s] into
    `out`, shape (k,). Orders above 3 are zero."""
    period = F[0]
    h = period / n
    tau = t - math.floor(t / period) * period
    i = int(tau / h)
    if i >= n:
        i = n - 1
    elif i < 0:
        i = 0
    s = tau - i * h
    nk = n * k
    for j in range(k):
        b = 1 + i * k + j
        c0 = F[b]
        c1 = F[b + nk]
        c2 = F[b + 2 * nk]
        c3 = F[b + 3 * nk]
        if nu == 0:
            out[j] = ((c0 * s + c1) * s + c2) * s + c3
        elif nu == 1:
            out[j] = (3.0 * c0 * s + 2.0 * c1) * s + c2
        elif nu == 2:
            out[j] = 6.0 * c0 * s + 2.0 * c1
        elif nu == 3:
            out[j] = 6.0 * c0
        else:
            out[j] = 0.0


@njit
def spline_series(ts, F, n, k, nu):
    """The order-`nu` derivative at each time of `ts` (shape (m,)) [s]: shape (m, k)."""
    out = np.empty((ts.shape[0], k))
    for r in range(ts.shape[0]):
        spline_at(ts[r], F, n, k, nu, out[r])
    return out


@njit
def spline_value(t, F, I):
    """A source's "value" kernel: the order-``I[2]`` derivative at `t`, shape (``I[1]``,)."""
    out = np.empty(I[1])
    spline_at(t, F, I[0], I[1], I[2], out)
    return out


@njit
def spline_rate(t, F, I):
    """A source's "value_rate" kernel: the order-``I[2] + 1`` derivative at `t`."""
    out = np.empty(I[1])
    spline_at(t, F, I[0], I[1], I[2] + 1, out)
    return out


def pack(period, coefficients):
    """``F`` of a spline: ``[period, coefficients.ravel()]``.

    Parameters
    ----------
    period : float [s]
    coefficients : ndarray, shape (4, n, k)
        ``CubicSpline.c`` (highest degree first) of a spline with n equal intervals on [0, T].
    """
    c = np.ascontiguousarray(coefficients, dtype=float)
    return np.concatenate(([float(period)], c.ravel()))
