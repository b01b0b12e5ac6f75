"""Sliding-plane contact: parameter speeds and centripetal marker accelerations (Tasora &
Righettini, *Sliding contact between freeform surfaces*, 2003)."""

from __future__ import annotations

import numpy as np

from ..errors import GeometryError
from ..geometry.gauss import _cross, _dot, normal_derivatives
from ._local import check_pose, check_vector, pair_derivatives, rotate, tangent_basis

__all__ = ["centripetal_accelerations", "sliding_plane_rates"]


def sliding_plane_rates(S1, S2, x, H_12, T_12, *, charts=(0, 0),
                        max_condition: float = 1e10) -> np.ndarray:
    """Parameter speeds of the sliding-plane contact (Tasora & Righettini 2003, eq. 23).

    Parameters
    ----------
    S1, S2 : Surface
        Surface of body 1 (carries the contact point P) and of body 2 (carries the sliding
        plane through S), each in its body frame.
    x : array_like, shape (4,)
        Contact parameters ``(u1, v1, u2, v2)`` in `charts`; the surfaces touch there.
    H_12 : array_like, shape (4, 4)
        Pose ``(R, d)`` of body 2 in body 1.
    T_12 : array_like, shape (6,)
        Twist ``(w, v)`` of body 2 relative to body 1 in frame 1 (``dR/dt = hat(w) R``,
        ``dd/dt = w x d + v``) [rad/s, m/s].
    charts : tuple of int
        ``(chart1, chart2)`` of `x`.
    max_condition : float
        Largest accepted condition number of the 4x4 system.

    Returns
    -------
    x_rate : ndarray, shape (4,)
        ``(du1, dv1, du2, dv2)/dt`` [parameter units/s].

    Raises
    ------
    ParameterError
        Bad shapes or non-finite input.
    GeometryError
        Parameters outside a domain, a singular point, or a singular 4x4 system (conforming
        contact, e.g. a shaft in a hole of the same radius; Tasora & Righettini 2003, sec. 4.3).

    Notes
    -----
    In frame 1 (body 1 at rest) ``P = p1`` moves only through its parameters, ``S = R p2 + d``
    also moves with body 2. Differentiating ``C_ps = P - S = 0`` and ``C_n = n1 + R n2 = 0``
    (Tasora & Righettini 2003, eqs. 13-21)::

        F1 a1 - R F2 a2 = w x S + v                 a_i = (du_i, dv_i)
        N1 a1 + R N2 a2 = -w x (R n2)               N_i = [n_u n_v]

    Both right-hand sides and all columns are tangent at a contact, so projecting on two
    orthonormal tangent vectors ``lambda_uv = (e1, e2)`` of S1 gives the 4x4 system
    (Tasora & Righettini 2003, eq. 23)::

        [ lambda^T F1    -lambda^T R F2 ] [a1]   [ lambda^T (w x S + v)     ]
        [ lambda^T N1     lambda^T R N2 ] [a2] = [ -lambda^T (w x (R n2))   ]

    This is the generalized contact kinematics (`contact_kinematics`) at ``Delta = 0``,
    written in the parameters directly.

    Examples
    --------
    A unit ball rolling on the plane z = 0 about the y axis through the contact point (the
    wheel on plane of Tasora & Righettini 2003, sec. 6.2 is in ``tests/contact/test_sliding_plane.py``):

    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> H = np.eye(4); H[2, 3] = 1.0
    >>> x = (0.0, 0.0, -np.pi / 2, 0.0)           # plane origin; south pole in chart 1
    >>> rates = sliding_plane_rates(Plane(), Sphere(1.0), x, H, (0, 1.0, 0, 0, 0, 0),
    ...                             charts=(0, 1))
    >>> rates.round(12).tolist()                  # both points advance along +x
    [1.0, 0.0, 0.0, 1.0]
    """
    R, d = check_pose(H_12, "H_12")
    T = check_vector(T_12, "T_12", 6)
    D1, D2 = pair_derivatives(S1, S2, x, charts, 2)
    w, v = T[:3], T[3:]
    N1 = normal_derivatives(np.array(D1), 1).tolist()
    N2 = normal_derivatives(np.array(D2), 1).tolist()
    n1 = N1[0][0]
    e = tangent_basis(n1, D1[1][0])
    Rp2 = rotate(R, D2[0][0])
    S = (Rp2[0] + d[0], Rp2[1] + d[1], Rp2[2] + d[2])
    cols_p = (D1[1][0], D1[0][1], tuple(-t for t in rotate(R, D2[1][0])),
              tuple(-t for t in rotate(R, D2[0][1])))
    cols_n = (N1[1][0], N1[0][1], rotate(R, N2[1][0]), rotate(R, N2[0][1]))
    A = np.array([[_dot(ej, c) for c in cols_p] for ej in e]
                 + [[_dot(ej, c) for c in cols_n] for ej in e])
    ws = _cross(w, S)
    rhs_p = (ws[0] + v[0], ws[1] + v[1], ws[2] + v[2])
    rhs_n = tuple(-t for t in _cross(w, rotate(R, N2[0][0])))
    b = np.array([_dot(ej, rhs_p) for ej in e] + [_dot(ej, rhs_n) for ej in e])
    sv = np.linalg.svd(A, compute_uv=False)
    if not sv[-1] > sv[0] / max_condition:
        cond = sv[0] / sv[-1] if sv[-1] > 0.0 else np.inf
        raise GeometryError(
            f"singular sliding-plane speed problem between {S1!r} and {S2!r} at x = "
            f"{np.asarray(x, dtype=float).tolist()}: the 4x4 matrix of Tasora & Righettini 2003, eq. (23) has condition number {cond:.3g} "
            f"> {max_condition:g} (conforming contact: the contact point is not isolated)")
    return np.linalg.solve(A, b)


