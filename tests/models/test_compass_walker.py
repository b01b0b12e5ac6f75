"""Compass walker down a slope: the periodic gait against an independent reduced model (issue 13,
acceptance 2), the energy of a stride, the touchdown guard, bad input.

Reference (written here from the mechanics, not read from the product): the planar walker in
its two leg angles q1 (stance), q2 (swing), each the angle of the leg's foot-to-hip direction
from the slope normal, positive with the hip downhill of the foot. In the slope's frame
(x downhill, z along the normal) the stance foot's centre rolls without slipping, so it is
at (r q1, r); the hip is at that point plus L (sin q1, cos q1), each leg's centre of mass b
below the hip along its leg. Lagrange's equations of T = 1/2 sum m |v|^2 + 1/2 m rho^2
(w1^2 + w2^2) and V = -sum m g . p are derived with sympy. The heel strike comes when the
legs are symmetric about the normal with the swing leg ahead (q2 = -q1 < 0); through it the
angular momentum of the whole walker about the landing foot's contact point, and that of
the trailing leg about the hip, are conserved (the only impulses are at the landing point
and at the hip; the trailing foot leaves the ground), and the legs swap roles. The stride
map on (q, w_stance, w_swing) just after a strike is iterated with scipy's solve_ivp.
"""

import math

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from scipy.optimize import fsolve

import porthamiltonian as ph
from porthamiltonian.library import Ground, RigidBody, TouchdownGuard
from porthamiltonian.models import build_model
from porthamiltonian.models import compass_walker as cw
from porthamiltonian.studies import PoincareSection, fixed_point, stride_energy

G = 9.81
M, MH, L, B, RHO, R = 5.0, 10.0, 1.0, 0.5, 0.1, 0.05   # the model's defaults
SOLVER = dict(method="DOP853", rtol=1e-12, atol=1e-12)


def cross2(a, v):
    """z . (a x v) in the (x, z) plane: counter-clockwise positive."""
    return a[0] * v[1] - a[1] * v[0]


