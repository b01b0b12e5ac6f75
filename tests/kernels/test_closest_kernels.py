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
