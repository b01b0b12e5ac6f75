"""The relative curvature of a contact pair and its rates per unit relative twist (complex-step
derivatives along the contact kinematics), for the local Hertz stiffness
(`porthamiltonian.kernels.contact_laws.local_hertz`).
"""

from __future__ import annotations

import numpy as np
from ._njit import njit

from . import closest as _kc
from . import surfaces as _s
from .contact_kinematics import kinematics

#: imaginary step of the complex-step derivatives of the curvature invariants (their arguments
#: are O(1) to O(1/scale); any step far below round-off and far above underflow is exact)
COMPLEX_STEP = 1e-30


@njit(inline="always")
def _rot(R, a):
    return (R[0, 0] * a[0] + R[0, 1] * a[1] + R[0, 2] * a[2], R[1, 0] * a[0] + R[1, 1] * a[1] + R[1, 2] * a[2],
            R[2, 0] * a[0] + R[2, 1] * a[1] + R[2, 2] * a[2])


@njit
def curvature_invariants(D1, D2, R):
    """Trace and determinant of the relative curvature ``K1 + K2`` of two surfaces at a
    generalized contact pair [1/m, 1/m^2].

    ``K1 = E^T L1 E`` and ``K2 = E^T R L2 R^T E`` as in
    `porthamiltonian.kernels.closest.tangent_curvatures` (curvature forms with the outward
    normals, in the tangent basis ``E`` of surface 1): the gap between the undeformed surfaces
    near the contact is ``h = 1/2 y^T (K1 + K2) y`` (Johnson's ``A x^2 + B y^2``), whose
    eigenvalues are the principal relative curvatures ``k_max, k_min`` of Hertz theory. The
    formulas take real or complex arrays (`curvature_rates` differentiates them by complex
    steps).

    Parameters
    ----------
    D1, D2 : ndarray, shape (>=3, >=3, 3)
        Derivative arrays of S1 and S2 at the contact parameters (entries of order <= 2 read).
    R : ndarray, shape (3, 3)
        Rotation of ``H_12``.

    Returns
    -------
    trace : float or complex [1/m]
    det : float or complex [1/m^2]
    """
    n1, a00, a01, a11 = _kc.tangent_form(D1)
    _, b00, b01, b11 = _kc.tangent_form(D2)
    f1u, f1v = _kc.row3(D1, 1, 0), _kc.row3(D1, 0, 1)
    lu = np.sqrt(_kc.dot3(f1u, f1u))
    e1 = (f1u[0] / lu, f1u[1] / lu, f1u[2] / lu)
    e2 = _kc.cross3(n1, e1)
    Rf2u, Rf2v = _rot(R, _kc.row3(D2, 1, 0)), _rot(R, _kc.row3(D2, 0, 1))
    s00, s01, s11 = _kc._congruence(a00, a01, a11, lu, 0.0 * lu, _kc.dot3(f1v, e1), _kc.dot3(f1v, e2))
    k00, k01, k11 = _kc._congruence(b00, b01, b11, _kc.dot3(Rf2u, e1), _kc.dot3(Rf2u, e2), _kc.dot3(Rf2v, e1),
                                    _kc.dot3(Rf2v, e2))
    m00, m01, m11 = s00 + k00, s01 + k01, s11 + k11
    return m00 + m11, m00 * m11 - m01 * m01


@njit
def _moved(D, Dn, du, dv, h):
    """``D + i h dD`` with ``dD[i, j] = D[i+1, j] du + D[i, j+1] dv`` for ``i + j <= 2`` (the
    derivative of the order-2 array as the parameters move at ``(du, dv)``); ``Dn`` holds
    the orders up to 3."""
    out = np.zeros((3, 3, 3), dtype=np.complex128)
    for i in range(3):
        for j in range(3 - i):
            for k in range(3):
                out[i, j, k] = D[i, j, k] + 1j * h * (Dn[i + 1, j, k] * du + Dn[i, j + 1, k] * dv)
    return out


@njit
def curvature_rates(F1, I1, F2, I2, x, c1, c2, D1, D2, H_12):
    """The relative curvature's invariants and their rates per unit relative twist.

    As the bodies move with the relative twist ``T`` (of S2 w.r.t. S1 in frame 1), the
    generalized contact points move at the rates of `kinematics` and ``R`` at ``hat(w) R``;
    the invariants of `curvature_invariants` then change at ``g_trace . T`` and ``g_det . T``.
    Each of the six columns is the exact directional derivative (complex step on the
    order-2 derivative arrays moved along the surfaces' order-3 derivatives, and on ``R``).

    Parameters
    ----------
    F1, I1, F2, I2 : ndarray
        Packed surfaces.
    x : ndarray, shape (4,)
        Exact contact parameters in charts ``c1``, ``c2``.
    D1, D2 : ndarray, shape (3, 3, 3)
        Their order-2 derivative arrays.
    H_12 : ndarray, shape (4, 4)

    Returns
    -------
    trace, det : float [1/m, 1/m^2]
    g_trace, g_det : ndarray, shape (6,) [1/m, 1/m^2 per unit twist]
    s_min : float
        Smallest singular value of the contact matrix over the six twists (0 where the
        kinematics are singular; the caller checks it).
    """
    R = H_12[:3, :3].copy()
    d = H_12[:3, 3].copy()
    E1 = _s.derivatives(F1, I1, x[0], x[1], 3, c1)
    E2 = _s.derivatives(F2, I2, x[2], x[3], 3, c2)
    trace, det = curvature_invariants(D1, D2, R)
    g_trace = np.zeros(6)
    g_det = np.zeros(6)
    h = COMPLEX_STEP
    s_min = np.inf
    for k in range(6):
        T = np.zeros(6)
        T[k] = 1.0
        _, _, _, _, rate, _, smin = kinematics(D1, D2, R, d, T)
        s_min = min(s_min, smin)
        if not smin > 0.0:
            return trace, det, g_trace, g_det, 0.0
        Rc = R.astype(np.complex128)
        if k < 3:   # d R / dt = hat(w) R
            w = T[:3]
            for j in range(3):
                c = (w[1] * R[2, j] - w[2] * R[1, j], w[2] * R[0, j] - w[0] * R[2, j], w[0] * R[1, j] - w[1] * R[0, j])
                for i in range(3):
                    Rc[i, j] += 1j * h * c[i]
        tc, dc = curvature_invariants(_moved(D1, E1, rate[0], rate[1], h), _moved(D2, E2, rate[2], rate[3], h), Rc)
        g_trace[k] = tc.imag / h
        g_det[k] = dc.imag / h
    return trace, det, g_trace, g_det, s_min
