"""Every error path raises a package error with a message naming the problem."""

import math

import numpy as np
import pytest
import sympy as sp

from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import (
    BezierPatch,
    BSplineSurface,
    Cylinder,
    Ellipsoid,
    ParameterDomain,
    Plane,
    Sphere,
    SymbolicSurface,
    Torus,
)

from .conftest import nurbs_sphere, smooth_net


@pytest.mark.parametrize("make, match", [
    (lambda: Sphere(0.0), r"`radius` must be > 0, got 0.0"),
    (lambda: Sphere(-1.0), r"`radius` must be > 0"),
    (lambda: Sphere(math.inf), r"`radius` must be finite"),
    (lambda: Ellipsoid(1.0, -0.5, 1.0), r"`b` must be > 0"),
    (lambda: Ellipsoid(1.0, 1.0, 1.0, center=(0, 0)), r"`center` must have shape \(3,\)"),
    (lambda: Torus(1.0, 0.0), r"`r` must be > 0"),
    (lambda: Torus(1.0, 1.0), r"ring torus needs `r` < `R`"),
    (lambda: Cylinder(0.5, -1.0), r"`half_length` must be > 0"),
    (lambda: Plane(normal=(0, 0, 0)), r"`normal` must be nonzero"),
    (lambda: Plane(normal=(0, 0, 1), u_axis=(0, 0, 2)), r"`u_axis` must not be parallel"),
    (lambda: Plane(extent=((1, 0), (0, 1))), r"`extent` must be .* min < max"),
    (lambda: Plane.from_pose(np.eye(4) * 2), r"must be a rotation matrix"),
    (lambda: BezierPatch(np.zeros((1, 3, 3))), r"at least 2 x 2 points"),
    (lambda: ParameterDomain((0, 1), (1, 1)), r"lower < upper"),
    (lambda: ParameterDomain((0, 0), (math.inf, 1), (True, False)), r"periodic direction `u` needs finite"),
])
def test_bad_parameters(make, match):
    with pytest.raises(ParameterError, match=match):
        make()


def clamped(n, p):
    return np.r_[np.zeros(p + 1), np.linspace(0, 1, n - p + 1)[1:-1], np.ones(p + 1)]


P43 = smooth_net(4, 3, 0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(knots_u=clamped(4, 2)[:-1]), r"`knots_u` must have length n_ctrl \+ degree \+ 1 = 4 \+ 2 \+ 1 = 7, got 6"),
    (dict(knots_u=[0, 0, 0, 0.6, 0.4, 1, 1]), r"`knots_u` must be non-decreasing, got knots_u\[4\] = 0.4 < knots_u\[3\] = 0.6"),
    (dict(knots_u=[0, 0, 0, 0, 1, 1, 1]), r"knot 0.0 of `knots_u` has multiplicity 4 > degree \+ 1 = 3"),
    (dict(knots_u=[0, 0, 0, math.nan, 1, 1, 1]), r"`knots_u` must be finite"),
    (dict(knots_v=[0, 0, 0, 0, 0.5, 0.5, 0.5, 1, 1], degree_v=1, control_points=smooth_net(4, 7, 0)),
     r"knot 0.0 of `knots_v` has multiplicity 4 > degree \+ 1 = 2"),
    (dict(knots_u=[0, 0.2, 0.5, 0.5, 0.5, 1, 1]),
     r"`knots_u` spans an empty domain \[0.5, 0.5\] = \[knots_u\[2\], knots_u\[4\]\]"),
    (dict(degree_u=0), r"`degree_u` must be an integer >= 1, got 0"),
    (dict(weights=np.ones((4, 2))), r"`weights` must have shape \(4, 3\)"),
    (dict(weights=np.where(np.eye(4, 3) > 0, -1.0, 1.0)), r"`weights` must be > 0, got -1.0 at index \(0, 0\)"),
    (dict(weights=np.zeros((4, 3))), r"`weights` must be > 0, got 0.0"),
    (dict(control_points=np.zeros((2, 3, 3))), r"needs at least \(degree_u \+ 1, degree_v \+ 1\) = \(3, 2\)"),
])
def test_bad_bspline(kwargs, match):
    args = dict(knots_u=clamped(4, 2), knots_v=clamped(3, 1), degree_u=2, degree_v=1, control_points=P43)
    args.update(kwargs)
    with pytest.raises(ParameterError, match=match):
        BSplineSurface(**args)


