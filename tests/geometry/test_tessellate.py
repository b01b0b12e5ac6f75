"""Tessellation: vertices on the surface and normals equal to its Gauss map, checked against
the implicit equation of an ellipsoid and against the B-spline a patch network was cut from;
faces wound counter-clockwise about the outward normal; typed errors."""

import math

import numpy as np
import pytest

from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import BSplineSurface, Ellipsoid, ParameterDomain, PatchNetwork, Plane, SymbolicSurface
from porthamiltonian.geometry.tessellate import tessellate

KNOTS_U = [0, 0, 0, 0, 0.25, 0.5, 0.75, 1, 1, 1, 1]
KNOTS_V = [0, 0, 0, 0, 0.3, 0.6, 1, 1, 1, 1]


def _sheet():
    P = np.zeros((7, 6, 3))
    for i in range(7):
        for j in range(6):
            P[i, j] = (0.1 * i, 0.1 * j, 0.02 * math.sin(i) * math.cos(j))
    return BSplineSurface(KNOTS_U, KNOTS_V, 3, 3, P)


def _face_normals(mesh):
    e1 = mesh.vertices[mesh.faces[:, 1]] - mesh.vertices[mesh.faces[:, 0]]
    e2 = mesh.vertices[mesh.faces[:, 2]] - mesh.vertices[mesh.faces[:, 0]]
    n = np.cross(e1, e2)
    return n / np.linalg.norm(n, axis=1)[:, None]


@pytest.mark.parametrize("axes", [(0.25, 0.15, 0.1), (1.0, 1.0, 1.0), (0.3, 0.5, 0.2)])
def test_ellipsoid_vertices_and_normals_match_the_implicit_surface(axes):
    a = np.array(axes)
    mesh = tessellate(Ellipsoid(*axes), 40, 21)
    p = mesh.vertices
    np.testing.assert_allclose(np.sum((p / a) ** 2, axis=1), 1.0, rtol=0, atol=1e-13)
    grad = p / a**2                      # the gradient of the implicit function, outward
    np.testing.assert_allclose(mesh.normals, grad / np.linalg.norm(grad, axis=1)[:, None], rtol=0, atol=1e-12)
    # the poles (singular in chart 0) are in the mesh with their normals +-z
    for sign in (1.0, -1.0):
        k = np.argmin(np.linalg.norm(p - (0.0, 0.0, sign * a[2]), axis=1))
        np.testing.assert_allclose(mesh.normals[k], (0.0, 0.0, sign), atol=1e-12)


def test_a_one_chart_sympy_sphere_gets_the_limit_normal_at_its_poles():
    import sympy as sp

    u, v = sp.symbols("u v")
    r = 0.01
    S = SymbolicSurface([r * sp.cos(u) * sp.cos(v), r * sp.sin(u) * sp.cos(v), r * sp.sin(v)], u, v,
                        ParameterDomain((-math.pi, -math.pi / 2), (math.pi, math.pi / 2), (True, False),
                                        singular_v=(-math.pi / 2, math.pi / 2)))
    assert S.n_charts == 1
    mesh = tessellate(S, 12, 7)
    np.testing.assert_allclose(np.linalg.norm(mesh.vertices, axis=1), r, rtol=1e-14)
    # the poles' normals are taken 1e-6 of the chart's size inside: off by about pi * 1e-6
    np.testing.assert_allclose(mesh.normals, mesh.vertices / r, rtol=0, atol=1e-5)


def test_faces_are_wound_about_the_outward_normal_and_close_the_ellipsoid():
    mesh = tessellate(Ellipsoid(0.25, 0.15, 0.1), 48, 25)
    fn = _face_normals(mesh)
    vn = mesh.normals[mesh.faces].mean(axis=1)
    vn /= np.linalg.norm(vn, axis=1)[:, None]
    # facets of a 48 x 25 grid deviate from the exact normals by the chord angle (< 0.2 rad)
    assert np.min(np.sum(fn * vn, axis=1)) > math.cos(0.2)
    # closed: every edge is shared by exactly two faces, once in each direction (edges
    # compared by position: a pole's vertices, one per meridian, coincide)
    _, weld = np.unique(np.round(mesh.vertices, 12), axis=0, return_inverse=True)
    f = weld.ravel()[mesh.faces]
    edges = [tuple(e) for e in np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]).tolist()]
    assert len(set(edges)) == len(edges)
    assert set(edges) == {(b, a) for a, b in edges}


def test_patch_network_matches_the_bspline_it_was_cut_from():
    B = _sheet()
    net = PatchNetwork.from_bspline(B)
    n = 5
    mesh = tessellate(net, n, n)
    eu, ev = np.unique(KNOTS_U), np.unique(KNOTS_V)
    assert len(mesh.vertices) == net.n_charts * n * n == (len(eu) - 1) * (len(ev) - 1) * n * n
    s = np.linspace(0.0, 1.0, n)
    k = 0
    for i in range(len(eu) - 1):
        for j in range(len(ev) - 1):        # `from_bspline` numbers the patches v fastest
            for su in s:
                for sv in s:
                    u, v = eu[i] + su * (eu[i + 1] - eu[i]), ev[j] + sv * (ev[j + 1] - ev[j])
                    np.testing.assert_allclose(mesh.vertices[k], B.point(u, v), rtol=0, atol=1e-13)
                    np.testing.assert_allclose(mesh.normals[k], B.normal(u, v), rtol=0, atol=1e-11)
                    k += 1
    assert np.min(_face_normals(mesh)[:, 2]) > 0.9   # the sheet faces +z: so do its facets


def test_an_unbounded_plane_needs_an_extent_and_becomes_that_rectangle():
    with pytest.raises(GeometryError, match="unbounded.*extent"):
        tessellate(Plane())
    mesh = tessellate(Plane(point=(0.0, 0.0, 0.5)), 3, 4, extent=((-2.0, 2.0), (-1.0, 1.0)))
    np.testing.assert_allclose(mesh.vertices.min(axis=0), (-2.0, -1.0, 0.5))
    np.testing.assert_allclose(mesh.vertices.max(axis=0), (2.0, 1.0, 0.5))
    np.testing.assert_allclose(mesh.normals, np.tile((0.0, 0.0, 1.0), (12, 1)))
    np.testing.assert_allclose(_face_normals(mesh), np.tile((0.0, 0.0, 1.0), (12, 1)), atol=1e-15)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_u=1), "`n_u` must be an integer >= 2, got 1"),
    (dict(n_v=2.5), "`n_v` must be an integer >= 2, got 2.5"),
    (dict(extent=((1.0, -1.0), (0.0, 1.0))), "`extent` must be a finite increasing"),
    (dict(extent=(1.0, 2.0)), "`extent` must be a finite increasing"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        tessellate(Plane(), **{"extent": ((0.0, 1.0), (0.0, 1.0)), **kwargs})