class ReducedWalker:
    """The reference 2-DOF walker (module docstring) on a slope gamma."""

    def __init__(self, slope, m=M, mH=MH, L=L, b=B, rho=RHO, r=R):
        self.m, self.mH, self.L, self.b, self.rho, self.r, self.slope = m, mH, L, b, rho, r, slope
        q, w = sp.Matrix(sp.symbols("q1 q2")), sp.Matrix(sp.symbols("w1 w2"))
        e = lambda a: sp.Matrix([sp.sin(a), sp.cos(a)])   # noqa: E731
        hip = sp.Matrix([r * q[0], r]) + L * e(q[0])
        points = [(mH, hip), (m, hip - b * e(q[0])), (m, hip - b * e(q[1]))]
        Mq = m * rho ** 2 * sp.eye(2)
        for mi, p in points:
            Jp = p.jacobian(q)
            Mq += mi * Jp.T * Jp
        g = sp.Matrix([G * math.sin(slope), -G * math.cos(slope)])
        V = -sum(mi * g.dot(p) for mi, p in points)
        T = (w.T * Mq * w)[0] / 2
        Mdot = sum((Mq.diff(q[k]) * w[k] for k in range(2)), sp.zeros(2, 2))
        h = Mdot * w - sp.Matrix([T.diff(q[k]) - V.diff(q[k]) for k in range(2)])
        args = (q[0], q[1], w[0], w[1])
        self._M = sp.lambdify(args[:2], Mq, "numpy")
        self._h = sp.lambdify(args, h, "numpy")
        self.energy = sp.lambdify(args, T + V, "numpy")
        self.kinetic = sp.lambdify(args, T, "numpy")

    def rhs(self, t, y):
        acc = np.linalg.solve(np.array(self._M(y[0], y[1]), dtype=float),
                              -np.array(self._h(*y), dtype=float).ravel())
        return [y[2], y[3], acc[0], acc[1]]

    def _points(self, q_st, q_sw, w_st, w_sw, centre):
        """(mass, position, velocity, spin or None) of hip, stance leg, swing leg; the stance
        foot's centre at `centre`, rolling (its velocity r w_st along x). Spins are clockwise
        positive (as the angles), so their angular momentum enters with a minus sign."""
        e = lambda a: np.array([math.sin(a), math.cos(a)])     # noqa: E731
        de = lambda a: np.array([math.cos(a), -math.sin(a)])   # noqa: E731
        hip = centre + self.L * e(q_st)
        v_hip = np.array([self.r * w_st, 0.0]) + self.L * de(q_st) * w_st
        return hip, [(self.mH, hip, v_hip, None),
                     (self.m, hip - self.b * e(q_st), v_hip - self.b * de(q_st) * w_st, w_st),
                     (self.m, hip - self.b * e(q_sw), v_hip - self.b * de(q_sw) * w_sw, w_sw)]

    def _momentum(self, items, about):
        return sum(mi * cross2(p - about, v) - (0.0 if w is None else self.m * self.rho ** 2 * w)
                   for mi, p, v, w in items)

    def impact(self, y):
        """(q1, q2, w1, w2) after a strike from the state just before it (module docstring)."""
        q1, q2, w1, w2 = y
        hip, before = self._points(q1, q2, w1, w2, np.array([0.0, self.r]))
        new_centre = hip - self.L * np.array([math.sin(q2), math.cos(q2)])
        landing = new_centre - np.array([0.0, self.r])
        conserved = np.array([self._momentum(before, landing), self._momentum(before[1:2], hip)])

        def momenta(w):
            hip_, after = self._points(q2, q1, w[0], w[1], new_centre)
            return np.array([self._momentum(after, landing), self._momentum(after[2:3], hip_)])

        A = np.column_stack([momenta(c) for c in np.eye(2)])   # linear in the speeds
        w_new = np.linalg.solve(A, conserved)
        return np.array([q2, q1, w_new[0], w_new[1]])

    def stride(self, z):
        """(z after the next strike, the stride's duration, the state just before it)."""
        q, w1, w2 = z

        def strike(t, y):   # swing foot height / L, armed once the swing leg is ahead
            return max(math.cos(y[0]) - math.cos(y[1]), y[1] - y[0])

        strike.terminal, strike.direction = True, -1
        sol = solve_ivp(self.rhs, (0.0, 3.0), [-q, q, w1, w2], events=strike, **SOLVER)
        y = sol.y_events[0][0]
        after = self.impact(y)
        return np.array([after[1], after[2], after[3]]), sol.t_events[0][0], y

    def fixed_point(self, z0):
        P = lambda z: self.stride(z)[0]   # noqa: E731
        z = fsolve(lambda z: P(z) - z, z0, xtol=1e-13)
        h = 1e-6
        J = np.column_stack([(P(z + h * e) - P(z - h * e)) / (2 * h) for e in np.eye(3)])
        return z, sorted_eigs(np.linalg.eigvals(J))


def sorted_eigs(mu):
    return np.array(sorted(mu, key=lambda v: (-abs(v), v.imag)))


@pytest.fixture(scope="module")
def reference():
    """The reduced walker on the default slope, its fixed point and multipliers."""
    ref = ReducedWalker(0.0524)
    z, mu = ref.fixed_point([0.3, 1.15, 0.1])
    return ref, z, mu


@pytest.fixture(scope="module")
def walker():
    model = build_model("compass-walker")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    return model, system


def test_reference_conserves_energy_and_its_strike_loses_some(reference):
    ref = reference[0]
    y0 = [-0.28, 0.28, 1.1, 0.37]
    sol = solve_ivp(ref.rhs, (0.0, 0.5), y0, **SOLVER)
    E = [ref.energy(*y) for y in sol.y.T]
    assert np.ptp(E) < 1e-9 * abs(E[0])
    y = np.array([0.28, -0.28, 1.0, -0.5])
    after = ref.impact(y)
    loss = ref.kinetic(*y) - ref.kinetic(*after)
    assert 0.0 < loss < ref.kinetic(*y)


@pytest.mark.parametrize("slope, stable", [(0.0524, True), (0.1, False)])
def test_stride_map_fixed_point_matches_the_reduced_model(walker, reference, slope, stable):
    """Acceptance 2: fixed point to 1e-6, Floquet multipliers to 1e-4, stability. On the
    steeper slope the period-one gait is unstable (a multiplier of modulus 1.9)."""
    ref, z_ref, mu_ref = reference if slope == 0.0524 else (ReducedWalker(slope), None, None)
    if z_ref is None:
        z_ref, mu_ref = ref.fixed_point([0.36, 1.2, -0.1])
    assert np.max(np.abs(ref.stride(z_ref)[0] - z_ref)) < 1e-11
    assert bool(np.all(np.abs(mu_ref) < 1.0)) is stable
    model, system = walker
    if slope != 0.0524:
        model = build_model("compass-walker", slope=slope)
        system = ph.compile(model.graph, baumgarte=model.baumgarte)
    smap = cw.stride_map(system, **model.solver)
    fp = fixed_point(smap, z_ref + np.array([2e-3, -5e-3, 5e-3]))
    np.testing.assert_allclose(fp.z, z_ref, rtol=0, atol=1e-6)
    assert fp.residual < 1e-9
    np.testing.assert_allclose(sorted_eigs(fp.multipliers), mu_ref, rtol=0, atol=1e-4)
    assert fp.stable is stable


