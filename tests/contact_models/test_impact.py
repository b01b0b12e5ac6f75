"""Normal impact of a sphere on a plane (issue 5, acceptance 1 and 6).

No gravity: the ball arrives at speed v, so the contact is the textbook one-degree-of-freedom
impact whose closed forms are in `reference`. Times come from the touch/release events,
speeds from the body momentum, energies from the ledger.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw, hertz_impact, linear_law_from_response, linear_response

from .conftest import (
    RTOL, TIGHT, assert_ledger_closes, ball, body_on_plane, contact_distance, world_force, world_momenta,
)
from .reference import clipped_linear_impact, hertz_impact_quadrature, linear_impact

R_BALL, GAP = 0.1, 0.002


def drop(m, v, **law):
    """(system, x0) of a ball at GAP above the plane moving down at v."""
    return body_on_plane(*ball(m, R_BALL, R_BALL + GAP, twist=(0, 0, 0, 0, 0, -v)), **law)


def event_times(traj, name):
    return [e.t for e in traj.events if e.name == name]


# (m [kg], k [N/m], c [N s/m], v [m/s]): damping ratios 0.1, 0.24, 0.40
LINEAR = [(1.0, 1e4, 20.0, 1.0), (2.0, 5e4, 150.0, 0.7), (0.5, 2e3, 25.0, 2.0)]


@pytest.fixture(scope="module", params=LINEAR, ids=lambda p: f"m{p[0]}-k{p[1]:g}-c{p[2]:g}")
def linear_drop(request):
    m, k, c, v = request.param
    system, x0 = drop(m, v, normal="linear", stiffness=k, damping=c)
    tc, _ = linear_impact(m, k, c)
    return request.param, system, ph.simulate(system, (0.0, 2.0 * tc), x0, **TIGHT)


def test_linear_contact_time_and_restitution(linear_drop):
    (m, k, c, v), _, traj = linear_drop
    tc, e = linear_impact(m, k, c)
    touch, release = event_times(traj, "c/spring.touch"), event_times(traj, "c/spring.release")
    assert len(touch) == 1 and len(release) == 1
    assert_allclose(touch[0], GAP / v, rtol=10 * RTOL, atol=0)
    # event times are roots of the dense output: a few hundred RTOL of accumulated phase error
    assert_allclose(release[0] - touch[0], tc, rtol=1e3 * RTOL, atol=0)
    p, L = world_momenta(traj)
    assert_allclose(p[-1], [0.0, 0.0, e * m * v], rtol=1e3 * RTOL, atol=1e-12)
    assert_allclose(L[-1], 0.0, atol=1e-12)


def test_linear_ledger_books_the_lost_kinetic_energy_in_the_damper(linear_drop):
    (m, k, c, v), _, traj = linear_drop
    _, e = linear_impact(m, k, c)
    b = assert_ledger_closes(traj, 10 * RTOL)
    assert_allclose(b.entries["dissipated"]["c/damper"][-1], 0.5 * m * v * v * (1.0 - e * e), rtol=1e3 * RTOL)
    assert_allclose(b.entries["dissipated"]["c/slip"][-1], 0.0, atol=1e-12)
    assert np.all(np.diff(b.entries["dissipated"]["c/damper"]) >= -10 * RTOL * b.scale)


def test_damping_acts_from_the_touch_and_only_pushes_below_zero_penetration():
    """In the contact mode the damper acts at delta = 0 while approaching (the segment after a
    touch has a continuous vector field) and, at delta <= 0, never pulls."""
    k, c = 1e4, 20.0
    law = NormalLaw("linear", stiffness=k, damping=c)
    for delta in (0.0, -1e-17):
        assert law.dissipative(delta, 1.5) == c * 1.5 and law.dissipative_slope(delta, 1.5) == c
        assert law.dissipative(delta, -1.5) == 0.0 and law.dissipative_slope(delta, -1.5) == 0.0
        assert law.elastic(delta) == 0.0 and law.potential(delta) == 0.0
    assert law.dissipative(1e-6, -1.5) == -c * 1.5  # unclipped, it pulls while delta > 0
    clipped = NormalLaw("linear", stiffness=k, damping=c, clip=True)
    assert clipped.dissipative(1e-6, -1.5) == -k * 1e-6 and clipped.dissipative_slope(1e-6, -1.5) == 0.0
    hc = NormalLaw("hunt_crossley", stiffness=k, damping=0.3)
    assert hc.dissipative(-1e-9, 1.0) == 0.0
    assert_allclose(hc.dissipative(1e-4, 2.0), k * 0.3 * 1e-4**1.5 * 2.0, rtol=1e-15)


@pytest.mark.parametrize("method", ["Radau", "BDF", "LSODA"])
def test_linear_impact_with_implicit_solvers(method):
    """The implicit solvers (their Jacobian by differences over the continuous state only)
    reproduce the closed forms. The damper acts from the touch instant: the force on the ball
    right after the touch is c v (it was zero at exactly delta = 0, and Radau failed there)."""
    m, k, c, v = LINEAR[0]
    rtol = 1e-8
    system, x0 = drop(m, v, normal="linear", stiffness=k, damping=c)
    tc, e = linear_impact(m, k, c)
    traj = ph.simulate(system, (0.0, 2.0 * tc), x0, method=method, rtol=rtol, atol=1e-2 * rtol)
    (touch,), (release,) = event_times(traj, "c/spring.touch"), event_times(traj, "c/spring.release")
    after_touch = np.flatnonzero(traj.t == touch)[-1]
    assert_allclose(world_force(system, touch, traj.x[after_touch])[2], c * v, rtol=1e-12)
    # measured (Radau, BDF, LSODA): contact time 3e-12, 6e-9, 3e-9; restitution 1e-9, 5e-8, 3e-8;
    # ledger 4e-11, 1.1e-7, 2e-8
    assert_allclose(release - touch, tc, rtol=100 * rtol)
    assert_allclose(world_momenta(traj)[0][-1], [0.0, 0.0, e * m * v], rtol=100 * rtol, atol=1e-12)
    assert_ledger_closes(traj, 100 * rtol)


@pytest.mark.parametrize("m, k, c, v", LINEAR)
def test_linear_response_matches_the_closed_form(m, k, c, v):
    law = NormalLaw("linear", stiffness=k, damping=c)
    assert_allclose(linear_response(m, law), linear_impact(m, k, c), rtol=1e-13)
    tc, e = linear_impact(m, k, c)
    back = linear_law_from_response(m, tc, e)
    assert_allclose((back.stiffness, back.damping), (k, c), rtol=1e-12)


# (m [kg], k [N/m^1.5], v [m/s])
HERTZ = [(1.0, 1e6, 1.0), (0.2, 5e5, 2.5), (3.0, 2e7, 0.5)]


@pytest.mark.parametrize("m, k, v", HERTZ)
def test_hertz_maximum_compression_and_duration(m, k, v):
    dmax, tc = hertz_impact_quadrature(m, k, v)
    system, x0 = drop(m, v, normal="hertz", stiffness=k, damping=0.0)
    P = system.layout["ball.P"]

    def turning_point(t, x):  # vertical momentum changes sign at the deepest point
        return x[P][5]

    turning_point.terminal, turning_point.direction = True, 1.0
    first = ph.simulate(system, (0.0, 2 * tc), x0, events=[turning_point], **TIGHT)
    assert first.status == 1
    x_deep = first.x[-1]
    depth = R_BALL - x_deep[system.layout["ball.pose"]][6]
    assert_allclose(depth, dmax, rtol=1e3 * RTOL)
    assert_allclose(-contact_distance(system, x_deep), dmax, rtol=1e3 * RTOL)

    full = ph.simulate(system, (0.0, GAP / v + 1.5 * tc), x0, **TIGHT)
    touch, release = event_times(full, "c/spring.touch"), event_times(full, "c/spring.release")
    assert_allclose(release[0] - touch[0], tc, rtol=1e3 * RTOL)
    assert_allclose(first.t[-1] - touch[0], tc / 2, rtol=1e3 * RTOL)
    p, _ = world_momenta(full)
    assert_allclose(p[-1], [0.0, 0.0, m * v], rtol=1e3 * RTOL, atol=1e-12)  # elastic: no loss
    # delta^(3/2) is not smooth at the touch: the first step's error estimate is optimistic
    # and the residual jumps by ~20 RTOL there (measured 17-19 RTOL for rtol 1e-8..1e-12)
    b = assert_ledger_closes(full, 100 * RTOL)
    assert_allclose(b.dissipated[-1], 0.0, atol=1e-12)


@pytest.mark.parametrize("m, k, v", HERTZ)
def test_hertz_impact_function_matches_quadrature(m, k, v):
    assert_allclose(hertz_impact(m, k, v), hertz_impact_quadrature(m, k, v), rtol=1e-12)


# clipped law, damping ratio 0.6: unclipped, the damper pulls for the last part of the contact
CLIP = (1.0, 1e4, 120.0, 1.0)


@pytest.fixture(scope="module", params=[True, False], ids=["clip", "noclip"])
def heavy_damped_drop(request):
    m, k, c, v = CLIP
    system, x0 = drop(m, v, normal="linear", stiffness=k, damping=c, clip=request.param)
    tc, _ = linear_impact(m, k, c)
    # small max_step: the normal force is sampled densely through the contact
    traj = ph.simulate(system, (0.0, GAP / v + 2 * tc), x0, max_step=tc / 150, **TIGHT)
    return request.param, system, traj


def contact_forces(system, traj):
    """Vertical contact force on the ball at every sample in contact (no gravity)."""
    return np.array([
        world_force(system, t, x)[2] for t, x in zip(traj.t, traj.x) if contact_distance(system, x) < 0.0
    ])


def test_clipped_normal_force_never_pulls(heavy_damped_drop):
    clip, system, traj = heavy_damped_drop
    Fz = contact_forces(system, traj)
    assert Fz.size > 50
    if clip:
        assert Fz.min() >= -1e-9 * Fz.max()
    else:  # the unclipped law does pull: the check above can fail
        assert Fz.min() < -0.05 * Fz.max()


def test_clipped_restitution_and_dissipation_match_a_separate_solve(heavy_damped_drop):
    clip, system, traj = heavy_damped_drop
    m, k, c, v = CLIP
    if clip:
        v_out, _, lost = clipped_linear_impact(m, k, c, v)
    else:
        e = linear_impact(m, k, c)[1]
        v_out, lost = e * v, 0.5 * m * v * v * (1.0 - e * e)
    p, _ = world_momenta(traj)
    assert_allclose(p[-1][2], m * v_out, rtol=1e3 * RTOL)
    b = assert_ledger_closes(traj, 10 * RTOL)
    damper = b.entries["dissipated"]["c/damper"]
    assert_allclose(damper[-1], lost, rtol=1e3 * RTOL)
    assert np.all(np.diff(damper) >= -10 * RTOL * b.scale)  # dissipation never runs backwards
