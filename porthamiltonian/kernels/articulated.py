"""Compiled recursions of an articulated body (a kinematic tree in joint coordinates).

Pinocchio's split (STYLE.md): a constant *model* packed once into flat arrays ``F`` (floats)
and ``I`` (ints) by `pack_tree`, and free-function algorithms on it that take the joint
positions ``q`` and velocities ``v``. Every algorithm is O(n) in the number of links (the mass
matrix, O(n d) with d the depth, is for tests and analysis only).

Frames and joint kinds are those of `porthamiltonian.robots.description`: link i's frame is
its joint's frame, ``H_{lambda(i) i}(q) = placement_i @ H_J(q_i)``. Twists ``(omega, v)`` and
wrenches ``(tau, f)`` are expressed in the link frame (body coordinates, as `RigidBody`); the
spatial inertia of link i is `library.rigid_body.spatial_inertia` about its frame's origin.
Every joint's motion subspace ``S_i`` is constant in the child frame (its rate is zero)::

    kind code  kind        nq  nv  S_i (6 x nv)                   dq/dt
    0          fixed       0   0   (none)
    1          revolute    1   1   (axis, 0)                      v
    2          prismatic   1   1   (0, axis)                      v
    3          spherical   4   3   [[I3], [0]]                    1/2 q (x) (0, omega)
    4          free        7   6   I6 (twist of the child in its  (1/2 q (x) (0, omega), R(q) v)
                                   own frame, as `RigidBody`)

Quaternions are normalised where they are used (as `RigidBody`), never in the state.

State: positions and *velocities* (not momenta). Featherstone's articulated-body algorithm
returns dv/dt directly in O(n); with generalized momenta p = M(q) v the rates would need a
second O(n) pass for v = M^-1 p and a third for dp/dt = dT/dq + ..., whose quasi-coordinate
terms (quaternion joints) have no simpler form. The energy H = 1/2 v . M(q) v + V_g(q) (the
links' kinetic energies summed, plus the tree's own gravity) is booked exactly either way,
because the ledger integrates port powers.

ABA rather than the composite-rigid-body algorithm plus a Cholesky solve: measured on one
core of a loaded 2-core machine, the rates of a 10-link chain cost 12.5 us by ABA against
17.5 us for CRBA + RNEA + a dense solve (30 links: 18 against 39 us; the quadruped's 17
links: 11 us by ABA), so ABA wins already at small n and is O(n) beyond. `crba` serves the
input matrix (``M^-1 J^T`` of the ported links, one CRBA + one Cholesky factorisation per
evaluation instead of one ABA pass per port effort: `tree_input_matrix`), tests and analysis.
One-degree-of-freedom joints take a scalar branch (no factorisation).

Gravity of the whole tree enters as the links' weights ``W_g,i = M_i (0, R_WI^T g)`` (one
product per link), whose potential ``V_g = -sum_i m_i g . p_com,i`` is part of the energy.

Layouts::

    F = (g (3), then per link i: R0 (9, row-major), t0 (3), axis (3), M_i (36, row-major),
         armature (1))
        -- placement_i = [[R0, t0], [0, 1]]; the armature [kg m^2 or kg] of a one-dof joint is
        added to its diagonal of the mass matrix (a rotor's inertia reflected to the joint)
    I = (n, nq, nv, then per link i: parent (-1 for the world), kind code, q offset, v offset)

Element kernels (`ArticulatedBody`) append to ``I`` the ported links and joints (see
`pack_ports`).
"""

from __future__ import annotations

import math

import numpy as np

from . import borrow as _borrow   # the recursions' views of their work arrays, uncounted
from ._njit import njit
from .lie import pose_rate_into

__all__ = ["KIND_CODES", "pack_tree", "forward_kinematics", "link_velocities", "link_jacobians", "rnea", "crba",
           "aba", "energy", "config_rate"]

KIND_CODES = {"fixed": 0, "revolute": 1, "continuous": 1, "prismatic": 2, "spherical": 3, "free": 4}
_NV = (0, 1, 1, 3, 6)
_LINK = 52      # floats per link in F
_HEAD = 3       # g
_IHEAD = 3      # n, nq, nv


def pack_tree(parents, kinds, placements, axes, inertias, q_offsets, v_offsets, gravity, armatures=None):
    """Pack a tree (called once, at construction; not a kernel).

    Parameters
    ----------
    parents : sequence of int, length n
        Parent link index of each link (-1: the world); each parent before its children.
    kinds : sequence of int
        Kind codes (`KIND_CODES`).
    placements : ndarray, shape (n, 4, 4)
        Joint placements ``H_PJ``.
    axes : ndarray, shape (n, 3)
        Unit joint axes in the joint frame (unused for fixed, spherical, free).
    inertias : ndarray, shape (n, 6, 6)
        Spatial inertias about the link frames' origins [kg, kg m, kg m^2].
    q_offsets, v_offsets : sequence of int
        Where each joint's coordinates start in q and v.
    gravity : ndarray, shape (3,) [m/s^2]
        Gravitational acceleration in world coordinates (zeros: none).
    armatures : sequence of float, optional
        Armature of each joint (zero for joints of other than one degree of freedom).

    Returns
    -------
    F : ndarray of float64, I : ndarray of int64
    """
    n = len(parents)
    F = np.zeros(_HEAD + _LINK * n)
    F[:3] = gravity
    nq = nv = 0
    I = np.zeros(_IHEAD + 4 * n, dtype=np.int64)
    for i in range(n):
        at = _HEAD + _LINK * i
        H = np.asarray(placements[i], float)
        F[at : at + 9] = H[:3, :3].ravel()
        F[at + 9 : at + 12] = H[:3, 3]
        F[at + 12 : at + 15] = axes[i]
        F[at + 15 : at + 51] = np.asarray(inertias[i], float).ravel()
        F[at + 51] = 0.0 if armatures is None else armatures[i]
        I[_IHEAD + 4 * i : _IHEAD + 4 * i + 4] = (parents[i], kinds[i], q_offsets[i], v_offsets[i])
        nq = max(nq, q_offsets[i] + (0, 1, 1, 4, 7)[kinds[i]])
        nv = max(nv, v_offsets[i] + _NV[kinds[i]])
    I[0], I[1], I[2] = n, nq, nv
    return F, I


# ------------------------------------------------------------------ small spatial algebra
@njit(inline="always")
def _quat_R(w, x, y, z, R, at):
    """Rotation matrix of the normalised quaternion into R[at:at+9] (row-major)."""
    s = 1.0 / math.sqrt(w * w + x * x + y * y + z * z)
    w *= s
    x *= s
    y *= s
    z *= s
    R[at + 0] = 1 - 2 * (y * y + z * z)
    R[at + 1] = 2 * (x * y - w * z)
    R[at + 2] = 2 * (x * z + w * y)
    R[at + 3] = 2 * (x * y + w * z)
    R[at + 4] = 1 - 2 * (x * x + z * z)
    R[at + 5] = 2 * (y * z - w * x)
    R[at + 6] = 2 * (x * z - w * y)
    R[at + 7] = 2 * (y * z + w * x)
    R[at + 8] = 1 - 2 * (x * x + y * y)


@njit(inline="always")
def _axis_R(a0, a1, a2, th, R, at):
    """Rotation by angle th about the unit axis a into R[at:at+9] (row-major)."""
    c = math.cos(th)
    s = math.sin(th)
    C = 1.0 - c
    R[at + 0] = c + a0 * a0 * C
    R[at + 1] = a0 * a1 * C - a2 * s
    R[at + 2] = a0 * a2 * C + a1 * s
    R[at + 3] = a1 * a0 * C + a2 * s
    R[at + 4] = c + a1 * a1 * C
    R[at + 5] = a1 * a2 * C - a0 * s
    R[at + 6] = a2 * a0 * C - a1 * s
    R[at + 7] = a2 * a1 * C + a0 * s
    R[at + 8] = c + a2 * a2 * C


