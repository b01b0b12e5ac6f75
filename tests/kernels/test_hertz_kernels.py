"""The compiled Hertz stiffness (`porthamiltonian.kernels.hertz`) against independent references.

- Carlson's R_F and R_D (duplication algorithm, complex arguments) against
  `scipy.special.elliprf` / `elliprd` on random real and complex arguments, their complex-step
  derivatives against central differences of scipy and against mpmath;
- the contact ellipse's axis ratio against the bracketed root (brentq) of `contact.hertz`;
- the stiffness against `contact.hertz.hertz_stiffness_exact` (scipy), its partial derivatives
  against differences of it, Euler's identity of a function homogeneous of degree -1/2, and
  the circular closed form (4/3) E* sqrt(R) with its symmetric derivatives.

The worst relative errors measured are quoted in each test; the tolerances leave a margin of
about three.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy.special import elliprd, elliprf

from porthamiltonian.contact import hertz
from porthamiltonian.kernels import hertz as kh

EPS = np.finfo(float).eps


def rel(value, reference):
    return abs(value - reference) / abs(reference)


# -- Carlson's integrals ----------------------------------------------------------------------

def carlson_samples(seed, n):
    """Real positive (x, y, z) over 16 decades, x = 0 (the Hertz integrals) in a third."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x, y, z = 10 ** rng.uniform(-8, 8, 3)
        if rng.random() < 1 / 3:
            x = 0.0
        yield rng, x, y, z


def test_carlson_integrals_match_scipy_on_real_arguments():
    """Measured worst: 8.3e-16 (R_F), 7.5e-16 (R_D) over 2000 triples, any argument zero."""
    worst_f = worst_d = 0.0
    for _, x, y, z in carlson_samples(0, 2000):
        for args in ((x, y, z), (y, x, z), (z, y, x)):
            worst_f = max(worst_f, rel(kh.carlson_rf(*args), elliprf(*args)))
        for args in ((x, y, z), (y, x, z)):          # R_D: z must not be 0
            worst_d = max(worst_d, rel(kh.carlson_rd(*args), elliprd(*args)))
    assert worst_f < 2e-15
    assert worst_d < 2e-15


def test_carlson_integrals_match_scipy_on_complex_arguments():
    """Arguments in the right half-plane, |arg| up to 42 degrees. Measured worst: 8.0e-16
    (R_F), 5.8e-16 (R_D)."""
    worst_f = worst_d = 0.0
    for rng, x, y, z in carlson_samples(1, 2000):
        yc = complex(y, y * rng.uniform(-0.9, 0.9))
        zc = complex(z, z * rng.uniform(-0.9, 0.9))
        worst_f = max(worst_f, rel(kh.carlson_rf(x, zc, yc), elliprf(x, zc, yc)))
        worst_d = max(worst_d, rel(kh.carlson_rd(x, yc, zc), elliprd(x, yc, zc)))
    assert worst_f < 2e-15
    assert worst_d < 2e-15


def test_carlson_integrals_at_the_hertz_arguments():
    """R_D(0, q, 1), R_D(0, 1, q), R_F(0, q, 1) for q from 1e-12 to 1, passed as floats and as
    complex numbers with a complex-step imaginary part (which must not disturb the real
    part). Measured worst: 5.0e-16 (R_D), 5.5e-16 (R_F)."""
    worst_f = worst_d = 0.0
    for q in np.geomspace(1e-12, 1.0, 500):
        for arg in (q, complex(q, q * 1e-30)):
            worst_d = max(worst_d, rel(kh.carlson_rd(0.0, arg, 1.0).real, elliprd(0.0, q, 1.0)),
                          rel(kh.carlson_rd(0.0, 1.0, arg).real, elliprd(0.0, 1.0, q)))
            worst_f = max(worst_f, rel(kh.carlson_rf(0.0, arg, 1.0).real, elliprf(0.0, q, 1.0)))
    assert worst_d < 2e-15
    assert worst_f < 2e-15
    assert kh.carlson_rf(0.0, 1.0, 1.0) == pytest.approx(math.pi / 2, rel=EPS, abs=0)
    assert kh.carlson_rd(0.0, 1.0, 1.0) == pytest.approx(3 * math.pi / 4, rel=EPS, abs=0)


