"""Compiled Hertz stiffness of an elliptical contact and its exact partial derivatives.

The running compliant contact with a `porthamiltonian.contact.LocalHertzLaw` evaluates the
Hertz stiffness from the principal relative curvatures at every evaluation, and the
energy-consistent wrench of its spring needs the stiffness's derivatives
(`porthamiltonian.kernels.contact.local_hertz`). `stiffness` gives both; the public
`porthamiltonian.contact.hertz` functions compute the same stiffness with scipy (and are the
reference the tests compare against).

Method (K. L. Johnson, *Contact Mechanics*, Cambridge University Press, 1985, ch. 4, in
Carlson's form, NIST DLMF 19.25.1): with ``q = (b/a)^2`` solving the shape equation
``R_D(0, 1, q) / R_D(0, q, 1) = k_max / k_min``,
``K = (2 pi / 3) E* sqrt(2 D / k_min) / F^(3/2)``, ``D = R_D(0, q, 1) / 3``,
``F = R_F(0, q, 1)``. Carlson's integrals by the duplication algorithm (B. C. Carlson,
"Numerical computation of real or complex elliptic integrals", Numerical Algorithms 10,
1995; DLMF 19.36.1), written for complex arguments so that derivatives in ``q`` come from
complex steps, exact to round-off (J. R. R. A. Martins, P. Sturdza and J. J. Alonso, "The
complex-step derivative approximation", ACM TOMS 29(3), 2003).
"""

from __future__ import annotations

import cmath
import math

from numba import njit

#: imaginary step of the complex-step derivatives in q (q in (0, 1]: far below round-off of
#: q, far above underflow)
_STEP = 1e-30
#: duplication stops when the arguments agree to this relative spread; the truncated series
#: of the last step then errs by about its sixth power (DLMF 19.36.1), below 1e-16
_SPREAD = 1e-3


@njit(cache=True)
def carlson_rf(x, y, z):
    """Carlson's R_F(x, y, z) for complex arguments (at most one zero, none on the negative
    real axis).

    Returns
    -------
    complex
        ``1/2 int_0^inf ((t + x)(t + y)(t + z))^(-1/2) dt`` (DLMF 19.16.1), relative error
        ~1e-16.
    """
    x, y, z = complex(x), complex(y), complex(z)
    for _ in range(100):
        sx, sy, sz = cmath.sqrt(x), cmath.sqrt(y), cmath.sqrt(z)
        lam = sx * (sy + sz) + sy * sz
        x, y, z = 0.25 * (x + lam), 0.25 * (y + lam), 0.25 * (z + lam)
        A = (x + y + z) / 3.0
        dx, dy, dz = (A - x) / A, (A - y) / A, (A - z) / A
        if max(abs(dx), abs(dy), abs(dz)) < _SPREAD:
            break
    E2 = dx * dy - dz * dz
    E3 = dx * dy * dz
    return (1.0 - E2 / 10.0 + E3 / 14.0 + E2 * E2 / 24.0 - 3.0 * E2 * E3 / 44.0) / cmath.sqrt(A)


@njit(cache=True)
def carlson_rd(x, y, z):
    """Carlson's R_D(x, y, z) = R_J(x, y, z, z) for complex arguments (x, y: at most one zero;
    z not zero; none on the negative real axis).

    Returns
    -------
    complex
        ``3/2 int_0^inf ((t + x)(t + y))^(-1/2) (t + z)^(-3/2) dt`` (DLMF 19.16.5), relative
        error ~1e-16.
    """
    x, y, z = complex(x), complex(y), complex(z)
    total = 0.0j
    scale = 1.0
    for _ in range(100):
        sx, sy, sz = cmath.sqrt(x), cmath.sqrt(y), cmath.sqrt(z)
        lam = sx * (sy + sz) + sy * sz
        total += scale / (sz * (z + lam))
        scale *= 0.25
        x, y, z = 0.25 * (x + lam), 0.25 * (y + lam), 0.25 * (z + lam)
        A = (x + y + 3.0 * z) / 5.0
        dx, dy, dz = (A - x) / A, (A - y) / A, (A - z) / A
        if max(abs(dx), abs(dy), abs(dz)) < _SPREAD:
            break
    # DLMF 19.36.1 with X = dx, Y = dy, Z = dz (X + Y + 3Z = 0)
    E2 = dx * dy - 6.0 * dz * dz
    E3 = (3.0 * dx * dy - 8.0 * dz * dz) * dz
    E4 = 3.0 * (dx * dy - dz * dz) * dz * dz
    E5 = dx * dy * dz * dz * dz
    series = (1.0 - 3.0 * E2 / 14.0 + E3 / 6.0 + 9.0 * E2 * E2 / 88.0 - 3.0 * E4 / 22.0 - 9.0 * E2 * E3 / 52.0
              + 3.0 * E5 / 26.0)
    return 3.0 * total + scale * series / (A * cmath.sqrt(A))