@njit(inline="always")
def _mat3(A, a, B, b, out, o):
    """out[o:o+9] = A[a:a+9] @ B[b:b+9] (3x3 row-major)."""
    for r in range(3):
        for c in range(3):
            out[o + 3 * r + c] = A[a + 3 * r] * B[b + c] + A[a + 3 * r + 1] * B[b + 3 + c] + A[a + 3 * r + 2] * B[b + 6 + c]


@njit(inline="always")
def _motion_in(R, t, at, m, mo, out, oo):
    """Motion vector m (parent coords) into the child's: out = X m, X = Ad(H_{child,parent}),
    with H_{parent,child} = [[R, t], [0, 1]] at R[at:at+9], t[3at/9...]: passed as arrays."""
    # omega_c = R^T omega_p ; v_c = R^T (v_p + omega_p x t)
    w0 = m[mo]
    w1 = m[mo + 1]
    w2 = m[mo + 2]
    u0 = m[mo + 3] + w1 * t[2] - w2 * t[1]
    u1 = m[mo + 4] + w2 * t[0] - w0 * t[2]
    u2 = m[mo + 5] + w0 * t[1] - w1 * t[0]
    for k in range(3):
        out[oo + k] = R[at + k] * w0 + R[at + 3 + k] * w1 + R[at + 6 + k] * w2
        out[oo + 3 + k] = R[at + k] * u0 + R[at + 3 + k] * u1 + R[at + 6 + k] * u2


@njit(inline="always")
def _force_out(R, at, t, f, fo, out, oo):
    """Add the wrench f (child coords) to out (parent coords): out += X^T f."""
    g0 = R[at + 0] * f[fo + 3] + R[at + 1] * f[fo + 4] + R[at + 2] * f[fo + 5]
    g1 = R[at + 3] * f[fo + 3] + R[at + 4] * f[fo + 4] + R[at + 5] * f[fo + 5]
    g2 = R[at + 6] * f[fo + 3] + R[at + 7] * f[fo + 4] + R[at + 8] * f[fo + 5]
    for k in range(3):
        out[oo + k] += R[at + 3 * k] * f[fo] + R[at + 3 * k + 1] * f[fo + 1] + R[at + 3 * k + 2] * f[fo + 2]
    out[oo + 0] += t[1] * g2 - t[2] * g1
    out[oo + 1] += t[2] * g0 - t[0] * g2
    out[oo + 2] += t[0] * g1 - t[1] * g0
    out[oo + 3] += g0
    out[oo + 4] += g1
    out[oo + 5] += g2


@njit(inline="always")
def _cross_motion(v, vo, m, mo, out, oo):
    """out = v x_m m = (w x mw, w x mv + u x mw) for v = (w, u)."""
    w0, w1, w2 = v[vo], v[vo + 1], v[vo + 2]
    u0, u1, u2 = v[vo + 3], v[vo + 4], v[vo + 5]
    a0, a1, a2 = m[mo], m[mo + 1], m[mo + 2]
    b0, b1, b2 = m[mo + 3], m[mo + 4], m[mo + 5]
    out[oo] = w1 * a2 - w2 * a1
    out[oo + 1] = w2 * a0 - w0 * a2
    out[oo + 2] = w0 * a1 - w1 * a0
    out[oo + 3] = w1 * b2 - w2 * b1 + u1 * a2 - u2 * a1
    out[oo + 4] = w2 * b0 - w0 * b2 + u2 * a0 - u0 * a2
    out[oo + 5] = w0 * b1 - w1 * b0 + u0 * a1 - u1 * a0


@njit(inline="always")
def _cross_force(v, vo, f, fo, out, oo):
    """out += v x* f = (w x ft + u x ff, w x ff) for v = (w, u), f = (ft, ff)."""
    w0, w1, w2 = v[vo], v[vo + 1], v[vo + 2]
    u0, u1, u2 = v[vo + 3], v[vo + 4], v[vo + 5]
    a0, a1, a2 = f[fo], f[fo + 1], f[fo + 2]
    b0, b1, b2 = f[fo + 3], f[fo + 4], f[fo + 5]
    out[oo] += w1 * a2 - w2 * a1 + u1 * b2 - u2 * b1
    out[oo + 1] += w2 * a0 - w0 * a2 + u2 * b0 - u0 * b2
    out[oo + 2] += w0 * a1 - w1 * a0 + u0 * b1 - u1 * b0
    out[oo + 3] += w1 * b2 - w2 * b1
    out[oo + 4] += w2 * b0 - w0 * b2
    out[oo + 5] += w0 * b1 - w1 * b0


@njit(inline="always")
def _inertia_times(F, at, m, mo, out, oo):
    """out = M m with M the 6x6 row-major at F[at:at+36]."""
    for r in range(6):
        acc = 0.0
        for c in range(6):
            acc += F[at + 6 * r + c] * m[mo + c]
        out[oo + r] = acc


@njit(inline="always")
def _S_col(kind, F, at, c, S):
    """Column c of the motion subspace of a joint of `kind` into S (6,)."""
    for k in range(6):
        S[k] = 0.0
    if kind == 1:
        S[0], S[1], S[2] = F[at + 12], F[at + 13], F[at + 14]
    elif kind == 2:
        S[3], S[4], S[5] = F[at + 12], F[at + 13], F[at + 14]
    else:   # spherical (c < 3) and free (c < 6)
        S[c] = 1.0


# ------------------------------------------------------------------ algorithms
@njit
def forward_kinematics(F, I, q, Rl, tl, Rw, pw):
    """Fill the links' placements relative to their parents and in the world.

    Parameters
    ----------
    F, I : packed tree (`pack_tree`)
    q : ndarray, shape (nq,)
        Joint positions [rad, m, quaternions].
    Rl, tl : ndarray, shape (9 n,), (3 n,)
        Out: ``H_{lambda(i) i}(q)`` of each link (rotation row-major, translation).
    Rw, pw : ndarray, shape (9 n,), (3 n,)
        Out: the world pose ``H_{W i}`` of each link.
    """
    F, I, q, Rl, tl, Rw, pw = _borrow.record((F, I, q, Rl, tl, Rw, pw))   # uncounted: `kernels.borrow`
    n = I[0]
    tmp = _borrow.local(9)
    for i in range(n):
        at = _HEAD + _LINK * i
        par, kind, iq = I[_IHEAD + 4 * i], I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 2]
        for k in range(3):
            tl[3 * i + k] = F[at + 9 + k]
        if kind == 0 or kind == 2:
            for k in range(9):
                Rl[9 * i + k] = F[at + k]
            if kind == 2:
                for k in range(3):
                    tl[3 * i + k] += q[iq] * (F[at + 3 * k] * F[at + 12] + F[at + 3 * k + 1] * F[at + 13]
                                              + F[at + 3 * k + 2] * F[at + 14])
        else:
            if kind == 1:
                _axis_R(F[at + 12], F[at + 13], F[at + 14], q[iq], tmp, 0)
            else:
                _quat_R(q[iq], q[iq + 1], q[iq + 2], q[iq + 3], tmp, 0)
            _mat3(F, at, tmp, 0, Rl, 9 * i)
            if kind == 4:
                for k in range(3):
                    tl[3 * i + k] += (F[at + 3 * k] * q[iq + 4] + F[at + 3 * k + 1] * q[iq + 5]
                                      + F[at + 3 * k + 2] * q[iq + 6])
        if par < 0:
            for k in range(9):
                Rw[9 * i + k] = Rl[9 * i + k]
            for k in range(3):
                pw[3 * i + k] = tl[3 * i + k]
        else:
            _mat3(Rw, 9 * par, Rl, 9 * i, Rw, 9 * i)
            for k in range(3):
                pw[3 * i + k] = pw[3 * par + k] + (Rw[9 * par + 3 * k] * tl[3 * i] + Rw[9 * par + 3 * k + 1] * tl[3 * i + 1]
                                                   + Rw[9 * par + 3 * k + 2] * tl[3 * i + 2])


