"""The compiled Hertz stiffness (`porthamiltonian.kernels.hertz`) against scipy.

- Carlson's R_F and R_D (duplication algorithm, complex arguments) against
  `scipy.special.elliprf` / `elliprd` on random real and complex arguments;
- the contact ellipse's axis ratio against the bracketed root of `contact.hertz`;
- the stiffness against `contact.hertz.hertz_stiffness_exact`, its partial derivatives against
  central differences of it, Euler's identity of a function homogeneous of degree -1/2, and
  the circular closed form (4/3) E* sqrt(R).
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import elliprd, elliprf

from porthamiltonian.contact import hertz
from porthamiltonian.kernels import hertz as kh


def test_carlson_integrals_match_scipy():
    """Measured worst relative errors: 5.5e-16 (R_F), 5.5e-16 (R_D), real and complex."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        x, y, z = 10 ** rng.uniform(-3, 3, 3)
        if rng.random() < 0.3:
            x = 0.0                      # the Hertz integrals have a zero argument
        assert_allclose(kh.carlson_rf(x, y, z), elliprf(x, y, z), rtol=2e-15)
        assert_allclose(kh.carlson_rd(x, y, z), elliprd(x, y, z), rtol=2e-15)
        zc = complex(z, z * rng.uniform(-0.5, 0.5))
        assert_allclose(kh.carlson_rd(x, y, zc), elliprd(x, y, zc), rtol=2e-15)
        assert_allclose(kh.carlson_rf(x, zc, y), elliprf(x, zc, y), rtol=2e-15)


def test_complex_steps_give_the_derivative_of_rd():
    for q in (0.01, 0.3, 1.0):
        step = 1e-30
        exact = kh.carlson_rd(0.0, complex(q, step), 1.0).imag / step
        h = 1e-6 * q
        central = (elliprd(0.0, q + h, 1.0) - elliprd(0.0, q - h, 1.0)) / (2 * h)
        assert_allclose(exact, central, rtol=1e-8)


@pytest.mark.parametrize("ratio", [1.0, 1.0 + 1e-12, 1.5, 2.0, 10.0, 100.0, 1e4, 1e10])
def test_axis_ratio_matches_the_bracketed_root(ratio):
    assert_allclose(kh.axis_ratio_squared(ratio), hertz._axis_ratio_squared(ratio), rtol=2e-14)


def test_stiffness_and_its_partials():
    """Measured: K to 1.7e-15; partials against central differences (relative step 1e-5) to
    6e-11 of K / k_min; Euler's identity to 1.1e-16."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        k_max, k_min = sorted(10 ** rng.uniform(-1, 3, 2))[::-1]
        E = 10 ** rng.uniform(5, 11)
        K, d_max, d_min = kh.stiffness(E, k_max, k_min)
        assert_allclose(K, hertz.hertz_stiffness_exact(E, k_max, k_min), rtol=1e-14)
        h = 1e-5
        central_max = (hertz.hertz_stiffness_exact(E, k_max * (1 + h), k_min)
                       - hertz.hertz_stiffness_exact(E, k_max * (1 - h), k_min)) / (2 * h * k_max)
        assert abs(d_max - central_max) < 1e-9 * K / k_min
        if k_max > k_min * (1 + 2 * h):
            central_min = (hertz.hertz_stiffness_exact(E, k_max, k_min * (1 + h))
                           - hertz.hertz_stiffness_exact(E, k_max, k_min * (1 - h))) / (2 * h * k_min)
            assert abs(d_min - central_min) < 1e-9 * K / k_min
        assert abs(k_max * d_max + k_min * d_min + K / 2) < 1e-14 * K


def test_a_circular_contact_is_the_sphere_formula():
    E, R = 2e9, 0.25
    K, d_max, d_min = kh.stiffness(E, 1 / R, 1 / R)
    assert_allclose(K, 4.0 / 3.0 * E * math.sqrt(R), rtol=1e-15)
    # symmetric in the two curvatures, and Euler: both are -K / (4 k)
    assert_allclose((d_max, d_min), (-K * R / 4, -K * R / 4), rtol=1e-13)
