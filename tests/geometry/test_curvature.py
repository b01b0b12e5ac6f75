"""Curvatures of the analytic surfaces against their closed forms."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.geometry import Cylinder, Ellipsoid, Plane, Sphere, Torus

from .conftest import random_params


@pytest.mark.parametrize("radius", [0.01, 0.7, 50.0])
def test_sphere_is_umbilic_with_curvature_one_over_radius(radius):
    s = Sphere(radius, center=(1.0, -2.0, 0.5))
    rng = np.random.default_rng(1)
    for chart in range(2):
        for u, v in random_params(s, chart, rng, 8):
            p = s.point(u, v, chart)
            n = s.normal(u, v, chart)
            # p - center cancels the offset (|center| ~ 2): absolute round-off ~ eps |center|
            offset_eps = 4 * np.finfo(float).eps * np.linalg.norm(s.center)
            assert_allclose(np.linalg.norm(p - s.center), radius, rtol=1e-14, atol=offset_eps)
            assert_allclose(n, (p - s.center) / radius, atol=1e-14 + offset_eps / radius)
            assert_allclose(s.shape_operator(u, v, chart), (np.eye(3) - np.outer(n, n)) / radius,
                            rtol=0, atol=1e-12 / radius)
            k1, k2, _, _ = s.principal_curvatures(u, v, chart)
            assert_allclose([k1, k2], [1 / radius, 1 / radius], rtol=1e-12)


@pytest.mark.parametrize("axes", [(1.0, 0.6, 0.4), (0.3, 2.0, 1.1), (1.0, 1.0, 0.2)])
def test_ellipsoid_gaussian_and_mean_curvature(axes):
    a, b, c = axes
    center = np.array((0.3, -0.2, 0.1))
    e = Ellipsoid(a, b, c, center=center)
    rng = np.random.default_rng(2)
    for chart in range(2):
        for u, v in random_params(e, chart, rng, 8):
            x, y, z = e.point(u, v, chart) - center
            assert_allclose((x / a) ** 2 + (y / b) ** 2 + (z / c) ** 2, 1.0, rtol=1e-14)
            q = x * x / a ** 4 + y * y / b ** 4 + z * z / c ** 4
            K = 1.0 / (a * a * b * b * c * c * q * q)
            # MathWorld "Ellipsoid" eq. (14), signed for the outward normal (positive here)
            H = (a * a + b * b + c * c - x * x - y * y - z * z) / (2.0 * (a * b * c) ** 2 * q ** 1.5)
            k1, k2, _, _ = e.principal_curvatures(u, v, chart)
            assert_allclose(k1 * k2, K, rtol=1e-11)
            assert_allclose(0.5 * (k1 + k2), H, rtol=1e-11)
            grad = np.array((x / a ** 2, y / b ** 2, z / c ** 2))
            assert_allclose(e.normal(u, v, chart), grad / np.linalg.norm(grad), atol=1e-14)


@pytest.mark.parametrize("R, r", [(1.0, 0.3), (3.0, 2.9)])
def test_torus_principal_curvatures(R, r):
    t = Torus(R, r)
    rng = np.random.default_rng(3)
    params = random_params(t, 0, rng, 8) + [(0.4, 0.0), (0.4, math.pi / 2), (0.4, -math.pi)]
    for u, v in params:
        k1, k2, d1, d2 = t.principal_curvatures(u, v)
        assert_allclose([k1, k2], [1.0 / r, math.cos(v) / (R + r * math.cos(v))], rtol=1e-11, atol=1e-12)
        fu, fv = t.derivatives(u, v, 1)[1, 0], t.derivatives(u, v, 1)[0, 1]
        assert_allclose(abs(d1 @ fv) / np.linalg.norm(fv), 1.0, rtol=1e-12)
        assert_allclose(abs(d2 @ fu) / np.linalg.norm(fu), 1.0, rtol=1e-12)
        # outward: away from the tube's centre circle
        ring = R * np.array((math.cos(u), math.sin(u), 0.0))
        assert_allclose(t.normal(u, v), (t.point(u, v) - ring) / r, atol=1e-14)


def test_cylinder_principal_curvatures():
    c = Cylinder(0.4, 2.0)
    for u, v in random_params(c, 0, np.random.default_rng(4), 8):
        k1, k2, d1, d2 = c.principal_curvatures(u, v)
        assert_allclose([k1, k2], [1 / 0.4, 0.0], atol=1e-12)
        assert_allclose(abs(d2[2]), 1.0, rtol=1e-12)
        p = c.point(u, v)
        assert_allclose(c.normal(u, v), np.r_[p[:2] / 0.4, 0.0], atol=1e-14)


def test_plane_is_flat():
    p = Plane((0.0, 0.0, 1.0), (0.0, 1.0, 1.0))
    for u, v in [(0.0, 0.0), (3.0, -7.0)]:
        # bit-exact on every CPU: a plane's second derivatives are exact zeros
        assert_allclose(p.shape_operator(u, v), np.zeros((3, 3)), atol=0)
        k1, k2, _, _ = p.principal_curvatures(u, v)
        assert (k1, k2) == (0.0, 0.0)
        assert_allclose(p.normal(u, v), np.array((0.0, 1.0, 1.0)) / math.sqrt(2), atol=1e-15)
    assert not p.is_convex


def test_from_pose_matches_the_frame():
    c, s = math.cos(0.3), math.sin(0.3)
    H = np.array(((c, 0, s, 1.0), (0, 1, 0, 2.0), (-s, 0, c, 3.0), (0, 0, 0, 1)))
    p = Plane.from_pose(H)
    assert_allclose(p.point(0.5, -0.25), H[:3, 3] + 0.5 * H[:3, 0] - 0.25 * H[:3, 1], atol=1e-15)
    assert_allclose(p.normal(0.0, 0.0), H[:3, 2], atol=1e-15)
