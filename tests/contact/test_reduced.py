"""Reduced contact-coordinate dynamics (Kry & Pai): finite differences of the constrained
motion, the sliding-plane formulation of the same mechanism, closed-form rocking frequencies
and the sliding-to-rolling transition of a ball."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp

import porthamiltonian as ph
from porthamiltonian.contact import contact_coordinate_jacobian, contact_pose
from porthamiltonian.contact.reduced import body_motion, reduced_coordinates_from, reduced_dynamics
from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import Ellipsoid, Plane, Sphere, closest_points
from porthamiltonian.integrate.fixed_step import RK4
from porthamiltonian.library.rigid_body import pose_vector, spatial_inertia
from porthamiltonian.lie import quaternion, se3
from porthamiltonian.models import build_model

G = 9.81


@pytest.fixture
def touching(pair):
    """q, charts, a random SPD inertia and free momentum rate, a random rate dq/dt."""
    rng = np.random.default_rng(83)
    H = next(H for H, r in pair.cases if r.distance > 0.0)
    charts = closest_points(pair.S1, pair.S2, H).charts
    q = np.r_[pair.solve(H, charts).x, rng.uniform(-math.pi, math.pi)]
    A = rng.normal(size=(6, 6))
    return q, charts, A @ A.T + 6.0 * np.eye(6), rng.normal(size=6), 0.3 * rng.normal(size=5)


def twist_along(S1, S2, q, qd, qdd, charts, t):
    """Body twist of body 2 at time t along q(t) = q + t dq + t^2/2 ddq."""
    q_t, qd_t = q + t * qd + 0.5 * t * t * qdd, qd + t * qdd
    return contact_coordinate_jacobian(S1, S2, q_t, charts=charts).H_2 @ qd_t


def contact_point_and_normal(S2, q, charts):
    """Contact point and outward normal of S2 in body 2 coordinates."""
    D = S2.derivatives(q[2], q[3], 1, chart=charts[1])
    n = np.cross(D[1, 0], D[0, 1])
    return D[0, 0], n / np.linalg.norm(n)


def contact_wrench_parts(S2, q, charts, W):
    """Force of a body-2 wrench W and its moment about the contact point (zero for a force
    through the contact point)."""
    c, _ = contact_point_and_normal(S2, q, charts)
    return W[3:], W[:3] - np.cross(c, W[3:])


def rolling_rate(S1, S2, q, qd, charts):
    """dq/dt projected on the rates with no slip (rows 3, 4 of H_C vanish)."""
    Hc = contact_coordinate_jacobian(S1, S2, q, charts=charts).H_C[3:5]
    return qd - np.linalg.pinv(Hc) @ (Hc @ qd)


@pytest.mark.parametrize("mode", ["frictionless", "sliding", "rolling"])
def test_accelerations_are_the_constrained_motion(pair, touching, mode):
    """The twist rate equals central differences of the twist along the motion, and M dT/dt - b
    is a contact force through the contact point obeying the mode's law."""
    q, charts, M, b, qd = touching
    S1, S2 = pair.S1, pair.S2
    if mode == "rolling":
        qd = rolling_rate(S1, S2, q, qd, charts)
    r = reduced_dynamics(S1, S2, q, qd, M, b, charts=charts, mode=mode, mu=0.4)
    h = 1e-5
    dT = (twist_along(S1, S2, q, qd, r.q_acc, charts, h) - twist_along(S1, S2, q, qd, r.q_acc, charts, -h)) / (2 * h)
    assert_allclose(r.twist_rate, dT, rtol=0, atol=1e-7 * (1 + np.abs(dT).max()))
    assert_allclose(r.twist, twist_along(S1, S2, q, qd, r.q_acc, charts, 0.0), rtol=0, atol=1e-14)
    f, moment = contact_wrench_parts(S2, q, charts, M @ dT - b)
    scale = 1 + np.abs(b).max()
    assert_allclose(moment, 0.0, atol=1e-6 * scale)
    c, n2 = contact_point_and_normal(S2, q, charts)
    T = r.twist
    slip = T[3:] + np.cross(T[:3], c)                      # material velocity at the contact point
    assert abs(slip @ n2) < 1e-12 * (1 + np.abs(T).max())   # contact kept to first order
    assert_allclose(-f @ n2, r.force[2], rtol=0, atol=1e-6 * scale)
    f_t = f - (f @ n2) * n2
    assert_allclose(np.linalg.norm(f_t), np.linalg.norm(r.force[:2]), rtol=0, atol=1e-6 * scale)
    assert_allclose(np.linalg.norm(slip), np.linalg.norm(r.slip), rtol=1e-10, atol=1e-13)
    if mode == "frictionless":
        assert np.linalg.norm(f_t) < 1e-6 * scale
        H2 = contact_coordinate_jacobian(S1, S2, q, charts=charts).H_2
        assert_allclose(H2.T @ (M @ dT - b), 0.0, atol=1e-6 * scale)   # no work along the motion
    elif mode == "sliding":   # opposed to the slip, mu times the normal force
        assert_allclose(f_t, -0.4 * (-f @ n2) * slip / np.linalg.norm(slip), rtol=0, atol=1e-6 * scale)
        assert r.dissipation == pytest.approx(0.4 * r.force[2] * np.linalg.norm(slip), rel=1e-10)
    else:                     # the slip stays zero: its central difference along the motion vanishes
        def slip_at(t):
            q_t = q + t * qd + 0.5 * t * t * r.q_acc
            c_t, _ = contact_point_and_normal(S2, q_t, charts)
            T_t = twist_along(S1, S2, q, qd, r.q_acc, charts, t)
            return T_t[3:] + np.cross(T_t[:3], c_t)
        assert np.linalg.norm(slip) < 1e-12 * (1 + np.abs(T).max())
        assert_allclose((slip_at(h) - slip_at(-h)) / (2 * h), 0.0, atol=1e-7 * (1 + np.abs(dT).max()))