@njit
def link_velocities(F, I, Rl, tl, v, vel):
    """Fill the links' twists ``T_{W i}`` in their own frames, shape (6 n,), from the joint
    velocities v (nv,) and the relative placements of `forward_kinematics`."""
    F, I, Rl, tl, v, vel = _borrow.record((F, I, Rl, tl, v, vel))   # uncounted: `kernels.borrow`
    n = I[0]
    for i in range(n):
        at = _HEAD + _LINK * i
        par, kind, iv = I[_IHEAD + 4 * i], I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
        if par < 0:
            for k in range(6):
                vel[6 * i + k] = 0.0
        else:
            _motion_in(Rl, _borrow.span(tl, 3 * i, 3 * i + 3), 9 * i, vel, 6 * par, vel, 6 * i)
        if kind == 1:
            for k in range(3):
                vel[6 * i + k] += F[at + 12 + k] * v[iv]
        elif kind == 2:
            for k in range(3):
                vel[6 * i + 3 + k] += F[at + 12 + k] * v[iv]
        elif kind == 3:
            for k in range(3):
                vel[6 * i + k] += v[iv + k]
        elif kind == 4:
            for k in range(6):
                vel[6 * i + k] += v[iv + k]


@njit
def link_jacobians(F, I, Rl, tl):
    """The links' body Jacobians ``J_i`` (twist of link i in its own frame = ``J_i v``), shape
    (n, 6, nv), from the relative placements of `forward_kinematics`.

    Recursion ``J_i = X_i J_lambda(i) + S_i`` (the columns of joint i's own velocities), the
    same transform as `link_velocities` applied column by column: O(n nv).
    """
    n, nv = I[0], I[2]
    J = np.zeros((n, 6, nv))
    col = np.empty(6)
    out = np.empty(6)
    for i in range(n):
        at = _HEAD + _LINK * i
        par, kind, iv = I[_IHEAD + 4 * i], I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
        if par >= 0:
            for c in range(nv):
                nz = False
                for k in range(6):
                    col[k] = J[par, k, c]
                    nz = nz or col[k] != 0.0
                if nz:
                    _motion_in(Rl, _borrow.span(tl, 3 * i, 3 * i + 3), 9 * i, col, 0, out, 0)
                    for k in range(6):
                        J[i, k, c] = out[k]
        for c in range(_NV[kind]):
            _S_col(kind, F, at, c, col)
            for k in range(6):
                J[i, k, iv + c] = col[k]
    return J


@njit
def _external(F, I, Rw, fext, f):
    """f = -(fext + the links' weights), per link (6 n,): the wrenches the recursions subtract."""
    F, I, Rw, fext, f = _borrow.record((F, I, Rw, fext, f))   # uncounted: `kernels.borrow`
    n = I[0]
    a = _borrow.local(6)
    for i in range(n):
        at = _HEAD + _LINK * i
        for k in range(3):
            a[k] = 0.0
            a[3 + k] = Rw[9 * i + k] * F[0] + Rw[9 * i + 3 + k] * F[1] + Rw[9 * i + 6 + k] * F[2]
        _inertia_times(F, at + 15, a, 0, f, 6 * i)
        for k in range(6):
            f[6 * i + k] = -(f[6 * i + k] + fext[6 * i + k])


@njit
def rnea(F, I, q, v, a, fext):
    """Inverse dynamics: the joint efforts tau that give the accelerations a.

    ``tau = M(q) a + b(q, v) - sum_i J_i^T fext_i``, with b the Coriolis, centrifugal and
    gravity terms (Pinocchio's ``rnea``; ``b`` is ``rnea(q, v, 0, 0)``).

    Parameters
    ----------
    F, I : packed tree
    q : ndarray, shape (nq,)
    v, a : ndarray, shape (nv,)
        Joint velocities and accelerations.
    fext : ndarray, shape (6 n,)
        Wrenches applied on the links, each in its link frame at its origin [N m, N].

    Returns
    -------
    ndarray, shape (nv,) [N m, N]
    """
    n, nv = I[0], I[2]
    Rl, tl, Rw, pw = np.empty(9 * n), np.empty(3 * n), np.empty(9 * n), np.empty(3 * n)
    forward_kinematics(F, I, q, Rl, tl, Rw, pw)
    vel = np.empty(6 * n)
    link_velocities(F, I, Rl, tl, v, vel)
    acc = np.empty(6 * n)
    f = np.empty(6 * n)
    _external(F, I, Rw, fext, f)
    Sv = np.empty(6)
    c = np.empty(6)
    Iv = np.empty(6)
    for i in range(n):      # a_i = X_i a_parent + S_i a + T_i x_m (S_i v)
        at = _HEAD + _LINK * i
        par, kind, iv = I[_IHEAD + 4 * i], I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
        if par >= 0:
            _motion_in(Rl, _borrow.span(tl, 3 * i, 3 * i + 3), 9 * i, acc, 6 * par, acc, 6 * i)
        else:
            for k in range(6):
                acc[6 * i + k] = 0.0
        _joint_motion(F, at, kind, a, iv, Sv)
        for k in range(6):
            acc[6 * i + k] += Sv[k]
        _joint_motion(F, at, kind, v, iv, Sv)
        _cross_motion(vel, 6 * i, Sv, 0, c, 0)
        for k in range(6):
            acc[6 * i + k] += c[k]
    for i in range(n):
        at = _HEAD + _LINK * i
        _inertia_times(F, at + 15, acc, 6 * i, Sv, 0)
        _inertia_times(F, at + 15, vel, 6 * i, Iv, 0)
        for k in range(6):
            f[6 * i + k] += Sv[k]
        _cross_force(vel, 6 * i, Iv, 0, f, 6 * i)
    tau = np.zeros(nv)
    for i in range(n - 1, -1, -1):
        at = _HEAD + _LINK * i
        par, kind, iv = I[_IHEAD + 4 * i], I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
        for c_ in range(_NV[kind]):
            _S_col(kind, F, at, c_, Sv)
            acc_ = 0.0
            for k in range(6):
                acc_ += Sv[k] * f[6 * i + k]
            tau[iv + c_] = acc_
        if kind == 1 or kind == 2:
            tau[iv] += F[at + 51] * a[iv]
        if par >= 0:
            _force_out(Rl, 9 * i, _borrow.span(tl, 3 * i, 3 * i + 3), f, 6 * i, f, 6 * par)
    return tau


@njit(inline="always")
def _joint_motion(F, at, kind, v, iv, out):
    """out = S_i v_i (6,)."""
    for k in range(6):
        out[k] = 0.0
    if kind == 1:
        for k in range(3):
            out[k] = F[at + 12 + k] * v[iv]
    elif kind == 2:
        for k in range(3):
            out[3 + k] = F[at + 12 + k] * v[iv]
    elif kind == 3:
        for k in range(3):
            out[k] = v[iv + k]
    elif kind == 4:
        for k in range(6):
            out[k] = v[iv + k]


@njit
def crba(F, I, q):
    """The joint-space mass matrix M(q), shape (nv, nv) (composite-rigid-body algorithm;
    the rates use `aba`; the input matrix `tree_input_matrix` factors M once)."""
    n = I[0]
    Rl, tl, Rw, pw = np.empty(9 * n), np.empty(3 * n), np.empty(9 * n), np.empty(3 * n)
    forward_kinematics(F, I, q, Rl, tl, Rw, pw)
    return crba_placed(F, I, Rl, tl)


