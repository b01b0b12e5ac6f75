"""Rotations: the group SO(3), its algebra so(3) and the Jacobians of the exponential map.

A rotation vector ``phi = theta * n`` (unit axis ``n``, angle ``theta`` [rad]) is the
exponential coordinate of ``R = exp(hat(phi))``. Kernels here are hot-path functions: one
element at a time, no validation, plain float arithmetic instead of ``np.cross`` or
``np.linalg`` where a few multiplications do the job.

Inputs are unpacked to Python floats once (``np.asarray(a).tolist()``): scalar arithmetic
on floats is several times faster than on numpy scalars.

Jacobians (used for both SO(3) and, as blocks, SE(3))::

    R(t) = R0 exp(hat(phi(t)))   ->  body angular velocity     w_B = J_r(phi) dphi/dt
    R(t) = exp(hat(phi(t))) R0   ->  spatial angular velocity  w_S = J_l(phi) dphi/dt

with ``J_r(phi) = J_l(-phi) = J_l(phi)^T``.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels import lie as _kernels

__all__ = [
    "hat",
    "vee",
    "exp",
    "log",
    "left_jacobian",
    "right_jacobian",
    "left_jacobian_inverse",
    "right_jacobian_inverse",
    "is_rotation",
    "project_to_so3",
]

# The scalar coefficients of the closed forms (small-angle series included) are compiled
# kernels shared with the hot path: one implementation (`porthamiltonian.kernels.lie`).
_horner, _sinc_cosc, _coeff_c, _coeff_d = _kernels.horner, _kernels.sinc_cosc, _kernels.coeff_c, _kernels.coeff_d
_combine_entries = _kernels.combine_entries


def _combine(a, b, c, x, y, z):
    """Return a I + b hat(w) + c w w^T for w = (x, y, z), shape (3, 3)."""
    return np.array(_combine_entries(a, b, c, x, y, z)).reshape(3, 3)


def hat(w):
    """Return the skew-symmetric matrix of a 3-vector.

    Parameters
    ----------
    w : ndarray, shape (3,)
        Vector, e.g. an angular velocity [rad/s] or a rotation vector [rad].

    Returns
    -------
    ndarray, shape (3, 3)
        ``hat(w)``, such that ``hat(w) @ x == cross(w, x)``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    hat(w) = [[0, -w3, w2], [w3, 0, -w1], [-w2, w1, 0]].

    Examples
    --------
    >>> import numpy as np
    >>> hat(np.array([1.0, 2.0, 3.0]))
    array([[ 0., -3.,  2.],
           [ 3.,  0., -1.],
           [-2.,  1.,  0.]])
    """
    x, y, z = np.asarray(w).tolist()
    return np.array((0.0, -z, y, z, 0.0, -x, -y, x, 0.0)).reshape(3, 3)


def vee(W):
    """Return the 3-vector of a skew-symmetric matrix (inverse of `hat`).

    Parameters
    ----------
    W : ndarray, shape (3, 3)
        Skew-symmetric matrix; only the entries W[2, 1], W[0, 2], W[1, 0] are read.

    Returns
    -------
    ndarray, shape (3,)
        ``w`` with ``hat(w) == W``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, skew-symmetry is not checked.

    Notes
    -----
    vee(W) = (W32, W13, W21) (1-based indices).

    Examples
    --------
    >>> import numpy as np
    >>> vee(hat(np.array([1.0, 2.0, 3.0])))
    array([1., 2., 3.])
    """
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


def exp(phi):
    """Return the rotation matrix of a rotation vector (Rodrigues' formula).

    Parameters
    ----------
    phi : ndarray, shape (3,)
        Rotation vector ``theta * n`` [rad].

    Returns
    -------
    ndarray, shape (3, 3)
        ``R = exp(hat(phi))``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    R = cos(theta) I + (sin(theta)/theta) hat(phi) + ((1 - cos(theta))/theta^2) phi phi^T.
    Both coefficients are evaluated without cancellation ((1 - cos)/theta^2 as
    2 sin^2(theta/2)/theta^2) and with a Taylor series for theta < 1e-4, so the result is
    accurate to rounding for every angle, including exactly 0.

    Examples
    --------
    >>> import numpy as np
    >>> R = exp(np.array([0.0, 0.0, np.pi / 2]))
    >>> np.round(R, 12) + 0.0
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]])
    """
    x, y, z = np.asarray(phi).tolist()
    return _kernels.so3_exp(x, y, z)


def log(R):
    """Return the rotation vector of a rotation matrix, with angle in [0, pi].

    Parameters
    ----------
    R : ndarray, shape (3, 3)
        Rotation matrix.

    Returns
    -------
    ndarray, shape (3,)
        ``phi`` with ``exp(phi) == R`` and ``|phi| <= pi``. At exactly ``pi`` either of the
        two equivalent vectors ``+-pi n`` may be returned.

    Raises
    ------
    Nothing on purpose: hot-path kernel, orthogonality is not checked.

    Notes
    -----
    With cos(theta) = (tr R - 1)/2 and sin(theta) n = vee(R - R^T)/2:

    - if cos(theta) > -0.6, theta = atan2(|vee(R - R^T)|/2, cos(theta)) and
      phi = theta n from the antisymmetric part (exact ratio theta/sin(theta), no series
      needed);
    - otherwise (near pi, where the antisymmetric part vanishes) the axis comes from the
      symmetric part, (R + R^T)/2 - cos(theta) I = (1 - cos(theta)) n n^T, using its
      column with the largest diagonal entry; the sign of n is taken from the
      antisymmetric part, and theta = atan2(n . vee(R - R^T)/2, cos(theta)) stays accurate
      to rounding even when theta is within 1e-8 of pi.

    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([0.0, np.pi, 0.0])
    >>> bool(np.allclose(np.abs(log(exp(phi))), phi, rtol=0, atol=1e-12))
    True
    """
    return _kernels.so3_log(np.ascontiguousarray(R, dtype=float))


def left_jacobian(phi):
    """Return the left Jacobian of exp on SO(3).

    Parameters
    ----------
    phi : ndarray, shape (3,)
        Rotation vector [rad].

    Returns
    -------
    ndarray, shape (3, 3)
        ``J_l(phi)``: if ``R(t) = exp(hat(phi(t))) R0`` then the spatial angular velocity
        ``vee(dR/dt R^T) = J_l(phi) dphi/dt``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    J_l(phi) = I + ((1 - cos theta)/theta^2) hat(phi) + ((theta - sin theta)/theta^3) hat(phi)^2
             = (sin theta/theta) I + ((1 - cos theta)/theta^2) hat(phi)
               + ((theta - sin theta)/theta^3) phi phi^T,
    equal to sum_k hat(phi)^k/(k+1)!. Taylor series below theta = 1 (Barfoot, "State
    Estimation for Robotics", sec. 7.1.3; Sola et al., "A micro Lie theory", app. B).

    Examples
    --------
    >>> import numpy as np
    >>> left_jacobian(np.zeros(3))
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    x, y, z = np.asarray(phi).tolist()
    theta = math.sqrt(x * x + y * y + z * z)
    a, b = _sinc_cosc(theta)
    return _combine(a, b, _coeff_c(theta), x, y, z)


def right_jacobian(phi):
    """Return the right Jacobian of exp on SO(3).

    Parameters
    ----------
    phi : ndarray, shape (3,)
        Rotation vector [rad].

    Returns
    -------
    ndarray, shape (3, 3)
        ``J_r(phi)``: if ``R(t) = R0 exp(hat(phi(t)))`` then the body angular velocity
        ``vee(R^T dR/dt) = J_r(phi) dphi/dt``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    J_r(phi) = J_l(-phi) = J_l(phi)^T
             = (sin theta/theta) I - ((1 - cos theta)/theta^2) hat(phi)
               + ((theta - sin theta)/theta^3) phi phi^T.

    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([0.3, -0.2, 0.5])
    >>> bool(np.allclose(right_jacobian(phi), left_jacobian(-phi), rtol=0, atol=1e-15))
    True
    """
    x, y, z = np.asarray(phi).tolist()
    theta = math.sqrt(x * x + y * y + z * z)
    a, b = _sinc_cosc(theta)
    return _combine(a, -b, _coeff_c(theta), x, y, z)


def left_jacobian_inverse(phi):
    """Return the inverse of the left Jacobian of exp on SO(3), in closed form.

    Parameters
    ----------
    phi : ndarray, shape (3,)
        Rotation vector [rad]; singular at ``|phi| = 2 pi k``, k >= 1.

    Returns
    -------
    ndarray, shape (3, 3)
        ``J_l(phi)^-1``: ``dphi/dt = J_l(phi)^-1 w_S`` for ``R = exp(hat(phi)) R0``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    J_l^-1(phi) = I - hat(phi)/2 + ((1 - (theta/2) cot(theta/2))/theta^2) hat(phi)^2
                = E I - hat(phi)/2 + ((1 - E)/theta^2) phi phi^T,  E = (theta/2) cot(theta/2).
    Taylor series (Bernoulli numbers) below theta = 0.7.

    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([0.3, -0.2, 0.5])
    >>> bool(np.allclose(left_jacobian_inverse(phi) @ left_jacobian(phi), np.eye(3),
    ...                  rtol=0, atol=1e-14))
    True
    """
    x, y, z = np.asarray(phi).tolist()
    theta = math.sqrt(x * x + y * y + z * z)
    d, e = _coeff_d(theta)
    return _combine(e, -0.5, d, x, y, z)


def right_jacobian_inverse(phi):
    """Return the inverse of the right Jacobian of exp on SO(3), in closed form.

    Parameters
    ----------
    phi : ndarray, shape (3,)
        Rotation vector [rad]; singular at ``|phi| = 2 pi k``, k >= 1.

    Returns
    -------
    ndarray, shape (3, 3)
        ``J_r(phi)^-1``: ``dphi/dt = J_r(phi)^-1 w_B`` for ``R = R0 exp(hat(phi))``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    J_r^-1(phi) = J_l^-1(-phi) = E I + hat(phi)/2 + ((1 - E)/theta^2) phi phi^T,
    E = (theta/2) cot(theta/2).

    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([0.3, -0.2, 0.5])
    >>> bool(np.allclose(right_jacobian_inverse(phi) @ right_jacobian(phi), np.eye(3),
    ...                  rtol=0, atol=1e-14))
    True
    """
    x, y, z = np.asarray(phi).tolist()
    theta = math.sqrt(x * x + y * y + z * z)
    d, e = _coeff_d(theta)
    return _combine(e, 0.5, d, x, y, z)


def is_rotation(R, tol=1e-9):
    """Return whether `R` is a 3x3 rotation matrix to within `tol`.

    Parameters
    ----------
    R : array_like, shape (3, 3)
        Candidate matrix; anything else (other shape, non-numeric, non-finite) gives False.
    tol : float, optional
        Largest accepted entry of ``|R^T R - I|``.

    Returns
    -------
    bool
        True when ``max |R^T R - I| <= tol`` and ``det R > 0``.

    Raises
    ------
    Nothing: every failure is reported as False.

    Notes
    -----
    det R > 0 excludes reflections; with R^T R = I it means det R = +1.

    Examples
    --------
    >>> import numpy as np
    >>> is_rotation(np.eye(3)), is_rotation(np.diag([1.0, 1.0, -1.0]))
    (True, False)
    """
    try:
        R = np.asarray(R, dtype=float)
    except (TypeError, ValueError):
        return False
    if R.shape != (3, 3) or not np.all(np.isfinite(R)):
        return False
    if np.max(np.abs(R.T @ R - np.eye(3))) > tol:
        return False
    return bool(np.linalg.det(R) > 0.0)


def project_to_so3(R):
    """Return the rotation matrix nearest to `R` in the Frobenius norm.

    Parameters
    ----------
    R : ndarray, shape (3, 3)
        Any real matrix, typically a rotation that drifted under integration.

    Returns
    -------
    ndarray, shape (3, 3)
        ``argmin_{Q in SO(3)} |Q - R|_F``.

    Raises
    ------
    numpy.linalg.LinAlgError
        If the SVD does not converge (non-finite input).

    Notes
    -----
    With the SVD R = U S V^T: Q = U diag(1, 1, det(U V^T)) V^T (orthogonal Procrustes with
    the reflection removed). For det R > 0 this is the orthogonal polar factor of R.

    Examples
    --------
    >>> import numpy as np
    >>> Q = project_to_so3(np.eye(3) + 1e-3 * np.arange(9.0).reshape(3, 3))
    >>> is_rotation(Q, tol=1e-12)
    True
    """
    U, _, Vt = np.linalg.svd(R)
    if np.linalg.det(U @ Vt) < 0.0:
        U = U.copy()
        U[:, 2] = -U[:, 2]
    return U @ Vt
