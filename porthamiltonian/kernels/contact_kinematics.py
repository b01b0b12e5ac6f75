"""Compiled Gauss-map contact kinematics: the rates of the contact points, the contact frame and
its rates, relative poses and twists, and the tracked parameters' rates.

Notation of docs/math.md sec. 5 (Duindam & Stramigioli, *Modeling the kinematics and dynamics of
compliant contact*, 2003): surfaces S1 (frame 1) and S2 (frame 2), ``H_12 =
(R, d)``; derivative arrays ``D[i, j] = d^(i+j) f / du^i dv^j`` of order 2 at the contact
parameters; relative twist ``T = (w, v)`` of S2 w.r.t. S1 in frame 1. The contact frame C
has ``z = n1``, ``x`` along the part of ``f1_u`` tangent to S1, and its origin on the average
tangent plane ``p1 + alpha Delta n1``.
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit, separate

from . import borrow as _borrow
from . import closest as _kc
from . import lie as _lie
from . import point as _kp
from . import surfaces as _s

#: tracked parameters closer than this [rad] to a singular set are re-expressed before use
SANE_MARGIN = 0.1
#: step of the central differences of a chart map's Jacobian [rad]
CHART_STEP = 1e-7


@njit
def normal_rates(D):
    """Unit normal ``n`` and its partials ``n_u``, ``n_v`` from an order >= 2 derivative array.

    ``n = m / |m|`` with ``m = f_u x f_v``; ``n_a = (m_a - (n . m_a) n) / |m|``.
    """
    m = _lie.cross3(D[1, 0], D[0, 1])
    s = math.sqrt(_lie.dot3(m, m))
    n = m / s
    mu = _lie.cross3(D[2, 0], D[0, 1]) + _lie.cross3(D[1, 0], D[1, 1])
    mv = _lie.cross3(D[1, 1], D[0, 1]) + _lie.cross3(D[1, 0], D[0, 2])
    return n, (mu - _lie.dot3(n, mu) * n) / s, (mv - _lie.dot3(n, mv) * n) / s


@njit
def kinematics(D1, D2, R, d, T):
    """Generalized contact kinematics (docs/math.md sec. 5, Duindam & Stramigioli 2003, eqs. 11-14).

    Parameters
    ----------
    D1, D2 : ndarray, shape (3, 3, 3)
        Order-2 derivatives of S1 and S2 at the contact parameters.
    R : ndarray, shape (3, 3)
    d : ndarray, shape (3,) [m]
        ``H_12``.
    T : ndarray, shape (6,)
        Relative twist ``(w, v)`` of S2 w.r.t. S1 in frame 1 [rad/s, m/s].

    Returns
    -------
    distance : float [m]
    distance_rate : float [m/s]
    p1_rate : ndarray, shape (3,) [m/s], frame 1
    p2_rate : ndarray, shape (3,) [m/s], frame 2
    x_rate : ndarray, shape (4,) [param/s]
    s_max, s_min : float [1/m]
        Singular values of the contact matrix ``M = K1 + K2 (I + Delta K1)`` (the caller
        decides whether it is too ill-conditioned).

    Notes
    -----
    In the orthonormal tangent basis ``E = (e1, e2)``, ``e1 = f1_u / |f1_u|``, ``e2 = n1 x e1``,
    with ``K1 = E^T L1 E``, ``K2 = E^T R L2 R^T E``, ``s = w x c2 + v`` (velocity of the body-2
    point at ``c2 = R p2 + d``)::

        M y1 = E^T (w x n1) + K2 E^T s,      y2 = (I + Delta K1) y1 - E^T s
        dp1/dt = E y1,   R dp2/dt = E y2,   dDelta/dt = n1 . s

    S2 a point (`porthamiltonian.geometry.Point`, whose derivative array has ``f2_u = f2_v =
    0``: `porthamiltonian.kernels.point.is_point_array`): `porthamiltonian.kernels.point.
    surface_kinematics`, the radius-of-curvature form with a zero radius (``K2`` infinite);
    ``x_rate[2:] = 0`` and ``p2_rate = 0``, ``s_max``, ``s_min`` those of ``I + Delta K1`` [-].
    """
    D1, D2, R, d, T = _borrow.record((D1, D2, R, d, T))   # uncounted: `kernels.borrow`
    if _kp.is_point_array(D2):
        return _kp.surface_kinematics(D1, D2, R, d, T)
    w = (T[0], T[1], T[2])
    v = (T[3], T[4], T[5])
    # 3-vectors as tuples (registers, no arrays: issue 33), the same operations as array formulas
    n1, a00, a01, a11 = _kc.tangent_form(D1)
    _, b00, b01, b11 = _kc.tangent_form(D2)
    f1u, f1v = _kc._t3(D1, 1, 0), _kc._t3(D1, 0, 1)
    f2u, f2v = _kc._t3(D2, 1, 0), _kc._t3(D2, 0, 1)
    p1 = _kc._t3(D1, 0, 0)
    c2 = _kc._add3(_kc._rt(R, _kc._t3(D2, 0, 0)), d)
    distance = _kc.dot3(n1, (c2[0] - p1[0], c2[1] - p1[1], c2[2] - p1[2]))
    lu = math.sqrt(_kc.dot3(f1u, f1u))
    e1 = (f1u[0] / lu, f1u[1] / lu, f1u[2] / lu)
    e2 = _kc.cross3(n1, e1)
    p00, p10, p11 = _kc.dot3(f1u, e1), _kc.dot3(f1v, e1), _kc.dot3(f1v, e2)
    Rf2u, Rf2v = _kc._rt(R, f2u), _kc._rt(R, f2v)
    g00, g01, g10, g11 = _kc.dot3(Rf2u, e1), _kc.dot3(Rf2u, e2), _kc.dot3(Rf2v, e1), _kc.dot3(Rf2v, e2)
    k1 = _kc._congruence(a00, a01, a11, p00, 0.0, p10, p11)
    k2 = _kc._congruence(b00, b01, b11, g00, g01, g10, g11)
    s = _kc._add3(_kc.cross3(w, c2), v)
    rate = _kc.dot3(n1, s)
    wn = _kc.cross3(w, n1)
    es0, es1 = _kc.dot3(e1, s), _kc.dot3(e2, s)
    A00, A01 = 1.0 + distance * k1[0], distance * k1[1]
    A10, A11 = distance * k1[1], 1.0 + distance * k1[2]
    m00 = k1[0] + k2[0] * A00 + k2[1] * A10
    m01 = k1[1] + k2[0] * A01 + k2[1] * A11
    m10 = k1[1] + k2[1] * A00 + k2[2] * A10
    m11 = k1[2] + k2[1] * A01 + k2[2] * A11
    fro2 = m00 * m00 + m01 * m01 + m10 * m10 + m11 * m11
    det = m00 * m11 - m01 * m10
    root = math.sqrt(max(fro2 * fro2 - 4.0 * det * det, 0.0))
    s_max = math.sqrt(0.5 * (fro2 + root))
    s_min = abs(det) / s_max if s_max > 0.0 else 0.0
    if not s_min > 0.0:    # conforming: no rates (the caller reports the condition number)
        nan3 = np.full(3, np.nan)
        return distance, rate, nan3, nan3, np.full(4, np.nan), s_max, s_min
    y10, y11 = _lie.solve2(m00, m01, m10, m11,
                           _lie.dot3(e1, wn) + k2[0] * es0 + k2[1] * es1,
                           _lie.dot3(e2, wn) + k2[1] * es0 + k2[2] * es1)
    y20 = A00 * y10 + A01 * y11 - es0
    y21 = A10 * y10 + A11 * y11 - es1
    dp1 = np.empty(3)
    for k in range(3):
        dp1[k] = e1[k] * y10 + e2[k] * y11
    t = (e1[0] * y20 + e2[0] * y21, e1[1] * y20 + e2[1] * y21, e1[2] * y20 + e2[2] * y21)
    dp2 = np.empty(3)
    for j in range(3):   # `porthamiltonian.kernels.lie.mtv`'s sums
        dp2[j] = 0.0 + R[0, j] * t[0] + R[1, j] * t[1] + R[2, j] * t[2]
    x_rate = np.empty(4)
    x_rate[0], x_rate[1] = _lie.solve2(_kc.dot3(f1u, f1u), _kc.dot3(f1u, f1v), _kc.dot3(f1u, f1v), _kc.dot3(f1v, f1v),
                                       p00 * y10, p10 * y10 + p11 * y11)
    x_rate[2], x_rate[3] = _lie.solve2(_kc.dot3(f2u, f2u), _kc.dot3(f2u, f2v), _kc.dot3(f2u, f2v), _kc.dot3(f2v, f2v),
                                       g00 * y20 + g01 * y21, g10 * y20 + g11 * y21)
    return distance, rate, dp1, dp2, x_rate, s_max, s_min


@njit
def frame(D1, n1, distance, alpha):
    """Contact frame ``H_1C`` (4x4) in frame 1: ``z = n1``, ``x`` the tangential part of
    ``f1_u`` normalized, origin ``p1 + alpha Delta n1``."""
    fu = (D1[1, 0, 0], D1[1, 0, 1], D1[1, 0, 2])
    c = _kc.dot3(fu, n1)
    t = (fu[0] - c * n1[0], fu[1] - c * n1[1], fu[2] - c * n1[2])
    norm = math.sqrt(_kc.dot3(t, t))
    ex = (t[0] / norm, t[1] / norm, t[2] / norm)
    ey = _kc.cross3(n1, ex)
    H = np.zeros((4, 4))
    for k in range(3):
        H[k, 0], H[k, 1], H[k, 2] = ex[k], ey[k], n1[k]
        H[k, 3] = D1[0, 0, k] + alpha * distance * n1[k]
    H[3, 3] = 1.0
    return H


@njit
def frame_rates(D1, D2, R, d, T, H_1C):
    """Rates of the contact frame's axes as the contact point moves, in frame 1.

    Returns
    -------
    x_rate : ndarray, shape (4,)
    s_max, s_min : float
        As `kinematics`.
    dn1, dex, dey : ndarray, shape (3,) [1/s]
        Rates of the normal and of the frame's x and y axes (``ex = t / |t|`` with ``t =
        f1_u - (f1_u . n1) n1``).
    """
    _, _, _, _, x_rate, s_max, s_min = kinematics(D1, D2, R, d, T)
    dn1, dex, dey = axes_rates(D1, x_rate[0], x_rate[1], H_1C)
    return x_rate, s_max, s_min, dn1, dex, dey


@njit
def axes_rates(D1, du, dv, H_1C):
    """Rates ``(dn1, dex, dey)`` of the contact frame's axes when the contact point moves on
    surface 1 at parameter rates ``(du, dv)`` (`frame_rates`)."""
    _, nu, nv = normal_rates(D1)
    dn1 = nu * du + nv * dv
    ex, n1 = H_1C[:3, 0].copy(), H_1C[:3, 2].copy()
    fu = D1[1, 0]
    dfu = D1[2, 0] * du + D1[1, 1] * dv
    fn = _lie.dot3(fu, n1)
    tv = fu - fn * n1
    dt = dfu - (_lie.dot3(dfu, n1) + _lie.dot3(fu, dn1)) * n1 - fn * dn1
    dex = (dt - _lie.dot3(ex, dt) * ex) / math.sqrt(_lie.dot3(tv, tv))
    dey = _lie.cross3(dn1, ex) + _lie.cross3(n1, dex)
    return dn1, dex, dey


@njit(inline="always")
def _cross_add(a, b, c, d):
    """``a x b + c x d`` of 3-tuples or 3-vectors, as a tuple."""
    return _kc._add3(_kc.cross3(a, b), _kc.cross3(c, d))


@njit
def frame_spin(D1, du, dv, H_1C):
    """Spin ``dex . ey`` [rad/s] of the contact frame about its normal when the contact point
    moves on surface 1 at parameter rates ``(du, dv)``: the ``dex`` of `axes_rates` (the same
    operations, in tuples: no array) read along the frame's y axis (`spring_rates`)."""
    m = _kc.cross3(_kc._t3(D1, 1, 0), _kc._t3(D1, 0, 1))
    sm = math.sqrt(_kc.dot3(m, m))
    n = (m[0] / sm, m[1] / sm, m[2] / sm)
    mu = _cross_add(_kc._t3(D1, 2, 0), _kc._t3(D1, 0, 1), _kc._t3(D1, 1, 0), _kc._t3(D1, 1, 1))
    mv = _cross_add(_kc._t3(D1, 1, 1), _kc._t3(D1, 0, 1), _kc._t3(D1, 1, 0), _kc._t3(D1, 0, 2))
    cu, cv = _kc.dot3(n, mu), _kc.dot3(n, mv)
    dn1 = ((mu[0] - cu * n[0]) / sm * du + (mv[0] - cv * n[0]) / sm * dv,
           (mu[1] - cu * n[1]) / sm * du + (mv[1] - cv * n[1]) / sm * dv,
           (mu[2] - cu * n[2]) / sm * du + (mv[2] - cv * n[2]) / sm * dv)
    ex = (H_1C[0, 0], H_1C[1, 0], H_1C[2, 0])
    n1 = (H_1C[0, 2], H_1C[1, 2], H_1C[2, 2])
    fu = _kc._t3(D1, 1, 0)
    dfu = (D1[2, 0, 0] * du + D1[1, 1, 0] * dv, D1[2, 0, 1] * du + D1[1, 1, 1] * dv,
           D1[2, 0, 2] * du + D1[1, 1, 2] * dv)
    fn = _kc.dot3(fu, n1)
    tv = (fu[0] - fn * n1[0], fu[1] - fn * n1[1], fu[2] - fn * n1[2])
    c = _kc.dot3(dfu, n1) + _kc.dot3(fu, dn1)
    dt = (dfu[0] - c * n1[0] - fn * dn1[0], dfu[1] - c * n1[1] - fn * dn1[1], dfu[2] - c * n1[2] - fn * dn1[2])
    ce = _kc.dot3(ex, dt)
    q = math.sqrt(_kc.dot3(tv, tv))
    return (H_1C[0, 1] * ((dt[0] - ce * ex[0]) / q) + H_1C[1, 1] * ((dt[1] - ce * ex[1]) / q)
            + H_1C[2, 1] * ((dt[2] - ce * ex[2]) / q))


