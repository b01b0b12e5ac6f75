"""Compiled Gauss-map contact kinematics, contact frame and its rates, and the per-evaluation
contact geometry of a pair of bodies.

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

from . import closest as _kc
from . import hertz as _kh
from . import lie as _lie
from . import surfaces as _s

#: the Newton search, called by symbol (`_njit.separate`): compiled once, not again in the pair state
_newton = separate(_kc.newton)
#: the closed forms, called by symbol (`_njit.separate`)
_closed_form = separate(_kc.closed_form)

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
def _solve2(m00, m01, m10, m11, b0, b1):
    det = m00 * m11 - m01 * m10
    return (m11 * b0 - m01 * b1) / det, (m00 * b1 - m10 * b0) / det


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
    """
    w = T[:3]
    v = T[3:]
    n1, a00, a01, a11 = _kc.weingarten(D1)
    _, b00, b01, b11 = _kc.weingarten(D2)
    f1u, f1v = D1[1, 0], D1[0, 1]
    f2u, f2v = D2[1, 0], D2[0, 1]
    c2 = _lie.mv(R, D2[0, 0]) + d
    distance = _lie.dot3(n1, c2 - D1[0, 0])
    lu = math.sqrt(_lie.dot3(f1u, f1u))
    e1 = f1u / lu
    e2 = _lie.cross3(n1, e1)
    p00, p10, p11 = _lie.dot3(f1u, e1), _lie.dot3(f1v, e1), _lie.dot3(f1v, e2)
    Rf2u, Rf2v = _lie.mv(R, f2u), _lie.mv(R, f2v)
    g00, g01, g10, g11 = _lie.dot3(Rf2u, e1), _lie.dot3(Rf2u, e2), _lie.dot3(Rf2v, e1), _lie.dot3(Rf2v, e2)
    k1 = _kc._congruence(a00, a01, a11, p00, 0.0, p10, p11)
    k2 = _kc._congruence(b00, b01, b11, g00, g01, g10, g11)
    s = _lie.cross3(w, c2) + v
    rate = _lie.dot3(n1, s)
    wn = _lie.cross3(w, n1)
    es0, es1 = _lie.dot3(e1, s), _lie.dot3(e2, s)
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
    y10, y11 = _solve2(m00, m01, m10, m11,
                       _lie.dot3(e1, wn) + k2[0] * es0 + k2[1] * es1,
                       _lie.dot3(e2, wn) + k2[1] * es0 + k2[2] * es1)
    y20 = A00 * y10 + A01 * y11 - es0
    y21 = A10 * y10 + A11 * y11 - es1
    dp1 = e1 * y10 + e2 * y11
    dp2 = _lie.mtv(R, e1 * y20 + e2 * y21)
    x_rate = np.empty(4)
    x_rate[0], x_rate[1] = _solve2(_lie.dot3(f1u, f1u), _lie.dot3(f1u, f1v), _lie.dot3(f1u, f1v), _lie.dot3(f1v, f1v),
                                   p00 * y10, p10 * y10 + p11 * y11)
    x_rate[2], x_rate[3] = _solve2(_lie.dot3(f2u, f2u), _lie.dot3(f2u, f2v), _lie.dot3(f2u, f2v), _lie.dot3(f2v, f2v),
                                   g00 * y20 + g01 * y21, g10 * y20 + g11 * y21)
    return distance, rate, dp1, dp2, x_rate, s_max, s_min


@njit
def frame(D1, n1, distance, alpha):
    """Contact frame ``H_1C`` (4x4) in frame 1: ``z = n1``, ``x`` the tangential part of
    ``f1_u`` normalized, origin ``p1 + alpha Delta n1``."""
    fu = D1[1, 0]
    ex = fu - _lie.dot3(fu, n1) * n1
    ex = ex / math.sqrt(_lie.dot3(ex, ex))
    ey = _lie.cross3(n1, ex)
    H = np.zeros((4, 4))
    for k in range(3):
        H[k, 0], H[k, 1], H[k, 2] = ex[k], ey[k], n1[k]
        H[k, 3] = D1[0, 0][k] + alpha * distance * n1[k]
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


