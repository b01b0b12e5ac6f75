"""Double pendulum of two uniform rods (registered model `double-pendulum`): textbook modes.

Small oscillations about the hanging rest, absolute angles phi = (phi1, phi2) about the hinge
axis (world y), rods of mass m_i and length L_i hinged at their ends (moment of inertia
m L^2/12 about the centre; Goldstein-style compound double pendulum):

    M = [[(m1/3 + m2) L1^2, m2 L1 L2 / 2], [m2 L1 L2 / 2, m2 L2^2 / 3]]
    K = diag((m1/2 + m2) g L1, m2 g L2 / 2)
    (K - omega^2 M) v = 0

In the chart each link's rotation about its body y axis (= world y at rest) is its absolute
angle, and link 2's hinge, at link 1's tip, moves by dx = -L1 dphi1.
"""

import numpy as np
import pytest
import scipy.linalg
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.models import build_model

PARAMS = dict(m1=1.5, m2=0.7, L1=1.2, L2=0.8)
G = 9.81


def textbook_modes(m1, m2, L1, L2):
    """(omega [rad/s] ascending, eigenvectors as columns) of the module docstring's problem."""
    M = np.array([[(m1 / 3 + m2) * L1**2, m2 * L1 * L2 / 2], [m2 * L1 * L2 / 2, m2 * L2**2 / 3]])
    K = np.diag([(m1 / 2 + m2) * G * L1, m2 * G * L2 / 2])
    w2, v = scipy.linalg.eigh(K, M)
    return np.sqrt(w2), v


def pendulum(theta1, theta2):
    model = build_model("double-pendulum", theta1=theta1, theta2=theta2, **PARAMS)
    system = ph.compile(model.graph)
    return system, system.initial_state(model.initial)


@pytest.fixture(scope="module")
def hanging():
    system, x = pendulum(0.0, 0.0)
    return system.linearize(0.0, x)


def test_modes_are_the_textbook_ones(hanging):
    omega, vectors = textbook_modes(**PARAMS)
    # 24 tangent coordinates (two poses and momenta) - 2 x (5 gaps + 5 velocity rows) = 4
    assert hanging.A.shape == (4, 4)
    modes = hanging.modes()
    # measured: 1e-15 (relative), the mode shapes' ratios 2e-15
    assert_allclose([m.natural_frequency for m in modes], omega, rtol=1e-8, atol=0)
    assert_allclose([m.damping_ratio for m in modes], 0.0, rtol=0, atol=1e-10)
    L1 = PARAMS["L1"]
    for mode, v in zip(modes, vectors.T):
        s = mode.shape
        phi1, phi2 = s["link1.pose.phi[1]"], s["link2.pose.phi[1]"]
        assert_allclose(phi2 / phi1, v[1] / v[0], rtol=1e-8, atol=0)
        assert_allclose(s["link2.pose.rho[0]"] / phi1, -L1, rtol=1e-8, atol=0)
        # planar: no out-of-plane rotation or motion, link 1 turns about its own origin
        for name in ("link1.pose.phi[0]", "link1.pose.phi[2]", "link2.pose.rho[1]", "link1.pose.rho[0]"):
            assert abs(s[name]) < 1e-9 * abs(phi1)
    assert hanging.leakage < 1e-8 and hanging.constraint_residual == 0.0


def test_hessian_and_gradient_match_finite_differences_of_the_energy():
    """Q (differences of the analytic gradient) against second differences of H itself, at a
    swinging state; grad_H against first differences."""
    from porthamiltonian.compile.tangent import TangentChart

    system, x = pendulum(0.7, -0.4)
    x[system.layout["link1.P"]] = system.elements["link1"].M @ [0.0, 1.3, 0.0, 0.0, 0.0, 0.0]
    lin = system.linearize(0.0, x)
    chart = TangentChart(system.layout, lin.x)
    n, h = chart.size, 1e-4

    def H(d):
        return system.energy(chart.retract(d))

    E = np.eye(n) * h
    grad = np.array([(H(E[i]) - H(-E[i])) / (2 * h) for i in range(n)])
    Q = np.array([[(H(E[i] + E[j]) - H(E[i] - E[j]) - H(E[j] - E[i]) + H(-E[i] - E[j])) / (4 * h * h)
                   for j in range(n)] for i in range(n)])
    # second differences of H lose ~eps H / h^2 ~ 1e-7 to round-off; the rods' 1e-6 m L^2
    # axial inertia puts 1e6 entries in Q
    assert_allclose(lin.ph.Q, Q, rtol=1e-7, atol=1e-6)
    assert_allclose(lin.ph.grad_H, grad, rtol=1e-7, atol=1e-8)


def test_structure_reproduces_the_rates_off_equilibrium():
    system, x = pendulum(0.7, -0.4)
    x[system.layout["link2.P"]] = system.elements["link2"].M @ [0.3, -0.8, 0.1, 0.0, 0.0, 0.0]
    x = system.project_constraints(0.0, x)
    lin = system.linearize(0.0, x)
    scale = np.max(np.abs(lin.rates))
    assert_allclose(lin.ph.structure_rates(), lin.rates, rtol=0, atol=1e-12 * scale)
    # bit-exact on every CPU by construction: linearize builds J as (A - A^T)/2
    assert_allclose(lin.ph.J, -lin.ph.J.T, rtol=0, atol=0)
    assert lin.ph.G.shape == (24, 10)
    # what `project_constraints` leaves (one velocity projection at speeds ~4 m/s): 7e-12
    assert lin.constraint_residual < 1e-10
