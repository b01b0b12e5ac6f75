"""Hertz contact from materials and geometry, each against an independent reference."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp

from porthamiltonian.contact.hertz import (
    GREENWOOD_MAX_RATIO,
    effective_modulus,
    hertz_ellipse,
    hertz_sphere_impact,
    hertz_stiffness,
    hertz_stiffness_exact,
    hertz_stiffness_greenwood,
    relative_curvature,
)
from porthamiltonian.errors import ParameterError

E_STEEL, NU_STEEL = 210e9, 0.3


def rot(phi):
    c, s = math.cos(phi), math.sin(phi)
    return np.array(((c, -s), (s, c)))


# -- effective modulus ------------------------------------------------------------------------

def test_effective_modulus_hand_values():
    # steel on steel: E / (2 (1 - nu^2)) = 210 / 1.82 GPa
    E_star = effective_modulus(E_STEEL, NU_STEEL, E_STEEL, NU_STEEL)
    assert E_star == pytest.approx(115.3846e9, rel=1e-6, abs=0)
    # steel on aluminium (70 GPa, 0.33): 1 / (0.91/210 + 0.8911/70) GPa = 58.608 GPa
    assert effective_modulus(E_STEEL, NU_STEEL, 70e9, 0.33) == pytest.approx(58.608e9, rel=1e-4, abs=0)
    # a rigid counterface leaves the plane-strain modulus of the soft body
    assert effective_modulus(1e6, 0.45, 1e30, 0.0) == pytest.approx(1e6 / (1 - 0.45**2), rel=1e-12, abs=0)
    # incompressible rubber on a rigid body: E* = 4 E / 3
    assert effective_modulus(1e6, 0.5, 1e30, 0.0) == pytest.approx(4e6 / 3, rel=1e-12, abs=0)


@pytest.mark.parametrize("args, match", [
    ((210e9, 0.51, 210e9, 0.3), r"`nu1` must be a Poisson's ratio in \(-1, 0.5\] .*got 0.51"),
    ((210e9, 0.3, 210e9, -1.0), r"`nu2` .* in \(-1, 0.5\] .*got -1.0"),
    ((0.0, 0.3, 210e9, 0.3), r"`E1` must be > 0, got 0.0"),
    ((210e9, 0.3, math.nan, 0.3), r"`E2` must be finite"),
])
def test_effective_modulus_bad_input(args, match):
    with pytest.raises(ParameterError, match=match):
        effective_modulus(*args)


# -- relative curvature -----------------------------------------------------------------------

def test_two_spheres():
    R1, R2 = 0.01, 0.03
    k = relative_curvature(np.eye(2) / R1, np.eye(2) / R2)
    assert_allclose(k, (1 / R1 + 1 / R2,) * 2, rtol=1e-15)
    # a ball (R1) in a larger spherical socket (R2, concave: negative curvature)
    assert_allclose(relative_curvature(np.eye(2) / R1, -np.eye(2) / R2), (1 / R1 - 1 / R2,) * 2, rtol=1e-14)


def test_crossed_cylinders_equal_radius_are_a_sphere_on_a_flat():
    R = 0.02
    k_max, k_min = relative_curvature(np.diag((1 / R, 0.0)), np.diag((0.0, 1 / R)))
    assert (k_max, k_min) == (1 / R, 1 / R)
    E = effective_modulus(E_STEEL, NU_STEEL, E_STEEL, NU_STEEL)
    assert hertz_stiffness(E, k_max, k_min) == pytest.approx(4 / 3 * E * math.sqrt(R), rel=1e-12, abs=0)


@pytest.mark.parametrize("theta", [0.3, math.pi / 4, 1.2, math.pi / 2])
def test_cylinders_crossed_at_an_angle(theta):
    # two cylinders whose axes make the angle theta (Johnson 1985, ch. 4):
    # A + B = (1/R1 + 1/R2)/2, B - A = (1/2) sqrt(1/R1^2 + 1/R2^2 + 2 cos(2 theta) / (R1 R2))
    R1, R2 = 0.01, 0.025
    K1 = np.diag((1 / R1, 0.0))                                  # axis along y
    K2 = rot(theta) @ np.diag((1 / R2, 0.0)) @ rot(theta).T      # axis at theta to y
    total = 1 / R1 + 1 / R2
    split = math.sqrt(1 / R1**2 + 1 / R2**2 + 2 * math.cos(2 * theta) / (R1 * R2))
    assert_allclose(relative_curvature(K1, K2), ((total + split) / 2, (total - split) / 2), rtol=1e-12)


def test_rotated_basis_gives_the_same_eigenvalues():
    K1 = np.diag((1 / 0.01, 1 / 0.05))
    K2 = rot(0.7) @ np.diag((1 / 0.02, -1 / 0.2)) @ rot(0.7).T
    ref = relative_curvature(K1, K2)
    assert_allclose(ref, np.linalg.eigvalsh(K1 + K2)[::-1], rtol=1e-14)
    for phi in (0.1, 1.0, 2.5):
        Q = rot(phi)
        assert_allclose(relative_curvature(Q @ K1 @ Q.T, Q @ K2 @ Q.T), ref, rtol=1e-13)


@pytest.mark.parametrize("K1, K2, match", [
    (np.eye(2) / 0.5, -np.eye(2) / 0.5, r"positive definite .* eigenvalues \(0, 0\) .*conforming or concave"),
    (np.eye(2) / 0.5, -np.eye(2) / 0.4, r"eigenvalues \(-0.5, -0.5\) 1/m: conforming or concave"),
    (np.diag((2.0, 0.0)), np.zeros((2, 2)), r"eigenvalues \(2, 0\)"),           # cylinder on a plane
    (np.diag((2.0, 0.0)), np.diag((3.0, 0.0)), r"eigenvalues \(5, 0\)"),        # parallel cylinders
    (np.diag((2.0, 1e-11)), np.zeros((2, 2)), r"ratio 2e\+11 > MAX_CURVATURE_RATIO .* line contact"),
    (np.array(((1.0, 0.5), (0.0, 1.0))), np.eye(2), r"`K1` must be a symmetric"),
    (np.eye(2), np.eye(3), r"`K2` must have shape \(2, 2\)"),
])
def test_relative_curvature_rejects(K1, K2, match):
    with pytest.raises(ParameterError, match=match):
        relative_curvature(K1, K2)


# -- stiffness --------------------------------------------------------------------------------

@pytest.mark.parametrize("R", [1e-4, 0.01, 3.0])
def test_equal_curvatures_are_the_sphere(R):
    E = 7e10
    ref = 4 / 3 * E * math.sqrt(R)
    for stiffness in (hertz_stiffness, hertz_stiffness_exact, hertz_stiffness_greenwood):
        assert stiffness(E, 1 / R, 1 / R) == pytest.approx(ref, rel=1e-12, abs=0)
    assert hertz_ellipse(1 / R, 1 / R) == pytest.approx((1.0, 1.0, 1.0), rel=1e-12, abs=0)


def boussinesq_displacement(a, b, p0, x0, y0, n=4096):
    """Approach (u1 + u2) E* [Pa m] at (x0, y0) under the Hertz pressure p0 sqrt(1 - x^2/a^2 -
    y^2/b^2), by direct quadrature of Boussinesq's u = (1/(pi E*)) int p / r dA (Johnson ch. 3):
    polar coordinates about the point, the radial integral in closed form (p is the square
    root of a quadratic along each ray), the angular one by the trapezoidal rule (periodic,
    analytic: spectral accuracy)."""
    th = np.arange(n) * 2 * np.pi / n
    c, s = np.cos(th), np.sin(th)
    g = c**2 / a**2 + s**2 / b**2                      # p^2/p0^2 = q0 - 2 beta r - g r^2
    beta = x0 * c / a**2 + y0 * s / b**2
    q0 = 1 - x0**2 / a**2 - y0**2 / b**2
    mid, half = -beta / g, np.sqrt(beta**2 + g * q0) / g  # roots mid -+ half
    ray = np.sqrt(g) * p0 * (0.5 * half**2 * (np.pi / 2 + np.arcsin(mid / half))
                             + 0.5 * mid * np.sqrt(half**2 - mid**2))
    return ray.mean() * 2.0                          # (2 pi mean) / pi


@pytest.mark.parametrize("b_over_a", [1.0, 0.7, 0.4, 0.1, 0.02])
def test_exact_solution_against_boussinesq_quadrature(b_over_a):
    """Given a Hertz pressure on an ellipse, integrate the displacement it causes: the approach
    delta (at the centre) and the gap curvatures A, B (from points on the axes) it matches.
    The load P = (2/3) pi a b p0 must then be K delta^(3/2) and the ellipse the one predicted."""
    E, a, p0 = 1e9, 2e-3, 5e8
    b = a * b_over_a
    delta = boussinesq_displacement(a, b, p0, 0, 0) / E
    A = (delta - boussinesq_displacement(a, b, p0, a / 2, 0) / E) / (a / 2) ** 2
    B = (delta - boussinesq_displacement(a, b, p0, 0, b / 2) / E) / (b / 2) ** 2
    # the displacement is exactly quadratic inside the contact (checks the quadrature)
    assert boussinesq_displacement(a, b, p0, 0.3 * a, -0.6 * b) / E == pytest.approx(
        delta - A * (0.3 * a) ** 2 - B * (0.6 * b) ** 2, rel=1e-12, abs=0)
    P = 2 / 3 * math.pi * a * b * p0
    k_max, k_min = max(2 * A, 2 * B), min(2 * A, 2 * B)
    assert hertz_stiffness_exact(E, k_max, k_min) * delta**1.5 == pytest.approx(P, rel=1e-9, abs=0)
    shape = hertz_ellipse(k_max, k_min)
    Re = 1 / math.sqrt(k_max * k_min)
    assert shape.axis_ratio == pytest.approx(b_over_a, rel=1e-9, abs=0)
    assert math.sqrt(a * b) == pytest.approx((3 * P * Re / (4 * E)) ** (1 / 3) * shape.F1, rel=1e-9, abs=0)
    assert delta == pytest.approx((9 * P**2 / (16 * Re * E**2)) ** (1 / 3) * shape.F2, rel=1e-9, abs=0)


# Hertz's coefficients m, n (a = m c0, b = n c0, c0 = (3 P / (4 E* (A + B)))^(1/3)) against
# theta, cos(theta) = (B - A)/(B + A), as tabulated by Timoshenko & Goodier, Theory of
# Elasticity (1951), from Hertz's own computation; the table is good to about 2e-3.
TIMOSHENKO_GOODIER = [
    (30, 2.731, 0.493), (35, 2.397, 0.530), (40, 2.136, 0.567), (45, 1.926, 0.604),
    (50, 1.754, 0.641), (55, 1.611, 0.678), (60, 1.486, 0.717), (65, 1.378, 0.759),
    (70, 1.284, 0.802), (75, 1.202, 0.846), (80, 1.128, 0.893), (85, 1.061, 0.944),
    (90, 1.000, 1.000),
]


@pytest.mark.parametrize("theta, m, n", TIMOSHENKO_GOODIER)
def test_semi_axes_against_the_classical_table(theta, m, n):
    cos = math.cos(math.radians(theta))
    ratio = (1 + cos) / (1 - cos)                        # B/A = k_max/k_min
    shape = hertz_ellipse(ratio, 1.0)
    # sqrt(ab) = c0 m sqrt(n/m) = (3 P Re / (4 E*))^(1/3) F1, Re (A + B) = (1 + ratio)/(2 sqrt(ratio))
    m_exact = shape.F1 * shape.axis_ratio**-0.5 * ((1 + ratio) / (2 * math.sqrt(ratio))) ** (1 / 3)
    assert m_exact == pytest.approx(m, abs=2.5e-3)
    assert m_exact * shape.axis_ratio == pytest.approx(n, abs=2.5e-3)


def test_greenwood_against_exact():
    ratios = np.geomspace(1.0, GREENWOOD_MAX_RATIO, 200)
    err = np.array([hertz_stiffness_greenwood(1.0, r, 1.0) / hertz_stiffness_exact(1.0, r, 1.0) - 1
                    for r in ratios])
    assert err[0] == pytest.approx(0.0, abs=1e-12)
    assert np.abs(err).max() == pytest.approx(0.0086, abs=0.0005)   # as documented: 0.86 % at 100
    for ratio, documented in ((2.0, 0.0048), (5.0, 0.0046), (20.0, -0.0047), (100.0, 0.0086)):
        assert hertz_stiffness_greenwood(3.0, ratio, 1.0) / hertz_stiffness_exact(3.0, ratio, 1.0) - 1 == (
            pytest.approx(documented, abs=1e-4))
    assert hertz_stiffness(2.0, 37.0, 0.5) == hertz_stiffness_exact(2.0, 37.0, 0.5)


@pytest.mark.parametrize("call, match", [
    (lambda: hertz_stiffness(1.0, 1.0, 2.0), r"`k_max` must be >= `k_min` .* got 1.0 < 2.0"),
    (lambda: hertz_stiffness(-1.0, 2.0, 1.0), r"`E_star` must be > 0, got -1.0"),
    (lambda: hertz_stiffness(1.0, 2.0, 0.0), r"`k_min` must be > 0"),
    (lambda: hertz_stiffness(1.0, 1e11, 1.0), r"`k_max` / `k_min` must be <= 1e\+10, got 1e\+11"),
    (lambda: hertz_stiffness_greenwood(1.0, 101.0, 1.0), r"`k_max` / `k_min` must be <= 100, got 101"),
    (lambda: hertz_ellipse(math.inf, 1.0), r"`k_max` must be finite"),
])
def test_stiffness_rejects(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


# -- impact -----------------------------------------------------------------------------------

@pytest.mark.parametrize("speed", [0.05, 0.5, 3.0])
def test_sphere_impact_against_integration(speed):
    R, rho = 0.01, 7850.0
    m = 4 / 3 * math.pi * R**3 * rho
    E = effective_modulus(E_STEEL, NU_STEEL, E_STEEL, NU_STEEL)
    K = 4 / 3 * E * math.sqrt(R)
    x_scale = (m * speed**2 / K) ** 0.4

    def rhs(t, y):
        return (y[1], -K * max(y[0], 0.0) ** 1.5 / m)

    def turn(t, y):
        return y[1]

    def leave(t, y):
        return y[0]

    turn.direction, leave.direction, leave.terminal = -1, -1, True
    sol = solve_ivp(rhs, (0.0, 100 * x_scale / speed), (0.0, speed), method="DOP853",
                    rtol=1e-12, atol=(1e-14 * x_scale, 1e-14 * speed), events=(turn, leave))
    x_max = sol.y_events[0][0][0]
    out = hertz_sphere_impact(m, E, R, speed)
    assert out.max_approach == pytest.approx(x_max, rel=1e-9, abs=0)
    assert out.peak_force == pytest.approx(K * x_max**1.5, rel=1e-9, abs=0)
    assert out.duration == pytest.approx(sol.t_events[1][0], rel=1e-9, abs=0)
    assert out.duration == pytest.approx(2.9432 * out.max_approach / speed, rel=1e-4, abs=0)
    assert sol.y_events[1][0][1] == pytest.approx(-speed, rel=1e-9, abs=0)     # elastic: e = 1


@pytest.mark.parametrize("args, match", [
    ((1.0, 1e9, 0.01, 0.0), r"`speed` must be > 0, got 0.0"),
    ((-1.0, 1e9, 0.01, 1.0), r"`mass` must be > 0"),
    ((1.0, 1e9, math.nan, 1.0), r"`radius` must be finite"),
    ((1.0, "stiff", 0.01, 1.0), r"`E_star` must be a real number, got 'stiff'"),
])
def test_sphere_impact_rejects(args, match):
    with pytest.raises(ParameterError, match=match):
        hertz_sphere_impact(*args)
