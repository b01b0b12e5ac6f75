"""Compiled quaternion, SO(3) and SE(3) kernels on flat float64 arrays.

Conventions of `porthamiltonian.lie` (docs/math.md sec. 1): twists ``(omega, v)``, wrenches
``(tau, f)``, scalar-first Hamilton quaternions ``(w, x, y, z)``, pose vectors
``(qw, qx, qy, qz, px, py, pz)`` standing for ``H = [[R(q/|q|), p], [0, 1]]``, and
``H_AB`` mapping B coordinates to A.

Every function is compiled (`porthamiltonian.kernels._njit`), takes and returns float64
arrays, and validates nothing: the public functions of `porthamiltonian.lie` validate their
arguments and call these same kernels. The arithmetic is written term by term in the order of the numpy formulas it
replaced, so results agree to the last bit.
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit


@njit
def cross3(a, b):
    """Return the cross product of two 3-vectors.

    Parameters
    ----------
    a, b : ndarray, shape (3,)

    Returns
    -------
    ndarray, shape (3,)
        ``a x b``.

    Notes
    -----
    a x b = (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0).
    """
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@njit(inline="always")
def dot(a, b):
    """Return the dot product of two 1-D arrays of one length (a loop: numba's ``@`` on two
    vectors calls BLAS, ~80 ns more than the product of a few entries; the compiled right-hand
    side's ledger makes one per resistor port)."""
    acc = 0.0
    for k in range(a.shape[0]):
        acc += a[k] * b[k]
    return acc


@njit
def dot3(a, b):
    """Return the dot product ``a . b`` of two 3-vectors (no call into BLAS)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit
def solve2(m00, m01, m10, m11, b0, b1):
    """Solve the 2x2 system ``[[m00, m01], [m10, m11]] x = [b0, b1]`` by Cramer's rule;
    returns ``(x0, x1)`` (the contact kinematics' chart-rate systems; the caller ensures the
    matrix is regular)."""
    det = m00 * m11 - m01 * m10
    return (m11 * b0 - m01 * b1) / det, (m00 * b1 - m10 * b0) / det


# Small matrix products written out: numba's ``@`` goes through BLAS, whose call costs about
# 100 ns more than the product itself for 3- to 6-element operands (measured: R @ v 145 ns,
# `mv` 42 ns; 4x4 @ 4x4 193 ns, `mm` 66 ns). The contact kernels make dozens per evaluation.


@njit
def mv(A, v):
    """``A @ v`` for a small matrix (any layout)."""
    out = np.empty(A.shape[0])
    mv_into(A, v, out)
    return out


@njit(inline="always")
def mv_into(A, v, out):
    """`mv` written into ``out`` (a work array or a `kernels.borrow.local`; not ``v``)."""
    n, m = A.shape
    for i in range(n):
        acc = 0.0
        for j in range(m):
            acc += A[i, j] * v[j]
        out[i] = acc


@njit
def mtv(A, v):
    """``A.T @ v`` for a small matrix (any layout)."""
    n, m = A.shape
    out = np.zeros(m)
    for i in range(n):
        vi = v[i]
        for j in range(m):
            out[j] += A[i, j] * vi
    return out


@njit(versions=("f8[:, :], f8[:, :]",))
def mm(A, B):
    """``A @ B`` for small matrices (any layout: one version, `porthamiltonian.kernels._njit.njit`'s
    ``versions``, rather than one per pair of layouts: C, and F for a transpose)."""
    n, k = A.shape
    m = B.shape[1]
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for l in range(k):
                acc += A[i, l] * B[l, j]
            out[i, j] = acc
    return out


@njit(inline="always")
def rigid_mm_into(A, B, out):
    """``out = A @ B`` for two rigid motions (4x4, bottom rows exactly ``(0, 0, 0, 1)``),
    written into ``out`` (not ``A`` or ``B``): 39 products instead of 64. The bits are those of
    `mm`: its sums start from +0.0 in the same order, and the terms skipped add an exact zero
    (``A[i, 3] B[3, j]``, j < 3) to a sum that cannot be -0.0, or multiply by 1.0."""
    for i in range(3):
        for j in range(3):
            out[i, j] = 0.0 + A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]
        out[i, 3] = 0.0 + A[i, 0] * B[0, 3] + A[i, 1] * B[1, 3] + A[i, 2] * B[2, 3] + A[i, 3]
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


# Block copies written out: numba's slice assignment from an array checks the shapes and
# formats their mismatch into its error message, which links numba's string machinery into
# the function and into every function compiled on top of it (measured: 5 s of the main job's
# 35 s first-run JIT). The kernels copy blocks with these instead.


@njit(inline="always")
def put(dst, at, src):
    """``dst[at : at + len(src)] = src`` for 1-D arrays (shapes not checked)."""
    for k in range(src.shape[0]):
        dst[at + k] = src[k]


@njit(inline="always")
def put_at(dst, index, src):
    """``dst[index] = src`` for 1-D arrays and an integer index array (shapes not checked)."""
    for k in range(index.shape[0]):
        dst[index[k]] = src[k]


@njit(inline="always")
def put2(dst, row, col, src):
    """``dst[row : row + m, col : col + n] = src`` for an (m, n) block (shapes not checked)."""
    m, n = src.shape
    for i in range(m):
        for j in range(n):
            dst[row + i, col + j] = src[i, j]


@njit(versions=("f8[:], f8[:, :]",))
def quat_to_rotation_into(q, R):
    """Write the rotation matrix of ``q / |q|`` into `R`.

    Parameters
    ----------
    q : ndarray, shape (4,)
        Nonzero quaternion ``(w, x, y, z)``, not necessarily unit.
    R : ndarray, shape (3, 3) or a (3, 3) view (e.g. ``H[:3, :3]``)
        Output buffer, overwritten. One compiled version for both (`porthamiltonian.kernels._njit.njit`'s
        ``versions``, any layout), not one per layout.

    Notes
    -----
    With s = 2/|q|^2:
    R = [[1 - s(y^2 + z^2), s(xy - wz),       s(xz + wy)],
         [s(xy + wz),       1 - s(x^2 + z^2), s(yz - wx)],
         [s(xz - wy),       s(yz + wx),       1 - s(x^2 + y^2)]],
    an exact rotation for any nonzero q (integrator drift in |q| never reaches R).
    """
    w, x, y, z = q[0], q[1], q[2], q[3]
    s = 2.0 / (w * w + x * x + y * y + z * z)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    R[0, 0] = 1.0 - yy - zz
    R[0, 1] = xy - wz
    R[0, 2] = xz + wy
    R[1, 0] = xy + wz
    R[1, 1] = 1.0 - xx - zz
    R[1, 2] = yz - wx
    R[2, 0] = xz - wy
    R[2, 1] = yz + wx
    R[2, 2] = 1.0 - xx - yy


@njit(prebuilt=("f8[::1]",))
def quat_to_rotation(q):
    """Return the rotation matrix of a quaternion, normalized on the fly.

    Parameters
    ----------
    q : ndarray, shape (4,)
        Nonzero quaternion ``(w, x, y, z)``, not necessarily unit.

    Returns
    -------
    ndarray, shape (3, 3)
        Rotation matrix of ``q / |q|`` (see `quat_to_rotation_into`); a zero `q` gives
        non-finite values.
    """
    R = np.empty((3, 3))
    quat_to_rotation_into(q, R)
    return R


@njit
def pose_to_matrix(x):
    """Return the rigid motion of a pose vector (the quaternion is normalized first).

    Parameters
    ----------
    x : ndarray, shape (7,)
        Pose ``(qw, qx, qy, qz, px, py, pz)`` of B in W; q nonzero, not necessarily unit.

    Returns
    -------
    ndarray, shape (4, 4)
        ``H_WB = [[R(q/|q|), p], [0, 1]]``.
    """
    H = np.empty((4, 4))
    pose_to_matrix_into(x, H)
    return H


@njit(inline="always")
def pose_to_matrix_into(x, H):
    """`pose_to_matrix` written into the 4x4 ``H`` (a work array or a `kernels.borrow.local`)."""
    quat_to_rotation_into(x, H)   # reads x[:4], writes H[:3, :3]
    for i in range(3):
        H[i, 3] = x[4 + i]
        H[3, i] = 0.0
    H[3, 3] = 1.0


# prebuilt (at install and by ``porthamiltonian warmup``): the Python path calls it, and no
# kernel compiles it on the way any more (`relative_pose` inverts into a stack matrix)
@njit(prebuilt=("f8[:, ::1]",))
def se3_inverse(H):
    """Return the inverse of a rigid motion in closed form.

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        ``H_AB = [[R, p], [0, 1]]``.

    Returns
    -------
    ndarray, shape (4, 4)
        ``H_BA = [[R^T, -R^T p], [0, 1]]``.
    """
    out = np.empty((4, 4))
    se3_inverse_into(H, out)
    return out


@njit(inline="always")
def se3_inverse_into(H, out):
    """`se3_inverse` written into the 4x4 ``out`` (not ``H``)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = H[j, i]
        out[i, 3] = -(H[0, i] * H[0, 3] + H[1, i] * H[1, 3] + H[2, i] * H[2, 3])
        out[3, i] = 0.0
    out[3, 3] = 1.0


@njit
def adjoint(H):
    """Return the adjoint matrix of a rigid motion, which maps twists from B to A.

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        ``H_AB = [[R, p], [0, 1]]``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``Ad(H_AB) = [[R, 0], [hat(p) R, R]]``, with ``T_A = Ad(H_AB) T_B`` for twists
        ``(omega, v)``.

    Notes
    -----
    Column j of hat(p) R is p x (column j of R).
    """
    out = np.empty((6, 6))
    adjoint_into(H, out)
    return out


@njit(inline="always")
def adjoint_into(H, out):
    """`adjoint` written into the 6x6 ``out`` (a work array or a `kernels.borrow.local`)."""
    px, py, pz = H[0, 3], H[1, 3], H[2, 3]
    for j in range(3):
        out[0, 3 + j] = 0.0
        out[1, 3 + j] = 0.0
        out[2, 3 + j] = 0.0
        r0, r1, r2 = H[0, j], H[1, j], H[2, j]
        out[0, j] = r0
        out[1, j] = r1
        out[2, j] = r2
        out[3, 3 + j] = r0
        out[4, 3 + j] = r1
        out[5, 3 + j] = r2
        out[3, j] = py * r2 - pz * r1
        out[4, j] = pz * r0 - px * r2
        out[5, j] = px * r1 - py * r0


@njit
def _put_hat(out, r, c, a):
    out[r, c + 1], out[r, c + 2] = -a[2], a[1]
    out[r + 1, c], out[r + 1, c + 2] = a[2], -a[0]
    out[r + 2, c], out[r + 2, c + 1] = -a[1], a[0]


@njit
def ad_matrix(T):
    """Return ``ad(T) = [[hat(w), 0], [hat(v), hat(w)]]`` for a twist ``T = (w, v)``: the Lie
    bracket as a matrix, ``ad(T1) T2 = (w1 x w2, w1 x v2 + v1 x w2)``."""
    out = np.zeros((6, 6))
    _put_hat(out, 0, 0, T[:3])
    _put_hat(out, 3, 3, T[:3])
    _put_hat(out, 3, 0, T[3:])
    return out


@njit
def quat_rate_matrix(q):
    """Return the 4x3 matrix G(q) with ``dq/dt = G(q) omega_body``.

    Parameters
    ----------
    q : ndarray, shape (4,)
        Orientation ``q_WB`` ``(w, x, y, z)``.

    Returns
    -------
    ndarray, shape (4, 3)
        ``G(q) = 0.5 [[-x, -y, -z], [w, -z, y], [z, w, -x], [-y, x, w]]``.
    """
    w, x, y, z = q[0], q[1], q[2], q[3]
    G = np.empty((4, 3))
    G[0, 0], G[0, 1], G[0, 2] = 0.5 * -x, 0.5 * -y, 0.5 * -z
    G[1, 0], G[1, 1], G[1, 2] = 0.5 * w, 0.5 * -z, 0.5 * y
    G[2, 0], G[2, 1], G[2, 2] = 0.5 * z, 0.5 * w, 0.5 * -x
    G[3, 0], G[3, 1], G[3, 2] = 0.5 * -y, 0.5 * x, 0.5 * w
    return G


@njit
def pose_rate_into(x, T, out):
    """Write the time derivative of a pose vector for a body twist into `out`.

    Parameters
    ----------
    x : ndarray, shape (7,)
        Pose ``(qw, qx, qy, qz, px, py, pz)`` of B in W; q nonzero, not necessarily unit.
    T : ndarray, shape (6,)
        Body twist ``T_WB_B = (omega, v)`` [rad/s, m/s].
    out : ndarray, shape (7,)
        Output buffer, overwritten with ``dx/dt = (0.5 q ⊗ (0, omega), R(q/|q|) v)``.

    Notes
    -----
    From dH/dt = H hat(T): dR/dt = R hat(omega), dp/dt = R v. dq/dt uses q as given, so |q|
    is a first integral; R is normalized, so dp/dt is the velocity of the rotation that
    `pose_to_matrix` reports.
    """
    w, x1, y1, z1 = x[0], x[1], x[2], x[3]
    a, b, c = T[0], T[1], T[2]
    vx, vy, vz = T[3], T[4], T[5]
    s = 2.0 / (w * w + x1 * x1 + y1 * y1 + z1 * z1)
    xx, yy, zz = s * x1 * x1, s * y1 * y1, s * z1 * z1
    xy, xz, yz = s * x1 * y1, s * x1 * z1, s * y1 * z1
    wx, wy, wz = s * w * x1, s * w * y1, s * w * z1
    out[0] = -0.5 * (x1 * a + y1 * b + z1 * c)
    out[1] = 0.5 * (w * a + y1 * c - z1 * b)
    out[2] = 0.5 * (w * b + z1 * a - x1 * c)
    out[3] = 0.5 * (w * c + x1 * b - y1 * a)
    out[4] = (1.0 - yy - zz) * vx + (xy - wz) * vy + (xz + wy) * vz
    out[5] = (xy + wz) * vx + (1.0 - xx - zz) * vy + (yz - wx) * vz
    out[6] = (xz - wy) * vx + (yz + wx) * vy + (1.0 - xx - yy) * vz


@njit
def pose_rate(x, T):
    """Return the time derivative of a pose vector for a body twist.

    Parameters
    ----------
    x : ndarray, shape (7,)
        Pose ``(qw, qx, qy, qz, px, py, pz)``; q nonzero, not necessarily unit.
    T : ndarray, shape (6,)
        Body twist ``T_WB_B = (omega, v)`` [rad/s, m/s].

    Returns
    -------
    ndarray, shape (7,)
        ``dx/dt = (0.5 q ⊗ (0, omega), R(q/|q|) v)`` (see `pose_rate_into`).
    """
    out = np.empty(7)
    pose_rate_into(x, T, out)
    return out


@njit
def pose_rate_map(x):
    """Return K(x), the map from a body twist to the rate of the pose vector.

    Parameters
    ----------
    x : ndarray, shape (7,)
        Pose ``(qw, qx, qy, qz, px, py, pz)``; q nonzero, not necessarily unit.

    Returns
    -------
    ndarray, shape (7, 6)
        ``K = [[G(q/|q|), 0], [0, R(q)]]`` with `quat_rate_matrix` G and `quat_to_rotation` R,
        so that ``dx/dt = K T`` for a unit quaternion.

    Notes
    -----
    The quaternion is normalized first: K is the structure matrix of the pose on the
    constraint |q| = 1, whatever the drift of the stored q.
    """
    n = np.sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3])
    q = x[:4] / n
    K = np.zeros((7, 6))
    put2(K, 0, 0, quat_rate_matrix(q))
    quat_to_rotation_into(q, K[4:, 3:])
    return K


