"""Compiled Hertz stiffness of an elliptical contact and its exact partial derivatives.

The running compliant contact with a `porthamiltonian.contact.LocalHertzLaw` evaluates the
Hertz stiffness from the principal relative curvatures at the contact point at every
evaluation, and the energy-consistent wrench of its spring needs the stiffness's derivatives
(`porthamiltonian.kernels.contact.local_hertz`). `stiffness` gives both; the public
`porthamiltonian.contact.hertz` functions compute the same stiffness with scipy (and are the
reference the tests compare against).

Method (K. L. Johnson, *Contact Mechanics*, Cambridge University Press, 1985, ch. 4, in
Carlson's form, NIST DLMF 19.25.1): with ``q = (b/a)^2`` solving the shape equation
``R_D(0, 1, q) / R_D(0, q, 1) = k_max / k_min``,
``K = (2 pi / 3) E* sqrt(2 D / k_min) / F^(3/2)``, ``D = R_D(0, q, 1) / 3``,
``F = R_F(0, q, 1)``. Carlson's integrals by the duplication algorithm (B. C. Carlson,
"Numerical computation of real or complex elliptic integrals", Numerical Algorithms 10,
1995; DLMF sec. 19.36(i)), written for complex arguments so that derivatives in ``q`` come from
complex steps, exact to round-off (J. R. R. A. Martins, P. Sturdza and J. J. Alonso, "The
complex-step derivative approximation", ACM TOMS 29(3), 2003).

Every function is compiled (`porthamiltonian.kernels._njit`) and validates nothing
(`contact.hertz` and `contact.laws.LocalHertzLaw` check curvatures and moduli before they get
here).
"""

from __future__ import annotations

import cmath
import math

from ._njit import njit

#: imaginary step of the complex-step derivatives, relative to q (q in (0, 1]: far below the
#: round-off of q, and q * _STEP >= 1e-42 stays far above underflow for ratios up to 1e10)
_STEP = 1e-30
#: the duplication stops when the arguments agree to this relative spread s. The truncated
#: series of the last step then errs by less than s^6 / 3 (R_F) and 4 s^6 (R_D) (Carlson 1995:
#: stop once s < (3 r)^(1/6), resp. (r / 4)^(1/6), for a relative error r): 3e-19 and 4e-18,
#: below double round-off. Each duplication divides s by 4, so one step more or less only
#: moves the bound by 4^6.
_SPREAD = 1e-3
#: Newton in t = ln q stops at a step this small (relative to max(1, |t|)): round-off of t
_TOL = 1e-15


