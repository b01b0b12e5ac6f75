"""Tests of porthamiltonian.kernels.bodies against independent references.

References: the Euler-Poincare equations written out with numpy (the formulas the kernels
replaced), conservation of energy and spatial momentum in free flight, central differences of
the energies along the exponential of twists (efforts are exact gradients), closed forms of
gravity and of the distance between two points.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from porthamiltonian.kernels import bodies
from porthamiltonian.kernels import lie

from .reference import adjoint, hamilton, hat3, pose_along_twist, pose_matrix, random_motion, random_pose

ROUND = 20 * np.finfo(float).eps
# Central differences with h = 1e-6 of energies of size ~10: truncation h^2 |V'''|/6 ~ 1e-11,
# rounding eps |V|/h ~ 2e-9; 2e-8 leaves a margin of 10.
FD_STEP = 1e-6
FD_ATOL = 2e-8
SEEDS = range(6)


def random_inertia(rng):
    """Spatial inertia of a random body (mass, rotated principal moments, offset com)."""
    m = rng.uniform(0.5, 3.0)
    Q = Rotation.random(random_state=rng).as_matrix()
    I_c = Q @ np.diag(rng.uniform(1.0, 2.0, size=3)) @ Q.T
    c = hat3(rng.normal(scale=0.3, size=3))
    return np.block([[I_c + m * c.T @ c, m * c], [-m * c, m * np.eye(3)]]), m


def random_body(rng, n_frames=3):
    """(F, M, Ad_FB list, state x with unit quaternion) of a random body with frames."""
    M, _ = random_inertia(rng)
    Ads = [np.eye(6)] + [adjoint(np.linalg.inv(random_motion(rng))) for _ in range(n_frames - 1)]
    F = bodies.pack_rigid_body(np.linalg.inv(M), Ads)
    x = random_pose(rng)
    x[:4] /= np.linalg.norm(x[:4])
    return F, M, Ads, np.r_[x, rng.normal(size=6)]


def rates_reference(M, Ads, x, Ws):
    """Euler-Poincare equations with numpy: pose rate and dP = ad(T)^T P + sum Ad^T W."""
    P = x[7:]
    T = np.linalg.solve(M, P)
    w, v, L, p = T[:3], T[3:], P[:3], P[3:]
    dP = np.r_[np.cross(L, w) + np.cross(p, v), np.cross(p, w)]
    for Ad, W in zip(Ads, Ws):
        dP += Ad.T @ W
    q = x[:4]
    dq = 0.5 * hamilton(q, np.r_[0.0, w])
    dp = pose_matrix(x[:7])[:3, :3] @ v
    return np.r_[dq, dp, dP]


@pytest.mark.parametrize("seed", SEEDS)
def test_body_rates_are_the_euler_poincare_equations(seed):
    rng = np.random.default_rng(seed)
    F, M, Ads, x = random_body(rng)
    W = rng.normal(size=6 * len(Ads))
    expected = rates_reference(M, Ads, x, W.reshape(-1, 6))
    assert_allclose(bodies.body_rates(F, x, W), expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("seed", SEEDS)
def test_body_energy_outputs_and_gradient(seed):
    rng = np.random.default_rng(seed)
    F, M, Ads, x = random_body(rng)
    T = np.linalg.solve(M, x[7:])
    assert_allclose(bodies.body_energy(F, x), 0.5 * T @ M @ T, rtol=1e-14, atol=0)
    assert_allclose(bodies.body_outputs(F, x), np.concatenate([A @ T for A in Ads]), rtol=1e-13, atol=1e-13)
    assert_allclose(bodies.body_gradient(F, x), np.r_[np.zeros(7), T], rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("seed", SEEDS)
def test_free_flight_conserves_energy_and_spatial_momentum(seed):
    rng = np.random.default_rng(seed)
    F, M, Ads, x = random_body(rng)
    xdot = bodies.body_rates(F, x, np.zeros(6 * len(Ads)))
    # dE/dt = grad E . xdot exactly (E depends on P only)
    assert_allclose(bodies.body_gradient(F, x) @ xdot, 0.0, rtol=0, atol=1e-13)

    def spatial_momentum(y):
        """Ad(H_WB)^-T P: momentum about the world origin, in world coordinates."""
        return np.linalg.inv(adjoint(pose_matrix(y[:7]))).T @ y[7:]

    h = FD_STEP
    dh = (spatial_momentum(x + h * xdot) - spatial_momentum(x - h * xdot)) / (2 * h)
    assert_allclose(dh, 0.0, rtol=0, atol=FD_ATOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_body_structure_is_skew_and_gives_the_free_rates(seed):
    rng = np.random.default_rng(seed)
    F, M, Ads, x = random_body(rng)
    J = bodies.body_structure(x)
    # bit-exact on every CPU: J is assembled from K and -K and hat matrices (sign changes only)
    assert_allclose(J, -J.T, rtol=0, atol=0)
    free = bodies.body_rates(F, x, np.zeros(6 * len(Ads)))
    assert_allclose(J @ bodies.body_gradient(F, x), free, rtol=1e-13, atol=1e-13)


def gravity_setup(rng):
    m = rng.uniform(0.5, 3.0)
    g, com = rng.normal(size=3), rng.normal(size=3)
    H_BF = random_motion(rng)
    Ad_FB, Ad_BF = adjoint(np.linalg.inv(H_BF)), adjoint(H_BF)
    x = random_pose(rng)
    x[:4] /= np.linalg.norm(x[:4])
    return bodies.pack_gravity(m, g, com, Ad_FB, Ad_BF), m, g, com, Ad_BF, x


@pytest.mark.parametrize("seed", SEEDS)
def test_gravity_energy_is_the_height_of_the_centre_of_mass(seed):
    F, m, g, com, _, x = gravity_setup(np.random.default_rng(seed))
    H = pose_matrix(x)
    assert_allclose(bodies.gravity_energy(F, x), -m * g @ (H[:3, :3] @ com + H[:3, 3]), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("seed", SEEDS)
def test_gravity_effort_and_gradient_are_derivatives_of_the_energy(seed):
    rng = np.random.default_rng(seed)
    F, m, g, com, Ad_BF, x = gravity_setup(rng)
    T_F = rng.normal(size=6)
    T_B = Ad_BF @ T_F  # the body twist seen at the port frame F is T_F
    V = [bodies.gravity_energy(F, pose_along_twist(x, T_B, s * FD_STEP)) for s in (1, -1)]
    dV = (V[0] - V[1]) / (2 * FD_STEP)
    assert_allclose(bodies.gravity_effort(F, x) @ T_F, dV, rtol=0, atol=FD_ATOL)
    assert_allclose(bodies.gravity_gradient(F, x) @ lie.pose_rate(x, T_B), dV, rtol=0, atol=FD_ATOL)


def point_pair(rng, coefficient, ground_a=False):
    """Packed pair and the poses the kernel reads; frame a optionally on the ground."""
    H_a, H_b = random_motion(rng), random_motion(rng)
    r_a, r_b = rng.normal(size=3), rng.normal(size=3)
    F = bodies.pack_point_pair(H_a, H_b, r_a, r_b, coefficient)
    x_a = bodies.IDENTITY_POSE if ground_a else random_pose(rng)
    return F, H_a, H_b, r_a, r_b, x_a, random_pose(rng)


def moved(x, H_BF, T_F, t):
    """Body pose after moving frame F with twist T_F for time t."""
    return pose_along_twist(x, adjoint(H_BF) @ T_F, t)


@pytest.mark.parametrize("ground_a", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_point_line_is_the_distance_and_its_rate(seed, ground_a):
    rng = np.random.default_rng(seed)
    F, H_a, H_b, r_a, r_b, x_a, x_b = point_pair(rng, 1.0, ground_a)

    def length(xa, xb):
        pa = pose_matrix(xa) @ H_a @ np.r_[r_a, 1.0]
        pb = pose_matrix(xb) @ H_b @ np.r_[r_b, 1.0]
        return np.linalg.norm(pb[:3] - pa[:3])

    L, g = bodies.point_line(F, x_a, x_b)
    assert_allclose(L, length(x_a, x_b), rtol=1e-14, atol=0)
    T_a = np.zeros(6) if ground_a else rng.normal(size=6)
    T_b = rng.normal(size=6)
    Ls = [length(x_a if ground_a else moved(x_a, H_a, T_a, s * FD_STEP), moved(x_b, H_b, T_b, s * FD_STEP))
          for s in (1, -1)]
    assert_allclose(g @ np.r_[T_a, T_b], (Ls[0] - Ls[1]) / (2 * FD_STEP), rtol=0, atol=FD_ATOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_point_spring_effort_is_the_gradient_of_its_energy(seed):
    rng = np.random.default_rng(seed)
    k, L0 = 7.0, 0.4
    F, H_a, H_b, r_a, r_b, x_a, x_b = point_pair(rng, k)
    T = rng.normal(size=12)

    def energy(t):
        L, _ = bodies.point_line(F, moved(x_a, H_a, T[:6], t), moved(x_b, H_b, T[6:], t))
        return 0.5 * k * (L - L0) ** 2

    L, e = bodies.point_spring_efforts(F, x_a, x_b, L0)
    # bit-identical on purpose: point_spring_efforts calls point_line
    assert_allclose(L, bodies.point_line(F, x_a, x_b)[0], rtol=0, atol=0)
    assert_allclose(e @ T, (energy(FD_STEP) - energy(-FD_STEP)) / (2 * FD_STEP), rtol=0, atol=FD_ATOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_point_damper_force_is_along_the_line_and_dissipates(seed):
    rng = np.random.default_rng(seed)
    c = 3.0
    F, *_, x_a, x_b = point_pair(rng, c)
    T_a, T_b = rng.normal(size=6), rng.normal(size=6)
    L, g = bodies.point_line(F, x_a, x_b)
    Ldot = g @ np.r_[T_a, T_b]
    L_d, e = bodies.point_damper_efforts(F, x_a, x_b, T_a, T_b)
    assert L_d == L
    assert_allclose(e, c * Ldot * g, rtol=1e-14, atol=1e-14)
    assert_allclose(e @ np.r_[T_a, T_b], c * Ldot**2, rtol=1e-13, atol=0)