@njit
def pose_gradient(x, dV_dT):
    """Return the gradient of a pose-dependent energy with respect to the pose vector.

    Parameters
    ----------
    x : ndarray, shape (7,)
        Pose ``(qw, qx, qy, qz, px, py, pz)``; q nonzero, not necessarily unit.
    dV_dT : ndarray, shape (6,)
        Exact derivative of the energy along the body twist, ``dV/dT_B`` [N m, N].

    Returns
    -------
    ndarray, shape (7,)
        ``grad V = (4 G(q) dV/domega, R(q) dV/dv)`` with q normalized: the gradient in the
        embedding such that ``K(x)^T grad V = dV/dT_B`` and ``grad V . q = 0`` (the energy
        does not depend on |q|).

    Notes
    -----
    For a unit quaternion the columns of G(q) = 1/2 q ⊗ (0, e_i) are orthogonal with norm
    1/2 and orthogonal to q, so G^T (4 G a) = a.
    """
    K = pose_rate_map(x)
    out = np.empty(7)
    for i in range(4):
        out[i] = 4.0 * (K[i, 0] * dV_dT[0] + K[i, 1] * dV_dT[1] + K[i, 2] * dV_dT[2])
    for i in range(3):
        out[4 + i] = K[4 + i, 3] * dV_dT[3] + K[4 + i, 4] * dV_dT[4] + K[4 + i, 5] * dV_dT[5]
    return out


