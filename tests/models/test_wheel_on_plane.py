"""Wheel on a frictionless plane with its spindle held horizontally (seed 001 sec. 6.2).

References (closed forms, not read from the product):

* Newton for the spindle: the only vertical forces are gravity and the normal force, and
  the wheel is round, so the spindle height stays R: q_y'' = 0 (seed eq. 43) and the normal
  force is m g.
* Seed eqs. (40)-(41): the rim point at parameter u1 is at angle 2 pi u1 + q_theta from the
  bottom, so the contact (the lowest rim point) has 2 pi u1 + q_theta = 0 (mod 2 pi) and
  u1' = -q_theta' / (2 pi); the ground point does not move (u2' = v2' = 0), nor does the
  contact leave the rim's equator (v1' = 0).
* Free spin: no torque about the axle (frictionless), q_theta = q_theta(0) + q_theta'(0) t.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.lie import quaternion, se3, so3
from porthamiltonian.models import build_model

TWO_PI = 2.0 * math.pi
G = 9.81
RADIUS, MASS = 0.3, 2.0
ANGLE, SPIN = 0.4, 3.0  # the simulated run's start: q_theta [rad], q_theta' [rad/s]
RTOL = 1e-9  # the model's solver tolerance
STATES = [(0.0, 3.0), (0.4, -7.0), (2.9, 12.0), (-1.3, 0.5), (math.pi, 25.0)]  # (q_theta, q_theta')


def contact_path(system):
    return "contact/constraint" if "contact/constraint" in system.elements else "contact/spring"


def wrapped(d):
    """A parameter difference in [-1/2, 1/2) (u1 has period 1)."""
    return (np.asarray(d) + 0.5) % 1.0 - 0.5


@pytest.fixture(scope="module", params=["sliding_plane", "compliant"])
def wheel(request):
    """(model, system) for each contact kind."""
    model = build_model("wheel-on-plane", contact=request.param, radius=RADIUS, mass=MASS)
    return model, ph.compile(model.graph, baumgarte=model.baumgarte)


def state_at(model, system, q_theta, rate):
    """A consistent state: spindle at the model's initial height, wheel angle q_theta, spin rate."""
    body = model.graph["wheel"]
    H = se3.make(so3.exp(np.array((q_theta, 0.0, 0.0))), np.array((0.0, 0.0, body.pose0[6])))
    P = body.M @ np.array((rate, 0.0, 0.0, 0.0, 0.0, 0.0))
    return system.initial_state({"wheel.pose": quaternion.matrix_to_pose(H), "wheel.P": P})


def spindle_acceleration(model, system, x):
    """World acceleration of the spindle from the system's rhs: d(R v)/dt = R (w x v + v')."""
    body = model.graph["wheel"]
    xdot = system.rhs(0.0, x)
    T = body.Minv @ x[system.layout["wheel.P"]]
    dT = body.Minv @ xdot[system.layout["wheel.P"]]
    R = quaternion.to_matrix(x[system.layout["wheel.pose"]][:4])
    return R @ (np.cross(T[:3], T[3:]) + dT[3:])


@pytest.mark.parametrize("q_theta, rate", STATES)
def test_spindle_does_not_accelerate_vertically(wheel, q_theta, rate):
    model, system = wheel
    x = state_at(model, system, q_theta, rate)
    # seed eq. (43): q_y'' = 0; the spindle joint keeps it from moving sideways. Forces are
    # ~20 N on 2 kg: 1e-10 m/s^2 is the acceptance bound (round-off is ~1e-14)
    assert_allclose(spindle_acceleration(model, system, x), 0.0, rtol=0, atol=1e-10)


@pytest.mark.parametrize("q_theta, rate", STATES)
def test_contact_parameter_rate_is_seed_eq_41(wheel, q_theta, rate):
    model, system = wheel
    x = state_at(model, system, q_theta, rate)
    path = contact_path(system)
    own = system.element_state(path, x)[0]
    # the contact is the lowest rim point: 2 pi u1 + q_theta = 0 mod 2 pi, on the equator v1 = 0
    assert_allclose(wrapped(own[0] + q_theta / TWO_PI), 0.0, rtol=0, atol=1e-12)
    assert_allclose(own[1], 0.0, rtol=0, atol=1e-12)
    rates = system.rhs(0.0, x)[system.layout.element_slice(path)][:4]
    # eq. (41): u1' = -q_theta'/(2 pi), u2' = 0 (and v1' = v2' = 0); absolute round-off of
    # rates up to 4 1/s
    assert_allclose(rates, (-rate / TWO_PI, 0.0, 0.0, 0.0), rtol=0, atol=1e-12)


