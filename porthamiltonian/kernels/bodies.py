"""Compiled rigid-body rates, gravity, point-to-point springs and dampers, spatial dampers.

Each element packs its constant parameters once, at construction, into one flat float64
array ``F`` (layouts below); the kernels take ``F`` and slices of the state. Twists are
``(omega, v)``, wrenches ``(tau, f)``, poses ``(qw, qx, qy, qz, px, py, pz)`` as in
`porthamiltonian.kernels.lie`.

Layouts::

    rigid body  F = (M^-1 (36, row-major), Ad(H_FB) of frame k (36, row-major) for k < n_frames)
    gravity     F = (m, g (3), com (3), Ad(H_BF)^T (36), Ad(H_FB)^T (36))
    point pair  F = (H_a (16), H_b (16), r_a (3), r_b (3), coefficient)
    spatial damper  F = (H_a (16), H_b (16), D (36, row-major))
    spatial spring  F = (H_a (16), H_b (16), K (36, row-major), H_0^-1 (16))

For a point pair or a spatial damper, ``H_a`` is ``H_BF`` of frame a if its body moves (its
pose is passed) and ``H_WF`` if it is on the ground (the identity pose `IDENTITY_POSE` is
passed instead); the coefficient is the stiffness k [N/m] of a spring or the damping c
[N s/m] of a damper. The element kernels of two-frame elements take ``I = (moving_a,
moving_b)``: ``refs`` holds the poses of the moving frames' bodies only.
"""

from __future__ import annotations

import numpy as np
from . import borrow as _borrow
from ._njit import njit
from numba.extending import overload

from .lie import (adjoint, mm, pose_gradient, pose_rate_into, pose_rate_map, pose_to_matrix, put, put2, se3_inverse,
                  se3_jacobian_inverse, se3_log)

#: argument types of the versions compiled ahead (`porthamiltonian.kernels._njit.njit`'s
#: ``prebuilt``): those the built-in models' right-hand sides and the Python path call
_F_I = "f8[::1], i8[::1]"
_OUTPUTS_ARGS = f"f8, f8[::1], Tuple(()), {_F_I}"
_ENERGY_ARGS = "f8[::1], f8[::1]"

#: the pose of the world frame, passed for a frame on the ground
IDENTITY_POSE = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])


def pack_rigid_body(Minv, Ad_FB):
    """Pack a rigid body (called once, at construction; not a kernel).

    Parameters
    ----------
    Minv : ndarray, shape (6, 6)
        Inverse spatial inertia [1/kg, 1/(kg m^2), ...].
    Ad_FB : sequence of ndarray, shape (6, 6)
        ``Ad(H_FB)`` of each port frame, body frame "B" first.

    Returns
    -------
    ndarray, shape (36 + 36 n_frames,)
    """
    return np.concatenate([np.ravel(Minv)] + [np.ravel(A) for A in Ad_FB]).astype(np.float64)


@njit
def _twist(F, x):
    """Body twist T = M^-1 P (6,) from the body state x = (pose, P) (13,)."""
    T = np.empty(6)
    for i in range(6):
        acc = 0.0
        for j in range(6):
            acc += F[6 * i + j] * x[7 + j]
        T[i] = acc
    return T


@njit(prebuilt=(_ENERGY_ARGS,))
def body_energy(F, x):
    """Return the kinetic energy of a rigid body.

    Parameters
    ----------
    F : ndarray, shape (36 + 36 n_frames,)
        Packed rigid body (`pack_rigid_body`).
    x : ndarray, shape (13,)
        Body state (pose (7), body momentum P (6) [N m s, N s]).

    Returns
    -------
    float [J]
        ``1/2 P . M^-1 P``.
    """
    T = _twist(F, x)
    acc = 0.0
    for i in range(6):
        acc += x[7 + i] * T[i]
    return 0.5 * acc


