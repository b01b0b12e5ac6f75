"""Kry & Pai reduced contact coordinates ``q = (s, t, u, v, psi)`` (seed 002 sec. 3, appendix).

Body 1 carries a patch ``c(s, t)``, body 2 a patch ``d(u, v)``, each with its patch frame
(`frames.patch_frame`: origin on the surface, ``x = f_u / |f_u|``, ``z = n``). In contact the
two frames share their origin and the frame of body 2 is the frame of body 1 turned by
``psi`` about ``z1`` and flipped (``z2 = -z1``)::

    H_12(q) = H_1C1(s, t) B(psi) inv(H_2C2(u, v))

    B(psi) = [[cos psi,  sin psi,  0, 0],        x2 = ( cos psi, sin psi, 0) in C1
              [sin psi, -cos psi,  0, 0],        z2 = -z1
              [0,        0,       -1, 0],
              [0,        0,        0, 1]]

so ``q`` parametrizes exactly the 5-dimensional set of touching poses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..lie import se3
from ..geometry.gauss import unit_normal
from ._local import check_pose, check_vector, frame_from, pair_derivatives

__all__ = ["ContactJacobian", "contact_coordinate_jacobian", "contact_coordinates",
           "contact_pose", "jacobian_from_derivatives", "pose_from_derivatives"]

# Second-order jets in (s, t): arrays of shape (6, ...) with rows (value, d/ds, d/dt,
# d2/ds2, d2/dsdt, d2/dt2). The Leibniz rule makes every product of two jets a fixed bilinear
# map: out[slot] = sum T[slot, i, j] a[i] * b[j].
_TERMS = ((0, 0, 0, 1.0),
          (1, 1, 0, 1.0), (1, 0, 1, 1.0),
          (2, 2, 0, 1.0), (2, 0, 2, 1.0),
          (3, 3, 0, 1.0), (3, 1, 1, 2.0), (3, 0, 3, 1.0),
          (4, 4, 0, 1.0), (4, 1, 2, 1.0), (4, 2, 1, 1.0), (4, 0, 4, 1.0),
          (5, 5, 0, 1.0), (5, 2, 2, 2.0), (5, 0, 5, 1.0))
_T = np.zeros((6, 6, 6))
for _slot, _i, _j, _weight in _TERMS:
    _T[_slot, _i, _j] = _weight
_EPS = np.zeros((3, 3, 3))
_EPS[0, 1, 2] = _EPS[1, 2, 0] = _EPS[2, 0, 1] = 1.0
_EPS[0, 2, 1] = _EPS[2, 1, 0] = _EPS[1, 0, 2] = -1.0
# The bilinear maps flattened for two small matrix products (cheaper than einsum or fancy
# indexing on arrays this small): out = (K @ b.ravel()).reshape(-1, a.size) @ a.ravel().
_K_CROSS = np.einsum("sij,cde->scidje", _T, _EPS).reshape(18 * 18, 18)
_K_DOT = np.einsum("sij,de->sidje", _T, np.eye(3)).reshape(6 * 18, 18)
_K_SCALE = np.einsum("sij,ce->scije", _T, np.eye(3)).reshape(18 * 6, 18)
_FIRST = (1, 2)                          # jet slot of d/ds, d/dt
_SECOND = ((3, 4), (4, 5))               # jet slot of d2/(di dj)
# derivative array entries (i, j) feeding the jets of c, c_s and c_t
_JET_C = ((0, 1, 0, 2, 1, 0), (0, 0, 1, 0, 1, 2))
_JET_CS = ((1, 2, 1, 3, 2, 1), (0, 0, 1, 0, 1, 2))
_JET_CT = ((0, 1, 0, 2, 1, 0), (1, 1, 2, 1, 2, 3))
# velocity rows as pairs (a, b) of frame jets: omega = (z . y_i, x . z_i, y . x_i),
# v = (x . c_i, y . c_i, z . c_i), with jets indexed 0 x, 1 y, 2 z, 3 c
_ROWS_A = np.array((2, 0, 1, 0, 1, 2))
_ROWS_B = np.array((1, 2, 0, 3, 3, 3))
# G[row, p, q] = a_p . b_q; J[:, i] = G[:, 0, first_i],
# dJ/dq_j[:, i] = G[:, first_j, first_i] + G[:, 0, second_ij]
_J_IDX = np.array(_FIRST)
_DJ_FIRST = np.array([[_FIRST[j]] * 2 for j in range(2)]), np.array([_FIRST, _FIRST])
_DJ_SECOND = np.array([[_SECOND[i][j] for i in range(2)] for j in range(2)])


def _jet_dot(a, b):
    return (_K_DOT @ b.ravel()).reshape(6, 18) @ a.ravel()


def _jet_cross(a, b):
    return ((_K_CROSS @ b.ravel()).reshape(18, 18) @ a.ravel()).reshape(6, 3)


def _jet_scale(s, a):
    return ((_K_SCALE @ a.ravel()).reshape(18, 6) @ s).reshape(6, 3)


def _jet_rsqrt(q):
    """Jet of ``q^(-1/2)`` by the chain rule."""
    q0, q1, q2, q3, q4, q5 = q.tolist()
    f = q0 ** -0.5
    f1 = -0.5 * f / q0
    f2 = 0.75 * f / (q0 * q0)
    return np.array((f, f1 * q1, f1 * q2, f2 * q1 * q1 + f1 * q3, f2 * q1 * q2 + f1 * q4,
                     f2 * q2 * q2 + f1 * q5))


def _patch_velocity(D):
    """Body velocity of a patch frame w.r.t. its parameters, and its derivatives.

    Parameters
    ----------
    D : ndarray, shape (4, 4, 3)
        Derivative array up to third order.

    Returns
    -------
    J : ndarray, shape (6, 2)
        Columns: twist of the patch frame relative to its body, in patch-frame coordinates,
        per unit rate of the first and of the second parameter (seed 002 eqs. 44-50).
    dJ : ndarray, shape (2, 6, 2)
        ``dJ[j] = dJ/dq_j`` (needs third derivatives of the surface).
    H : ndarray, shape (4, 4)
        The patch frame pose.
    """
    c, cs, ct = D[_JET_C], D[_JET_CS], D[_JET_CT]
    x = _jet_scale(_jet_rsqrt(_jet_dot(cs, cs)), cs)
    m = _jet_cross(cs, ct)
    z = _jet_scale(_jet_rsqrt(_jet_dot(m, m)), m)
    y = _jet_cross(z, x)
    F = np.stack((x, y, z, c))                                 # (4 jets, 6 slots, 3)
    G = np.einsum("rpk,rqk->rpq", F[_ROWS_A], F[_ROWS_B])      # (6 rows, 6, 6)
    J = G[:, 0, _J_IDX]
    dJ = (G[:, _DJ_FIRST[0], _DJ_FIRST[1]] + G[:, 0, _DJ_SECOND]).transpose(1, 0, 2)
    H = np.eye(4)
    H[:3, :3] = F[:3, 0].T
    H[:3, 3] = c[0]
    return J, dJ, H


def _flip(psi):
    """``B(psi)`` of the module docstring (a rotation by pi about an axis in the x-y plane)."""
    cp, sp = math.cos(psi), math.sin(psi)
    B = np.eye(4)
    B[:3, :3] = ((cp, sp, 0.0), (sp, -cp, 0.0), (0.0, 0.0, -1.0))
    return B


def _check_q(q, charts, S1, S2, order):
    q = check_vector(q, "q", 5)
    D1, D2 = pair_derivatives(S1, S2, q[:4], charts, order, lists=False)
    return q, D1, D2


def _frame(D):
    return frame_from(D[0, 0], D[1, 0], unit_normal(D))


def contact_pose(S1, S2, q, *, charts=(0, 0)) -> np.ndarray:
    """Pose of body 2 in body 1 for contact coordinates ``q`` (seed 002 eq. 9).

    Parameters
    ----------
    S1, S2 : Surface
    q : array_like, shape (5,)
        ``(s, t, u, v, psi)``: parameters of S1 and S2 in `charts` and the angle [rad]
        from ``x1`` to ``x2`` about ``z1``.
    charts : tuple of int

    Returns
    -------
    H_12 : ndarray, shape (4, 4)
        ``H_1C1 B(psi) inv(H_2C2)``: the surfaces touch at the two parameter points with
        antiparallel normals.

    Raises
    ------
    ParameterError, GeometryError
        Bad input, outside a domain, or a singular point.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> H = contact_pose(Plane(), Sphere(1.0), (0.0, 0.0, -np.pi / 2, 0.0, 0.0), charts=(0, 1))
    >>> H[:3, 3].round(12).tolist()                  # sphere centre 1 above the plane
    [0.0, 0.0, 1.0]
    """
    q, D1, D2 = _check_q(q, charts, S1, S2, 1)
    return pose_from_derivatives(D1, D2, q[4])


def pose_from_derivatives(D1, D2, psi) -> np.ndarray:
    """`contact_pose` from the surfaces' derivative arrays (order >= 1), without checks."""
    return _frame(D1) @ _flip(psi) @ se3.inverse(_frame(D2))


