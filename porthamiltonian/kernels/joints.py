"""Compiled kernels of ideal joints (`library.joints.Joint`): the constraint Jacobian, the
velocity bias and the acceleration bias of the locked relative motion of two markers.

Notation of `library.joints`: bodies 1 and 2 at poses ``H_W1``, ``H_W2``; markers M on body 1
(``H_1M``, its body twist relative to body 1 ``T_1M`` and that twist's rate ``dT_1M``) and N
on body 2 (``H_2N``, ``T_2N``, ``dT_2N``); ``H_MN`` the pose of N in M. The constraint rows
are the rows ``rows`` of the operator ``S`` on the twist of N relative to M: rotations
``omega`` and translations ``dp/dt = v - hat(p) omega``. A joint locking exactly one rotation
uses a quaternion row instead (`library.joints.Joint._operator`); it is not covered here and
stays in Python.
"""

from __future__ import annotations

import numpy as np
from ._njit import njit

from . import lie as _lie


@njit
def ad(T):
    """``ad(T) = [[hat(w), 0], [hat(v), hat(w)]]`` (6, 6) of a twist ``(w, v)``, as
    `porthamiltonian.lie.se3.ad`."""
    out = np.zeros((6, 6))
    for k in range(2):
        a0, a1, a2 = T[0], T[1], T[2]
        if k == 1:
            a0, a1, a2 = T[3], T[4], T[5]
        r = 3 if k == 1 else 0
        out[r + 0, 1], out[r + 0, 2] = -a2, a1
        out[r + 1, 0], out[r + 1, 2] = a2, -a0
        out[r + 2, 0], out[r + 2, 1] = -a1, a0
    _lie.put2(out, 3, 3, out[0:3, 0:3])
    return out


@njit
def geometry(H_W1, H_W2, H_1M, H_2N):
    """``(H_MN, H_M1, H_N2)`` from the body poses and the marker poses."""
    H_WM = _lie.mm(H_W1, H_1M)
    H_WN = _lie.mm(H_W2, H_2N)
    return _lie.mm(_lie.se3_inverse(H_WM), H_WN), _lie.se3_inverse(H_1M), _lie.se3_inverse(H_2N)


@njit
def _operator_rows(p, rows, identity):
    """Rows ``rows`` of ``[[I, 0], [-hat(p), I]]`` (the operator S, no single locked rotation),
    or without the identity blocks (its rate dS/dt for ``p = dp/dt``)."""
    op = np.eye(6) if identity else np.zeros((6, 6))
    op[3, 1], op[3, 2] = p[2], -p[1]
    op[4, 0], op[4, 2] = -p[2], p[0]
    op[5, 0], op[5, 1] = p[1], -p[0]
    S = np.empty((rows.shape[0], 6))
    for i in range(rows.shape[0]):
        S[i] = op[rows[i]]
    return S


@njit
def terms(H_W1, H_W2, H_1M, T_1M, H_2N, T_2N, rows):
    """Constraint Jacobian ``J`` (m, 12) on the body twists ``(T1, T2)``, velocity bias ``b``
    (m,) and ``H_MN`` (for the gap), as `library.joints.Joint.terms`."""
    H_MN, H_M1, H_N2 = geometry(H_W1, H_W2, H_1M, H_2N)
    S = _operator_rows(H_MN[:3, 3].copy(), rows, True)
    m = rows.shape[0]
    J = np.empty((m, 12))
    _lie.put2(J, 0, 0, -_lie.mm(S, _lie.adjoint(H_M1)))
    _lie.put2(J, 0, 6, _lie.mm(S, _lie.adjoint(_lie.mm(H_MN, H_N2))))
    b = _lie.mv(S, _lie.mv(_lie.adjoint(H_MN), T_2N) - T_1M)
    return J, b, H_MN