@njit(inline="always")
def _row_product(G, k, T):
    """``(G @ T)[k]`` summed as `porthamiltonian.kernels.lie.mv` sums."""
    acc = 0.0
    for j in range(G.shape[1]):
        acc += G[k, j] * T[j]
    return acc


@njit(inline="always")
def rotation_translation(H):
    """``H[:3, :3]`` and ``H[:3, 3]`` of a 4x4 rigid motion, copied onto the stack of the caller
    (`kernels.borrow.local`; compiled into it, so valid until it returns: it must return
    neither): the hot path's ``R``, ``d`` without two arrays."""
    R = _borrow.local(3, 3)
    d = _borrow.local(3)
    for i in range(3):
        for j in range(3):
            R[i, j] = H[i, j]
        d[i] = H[i, 3]
    return R, d


@njit(inline="always")
def pair_pose(pose_a, pose_b, H_Wa, H_Wb, H_S1a, H_bS2):
    """`relative_pose` from the pose vectors of the moving bodies (shape (7,)), or, for a fixed
    body (an empty pose), its ``H_Wa`` / ``H_Wb``; the bodies' matrices on the stack of the
    caller (`kernels.borrow.local`)."""
    Ha = H_Wa
    if pose_a.shape[0] == 7:
        Ha = _borrow.local(4, 4)
        _lie.pose_to_matrix_into(pose_a, Ha)
    Hb = H_Wb
    if pose_b.shape[0] == 7:
        Hb = _borrow.local(4, 4)
        _lie.pose_to_matrix_into(pose_b, Hb)
    return relative_pose(H_S1a, H_bS2, Ha, Hb)