@njit
def relative_pose(H_S1a, H_bS2, Ha, Hb):
    """``H_12 = H_S1a inv(H_Wa) H_Wb H_bS2``: pose of surface 2's frame in surface 1's (the
    products of rigid motions in two arrays: the culling test's cost)."""
    A = _lie.se3_inverse(Ha)
    B = np.empty((4, 4))
    _lie.rigid_mm_into(H_S1a, A, B)
    _lie.rigid_mm_into(B, Hb, A)
    _lie.rigid_mm_into(A, H_bS2, B)
    return B


@njit
def relative_twist(H_12, Ad_S2b, Ad_S1a, T_a, T_b):
    """Twist of S2 relative to S1 in frame 1 from the body twists (``Ad_S2b = Ad(H_S2b)``,
    ``Ad_S1a = Ad(H_S1a)``)."""
    return _lie.mv(_lie.adjoint(H_12), _lie.mv(Ad_S2b, T_b)) - _lie.mv(Ad_S1a, T_a)


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


@njit(argtypes=("f8[::1], i8[::1], f8[::1], i8[::1], f8[:, ::1], f8[::1], i8, i8, f8, f8, i8, f8, "
              "f8[:, ::1], f8[:, ::1], f8"))
def pair_state(F1, I1, F2, I2, H_12, x0, c1, c2, scale, tol, max_iter, alpha, H_S1a, H_bS2, reg_tol):
    """Exact contact points from a warm start (or a closed form,
    `porthamiltonian.kernels.closest.closed_form`), and the contact frame and twist maps.

    Parameters
    ----------
    F1, I1, F2, I2 : ndarray
        Packed surfaces.
    H_12 : ndarray, shape (4, 4)
    x0 : ndarray, shape (4,)
        Warm start in charts ``(c1, c2)`` (moved to the best charts first).
    scale, tol, max_iter :
        As `porthamiltonian.kernels.closest.newton`.
    alpha : float
        Position of the contact frame between the surfaces (0 on S1, 1 on S2).
    H_S1a, H_bS2 : ndarray, shape (4, 4)
        Body a in surface 1's frame, surface 2 in body b's frame.
    reg_tol : float
        Regularity tolerance.

    Returns
    -------
    ok : bool
        Converged to a valid pair with a positive curvature margin.
    x : ndarray, shape (4,), c1, c2 : int, iterations : int
    D1, D2 : ndarray, shape (3, 3, 3)
    n1, n2 : ndarray, shape (3,)
    distance, margin, gap, ang : float
    H_1C : ndarray, shape (4, 4)
    G_a, G_b : ndarray, shape (6, 6)
        ``T_C = G_b T_b - G_a T_a``; ``G_a = Ad(H_C1 H_S1a)``, ``G_b = Ad(H_C1 H_12 H_S2b)``.
    """
    R = H_12[:3, :3].copy()
    d = H_12[:3, 3].copy()
    found, x = _closed_form(F1, I1, F2, I2, R, d, c1, c2)
    if not found:
        x = x0.copy()
    c1, x[0], x[1] = _s.best_chart(F1, I1, x[0], x[1], c1)
    c2, x[2], x[3] = _s.best_chart(F2, I2, x[2], x[3], c2)
    (x, c1, c2, it, converged, clamped, have, D1, D2, r, w, Rn2, e) = _newton(
        F1, I1, F2, I2, R, d, x, c1, c2, scale, tol, max_iter)
    n1 = np.zeros(3)
    n2 = np.zeros(3)
    H_1C = np.eye(4)
    G_a = np.zeros((6, 6))
    G_b = np.zeros((6, 6))
    if not (converged and have):
        return False, x, c1, c2, it, D1, D2, n1, n2, np.nan, np.nan, np.nan, np.nan, H_1C, G_a, G_b
    gap, ang = _kc.errors(r, w)
    n1, n2, distance, margin, valid = _kc.finish(F1, F2, D1, D2, R, Rn2, e, c1, c2, reg_tol)
    if not (valid and margin > 0.0):
        return False, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a, G_b
    H_1C, G_a, G_b = frame_and_maps(D1, n1, distance, alpha, H_12, H_S1a, H_bS2)
    return True, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a, G_b


#: `pair_state` as `evaluate` calls it: by symbol (`_njit.separate`)
_pair_state_by_symbol = separate(pair_state)