@njit(prebuilt=("f8, f8, f8",))
def so3_exp(x, y, z):
    """``exp(hat(phi))`` (3, 3) of the rotation vector ``phi = (x, y, z)``, as
    `porthamiltonian.lie.so3.exp` (Rodrigues, no cancellation, series below 1e-4 rad)."""
    theta = math.sqrt(x * x + y * y + z * z)
    a, c = sinc_cosc(theta)
    co = math.cos(theta)
    R = np.empty((3, 3))
    R[0, 0], R[0, 1], R[0, 2] = co + c * x * x, c * x * y - a * z, c * x * z + a * y
    R[1, 0], R[1, 1], R[1, 2] = c * x * y + a * z, co + c * y * y, c * y * z - a * x
    R[2, 0], R[2, 1], R[2, 2] = c * x * z - a * y, c * y * z + a * x, co + c * z * z
    return R


@njit
def so3_log(R):
    """The rotation vector (3,) of a rotation matrix, angle in [0, pi], as
    `porthamiltonian.lie.so3.log` (antisymmetric part away from pi, symmetric part near it)."""
    sx = 0.5 * (R[2, 1] - R[1, 2])
    sy = 0.5 * (R[0, 2] - R[2, 0])
    sz = 0.5 * (R[1, 0] - R[0, 1])
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    out = np.zeros(3)
    if c > -0.6:
        s = math.sqrt(sx * sx + sy * sy + sz * sz)
        if s == 0.0:
            return out
        f = math.atan2(s, c) / s
        out[0], out[1], out[2] = f * sx, f * sy, f * sz
        return out
    i = 0 if R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2] else (1 if R[1, 1] >= R[2, 2] else 2)
    col = np.empty(3)
    for k in range(3):
        col[k] = 0.5 * (R[k, i] + R[i, k])
    col[i] = R[i, i] - c
    norm = math.sqrt(col[0] * col[0] + col[1] * col[1] + col[2] * col[2])
    nx, ny, nz = col[0] / norm, col[1] / norm, col[2] / norm
    s = nx * sx + ny * sy + nz * sz
    if s < 0.0:
        nx, ny, nz, s = -nx, -ny, -nz, -s
    theta = math.atan2(s, c)
    out[0], out[1], out[2] = theta * nx, theta * ny, theta * nz
    return out


