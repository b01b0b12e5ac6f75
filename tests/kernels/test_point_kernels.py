"""`porthamiltonian.kernels.point.kinematics` (contact kinematics in radius-of-curvature form,
a point foot being ``M2 = 0``) against independent references:

- central differences of the foot of the normal through a moving point (`project_point`, the
  public Newton projection), for a plane, an ellipsoid and a torus;
- a second formulation: with S2's radius-of-curvature tensor ``M2 = L2^+``, the curvature form
  of `porthamiltonian.kernels.contact.kinematics` on the same ellipsoid/ellipsoid pair;
- the limit: spheres of radius r = 1e-4, 1e-6, 1e-8 about the point (`contact.kinematics`)
  converge linearly in r to the point's values.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.geometry import (Ellipsoid, Plane, Point, Sphere, Torus, closest_points, point_contact,
                                      project_point)
from porthamiltonian.kernels import contact as kc
from porthamiltonian.kernels import contact_pair as kcp
from porthamiltonian.kernels import point as kp
from porthamiltonian.lie import se3
from porthamiltonian.lie.quaternion import matrix_to_pose

SURFACES = {
    "tilted plane": (Plane(point=(0.1, -0.2, 0.05), normal=(0.2, -0.1, 1.0)), 0.3),
    "ellipsoid": (Ellipsoid(0.3, 0.5, 0.7), 1.1),
    "torus": (Torus(1.0, 0.25), 1.6),
}
P2 = np.array([0.05, -0.02, 0.1])      # the point in frame 2 [m]


def pose(rng, distance):
    """H_12 with a random rotation, the point at about `distance` from frame 1's origin."""
    H = se3.exp(np.concatenate((rng.uniform(-0.6, 0.6, 3), np.zeros(3))))
    c = rng.standard_normal(3)
    c[2] = abs(c[2]) + 0.5      # above the planes' material side; outside the closed surfaces
    c *= distance / np.linalg.norm(c)
    H[:3, 3] = c - H[:3, :3] @ P2
    return H


def foot(S1, H, warm=None):
    """The foot on S1 of the normal through the point (frame 1), its derivatives and normal."""
    c2 = H[:3, :3] @ P2 + H[:3, 3]
    if warm is None:
        pr = project_point(S1, c2, tol=1e-14)
    else:
        pr = project_point(S1, c2, uv0=(warm.u, warm.v), chart=warm.chart, tol=1e-14)
    return pr


@pytest.mark.parametrize("name", list(SURFACES))
def test_point_kinematics_match_differences_of_the_moving_foot(name):
    S1, dist = SURFACES[name]
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(8):
        H = pose(rng, dist)
        pr = foot(S1, H)
        if pr.on_boundary or pr.distance <= 0.02:   # a foot outside the point's side is not this test's subject
            continue
        T = 0.3 * rng.standard_normal(6)
        D1 = S1.derivatives(pr.u, pr.v, 2, pr.chart)
        R, d = H[:3, :3].copy(), H[:3, 3].copy()
        distance, rate, dp1, dp2, dn2, uv1, s_max, s_min = kp.kinematics(D1, P2, np.zeros((3, 3)), R, d, T)
        h = 1e-6
        Hs = [se3.exp(s * h * T) @ H for s in (1.0, -1.0)]
        prs = [foot(S1, Hk, pr) for Hk in Hs]
        assert all(p.chart == pr.chart for p in prs)
        n2 = [-Hk[:3, :3].T @ p.normal for Hk, p in zip(Hs, prs)]
        diff = lambda a, b: (np.asarray(a) - np.asarray(b)) / (2 * h)  # noqa: E731
        # round-off: the foot is converged to ~1e-14 m, divided by 2h = 2e-6: ~1e-8; the
        # truncation of the central difference is O(h^2) relative
        assert_allclose(distance, pr.distance, rtol=0, atol=1e-13)
        assert_allclose(rate, diff(prs[0].distance, prs[1].distance), rtol=1e-6, atol=1e-7)
        assert_allclose(dp1, diff(prs[0].point, prs[1].point), rtol=1e-6, atol=1e-7)
        assert_allclose(uv1, diff((prs[0].u, prs[0].v), (prs[1].u, prs[1].v)), rtol=1e-6, atol=1e-7)
        assert_allclose(dn2, diff(n2[0], n2[1]), rtol=1e-6, atol=1e-7)
        assert_allclose(dp2, 0.0, rtol=0, atol=0)   # exact: M2 = 0 times a finite vector
        assert s_min > 0.0 and s_max >= s_min
        checked += 1
    assert checked >= 4


def _radius_tensor(S2, cp):
    """S2's radius-of-curvature tensor at its contact point (frame 2): the pseudo-inverse of
    its shape operator on the tangent plane, from the public `shape_operator`."""
    L2 = S2.shape_operator(cp.x[2], cp.x[3], cp.charts[1])
    return np.linalg.pinv(L2, rcond=1e-12)