@njit
def relative_pose(H_S1a, H_bS2, Ha, Hb):
    """``H_12 = H_S1a inv(H_Wa) H_Wb H_bS2``: pose of surface 2's frame in surface 1's (the
    products of rigid motions through one scratch matrix on the stack, `kernels.borrow.local`:
    the culling test's cost)."""
    A = _borrow.local(4, 4)
    _lie.se3_inverse_into(Ha, A)
    B = np.empty((4, 4))
    _lie.rigid_mm_into(H_S1a, A, B)
    _lie.rigid_mm_into(B, Hb, A)
    _lie.rigid_mm_into(A, H_bS2, B)
    return B


@njit
def relative_twist(H_12, Ad_S2b, Ad_S1a, T_a, T_b):
    """Twist of S2 relative to S1 in frame 1 from the body twists (``Ad_S2b = Ad(H_S2b)``,
    ``Ad_S1a = Ad(H_S1a)``).

    ``Ad(H_12) (Ad_S2b T_b) - Ad_S1a T_a`` with the intermediates on the stack
    (`kernels.borrow.local`, `porthamiltonian.kernels.lie.mv_into`: the same sums, the same
    bits): one array, the result, where the products allocated five."""
    A, b, a = _borrow.local(6, 6), _borrow.local(6), _borrow.local(6)
    _lie.adjoint_into(H_12, A)
    _lie.mv_into(Ad_S2b, T_b, b)
    _lie.mv_into(Ad_S1a, T_a, a)
    out = np.empty(6)
    _lie.mv_into(A, b, out)
    for i in range(6):
        out[i] -= a[i]
    return out