def test_default_start_is_the_periodic_gait(reference):
    _, z, _ = reference
    spec = ph.models.get_model("compass-walker").parameters
    start = (spec["swing_angle"].default, spec["stance_rate"].default, spec["swing_rate"].default)
    np.testing.assert_allclose(start, z, rtol=0, atol=1e-6)
    assert spec["stance_angle"].default == -spec["swing_angle"].default


@pytest.fixture(scope="module")
def gait(walker, reference):
    """Two strides from the reference's fixed point (lifted by the model's stride map)."""
    model, system = walker
    x0 = cw.stride_map(system).lift(reference[1])
    traj = ph.simulate(system, (0.0, 1.6), x0, dense_output=True, **model.solver)
    return model, system, traj


def test_stride_energy_gravity_supplies_what_the_strike_loses(gait, reference):
    model, system, traj = gait
    ref, z, _ = reference
    energy = stride_energy(traj, cw.STRIKE)
    assert energy.t.size == 2    # one whole stride between the first two strikes
    # per stride the stance foot's centre advances 2 L sin q + 2 r q along the slope, so
    # the walker (2 m + m_H) descends by that times sin(gamma)
    drop = (2 * M + MH) * G * math.sin(0.0524) * (2 * L * math.sin(z[0]) + 2 * R * z[0])
    gravity = [j for j, p in enumerate(energy.elements) if p.startswith("gravity")]
    np.testing.assert_allclose(energy.stored[0, gravity].sum(), -drop, rtol=1e-7)
    # at the fixed point the strike loses what gravity supplied: the reference's loss
    _, _, y_before = ref.stride(z)
    loss = ref.kinetic(*y_before) - ref.kinetic(*ref.impact(y_before))
    np.testing.assert_allclose(energy.lost.sum(), loss, rtol=1e-6)
    np.testing.assert_allclose(loss, drop, rtol=1e-6)
    assert abs(energy.residual[0]) < 1e-8 * drop
    assert not energy.dissipated.any()
    assert traj.power_budget().relative_residual < 1e-9


def test_swing_foot_passes_through_the_ground_without_an_impact(gait, reference):
    """The scuffing is ignored: the swing foot goes below the ground at mid-stance (by the
    reference's depth) and the only impacts are the heel strikes, one per stride."""
    model, system, traj = gait
    strikes = [r for r in traj.events if r.name.endswith("impact")]
    assert [r.name.split("/")[0] for r in strikes] == ["foot2", "foot1"]
    assert all("released" in r.message for r in strikes)
    t = np.linspace(0.0, strikes[0].t, 401)[:-1]
    foot2 = system.elements["foot2/constraint"]
    gap = np.array([foot2.distance(*system.element_state("foot2/constraint", x)) for x in traj.sol(t)])
    ref, z, _ = reference
    sol = solve_ivp(ref.rhs, (0.0, strikes[0].t), [-z[0], z[0], z[1], z[2]], dense_output=True, **SOLVER)
    y = sol.sol(t)
    height = L * (np.cos(y[0]) - np.cos(y[1]))
    assert height.min() < -3e-3
    np.testing.assert_allclose(gap, height, rtol=0, atol=1e-8)


def test_touchdown_guard_margin_and_errors():
    a, b = RigidBody("a", 1.0, [1.0] * 3), RigidBody("b", 1.0, [1.0] * 3)
    guard = TouchdownGuard((a, (0.0, 0.0, -1.0)), (b, (0.0, 0.0, -1.0)), (2.0, 0.0, 0.0))
    np.testing.assert_allclose(guard.direction, (1.0, 0.0, 0.0))
    with pytest.raises(ph.ModelError, match="both on 'a'"):
        TouchdownGuard((a, (0, 0, 0)), (a, (1, 0, 0)), (1, 0, 0))
    with pytest.raises(ph.ParameterError, match="direction"):
        TouchdownGuard((a, (0, 0, 0)), (b, (0, 0, 0)), (0, 0, 0))
    with pytest.raises(ph.ParameterError, match="point"):
        TouchdownGuard((a, (0, 0)), (Ground("g"), (0, 0, 0)), (1, 0, 0))