def contact_coordinates(S1, S2, x, H_12, *, charts=(0, 0)) -> np.ndarray:
    """Contact coordinates ``q = (u1, v1, u2, v2, psi)`` of a touching configuration.

    Parameters
    ----------
    S1, S2 : Surface
    x : array_like, shape (4,)
        Contact parameters in `charts` (e.g. ``ClosestPoints.x`` at ``Delta = 0``).
    H_12 : array_like, shape (4, 4)
        Pose of body 2 in body 1.
    charts : tuple of int

    Returns
    -------
    q : ndarray, shape (5,)
        `x` completed by ``psi = atan2(y1 . R x2, x1 . R x2)`` [rad].

    Raises
    ------
    ParameterError, GeometryError
        Bad input, outside a domain, or a singular point.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> S1, S2, q = Plane(), Sphere(1.0), (0.0, 0.0, -np.pi / 2, 0.0, 0.3)
    >>> H = contact_pose(S1, S2, q, charts=(0, 1))
    >>> contact_coordinates(S1, S2, q[:4], H, charts=(0, 1)).round(12).tolist()
    [0.0, 0.0, -1.570796326795, 0.0, 0.3]
    """
    R, _ = check_pose(H_12, "H_12")
    x = check_vector(x, "x", 4)
    D1, D2 = pair_derivatives(S1, S2, x, charts, 1, lists=False)
    x2 = _frame(D1)[:3, :3].T @ np.array(R) @ _frame(D2)[:3, 0]
    return np.array(x + [math.atan2(x2[1], x2[0])])