@njit
def start_is_sane(F1, F2, x, c1, c2):
    """True when the tracked parameters lie inside their domains and at least `SANE_MARGIN`
    from the singular sets of their charts (else they are re-expressed first)."""
    for k in range(2):
        F = F1 if k == 0 else F2
        c = c1 if k == 0 else c2
        u, v = _s.wrap(F, c, x[2 * k], x[2 * k + 1])
        for i in range(2):
            y = u if i == 0 else v
            if F[1 + _s.DOMAIN_SIZE * c + 4 + i] == 0.0:
                lo, hi = F[1 + _s.DOMAIN_SIZE * c + i], F[1 + _s.DOMAIN_SIZE * c + 2 + i]
                if not (lo <= y <= hi):
                    return False
        if _s.distance_to_singular(F, c, u, v) < SANE_MARGIN:
            return False
    return True


@njit
def _chart_jacobian(F, I, u, v, src, dst):
    """Central-difference Jacobian (2x2) of the chart map ``src -> dst`` at ``(u, v)``."""
    J = np.eye(2)
    if src == dst:
        return J
    for i in range(2):
        du = CHART_STEP if i == 0 else 0.0
        dv = CHART_STEP if i == 1 else 0.0
        up, vp = _s.chart_map(F, I, u + du, v + dv, src, dst)
        um, vm = _s.chart_map(F, I, u - du, v - dv, src, dst)
        J[0, i] = (up - um) / (2.0 * CHART_STEP)
        J[1, i] = (vp - vm) / (2.0 * CHART_STEP)
    return J