@njit
def carlson_rf(x, y, z):
    """Carlson's symmetric elliptic integral of the first kind R_F(x, y, z).

    Parameters
    ----------
    x, y, z : complex (or float) [any unit u, the same for all three]
        At most one zero, none on the closed negative real axis (the real positive values
        of the Hertz integrals, possibly with a small imaginary part for complex steps).

    Returns
    -------
    complex [u^(-1/2)]
        ``R_F(x, y, z) = 1/2 int_0^inf ((t + x)(t + y)(t + z))^(-1/2) dt`` (DLMF 19.16.1),
        relative error about 1e-16. ``R_F(0, q, 1)`` is the complete elliptic integral K of
        parameter 1 - q (DLMF 19.25.1). Analytic in its arguments, so the imaginary part of
        ``R_F(x, y + i h, z)`` is ``h dR_F/dy`` to round-off for tiny h (complex step).

    Notes
    -----
    Duplication (Carlson 1995, sec. 2; DLMF sec. 19.26(iii), sec. 19.36(i)): with
    ``lambda = sqrt(x) sqrt(y) + sqrt(y) sqrt(z) + sqrt(z) sqrt(x)``,
    ``R_F(x, y, z) = R_F((x + lambda)/4, (y + lambda)/4, (z + lambda)/4)``; each step divides
    the spread of the arguments about their mean A by 4. Once it is below `_SPREAD`, with
    ``X = 1 - x/A``, ``Y = 1 - y/A``, ``Z = 1 - z/A`` (X + Y + Z = 0), ``E2 = XY - Z^2``,
    ``E3 = XYZ``:
    ``R_F = A^(-1/2) (1 - E2/10 + E3/14 + E2^2/24 - 3 E2 E3/44)``.
    Principal square roots (``cmath.sqrt``); the convergence test is on ``abs``, so complex
    steps take exactly the branch and the number of steps of the real evaluation.
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


@njit
def carlson_rd(x, y, z):
    """Carlson's symmetric elliptic integral of the second kind R_D(x, y, z) = R_J(x, y, z, z).

    Parameters
    ----------
    x, y : complex (or float) [any unit u]
        At most one of them zero, none on the negative real axis.
    z : complex (or float) [u]
        Not zero, not on the negative real axis.

    Returns
    -------
    complex [u^(-3/2)]
        ``R_D(x, y, z) = 3/2 int_0^inf ((t + x)(t + y))^(-1/2) (t + z)^(-3/2) dt``
        (DLMF 19.16.5), relative error about 1e-16. With ``m = 1 - q``:
        ``K - E = (m/3) R_D(0, q, 1)`` and ``E - q K = (m q / 3) R_D(0, 1, q)`` (DLMF 19.25.1;
        K, E the complete integrals of parameter m). Analytic in its arguments (complex steps
        as for `carlson_rf`).

    Notes
    -----
    Duplication (Carlson 1995, sec. 2; DLMF sec. 19.26(iii), sec. 19.36(i)): with lambda as in
    `carlson_rf`, ``R_D(x, y, z) = 3 / (sqrt(z) (z + lambda)) + R_D((x + lambda)/4,
    (y + lambda)/4, (z + lambda)/4) / 4``. After m steps, with ``A = (x + y + 3z)/5`` and
    ``X = 1 - x/A``, ``Y = 1 - y/A``, ``Z = 1 - z/A`` (X + Y + 3Z = 0), ``E2 = XY - 6 Z^2``,
    ``E3 = (3XY - 8Z^2) Z``, ``E4 = 3 (XY - Z^2) Z^2``, ``E5 = XY Z^3``:
    ``R_D = 3 sum_k 4^-k / (sqrt(z_k) (z_k + lambda_k)) + 4^-m A^(-3/2) (1 - 3 E2/14 + E3/6
    + 9 E2^2/88 - 3 E4/22 - 9 E2 E3/52 + 3 E5/26)``.
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
    E2 = dx * dy - 6.0 * dz * dz
    E3 = (3.0 * dx * dy - 8.0 * dz * dz) * dz
    E4 = 3.0 * (dx * dy - dz * dz) * dz * dz
    E5 = dx * dy * dz * dz * dz
    series = (1.0 - 3.0 * E2 / 14.0 + E3 / 6.0 + 9.0 * E2 * E2 / 88.0 - 3.0 * E4 / 22.0 - 9.0 * E2 * E3 / 52.0
              + 3.0 * E5 / 26.0)
    return 3.0 * total + scale * series / (A * cmath.sqrt(A))


@njit
def _ratio(q):
    """``r(q) = R_D(0, 1, q) / R_D(0, q, 1)`` = B/A = k_max/k_min of the ellipse of squared
    axis ratio q (complex q for complex steps); decreases from infinity to 1 on (0, 1]."""
    return carlson_rd(0.0, 1.0, q) / carlson_rd(0.0, q, 1.0)


@njit
def _shape(q):
    """``P(q) = (2 pi / 3) sqrt(R_D(0, q, 1) / 3) / R_F(0, q, 1)^(3/2)``, so that ``K = E*
    sqrt(2 / k_min) P(q)`` (complex q for complex steps); ``P(1) = 2 sqrt(2) / 3``."""
    F = carlson_rf(0.0, q, 1.0)
    return (2.0 * math.pi / 3.0) * cmath.sqrt(carlson_rd(0.0, q, 1.0) / 3.0) / (F * cmath.sqrt(F))