@dataclass(frozen=True, eq=False)
class ContactJacobian:
    """Kry & Pai's ``H(q)`` in three frames, and its time derivative.

    The relative twist of body 2 relative to body 1 is ``T = H dq/dt`` and its time
    derivative ``dT/dt = H d2q/dt2 + dH/dt dq/dt``, in the frame of each pair:

    Attributes
    ----------
    H_C, dH_C : ndarray, shape (6, 5)
        In the patch frame C1 of body 1 (moving with the contact point): ``T_C =
        Ad(inv(H_1C)) T_1``. Row 5 (normal translation) vanishes (to round-off): no contact
        coordinate moves one surface off the other (seed 002 sec. 3.2).
    H_1, dH_1 : ndarray, shape (6, 5)
        In frame 1: ``T_1 = vee(dH_12/dt inv(H_12))`` (the twist ``(w, v)`` of
        `contact_kinematics`).
    H_2, dH_2 : ndarray, shape (6, 5)
        In frame 2: ``T_2 = vee(inv(H_12) dH_12/dt)``, the body twist of body 2 relative to
        body 1 (body 1 at rest: body 2's body twist).
    H_1C : ndarray, shape (4, 4)
        The patch frame C1 in body 1.

    The ``dH`` fields are None when no ``q_rate`` was given.
    """

    H_C: np.ndarray
    H_1: np.ndarray
    H_2: np.ndarray
    dH_C: np.ndarray | None
    dH_1: np.ndarray | None
    dH_2: np.ndarray | None
    H_1C: np.ndarray


