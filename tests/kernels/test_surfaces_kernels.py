"""The compiled surface evaluator against independent references.

Separable kinds: the closed-form parametrizations of the surfaces, differentiated by
central differences. Piecewise kinds: scipy's B-spline evaluation (de Boor, an independent
algorithm) of the same knots and control net, polynomial and rational (homogeneous
coordinates divided out), and central differences of the kernel's own lower orders.
Chart maps: the same point on the surface from both charts.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.interpolate import BSpline

from porthamiltonian.geometry import BezierPatch, BSplineSurface, Cylinder, Ellipsoid, Plane, Sphere, Torus
from porthamiltonian.kernels import surfaces as ks


def ellipsoid_point(a, b, c, u, v, chart):
    cv = math.cos(v)
    s = np.array((cv * math.cos(u), cv * math.sin(u), math.sin(v)))
    if chart == 1:
        s = s[[2, 0, 1]]
    return np.array((a, b, c)) * s


def torus_point(R, r, u, v):
    return np.array(((R + r * math.cos(v)) * math.cos(u), (R + r * math.cos(v)) * math.sin(u), r * math.sin(v)))


def cylinder_point(r, u, v):
    return np.array((r * math.cos(u), r * math.sin(u), v))


CLOSED_FORMS = [
    ("ellipsoid-0", Ellipsoid(0.3, 0.5, 0.7), 0, lambda u, v: ellipsoid_point(0.3, 0.5, 0.7, u, v, 0)),
    ("ellipsoid-1", Ellipsoid(0.3, 0.5, 0.7), 1, lambda u, v: ellipsoid_point(0.3, 0.5, 0.7, u, v, 1)),
    ("sphere-1", Sphere(0.4), 1, lambda u, v: ellipsoid_point(0.4, 0.4, 0.4, u, v, 1)),
    ("torus", Torus(1.0, 0.25), 0, lambda u, v: torus_point(1.0, 0.25, u, v)),
    ("cylinder", Cylinder(0.2, 0.5), 0, lambda u, v: cylinder_point(0.2, u, v)),
]


def partial(f, u, v, i, j, h=1e-3):
    """d^(i+j) f / du^i dv^j by nested central differences (order-h^2 accurate)."""
    if i:
        return (partial(f, u + h, v, i - 1, j, h) - partial(f, u - h, v, i - 1, j, h)) / (2 * h)
    if j:
        return (partial(f, u, v + h, i, j - 1, h) - partial(f, u, v - h, i, j - 1, h)) / (2 * h)
    return f(u, v)


@pytest.mark.parametrize("name, S, chart, f", CLOSED_FORMS, ids=[c[0] for c in CLOSED_FORMS])
def test_separable_derivatives_match_the_closed_form(name, S, chart, f):
    rng = np.random.default_rng(1)
    F, I = S._kernel_spec
    for _ in range(5):
        u, v = rng.uniform(-1.0, 1.0), rng.uniform(-0.4, 0.4)
        D = ks.derivatives(F, I, u, v, 3, chart)
        for i in range(4):
            for j in range(4 - i):
                # central differences of order i + j: error ~ h^2 times the (i+j+2)-th derivative
                assert_allclose(D[i, j], partial(f, u, v, i, j), rtol=0, atol=2e-5 * 10 ** (i + j),
                                err_msg=f"{name} D[{i}, {j}]")
        assert not np.any(D[np.add.outer(range(4), range(4)) > 3])


def test_plane_is_affine():
    P = Plane(point=(0.1, -0.2, 0.3), normal=(1.0, 2.0, 2.0))
    F, I = P._kernel_spec
    D = ks.derivatives(F, I, 0.7, -1.3, 2, 0)
    assert_allclose(D[0, 0], P.origin + 0.7 * D[1, 0] - 1.3 * D[0, 1], atol=1e-15)
    assert_allclose(np.cross(D[1, 0], D[0, 1]), P.plane_normal, atol=1e-15)
    assert np.all(D[2, 0] == 0.0) and np.all(D[1, 1] == 0.0) and np.all(D[0, 2] == 0.0)


@pytest.mark.parametrize("S", [Ellipsoid(0.3, 0.5, 0.7), Sphere(1.0)], ids=["ellipsoid", "sphere"])
def test_chart_maps_name_the_same_point(S):
    F, I = S._kernel_spec
    rng = np.random.default_rng(2)
    for _ in range(20):
        u, v = rng.uniform(-math.pi, math.pi), rng.uniform(-1.2, 1.2)
        for src, dst in ((0, 1), (1, 0)):
            uu, vv = ks.chart_map(F, I, u, v, src, dst)
            assert_allclose(ks.derivatives(F, I, uu, vv, 0, dst)[0, 0], ks.derivatives(F, I, u, v, 0, src)[0, 0],
                            atol=1e-14)
            back = ks.chart_map(F, I, uu, vv, dst, src)
            assert_allclose(ks.derivatives(F, I, *back, 0, src)[0, 0], ks.derivatives(F, I, u, v, 0, src)[0, 0],
                            atol=1e-14)


def test_best_chart_leaves_the_pole():
    S = Ellipsoid(0.3, 0.5, 0.7)
    F, I = S._kernel_spec
    chart, u, v = ks.best_chart(F, I, 0.3, 1.5, 0)
    assert chart == 1
    assert ks.distance_to_singular(F, chart, u, v) > math.pi / 2 - 0.1 - 1e-12
    assert_allclose(ks.derivatives(F, I, u, v, 0, 1)[0, 0], ks.derivatives(F, I, 0.3, 1.5, 0, 0)[0, 0], atol=1e-14)
    assert ks.best_chart(F, I, 0.3, 0.2, 0) == (0, 0.3, 0.2)


def scipy_surface(tu, tv, p, q, C):
    """Tensor-product B-spline (any trailing dimension) evaluated by scipy, with partials."""
    def evaluate(u, v, i, j):
        if i > p or j > q:
            return np.zeros(C.shape[-1])
        rows = BSpline(tu, C, p).derivative(i)(u) if i else BSpline(tu, C, p)(u)
        return BSpline(tv, rows, q).derivative(j)(v) if j else BSpline(tv, rows, q)(v)
    return evaluate


def random_bspline(rng, rational):
    p, q = 3, 2
    n_u, n_v = 7, 5
    tu = np.concatenate(([0.0] * (p + 1), [0.2, 0.45, 0.7], [1.0] * (p + 1)))
    tv = np.concatenate(([0.0] * (q + 1), [0.3, 0.6], [1.0] * (q + 1)))
    x, y = np.meshgrid(np.linspace(0, 1, n_u), np.linspace(0, 1.5, n_v), indexing="ij")
    P = np.stack((x, y, 0.2 * np.sin(3 * x) * np.cos(2 * y)), axis=-1) + 0.02 * rng.standard_normal((n_u, n_v, 3))
    W = rng.uniform(0.5, 2.0, (n_u, n_v)) if rational else None
    return tu, tv, p, q, P, W


@pytest.mark.parametrize("rational", [False, True], ids=["polynomial", "nurbs"])
def test_bspline_matches_scipy(rational):
    rng = np.random.default_rng(3)
    tu, tv, p, q, P, W = random_bspline(rng, rational)
    S = BSplineSurface(tu, tv, p, q, P, W)
    F, I = S._kernel_spec
    Pw = P if W is None else np.concatenate((P * W[..., None], W[..., None]), axis=-1)
    ref = scipy_surface(tu, tv, p, q, Pw)
    for _ in range(10):
        u, v = rng.uniform(0, 1), rng.uniform(0, 1)
        D = ks.derivatives(F, I, u, v, 3, 0)
        if W is None:
            for i in range(4):
                for j in range(4 - i):
                    assert_allclose(D[i, j], ref(u, v, i, j), rtol=1e-10, atol=1e-10)
        else:
            # the quotient's partials by Piegl & Tiller's recursion A4.4 (another algorithm than
            # the kernel's reciprocal-and-Leibniz product)
            A = [[ref(u, v, i, j) for j in range(4)] for i in range(4)]
            SKL = [[None] * 4 for _ in range(4)]
            for k in range(4):
                for l in range(4 - k):
                    x = A[k][l][:3].copy()
                    for j in range(1, l + 1):
                        x -= math.comb(l, j) * A[0][j][3] * SKL[k][l - j]
                    for i in range(1, k + 1):
                        x -= math.comb(k, i) * A[i][0][3] * SKL[k - i][l]
                        for j in range(1, l + 1):
                            x -= math.comb(k, i) * math.comb(l, j) * A[i][j][3] * SKL[k - i][l - j]
                    SKL[k][l] = x / A[0][0][3]
                    assert_allclose(D[k, l], SKL[k][l], rtol=1e-10, atol=1e-9, err_msg=f"D[{k}, {l}]")


def test_bezier_is_its_bernstein_sum():
    rng = np.random.default_rng(4)
    P = rng.standard_normal((4, 3, 3))
    S = BezierPatch(P)
    F, I = S._kernel_spec
    for u, v in rng.uniform(0, 1, (5, 2)):
        Bu = [math.comb(3, a) * u ** a * (1 - u) ** (3 - a) for a in range(4)]
        Bv = [math.comb(2, b) * v ** b * (1 - v) ** (2 - b) for b in range(3)]
        ref = np.einsum("a,b,abk->k", Bu, Bv, P)
        assert_allclose(ks.derivatives(F, I, u, v, 0, 0)[0, 0], ref, atol=1e-13)


def test_periodic_bspline_wraps():
    S = Torus(1.0, 0.3)
    rng = np.random.default_rng(5)
    u = np.linspace(-math.pi, math.pi, 33)[:-1]
    v = np.linspace(-math.pi, math.pi, 17)[:-1]
    X = np.array([[S.point(a, b) for b in v] for a in u])
    B = BSplineSurface.interpolate(np.concatenate((X, X[:, :1]), axis=1), 3, 3, periodic_u=True)
    F, I = B._kernel_spec
    lo, hi = B.domain().lower[0], B.domain().upper[0]
    for s, t in rng.uniform(0, 1, (5, 2)):
        a = lo + s * (hi - lo)
        t = B.domain().lower[1] + t * (B.domain().upper[1] - B.domain().lower[1])
        assert_allclose(ks.derivatives(F, I, a + (hi - lo), t, 2, 0), ks.derivatives(F, I, a, t, 2, 0), atol=1e-12)
