"""Derivative tables of separable surfaces ``f(u, v) = phi(u)^T C psi(v)`` (per component).

For bases closed under differentiation, ``phi' = Q_u phi`` (e.g. ``phi = (cos u, sin u, 1)``),
every partial is again separable::

    d^(i+j) f / du^i dv^j = phi^T (Q_u^i)^T C Q_v^j psi

so one evaluation of all partials is a single matrix-vector product with
``kron(phi(u), psi(v))``: no branching, one array built per call.
"""

from __future__ import annotations

import numpy as np

# d/dx of (cos x, sin x, 1) = (-sin x, cos x, 0): Q[a, b] = coefficient of basis b in phi_a'
TRIG = np.array(((0.0, -1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
# d/dx of (x, 1) = (1, 0)
LINEAR = np.array(((0.0, 1.0), (0.0, 0.0)))


def derivative_tables(C: np.ndarray, Qu: np.ndarray, Qv: np.ndarray, max_order: int = 3) -> tuple:
    """Tables ``A[o]`` of shape ((o+1)^2 * 3, n_phi * n_psi), one per order ``o``.

    ``A[o] @ kron(phi(u), psi(v))`` reshaped to (o+1, o+1, 3) is the derivative array, with
    zero rows for ``i + j > o``. ``C`` has shape (n_phi, n_psi, 3).
    """
    tables = []
    for o in range(max_order + 1):
        n = o + 1
        A = np.zeros((n, n, 3, C.shape[0] * C.shape[1]))
        for i in range(n):
            for j in range(n - i):
                Ci = np.einsum("ab,bck->ack", np.linalg.matrix_power(Qu, i).T, C)
                Cij = np.einsum("ack,cd->adk", Ci, np.linalg.matrix_power(Qv, j))
                A[i, j] = Cij.reshape(-1, 3).T
        tables.append(A.reshape(n * n * 3, -1))
    return tuple(tables)