def centripetal_accelerations(S1, S2, x, x_rate, *, charts=(0, 0)):
    """Centripetal parts of the contact-marker accelerations (Tasora & Righettini 2003, eqs. 38-39).

    Parameters
    ----------
    S1, S2 : Surface
    x : array_like, shape (4,)
        Contact parameters ``(u1, v1, u2, v2)`` in `charts`.
    x_rate : array_like, shape (4,)
        Parameter speeds ``(du1, dv1, du2, dv2)/dt``, e.g. from `sliding_plane_rates`.
    charts : tuple of int

    Returns
    -------
    a1 : ndarray, shape (3,)
        ``P''_perp`` in frame 1 [m/s^2].
    a2 : ndarray, shape (3,)
        ``S''_perp`` in frame 2 [m/s^2].

    Raises
    ------
    ParameterError, GeometryError
        As `sliding_plane_rates` (bad input, outside a domain, singular point).

    Notes
    -----
    The acceleration of a point moving on its surface in the body frame splits into a part
    linear in the parameter accelerations (tangent) and the centripetal part (Tasora & Righettini 2003
    eqs. 33-39)::

        P''_perp = du^2 f_uu + 2 du dv f_uv + dv^2 f_vv

    Only the centripetal parts enter the bias of the point-on-plane constraint, so the
    parameter accelerations are never needed (Tasora & Righettini 2003, sec. 4.3).

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Torus
    >>> a1, a2 = centripetal_accelerations(Torus(1.0, 0.1), Plane(), (0.0, 0.0, 0.0, 0.0),
    ...                                    (2.0, 0.0, 0.0, 0.0))
    >>> a1.round(12).tolist(), a2.tolist()     # |a1| = R_rolling (du/dt)^2 = 1.1 * 4
    ([-4.4, 0.0, 0.0], [0.0, 0.0, 0.0])
    """
    D1, D2 = pair_derivatives(S1, S2, x, charts, 2)
    r = check_vector(x_rate, "x_rate", 4)
    out = []
    for D, (du, dv) in ((D1, r[:2]), (D2, r[2:])):
        out.append(np.array([du * du * D[2][0][k] + 2.0 * du * dv * D[1][1][k]
                             + dv * dv * D[0][2][k] for k in range(3)]))
    return out[0], out[1]
