"""Compiled Gauss-map contact kinematics in radius-of-curvature form: a smooth surface S1
against a body S2 given by its contact point and its radius-of-curvature tensor, of which a
point (a walker's point foot: radius 0) is the case ``M2 = 0``.

Why this form (issue 36, point feet): `porthamiltonian.kernels.contact.kinematics` takes S2's
shape operator ``L2`` (curvatures, ``1/r`` for a sphere of radius r) from its derivative array,
which a point does not have (``f_u = f_v = 0``: no tangent plane, ``L2`` infinite). Multiplying
the contact equations of docs/math.md sec. 5 by S2's radius-of-curvature tensor
``M2 = L2^+`` (the inverse of ``L2`` on the tangent plane; ``r (I - n2 n2^T)`` for a sphere)
gives equations that hold for every ``M2 >= 0`` and are regular at ``M2 = 0``; for a point the
contact frame then takes its normal from S1 alone (``n2 = -R^T n1``), and the point's contact
point is the point itself (``dp2/dt = 0``). For ``r > 0`` they are the sphere's equations, so
the point is the limit ``r -> 0`` of the sphere, linearly in r
(`tests/kernels/test_point_kernels.py`).
"""

from __future__ import annotations

import math

import numpy as np

from . import closest as _kc
from . import lie as _lie
from ._njit import njit
from .contact_kinematics import _solve2


