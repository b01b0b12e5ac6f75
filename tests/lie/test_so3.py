"""Tests of porthamiltonian.lie.so3 against scipy, mpmath series and finite differences."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from porthamiltonian.lie import so3

from .reference import dexp_inverse_series, dexp_series, hat3
from .samples import PI, rotvec_cases

# Central differences with h = 1e-6: truncation h^2 |f'''|/6 ~ 1e-13, rounding eps/h ~ 1e-10;
# 1e-8 leaves a margin of 100 over the rounding term.
FD_STEP = 1e-6
FD_ATOL = 1e-8
# Agreement to rounding: entries are O(1) and each side takes a few dozen flops, so allow
# 20 ulps of 1.
ROUND = 20 * np.finfo(float).eps

vectors3 = st.lists(st.floats(-4.0, 4.0, allow_nan=False), min_size=3, max_size=3).map(np.array)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def test_hat_is_cross_product(rng):
    for _ in range(20):
        w, x = rng.normal(size=3), rng.normal(size=3)
        assert_allclose(so3.hat(w) @ x, np.cross(w, x), rtol=0, atol=ROUND)
        # bit-exact on every CPU: data movement and sign changes only, no rounding
        assert_allclose(so3.hat(w), -so3.hat(w).T, rtol=0, atol=0)
        assert_allclose(so3.vee(so3.hat(w)), w, rtol=0, atol=0)


@pytest.mark.parametrize("phi", rotvec_cases())
def test_exp_matches_scipy_and_expm(phi):
    R = so3.exp(phi)
    assert_allclose(R, Rotation.from_rotvec(phi).as_matrix(), rtol=0, atol=ROUND)
    assert_allclose(R, scipy.linalg.expm(hat3(phi)), rtol=0, atol=ROUND)
    assert_allclose(R.T @ R, np.eye(3), rtol=0, atol=ROUND)
    assert np.linalg.det(R) > 0


@pytest.mark.parametrize("phi", rotvec_cases(include_pi=False))
def test_log_inverts_exp_below_pi(phi):
    # log is well conditioned up to pi (its derivative J_r^-1 is bounded by ~pi/2 there),
    # so the recovered vector is exact to a few ulps; a wrong sign near pi would be off by ~2 pi.
    assert_allclose(so3.log(so3.exp(phi)), phi, rtol=0, atol=ROUND)


@pytest.mark.parametrize("phi", rotvec_cases())
def test_log_matches_scipy_and_has_angle_at_most_pi(phi):
    R = so3.exp(phi)
    out = so3.log(R)
    ref = Rotation.from_matrix(R).as_rotvec()
    assert np.linalg.norm(out) <= PI + 1e-15
    if abs(np.linalg.norm(phi) - PI) < 1e-12:
        # At exactly pi, +pi n and -pi n are the same rotation: either is right.
        assert min(np.max(np.abs(out - ref)), np.max(np.abs(out + ref))) < ROUND
    else:
        assert_allclose(out, ref, rtol=0, atol=ROUND)
    assert_allclose(so3.exp(out), R, rtol=0, atol=ROUND)


@pytest.mark.parametrize("axis", range(3))
def test_log_at_pi_of_exact_half_turn_matrices(axis):
    R = -np.eye(3)
    R[axis, axis] = 1.0
    phi = so3.log(R)
    # log's angle comes from an arccos/atan2: pi to round-off
    assert_allclose(np.abs(phi), PI * np.eye(3)[axis], rtol=0, atol=ROUND)
    assert_allclose(so3.exp(phi), R, rtol=0, atol=ROUND)


def test_exp_of_log_on_random_rotations():
    Rs = Rotation.random(200, random_state=11).as_matrix()
    for R in Rs:
        assert_allclose(so3.exp(so3.log(R)), R, rtol=0, atol=ROUND)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(vectors3)
def test_log_exp_property(phi):
    # Angles beyond pi come back as the equivalent vector of angle 2 pi - theta.
    out = so3.log(so3.exp(phi))
    assert np.linalg.norm(out) <= PI + 1e-12
    assert_allclose(so3.exp(out), so3.exp(phi), rtol=0, atol=ROUND)


BEYOND_PI = pytest.param(np.array([4.0, -3.0, 2.0]), id="theta=5.4")


@pytest.mark.parametrize("phi", rotvec_cases() + [BEYOND_PI])
def test_jacobians_match_series(phi):
    # Both sides are accurate to rounding: the 40-digit series is the reference for the
    # closed forms and for the small-angle Taylor branches.
    assert_allclose(so3.left_jacobian(phi), dexp_series(hat3(phi)), rtol=0, atol=ROUND)
    assert_allclose(so3.right_jacobian(phi), dexp_series(hat3(phi), -1), rtol=0, atol=ROUND)
    Jli, Jri = so3.left_jacobian_inverse(phi), so3.right_jacobian_inverse(phi)
    assert_allclose(Jli, dexp_inverse_series(hat3(phi)), rtol=0, atol=ROUND)
    assert_allclose(Jri, dexp_inverse_series(hat3(phi), -1), rtol=0, atol=ROUND)


@pytest.mark.parametrize("phi", rotvec_cases())
def test_jacobian_identities(phi):
    Jl, Jr = so3.left_jacobian(phi), so3.right_jacobian(phi)
    # bit-exact on every CPU: J_r and J_l(-phi) and J_l^T are one scalar formula with the hat term's sign flipped
    assert_allclose(Jr, Jl.T, rtol=0, atol=0)
    assert_allclose(Jr, so3.left_jacobian(-phi), rtol=0, atol=0)
    assert_allclose(Jl, so3.exp(phi) @ Jr, rtol=0, atol=ROUND)
    assert_allclose(so3.left_jacobian_inverse(phi) @ Jl, np.eye(3), rtol=0, atol=ROUND)
    assert_allclose(so3.right_jacobian_inverse(phi) @ Jr, np.eye(3), rtol=0, atol=ROUND)


@pytest.mark.parametrize("phi", rotvec_cases(n_random=6))
def test_jacobians_against_finite_differences(phi, rng):
    R0 = Rotation.random(random_state=3).as_matrix()
    for _ in range(3):
        d = rng.normal(size=3)
        Rp, Rm = so3.exp(phi + FD_STEP * d), so3.exp(phi - FD_STEP * d)
        R = so3.exp(phi)
        # R(t) = R0 exp(phi + t d): body rate vee(R^T dR/dt) = J_r d.
        dR = R0 @ (Rp - Rm) / (2 * FD_STEP)
        assert_allclose(so3.vee((R0 @ R).T @ dR), so3.right_jacobian(phi) @ d, rtol=0, atol=FD_ATOL)
        # R(t) = exp(phi + t d) R0: spatial rate vee(dR/dt R^T) = J_l d.
        dR = (Rp - Rm) @ R0 / (2 * FD_STEP)
        assert_allclose(so3.vee(dR @ (R @ R0).T), so3.left_jacobian(phi) @ d, rtol=0, atol=FD_ATOL)


# log jumps at angle pi, so FD steps must not cross it: keep angles <= pi - 1e-3.
@pytest.mark.parametrize(
    "phi",
    [
        p
        for p in rotvec_cases(include_pi=False, n_random=6)
        if np.linalg.norm(p.values[0]) <= PI - 1e-3
    ],
)
def test_jacobian_inverses_against_finite_differences_of_log(phi, rng):
    # d/dt log(R exp(t w)) = J_r^-1(log R) w and d/dt log(exp(t w) R) = J_l^-1(log R) w.
    R = so3.exp(phi)
    for _ in range(3):
        w = rng.normal(size=3)
        Ep, Em = so3.exp(FD_STEP * w), so3.exp(-FD_STEP * w)
        d_body = (so3.log(R @ Ep) - so3.log(R @ Em)) / (2 * FD_STEP)
        d_space = (so3.log(Ep @ R) - so3.log(Em @ R)) / (2 * FD_STEP)
        assert_allclose(d_body, so3.right_jacobian_inverse(phi) @ w, rtol=0, atol=FD_ATOL)
        assert_allclose(d_space, so3.left_jacobian_inverse(phi) @ w, rtol=0, atol=FD_ATOL)


@pytest.mark.parametrize(
    "R, expected",
    [
        pytest.param(np.eye(3), True, id="identity"),
        pytest.param(Rotation.from_rotvec([0.3, -1, 2]).as_matrix(), True, id="rotation"),
        pytest.param(np.diag([1.0, 1.0, -1.0]), False, id="reflection"),
        pytest.param(np.eye(3) * (1 + 1e-6), False, id="scaled"),
        pytest.param(np.eye(4), False, id="shape"),
        pytest.param(np.full((3, 3), np.nan), False, id="nan"),
        pytest.param([["a", "b", "c"]] * 3, False, id="not numeric"),
    ],
)
def test_is_rotation(R, expected):
    assert so3.is_rotation(R) is expected


def test_project_to_so3_is_nearest_rotation(rng):
    for _ in range(20):
        R = Rotation.random(random_state=rng.integers(1 << 30)).as_matrix()
        M = R + 0.05 * rng.normal(size=(3, 3))
        Q = so3.project_to_so3(M)
        assert so3.is_rotation(Q, tol=1e-14)
        # Independent: for det M > 0 the nearest rotation is the orthogonal polar factor.
        if np.linalg.det(M) > 0:
            assert_allclose(Q, scipy.linalg.polar(M)[0], rtol=0, atol=1e-14)
        # No nearby rotation is closer.
        dist = np.linalg.norm(Q - M)
        for _ in range(20):
            other = Q @ so3.exp(1e-3 * rng.normal(size=3))
            assert np.linalg.norm(other - M) >= dist - 1e-15
    # A reflection: the closest rotation flips the direction of the smallest singular value.
    assert_allclose(so3.project_to_so3(np.diag([3.0, 2.0, -1.0])), np.eye(3), rtol=0, atol=ROUND)
    R = so3.exp(np.array([0.3, -0.2, 1.0]))
    assert_allclose(so3.project_to_so3(R), R, rtol=0, atol=ROUND)