@njit
def crba_placed(F, I, Rl, tl):
    """`crba` from the relative placements of `forward_kinematics` (no second kinematics)."""
    n, nv = I[0], I[2]
    Ic = np.empty((n, 6, 6))
    for i in range(n):
        at = _HEAD + _LINK * i + 15
        for r in range(6):
            for c in range(6):
                Ic[i, r, c] = F[at + 6 * r + c]
    W = np.empty((6, 6))
    tmp = np.empty((6, 6))
    for i in range(n - 1, -1, -1):
        par = I[_IHEAD + 4 * i]
        if par >= 0:
            _add_to_parent(Rl, 9 * i, _borrow.span(tl, 3 * i, 3 * i + 3), _borrow.item(Ic, i), W, tmp, Ic, par)
    M = np.zeros((nv, nv))
    S = np.empty(6)
    Fc = np.empty(6)
    Fp = np.empty(6)
    for i in range(n):
        at = _HEAD + _LINK * i
        kind, iv = I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
        for c_ in range(_NV[kind]):
            _S_col(kind, F, at, c_, S)
            for r in range(6):
                acc = 0.0
                for k in range(6):
                    acc += Ic[i, r, k] * S[k]
                Fc[r] = acc
            j = i
            while j >= 0:
                atj = _HEAD + _LINK * j
                kj, ivj = I[_IHEAD + 4 * j + 1], I[_IHEAD + 4 * j + 3]
                for d in range(_NV[kj]):
                    _S_col(kj, F, atj, d, S)
                    acc = 0.0
                    for k in range(6):
                        acc += S[k] * Fc[k]
                    M[ivj + d, iv + c_] = acc
                    M[iv + c_, ivj + d] = acc
                pj = I[_IHEAD + 4 * j]
                if pj >= 0:
                    for k in range(6):
                        Fp[k] = 0.0
                    _force_out(Rl, 9 * j, _borrow.span(tl, 3 * j, 3 * j + 3), Fc, 0, Fp, 0)
                    for k in range(6):
                        Fc[k] = Fp[k]
                j = pj
        if kind == 1 or kind == 2:
            M[iv, iv] += F[at + 51]
    return M


@njit(inline="always")
def _cholesky(D, k, L):
    """L (a buffer of at least k x k: 6 x 6 in `aba`, nv x nv in `tree_input_matrix`) = the
    Cholesky factor of the k x k leading block of D; False if D is not positive definite."""
    for r in range(k):
        for c in range(r + 1):
            s = D[r, c]
            for m in range(c):
                s -= L[r, m] * L[c, m]
            if r == c:
                if not s > 0.0:
                    return False
                L[r, r] = math.sqrt(s)
            else:
                L[r, c] = s / L[c, c]
    return True


@njit(inline="always")
def _cholesky_solve(L, k, b):
    """Solve (L L^T) x = b in place (k entries of b)."""
    for r in range(k):
        s = b[r]
        for m in range(r):
            s -= L[r, m] * b[m]
        b[r] = s / L[r, r]
    for r in range(k - 1, -1, -1):
        s = b[r]
        for m in range(r + 1, k):
            s -= L[m, r] * b[m]
        b[r] = s / L[r, r]


@njit(inline="always")
def _rotate_block(R, at, S, i, j, tmp, out):
    """out[i:i+3, j:j+3] = R S[i:i+3, j:j+3] R^T (R row-major at R[at:at+9]; tmp: work, its
    leading 3x3 block overwritten)."""
    for r in range(3):
        for c in range(3):
            acc = 0.0
            for m in range(3):
                acc += S[i + r, j + m] * R[at + 3 * c + m]
            tmp[r, c] = acc
    for r in range(3):
        for c in range(3):
            acc = 0.0
            for m in range(3):
                acc += R[at + 3 * r + m] * tmp[m, c]
            out[i + r, j + c] = acc


@njit(inline="always")
def _add_to_parent(R, at, t, Ia, W, tmp, IA, par):
    """IA[par] += X^T Ia X with X = Ad(H_{child,parent}) = [[R^T, 0], [-R^T hat(t), R^T]]
    (H_{parent,child} = [[R, t], [0, 1]], R at R[at:at+9]), for a symmetric Ia = [[A, B],
    [B^T, D]], by 3x3 blocks (W, tmp: 6x6 work arrays)::

        Y22 = R D R^T,  Y12 = R B R^T + hat(t) Y22,  Y21 = Y12^T,
        Y11 = R A R^T + hat(t) (R B R^T)^T - Y12 hat(t)

    216 products against the 432 of the two 6x6 products (Go1's articulated-body algorithm
    5.7 -> 4.5 us, in a compiled loop); it reads only the upper blocks of Ia (the lower left
    one is the transpose of the upper right: the articulated and composite inertias the
    recursions pass are symmetric)."""
    _rotate_block(R, at, Ia, 0, 0, tmp, W)   # W[:3, :3] = R A R^T
    _rotate_block(R, at, Ia, 0, 3, tmp, W)   # W[:3, 3:] = R B R^T
    _rotate_block(R, at, Ia, 3, 3, tmp, W)   # W[3:, 3:] = Y22 = R D R^T
    t0, t1, t2 = t[0], t[1], t[2]
    for c in range(3):   # tmp[:3, :3] = Y12, column c: (R B R^T)[:, c] + t x Y22[:, c]
        y0, y1, y2 = W[3, 3 + c], W[4, 3 + c], W[5, 3 + c]
        tmp[0, c] = W[0, 3 + c] + t1 * y2 - t2 * y1
        tmp[1, c] = W[1, 3 + c] + t2 * y0 - t0 * y2
        tmp[2, c] = W[2, 3 + c] + t0 * y1 - t1 * y0
    for c in range(3):   # Y11[r, c] = (R A R^T)[r, c] + (t x (R B R^T)[c, :])[r] + (t x Y12[r, :])[c]
        w0, w1, w2 = W[c, 3], W[c, 4], W[c, 5]
        u = (t1 * w2 - t2 * w1, t2 * w0 - t0 * w2, t0 * w1 - t1 * w0)
        for r in range(3):
            v0, v1, v2 = tmp[r, 0], tmp[r, 1], tmp[r, 2]
            v = (t1 * v2 - t2 * v1, t2 * v0 - t0 * v2, t0 * v1 - t1 * v0)
            IA[par, r, c] += W[r, c] + u[r] + v[c]
    for r in range(3):
        for c in range(3):
            IA[par, r, 3 + c] += tmp[r, c]
            IA[par, 3 + c, r] += tmp[r, c]
            IA[par, 3 + r, 3 + c] += W[3 + r, 3 + c]


@njit
def aba(F, I, q, v, tau, fext, Rl, tl, Rw, pw, vel, acc, qdd):
    """Forward dynamics by Featherstone's articulated-body algorithm, O(n).

    Parameters
    ----------
    F, I : packed tree
    q : ndarray, shape (nq,)
    v, tau : ndarray, shape (nv,)
        Joint velocities and joint efforts [N m, N].
    fext : ndarray, shape (6 n,)
        Wrenches on the links, each in its link frame at its origin [N m, N].
    Rl, tl, Rw, pw, vel : work arrays, out
        The kinematics (`forward_kinematics`, `link_velocities`).
    acc : ndarray, shape (6 n,), out
        The links' accelerations (rates of their body twists) [rad/s^2, m/s^2].
    qdd : ndarray, shape (nv,), out
        dv/dt.

    Returns
    -------
    bool
        False if an articulated inertia seen by a joint is not positive definite (massless
        links without a massive child), with qdd then nan.

    Notes
    -----
    Joints of one degree of freedom (most of a robot's) take the scalar branch: U_i = IA_i S_i
    is a 6-vector, the three columns of IA_i that the joint's axis combines (18 products), and
    D_i a number, divided by rather than factored, so Ia = IA - U U^T / D costs 36 products
    (Go1's rates kernel 3.8 -> 3.5 us, called from Python); spherical and free joints factor
    their 3x3 or 6x6 D_i once (Cholesky).
    """
    forward_kinematics(F, I, q, Rl, tl, Rw, pw)
    link_velocities(F, I, Rl, tl, v, vel)
    return aba_placed(F, I, v, tau, fext, Rl, tl, Rw, vel, acc, qdd)