def test_interior_knot_multiplicity_above_degree():
    with pytest.raises(ParameterError, match=r"interior knot 0.5 of `knots_u` has multiplicity 3 > degree 2"):
        BSplineSurface([0, 0, 0, 0.5, 0.5, 0.5, 1, 1, 1], clamped(3, 1), 2, 1, smooth_net(6, 3, 0))


def test_periodic_flag_on_an_open_surface():
    with pytest.raises(ParameterError, match=r"`periodic_u` is True but the surface does not close"):
        BSplineSurface(clamped(4, 2), clamped(3, 1), 2, 1, P43, periodic_u=True)


def test_convex_flag_on_a_saddle():
    x, y = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 4), indexing="ij")
    P = np.stack((x, y, x * x - y * y), axis=-1)
    with pytest.raises(GeometryError, match=r"`convex` was declared for BSplineSurface.* but it has principal curvature k2 = -"):
        BSplineSurface(clamped(4, 2), clamped(4, 2), 2, 2, P, convex=True)


@pytest.mark.parametrize("call, error, match", [
    (lambda s: s.derivatives(0.0, 2.0), GeometryError,
     r"`v` = 2.0 is outside the domain \[-1.5707963267948966, 1.5707963267948966\] of chart 0 of Ellipsoid"),
    (lambda s: s.derivatives(math.nan, 0.0), ParameterError, r"`u` must be finite"),
    (lambda s: s.derivatives("a", 0.0), ParameterError, r"`u` must be a real number"),
    (lambda s: s.derivatives(0.0, 0.0, order=4), ParameterError, r"`order` must be an integer in \[0, 1, 2, 3\], got 4"),
    (lambda s: s.derivatives(0.0, 0.0, order=1.0), ParameterError, r"`order` must be an integer"),
    (lambda s: s.derivatives(0.0, 0.0, chart=2), ParameterError, r"`chart` must be an integer in \[0, 1\], got 2"),
    (lambda s: s.normal_derivatives(0.0, 0.0, order=3), ParameterError, r"`order` must be an integer in \[0, 1, 2\]"),
    (lambda s: s.chart_map(0.0, 0.0, 0, 5), ParameterError, r"`chart`"),
    (lambda s: s.sample(1, 5), ParameterError, r"`n_u` must be an integer >= 2, got 1"),
    (lambda s: s.support((0, 0, 0)), ParameterError, r"`direction` must be nonzero"),
])
def test_bad_calls(call, error, match):
    with pytest.raises(error, match=match):
        call(Ellipsoid(1.0, 2.0, 3.0))


@pytest.mark.parametrize("method", ["normal", "normal_derivatives", "frame", "shape_operator",
                                    "second_fundamental_form", "principal_curvatures"])
def test_gauss_map_refused_at_a_pole(method):
    s = Sphere(1.0)
    with pytest.raises(GeometryError, match=r"Sphere\(.*\) is not regular at \(u, v\) = \(0.3, 1.5707963267948966\) "
                                            r"in chart 0: regularity 6.12e-17 < 1e-10 .* Use best_chart"):
        getattr(s, method)(0.3, math.pi / 2)
    assert s.regularity(0.3, math.pi / 2) < 1e-16
    assert not s.is_regular(0.3, -math.pi / 2)
    with pytest.raises(GeometryError, match=r"is not regular"):
        s.is_regular(0.3, -math.pi / 2, throw=True)