# ----------------------------------------------------------- SO(3) and SE(3) coefficients
# Small-angle series in t = theta^2, constant term first. Below the thresholds the closed
# forms lose digits to cancellation; the thresholds balance that loss against the series'
# truncation error (both below ~3e-15 relative, checked against 50-digit mpmath).
_SERIES_C = (1 / 6, -1 / 120, 1 / 5040, -1 / 362880, 1 / 39916800, -1 / 6227020800,
             1 / 1307674368000, -1 / 355687428096000)          # (theta - sin)/theta^3
_SERIES_D = (1 / 12, 1 / 720, 1 / 30240, 1 / 1209600, 1 / 47900160, 691 / 1307674368000,
             1 / 74724249600, 3617 / 10670622842880000)       # (1 - (theta/2)cot(theta/2))/theta^2
_THETA_C = 1.0
_THETA_D = 0.7
# Below this angle sin(theta)/theta and (1 - cos theta)/theta^2 come from two series terms:
# the next term is theta^4/120 < 1e-18 relative, and 0/0 at theta = 0 is avoided.
_THETA_TINY = 1e-4


@njit
def horner(coeffs, t):
    """``sum_k coeffs[k] t^k`` (a series in t, constant term first)."""
    acc = 0.0
    for k in range(len(coeffs) - 1, -1, -1):
        acc = acc * t + coeffs[k]
    return acc