@njit
def body_gradient(F, x):
    """Return the gradient of the kinetic energy over the body state.

    Parameters
    ----------
    F : ndarray, shape (36 + 36 n_frames,)
    x : ndarray, shape (13,)

    Returns
    -------
    ndarray, shape (13,)
        ``(0 (7), M^-1 P)``: the energy does not depend on the pose.
    """
    out = np.zeros(13)
    put(out, 7, _twist(F, x))
    return out


@njit
def body_outputs(F, x):
    """Return the twists of a rigid body at its port frames.

    Parameters
    ----------
    F : ndarray, shape (36 + 36 n_frames,)
    x : ndarray, shape (13,)

    Returns
    -------
    ndarray, shape (6 n_frames,)
        ``T_WF_F = Ad(H_FB) M^-1 P`` of each frame, stacked in frame order [rad/s, m/s].
    """
    T = _twist(F, x)
    n = (F.shape[0] - 36) // 36
    out = np.empty(6 * n)
    for k in range(n):
        A = F[36 + 36 * k : 72 + 36 * k]
        for i in range(6):
            acc = 0.0
            for j in range(6):
                acc += A[6 * i + j] * T[j]
            out[6 * k + i] = acc
    return out


@njit
def body_rates(F, x, W):
    """Return the rates of a rigid body's state (Euler-Poincare equations).

    Parameters
    ----------
    F : ndarray, shape (36 + 36 n_frames,)
    x : ndarray, shape (13,)
        Body state (pose (7), body momentum P = (L, p) (6)).
    W : ndarray, shape (6 n_frames,)
        Wrenches on the body at its port frames, each in its frame [N m, N], stacked.

    Returns
    -------
    ndarray, shape (13,)
        ``(d pose/dt, dP/dt)``.

    Notes
    -----
    With T = (w, v) = M^-1 P::

        d pose/dt = K(pose) T                     (kernels.lie.pose_rate)
        dP/dt = (L x w + p x v, p x w) + sum_F Ad(H_FB)^T W_F

    where (L x w + p x v, p x w) = ad(T)^T P, the gyroscopic (Euler and Coriolis) terms.
    """
    T = _twist(F, x)
    out = np.empty(13)
    pose_rate_into(x[:7], T, out)
    L0, L1, L2 = x[7], x[8], x[9]
    p0, p1, p2 = x[10], x[11], x[12]
    w0, w1, w2 = T[0], T[1], T[2]
    v0, v1, v2 = T[3], T[4], T[5]
    out[7] = (L1 * w2 - L2 * w1) + (p1 * v2 - p2 * v1)
    out[8] = (L2 * w0 - L0 * w2) + (p2 * v0 - p0 * v2)
    out[9] = (L0 * w1 - L1 * w0) + (p0 * v1 - p1 * v0)
    out[10] = p1 * w2 - p2 * w1
    out[11] = p2 * w0 - p0 * w2
    out[12] = p0 * w1 - p1 * w0
    n = (F.shape[0] - 36) // 36
    for k in range(n):
        A = F[36 + 36 * k : 72 + 36 * k]
        for j in range(6):
            acc = 0.0
            for i in range(6):
                acc += A[6 * i + j] * W[6 * k + i]
            out[7 + j] += acc
    return out


@njit
def _hat_into(J, r, c, a0, a1, a2):
    """Write hat((a0, a1, a2)) into the 3x3 block of J at row r, column c (diagonal untouched)."""
    J[r, c + 1] = -a2
    J[r, c + 2] = a1
    J[r + 1, c] = a2
    J[r + 1, c + 2] = -a0
    J[r + 2, c] = -a1
    J[r + 2, c + 1] = a0


@njit
def body_structure(x):
    """Return the structure matrix J of a rigid body on z = (pose, P).

    Parameters
    ----------
    x : ndarray, shape (13,)

    Returns
    -------
    ndarray, shape (13, 13)
        ``J = [[0, K], [-K^T, Gamma(P)]]`` with K the pose-rate map (kernels.lie.pose_rate_map)
        and ``Gamma(P) = [[hat(L), hat(p)], [hat(p), 0]]``, so that Gamma(P) T = ad(T)^T P.
    """
    K = pose_rate_map(x[:7])
    J = np.zeros((13, 13))
    for i in range(7):
        for j in range(6):
            J[i, 7 + j] = K[i, j]
            J[7 + j, i] = -K[i, j]
    _hat_into(J, 7, 7, x[7], x[8], x[9])
    _hat_into(J, 7, 10, x[10], x[11], x[12])
    _hat_into(J, 10, 7, x[10], x[11], x[12])
    return J


