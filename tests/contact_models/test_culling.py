"""The bounding test that skips the contact points of far-apart bodies (issue 10).

A body in free flight above the floor must cost no closest-point solve; when it comes within
the cull distance the tracked contact points restart from the exact ones, and the motion is
the same as with culling off (a second formulation of the same run) and as the closed forms.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.kernels import contact as kcontact
from porthamiltonian.lie import so3

from .conftest import RTOL, TIGHT, assert_ledger_closes, ball, body_on_plane, ellipsoid

G = 9.81


def tumbling_ellipsoid(height, cull):
    R = so3.exp(np.array((0.3, -0.5, 0.2)))
    return body_on_plane(*ellipsoid(1.0, (0.2, 0.12, 0.08), R, height, twist_world=(3.0, -2.0, 5.0, 0.2, 0, 0)),
                         gravity=True, normal="hertz", stiffness=1e6, damping=0.3, tangential_stiffness=1e6, cull=cull)


def test_free_flight_solves_no_contact_points(monkeypatch):
    system, x0 = body_on_plane(*ball(1.0, 0.1, 2.0, twist=(4.0, 1.0, -2.0, 0.5, 0.0, 0.0)), gravity=True,
                               normal="linear", stiffness=1e4, damping=10.0)
    calls = []
    original = kcontact.evaluate
    monkeypatch.setattr(kcontact, "evaluate", lambda *a: calls.append(1) or original(*a))
    traj = ph.simulate(system, (0.0, 0.3), x0, **TIGHT)     # falls 0.44 m of its 1.9 m
    assert traj.success and traj.events == [] and calls == []
    assert_allclose(traj.state("ball.pose")[-1, 6], 2.0 - 0.5 * G * 0.3**2, rtol=0, atol=1e-9)


@pytest.mark.parametrize("cull", [True, False])
def test_a_dropped_ball_touches_down_at_the_free_fall_time(cull):
    h, r = 1.0, 0.1
    system, x0 = body_on_plane(*ball(1.0, r, h), gravity=True, normal="linear", stiffness=1e5, damping=50.0,
                               cull=cull)
    traj = ph.simulate(system, (0.0, 0.5), x0, **TIGHT)
    names = [e.name for e in traj.events]
    assert names[:2] == (["c/spring.approach", "c/spring.touch"] if cull else ["c/spring.touch", "c/spring.release"])
    touch = [e.t for e in traj.events if e.name == "c/spring.touch"][0]
    assert_allclose(touch, math.sqrt(2 * (h - r) / G), rtol=10 * RTOL)
    if cull:   # the approach comes when the ball is the cull distance (a tenth of its size) above
        approach = traj.events[0].t
        cull_distance = system.elements["c/spring"].pair.cull_distance
        assert_allclose(h - r - 0.5 * G * approach**2, cull_distance, rtol=10 * RTOL)
    assert_ledger_closes(traj, 10 * RTOL)


def test_culling_does_not_change_a_tumbling_landing():
    """A spinning ellipsoid dropped from 0.6 m: with and without the bounding test the same
    touch time, bounce and final state (the approach event only restarts the tracked points)."""
    runs = []
    for cull in (True, False):
        system, x0 = tumbling_ellipsoid(0.6, cull)
        traj = ph.simulate(system, (0.0, 0.45), x0, **TIGHT)
        assert_ledger_closes(traj, 10 * RTOL)
        runs.append((system, traj))
    (_, a), (_, b) = runs
    touch = [[e.t for e in t.events if e.name.endswith("touch")] for t in (a, b)]
    assert len(touch[0]) >= 1 and len(touch[0]) == len(touch[1])
    assert_allclose(touch[0], touch[1], rtol=0, atol=1e-8)
    for block in ("body.pose", "body.P"):     # the tracked parameters differ: frozen while culled
        assert_allclose(a.state(block)[-1], b.state(block)[-1], rtol=0, atol=1e-6)