@njit
def sinc_cosc(theta):
    """Return (sin(theta)/theta, (1 - cos(theta))/theta^2) without cancellation."""
    if theta < _THETA_TINY:
        t = theta * theta
        return 1.0 - t / 6.0, 0.5 - t / 24.0
    h = 0.5 * theta
    sh = math.sin(h) / h
    return math.sin(theta) / theta, 0.5 * sh * sh


@njit
def coeff_c(theta):
    """Return (theta - sin(theta)) / theta^3."""
    if theta < _THETA_C:
        return horner(_SERIES_C, theta * theta)
    return (theta - math.sin(theta)) / (theta * theta * theta)


@njit
def coeff_d(theta):
    """Return (D, E) with D = (1 - E)/theta^2 and E = (theta/2) cot(theta/2)."""
    if theta < _THETA_D:
        t = theta * theta
        d = horner(_SERIES_D, t)
        return d, 1.0 - d * t
    h = 0.5 * theta
    e = h * math.cos(h) / math.sin(h)
    return (1.0 - e) / (theta * theta), e


@njit
def combine_entries(a, b, c, x, y, z):
    """Return the 9 row-major entries of a I + b hat(w) + c w w^T for w = (x, y, z)."""
    cxy, cxz, cyz = c * x * y, c * x * z, c * y * z
    bx, by, bz = b * x, b * y, b * z
    return (a + c * x * x, cxy - bz, cxz + by,
            cxy + bz, a + c * y * y, cyz - bx,
            cxz - by, cyz + bx, a + c * z * z)


