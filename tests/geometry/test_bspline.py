"""B-spline, NURBS and Bezier surfaces against scipy, exact conics and their data."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.interpolate import BSpline, NdBSpline

from porthamiltonian.geometry import BezierPatch, BSplineSurface
from porthamiltonian.geometry._bspline_basis import basis_derivatives, find_span

from .conftest import SQRT1_2, cam_points, circle_nurbs, nurbs_sphere, random_params, smooth_net


def scipy_derivatives(knots, degrees, P, u, v, order):
    spl = NdBSpline(knots, P, degrees)
    D = np.zeros((order + 1, order + 1, 3))
    for i in range(order + 1):
        for j in range(order + 1 - i):
            D[i, j] = spl(np.array([[u, v]]), nu=(i, j))[0]
    return D


@pytest.mark.parametrize("name", ["bspline", "cam"])
def test_polynomial_bspline_equals_scipy(surfaces, name):
    s = surfaces[name]
    for u, v in random_params(s, 0, np.random.default_rng(11), 10):
        D = s.derivatives(u, v, 3)
        ref = scipy_derivatives(s.knots, s.degrees, s.control_points, u, v, 3)
        assert_allclose(D, ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())


def test_bezier_equals_scipy_with_bezier_knots():
    P = smooth_net(5, 3, 9)
    s = BezierPatch(P)
    knots = (np.r_[np.zeros(5), np.ones(5)], np.r_[np.zeros(3), np.ones(3)])
    for u, v in [(0.0, 0.0), (1.0, 1.0), (0.3, 0.8), (0.77, 0.05)]:
        assert_allclose(s.derivatives(u, v, 3), scipy_derivatives(knots, (4, 2), P, u, v, 3),
                        rtol=1e-11, atol=1e-11 * np.abs(P).max() * 4 ** 3)
    assert_allclose(s.point(0.0, 1.0), P[0, -1], atol=1e-15)   # interpolates the corners


def test_basis_derivatives_equal_scipy():
    t = np.array([0, 0, 0, 0, 0.1, 0.35, 0.35, 0.8, 1, 1, 1, 1])
    p = 3
    n = len(t) - p - 1
    for x in [0.0, 0.05, 0.35, 0.6, 1.0]:
        span = find_span(t, p, x)
        ders = basis_derivatives(t, p, span, x, 4)
        for k in range(5):
            for j in range(p + 1):
                c = np.zeros(n)
                c[span - p + j] = 1.0
                ref = BSpline(t, c, p)(x, nu=k) if k <= p else 0.0
                assert_allclose(ders[k, j], ref, rtol=1e-12, atol=1e-12 * 10 ** k)


def test_nurbs_quarter_cylinder_is_exact():
    r, h = 0.8, 0.5
    P = np.array([[[r, 0, -h], [r, 0, h]], [[r, r, -h], [r, r, h]], [[0, r, -h], [0, r, h]]])
    W = np.array([[1, 1], [SQRT1_2, SQRT1_2], [1, 1]])
    s = BSplineSurface([0, 0, 0, 1, 1, 1], [0, 0, 1, 1], 2, 1, P, W)
    for u, v in random_params(s, 0, np.random.default_rng(12), 20) + [(0.0, 0.0), (1.0, 1.0)]:
        p = s.point(u, v)
        assert_allclose(math.hypot(p[0], p[1]), r, rtol=1e-15)
        assert_allclose(s.normal(u, v), np.r_[p[:2] / r, 0.0], atol=1e-15)
        k1, k2, _, _ = s.principal_curvatures(u, v)
        assert_allclose([k1, k2], [1 / r, 0.0], rtol=1e-13, atol=1e-13)


def test_nurbs_full_circle_and_sphere_are_exact():
    radius = 1.3
    s = nurbs_sphere(radius)
    assert s.is_convex and s.is_closed
    for u, v in random_params(s, 0, np.random.default_rng(13), 30, margin=0.0):
        if s.regularity(u, v) < 1e-3:
            continue
        p = s.point(u, v)
        assert_allclose(np.linalg.norm(p), radius, rtol=2e-15)
        assert_allclose(s.normal(u, v), p / radius, atol=1e-14)
        k1, k2, _, _ = s.principal_curvatures(u, v)
        assert_allclose([k1, k2], [1 / radius, 1 / radius], rtol=1e-12)
    # the circle closes with a continuous tangent: evaluation from both sides of the seam
    left, right = s.derivatives(1.0 - 1e-10, 0.4, 1), s.derivatives(0.0, 0.4, 1)
    assert_allclose(left, right, rtol=1e-8, atol=1e-8 * np.abs(right).max())
    assert_allclose(s.point(1.25, 0.4), s.point(0.25, 0.4), atol=1e-15)


def test_circle_nurbs_is_exact():
    xy, w, knots = circle_nurbs()
    P = np.concatenate((np.repeat(xy[:, None, :], 2, axis=1), np.zeros((9, 2, 1))), axis=-1)
    P[:, 1, 2] = 1.0
    s = BSplineSurface(knots, [0, 0, 1, 1], 2, 1, P, np.repeat(w[:, None], 2, axis=1), periodic_u=True)
    for u in np.linspace(0.0, 1.0, 41):
        assert_allclose(np.linalg.norm(s.point(u, 0.3)[:2]), 1.0, rtol=1e-15)


def test_interpolation_passes_through_the_data():
    x, y = np.meshgrid(np.linspace(0, 1, 9), np.linspace(0, 2, 7), indexing="ij")
    P = np.stack((x + 0.1 * y ** 2, y, np.sin(2 * x) * np.cos(y)), axis=-1)
    for degrees in [(3, 3), (2, 4), (5, 1)]:
        s = BSplineSurface.interpolate(P, *degrees, u_params=np.linspace(0, 1, 9),
                                       v_params=np.linspace(0, 2, 7))
        for i, u in enumerate(np.linspace(0, 1, 9)):
            for j, v in enumerate(np.linspace(0, 2, 7)):
                assert_allclose(s.point(u, v), P[i, j], atol=1e-13)
    # default (averaged chord length) parameters reach the data too
    s = BSplineSurface.interpolate(P, 3, 3)
    assert_allclose(s.point(0, 0), P[0, 0], atol=1e-14)
    assert_allclose(s.point(1, 1), P[-1, -1], atol=1e-14)


def test_periodic_cam_fit_closes_smoothly(surfaces):
    theta, z, P = cam_points()
    s = surfaces["cam"]
    assert s.domain().periodic == (True, False)
    for i, th in enumerate(theta):
        for j, zz in enumerate(z):
            assert_allclose(s.point(th, zz), P[i, j], atol=1e-13)
            assert_allclose(s.point(th + 2 * math.pi, zz), P[i, j], atol=1e-13)
    # C^4 across the seam for degree 5: derivatives from both sides agree
    left = s.derivatives(2 * math.pi - 1e-9, 0.05, 3)
    right = s.derivatives(0.0, 0.05, 3)
    assert_allclose(left, right, rtol=1e-6, atol=1e-6 * np.abs(right).max())
    # outward normal, like the cylinder it approximates
    n = s.normal(0.3, 0.0)
    p = s.point(0.3, 0.0)
    assert n @ np.r_[p[:2], 0.0] > 0.99 * np.linalg.norm(p[:2])


def test_periodic_fit_with_default_parameters():
    _, _, P = cam_points(24, 4)
    s = BSplineSurface.interpolate(P, 3, 3, periodic_u=True)
    assert_allclose(s.point(0.0, 0.0), P[0, 0], atol=1e-13)
    assert_allclose(s.point(1.0, 0.0), P[0, 0], atol=1e-13)      # wraps onto the first row
