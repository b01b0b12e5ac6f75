"""Gauss map and curvature kernels: pure functions of a derivative array ``D``.

``D`` is the array returned by ``Surface.derivatives`` / ``Surface._derivatives``:
``D[i, j] = d^(i+j) f / du^i dv^j``, shape ``(k+1, k+1, 3)`` for derivative order ``k``.
These kernels do not validate (they are on the contact hot path); at a singular point
(``f_u x f_v = 0``) they divide by zero. ``Surface`` methods check regularity first.

Sign conventions (MATH.md sec. 2)::

              n = f_u x f_v / |f_u x f_v|      (outward, away from the material)
              ^
              |      dn = L dp  for tangent dp
       -------+-------  surface; a sphere of radius r has L = I/r (convex => L > 0)
      material side

The second fundamental form is taken with the matching sign, ``II_ab = n_a . f_b = -n . f_ab``,
so that it is positive definite on convex surfaces.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = [
    "PrincipalCurvatures",
    "unit_normal",
    "normal_derivatives",
    "first_fundamental_form",
    "second_fundamental_form",
    "shape_operator",
    "principal_curvatures",
]

_I1 = np.array([1, 2, 0])
_I2 = np.array([2, 0, 1])

# Pairs (a, b, coefficient, target) of m = f_u x f_v and its partials by the product rule:
#   m_u  = f_uu x f_v + f_u x f_uv              m_v  = f_uv x f_v + f_u x f_vv
#   m_uu = f_uuu x f_v + 2 f_uu x f_uv + f_u x f_uuv
#   m_uv = f_uuv x f_v + f_uu x f_vv + f_u x f_uvv        (f_uv x f_uv = 0)
#   m_vv = f_uvv x f_v + 2 f_uv x f_vv + f_u x f_vvv
# targets: 0 m, 1 m_u, 2 m_v, 3 m_uu, 4 m_uv, 5 m_vv
_CROSS_TERMS = (
    ((1, 0), (0, 1), 1.0, 0),
    ((2, 0), (0, 1), 1.0, 1), ((1, 0), (1, 1), 1.0, 1),
    ((1, 1), (0, 1), 1.0, 2), ((1, 0), (0, 2), 1.0, 2),
    ((3, 0), (0, 1), 1.0, 3), ((2, 0), (1, 1), 2.0, 3), ((1, 0), (2, 1), 1.0, 3),
    ((2, 1), (0, 1), 1.0, 4), ((2, 0), (0, 2), 1.0, 4), ((1, 0), (1, 2), 1.0, 4),
    ((1, 2), (0, 1), 1.0, 5), ((1, 1), (0, 2), 2.0, 5), ((1, 0), (0, 3), 1.0, 5),
)


def _cross_tables(size: int, order: int):
    """Index arrays into ``D.reshape(-1, 3)`` (``D`` of shape (size, size, 3)) and the
    coefficient matrix that sums the cross products into m and its partials up to `order`."""
    n_targets = (1, 3, 6)[order]
    terms = [t for t in _CROSS_TERMS if t[3] < n_targets]
    ia = np.array([a[0] * size + a[1] for a, _, _, _ in terms])
    ib = np.array([b[0] * size + b[1] for _, b, _, _ in terms])
    coef = np.zeros((n_targets, len(terms)))
    for col, (_, _, c, target) in enumerate(terms):
        coef[target, col] = c
    return ia, ib, coef


# keyed by (D.shape[0], normal order); D.shape[0] must be at least order + 2
_TABLES = {(size, order): _cross_tables(size, order)
           for size in range(1, 5) for order in range(3) if size >= order + 2}


class PrincipalCurvatures(NamedTuple):
    """Principal curvatures ``k1 >= k2`` [1/m] and unit principal directions (shape (3,)).

    ``(d1, d2, n)`` is a right-handed orthonormal frame; with the outward normal a convex
    point has ``k2 > 0``.
    """

    k1: float
    k2: float
    d1: np.ndarray
    d2: np.ndarray


def unit_normal(D: np.ndarray) -> np.ndarray:
    """Unit normal ``n = f_u x f_v / |f_u x f_v|`` from a derivative array.

    Parameters
    ----------
    D : ndarray, shape (k+1, k+1, 3), k >= 1
        Derivative array [m, m/param, ...].

    Returns
    -------
    n : ndarray, shape (3,)
        Unit normal (outward by the surface's orientation convention).
    """
    a0, a1, a2 = D[1, 0].tolist()
    b0, b1, b2 = D[0, 1].tolist()
    m0 = a1 * b2 - a2 * b1
    m1 = a2 * b0 - a0 * b2
    m2 = a0 * b1 - a1 * b0
    s = math.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
    return np.array((m0 / s, m1 / s, m2 / s))


def normal_derivatives(D: np.ndarray, order: int = 1) -> np.ndarray:
    """The unit normal and its partial derivatives up to `order` (0, 1 or 2).

    Parameters
    ----------
    D : ndarray, shape (k+1, k+1, 3), k >= order + 1
        Derivative array; order-2 normal derivatives need third derivatives of f.
    order : int
        Highest derivative order of n.

    Returns
    -------
    N : ndarray, shape (order+1, order+1, 3)
        ``N[i, j] = d^(i+j) n / du^i dv^j`` [1/param^(i+j)], zero for ``i + j > order``.

    Notes
    -----
    With ``m = f_u x f_v``, ``s = |m|``, ``n = m / s``, ``a_i = n . m_i`` (so ``s_i = a_i``)::

        n_i  = (m_i - n a_i) / s
        n_ij = (m_ij - n (n . m_ij) - n (n_j . m_i) - n_j a_i - n_i a_j) / s

    obtained by differentiating ``n s = m`` twice; the partials of ``m`` follow from the
    product rule for the cross product (``_CROSS_TERMS``).
    """
    ia, ib, coef = _TABLES[(D.shape[0], order)]
    flat = D.reshape(-1, 3)
    A = flat.take(ia, axis=0)
    B = flat.take(ib, axis=0)
    M = coef @ (A.take(_I1, axis=1) * B.take(_I2, axis=1) - A.take(_I2, axis=1) * B.take(_I1, axis=1))
    m = M[0]
    s = math.sqrt(m @ m)
    n = m / s
    N = np.zeros((order + 1, order + 1, 3))
    N[0, 0] = n
    if order == 0:
        return N
    Mi = M[1:3]                          # (2, 3): m_u, m_v
    a = Mi @ n                           # (2,)
    Ni = (Mi - a[:, None] * n) / s       # (2, 3): n_u, n_v
    N[1, 0] = Ni[0]
    N[0, 1] = Ni[1]
    if order == 1:
        return N
    Mij = M[(3, 4, 4, 5), :].reshape(2, 2, 3)
    b = Mij @ n                          # (2, 2): n . m_ij
    c = Mi @ Ni.T                        # (2, 2): c[i, j] = m_i . n_j
    Nij = (Mij - n * (b + c)[:, :, None]
           - a[:, None, None] * Ni[None, :, :] - Ni[:, None, :] * a[None, :, None]) / s
    N[2, 0] = Nij[0, 0]
    N[1, 1] = Nij[0, 1]
    N[0, 2] = Nij[1, 1]
    return N


def first_fundamental_form(D: np.ndarray) -> np.ndarray:
    """First fundamental form ``I = F^T F`` with ``F = [f_u f_v]``.

    Parameters
    ----------
    D : ndarray, shape (k+1, k+1, 3), k >= 1

    Returns
    -------
    I : ndarray, shape (2, 2)
        ``[[f_u.f_u, f_u.f_v], [f_v.f_u, f_v.f_v]]`` [m^2/param^2].
    """
    F = D.reshape(-1, 3).take((D.shape[0], 1), axis=0)
    return F @ F.T


def second_fundamental_form(D: np.ndarray) -> np.ndarray:
    """Second fundamental form ``II_ab = n_a . f_b = -n . f_ab`` (positive on convex surfaces).

    Parameters
    ----------
    D : ndarray, shape (k+1, k+1, 3), k >= 2

    Returns
    -------
    II : ndarray, shape (2, 2)
        Symmetric [m/param^2]; a sphere of radius r has ``II = I / r``.
    """
    n = unit_normal(D)
    e = -float(D[2, 0] @ n)
    f = -float(D[1, 1] @ n)
    g = -float(D[0, 2] @ n)
    return np.array(((e, f), (f, g)))


def shape_operator(D: np.ndarray) -> np.ndarray:
    """Shape operator ``L`` (3x3) with ``dn = L dp`` for tangent ``dp`` (MATH.md sec. 2).

    Parameters
    ----------
    D : ndarray, shape (k+1, k+1, 3), k >= 2

    Returns
    -------
    L : ndarray, shape (3, 3)
        Symmetric, ``L n = 0`` [1/m]; ``L = I/r`` on the tangent plane of a sphere of radius r.

    Notes
    -----
    MATH.md writes ``L = N_u (F^T F)^-1 F^T`` with ``N_u = [n_u n_v]``. By Weingarten,
    ``N_u = F I^-1 II`` (``n_a`` is tangent and ``f_b . n_a = II_ab``), hence::

        L = F I^-1 II I^-1 F^T

    which needs only second derivatives of f and is symmetric by construction.
    """
    F = D.reshape(-1, 3).take((D.shape[0], 1), axis=0)     # rows f_u, f_v
    E, Fm, G = float(F[0] @ F[0]), float(F[0] @ F[1]), float(F[1] @ F[1])
    det = E * G - Fm * Fm
    Iinv = np.array(((G, -Fm), (-Fm, E))) / det
    B = Iinv @ second_fundamental_form(D) @ Iinv
    return F.T @ B @ F


def principal_curvatures(D: np.ndarray) -> PrincipalCurvatures:
    """Principal curvatures and directions: eigenpairs of ``L`` on the tangent plane.

    Parameters
    ----------
    D : ndarray, shape (k+1, k+1, 3), k >= 2

    Returns
    -------
    PrincipalCurvatures
        ``k1 >= k2`` [1/m]; unit directions ``d1, d2`` (shape (3,)) with ``d2 = n x d1``.

    Notes
    -----
    In the orthonormal tangent basis ``e1 = f_u / |f_u|``, ``e2 = n x e1`` the operator is the
    symmetric 2x2 ``S = [e_a . L e_b]``; its eigenvectors are at angle
    ``theta = atan2(2 S12, S11 - S22) / 2`` from ``e1`` (``theta = 0`` at an umbilic).
    """
    L = shape_operator(D)
    n = unit_normal(D)
    fu = D[1, 0]
    e1 = fu / math.sqrt(fu @ fu)
    e2 = np.cross(n, e1)
    E = np.array((e1, e2))
    S = E @ L @ E.T
    s11, s12, s22 = float(S[0, 0]), 0.5 * float(S[0, 1] + S[1, 0]), float(S[1, 1])
    mean = 0.5 * (s11 + s22)
    root = math.hypot(0.5 * (s11 - s22), s12)
    theta = 0.5 * math.atan2(2.0 * s12, s11 - s22)
    c, s = math.cos(theta), math.sin(theta)
    return PrincipalCurvatures(mean + root, mean - root, c * e1 + s * e2, -s * e1 + c * e2)