def _sliding_plane_state(friction, spin):
    """The rocking-ellipsoid model with the sliding-plane contact, a state of its run with
    every velocity non-zero, moved exactly onto the contact (pose and twist from contact
    coordinates)."""
    model = build_model("rocking-ellipsoid", contact="sliding_plane", friction=friction, spin=spin)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, 0.23), system.initial_state(model.initial), **model.solver)
    x = traj.x[-1].copy()
    L = system.layout
    el = system.elements["contact/constraint"]
    # the element's pair is (body, ground); here S1 is the fixed one: swap the two sides
    assert (el.pair.body_a.name, el.pair.body_b.name) == ("body", "ground")
    assert np.array_equal(el.pair.H_aS1, np.eye(4)) and np.array_equal(el.pair.H_bS2, np.eye(4))
    S1, S2 = el.pair.S2, el.pair.S1
    charts = tuple(int(c) for c in x[L["contact/constraint.charts"]][::-1])
    swap = [2, 3, 0, 1]
    pose, P = x[L["body.pose"]], x[L["body.P"]]
    body = system.elements["body"]
    H = se3.make(quaternion.to_matrix(pose[:4]), pose[4:])
    q, qd, vn = reduced_coordinates_from(S1, S2, x[L["contact/constraint.x"]][swap], H, np.linalg.solve(body.M, P),
                                         charts=charts, pose_tol=1e-7)
    assert abs(vn) < 1e-7
    H, T = body_motion(S1, S2, q, qd, charts=charts)
    x[L["body.pose"]] = pose_vector(H)
    x[L["body.P"]] = body.M @ T
    x[L["contact/constraint.x"]] = q[:4][swap]
    return system, x, S1, S2, q, qd, charts, body


@pytest.mark.parametrize("friction, mode", [("frictionless", "frictionless"), ("rolling", "rolling")])
def test_reduced_equals_the_sliding_plane_formulation(friction, mode):
    """Two formulations of one mechanism: the reduced accelerations equal those of the
    sliding-plane constraint (Lagrange multipliers, Baumgarte terms zero on the contact)."""
    system, x, S1, S2, q, qd, charts, body = _sliding_plane_state(friction, spin=1.5)
    T = np.linalg.solve(body.M, x[system.layout["body.P"]])
    assert np.abs(T[:3]).min() > 1e-2                              # turning about every axis
    dP = system.rhs(0.0, x)[system.layout["body.P"]]
    R = quaternion.to_matrix(x[system.layout["body.pose"]][:4])
    b = se3.ad(T).T @ (body.M @ T) + np.r_[0.0, 0.0, 0.0, R.T @ (0.0, 0.0, -body.mass * G)]
    r = reduced_dynamics(S1, S2, q, qd, body.M, b, charts=charts, mode=mode)
    assert_allclose(r.twist_rate, np.linalg.solve(body.M, dP), rtol=0, atol=1e-9)
    assert r.force[2] > 0.0


