"""Tests of porthamiltonian.lie.se3 against scipy, mpmath series and finite differences."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from porthamiltonian.errors import ParameterError
from porthamiltonian.lie import se3, so3

from .reference import ad_from_bracket, dexp_inverse_series, dexp_series, hat4
from .samples import PI, twist_cases, unit

# Central differences with h = 1e-6: truncation h^2 |f'''|/6 ~ 1e-12, rounding eps |f|/h with
# |f| up to ~5 (translations of a few metres) ~ 1e-9; 1e-8 leaves a margin of 10.
FD_STEP = 1e-6
FD_ATOL = 1e-8
# Agreement to rounding, for entries up to ~5 (translations of a few metres) after a few
# dozen flops: 100 ulps of 1.
ROUND = 100 * np.finfo(float).eps

vectors6 = st.lists(st.floats(-3.0, 3.0, allow_nan=False), min_size=6, max_size=6).map(np.array)


@pytest.fixture
def rng():
    return np.random.default_rng(13)


def random_pose(rng):
    return se3.exp(np.concatenate([rng.uniform(0, PI) * unit(rng), 2.0 * rng.normal(size=3)]))


def test_hat_vee_round_trip(rng):
    for _ in range(10):
        T = rng.normal(size=6)
        # bit-exact on every CPU: data movement and sign changes only, no rounding
        assert_allclose(se3.vee(se3.hat(T)), T, rtol=0, atol=0)
        assert_allclose(se3.hat(T), hat4(T), rtol=0, atol=0)


@pytest.mark.parametrize("xi", twist_cases())
def test_exp_matches_expm(xi):
    assert_allclose(se3.exp(xi), scipy.linalg.expm(hat4(xi)), rtol=0, atol=ROUND)


@pytest.mark.parametrize("xi", twist_cases(include_pi=False))
def test_log_inverts_exp_below_pi(xi):
    assert_allclose(se3.log(se3.exp(xi)), xi, rtol=0, atol=ROUND)


@pytest.mark.parametrize("xi", [p for p in twist_cases() if np.linalg.norm(p.values[0][:3]) <= 3.0])
def test_log_matches_logm(xi):
    # scipy's logm is a general-purpose reference, reliable away from angle pi.
    H = se3.exp(xi)
    assert_allclose(se3.hat(se3.log(H)), np.real(scipy.linalg.logm(H)), rtol=0, atol=1e-12)


@pytest.mark.parametrize("xi", twist_cases())
def test_exp_of_log(xi):
    H = se3.exp(xi)
    out = se3.log(H)
    assert np.linalg.norm(out[:3]) <= PI + 1e-15
    assert_allclose(se3.exp(out), H, rtol=0, atol=ROUND)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(vectors6)
def test_exp_log_property(xi):
    # Rotation angles up to 3 sqrt(3) > pi come back with angle in [0, pi], same motion.
    H = se3.exp(xi)
    out = se3.log(H)
    assert np.linalg.norm(out[:3]) <= PI + 1e-12
    assert_allclose(se3.exp(out), H, rtol=0, atol=ROUND)


def test_inverse_make_split(rng):
    for _ in range(20):
        H = random_pose(rng)
        assert_allclose(se3.inverse(H), np.linalg.inv(H), rtol=0, atol=ROUND)
        R, p = se3.split(H)
        # bit-exact on every CPU: data movement and sign changes only, no rounding
        assert_allclose(se3.make(R, p), H, rtol=0, atol=0)
        R[0, 0] = 99.0
        assert H[0, 0] != 99.0, "split must return copies"


def test_adjoint_properties(rng):
    for _ in range(30):
        H1, H2 = random_pose(rng), random_pose(rng)
        T, W = rng.normal(size=6), rng.normal(size=6)
        A = se3.Ad(H1)
        assert_allclose(se3.Ad(H1 @ H2), A @ se3.Ad(H2), rtol=0, atol=ROUND)
        assert_allclose(se3.Ad(se3.inverse(H1)), np.linalg.inv(A), rtol=0, atol=ROUND)
        assert_allclose(se3.Ad_inv(H1), np.linalg.inv(A), rtol=0, atol=ROUND)
        assert_allclose(se3.Ad_wrench(H1), np.linalg.inv(A).T, rtol=0, atol=ROUND)
        # Power is frame invariant.
        assert_allclose((se3.Ad_wrench(H1) @ W) @ (A @ T), W @ T, rtol=0, atol=ROUND)
        # Ad is conjugation in the algebra.
        assert_allclose(se3.hat(A @ T), H1 @ se3.hat(T) @ se3.inverse(H1), rtol=0, atol=ROUND)


def test_adjoint_maps_body_twist_to_spatial_twist(rng):
    # Along H(t) = H0 exp(t T): the body twist is T and the spatial twist is Ad(H0) T.
    for _ in range(5):
        H0, T = random_pose(rng), rng.normal(size=6)
        Ep, Em = scipy.linalg.expm(FD_STEP * hat4(T)), scipy.linalg.expm(-FD_STEP * hat4(T))
        dH = H0 @ (Ep - Em) / (2 * FD_STEP)
        assert_allclose(se3.vee(se3.inverse(H0) @ dH), T, rtol=0, atol=FD_ATOL)
        assert_allclose(se3.vee(dH @ se3.inverse(H0)), se3.Ad(H0) @ T, rtol=0, atol=FD_ATOL)


def test_wrench_transform_is_the_force_moment_rule():
    # A force f at point c of B, in B coordinates, is the wrench (c x f, f); seen in A it is
    # the force R f at the point R c + p.
    H = se3.exp(np.array([0.4, -0.3, 1.1, 0.5, -2.0, 1.0]))
    R, p = se3.split(H)
    c, f = np.array([0.2, 0.1, -0.3]), np.array([1.0, 2.0, -0.5])
    W_B = np.concatenate([np.cross(c, f), f])
    W_A = np.concatenate([np.cross(R @ c + p, R @ f), R @ f])
    assert_allclose(se3.Ad_wrench(H) @ W_B, W_A, rtol=0, atol=ROUND)


def test_ad_properties(rng):
    for _ in range(30):
        T1, T2, T3 = rng.normal(size=6), rng.normal(size=6), rng.normal(size=6)
        # the reference is a product of hat matrices
        assert_allclose(se3.ad(T1), ad_from_bracket(T1), rtol=0, atol=ROUND)
        assert_allclose(se3.ad(T1) @ T2, -se3.ad(T2) @ T1, rtol=0, atol=ROUND)
        jacobi = (se3.ad(T1) @ se3.ad(T2) @ T3 + se3.ad(T2) @ se3.ad(T3) @ T1
                  + se3.ad(T3) @ se3.ad(T1) @ T2)
        assert_allclose(jacobi, 0.0, rtol=0, atol=ROUND)
        # bit-exact on every CPU: data movement and sign changes only, no rounding
        assert_allclose(se3.coadjoint(T1), se3.ad(T1).T, rtol=0, atol=0)
        H = random_pose(rng)
        # Entries of Ad(H) reach |p| ~ 5, so the triple product carries ~25x the rounding.
        lhs, rhs = se3.ad(se3.Ad(H) @ T1), se3.Ad(H) @ se3.ad(T1) @ se3.Ad_inv(H)
        assert_allclose(lhs, rhs, rtol=0, atol=1e-13)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(vectors6, vectors6)
def test_ad_is_the_matrix_commutator(T1, T2):
    bracket = se3.hat(T1) @ se3.hat(T2) - se3.hat(T2) @ se3.hat(T1)
    assert_allclose(se3.hat(se3.ad(T1) @ T2), bracket, rtol=0, atol=ROUND)


BEYOND_PI = pytest.param(np.array([4.0, -3.0, 2.0, 1.0, 0.5, -2.0]), id="theta=5.4")


@pytest.mark.parametrize("xi", twist_cases() + [BEYOND_PI])
def test_jacobians_match_series(xi):
    # The 40-digit series sum (+-ad)^k/(k+1)! is the reference for the closed forms and for
    # the small-angle Taylor branches of c1, c2, c3.
    ad = ad_from_bracket(xi)
    assert_allclose(se3.left_jacobian(xi), dexp_series(ad), rtol=0, atol=ROUND)
    assert_allclose(se3.right_jacobian(xi), dexp_series(ad, -1), rtol=0, atol=ROUND)
    assert_allclose(se3.left_jacobian_inverse(xi), dexp_inverse_series(ad), rtol=0, atol=ROUND)
    assert_allclose(se3.right_jacobian_inverse(xi), dexp_inverse_series(ad, -1), rtol=0, atol=ROUND)


@pytest.mark.parametrize("xi", twist_cases())
def test_jacobian_identities(xi):
    Jl, Jr = se3.left_jacobian(xi), se3.right_jacobian(xi)
    # two closed forms of one matrix, equal to round-off
    assert_allclose(Jr, se3.left_jacobian(-xi), rtol=0, atol=ROUND)
    assert_allclose(Jl, se3.Ad(se3.exp(xi)) @ Jr, rtol=0, atol=ROUND)
    assert_allclose(se3.left_jacobian_inverse(xi) @ Jl, np.eye(6), rtol=0, atol=ROUND)
    assert_allclose(se3.right_jacobian_inverse(xi) @ Jr, np.eye(6), rtol=0, atol=ROUND)
    assert_allclose(Jl @ se3.left_jacobian_inverse(xi), np.eye(6), rtol=0, atol=ROUND)


@pytest.mark.parametrize("xi", twist_cases(n_random=6))
def test_jacobians_against_finite_differences(xi, rng):
    H0 = random_pose(rng)
    H = se3.exp(xi)
    for _ in range(3):
        d = rng.normal(size=6)
        dE = (se3.exp(xi + FD_STEP * d) - se3.exp(xi - FD_STEP * d)) / (2 * FD_STEP)
        # H(t) = H0 exp(xi + t d): body twist vee(inv(H) dH/dt) = J_r(xi) d.
        T_B = se3.vee(se3.inverse(H0 @ H) @ H0 @ dE)
        assert_allclose(T_B, se3.right_jacobian(xi) @ d, rtol=0, atol=FD_ATOL)
        # H(t) = exp(xi + t d) H0: spatial twist vee(dH/dt inv(H)) = J_l(xi) d.
        T_S = se3.vee(dE @ H0 @ se3.inverse(H @ H0))
        assert_allclose(T_S, se3.left_jacobian(xi) @ d, rtol=0, atol=FD_ATOL)


# log jumps at angle pi, so FD steps must not cross it: keep angles <= pi - 1e-3.
@pytest.mark.parametrize(
    "xi",
    [
        p
        for p in twist_cases(include_pi=False, n_random=6)
        if np.linalg.norm(p.values[0][:3]) <= PI - 1e-3
    ],
)
def test_jacobian_inverses_against_finite_differences_of_log(xi, rng):
    # d/dt log(H exp(t T)) = J_r^-1(log H) T and d/dt log(exp(t T) H) = J_l^-1(log H) T.
    H = se3.exp(xi)
    for _ in range(3):
        T = rng.normal(size=6)
        Ep, Em = scipy.linalg.expm(FD_STEP * hat4(T)), scipy.linalg.expm(-FD_STEP * hat4(T))
        d_body = (se3.log(H @ Ep) - se3.log(H @ Em)) / (2 * FD_STEP)
        d_space = (se3.log(Ep @ H) - se3.log(Em @ H)) / (2 * FD_STEP)
        assert_allclose(d_body, se3.right_jacobian_inverse(xi) @ T, rtol=0, atol=FD_ATOL)
        assert_allclose(d_space, se3.left_jacobian_inverse(xi) @ T, rtol=0, atol=FD_ATOL)


def test_is_se3():
    H = se3.exp(np.array([0.4, -0.3, 1.1, 0.5, -2.0, 1.0]))
    assert se3.is_se3(H) is True
    bad_row = H.copy()
    bad_row[3, 0] = 1e-3
    assert se3.is_se3(bad_row) is False
    scaled = H.copy()
    scaled[:3, :3] *= 1.001
    assert se3.is_se3(scaled) is False
    assert se3.is_se3(np.eye(3)) is False
    assert se3.is_se3("H") is False


def test_as_se3_returns_a_clean_copy():
    H = se3.exp(np.array([0.4, -0.3, 1.1, 0.5, -2.0, 1.0]))
    H[3, 3] = 1.0 + 1e-12
    out = se3.as_se3(H.tolist(), "H_WB")
    assert out[3, 3] == 1.0
    # bit-exact on every CPU: as_se3 copies the rigid part and only resets the last row
    assert_allclose(out[:3], H[:3], rtol=0, atol=0)


@pytest.mark.parametrize(
    "value, match",
    [
        pytest.param(np.eye(3), r"`H_WB` must have shape \(4, 4\), got \(3, 3\)", id="shape"),
        pytest.param(np.full((4, 4), np.inf), r"`H_WB` must be finite", id="inf"),
        pytest.param([["x"] * 4] * 4, r"`H_WB` must be numeric", id="not numeric"),
        pytest.param(
            np.diag([1.0, 1.0, 1.0, 2.0]),
            r"`H_WB` must have bottom row \[0, 0, 0, 1\], got \[0.0, 0.0, 0.0, 2.0\]",
            id="bottom row",
        ),
        pytest.param(
            np.diag([1.0, 1.1, 1.0, 1.0]),
            r"`H_WB` must have a rotation block .* got orthogonality error 0.21",
            id="not orthogonal",
        ),
        pytest.param(
            np.diag([1.0, 1.0, -1.0, 1.0]),
            r"`H_WB` must have a rotation block .* det -1",
            id="reflection",
        ),
    ],
)
def test_as_se3_errors(value, match):
    with pytest.raises(ParameterError, match=match):
        se3.as_se3(value, "H_WB")


def test_so3_blocks_are_consistent():
    xi = np.array([0.4, -0.3, 1.1, 0.5, -2.0, 1.0])
    # two code paths of one rotation, equal to round-off
    assert_allclose(se3.exp(xi)[:3, :3], so3.exp(xi[:3]), rtol=0, atol=ROUND)
    assert_allclose(se3.exp(xi)[:3, 3], so3.left_jacobian(xi[:3]) @ xi[3:], rtol=0, atol=ROUND)
    # two code paths of one block, equal to round-off
    assert_allclose(se3.left_jacobian(xi)[:3, :3], so3.left_jacobian(xi[:3]), rtol=0, atol=ROUND)
