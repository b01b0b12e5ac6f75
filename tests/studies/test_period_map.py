"""The time-T map of a periodic driven system, its Newton fixed point and Floquet multipliers.

Reference: a mass-spring-damper driven by a periodic force F0 cos(2 pi t / T) (a bond graph:
Se -- 1 -- I, C, R), whose time-T map is affine, x -> Phi x + b with Phi = expm(A T), so
its fixed point is the harmonic steady state ``(I - Phi)^-1 b`` and its Floquet multipliers
are the closed form ``exp(lambda T)``, ``lambda = -c/(2m) +- i sqrt(k/m - c^2/(4 m^2))``.
A direct simulation from the fixed point perturbed along the dominant mode decays by
|lambda_max| per period.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.linalg import expm

import porthamiltonian as ph
from porthamiltonian.bondgraph.elements import C, I, R, Se
from porthamiltonian.bondgraph.junctions import Junction1
from porthamiltonian.errors import IntegrationError, ParameterError
from porthamiltonian.studies.gait import PeriodMap, newton_fixed_point

M, K, D, F0, T = 1.5, 40.0, 0.9, 2.0, 0.7
SOLVER = dict(method="DOP853", rtol=1e-12, atol=1e-13)


def forced(t):
    return F0 * math.cos(2 * math.pi * t / T)


@pytest.fixture(scope="module")
def period_map():
    bg = ph.BondGraph("forced_oscillator")
    bg.add(Se("force", forced), Junction1("v"), I("mass", mass=M), C("spring", stiffness=K), R("damper", D))
    for el in ("force", "mass", "spring", "damper"):
        bg.connect(el, "v") if el == "force" else bg.connect("v", el)
    system = ph.compile(bg)
    names = system.layout.names()
    ip, iq = names.index("mass.p"), names.index("spring.q")

    def lift(z):
        x = system.initial_state()
        x[ip], x[iq] = z
        return x

    def project(x):
        return np.array([x[ip], x[iq]])

    return PeriodMap(system, T, lift, project, **SOLVER)


def closed_form():
    """(Phi, b) of the time-T map on z = (p, q): dp/dt = -K q - D p / M + F(t), dq/dt = p / M,
    exactly: the forcing F0 cos(w t) is the first state of the oscillator y'' = -w^2 y,
    appended to the system (y(0) = F0, y'(0) = 0), and the augmented flow is one expm."""
    w = 2 * math.pi / T
    Aug = np.zeros((4, 4))
    Aug[:2, :2] = [[-D / M, -K], [1.0 / M, 0.0]]
    Aug[0, 2] = 1.0
    Aug[2, 3], Aug[3, 2] = 1.0, -w * w
    E = expm(Aug * T)
    return E[:2, :2], E[:2, 2:] @ np.array([F0, 0.0])


def test_newton_finds_the_harmonic_steady_state_and_its_multipliers(period_map):
    Phi, b = closed_form()
    z_star = np.linalg.solve(np.eye(2) - Phi, b)
    fp = newton_fixed_point(period_map, [0.0, 0.0], tol=1e-10)
    # the map is affine: one Newton step lands on the fixed point up to the Jacobian's
    # finite-difference error (O(h) forward differences at h = 1e-5, times |P(z0) - z0|)
    assert fp.iterations <= 3
    assert fp.residual <= 1e-10
    assert_allclose(fp.z, z_star, rtol=1e-9, atol=1e-11)
    lam = -D / (2 * M) + 1j * math.sqrt(K / M - D * D / (4 * M * M))
    expected = np.exp(lam * T)
    # central differences on an affine map: exact but for the integration noise / step
    # (rtol 1e-12 / 1e-5 = 1e-7)
    assert_allclose(np.sort_complex(fp.multipliers), np.sort_complex([expected, np.conj(expected)]), rtol=0,
                    atol=1e-6)
    assert_allclose(np.abs(fp.multipliers), math.exp(-D / (2 * M) * T), rtol=1e-6)
    assert fp.stable
    assert fp.evaluations == len(fp.history) + fp.iterations * 2 + 4


def test_a_perturbed_orbit_decays_as_the_largest_multiplier_says(period_map):
    fp = newton_fixed_point(period_map, [0.0, 0.0], tol=1e-10)
    mu, v = fp.dominant_mode()
    delta = 1e-3
    z = fp.z + delta * v
    # the error in the dominant mode's modal coordinate (V^-1 (z - z*), V the Jacobian's
    # eigenvectors: a complex pair's Euclidean norm oscillates within a period, its modal
    # coordinate's modulus shrinks by exactly |mu| per period in the linear regime)
    mus, V = np.linalg.eig(fp.jacobian)
    k = int(np.argmax(np.abs(mus)))
    modal = []
    for _ in range(5):
        z = period_map(z)
        modal.append(abs(np.linalg.solve(V, z - fp.z)[k]))
    ratios = np.array(modal[1:]) / np.array(modal[:-1])
    # the Jacobian's eigenvectors are accurate to its finite-difference error (~1e-7)
    assert_allclose(ratios, abs(mu), rtol=1e-5)
    assert modal[-1] < modal[0] * abs(mu) ** 3.9


def test_period_map_bad_input(period_map):
    with pytest.raises(ParameterError, match=r"`period` must be a positive finite number of seconds, got -1"):
        PeriodMap(period_map.system, -1, period_map.lift, period_map.project)
    with pytest.raises(IntegrationError, match=r"did not reach \|P\(z\) - z\| <= 1e-30 in 1 iterations"):
        newton_fixed_point(period_map, [0.0, 0.0], tol=1e-30, max_iter=1)