@njit
def aba_placed(F, I, v, tau, fext, Rl, tl, Rw, vel, acc, qdd):
    """`aba` at kinematics already computed (`forward_kinematics`, `link_velocities`: the
    arrays they fill, read here): the recursions alone, for the rates kernel that reads the
    kinematics the outputs kernel computed at the same state (`tree_rates_read`)."""
    n = I[0]
    M = np.empty((3, n, 6, 6))   # the articulated inertias IA_i, U_i = IA_i S_i, D_i's factors (1 DOF: D_i)
    V = np.empty((3, 6 * n))     # the bias forces pA_i, the velocity products c_i, D_i^-1 u_i
    return _aba_passes(F, I, v, tau, fext, Rl, tl, Rw, vel, acc, qdd, M, V)


@njit
def _aba_passes(F, I, v, tau, fext, Rl, tl, Rw, vel, acc, qdd, M, V):
    """The three passes of `aba_placed` in its work arrays `M`, `V` (their values on entry
    unused). Every array it reads or writes is borrowed (`porthamiltonian.kernels.borrow`: its
    caller holds them for the call) or a scratch array on its stack (`borrow.local`), so that
    the small helpers compiled into its loops count no references: the Go1's rates kernel
    183 -> 42 counts per call (`benchmarks/refcounts.py`), 15 -> 2 arrays in the recursions."""
    (F, I, v, tau, fext, Rl, tl, Rw, vel, acc, qdd, M, V) = _borrow.record(
        (F, I, v, tau, fext, Rl, tl, Rw, vel, acc, qdd, M, V))
    n = I[0]
    IA, U, Ls = _borrow.item(M, 0), _borrow.item(M, 1), _borrow.item(M, 2)
    pA, c, Dinv_u = _borrow.item(V, 0), _borrow.item(V, 1), _borrow.item(V, 2)
    _external(F, I, Rw, fext, pA)
    Sv = _borrow.local(6)
    Iv = _borrow.local(6)
    for i in range(n):
        at = _HEAD + _LINK * i
        kind, iv = I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
        for r in range(6):
            for cc in range(6):
                IA[i, r, cc] = F[at + 15 + 6 * r + cc]
        _inertia_times(F, at + 15, vel, 6 * i, Iv, 0)
        _cross_force(vel, 6 * i, Iv, 0, pA, 6 * i)
        _joint_motion(F, at, kind, v, iv, Sv)
        _cross_motion(vel, 6 * i, Sv, 0, c, 6 * i)
    W = _borrow.local(6, 6)
    tmp = _borrow.local(6, 6)
    Ia = _borrow.local(6, 6)
    pa = _borrow.local(6)
    D = _borrow.local(6, 6)
    b = _borrow.local(6)
    S = _borrow.local(6, 6)
    ok = True
    for i in range(n - 1, -1, -1):
        at = _HEAD + _LINK * i
        par, kind, iv = I[_IHEAD + 4 * i], I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
        k = _NV[kind]
        if k == 1:   # revolute S = (a, 0), prismatic S = (0, a): D_i a number, stored in Ls[i, 0, 0]
            o = 3 * (kind - 1)
            a0, a1, a2 = F[at + 12], F[at + 13], F[at + 14]
            for r in range(6):
                U[i, r, 0] = IA[i, r, o] * a0 + IA[i, r, o + 1] * a1 + IA[i, r, o + 2] * a2
            Dk = F[at + 51] + a0 * U[i, o, 0] + a1 * U[i, o + 1, 0] + a2 * U[i, o + 2, 0]
            if not Dk > 0.0:
                ok = False
                break
            Ls[i, 0, 0] = Dk
            Dinv_u[6 * i] = (tau[iv] - (a0 * pA[6 * i + o] + a1 * pA[6 * i + o + 1] + a2 * pA[6 * i + o + 2])) / Dk
        elif k > 1:   # spherical, free: D_i factored (Cholesky)
            for cc in range(k):
                _S_col(kind, F, at, cc, Sv)
                for r in range(6):
                    S[r, cc] = Sv[r]
                    a_ = 0.0
                    for m in range(6):
                        a_ += IA[i, r, m] * Sv[m]
                    U[i, r, cc] = a_
            for r in range(k):
                s = tau[iv + r]
                for m in range(6):
                    s -= S[m, r] * pA[6 * i + m]
                b[r] = s
                for cc in range(k):
                    a_ = 0.0
                    for m in range(6):
                        a_ += S[m, r] * U[i, m, cc]
                    D[r, cc] = a_
            if not _cholesky(D, k, _borrow.item(Ls, i)):
                ok = False
                break
            _cholesky_solve(_borrow.item(Ls, i), k, b)
            for r in range(k):
                Dinv_u[6 * i + r] = b[r]
        if par < 0:
            continue
        for r in range(6):
            for cc in range(6):
                Ia[r, cc] = IA[i, r, cc]
        if k == 1:
            d = Ls[i, 0, 0]
            for r in range(6):
                ur = U[i, r, 0] / d
                for cc in range(6):
                    Ia[r, cc] -= ur * U[i, cc, 0]
        elif k > 1:
            for m in range(6):          # Ia -= U D^-1 U^T, column m: U (D^-1 (row m of U))
                for r in range(k):
                    Sv[r] = U[i, m, r]
                _cholesky_solve(_borrow.item(Ls, i), k, Sv)
                for r in range(6):
                    a_ = 0.0
                    for cc in range(k):
                        a_ += U[i, r, cc] * Sv[cc]
                    Ia[r, m] -= a_
        for r in range(6):
            a_ = pA[6 * i + r]
            for cc in range(6):
                a_ += Ia[r, cc] * c[6 * i + cc]
            for cc in range(k):
                a_ += U[i, r, cc] * Dinv_u[6 * i + cc]
            pa[r] = a_
        _add_to_parent(Rl, 9 * i, _borrow.span(tl, 3 * i, 3 * i + 3), Ia, W, tmp, IA, par)
        _force_out(Rl, 9 * i, _borrow.span(tl, 3 * i, 3 * i + 3), pa, 0, pA, 6 * par)
    if not ok:
        for r in range(qdd.shape[0]):
            qdd[r] = np.nan
        return False
    for i in range(n):
        at = _HEAD + _LINK * i
        par, kind, iv = I[_IHEAD + 4 * i], I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
        k = _NV[kind]
        if par >= 0:
            _motion_in(Rl, _borrow.span(tl, 3 * i, 3 * i + 3), 9 * i, acc, 6 * par, acc, 6 * i)
        else:
            for r in range(6):
                acc[6 * i + r] = 0.0
        for r in range(6):
            acc[6 * i + r] += c[6 * i + r]
        if k == 1:
            s = 0.0
            for m in range(6):
                s += U[i, m, 0] * acc[6 * i + m]
            qdd[iv] = Dinv_u[6 * i] - s / Ls[i, 0, 0]
        elif k > 1:
            for r in range(k):          # qdd = D^-1 u - D^-1 U^T a
                s = 0.0
                for m in range(6):
                    s += U[i, m, r] * acc[6 * i + m]
                b[r] = s
            _cholesky_solve(_borrow.item(Ls, i), k, b)
            for r in range(k):
                qdd[iv + r] = Dinv_u[6 * i + r] - b[r]
        if k > 0:
            _joint_motion(F, at, kind, qdd, iv, Sv)
            for r in range(6):
                acc[6 * i + r] += Sv[r]
    return True


@njit
def energy(F, I, q, v):
    """Kinetic energy of the tree (links and armatures) plus the potential of its weight [J]."""
    n = I[0]
    Rl, tl, Rw, pw = np.empty(9 * n), np.empty(3 * n), np.empty(9 * n), np.empty(3 * n)
    forward_kinematics(F, I, q, Rl, tl, Rw, pw)
    vel = np.empty(6 * n)
    link_velocities(F, I, Rl, tl, v, vel)
    return kinetic_energies(F, I, vel).sum() + armature_energy(F, I, v) + weight_potential(F, I, Rw, pw)


