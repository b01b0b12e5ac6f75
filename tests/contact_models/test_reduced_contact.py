"""The reduced-coordinate contact in whole simulations: swapped into a model by one argument,
against the sliding-plane formulation, large fixed steps, Coulomb stick/slip, impacts and the
energy ledger, and its typed errors."""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.bondgraph.serialize import from_json, to_json
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.geometry import BezierPatch, Plane, Sphere
from porthamiltonian.library import Gravity, Ground, RigidBody, contact
from porthamiltonian.lie import quaternion, se3
from porthamiltonian.models import build_model

G = 9.81


def _run(kind, friction, **kw):
    model = build_model("rocking-ellipsoid", contact=kind, friction=friction, spin=1.0, tilt=0.3)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    return model, system, x0, ph.simulate(system, (0.0, kw.pop("t_end", 2.0)), x0, **{**model.solver, **kw})


def _observed(model, system, traj, names=("tilt", "centre x", "centre y", "height")):
    return np.array([[model.observables[k](system, t, x) for k in names] for t, x in zip(traj.t, traj.x)])


@pytest.mark.parametrize("friction", ["frictionless", "rolling"])
def test_reduced_and_sliding_plane_agree_on_the_rocking_ellipsoid(friction):
    """One argument swaps the contact model; the two formulations of the same rigid contact
    give the same motion (2 s of rocking and spinning, DOP853 at rtol 1e-8) and both close the
    ledger; the reduced one keeps the gap at round-off."""
    t_eval = np.linspace(0.0, 2.0, 21)
    model, system, x0, reduced = _run("reduced", friction, t_eval=t_eval)
    _, system_sp, _, sliding = _run("sliding_plane", friction, t_eval=t_eval)
    assert reduced.status == 0 and not reduced.events
    diff = np.abs(_observed(model, system, reduced) - _observed(model, system_sp, sliding)).max()
    assert diff < 1e-8                                   # measured 9e-10 (rad, m)
    assert np.abs(reduced.power_budget().residual).max() < model.solver["rtol"] * system.energy(x0)   # 2e-9 J
    gaps = [model.observables["Delta"](system, t, x) for t, x in zip(reduced.t, reduced.x)]
    assert np.abs(gaps).max() < 1e-12


def test_large_fixed_steps_keep_the_contact_exact():
    """RK4 at 16 ms for 10 s, no stabilization: the gap stays at round-off at every sample;
    the ledger's residual is RK4's energy error, O(h^5) over a fixed time (32-fold per
    halving of the step; module docstring of tests/contact/test_reduced.py)."""
    residual = []
    for h in (0.016, 0.008):
        model, system, x0, traj = _run("reduced", "frictionless", method="RK4", step=h, t_end=10.0)
        residual.append(np.abs(traj.power_budget().residual).max())
        if h == 0.016:
            assert np.allclose(np.diff(np.unique(traj.t)), h)
            gaps = [model.observables["Delta"](system, t, x) for t, x in zip(traj.t, traj.x)]
            assert np.abs(gaps).max() < 1e-12
            assert residual[0] < 1e-3 * system.energy(x0)
    assert 20.0 < residual[0] / residual[1] < 45.0, residual


R_BALL, M_BALL = 0.05, 0.2


def _ball_on(surface, centre, twist, g=G, **contact_kw):
    """A solid ball (R_BALL, M_BALL) with its centre at `centre` and body twist `twist`, under
    gravity, in reduced contact with `surface` on the ground."""
    r, m = R_BALL, M_BALL
    bg = ph.BondGraph("ball")
    ball = RigidBody("ball", m, 0.4 * m * r * r * np.ones(3), pose=se3.make(np.eye(3), np.asarray(centre, float)),
                     twist=np.asarray(twist, float))
    ground = Ground("ground")
    bg.add(ball, ground, Gravity("gravity", ball, (0.0, 0.0, -g)),
           contact("reduced", "contact", ball, Sphere(r), ground, surface, **contact_kw))
    bg.connect(ball.frame().port, "gravity")
    bg.connect(ball.frame().port, ("contact", "a"))
    bg.connect(ground.frame().port, ("contact", "b"))
    return ph.compile(bg)


def _ball(z0, v0=2.0, mu=0.3, restitution=0.0, g=G, **kw):
    """The ball at height z0 above the plane z = 0, sliding at v0 along x without spin
    (Coulomb friction)."""
    system = _ball_on(Plane(), (0.0, 0.0, z0), (0.0, 0.0, 0.0, v0, 0.0, 0.0), g=g, friction="coulomb", mu=mu,
                      restitution=restitution, **kw)
    return system, R_BALL, M_BALL