@njit
def frame_and_maps(D1, n1, distance, alpha, H_12, H_S1a, H_bS2):
    """Contact frame ``H_1C`` (`frame`) and the twist maps ``G_a = Ad(H_C1 H_S1a)``,
    ``G_b = Ad(H_C1 H_12 H_S2b)`` (``T_C = G_b T_b - G_a T_a``)."""
    H_1C = frame(D1, n1, distance, alpha)
    H_C1 = _lie.se3_inverse(H_1C)
    return H_1C, _lie.adjoint(_lie.mm(H_C1, H_S1a)), _lie.adjoint(_lie.mm(_lie.mm(H_C1, H_12), _lie.se3_inverse(H_bS2)))


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
    R = H_12[:3, :3].copy()
    d = H_12[:3, 3].copy()
    _, _, _, _, re, s_max, s_min = kinematics(D1, D2, R, d, T12)
    return _tracked_rates_by_symbol(F1, I1, F2, I2, x_exact, ce1, ce2, D1, D2, R, d, T12, re, s_max, s_min,
                                    params, c1, c2, relax)


@njit(argtypes=("f8[::1], i8[::1], f8[::1], i8[::1], f8[::1], i8, i8, f8[:, :, ::1], f8[:, :, ::1], "
              "f8[:, ::1], f8[::1], f8[::1], f8[::1], f8, f8, f8[::1], i8, i8, f8"))
def _tracked_rates(F1, I1, F2, I2, x_exact, ce1, ce2, D1, D2, R, d, T12, re, s_max, s_min, params, c1, c2,
                   relax):
    """`parameter_rates` given the kinematics of the exact points in their own charts
    (parameter rates ``re`` and the contact matrix's singular values)."""
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


#: `evaluate` outcomes
OK = 0
FAILED = 1          # no regular contact pair from this start (the caller tries other starts)
NEEDS_RECHART = 2   # the warm start lies outside its domain or near a singular set


@njit(argtypes=("f8[::1], i8[::1], f8[::1], i8[::1], f8[::1], f8[::1], f8[:, ::1], f8[:, ::1], f8[::1], "
              "i8, i8, f8, f8, i8, f8, f8[:, ::1], f8[:, ::1], f8"))
def evaluate(F1, I1, F2, I2, pose_a, pose_b, H_Wa, H_Wb, x0, c1, c2, scale, tol, max_iter, alpha, H_S1a,
             H_bS2, reg_tol):
    """`pair_state` from the bodies' poses: the hot path of a contact's evaluation.

    Parameters
    ----------
    pose_a, pose_b : ndarray, shape (7,) or (0,)
        Pose vectors of moving bodies; empty for a fixed body, whose ``H_Wa`` / ``H_Wb``
        (4x4) is used instead.
    x0, c1, c2, ... :
        As `pair_state`.

    Returns
    -------
    status : int
        `OK`, `FAILED` or `NEEDS_RECHART` (then nothing was solved: the warm start is not sane
        and the pair has no closed form).
    H_12 : ndarray, shape (4, 4)
    and the outputs of `pair_state` after its ``ok`` flag.
    """
    Ha = _lie.pose_to_matrix(pose_a) if pose_a.shape[0] == 7 else H_Wa
    Hb = _lie.pose_to_matrix(pose_b) if pose_b.shape[0] == 7 else H_Wb
    H_12 = relative_pose(H_S1a, H_bS2, Ha, Hb)
    if not (start_is_sane(F1, F2, x0, c1, c2) or _closed_form(F1, I1, F2, I2, H_12[:3, :3].copy(),
                                                              H_12[:3, 3].copy(), c1, c2)[0]):
        z3 = np.zeros((3, 3, 3))
        z6 = np.zeros((6, 6))
        return (NEEDS_RECHART, H_12, x0, c1, c2, 0, z3, z3, np.zeros(3), np.zeros(3), np.nan, np.nan, np.nan,
                np.nan, np.eye(4), z6, z6)
    (ok, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a, G_b) = _pair_state_by_symbol(
        F1, I1, F2, I2, H_12, x0, c1, c2, scale, tol, max_iter, alpha, H_S1a, H_bS2, reg_tol)
    return (OK if ok else FAILED, H_12, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a,
            G_b)