@njit
def acceleration_bias(H_W1, H_W2, H_1M, T_1M, dT_1M, H_2N, T_2N, dT_2N, T1, T2, rows):
    """``dS/dt T_rel + S (d T_rel/dt without the body accelerations)`` (m,), as
    `library.joints.Joint.acceleration_bias`."""
    H_MN, H_M1, H_N2 = geometry(H_W1, H_W2, H_1M, H_2N)
    Ad_MN = _lie.adjoint(H_MN)
    Ad_M1 = _lie.adjoint(H_M1)
    Ad_N2 = _lie.adjoint(H_N2)
    T_M = _lie.mv(Ad_M1, T1) + T_1M
    T_N = _lie.mv(Ad_N2, T2) + T_2N
    T_rel = _lie.mv(Ad_MN, T_N) - T_M
    p = H_MN[:3, 3].copy()
    w = T_rel[:3].copy()
    pdot = T_rel[3:] + _lie.cross3(w, p)
    S = _operator_rows(p, rows, True)
    dS = _operator_rows(pdot, rows, False)
    rest = (_lie.mv(Ad_MN, -_lie.mv(ad(T_2N), _lie.mv(Ad_N2, T2)) + dT_2N)
            - (-_lie.mv(ad(T_1M), _lie.mv(Ad_M1, T1)) + dT_1M)
            - _lie.mv(ad(T_M), _lie.mv(Ad_MN, T_N)))
    return _lie.mv(dS, T_rel) + _lie.mv(S, rest)


# ------------------------------------------------------------------ element kernels
# for the compiled right-hand side (`porthamiltonian.compile.jit`): a joint locking 0, 2 or 3
# rotations, its markers fixed or turning at constant speed (`library.joints.ConstantRotation`).
# F = (H_1M, H_2N (at t = 0 for a turning marker), H_W1 of a fixed body 1, H_W2 of a fixed
# body 2, 16 each, then per marker its rotation axis (3) and speed [rad/s]: 72 floats);
# I = (moving_1, moving_2, index of body 2's pose in refs, unlocked rotation axis when 2
# rotations are locked (else -1), number of locked rotations, marker 1 turning, marker 2
# turning, rows...).
ROWS = 7


@njit
def _marker(F, at, axis_at, turning, t):
    """Pose (4, 4), body twist and its rate (6,) of a marker, fixed or turning."""
    H0 = F[at : at + 16].copy().reshape(4, 4)
    T = np.zeros(6)
    if not turning:
        return H0, T, np.zeros(6)
    w = F[axis_at + 3]
    R = np.eye(4)
    _lie.put2(R, 0, 0, _lie.so3_exp(w * t * F[axis_at], w * t * F[axis_at + 1], w * t * F[axis_at + 2]))
    T[0], T[1], T[2] = w * F[axis_at], w * F[axis_at + 1], w * F[axis_at + 2]
    return _lie.mm(H0, R), T, np.zeros(6)


@njit
def _element_geometry(t, refs, F, I):
    H_W1 = _lie.pose_to_matrix(refs[0]) if I[0] else F[32:48].copy().reshape(4, 4)
    H_W2 = _lie.pose_to_matrix(refs[I[2]]) if I[1] else F[48:64].copy().reshape(4, 4)
    H_1M, T_1M, dT_1M = _marker(F, 0, 64, I[5], t)
    H_2N, T_2N, dT_2N = _marker(F, 16, 68, I[6], t)
    return H_W1, H_W2, H_1M, T_1M, dT_1M, H_2N, T_2N, dT_2N


@njit
def gap(H_MN, n_rot, free_axis, rows):
    """The gap of `library.joints.Joint._gap_of` for 0, 2 or 3 locked rotations (``free_axis``
    the unlocked one of 2)."""
    g = np.zeros(6)
    if n_rot == 3:
        _lie.put(g, 0, _lie.so3_log(H_MN[:3, :3].copy()))
    elif n_rot == 2:
        k = free_axis
        i, j = (k + 1) % 3, (k + 2) % 3
        g[i] = -H_MN[j, k]
        g[j] = H_MN[i, k]
    _lie.put(g, 3, H_MN[:3, 3])
    out = np.empty(rows.shape[0])
    for r in range(rows.shape[0]):
        out[r] = g[rows[r]]
    return out


@njit
def joint_terms(t, x, refs, F, I):
    H_W1, H_W2, H_1M, T_1M, _, H_2N, T_2N, _ = _element_geometry(t, refs, F, I)
    rows = I[ROWS:]
    J, b, H_MN = terms(H_W1, H_W2, H_1M, T_1M, H_2N, T_2N, rows)
    return J, b, gap(H_MN, I[4], I[3], rows)


@njit
def joint_acceleration_bias(t, x, refs, flows, F, I):
    H_W1, H_W2, H_1M, T_1M, dT_1M, H_2N, T_2N, dT_2N = _element_geometry(t, refs, F, I)
    return acceleration_bias(H_W1, H_W2, H_1M, T_1M, dT_1M, H_2N, T_2N, dT_2N, flows[0], flows[1], I[ROWS:])
