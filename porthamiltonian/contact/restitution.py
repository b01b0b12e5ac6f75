"""Hunt-Crossley damping from a coefficient of restitution: the exact map and the published ones.

The Hunt-Crossley law (``NormalLaw("hunt_crossley", stiffness=k, damping=d, exponent=n)``)

    F = k x^n (1 + d x'),     x the approach [m], x' its rate [m/s], d [s/m],

acting while x > 0, gives an impact at speed v0 a coefficient of restitution e (exit speed /
impact speed) that depends on alpha = d v0 only: not on k, n or the mass. Derivation, with v =
x' and m v dv/dx = m x'' along the impact:

1. m v dv/dx = -k x^n (1 + d v) separates: v dv / (1 + d v) = -(k/m) x^n dx.
2. Integrate over the compression, (x, v) from (0, v0) to (x_max, 0), and the restitution,
   from (x_max, 0) to (0, -e v0). The right-hand sides are -(k/m) x_max^(n+1)/(n+1) and its
   opposite: over the whole impact they cancel, so int_{v0}^{-e v0} v dv / (1 + d v) = 0.
3. int v dv / (1 + d v) = v/d - ln(1 + d v)/d^2. Times d^2, with alpha = d v0:
   (-alpha e - ln(1 - alpha e)) - (alpha - ln(1 + alpha)) = 0.
4. Hence ln((1 + alpha) / (1 - alpha e)) = alpha (1 + e), that is

       1 - alpha e = (1 + alpha) exp(-alpha (1 + e)).

   The force never pulls: 1 + d v > 0 throughout, because v = -1/d is an equilibrium of
   m dv/dt = -k x^n (1 + d v) that v cannot cross; so alpha e < 1, and the law's
   ``clip=True`` changes nothing. (With y = 1 - alpha e and z = 1 + alpha the
   equation reads y exp(-y) = z exp(-z): e = (1 + W0(-(1 + alpha) exp(-(1 + alpha)))) / alpha,
   W0 the principal Lambert W, which the tests use as a check; it is ill-conditioned near
   alpha = 0, the branch point, so the code solves the equation with a bracketed root finder.)

For small alpha, e = 1 - 2 alpha/3 + O(alpha^2) (Hunt & Crossley's own map); for large alpha,
e -> 1/alpha (equal to double precision from alpha = 39 on): the exit speed tends to 1/d, the
speed at which the factor 1 + d x' of the law vanishes. Each e in (0, 1] has one alpha; e = 0
would need alpha = inf.

The published maps are approximations of this relation (`PUBLISHED_MAPS`); measured against
the exact map (d_published / d_exact - 1, then in brackets the restitution the published d
actually gives):

    ========================  ======================  ======================  ======================
    map                       e = 0.9                 e = 0.5                 e = 0.2
    ========================  ======================  ======================  ======================
    Hunt & Crossley 1975      -9.9 % (0.909)          -47.7 % (0.663)         -75.6 % (0.547)
    Lankarani & Nikravesh     -14.4 % (0.913)         -60.7 % (0.725)         -85.4 % (0.672)
    Flores et al. 2011        +6.8 % (0.894)          +11.7 % (0.470)         +30.1 % (0.156)
    ========================  ======================  ======================  ======================

As e -> 1 the first two tend to the exact map (relative difference about -(1 - e) and
-1.5 (1 - e)); Flores et al.'s does not: it tends to +1/15 = +6.7 % (its slope 8/5 against 3/2).

References
----------
K. H. Hunt & F. R. E. Crossley, "Coefficient of restitution interpreted as damping in
vibroimpact", ASME J. Appl. Mech. 42, 1975.
H. M. Lankarani & P. E. Nikravesh, "A contact force model with hysteresis damping for impact
analysis of multibody systems", ASME J. Mech. Des. 112, 1990.
P. Flores, M. Machado, M. T. Silva & J. M. Martins, "On the continuous contact force models
for soft materials in multibody dynamics", Multibody System Dynamics 25, 2011.
"""

from __future__ import annotations

import math

from scipy.optimize import brentq

from .._validate import as_finite_float
from ..errors import ParameterError

__all__ = ["PUBLISHED_MAPS", "hunt_crossley_damping", "hunt_crossley_restitution"]

_RTOL = 4.5 * 2.220446049250313e-16  # brentq's smallest allowed relative tolerance, rounded up
_XTOL = 1e-300
# coefficients of (log(1 + x) - x) / x^2 = sum_{k >= 2} (-1)^(k+1) x^(k-2) / k, highest first
_SERIES = tuple((-1.0) ** (k + 1) / k for k in range(22, 1, -1))


def _phi2(x):
    """(log(1 + x) - x) / x^2 for x > -1, accurate to rounding also near x = 0."""
    if abs(x) < 0.1:
        s = 0.0
        for c in _SERIES:
            s = s * x + c
        return s
    return (math.log1p(x) - x) / (x * x)


def _energy_residual(alpha, e):
    """The exact relation divided by alpha^2 (zero at the root, negative below it):
    (phi(alpha) - phi(-alpha e)) / alpha^2 with phi(x) = log(1 + x) - x; no cancellation
    for small alpha, where the unscaled residual is O(alpha^3)."""
    return _phi2(alpha) - e * e * _phi2(-alpha * e)


