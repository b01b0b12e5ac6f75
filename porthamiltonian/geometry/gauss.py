"""Gauss map and curvature kernels: pure functions of a derivative array ``D``.

``D`` is the array returned by ``Surface.derivatives`` / ``Surface._derivatives``:
``D[i, j] = d^(i+j) f / du^i dv^j``, shape ``(k+1, k+1, 3)`` for derivative order ``k``.
These kernels do not validate (they are on the contact hot path); at a singular point
(``f_u x f_v = 0``) they divide by zero. ``Surface`` methods check regularity first.

Sign conventions (docs/math.md sec. 4)::

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

from ..kernels import closest as _kclosest

__all__ = [
    "PrincipalCurvatures",
    "unit_normal",
    "normal_derivatives",
    "first_fundamental_form",
    "second_fundamental_form",
    "shape_operator",
    "principal_curvatures",
]

_ZERO = (0.0, 0.0, 0.0)


# Small-vector algebra on Python floats: for 3-vectors this is several times faster than
# numpy calls, and these kernels run inside ODE right-hand sides.
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _lin2(a, x, b, y):
    return (a * x[0] + b * y[0], a * x[1] + b * y[1], a * x[2] + b * y[2])


def _lin3(a, x, b, y, c, z):
    return (a * x[0] + b * y[0] + c * z[0], a * x[1] + b * y[1] + c * z[1],
            a * x[2] + b * y[2] + c * z[2])


def _lin4(a, x, b, y, c, z, d, w):
    return (a * x[0] + b * y[0] + c * z[0] + d * w[0], a * x[1] + b * y[1] + c * z[1] + d * w[1],
            a * x[2] + b * y[2] + c * z[2] + d * w[2])


def _normal_floats(fu, fv):
    m = _cross(fu, fv)
    s = math.sqrt(_dot(m, m))
    return (m[0] / s, m[1] / s, m[2] / s), m, s


def _weingarten(D):
    """Unit normal, tangents, second fundamental form ``(e, f, g)`` and ``B = I^-1 II I^-1``
    (so that ``L = F^T B F``) of a derivative array of order >= 2, as floats; ``B`` and the
    normal come from `porthamiltonian.kernels.closest.weingarten`."""
    D = np.ascontiguousarray(D, dtype=float)
    n, b00, b01, b11 = _kclosest.weingarten(D)
    n = n.tolist()
    fu, fv = D[1, 0].tolist(), D[0, 1].tolist()
    e, f, g = -_dot(n, D[2, 0]), -_dot(n, D[1, 1]), -_dot(n, D[0, 2])
    return n, fu, fv, (e, f, g), (b00, b01, b11)


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
    n, _, _ = _normal_floats(D[1, 0].tolist(), D[0, 1].tolist())
    return np.array(n)


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
    product rule for the cross product::

        m_u  = f_uu x f_v + f_u x f_uv              m_v  = f_uv x f_v + f_u x f_vv
        m_uu = f_uuu x f_v + 2 f_uu x f_uv + f_u x f_uuv
        m_uv = f_uuv x f_v + f_uu x f_vv + f_u x f_uvv        (f_uv x f_uv = 0)
        m_vv = f_uvv x f_v + 2 f_uv x f_vv + f_u x f_vvv
    """
    Dl = D.tolist()
    fu, fv = Dl[1][0], Dl[0][1]
    n, _, s = _normal_floats(fu, fv)
    if order == 0:
        return np.array(n).reshape(1, 1, 3)
    fuu, fuv, fvv = Dl[2][0], Dl[1][1], Dl[0][2]
    mu = _lin2(1.0, _cross(fuu, fv), 1.0, _cross(fu, fuv))
    mv = _lin2(1.0, _cross(fuv, fv), 1.0, _cross(fu, fvv))
    au, av = _dot(n, mu), _dot(n, mv)
    r = 1.0 / s
    nu = _lin2(r, mu, -au * r, n)
    nv = _lin2(r, mv, -av * r, n)
    if order == 1:
        return np.array(((n, nv), (nu, _ZERO)))
    fuuu, fuuv, fuvv, fvvv = Dl[3][0], Dl[2][1], Dl[1][2], Dl[0][3]
    muu = _lin3(1.0, _cross(fuuu, fv), 2.0, _cross(fuu, fuv), 1.0, _cross(fu, fuuv))
    muv = _lin3(1.0, _cross(fuuv, fv), 1.0, _cross(fuu, fvv), 1.0, _cross(fu, fuvv))
    mvv = _lin3(1.0, _cross(fuvv, fv), 2.0, _cross(fuv, fvv), 1.0, _cross(fu, fvvv))
    # n_ij = (m_ij - n (n . m_ij + n_j . m_i) - n_j a_i - n_i a_j) / s
    nuu = _lin4(r, muu, -(_dot(n, muu) + _dot(nu, mu)) * r, n, -au * r, nu, -au * r, nu)
    nuv = _lin4(r, muv, -(_dot(n, muv) + _dot(nv, mu)) * r, n, -au * r, nv, -av * r, nu)
    nvv = _lin4(r, mvv, -(_dot(n, mvv) + _dot(nv, mv)) * r, n, -av * r, nv, -av * r, nv)
    return np.array(((n, nv, nvv), (nu, nuv, _ZERO), (nuu, _ZERO, _ZERO)))


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
    fu, fv = D[1, 0].tolist(), D[0, 1].tolist()
    F = _dot(fu, fv)
    return np.array(((_dot(fu, fu), F), (F, _dot(fv, fv))))


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
    _, _, _, (e, f, g), _ = _weingarten(D)
    return np.array(((e, f), (f, g)))


