"""Compiled kernels of Kry & Pai's reduced contact coordinates (Kry & Pai, *Continuous contact
simulation for smooth surfaces*, 2003, sec. 3, appendix).

`contact_matrices` builds the contact matrix ``H(q)`` in three frames, its time derivative and
the pose of body 2 in body 1 from the two surfaces' derivative arrays (order 3) at the contact
parameters; `solve` is the square solve of the reduced dynamics. The public functions
`porthamiltonian.contact.coordinates.contact_coordinate_jacobian`,
`porthamiltonian.contact.coordinates.contact_pose` and
`porthamiltonian.contact.reduced.reduced_dynamics` check their arguments and call these; the
reduced contact's continuous phases (`library.reduced_contact.ReducedChart`) call them
directly. Formulas and frames: the docstrings of those functions.

Second-order jets in the parameters ``(s, t)`` are arrays of shape (6, ...) with slots
(value, d/ds, d/dt, d2/ds2, d2/dsdt, d2/dt2); a product of two jets follows the Leibniz rule
``out[slot] += weight a[i] b[j]`` over the rows of `_TERMS`.
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit

from .lie import ad_matrix, adjoint, se3_inverse

__all__ = ["patch_frame", "patch_velocity", "pose", "contact_matrices", "solve", "OK", "SINGULAR", "NO_SLIP_DIRECTION",
           "FRICTIONLESS", "SLIDING", "ROLLING"]

#: `solve` status codes
OK, SINGULAR, NO_SLIP_DIRECTION = 0, 1, 2
#: contact modes of `solve` (`porthamiltonian.contact.reduced.MODES` in this order)
FRICTIONLESS, SLIDING, ROLLING = 0, 1, 2

# Leibniz rule of second-order jets: (slot, i, j, weight)
_TERMS = np.array([(0, 0, 0, 1), (1, 1, 0, 1), (1, 0, 1, 1), (2, 2, 0, 1), (2, 0, 2, 1), (3, 3, 0, 1), (3, 1, 1, 2),
                   (3, 0, 3, 1), (4, 4, 0, 1), (4, 1, 2, 1), (4, 2, 1, 1), (4, 0, 4, 1), (5, 5, 0, 1), (5, 2, 2, 2),
                   (5, 0, 5, 1)], dtype=np.int64)
# derivative array entries (i, j) feeding the jets of c, c_s and c_t
_JET_C = np.array([(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2)], dtype=np.int64)
_JET_CS = np.array([(1, 0), (2, 0), (1, 1), (3, 0), (2, 1), (1, 2)], dtype=np.int64)
_JET_CT = np.array([(0, 1), (1, 1), (0, 2), (2, 1), (1, 2), (0, 3)], dtype=np.int64)
# velocity rows as pairs (a, b) of frame jets (0 x, 1 y, 2 z, 3 c): omega = (z . y_i, x . z_i,
# y . x_i), v = (x . c_i, y . c_i, z . c_i)
_ROWS_A = np.array((2, 0, 1, 0, 1, 2), dtype=np.int64)
_ROWS_B = np.array((1, 2, 0, 3, 3, 3), dtype=np.int64)
_FIRST = np.array((1, 2), dtype=np.int64)                 # jet slot of d/ds, d/dt
_SECOND = np.array(((3, 4), (4, 5)), dtype=np.int64)      # jet slot of d2/(di dj)


@njit
def _jet(D, idx):
    out = np.empty((6, 3))
    for k in range(6):
        out[k] = D[idx[k, 0], idx[k, 1]]
    return out


@njit
def _jet_dot(a, b):
    out = np.zeros(6)
    for r in range(_TERMS.shape[0]):
        s, i, j, w = _TERMS[r, 0], _TERMS[r, 1], _TERMS[r, 2], _TERMS[r, 3]
        out[s] += w * (a[i, 0] * b[j, 0] + a[i, 1] * b[j, 1] + a[i, 2] * b[j, 2])
    return out


@njit
def _jet_cross(a, b):
    out = np.zeros((6, 3))
    for r in range(_TERMS.shape[0]):
        s, i, j, w = _TERMS[r, 0], _TERMS[r, 1], _TERMS[r, 2], _TERMS[r, 3]
        out[s, 0] += w * (a[i, 1] * b[j, 2] - a[i, 2] * b[j, 1])
        out[s, 1] += w * (a[i, 2] * b[j, 0] - a[i, 0] * b[j, 2])
        out[s, 2] += w * (a[i, 0] * b[j, 1] - a[i, 1] * b[j, 0])
    return out


@njit
def _jet_scale(f, a):
    out = np.zeros((6, 3))
    for r in range(_TERMS.shape[0]):
        s, i, j, w = _TERMS[r, 0], _TERMS[r, 1], _TERMS[r, 2], _TERMS[r, 3]
        for k in range(3):
            out[s, k] += w * f[i] * a[j, k]
    return out


@njit
def _jet_rsqrt(q):
    """Jet of ``q^(-1/2)`` by the chain rule."""
    f = q[0] ** -0.5
    f1 = -0.5 * f / q[0]
    f2 = 0.75 * f / (q[0] * q[0])
    return np.array((f, f1 * q[1], f1 * q[2], f2 * q[1] * q[1] + f1 * q[3], f2 * q[1] * q[2] + f1 * q[4],
                     f2 * q[2] * q[2] + f1 * q[5]))


@njit(prebuilt=("f8[:, :, ::1]",))
def patch_frame(D):
    """The patch frame at a point: origin ``c``, ``x = c_s / |c_s|``, ``z`` the unit normal
    ``c_s x c_t / |c_s x c_t|``, ``y = z x x`` (Kry & Pai 2003, eqs. 5-6), from a derivative array of
    order >= 1; shape (4, 4). `porthamiltonian.contact.frames.patch_frame` checks and calls it."""
    fu, fv = D[1, 0], D[0, 1]
    lu = math.sqrt(fu[0] * fu[0] + fu[1] * fu[1] + fu[2] * fu[2])
    n0, n1, n2 = fu[1] * fv[2] - fu[2] * fv[1], fu[2] * fv[0] - fu[0] * fv[2], fu[0] * fv[1] - fu[1] * fv[0]
    ln = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    x0, x1, x2 = fu[0] / lu, fu[1] / lu, fu[2] / lu
    z0, z1, z2 = n0 / ln, n1 / ln, n2 / ln
    H = np.eye(4)
    H[0, 0], H[1, 0], H[2, 0] = x0, x1, x2
    H[0, 1], H[1, 1], H[2, 1] = z1 * x2 - z2 * x1, z2 * x0 - z0 * x2, z0 * x1 - z1 * x0
    H[0, 2], H[1, 2], H[2, 2] = z0, z1, z2
    H[0, 3], H[1, 3], H[2, 3] = D[0, 0, 0], D[0, 0, 1], D[0, 0, 2]
    return H


@njit
def patch_velocity(D):
    """Body velocity of a patch frame per unit parameter rate, and its derivatives.

    Parameters
    ----------
    D : ndarray, shape (4, 4, 3)
        Derivative array up to order 3.

    Returns
    -------
    J : ndarray, shape (6, 2)
        Twist of the patch frame `patch_frame` ``[x y z | c]`` relative to its body, in its own
        coordinates, per unit rate of s and t (Kry & Pai 2003, eqs. 44-50): ``omega_i = (z . y_i,
        x . z_i, y . x_i)``, ``v_i = Q^T c_i``; the frame's derivatives need the surface's
        third derivatives, propagated exactly as second-order jets.
    dJ : ndarray, shape (2, 6, 2)
        ``dJ/ds``, ``dJ/dt``.
    """
    c, cs, ct = _jet(D, _JET_C), _jet(D, _JET_CS), _jet(D, _JET_CT)
    x = _jet_scale(_jet_rsqrt(_jet_dot(cs, cs)), cs)
    m = _jet_cross(cs, ct)
    z = _jet_scale(_jet_rsqrt(_jet_dot(m, m)), m)
    y = _jet_cross(z, x)
    F = np.empty((4, 6, 3))
    F[0], F[1], F[2], F[3] = x, y, z, c
    J = np.empty((6, 2))
    dJ = np.empty((2, 6, 2))
    for row in range(6):
        a, b = F[_ROWS_A[row]], F[_ROWS_B[row]]
        for i in range(2):
            fi = _FIRST[i]
            J[row, i] = a[0, 0] * b[fi, 0] + a[0, 1] * b[fi, 1] + a[0, 2] * b[fi, 2]
            for j in range(2):
                fj, sij = _FIRST[j], _SECOND[i, j]
                dJ[j, row, i] = (a[fj, 0] * b[fi, 0] + a[fj, 1] * b[fi, 1] + a[fj, 2] * b[fi, 2]
                                 + a[0, 0] * b[sij, 0] + a[0, 1] * b[sij, 1] + a[0, 2] * b[sij, 2])
    return J, dJ


@njit
def _flip(psi):
    cp, sp = math.cos(psi), math.sin(psi)
    B = np.eye(4)
    B[0, 0], B[0, 1], B[1, 0], B[1, 1], B[2, 2] = cp, sp, sp, -cp, -1.0
    return B


@njit
def pose(D1, D2, psi):
    """Pose of body 2 in body 1 at contact coordinates, ``H_1C1 B(psi) inv(H_2C2)``, from the
    derivative arrays (order >= 1) at the contact parameters."""
    return patch_frame(D1) @ _flip(psi) @ se3_inverse(patch_frame(D2))


@njit
def contact_matrices(D1, D2, psi, qd):
    """Pose and contact matrices at contact coordinates with parameters' derivative arrays
    `D1`, `D2` (order 3) and angle `psi`, and the rates for ``dq/dt = qd``.

    Returns
    -------
    H_12, H_1C : ndarray, shape (4, 4)
        Pose of body 2 in body 1, ``H_1C1 B(psi) inv(H_2C2)``; the patch frame C1 in body 1.
    H_C, H_1, H_2, dH_C, dH_1, dH_2 : ndarray, shape (6, 5)
        ``H`` in the frames C1, 1 and 2, and their time derivatives along ``qd``
        (`porthamiltonian.contact.coordinates.contact_coordinate_jacobian`).
    """
    qd = np.ascontiguousarray(qd)   # a slice of the reduced state: '@' wants contiguous operands
    J1, dJ1 = patch_velocity(D1)
    J2, dJ2 = patch_velocity(D2)
    A, C = patch_frame(D1), patch_frame(D2)
    B = _flip(psi)
    AdB = np.zeros((6, 6))
    AdB[:3, :3] = B[:3, :3]
    AdB[3:, 3:] = B[:3, :3]
    AdBJ2 = AdB @ J2
    H_C = np.zeros((6, 5))
    H_C[:, :2] = J1
    H_C[:, 2:4] = -AdBJ2
    H_C[2, 4] = 1.0
    Binv = se3_inverse(B)
    AdA = adjoint(A)
    AdG2 = adjoint(C @ Binv)
    H_1 = AdA @ H_C
    H_2 = AdG2 @ H_C
    e_psi = np.zeros(6)
    e_psi[2] = qd[4]
    dJ1q = dJ1[0] * qd[0] + dJ1[1] * qd[1]
    dJ2q = dJ2[0] * qd[2] + dJ2[1] * qd[3]
    dH_C = np.zeros((6, 5))
    dH_C[:, :2] = dJ1q
    dH_C[:, 2:4] = -(ad_matrix(e_psi) @ AdBJ2 + AdB @ dJ2q)
    dH_1 = AdA @ (ad_matrix(J1 @ qd[:2]) @ H_C + dH_C)
    dH_2 = AdG2 @ (ad_matrix(AdBJ2 @ qd[2:4] - e_psi) @ H_C + dH_C)
    H_12 = A @ B @ se3_inverse(C)
    return H_12, A, H_C, H_1, H_2, dH_C, dH_1, dH_2


@njit(inline="always")
def _friction_axis(slip, slip_direction, slip_floor):
    """The vector the sliding friction opposes (`solve`, `SLIDING`): the slip above
    `slip_floor`; below it with a `slip_direction` u (a unit vector after normalizing), the
    blend ``slip + (slip_floor - |slip|) u``, which is u at rest and the slip at the floor
    (continuous: no discontinuity of the friction at the floor for the solver to slide along,
    and its direction turns at most at |d slip/dt| / (slip_floor / sqrt 2) while slip . u >=
    0, which the caller's event keeps); at or below it without a direction, zeros (no
    direction)."""
    speed = math.hypot(slip[0], slip[1])
    n = math.hypot(slip_direction[0], slip_direction[1])
    if speed > slip_floor:
        return slip[0], slip[1]
    if not n > 0.0:
        return 0.0, 0.0
    c = (slip_floor - speed) / n
    return slip[0] + c * slip_direction[0], slip[1] + c * slip_direction[1]


@njit
def solve(H_12, H_1C, H_C, H_2, dH_C, dH_2, qd, M, b, mode, mu, slip_direction, slip_floor, max_condition, c_roll,
          c_spin, slip_relax):
    """The square solve of the reduced dynamics (`porthamiltonian.contact.reduced`).

    Parameters
    ----------
    H_12, H_1C, H_C, H_2, dH_C, dH_2
        From `contact_matrices`.
    qd : ndarray, shape (5,)
    M : ndarray, shape (6, 6)
        Spatial inertia of body 2 in its frame.
    b : ndarray, shape (6,)
        Rate of its body momentum without the contact.
    mode : int
        `FRICTIONLESS`, `SLIDING` or `ROLLING`.
    mu : float
    slip_direction : ndarray, shape (2,)
        Blended into the slip by `SLIDING` while the slip speed is below `slip_floor`
        (`_friction_axis`; zeros: none).
    slip_floor, max_condition : float
    c_roll, c_spin : float
        Viscous rolling and spinning resistance [N m s/rad]: a moment on body 2 against its
        angular velocity relative to body 1, ``-(c_roll w_x, c_roll w_y, c_spin w_z)`` in C1.
    slip_relax : float [1/s]
        `ROLLING`: the no-slip rows ask ``d(slip)/dt = -slip_relax slip`` instead of zero, so
        that the slip the integrator's error leaves decays instead of persisting (at RK4's
        large steps a bowl otherwise glides on at the drift's speed).

    Returns
    -------
    status : int
        `OK`, `SINGULAR` (condition number above `max_condition`) or `NO_SLIP_DIRECTION`.
    q_acc : ndarray, shape (5,)
    force : ndarray, shape (3,)
        Contact force on body 2 in C1 (tangential, normal).
    slip : ndarray, shape (2,)
    dissipation, stabilization : float
        Power taken by friction and the resistance moments, and by the slip's relaxation.
    twist, twist_rate : ndarray, shape (6,)
    cond : float
        The condition number of the system.
    """
    Ad_C2 = adjoint(se3_inverse(H_1C) @ H_12).T      # wrenches in C1 -> body 2
    A = Ad_C2[:, 3:].copy()
    T = H_2 @ qd
    T_C = H_C @ qd
    slip = T_C[3:5].copy()
    moment = np.array((-c_roll * T_C[0], -c_roll * T_C[1], -c_spin * T_C[2]))
    rhs = b - M @ (dH_2 @ qd) + Ad_C2[:, :3].copy() @ moment
    force = np.zeros(3)
    q_acc = np.full(5, np.nan)
    MH = M @ H_2
    if mode == ROLLING:
        K = np.zeros((8, 8))
        K[:6, :5] = MH
        K[:6, 5:] = -A
        K[6:, :5] = H_C[3:5]
        r = np.empty(8)
        r[:6] = rhs
        r[6:] = -(dH_C @ qd)[3:5] - slip_relax * slip
    else:
        d = np.array((0.0, 0.0, 1.0))
        if mode == SLIDING:
            w0, w1 = _friction_axis(slip, slip_direction, slip_floor)
            wn = math.hypot(w0, w1)
            if not wn > 0.0:
                return NO_SLIP_DIRECTION, q_acc, force, slip, math.nan, math.nan, T, np.full(6, np.nan), math.nan
            d[0], d[1] = -mu * w0 / wn, -mu * w1 / wn
        K = np.zeros((6, 6))
        K[:, :5] = MH
        K[:, 5] = -(A @ d)
        r = rhs
    sv = np.linalg.svd(K)[1]
    cond = sv[0] / sv[-1] if sv[-1] > 0.0 else np.inf
    if not sv[-1] > sv[0] / max_condition:
        return SINGULAR, q_acc, force, slip, math.nan, math.nan, T, np.full(6, np.nan), cond
    y = np.linalg.solve(K, r)
    q_acc = y[:5].copy()
    if mode == ROLLING:
        force[:] = y[5:]
    else:
        force[:] = y[5] * d
    # rolling: the slip is zero up to the integrator's drift; the stick force's work on the
    # drift is the relaxation's (stabilization), not friction's
    friction = -(force[0] * slip[0] + force[1] * slip[1])
    dissipation = friction if mode == SLIDING else 0.0
    stabilization = friction if mode == ROLLING else 0.0
    dissipation -= moment[0] * T_C[0] + moment[1] * T_C[1] + moment[2] * T_C[2]
    return OK, q_acc, force, slip, dissipation, stabilization, T, H_2 @ q_acc + dH_2 @ qd, cond