@njit(inline="always")
def _armature_term(F, I, v, i):
    """Kinetic energy 1/2 a_i v_i^2 of joint i's armature [J] (0 for a joint that has none)."""
    kind, iv = I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 3]
    if kind == 1 or kind == 2:
        return 0.5 * F[_HEAD + _LINK * i + 51] * v[iv] * v[iv]
    return 0.0


@njit
def armature_energy(F, I, v):
    """Kinetic energy of the joints' armatures, sum 1/2 a_i v_i^2 [J]."""
    E = 0.0
    for i in range(I[0]):
        E += _armature_term(F, I, v, i)
    return E


@njit
def energy_series(F, I, Q, V):
    """``(E, P)`` at the states (rows of Q and V): E (N, n) the links' kinetic energies, each
    with its joint's armature, and P (N,) the weight's potential [J] (one compiled loop: the
    ledger's split of a trajectory, `ArticulatedBody.energy_parts_series`)."""
    n, N = I[0], Q.shape[0]
    E, P = np.empty((N, n)), np.empty(N)
    Rl, tl, Rw, pw, vel = np.empty(9 * n), np.empty(3 * n), np.empty(9 * n), np.empty(3 * n), np.empty(6 * n)
    for s in range(N):
        forward_kinematics(F, I, Q[s], Rl, tl, Rw, pw)
        link_velocities(F, I, Rl, tl, V[s], vel)
        E[s] = kinetic_energies(F, I, vel)
        for i in range(n):
            E[s, i] += _armature_term(F, I, V[s], i)
        P[s] = weight_potential(F, I, Rw, pw)
    return E, P


@njit
def kinetic_energies(F, I, vel):
    """The links' kinetic energies 1/2 T_i . M_i T_i, shape (n,) [J]."""
    n = I[0]
    out = np.empty(n)
    Iv = np.empty(6)
    for i in range(n):
        _inertia_times(F, _HEAD + _LINK * i + 15, vel, 6 * i, Iv, 0)
        s = 0.0
        for k in range(6):
            s += vel[6 * i + k] * Iv[k]
        out[i] = 0.5 * s
    return out


@njit
def weight_potential(F, I, Rw, pw):
    """-sum_i m_i g . p_com,i [J] (m_i = M_i[3, 3], m_i c_i = (M_i[4, 2], M_i[5, 0], M_i[3, 1]):
    the block -m hat(c) of the spatial inertia)."""
    n = I[0]
    V = 0.0
    for i in range(n):
        at = _HEAD + _LINK * i + 15
        m = F[at + 21]
        mc0, mc1, mc2 = F[at + 6 * 4 + 2], F[at + 6 * 5 + 0], F[at + 6 * 3 + 1]
        for k in range(3):
            p = m * pw[3 * i + k] + Rw[9 * i + 3 * k] * mc0 + Rw[9 * i + 3 * k + 1] * mc1 + Rw[9 * i + 3 * k + 2] * mc2
            V -= F[k] * p
    return V


@njit
def config_rate(I, q, v, qd):
    """Fill dq/dt (nq,) from the joint velocities v (see the module's table)."""
    n = I[0]
    R = np.empty(9)
    for i in range(n):
        kind, iq, iv = I[_IHEAD + 4 * i + 1], I[_IHEAD + 4 * i + 2], I[_IHEAD + 4 * i + 3]
        if kind == 1 or kind == 2:
            qd[iq] = v[iv]
        elif kind >= 3:
            w, x, y, z = q[iq], q[iq + 1], q[iq + 2], q[iq + 3]   # as given: |q| is a first integral
            a, b, c = v[iv], v[iv + 1], v[iv + 2]
            qd[iq] = 0.5 * (-x * a - y * b - z * c)
            qd[iq + 1] = 0.5 * (w * a + y * c - z * b)
            qd[iq + 2] = 0.5 * (w * b + z * a - x * c)
            qd[iq + 3] = 0.5 * (w * c + x * b - y * a)
            if kind == 4:
                _quat_R(w, x, y, z, R, 0)
                for k in range(3):
                    qd[iq + 4 + k] = R[3 * k] * v[iv + 3] + R[3 * k + 1] * v[iv + 4] + R[3 * k + 2] * v[iv + 5]


# ------------------------------------------------------------------ element kernels
# `library.articulated_body.ArticulatedBody`: own state x = (q (nq), v (nv), then per ported
# link its mirrored pose (7) and twist (6)); I = (the tree, then n_lp, the ported links'
# indices, n_jp, the ported joints' indices); the port inputs are the wrenches on the ported
# links (6 each, link frame), then the efforts on the ported joints (nv of each joint).


@njit
def _port_offsets(I):
    """Offsets of the ports in the stacked port vector, shape (n_ports + 1,)."""
    n = I[0]
    base = _IHEAD + 4 * n
    nlp = I[base]
    njp = I[base + 1 + nlp]
    o = np.zeros(nlp + njp + 1, dtype=np.int64)
    for k in range(nlp):
        o[k + 1] = o[k] + 6
    for k in range(njp):
        j = I[base + 2 + nlp + k]
        o[nlp + k + 1] = o[nlp + k] + _NV[I[_IHEAD + 4 * j + 1]]
    return o


@njit
def tree_rates_flat(x, W, F, I):
    """Return the rates of an articulated body's own state.

    Parameters
    ----------
    x : ndarray, shape (nq + nv + 13 n_lp,)
    W : ndarray, shape (6 n_lp + sum of the ported joints' nv,)
        The port efforts stacked: wrenches on the ported links (link frame) [N m, N], then
        efforts on the ported joints [N m, N].
    F, I : packed tree with its ports

    Returns
    -------
    ndarray, shape like x
        (dq/dt, dv/dt, the mirrors' rates); nan in dv/dt if the articulated inertia is
        singular (`aba`).
    """
    Rl, tl, Rw, pw, vel = tree_kinematics(x, F, I)
    return tree_rates_placed(x, W, F, I, Rl, tl, Rw, vel)


@njit
def tree_kinematics(x, F, I):
    """``(Rl, tl, Rw, pw, vel)`` of an articulated body's own state: `forward_kinematics` and
    `link_velocities`; the five are views of one array."""
    n, nq, nv = I[0], I[1], I[2]
    K = np.empty(30 * n)
    Rl, tl, Rw, pw, vel = K[: 9 * n], K[9 * n : 12 * n], K[12 * n : 21 * n], K[21 * n : 24 * n], K[24 * n :]
    forward_kinematics(F, I, x[0:nq], Rl, tl, Rw, pw)
    link_velocities(F, I, Rl, tl, x[nq : nq + nv], vel)
    return Rl, tl, Rw, pw, vel


@njit
def tree_rates_placed(x, W, F, I, Rl, tl, Rw, vel):
    """`tree_rates_flat` at the kinematics of `tree_kinematics` (`aba_placed`). Its arguments are
    borrowed (`kernels.borrow`: it returns a new array), its link wrenches, joint efforts and
    link accelerations are one work array."""
    x, W, F, I, Rl, tl, Rw, vel = _borrow.record((x, W, F, I, Rl, tl, Rw, vel))
    n, nq, nv = I[0], I[1], I[2]
    base = _IHEAD + 4 * n
    nlp = I[base]
    njp = I[base + 1 + nlp]
    v = x[nq : nq + nv]
    work = np.zeros(12 * n + nv)
    fext, acc, tau = work[: 6 * n], work[6 * n : 12 * n], work[12 * n :]
    at = 0
    for k in range(nlp):
        i = I[base + 1 + k]
        for r in range(6):
            fext[6 * i + r] += W[at + r]
        at += 6
    for k in range(njp):
        j = I[base + 2 + nlp + k]
        iv = I[_IHEAD + 4 * j + 3]
        for r in range(_NV[I[_IHEAD + 4 * j + 1]]):
            tau[iv + r] += W[at]
            at += 1
    out = np.empty(x.shape[0])
    aba_placed(F, I, v, tau, fext, Rl, tl, Rw, vel, acc, _borrow.span(out, nq, nq + nv))   # `out`: returned
    config_rate(I, x[0:nq], v, _borrow.span(out, 0, nq))
    at = nq + nv
    for k in range(nlp):
        i = I[base + 1 + k]
        pose_rate_into(_borrow.span(x, at, at + 7), _borrow.span(vel, 6 * i, 6 * i + 6),
                       _borrow.span(out, at, at + 7))
        for r in range(6):
            out[at + 7 + r] = acc[6 * i + r]
        at += 13
    return out


