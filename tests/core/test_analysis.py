"""Port-Hamiltonian structure (J, R, B, G) of compiled systems against textbook matrices.

MSD on z = (p, q), grad H = (p/m, k q):
    dp/dt = -k q - b p/m + F  ->  J = [[0, -1], [1, 0]], R = [[b, 0], [0, 0]], B = [[1], [0]].
Pendulum on z = (r, p), grad H = (0, p/m): J = [[0, I], [-I, 0]], R = 0, B = [[0], [I]]
(gravity), and G lambda = the rod force -T n on the momentum rows.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph

from .conftest import msd_graph, pendulum_graph, rc_loop, two_masses

M, K, B, F = 2.0, 3.0, 0.5, 1.0


def assert_structure_is_consistent(a):
    chk = a.check()
    assert chk["J_skew_error"] <= 1e-12
    assert chk["R_min_eigenvalue"] >= -1e-12
    assert chk["rate_mismatch"] <= 1e-12
    assert_allclose(a.J, -a.J.T, rtol=0, atol=1e-12)
    assert_allclose(a.R, a.R.T, rtol=0, atol=1e-12)
    assert np.min(np.linalg.eigvalsh(a.R)) >= -1e-12
    assert_allclose(a.structure_rates(), a.zdot, rtol=1e-12, atol=1e-12)
    # dissipated power in the structure is grad H . R grad H >= 0
    assert chk["dissipated_power"] >= -1e-12
    assert_allclose(chk["dissipated_power"], a.grad_H @ a.R @ a.grad_H, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_msd_structure_is_the_textbook_one(seed):
    rng = np.random.default_rng(seed)
    system = ph.compile(msd_graph(M, K, B, F))
    p, q = rng.standard_normal(2)
    t = rng.uniform(0, 10)
    x = system.initial_state({"m.p": p, "k.q": q})
    a = system.analysis(t, x)
    assert a.names == ["m.p[0]", "k.q[0]"]
    assert_allclose(a.J, [[0.0, -1.0], [1.0, 0.0]], rtol=0, atol=1e-15)
    assert_allclose(a.R, [[B, 0.0], [0.0, 0.0]], rtol=0, atol=1e-15)
    assert_allclose(a.B, [[1.0], [0.0]], rtol=0, atol=1e-15)
    # bit-identical on purpose: the source's value is reported as given
    assert_allclose(a.s, [F], rtol=0, atol=0)
    assert a.G.shape == (2, 0)
    assert_allclose(a.grad_H, [p / M, K * q], rtol=1e-15, atol=0)
    assert_allclose(a.H, p**2 / (2 * M) + K * q**2 / 2, rtol=1e-14, atol=0)
    # the compiled rates and the textbook rates
    assert_allclose(a.zdot, [F - K * q - B * p / M, p / M], rtol=1e-14, atol=1e-15)
    # the generated rhs and (J - R) dH/dx + B u are two evaluations of one formula: equal to round-off
    assert_allclose(system.rhs(t, x)[:2], a.zdot, rtol=0, atol=4 * np.finfo(float).eps * np.abs(a.zdot).max())
    assert_structure_is_consistent(a)
    assert_allclose(a.check()["dissipated_power"], B * (p / M) ** 2, rtol=1e-14, atol=0)


@pytest.mark.parametrize("theta, omega", [(math.pi / 2, 0.0), (0.3, 1.7), (-2.0, -0.4)])
def test_pendulum_structure(theta, omega):
    m, g, L = 1.5, 9.81, 2.0
    system = ph.compile(pendulum_graph(m, g, L))
    r = L * np.array([math.sin(theta), -math.cos(theta)])
    v = L * omega * np.array([math.cos(theta), math.sin(theta)])
    x = system.initial_state({"ball.r": r, "ball.p": m * v})
    a = system.analysis(0.0, x)
    Z, I2 = np.zeros((2, 2)), np.eye(2)
    assert_allclose(a.J, np.block([[Z, I2], [-I2, Z]]), rtol=0, atol=1e-15)
    assert_allclose(a.R, np.zeros((4, 4)), rtol=0, atol=1e-15)
    assert_allclose(a.B, np.vstack([Z, I2]), rtol=0, atol=1e-15)
    # bit-identical on purpose: the sources' values are reported as given
    assert_allclose(a.s, [0.0, -m * g], rtol=0, atol=0)
    tension = m * (v @ v / L + g * math.cos(theta))
    n = r / L
    assert_allclose(a.G @ a.lam, np.concatenate([[0.0, 0.0], -tension * n]), rtol=1e-12, atol=1e-12)
    assert_structure_is_consistent(a)


def test_structure_along_a_pendulum_trajectory():
    system = ph.compile(pendulum_graph(theta0=1.2))
    traj = ph.simulate(system, (0.0, 3.0), system.initial_state(), rtol=1e-9, atol=1e-11)
    for i in np.linspace(0, traj.t.size - 1, 7).astype(int):
        assert_structure_is_consistent(system.analysis(traj.t[i], traj.x[i]))


def test_structure_with_a_multiplier_and_with_an_algebraic_loop():
    """Cuts and loop tears are eliminated: the structure still reproduces the compiled rates."""
    bg, _ = two_masses(2.0, 3.0, 5.0, 1.0)
    system = ph.compile(bg)
    x = system.initial_state({"k.q": 0.3, "m1.p": 0.4, "m2.p": 0.6})
    a = system.analysis(0.0, x)
    assert_structure_is_consistent(a)
    assert a.G.shape == (3, 1)

    C, R1, R2, R3, R4 = 2.0, 1.0, 2.0, 3.0, 6.0
    system = ph.compile(rc_loop(C, R1, R2, R3, R4))
    x = system.initial_state({"C.q": 1.0})
    a = system.analysis(0.0, x)
    assert_structure_is_consistent(a)
    # a single capacitor draining into R_eq = 0.8: dq/dt = -(1/R_eq) (q/C), so R = 1/R_eq
    assert_allclose(a.R, [[1.0 / 0.8]], rtol=1e-14, atol=0)
    # bit-exact on every CPU: one storage has no gyration
    assert_allclose(a.J, [[0.0]], rtol=0, atol=0)
