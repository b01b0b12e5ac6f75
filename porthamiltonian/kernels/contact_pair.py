"""The contact-pair stage: the exact contact pair of two packed surfaces at the bodies' poses,
computed once per contact and evaluation, and what every law of the contact reads from it.

`evaluate` (from the bodies' poses) and `pair_state` (from ``H_12``) give the exact contact
parameters (a closed form where the pair has one, `porthamiltonian.kernels.closest.closed_form`,
else the warm-started Newton refinement), the derivative arrays of both surfaces there, the
signed distance, the contact frame ``H_1C`` and the twist maps ``G_a``, ``G_b``
(`frame_and_maps`); `separation` is the culling test that runs before them. The kinematics
of the pair are in `porthamiltonian.kernels.contact_kinematics`, the laws that read the pair in
`porthamiltonian.kernels.contact_laws`, the relative curvature in
`porthamiltonian.kernels.curvature`; the compliant contact's kernels
(`porthamiltonian.kernels.compliant`) hand the pair to the laws as one shared record.
"""

from __future__ import annotations

import numpy as np
from ._njit import njit, separate

from . import borrow as _borrow
from . import closest as _kc
from . import lie as _lie
from . import surfaces as _s
from . import point as _kp
from .contact_kinematics import frame, pair_pose, relative_twist, rotation_translation, start_is_sane

#: the Newton search, called by symbol (`_njit.separate`): compiled once, not again in the pair state
_newton = separate(_kc.newton)
#: the closed forms, called by symbol (`_njit.separate`)
_closed_form = separate(_kc.closed_form)
#: `newton`'s evaluation, called by symbol (`_njit.separate`): a closed form's confirmation
_evaluate_into = separate(_kc.evaluate_into)


@njit(argtypes=("f8[::1], i8[::1], f8[::1], i8[::1], f8[:, ::1], f8[::1], i8, i8, f8, f8, i8, f8, "
              "f8[:, ::1], f8[:, ::1], f8"))