@njit(inline="always")
def _stacked(inputs):
    """The port efforts of a rates kernel's inputs, stacked (`tree_rates_flat`'s W)."""
    m = 0
    for a in inputs:
        m += a.shape[0]
    W = np.empty(m)
    at = 0
    for a in inputs:
        for r in range(a.shape[0]):
            W[at + r] = a[r]
        at += a.shape[0]
    return W


@njit
def tree_rates(t, x, refs, inputs, F, I):
    """The rates kernel of `ArticulatedBody` (`tree_rates_flat` on the stacked inputs)."""
    return tree_rates_flat(x, _stacked(_borrow.record(inputs)), F, I)   # uncounted reads: `kernels.borrow`


@njit
def tree_rates_read(t, x, refs, inputs, sh, F, I):
    """`tree_rates` at the kinematics its outputs kernel computed at the same state and shares
    (`Kernel.shares`: the record ``(0, Rl, tl, Rw, pw, vel)`` of `tree_outputs_shared`), not
    computed again: the Go1's forward kinematics and link velocities once per evaluation."""
    sh, inputs = _borrow.record(sh), _borrow.record(inputs)   # uncounted reads: `kernels.borrow`
    return tree_rates_placed(x, _stacked(inputs), F, I, sh[1], sh[2], sh[3], sh[5])


@njit
def tree_rates_unported(t, x, refs, inputs, F, I):
    """The rates kernel of an `ArticulatedBody` with no port (nothing bonded to it): numba
    cannot type `tree_rates`' loop over an empty tuple of inputs, so such a tree (a pendulum
    chain under its own weight) would otherwise never leave the Python path."""
    return tree_rates_flat(x, np.zeros(0), F, I)


@njit
def tree_outputs_flat(x, F, I):
    """Return the port flows stacked: the ported links' twists (link frame), then the ported
    joints' velocities."""
    nlp = I[_IHEAD + 4 * I[0]]
    vel = tree_kinematics(x, F, I)[4] if nlp > 0 else np.empty(0)
    return tree_ports(x, vel, I)


@njit
def tree_ports(x, vel, I):
    """The port flows stacked (`tree_outputs_flat`) at the link velocities `vel`."""
    n, nq, nv = I[0], I[1], I[2]
    base = _IHEAD + 4 * n
    nlp = I[base]
    njp = I[base + 1 + nlp]
    o = _port_offsets(I)
    y = np.empty(o[o.shape[0] - 1])
    v = x[nq : nq + nv]
    for k in range(nlp):
        i = I[base + 1 + k]
        for r in range(6):
            y[6 * k + r] = vel[6 * i + r]
    for k in range(njp):
        j = I[base + 2 + nlp + k]
        iv = I[_IHEAD + 4 * j + 3]
        for r in range(o[nlp + k + 1] - o[nlp + k]):
            y[o[nlp + k] + r] = v[iv + r]
    return y


@njit
def tree_outputs_shared(x, F, I):
    """The port flows stacked and the record the rates kernel reads (`tree_rates_read`):
    ``(0, Rl, tl, Rw, pw, vel)`` (`tree_kinematics`; entry 0 the status, always OK, which the
    generated right-hand side tests as a contact's)."""
    Rl, tl, Rw, pw, vel = tree_kinematics(x, F, I)
    return tree_ports(x, vel, I), (0, Rl, tl, Rw, pw, vel)


def tree_outputs_list(x, F, I):
    """The port flows as a tuple, one array per port (the Python path)."""
    y = tree_outputs_flat(np.asarray(x, dtype=np.float64), F, I)
    o = _port_offsets(I)
    return tuple(y[o[k] : o[k + 1]] for k in range(len(o) - 1))


@njit
def tree_energy(x, F, I):
    """Kinetic energy plus the weight's potential of an articulated body [J] from its own state."""
    nq, nv = I[1], I[2]
    return energy(F, I, x[0:nq], x[nq : nq + nv])


# A tuple's length is part of its type: one outputs kernel per number of ports (as
# `bodies.RIGID_BODY_OUTPUTS`), written out below (kept in the source so that numba caches
# them); each returns its ports, then the kinematics it shares (`tree_outputs_shared`).


@njit
def tree_outputs1(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], sh,)


@njit
def tree_outputs2(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], sh,)


@njit
def tree_outputs3(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], sh,)


@njit
def tree_outputs4(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], sh,)


@njit
def tree_outputs5(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], sh,)


@njit
def tree_outputs6(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], sh,)


@njit
def tree_outputs7(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], sh,)


@njit
def tree_outputs8(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], sh,)


@njit
def tree_outputs9(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], sh,)


@njit
def tree_outputs10(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], sh,)


@njit
def tree_outputs11(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], sh,)


@njit
def tree_outputs12(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], sh,)


@njit
def tree_outputs13(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], sh,)


@njit
def tree_outputs14(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], sh,)


@njit
def tree_outputs15(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], sh,)


@njit
def tree_outputs16(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], sh,)


@njit
def tree_outputs17(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], y[o[16]:o[17]], sh,)


@njit
def tree_outputs18(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], y[o[16]:o[17]], y[o[17]:o[18]], sh,)


@njit
def tree_outputs19(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], y[o[16]:o[17]], y[o[17]:o[18]], y[o[18]:o[19]], sh,)


@njit
def tree_outputs20(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], y[o[16]:o[17]], y[o[17]:o[18]], y[o[18]:o[19]], y[o[19]:o[20]], sh,)


@njit
def tree_outputs21(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], y[o[16]:o[17]], y[o[17]:o[18]], y[o[18]:o[19]], y[o[19]:o[20]], y[o[20]:o[21]], sh,)


@njit
def tree_outputs22(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], y[o[16]:o[17]], y[o[17]:o[18]], y[o[18]:o[19]], y[o[19]:o[20]], y[o[20]:o[21]], y[o[21]:o[22]], sh,)


@njit
def tree_outputs23(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], y[o[16]:o[17]], y[o[17]:o[18]], y[o[18]:o[19]], y[o[19]:o[20]], y[o[20]:o[21]], y[o[21]:o[22]], y[o[22]:o[23]], sh,)


@njit
def tree_outputs24(t, x, refs, F, I):
    y, sh = tree_outputs_shared(x, F, I)
    o = _port_offsets(I)
    return (y[o[0]:o[1]], y[o[1]:o[2]], y[o[2]:o[3]], y[o[3]:o[4]], y[o[4]:o[5]], y[o[5]:o[6]], y[o[6]:o[7]], y[o[7]:o[8]], y[o[8]:o[9]], y[o[9]:o[10]], y[o[10]:o[11]], y[o[11]:o[12]], y[o[12]:o[13]], y[o[13]:o[14]], y[o[14]:o[15]], y[o[15]:o[16]], y[o[16]:o[17]], y[o[17]:o[18]], y[o[18]:o[19]], y[o[19]:o[20]], y[o[20]:o[21]], y[o[21]:o[22]], y[o[22]:o[23]], y[o[23]:o[24]], sh,)