@njit(argtypes="f8[::1], f8[::1], f8[::1], f8[::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[:, ::1]")
def separation(B1, B2, pose_a, pose_b, H_Wa, H_Wb, H_S1a, H_bS2):
    """The culling test from the bodies' poses: a lower bound of the signed distance
    (`porthamiltonian.kernels.closest.separation_bound`) and ``H_12``.

    Parameters
    ----------
    B1, B2 : ndarray, shape (7,)
        Packed bounds of the two surfaces.
    pose_a, pose_b, H_Wa, H_Wb, H_S1a, H_bS2 :
        As `evaluate`.

    Returns
    -------
    bound : float [m]
    H_12 : ndarray, shape (4, 4)
    """
    Ha = _lie.pose_to_matrix(pose_a) if pose_a.shape[0] == 7 else H_Wa
    Hb = _lie.pose_to_matrix(pose_b) if pose_b.shape[0] == 7 else H_Wb
    H_12 = relative_pose(H_S1a, H_bS2, Ha, Hb)
    return _kc.separation_bound(B1, B2, H_12[:3, :3], H_12[:3, 3]), H_12


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
    T12 = relative_twist(H_12, Ad_S2b, Ad_S1a, T_a, T_b)
    R = H_12[:3, :3].copy()
    d = H_12[:3, 3].copy()
    # the exact points' kinematics serve both the tracked rates and the frame's spin
    _, _, _, _, re, s_max, s_min = kinematics(D1, D2, R, d, T12)
    x_rate, s_max, s_min = _tracked_rates_by_symbol(F1, I1, F2, I2, x_exact, ce1, ce2, D1, D2, R, d, T12, re,
                                                    s_max, s_min, params, c1, c2, relax)
    s_rate = np.zeros(3)
    if active:
        _, dex, _ = axes_rates(D1, re[0], re[1], H_1C)
        spin = H_1C[0, 1] * dex[0] + H_1C[1, 1] * dex[1] + H_1C[2, 1] * dex[2]
        T_C = _lie.mv(G_b, T_b) - _lie.mv(G_a, T_a)
        s_rate[0] = T_C[2] + slip[0]
        s_rate[1] = T_C[3] + slip[1] + spin * s[2]
        s_rate[2] = T_C[4] + slip[2] - spin * s[1]
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


# ------------------------------------------------------------------ compliant contact laws

LAW_LINEAR = 0
LAW_HERTZ = 1
LAW_HUNT_CROSSLEY = 2
LAW_GIVEN = 3          # (code, F_e, F_d, slope, 0): evaluated in Python (a user's law)
LAW_LOCAL_HERTZ = 4    # (code, E*, a, 1.5, clip): Hunt-Crossley with k from the local curvatures
#: largest k_max / k_min of a Hertz point contact (beyond: a line contact)
HERTZ_MAX_RATIO = 1e10


@njit
def normal_force(law, delta, rate):
    """Elastic and dissipative normal forces of a packed `porthamiltonian.contact.NormalLaw`.

    Parameters
    ----------
    law : ndarray, shape (5,)
        ``(code, k, c, n, clip)``: `LAW_*` code, stiffness, damping (c [N s/m], or a [s/m]
        for Hunt-Crossley), exponent, 1.0 to clip the total force at zero; or
        ``(LAW_GIVEN, F_e, F_d, slope, 0)`` for a law evaluated in Python, returned as is; a
        `LAW_LOCAL_HERTZ` law must be resolved first (`resolve_law`, NaN otherwise).
    delta : float [m]
        Penetration.
    rate : float [m/s]
        d delta / dt.

    Returns
    -------
    F_e, F_d : float [N]
        ``F_e = k delta^n`` (0 for delta <= 0) and the dissipative force, ``c rate`` or
        ``k a delta^n rate``, limited to ``>= -F_e`` when clipped or at delta <= 0.
    slope : float [N s/m]
        ``d F_d / d rate``.
    """
    if law[0] == LAW_GIVEN:
        return law[1], law[2], law[3]
    if law[0] == LAW_LOCAL_HERTZ:   # not resolved (`resolve_law`): no stiffness here
        return np.nan, np.nan, np.nan
    k, c, n = law[1], law[2], law[3]
    dp = delta if delta > 0.0 else 0.0
    fe = k * dp**n if delta > 0.0 else 0.0
    slope = k * c * dp**n if law[0] == LAW_HUNT_CROSSLEY else c
    fd = slope * rate
    if (law[4] != 0.0 or delta <= 0.0) and fd <= -fe and rate < 0.0:
        return fe, -fe, 0.0
    return fe, fd, slope


