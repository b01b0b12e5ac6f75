"""Rigid motions: the group SE(3), its algebra se(3), adjoints and the Jacobians of exp.

Conventions (docs/math.md sec. 1):

- ``H_AB = [[R_AB, p_AB], [0, 1]]`` maps frame-B coordinates to frame A,
  ``x_A = R_AB x_B + p_AB``; frame names cancel when composed, ``H_AC = H_AB @ H_BC``.
- Twist ``T = (omega, v)``, angular first; wrench ``W = (tau, f)``, torque first;
  power ``P = W . T``.
- Body twist ``T_AB_B = vee(inv(H_AB) dH_AB/dt)``; spatial twist
  ``T_AB_A = vee(dH_AB/dt inv(H_AB)) = Ad(H_AB) T_AB_B``.
- Exponential coordinates ``xi = (phi, rho)`` (also angular first), ``H = exp(hat(xi))``::

      H(t) = H0 exp(hat(xi(t)))  ->  body twist     T_B = J_r(xi) dxi/dt
      H(t) = exp(hat(xi(t))) H0  ->  spatial twist  T_S = J_l(xi) dxi/dt

Functions work on one element at a time. `inverse` and `Ad` check the shape of their
argument and call the compiled kernels of `porthamiltonian.kernels.lie` (the hot path calls
those kernels directly); the others do not validate. `as_se3` is the validating entry point
for user input.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_array
from ..errors import ParameterError
from ..kernels import lie as _kernels
from . import so3
from .quaternion import _kernel_arg
from .so3 import _coeff_c, _combine_entries, _sinc_cosc

__all__ = [
    "hat",
    "vee",
    "exp",
    "log",
    "inverse",
    "make",
    "split",
    "Ad",
    "Ad_inv",
    "Ad_wrench",
    "ad",
    "coadjoint",
    "left_jacobian",
    "right_jacobian",
    "left_jacobian_inverse",
    "right_jacobian_inverse",
    "is_se3",
    "as_se3",
]

# the Q block of the Jacobians, with its small-angle series: a compiled kernel shared with
# the hot path (`porthamiltonian.kernels.lie.q_entries`)
_q_entries = _kernels.q_entries


_ZERO = (0.0,) * 9


def _block(D, U, L):
    """Return [[D, U], [L, D]] (6, 6) from 9-tuples of row-major 3x3 entries."""
    return np.array((
        D[0], D[1], D[2], U[0], U[1], U[2],
        D[3], D[4], D[5], U[3], U[4], U[5],
        D[6], D[7], D[8], U[6], U[7], U[8],
        L[0], L[1], L[2], D[0], D[1], D[2],
        L[3], L[4], L[5], D[3], D[4], D[5],
        L[6], L[7], L[8], D[6], D[7], D[8],
    )).reshape(6, 6)


def _transpose(A):
    """Return the transpose of a 9-tuple of row-major 3x3 entries."""
    return (A[0], A[3], A[6], A[1], A[4], A[7], A[2], A[5], A[8])


def _rotation_and_moment(H):
    """Return the row-major entries of R and of M = hat(p) R for H = [[R, p], [0, 1]]."""
    (r00, r01, r02, px), (r10, r11, r12, py), (r20, r21, r22, pz) = np.asarray(H).tolist()[:3]
    R = (r00, r01, r02, r10, r11, r12, r20, r21, r22)
    # Column j of hat(p) R is p x (column j of R).
    M = (py * r20 - pz * r10, py * r21 - pz * r11, py * r22 - pz * r12,
         pz * r00 - px * r20, pz * r01 - px * r21, pz * r02 - px * r22,
         px * r10 - py * r00, px * r11 - py * r01, px * r12 - py * r02)
    return R, M


def hat(T):
    """Return the 4x4 matrix of a twist (an element of se(3)).

    Parameters
    ----------
    T : ndarray, shape (6,)
        Twist ``(omega, v)`` [rad/s, m/s] or exponential coordinates ``(phi, rho)``.

    Returns
    -------
    ndarray, shape (4, 4)
        ``[[hat(omega), v], [0, 0]]``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    hat(T) = [[hat(w), v], [0 0 0, 0]], so that dH/dt = H hat(T_B) = hat(T_S) H.

    Examples
    --------
    >>> import numpy as np
    >>> hat(np.array([0.0, 0.0, 1.0, 2.0, 0.0, 0.0])) + 0.0  # + 0.0 drops signed zeros
    array([[ 0., -1.,  0.,  2.],
           [ 1.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  0.]])
    """
    wx, wy, wz, vx, vy, vz = np.asarray(T).tolist()
    return np.array((
        0.0, -wz, wy, vx,
        wz, 0.0, -wx, vy,
        -wy, wx, 0.0, vz,
        0.0, 0.0, 0.0, 0.0,
    )).reshape(4, 4)


def vee(X):
    """Return the twist of a 4x4 se(3) matrix (inverse of `hat`).

    Parameters
    ----------
    X : ndarray, shape (4, 4)
        ``[[hat(omega), v], [0, 0]]``; only the entries that define omega and v are read.

    Returns
    -------
    ndarray, shape (6,)
        ``(omega, v)``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the structure of X is not checked.

    Notes
    -----
    vee(X) = (X32, X13, X21, X14, X24, X34) (1-based indices).

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> vee(hat(T))
    array([1., 2., 3., 4., 5., 6.])
    """
    return np.array([X[2, 1], X[0, 2], X[1, 0], X[0, 3], X[1, 3], X[2, 3]])


def exp(xi):
    """Return the rigid motion of exponential coordinates.

    Parameters
    ----------
    xi : ndarray, shape (6,)
        Exponential coordinates ``(phi, rho)`` [rad, m] (a twist times a duration).

    Returns
    -------
    ndarray, shape (4, 4)
        ``H = exp(hat(xi)) = [[exp(phi), J_l(phi) rho], [0, 1]]``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    R = so3.exp(phi); p = J_l(phi) rho
      = (sin theta/theta) rho + ((1 - cos theta)/theta^2) phi x rho
        + ((theta - sin theta)/theta^3) (phi . rho) phi,
    with J_l the SO(3) left Jacobian. A constant body twist T for a time t gives
    H(t) = H(0) exp(t T).

    Examples
    --------
    >>> import numpy as np
    >>> H = exp(np.array([0.0, 0.0, np.pi, 0.0, 1.0, 0.0]))  # half turn of a screw
    >>> np.round(H[:3, 3], 12) + 0.0
    array([-0.63661977,  0.        ,  0.        ])
    """
    return _kernels.se3_exp(np.asarray(xi, dtype=float))


def log(H):
    """Return the exponential coordinates of a rigid motion, rotation angle in [0, pi].

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        Rigid motion.

    Returns
    -------
    ndarray, shape (6,)
        ``xi = (phi, rho)`` with ``exp(xi) == H`` and ``|phi| <= pi``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    phi = so3.log(R) (robust near 0 and pi); rho = J_l(phi)^-1 p
        = E p - phi x p / 2 + ((1 - E)/theta^2) (phi . p) phi,  E = (theta/2) cot(theta/2).

    Examples
    --------
    >>> import numpy as np
    >>> xi = np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0])
    >>> bool(np.allclose(log(exp(xi)), xi, rtol=0, atol=1e-14))
    True
    """
    return _kernels.se3_log(np.ascontiguousarray(H, dtype=float))


def inverse(H):
    """Return the inverse of a rigid motion in closed form.

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        ``H_AB``.

    Returns
    -------
    ndarray, shape (4, 4)
        ``H_BA = inv(H_AB) = [[R^T, -R^T p], [0, 1]]``.

    Raises
    ------
    ParameterError
        If `H` does not have shape (4, 4).

    Notes
    -----
    Computed by `porthamiltonian.kernels.lie.se3_inverse`. inv([[R, p], [0, 1]]) = [[R^T, -R^T p], [0, 1]]; no general matrix inversion.

    Examples
    --------
    >>> import numpy as np
    >>> H = exp(np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0]))
    >>> bool(np.allclose(inverse(H) @ H, np.eye(4), rtol=0, atol=1e-15))
    True
    """
    return _kernels.se3_inverse(_kernel_arg(H, (4, 4), "H"))


def make(R, p):
    """Return the rigid motion with rotation `R` and translation `p`.

    Parameters
    ----------
    R : ndarray, shape (3, 3)
        Rotation ``R_AB``.
    p : ndarray, shape (3,)
        Position ``p_AB`` [m] of the origin of B in A.

    Returns
    -------
    ndarray, shape (4, 4)
        ``H_AB = [[R, p], [0, 1]]``.

    Raises
    ------
    Nothing on purpose: hot-path kernel; use `as_se3` on user input.

    Notes
    -----
    x_A = R x_B + p.

    Examples
    --------
    >>> import numpy as np
    >>> make(np.eye(3), np.array([1.0, 2.0, 3.0]))[:, 3]
    array([1., 2., 3., 1.])
    """
    H = np.empty((4, 4))
    H[:3, :3] = R
    H[:3, 3] = p
    H[3] = (0.0, 0.0, 0.0, 1.0)
    return H


def split(H):
    """Return the rotation and translation of a rigid motion (as copies).

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        ``H_AB``.

    Returns
    -------
    R : ndarray, shape (3, 3)
        ``R_AB``.
    p : ndarray, shape (3,)
        ``p_AB`` [m].

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    Inverse of `make`: H = [[R, p], [0, 1]].

    Examples
    --------
    >>> import numpy as np
    >>> R, p = split(make(np.eye(3), np.array([1.0, 2.0, 3.0])))
    >>> p
    array([1., 2., 3.])
    """
    return H[:3, :3].copy(), H[:3, 3].copy()


def Ad(H):
    """Return the adjoint matrix of a rigid motion, which maps twists from B to A.

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        ``H_AB``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``Ad(H_AB)``, with ``T_A = Ad(H_AB) T_B`` for twists ``(omega, v)``.

    Raises
    ------
    ParameterError
        If `H` does not have shape (4, 4).

    Notes
    -----
    Computed by `porthamiltonian.kernels.lie.adjoint`. Ad(H) = [[R, 0], [hat(p) R, R]]; hat(Ad(H) T) = H hat(T) inv(H).

    Examples
    --------
    >>> import numpy as np
    >>> H = make(np.eye(3), np.array([1.0, 0.0, 0.0]))
    >>> Ad(H) @ np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])  # spin about z, seen from A
    array([ 0.,  0.,  1.,  0., -1.,  0.])
    """
    return _kernels.adjoint(_kernel_arg(H, (4, 4), "H"))


def Ad_inv(H):
    """Return the inverse adjoint matrix of a rigid motion in closed form.

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        ``H_AB``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``Ad(inv(H_AB)) = inv(Ad(H_AB))``, with ``T_B = Ad_inv(H_AB) T_A``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    Ad(H)^-1 = Ad(H^-1) = [[R^T, 0], [-R^T hat(p), R^T]].

    Examples
    --------
    >>> import numpy as np
    >>> H = exp(np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0]))
    >>> bool(np.allclose(Ad_inv(H) @ Ad(H), np.eye(6), rtol=0, atol=1e-14))
    True
    """
    R, M = _rotation_and_moment(H)
    # -R^T hat(p) = (hat(p) R)^T.
    return _block(_transpose(R), _ZERO, _transpose(M))


def Ad_wrench(H):
    """Return the matrix that maps wrenches from B to A, ``inv(Ad(H)).T``, in closed form.

    Parameters
    ----------
    H : ndarray, shape (4, 4)
        ``H_AB``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``Ad(H_AB)^-T``, with ``W_A = Ad_wrench(H_AB) W_B`` for wrenches ``(tau, f)``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    Ad(H)^-T = [[R, hat(p) R], [0, R]]: f_A = R f_B, tau_A = R tau_B + p x (R f_B).
    Power is frame invariant: (Ad_wrench(H) W) . (Ad(H) T) = W . T.

    Examples
    --------
    >>> import numpy as np
    >>> H = make(np.eye(3), np.array([1.0, 0.0, 0.0]))
    >>> Ad_wrench(H) @ np.array([0.0, 0.0, 0.0, 0.0, 1.0, 0.0])  # force along y at x = 1
    array([0., 0., 1., 0., 1., 0.])
    """
    R, M = _rotation_and_moment(H)
    return _block(R, M, _ZERO)


def ad(T):
    """Return the adjoint matrix of a twist (the Lie bracket as a matrix).

    Parameters
    ----------
    T : ndarray, shape (6,)
        Twist ``(omega, v)``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``ad(T)``, with ``ad(T1) T2 = vee(hat(T1) hat(T2) - hat(T2) hat(T1))``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    ad(T) = [[hat(w), 0], [hat(v), hat(w)]]; ad(T1) T2 = (w1 x w2, w1 x v2 + v1 x w2).
    Computed by `porthamiltonian.kernels.lie.ad_matrix`.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0])
    >>> bool(np.allclose(ad(T) @ T, 0.0, rtol=0, atol=1e-15))
    True
    """
    return _kernels.ad_matrix(np.asarray(T, dtype=float))


def coadjoint(T):
    """Return the coadjoint matrix of a twist, ``ad(T).T``, which acts on wrenches/momenta.

    Parameters
    ----------
    T : ndarray, shape (6,)
        Twist ``(omega, v)``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``ad(T)^T = [[-hat(w), -hat(v)], [0, -hat(w)]]``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    Euler-Poincare equation of a rigid body with body momentum P = M T (docs/math.md sec. 1):
    dP/dt = ad(T)^T P + W_B. For a momentum (L, p):
    ad(T)^T (L, p) = (L x w + p x v, p x w).

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0])
    >>> bool(np.allclose(coadjoint(T), ad(T).T, rtol=0, atol=0))
    True
    """
    wx, wy, wz, vx, vy, vz = np.asarray(T).tolist()
    return _block((0.0, wz, -wy, -wz, 0.0, wx, wy, -wx, 0.0),
                  (0.0, vz, -vy, -vz, 0.0, vx, vy, -vx, 0.0), _ZERO)


def left_jacobian(xi):
    """Return the left Jacobian of exp on SE(3).

    Parameters
    ----------
    xi : ndarray, shape (6,)
        Exponential coordinates ``(phi, rho)``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``J_l(xi)``: if ``H(t) = exp(hat(xi(t))) H0`` then the spatial twist
        ``vee(dH/dt inv(H)) = J_l(xi) dxi/dt``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    J_l(xi) = sum_k ad(xi)^k/(k+1)! = [[J(phi), 0], [Q(rho, phi), J(phi)]], J the SO(3)
    left Jacobian and, with P = hat(phi), V = hat(rho), theta = |phi|:

        Q = V/2 + c1 (P V + V P + P V P) + c2 (P P V + V P P - 3 P V P)
                + c3 (P V P P + P P V P)
        c1 = (theta - sin theta)/theta^3
        c2 = (theta^2 + 2 cos theta - 2)/(2 theta^4)
        c3 = (2 theta - 3 sin theta + theta cos theta)/(2 theta^5)

    This is Barfoot & Furgale (2014), eq. (102), restated in the (omega, v) order used here
    (their (v, omega) matrix [[J, Q], [0, J]] becomes [[J, 0], [Q, J]]). With
    hat(a) hat(b) = b a^T - (a . b) I it reduces to what is evaluated, with s = phi . rho:

        Q = ((1 - cos theta)/theta^2) hat(rho) + s (2 c2 - c1) hat(phi)
            + c1 (rho phi^T + phi rho^T) - 2 c3 s phi phi^T + 2 s (c3 theta^2 - c1) I

    c1, c2, c3 use Taylor series below theta = 1 (c1) and 1.2 (c2, c3).

    Examples
    --------
    >>> import numpy as np
    >>> xi = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 3.0])  # pure translation: J = [[I, 0], [V/2, I]]
    >>> bool(np.allclose(left_jacobian(xi)[3:, :3], 0.5 * so3.hat(xi[3:]), rtol=0, atol=0))
    True
    """
    wx, wy, wz, vx, vy, vz = np.asarray(xi).tolist()
    theta = math.sqrt(wx * wx + wy * wy + wz * wz)
    a, b = _sinc_cosc(theta)
    J = _combine_entries(a, b, _coeff_c(theta), wx, wy, wz)
    return _block(J, _ZERO, _q_entries(wx, wy, wz, vx, vy, vz))


def right_jacobian(xi):
    """Return the right Jacobian of exp on SE(3).

    Parameters
    ----------
    xi : ndarray, shape (6,)
        Exponential coordinates ``(phi, rho)``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``J_r(xi)``: if ``H(t) = H0 exp(hat(xi(t)))`` then the body twist
        ``vee(inv(H) dH/dt) = J_r(xi) dxi/dt``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    J_r(xi) = J_l(-xi) = sum_k (-ad(xi))^k/(k+1)! = [[J_r(phi), 0], [Q(-rho, -phi), J_r(phi)]],
    and J_l(xi) = Ad(exp(xi)) J_r(xi).

    Examples
    --------
    >>> import numpy as np
    >>> xi = np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0])
    >>> bool(np.allclose(left_jacobian(xi), Ad(exp(xi)) @ right_jacobian(xi), rtol=0, atol=1e-14))
    True
    """
    wx, wy, wz, vx, vy, vz = np.asarray(xi).tolist()
    theta = math.sqrt(wx * wx + wy * wy + wz * wz)
    a, b = _sinc_cosc(theta)
    J = _combine_entries(a, -b, _coeff_c(theta), wx, wy, wz)
    return _block(J, _ZERO, _q_entries(-wx, -wy, -wz, -vx, -vy, -vz))


def left_jacobian_inverse(xi):
    """Return the inverse of the left Jacobian of exp on SE(3), in closed form.

    Parameters
    ----------
    xi : ndarray, shape (6,)
        Exponential coordinates ``(phi, rho)``; singular at ``|phi| = 2 pi k``, k >= 1.

    Returns
    -------
    ndarray, shape (6, 6)
        ``J_l(xi)^-1``: ``dxi/dt = J_l(xi)^-1 T_S`` for ``H = exp(hat(xi)) H0``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    [[J, 0], [Q, J]]^-1 = [[J^-1, 0], [-J^-1 Q J^-1, J^-1]], with the SO(3) inverse
    J^-1 in closed form (`so3.left_jacobian_inverse`) and Q as in `left_jacobian`.

    Examples
    --------
    >>> import numpy as np
    >>> xi = np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0])
    >>> bool(np.allclose(left_jacobian_inverse(xi) @ left_jacobian(xi), np.eye(6),
    ...                  rtol=0, atol=1e-14))
    True
    """
    return _kernels.se3_jacobian_inverse(1.0, np.ascontiguousarray(xi, dtype=float))


def right_jacobian_inverse(xi):
    """Return the inverse of the right Jacobian of exp on SE(3), in closed form.

    Parameters
    ----------
    xi : ndarray, shape (6,)
        Exponential coordinates ``(phi, rho)``; singular at ``|phi| = 2 pi k``, k >= 1.

    Returns
    -------
    ndarray, shape (6, 6)
        ``J_r(xi)^-1``: ``dxi/dt = J_r(xi)^-1 T_B`` for ``H = H0 exp(hat(xi))``.

    Raises
    ------
    Nothing on purpose: hot-path kernel, the input is not validated.

    Notes
    -----
    J_r^-1(xi) = J_l^-1(-xi) = [[J_r^-1, 0], [-J_r^-1 Q(-rho, -phi) J_r^-1, J_r^-1]].

    Examples
    --------
    >>> import numpy as np
    >>> xi = np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0])
    >>> bool(np.allclose(right_jacobian_inverse(xi) @ right_jacobian(xi), np.eye(6),
    ...                  rtol=0, atol=1e-14))
    True
    """
    return _kernels.se3_jacobian_inverse(-1.0, np.ascontiguousarray(xi, dtype=float))


def is_se3(H, tol=1e-9):
    """Return whether `H` is a 4x4 rigid motion to within `tol`.

    Parameters
    ----------
    H : array_like, shape (4, 4)
        Candidate matrix; anything else (other shape, non-numeric, non-finite) gives False.
    tol : float, optional
        Largest accepted entry of ``|R^T R - I|`` and of ``|H[3] - (0, 0, 0, 1)|``.

    Returns
    -------
    bool
        True when the rotation block is a rotation (`so3.is_rotation`) and the bottom row
        is (0, 0, 0, 1).

    Raises
    ------
    Nothing: every failure is reported as False.

    Notes
    -----
    H = [[R, p], [0, 1]] with R^T R = I, det R = +1.

    Examples
    --------
    >>> import numpy as np
    >>> is_se3(np.eye(4)), is_se3(np.eye(3))
    (True, False)
    """
    try:
        H = np.asarray(H, dtype=float)
    except (TypeError, ValueError):
        return False
    if H.shape != (4, 4) or not np.all(np.isfinite(H)):
        return False
    if np.max(np.abs(H[3] - (0.0, 0.0, 0.0, 1.0))) > tol:
        return False
    return so3.is_rotation(H[:3, :3], tol)


def as_se3(H, name, *, tol=1e-9):
    """Return `H` as a float rigid motion, or raise a ParameterError naming `name`.

    Validating entry point for user input (not for the hot path).

    Parameters
    ----------
    H : array_like, shape (4, 4)
        Candidate rigid motion, e.g. an initial pose ``H_WB``.
    name : str
        Name used in error messages, e.g. ``"H_WB"``.
    tol : float, optional
        Largest accepted entry of ``|R^T R - I|`` and of ``|H[3] - (0, 0, 0, 1)|``.

    Returns
    -------
    ndarray, shape (4, 4)
        A float copy of `H` with its bottom row set exactly to (0, 0, 0, 1).

    Raises
    ------
    ParameterError
        If `H` is not numeric, not finite, not of shape (4, 4), its bottom row is not
        (0, 0, 0, 1), or its rotation block is not orthonormal with det +1.

    Notes
    -----
    The rotation block is not re-projected: pass it through `so3.project_to_so3` first if
    it carries known drift.

    Examples
    --------
    >>> import numpy as np
    >>> as_se3(np.eye(4), "H_WB")[3]
    array([0., 0., 0., 1.])
    >>> as_se3(np.eye(3), "H_WB")
    Traceback (most recent call last):
        ...
    porthamiltonian.errors.ParameterError: `H_WB` must have shape (4, 4), got (3, 3)
    """
    H = as_array(H, name, (4, 4))
    row = H[3]
    if np.max(np.abs(row - (0.0, 0.0, 0.0, 1.0))) > tol:
        raise ParameterError(f"`{name}` must have bottom row [0, 0, 0, 1], got {row.tolist()}")
    R = H[:3, :3]
    err = float(np.max(np.abs(R.T @ R - np.eye(3))))
    det = float(np.linalg.det(R))
    if err > tol or det <= 0.0:
        raise ParameterError(
            f"`{name}` must have a rotation block H[:3, :3] with R^T R = I (to {tol:g}) and "
            f"det R = +1, got orthogonality error {err:.3g} and det {det:.6g}"
        )
    H[3] = (0.0, 0.0, 0.0, 1.0)
    return H
