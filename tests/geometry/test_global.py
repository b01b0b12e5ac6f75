"""Global-search helpers: sampling, bounding boxes and support points."""

import math

import numpy as np
import pytest
import sympy as sp
from numpy.testing import assert_allclose

from porthamiltonian.errors import GeometryError
from porthamiltonian.geometry import Ellipsoid, ParameterDomain, Plane, Sphere, Surface, SymbolicSurface


def test_sample_grid_and_points(surfaces):
    s = surfaces["torus"]
    grid = s.sample(8, 5)
    assert grid.u.shape == grid.v.shape == (8, 5) and grid.points.shape == (8, 5, 3)
    assert grid.u[-1, 0] < math.pi                 # periodic: the end is not repeated
    # bit-identical on purpose: the grid is made by the same point evaluation
    assert_allclose(grid.points[3, 2], s.point(grid.u[3, 2], grid.v[3, 2]), atol=0)
    cyl = surfaces["cylinder"].sample(4, 3)
    assert_allclose(cyl.v[0], [-1.0, 0.0, 1.0])   # bounded direction: both ends included


@pytest.mark.parametrize("name", sorted(["sphere", "ellipsoid", "torus", "cylinder", "plane", "bezier",
                                         "bspline", "nurbs", "cam", "nurbs_sphere", "symbolic"]))
def test_bounding_box_contains_the_surface(surfaces, name):
    s = surfaces[name]
    box = s.bounding_box()
    pts = np.concatenate([s.sample(40, 40, c).points.reshape(-1, 3) for c in range(s.n_charts)])
    size = np.ptp(pts, axis=0).max()
    assert np.all(pts >= box[0] - 1e-12 * size) and np.all(pts <= box[1] + 1e-12 * size)


@pytest.mark.parametrize("name", ["sphere", "ellipsoid", "torus", "cylinder", "plane"])
def test_analytic_bounding_box_is_tight(surfaces, name):
    """Closed form against the generic sampled-and-refined box of the base class."""
    s = surfaces[name]
    assert_allclose(s.bounding_box(), Surface._bounding_box(s), atol=1e-7)


def test_symbolic_bounding_box_is_attained(surfaces):
    s = surfaces["symbolic"]
    box = s.bounding_box()
    pts = s.sample(200, 200).points.reshape(-1, 3)
    # the refined extremes lie between the dense-sample extremes and a sample spacing beyond
    assert np.all(box[1] >= pts.max(axis=0) - 1e-12) and np.all(box[1] <= pts.max(axis=0) + 1e-3)
    assert np.all(box[0] <= pts.min(axis=0) + 1e-12) and np.all(box[0] >= pts.min(axis=0) - 1e-3)


def test_unbounded_plane_box():
    box = Plane((1.0, 2.0, 3.0), (0.0, 0.0, 1.0)).bounding_box()
    assert_allclose(box, [[-np.inf, -np.inf, 3.0], [np.inf, np.inf, 3.0]])


def directions(n, seed):
    d = np.random.default_rng(seed).standard_normal((n, 3))
    return np.vstack((d, np.eye(3), -np.eye(3)))


@pytest.mark.parametrize("surface", [Ellipsoid(1.0, 0.6, 0.4, center=(0.2, -0.1, 0.0)), Sphere(0.3)], ids=repr)
def test_support_closed_form(surface):
    a = np.array(surface.axes)
    for d in directions(10, 1):
        found = surface.support(d)
        # closed form p = c + A^2 d / |A d| with A = diag(a, b, c)
        assert_allclose(found.point, surface.center + a * a * d / np.linalg.norm(a * d), atol=1e-14)
        # bit-identical on purpose: support() reports the point it evaluated at (u, v)
        assert_allclose(surface.point(found.u, found.v, found.chart), found.point, atol=0)
        assert surface.is_regular(found.u, found.v, found.chart)
        assert_allclose(surface.normal(found.u, found.v, found.chart), d / np.linalg.norm(d), atol=1e-12)
        # the generic search of the base class finds the same point
        generic = Surface._support(surface, d / np.linalg.norm(d))
        assert_allclose(generic.point, found.point, atol=1e-10)


def test_generic_support_on_a_nurbs_sphere(surfaces):
    s = surfaces["nurbs_sphere"]
    for d in directions(10, 2):
        found = s.support(d)
        assert_allclose(found.point, 1.3 * d / np.linalg.norm(d), atol=1e-9)


def symbolic_ellipsoid(a, b, c, *, inward=False):
    u, v = sp.symbols("u v")
    expr = [a * sp.cos(v) * sp.cos(u), b * sp.cos(v) * sp.sin(u), c * sp.sin(v)]
    if inward:                                   # swapping the parameters flips f_u x f_v
        expr = [e.subs({u: v, v: u}, simultaneous=True) for e in expr]
        dom = ParameterDomain((-math.pi / 2, -math.pi), (math.pi / 2, math.pi), (False, True))
        return SymbolicSurface(expr, u, v, dom, closed=True, convex=True)
    dom = ParameterDomain((-math.pi, -math.pi / 2), (math.pi, math.pi / 2), (True, False),
                          singular_v=(-math.pi / 2, math.pi / 2))
    return SymbolicSurface(expr, u, v, dom, closed=True, convex=True)


def test_generic_support_on_a_one_chart_symbolic_ellipsoid():
    """Sampling + Newton in a single chart, including the directions of its poles."""
    s = symbolic_ellipsoid(1.0, 0.6, 0.4)
    ref = Ellipsoid(1.0, 0.6, 0.4)
    for d in directions(10, 3):
        assert_allclose(s.support(d).point, ref.support(d).point, atol=1e-9)


def test_declared_convexity_is_checked():
    with pytest.raises(GeometryError, match=r"`convex` was declared for SymbolicSurface.* k2 = -"):
        symbolic_ellipsoid(1.0, 0.6, 0.4, inward=True)
