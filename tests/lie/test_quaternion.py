"""Tests of porthamiltonian.lie.quaternion against scipy, so3/se3 and finite differences."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from porthamiltonian.errors import ParameterError
from porthamiltonian.lie import quaternion as quat
from porthamiltonian.lie import se3, so3

from .reference import hat4
from .samples import PI, rotvec_cases

# Central differences with h = 1e-6: truncation h^2 |f'''|/6 ~ 1e-12, rounding eps |f|/h with
# |f| up to ~5 ~ 1e-9; 1e-8 leaves a margin of 10.
FD_STEP = 1e-6
FD_ATOL = 1e-8
# Agreement to rounding: O(1) entries after a few dozen flops, 20 ulps of 1.
ROUND = 20 * np.finfo(float).eps

quaternions = (
    st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=4, max_size=4)
    .map(np.array)
    .filter(lambda q: np.linalg.norm(q) > 1e-3)
)

# Hamilton's rules i^2 = j^2 = k^2 = ijk = -1 as a table of unit products (sign, index),
# an independent reference for `multiply`.
_TABLE = {
    (0, 0): (1, 0), (0, 1): (1, 1), (0, 2): (1, 2), (0, 3): (1, 3),
    (1, 0): (1, 1), (1, 1): (-1, 0), (1, 2): (1, 3), (1, 3): (-1, 2),
    (2, 0): (1, 2), (2, 1): (-1, 3), (2, 2): (-1, 0), (2, 3): (1, 1),
    (3, 0): (1, 3), (3, 1): (1, 2), (3, 2): (-1, 1), (3, 3): (-1, 0),
}


def hamilton_by_table(p, q):
    out = np.zeros(4)
    for (a, b), (sign, c) in _TABLE.items():
        out[c] += sign * p[a] * q[b]
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(17)


def scipy_quat(q):
    return Rotation.from_quat(q, scalar_first=True)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(quaternions, quaternions)
def test_multiply_follows_hamiltons_rules_and_composes_rotations(p, q):
    assert_allclose(quat.multiply(p, q), hamilton_by_table(p, q), rtol=0, atol=ROUND)
    R = quat.to_matrix(quat.multiply(p, q))
    assert_allclose(R, quat.to_matrix(p) @ quat.to_matrix(q), rtol=0, atol=ROUND)
    assert_allclose(R, (scipy_quat(p) * scipy_quat(q)).as_matrix(), rtol=0, atol=ROUND)


def test_conjugate_normalize(rng):
    for _ in range(10):
        q = rng.normal(size=4)
        n2 = q @ q
        assert_allclose(quat.multiply(q, quat.conjugate(q)), [n2, 0, 0, 0], rtol=0, atol=ROUND * n2)
        u = quat.normalize(q)
        assert_allclose(u, q / np.linalg.norm(q), rtol=0, atol=ROUND)
        assert_allclose(quat.to_matrix(q), quat.to_matrix(u), rtol=0, atol=ROUND)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(quaternions)
def test_to_matrix_matches_scipy_for_any_norm(q):
    assert_allclose(quat.to_matrix(q), scipy_quat(q).as_matrix(), rtol=0, atol=ROUND)


@pytest.mark.parametrize("phi", rotvec_cases())
def test_from_matrix_round_trip(phi):
    R = so3.exp(phi)
    q = quat.from_matrix(R)
    assert q[0] >= 0.0
    assert_allclose(np.linalg.norm(q), 1.0, rtol=0, atol=ROUND)
    assert_allclose(quat.to_matrix(q), R, rtol=0, atol=ROUND)
    ref = Rotation.from_matrix(R).as_quat(canonical=True, scalar_first=True)
    if abs(q[0]) < 1e-12:
        # At angle pi, w = 0 and q, -q both have w >= 0.
        assert min(np.max(np.abs(q - ref)), np.max(np.abs(q + ref))) < ROUND
    else:
        assert_allclose(q, ref, rtol=0, atol=ROUND)


def test_from_matrix_of_to_matrix_on_random_quaternions(rng):
    for _ in range(200):
        q = quat.normalize(rng.normal(size=4))
        out = quat.from_matrix(quat.to_matrix(q))
        assert_allclose(out, np.sign(q[0]) * q, rtol=0, atol=ROUND)


@pytest.mark.parametrize("phi", rotvec_cases())
def test_rotvec_conversions(phi):
    q = quat.from_rotvec(phi)
    assert_allclose(q, Rotation.from_rotvec(phi).as_quat(scalar_first=True), rtol=0, atol=ROUND)
    assert_allclose(quat.to_matrix(q), so3.exp(phi), rtol=0, atol=ROUND)
    out = quat.to_rotvec(q)
    assert np.linalg.norm(out) <= PI + 1e-15
    if abs(np.linalg.norm(phi) - PI) < 1e-12:
        assert min(np.max(np.abs(out - phi)), np.max(np.abs(out + phi))) < ROUND
    else:
        assert_allclose(out, phi, rtol=0, atol=ROUND)
        assert_allclose(quat.to_rotvec(-3.0 * q), phi, rtol=0, atol=ROUND)
        assert_allclose(out, so3.log(so3.exp(phi)), rtol=0, atol=ROUND)


def test_rate_against_finite_differences(rng):
    for _ in range(10):
        q = quat.normalize(rng.normal(size=4))
        w = rng.normal(size=3)
        # q(t) = q ⊗ exp(t w/2): the quaternion of R(t) = R exp(t hat(w)), body rate w.
        qp = quat.multiply(q, quat.from_rotvec(FD_STEP * w))
        qm = quat.multiply(q, quat.from_rotvec(-FD_STEP * w))
        dq = (qp - qm) / (2 * FD_STEP)
        assert_allclose(quat.rate(q, w), dq, rtol=0, atol=FD_ATOL)
        assert_allclose(quat.rate_matrix(q) @ w, quat.rate(q, w), rtol=0, atol=ROUND)
        assert_allclose(quat.rate(q, w) @ q, 0.0, rtol=0, atol=ROUND)
        G = quat.rate_matrix(q)
        assert_allclose(4.0 * G.T @ G, np.eye(3), rtol=0, atol=ROUND)


@pytest.mark.parametrize("phi", rotvec_cases(n_random=6))
def test_pose_rate_against_finite_differences(phi, rng):
    H = se3.make(so3.exp(phi), 2.0 * rng.normal(size=3))
    x0 = quat.matrix_to_pose(H)
    for _ in range(3):
        T = rng.normal(size=6)
        # Pose along H exp(t hat(T)) (scipy expm, independent of se3.exp); the sign of q is
        # matched to x0 because matrix_to_pose may flip it when qw crosses 0.
        xs = []
        for h in (FD_STEP, -FD_STEP):
            x = quat.matrix_to_pose(H @ scipy.linalg.expm(h * hat4(T)))
            if x[:4] @ x0[:4] < 0:
                x[:4] = -x[:4]
            xs.append(x)
        dx = (xs[0] - xs[1]) / (2 * FD_STEP)
        assert_allclose(quat.pose_rate(x0, T), dx, rtol=0, atol=FD_ATOL)


def test_pose_rate_with_non_unit_quaternion(rng):
    x = quat.matrix_to_pose(se3.exp(rng.normal(size=6)))
    T = rng.normal(size=6)
    y = x.copy()
    y[:4] *= 2.0
    ref = quat.pose_rate(x, T)
    out = quat.pose_rate(y, T)
    assert_allclose(out[:4], 2.0 * ref[:4], rtol=0, atol=ROUND)
    assert_allclose(out[4:], ref[4:], rtol=0, atol=ROUND)


def test_pose_matrix_round_trip(rng):
    for _ in range(20):
        H = se3.exp(rng.normal(size=6))
        x = quat.matrix_to_pose(H)
        assert_allclose(quat.pose_to_matrix(x), H, rtol=0, atol=ROUND)
        y = x.copy()
        y[:4] *= 0.7
        assert_allclose(quat.pose_to_matrix(y), H, rtol=0, atol=ROUND)


def test_as_pose_normalizes():
    out = quat.as_pose([1.0 + 1e-8, 0, 0, 0, 1, 2, 3], "x_WB")
    # bit-exact on every CPU: an identity pose is copied through
    assert_allclose(out, [1, 0, 0, 0, 1, 2, 3], rtol=0, atol=0)


@pytest.mark.parametrize(
    "value, match",
    [
        pytest.param(np.zeros(6), r"`x_WB` must have shape \(7,\), got \(6,\)", id="shape"),
        pytest.param([np.nan] * 7, r"`x_WB` must be finite", id="nan"),
        pytest.param(["q"] * 7, r"`x_WB` must be numeric", id="not numeric"),
        pytest.param(
            [0.0] * 7,
            r"`x_WB` must have a unit quaternion x\[:4\] \(to 1e-06\), got norm 0",
            id="zero q",
        ),
        pytest.param([1.1, 0, 0, 0, 0, 0, 0], r"got norm 1.1", id="not unit"),
    ],
)
def test_as_pose_errors(value, match):
    with pytest.raises(ParameterError, match=match):
        quat.as_pose(value, "x_WB")
