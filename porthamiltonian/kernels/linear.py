"""Compiled laws of the linear one-port storages and resistors (`C`, `I`, `R` with a matrix).

Packed layout (`Kernel` ``F, I``): ``F = M.ravel()`` (row-major, shape (n, n)), ``I = [n]``;
M is the storage's Q (H = 1/2 x.Q.x) or the resistor's resistance (impedance pattern).
The products are written out (no reshape: ``F`` arrives as a slice of the model's packed
constants, whose layout numba does not know to be contiguous).
"""

from __future__ import annotations

import numpy as np

from ._njit import njit

__all__ = ["matvec", "storage_outputs", "storage_rates", "resistor_law", "resistor_law_jacobian"]


@njit
def matvec(F, n, v):
    """``M @ v`` for the packed n x n matrix `F`: shape (n,)."""
    out = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += F[i * n + j] * v[j]
        out[i] = acc
    return out


@njit
def storage_outputs(t, x, refs, F, I):
    """A linear storage's port effort (C) or flow (I): ``(Q @ x,)``."""
    return (matvec(F, I[0], x),)


@njit
def storage_rates(t, x, refs, inputs, F, I):
    """A one-port storage's state rate: the port's input, ``inputs[0]`` (a copy)."""
    return inputs[0].copy()


@njit
def resistor_law(t, inputs, refs, F, I):
    """A linear resistor in impedance: ``(R @ f,)``."""
    return (matvec(F, I[0], inputs[0]),)


@njit
def resistor_law_jacobian(t, inputs, refs, F, I):
    """d(law)/d(input) of a linear resistor: R, shape (n, n)."""
    n = I[0]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = F[i * n + j]
    return out
