"""Hertz contact from the materials and the local geometry of the two surfaces.

Pure functions on floats and 2x2 arrays, and the elastic constants of a material
(`ElasticSolid`); no bodies, no bond graphs. The result feeds
``NormalLaw("hertz", stiffness=K)`` (or a Hunt-Crossley law with exponent 3/2): the elastic
normal force is P = K delta^(3/2), delta the approach [m], P the load [N].

The running contact evaluates the same stiffness with its derivatives in a compiled kernel
(`porthamiltonian.kernels.hertz`, `contact.laws.LocalHertzLaw`), tested against these
functions.

Pipeline: `effective_modulus` (materials) and `relative_curvature` (geometry at the contact
point) give E* and the principal relative curvatures (k_max, k_min); `hertz_stiffness` turns
them into K. `hertz_sphere_impact` is the closed-form undamped impact of a sphere.

Notation (K. L. Johnson, *Contact Mechanics*, Cambridge University Press, 1985, ch. 4): the
gap between the undeformed surfaces near the contact is h = A x^2 + B y^2 with
A = k_min / 2 <= B = k_max / 2; the principal relative radii are R' = 1/(2A) = 1/k_min >=
R'' = 1/(2B) = 1/k_max; the equivalent radius is Re = sqrt(R' R'') = 1/sqrt(k_max k_min).
The contact is an ellipse with semi-axes a >= b (a along x, the direction of k_min).

References
----------
K. L. Johnson, *Contact Mechanics*, Cambridge University Press, 1985 (ch. 3, ch. 4 and 11.4).
J. A. Greenwood, "Analysis of elliptical Hertzian contacts", Tribology International 30(3),
1997, 235-237 (and "Formulas for moderately elliptical Hertzian contacts", ASME J. Tribology
107, 1985).
NIST Digital Library of Mathematical Functions, eq. 19.25.1 (Legendre integrals in Carlson's
symmetric form); B. C. Carlson, "Numerical computation of real or complex elliptic
integrals", Numerical Algorithms 10, 1995.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from scipy.optimize import brentq
from scipy.special import elliprd, elliprf

from .._validate import as_array, as_finite_float
from ..errors import ParameterError
from ..kernels.contact import HERTZ_MAX_RATIO

__all__ = [
    "GREENWOOD_MAX_RATIO",
    "MAX_CURVATURE_RATIO",
    "ElasticSolid",
    "HertzEllipse",
    "HertzImpact",
    "effective_modulus",
    "hertz_ellipse",
    "hertz_impact",
    "hertz_sphere_impact",
    "hertz_stiffness",
    "hertz_stiffness_exact",
    "hertz_stiffness_greenwood",
    "relative_curvature",
]

#: Largest k_max / k_min accepted: beyond it the contact is a line contact for all purposes
#: (the point-contact Hertz solution has b/a < 1e-5 and is not the right model).
MAX_CURVATURE_RATIO = HERTZ_MAX_RATIO

#: Largest k_max / k_min accepted by `hertz_stiffness_greenwood` (its error grows past 1 %
#: beyond, 4 % at 200 and the fit breaks down near 1e5).
GREENWOOD_MAX_RATIO = 100.0

_RTOL = 4.5 * 2.220446049250313e-16  # brentq's smallest allowed relative tolerance, rounded up


def effective_modulus(E1, nu1, E2, nu2):
    """Contact (plane-strain) modulus of two elastic bodies.

    Parameters
    ----------
    E1, E2 : float
        Young's moduli [Pa], > 0.
    nu1, nu2 : float
        Poisson's ratios [-], in (-1, 0.5] (0.5 for an incompressible solid, E* = 4E/3 against
        a rigid body: Hertz theory holds for it).

    Returns
    -------
    float
        E* = 1 / ((1 - nu1^2)/E1 + (1 - nu2^2)/E2) [Pa] (Johnson 1985, ch. 4). Steel on
        steel (210 GPa, 0.3): 115.38 GPa.
    """
    compliance = 0.0
    for E, nu, e_name, nu_name in ((E1, nu1, "E1", "nu1"), (E2, nu2, "E2", "nu2")):
        E = as_finite_float(E, e_name, positive=True)
        nu = as_finite_float(nu, nu_name)
        if not -1.0 < nu <= 0.5:
            raise ParameterError(
                f"`{nu_name}` must be a Poisson's ratio in (-1, 0.5] (0.5: incompressible, e.g. "
                f"rubber), got {nu!r}"
            )
        compliance += (1.0 - nu * nu) / E
    return 1.0 / compliance


def _symmetric_2x2(value, name):
    M = as_array(value, name, (2, 2))
    scale = max(float(abs(M).max()), 1e-300)
    if abs(M[0, 1] - M[1, 0]) > 1e-10 * scale:
        raise ParameterError(f"`{name}` must be a symmetric curvature matrix, got {M.tolist()}")
    return M


def relative_curvature(K1, K2):
    """Principal relative curvatures (k_max, k_min) [1/m] of two touching surfaces.

    Parameters
    ----------
    K1, K2 : array_like, shape (2, 2)
        Curvature matrices (second fundamental forms) [1/m] of surfaces 1 and 2 at the contact
        point, in one orthonormal basis of the common tangent plane (the SAME basis for
        both), each measured with its own outward normal: positive definite for a convex
        surface, negative for a concave one (a socket).

    Returns
    -------
    (k_max, k_min) : tuple of float
        The eigenvalues of K1 + K2, k_max >= k_min > 0. The gap near the contact is
        h(x) = 1/2 x^T (K1 + K2) x, so Johnson's A = k_min/2, B = k_max/2, R' = 1/k_min,
        R'' = 1/k_max. Two spheres: k_max = k_min = 1/R1 + 1/R2.

    Raises
    ------
    ParameterError
        Non-symmetric input; K1 + K2 not positive definite (conforming or concave contact,
        where Hertz does not apply); or k_max / k_min > MAX_CURVATURE_RATIO (line contact).
    """
    S = _symmetric_2x2(K1, "K1") + _symmetric_2x2(K2, "K2")
    mean = 0.5 * (S[0, 0] + S[1, 1])
    radius = math.hypot(0.5 * (S[0, 0] - S[1, 1]), 0.5 * (S[0, 1] + S[1, 0]))
    k_max, k_min = mean + radius, mean - radius
    if not k_min > 0.0:
        raise ParameterError(
            f"K1 + K2 must be positive definite for a Hertz contact, got eigenvalues "
            f"({k_max:.6g}, {k_min:.6g}) 1/m: conforming or concave contact, Hertz does not apply"
        )
    if k_max > MAX_CURVATURE_RATIO * k_min:
        raise ParameterError(
            f"K1 + K2 has eigenvalues ({k_max:.6g}, {k_min:.6g}) 1/m, ratio {k_max / k_min:.3g} > "
            f"MAX_CURVATURE_RATIO = {MAX_CURVATURE_RATIO:g}: a line contact, not a Hertz point contact"
        )
    return float(k_max), float(k_min)


def _curvatures(k_max, k_min, limit):
    k_max = as_finite_float(k_max, "k_max", positive=True)
    k_min = as_finite_float(k_min, "k_min", positive=True)
    if k_max < k_min:
        raise ParameterError(
            f"`k_max` must be >= `k_min` (as returned by relative_curvature), got {k_max!r} < {k_min!r}"
        )
    if k_max > limit * k_min:
        raise ParameterError(f"`k_max` / `k_min` must be <= {limit:g}, got {k_max / k_min:.6g}")
    return k_max, k_min


def _axis_ratio_squared(ratio):
    """q = (b/a)^2 solving R_D(0, 1, q) / R_D(0, q, 1) = ratio = B/A (Johnson's (4.39) in
    Carlson form; bracketed root in ln q)."""
    if ratio == 1.0:
        return 1.0
    log_ratio = math.log(ratio)

    def residual(t):
        q = math.exp(t)
        return math.log(float(elliprd(0.0, 1.0, q) / elliprd(0.0, q, 1.0))) - log_ratio

    # q = ratio^-2 / e is below the root (which tends to 2 / (ratio ln(16/q)) as ratio -> inf)
    lo = -2.0 * log_ratio - 1.0
    while residual(lo) <= 0.0:
        lo *= 2.0
    return math.exp(brentq(residual, lo, 0.0, xtol=1e-15, rtol=_RTOL))


class HertzEllipse(NamedTuple):
    """Shape factors of the exact elliptical Hertz contact (see `hertz_ellipse`)."""

    axis_ratio: float  #: b / a <= 1 [-]
    F1: float  #: contact size factor: sqrt(ab) = (3 P Re / (4 E*))^(1/3) F1 [-]
    F2: float  #: approach factor: delta = (9 P^2 / (16 Re E*^2))^(1/3) F2 [-]


def hertz_ellipse(k_max, k_min):
    """Exact shape of the elliptical Hertz contact (Johnson 1985, ch. 4, eqs. (4.39)-(4.43)).

    Parameters
    ----------
    k_max, k_min : float
        Principal relative curvatures [1/m], k_max >= k_min > 0 (`relative_curvature`).

    Returns
    -------
    HertzEllipse
        (b/a, F1, F2), all 1 for k_max = k_min. Johnson's Fig. 4.4 plots these against
        R'/R'' = k_max/k_min.

    Notes
    -----
    The Hertz pressure p0 sqrt(1 - x^2/a^2 - y^2/b^2) gives the surface displacement
    (L - M x^2 - N y^2) / (pi E*) inside the ellipse (Johnson ch. 3), with, for
    e^2 = 1 - b^2/a^2 and the complete elliptic integrals K(e), E(e),
    L = pi p0 b K, M = pi p0 b (K - E) / (e^2 a^2), N = pi p0 b ((a/b)^2 E - K) / (e^2 a^2).
    Matching delta - A x^2 - B y^2 gives delta = L/(pi E*), A = M/(pi E*), B = N/(pi E*), so

        B/A = ((a/b)^2 E - K) / (K - E),    P = (2/3) pi a b p0.

    With q = (b/a)^2 and Carlson's integrals (DLMF 19.25.1: K = R_F(0, q, 1),
    K - E = (e^2/3) R_D(0, q, 1), E - q K = (e^2 q / 3) R_D(0, 1, q)) the shape equation is
    free of the 0/0 of the circular limit:

        B/A = R_D(0, 1, q) / R_D(0, q, 1),

    solved for q by a bracketed root finder. With D = R_D(0, q, 1)/3 (= pi/4 for a circle)
    and F = R_F(0, q, 1) (= pi/2): a^3 = 3 P D / (2 pi A E*), delta = A a^2 F / D, hence
    F1^3 = (4/pi) D q^(3/4) sqrt(B/A) and P = K delta^(3/2) with
    K = (2 pi / 3) E* sqrt(D / A) / F^(3/2) (`hertz_stiffness_exact`).
    """
    k_max, k_min = _curvatures(k_max, k_min, MAX_CURVATURE_RATIO)
    ratio = k_max / k_min
    q = _axis_ratio_squared(ratio)
    D = float(elliprd(0.0, q, 1.0)) / 3.0
    F1 = ((4.0 / math.pi) * D * q**0.75 * math.sqrt(ratio)) ** (1.0 / 3.0)
    F2 = ((4.0 / 3.0) * k_min**-0.5 * ratio**-0.25 / _stiffness(1.0, k_min, q)) ** (2.0 / 3.0)
    return HertzEllipse(math.sqrt(q), F1, F2)


def _stiffness(E_star, k_min, q):
    D = float(elliprd(0.0, q, 1.0)) / 3.0
    F = float(elliprf(0.0, q, 1.0))
    return (2.0 * math.pi / 3.0) * E_star * math.sqrt(2.0 * D / k_min) / F**1.5


def hertz_stiffness_exact(E_star, k_max, k_min):
    """Exact Hertz stiffness K [N/m^(3/2)] of an elliptical contact: P = K delta^(3/2).

    Parameters
    ----------
    E_star : float
        Contact modulus [Pa] (`effective_modulus`), > 0.
    k_max, k_min : float
        Principal relative curvatures [1/m], k_max >= k_min > 0, k_max / k_min <=
        MAX_CURVATURE_RATIO (`relative_curvature`).

    Returns
    -------
    float
        K = (2 pi / 3) E* sqrt(2 D / k_min) / F^(3/2), D = R_D(0, q, 1)/3, F = R_F(0, q, 1),
        q = (b/a)^2 from the shape equation (see `hertz_ellipse`). Equal curvatures 1/R give
        (4/3) E* sqrt(R). Equivalently K = (4/3) E* sqrt(Re) F2^(-3/2), Re = (k_max k_min)^(-1/2).
    """
    E_star = as_finite_float(E_star, "E_star", positive=True)
    k_max, k_min = _curvatures(k_max, k_min, MAX_CURVATURE_RATIO)
    return _stiffness(E_star, k_min, _axis_ratio_squared(k_max / k_min))


def hertz_stiffness_greenwood(E_star, k_max, k_min):
    """Approximate Hertz stiffness K [N/m^(3/2)] by the equivalent-radius method.

    Parameters
    ----------
    E_star : float
        Contact modulus [Pa], > 0.
    k_max, k_min : float
        Principal relative curvatures [1/m], 1 <= k_max / k_min <= GREENWOOD_MAX_RATIO (100).

    Returns
    -------
    float
        K = (4/3) E* sqrt(Re) F2^(-3/2), with the equivalent radius Re = 1/sqrt(k_max k_min)
        (= sqrt(R' R'')) and the approach correction
        F2 = 1 - ((k_max/k_min)^0.0684 - 1)^1.531: the circular Hertz formula with
        Greenwood's (1985, 1997) equivalent radius, corrected for the approach by the widely
        used curve fit above to Johnson's F2 (Fig. 4.4; the exact F2 is `hertz_ellipse`).
        Exact (F2 = 1) for k_max = k_min; measured against
        `hertz_stiffness_exact` the error is at most 0.86 % over ratios 1..100 (0.29 % at 1.5,
        0.48 % at 2, 0.46 % at 5, -0.47 % at 20, 0.86 % at 100); beyond, it grows (3.9 % at
        200, 25 % at 1000), hence the limit.
    """
    E_star = as_finite_float(E_star, "E_star", positive=True)
    k_max, k_min = _curvatures(k_max, k_min, GREENWOOD_MAX_RATIO)
    F2 = 1.0 - ((k_max / k_min) ** 0.0684 - 1.0) ** 1.531
    return (4.0 / 3.0) * E_star * (k_max * k_min) ** -0.25 * F2**-1.5


def hertz_stiffness(E_star, k_max, k_min):
    """Hertz stiffness K [N/m^(3/2)] of the contact, P = K delta^(3/2): `hertz_stiffness_exact`
    (same arguments and checks; (4/3) E* sqrt(R) for a sphere).

    The exact elliptical solution is used rather than Greenwood's approximation
    (`hertz_stiffness_greenwood`, up to 0.86 % off for ratios up to 100 and unusable beyond)
    because it is cheap: 20-30 us per call (one bracketed root of a Carlson-integral ratio,
    then two integrals), measured; it is evaluated once per contact state, not per Newton
    iteration.
    """
    return hertz_stiffness_exact(E_star, k_max, k_min)


def hertz_impact(mass, stiffness, speed):
    """Undamped Hertz impact: (maximum compression [m], contact duration [s]).

    delta_max = (5 m v^2 / (4 k))^(2/5); t_c = 2 (delta_max / v) int_0^1 dx / sqrt(1 - x^(5/2))
    = 2.943 delta_max / v (the integral is sqrt(pi) Gamma(7/5) / Gamma(9/10)).
    """
    m = as_finite_float(mass, "mass", positive=True)
    k = as_finite_float(stiffness, "stiffness", positive=True)
    v = as_finite_float(speed, "speed", positive=True)
    dmax = (5.0 * m * v * v / (4.0 * k)) ** 0.4
    integral = math.sqrt(math.pi) * math.gamma(7.0 / 5.0) / math.gamma(9.0 / 10.0)
    return dmax, 2.0 * integral * dmax / v


@dataclass(frozen=True)
class ElasticSolid:
    """The elastic constants of a body's material (for `LocalHertzLaw.from_solids`).

    Parameters
    ----------
    young : float [Pa]
        Young's modulus E > 0 (steel about 210e9, aluminium 70e9, hard rubber about 1e7).
    poisson : float [-]
        Poisson's ratio nu in (-1, 0.5] (steel 0.3; 0.5 incompressible).
    """

    young: float
    poisson: float

    def __post_init__(self):
        as_finite_float(self.young, "young", positive=True)
        nu = as_finite_float(self.poisson, "poisson")
        if not -1.0 < nu <= 0.5:
            raise ParameterError(f"`poisson` must lie in (-1, 0.5], got {nu!r}")


class HertzImpact(NamedTuple):
    """Closed-form undamped Hertz impact (see `hertz_sphere_impact`)."""

    max_approach: float  #: delta* [m]
    peak_force: float  #: P* [N]
    duration: float  #: t* [s]


def hertz_sphere_impact(mass, E_star, radius, speed):
    """Undamped impact of an elastic sphere on a flat (Johnson 1985, 11.4).

    Also two spheres, with the effective mass m1 m2 / (m1 + m2) and the effective radius
    R1 R2 / (R1 + R2).

    Parameters
    ----------
    mass : float
        (Effective) mass m [kg], > 0.
    E_star : float
        Contact modulus [Pa], > 0.
    radius : float
        (Effective) radius R [m], > 0.
    speed : float
        Approach speed v [m/s], > 0.

    Returns
    -------
    HertzImpact
        max_approach delta* = (15 m v^2 / (16 E* sqrt(R)))^(2/5) [m];
        peak_force P* = (4/3) E* sqrt(R) delta*^(3/2) [N];
        duration t* = 2 (delta*/v) int_0^1 dx / sqrt(1 - x^(5/2)) = 2.9432 delta*/v [s], the
        integral being (2/5) B(2/5, 1/2) = sqrt(pi) Gamma(7/5) / Gamma(9/10) = 1.4716
        (`hertz_impact` with K = (4/3) E* sqrt(R)).
    """
    m = as_finite_float(mass, "mass", positive=True)
    E_star = as_finite_float(E_star, "E_star", positive=True)
    R = as_finite_float(radius, "radius", positive=True)
    v = as_finite_float(speed, "speed", positive=True)
    K = (4.0 / 3.0) * E_star * math.sqrt(R)
    delta, duration = hertz_impact(m, K, v)
    return HertzImpact(delta, K * delta**1.5, duration)
