"""Tests of porthamiltonian.kernels.joints against independent references.

References: central differences of the relative marker pose ``H_MN(t)`` along body motions
``H_Wk(t) = H_Wk expm(t hat(T_k))`` and marker motions ``H_kM(t) = H_kM expm(t hat(T_kM))``
(scipy's expm): the constraint rows are ``S T_rel`` with ``T_rel`` the twist of N relative
to M, so ``J (T1, T2) + b`` is ``omega_rel`` (rotation rows) and ``dp/dt`` (translation rows),
and the acceleration bias is the time derivative of that, at constant body twists, when the
body twists are held fixed.
"""

import numpy as np
import pytest
import scipy.linalg
from numpy.testing import assert_allclose

from porthamiltonian.kernels import joints

from .reference import hat3, hat4, random_motion

H = 1e-5


def _along(Hm, T, t):
    return Hm @ scipy.linalg.expm(t * hat4(T))


def _relative(H_W1, H_W2, H_1M, H_2N):
    return np.linalg.inv(H_W1 @ H_1M) @ (H_W2 @ H_2N)


def _rows_value(H_MN, H_MN_dot, rows):
    """``(omega_rel, dp/dt)`` rows from H_MN and its derivative: omega from R^T dR/dt."""
    R = H_MN[:3, :3]
    W = R.T @ H_MN_dot[:3, :3]
    # the relative angular velocity of N in M, in M: R (vee of R^T dR)
    w = R @ np.array([W[2, 1], W[0, 2], W[1, 0]])
    return np.concatenate((w, H_MN_dot[:3, 3]))[rows]


def _case(seed, moving_markers):
    rng = np.random.default_rng(seed)
    H_W1, H_W2, H_1M, H_2N = (random_motion(rng) for _ in range(4))
    T1, T2 = rng.normal(size=6), rng.normal(size=6)
    T_1M = rng.normal(size=6) if moving_markers else np.zeros(6)
    T_2N = rng.normal(size=6) if moving_markers else np.zeros(6)
    return H_W1, H_W2, H_1M, H_2N, T1, T2, T_1M, T_2N


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("moving_markers", [False, True])
@pytest.mark.parametrize("rows", [np.array([0, 1, 3, 4, 5]), np.arange(3, 6), np.arange(6), np.array([2, 5])])
def test_terms_give_the_relative_twist_rows(seed, moving_markers, rows):
    H_W1, H_W2, H_1M, H_2N, T1, T2, T_1M, T_2N = _case(seed, moving_markers)

    def rel(t):
        return _relative(_along(H_W1, T1, t), _along(H_W2, T2, t), _along(H_1M, T_1M, t), _along(H_2N, T_2N, t))

    H_MN = rel(0.0)
    dH = (rel(H) - rel(-H)) / (2 * H)
    J, b, H_MN_k = joints.terms(H_W1, H_W2, H_1M, T_1M, H_2N, T_2N, rows)
    assert_allclose(H_MN_k, H_MN, rtol=0, atol=1e-13)
    assert_allclose(J @ np.concatenate((T1, T2)) + b, _rows_value(H_MN, dH, rows), rtol=0, atol=1e-8)
    if not moving_markers:
        assert np.all(b == 0.0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("moving_markers", [False, True])
def test_acceleration_bias_is_the_rate_of_the_rows_at_fixed_body_twists(seed, moving_markers):
    """d/dt (J T + b) with the body twists held constant (body accelerations zero) and the
    marker twists growing at dT_kM: the acceleration bias."""
    rows = np.array([0, 1, 3, 4, 5])
    H_W1, H_W2, H_1M, H_2N, T1, T2, T_1M, T_2N = _case(seed, moving_markers)
    rng = np.random.default_rng(100 + seed)
    dT_1M = rng.normal(size=6) if moving_markers else np.zeros(6)
    dT_2N = rng.normal(size=6) if moving_markers else np.zeros(6)

    def rows_at(t):
        # exact state at time t: bodies along constant twists; markers along twists that
        # grow linearly (first order in t is all the derivative at 0 needs)
        Hm1 = _along(H_1M, T_1M + 0.5 * t * dT_1M, t)
        Hm2 = _along(H_2N, T_2N + 0.5 * t * dT_2N, t)
        Hb1, Hb2 = _along(H_W1, T1, t), _along(H_W2, T2, t)
        J, b, _ = joints.terms(Hb1, Hb2, Hm1, T_1M + t * dT_1M, Hm2, T_2N + t * dT_2N, rows)
        return J @ np.concatenate((T1, T2)) + b

    fd = (rows_at(H) - rows_at(-H)) / (2 * H)
    got = joints.acceleration_bias(H_W1, H_W2, H_1M, T_1M, dT_1M, H_2N, T_2N, dT_2N, T1, T2, rows)
    assert_allclose(got, fd, rtol=0, atol=1e-7)


def test_ad_matches_its_definition():
    rng = np.random.default_rng(5)
    T, U = rng.normal(size=6), rng.normal(size=6)
    bracket = hat4(T) @ hat4(U) - hat4(U) @ hat4(T)
    expected = np.concatenate(([bracket[2, 1], bracket[0, 2], bracket[1, 0]], bracket[:3, 3]))
    assert_allclose(joints.ad(T) @ U, expected, rtol=0, atol=1e-13)
    # bit-exact on every CPU: data movement and sign changes only, no rounding
    assert_allclose(joints.ad(T)[:3, :3], hat3(T[:3]), rtol=0, atol=0)