@njit
def normal_potential(law, delta):
    """Elastic energy ``k delta^(n+1) / (n+1)`` [J] of a packed built-in (or resolved) law, 0
    for ``delta <= 0``."""
    if not delta > 0.0:
        return 0.0
    n = law[3]
    return law[1] * delta ** (n + 1.0) / (n + 1.0)


@njit
def resolve_law(law, K):
    """The packed law with its stiffness: a `LAW_LOCAL_HERTZ` law becomes the Hunt-Crossley
    law ``(LAW_HUNT_CROSSLEY, K, a, 1.5, clip)`` of the local stiffness ``K``; any other law is
    returned as a copy."""
    out = law.copy()
    if law[0] == LAW_LOCAL_HERTZ:
        out[0] = LAW_HUNT_CROSSLEY
        out[1] = K
    return out


@njit
def local_hertz(F1, I1, F2, I2, x, c1, c2, D1, D2, H_12, H_1C, E_star, max_ratio):
    """Hertz stiffness of a contact from its local curvatures, and its rate per unit twist.

    ``K = K(E*, k_max, k_min)`` (`porthamiltonian.kernels.hertz.stiffness`, the exact
    elliptical solution) with ``k_max, k_min`` the principal relative curvatures at the
    generalized contact points (`curvature_invariants`). As the contact point moves over
    both surfaces, ``dK/dt = g . T_C`` for the relative twist ``T_C`` of body b w.r.t. body a
    in the contact frame; a spring storing ``V = 2/5 K delta^(5/2)`` then exerts the exact
    gradient wrench ``W_C = (2/5) delta^(5/2) g`` besides ``-K delta^(3/2)`` along the normal.

    With ``s = (k_max - k_min)/2``: ``dK/dt = (K_max + K_min)/2 d(trace)/dt + (K_max -
    K_min) ds/dt`` (partials of `stiffness`), ``ds/dt = (trace/2 d(trace)/dt - d(det)/dt) /
    (2 s)``. At a circular contact (``s <= 1e-9 trace``) the second term is dropped: it
    vanishes there (``K_max - K_min = O(s)`` and ``s^2``, a smooth function >= 0, has zero
    gradient where it vanishes), and dropping it costs at most ~1e-9 of ``dK/dt``.

    Parameters
    ----------
    F1, I1, F2, I2, x, c1, c2, D1, D2, H_12 :
        As `curvature_rates`.
    H_1C : ndarray, shape (4, 4)
        Contact frame in frame 1.
    E_star : float [Pa]
    max_ratio : float
        Largest ``k_max / k_min`` of a point contact
        (`porthamiltonian.contact.hertz.MAX_CURVATURE_RATIO`).

    Returns
    -------
    K : float [N/m^(3/2)]
    g : ndarray, shape (6,) [N/m^(3/2) per unit twist]
    ok : bool
        False where Hertz does not apply (``k_min <= 0``: conforming or concave; ratio
        beyond `max_ratio`: a line contact) or the kinematics are singular; the caller
        evaluates in Python, which raises saying so.
    """
    trace, det, g_t, g_d, s_min = curvature_rates(F1, I1, F2, I2, x, c1, c2, D1, D2, H_12)
    s = math.sqrt(max(0.25 * trace * trace - det, 0.0))
    k_max, k_min = 0.5 * trace + s, 0.5 * trace - s
    g = np.zeros(6)
    if not (s_min > 0.0 and k_min > 0.0 and k_max <= max_ratio * k_min):
        return np.nan, g, False
    K, K_max, K_min = _kh.stiffness(E_star, k_max, k_min)
    g1 = 0.5 * (K_max + K_min) * g_t
    if s > 1e-9 * trace:
        g1 += (K_max - K_min) * (0.5 * trace * g_t - g_d) / (2.0 * s)
    # T_1 = Ad(H_1C) T_C: the rate is g1 . T_1 = (Ad(H_1C)^T g1) . T_C
    return K, _lie.mtv(_lie.adjoint(H_1C), g1), True