def test_the_curvature_form_agrees_with_the_shape_operator_form():
    S1, S2 = Ellipsoid(0.3, 0.5, 0.7), Ellipsoid(0.4, 0.2, 0.3)
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(8):
        H = se3.exp(np.concatenate((rng.uniform(-0.6, 0.6, 3), np.zeros(3))))
        c = rng.standard_normal(3)
        H[:3, 3] = 1.1 * c / np.linalg.norm(c)
        try:
            cp = closest_points(S1, S2, H)
        except Exception:  # noqa: BLE001 - a pose the global search cannot resolve is not this test's subject
            continue
        T = 0.3 * rng.standard_normal(6)
        D1 = S1.derivatives(cp.x[0], cp.x[1], 2, cp.charts[0])
        D2 = S2.derivatives(cp.x[2], cp.x[3], 2, cp.charts[1])
        R, d = H[:3, :3].copy(), H[:3, 3].copy()
        ref = kc.kinematics(D1, D2, R, d, T)
        got = kp.kinematics(D1, cp.p2, _radius_tensor(S2, cp), R, d, T)
        # both solve 2x2 systems of condition < 1e3 built from the same derivatives
        scale = np.linalg.norm(T) * 1.0
        assert_allclose(got[0], ref[0], rtol=0, atol=1e-14)
        assert_allclose(got[1], ref[1], rtol=0, atol=1e-12 * scale)
        assert_allclose(got[2], ref[2], rtol=0, atol=1e-11 * scale)
        assert_allclose(got[3], ref[3], rtol=0, atol=1e-11 * scale)
        assert_allclose(got[5], ref[4][:2], rtol=0, atol=1e-10 * scale)
        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("name", ["tilted plane", "ellipsoid"])
def test_a_sphere_shrinking_to_the_point_converges_linearly_to_it(name):
    """Spheres of radius r about the point: distance, rates and the sphere's contact point
    differ from the point's by O(r) (here: ``distance(r) = distance(0) - r`` and
    ``dp2(r) = r dn2`` exactly, the rest equal), checked at r = 1e-4, 1e-6, 1e-8 with a
    constant of 2 (in the units of each quantity per metre of radius, T of order 1) plus a
    round-off bound that grows as 1/r: the sphere's curvature 1/r enters its contact matrix
    (``eps / r`` relative, 1e-8 at r = 1e-8)."""
    S1, dist = SURFACES[name]
    rng = np.random.default_rng(3)
    H = pose(rng, dist)
    T = 0.3 * rng.standard_normal(6)
    R, d = H[:3, :3].copy(), H[:3, 3].copy()
    pr = foot(S1, H)
    D1 = S1.derivatives(pr.u, pr.v, 2, pr.chart)
    d0, r0, dp10, dp20, dn20, uv0, _, _ = kp.kinematics(D1, P2, np.zeros((3, 3)), R, d, T)
    errors = []
    for r in (1e-4, 1e-6, 1e-8):
        S2 = Sphere(r, center=P2)
        # warm start at the limit's solution (the hot path's call: only the local refinement)
        c2, u2, v2 = S2.best_chart(*S2._parameters(tuple(-R.T @ pr.normal), 0), 0)
        cp = closest_points(S1, S2, H, x0=(pr.u, pr.v, u2, v2), charts=(pr.chart, c2))
        D1s = S1.derivatives(cp.x[0], cp.x[1], 2, cp.charts[0])
        D2s = S2.derivatives(cp.x[2], cp.x[3], 2, cp.charts[1])
        distance, rate, dp1, dp2, x_rate, _, _ = kc.kinematics(D1s, D2s, R, d, T)
        bound = 2.0 * r + 1e-15 / r + 1e-12
        err = {
            "distance": abs(distance - d0),
            "rate": abs(rate - r0),
            "dp1": np.max(np.abs(dp1 - dp10)),
            "dp2": np.max(np.abs(dp2 - dp20)),
        }
        for key, e in err.items():
            assert e <= bound, (r, key, e, bound)
        assert_allclose(distance, d0 - r, rtol=0, atol=1e-12)
        assert_allclose(dp2, r * dn20, rtol=0, atol=1e-15 / r + 1e-12)
        errors.append(err["distance"])
    # linear, not faster or slower: the distance error shrinks by the radius ratio
    assert_allclose(errors[0] / errors[1], 100.0, rtol=1e-3)


# ---- the point branch of the contact-pair stage (`kernels.contact_pair.point_pair_state`,
# `point_evaluate`, `point_rates`): against the Python projection (`point_contact`, a second
# Newton) and central differences of the stage's own outputs along a motion of the point

def _stage(S1, H, x0=np.zeros(4), c1=0):
    F, I = S1._kernel_spec
    return kcp.point_pair_state(F, I, P2, H, np.asarray(x0, dtype=float), c1, 1.0, 1e-14, 50, 0.5, np.eye(4),
                                np.eye(4), 1e-9)


