"""Walkers on point feet (issue 36): `foot=0` makes every foot a `porthamiltonian.geometry.Point`.

Independent checks: the plastic impact map of a point-foot rimless wheel in closed form from
the model's own parameters (angular momentum about the landing foot conserved:
omega+/omega- = (I + m l^2 cos 2a) / (I + m l^2), I the hub's inertia about its axis, l the
spoke, 2a the angle between neighbouring spokes), one impact per touchdown, the energy ledger,
and the limit of round feet of radius 1e-4 and 1e-6 m, linear in the radius.
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.geometry import Point
from porthamiltonian.models import build_model
from porthamiltonian.models import compass_walker as cw
from porthamiltonian.models import rimless_wheel as rw
from porthamiltonian.studies import PoincareSection

GYRATION = 1e-3


def _run(name, t_end, **params):
    model = build_model(name, **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), **model.solver)
    assert traj.status == 0, traj.message   # status 0: the run's energy audit found the ledger closed
    return model, system, traj


def _closed_form_factor(system):
    """(I + m l^2 cos 2a) / (I + m l^2) from the compiled model's hub and feet alone."""
    hub = system.elements["hub"]
    m, I = hub.mass, float(hub.inertia[1, 1])
    pairs = [system.elements[f"foot{j}/constraint"].pair for j in (0, 1)]
    feet = [p.S2 for p in pairs]
    assert all(isinstance(f, Point) for f in feet)
    l = float(np.linalg.norm(feet[0].center))
    two_a = math.acos(feet[0].center @ feet[1].center / l ** 2)
    return (I + m * l ** 2 * math.cos(two_a)) / (I + m * l ** 2)


def test_point_foot_rimless_wheel_strikes_follow_the_closed_form_impact_map():
    model, system, traj = _run("rimless-wheel", 1.0, foot=0.0, gyration=GYRATION)
    eta = _closed_form_factor(system)
    assert eta == pytest.approx(rw.impact_factor(8, 1.0, 0.0, GYRATION), rel=1e-14)   # the model's own formula
    impacts = [r for r in traj.events if r.name.endswith("impact")]
    stance = model.observables["stance angle"]
    s = np.array([stance(system, t, x) for t, x in zip(traj.t, traj.x)])
    strikes = int(np.sum(np.diff(s) < -math.pi / 8))   # the stance angle jumps from +a to -a once per strike
    crossings = PoincareSection(rw.STRIKE).crossings(traj)
    assert strikes >= 2 and len(impacts) == strikes and len(crossings) == strikes   # one impact per touchdown
    assert all("released" in r.message for r in impacts)
    w = model.observables["angular speed"]
    for t, _ in crossings:
        at = np.flatnonzero(traj.t == t)
        # the impulse solve is exact up to the constraint residuals the run leaves (Baumgarte
        # at rtol 1e-10): measured 1e-10 relative
        assert w(system, t, traj.x[at[-1]]) / w(system, t, traj.x[at[0]]) == pytest.approx(eta, rel=1e-8)
    ledger = traj.power_budget()
    assert ledger.max_residual <= ledger.residual_bound
    assert ledger.lost[-1] > 0.0   # the strikes lose energy
    # (the compiled right-hand side against the Python one: `test_point_contacts`, on a small
    # model; building this 8-contact wheel's takes minutes, too long for the suite)


def test_round_feet_converge_to_the_point_foot_linearly_in_the_radius():
    """The first strike's time and post-strike speed of round feet of radius r differ from the
    point foot's by at most C r with C = 1 (s/m, rad/s/m; measured: 0.0554 s/m and 0.458 rad/s/m
    at both radii), and the differences shrink linearly: their ratio between r = 1e-4 and 1e-6 m
    is 100 within 1 % (measured 100.003 and 99.986, for differences of 5.5e-8 s and 4.6e-7 rad/s
    at 1e-6 m, far above the runs' rtol 1e-10)."""
    out = {}
    for foot in (0.0, 1e-6, 1e-4):
        model, system, traj = _run("rimless-wheel", 0.4, foot=foot, gyration=GYRATION)
        t, x = PoincareSection(rw.STRIKE).crossings(traj)[0]
        at = np.flatnonzero(traj.t == t)[-1]
        out[foot] = np.array((t, model.observables["angular speed"](system, t, traj.x[at])))
    d4, d6 = np.abs(out[1e-4] - out[0.0]), np.abs(out[1e-6] - out[0.0])
    assert np.all(d4 <= 1e-4) and np.all(d6 <= 1e-6)
    assert d4 / d6 == pytest.approx([100.0, 100.0], rel=0.01)


def test_point_foot_compass_walker_strides_once_per_touchdown():
    """Point feet (the textbook compass gait): two strides from the default start, one plastic
    impact per touchdown, the feet alternating, the trailing foot released; the ledger closed
    (`_run`: status 0). (Its convergence from round feet: `test_walker_impacts`' 1 um feet walk,
    and the rimless wheel's test above.)"""
    model, system, traj = _run("compass-walker", 1.6, foot=0.0)
    assert cw.walker_geometry(system) == pytest.approx((1.0, 0.0, 0.0524), rel=1e-12)
    impacts = [r for r in traj.events if r.name.endswith("impact")]
    assert [r.name.split("/")[0] for r in impacts] == ["foot2", "foot1"]
    assert all("released" in r.message for r in impacts)
    assert 0.5 < impacts[1].t - impacts[0].t < 1.0   # a stride (~0.75 s), not a double strike


@pytest.mark.parametrize("params, match", [
    (dict(foot=-0.01), "foot"),
    # the soil kind refuses a point foot itself (the model does not test the kind's name)
    (dict(foot=0.0, contact="soil"), r"soil contact 'foot0': a point foot \(`geometry.Point`\) has no sole"),
])
def test_point_feet_parameter_rule(params, match):
    with pytest.raises(ph.ParameterError, match=match):
        build_model("rimless-wheel", **params)


def test_compliant_point_feet_approach_the_plastic_impact_map_as_the_stiffness_grows():
    """The rimless wheel on compliant point feet (linear spring, critically damped): the
    ledger closes, and the first strike's speed ratio approaches the rigid closed form eta with
    an error that scales as the impact's duration, sqrt(m / k): one decade of stiffness cuts it
    by sqrt(10) (measured 0.0917, 0.0316, 0.0102 at k = 1e5, 1e6, 1e7 N/m: factors 2.90, 3.10).
    The speed after the strike is read 20 / sqrt(k) s after the touch (the spring's transient
    decayed, e^-20 for m = 1 kg)."""
    eta = rw.impact_factor(8, 1.0, 0.0, GYRATION)
    errors = []
    for k in (1e5, 1e6):
        model, system, traj = _run("rimless-wheel", 0.35, foot=0.0, gyration=GYRATION, contact="compliant",
                                   stiffness=k)
        ledger = traj.power_budget()
        assert ledger.max_residual <= ledger.residual_bound
        (touch,) = [e.t for e in traj.events if e.name.endswith("spring.touch")]   # one strike in 0.35 s
        w = model.observables["angular speed"]
        speed = np.array([w(system, t, x) for t, x in zip(traj.t, traj.x)])
        before, after = np.interp([touch, touch + 20.0 / math.sqrt(k)], traj.t, speed)
        errors.append(abs(after / before - eta))
    # the asymptotic factor sqrt(10) = 3.16 within 10 %: at this decade the measured factor is 2.90
    # (8 % below: the next order in sqrt(m / k) still shows at k = 1e5; 3.10 at the next decade)
    assert errors[0] / errors[1] == pytest.approx(math.sqrt(10.0), rel=0.1)