@njit
def axis_ratio_squared(ratio):
    """Squared axis ratio of the Hertz contact ellipse.

    Parameters
    ----------
    ratio : float [-]
        ``k_max / k_min = B / A = R' / R'' >= 1`` (up to 1e10 and beyond).

    Returns
    -------
    float [-]
        ``q = (b/a)^2`` in (0, 1] solving ``R_D(0, 1, q) / R_D(0, q, 1) = ratio`` (Johnson
        1985, eq. (4.39) in Carlson's form, see `porthamiltonian.contact.hertz.hertz_ellipse`),
        to round-off. Exactly 1 for ``ratio <= 1`` (a circle).

    Notes
    -----
    Newton's method on ``g(t) = ln r(e^t) - ln ratio`` in ``t = ln q``: ``ln r`` is nearly
    linear in t (its slope runs from -3/4 at q = 1 to -1 as q -> 0), so from Johnson's
    ``b/a ~ (R''/R')^(2/3)``, i.e. ``q = ratio^(-4/3)`` (exact to first order as ratio -> 1),
    it takes at most four evaluations (measured on ratios 1 + 1e-15 to 1e10). The slope
    ``d ln r / dt = q r'(q) / r`` comes from the same evaluation by a complex step,
    ``r(q (1 + i h)) = r + i h q r'(q) + O(h^2)`` with h = 1e-30 (Martins, Sturdza & Alonso
    2003). Each evaluation narrows the bracket ``[lo, 0]`` of the root;
    a Newton step leaving it is replaced by bisection, with ``lo = -2 ln(ratio) - 1`` (as
    `porthamiltonian.contact.hertz`), checked and doubled until ``g(lo) > 0`` the first time
    it is needed. Stops when a Newton step falls below 1e-15 max(1, |t|) (taken), an
    evaluation hits the root exactly, or the bracket closes.
    """
    if ratio <= 1.0:
        return 1.0
    target = math.log(ratio)
    lo, hi = -2.0 * target - 1.0, 0.0
    lo_checked = False
    t = -4.0 / 3.0 * target                      # > lo for every ratio > 1
    for _ in range(200):
        q = math.exp(t)
        rc = _ratio(complex(q, q * _STEP))
        g = math.log(rc.real) - target
        if g == 0.0:
            break
        if g > 0.0:
            lo, lo_checked = t, True
        else:
            hi = t
        step = -g * rc.real * _STEP / rc.imag      # -g / (d ln r / dt)
        tol = _TOL * max(1.0, abs(t))
        if abs(step) <= tol:
            t += step
            break
        t_new = t + step
        if not lo < t_new < hi:
            if not lo_checked:
                while math.log(_ratio(math.exp(lo)).real) <= target:
                    lo *= 2.0
                lo_checked = True
            t_new = 0.5 * (lo + hi)
        t = t_new
        if hi - lo <= tol:
            break
    return math.exp(t)


@njit
def stiffness(E_star, k_max, k_min):
    """Exact elliptical Hertz stiffness and its partial derivatives in the curvatures.

    Parameters
    ----------
    E_star : float [Pa]
        Contact modulus E* (`porthamiltonian.contact.hertz.effective_modulus`).
    k_max, k_min : float [1/m]
        Principal relative curvatures, ``k_max >= k_min > 0`` (equal: a circular contact;
        ratios up to 1e10).

    Returns
    -------
    K : float [N/m^(3/2)]
        ``P = K delta^(3/2)``: ``K = (2 pi / 3) E* sqrt(2 D / k_min) / F^(3/2)``,
        ``D = R_D(0, q, 1)/3``, ``F = R_F(0, q, 1)``, ``q = axis_ratio_squared(k_max / k_min)``
        (Johnson 1985, ch. 4; as `porthamiltonian.contact.hertz.hertz_stiffness_exact`);
        ``(4/3) E* sqrt(R)`` for ``k_max = k_min = 1/R``.
    dK_dkmax, dK_dkmin : float [N/m^(1/2)]
        Its exact partial derivatives. Writing ``K = E* sqrt(2 / k_min) P(q(r))``,
        ``r = k_max / k_min`` and ``P(q) = (2 pi / 3) sqrt(R_D(0, q, 1)/3) / R_F(0, q, 1)^(3/2)``:
        ``dK/dk_max = E* sqrt(2 / k_min) P'(q) / (r'(q) k_min)`` and
        ``dK/dk_min = -K / (2 k_min) - r dK/dk_max``, with ``P'(q)`` and the derivative
        ``r'(q)`` of ``r(q) = R_D(0, 1, q) / R_D(0, q, 1)`` (the inverse of q(r)) by one
        complex step at ``q (1 + 1e-30 i)`` (Martins, Sturdza & Alonso 2003): exact to
        round-off, no 0/0 at ``k_max = k_min`` (q = 1, where ``r'(1) = -3/4``). K is
        homogeneous of degree -1/2 in the curvatures: ``k_max dK/dk_max + k_min dK/dk_min =
        -K/2`` (to round-off, by construction).
    """
    r = k_max / k_min
    q = axis_ratio_squared(r)
    qc = complex(q, q * _STEP)
    Pc = _shape(qc)
    rc = _ratio(qc)
    h = q * _STEP
    front = E_star * math.sqrt(2.0 / k_min)
    K = front * Pc.real
    dK_dkmax = front * (Pc.imag / h) / ((rc.imag / h) * k_min)
    return K, dK_dkmax, -K / (2.0 * k_min) - r * dK_dkmax
