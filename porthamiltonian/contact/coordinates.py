"""Kry & Pai reduced contact coordinates ``q = (s, t, u, v, psi)`` (Kry & Pai, *Continuous contact
simulation for smooth surfaces*, 2003, sec. 3, appendix).

Body 1 carries a patch ``c(s, t)``, body 2 a patch ``d(u, v)``, each with its patch frame
(`frames.patch_frame`: origin on the surface, ``x = f_u / |f_u|``, ``z = n``). In contact the
two frames share their origin and the frame of body 2 is the frame of body 1 turned by
``psi`` about ``z1`` and flipped (``z2 = -z1``)::

    H_12(q) = H_1C1(s, t) B(psi) inv(H_2C2(u, v))

    B(psi) = [[cos psi,  sin psi,  0, 0],        x2 = ( cos psi, sin psi, 0) in C1
              [sin psi, -cos psi,  0, 0],        z2 = -z1
              [0,        0,       -1, 0],
              [0,        0,        0, 1]]

so ``q`` parametrizes exactly the 5-dimensional set of touching poses. The formulas run in
the compiled kernels of `porthamiltonian.kernels.reduced`; these functions check their
arguments and evaluate the surfaces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..kernels import reduced as _kred
from ._local import check_pose, check_vector, pair_derivatives

__all__ = ["ContactJacobian", "contact_coordinate_jacobian", "contact_coordinates",
           "contact_pose"]


def _check_q(q, charts, S1, S2, order):
    q = check_vector(q, "q", 5)
    D1, D2 = pair_derivatives(S1, S2, q[:4], charts, order, lists=False)
    return q, D1, D2


def contact_pose(S1, S2, q, *, charts=(0, 0)) -> np.ndarray:
    """Pose of body 2 in body 1 for contact coordinates ``q`` (Kry & Pai 2003, eq. 9).

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
    return _kred.pose(D1, D2, q[4])


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
    x2 = _kred.patch_frame(D1)[:3, :3].T @ np.array(R) @ _kred.patch_frame(D2)[:3, 0]
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
        coordinate moves one surface off the other (Kry & Pai 2003, sec. 3.2).
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
    """Kry & Pai's contact matrix ``H(q)`` and its time derivative (Kry & Pai 2003, eqs. 12-14, 44-57).

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
    rule gives, in C1 coordinates (Kry & Pai 2003, eqs. 55-56)::

        T_C = J1 (ds, dt) + e_wz dpsi - Ad(B) J2 (du, dv)
        H_C = [J1, -Ad(B) J2, e_wz]

    where ``J = [[omega_s, omega_t], [v_s, v_t]]`` is the body velocity of a patch frame
    ``[x y z | c]`` per unit parameter rate, ``hat(omega_i) = Q^T Q_i``, ``v_i = Q^T c_i``
    (Kry & Pai 2003, eqs. 44-50): ``omega_i = (z . y_i, x . z_i, y . x_i)``. Its derivatives need
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
    qd = np.zeros(5) if q_rate is None else np.array(check_vector(q_rate, "q_rate", 5))
    _, A, H_C, H_1, H_2, dH_C, dH_1, dH_2 = _kred.contact_matrices(D1, D2, q[4], qd)
    if q_rate is None:
        dH_C = dH_1 = dH_2 = None
    return ContactJacobian(H_C, H_1, H_2, dH_C, dH_1, dH_2, A)
