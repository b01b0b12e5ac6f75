"""Sliding-plane speeds and centripetal accelerations: seed 001 examples and cross-checks."""

import math

import numpy as np
import pytest
import sympy as sp
from numpy.testing import assert_allclose

from porthamiltonian.contact import (
    centripetal_accelerations,
    contact_kinematics,
    contact_pose,
    sliding_plane_rates,
)
from porthamiltonian.geometry import ParameterDomain, Plane, SymbolicSurface, closest_points
from porthamiltonian.lie import se3, so3

TWO_PI = 2.0 * math.pi


def wheel(radius, tube=0.05):
    """The wheel of seed 001 sec. 6.2 as a thin torus about z, with the seed's parameter
    ``u in [0, 1)``: its equator ``v = 0`` is the circle ``R (sin 2 pi u, -cos 2 pi u)`` of
    rolling radius ``R = radius`` (point contact with a plane, unlike a cylinder)."""
    u, v = sp.symbols("u v")
    rho = radius - tube + tube * sp.cos(v)
    expr = [rho * sp.sin(TWO_PI * u), -rho * sp.cos(TWO_PI * u), tube * sp.sin(v)]
    dom = ParameterDomain((0.0, -math.pi), (1.0, math.pi), (True, True))
    return SymbolicSurface(expr, u, v, dom)


def ball(radius, inward):
    """Sphere with the seed's longitude ``u in [0, 1)``: ``R (cos v sin 2 pi u, -cos v cos 2 pi u,
    +-sin v)``. With ``inward`` the orientation is reversed, so that the normal points to the
    centre: the wall of a spherical hole, concave as seen from the shaft (seed 001 eq. 44)."""
    u, v = sp.symbols("u v")
    s = -1 if inward else 1
    expr = [radius * sp.cos(v) * sp.sin(TWO_PI * u), -radius * sp.cos(v) * sp.cos(TWO_PI * u),
            s * radius * sp.sin(v)]
    dom = ParameterDomain((0.0, -math.pi / 2), (1.0, math.pi / 2), (True, False),
                          singular_v=(-math.pi / 2, math.pi / 2))
    return SymbolicSurface(expr, u, v, dom)


def planar_pose(angle, x, y):
    return se3.make(so3.exp(np.array((0.0, 0.0, angle))), np.array((x, y, 0.0)))


def planar_twist(H_W, angle_rate, x_rate):
    """Spatial twist in W of a body at H_W turning at angle_rate about z and translating
    along x at x_rate: ``(w, p_dot - w x p)``."""
    w = np.array((0.0, 0.0, angle_rate))
    return np.r_[w, np.array((x_rate, 0.0, 0.0)) - np.cross(w, H_W[:3, 3])]


@pytest.mark.parametrize("q_theta", [0.0, 0.7, -2.3])
@pytest.mark.parametrize("q_theta_rate", [1.3, -0.4])
def test_wheel_on_plane(q_theta, q_theta_rate):
    """Seed 001 sec. 6.2: spindle fixed, the wheel turns (slipping): eqs. (41)-(42)."""
    R = 0.35
    W, G = wheel(R), Plane(normal=(0.0, 1.0, 0.0), u_axis=(1.0, 0.0, 0.0))
    H_W1 = planar_pose(q_theta, 0.0, R)              # wheel frame at the spindle
    H_12 = se3.inverse(H_W1)                          # ground in the wheel frame
    # ground relative to wheel, in the wheel frame: -(body twist of the wheel) = -q' e_z
    T_12 = np.array((0.0, 0.0, -q_theta_rate, 0.0, 0.0, 0.0))
    x = ((-q_theta / TWO_PI) % 1.0, 0.0, 0.0, 0.0)    # contact: 2 pi u1 + q_theta = 0 (mod 2 pi)
    # (absolute tolerances 1e-14: round-off of 2 pi u1, u1 up to 1)
    assert_allclose(H_W1[:3, :3] @ W.point(x[0], x[1]) + H_W1[:3, 3], 0.0, rtol=0, atol=1e-14)
    rates = sliding_plane_rates(W, G, x, H_12, T_12)
    assert_allclose(rates, (-q_theta_rate / TWO_PI, 0.0, 0.0, 0.0), rtol=0, atol=1e-14)
    a1, a2 = centripetal_accelerations(W, G, x, rates)
    # eq. (42): P''_perp = D_y R q'^2 in world axes; the ground marker does not accelerate
    assert_allclose(H_W1[:3, :3] @ a1, (0.0, R * q_theta_rate ** 2, 0.0), rtol=1e-13, atol=1e-14)
    # bit-exact on every CPU: the ground marker's terms are products with exact zeros
    assert_allclose(a2, 0.0, rtol=0, atol=0)
    # the generalized kinematics agree at Delta = 0
    k = contact_kinematics(W, G, x, H_12, T_12)
    assert_allclose(k.x_rate, rates, rtol=0, atol=1e-14)


@pytest.mark.parametrize("state", [(0.3, -0.5, 1.2, 0.4, 0.1, -0.2),
                                   (-1.0, 2.0, 0.0, -0.3, 0.5, 0.7)])