def _velocity(system, x, m):
    pose = x[system.layout["ball.pose"]]
    H = se3.make(ph.lie.quaternion.to_matrix(pose[:4]), pose[4:])
    return H[:3, :3] @ (x[system.layout["ball.P"]][3:] / m)


def test_a_sliding_ball_sticks_at_the_closed_form_time():
    """Thrown sliding without spin: the slip v - r w starts at v0 and falls at
    mu g (1 + m r^2 / I) = 3.5 mu g under dynamic Coulomb friction, so it reaches `slip_speed`
    s at t = (v0 - s) / (3.5 mu g) (2 v0 / (7 mu g) for s = 0); a tangential impulse then
    removes the rest of the slip, losing (m / 3.5) s^2 / 2 (m / 3.5 is the effective mass of a
    solid sphere at its contact point), and the ball rolls at 5/7 v0."""
    v0, mu, s = 2.0, 0.3, 5e-3
    system, r, m = _ball(0.05, v0=v0, mu=mu)
    x0 = system.initial_state({})
    traj = ph.simulate(system, (0.0, 0.5), x0, rtol=1e-10, atol=1e-12)
    stick = [e for e in traj.events if e.name.endswith(".stick")]
    assert len(stick) == 1
    assert stick[0].t == pytest.approx((v0 - s) / (3.5 * mu * G), rel=1e-7)
    assert stick[0].lost == pytest.approx(0.5 * m / 3.5 * s * s, rel=1e-6)
    assert np.linalg.norm(_velocity(system, traj.x[-1], m)) == pytest.approx(5 / 7 * v0, rel=1e-3)
    assert np.abs(traj.power_budget().residual).max() < 1e-10 * system.energy(x0)
    assert np.abs(traj.x[:, system.layout["ball.pose"]][:, 6] - r).max() < 1e-14


@pytest.mark.parametrize("v0", [2.0, 4.0])
def test_a_dropped_ball_bounces_then_rolls(v0):
    """Dropped with a horizontal speed v0 and no spin: Newton impacts with e = 0.5 (each keeps
    e of the normal speed) and Coulomb friction (mu = 0.3). Routh's closed form for a solid
    sphere: an impact with normal speed v_n reduces the slip by at most 3.5 mu (1 + e) v_n (the
    effective mass at the contact point is m / 3.5). At v0 = 2 m/s the first impact
    (v_n = sqrt(2 g h)) stops the slip: it loses m g h (1 - e^2) + m v0^2 / 7 and the ball rolls
    on at 5/7 v0. At v0 = 4 m/s it slides through it: the friction impulse mu m (1 + e) v_n
    also does the work mu m (1 + e) v_n (s- + s+) / 2 (s the slip before and after); the second
    impact stops the slip. Rolling, the ball keeps 5/7 v0 (angular momentum about the contact
    point); no stick event follows; the ledger closes."""
    z0, e, r_, mu = 0.2, 0.5, 0.05, 0.3
    system, r, m = _ball(z0, restitution=e, v0=v0, mu=mu)
    x0 = system.initial_state({})
    # the ball spins in its flights after the first impact: the ledger's residual there is the
    # integrator's (8e-11 of H at rtol 1e-10, 1.7e-11 at 1e-11)
    traj = ph.simulate(system, (0.0, 1.0), x0, rtol=1e-11, atol=1e-12)
    impacts = [ev for ev in traj.events if ev.name.endswith(".impact")]
    t1 = math.sqrt(2 * (z0 - r_) / G)
    vn = G * t1
    normal = m * G * (z0 - r_) * (1 - e * e)
    s_after = v0 - 3.5 * mu * (1 + e) * vn
    friction = m * v0**2 / 7 if s_after <= 0.0 else mu * m * (1 + e) * vn * 0.5 * (v0 + s_after)
    assert impacts[0].t == pytest.approx(t1, rel=1e-8)
    assert impacts[0].lost == pytest.approx(normal + friction, rel=1e-8)
    assert impacts[1].t - impacts[0].t == pytest.approx(2 * e * t1, rel=1e-7)   # flight at e g t1 up
    assert not [ev for ev in traj.events if ev.name.endswith(".stick")]
    assert np.linalg.norm(_velocity(system, traj.x[-1], m)) == pytest.approx(5 / 7 * v0, rel=1e-9)
    assert np.abs(traj.power_budget().residual).max() < 1e-10 * system.energy(x0)