@pytest.mark.parametrize("q", [1e-10, 1e-4, 0.01, 0.3, 1.0])
def test_complex_step_derivative_of_rd_against_central_differences(q):
    """d R_D(0, q, 1) / dq from the imaginary part, against central differences of scipy with
    the relative step 1e-5 (truncation ~1e-11, rounding ~1e-11). Measured worst: 1.5e-10."""
    h = 1e-30 * q
    exact = kh.carlson_rd(0.0, complex(q, h), 1.0).imag / h
    dq = 1e-5 * q
    central = (elliprd(0.0, q + dq, 1.0) - elliprd(0.0, q - dq, 1.0)) / (2 * dq)
    assert rel(exact, central) < 5e-10


def test_complex_step_derivatives_against_mpmath():
    """dR/dy of both integrals by complex step against mpmath's derivative at 30 digits.
    Measured worst: 1.1e-15 (R_F), 8.5e-16 (R_D). (scipy's complex evaluation carries the
    imaginary part of R_F(0, y + ih, z) less accurately when y ~ z: up to 1.5e-14 off, so
    the reference here is mpmath.)"""
    worst_f = worst_d = 0.0
    with mpmath.workdps(30):
        for _, x, y, z in carlson_samples(2, 60):
            h = 1e-30 * y
            d_f = mpmath.diff(lambda t: mpmath.elliprf(x, t, z), y)
            d_d = mpmath.diff(lambda t: mpmath.elliprd(x, t, z), y)
            worst_f = max(worst_f, float(rel(kh.carlson_rf(x, complex(y, h), z).imag / h, d_f)))
            worst_d = max(worst_d, float(rel(kh.carlson_rd(x, complex(y, h), z).imag / h, d_d)))
    assert worst_f < 3e-15
    assert worst_d < 3e-15


# -- shape of the contact ellipse -------------------------------------------------------------

@pytest.mark.parametrize("ratio", [1.0, 1.0 + 1e-12, 1.5, 2.0, 10.0, 100.0, 1e4, 1e10])
def test_axis_ratio_matches_the_bracketed_root(ratio):
    """Against brentq on scipy's integrals; both agree with a 30-digit root to 3e-15 (the
    conditioning of r(q) in double precision). Measured worst: 8.6e-16 (ratio 100)."""
    q = kh.axis_ratio_squared(ratio)
    assert rel(q, hertz._axis_ratio_squared(ratio)) < 3e-15
    assert 0.0 < q <= 1.0


def test_axis_ratio_of_a_circle_is_exactly_one():
    assert kh.axis_ratio_squared(1.0) == 1.0


def test_axis_ratio_solves_the_shape_equation():
    """r(q) = ratio to round-off on a dense grid (scipy's R_D). Measured worst: 3.2e-15."""
    worst = 0.0
    for ratio in np.concatenate((1.0 + np.geomspace(1e-14, 0.1, 30), np.geomspace(1.1, 1e10, 200))):
        q = kh.axis_ratio_squared(ratio)
        worst = max(worst, rel(elliprd(0.0, 1.0, q) / elliprd(0.0, q, 1.0), ratio))
    assert worst < 8e-15


# -- stiffness and its partial derivatives ----------------------------------------------------