@njit
def kinematics(D1, p2, M2, R, d, T):
    """Contact kinematics of S1 against S2 given by its contact point and radii of curvature.

    Parameters
    ----------
    D1 : ndarray, shape (3, 3, 3)
        Order-2 derivatives of S1 at its contact point (the foot of the normal through S2's).
    p2 : ndarray, shape (3,) [m]
        S2's contact point, frame 2 (a point foot: the point).
    M2 : ndarray, shape (3, 3) [m]
        S2's radius-of-curvature tensor at `p2`, frame 2: ``dp2 = M2 dn2`` for the motion of
        the contact point along S2, symmetric, zero along ``n2``. Zero for a point;
        ``r (I - n2 n2^T)`` for a sphere of radius r; the inverse of the shape operator on
        the tangent plane for any convex surface.
    R : ndarray, shape (3, 3)
    d : ndarray, shape (3,) [m]
        ``H_12``.
    T : ndarray, shape (6,)
        Relative twist ``(w, v)`` of S2 w.r.t. S1 in frame 1 [rad/s, m/s].

    Returns
    -------
    distance : float [m]
        ``n1 . (R p2 + d - p1)``, negative in penetration.
    distance_rate : float [m/s]
    p1_rate : ndarray, shape (3,) [m/s]
        Of S1's contact point, frame 1.
    p2_rate : ndarray, shape (3,) [m/s]
        Of S2's contact point, frame 2 (zero for a point).
    n2_rate : ndarray, shape (3,) [1/s]
        Of S2's contact normal ``n2 = -R^T n1``, frame 2.
    uv1_rate : ndarray, shape (2,) [param/s]
        Of S1's contact parameters.
    s_max, s_min : float [-]
        Singular values of the 2x2 matrix ``A`` below (``s_min = 0``: the foot of the normal
        is not unique, S2's point sits at a centre of curvature of S1; the rates are NaN).

    Notes
    -----
    With ``n1`` S1's unit normal, ``c2 = R p2 + d``, ``s = w x c2 + v`` (the velocity of the
    body-2 point at ``c2``), ``L1`` S1's shape operator and ``M = R M2 R^T``, the contact
    conditions ``c2 = p1 + Delta n1`` and ``n1 = -R n2`` differentiate to::

        s + R dp2/dt = (I + Delta L1) dp1/dt + dDelta/dt n1
        L1 dp1/dt    = w x n1 - R dn2/dt,        dp2/dt = M2 dn2/dt

    whose tangential part is, in the tangent basis ``E = (e1, e2)`` of
    `porthamiltonian.kernels.contact.kinematics` (``K1 = E^T L1 E``, ``N = E^T M E``)::

        A y1 = E^T s + N E^T (w x n1),   A = I + Delta K1 + N K1
        dp1/dt = E y1,   R dn2/dt = w x n1 - E K1 y1,   R dp2/dt = M R dn2/dt
        dDelta/dt = n1 . s

    (``N`` times the equations of `contact.kinematics`, whose ``L2`` is ``M^-1`` on the
    tangent plane). For a point, ``N = 0``: ``(I + Delta K1) y1 = E^T s``, the foot of the
    normal through a moving point.
    """
    w = T[:3]
    v = T[3:]
    n1, a00, a01, a11 = _kc.weingarten(D1)
    f1u, f1v = D1[1, 0], D1[0, 1]
    c2 = _lie.mv(R, p2) + d
    distance = _lie.dot3(n1, c2 - D1[0, 0])
    lu = math.sqrt(_lie.dot3(f1u, f1u))
    e1 = f1u / lu
    e2 = _lie.cross3(n1, e1)
    p00, p10, p11 = _lie.dot3(f1u, e1), _lie.dot3(f1v, e1), _lie.dot3(f1v, e2)
    k1 = _kc._congruence(a00, a01, a11, p00, 0.0, p10, p11)
    Me1, Me2 = _lie.mv(R, _lie.mv(M2, _lie.mtv(R, e1))), _lie.mv(R, _lie.mv(M2, _lie.mtv(R, e2)))
    n00, n01, n11 = _lie.dot3(e1, Me1), 0.5 * (_lie.dot3(e1, Me2) + _lie.dot3(e2, Me1)), _lie.dot3(e2, Me2)
    s = _lie.cross3(w, c2) + v
    rate = _lie.dot3(n1, s)
    wn = _lie.cross3(w, n1)
    wn0, wn1 = _lie.dot3(e1, wn), _lie.dot3(e2, wn)
    m00 = 1.0 + distance * k1[0] + n00 * k1[0] + n01 * k1[1]
    m01 = distance * k1[1] + n00 * k1[1] + n01 * k1[2]
    m10 = distance * k1[1] + n01 * k1[0] + n11 * k1[1]
    m11 = 1.0 + distance * k1[2] + n01 * k1[1] + n11 * k1[2]
    fro2 = m00 * m00 + m01 * m01 + m10 * m10 + m11 * m11
    det = m00 * m11 - m01 * m10
    root = math.sqrt(max(fro2 * fro2 - 4.0 * det * det, 0.0))
    s_max = math.sqrt(0.5 * (fro2 + root))
    s_min = abs(det) / s_max if s_max > 0.0 else 0.0
    if not s_min > 0.0:
        nan3 = np.full(3, np.nan)
        return distance, rate, nan3, nan3, nan3, np.full(2, np.nan), s_max, s_min
    y0, y1 = _solve2(m00, m01, m10, m11,
                     _lie.dot3(e1, s) + n00 * wn0 + n01 * wn1,
                     _lie.dot3(e2, s) + n01 * wn0 + n11 * wn1)
    dp1 = e1 * y0 + e2 * y1
    Rdn2 = wn - e1 * (k1[0] * y0 + k1[1] * y1) - e2 * (k1[1] * y0 + k1[2] * y1)
    dn2 = _lie.mtv(R, Rdn2)
    dp2 = _lie.mv(M2, dn2)
    uv1 = np.empty(2)
    uv1[0], uv1[1] = _solve2(_lie.dot3(f1u, f1u), _lie.dot3(f1u, f1v), _lie.dot3(f1u, f1v), _lie.dot3(f1v, f1v),
                             _lie.dot3(f1u, dp1), _lie.dot3(f1v, dp1))
    return distance, rate, dp1, dp2, dn2, uv1, s_max, s_min