@njit
def spring_outputs(G_a, G_b, K_t, s, F_e, W_geo):
    """Port efforts of a compliant contact's spring: the wrench ``W_C = (0, 0, K_t s, -F_e) +
    W_geo`` on the relative motion, as ``(-G_a^T W_C, G_b^T W_C)``, and the slip port's force
    ``K_t s`` (`library.compliant_contact`). ``W_geo`` is the part of the gradient of a
    stiffness that depends on the configuration (`local_hertz`; zero for a fixed law)."""
    W = W_geo.copy()
    for k in range(3):
        W[2 + k] += K_t[k] * s[k]
    W[5] -= F_e
    return -_lie.mtv(G_a, W), _lie.mtv(G_b, W), K_t * s


@njit
def _capped(c, v, cap):
    """A damper force ``c v`` limited in magnitude to ``cap`` >= 0, and ``dF/dv``.

    ``v`` is 1 or 2 components (spin, or sliding); the derivative is ``c I`` below the cap
    and ``cap / |v| (I - v v^T / |v|^2)`` on it (the force keeps the direction of ``v``).
    """
    n = v.shape[0]
    speed = math.sqrt(_norm2(v))
    F = c * v
    dF = np.zeros((n, n))
    if c * speed <= cap:
        for i in range(n):
            dF[i, i] = c
        return F, dF
    F = (cap / speed) * v
    for i in range(n):
        for j in range(n):
            dF[i, j] = cap / speed * ((1.0 if i == j else 0.0) - v[i] * v[j] / (speed * speed))
    return F, dF


@njit
def _norm2(v):
    out = 0.0
    for k in range(v.shape[0]):
        out += v[k] * v[k]
    return out


@njit(argtypes="f8[:, ::1], f8[:, ::1], f8[::1], f8[::1], f8, f8, f8, f8, f8[::1], f8")
def damper_efforts(G_a, G_b, T_a, T_b, c_spin, c_t, cap_spin, cap_t, law, delta):
    """Port efforts of a compliant contact's damper, ``W_C = -(0, 0, F_spin, F_x, F_y, F_d)``
    with ``T_C = G_b T_b - G_a T_a``: ``F_d`` the normal law's dissipative force at the
    penetration rate ``-T_C[5]``, and the tangential dampers ``c_spin w_z`` and
    ``c_t (v_x, v_y)`` each limited in magnitude to its cap (`_capped`; an infinite cap is
    the plain damper). Also ``dW_C / dT_C`` (6, 6) for `damper_jacobian`.
    """
    T_C = _lie.mv(G_b, T_b) - _lie.mv(G_a, T_a)
    _, fd, slope = normal_force(law, delta, -T_C[5])
    F_spin, dF_spin = _capped(c_spin, T_C[2:3].copy(), cap_spin)
    F_t, dF_t = _capped(c_t, T_C[3:5].copy(), cap_t)
    W = np.array((0.0, 0.0, F_spin[0], F_t[0], F_t[1], -fd))
    dW = np.zeros((6, 6))
    dW[2, 2] = dF_spin[0, 0]
    _lie.put2(dW, 3, 3, dF_t)
    dW[5, 5] = slope
    return -_lie.mtv(G_a, W), _lie.mtv(G_b, W), dW


@njit
def damper_jacobian(G_a, G_b, dW):
    """``d(e_a, e_b) / d(T_a, T_b)`` (12, 12) of `damper_efforts`: ``G^T dW G`` with
    ``G = (-G_a, G_b)``."""
    G = np.empty((6, 12))
    _lie.put2(G, 0, 0, -G_a)
    _lie.put2(G, 0, 6, G_b)
    return G.T @ (dW @ G)


@njit
def _slip_rate(force, limit, c_slip, speed):
    """Magnitude of a slip rate along the force: the Dahl term ``speed min(force / limit, 1)``
    plus the excess ``max(force - limit, 0) / c_slip`` (`slip_rates`)."""
    if force == 0.0:
        return 0.0
    r = speed * (force / limit if force < limit else 1.0)
    if force > limit:
        r += (force - limit) / c_slip
    return r