def stiffness_samples(seed, n):
    """(E*, k_max, k_min): k_min over four decades, ratios up to 1e3 and up to 1e10 alternately."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        k_min = 10 ** rng.uniform(-1, 3)
        k_max = k_min * 10 ** rng.uniform(0, 10 if i % 2 else 3)
        yield 10 ** rng.uniform(5, 11), k_max, k_min


def test_stiffness_matches_scipy():
    """Measured worst: 1.1e-15 (against a 40-digit mpmath evaluation: 6.8e-16)."""
    worst = 0.0
    for E, k_max, k_min in stiffness_samples(3, 400):
        worst = max(worst, rel(kh.stiffness(E, k_max, k_min)[0], hertz.hertz_stiffness_exact(E, k_max, k_min)))
    assert worst < 4e-15


def derivative(f, x, lower, upper):
    """df/dx by central differences with the relative step 1e-5, or by the second-order
    one-sided formula where a step would leave [lower, upper] (the curvatures accepted by
    `hertz_stiffness_exact`: 1 <= k_max / k_min <= MAX_CURVATURE_RATIO)."""
    h = 1e-5 * x
    if x - h < lower:
        return (-3 * f(x) + 4 * f(x + h) - f(x + 2 * h)) / (2 * h)
    if x + h > upper:
        return (3 * f(x) - 4 * f(x - h) + f(x - 2 * h)) / (2 * h)
    return (f(x + h) - f(x - h)) / (2 * h)


def partials_error(E, k_max, k_min):
    """Errors of the two partials in units of K / k (the error of the elasticities
    d ln K / d ln k). Differences of K, which brentq and the integrals give to ~1e-15, err by
    ~1e-15 / (2 * 1e-5) ~ 5e-11 in these units; relative to the partial itself that grows
    where K barely depends on a curvature (k_max dK/dk_max = -0.07 K at the ratio 1e4, -0.035 K
    at 1e10)."""
    K, d_max, d_min = kh.stiffness(E, k_max, k_min)
    limit = hertz.MAX_CURVATURE_RATIO
    fd_max = derivative(lambda k: hertz.hertz_stiffness_exact(E, k, k_min), k_max, k_min, limit * k_min)
    fd_min = derivative(lambda k: hertz.hertz_stiffness_exact(E, k_max, k), k_min, k_max / limit, k_max)
    return abs(d_max - fd_max) * k_max / K, abs(d_min - fd_min) * k_min / K


def test_partials_against_differences_of_scipy():
    """Measured worst, in units of K / k: 4.4e-11 (dK/dk_max), 5.7e-11 (dK/dk_min); relative
    to the partials themselves 9.2e-10 and 1.7e-10. (Against mpmath's derivative of a 40-digit
    evaluation the kernel's partials are exact to 2.7e-15: the error is the differences'.)"""
    errors = np.array([partials_error(*sample) for sample in stiffness_samples(4, 200)])
    assert errors.max() < 2e-10


@pytest.mark.parametrize("ratio", [1.0, 1.0 + 1e-12, 1.0 + 1e-6, 1.5, 2.0, 10.0, 100.0, 1e4, 1e6, 1e8, 1e10])
def test_stiffness_and_partials_across_ratios(ratio):
    """From the circle to the line-contact limit (one-sided differences next to k_max = k_min).
    Measured worst: K 1.1e-15, partials 6.7e-11 K / k (ratio 1e10)."""
    E, k_min = 2e11, 40.0
    k_max = ratio * k_min
    K, _, _ = kh.stiffness(E, k_max, k_min)
    assert rel(K, hertz.hertz_stiffness_exact(E, k_max, k_min)) < 4e-15
    assert max(partials_error(E, k_max, k_min)) < 2e-10


def test_euler_identity_of_a_homogeneous_function():
    """K(s k_max, s k_min) = s^(-1/2) K: k_max dK/dk_max + k_min dK/dk_min = -K/2. (dK/dk_min
    is built from this identity, so it checks that construction, not the accuracy: measured
    0.6 eps.)"""
    worst = 0.0
    for E, k_max, k_min in stiffness_samples(5, 200):
        K, d_max, d_min = kh.stiffness(E, k_max, k_min)
        worst = max(worst, abs(k_max * d_max + k_min * d_min + K / 2) / K)
    assert worst < 4 * EPS


@pytest.mark.parametrize("E, R", [(2e9, 0.25), (1.15e11, 1e-4), (1e6, 30.0)])
def test_a_circular_contact_is_the_sphere_formula(E, R):
    """k_max = k_min = 1/R: K = (4/3) E* sqrt(R), and by symmetry and Euler's identity
    dK/dk_max = dK/dk_min = -K / (4 k) (q = 1: no 0/0). Measured worst: 0.7 eps (K), 2.5 eps
    (partials)."""
    k = 1 / R
    K, d_max, d_min = kh.stiffness(E, k, k)
    assert rel(K, 4.0 / 3.0 * E * math.sqrt(R)) < 4 * EPS
    assert rel(d_max, -K / (4 * k)) < 8 * EPS
    assert rel(d_min, -K / (4 * k)) < 8 * EPS
