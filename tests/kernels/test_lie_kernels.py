"""Tests of porthamiltonian.kernels.lie against independent references.

References: scipy's Rotation (rotation matrices), numpy's cross product and matrix inverse,
the defining identities hat(Ad(H) T) = H hat(T) inv(H) and dq/dt = 0.5 q ⊗ (0, omega) with a
Hamilton product written out here, and central differences of the pose along
H(t) = H0 expm(t hat(T)).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from porthamiltonian.kernels import lie

from .reference import (
    hamilton,
    hat4,
    pose_along_twist,
    pose_matrix,
    random_motion,
    random_pose,
    random_quaternion,
)

# Agreement to rounding: O(1) entries after a few dozen flops, 20 ulps of 1.
ROUND = 20 * np.finfo(float).eps
# Central differences with h = 1e-6: truncation h^2 |x'''|/6 ~ 1e-12, rounding eps |x|/h with
# |x| up to ~5 ~ 1e-9; 1e-8 leaves a margin of 10.
FD_STEP = 1e-6
FD_ATOL = 1e-8

SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross3_is_the_cross_product(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=3), rng.normal(size=3)
    assert_allclose(lie.cross3(a, b), np.cross(a, b), rtol=0, atol=ROUND)


@pytest.mark.parametrize("seed", SEEDS)
def test_quat_to_rotation_normalizes_and_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    q = random_quaternion(rng)
    R = lie.quat_to_rotation(q)
    assert_allclose(R, Rotation.from_quat(q, scalar_first=True).as_matrix(), rtol=0, atol=ROUND)
    assert_allclose(R.T @ R, np.eye(3), rtol=0, atol=ROUND)


def test_quat_to_rotation_into_writes_a_strided_view():
    q = np.array([0.0, 0.0, 0.0, 2.0])  # half turn about z, |q| = 2
    H = np.full((4, 4), 7.0)
    lie.quat_to_rotation_into(q, H[:3, :3])
    # bit-exact on every CPU: a rotation by pi about z built from exact entries
    assert_allclose(H[:3, :3], np.diag([-1.0, -1.0, 1.0]), rtol=0, atol=0)
    assert_allclose(H[3], 7.0, rtol=0, atol=0)
    assert_allclose(H[:, 3], 7.0, rtol=0, atol=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_pose_to_matrix_is_rotation_and_translation(seed):
    rng = np.random.default_rng(seed)
    x = random_pose(rng)
    H = lie.pose_to_matrix(x)
    expected = np.eye(4)
    expected[:3, :3] = Rotation.from_quat(x[:4], scalar_first=True).as_matrix()
    expected[:3, 3] = x[4:]
    assert_allclose(H, expected, rtol=0, atol=ROUND)


@pytest.mark.parametrize("seed", SEEDS)
def test_se3_inverse_is_the_matrix_inverse(seed):
    H = random_motion(np.random.default_rng(seed))
    assert_allclose(lie.se3_inverse(H), np.linalg.inv(H), rtol=0, atol=4 * ROUND)


@pytest.mark.parametrize("seed", SEEDS)
def test_adjoint_conjugates_twists(seed):
    rng = np.random.default_rng(seed)
    H = random_motion(rng)
    T = rng.normal(size=6)
    assert_allclose(hat4(lie.adjoint(H) @ T), H @ hat4(T) @ np.linalg.inv(H),
                    rtol=0, atol=10 * ROUND)


@pytest.mark.parametrize("seed", SEEDS)
def test_quat_rate_matrix_is_half_the_product_with_omega(seed):
    rng = np.random.default_rng(seed)
    q, omega = random_quaternion(rng), rng.normal(size=3)
    assert_allclose(lie.quat_rate_matrix(q) @ omega, 0.5 * hamilton(q, np.r_[0.0, omega]),
                    rtol=0, atol=4 * ROUND)


@pytest.mark.parametrize("seed", SEEDS)
def test_pose_rate_is_the_derivative_along_the_twist(seed):
    rng = np.random.default_rng(seed)
    x, T = random_pose(rng), rng.normal(size=6)
    fd = (pose_along_twist(x, T, FD_STEP) - pose_along_twist(x, T, -FD_STEP)) / (2 * FD_STEP)
    assert_allclose(lie.pose_rate(x, T), fd, rtol=0, atol=FD_ATOL)
    out = np.empty(7)
    lie.pose_rate_into(x, T, out)
    # bit-identical on purpose: pose_rate allocates and calls the same arithmetic as pose_rate_into
    assert_allclose(out, lie.pose_rate(x, T), rtol=0, atol=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_pose_rate_map_is_the_pose_rate_at_the_normalized_quaternion(seed):
    rng = np.random.default_rng(seed)
    x, T = random_pose(rng), rng.normal(size=6)
    unit = np.r_[x[:4] / np.linalg.norm(x[:4]), x[4:]]
    assert_allclose(lie.pose_rate_map(x) @ T, lie.pose_rate(unit, T), rtol=0, atol=10 * ROUND)


def potential(x, a, b, c):
    """A pose energy with rotational and translational parts: a . (R c) + b . p."""
    H = pose_matrix(x)
    return a @ (H[:3, :3] @ c) + b @ H[:3, 3]


@pytest.mark.parametrize("seed", SEEDS)
def test_pose_gradient_pulls_back_to_the_twist_derivative_and_is_orthogonal_to_q(seed):
    rng = np.random.default_rng(seed)
    x, T = random_pose(rng), rng.normal(size=6)
    x[:4] /= np.linalg.norm(x[:4])
    a, b, c = rng.normal(size=(3, 3))
    # dV/dT_B in closed form: V(H exp(hat(T) t)) = a . R (c + t omega x c) + b . (p + t R v)
    R = pose_matrix(x)[:3, :3]
    dV_dT = np.r_[np.cross(c, R.T @ a), R.T @ b]
    grad = lie.pose_gradient(x, dV_dT)
    assert_allclose(lie.pose_rate_map(x).T @ grad, dV_dT, rtol=0, atol=20 * ROUND)
    assert_allclose(grad[:4] @ x[:4], 0.0, rtol=0, atol=20 * ROUND)
    V = [potential(pose_along_twist(x, T, s * FD_STEP), a, b, c) for s in (1, -1)]
    assert_allclose(grad @ lie.pose_rate(x, T), (V[0] - V[1]) / (2 * FD_STEP), rtol=0, atol=FD_ATOL)


@pytest.mark.parametrize("shape", [(3, 3), (4, 4), (6, 6), (2, 5)])
def test_small_products_equal_numpy_matmul(shape):
    """`mv`, `mtv`, `mm` (written out to avoid numba's BLAS call) against numpy's @, on C- and
    F-ordered operands (the kernels pass transposes and slices)."""
    rng = np.random.default_rng(11)
    A = rng.normal(size=shape)
    v = rng.normal(size=shape[1])
    w = rng.normal(size=shape[0])
    B = rng.normal(size=(shape[1], 3))
    for M in (A, np.asfortranarray(A)):
        assert_allclose(lie.mv(M, v), A @ v, rtol=0, atol=ROUND * np.abs(A).sum())
        assert_allclose(lie.mtv(M, w), A.T @ w, rtol=0, atol=ROUND * np.abs(A).sum())
        assert_allclose(lie.mm(M, B), A @ B, rtol=0, atol=ROUND * np.abs(A).sum() * np.abs(B).max())
    assert_allclose(lie.mtv(A.T, v), A @ v, rtol=0, atol=ROUND * np.abs(A).sum())



def _signed_zero_motions():
    """Axis-aligned rigid motions with exact zeros of both signs among their entries."""
    A = np.array([[0.0, -1.0, -0.0, 1.0], [1.0, 0.0, -0.0, -0.0], [-0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 0.0, 1.0]])
    B = np.array([[-1.0, -0.0, 0.0, -0.0], [0.0, -1.0, -0.0, 0.0], [-0.0, 0.0, 1.0, -3.0], [0.0, 0.0, 0.0, 1.0]])
    return A, B


@pytest.mark.parametrize("seed", [*SEEDS, "signed zeros"])
def test_rigid_mm_into_has_the_bits_of_mm(seed):
    """`rigid_mm_into` skips the products with the bottom row: its result must be `mm`'s to the
    last bit, the sign of zero included (a -0.0 would flip atan2 in a chart map)."""
    if seed == "signed zeros":
        A, B = _signed_zero_motions()
    else:
        rng = np.random.default_rng(seed)
        A, B = random_motion(rng), random_motion(rng)
    out = np.full((4, 4), np.nan)
    lie.rigid_mm_into(A, B, out)
    ref = lie.mm(A, B)
    # bit-identical on purpose: the same IEEE operations in the same order (numba compiles without fastmath, so no FMA contraction); the skipped ones are products with exact zeros and ones
    assert np.array_equal(out, ref) and np.array_equal(np.signbit(out), np.signbit(ref))
    assert_allclose(out, A @ B, rtol=0, atol=ROUND * 10)


@pytest.mark.parametrize("n", [1, 3, 6, 13])
def test_dot_is_numpys(n):
    rng = np.random.default_rng(n)
    a, b = rng.normal(size=n), rng.normal(size=n)
    assert_allclose(lie.dot(a, b), a @ b, rtol=0, atol=ROUND * n)
