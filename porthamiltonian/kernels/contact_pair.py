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

from . import closest as _kc
from . import lie as _lie
from . import surfaces as _s
from .contact_kinematics import frame, relative_pose, start_is_sane

#: the Newton search, called by symbol (`_njit.separate`): compiled once, not again in the pair state
_newton = separate(_kc.newton)
#: the closed forms, called by symbol (`_njit.separate`)
_closed_form = separate(_kc.closed_form)


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


#: `pair_state` as `evaluate` calls it: by symbol (`_njit.separate`)
_pair_state_by_symbol = separate(pair_state)


@njit(inline="always")
def _inverse_into(H, out):
    """`porthamiltonian.kernels.lie.se3_inverse` written into ``out`` (the same arithmetic)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = H[j, i]
        out[i, 3] = -(H[0, i] * H[0, 3] + H[1, i] * H[1, 3] + H[2, i] * H[2, 3])
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


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

    The products of rigid motions go through one scratch array (`_mm_into`, `_inverse_into`: the
    bits of `porthamiltonian.kernels.lie.mm` and `porthamiltonian.kernels.lie.se3_inverse`): four
    arrays per call, the three returned and the scratch, instead of eight."""
    H_1C = frame(D1, n1, distance, alpha)
    W = np.empty((4, 4, 4))
    H_C1, P, Q, H_S2b = W[0], W[1], W[2], W[3]
    _inverse_into(H_1C, H_C1)
    _mm_into(H_C1, H_S1a, P)
    G_a = _lie.adjoint(P)
    _inverse_into(H_bS2, H_S2b)
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