# Series in t = theta^2 for the two coefficients of the Q block that cancel badly near 0;
# the threshold balances cancellation against truncation (both < 3e-15 relative, checked
# against 50-digit mpmath).
# (theta^2 + 2 cos theta - 2)/(2 theta^4)
_SERIES_C2 = (1 / 24, -1 / 720, 1 / 40320, -1 / 3628800, 1 / 479001600, -1 / 87178291200,
              1 / 20922789888000, -1 / 6402373705728000)
# (2 theta - 3 sin theta + theta cos theta)/(2 theta^5)
_SERIES_C3 = (1 / 120, -1 / 2520, 1 / 120960, -1 / 9979200, 1 / 1245404160,
              -1 / 217945728000, 1 / 50812489728000, -1 / 15205637551104000)
_THETA_Q = 1.2


@njit
def q_entries(wx, wy, wz, vx, vy, vz):
    """Return the 9 row-major entries of the block Q(v, w) of the SE(3) left Jacobian."""
    theta = math.sqrt(wx * wx + wy * wy + wz * wz)
    t = theta * theta
    _, b = sinc_cosc(theta)
    c1 = coeff_c(theta)
    if theta < _THETA_Q:
        c2 = horner(_SERIES_C2, t)
        c3 = horner(_SERIES_C3, t)
    else:
        sn, cs = math.sin(theta), math.cos(theta)
        c2 = (t + 2.0 * cs - 2.0) / (2.0 * t * t)
        c3 = (2.0 * theta - 3.0 * sn + theta * cs) / (2.0 * t * t * theta)
    # Q = b hat(v) + s (2 c2 - c1) hat(w) + c1 (v w^T + w v^T) - 2 c3 s w w^T
    #     + 2 s (c3 theta^2 - c1) I,  s = w . v   (see `left_jacobian`, Notes)
    s = wx * vx + wy * vy + wz * vz
    k = s * (2.0 * c2 - c1)
    hx, hy, hz = b * vx + k * wx, b * vy + k * wy, b * vz + k * wz  # hat(h) part
    m = -2.0 * c3 * s
    d = 2.0 * s * (c3 * t - c1)
    return (
        d + 2.0 * c1 * vx * wx + m * wx * wx,
        c1 * (vx * wy + wx * vy) + m * wx * wy - hz,
        c1 * (vx * wz + wx * vz) + m * wx * wz + hy,
        c1 * (vy * wx + wy * vx) + m * wy * wx + hz,
        d + 2.0 * c1 * vy * wy + m * wy * wy,
        c1 * (vy * wz + wy * vz) + m * wy * wz - hx,
        c1 * (vz * wx + wz * vx) + m * wz * wx - hy,
        c1 * (vz * wy + wz * vy) + m * wz * wy + hx,
        d + 2.0 * c1 * vz * wz + m * wz * wz,
    )