@njit
def parameter_rates(F1, I1, F2, I2, x_exact, ce1, ce2, D1, D2, H_12, T12, params, c1, c2, relax):
    """d(params)/dt of tracked contact parameters (charts ``(c1, c2)``).

    The exact points (``x_exact`` in charts ``(ce1, ce2)``, derivatives ``D1``, ``D2``) are
    expressed in the tracked charts. Where they are regular there (at least `SANE_MARGIN`
    from the singular sets) the contact kinematics are evaluated in the tracked charts
    (reusing ``D1`` or ``D2`` where the charts agree, the usual case); otherwise (a solver stage
    that overshot toward a pole) in the exact charts, carried over by the chart maps'
    Jacobians. A relaxation toward the exact parameters at rate `relax` [1/s] is added
    (periodic differences taken the short way). Where the exact point lies in a patch of a
    network that does not neighbour the tracked one (no chart map), the rates are zero: the
    tracked parameters wait for their chart event.

    Returns
    -------
    rate : ndarray, shape (4,)
    s_max, s_min : float
        Singular values of the contact matrix of the kinematics used (`kinematics`).
    """
    R, d = rotation_translation(H_12)
    _, _, _, _, re, s_max, s_min = kinematics(D1, D2, R, d, T12)
    return _tracked_rates_by_symbol(F1, I1, F2, I2, x_exact, ce1, ce2, D1, D2, R, d, T12, re, s_max, s_min,
                                    params, c1, c2, relax)


@njit(argtypes=("f8[::1], i8[::1], f8[::1], i8[::1], f8[::1], i8, i8, f8[:, :, ::1], f8[:, :, ::1], "
              "f8[:, ::1], f8[::1], f8[::1], f8[::1], f8, f8, f8[::1], i8, i8, f8"))