def test_clearance_in_a_revolute_pair(state):
    """Seed 001 sec. 6.3: a shaft (radius R2) in a hole (R1), touching at the bottom.

    The circles of the seed become a sphere in a spherical hole (point contact in 3D; the
    motion stays in the plane z = 0). Expected (eq. 46), with ``e = R1 - R2`` and
    ``v_rel = x2' - x1'``::

        u1' = v_rel / (2 pi e) - alpha1' / (2 pi),    u2' = v_rel / (2 pi e) - alpha2' / (2 pi)

    and the centripetal terms ``R_i (2 pi u_i')^2`` along ``D_y``. Eqs. (47)-(48) as printed
    carry ``- alpha_i' v_rel / e`` where ``(v_rel / e - alpha_i')^2`` gives ``- 2 alpha_i' v_rel
    / e``; their own limit, eq. (49), ``P'' = v_re^2 / e`` with ``v_re = v_rel - e alpha1'``,
    needs the factor 2, so the squares are used here.
    """
    R1, R2 = 0.5, 0.42
    alpha1, alpha2, xd1, xd2, ad1, ad2 = state
    x1 = x2 = 0.25                                   # centres on one vertical: contact at y = 0
    hole, shaft = ball(R1, inward=True), ball(R2, inward=False)
    H_W1, H_W2 = planar_pose(alpha1, x1, R1), planar_pose(alpha2, x2, R2)
    H_12 = se3.inverse(H_W1) @ H_W2
    T_12 = se3.Ad_inv(H_W1) @ (planar_twist(H_W2, ad2, xd2) - planar_twist(H_W1, ad1, xd1))
    x = ((-alpha1 / TWO_PI) % 1.0, 0.0, (-alpha2 / TWO_PI) % 1.0, 0.0)
    # the seed's parametrization: contact points coincide, normals of eq. (44)
    assert_allclose(se3.inverse(H_12)[:3, :3] @ hole.point(x[0], x[1]) + se3.inverse(H_12)[:3, 3],
                    shaft.point(x[2], x[3]), rtol=0, atol=1e-14)
    assert_allclose(H_W1[:3, :3] @ hole.normal(x[0], x[1]), (0.0, 1.0, 0.0), rtol=0, atol=1e-14)
    rates = sliding_plane_rates(hole, shaft, x, H_12, T_12)
    e, v_rel = R1 - R2, xd2 - xd1
    expected = (v_rel / (TWO_PI * e) - ad1 / TWO_PI, 0.0, v_rel / (TWO_PI * e) - ad2 / TWO_PI, 0.0)
    assert_allclose(rates, expected, rtol=1e-13, atol=1e-14)
    a1, a2 = centripetal_accelerations(hole, shaft, x, rates)
    # accelerations up to ~50 m/s^2: absolute round-off ~1e-13
    assert_allclose(H_W1[:3, :3] @ a1, (0.0, R1 * (v_rel / e - ad1) ** 2, 0.0), rtol=1e-13,
                    atol=1e-12)
    assert_allclose(H_W2[:3, :3] @ a2, (0.0, R2 * (v_rel / e - ad2) ** 2, 0.0), rtol=1e-13,
                    atol=1e-12)
    assert_allclose(contact_kinematics(hole, shaft, x, H_12, T_12).x_rate, rates, rtol=1e-12,
                    atol=1e-15)


def test_sliding_plane_equals_generalized_kinematics_at_contact(pairs):
    """Two formulations of one speed problem: seed 001 eq. (23) and MATH.md sec. 3 at
    Delta = 0, on touching poses built from contact coordinates."""
    rng = np.random.default_rng(51)
    for name, pair in pairs.items():
        S1, S2 = pair.S1, pair.S2
        H = next(H for H, r in pair.cases if r.distance > 0.0)
        charts = closest_points(S1, S2, H).charts
        x = pair.solve(H, charts).x
        H = contact_pose(S1, S2, np.r_[x, rng.uniform(-math.pi, math.pi)], charts=charts)
        T = rng.normal(size=6)
        assert_allclose(sliding_plane_rates(S1, S2, x, H, T, charts=charts),
                        contact_kinematics(S1, S2, x, H, T, charts=charts).x_rate, rtol=1e-10,
                        atol=1e-12, err_msg=name)


def test_centripetal_accelerations_are_second_derivatives(pairs):
    """Along u(t) = u0 + u' t (no parameter acceleration) the marker acceleration is the
    centripetal term (central second differences)."""
    rng = np.random.default_rng(52)
    pair = pairs["nurbs/sphere"]
    S1, S2 = pair.S1, pair.S2
    x = pair.cases[0][1].x
    rates = 0.3 * rng.normal(size=4)
    a1, a2 = centripetal_accelerations(S1, S2, x, rates)
    h = 1e-4
    for S, a, k in ((S1, a1, 0), (S2, a2, 2)):
        def f(t):
            return S.point(x[k] + t * rates[k], x[k + 1] + t * rates[k + 1])

        fd = (f(h) - 2.0 * f(0.0) + f(-h)) / (h * h)
        # second differences lose about half the digits: 1e-6 relative
        assert_allclose(a, fd, rtol=1e-6, atol=1e-7)