def _exit_residual(alpha, e):
    """1 - alpha e - (1 + alpha) exp(-alpha (1 + e)), well scaled for alpha >= 1."""
    return (1.0 - alpha * e) - (1.0 + alpha) * math.exp(-alpha * (1.0 + e))


def hunt_crossley_restitution(alpha):
    """Exact coefficient of restitution of the Hunt-Crossley law (module docstring).

    Parameters
    ----------
    alpha : float
        d v0 [-], the damping d [s/m] times the impact speed v0 [m/s]; >= 0.

    Returns
    -------
    float
        e in (0, 1] solving 1 - alpha e = (1 + alpha) exp(-alpha (1 + e)); exactly 1 for
        alpha = 0; 1/alpha to double precision for alpha >= 39. Independent of k, n and m.
    """
    a = as_finite_float(alpha, "alpha", nonnegative=True)
    if a == 0.0:
        return 1.0
    if a < 1.0:
        return brentq(lambda e: _energy_residual(a, e), 0.0, 1.0, xtol=_XTOL, rtol=_RTOL)
    return brentq(lambda e: -_exit_residual(a, e), 0.0, 1.0 / a, xtol=_XTOL, rtol=_RTOL)


def _alpha(e):
    """alpha = d v0 giving restitution e in (0, 1) (inverse of hunt_crossley_restitution)."""
    if _energy_residual(1.0, e) >= 0.0:  # root in (0, 1]
        return brentq(lambda a: _energy_residual(a, e), 0.0, 1.0, xtol=_XTOL, rtol=_RTOL)
    hi = 1.0 / e  # alpha e < 1: the root is in (1, 1/e)
    if _exit_residual(hi, e) >= 0.0:  # 1/e to rounding (e <= 1/39)
        return hi
    return brentq(lambda a: _exit_residual(a, e), 1.0, hi, xtol=_XTOL, rtol=_RTOL)


def _check_restitution(restitution, speed):
    e = as_finite_float(restitution, "restitution")
    v0 = as_finite_float(speed, "speed", positive=True)
    if e <= 0.0:
        raise ParameterError(
            f"`restitution` must be in (0, 1], got {e!r}: e -> 0 needs infinite damping "
            f"(alpha = d v0 ~ 1/e as e -> 0)"
        )
    if e > 1.0:
        raise ParameterError(
            f"`restitution` must be in (0, 1], got {e!r}: e > 1 would need negative damping"
        )
    return e, v0


def hunt_crossley_damping(restitution, speed):
    """The Hunt-Crossley damping d [s/m] giving restitution e at impact speed v0 (exact map).

    Parameters
    ----------
    restitution : float
        e in (0, 1] [-]. The whole range is supported: e = 1 gives d = 0, and e -> 0 needs
        alpha = d v0 -> inf, alpha = 1/e to double precision for e <= 1/39; e = 0 itself
        (infinite damping) and e > 1 (negative damping) raise.
    speed : float
        Impact speed v0 [m/s], > 0.

    Returns
    -------
    float
        d = alpha / v0, alpha the root of 1 - alpha e = (1 + alpha) exp(-alpha (1 + e))
        (bracketed). For the law ``NormalLaw("hunt_crossley", k, damping=d, exponent=n)``,
        any k, n and effective mass. Note that e within a few ulps of 1 fixes alpha only to
        about 1.5 ulp(e) absolute, as 1 - e carries few digits there.

    Raises
    ------
    ParameterError
        e outside (0, 1], v0 <= 0, or d not representable (overflow).
    """
    e, v0 = _check_restitution(restitution, speed)
    if e == 1.0:
        return 0.0
    d = _alpha(e) / v0
    if not math.isfinite(d):
        raise ParameterError(
            f"damping for restitution {e!r} at speed {v0!r} overflows (d = alpha / v0 = {d})"
        )
    return d


def _published(name, formula, slope):
    def damping(restitution, speed):
        e, v0 = _check_restitution(restitution, speed)
        return slope(e) / v0

    damping.__name__ = name
    damping.__doc__ = (
        f"{formula} [s/m], e the restitution in (0, 1], v0 the impact speed [m/s] > 0\n"
        f"(an approximation: see the module docstring for its error)."
    )
    return damping


#: Published approximate maps e, v0 -> d [s/m], for comparison and documentation only (their
#: errors are in the module docstring); use `hunt_crossley_damping`.
PUBLISHED_MAPS = {
    "hunt_crossley_1975": _published(
        "hunt_crossley_1975", "Hunt & Crossley (1975): d = 3 (1 - e) / (2 v0)", lambda e: 1.5 * (1.0 - e)),
    "lankarani_nikravesh_1990": _published(
        "lankarani_nikravesh_1990", "Lankarani & Nikravesh (1990): d = 3 (1 - e^2) / (4 v0)",
        lambda e: 0.75 * (1.0 - e * e)),
    "flores_2011": _published(
        "flores_2011", "Flores et al. (2011): d = 8 (1 - e) / (5 e v0)", lambda e: 1.6 * (1.0 - e) / e),
}