def contact_coordinate_jacobian(S1, S2, q, *, charts=(0, 0), q_rate=None) -> ContactJacobian:
    """Kry & Pai's contact matrix ``H(q)`` and its time derivative (seed 002 eqs. 12-14, 44-57).

    Parameters
    ----------
    S1, S2 : Surface
    q : array_like, shape (5,)
        Contact coordinates ``(s, t, u, v, psi)`` (see `contact_pose`).
    charts : tuple of int
        Charts of ``(s, t)`` on S1 and ``(u, v)`` on S2.
    q_rate : array_like, shape (5,), optional
        ``dq/dt``; when given, ``dH/dt`` is computed too.

    Returns
    -------
    ContactJacobian

    Raises
    ------
    ParameterError
        Bad shapes or non-finite input.
    GeometryError
        Outside a domain, or at a singular point of a parametrization.

    Notes
    -----
    With ``A = H_1C1``, ``B = B(psi)``, ``C = H_2C2`` and ``H_12 = A B inv(C)``, the product
    rule gives, in C1 coordinates (seed 002 eqs. 55-56)::

        T_C = J1 (ds, dt) + e_wz dpsi - Ad(B) J2 (du, dv)
        H_C = [J1, -Ad(B) J2, e_wz]

    where ``J = [[omega_s, omega_t], [v_s, v_t]]`` is the body velocity of a patch frame
    ``[x y z | c]`` per unit parameter rate, ``hat(omega_i) = Q^T Q_i``, ``v_i = Q^T c_i``
    (seed 002 eqs. 44-50): ``omega_i = (z . y_i, x . z_i, y . x_i)``. Its derivatives need
    the second derivatives of the frame axes, hence third derivatives of the surfaces;
    they are propagated exactly as second-order jets in the parameters. Then::

        dH_C/dt = [dJ1, -(ad(e_wz dpsi) Ad(B) J2 + Ad(B) dJ2), 0]
        H_1 = Ad(A) H_C                dH_1/dt = Ad(A) (ad(J1 (ds, dt)) H_C + dH_C/dt)
        H_2 = Ad(C inv(B)) H_C         dH_2/dt = Ad(C inv(B)) (ad(Ad(B) J2 (du, dv)
                                                  - e_wz dpsi) H_C + dH_C/dt)

    using ``d/dt Ad(G) = Ad(G) ad(vee(inv(G) dG/dt))``.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> Jc = contact_coordinate_jacobian(Plane(), Sphere(1.0), (0.0, 0.0, -np.pi / 2, 0.0, 0.0),
    ...                                  charts=(0, 1))
    >>> Jc.H_C.shape, bool(np.allclose(Jc.H_C[5], 0.0, rtol=0.0, atol=1e-15))
    ((6, 5), True)
    """
    q, D1, D2 = _check_q(q, charts, S1, S2, 3)
    qd = None if q_rate is None else np.array(check_vector(q_rate, "q_rate", 5))
    return jacobian_from_derivatives(D1, D2, q[4], qd)


def jacobian_from_derivatives(D1, D2, psi, q_rate=None) -> ContactJacobian:
    """`contact_coordinate_jacobian` from the surfaces' derivative arrays (shape (4, 4, 3),
    order 3) at the contact parameters, without checks: the hot path of the reduced contact
    (`library.reduced_contact.ReducedChart`), which evaluates the surfaces once."""
    J1, dJ1, A = _patch_velocity(D1)
    J2, dJ2, C = _patch_velocity(D2)
    B = _flip(psi)
    AdB = np.zeros((6, 6))
    AdB[:3, :3] = AdB[3:, 3:] = B[:3, :3]
    H_C = np.zeros((6, 5))
    H_C[:, :2] = J1
    H_C[:, 2:4] = -AdB @ J2
    H_C[2, 4] = 1.0
    G2 = C @ se3.inverse(B)
    H_1 = se3.Ad(A) @ H_C
    H_2 = se3.Ad(G2) @ H_C
    dH_C = dH_1 = dH_2 = None
    if q_rate is not None:
        qd = q_rate
        e_psi = np.zeros(6)
        e_psi[2] = qd[4]
        dJ1q = dJ1[0] * qd[0] + dJ1[1] * qd[1]
        dJ2q = dJ2[0] * qd[2] + dJ2[1] * qd[3]
        dH_C = np.zeros((6, 5))
        dH_C[:, :2] = dJ1q
        dH_C[:, 2:4] = -(se3.ad(e_psi) @ AdB @ J2 + AdB @ dJ2q)
        dH_1 = se3.Ad(A) @ (se3.ad(J1 @ qd[:2]) @ H_C + dH_C)
        dH_2 = se3.Ad(G2) @ (se3.ad(AdB @ J2 @ qd[2:4] - e_psi) @ H_C + dH_C)
    return ContactJacobian(H_C, H_1, H_2, dH_C, dH_1, dH_2, A)
