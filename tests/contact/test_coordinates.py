"""Kry & Pai contact coordinates: H(q) and dH/dt against finite differences of the pose."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.contact import (
    contact_coordinate_jacobian,
    contact_coordinates,
    contact_frame,
    contact_pose,
    split_twist,
)
from porthamiltonian.geometry import closest_points
from porthamiltonian.lie import se3


@pytest.fixture
def touching(pair):
    """q, charts and a rate dq/dt at a touching configuration of the pair."""
    rng = np.random.default_rng(61)
    H = next(H for H, r in pair.cases if r.distance > 0.0)
    charts = closest_points(pair.S1, pair.S2, H).charts
    x = pair.solve(H, charts).x
    q = np.r_[x, rng.uniform(-math.pi, math.pi)]
    return q, charts, 0.4 * rng.normal(size=5)


def pose_twists(S1, S2, q, dq, charts, h=1e-6):
    """Central-difference twists of H_12(q(t)), q(t) = q + t dq: in frames 1 and 2."""
    H = contact_pose(S1, S2, q, charts=charts)
    dH = (contact_pose(S1, S2, q + h * dq, charts=charts)
          - contact_pose(S1, S2, q - h * dq, charts=charts)) / (2 * h)
    return se3.vee(dH @ se3.inverse(H)), se3.vee(se3.inverse(H) @ dH)


def test_H_maps_contact_rates_to_the_relative_twist(pair, touching):
    q, charts, dq = touching
    S1, S2 = pair.S1, pair.S2
    J = contact_coordinate_jacobian(S1, S2, q, charts=charts)
    for j in range(5):                                   # column by column
        e = np.eye(5)[j]
        T1, T2 = pose_twists(S1, S2, q, e, charts)
        assert_allclose(J.H_1[:, j], T1, rtol=0, atol=1e-8)
        assert_allclose(J.H_2[:, j], T2, rtol=0, atol=1e-8)
    assert_allclose(J.H_C, se3.Ad_inv(J.H_1C) @ J.H_1, rtol=0, atol=1e-13)
    # in the contact frame the normal-translation row vanishes, the psi column is a spin
    assert_allclose(J.H_C[5], 0.0, rtol=0, atol=1e-14)
    # bit-exact on every CPU: the psi column is built from exact zeros and one
    assert_allclose(J.H_C[:, 4], (0.0, 0.0, 1.0, 0.0, 0.0, 0.0), rtol=0, atol=0)
    # the contact frame is the frame of contact_frame at the contact point
    F = contact_frame(S1, S2, q[:4], contact_pose(S1, S2, q, charts=charts), charts=charts)
    assert_allclose(F.H_1C, J.H_1C, rtol=0, atol=1e-14)
    assert abs(F.distance) < 1e-14


def test_dH_is_the_derivative_of_H(pair, touching):
    q, charts, dq = touching
    S1, S2 = pair.S1, pair.S2
    J = contact_coordinate_jacobian(S1, S2, q, charts=charts, q_rate=dq)
    h = 1e-6
    plus = contact_coordinate_jacobian(S1, S2, q + h * dq, charts=charts)
    minus = contact_coordinate_jacobian(S1, S2, q - h * dq, charts=charts)
    for name in ("H_C", "H_1", "H_2"):
        fd = (getattr(plus, name) - getattr(minus, name)) / (2 * h)
        assert_allclose(getattr(J, "d" + name), fd, rtol=0, atol=1e-8, err_msg=name)


def test_twist_from_H_keeps_contact_to_second_order(pair, touching):
    """Move along T(t) = H(q(t)) dq(t), expanded to second order in t:

        H_12(h) = exp(h T0 + h^2 / 2 dT0) H_12(0),    dT0 = H ddq + dH dq

    The surfaces stay in contact to O(h^3) (ratio 8 per halving of h); without dH the
    error is O(h^2) (ratio 4). The pose itself matches contact_pose(q(h)) to O(h^3).
    """
    q, charts, dq = touching
    S1, S2 = pair.S1, pair.S2
    ddq = 0.3 * np.random.default_rng(62).normal(size=5)
    J = contact_coordinate_jacobian(S1, S2, q, charts=charts, q_rate=dq)
    H0 = contact_pose(S1, S2, q, charts=charts)
    T0 = J.H_1 @ dq

    def errors(h, dT):
        H = se3.exp(h * T0 + 0.5 * h * h * dT) @ H0
        cp = closest_points(S1, S2, H, x0=q[:4], charts=charts, tol=1e-14)
        exact = contact_pose(S1, S2, q + h * dq + 0.5 * h * h * ddq, charts=charts)
        return abs(cp.distance), np.abs(H - exact).max()

    steps = [0.02, 0.01, 0.005]
    right = [errors(h, J.H_1 @ ddq + J.dH_1 @ dq) for h in steps]
    wrong = [errors(h, J.H_1 @ ddq) for h in steps]
    for k in range(2):
        assert 6.0 < right[k][0] / right[k + 1][0] < 10.0          # distance O(h^3)
        assert 6.0 < right[k][1] / right[k + 1][1] < 10.0          # pose O(h^3)
        assert 3.0 < wrong[k][0] / wrong[k + 1][0] < 5.0           # O(h^2) without dH
        assert 3.0 < wrong[k][1] / wrong[k + 1][1] < 5.0
    assert right[-1][0] < 0.05 * wrong[-1][0]


def test_contact_coordinates_round_trip(pair, touching):
    q, charts, _ = touching
    H = contact_pose(pair.S1, pair.S2, q, charts=charts)
    back = contact_coordinates(pair.S1, pair.S2, q[:4], H, charts=charts)
    # bit-identical on purpose: the surface parameters are passed through
    assert_allclose(back[:4], q[:4], rtol=0, atol=0)
    assert_allclose(math.remainder(back[4] - q[4], 2 * math.pi), 0.0, rtol=0, atol=1e-12)
    cp = closest_points(pair.S1, pair.S2, H, x0=q[:4], charts=charts)
    assert abs(cp.distance) < 1e-12 and cp.iterations == 0


def test_pure_rolling_has_no_sliding_part(pair, touching):
    """No-slip, no-spin rates (seed 002 eqs. 29-39): the twist is a rolling twist."""
    q, charts, dq = touching
    S1, S2 = pair.S1, pair.S2
    J = contact_coordinate_jacobian(S1, S2, q, charts=charts)
    # rows 2 (spin), 3, 4 (slip) of H_C vanish: solve for (ds, dt, dpsi) given (du, dv)
    A = J.H_C[2:5][:, [0, 1, 4]]
    b = -J.H_C[2:5][:, 2:4] @ dq[2:4]
    sol = np.linalg.solve(A, b)
    rates = np.array((sol[0], sol[1], dq[2], dq[3], sol[2]))
    T_1 = J.H_1 @ rates
    H = contact_pose(S1, S2, q, charts=charts)
    split = split_twist(T_1, contact_frame(S1, S2, q[:4], H, charts=charts).H_1C)
    assert_allclose(split.sliding, 0.0, rtol=0, atol=1e-12)
    assert np.linalg.norm(split.rolling) > 1e-3