@njit
def se3_log(H):
    """Exponential coordinates ``xi = (phi, rho)`` (6,) of a rigid motion, as
    `porthamiltonian.lie.se3.log`: ``phi = so3_log(R)``, ``rho = J_l(phi)^-1 p = E p -
    phi x p / 2 + D (phi . p) phi`` with ``(D, E) = coeff_d(|phi|)``."""
    w = so3_log(H[:3, :3])
    wx, wy, wz = w[0], w[1], w[2]
    px, py, pz = H[0, 3], H[1, 3], H[2, 3]
    theta = math.sqrt(wx * wx + wy * wy + wz * wz)
    d, e = coeff_d(theta)
    cx, cy, cz = wy * pz - wz * py, wz * px - wx * pz, wx * py - wy * px
    dd = d * (wx * px + wy * py + wz * pz)
    out = np.empty(6)
    out[0], out[1], out[2] = wx, wy, wz
    out[3] = e * px - 0.5 * cx + dd * wx
    out[4] = e * py - 0.5 * cy + dd * wy
    out[5] = e * pz - 0.5 * cz + dd * wz
    return out


@njit
def se3_jacobian_inverse(sign, xi):
    """``[[J, 0], [Q, J]]^-1 = [[J^-1, 0], [-J^-1 Q J^-1, J^-1]]`` (6, 6) of the left (sign
    1) or right (sign -1) Jacobian of exp on SE(3), as
    `porthamiltonian.lie.se3.left_jacobian_inverse` / `right_jacobian_inverse`."""
    wx, wy, wz, vx, vy, vz = xi[0], xi[1], xi[2], xi[3], xi[4], xi[5]
    theta = math.sqrt(wx * wx + wy * wy + wz * wz)
    d, e = coeff_d(theta)
    Ji = np.empty((3, 3))
    Q = np.empty((3, 3))
    ji = combine_entries(e, -0.5 * sign, d, wx, wy, wz)
    q = q_entries(sign * wx, sign * wy, sign * wz, sign * vx, sign * vy, sign * vz)
    for i in range(3):
        for j in range(3):
            Ji[i, j] = ji[3 * i + j]
            Q[i, j] = q[3 * i + j]
    L = mm(mm(Ji, Q), Ji)
    out = np.zeros((6, 6))
    for i in range(3):
        for j in range(3):
            out[i, j] = Ji[i, j]
            out[3 + i, 3 + j] = Ji[i, j]
            out[3 + i, j] = -L[i, j]
    return out


