"""Four-bar linkage with a clearance in a revolute pair (seed 001 sec. 6.3, Fig. 10; issue 6, acceptance 3).

Reference: the massless-link model written here from scratch, independently of the
product. Coupler (2) and rocker (3) are planar rigid bodies with centre-of-mass coordinates
q = (x2, y2, phi2, x3, y3, phi3); the crank is driven, theta1 = theta + omega t, so its
inertia does not enter. Constraints (sympy): the coupler's end at the crank pin B(t), the
rocker's end at D, and the massless link ``|C_pin - C_hole|^2 = e^2``. The index-1 form
``[M Phi_q^T; Phi_q 0] [q''; lambda] = [F; gamma]`` with ``gamma = -(d/dt (Phi_q q' +
Phi_t))`` without q'' is integrated by scipy (DOP853, rtol 1e-12) from the same initial
state; the link tension is ``2 e lambda_5``.

Seed eqs. (45)-(49): the sliding-plane contact of a pin (R2) in a hole (R1) is that
constraint, whatever R1 and R2 with the same e.
"""

import math

import numpy as np
import pytest
import sympy as sp
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp

import porthamiltonian as ph
from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.lie import quaternion
from porthamiltonian.models import build_model
from porthamiltonian.models.four_bar_clearance import (
    Linkage,
    hole_surface,
    linkage_configuration,
    linkage_velocities,
)

LINKAGE = Linkage()                      # a, b, c, d = 0.06, 0.2, 0.12, 0.2 m; R1, R2 = 10, 9 mm
MASSES = (0.3, 0.6, 0.4)
THETA, PSI, OMEGA, G = math.pi / 3, -math.pi / 2, 2 * math.pi, 9.81
T_END = 1.0                              # one crank turn
N_OUT = 101
RTOL = 1e-10                             # the model's solver tolerance


def planar_state(traj, body):
    """(angle, origin x, origin y) of a body frame over time, shape (N, 3)."""
    P = traj.state(f"{body}.pose")
    ang = [math.atan2(R[1, 0], R[0, 0]) for R in (quaternion.to_matrix(p[:4]) for p in P)]
    return np.column_stack((ang, P[:, 4], P[:, 5]))