def pack_gravity(mass, g, com, Ad_FB, Ad_BF):
    """Pack a gravity element (called once, at construction; not a kernel).

    Parameters
    ----------
    mass : float [kg]
    g : ndarray, shape (3,) [m/s^2]
        Gravitational acceleration in world coordinates.
    com : ndarray, shape (3,) [m]
        Centre of mass in body coordinates.
    Ad_FB, Ad_BF : ndarray, shape (6, 6)
        ``Ad(H_FB)`` of the port frame F and its inverse ``Ad(H_BF)``.

    Returns
    -------
    ndarray, shape (79,)
    """
    return np.concatenate(([float(mass)], g, com, Ad_BF.T.ravel(), Ad_FB.T.ravel())).astype(np.float64)


@njit(prebuilt=(_ENERGY_ARGS,))
def gravity_energy(F, pose):
    """Return the potential energy of a body in a uniform gravity field.

    Parameters
    ----------
    F : ndarray, shape (79,)
        Packed gravity element (`pack_gravity`).
    pose : ndarray, shape (7,)
        Pose of the body.

    Returns
    -------
    float [J]
        ``V = -m g . p_com``, ``p_com = R(q) com + p``.
    """
    H = pose_to_matrix(pose)
    acc = 0.0
    for i in range(3):
        p_com = H[i, 0] * F[4] + H[i, 1] * F[5] + H[i, 2] * F[6] + H[i, 3]
        acc += F[1 + i] * p_com
    return -F[0] * acc


@njit
def gravity_effort(F, pose):
    """Return the effort of a gravity element at its port.

    Parameters
    ----------
    F : ndarray, shape (79,)
    pose : ndarray, shape (7,)

    Returns
    -------
    ndarray, shape (6,)
        ``e_F = -Ad(H_BF)^T W_B`` [N m, N]: minus the gravity wrench on the body, expressed
        in the port frame F, so that ``e_F . T_F = dV/dt``.

    Notes
    -----
    In body axes the weight is f_B = m R^T g, applied at the centre of mass:
    W_B = (com x f_B, f_B).
    """
    H = pose_to_matrix(pose)
    m = F[0]
    W = np.empty(6)
    for i in range(3):
        W[3 + i] = m * (H[0, i] * F[1] + H[1, i] * F[2] + H[2, i] * F[3])
    c0, c1, c2 = F[4], F[5], F[6]
    W[0] = c1 * W[5] - c2 * W[4]
    W[1] = c2 * W[3] - c0 * W[5]
    W[2] = c0 * W[4] - c1 * W[3]
    e = np.empty(6)
    for i in range(6):
        acc = 0.0
        for j in range(6):
            acc += F[7 + 6 * i + j] * W[j]
        e[i] = -acc
    return e


@njit
def gravity_gradient(F, pose):
    """Return the gradient of the gravity potential over the body's pose vector.

    Parameters
    ----------
    F : ndarray, shape (79,)
    pose : ndarray, shape (7,)

    Returns
    -------
    ndarray, shape (7,)
        ``kernels.lie.pose_gradient(pose, Ad(H_FB)^T e_F)``: dV/dT_B is the effort carried
        back to the body frame.
    """
    e = gravity_effort(F, pose)
    dV = np.empty(6)
    for i in range(6):
        acc = 0.0
        for j in range(6):
            acc += F[43 + 6 * i + j] * e[j]
        dV[i] = acc
    return pose_gradient(pose, dV)