def _tracked_rates(F1, I1, F2, I2, x_exact, ce1, ce2, D1, D2, R, d, T12, re, s_max, s_min, params, c1, c2,
                   relax):
    """`parameter_rates` given the kinematics of the exact points in their own charts
    (parameter rates ``re`` and the contact matrix's singular values)."""
    (x_exact, D1, D2, R, d, T12, re, params) = _borrow.record(
        (x_exact, D1, D2, R, d, T12, re, params))   # uncounted: `kernels.borrow`
    x = x_exact.copy()
    if ce1 != c1:
        x[0], x[1] = _s.chart_map(F1, I1, x_exact[0], x_exact[1], ce1, c1)
    if ce2 != c2:
        x[2], x[3] = _s.chart_map(F2, I2, x_exact[2], x_exact[3], ce2, c2)
    regular = (_s.distance_to_singular(F1, c1, x[0], x[1]) > SANE_MARGIN
               and _s.distance_to_singular(F2, c2, x[2], x[3]) > SANE_MARGIN)
    mapped = math.isfinite(x[0]) and math.isfinite(x[1]) and math.isfinite(x[2]) and math.isfinite(x[3])
    if (regular and ce1 == c1 and ce2 == c2) or not mapped:
        rate = re.copy()
    elif regular:
        # a surface evaluated in Python (kind CALLBACK) has one chart: its D is always reused
        D1t = D1 if ce1 == c1 else _s.derivatives(F1, I1, x[0], x[1], 2, c1)
        D2t = D2 if ce2 == c2 else _s.derivatives(F2, I2, x[2], x[3], 2, c2)
        _, _, _, _, rate, s_max, s_min = kinematics(D1t, D2t, R, d, T12)
    else:
        rate = np.empty(4)
        for k in range(2):
            F = F1 if k == 0 else F2
            I = I1 if k == 0 else I2
            J = _chart_jacobian(F, I, x_exact[2 * k], x_exact[2 * k + 1], ce1 if k == 0 else ce2,
                                c1 if k == 0 else c2)
            rate[2 * k] = J[0, 0] * re[2 * k] + J[0, 1] * re[2 * k + 1]
            rate[2 * k + 1] = J[1, 0] * re[2 * k] + J[1, 1] * re[2 * k + 1]
    for k in range(4):
        if not math.isfinite(x[k]):
            # a patch of a network that is not a neighbour of the tracked one (chart_map is NaN):
            # the tracked parameters wait for their chart event, which fires there
            rate[k] = 0.0
            continue
        c = c1 if k < 2 else c2
        F = F1 if k < 2 else F2
        diff = x[k] - params[k]
        i = k % 2
        if F[1 + _s.DOMAIN_SIZE * c + 4 + i] != 0.0:
            per = F[1 + _s.DOMAIN_SIZE * c + 2 + i] - F[1 + _s.DOMAIN_SIZE * c + i]
            diff = (diff + per / 2) % per - per / 2
        rate[k] += relax * diff
    return rate, s_max, s_min


#: `_tracked_rates` as `parameter_rates` and `spring_rates` call it: by symbol (`_njit.separate`)
_tracked_rates_by_symbol = separate(_tracked_rates)


@njit(argtypes=("f8[::1], i8[::1], f8[::1], i8[::1], f8[::1], i8, i8, f8[:, :, ::1], f8[:, :, ::1], "
              "f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[::1], "
              "f8[::1], f8[::1], f8[::1], i8, i8, f8, f8[::1], b1"))
