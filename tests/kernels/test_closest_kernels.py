"""The compiled closest-point refinement against the generic Newton loop and closed forms.

The generic loop (`porthamiltonian.geometry.closest._newton`, which evaluates surfaces
through their Python ``_derivatives``) is an independent implementation of the same
iteration; the closed forms (sphere/plane, sphere/sphere, ellipsoid/plane) are exact.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.geometry import BSplineSurface, Ellipsoid, Plane, Sphere, Torus, closest_points
from porthamiltonian.geometry.closest import DEFAULT_TOL, _compiled_local, _generic_local, _pair_scale
from porthamiltonian.lie import se3


def random_pose(rng, distance):
    H = se3.exp(np.concatenate((rng.uniform(-1.0, 1.0, 3), np.zeros(3))))
    H[:3, 3] = rng.standard_normal(3)
    H[:3, 3] *= distance / np.linalg.norm(H[:3, 3])
    return H


def nurbs_ball():
    u = np.linspace(-math.pi, math.pi, 25)[:-1]
    v = np.linspace(-1.3, 1.3, 9)
    X = np.array([[(0.3 * math.cos(b) * math.cos(a), 0.3 * math.cos(b) * math.sin(a), 0.3 * math.sin(b)) for b in v]
                  for a in u])
    return BSplineSurface.interpolate(X, 3, 3, periodic_u=True)


PAIRS = {
    "ellipsoid/ellipsoid": (Ellipsoid(0.3, 0.5, 0.7), Ellipsoid(0.4, 0.2, 0.3), 1.2),
    "plane/ellipsoid": (Plane(), Ellipsoid(0.4, 0.2, 0.3), 0.35),
    "sphere/torus": (Sphere(0.2), Torus(1.0, 0.25), 1.3),
    "nurbs/sphere": (nurbs_ball(), Sphere(0.2), 0.6),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_compiled_newton_equals_the_generic_loop(name):
    S1, S2, dist = PAIRS[name]
    rng = np.random.default_rng(7)
    scale = _pair_scale(S1, S2)
    compared = 0
    for _ in range(12):
        H = random_pose(rng, dist)
        try:
            cp = closest_points(S1, S2, H)
        except Exception:  # a pose whose global search fails is not what this test is about
            continue
        # start a little off the solution, in its charts
        x0 = np.array(cp.x) + 0.05 * rng.standard_normal(4)
        args = (S1, S2, H[:3, :3].tolist(), H[:3, 3].tolist(), x0.tolist(), cp.charts, scale, DEFAULT_TOL, 50)
        a, b = _compiled_local(*args), _generic_local(*args)
        assert (a.converged, a.valid, a.iterations, tuple(a.charts)) == (b.converged, b.valid, b.iterations,
                                                                        tuple(b.charts))
        assert_allclose(a.x, b.x, rtol=0, atol=1e-12)
        if a.valid:
            assert_allclose(a.distance, b.distance, rtol=0, atol=1e-13)
            assert_allclose(a.n1, b.n1, atol=1e-12)
            assert_allclose(a.S1, b.S1, rtol=1e-10, atol=1e-10)
            assert_allclose(a.K2, b.K2, rtol=1e-10, atol=1e-10)
            compared += 1
    assert compared >= 6


@pytest.mark.parametrize("seed", range(5))
def test_closed_forms(seed):
    rng = np.random.default_rng(seed)
    # sphere above a plane: distance = height - radius, contact point under the centre
    r = rng.uniform(0.1, 1.0)
    H = random_pose(rng, 1.0)
    H[2, 3] = rng.uniform(0.8 * r, 3.0 * r)
    cp = closest_points(Plane(), Sphere(r), H)
    assert_allclose(cp.distance, H[2, 3] - r, rtol=0, atol=1e-12)
    assert_allclose(cp.p1[:2], H[:2, 3], atol=1e-11)
    # two spheres: |c2 - c1| - r1 - r2
    r1, r2 = rng.uniform(0.1, 1.0, 2)
    H = random_pose(rng, rng.uniform(0.9, 2.0) * (r1 + r2))
    cp = closest_points(Sphere(r1), Sphere(r2), H)
    assert_allclose(cp.distance, np.linalg.norm(H[:3, 3]) - r1 - r2, rtol=0, atol=1e-12)
    # ellipsoid above a plane, tilted: the lowest point has height p_z - |A R^T e_z|
    a = rng.uniform(0.1, 0.6, 3)
    H = random_pose(rng, 1.0)
    H[2, 3] = 1.0
    cp = closest_points(Plane(), Ellipsoid(*a), H)
    assert_allclose(cp.distance, 1.0 - np.linalg.norm(a * H[:3, :3].T[:, 2]), rtol=0, atol=1e-12)


CLOSED = {
    "plane/ellipsoid": (Plane(), Ellipsoid(0.4, 0.2, 0.3)),
    "ellipsoid/plane": (Ellipsoid(0.25, 0.5, 0.15, center=(0.1, -0.2, 0.05)),
                        Plane(point=(0.3, 0.1, -0.2), normal=(0.2, -0.3, 1.0), u_axis=(0.0, 1.0, 0.0))),
    "sphere/plane": (Sphere(0.3, center=(0.0, 0.1, 0.0)), Plane()),
    "sphere/sphere": (Sphere(0.3), Sphere(0.2, center=(0.05, 0.0, -0.1))),
}


@pytest.mark.parametrize("name", list(CLOSED))
def test_closed_form_kernel_equals_the_sampled_search(name):
    """`kernels.closest.closed_form` against the sampled global search with Newton
    (`geometry.closest._search`), apart and penetrating, in both charts of the atlases."""
    from porthamiltonian.geometry.closest import _search
    from porthamiltonian.kernels import closest as kc

    S1, S2 = CLOSED[name]
    rng = np.random.default_rng(11)
    scale = _pair_scale(S1, S2)
    for k in range(10):
        H = random_pose(rng, 1.0)
        # place S2 so that the pair is 0.2 apart or 0.02 deep, along the contact normal
        cp = closest_points(S1, S2, H)
        H[:3, 3] += ((0.2 if k % 2 else -0.02) - cp.distance) * cp.n1
        ref = _search(S1, S2, H[:3, :3], H[:3, 3], scale, DEFAULT_TOL, 50)
        for charts in ((c1, c2) for c1 in range(S1.n_charts) for c2 in range(S2.n_charts)):
            found, x = kc.closed_form(*S1._kernel_spec, *S2._kernel_spec, H[:3, :3].copy(), H[:3, 3].copy(),
                                      *charts)
            assert found
            assert_allclose(S1.point(x[0], x[1], chart=charts[0]), ref.p1, atol=1e-10)
            assert_allclose(S2.point(x[2], x[3], chart=charts[1]), ref.p2, atol=1e-10)
        cp = closest_points(S1, S2, H)      # the public search takes the closed form
        assert cp.iterations == 0
        assert_allclose(cp.distance, ref.distance, rtol=0, atol=1e-12)


def test_closed_form_declines_what_it_does_not_cover():
    from porthamiltonian.kernels import closest as kc

    H = np.eye(4)
    H[2, 3] = 1.0
    R, d = H[:3, :3].copy(), H[:3, 3].copy()
    for S1, S2 in ((Ellipsoid(0.3, 0.5, 0.7), Ellipsoid(0.4, 0.2, 0.3)),   # Newton
                   (Sphere(0.2), Ellipsoid(0.4, 0.2, 0.3)),
                   (Plane(), Torus(1.0, 0.25)),
                   (Sphere(0.2), Sphere(0.3, center=(0.0, 0.0, -1.0))),      # coincident centres
                   (Plane(extent=((1.0, 2.0), (-1.0, 1.0))), Sphere(0.3))):  # foot off the extent
        assert not kc.closed_form(*S1._kernel_spec, *S2._kernel_spec, R, d, 0, 0)[0]


BOUNDED = {
    "ellipsoid/ellipsoid": (Ellipsoid(0.3, 0.5, 0.7), Ellipsoid(0.4, 0.2, 0.3, center=(0.1, 0.0, -0.1))),
    "plane/ellipsoid": (Plane(), Ellipsoid(0.4, 0.2, 0.3)),
    "ellipsoid/plane": CLOSED["ellipsoid/plane"],
    "sphere/torus": PAIRS["sphere/torus"][:2],
    "nurbs/sphere": PAIRS["nurbs/sphere"][:2],
}


@pytest.mark.parametrize("name", list(BOUNDED))
def test_separation_bound_is_a_lower_bound_of_the_distance(name):
    """The culling test never claims more separation than there is (exact distances from the
    global search), and against a plane it is the exact distance of an ellipsoid."""
    from porthamiltonian.kernels import closest as kc

    S1, S2 = BOUNDED[name]
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(40):
        H = random_pose(rng, rng.uniform(0.5, 3.0))
        try:
            cp = closest_points(S1, S2, H)
        except Exception:  # a pose whose global search fails is not what this test is about
            continue
        if cp.distance <= 0.0:
            continue
        bound = kc.separation_bound(S1._bound_spec, S2._bound_spec, H[:3, :3].copy(), H[:3, 3].copy())
        assert bound <= cp.distance + 1e-12
        if "plane" in name:
            assert_allclose(bound, cp.distance, rtol=0, atol=1e-12)
        checked += 1
    assert checked >= 10


def test_no_bound_where_none_is_guaranteed():
    from porthamiltonian.geometry import Cylinder, ParameterDomain, SymbolicSurface
    from porthamiltonian.kernels import closest as kc

    H = np.eye(4)
    H[2, 3] = 5.0
    R, d = H[:3, :3].copy(), H[:3, 3].copy()
    assert kc.separation_bound(Plane()._bound_spec, Plane()._bound_spec, R, d) == -math.inf
    import sympy as sp

    u, v = sp.symbols("u v")
    dom = ParameterDomain((-math.pi, -1.2), (math.pi, 1.2), (True, False))
    sym = SymbolicSurface((sp.cos(u) * sp.cos(v), sp.sin(u) * sp.cos(v), sp.sin(v)), u, v, dom)
    assert sym._bound_spec[0] == kc.BOUND_NONE
    assert kc.separation_bound(sym._bound_spec, Sphere(0.1)._bound_spec, R, d) == -math.inf
    assert Cylinder(0.1, 0.5)._bound_spec[0] == kc.BOUND_SPHERE
