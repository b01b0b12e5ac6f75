"""A 50-mass damped spring chain: the linearization against a state-space model written by hand."""

import numpy as np
import pytest
import scipy.signal
from numpy.testing import assert_allclose

import porthamiltonian as ph

from .conftest import chain_graph, chain_state_space

N = 50


@pytest.fixture(scope="module")
def chain():
    rng = np.random.default_rng(16)
    params = rng.uniform(0.5, 2.0, N), rng.uniform(50.0, 200.0, N), rng.uniform(0.05, 1.0, N)
    system = ph.compile(chain_graph(*params))
    return params, system.linearize(0.0, system.default_state())


#: complex frequencies [rad/s]: on the imaginary axis across the chain's band (its modes lie
#: between ~0.3 and ~40 rad/s) and off it
S = np.concatenate((1j * np.logspace(-1, 2, 25), [0.3 + 2.0j, -0.01 + 5.0j, 1.0 - 7.0j, 4.0]))


def test_transfer_function_equals_the_hand_written_model(chain):
    params, lin = chain
    A, B, C = chain_state_space(*params)
    reference = np.array([(C @ np.linalg.solve(s * np.eye(2 * N) - A, B))[0, 0] for s in S])
    G = lin.transfer_function(S, "F", "F")
    assert G.shape == (S.size, 1, 1)
    # measured 1.2e-13 (relative): the chain is linear, so the central differences are exact
    # to round-off
    assert_allclose(G[:, 0, 0], reference, rtol=1e-10, atol=0)


def test_hessian_and_structure_are_the_chain_parameters(chain):
    (m, k, b), lin = chain
    ph_ = lin.ph
    assert ph_.names == lin.state_names == tuple(name for i in range(N) for name in (f"m{i}.p", f"k{i}.q"))
    assert_allclose(np.diag(ph_.Q), np.ravel(np.column_stack((1.0 / m, k))), rtol=1e-10, atol=0)
    assert_allclose(ph_.Q - np.diag(np.diag(ph_.Q)), 0.0, rtol=0, atol=1e-10)
    # bit-exact on every CPU by construction: linearize builds J as (A - A^T)/2
    assert_allclose(ph_.J, -ph_.J.T, rtol=0, atol=0)
    assert np.min(np.linalg.eigvalsh(ph_.R)) >= -1e-12
    # dissipated power e.R e at efforts e (velocities on the p rows) is sum b_i (v_i - v_{i-1})^2
    e = np.random.default_rng(0).standard_normal(2 * N)
    v = e[0::2]
    assert_allclose(e @ ph_.R @ e, np.sum(b * np.diff(v, prepend=0.0) ** 2), rtol=1e-12, atol=0)
    # at an unconstrained equilibrium with constant structure: A = (J - R) Q, B = B, C = B^T Q
    assert_allclose(lin.A, (ph_.J - ph_.R) @ ph_.Q, rtol=0, atol=1e-9 * np.max(np.abs(lin.A)))
    assert_allclose(lin.B, ph_.B, rtol=0, atol=1e-12)
    assert_allclose(lin.C, ph_.B.T @ ph_.Q, rtol=0, atol=1e-10)
    assert_allclose(lin.D, 0.0, rtol=0, atol=1e-12)
    assert lin.leakage == 0.0 and lin.constraint_residual == 0.0
    # bit-exact on every CPU: at rest every rate is a sum of products with exact zeros
    assert_allclose(lin.rates, 0.0, rtol=0, atol=0)


def test_modes_are_the_eigenvalues_of_the_hand_written_model(chain):
    params, lin = chain
    reference = np.linalg.eigvals(chain_state_space(*params)[0])
    modes = lin.modes()
    assert len(modes) == N  # all underdamped: one per conjugate pair
    for mode in modes:
        nearest = reference[np.argmin(np.abs(reference - mode.eigenvalue))]
        assert abs(mode.eigenvalue - nearest) <= 1e-10 * abs(nearest)
        assert_allclose(mode.damping_ratio, -nearest.real / abs(nearest), rtol=1e-9, atol=0)


def test_scipy_statespace_holds_the_matrices(chain):
    _, lin = chain
    ss = lin.to_statespace()
    assert isinstance(ss, scipy.signal.StateSpace)
    for name in "ABCD":
        # bit-identical on purpose: to_statespace hands over the same arrays
        assert_allclose(getattr(ss, name), getattr(lin, name), rtol=0, atol=0)


def test_tangent_outputs_are_states(chain):
    """An output named by a tangent coordinate is that state: the last mass's momentum is m
    times its velocity (the collocated output of the force)."""
    (m, _, _), lin = chain
    G = lin.transfer_function(S, "F", ["F", f"m{N - 1}.p"])
    assert_allclose(G[:, 1, 0], m[-1] * G[:, 0, 0], rtol=1e-10, atol=0)