@njit
def slip_rates(f, lim_spin, lim_t, c_slip, spin_speed, slide_speed):
    """Slip rates ``(spin, x, y)`` of the spring's anchor for its force ``f = (torque, f_x,
    f_y)``, along the force.

    Each is the sum of a Dahl term ``speed min(|f| / limit, 1)`` (the anchor slips in
    proportion to the relative speed of the surfaces, so that in steady sliding the spring
    holds exactly the friction limit; never faster than the surfaces slide; zero at rest)
    and a regularized Coulomb excess ``max(|f| - limit, 0) / c_slip`` (which alone, with
    zero speeds, is the viscous slip law, and which unloads the spring when the limit drops,
    as it does to zero at a release). The dissipation ``f . v_slip`` is >= 0.
    """
    out = np.zeros(3)
    r = _slip_rate(abs(f[0]), lim_spin, c_slip, spin_speed)
    out[0] = r if f[0] > 0.0 else -r
    ft = math.sqrt(f[1] * f[1] + f[2] * f[2])
    if ft > 0.0:
        r = _slip_rate(ft, lim_t, c_slip, slide_speed)
        out[1] = r * f[1] / ft
        out[2] = r * f[2] / ft
    return out


@njit
def slip_jacobian(f, lim_spin, lim_t, c_slip, spin_speed, slide_speed):
    """``d v_slip / d f`` (3, 3) of `slip_rates`: for a rate ``r(|f|)`` along ``f``, the
    tangential block is ``r' u u^T + (r / |f|) (I - u u^T)``, ``u = f / |f|``."""
    J = np.zeros((3, 3))
    tau = abs(f[0])
    J[0, 0] = (spin_speed / lim_spin if tau < lim_spin else 0.0) + (1.0 / c_slip if tau > lim_spin else 0.0)
    ft = math.sqrt(f[1] * f[1] + f[2] * f[2])
    if ft == 0.0:
        J[1, 1] = J[2, 2] = slide_speed / lim_t if lim_t > 0.0 else 0.0
        return J
    dr = (slide_speed / lim_t if ft < lim_t else 0.0) + (1.0 / c_slip if ft > lim_t else 0.0)
    ratio = _slip_rate(ft, lim_t, c_slip, slide_speed) / ft
    u = (f[1] / ft, f[2] / ft)
    for i in range(2):
        for j in range(2):
            J[1 + i, 1 + j] = (dr - ratio) * u[i] * u[j] + (ratio if i == j else 0.0)
    return J


# ------------------------------------------------------------------ relative curvature and its rates

#: imaginary step of the complex-step derivatives of the curvature invariants (their arguments
#: are O(1) to O(1/scale); any step far below round-off and far above underflow is exact)
COMPLEX_STEP = 1e-30


@njit(inline="always")
def _rot(R, a):
    return (R[0, 0] * a[0] + R[0, 1] * a[1] + R[0, 2] * a[2], R[1, 0] * a[0] + R[1, 1] * a[1] + R[1, 2] * a[2],
            R[2, 0] * a[0] + R[2, 1] * a[1] + R[2, 2] * a[2])


@njit
def curvature_invariants(D1, D2, R):
    """Trace and determinant of the relative curvature ``K1 + K2`` of two surfaces at a
    generalized contact pair [1/m, 1/m^2].

    ``K1 = E^T L1 E`` and ``K2 = E^T R L2 R^T E`` as in
    `porthamiltonian.kernels.closest.tangent_curvatures` (curvature forms with the outward
    normals, in the tangent basis ``E`` of surface 1): the gap between the undeformed surfaces
    near the contact is ``h = 1/2 y^T (K1 + K2) y`` (Johnson's ``A x^2 + B y^2``), whose
    eigenvalues are the principal relative curvatures ``k_max, k_min`` of Hertz theory. The
    formulas take real or complex arrays (`curvature_rates` differentiates them by complex
    steps).

    Parameters
    ----------
    D1, D2 : ndarray, shape (>=3, >=3, 3)
        Derivative arrays of S1 and S2 at the contact parameters (entries of order <= 2 read).
    R : ndarray, shape (3, 3)
        Rotation of ``H_12``.

    Returns
    -------
    trace : float or complex [1/m]
    det : float or complex [1/m^2]
    """
    n1, a00, a01, a11 = _kc.tangent_form(D1)
    _, b00, b01, b11 = _kc.tangent_form(D2)
    f1u, f1v = _kc.row3(D1, 1, 0), _kc.row3(D1, 0, 1)
    lu = np.sqrt(_kc.dot3(f1u, f1u))
    e1 = (f1u[0] / lu, f1u[1] / lu, f1u[2] / lu)
    e2 = _kc.cross3(n1, e1)
    Rf2u, Rf2v = _rot(R, _kc.row3(D2, 1, 0)), _rot(R, _kc.row3(D2, 0, 1))
    s00, s01, s11 = _kc._congruence(a00, a01, a11, lu, 0.0 * lu, _kc.dot3(f1v, e1), _kc.dot3(f1v, e2))
    k00, k01, k11 = _kc._congruence(b00, b01, b11, _kc.dot3(Rf2u, e1), _kc.dot3(Rf2u, e2), _kc.dot3(Rf2v, e1),
                                    _kc.dot3(Rf2v, e2))
    m00, m01, m11 = s00 + k00, s01 + k01, s11 + k11
    return m00 + m11, m00 * m11 - m01 * m01