def simulate_model(turns=1.0, **params):
    """Model, system and trajectory over `turns` crank turns, sampled every T_END / (N_OUT - 1)."""
    model = build_model("four-bar-clearance", **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    n = int(round(turns * (N_OUT - 1))) + 1
    traj = ph.simulate(system, (0.0, turns * T_END), system.initial_state(model.initial),
                       t_eval=np.linspace(0.0, turns * T_END, n), **model.solver)
    return model, system, traj


def massless_link_reference(lk, masses, theta, psi, omega, g, t_eval):
    """The massless-link four-bar (module docstring); returns (solution, tension(t, y))."""
    a, b, c, d, e = lk.crank, lk.coupler, lk.rocker, lk.ground, lk.clearance
    _, m2, m3 = masses
    t = sp.Symbol("t")
    q = sp.Matrix(sp.symbols("x2 y2 p2 x3 y3 p3"))
    dq = sp.Matrix(sp.symbols("dx2 dy2 dp2 dx3 dy3 dp3"))
    u = lambda angle: sp.Matrix([sp.cos(angle), sp.sin(angle)])  # noqa: E731
    crank_pin = a * u(theta + omega * t)
    r2, r3 = q[0:2, 0], q[3:5, 0]
    pin, hole = r2 + b / 2 * u(q[2]), r3 + c / 2 * u(q[5])
    Phi = sp.Matrix.vstack(r2 - b / 2 * u(q[2]) - crank_pin, r3 - c / 2 * u(q[5]) - sp.Matrix([d, 0]),
                           sp.Matrix([(pin - hole).dot(pin - hole) - e**2]))
    A = Phi.jacobian(q)
    v = A * dq + Phi.diff(t)
    gamma = -(v.jacobian(q) * dq + v.diff(t))
    fA = sp.lambdify((t, q, dq), A, "numpy")
    fgamma = sp.lambdify((t, q, dq), gamma, "numpy")
    M = np.diag([m2, m2, m2 * b * b / 12, m3, m3, m3 * c * c / 12])
    F = np.array([0.0, -m2 * g, 0.0, 0.0, -m3 * g, 0.0])

    def solve(tt, y):
        Aq = np.array(fA(tt, y[:6], y[6:]), dtype=float)
        K = np.block([[M, Aq.T], [Aq, np.zeros((5, 5))]])
        return np.linalg.solve(K, np.concatenate((F, np.ravel(fgamma(tt, y[:6], y[6:])))))

    # initial state from the crank angle and the clearance direction (closed-form loop closure)
    p1 = theta
    B = a * np.array((math.cos(p1), math.sin(p1)))
    Q = B - e * np.array((math.cos(psi), math.sin(psi)))
    r = np.hypot(Q[0] - d, Q[1])
    p3 = math.atan2(Q[1], Q[0] - d) - math.acos((c * c + r * r - b * b) / (2 * c * r))
    hole0 = np.array((d + c * math.cos(p3), c * math.sin(p3)))
    pin0 = hole0 + e * np.array((math.cos(psi), math.sin(psi)))
    p2 = math.atan2(pin0[1] - B[1], pin0[0] - B[0])
    q0 = np.array([*(B + b / 2 * np.array((math.cos(p2), math.sin(p2)))), p2,
                   *(np.array((d, 0.0)) + c / 2 * np.array((math.cos(p3), math.sin(p3)))), p3])
    # velocities: the position constraints' rates vanish with psi' = 0 (the pin at rest in the hole)
    # velocities: Phi_q q' + Phi_t = 0, and psi' = 0 (the pin at rest in the hole):
    # (pin' - hole') . n_perp = 0 with pin' = r2' + b/2 u'(phi2) phi2', hole' likewise
    A0 = np.array(fA(0.0, q0, np.zeros(6)), dtype=float)
    Phi_t = np.array(sp.lambdify((t, q), Phi.diff(t), "numpy")(0.0, q0), dtype=float).ravel()
    n_perp = np.array((-math.sin(psi), math.cos(psi)))
    row = np.r_[n_perp, n_perp @ (b / 2 * np.array((-math.sin(p2), math.cos(p2)))),
                -n_perp, -n_perp @ (c / 2 * np.array((-math.sin(p3), math.cos(p3))))]
    K = np.vstack((A0, row))
    dq0 = np.linalg.solve(K, np.r_[-Phi_t, 0.0])
    sol = solve_ivp(lambda tt, y: np.concatenate((y[6:], solve(tt, y)[:6])), (0.0, t_eval[-1]),
                    np.concatenate((q0, dq0)), t_eval=t_eval, method="DOP853", rtol=1e-12, atol=1e-14)
    assert sol.success, sol.message
    return sol, lambda tt, y: 2 * e * solve(tt, y)[10]


@pytest.fixture(scope="module")
def reference():
    return massless_link_reference(LINKAGE, MASSES, THETA, PSI, OMEGA, G, np.linspace(0.0, T_END, N_OUT))


@pytest.fixture(scope="module")
def clearance():
    return simulate_model(model="clearance")


@pytest.fixture(scope="module")
def massless_link():
    return simulate_model(model="massless_link")


# ---------------------------------------------------------------- geometry helpers


@pytest.mark.parametrize("theta, psi", [(THETA, PSI), (0.0, 0.3), (2.5, 2.0), (-1.7, -3.0)])
def test_initial_configuration_closes_and_its_rates_are_consistent(theta, psi):
    lk = LINKAGE
    t1, t2, t3 = linkage_configuration(lk, theta, psi)
    B = lk.crank * np.array((math.cos(t1), math.sin(t1)))
    pin = B + lk.coupler * np.array((math.cos(t2), math.sin(t2)))
    hole = np.array((lk.ground, 0.0)) + lk.rocker * np.array((math.cos(t3), math.sin(t3)))
    assert_allclose(pin - hole, lk.clearance * np.array((math.cos(psi), math.sin(psi))), rtol=0, atol=1e-15)
    assert hole[1] > 0.0  # elbow up
    # rates by central differences along (theta + omega h, psi + psi' h)
    omega, psi_rate, h = 1.3, -4.0, 1e-6
    plus = linkage_configuration(lk, theta + omega * h, psi + psi_rate * h)
    minus = linkage_configuration(lk, theta - omega * h, psi - psi_rate * h)
    fd = [(p - m) / (2 * h) for p, m in zip(plus[1:], minus[1:])]
    # central differences: O(h^2) truncation and 1e-16 / h round-off
    assert_allclose(linkage_velocities(lk, (t1, t2, t3), psi, omega, psi_rate), fd, rtol=1e-8, atol=1e-8)


def test_hole_wall_faces_its_centre():
    R = 0.01
    S = hole_surface(R)
    for u in np.linspace(-math.pi, math.pi, 9)[:-1]:
        for v in (-1.0, 0.0, 0.6):
            p = S.point(u, v)
            assert_allclose(np.linalg.norm(p), R, rtol=1e-15)
            assert_allclose(S.normal(u, v), -p / R, rtol=0, atol=1e-15)    # into the hole
            # concave as seen from the pin: both principal curvatures -1/R
            assert_allclose(S.principal_curvatures(u, v)[:2], (-1 / R, -1 / R), rtol=1e-12)


# ---------------------------------------------------------------- acceptance 3


def test_clearance_moves_like_the_massless_link_equations(clearance, reference):
    """The sliding-plane pin in the hole and the massless-link equations: identical to 1e-8."""
    model, system, traj = clearance
    sol, _ = reference
    lk = LINKAGE
    assert traj.t.size == N_OUT and not traj.events
    crank, coupler, rocker = (planar_state(traj, body) for body in ("crank", "coupler", "rocker"))
    assert_allclose(np.angle(np.exp(1j * (crank[:, 0] - THETA - OMEGA * traj.t))), 0.0, rtol=0, atol=1e-12)
    # link angles [rad] and positions [m]: measured 7e-10 and 2.3e-9 rad over one crank turn
    assert_allclose(coupler[:, 0], sol.y[2], rtol=0, atol=1e-8)
    assert_allclose(rocker[:, 0], sol.y[5], rtol=0, atol=1e-8)
    coupler_origin = sol.y[0:2] - lk.coupler / 2 * np.array((np.cos(sol.y[2]), np.sin(sol.y[2])))
    assert_allclose(coupler[:, 1:], coupler_origin.T, rtol=0, atol=1e-8)
    assert_allclose(rocker[:, 1:], np.tile((lk.ground, 0.0), (N_OUT, 1)), rtol=0, atol=1e-12)
    pin = sol.y[0:2] + lk.coupler / 2 * np.array((np.cos(sol.y[2]), np.sin(sol.y[2])))
    hole = sol.y[3:5] + lk.rocker / 2 * np.array((np.cos(sol.y[5]), np.sin(sol.y[5])))
    psi = np.arctan2(*(pin - hole)[::-1])
    # the clearance direction is a 1 mm vector between points placed by 0.1-0.2 m links:
    # link errors are amplified by b / e = 200 (measured 3e-7 rad)
    got = [model.observables["clearance angle"](system, t, x) for t, x in zip(traj.t, traj.x)]
    assert_allclose(np.angle(np.exp(1j * (np.array(got) - psi))), 0.0, rtol=0, atol=200 * 1e-8)
    assert np.ptp(np.unwrap(psi)) > 1.0  # the pin does travel round the hole


def test_contact_force_is_the_link_tension(clearance, reference):
    model, system, traj = clearance
    sol, tension = reference
    lam = traj.multipliers()["clearance/constraint"][:, 0]
    ref = np.array([tension(t, y) for t, y in zip(sol.t, sol.y.T)])
    assert np.ptp(ref) > 1.0
    # forces up to 9.5 N (measured 5e-6 N: the multiplier is an acceleration-level quantity)
    assert_allclose(lam, ref, rtol=0, atol=1e-5 * np.max(np.abs(ref)))


def test_clearance_equals_the_massless_link_model(clearance, massless_link):
    """The acceptance as stated: the sliding-plane pin-in-hole and the massless link
    (`DistanceJoint`) are the same constraint (seed eqs. 45-49), so the motions agree."""
    a, b = clearance[2], massless_link[2]
    for body in ("crank", "coupler", "rocker"):
        assert_allclose(planar_state(b, body), planar_state(a, body), rtol=0, atol=1e-8, err_msg=body)


def test_only_the_radial_clearance_matters(clearance):
    """Seed 001 after eq. (48): [C_q] and Q_x depend on R1 and R2 only through e = R1 - R2
    (the default 10 mm / 9 mm against 4 mm / 3 mm, over half a crank turn)."""
    _, _, b = simulate_model(0.5, hole_radius=0.004, pin_radius=0.003)
    half = b.t.size
    for body in ("coupler", "rocker"):
        # measured 6e-11 rad (the positions agree to round-off)
        assert_allclose(planar_state(b, body), planar_state(clearance[2], body)[:half], rtol=0, atol=1e-8,
                        err_msg=body)


@pytest.mark.parametrize("which", ["clearance", "massless_link"])
def test_energy_ledger_closes(which, clearance, massless_link):
    model, system, traj = {"clearance": clearance, "massless_link": massless_link}[which]
    b = traj.power_budget()
    # frictionless, bilateral, no events: integration error only (measured 5e-12 of the scale)
    assert b.max_residual <= 10 * RTOL * b.scale, b.table()
    # bit-exact on every CPU: no dissipative element and no event, so these integrals are sums of exact zeros
    assert_allclose((b.dissipated, b.lost), 0.0, rtol=0, atol=0)
    assert np.max(np.abs(b.supplied)) > 0.1 * b.scale    # the drive works against gravity
    assert np.max(np.abs(b.stabilization)) <= 1e-9 * b.scale
    # the pin stays on the wall (gap) and moves along it (velocity residual): Baumgarte and
    # the exact projection keep both at round-off level
    drift = traj.constraint_drift()
    assert max(g for g, _ in drift.values()) < 1e-9 and max(c for _, c in drift.values()) < 1e-9, drift


def test_compliant_pin_force_is_the_linear_contact_law():
    """With a compliant clearance, the "pin force" observable (read from the bond variables of
    the contact's spring and damper) equals k (r - e) + c dr/dt while the pin presses on the
    wall (all along the first 0.1 s), r the centre distance; dr/dt by central differences of r
    along the vector field."""
    k, c = 1e6, 100.0
    model = build_model("four-bar-clearance", contact="compliant", stiffness=k, damping=c)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, 0.1), system.initial_state(model.initial),
                       t_eval=np.linspace(0.0, 0.1, 41), **model.solver)
    e, h = LINKAGE.clearance, 1e-7
    r, force = model.observables["centre distance"], model.observables["pin force"]
    for t, x in zip(traj.t, traj.x):
        dx = h * system.rhs(t, x)
        rate = (r(system, t + h, x + dx) - r(system, t - h, x - dx)) / (2 * h)
        ref = k * (r(system, t, x) - e) + c * rate
        assert t == 0.0 or ref > 1.0, t  # the pin starts on the wall, then presses on it
        assert_allclose(force(system, t, x), ref, rtol=1e-7, atol=1e-6, err_msg=f"t = {t}")  # measured 1.3e-8


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize("params, error, match", [
    (dict(pin_radius=0.01), ParameterError, "the pin must be smaller than the hole"),
    (dict(model="rigid"), ParameterError, "`model` must be one of \\('clearance', 'massless_link'\\)"),
    (dict(crank=0.5), GeometryError, "the four-bar does not close at crank angle"),
])
def test_bad_linkages(params, error, match):
    with pytest.raises(error, match=match):
        build_model("four-bar-clearance", **params)