def pack_point_pair(H_a, H_b, r_a, r_b, coefficient):
    """Pack a point-to-point spring or damper (called once, at construction; not a kernel).

    Parameters
    ----------
    H_a, H_b : ndarray, shape (4, 4)
        ``H_BF`` of a frame on a moving body, ``H_WF`` of a frame on the ground.
    r_a, r_b : ndarray, shape (3,) [m]
        Attachment points in the frames' coordinates.
    coefficient : float
        Stiffness k [N/m] or damping c [N s/m].

    Returns
    -------
    ndarray, shape (39,)
    """
    return np.concatenate((np.ravel(H_a), np.ravel(H_b), r_a, r_b, [float(coefficient)])).astype(np.float64)


@njit
def _frame_point(F, o, r_o, x):
    """Rotation R_WF (3, 3) of a frame and world position (3,) of its attachment point.

    H_WF = pose_to_matrix(x) @ H, with H the 4x4 block of F at offset o, and the point
    F[r_o : r_o + 3] in frame coordinates.
    """
    B = pose_to_matrix(x)
    R = np.empty((3, 3))
    t = np.empty(3)
    for i in range(3):
        for j in range(3):
            R[i, j] = B[i, 0] * F[o + j] + B[i, 1] * F[o + 4 + j] + B[i, 2] * F[o + 8 + j]
        t[i] = B[i, 0] * F[o + 3] + B[i, 1] * F[o + 7] + B[i, 2] * F[o + 11] + B[i, 3]
    p = np.empty(3)
    for i in range(3):
        p[i] = R[i, 0] * F[r_o] + R[i, 1] * F[r_o + 1] + R[i, 2] * F[r_o + 2] + t[i]
    return R, p


@njit
def point_line(F, x_a, x_b):
    """Return the length of a point-to-point line and the gradient of the length.

    Parameters
    ----------
    F : ndarray, shape (39,)
        Packed point pair (`pack_point_pair`).
    x_a, x_b : ndarray, shape (7,)
        Poses of the frames' bodies (`IDENTITY_POSE` for the ground).

    Returns
    -------
    L : float [m]
        Distance between the two points.
    g : ndarray, shape (12,)
        ``dL/dt = g . (T_a, T_b)`` for the frame twists:
        ``g = (-r_a x u_a, -u_a, r_b x u_b, u_b)`` with u the unit direction from a to b,
        ``u_a = R_Wa^T u``, ``u_b = R_Wb^T u``. Not finite if the points coincide (the caller
        checks L).
    """
    Ra, pa = _frame_point(F, 0, 32, x_a)
    Rb, pb = _frame_point(F, 16, 35, x_b)
    d = pb - pa
    L = np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    u = d / L
    g = np.empty(12)
    for i in range(3):
        g[3 + i] = -(Ra[0, i] * u[0] + Ra[1, i] * u[1] + Ra[2, i] * u[2])
        g[9 + i] = Rb[0, i] * u[0] + Rb[1, i] * u[1] + Rb[2, i] * u[2]
    ra0, ra1, ra2 = F[32], F[33], F[34]
    rb0, rb1, rb2 = F[35], F[36], F[37]
    # -r_a x u_a = r_a x (-u_a)
    g[0] = ra1 * g[5] - ra2 * g[4]
    g[1] = ra2 * g[3] - ra0 * g[5]
    g[2] = ra0 * g[4] - ra1 * g[3]
    g[6] = rb1 * g[11] - rb2 * g[10]
    g[7] = rb2 * g[9] - rb0 * g[11]
    g[8] = rb0 * g[10] - rb1 * g[9]
    return L, g


@njit
def point_spring_efforts(F, x_a, x_b, rest_length):
    """Return the length and the port efforts of a linear point-to-point spring.

    Parameters
    ----------
    F : ndarray, shape (39,)
        Packed point pair, coefficient = stiffness k [N/m].
    x_a, x_b : ndarray, shape (7,)
    rest_length : float [m]

    Returns
    -------
    L : float [m]
    e : ndarray, shape (12,)
        ``(e_a, e_b) = k (L - L0) g`` [N m, N], the exact gradient of V = 1/2 k (L - L0)^2
        along the frame twists.
    """
    L, g = point_line(F, x_a, x_b)
    return L, (F[38] * (L - rest_length)) * g