def test_a_pulling_contact_separates_at_once():
    """Gravity pointing away from the floor: the normal force of the reduced solve is
    negative, so the ball leaves the floor at once and flies (height r + g t^2 / 2)."""
    system, r, m = _ball(0.05, v0=0.0, g=-G)
    traj = ph.simulate(system, (0.0, 0.3), system.initial_state({}), rtol=1e-10, atol=1e-12)
    assert [ev.name for ev in traj.events] == ["contact/constraint.separation"]
    z = traj.x[-1, system.layout["ball.pose"]][6]
    assert z == pytest.approx(r + 0.5 * G * 0.3**2, rel=1e-9)


def test_dense_output_and_user_events_see_the_system_state():
    """In continuous contact the interpolant returns system states (the ball on the floor,
    between samples too), and a terminal user event on the state stops the run where the
    ball's centre passes x = 0.3 m."""
    system, r, m = _ball(0.05, v0=2.0)
    x0 = system.initial_state({})

    def past(t, x):
        return x[system.layout["ball.pose"]][4] - 0.3
    past.terminal = True
    traj = ph.simulate(system, (0.0, 1.0), x0, rtol=1e-10, atol=1e-12, dense_output=True, events=[past])
    assert traj.status == 1 and traj.events[-1].name == "past"
    assert traj.x[-1, system.layout["ball.pose"]][4] == pytest.approx(0.3, abs=1e-12)
    for t in np.linspace(0.01, traj.t[-1] - 0.01, 7):
        x = traj.sol(t)
        assert x.shape == (system.layout.size,)
        assert x[system.layout["ball.pose"]][6] == pytest.approx(r, abs=1e-15)


def test_a_state_off_the_surface_cannot_start_continuous_contact():
    """The contact flagged on while the ball floats 1 cm above the floor: refused by the
    initial check, and (that check off) the run fails saying when, where and why."""
    system, r, m = _ball(0.06)
    x0 = system.initial_state({"contact/constraint.active": [1.0]})
    with pytest.raises(ParameterError, match="violates constraint 'contact/constraint': gap 0.01"):
        ph.simulate(system, (0.0, 0.1), x0)
    with pytest.raises(ph.IntegrationError, match=r"continuous contact of contact/constraint cannot start at "
                                                  r"t = 0 s: the surfaces do not touch"):
        ph.simulate(system, (0.0, 0.1), x0, check_constraints=False)


def test_saved_and_loaded_it_is_the_same_contact():
    model = build_model("rocking-ellipsoid", contact="reduced", friction="rolling")
    back = from_json(to_json(model.graph))
    el = ph.compile(back).elements["contact/constraint"]
    assert type(el).__name__ == "ReducedContactConstraint"
    assert (el.friction, el.slip_speed) == ("rolling", 5e-3)


def test_bad_reduced_contacts_are_named():
    r, m = R_BALL, M_BALL
    a = RigidBody("a", m, 0.4 * m * r * r * np.ones(3))
    b = RigidBody("b", m, 0.4 * m * r * r * np.ones(3))
    ground = Ground("ground")
    with pytest.raises(ModelError, match="one of the bodies must be fixed"):
        contact("reduced", "c", a, Sphere(r), b, Sphere(r))
    with pytest.raises(ParameterError, match="`mu` must be > 0"):
        contact("reduced", "c", a, Sphere(r), ground, Plane(), friction="coulomb", mu=0.0)
    with pytest.raises(ParameterError, match="`friction` must be"):
        contact("reduced", "c", a, Sphere(r), ground, Plane(), friction="sticky")
    with pytest.raises(ParameterError, match="slip_speed"):
        contact("reduced", "c", a, Sphere(r), ground, Plane(), friction="coulomb", slip_speed=-1.0)


def test_a_ball_rolls_off_the_edge_of_a_table():
    """Rolling without slip towards the edge of a plane of finite extent: the contact ends
    when the contact point reaches the edge, at (x_edge - x0) / v, and the ball falls freely
    from there (its centre at r - g t^2 / 2 below the edge time, the same horizontal speed)."""
    r, v0, edge = R_BALL, 1.0, 0.3
    table = Plane(extent=((-0.5, edge), (-0.5, 0.5)))
    system = _ball_on(table, (0.0, 0.0, r), (0.0, v0 / r, 0.0, v0, 0.0, 0.0), friction="rolling")
    x0 = system.initial_state({})
    traj = ph.simulate(system, (0.0, 0.5), x0, rtol=1e-10, atol=1e-12)
    names = [e.name for e in traj.events]
    assert "contact/constraint.separation" in names
    leave = traj.events[names.index("contact/constraint.separation")]
    assert "edge" in leave.message
    assert leave.t == pytest.approx(edge / v0, rel=1e-9)
    after = traj.t > leave.t
    pose = traj.x[after][:, system.layout["ball.pose"]]
    dt = traj.t[after] - leave.t
    assert np.abs(pose[:, 6] - (r - 0.5 * G * dt**2)).max() < 1e-9
    assert np.abs(pose[:, 4] - (edge + v0 * dt)).max() < 1e-9
    # the free fall's ledger quadrature at rtol 1e-10: 3.5e-11 J of 0.24 J
    assert np.abs(traj.power_budget().residual).max() < 1e-9 * system.energy(x0)