@njit
def _moved(D, Dn, du, dv, h):
    """``D + i h dD`` with ``dD[i, j] = D[i+1, j] du + D[i, j+1] dv`` for ``i + j <= 2`` (the
    derivative of the order-2 array as the parameters move at ``(du, dv)``); ``Dn`` holds
    the orders up to 3."""
    out = np.zeros((3, 3, 3), dtype=np.complex128)
    for i in range(3):
        for j in range(3 - i):
            for k in range(3):
                out[i, j, k] = D[i, j, k] + 1j * h * (Dn[i + 1, j, k] * du + Dn[i, j + 1, k] * dv)
    return out


@njit
def curvature_rates(F1, I1, F2, I2, x, c1, c2, D1, D2, H_12):
    """The relative curvature's invariants and their rates per unit relative twist.

    As the bodies move with the relative twist ``T`` (of S2 w.r.t. S1 in frame 1), the
    generalized contact points move at the rates of `kinematics` and ``R`` at ``hat(w) R``;
    the invariants of `curvature_invariants` then change at ``g_trace . T`` and ``g_det . T``.
    Each of the six columns is the exact directional derivative (complex step on the
    order-2 derivative arrays moved along the surfaces' order-3 derivatives, and on ``R``).

    Parameters
    ----------
    F1, I1, F2, I2 : ndarray
        Packed surfaces.
    x : ndarray, shape (4,)
        Exact contact parameters in charts ``c1``, ``c2``.
    D1, D2 : ndarray, shape (3, 3, 3)
        Their order-2 derivative arrays.
    H_12 : ndarray, shape (4, 4)

    Returns
    -------
    trace, det : float [1/m, 1/m^2]
    g_trace, g_det : ndarray, shape (6,) [1/m, 1/m^2 per unit twist]
    s_min : float
        Smallest singular value of the contact matrix over the six twists (0 where the
        kinematics are singular; the caller checks it).
    """
    R = H_12[:3, :3].copy()
    d = H_12[:3, 3].copy()
    E1 = _s.derivatives(F1, I1, x[0], x[1], 3, c1)
    E2 = _s.derivatives(F2, I2, x[2], x[3], 3, c2)
    trace, det = curvature_invariants(D1, D2, R)
    g_trace = np.zeros(6)
    g_det = np.zeros(6)
    h = COMPLEX_STEP
    s_min = np.inf
    for k in range(6):
        T = np.zeros(6)
        T[k] = 1.0
        _, _, _, _, rate, _, smin = kinematics(D1, D2, R, d, T)
        s_min = min(s_min, smin)
        if not smin > 0.0:
            return trace, det, g_trace, g_det, 0.0
        Rc = R.astype(np.complex128)
        if k < 3:   # d R / dt = hat(w) R
            w = T[:3]
            for j in range(3):
                c = (w[1] * R[2, j] - w[2] * R[1, j], w[2] * R[0, j] - w[0] * R[2, j], w[0] * R[1, j] - w[1] * R[0, j])
                for i in range(3):
                    Rc[i, j] += 1j * h * c[i]
        tc, dc = curvature_invariants(_moved(D1, E1, rate[0], rate[1], h), _moved(D2, E2, rate[2], rate[3], h), Rc)
        g_trace[k] = tc.imag / h
        g_det[k] = dc.imag / h
    return trace, det, g_trace, g_det, s_min
