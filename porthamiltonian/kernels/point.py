"""Compiled Gauss-map contact kinematics in radius-of-curvature form: a smooth surface S1
against a body S2 given by its contact point and its radius-of-curvature tensor, of which a
point (a walker's point foot: radius 0) is the case ``M2 = 0``.

Why this form (issue 36, point feet): `porthamiltonian.kernels.contact.kinematics` takes S2's
shape operator ``L2`` (curvatures, ``1/r`` for a sphere of radius r) from its derivative array,
which a point does not have (``f_u = f_v = 0``: no tangent plane, ``L2`` infinite). Multiplying
the contact equations of docs/math.md sec. 5 by S2's radius-of-curvature tensor
``M2 = L2^+`` (the inverse of ``L2`` on the tangent plane; ``r (I - n2 n2^T)`` for a sphere)
gives equations that hold for every ``M2 >= 0`` and are regular at ``M2 = 0``; for a point the
contact frame then takes its normal from S1 alone (``n2 = -R^T n1``), and the point's contact
point is the point itself (``dp2/dt = 0``). For ``r > 0`` they are the sphere's equations, so
the point is the limit ``r -> 0`` of the sphere, linearly in r
(`tests/kernels/test_point_kernels.py`).
"""

from __future__ import annotations

import math

import numpy as np

from . import closest as _kc
from . import lie as _lie
from . import surfaces as _s
from ._njit import njit

#: the ``shape`` code (``I[5]``) of a packed point (`pack`): not a surface kind's
#: (`porthamiltonian.kernels.surfaces.SHAPE_*`), so no closed form or evaluation takes it
SHAPE_POINT = 99


def pack(center):
    """``(F, I)`` of a point (`porthamiltonian.geometry.Point`) for the contact kernels: the
    packed domain of its two placeholder parameters (kind ``CALLBACK``: `surfaces.derivatives`
    is never called on it; one unbounded chart, no singular set), ``I[5] = SHAPE_POINT``, and
    the point [m] in ``F[-3:]`` (`center_of`). Not a kernel; called once per contact."""
    from ..geometry.domain import ParameterDomain

    F, I = _s.pack_domains([ParameterDomain((-np.inf, -np.inf), (np.inf, np.inf))], [(1.0, 1.0)], 0.0)
    I[5] = SHAPE_POINT
    return np.concatenate((F, np.asarray(center, dtype=float))), I


@njit(inline="always")
def is_point(I):
    """Whether ``(F, I)`` packs a point (`pack`)."""
    return I[0] == _s.CALLBACK and I[5] == SHAPE_POINT


@njit(inline="always")
def center_of(F):
    """The point of a packed point, shape (3,) [m]."""
    return F[F.shape[0] - 3 :].copy()


@njit(inline="always")
def is_point_array(D2):
    """Whether a derivative array is a point's (`porthamiltonian.kernels.contact_pair.
    point_pair_state`: ``D2[0, 0]`` the point, no tangent vectors: ``f_u = f_v = 0``, which no
    regular point of a surface has)."""
    for k in range(3):
        if D2[1, 0][k] != 0.0 or D2[0, 1][k] != 0.0:
            return False
    return True