@njit
def point_damper_efforts(F, x_a, x_b, T_a, T_b):
    """Return the length and the port efforts of a linear point-to-point damper.

    Parameters
    ----------
    F : ndarray, shape (39,)
        Packed point pair, coefficient = damping c [N s/m].
    x_a, x_b : ndarray, shape (7,)
    T_a, T_b : ndarray, shape (6,)
        Twists of the frames [rad/s, m/s].

    Returns
    -------
    L : float [m]
    e : ndarray, shape (12,)
        ``(e_a, e_b) = c (dL/dt) g`` with ``dL/dt = g . (T_a, T_b)``; dissipates
        ``c (dL/dt)^2``.
    """
    L, g = point_line(F, x_a, x_b)
    Ldot = 0.0
    for i in range(6):
        Ldot += g[i] * T_a[i] + g[6 + i] * T_b[i]
    return L, (F[38] * Ldot) * g


# ------------------------------------------------------------------ element kernels
# The signatures of the compiled right-hand side (`porthamiltonian.compile.jit`):
# outputs ``(t, x, refs, F, I) -> tuple``, rates ``(t, x, refs, inputs, F, I) -> ndarray``.
# A tuple's length is part of its type, so bodies with 1..4 port frames have one outputs
# kernel each (`RIGID_BODY_OUTPUTS[n - 1]`, `GROUND_OUTPUTS[n - 1]`). Inlined into the generated
# code (first-run JIT cost, see `porthamiltonian.kernels.compliant`).


@njit(prebuilt=(_OUTPUTS_ARGS,))
def rigid_body_outputs1(t, x, refs, F, I):
    return (body_outputs(F, x),)


@njit
def rigid_body_outputs2(t, x, refs, F, I):
    T = body_outputs(F, x)
    return T[0:6], T[6:12]


@njit
def rigid_body_outputs3(t, x, refs, F, I):
    T = body_outputs(F, x)
    return T[0:6], T[6:12], T[12:18]


@njit
def rigid_body_outputs4(t, x, refs, F, I):
    T = body_outputs(F, x)
    return T[0:6], T[6:12], T[12:18], T[18:24]


RIGID_BODY_OUTPUTS = (rigid_body_outputs1, rigid_body_outputs2, rigid_body_outputs3, rigid_body_outputs4)


@njit(prebuilt=(f"f8, f8[::1], Tuple(()), UniTuple(f8[::1], 1), {_F_I}",))
def rigid_body_rates(t, x, refs, inputs, F, I):
    """`body_rates` with the port wrenches given frame by frame."""
    inputs = _borrow.record(inputs)   # uncounted reads (`kernels.borrow`): it returns a new array
    W = np.empty(6 * len(inputs))
    for k in range(len(inputs)):
        put(W, 6 * k, inputs[k])
    return body_rates(F, x, W)


@njit(prebuilt=(_OUTPUTS_ARGS,))
def ground_outputs1(t, x, refs, F, I):
    return (np.zeros(6),)


@njit
def ground_outputs2(t, x, refs, F, I):
    return np.zeros(6), np.zeros(6)


@njit
def ground_outputs3(t, x, refs, F, I):
    return np.zeros(6), np.zeros(6), np.zeros(6)


@njit
def ground_outputs4(t, x, refs, F, I):
    return np.zeros(6), np.zeros(6), np.zeros(6), np.zeros(6)


GROUND_OUTPUTS = (ground_outputs1, ground_outputs2, ground_outputs3, ground_outputs4)


@njit(prebuilt=(f"f8, f8[::1], UniTuple(f8[::1], 1), {_F_I}",))
def gravity_outputs(t, x, refs, F, I):
    return (gravity_effort(F, refs[0]),)


@njit
def constant_matrix(t, x, refs, F, I):
    """A constant matrix of shape ``(I[0], I[1])`` packed in F (a rigid body's input matrix and
    output Jacobian)."""
    return F.reshape((I[0], I[1]))


def _one_moving(refs, I):
    ident = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    if I[0]:
        return refs[0], ident
    return ident, refs[0]


