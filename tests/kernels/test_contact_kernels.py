"""The compiled contact kernels against independent references.

- `kinematics`: the rates of the exact contact points and of the signed distance against
  central differences of fresh closest-point solutions along the relative motion.
- `frame_rates`: the contact frame's axes differentiated the same way.
- `evaluate` (the pair state from body poses): contact frame and twist maps against the
  numpy Lie-group formulas and the public `contact_frame`.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.contact import contact_frame
from porthamiltonian.geometry import Ellipsoid, Plane, Sphere, Torus, closest_points
from porthamiltonian.geometry.closest import DEFAULT_TOL, _pair_scale
from porthamiltonian.geometry.surface import REGULARITY_TOL
from porthamiltonian.kernels import contact as kc
from porthamiltonian.lie import quaternion, se3

#: arrays per call of `evaluate` on a touching sphere on a plane, as counted after issue 33's
#: change with numba 0.68 (78 before); `test_the_sphere_on_plane_pair_state_allocates_little_beyond_what_it_returns`
ALLOCATION_BOUND = 24

PAIRS = {
    "ellipsoid/ellipsoid": (Ellipsoid(0.3, 0.5, 0.7), Ellipsoid(0.4, 0.2, 0.3), 1.1),
    "plane/ellipsoid": (Plane(), Ellipsoid(0.4, 0.2, 0.3), 0.3),
    "torus/sphere": (Torus(1.0, 0.25), Sphere(0.2), 1.4),
}


def pose(rng, distance):
    H = se3.exp(np.concatenate((rng.uniform(-0.6, 0.6, 3), np.zeros(3))))
    H[:3, 3] = rng.standard_normal(3)
    H[:3, 3] *= distance / np.linalg.norm(H[:3, 3])
    return H


def solution(S1, S2, H, cp):
    """Exact contact points at H near a known solution (warm start), derivatives of order 2."""
    c = closest_points(S1, S2, H, x0=cp.x, charts=cp.charts)
    assert tuple(c.charts) == tuple(cp.charts)
    return c


@pytest.mark.parametrize("name", list(PAIRS))
def test_kinematics_and_frame_rates_match_differences(name):
    S1, S2, dist = PAIRS[name]
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(8):
        H = pose(rng, dist)
        try:
            cp = closest_points(S1, S2, H)
        except Exception:  # a pose the global search cannot resolve is not this test's subject
            continue
        if cp.curvature_margin <= 0.0:
            continue
        T = 0.3 * rng.standard_normal(6)    # twist of 2 relative to 1, in frame 1
        D1 = S1.derivatives(cp.x[0], cp.x[1], 2, cp.charts[0])
        D2 = S2.derivatives(cp.x[2], cp.x[3], 2, cp.charts[1])
        R, d = H[:3, :3].copy(), H[:3, 3].copy()
        distance, rate, dp1, dp2, x_rate, s_max, s_min = kc.kinematics(D1, D2, R, d, T)
        H_1C = kc.frame(D1, cp.n1, cp.distance, 0.5)
        _, _, _, dn1, dex, dey = kc.frame_rates(D1, D2, R, d, T, H_1C)
        h = 1e-6
        sols = [solution(S1, S2, se3.exp(s * h * T) @ H, cp) for s in (1.0, -1.0)]
        frames = [kc.frame(S1.derivatives(c.x[0], c.x[1], 2, c.charts[0]), c.n1, c.distance, 0.5) for c in sols]
        diff = lambda a, b: (a - b) / (2 * h)  # noqa: E731
        assert_allclose(distance, cp.distance, atol=1e-14)
        assert_allclose(rate, diff(sols[0].distance, sols[1].distance), rtol=1e-6, atol=1e-8)
        assert_allclose(x_rate, diff(sols[0].x, sols[1].x), rtol=1e-6, atol=1e-7)
        assert_allclose(dp1, diff(sols[0].p1, sols[1].p1), rtol=1e-6, atol=1e-7)
        assert_allclose(dp2, diff(sols[0].p2, sols[1].p2), rtol=1e-6, atol=1e-7)
        assert_allclose(dn1, diff(sols[0].n1, sols[1].n1), rtol=1e-6, atol=1e-7)
        assert_allclose(dex, diff(frames[0][:3, 0], frames[1][:3, 0]), rtol=1e-6, atol=1e-7)
        assert_allclose(dey, diff(frames[0][:3, 1], frames[1][:3, 1]), rtol=1e-6, atol=1e-7)
        assert s_min > 0.0 and s_max >= s_min
        checked += 1
    assert checked >= 4


def test_evaluate_matches_the_lie_group_formulas():
    rng = np.random.default_rng(12)
    S1, S2 = Ellipsoid(0.3, 0.5, 0.7), Ellipsoid(0.4, 0.2, 0.3)
    H_aS1 = se3.exp(rng.standard_normal(6) * 0.2)
    H_bS2 = se3.exp(rng.standard_normal(6) * 0.2)
    for _ in range(5):
        pa = quaternion.matrix_to_pose(se3.exp(rng.standard_normal(6)))
        H_Wa = quaternion.pose_to_matrix(pa)
        H_12 = pose(rng, 1.2)
        # the pose of b that puts S2 at H_12 in S1's frame
        H_Wb = H_Wa @ H_aS1 @ H_12 @ se3.inverse(H_bS2)
        pb = quaternion.matrix_to_pose(H_Wb)
        cp = closest_points(S1, S2, H_12)
        (F1, I1), (F2, I2) = S1._kernel_spec, S2._kernel_spec
        out = kc.evaluate(F1, I1, F2, I2, pa, pb, np.eye(4), np.eye(4), np.array(cp.x), cp.charts[0], cp.charts[1],
                          _pair_scale(S1, S2), DEFAULT_TOL, 50, 0.5, se3.inverse(H_aS1), H_bS2, REGULARITY_TOL)
        status, H12k, x, c1, c2 = out[:5]
        H_1C, G_a, G_b = out[14:]
        assert status == kc.OK
        assert_allclose(H12k, H_12, atol=1e-12)
        assert_allclose(x, cp.x, atol=1e-9)
        ref = contact_frame(S1, S2, cp.x, H_12, charts=cp.charts, alpha=0.5).H_1C
        assert_allclose(H_1C, ref, atol=1e-9)
        # T_C = G_b T_b - G_a T_a with T_C the twist of b relative to a in C
        T_a, T_b = rng.standard_normal(6), rng.standard_normal(6)
        T_rel_W = se3.Ad(H_Wb) @ T_b - se3.Ad(H_Wa) @ T_a
        H_WC = H_Wa @ H_aS1 @ H_1C
        assert_allclose(G_b @ T_b - G_a @ T_a, se3.Ad(se3.inverse(H_WC)) @ T_rel_W, atol=1e-10)


def test_evaluate_asks_for_a_rechart_near_a_pole():
    """A warm start 0.02 rad from the south pole of chart 0 is not used: the kernel asks for a
    rechart, except for a pair with a closed form (plane/sphere), which needs no start."""
    pb = np.array((1.0, 0, 0, 0, 0, 0, 0.19))
    x0 = np.array((0.0, 0.0, 0.0, -1.55))
    for S1, status in ((Ellipsoid(2.0, 1.5, 0.1, center=(0.0, 0.0, -0.1)), kc.NEEDS_RECHART), (Plane(), kc.OK)):
        S2 = Sphere(0.2)
        (F1, I1), (F2, I2) = S1._kernel_spec, S2._kernel_spec
        out = kc.evaluate(F1, I1, F2, I2, np.zeros(0), pb, np.eye(4), np.eye(4), x0, 0, 0, _pair_scale(S1, S2),
                          DEFAULT_TOL, 50, 0.5, np.eye(4), np.eye(4), REGULARITY_TOL)
        assert out[0] == status
    assert out[5] == 0 and out[4] == 1               # no Newton iteration, the sphere in chart 1
    assert_allclose(out[10], -0.01, atol=1e-15)      # distance: centre 0.19 above the plane


def _arrays_per_call(fn, args, calls=50):
    """Arrays numba's runtime allocates per call of the compiled `fn` (its allocation counter,
    switched on here as ``NUMBA_NRT_STATS=1`` would at start-up), called in a compiled loop so
    that the boxing of the arguments is not counted."""
    import numba
    from numba.core.runtime import _nrt_python, rtsys

    @numba.njit
    def loop(n, args):
        for _ in range(n):
            fn(*args)

    loop(1, args)
    _nrt_python.memsys_enable_stats()
    try:
        counts = []
        for n in (0, calls):   # 0 calls: what passing the arguments in costs, subtracted
            before = rtsys.get_allocation_stats().alloc
            loop(n, args)
            counts.append(rtsys.get_allocation_stats().alloc - before)
        return (counts[1] - counts[0]) / calls
    finally:
        _nrt_python.memsys_disable_stats()


def test_the_sphere_on_plane_pair_state_allocates_little_beyond_what_it_returns():
    """Issue 33: the pair stage of a touching sphere foot on a plane (closed form, Newton's
    confirming evaluation, finish, frame and twist maps) ran through 78 arrays per evaluation,
    each an allocation and atomic reference counts. It returns 9 (H_12, x, D1, D2, n1, n2,
    H_1C, G_a, G_b); the intermediates are now tuples or one scratch array. The bound is the
    count measured after the change (a rise means a new temporary array in the hot path)."""
    S1, S2 = Plane(), Sphere(0.2)
    (F1, I1), (F2, I2) = S1._kernel_spec, S2._kernel_spec
    pb = np.array((0.96, 0.1, -0.2, 0.05, 0.3, -0.1, 0.19))
    args = (F1, I1, F2, I2, np.zeros(0), pb, np.eye(4), np.eye(4), np.zeros(4), 0, 1, _pair_scale(S1, S2),
            DEFAULT_TOL, 50, 0.5, np.eye(4), np.eye(4), REGULARITY_TOL)
    out = kc.evaluate(*args)
    assert out[0] == kc.OK and out[5] == 0          # the closed form, confirmed without iterating
    assert _arrays_per_call(kc.evaluate, args) <= ALLOCATION_BOUND


def test_relative_twist_with_surfaces_posed_in_their_bodies():
    rng = np.random.default_rng(13)
    H_aS1, H_bS2 = se3.exp(rng.standard_normal(6)), se3.exp(rng.standard_normal(6))
    H_Wa, H_Wb = se3.exp(rng.standard_normal(6)), se3.exp(rng.standard_normal(6))
    H_12 = kc.relative_pose(se3.inverse(H_aS1), H_bS2, H_Wa, H_Wb)
    assert_allclose(H_12, se3.inverse(H_Wa @ H_aS1) @ H_Wb @ H_bS2, atol=1e-12)
    T_a, T_b = rng.standard_normal(6), rng.standard_normal(6)
    T12 = kc.relative_twist(H_12, se3.Ad(se3.inverse(H_bS2)), se3.Ad(se3.inverse(H_aS1)), T_a, T_b)
    # the twist of S2 relative to S1 in frame 1: world twists of the two surface frames, moved into frame 1
    H_W1 = H_Wa @ H_aS1
    T_rel_W = se3.Ad(H_Wb) @ T_b - se3.Ad(H_Wa) @ T_a
    assert_allclose(T12, se3.Ad(se3.inverse(H_W1)) @ T_rel_W, atol=1e-10)
