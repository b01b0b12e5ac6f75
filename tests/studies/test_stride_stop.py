"""A stride ends at the section's first crossing (issue 36).

`StrideMap.stride` used to integrate the whole horizon and then look for the first crossing:
twice the cost or more, and a failure after the crossing (here a right-hand-side budget that
runs out later in the horizon) failed a stride that had already ended. The references are a
plain `simulate` over the horizon (the first crossing's time and state) and its evaluation
count.
"""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.models import build_model
from porthamiltonian.models import rimless_wheel as rw
from porthamiltonian.studies import PoincareSection, StrideMap

HORIZON = 3.0


@pytest.fixture(scope="module")
def wheel():
    model = build_model("rimless-wheel")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, 1.5), system.initial_state(model.initial), **model.solver)
    _, x_strike = PoincareSection(rw.STRIKE).crossings(traj)[0]
    smap = rw.speed_map(system, x_strike, horizon=HORIZON, **model.solver)
    z = smap.project(x_strike)
    full = ph.simulate(system, (0.0, HORIZON), smap.lift(np.asarray(z)), **model.solver)
    return model, system, smap, z, full


def test_a_stride_stops_at_the_first_strike(wheel):
    model, system, smap, z, full = wheel
    t_ref, x_ref = PoincareSection(rw.STRIKE).crossings(full, after=0.0)[0]
    z1, duration, traj = smap.stride(z)
    assert traj.status == 1 and "stop_after" in traj.message
    assert traj.t[-1] == duration
    assert duration == pytest.approx(t_ref, rel=1e-9)
    # the same integration up to the crossing: the same post-strike speed (solver tolerance)
    assert z1[0] == pytest.approx(smap.project(x_ref)[0], rel=1e-9)
    assert sum(r.name.endswith("impact") for r in traj.events) == 1
    # a stride of ~0.65 s in a 3 s horizon: well under half the full run's evaluations
    assert duration < 0.3 * HORIZON
    assert traj.nfev < 0.5 * full.nfev


def test_a_failure_after_the_crossing_does_not_fail_the_stride(wheel):
    model, system, smap, z, full = wheel
    z1, _, traj = smap.stride(z)
    budget = int(0.6 * full.nfev)   # runs out after the crossing (the stride takes < 0.5 of it)
    with pytest.raises(ph.IntegrationError):
        ph.simulate(system, (0.0, HORIZON), smap.lift(np.asarray(z)), max_nfev=budget, **model.solver)
    x_strike = smap.lift(np.asarray(z))
    limited = rw.speed_map(system, x_strike, horizon=HORIZON, max_nfev=budget, **model.solver)
    z1_limited, _, _ = limited.stride(z)
    assert z1_limited[0] == pytest.approx(z1[0], rel=1e-12)   # the same steps: round-off only
    assert limited.evaluations == 1


def _mid_stance(system):
    """g(t, x) = sin(N psi / 2), zero at every mid-stance (a stance spoke along the normal), away
    from the strikes (psi the angle of spoke 0 from the slope normal)."""
    P = system.layout["hub.pose"]

    def mid_stance(t, x):
        R = ph.lie.quaternion.to_matrix(x[P][:4])
        return float(np.sin(4.0 * (np.arctan2(R[0, 2], R[2, 2]) - 0.1)))   # N = 8, slope 0.1 rad

    return mid_stance


def test_a_section_function_ends_the_stride_as_a_terminal_event(wheel):
    model, system, smap, z, full = wheel
    mid = _mid_stance(system)
    reference = ph.simulate(system, (0.0, HORIZON), smap.lift(np.asarray(z)), events=[mid], **model.solver)
    t_ref = PoincareSection(mid).crossings(reference, after=0.0)[0][0]
    by_pose = StrideMap(system, mid, smap.lift, smap.project, horizon=HORIZON, **model.solver)
    _, duration, traj = by_pose.stride(z)
    assert traj.status == 1 and traj.t[-1] == duration
    assert duration == pytest.approx(t_ref, rel=1e-9)
    assert traj.nfev < 0.5 * reference.nfev


@pytest.mark.parametrize("bad", ["", 3, ("foot*",)])
def test_stop_after_must_be_a_pattern(wheel, bad):
    model, system, smap, z, full = wheel
    with pytest.raises(ph.ParameterError, match="stop_after"):
        ph.simulate(system, (0.0, 0.1), smap.lift(np.asarray(z)), stop_after=bad, **model.solver)