def _both_moving(refs, I):
    return refs[0], refs[1]


def _two_poses(refs, I):
    """The poses of the bodies of frames a and b from a two-frame element's refs (the
    identity for a frame on the ground; ``I = (moving_a, moving_b)``). In compiled code the
    choice is made by the length of the `refs` tuple, at compile time (`_two_poses_typed`)."""
    return (_both_moving if len(refs) == 2 else _one_moving)(refs, I)


@overload(_two_poses, inline="always")
def _two_poses_typed(refs, I):
    return _both_moving if len(refs) == 2 else _one_moving


@njit
def point_spring_outputs(t, x, refs, F, I):
    """Port efforts of a `library.springs.PointSpring` (``F``: the point pair, then the rest
    length; coincident points give NaN, which sends the evaluation to Python's error)."""
    x_a, x_b = _two_poses(refs, I)
    _, e = point_spring_efforts(F, x_a, x_b, F[39])
    return e[:6], e[6:]


@njit
def point_damper_law(t, inputs, refs, F, I):
    """Port efforts of a `library.springs.PointDamper`."""
    x_a, x_b = _two_poses(refs, I)
    _, e = point_damper_efforts(F, x_a, x_b, inputs[0], inputs[1])
    return e[:6], e[6:]


@njit
def point_damper_law_jacobian(t, inputs, refs, F, I):
    """``c g g^T`` (12, 12): the derivative of `point_damper_law` by the twists."""
    x_a, x_b = _two_poses(refs, I)
    _, g = point_line(F, x_a, x_b)
    return F[38] * np.outer(g, g)


@njit
def _relative_adjoint(F, x_a, x_b):
    """``Ad(H_ba)`` of a spatial damper's frames (layout in the module docstring)."""
    Ha = mm(pose_to_matrix(x_a), F[0:16].reshape((4, 4)))
    Hb = mm(pose_to_matrix(x_b), F[16:32].reshape((4, 4)))
    return adjoint(mm(se3_inverse(Hb), Ha))


@njit
def spatial_damper_law(t, inputs, refs, F, I):
    """Port efforts of a `library.springs.SpatialDamper`: ``W = D (T_b - Ad(H_ba) T_a)``,
    ``e_b = W``, ``e_a = -Ad(H_ba)^T W``."""
    x_a, x_b = _two_poses(refs, I)
    Ad = _relative_adjoint(F, x_a, x_b)
    D = F[32:68].reshape((6, 6))
    W = D @ (inputs[1] - Ad @ inputs[0])
    return -(Ad.T @ W), W


@njit
def spatial_damper_law_jacobian(t, inputs, refs, F, I):
    """``G^T D G`` with ``G = [-Ad(H_ba), 1]`` (12, 12)."""
    x_a, x_b = _two_poses(refs, I)
    G = np.zeros((6, 12))
    put2(G, 0, 0, -_relative_adjoint(F, x_a, x_b))
    for i in range(6):
        G[i, 6 + i] = 1.0
    D = F[32:68].reshape((6, 6))
    return G.T @ (D @ G)


@njit
def spatial_spring_outputs(t, x, refs, F, I):
    """Port efforts of a `library.springs.SpatialSpring`: with ``H_ab = H_Wa^-1 H_Wb`` and
    ``xi = log(H_0^-1 H_ab)``, ``W = J_r(xi)^-T K xi``, ``e_b = W``, ``e_a = -Ad(H_ba)^T W``."""
    x_a, x_b = _two_poses(refs, I)
    Ha = mm(pose_to_matrix(x_a), F[0:16].reshape((4, 4)))
    Hb = mm(pose_to_matrix(x_b), F[16:32].reshape((4, 4)))
    Hab = mm(se3_inverse(Ha), Hb)
    xi = se3_log(mm(F[68:84].reshape((4, 4)), Hab))
    W = se3_jacobian_inverse(-1.0, xi).T @ (F[32:68].reshape((6, 6)) @ xi)
    return -(adjoint(se3_inverse(Hab)).T @ W), W