@pytest.mark.parametrize("name", ["tilted plane", "ellipsoid"])
def test_point_pair_stage_matches_the_projection_and_differences_of_itself(name):
    S1, dist = SURFACES[name]
    rng = np.random.default_rng(17)
    checked = 0
    for _ in range(6):
        H = pose(rng, dist)
        pc = point_contact(S1, Point(P2), H, tol=1e-14)
        if pc.distance <= 0.02:   # a foot outside the point's side is not this test's subject
            continue
        (ok, x, c1, c2, _, D1, D2, n1, n2, distance, margin, gap, _, H_1C, G_a, G_b) = _stage(
            S1, H, (pc.u1, pc.v1, 0.0, 0.0), pc.chart1)
        assert ok and c2 == 0 and x[2] == 0.0 and x[3] == 0.0   # exact: the point has no parameters
        # two Newton iterations converged to 1e-14 m of the same foot
        assert_allclose(D1[0, 0], pc.p1, rtol=0, atol=1e-12)
        assert_allclose(n1, pc.n1, rtol=0, atol=1e-12)
        assert_allclose(n2, pc.n2, rtol=0, atol=1e-12)
        assert_allclose(distance, pc.distance, rtol=0, atol=1e-12)
        assert_allclose(margin, pc.margin, rtol=0, atol=1e-12)
        assert_allclose(D2[0, 0], P2, rtol=0, atol=0)   # exact: the point itself, copied
        assert gap < 1e-12
        assert_allclose(H_1C[:3, 2], n1, rtol=0, atol=1e-15)   # the contact normal is S1's
        # the body twist of b (a fixed at the identity): T12 = Ad(H_12) T_b
        T_b = 0.3 * rng.standard_normal(6)
        T_C, rate, dp1, dn1, uv1, s_max, s_min = kcp.point_rates(D1, P2, H, H_1C, G_a, G_b, np.eye(6), np.eye(6),
                                                                 np.zeros(6), T_b)
        T12 = se3.Ad(H) @ T_b
        h = 1e-6
        outs = []
        for s in (1.0, -1.0):
            Hs = se3.exp(s * h * T12) @ H
            outs.append((_stage(S1, Hs, x, c1), Hs))
        assert all(o[0][0] and o[0][2] == c1 for o in outs)
        diff = lambda k: (np.asarray(outs[0][0][k]) - np.asarray(outs[1][0][k])) / (2 * h)  # noqa: E731
        # round-off: outputs converged to ~1e-14 over 2h = 2e-6: ~1e-8; truncation O(h^2)
        assert_allclose(rate, diff(9), rtol=1e-6, atol=1e-7)
        assert_allclose(dp1, (outs[0][0][5][0, 0] - outs[1][0][5][0, 0]) / (2 * h), rtol=1e-6, atol=1e-7)
        assert_allclose(dn1, diff(7), rtol=1e-6, atol=1e-7)
        assert_allclose(uv1, diff(1)[:2], rtol=1e-6, atol=1e-7)
        # T_C: the motion of body b's material point at the contact frame's origin, and its
        # angular velocity, in the contact frame
        q2 = np.linalg.solve(H, np.append(H_1C[:3, 3], 1.0))
        vel = ((outs[0][1] @ q2)[:3] - (outs[1][1] @ q2)[:3]) / (2 * h)
        assert_allclose(T_C[3:], H_1C[:3, :3].T @ vel, rtol=1e-6, atol=1e-7)
        assert_allclose(T_C[:3], H_1C[:3, :3].T @ T12[:3], rtol=0, atol=1e-14)
        assert_allclose(T_C[5], rate, rtol=0, atol=1e-14)   # the gap rate is the normal velocity
        assert s_min > 0.0 and s_max >= s_min
        # the same stage from the bodies' poses (body b moving, a fixed at the identity)
        res = kcp.point_evaluate(*S1._kernel_spec, P2, np.zeros(0), matrix_to_pose(H), np.eye(4), np.eye(4), x, c1,
                                 1.0, 1e-14, 50, 0.5, np.eye(4), np.eye(4), 1e-9)
        assert res[0] == kcp.OK
        assert_allclose(res[10], distance, rtol=0, atol=1e-13)   # the pose's quaternion round trip
        checked += 1
    assert checked >= 3


def test_point_pair_stage_reports_a_foot_off_the_edge_of_a_bounded_plane():
    """A foot of the normal outside a bounded plane has no normal to take: the stage reports
    it (not converged), and `point_contact` raises naming the rule."""
    S1 = Plane(extent=((-0.2, 0.2), (-0.2, 0.2)))
    H = np.eye(4)
    H[:3, 3] = (0.5, 0.0, 0.1)      # the point above x = 0.55, past the edge at 0.2
    assert not _stage(S1, H)[0]
    H[:3, 3] = (0.05, 0.0, 0.1)
    assert _stage(S1, H)[0]
