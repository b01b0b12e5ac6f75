"""The exact Hunt-Crossley restitution map against direct integration of the impact."""

import math

import pytest
from scipy.integrate import solve_ivp
from scipy.special import lambertw

from porthamiltonian.contact.restitution import (
    PUBLISHED_MAPS,
    hunt_crossley_damping,
    hunt_crossley_restitution,
)
from porthamiltonian.errors import ParameterError

ALPHAS = [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0]


def integrated_restitution(n, k, d, mass, speed):
    """Exit speed / impact speed of m x'' = -k x^n (1 + d x') from x = 0, x' = v0 until x
    returns to 0."""
    def rhs(t, y):
        x, v = y
        return (v, -k * max(x, 0.0) ** n * (1 + d * v) / mass)

    def leave(t, y):
        return y[0]

    leave.terminal, leave.direction = True, -1
    x_scale = (mass * speed**2 / k) ** (1 / (n + 1))
    sol = solve_ivp(rhs, (0.0, 1e3 * x_scale / speed), (0.0, speed), method="DOP853", rtol=1e-12,
                    atol=(1e-14 * x_scale, 1e-14 * speed), events=leave)
    assert sol.status == 1, sol.message
    return -sol.y_events[0][0][1] / speed


@pytest.mark.parametrize("n", [1.0, 1.5, 2.5])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_exact_map_against_integration(n, alpha):
    mass, speed, k = 0.7, 1.3, 2e5
    e = integrated_restitution(n, k, alpha / speed, mass, speed)
    assert e == pytest.approx(hunt_crossley_restitution(alpha), rel=1e-6, abs=0)


def test_independent_of_stiffness_mass_and_speed():
    e = hunt_crossley_restitution(0.8)
    for mass, speed, k in ((1e-3, 0.1, 1e9), (50.0, 7.0, 3e4)):
        assert integrated_restitution(1.5, k, 0.8 / speed, mass, speed) == pytest.approx(e, rel=1e-6, abs=0)


@pytest.mark.parametrize("alpha", [0.05, 0.3, 1.0, 3.0, 10.0, 30.0])
def test_exact_map_against_lambert_w(alpha):
    # y exp(-y) = z exp(-z), y = 1 - alpha e, z = 1 + alpha: y = -W0(-z exp(-z))
    z = 1 + alpha
    e = (1 + lambertw(-z * math.exp(-z), 0).real) / alpha
    assert hunt_crossley_restitution(alpha) == pytest.approx(e, rel=1e-12, abs=0)


def test_limits():
    assert hunt_crossley_restitution(0.0) == 1.0
    assert hunt_crossley_restitution(0) == 1.0
    assert hunt_crossley_restitution(1e-300) == 1.0
    for alpha in (1e-9, 1e-5):    # Hunt & Crossley's slope: e = 1 - 2 alpha / 3 + O(alpha^2)
        slope = (1 - hunt_crossley_restitution(alpha)) / alpha
        assert slope == pytest.approx(2 / 3, rel=2 * alpha + 1e-6, abs=0)
    for alpha in (39.0, 1e3, 1e100, 1e300):  # e -> 1/alpha
        assert hunt_crossley_restitution(alpha) == pytest.approx(1 / alpha, rel=1e-15, abs=0)
    # continuous across the switch of formulation at alpha = 1
    below, at = hunt_crossley_restitution(1 - 1e-12), hunt_crossley_restitution(1.0)
    assert below - at == pytest.approx(2.5e-13, rel=0.05, abs=0)   # de/dalpha = -0.2513 at alpha = 1
    assert hunt_crossley_damping(1.0, 3.0) == 0.0


@pytest.mark.parametrize("alpha", [1e-3, 0.01, 0.2, 0.999, 1.0, 1.001, 4.0, 25.0, 38.0, 1e4, 1e200])
def test_round_trip(alpha):
    e = hunt_crossley_restitution(alpha)
    for speed in (0.5, 2.0):
        assert hunt_crossley_damping(e, speed) * speed == pytest.approx(alpha, rel=1e-10, abs=0)
    assert hunt_crossley_restitution(hunt_crossley_damping(e, 1.0)) == pytest.approx(e, rel=1e-14, abs=0)