def test_guard_margin_is_the_feet_distance_along_the_slope(walker):
    model, system = walker
    x = system.initial_state(model.initial)
    guard = system.elements["foot2/constraint"].guard
    s = guard.margin(system, x)
    # just after the strike the swing foot (2) is 2 L sin q behind the stance foot (1)
    q2 = ph.models.get_model("compass-walker").parameters["swing_angle"].default
    assert s == pytest.approx(-2 * L * math.sin(q2), rel=1e-12)
    assert system.elements["foot1/constraint"].guard.margin(system, x) == pytest.approx(-s, rel=1e-12)


@pytest.mark.parametrize("params, match", [
    (dict(stance_angle=-0.3, swing_angle=0.2), "swing foot starts .* below the ground"),
    (dict(foot=1.0), "foot"),
    (dict(com=1.5), "com"),
    (dict(swing_angle=1.7), "swing_angle"),
    (dict(contact="reduced"), "contact"),
    (dict(contact="soil"), "has no knees, and on soft soil its stance foot sinks"),
    (dict(leg_mass=-1.0), "leg_mass"),
])
def test_bad_parameters_are_refused(params, match):
    with pytest.raises(ph.ParameterError, match=match):
        build_model("compass-walker", **params)


def test_walker_geometry_is_read_from_the_system(walker):
    _, system = walker
    assert cw.walker_geometry(system) == pytest.approx((L, R, 0.0524), rel=1e-14)


def test_stride_map_needs_the_stiff_feet():
    model = build_model("compass-walker", contact="compliant")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    with pytest.raises(ph.ParameterError, match="sliding_plane"):
        cw.stride_map(system)


def test_section_pose_marks_the_strikes(gait):
    model, system, traj = gait
    pose = cw.strike_pose(system, 0.0524)
    for rec in traj.events:
        if rec.name.endswith("impact"):
            at = np.flatnonzero(traj.t == rec.t)[0]
            assert pose(rec.t, traj.x[at]) == pytest.approx(0.0, abs=1e-9)
            # the striking foot is on the ground from the strike on (its flag, named as for any kind)
            k = rec.name.split("/")[0][-1]
            assert model.observables[f"foot{k} on ground"](system, traj.t[at + 1], traj.x[at + 1]) == 1.0
    assert PoincareSection(pose).function is pose


def test_compliant_feet_take_the_strike_in_their_dampers(reference):
    """The same walker with contact="compliant": the swing foot lands when the stiff one
    strikes (up to the feet's ~0.2 mm sinkage), after the guard armed over the sunk stance
    foot's overlap without making contact, and the strike's energy goes to the dampers
    instead of being lost at an impact."""
    model = build_model("compass-walker", contact="compliant")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, 0.9), system.initial_state(model.initial), **model.solver)
    touches = [r for r in traj.events if r.name == "foot2/spring.touch"]
    assert "no contact until the surfaces part" in touches[0].message
    assert touches[1].message == "contact made"
    ref, z, _ = reference
    _, period, y_before = ref.stride(z)
    assert touches[1].t == pytest.approx(period, abs=1e-3)
    budget = traj.power_budget()
    stiff_loss = ref.kinetic(*y_before) - ref.kinetic(*ref.impact(y_before))
    dampers = sum(v[-1] for p, v in budget.entries["dissipated"].items() if p.endswith("/damper"))
    assert dampers > 0.5 * stiff_loss
    assert budget.lost[-1] < 1e-3 * stiff_loss   # only what the released foot's tangential spring held
    assert budget.relative_residual < 1e-9
    # the feet's contact flags under one name whatever the kind, against the event log: foot 2
    # starts off the ground (the model's initial state), touches at its second touch event
    on = {k: np.array([model.observables[f"foot{k} on ground"](system, t, x) for t, x in zip(traj.t, traj.x)])
          for k in (1, 2)}
    assert on[1][0] == 1.0 and on[2][0] == 0.0
    after = traj.t > touches[1].t
    assert on[2][after][0] == 1.0