@pytest.mark.parametrize("q_theta, rate", STATES[:3])
def test_normal_force_carries_the_weight(q_theta, rate):
    """The sliding plane's multiplier is the compressive normal force: m (g + q_y'') = m g."""
    model = build_model("wheel-on-plane", contact="sliding_plane", radius=RADIUS, mass=MASS)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x = state_at(model, system, q_theta, rate)
    assert_allclose(system.multipliers(0.0, x)["contact/constraint"], [MASS * G], rtol=1e-12, atol=0)


@pytest.fixture(scope="module")
def rolling_out():
    """The sliding-plane model simulated for its t_end (2 s, about one wheel turn)."""
    model = build_model("wheel-on-plane", radius=RADIUS, mass=MASS, angle=ANGLE, spin=SPIN)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    traj = ph.simulate(system, (0.0, model.t_end), x0, t_eval=np.linspace(0.0, model.t_end, 81), **model.solver)
    assert model.solver["rtol"] == RTOL
    return model, system, traj


def test_stays_on_the_plane(rolling_out):
    model, system, traj = rolling_out
    pose = traj.state("wheel.pose")
    # the position constraint is held by Baumgarte stabilization on top of exact
    # accelerations: its drift stays at round-off, far below rtol * R = 3e-10 m
    assert_allclose(pose[:, 4:], np.tile((0.0, 0.0, RADIUS), (len(traj.t), 1)), rtol=0, atol=1e-11)
    gap, speed = traj.constraint_drift()["contact/constraint"]
    assert gap < 1e-11 and speed < 1e-11
    # the contact stays closed under the weight: no detach, no impact, force m g throughout
    assert not [e for e in traj.events if e.name.startswith("contact/")]
    assert_allclose(traj.multipliers()["contact/constraint"][:, 0], MASS * G, rtol=1e-9, atol=0)


def test_wheel_spins_freely_and_the_contact_runs_round_the_rim(rolling_out):
    model, system, traj = rolling_out
    q0, w0 = ANGLE, SPIN
    for t, x in zip(traj.t, traj.x):
        R = quaternion.to_matrix(x[system.layout["wheel.pose"]][:4])
        # rotation angle up to 6 rad after 2 s; integration error ~rtol per unit: 1e-8
        assert_allclose(R, so3.exp(np.array((q0 + w0 * t, 0.0, 0.0))), rtol=0, atol=1e-8)
    u1 = traj.state("contact/constraint.x")[:, 0]
    # eq. (41) integrated: u1(t) = u1(0) - q_theta' t/(2 pi) (mod 1), same error budget
    assert_allclose(wrapped(u1 - (u1[0] - w0 * traj.t / TWO_PI)), 0.0, rtol=0, atol=1e-8)
    assert_allclose(wrapped(u1[0] + q0 / TWO_PI), 0.0, rtol=0, atol=1e-12)


def test_energy_ledger_closes(rolling_out):
    model, system, traj = rolling_out
    body = model.graph["wheel"]
    budget = traj.power_budget()
    # residual and energy drift in units of the requested tolerance
    assert budget.relative_residual < 10 * RTOL
    P = traj.state("wheel.P")
    kinetic = 0.5 * np.einsum("ni,ij,nj->n", P, body.Minv, P)
    E = kinetic + MASS * G * traj.state("wheel.pose")[:, 6]
    assert_allclose(E, E[0], rtol=10 * RTOL, atol=0)
    assert "contact/constraint" in budget.entries["stabilization"]
    assert abs(budget.entries["stabilization"]["contact/constraint"][-1]) < 10 * RTOL * budget.scale


def test_observables_report_the_seed_quantities(rolling_out):
    model, system, traj = rolling_out
    t, x = traj.t[-1], traj.x[-1]
    obs = {k: f(system, t, x) for k, f in model.observables.items()}
    w0 = SPIN
    assert_allclose(obs["spindle height"], RADIUS, rtol=0, atol=1e-11)
    # q_theta is reported in (-pi, pi]; same error budget as the rotation above
    assert_allclose(math.remainder(obs["q_theta"] - (ANGLE + w0 * t), TWO_PI), 0.0, rtol=0, atol=1e-8)
    # bit-identical on purpose: the observable reads this state entry
    assert_allclose(obs["u1"], x[system.layout["contact/constraint.x"]][0], rtol=0, atol=0)
    # the tracked u1 is pulled toward the exact contact (relax 1/s) from up to ~rtol away,
    # which adds ~1e-10 1/s to its rate after the simulation
    assert_allclose(obs["u1 rate"], -w0 / TWO_PI, rtol=0, atol=1e-8)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(tube=0.3), r"`tube` must lie in \(0, radius = 0.3\) m, got 0.3"),
        (dict(contact="sliding"), r"unknown contact kind 'sliding'.*did you mean 'sliding_plane'"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ph.ParameterError, match=match):
        build_model("wheel-on-plane", **params)
