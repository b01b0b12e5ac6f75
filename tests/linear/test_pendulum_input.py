"""A constrained system with an input: a point-mass pendulum (rod constraint) pushed at the bob.

Hanging at rest, mass m on a rod of length L, a force F = (F_x, F_y) on the bob: only the
tangential part moves it, m L theta'' = -m g theta + F_x, and the bob's velocity (the force's
collocated output) is (L theta', 0):

    G_xx(s) = s / (m (s^2 + g / L)),   G_xy = G_yx = G_yy = 0
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.library import DistanceConstraint, PointMass

M, GRAV, L = 1.5, 9.81, 2.0


@pytest.fixture(scope="module")
def lin():
    bg = ph.BondGraph("pushed_pendulum")
    ball = PointMass("ball", M, dim=2, r0=[0.0, -L])
    bg.add(ball, DistanceConstraint("rod", ball, L, anchor=[0.0, 0.0]), ph.Se("gravity", [0.0, -M * GRAV]),
           ph.Se("F", input=True, dim=2), ph.Junction1("j", dim=2))
    for a, b in (("gravity", "j"), ("F", "j"), ("j", "ball"), ("ball", "rod")):
        bg.connect(a, b)
    system = ph.compile(bg)
    return system.linearize(0.0, system.default_state())


def test_reduced_to_one_degree_of_freedom(lin):
    assert lin.tangent_names == ("ball.r[0]", "ball.r[1]", "ball.p[0]", "ball.p[1]")
    assert lin.state_names == ("eta[0]", "eta[1]")
    assert lin.input_names == lin.output_names == ("F[0]", "F[1]")
    # the basis spans horizontal position and momentum: delta = V eta has no vertical part
    assert_allclose(lin.basis[[1, 3]], 0.0, rtol=0, atol=1e-15)
    (mode,) = lin.modes()
    assert_allclose(mode.natural_frequency, np.sqrt(GRAV / L), rtol=1e-12, atol=0)


def test_transfer_matrix_is_the_closed_form(lin):
    s = np.array([0.5j, 3.0j, 1.0 + 1.0j, -0.2 + 0.1j])
    G = lin.transfer_function(s)
    assert G.shape == (4, 2, 2)
    assert_allclose(G[:, 0, 0], s / (M * (s**2 + GRAV / L)), rtol=1e-12, atol=0)
    assert_allclose(G[:, [0, 1, 1], [1, 0, 1]], 0.0, rtol=0, atol=1e-14)


def test_port_hamiltonian_matrices_of_the_point_mass(lin):
    """On (r, p): J = [[0, I], [-I, 0]], R = 0, Q = diag(0, 0, 1/m, 1/m) (gravity is a source),
    B = [0; I], G the rod direction on the momentum rows."""
    ph_ = lin.ph
    # bit-exact on every CPU: at the hanging equilibrium every entry is a sum of products of 0, 1 and -1
    assert_allclose(ph_.J, np.block([[np.zeros((2, 2)), np.eye(2)], [-np.eye(2), np.zeros((2, 2))]]),
                    rtol=0, atol=0)
    assert_allclose(ph_.R, 0.0, rtol=0, atol=0)
    assert_allclose(ph_.Q, np.diag([0.0, 0.0, 1.0 / M, 1.0 / M]), rtol=0, atol=1e-12)
    assert_allclose(ph_.B, np.vstack((np.zeros((2, 2)), np.eye(2))), rtol=0, atol=0)
    assert ph_.G.shape == (4, 1)
    assert_allclose(ph_.G[:2], 0.0, rtol=0, atol=0)
    assert_allclose(abs(ph_.G[2:, 0] / np.linalg.norm(ph_.G[2:, 0])), [0.0, 1.0], rtol=0, atol=1e-15)
    # the rod holds the weight: G lambda cancels gravity (a constant source) on p_y
    assert ph_.source_names == ("gravity[0]", "gravity[1]", "F[0]", "F[1]")
    assert_allclose(ph_.B_sources[:, 2:], ph_.B, rtol=0, atol=0)
    assert_allclose(ph_.s, [0.0, -M * GRAV, 0.0, 0.0], rtol=0, atol=0)
    assert_allclose(ph_.G @ ph_.lam, [0.0, 0.0, 0.0, M * GRAV], rtol=0, atol=1e-12)
    assert_allclose(ph_.structure_rates(), 0.0, rtol=0, atol=1e-12)
