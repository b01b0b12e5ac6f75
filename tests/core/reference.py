"""Independent references for the core tests: closed forms derived by hand and quadratures.

Nothing here imports porthamiltonian: every figure is computed from the textbook equation of
the physical system (written out in each docstring), so the tests compare the engine with
physics, not with itself.
"""

import math

import numpy as np
from scipy.integrate import quad
from scipy.special import ellipk


def driven_oscillator(t, m, b, k, *, F0=0.0, F1=0.0, w=0.0, q0=0.0, v0=0.0):
    """Solution of m q'' + b q' + k q = F0 + F1 sin(w t), q(0) = q0, q'(0) = v0 (underdamped).

    Particular solution: q_p = F0/k + Im(F1 exp(i w t) / (k - m w^2 + i b w)).
    Homogeneous solution: q_h = exp(-a t) (C1 cos(wd t) + C2 sin(wd t)) with a = b/(2m),
    wd = sqrt(k/m - a^2); C1 = q0 - q_p(0), C2 = (v0 - q_p'(0) + a C1) / wd.

    Returns
    -------
    q, v : ndarray, shape like t
    """
    t = np.asarray(t, dtype=float)
    a = b / (2.0 * m)
    wd2 = k / m - a * a
    if wd2 <= 0:
        raise ValueError("driven_oscillator is the underdamped solution; got a = %g >= w0" % a)
    wd = math.sqrt(wd2)
    Z = F1 / complex(k - m * w * w, b * w)  # complex amplitude of the sin(w t) response
    qp = F0 / k + np.imag(Z * np.exp(1j * w * t))
    vp = np.imag(1j * w * Z * np.exp(1j * w * t))
    qp0 = F0 / k + Z.imag
    vp0 = (1j * w * Z).imag
    C1 = q0 - qp0
    C2 = (v0 - vp0 + a * C1) / wd
    e = np.exp(-a * t)
    c, s = np.cos(wd * t), np.sin(wd * t)
    qh = e * (C1 * c + C2 * s)
    vh = e * (-a * (C1 * c + C2 * s) + wd * (-C1 * s + C2 * c))
    return qp + qh, vp + vh


def overdamped_free(t, m, b, k, *, q0, v0=0.0):
    """Solution of m q'' + b q' + k q = 0 with b^2 > 4 m k: q = C1 exp(s1 t) + C2 exp(s2 t).

    s1,2 = (-b -+ sqrt(b^2 - 4 m k)) / (2 m); C1 + C2 = q0, s1 C1 + s2 C2 = v0.

    Returns
    -------
    q, v : ndarray, shape like t
    """
    t = np.asarray(t, dtype=float)
    disc = b * b - 4.0 * m * k
    if disc <= 0:
        raise ValueError("overdamped_free needs b^2 > 4 m k")
    r = math.sqrt(disc)
    s1, s2 = (-b - r) / (2 * m), (-b + r) / (2 * m)
    C2 = (v0 - s1 * q0) / (s2 - s1)
    C1 = q0 - C2
    return C1 * np.exp(s1 * t) + C2 * np.exp(s2 * t), s1 * C1 * np.exp(s1 * t) + s2 * C2 * np.exp(s2 * t)


def pendulum_period(length, g, theta0):
    """Exact period of a planar pendulum released at rest from angle theta0 [rad].

    T = 4 sqrt(L/g) K(m), m = sin^2(theta0/2) (scipy's ellipk takes the parameter m = k^2).
    """
    return 4.0 * math.sqrt(length / g) * float(ellipk(math.sin(theta0 / 2.0) ** 2))


def quartic_period(mass, amplitude):
    """Period of m q'' = -(q + q^3) (H = p^2/(2m) + q^2/2 + q^4/4) released at rest from A.

    T = 4 int_0^A dq / sqrt(2/m (V(A) - V(q))); V(A) - V(q) = (A^2 - q^2)(1/2 + (A^2 + q^2)/4).
    With q = A sin(phi) the endpoint singularity cancels:
    T = 4 int_0^{pi/2} dphi / sqrt(2/m (1/2 + A^2 (1 + sin^2 phi)/4)).
    """
    A = amplitude

    def integrand(phi):
        return 1.0 / math.sqrt(2.0 / mass * (0.5 + A * A * (1.0 + math.sin(phi) ** 2) / 4.0))

    val, err = quad(integrand, 0.0, math.pi / 2, epsabs=1e-14, epsrel=1e-13)
    return 4.0 * val