def shape_operator(D: np.ndarray) -> np.ndarray:
    """Shape operator ``L`` (3x3) with ``dn = L dp`` for tangent ``dp`` (docs/math.md sec. 4).

    Parameters
    ----------
    D : ndarray, shape (k+1, k+1, 3), k >= 2

    Returns
    -------
    L : ndarray, shape (3, 3)
        Symmetric, ``L n = 0`` [1/m]; ``L = I/r`` on the tangent plane of a sphere of radius r.

    Notes
    -----
    docs/math.md writes ``L = N_u (F^T F)^-1 F^T`` with ``N_u = [n_u n_v]``. By Weingarten,
    ``N_u = F I^-1 II`` (``n_a`` is tangent and ``f_b . n_a = II_ab``), hence::

        L = F I^-1 II I^-1 F^T

    which needs only second derivatives of f and is symmetric (to round-off).
    """
    _, fu, fv, _, (b00, b01, b11) = _weingarten(D)
    # L = F^T B F = sum_ab B_ab f_a f_b^T, row k = p_k f_u^T + q_k f_v^T
    p = [b00 * fu[k] + b01 * fv[k] for k in range(3)]
    q = [b01 * fu[k] + b11 * fv[k] for k in range(3)]
    return np.array([[p[k] * fu[l] + q[k] * fv[l] for l in range(3)] for k in range(3)])


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
    n, fu, fv, _, (b00, b01, b11) = _weingarten(D)
    lu = math.sqrt(_dot(fu, fu))
    e1 = (fu[0] / lu, fu[1] / lu, fu[2] / lu)
    e2 = _cross(n, e1)
    # coordinates of e1, e2 through F: x_a = (f_u . e_a, f_v . e_a); S_ab = x_a^T B x_b
    x1 = (lu, _dot(fv, e1))
    x2 = (0.0, _dot(fv, e2))

    def quad(x, y):
        return b00 * x[0] * y[0] + b01 * (x[0] * y[1] + x[1] * y[0]) + b11 * x[1] * y[1]

    s11, s12, s22 = quad(x1, x1), quad(x1, x2), quad(x2, x2)
    mean = 0.5 * (s11 + s22)
    root = math.hypot(0.5 * (s11 - s22), s12)
    theta = 0.5 * math.atan2(2.0 * s12, s11 - s22)
    c, s = math.cos(theta), math.sin(theta)
    d1 = np.array(_lin2(c, e1, s, e2))
    d2 = np.array(_lin2(-s, e1, c, e2))
    return PrincipalCurvatures(mean + root, mean - root, d1, d2)
