"""Unit quaternions and the (quaternion, position) embedding of SE(3) used for integration.

Quaternions are scalar-first, ``q = (w, x, y, z)``, multiplied with the Hamilton product
(``i j = k``); ``q`` and ``-q`` are the same rotation. A pose vector is
``x = (qw, qx, qy, qz, px, py, pz)``, shape (7,), standing for ``H = [[R(q), p], [0, 1]]``.

Functions work on one element at a time. `to_matrix`, `rate_matrix`, `pose_to_matrix` and
`pose_rate` check the shapes of their arguments and call the compiled kernels of
`porthamiltonian.kernels.lie` (the hot path calls those kernels directly); the others do not
validate. `as_pose` is the validating entry point for user input.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_array
from ..errors import ParameterError
from ..kernels import lie as _kernels

__all__ = [
    "multiply",
    "conjugate",
    "normalize",
    "from_matrix",
    "to_matrix",
    "from_rotvec",
    "to_rotvec",
    "rate",
    "rate_matrix",
    "pose_to_matrix",
    "matrix_to_pose",
    "pose_rate",
    "as_pose",
]

# Below this angle sin(theta/2)/theta is 1/2 - theta^2/48: the next term, theta^4/3840,
# is < 1e-18 relative, and 0/0 at theta = 0 is avoided.
_THETA_TINY = 1e-4


def _kernel_arg(a, shape, name):
    """Return `a` as a C-contiguous float64 array (the kernels' argument type) of `shape`.

    Raises ParameterError naming `name` if the shape differs: the compiled kernels do not
    check bounds.
    """
    arr = np.ascontiguousarray(a, dtype=np.float64)
    if arr.shape != shape:
        raise ParameterError(f"`{name}` must have shape {shape}, got {arr.shape}")
    return arr


def _rate_entries(w, x, y, z, a, b, c):
    """Return 0.5 (w, x, y, z) ⊗ (0, a, b, c) as a 4-tuple."""
    return (-0.5 * (x * a + y * b + z * c),
            0.5 * (w * a + y * c - z * b),
            0.5 * (w * b + z * a - x * c),
            0.5 * (w * c + x * b - y * a))


def multiply(p, q):
    """Return the Hamilton product ``p ⊗ q``.

    Parameters
    ----------
    p, q : ndarray, shape (4,)
        Quaternions ``(w, x, y, z)``.

    Returns
    -------
    ndarray, shape (4,)
        ``p ⊗ q``; for unit quaternions ``to_matrix(p ⊗ q) = to_matrix(p) @ to_matrix(q)``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the inputs are not validated.

    Notes
    -----
    p ⊗ q = (pw qw - pv . qv,  pw qv + qw pv + pv x qv).

    Examples
    --------
    >>> import numpy as np
    >>> i, j = np.array([0.0, 1, 0, 0]), np.array([0.0, 0, 1, 0])
    >>> multiply(i, j)  # i j = k
    array([0., 0., 0., 1.])
    """
    pw, px, py, pz = np.asarray(p).tolist()
    qw, qx, qy, qz = np.asarray(q).tolist()
    return np.array([
        pw * qw - px * qx - py * qy - pz * qz,
        pw * qx + px * qw + py * qz - pz * qy,
        pw * qy - px * qz + py * qw + pz * qx,
        pw * qz + px * qy - py * qx + pz * qw,
    ])


def conjugate(q):
    """Return the conjugate quaternion (the inverse rotation for a unit quaternion).

    Parameters
    ----------
    q : ndarray, shape (4,)
        Quaternion ``(w, x, y, z)``.

    Returns
    -------
    ndarray, shape (4,)
        ``(w, -x, -y, -z)``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    q ⊗ conj(q) = (|q|^2, 0, 0, 0).

    Examples
    --------
    >>> import numpy as np
    >>> conjugate(np.array([1.0, 2.0, 3.0, 4.0]))
    array([ 1., -2., -3., -4.])
    """
    w, x, y, z = np.asarray(q).tolist()
    return np.array([w, -x, -y, -z])


def normalize(q):
    """Return `q` scaled to unit norm.

    Parameters
    ----------
    q : ndarray, shape (4,)
        Nonzero quaternion.

    Returns
    -------
    ndarray, shape (4,)
        ``q / |q|`` (same sign as `q`).

    Raises
    ------
    Nothing on purpose: hot-path kernel; a zero `q` gives non-finite values.

    Notes
    -----
    |q| = sqrt(w^2 + x^2 + y^2 + z^2).

    Examples
    --------
    >>> import numpy as np
    >>> normalize(np.array([2.0, 0.0, 0.0, 0.0]))
    array([1., 0., 0., 0.])
    """
    w, x, y, z = np.asarray(q).tolist()
    s = 1.0 / math.sqrt(w * w + x * x + y * y + z * z)
    return np.array([s * w, s * x, s * y, s * z])


def from_matrix(R):
    """Return the unit quaternion of a rotation matrix (Shepperd's method), with w >= 0.

    Parameters
    ----------
    R : ndarray, shape (3, 3)
        Rotation matrix.

    Returns
    -------
    ndarray, shape (4,)
        Unit quaternion ``q`` with ``to_matrix(q) == R`` and ``q[0] >= 0``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, orthogonality is not checked.

    Notes
    -----
    Shepperd (1978): of 4w^2 = 1 + tr R, 4x^2 = 1 + 2 R11 - tr R, 4y^2 = 1 + 2 R22 - tr R,
    4z^2 = 1 + 2 R33 - tr R, take the square root of the largest (no cancellation, no
    division by a small number), and get the other three components from the off-diagonal
    sums and differences, e.g. 4 w x = R32 - R23, 4 x y = R12 + R21. The result is
    normalized (absorbing small drift of R) and its sign chosen with w >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> from_matrix(np.diag([1.0, -1.0, -1.0]))  # half turn about x
    array([0., 1., 0., 0.])
    """
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = np.asarray(R).tolist()
    tr = r00 + r11 + r22
    if tr >= r00 and tr >= r11 and tr >= r22:
        s = 2.0 * math.sqrt(max(1.0 + tr, 0.0))  # = 4|w|
        w, x, y, z = 0.25 * s, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s
    elif r00 >= r11 and r00 >= r22:
        s = 2.0 * math.sqrt(max(1.0 + r00 - r11 - r22, 0.0))  # = 4|x|
        w, x, y, z = (r21 - r12) / s, 0.25 * s, (r01 + r10) / s, (r02 + r20) / s
    elif r11 >= r22:
        s = 2.0 * math.sqrt(max(1.0 + r11 - r00 - r22, 0.0))  # = 4|y|
        w, x, y, z = (r02 - r20) / s, (r01 + r10) / s, 0.25 * s, (r12 + r21) / s
    else:
        s = 2.0 * math.sqrt(max(1.0 + r22 - r00 - r11, 0.0))  # = 4|z|
        w, x, y, z = (r10 - r01) / s, (r02 + r20) / s, (r12 + r21) / s, 0.25 * s
    n = math.sqrt(w * w + x * x + y * y + z * z)
    if w < 0.0:
        n = -n
    return np.array([w / n, x / n, y / n, z / n])


def to_matrix(q):
    """Return the rotation matrix of a quaternion (normalized on the fly).

    Parameters
    ----------
    q : ndarray, shape (4,)
        Nonzero quaternion ``(w, x, y, z)``; it need not have unit norm.

    Returns
    -------
    ndarray, shape (3, 3)
        Rotation matrix of ``q / |q|``.

    Raises
    ------
    ParameterError
        If `q` does not have shape (4,). A zero `q` gives non-finite values.

    Notes
    -----
    Computed by `porthamiltonian.kernels.lie.quat_to_rotation`. With s = 2/|q|^2:
    R = [[1 - s(y^2 + z^2), s(xy - wz),       s(xz + wy)],
         [s(xy + wz),       1 - s(x^2 + z^2), s(yz - wx)],
         [s(xz - wy),       s(yz + wx),       1 - s(x^2 + y^2)]],
    an exact rotation for any nonzero q, so integrator drift in |q| never reaches R.

    Examples
    --------
    >>> import numpy as np
    >>> to_matrix(np.array([0.0, 0.0, 0.0, 2.0]))  # half turn about z, |q| = 2
    array([[-1.,  0.,  0.],
           [ 0., -1.,  0.],
           [ 0.,  0.,  1.]])
    """
    return _kernels.quat_to_rotation(_kernel_arg(q, (4,), "q"))


def from_rotvec(phi):
    """Return the unit quaternion of a rotation vector.

    Parameters
    ----------
    phi : ndarray, shape (3,)
        Rotation vector ``theta * n`` [rad].

    Returns
    -------
    ndarray, shape (4,)
        ``(cos(theta/2), sin(theta/2) n)``; ``w < 0`` when ``theta > pi``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    q = (cos(theta/2), (sin(theta/2)/theta) phi), with sin(theta/2)/theta = 1/2 - theta^2/48
    below theta = 1e-4. to_matrix(from_rotvec(phi)) = so3.exp(phi).

    Examples
    --------
    >>> import numpy as np
    >>> np.round(from_rotvec(np.array([0.0, 0.0, np.pi])), 12) + 0.0
    array([0., 0., 0., 1.])
    """
    x, y, z = np.asarray(phi).tolist()
    theta = math.sqrt(x * x + y * y + z * z)
    if theta < _THETA_TINY:
        f = 0.5 - theta * theta / 48.0
    else:
        f = math.sin(0.5 * theta) / theta
    return np.array([math.cos(0.5 * theta), f * x, f * y, f * z])


def to_rotvec(q):
    """Return the rotation vector of a quaternion, with angle in [0, pi].

    Parameters
    ----------
    q : ndarray, shape (4,)
        Nonzero quaternion ``(w, x, y, z)``; it need not have unit norm.

    Returns
    -------
    ndarray, shape (3,)
        ``phi`` with ``|phi| <= pi`` and ``from_rotvec(phi) = +-q/|q|``.

    Raises
    ------
    Nothing on purpose: hot-path kernel; a zero `q` gives non-finite values.

    Notes
    -----
    With q replaced by -q when w < 0 and s = |(x, y, z)|: theta = 2 atan2(s, w) and
    phi = (theta/s) (x, y, z). The ratio atan2(s, w)/s has no cancellation, so this is
    accurate for every angle; s = 0 gives phi = 0.

    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([0.3, -0.2, 0.5])
    >>> bool(np.allclose(to_rotvec(from_rotvec(phi)), phi, rtol=0, atol=1e-15))
    True
    """
    w, x, y, z = np.asarray(q).tolist()
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    s = math.hypot(x, y, z)
    if s == 0.0:
        return np.zeros(3)
    f = 2.0 * math.atan2(s, w) / s
    return np.array([f * x, f * y, f * z])


def rate(q, omega_body):
    """Return the time derivative of a quaternion for a body angular velocity.

    Parameters
    ----------
    q : ndarray, shape (4,)
        Orientation ``q_WB`` (rotation from body B to world W).
    omega_body : ndarray, shape (3,)
        Angular velocity of B in body coordinates [rad/s], ``hat(omega) = R^T dR/dt``.

    Returns
    -------
    ndarray, shape (4,)
        ``dq/dt = 0.5 q ⊗ (0, omega_body)``, orthogonal to q (|q| is a first integral).

    Raises
    ------
    Nothing on purpose: hot-path kernel, the inputs are not validated.

    Notes
    -----
    dq/dt = 0.5 (-qv . w, qw w + qv x w) = rate_matrix(q) @ w.

    Examples
    --------
    >>> import numpy as np
    >>> rate(np.array([1.0, 0, 0, 0]), np.array([0.0, 0.0, 2.0])) + 0.0  # + 0.0 drops signed zeros
    array([0., 0., 0., 1.])
    """
    return np.array(_rate_entries(*np.asarray(q).tolist(), *np.asarray(omega_body).tolist()))


def rate_matrix(q):
    """Return the 4x3 matrix G(q) with ``dq/dt = G(q) omega_body``.

    Parameters
    ----------
    q : ndarray, shape (4,)
        Orientation ``q_WB``.

    Returns
    -------
    ndarray, shape (4, 3)
        ``G(q) = 0.5 [[-x, -y, -z], [w, -z, y], [z, w, -x], [-y, x, w]]``.

    Raises
    ------
    ParameterError
        If `q` does not have shape (4,).

    Notes
    -----
    Computed by `porthamiltonian.kernels.lie.quat_rate_matrix`. Matrix form of `rate`; for unit q, G^T G = I/4 and G^T q = 0, so
    omega_body = 4 G(q)^T dq/dt.

    Examples
    --------
    >>> import numpy as np
    >>> q = normalize(np.array([1.0, 2.0, 3.0, 4.0]))
    >>> bool(np.allclose(4.0 * rate_matrix(q).T @ rate_matrix(q), np.eye(3), rtol=0, atol=1e-15))
    True
    """
    return _kernels.quat_rate_matrix(_kernel_arg(q, (4,), "q"))


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

    Raises
    ------
    ParameterError
        If `x` does not have shape (7,). A zero quaternion gives non-finite values.

    Notes
    -----
    Computed by `porthamiltonian.kernels.lie.pose_to_matrix`; R as in `to_matrix`, which
    divides by |q|^2.

    Examples
    --------
    >>> import numpy as np
    >>> pose_to_matrix(np.array([2.0, 0, 0, 0, 1.0, 2.0, 3.0]))
    array([[1., 0., 0., 1.],
           [0., 1., 0., 2.],
           [0., 0., 1., 3.],
           [0., 0., 0., 1.]])
    """
    return _kernels.pose_to_matrix(_kernel_arg(x, (7,), "x"))


def matrix_to_pose(H):
    """Return the pose vector of a rigid motion (unit quaternion with qw >= 0).

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        ``H_WB``.

    Returns
    -------
    ndarray, shape (7,)
        ``(qw, qx, qy, qz, px, py, pz)``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    q = from_matrix(R) (Shepperd), p = H[:3, 3].

    Examples
    --------
    >>> import numpy as np
    >>> matrix_to_pose(np.eye(4))
    array([1., 0., 0., 0., 0., 0., 0.])
    """
    x = np.empty(7)
    x[:4] = from_matrix(H[:3, :3])
    x[4:] = H[:3, 3]
    return x


def pose_rate(x, T_body):
    """Return the time derivative of a pose vector for a body twist.

    Parameters
    ----------
    x : ndarray, shape (7,)
        Pose ``(qw, qx, qy, qz, px, py, pz)`` of B in W; q nonzero, not necessarily unit.
    T_body : ndarray, shape (6,)
        Body twist ``T_WB_B = (omega, v)`` [rad/s, m/s], ``hat(T) = inv(H) dH/dt``.

    Returns
    -------
    ndarray, shape (7,)
        ``dx/dt = (0.5 q ⊗ (0, omega), R(q) v)``.

    Raises
    ------
    ParameterError
        If `x` does not have shape (7,) or `T_body` shape (6,).

    Notes
    -----
    Computed by `porthamiltonian.kernels.lie.pose_rate`. From dH/dt = H hat(T): dR/dt = R hat(omega) (quaternion: `rate`) and dp/dt = R v.
    dq/dt uses q as given (keeping |q| constant); R(q) is normalized, so dp/dt is the
    velocity of the rotation that `pose_to_matrix` reports.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])  # half turn about z
    >>> pose_rate(x, np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])) + 0.0  # moves along -x in W
    array([ 0.,  0.,  0.,  0., -1.,  0.,  0.])
    """
    return _kernels.pose_rate(_kernel_arg(x, (7,), "x"), _kernel_arg(T_body, (6,), "T_body"))


def as_pose(x, name, *, tol=1e-6):
    """Return `x` as a float pose vector with a unit quaternion, or raise ParameterError.

    Validating entry point for user input (not for the hot path).

    Parameters
    ----------
    x : array_like, shape (7,)
        Candidate pose ``(qw, qx, qy, qz, px, py, pz)``.
    name : str
        Name used in error messages, e.g. ``"x_WB"``.
    tol : float, optional
        Largest accepted ``| |q| - 1 |``; within it q is renormalized exactly.

    Returns
    -------
    ndarray, shape (7,)
        A float copy of `x` with ``|q| = 1``.

    Raises
    ------
    ParameterError
        If `x` is not numeric, not finite, not of shape (7,), or its quaternion norm is
        further than `tol` from 1.

    Notes
    -----
    The sign of q is kept (q and -q are the same rotation).

    Examples
    --------
    >>> import numpy as np
    >>> as_pose([1.0, 0, 0, 0, 0, 0, 0], "x_WB")[:4]
    array([1., 0., 0., 0.])
    >>> as_pose([2.0, 0, 0, 0, 0, 0, 0], "x_WB")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    porthamiltonian.errors.ParameterError: `x_WB` must have a unit quaternion x[:4] ...
    """
    x = as_array(x, name, (7,))
    n = float(np.linalg.norm(x[:4]))
    if not abs(n - 1.0) <= tol:
        raise ParameterError(
            f"`{name}` must have a unit quaternion x[:4] (to {tol:g}), got norm {n:.6g}"
        )
    x[:4] /= n
    return x
