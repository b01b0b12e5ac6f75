"""Shared surfaces and parameter sampling for the geometry tests."""

import math

import numpy as np
import pytest
import sympy as sp

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

SQRT1_2 = math.sqrt(0.5)


def smooth_net(n_u, n_v, seed):
    """A wavy but regular control net over [0, 1]^2 (graph-like, so f_u x f_v != 0)."""
    rng = np.random.default_rng(seed)
    x, y = np.meshgrid(np.linspace(0.0, 1.0, n_u), np.linspace(0.0, 1.5, n_v), indexing="ij")
    z = 0.2 * np.sin(3.0 * x) * np.cos(2.0 * y) + 0.05 * rng.standard_normal(x.shape)
    P = np.stack((x, y, z), axis=-1)
    P[..., :2] += 0.02 * rng.standard_normal(P[..., :2].shape)
    return P


def circle_nurbs():
    """Full unit circle as a degree-2 NURBS (9 points), Piegl & Tiller ex. 7.2."""
    xy = np.array([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0)], float)
    w = np.array([1, SQRT1_2] * 4 + [1])
    knots = np.array([0, 0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1, 1, 1])
    return xy, w, knots


def nurbs_sphere(radius):
    """Sphere of revolution: full circle in u times a half circle (south to north) in v."""
    xy, wu, ku = circle_nurbs()
    rz = np.array([(0, -1), (1, -1), (1, 0), (1, 1), (0, 1)], float)
    wv = np.array([1, SQRT1_2, 1, SQRT1_2, 1])
    kv = np.array([0, 0, 0, 0.5, 0.5, 1, 1, 1])
    P = radius * np.stack((xy[:, None, 0] * rz[None, :, 0], xy[:, None, 1] * rz[None, :, 0],
                           np.broadcast_to(rz[None, :, 1], (9, 5))), axis=-1)
    return BSplineSurface(ku, kv, 2, 2, P, np.outer(wu, wv), periodic_u=True, closed=True, convex=True)


def cam_points(m=48, n=6):
    """Cam profile rho(theta) = r0 + lift(theta) extruded along z: the rows are angles."""
    theta = np.linspace(0.0, 2.0 * math.pi, m, endpoint=False)
    rho = 1.0 + 0.15 * (1.0 - np.cos(theta)) + 0.03 * np.sin(2.0 * theta)
    z = np.linspace(-0.2, 0.2, n)
    P = np.stack((np.broadcast_to((rho * np.cos(theta))[:, None], (m, n)),
                  np.broadcast_to((rho * np.sin(theta))[:, None], (m, n)),
                  np.broadcast_to(z[None, :], (m, n))), axis=-1)
    return theta, z, P


def symbolic_surface():
    u, v = sp.symbols("u v")
    expr = [(2 + sp.cos(v)) * sp.cos(u) + sp.Rational(1, 5) * u * v,
            (2 + sp.cos(v)) * sp.sin(u),
            sp.sin(v) + sp.exp(u / 3) / 10]
    return SymbolicSurface(expr, u, v, ParameterDomain((-1.0, -1.0), (1.0, 1.0)))


def _nurbs(degree_u, degree_v, n_u, n_v, seed):
    rng = np.random.default_rng(seed)
    P = smooth_net(n_u, n_v, seed)

    def knots(n, p):
        inner = np.sort(rng.uniform(0.1, 0.9, n - p - 1))
        return np.r_[np.zeros(p + 1), inner, np.ones(p + 1)]

    W = rng.uniform(0.5, 2.0, (n_u, n_v))
    return BSplineSurface(knots(n_u, degree_u), knots(n_v, degree_v), degree_u, degree_v, P, W)


def _bspline():
    P = smooth_net(7, 5, 3)
    ku = np.array([0, 0, 0, 0, 0.2, 0.45, 0.7, 1, 1, 1, 1])
    kv = np.array([0, 0, 0, 0.3, 0.6, 1, 1, 1])
    return BSplineSurface(ku, kv, 3, 2, P)


def _cam():
    theta, z, P = cam_points()
    return BSplineSurface.interpolate(P, 5, 3, periodic_u=True,
                                      u_params=np.r_[theta, 2.0 * math.pi], v_params=z)


FACTORIES = {
    "plane": lambda: Plane((0.1, -0.2, 0.3), (1.0, 2.0, 2.0), extent=((-1.0, 1.0), (-2.0, 2.0))),
    "sphere": lambda: Sphere(0.7, center=(0.1, 0.2, -0.3)),
    "ellipsoid": lambda: Ellipsoid(1.0, 0.6, 0.4, center=(0.2, -0.1, 0.05)),
    "torus": lambda: Torus(1.0, 0.3),
    "cylinder": lambda: Cylinder(0.5, 1.0),
    "bezier": lambda: BezierPatch(smooth_net(4, 5, 1)),
    "bspline": _bspline,
    "nurbs": lambda: _nurbs(3, 3, 7, 6, 2),
    "nurbs_quintic": lambda: _nurbs(5, 2, 9, 5, 4),
    "nurbs_sphere": lambda: nurbs_sphere(1.3),
    "cam": _cam,
    "symbolic": symbolic_surface,
}


@pytest.fixture(scope="session")
def surfaces():
    return {name: make() for name, make in FACTORIES.items()}


@pytest.fixture(scope="session", params=sorted(FACTORIES))
def surface(request, surfaces):
    return surfaces[request.param]


def random_params(surface, chart, rng, n, *, margin=0.3):
    """`n` parameter pairs of `chart`, 5% inside the domain (|u|, |v| <= 2 when unbounded),
    at least `margin` from the singular set and away from knot lines (where third
    derivatives jump)."""
    dom = surface.domain(chart)
    lo = np.where(np.isfinite(dom.lower), dom.lower, -2.0)
    hi = np.where(np.isfinite(dom.upper), dom.upper, 2.0)
    knots = getattr(surface, "knots", (np.array([]), np.array([])))
    out = []
    while len(out) < n:
        uv = lo + (hi - lo) * (0.05 + 0.9 * rng.random(2))
        if dom.distance_to_singular(*uv) < margin:
            continue
        if any(k.size and np.min(np.abs(k - uv[i])) < 2e-3 * (hi[i] - lo[i])
               for i, k in enumerate(knots)):
            continue
        out.append((float(uv[0]), float(uv[1])))
    return out
