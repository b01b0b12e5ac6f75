"""A heel strike fires one impact per touchdown (issue 36).

The rimless wheel's strikes are counted from the geometry alone: the stance angle (the stance
spoke's angle from the slope normal, wrapped to [-alpha, alpha)) jumps from +alpha to -alpha
exactly once per strike. Before the fix a plastic impact left the landing foot's contact off
whenever the impulse solve's round-off left a normal residual below -1e-12 m/s (-4e-11 m/s on
a wheel of gyration 1e-3 m), and the foot landed a second time at the same instant or ns later:
13 impact events for 8 strikes over 6 s at foot = 1e-4 m.
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.models import build_model
from porthamiltonian.models import rimless_wheel as rw
from porthamiltonian.studies import PoincareSection


def _run(t_end, **params):
    model = build_model("rimless-wheel", **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), **model.solver)
    assert traj.status == 0, traj.message
    return model, system, traj


SPOKES = 8   # the model's default


def _geometric_strikes(model, system, traj):
    stance = model.observables["stance angle"]
    s = np.array([stance(system, t, x) for t, x in zip(traj.t, traj.x)])
    # a strike turns the stance angle from +alpha to -alpha; between strikes it moves by far
    # less than alpha per sample
    return int(np.sum(np.diff(s) < -math.pi / SPOKES))


# 1e-5 and 1e-6 m: near-point feet, which lost their contact point a few strides down the
# slope before the closest points' gap tolerance had a round-off floor (issue 36); status 0
# (`_run`) means the energy audit found the ledger closed
@pytest.mark.parametrize("foot, gyration, t_end", [(1e-4, 1e-3, 6.0), (1e-3, 1e-3, 4.0), (0.02, 0.1, 4.0),
                                                   (0.05, 1e-3, 4.0), (1e-5, 0.1, 6.0), (1e-6, 1e-3, 6.0)])
def test_one_impact_per_strike(foot, gyration, t_end):
    model, system, traj = _run(t_end, foot=foot, gyration=gyration)
    impacts = [r for r in traj.events if r.name.endswith("impact")]
    strikes = _geometric_strikes(model, system, traj)
    assert strikes >= 5
    assert len(impacts) == strikes
    assert len(PoincareSection(rw.STRIKE).crossings(traj)) == strikes
    # every impact is a full heel strike: the trailing foot leaves, the speed drops by eta
    assert all("released" in r.message for r in impacts)
    w = model.observables["angular speed"]
    eta = rw.impact_factor(SPOKES, 1.0, foot, gyration)
    for t, _ in PoincareSection(rw.STRIKE).crossings(traj):
        at = np.flatnonzero(traj.t == t)
        ratio = w(system, t, traj.x[at[-1]]) / w(system, t, traj.x[at[0]])
        assert ratio == pytest.approx(eta, rel=1e-8)


def test_compass_walker_on_near_point_feet_walks():
    """1 um feet (the textbook's point feet up to 1e-6 of the leg): the global search for the
    feet's contact points failed ("no valid contact pair") before the closest points' gap
    tolerance had a round-off floor (issue 36). From the default start the walker takes
    strides with one plastic impact per touchdown, the feet alternating, the trailing foot
    released each time; status 0 means the energy audit found the ledger closed."""
    model = build_model("compass-walker", foot=1e-6)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, 6.0), system.initial_state(model.initial), **model.solver)
    assert traj.status == 0, traj.message
    impacts = [r for r in traj.events if r.name.endswith("impact")]
    assert len(impacts) >= 5
    feet = [r.name.split("/")[0] for r in impacts]
    assert all(a != b for a, b in zip(feet, feet[1:]))            # one impact per touchdown, alternating
    assert all("released" in r.message for r in impacts)
    gaps = np.diff([r.t for r in impacts])
    assert np.all(gaps > 0.5)                                       # strides, not a double strike (~0.75 s)
