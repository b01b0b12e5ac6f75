"""3-dimensional multibond mass-spring-damper: matrix exponential and three scalar copies.

Linear system on z = (p, q): dp/dt = F - K q - R M^-1 p, dq/dt = M^-1 p, i.e.
dz/dt = A z + c with A = [[-R M^-1, -K], [M^-1, 0]], c = (F, 0); with the augmented matrix
[[A, c], [0, 0]] the solution is z(t) = expm(t [[A, c], [0, 0]]) (z0, 1).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.linalg import expm

import porthamiltonian as ph

from .conftest import ATOL, RTOL, msd_graph


def msd3(M, K, R, F):
    bg = ph.BondGraph("msd3")
    bg.add(ph.Se("F", F), ph.Junction1("v", dim=3), ph.I("m", mass=M), ph.C("k", stiffness=K),
           ph.R("b", resistance=R))
    bg.connect("F", "v")
    for e in ("m", "k", "b"):
        bg.connect("v", e)
    return bg


def random_spd(rng, n, lo, hi):
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return Q @ np.diag(rng.uniform(lo, hi, n)) @ Q.T


def expm_solution(M, K, R, F, z0, t):
    n = len(F)
    Minv = np.linalg.inv(M)
    A = np.block([[-R @ Minv, -K], [Minv, np.zeros((n, n))]])
    aug = np.zeros((2 * n + 1, 2 * n + 1))
    aug[: 2 * n, : 2 * n] = A
    aug[:n, -1] = F
    w0 = np.concatenate([z0, [1.0]])
    return np.array([(expm(ti * aug) @ w0)[: 2 * n] for ti in t])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_coupled_matrices_equal_the_matrix_exponential(seed):
    rng = np.random.default_rng(seed)
    M = random_spd(rng, 3, 0.5, 3.0)
    K = random_spd(rng, 3, 1.0, 10.0)
    R = random_spd(rng, 3, 0.0, 0.8)  # eigenvalues in [0, 0.8): possibly nearly singular
    F = rng.uniform(-1, 1, 3)
    system = ph.compile(msd3(M, K, R, F))
    q0, p0 = rng.uniform(-0.3, 0.3, 3), rng.uniform(-0.3, 0.3, 3)
    t_eval = np.linspace(0.0, 5.0, 26)
    traj = ph.simulate(system, (0.0, 5.0), system.initial_state({"k.q": q0, "m.p": p0}), rtol=RTOL, atol=ATOL,
                       t_eval=t_eval)
    z = expm_solution(M, K, R, F, np.concatenate([p0, q0]), traj.t)
    # measured <= 9e-11 (0.9 rtol); bound 100 rtol
    assert_allclose(traj.state("m.p"), z[:, :3], rtol=0, atol=1e-8)
    assert_allclose(traj.state("k.q"), z[:, 3:], rtol=0, atol=1e-8)
    budget = traj.power_budget()
    assert budget.relative_residual < 1e-8, budget.table()


def test_diagonal_multibond_equals_three_scalar_copies():
    m, k, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 1.0, 9.0]), np.array([0.1, 0.5, 0.0])
    F = np.array([1.0, -2.0, 0.5])
    q0, p0 = np.array([0.1, -0.2, 0.3]), np.array([0.0, 0.4, -0.1])
    t_eval = np.linspace(0.0, 6.0, 61)
    system = ph.compile(msd3(np.diag(m), np.diag(k), np.diag(b), F))
    traj = ph.simulate(system, (0.0, 6.0), system.initial_state({"k.q": q0, "m.p": p0}), rtol=RTOL, atol=ATOL,
                       t_eval=t_eval)
    budget = traj.power_budget()
    H = np.zeros_like(traj.t)
    dissipated = np.zeros_like(traj.t)
    for i in range(3):
        s = ph.compile(msd_graph(m[i], k[i], b[i], F[i], name=f"copy{i}"))
        ti = ph.simulate(s, (0.0, 6.0), s.initial_state({"k.q": q0[i], "m.p": p0[i]}), rtol=RTOL, atol=ATOL,
                         t_eval=t_eval)
        # different step sequences: the two agree to the integration error (measured <= 1e-10; bound 10 rtol)
        assert_allclose(traj.state("m.p")[:, i], ti.state("m.p"), rtol=0, atol=1e-9)
        assert_allclose(traj.state("k.q")[:, i], ti.state("k.q"), rtol=0, atol=1e-9)
        H += ti.hamiltonian
        dissipated += ti.power_budget().dissipated
    assert_allclose(traj.hamiltonian, H, rtol=0, atol=1e-9)
    assert_allclose(budget.dissipated, dissipated, rtol=0, atol=1e-9)


def test_multibond_structure_matrices(rng):
    M = random_spd(rng, 3, 0.5, 3.0)
    K = random_spd(rng, 3, 1.0, 10.0)
    R = random_spd(rng, 3, 0.1, 0.8)
    system = ph.compile(msd3(M, K, R, [1.0, 0.0, 0.0]))
    x = system.initial_state({"k.q": rng.standard_normal(3), "m.p": rng.standard_normal(3)})
    a = system.analysis(0.0, x)
    Z, I3 = np.zeros((3, 3)), np.eye(3)
    assert_allclose(a.J, np.block([[Z, -I3], [I3, Z]]), rtol=0, atol=1e-14)
    assert_allclose(a.R, np.block([[R, Z], [Z, Z]]), rtol=1e-14, atol=1e-14)
    assert_allclose(a.grad_H, np.concatenate([np.linalg.solve(M, x[:3]), K @ x[3:6]]), rtol=1e-13, atol=1e-14)
    # bit-exact on every CPU: an input matrix of zeros and ones
    assert_allclose(a.B, np.vstack([I3, Z]), rtol=0, atol=0)