TREE_OUTPUTS = (tree_outputs1, tree_outputs2, tree_outputs3, tree_outputs4, tree_outputs5, tree_outputs6, tree_outputs7, tree_outputs8, tree_outputs9, tree_outputs10, tree_outputs11, tree_outputs12, tree_outputs13, tree_outputs14, tree_outputs15, tree_outputs16, tree_outputs17, tree_outputs18, tree_outputs19, tree_outputs20, tree_outputs21, tree_outputs22, tree_outputs23, tree_outputs24)


# ------------------------------------------------------------------ joint elements
# `library.joint_elements`: one-degree-of-freedom laws on a joint port (flow the joint
# velocity, effort the torque/force on the element). ``refs[0]`` is the robot's q block where
# read, ``I = (q index,)``.


@njit
def joint_damper_law(t, inputs, refs, F, I):
    """Viscous damper: effort ``c v`` (F = (c,)); dissipates c v^2."""
    return (F[0] * inputs[0],)


@njit
def joint_damper_law_jacobian(t, inputs, refs, F, I):
    out = np.empty((1, 1))
    out[0, 0] = F[0]
    return out


@njit
def joint_friction_law(t, inputs, refs, F, I):
    """Regularised Coulomb friction: effort ``F_c v / sqrt(v^2 + eps^2)`` (F = (F_c, eps)), the
    regularisation of the package's sliding friction; dissipates F_c v^2 / sqrt(v^2 + eps^2)."""
    v = inputs[0][0]
    out = np.empty(1)
    out[0] = F[0] * v / math.sqrt(v * v + F[1] * F[1])
    return (out,)


@njit
def joint_friction_law_jacobian(t, inputs, refs, F, I):
    v = inputs[0][0]
    s = v * v + F[1] * F[1]
    out = np.empty((1, 1))
    out[0, 0] = F[0] * F[1] * F[1] / (s * math.sqrt(s))
    return out


@njit
def joint_spring_outputs(t, x, refs, F, I):
    """Spring to a rest position: effort ``k (q - rest)`` (F = (k, rest))."""
    out = np.empty(1)
    out[0] = F[0] * (refs[0][I[0]] - F[1])
    return (out,)


@njit
def limit_penetration(q, lower, upper):
    """Signed overshoot past the stops: q - upper above, q - lower (< 0) below, else 0."""
    if q > upper:
        return q - upper
    if q < lower:
        return q - lower
    return 0.0


@njit
def joint_limit_outputs(t, x, refs, F, I):
    """Compliant stops: effort ``k d`` with d the overshoot (F = (k, lower, upper)); stores
    1/2 k d^2."""
    out = np.empty(1)
    out[0] = F[0] * limit_penetration(refs[0][I[0]], F[1], F[2])
    return (out,)


@njit
def joint_limit_damper_law(t, inputs, refs, F, I):
    """Damping of the stops: effort ``c |d| v`` while past a stop (F = (c, lower, upper)); zero
    at first touch, dissipates c |d| v^2."""
    d = abs(limit_penetration(refs[0][I[0]], F[1], F[2]))
    return (F[0] * d * inputs[0],)


@njit
def joint_limit_damper_law_jacobian(t, inputs, refs, F, I):
    out = np.empty((1, 1))
    out[0, 0] = F[0] * abs(limit_penetration(refs[0][I[0]], F[1], F[2]))
    return out


@njit
def tree_input_matrix(t, x, refs, F, I):
    """``d(rates)/d(inputs)`` of `tree_rates`, shape (len(x), n_port_efforts).

    The rates are affine in the port efforts ``W`` (link wrenches, then joint efforts):
    ``dv/dt = M(q)^-1 (tau_J + sum_k J_k^T w_k - b(q, v))``, so the columns are, in closed form,

    - rows of dv/dt: ``M^-1 J_k^T`` for a ported link k (``J_k`` its body Jacobian,
      `link_jacobians`), ``M^-1 E_j`` for a ported joint j (E_j its velocity columns);
    - rows of a ported link's mirrored twist (whose rate is the link acceleration
      ``J_i dv/dt + dJ_i/dt v``): ``J_i`` times those;
    - zero for dq/dt and the mirrored poses (they depend on v, not on W).

    One forward kinematics, one composite-rigid-body pass (`crba_placed`), one Cholesky
    factorisation of M and nv-sized triangular solves for the columns: O(n nv + nv^3 / 6 +
    nv^2 m) instead of the m + 1 articulated-body passes that probing the rates at unit
    efforts cost (Go1, m = 24 port efforts: 25 passes). The compiled path uses it for the
    sensitivities of the multiplier solve (constraints bonded to links). A mass matrix that
    is not positive definite gives NaN columns (the caller falls back to the Python path,
    where `aba` reports it).
    """
    n, nq, nv = I[0], I[1], I[2]
    base = _IHEAD + 4 * n
    nlp = I[base]
    njp = I[base + 1 + nlp]
    o = _port_offsets(I)
    m = o[o.shape[0] - 1]
    B = np.zeros((x.shape[0], m))
    Rl, tl, Rw, pw = np.empty(9 * n), np.empty(3 * n), np.empty(9 * n), np.empty(3 * n)
    forward_kinematics(F, I, x[0:nq], Rl, tl, Rw, pw)
    M = crba_placed(F, I, Rl, tl)
    J = link_jacobians(F, I, Rl, tl)
    L = np.zeros((nv, nv))
    if not _cholesky(M, nv, L):
        B[:, :] = np.nan
        return B
    Y = np.zeros((nv, m))           # J^T columns, then M^-1 J^T in place
    for k in range(nlp):
        i = I[base + 1 + k]
        for r in range(nv):
            for c in range(6):
                Y[r, 6 * k + c] = J[i, c, r]
    for k in range(njp):
        j = I[base + 2 + nlp + k]
        iv = I[_IHEAD + 4 * j + 3]
        for r in range(o[nlp + k + 1] - o[nlp + k]):
            Y[iv + r, o[nlp + k] + r] = 1.0
    b = np.empty(nv)
    for c in range(m):
        for r in range(nv):
            b[r] = Y[r, c]
        _cholesky_solve(L, nv, b)
        for r in range(nv):
            Y[r, c] = b[r]
            B[nq + r, c] = b[r]
    for k in range(nlp):
        i = I[base + 1 + k]
        row = nq + nv + 13 * k + 7
        for r in range(6):
            for c in range(m):
                acc = 0.0
                for s in range(nv):
                    acc += J[i, r, s] * Y[s, c]
                B[row + r, c] = acc
    return B


@njit
def tree_output_jacobian(t, x, refs, F, I):
    """The output Jacobian of `tree_outputs_flat` along the motion, shape (n_port_flows, len(x)):
    a selection, ``J @ dx/dt`` = d(port flows)/dt exactly. A ported link's twist is read from
    its mirrored twist, whose rate (`tree_rates_flat`) is the link's acceleration from the
    recursion, so the time derivative of the link's twist is exact without differentiating the
    kinematics in q; a ported joint's velocity is read from v. Used by the constraint tangents
    (d/dt of the flows a sliding-plane contact reads), not a Jacobian in every direction of x."""
    n, nq, nv = I[0], I[1], I[2]
    base = _IHEAD + 4 * n
    nlp = I[base]
    njp = I[base + 1 + nlp]
    o = _port_offsets(I)
    J = np.zeros((o[o.shape[0] - 1], x.shape[0]))
    for k in range(nlp):
        for r in range(6):
            J[6 * k + r, nq + nv + 13 * k + 7 + r] = 1.0
    for k in range(njp):
        j = I[base + 2 + nlp + k]
        iv = I[_IHEAD + 4 * j + 3]
        for r in range(o[nlp + k + 1] - o[nlp + k]):
            J[o[nlp + k] + r, nq + iv + r] = 1.0
    return J
