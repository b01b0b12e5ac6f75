"""Patch and contact frames, the average tangent plane and the rolling/sliding split."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.contact import (
    ROLLING_PROJECTION,
    SLIDING_PROJECTION,
    contact_frame,
    patch_frame,
    split_twist,
    twist_projections,
)
from porthamiltonian.geometry import Plane, Sphere, closest_points
from porthamiltonian.lie import se3


def test_patch_frame_axes(pairs):
    rng = np.random.default_rng(71)
    for pair in pairs.values():
        for S in (pair.S1, pair.S2):
            chart, u, v = S.best_chart(*rng.uniform(0.1, 0.9, 2))
            H = patch_frame(S, u, v, chart)
            R = H[:3, :3]
            assert_allclose(R.T @ R, np.eye(3), rtol=0, atol=1e-14)
            assert_allclose(np.linalg.det(R), 1.0, rtol=0, atol=1e-14)
            frame = S.frame(u, v, chart)
            # bit-exact on every CPU: data movement and sign changes only, no rounding
            assert_allclose(H[:3, 3], frame.point, rtol=0, atol=0)
            assert_allclose(R[:, 2], frame.normal, rtol=0, atol=1e-15)
            assert_allclose(R[:, 0], frame.f_u / np.linalg.norm(frame.f_u), rtol=0, atol=1e-15)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
def test_contact_frame_on_the_average_plane(pair, alpha):
    for H, r in pair.cases[:4]:
        cp = closest_points(pair.S1, pair.S2, H)
        F = contact_frame(pair.S1, pair.S2, cp.x, H, charts=cp.charts, alpha=alpha)
        c2 = H[:3, :3] @ cp.p2 + H[:3, 3]
        assert_allclose(F.H_1C[:3, 3], (1.0 - alpha) * cp.p1 + alpha * c2, rtol=0, atol=1e-12)
        assert_allclose(F.H_1C[:3, 2], cp.n1, rtol=0, atol=1e-12)
        assert_allclose(F.H_2C, se3.inverse(H) @ F.H_1C, rtol=0, atol=1e-14)
        assert_allclose(F.H_2C[:3, 2], -cp.n2, rtol=0, atol=1e-12)
        assert_allclose(F.distance, r.distance, rtol=0, atol=1e-10)


def random_frame(rng):
    return se3.exp(rng.normal(size=6))


def test_split_of_rolling_and_sliding_twists():
    rng = np.random.default_rng(72)
    for _ in range(10):
        H_1C = random_frame(rng)
        w = rng.normal(size=2)
        # rotation about the in-plane axis (w_x, w_y, 0) through the frame origin
        rolling = se3.Ad(H_1C) @ np.r_[w, 0.0, 0.0, 0.0, 0.0]
        s = split_twist(rolling, H_1C)
        assert_allclose(s.sliding, 0.0, rtol=0, atol=1e-14)
        assert_allclose(s.rolling, np.r_[w, 0.0, 0.0, 0.0, 0.0], rtol=0, atol=1e-14)
        # spin, sliding and approach have no rolling part
        other = se3.Ad(H_1C) @ np.r_[0.0, 0.0, rng.normal(size=4)]
        assert_allclose(split_twist(other, H_1C).rolling, 0.0, rtol=0, atol=1e-14)
        # the same rotation about an axis through another point of the normal is not rolling
        H_1O = H_1C @ se3.make(np.eye(3), np.array((0.0, 0.0, 0.2)))
        shifted = se3.Ad(H_1O) @ np.r_[w, 0.0, 0.0, 0.0, 0.0]
        assert np.linalg.norm(split_twist(shifted, H_1C).sliding) > 0.1 * np.linalg.norm(w)


def test_projections_in_frame_1_and_power():
    rng = np.random.default_rng(73)
    # bit-exact on every CPU: constant projections of zeros and ones
    assert_allclose(ROLLING_PROJECTION + SLIDING_PROJECTION, np.eye(6), rtol=0, atol=0)
    for _ in range(10):
        H_1C = random_frame(rng)
        P_roll, P_slide = twist_projections(H_1C)
        assert_allclose(P_roll + P_slide, np.eye(6), rtol=0, atol=1e-13)
        assert_allclose(P_roll @ P_roll, P_roll, rtol=0, atol=1e-12)
        assert_allclose(P_slide @ P_roll, 0.0, rtol=0, atol=1e-12)
        T = rng.normal(size=6)
        s = split_twist(T, H_1C)
        assert_allclose(P_roll @ T, se3.Ad(H_1C) @ s.rolling, rtol=0, atol=1e-12)
        assert_allclose(P_slide @ T, se3.Ad(H_1C) @ s.sliding, rtol=0, atol=1e-12)
        # a wrench that acts through the sliding part does no work on rolling
        W = P_slide.T @ rng.normal(size=6)
        assert abs(W @ (P_roll @ T)) < 1e-12 * np.linalg.norm(W) * np.linalg.norm(T)


def test_rolling_sphere_on_a_plane_does_not_slide():
    """A sphere rolling on the ground (instantaneous axis through the contact point): the
    contact frame sees pure rolling at any time along the motion."""
    P, S, r = Plane(), Sphere(0.5), 0.5
    omega = np.array((0.3, -0.8, 0.0))
    for t in np.linspace(0.0, 1.0, 5):
        centre = np.r_[np.cross(omega, (0.0, 0.0, r))[:2] * t, r]
        H = se3.make(se3.exp(np.r_[omega * t, 0, 0, 0])[:3, :3], centre)
        # instantaneous rotation about the contact point: v = w x (0 - contact)
        contact = np.r_[centre[:2], 0.0]
        T = np.r_[omega, -np.cross(omega, contact)]
        cp = closest_points(P, S, H)
        F = contact_frame(P, S, cp.x, H, charts=cp.charts)
        s = split_twist(T, F.H_1C)
        assert_allclose(s.sliding, 0.0, rtol=0, atol=1e-14)
        assert_allclose(np.linalg.norm(s.rolling), np.linalg.norm(omega), rtol=1e-14)
        assert math.isclose(cp.distance, 0.0, abs_tol=1e-14)