@njit(cache=True)
def _ratio(q):
    """``r(q) = R_D(0, 1, q) / R_D(0, q, 1)`` (complex q for complex steps)."""
    return carlson_rd(0.0, 1.0, q) / carlson_rd(0.0, q, 1.0)


@njit(cache=True)
def _shape(q):
    """``P(q) = (2 pi / 3) sqrt(R_D(0, q, 1) / 3) / R_F(0, q, 1)^(3/2)``: ``K = E* sqrt(2 /
    k_min) P(q)``."""
    return (2.0 * math.pi / 3.0) * cmath.sqrt(carlson_rd(0.0, q, 1.0) / 3.0) / carlson_rf(0.0, q, 1.0) ** 1.5


@njit(cache=True)
def axis_ratio_squared(ratio):
    """``q = (b/a)^2`` of the Hertz contact ellipse for ``ratio = k_max / k_min >= 1``.

    Newton's method on ``ln r(e^t) = ln ratio`` in ``t = ln q`` (``r`` decreases from
    infinity to 1 as ``q`` goes from 0 to 1), its derivative by complex step, from
    ``q = ratio^(-4/3)`` (Johnson's ``b/a ~ (R''/R')^(2/3)``), a step leaving the bracket
    ``[lo, 0]`` (``lo`` as `porthamiltonian.contact.hertz`) replaced by bisection. Exactly 1
    at ``ratio == 1``.
    """
    if ratio <= 1.0:
        return 1.0
    target = math.log(ratio)
    lo, hi = -2.0 * target - 1.0, 0.0
    while math.log(_ratio(math.exp(lo)).real) <= target:
        lo *= 2.0
    t = max(-4.0 / 3.0 * target, lo)
    for _ in range(200):
        q = math.exp(t)
        rc = _ratio(complex(q, q * _STEP))
        f = math.log(rc.real) - target
        if f > 0.0:
            lo = t
        else:
            hi = t
        slope = (rc.imag / _STEP) / rc.real          # d ln r / d t
        step = -f / slope
        t_new = t + step
        if not lo < t_new < hi:
            t_new = 0.5 * (lo + hi)
        if abs(t_new - t) <= 1e-15 * max(1.0, abs(t)):
            t = t_new
            break
        t = t_new
    return math.exp(t)


@njit(cache=True)
def stiffness(E_star, k_max, k_min):
    """Exact elliptical Hertz stiffness and its partial derivatives.

    Parameters
    ----------
    E_star : float [Pa]
        Contact modulus.
    k_max, k_min : float [1/m]
        Principal relative curvatures, ``k_max >= k_min > 0``.

    Returns
    -------
    K : float [N/m^(3/2)]
        ``P = K delta^(3/2)``; ``(4/3) E* sqrt(R)`` for ``k_max = k_min = 1/R``.
    dK_dkmax, dK_dkmin : float [N m^(-1/2)]
        With ``K = E* sqrt(2 / k_min) P(q(r))``, ``r = k_max / k_min``:
        ``dK/dk_max = E* sqrt(2 / k_min) P'(q) / (r'(q) k_min)`` and
        ``dK/dk_min = -K / (2 k_min) - r dK/dk_max`` (``P'``, ``r'`` by complex steps). ``K`` is
        homogeneous of degree -1/2 in the curvatures: ``k_max dK/dk_max + k_min dK/dk_min =
        -K/2``.
    """
    r = k_max / k_min
    q = axis_ratio_squared(r)
    dq = complex(q, q * _STEP)
    Pc = _shape(dq)
    rc = _ratio(dq)
    P = Pc.real
    dP_dq = Pc.imag / (q * _STEP)
    dr_dq = rc.imag / (q * _STEP)
    front = E_star * math.sqrt(2.0 / k_min)
    K = front * P
    dK_dkmax = front * dP_dq / (dr_dq * k_min)
    return K, dK_dkmax, -K / (2.0 * k_min) - r * dK_dkmax