@njit
def kinematics(D1, p2, M2, R, d, T):
    """Contact kinematics of S1 against S2 given by its contact point and radii of curvature.

    Parameters
    ----------
    D1 : ndarray, shape (3, 3, 3)
        Order-2 derivatives of S1 at its contact point (the foot of the normal through S2's).
    p2 : ndarray, shape (3,) [m]
        S2's contact point, frame 2 (a point foot: the point).
    M2 : ndarray, shape (3, 3) [m]
        S2's radius-of-curvature tensor at `p2`, frame 2: ``dp2 = M2 dn2`` for the motion of
        the contact point along S2, symmetric, zero along ``n2``. Zero for a point;
        ``r (I - n2 n2^T)`` for a sphere of radius r; the inverse of the shape operator on
        the tangent plane for any convex surface.
    R : ndarray, shape (3, 3)
    d : ndarray, shape (3,) [m]
        ``H_12``.
    T : ndarray, shape (6,)
        Relative twist ``(w, v)`` of S2 w.r.t. S1 in frame 1 [rad/s, m/s].

    Returns
    -------
    distance : float [m]
        ``n1 . (R p2 + d - p1)``, negative in penetration.
    distance_rate : float [m/s]
    p1_rate : ndarray, shape (3,) [m/s]
        Of S1's contact point, frame 1.
    p2_rate : ndarray, shape (3,) [m/s]
        Of S2's contact point, frame 2 (zero for a point).
    n2_rate : ndarray, shape (3,) [1/s]
        Of S2's contact normal ``n2 = -R^T n1``, frame 2.
    uv1_rate : ndarray, shape (2,) [param/s]
        Of S1's contact parameters.
    s_max, s_min : float [-]
        Singular values of the 2x2 matrix ``A`` below (``s_min = 0``: the foot of the normal
        is not unique, S2's point sits at a centre of curvature of S1; the rates are NaN).

    Notes
    -----
    With ``n1`` S1's unit normal, ``c2 = R p2 + d``, ``s = w x c2 + v`` (the velocity of the
    body-2 point at ``c2``), ``L1`` S1's shape operator and ``M = R M2 R^T``, the contact
    conditions ``c2 = p1 + Delta n1`` and ``n1 = -R n2`` differentiate to::

        s + R dp2/dt = (I + Delta L1) dp1/dt + dDelta/dt n1
        L1 dp1/dt    = w x n1 - R dn2/dt,        dp2/dt = M2 dn2/dt

    whose tangential part is, in the tangent basis ``E = (e1, e2)`` of
    `porthamiltonian.kernels.contact.kinematics` (``K1 = E^T L1 E``, ``N = E^T M E``)::

        A y1 = E^T s + N E^T (w x n1),   A = I + Delta K1 + N K1
        dp1/dt = E y1,   R dn2/dt = w x n1 - E K1 y1,   R dp2/dt = M R dn2/dt
        dDelta/dt = n1 . s

    (``N`` times the equations of `contact.kinematics`, whose ``L2`` is ``M^-1`` on the
    tangent plane). For a point, ``N = 0``: ``(I + Delta K1) y1 = E^T s``, the foot of the
    normal through a moving point.
    """
    w = T[:3]
    v = T[3:]
    n1, a00, a01, a11 = _kc.weingarten(D1)
    f1u, f1v = D1[1, 0], D1[0, 1]
    c2 = _lie.mv(R, p2) + d
    distance = _lie.dot3(n1, c2 - D1[0, 0])
    lu = math.sqrt(_lie.dot3(f1u, f1u))
    e1 = f1u / lu
    e2 = _lie.cross3(n1, e1)
    p00, p10, p11 = _lie.dot3(f1u, e1), _lie.dot3(f1v, e1), _lie.dot3(f1v, e2)
    k1 = _kc._congruence(a00, a01, a11, p00, 0.0, p10, p11)
    Me1, Me2 = _lie.mv(R, _lie.mv(M2, _lie.mtv(R, e1))), _lie.mv(R, _lie.mv(M2, _lie.mtv(R, e2)))
    n00, n01, n11 = _lie.dot3(e1, Me1), 0.5 * (_lie.dot3(e1, Me2) + _lie.dot3(e2, Me1)), _lie.dot3(e2, Me2)
    s = _lie.cross3(w, c2) + v
    rate = _lie.dot3(n1, s)
    wn = _lie.cross3(w, n1)
    wn0, wn1 = _lie.dot3(e1, wn), _lie.dot3(e2, wn)
    m00 = 1.0 + distance * k1[0] + n00 * k1[0] + n01 * k1[1]
    m01 = distance * k1[1] + n00 * k1[1] + n01 * k1[2]
    m10 = distance * k1[1] + n01 * k1[0] + n11 * k1[1]
    m11 = 1.0 + distance * k1[2] + n01 * k1[1] + n11 * k1[2]
    fro2 = m00 * m00 + m01 * m01 + m10 * m10 + m11 * m11
    det = m00 * m11 - m01 * m10
    root = math.sqrt(max(fro2 * fro2 - 4.0 * det * det, 0.0))
    s_max = math.sqrt(0.5 * (fro2 + root))
    s_min = abs(det) / s_max if s_max > 0.0 else 0.0
    if not s_min > 0.0:
        nan3 = np.full(3, np.nan)
        return distance, rate, nan3, nan3, nan3, np.full(2, np.nan), s_max, s_min
    y0, y1 = _lie.solve2(m00, m01, m10, m11,
                         _lie.dot3(e1, s) + n00 * wn0 + n01 * wn1,
                         _lie.dot3(e2, s) + n01 * wn0 + n11 * wn1)
    dp1 = e1 * y0 + e2 * y1
    Rdn2 = wn - e1 * (k1[0] * y0 + k1[1] * y1) - e2 * (k1[1] * y0 + k1[2] * y1)
    dn2 = _lie.mtv(R, Rdn2)
    dp2 = _lie.mv(M2, dn2)
    uv1 = np.empty(2)
    uv1[0], uv1[1] = _lie.solve2(_lie.dot3(f1u, f1u), _lie.dot3(f1u, f1v), _lie.dot3(f1u, f1v), _lie.dot3(f1v, f1v),
                                 _lie.dot3(f1u, dp1), _lie.dot3(f1v, dp1))
    return distance, rate, dp1, dp2, dn2, uv1, s_max, s_min


#: Armijo constant and halvings of `project`'s line search (as `geometry.closest.project_point`)
_ARMIJO = 1e-4
_MAX_HALVINGS = 30
#: a Newton step moves the foot at most this fraction of the surface's scale
_STEP_FRACTION = 0.25