def _reduced_ode(S1, S2, charts, M, mass, mode):
    """z = (q, dq/dt) -> dz/dt for a body under gravity on the fixed S1 (identity pose)."""
    def f(t, z):
        q, qd = z[:5], z[5:]
        H, T = body_motion(S1, S2, q, qd, charts=charts)
        b = se3.ad(T).T @ (M @ T) + np.r_[0.0, 0.0, 0.0, H[:3, :3].T @ (0.0, 0.0, -mass * G)]
        return np.r_[qd, reduced_dynamics(S1, S2, q, qd, M, b, charts=charts, mode=mode, mu=0.3).q_acc]
    return f


@pytest.mark.parametrize("mode", ["frictionless", "rolling"])
def test_small_rocking_frequencies_equal_the_closed_forms(mode):
    """Eigenvalues of the linearized reduced ODE of an ellipsoid resting on its c axis:
    frictionless omega^2 = 5 g (a^2 - c^2) / (c (a^2 + c^2)) about b (and the same with b
    about a); rolling omega^2 = 5 g (a^2 - c^2) / (c (a^2 + 6 c^2)) (the contact point is the
    instantaneous centre: I_b + m c^2 about it, the radius of curvature a^2/c)."""
    a, b_, c, m = 0.2, 0.15, 0.1, 1.3
    M = spatial_inertia(m, np.diag(m / 5 * np.array([b_ * b_ + c * c, a * a + c * c, a * a + b_ * b_])), np.zeros(3))
    S1, S2, charts = Plane(), Ellipsoid(a, b_, c), (0, 1)
    f = _reduced_ode(S1, S2, charts, M, m, mode)
    q0 = np.array([0.0, 0.0, -math.pi / 2, 0.0, 0.3])
    assert_allclose(f(0.0, np.r_[q0, np.zeros(5)]), 0.0, atol=1e-12)    # at rest (g / c = 98 / s^2)
    h = 1e-5
    A = np.column_stack([(f(0, np.r_[q0 + h * e, np.zeros(5)]) - f(0, np.r_[q0 - h * e, np.zeros(5)]))[5:] / (2 * h)
                         for e in np.eye(5)])
    omega2 = np.sort(-np.linalg.eigvals(A).real)[-2:]
    k = 1 if mode == "frictionless" else 6
    expected = [5 * G * (s * s - c * c) / (c * (s * s + k * c * c)) for s in (b_, a)]
    assert_allclose(omega2, expected, rtol=1e-5)


def test_a_sliding_ball_starts_rolling_at_the_closed_form_time():
    """A ball thrown sliding (no spin) on a floor: dynamic Coulomb friction slows the slip to
    zero at t = 2 v0 / (7 mu g), with speed 5/7 v0; then rolling needs no friction force."""
    r_, m, mu, v0 = 0.05, 0.2, 0.3, 2.0
    M = spatial_inertia(m, 0.4 * m * r_ * r_ * np.eye(3), np.zeros(3))
    S1, S2, charts = Plane(), Sphere(r_), (0, 1)
    q0 = np.array([0.0, 0.0, -math.pi / 2, 0.0, 0.7])
    Hc = contact_coordinate_jacobian(S1, S2, q0, charts=charts).H_C
    qd0 = np.linalg.solve(Hc[:5], np.r_[0, 0, 0, v0, 0])          # pure translation along x1
    f = _reduced_ode(S1, S2, charts, M, m, "sliding")

    def stuck(t, z):
        return np.linalg.norm((contact_coordinate_jacobian(S1, S2, z[:5], charts=charts).H_C @ z[5:])[3:5]) - 1e-6
    stuck.terminal = True
    sol = solve_ivp(f, (0.0, 2.0), np.r_[q0, qd0], rtol=1e-10, atol=1e-12, events=stuck)
    t_roll = 2 * v0 / (7 * mu * G)
    assert sol.t_events[0][0] == pytest.approx(t_roll, rel=1e-4)
    z = sol.y_events[0][0]
    H, T = body_motion(S1, S2, z[:5], z[5:], charts=charts)
    assert np.linalg.norm(H[:3, :3] @ T[3:]) == pytest.approx(5 / 7 * v0, rel=1e-4)
    assert abs(H[2, 3] - r_) < 1e-12                                   # still touching, exactly
    b = se3.ad(T).T @ (M @ T) + np.r_[0.0, 0.0, 0.0, H[:3, :3].T @ (0.0, 0.0, -m * G)]
    rolling = reduced_dynamics(S1, S2, z[:5], z[5:], M, b, charts=charts, mode="rolling")
    assert np.linalg.norm(rolling.force[:2]) < 1e-4 * m * G           # free rolling: no friction needed
    assert rolling.force[2] == pytest.approx(m * G, rel=1e-9)