def pair_state(F1, I1, F2, I2, H_12, x0, c1, c2, scale, tol, max_iter, alpha, H_S1a, H_bS2, reg_tol):
    """Exact contact points from a warm start (or a closed form,
    `porthamiltonian.kernels.closest.closed_form`), and the contact frame and twist maps.

    Parameters
    ----------
    F1, I1, F2, I2 : ndarray
        Packed surfaces; ``(F2, I2)`` may pack a point (`porthamiltonian.kernels.point.pack`),
        whose pair is the point branch `point_pair_state`.
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
    H_12, x0, H_S1a, H_bS2 = _borrow.record((H_12, x0, H_S1a, H_bS2))   # uncounted: `kernels.borrow`
    if _kp.is_point(I2):    # the point branch: the foot of the normal (`point_pair_state`)
        return _point_pair_state_by_symbol(F1, I1, _kp.center_of(F2), H_12, x0, c1, scale, tol, max_iter, alpha,
                                           H_S1a, H_bS2, reg_tol)
    R, d = rotation_translation(H_12)
    found, x = _closed_form(F1, I1, F2, I2, R, d, c1, c2)
    return _refined_by_symbol(F1, I1, F2, I2, H_12, R, d, found, x, x0, c1, c2, scale, tol, max_iter, alpha, H_S1a,
                              H_bS2, reg_tol)


@njit(argtypes=("f8[::1], i8[::1], f8[::1], i8[::1], f8[:, ::1], f8[:, ::1], f8[::1], b1, f8[::1], f8[::1], i8, i8, "
              "f8, f8, i8, f8, f8[:, ::1], f8[:, ::1], f8"))
def refined(F1, I1, F2, I2, H_12, R, d, found, x, x0, c1, c2, scale, tol, max_iter, alpha, H_S1a, H_bS2, reg_tol):
    """`pair_state` after its closed form: ``found, x`` the closed form's outcome
    (`porthamiltonian.kernels.closest.closed_form`) at ``R, d`` (``H_12``'s rotation and
    translation), else the warm start ``x0`` refined by Newton; ``x`` becomes the result's
    parameters (written in place and returned). `evaluate` computes the closed form before it
    (its sanity test of the warm start needs it only where there is none)."""
    H_12, R, d, x0, H_S1a, H_bS2 = _borrow.record((H_12, R, d, x0, H_S1a, H_bS2))   # uncounted: `kernels.borrow`
    if not found:
        x = x0.copy()
    c1, x[0], x[1] = _s.best_chart(F1, I1, x[0], x[1], c1)
    c2, x[2], x[3] = _s.best_chart(F2, I2, x[2], x[3], c2)
    converged = False
    if found:   # `newton`'s first test, without its call: a closed form is exact, so confirmed
        r, J, w, Rn2, e = _borrow.local(4), _borrow.local(4, 4), _borrow.local(2), _borrow.local(3), _borrow.local(3)
        D1, D2, have = _evaluate_into(F1, I1, F2, I2, R, d, x, c1, c2, r, J, w, Rn2, e)
        converged, it = have and _kc.confirmed(D1, D2, d, r, w, scale, tol), 0
    if not converged:
        (x, c1, c2, it, converged, _, have, D1, D2, r, w, Rn2, e) = _newton(
            F1, I1, F2, I2, R, d, x, c1, c2, scale, tol, max_iter)
    if not (converged and have):
        return (False, x, c1, c2, it, D1, D2, np.zeros(3), np.zeros(3), np.nan, np.nan, np.nan, np.nan, np.eye(4),
                np.zeros((6, 6)), np.zeros((6, 6)))
    gap, ang = _kc.errors(r, w)
    n1, n2, distance, margin, valid = _kc.finish(F1, F2, D1, D2, R, Rn2, e, c1, c2, reg_tol)
    if not (valid and margin > 0.0):
        return (False, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, np.eye(4), np.zeros((6, 6)),
                np.zeros((6, 6)))
    H_1C, G_a, G_b = frame_and_maps(D1, n1, distance, alpha, H_12, H_S1a, H_bS2)
    return True, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a, G_b


#: `refined` as `pair_state` and `evaluate` call it, and `pair_state` as the contact kernels
#: call it: by symbol (`_njit.separate`)
_refined_by_symbol = separate(refined)
_pair_state_by_symbol = separate(pair_state)


@njit(inline="always")
def _mm_into(A, B, out):
    """`porthamiltonian.kernels.lie.mm` of two 4x4 matrices written into ``out`` (the same sums in the
    same order: the same bits; general, as the packed ``H_S1a`` need not end in an exact
    ``(0, 0, 0, 1)`` row)."""
    for i in range(4):
        for j in range(4):
            acc = 0.0
            for l in range(4):
                acc += A[i, l] * B[l, j]
            out[i, j] = acc


@njit
def frame_and_maps(D1, n1, distance, alpha, H_12, H_S1a, H_bS2):
    """Contact frame ``H_1C`` (`frame`) and the twist maps ``G_a = Ad(H_C1 H_S1a)``,
    ``G_b = Ad(H_C1 H_12 H_S2b)`` (``T_C = G_b T_b - G_a T_a``).

    The products of rigid motions go through scratch matrices on the stack (`_mm_into`,
    `porthamiltonian.kernels.lie.se3_inverse_into`: the bits of `porthamiltonian.kernels.lie.mm`
    and `porthamiltonian.kernels.lie.se3_inverse`; `kernels.borrow.local`): the three arrays
    returned and no other, where the products allocated eight."""
    D1, n1, H_12, H_S1a, H_bS2 = _borrow.record((D1, n1, H_12, H_S1a, H_bS2))   # uncounted: `kernels.borrow`
    H_1C = frame(D1, n1, distance, alpha)
    H_C1, P, Q, H_S2b = _borrow.local(4, 4), _borrow.local(4, 4), _borrow.local(4, 4), _borrow.local(4, 4)
    _lie.se3_inverse_into(H_1C, H_C1)
    _mm_into(H_C1, H_S1a, P)
    G_a = _lie.adjoint(P)
    _lie.se3_inverse_into(H_bS2, H_S2b)
    _mm_into(H_C1, H_12, P)
    _mm_into(P, H_S2b, Q)
    return H_1C, G_a, _lie.adjoint(Q)


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
    (pose_a, pose_b, H_Wa, H_Wb, H_S1a, H_bS2) = _borrow.record(
        (pose_a, pose_b, H_Wa, H_Wb, H_S1a, H_bS2))   # uncounted: `kernels.borrow`
    H_12 = pair_pose(pose_a, pose_b, H_Wa, H_Wb, H_S1a, H_bS2)
    if _kp.is_point(I2):   # the point branch (`point_pair_state`, through `pair_state`)
        pair = _pair_state_by_symbol(F1, I1, F2, I2, H_12, x0, c1, c2, scale, tol, max_iter, alpha, H_S1a, H_bS2,
                                     reg_tol)
    else:
        R, d = rotation_translation(H_12)
        found, xc = _closed_form(F1, I1, F2, I2, R, d, c1, c2)
        if not (found or start_is_sane(F1, F2, x0, c1, c2)):   # a closed form needs no sane start
            z3 = np.zeros((3, 3, 3))
            z6 = np.zeros((6, 6))
            return (NEEDS_RECHART, H_12, x0, c1, c2, 0, z3, z3, np.zeros(3), np.zeros(3), np.nan, np.nan, np.nan,
                    np.nan, np.eye(4), z6, z6)
        pair = _refined_by_symbol(F1, I1, F2, I2, H_12, R, d, found, xc, x0, c1, c2, scale, tol, max_iter, alpha,
                                  H_S1a, H_bS2, reg_tol)
    (ok, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a, G_b) = pair
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
    H_12 = pair_pose(pose_a, pose_b, H_Wa, H_Wb, H_S1a, H_bS2)
    return _kc.separation_bound(B1, B2, H_12[:3, :3], H_12[:3, 3]), H_12


# ------------------------------------------------------------------ point branch (issue 36)
# A point (a walker's point foot, `porthamiltonian.geometry.Point`: a sphere of radius 0) has no
# packed surface: its pair stage projects it on S1 (`porthamiltonian.kernels.point.project`, the
# foot of the normal) instead of refining two surfaces, and its rates are
# `porthamiltonian.kernels.point.kinematics` with a zero radius-of-curvature tensor. The record
# keeps the layout of `pair_state` (``x`` of length 4, ``D2``) so the contact elements read
# it alike: the point has no parameters (``x[2:] = 0``, chart 0), and its "derivative array"
# is the point itself (``D2[0, 0] = p2``, every derivative 0).

_project = separate(_kp.project)
_point_kinematics = separate(_kp.kinematics)


@njit(inline="always")
def _point_margin(D1, distance):
    """Smallest eigenvalue of ``I + distance K1`` [-] (K1: S1's curvature on its tangent plane):
    positive where the foot is a strict local minimum of the distance, zero where the point
    sits at a centre of curvature of S1 (`porthamiltonian.geometry.PointContact.margin`)."""
    n1, a00, a01, a11 = _kc.weingarten(D1)
    f1u, f1v = D1[1, 0], D1[0, 1]
    lu = np.sqrt(_lie.dot3(f1u, f1u))
    e1 = f1u / lu
    e2 = _lie.cross3(n1, e1)
    k = _kc._congruence(a00, a01, a11, _lie.dot3(f1u, e1), 0.0, _lie.dot3(f1v, e1), _lie.dot3(f1v, e2))
    m00, m01, m11 = 1.0 + distance * k[0], distance * k[1], 1.0 + distance * k[2]
    half, diff = 0.5 * (m00 + m11), 0.5 * (m00 - m11)
    return half - np.sqrt(diff * diff + m01 * m01)


@njit(argtypes=("f8[::1], i8[::1], f8[::1], f8[:, ::1], f8[::1], i8, f8, f8, i8, f8, f8[:, ::1], f8[:, ::1], f8"))
def point_pair_state(F1, I1, p2, H_12, x0, c1, scale, tol, max_iter, alpha, H_S1a, H_bS2, reg_tol):
    """`pair_state` of a surface S1 (body a) and a point `p2` (body b): the foot on S1 of the
    normal through the point, the contact frame (normal from S1) and the twist maps.

    Parameters
    ----------
    F1, I1 : ndarray
        Packed surface S1.
    p2 : ndarray, shape (3,) [m]
        The point, in its frame 2 (`porthamiltonian.geometry.Point.center`).
    H_12 : ndarray, shape (4, 4)
    x0 : ndarray, shape (4,)
        Warm start ``(u1, v1, 0, 0)`` in chart `c1` (entries 2, 3 are ignored).
    c1 : int
    scale, tol, max_iter, alpha, H_S1a, H_bS2, reg_tol :
        As `pair_state`.

    Returns
    -------
    As `pair_state`: ``ok`` (converged inside S1's domain, at a regular point, with a
    positive margin), ``x`` (shape (4,), ``x[2:] = 0``), ``c1``, ``c2 = 0``, ``iterations``,
    ``D1`` (shape (3, 3, 3)), ``D2`` (the point: ``D2[0, 0] = p2``, zeros elsewhere), ``n1``,
    ``n2 = -R^T n1``, ``distance`` [m] (``n1 . (R p2 + d - p1)``), ``margin`` [-] (smallest
    eigenvalue of ``I + distance K1``), ``gap`` [m] (the tangential residual of the foot),
    ``ang = 0`` (the normals are antiparallel by construction), ``H_1C``, ``G_a``, ``G_b``.
    """
    R = H_12[:3, :3].copy()
    d = H_12[:3, 3].copy()
    c = _lie.mv(R, p2) + d
    c1, u, v = _s.best_chart(F1, I1, x0[0], x0[1], c1)
    converged, u, v, c1, D1, it = _project(F1, I1, c, u, v, c1, scale, tol, max_iter)
    x = np.zeros(4)
    x[0], x[1] = u, v
    D2 = np.zeros((3, 3, 3))
    D2[0, 0] = p2
    H_1C = np.eye(4)
    G_a = np.zeros((6, 6))
    G_b = np.zeros((6, 6))
    nan3 = np.full(3, np.nan)
    if not (converged and _s.regular(F1, D1, c1, reg_tol)):
        return False, x, c1, 0, it, D1, D2, nan3, nan3, np.nan, np.nan, np.nan, np.nan, H_1C, G_a, G_b
    n1 = _kc.weingarten(D1)[0]
    e = c - D1[0, 0]
    distance = _lie.dot3(n1, e)
    t = e - distance * n1
    gap = np.sqrt(_lie.dot3(t, t))
    margin = _point_margin(D1, distance)
    n2 = -_lie.mtv(R, n1)
    if not margin > 0.0:
        return False, x, c1, 0, it, D1, D2, n1, n2, distance, margin, gap, 0.0, H_1C, G_a, G_b
    H_1C, G_a, G_b = frame_and_maps(D1, n1, distance, alpha, H_12, H_S1a, H_bS2)
    return True, x, c1, 0, it, D1, D2, n1, n2, distance, margin, gap, 0.0, H_1C, G_a, G_b


_point_pair_state_by_symbol = separate(point_pair_state)


@njit(argtypes=("f8[::1], i8[::1], f8[::1], f8[::1], f8[::1], f8[:, ::1], f8[:, ::1], f8[::1], i8, f8, f8, i8, "
              "f8, f8[:, ::1], f8[:, ::1], f8"))
def point_evaluate(F1, I1, p2, pose_a, pose_b, H_Wa, H_Wb, x0, c1, scale, tol, max_iter, alpha, H_S1a, H_bS2,
                   reg_tol):
    """`point_pair_state` from the bodies' poses (`evaluate`'s point branch).

    Returns
    -------
    status : int
        `OK` or `FAILED` (no regular foot from this start: an edge of a bounded patch, a
        singular point, a centre of curvature, no convergence; the caller's Python path then
        searches globally or raises naming the rule).
    H_12 : ndarray, shape (4, 4)
    and the outputs of `point_pair_state` after its ``ok`` flag.
    """
    H_12 = pair_pose(pose_a, pose_b, H_Wa, H_Wb, H_S1a, H_bS2)
    (ok, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a, G_b) = _point_pair_state_by_symbol(
        F1, I1, p2, H_12, x0, c1, scale, tol, max_iter, alpha, H_S1a, H_bS2, reg_tol)
    return (OK if ok else FAILED, H_12, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a,
            G_b)


@njit(argtypes=("f8[:, :, ::1], f8[::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], "
              "f8[::1], f8[::1]"))
def point_rates(D1, p2, H_12, H_1C, G_a, G_b, Ad_S2b, Ad_S1a, T_a, T_b):
    """The rates of a point's contact pair (`point_pair_state`) for the body twists.

    Parameters
    ----------
    D1 : ndarray, shape (3, 3, 3)
        S1's derivatives at the foot.
    p2 : ndarray, shape (3,) [m]
        The point, frame 2.
    H_12, H_1C, G_a, G_b : ndarray
        From `point_pair_state`.
    Ad_S2b, Ad_S1a : ndarray, shape (6, 6)
        ``Ad(H_S2b)``, ``Ad(H_S1a)``.
    T_a, T_b : ndarray, shape (6,)
        Body twists ``(w, v)`` [rad/s, m/s] (zero for a fixed body).

    Returns
    -------
    T_C : ndarray, shape (6,)
        Twist of body b relative to body a in the contact frame, ``G_b T_b - G_a T_a``.
    distance_rate : float [m/s]
        Rate of the signed distance (the gap), ``n1 . (w x c2 + v)``; equal to ``T_C[5]``.
    p1_rate : ndarray, shape (3,) [m/s]
        Of the contact point (the foot) on S1, frame 1.
    n1_rate : ndarray, shape (3,) [1/s]
        Of the contact normal ``n1``, frame 1 (``L1 dp1/dt``).
    uv1_rate : ndarray, shape (2,)
        Of S1's contact parameters.
    s_max, s_min : float
        Singular values of the contact matrix ``I + Delta K1`` (`point.kinematics`).
    """
    R = H_12[:3, :3].copy()
    d = H_12[:3, 3].copy()
    T12 = relative_twist(H_12, Ad_S2b, Ad_S1a, T_a, T_b)
    distance, rate, dp1, _, dn2, uv1, s_max, s_min = _point_kinematics(D1, p2, np.zeros((3, 3)), R, d, T12)
    dn1 = _lie.cross3(T12[:3], _kc.weingarten(D1)[0]) - _lie.mv(R, dn2)
    T_C = np.zeros(6)
    for i in range(6):
        for j in range(6):
            T_C[i] += G_b[i, j] * T_b[j] - G_a[i, j] * T_a[j]
    return T_C, rate, dp1, dn1, uv1, s_max, s_min