@njit(argtypes="f8[::1], i8[::1], f8[::1], f8, f8, i8, f8, f8, i8")
def project(F, I, c, u, v, chart, scale, tol, max_iter):
    """The foot on a packed surface of the normal through a point, warm-started: the compiled
    projection of a point foot (`porthamiltonian.geometry.closest.project_point`'s damped Newton,
    without its active set: a foot that reaches an edge of a bounded patch is reported, and the
    caller's Python path decides).

    Parameters
    ----------
    F, I : ndarray
        Packed surface (`porthamiltonian.kernels.surfaces`).
    c : ndarray, shape (3,) [m]
        The point, in the surface's frame.
    u, v : float
        Warm start, in `chart`.
    chart : int
    scale : float [m]
        Length scale of the step limit and of the tolerance.
    tol : float
        Tangential residual ``|f_a . (f - c)| / |f_a| <= tol * scale`` [m].
    max_iter : int

    Returns
    -------
    converged : bool
        The residual is met at a point strictly inside the domain (an edge is not converged).
    u, v : float
    chart : int
    D : ndarray, shape (3, 3, 3)
        Order-2 derivatives at ``(u, v)``.
    iterations : int

    Notes
    -----
    Minimizes ``0.5 |f(u, v) - c|^2``: gradient ``g_a = f_a . (f - c)``, Hessian ``f_a . f_b +
    f_ab . (f - c)``, shifted to positive definite where it is not (Levenberg-Marquardt),
    Armijo backtracking; the chart is re-chosen after each step (`surfaces.best_chart`).
    """
    D = _s.derivatives(F, I, u, v, 2, chart)
    for it in range(max_iter + 1):
        fu, fv = D[1, 0], D[0, 1]
        e = D[0, 0] - c
        g0, g1 = _lie.dot3(fu, e), _lie.dot3(fv, e)
        l0, l1 = math.sqrt(_lie.dot3(fu, fu)), math.sqrt(_lie.dot3(fv, fv))
        if not (l0 > 0.0 and l1 > 0.0):
            return False, u, v, chart, D, it
        if abs(g0) / l0 <= tol * scale and abs(g1) / l1 <= tol * scale:
            return True, u, v, chart, D, it
        if it == max_iter:
            break
        h00 = _lie.dot3(fu, fu) + _lie.dot3(D[2, 0], e)
        h01 = _lie.dot3(fu, fv) + _lie.dot3(D[1, 1], e)
        h11 = _lie.dot3(fv, fv) + _lie.dot3(D[0, 2], e)
        half, diff = 0.5 * (h00 + h11), 0.5 * (h00 - h11)
        lo = half - math.sqrt(diff * diff + h01 * h01)
        big = max(abs(h00), abs(h01), abs(h11), 1.0)
        if lo <= 1e-12 * big:
            shift = abs(lo) + 1e-6 * (abs(h00) + abs(h11)) + 1e-300
            h00 += shift
            h11 += shift
        s0, s1 = _lie.solve2(h00, h01, h01, h11, -g0, -g1)
        m = fu * s0 + fv * s1
        move = math.sqrt(_lie.dot3(m, m))
        lam = min(1.0, _STEP_FRACTION * scale / move) if move > 0.0 else 1.0
        phi0 = _lie.dot3(e, e)
        slope = g0 * s0 + g1 * s1
        accepted = False
        un, vn = u, v
        for _ in range(_MAX_HALVINGS):
            un, vn, clamped = _s.place(F, chart, u + lam * s0, v + lam * s1)
            if clamped:     # the foot reached an edge of a bounded patch
                return False, un, vn, chart, _s.derivatives(F, I, un, vn, 2, chart), it
            en = _s.derivatives(F, I, un, vn, 0, chart)[0, 0] - c
            if _lie.dot3(en, en) <= phi0 + 2.0 * _ARMIJO * lam * slope + 8.0 * 2.220446049250313e-16 * phi0:
                accepted = True
                break
            lam *= 0.5
        if not accepted:
            return False, u, v, chart, D, it
        chart, u, v = _s.best_chart(F, I, un, vn, chart)
        D = _s.derivatives(F, I, u, v, 2, chart)
    return False, u, v, chart, D, max_iter


@njit
def surface_kinematics(D1, D2, R, d, T):
    """`porthamiltonian.kernels.contact.kinematics`'s point branch: `kinematics` of S1 and a
    point (``D2[0, 0]``, a point's derivative array, `is_point_array`), in that function's
    return layout: ``(distance, distance_rate, p1_rate, p2_rate = 0, x_rate, s_max, s_min)``
    with ``x_rate = (du1, dv1, 0, 0)`` (the point's placeholder parameters do not move)."""
    distance, rate, dp1, dp2, _, uv1, s_max, s_min = kinematics(D1, D2[0, 0].copy(), np.zeros((3, 3)), R, d, T)
    x_rate = np.zeros(4)
    x_rate[0], x_rate[1] = uv1[0], uv1[1]
    return distance, rate, dp1, dp2, x_rate, s_max, s_min
