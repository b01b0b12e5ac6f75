"""Generalized contact kinematics against finite differences of brute-force closest points."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp

from porthamiltonian.contact import contact_kinematics, rechart
from porthamiltonian.geometry import Ellipsoid, Plane, closest_points
from porthamiltonian.lie import se3, so3

from . import reference as ref
from .conftest import moved, parameter_difference, shifted_to_contact

FD_STEP = 1e-4
RTOL = 1e-6          # the acceptance bound; central differences reach ~1e-8 here


def relative_error(a, b):
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def poses_in_regime(pair, regime, n=2):
    """n (H_12, Reference) with Delta > 0, Delta < 0, or shifted to Delta = 0."""
    if regime == "negative":
        chosen = [(H, r) for H, r in pair.cases if r.distance < -0.02][:n]
    else:
        chosen = [(H, r) for H, r in pair.cases if r.distance > 0.02][:n]
    if regime == "zero":
        chosen = [(shifted_to_contact(H, r), None) for H, r in chosen]
    return [H for H, _ in chosen]


@pytest.mark.parametrize("regime", ["positive", "zero", "negative"])
def test_rates_match_finite_differences(pair, regime):
    rng = np.random.default_rng(31)
    S1, S2 = pair.S1, pair.S2
    poses = poses_in_regime(pair, regime)
    assert len(poses) == 2
    for H in poses:
        charts = closest_points(S1, S2, H).charts
        r = pair.solve(H, charts)
        if regime == "zero":
            assert abs(r.distance) < 1e-12
        T = np.r_[0.5 * rng.normal(size=3), 0.3 * rng.normal(size=3)]
        k = contact_kinematics(S1, S2, r.x, H, T, charts=charts)
        plus = pair.solve(moved(H, T, FD_STEP), charts)
        minus = pair.solve(moved(H, T, -FD_STEP), charts)
        h2 = 2.0 * FD_STEP
        assert_allclose(k.distance, r.distance, rtol=0, atol=1e-12)
        assert relative_error(k.distance_rate, (plus.distance - minus.distance) / h2) < RTOL
        assert relative_error(k.p1_rate, (plus.p1 - minus.p1) / h2) < RTOL
        assert relative_error(k.p2_rate, (plus.p2 - minus.p2) / h2) < RTOL
        fd_x = parameter_difference(S1, S2, charts, plus.x, minus.x) / h2
        assert relative_error(k.x_rate, fd_x) < RTOL
        # the rates are tangent to the surfaces
        assert abs(k.p1_rate @ r.n1) < 1e-12 * np.linalg.norm(k.p1_rate)
        assert abs(k.p2_rate @ r.n2) < 1e-12 * np.linalg.norm(k.p2_rate)


def smooth_motion(H0, rng):
    """A smooth H_12(t) = [exp(hat(a t)) R0, d(t)] and its frame-1 twist (w, v)."""
    a = 0.5 * rng.normal(size=3)
    b = 0.2 * rng.normal(size=3)
    c = 0.05 * rng.normal(size=3)
    R0, d0 = H0[:3, :3], H0[:3, 3]

    def d(t):
        return d0 + b * t + c * np.sin(np.pi * t)

    def H(t):
        return se3.make(so3.exp(a * t) @ R0, d(t))

    def T(t):
        # dR/dt = hat(a) R, so w = a; dd/dt = w x d + v
        dd = b + np.pi * c * np.cos(np.pi * t)
        return np.r_[a, dd - np.cross(a, d(t))]

    return H, T


def test_twist_of_the_prescribed_motion():
    """The twist used below is vee(dH/dt inv(H)) (central differences)."""
    H, T = smooth_motion(se3.exp(np.arange(6.0) / 10), np.random.default_rng(0))
    t, h = 0.4, 1e-6
    fd = se3.vee((H(t + h) - H(t - h)) / (2 * h) @ se3.inverse(H(t)))
    assert_allclose(T(t), fd, rtol=0, atol=1e-9)


@pytest.mark.parametrize("sign", [1, -1], ids=["apart", "penetrating"])
def test_integrated_parameters_track_the_contact(pair, sign):
    """Integrating only dx/dt for 1 s (no re-projection) ends at the brute-force pair."""
    rng = np.random.default_rng(41 if sign > 0 else 42)
    S1, S2 = pair.S1, pair.S2
    H0 = next(H for H, r in pair.cases if sign * r.distance > 0.02)
    H, T = smooth_motion(H0, rng)
    start = closest_points(S1, S2, H0)
    charts = start.charts

    def rhs(t, x):
        return contact_kinematics(S1, S2, x, H(t), T(t), charts=charts).x_rate

    sol = solve_ivp(rhs, (0.0, 1.0), start.x, method="DOP853", rtol=1e-12, atol=1e-12)
    assert sol.success
    end = pair.solve(H(1.0), charts)
    x1 = sol.y[:, -1]
    p1 = S1.point(x1[0], x1[1], charts[0])
    p2 = S2.point(x1[2], x1[3], charts[1])
    assert np.linalg.norm(end.p1 - start.p1) > 0.1        # the contact did travel
    assert_allclose(p1, end.p1, rtol=0, atol=1e-6)
    assert_allclose(p2, end.p2, rtol=0, atol=1e-6)
    assert_allclose(parameter_difference(S1, S2, charts, x1, end.x), 0.0, rtol=0, atol=1e-6)
    k = contact_kinematics(S1, S2, x1, H(1.0), T(1.0), charts=charts)
    assert_allclose(k.distance, end.distance, rtol=0, atol=1e-6)


def test_integration_through_a_pole_with_rechart():
    """An ellipsoid turning over a plane about y: its lowest point runs through the poles of
    chart 0 (+-z) and of chart 1 (+-x). Integrating in chunks and re-charting between them
    (`rechart`) follows it for a full turn."""
    P, E = Plane(), Ellipsoid(1.0, 0.6, 0.4)
    w = np.array((0.0, 2.0 * np.pi / 3.0, 0.0))                  # one turn in 3 s
    d = np.array((0.1, -0.2, 0.7))

    def H(t):
        return se3.make(so3.exp(w * t), d)

    T = np.r_[w, -np.cross(w, d)]                                  # dd/dt = w x d + v = 0
    start = closest_points(P, E, H(0.0))
    x, charts = start.x, start.charts
    used = {charts}
    for t0 in np.arange(0.0, 3.0, 0.1):        # 12 degrees per chunk, below the margin
        sol = solve_ivp(lambda t, y: contact_kinematics(P, E, y, H(t), T, charts=charts).x_rate,
                        (t0, t0 + 0.1), x, method="DOP853", rtol=1e-12, atol=1e-12)
        x, charts = rechart(P, E, sol.y[:, -1], charts)
        used.add(charts)
    assert used == {(0, 0), (0, 1)}
    end = ref.plane_ellipsoid(P, E, H(3.0), charts)
    assert_allclose(E.point(x[2], x[3], charts[1]), end.p2, rtol=0, atol=1e-6)
    assert_allclose(P.point(x[0], x[1]), end.p1, rtol=0, atol=1e-6)
