"""Closest points of a very small sphere (a walker's foot, down to 1 um) far from its
frame's origin: the gap tolerance is not below the round-off of the positions (issue 36)."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.geometry.closest import DEFAULT_TOL, closest_points
from porthamiltonian.kernels.closest import GAP_ROUNDOFF, gap_tolerance

EPS = np.finfo(float).eps


def _foot_on_slope(radius, along, k):
    """Pose of a plane (body 2) in a foot's frame (body 1): the foot sphere sits at the end of
    a 1 m spoke (the sphere's centre 1 m from its body's origin), touching a plane tilted
    by a random rotation and whose contact point is `along` metres from the plane's origin
    (the wheel has rolled that far down the slope)."""
    R = Rotation.random(random_state=k).as_matrix()
    center = np.array([0.3, -0.2, 0.9])    # sphere centre in the body frame [m]
    n = R[:, 2]                            # the plane's normal in body 1
    t = R[:, 0]                            # a tangent of the plane, in body 1
    H = np.eye(4)
    H[:3, :3] = R
    # plane point under the sphere: centre - radius * n (touching, 1e-3 radius of penetration)
    foot = center - (1.0 - 1e-3) * radius * n
    H[:3, 3] = foot - along * t            # the plane's origin `along` metres up the slope
    return H, center


@pytest.mark.parametrize("radius", [1e-3, 1e-5, 1e-6])
@pytest.mark.parametrize("along", [0.0, 2.2, 10.0])
def test_small_sphere_far_along_a_plane(radius, along):
    S1 = Sphere(radius, center=(0.3, -0.2, 0.9))
    for k in range(8):
        H, center = _foot_on_slope(radius, along, k)
        cp = closest_points(S1, Plane(), H)
        # closed form: penetration 1e-3 radius along the plane's normal
        n = H[:3, 2]
        # the signed distance is a difference of positions of norms |p1| + |p2| + |d|
        # (|centre|, along, |d|): its round-off is a few eps times that, not relative to
        # the radius (`gap_tolerance`)
        size = np.linalg.norm(center) + along + np.linalg.norm(H[:3, 3])
        assert abs(cp.distance + 1e-3 * radius) <= 1e-3 * radius * 1e-6 + 16 * EPS * size
        assert np.allclose(cp.n1, -n, atol=1e-12)
        # warm started from the converged answer: the refinement confirms it
        again = closest_points(S1, Plane(), H, x0=cp.x, charts=cp.charts)
        assert abs(again.distance - cp.distance) <= 16 * EPS * size


def test_gap_tolerance_floor():
    # tol * scale where it is above the round-off; the round-off floor otherwise
    assert gap_tolerance(DEFAULT_TOL, 1.0, 1.0) == DEFAULT_TOL
    assert gap_tolerance(DEFAULT_TOL, 1e-6, 3.0) == GAP_ROUNDOFF * EPS * 3.0


@pytest.mark.parametrize("radius", [1e-3, 1e-4, 1e-6])
@pytest.mark.parametrize("ground", ["ellipsoid", "torus"])
def test_small_sphere_on_a_curved_surface_from_the_global_search(radius, ground):
    """A small foot on curved ground, found without a warm start: the Newton step's trust
    region was a quarter of the *smaller* surface's size for both points, so the ground's
    point crept by ~radius / 4 per iteration and the search failed for a 1e-4 m foot
    ("found no valid contact pair"). Reference: the foot of the normal through the sphere's
    centre (`project_point`, an independent 2-parameter Newton), at distance ``|c - foot| -
    radius`` (the sphere and the point share the foot)."""
    from porthamiltonian.geometry import Ellipsoid, Torus, project_point

    S1 = Ellipsoid(0.3, 0.5, 0.7) if ground == "ellipsoid" else Torus(1.0, 0.25)
    rng = np.random.default_rng(8)
    for k in range(4):
        R = Rotation.random(random_state=k).as_matrix()
        centre = np.array([0.05, -0.02, 0.1])
        e = rng.standard_normal(3)
        e[2] = abs(e[2]) + 0.5
        c = (1.2 if ground == "ellipsoid" else 1.6) * e / np.linalg.norm(e)
        H = np.eye(4)
        H[:3, :3] = R
        H[:3, 3] = c - R @ centre
        ref = project_point(S1, c, tol=1e-14)
        cp = closest_points(S1, Sphere(radius, center=centre), H)
        # the foot converges to tol * scale with scale ~ the sphere's size: 1e-11 * 3.5 r
        np.testing.assert_allclose(cp.p1, ref.point, rtol=0, atol=1e-9)
        np.testing.assert_allclose(cp.distance, ref.distance - radius, rtol=0, atol=1e-12)
