"""`Point` and `point_contact`: the contact of a point (a sphere of radius 0) with a smooth
surface, against closed forms (plane, sphere) and a brute-force minimization (ellipsoid), and
the typed errors of the rules (a point against a point, against an edge; a sphere of radius 0
or less)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize

from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import (Ellipsoid, Plane, Point, Sphere, closest_points,
                                      point_contact)
from porthamiltonian.lie import se3

P2 = np.array([0.05, -0.02, 0.1])


def pose(rng, c):
    """A random rotation with the point at `c` (frame 1)."""
    H = se3.exp(np.concatenate((rng.uniform(-1.0, 1.0, 3), np.zeros(3))))
    H[:3, 3] = c - H[:3, :3] @ P2
    return H


@pytest.mark.parametrize("height", [0.3, 1e-9, -0.02])
def test_a_point_on_a_tilted_plane_matches_the_closed_form(height):
    n = np.array([0.2, -0.1, 1.0]) / np.linalg.norm([0.2, -0.1, 1.0])
    o = np.array([0.1, -0.2, 0.05])
    S = Plane(point=o, normal=n)
    rng = np.random.default_rng(1)
    c = o + np.array([0.4, -0.7, 0.0]) - (np.array([0.4, -0.7, 0.0]) @ n) * n + height * n
    H = pose(rng, c)
    pc = point_contact(S, Point(P2), H)
    assert_allclose(pc.distance, height, rtol=0, atol=1e-15)
    assert_allclose(pc.p1, c - height * n, rtol=0, atol=1e-15)
    assert_allclose(pc.n1, n, rtol=0, atol=1e-15)
    assert_allclose(pc.n2, -H[:3, :3].T @ n, rtol=0, atol=1e-15)
    assert_allclose(pc.p2, P2, rtol=0, atol=0)   # the point itself, copied
    assert_allclose(pc.margin, 1.0, rtol=0, atol=1e-15)   # a plane has no curvature


@pytest.mark.parametrize("radius_of_c", [0.8, 0.5 + 1e-9, 0.3])
def test_a_point_on_and_in_a_sphere_matches_the_closed_form(radius_of_c):
    """Outside, on and inside a sphere of radius 0.5: the foot is the radial projection,
    the distance |c - centre| - 0.5, the margin ``1 + distance / 0.5 = |c - centre| / 0.5``."""
    centre = np.array([0.2, 0.1, -0.3])
    S = Sphere(0.5, center=centre)
    rng = np.random.default_rng(2)
    e = np.array([0.3, -0.5, 0.81])
    e /= np.linalg.norm(e)
    c = centre + radius_of_c * e
    pc = point_contact(S, Point(P2), pose(rng, c), tol=1e-14)
    # Newton stops once the tangential residual is below tol * scale (1e-14 m here); the
    # distance is exact to second order in it
    assert_allclose(pc.distance, radius_of_c - 0.5, rtol=0, atol=1e-14)
    assert_allclose(pc.p1, centre + 0.5 * e, rtol=0, atol=1e-13)
    assert_allclose(pc.n1, e, rtol=0, atol=2e-13)
    assert_allclose(pc.margin, radius_of_c / 0.5, rtol=0, atol=1e-13)


def test_a_point_on_an_ellipsoid_matches_a_brute_force_minimization():
    S = Ellipsoid(0.3, 0.5, 0.7)
    rng = np.random.default_rng(4)
    for _ in range(5):
        e = rng.standard_normal(3)
        c = 1.2 * e / np.linalg.norm(e)
        pc = point_contact(S, Point(P2), pose(rng, c))
        # independent: |f(u, v) - c|^2 over a 60 x 60 grid of both charts, then Nelder-Mead
        best = None
        for chart in (0, 1):
            for u in np.linspace(-np.pi, np.pi, 60, endpoint=False):
                for v in np.linspace(-1.5, 1.5, 60):
                    q = np.sum((S.point(u, v, chart) - c) ** 2)
                    if best is None or q < best[0]:
                        best = (q, chart, u, v)
        _, chart, u, v = best
        res = minimize(lambda x: np.sum((S.point(*S._domains[chart].wrap(*x), chart) - c) ** 2), (u, v),
                       method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-24, "maxiter": 4000})
        p_ref = S.point(*S._domains[chart].wrap(*res.x), chart)
        # Nelder-Mead's minimizer is located to ~1e-8 in parameters; the distance to second order
        assert_allclose(pc.p1, p_ref, rtol=0, atol=1e-7)
        assert_allclose(pc.distance, np.linalg.norm(c - p_ref), rtol=0, atol=1e-12)
        assert pc.margin > 1.0   # outside a convex body: I + distance K1 > I


def test_two_points_and_a_point_for_closest_points_are_refused_naming_the_rule():
    H = np.eye(4)
    with pytest.raises(ParameterError, match="not another point"):
        point_contact(Point(), Point(), H)
    with pytest.raises(ParameterError, match="must be a Point, got Sphere"):
        point_contact(Plane(), Sphere(0.1), H)
    with pytest.raises(ParameterError, match=r"`S2` must be a Surface, got Point; .*point_contact"):
        closest_points(Plane(), Point(), H)


def test_a_point_whose_foot_is_on_an_edge_is_refused_naming_the_rule():
    S = Plane(extent=((-1.0, 1.0), (-1.0, 1.0)))
    H = np.eye(4)
    H[:3, 3] = (1.5, 0.2, 0.3)          # beyond the edge u = 1: the nearest point is on it
    with pytest.raises(GeometryError, match="lies on an edge of the patch.*a point contact needs a smooth surface"):
        point_contact(S, Point(), H)
    H[:3, 3] = (0.5, 0.2, 0.3)          # inside: fine
    assert_allclose(point_contact(S, Point(), H).distance, 0.3, rtol=0, atol=1e-15)


@pytest.mark.parametrize("radius, match", [(0.0, r"a sphere of radius 0 is a point, .*Point\(center\).*point_contact"),
                                           (0, "a sphere of radius 0 is a point"),
                                           (-1e-3, r"`radius` must be > 0, got -0.001$"),
                                           (float("nan"), "`radius` must be finite")])
def test_a_sphere_of_radius_zero_or_less_is_refused_naming_the_point(radius, match):
    with pytest.raises(ParameterError, match=match):
        Sphere(radius)


def test_a_point_needs_a_finite_centre():
    with pytest.raises(ParameterError, match="center"):
        Point((np.nan, 0.0, 0.0))
    with pytest.raises(ParameterError, match="center"):
        Point((0.0, 0.0))