@njit(prebuilt=("f8[::1]",))
def se3_exp(xi):
    """Return ``exp(hat(xi))``, shape (4, 4), of exponential coordinates ``xi = (phi, rho)``
    (the formula of `porthamiltonian.lie.se3.exp`: R = so3 exp(phi), p = J_l(phi) rho)."""
    wx, wy, wz, vx, vy, vz = xi[0], xi[1], xi[2], xi[3], xi[4], xi[5]
    theta = math.sqrt(wx * wx + wy * wy + wz * wz)
    a, b = sinc_cosc(theta)
    c = coeff_c(theta)
    cx, cy, cz = wy * vz - wz * vy, wz * vx - wx * vz, wx * vy - wy * vx
    cd = c * (wx * vx + wy * vy + wz * vz)
    r = combine_entries(math.cos(theta), a, b, wx, wy, wz)
    H = np.zeros((4, 4))
    for k in range(9):
        H[k // 3, k % 3] = r[k]
    H[0, 3] = a * vx + b * cx + cd * wx
    H[1, 3] = a * vy + b * cy + cd * wy
    H[2, 3] = a * vz + b * cz + cd * wz
    H[3, 3] = 1.0
    return H


@njit
def _quat_times_rotvec(q, phi):
    """``q ⊗ quat(phi)`` for a rotation vector phi [rad], normalized."""
    theta = math.sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2])
    s = 0.5 * sinc_cosc(0.5 * theta)[0]          # sin(theta/2)/theta
    w2, x2, y2, z2 = math.cos(0.5 * theta), s * phi[0], s * phi[1], s * phi[2]
    w1, x1, y1, z1 = q[0], q[1], q[2], q[3]
    out = np.empty(4)
    out[0] = w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2
    out[1] = w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2
    out[2] = w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2
    out[3] = w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2
    return out / math.sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3])


@njit
def pose_step(x, xi):
    """A pose moved by half and all of a body-frame screw: ``H exp(hat(xi)/2)`` and
    ``H exp(hat(xi))``, with the adjoints of the two increments.

    Parameters
    ----------
    x : ndarray, shape (7,)
        Pose vector ``(q, p)`` of H_WB.
    xi : ndarray, shape (6,)
        Body-frame exponential coordinates (a body twist times a step) [rad, m].

    Returns
    -------
    mid, end : ndarray, shape (7,)
        The two poses; quaternions composed with the unit quaternions of the rotation
        vectors (no round trip through a matrix: the sign stays continuous), normalized.
    Ad_half, Ad_full : ndarray, shape (6, 6)
        ``Ad(exp(xi/2))`` and ``Ad(exp(xi))``; exp(xi) is computed as exp(xi/2) squared.
    """
    E2 = se3_exp(0.5 * xi)
    E = mm(E2, E2)
    R0 = quat_to_rotation(x[:4])
    mid, end = np.empty(7), np.empty(7)
    put(mid, 0, _quat_times_rotvec(x[:4], 0.5 * xi[:3]))
    put(end, 0, _quat_times_rotvec(mid[:4], 0.5 * xi[:3]))
    for i in range(3):
        mid[4 + i] = x[4 + i] + R0[i, 0] * E2[0, 3] + R0[i, 1] * E2[1, 3] + R0[i, 2] * E2[2, 3]
        end[4 + i] = x[4 + i] + R0[i, 0] * E[0, 3] + R0[i, 1] * E[1, 3] + R0[i, 2] * E[2, 3]
    return mid, end, adjoint(E2), adjoint(E)


_SPANS = ("f8[::1], i8, i8", "i8[::1], i8, i8")


@njit(versions=_SPANS, prebuilt=_SPANS)
def span(a, start, stop):
    """``a[start:stop]`` of a 1-D array: the generated right-hand sides' slices of the state
    and of the packed constants (`porthamiltonian.compile.jit`), one compiled function instead
    of a slice lowered anew in the source at each of its ~160 places (2.2 s of the main job's
    first run). Two declared versions (`porthamiltonian.kernels._njit.njit`'s ``versions``,
    compiled at the first call, not at import): a call with literal bounds would otherwise
    compile a version per pair of bounds. Both are prebuilt (compiled at install and by
    ``porthamiltonian warmup``): every generated right-hand side calls them."""
    return a[start:stop]