def spring_rates(F1, I1, F2, I2, x_exact, ce1, ce2, D1, D2, H_12, H_1C, G_a, G_b, Ad_S2b, Ad_S1a, T_a, T_b,
                 slip, params, c1, c2, relax, s, active):
    """Rates of a compliant contact spring's own state (`library.compliant_contact`).

    Returns
    -------
    x_rate : ndarray, shape (4,)
        Tracked parameters (`parameter_rates`).
    s_rate : ndarray, shape (3,)
        Deformation ``(phi, s_x, s_y)``: spin and sliding of the relative twist in the
        contact frame, plus the slip, plus the rotation of the frame axes about the normal
        as the contact point moves over surface 1 (zero when not `active`).
    s_max, s_min : float
        Singular values of the contact matrix (the caller checks the conditioning).
    """
    (x_exact, D1, D2, H_12, H_1C, G_a, G_b, Ad_S2b, Ad_S1a, T_a, T_b, slip, params, s) = _borrow.record(
        (x_exact, D1, D2, H_12, H_1C, G_a, G_b, Ad_S2b, Ad_S1a, T_a, T_b, slip, params, s))   # uncounted: `kernels.borrow`
    T12 = relative_twist(H_12, Ad_S2b, Ad_S1a, T_a, T_b)
    R, d = rotation_translation(H_12)
    # the exact points' kinematics serve both the tracked rates and the frame's spin
    _, _, _, _, re, s_max, s_min = kinematics(D1, D2, R, d, T12)
    x_rate, s_max, s_min = _tracked_rates_by_symbol(F1, I1, F2, I2, x_exact, ce1, ce2, D1, D2, R, d, T12, re,
                                                    s_max, s_min, params, c1, c2, relax)
    s_rate = np.zeros(3)
    if active:
        spin = frame_spin(D1, re[0], re[1], H_1C)
        T_C2 = _row_product(G_b, 2, T_b) - _row_product(G_a, 2, T_a)
        T_C3 = _row_product(G_b, 3, T_b) - _row_product(G_a, 3, T_a)
        T_C4 = _row_product(G_b, 4, T_b) - _row_product(G_a, 4, T_a)
        s_rate[0] = T_C2 + slip[0]
        s_rate[1] = T_C3 + slip[1] + spin * s[2]
        s_rate[2] = T_C4 + slip[2] - spin * s[1]
    return x_rate, s_rate, s_max, s_min


@njit
def sliding_plane_bias(D1, D2, H_12, H_1C, Ad_S2b, Ad_S1a, T_a, T_b, alpha, rows):
    """Acceleration bias of the sliding-plane constraint rows (Tasora & Righettini, *Sliding
    contact between freeform surfaces*, 2003).

    Row ``k`` of the constraint is ``-(T_C)_k = -(r_k . s_O)`` for the contact-frame axis
    ``r_k`` (k = 3: x, 4: y, 5: the normal) and the velocity ``s_O = w x O + v`` of the body-2
    point at the frame origin ``O`` (relative twist ``(w, v)`` in frame 1). Its derivative
    without the accelerations is::

        bias_k = -(dr_k . s_O + r_k . (dw_b x O + w x dO + dv_b))

    with ``dO = dp1 + alpha (dDelta n1 + Delta dn1)`` (the origin moves with the contact
    point), the axis rates of `axes_rates`, and ``dw_b = -(w1 x w)``, ``dv_b = -(w1 x v +
    v1 x w)`` from the rotation of frame 1 (twist ``(w1, v1)`` of surface 1).

    Returns
    -------
    bias : ndarray, shape (len(rows),)
    s_max, s_min : float
        Singular values of the contact matrix (`kinematics`).
    """
    R = H_12[:3, :3].copy()
    d = H_12[:3, 3].copy()
    T_S1 = _lie.mv(Ad_S1a, T_a)
    T12 = relative_twist(H_12, Ad_S2b, Ad_S1a, T_a, T_b)
    w, v = T12[:3], T12[3:]
    w1, v1 = T_S1[:3], T_S1[3:]
    distance, rate, dp1, _, x_rate, s_max, s_min = kinematics(D1, D2, R, d, T12)
    bias = np.zeros(rows.shape[0])
    if not s_min > 0.0:
        return bias, s_max, s_min
    dn1, dex, dey = axes_rates(D1, x_rate[0], x_rate[1], H_1C)
    n1 = H_1C[:3, 2].copy()
    O = H_1C[:3, 3].copy()
    dO = dp1 + alpha * (rate * n1 + distance * dn1)
    s_O = _lie.cross3(w, O) + v
    dw_b = -_lie.cross3(w1, w)
    dv_b = -(_lie.cross3(w1, v) + _lie.cross3(v1, w))
    common = _lie.cross3(dw_b, O) + _lie.cross3(w, dO) + dv_b
    for i in range(rows.shape[0]):
        k = rows[i]
        dr = dn1 if k == 5 else (dex if k == 3 else dey)
        r = H_1C[:3, k - 3].copy()
        bias[i] = -(_lie.dot3(dr, s_O) + _lie.dot3(r, common))
    return bias, s_max, s_min