def test_rolling_onto_a_degenerate_point_of_a_patch_is_named():
    """A Bezier patch with one edge collapsed to a point (f_u = 0 there: the normal is
    undefined): a ball rolling towards that edge on it fails the run saying the patch, the
    point and the rule."""
    net = np.zeros((4, 4, 3))
    for i in range(4):
        for j in range(4):
            net[i, j] = ((i - 1.5) * 0.2 * (j / 3), (j - 1.5) * 0.2, 0.0)   # row j = 0 collapses to (0, -0.3, 0)
    S = BezierPatch(net)
    assert np.allclose(S.normal(0.5, 0.5), (0.0, 0.0, 1.0))
    r = R_BALL
    system = _ball_on(S, S.point(0.5, 0.5) + (0.0, 0.0, r), (2.0 / r, 0.0, 0.0, 0.0, -2.0, 0.0),   # towards -y
                      friction="rolling")
    with pytest.raises(ph.IntegrationError, match=r"BezierPatch\(degrees=\(3, 3\)\) is not regular at \(u, v\) = .* "
                                                  r"\(f_u x f_v vanishes\)"):
        ph.simulate(system, (0.0, 1.0), system.initial_state({}), rtol=1e-9, atol=1e-12)


def test_sticking_is_found_at_large_fixed_steps():
    """RK4 at 50 ms, a step in which Coulomb friction would carry the slip through zero and
    back above the threshold: the stick is still found (its time to the dense output's
    accuracy) and the ball rolls on at 5/7 v0."""
    v0, mu, s = 2.0, 0.3, 5e-3
    system, r, m = _ball(0.05, v0=v0, mu=mu)
    traj = ph.simulate(system, (0.0, 0.5), system.initial_state({}), method="RK4", step=0.05)
    stick = [e for e in traj.events if e.name.endswith(".stick")]
    assert len(stick) == 1
    assert stick[0].t == pytest.approx((v0 - s) / (3.5 * mu * G), abs=0.05)   # within the step that holds it
    assert np.linalg.norm(_velocity(system, traj.x[-1], m)) == pytest.approx(5 / 7 * v0, rel=1e-2)


def test_rolling_and_spinning_resistance_decay_at_the_closed_form_rates():
    """A ball rolling without slip on a plane while spinning about the vertical, with viscous
    rolling and spinning resistance: about the contact point (I + m r^2) dw/dt = -c_r w, so
    the rolling rate decays as exp(-c_r t / (7/5 m r^2)); the spin as exp(-c_s t / (2/5 m r^2));
    the ledger books the resistance as dissipated and closes."""
    r, m, c_r, c_s, w0, s0 = R_BALL, M_BALL, 2e-4, 1e-4, 20.0, 5.0
    system = _ball_on(Plane(), (0.0, 0.0, r), (0.0, w0, s0, w0 * r, 0.0, 0.0), friction="rolling",
                      rolling_damping=c_r, spin_damping=c_s)
    x0 = system.initial_state({})
    traj = ph.simulate(system, (0.0, 1.0), x0, rtol=1e-10, atol=1e-12)
    assert traj.status == 0 and all(e.name.endswith(".chart") for e in traj.events)   # the ball's poles
    P = traj.x[:, system.layout["ball.P"]]
    I0 = 0.4 * m * r * r
    w, v = P[:, :3] / I0, P[:, 3:] / m         # body frame at the centre, isotropic inertia
    R_of = [quaternion.to_matrix(p[:4]) for p in traj.x[:, system.layout["ball.pose"]]]
    v_world = np.array([R @ vv for R, vv in zip(R_of, v)])
    w_world = np.array([R @ ww for R, ww in zip(R_of, w)])
    assert np.allclose(v_world[:, 0], w0 * r * np.exp(-c_r * traj.t / (1.4 * m * r * r)), rtol=1e-7, atol=0)
    assert np.allclose(w_world[:, 2], s0 * np.exp(-c_s * traj.t / I0), rtol=1e-7, atol=0)
    budget = traj.power_budget()
    assert budget.dissipated[-1] > 0.1 * system.energy(x0)
    assert np.abs(budget.residual).max() < 1e-9 * system.energy(x0)