def test_one_chart_nurbs_sphere_refuses_its_poles():
    s = nurbs_sphere(1.0)
    assert s.n_charts == 1
    for v in (0.0, 1.0):
        with pytest.raises(GeometryError, match=r"BSplineSurface\(.*\) is not regular at \(u, v\) = \(0.2, "
                                                r"[01].0\) in chart 0: regularity [-0-9.e]+ < 1e-10"):
            s.normal(0.2, v)


def test_one_chart_symbolic_sphere_refuses_its_poles():
    u, v = sp.symbols("u v")
    expr = [sp.cos(v) * sp.cos(u), sp.cos(v) * sp.sin(u), sp.sin(v)]
    dom = ParameterDomain((-math.pi, -math.pi / 2), (math.pi, math.pi / 2), (True, False),
                          singular_v=(-math.pi / 2, math.pi / 2))
    s = SymbolicSurface(expr, u, v, dom)
    with pytest.raises(GeometryError, match=r"is not regular at \(u, v\) = \(0.0, -1.5707963267948966\)"):
        s.principal_curvatures(0.0, -math.pi / 2)
    with pytest.raises(GeometryError, match=r"`v` = 1.6 is outside the domain"):
        s.point(0.0, 1.6)


@pytest.mark.parametrize("make, match", [
    (lambda u, v: SymbolicSurface([u, v], u, v, ParameterDomain((0, 0), (1, 1))), r"3-vector .* got shape \(2, 1\)"),
    (lambda u, v: SymbolicSurface([u, v, sp.Symbol("a") * u], u, v, ParameterDomain((0, 0), (1, 1))),
     r"may depend only on u and v; substitute values for: a"),
    (lambda u, v: SymbolicSurface([u, v, 0], u, "v", ParameterDomain((0, 0), (1, 1))), r"`v` must be a sympy Symbol"),
    (lambda u, v: SymbolicSurface([u, v, 0], u, v, ((0, 0), (1, 1))), r"`domain` must be a ParameterDomain"),
    (lambda u, v: SymbolicSurface([u, v, sp.sqrt(u - 2)], u, v, ParameterDomain((0, 0), (1, 1))),
     r"`expr` or its derivatives are not finite at \(u, v\) = \(0.5, 0.5\)"),
    (lambda u, v: SymbolicSurface([u, v, sp.erf(sp.sqrt(u - 2))], u, v, ParameterDomain((0, 0), (1, 1))),
     r"cannot be evaluated with the math module at \(u, v\) = \(0.5, 0.5\)"),
])
def test_bad_symbolic(make, match):
    u, v = sp.symbols("u v")
    with pytest.raises(ParameterError, match=match):
        make(u, v)


def test_global_search_errors():
    with pytest.raises(GeometryError, match=r"cannot sample Plane\(.*\): chart 0 has an unbounded domain"):
        Plane().sample(3, 3)
    with pytest.raises(GeometryError, match=r"support\(\) needs a convex closed surface; Torus\(R=1.0, r=0.5\) "
                                            r"is not \(is_convex=False, is_closed=True\)"):
        Torus(1.0, 0.5).support((1, 0, 0))


def test_interpolation_errors():
    P = smooth_net(4, 4, 0)
    with pytest.raises(ParameterError, match=r"`points` needs more than \(degree_u, degree_v\) = \(5, 3\)"):
        BSplineSurface.interpolate(P, 5, 3)
    with pytest.raises(ParameterError, match=r"`u_params` must be strictly increasing"):
        BSplineSurface.interpolate(P, 3, 3, u_params=[0, 1, 1, 2])
    with pytest.raises(ParameterError, match=r"`u_params` must have shape \(5,\), got \(4,\)"):
        BSplineSurface.interpolate(P, 3, 3, periodic_u=True, u_params=[0, 1, 2, 3])
    with pytest.raises(GeometryError, match=r"cannot parametrize the grid along axis 0: all points coincide"):
        BSplineSurface.interpolate(np.zeros((4, 4, 3)), 2, 2)