def test_at_large_fixed_steps_the_gap_is_round_off_and_the_energy_error_is_truncation():
    """A frictionless ellipsoid rocking and spinning, RK4 at 16 ms and 8 ms for 10 s (no
    stabilization): the surfaces touch to 1e-12 m at every step, because the pose is a
    function of the contact coordinates; the energy error is the method's truncation error:
    RK4's amplitude error on an oscillation is (omega h)^6 / 144 per step, so over a fixed time
    the energy error is O(h^5) and falls 32-fold when the step halves (measured 30.1 and 31.6
    for 32 -> 16 -> 8 ms; 2.3e-5 of H at 16 ms)."""
    a, b_, c, m = 0.2, 0.15, 0.1, 1.0
    M = spatial_inertia(m, np.diag(m / 5 * np.array([b_ * b_ + c * c, a * a + c * c, a * a + b_ * b_])), np.zeros(3))
    S1, S2, charts = Plane(), Ellipsoid(a, b_, c), (0, 1)
    f = _reduced_ode(S1, S2, charts, M, m, "frictionless")

    def energy(z):
        H, T = body_motion(S1, S2, z[:5], z[5:], charts=charts)
        return 0.5 * T @ M @ T + m * G * H[2, 3]
    z0 = np.r_[0.0, 0.0, -math.pi / 2 + 0.2, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    drift = []
    for h in (0.016, 0.008):
        sol = solve_ivp(f, (0.0, 10.0), z0, method=RK4, step=h)
        if h == 0.016:
            for z in sol.y.T:
                H = contact_pose(S1, S2, z[:5], charts=charts)
                assert abs(closest_points(S1, S2, H).distance) < 1e-12
        drift.append(max(abs(energy(z) - energy(z0)) for z in sol.y.T[::10]))
    assert drift[0] < 1e-4 * energy(z0)
    assert 26.0 < drift[0] / drift[1] < 38.0, drift


def test_bad_input_is_named():
    S1, S2, q = Plane(), Sphere(1.0), (0.0, 0.0, -math.pi / 2, 0.0, 0.0)
    M = np.eye(6)
    with pytest.raises(ParameterError, match="mode"):
        reduced_dynamics(S1, S2, q, np.zeros(5), M, np.zeros(6), charts=(0, 1), mode="stick")
    with pytest.raises(ParameterError, match="mu"):
        reduced_dynamics(S1, S2, q, np.ones(5), M, np.zeros(6), charts=(0, 1), mode="sliding")
    with pytest.raises(GeometryError, match="no slip"):
        reduced_dynamics(S1, S2, q, np.zeros(5), M, np.zeros(6), charts=(0, 1), mode="sliding", mu=0.2)
    with pytest.raises(ParameterError, match="M"):
        reduced_dynamics(S1, S2, q, np.zeros(5), -M, np.zeros(6), charts=(0, 1))
    H = np.eye(4)
    H[2, 3] = 1.5                                                    # 0.5 above the plane
    with pytest.raises(GeometryError, match="do not touch"):
        reduced_coordinates_from(S1, S2, q[:4], H, np.zeros(6), charts=(0, 1))