def test_round_trip_near_one_is_limited_by_the_digits_of_e():
    # e = 1 - 2 alpha / 3 keeps 1 - e only to 1 ulp(1) = 2.2e-16: alpha to ~3.3e-16 absolute
    for alpha in (1e-6, 1e-9, 1e-12):
        assert hunt_crossley_damping(hunt_crossley_restitution(alpha), 1.0) == pytest.approx(alpha, abs=5e-16)


# measured d_published / d_exact - 1, as quoted in the module docstring
DOCUMENTED = {
    "hunt_crossley_1975": {0.9: -0.099, 0.5: -0.477, 0.2: -0.756},
    "lankarani_nikravesh_1990": {0.9: -0.144, 0.5: -0.607, 0.2: -0.854},
    "flores_2011": {0.9: 0.068, 0.5: 0.117, 0.2: 0.301},
}
# restitution actually produced by the published damping, as quoted in the module docstring
DOCUMENTED_ACTUAL = {
    "hunt_crossley_1975": {0.9: 0.909, 0.5: 0.663, 0.2: 0.547},
    "lankarani_nikravesh_1990": {0.9: 0.913, 0.5: 0.725, 0.2: 0.672},
    "flores_2011": {0.9: 0.894, 0.5: 0.470, 0.2: 0.156},
}


@pytest.mark.parametrize("name", sorted(PUBLISHED_MAPS))
def test_published_maps_as_documented(name):
    speed = 0.8
    for e, documented in DOCUMENTED[name].items():
        d = PUBLISHED_MAPS[name](e, speed)
        assert d / hunt_crossley_damping(e, speed) - 1 == pytest.approx(documented, abs=6e-4)
        assert hunt_crossley_restitution(d * speed) == pytest.approx(DOCUMENTED_ACTUAL[name][e], abs=6e-4)


def test_published_maps_as_e_tends_to_one():
    for e in (0.999, 0.99999):
        exact = hunt_crossley_damping(e, 1.0)
        error = {name: damping(e, 1.0) / exact - 1 for name, damping in PUBLISHED_MAPS.items()}
        assert error["hunt_crossley_1975"] == pytest.approx(-(1 - e), rel=0.01, abs=0)
        assert error["lankarani_nikravesh_1990"] == pytest.approx(-1.5 * (1 - e), rel=0.01, abs=0)
        # Flores et al. do not tend to the exact map: slope 8/5 against 3/2
        assert error["flores_2011"] == pytest.approx(1 / 15, abs=2e-4)


@pytest.mark.parametrize("call, match", [
    (lambda: hunt_crossley_restitution(-0.1), r"`alpha` must be >= 0, got -0.1"),
    (lambda: hunt_crossley_restitution(math.inf), r"`alpha` must be finite"),
    (lambda: hunt_crossley_damping(0.0, 1.0),
     r"`restitution` must be in \(0, 1\], got 0.0: e -> 0 needs infinite damping"),
    (lambda: hunt_crossley_damping(-0.5, 1.0), r"`restitution` must be in \(0, 1\], got -0.5"),
    (lambda: hunt_crossley_damping(1.2, 1.0),
     r"`restitution` must be in \(0, 1\], got 1.2: e > 1 would need negative damping"),
    (lambda: hunt_crossley_damping(0.5, 0.0), r"`speed` must be > 0, got 0.0"),
    (lambda: hunt_crossley_damping("high", 1.0),
     r"`restitution` must be a real number, got 'high'"),
    (lambda: hunt_crossley_damping(1e-300, 1e-10),
     r"damping for restitution 1e-300 at speed 1e-10 overflows"),
    (lambda: PUBLISHED_MAPS["flores_2011"](0.0, 1.0), r"`restitution` must be in \(0, 1\]"),
])
def test_bad_input(call, match):
    with pytest.raises(ParameterError, match=match):
        call()
