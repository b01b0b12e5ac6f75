"""Swapping stiff and compliant contact on the rocking ellipsoid (issue 6, acceptance 6).

Two formulations of one mechanism: the sliding-plane constraint (rigid contact) and the
compliant spring-damper. As the stiffness k grows the compliant trajectory converges to
the rigid one, to first order in 1/k (the body rides lower by the penetration N/k, which
shifts the geometry and the dynamics by O(N/(k a))). Measured maximum tilt errors over one
period (frictionless: 1.22e-3, 1.12e-4, 1.11e-5 rad; rolling: 1.07e-3, 1.02e-4, 1.02e-5 rad
for k = 1e4, 1e5, 1e6 N/m; the tilt amplitude is 0.1 rad): k err = 12.2, 11.2, 11.1 and
10.7, 10.2, 10.2 rad N/m.
"""

import functools

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.geometry import Ellipsoid, Plane
from porthamiltonian.library import contact
from porthamiltonian.models import build_model
from porthamiltonian.models.rocking_ellipsoid import support_height

MASS, AXES, TILT = 1.0, (0.2, 0.15, 0.1), 0.1
PERIOD = {"frictionless": 0.37, "rolling": 0.52}  # s, a little more than one rocking period
STIFFNESSES = (1e4, 1e5, 1e6)
RTOL_REF, RTOL = 1e-10, 1e-9


def run(model, t_end, rtol, x0=None):
    """(tilt, centre x) sampled on 101 common times."""
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial) if x0 is None else x0(system)
    t_eval = np.linspace(0.0, t_end, 101)
    traj = ph.simulate(system, (0.0, t_end), x0, method="DOP853", rtol=rtol, atol=1e-2 * rtol, t_eval=t_eval)
    obs = model.observables
    return np.array([[obs["tilt"](system, t, x), obs["centre x"](system, t, x)] for t, x in zip(traj.t, traj.x)])


def rocking(contact_kind, friction, **params):
    return build_model("rocking-ellipsoid", contact=contact_kind, friction=friction, unilateral=False, mass=MASS,
                       axes=AXES, tilt=TILT, **params)


@functools.cache
def errors_against_stiffness(friction):
    """Max |tilt error| [rad] and |centre x error| [m] of the compliant runs, per stiffness."""
    ref = run(rocking("sliding_plane", friction), PERIOD[friction], RTOL_REF)
    out = []
    for k in STIFFNESSES:
        y = run(rocking("compliant", friction, stiffness=k), PERIOD[friction], RTOL)
        out.append(np.max(np.abs(y - ref), axis=0))
    return np.array(out)


@pytest.mark.parametrize("friction", ["frictionless", "rolling"])
def test_compliant_converges_to_the_sliding_plane(friction):
    err = errors_against_stiffness(friction)[:, 0]
    # first order in 1/k: a factor ~10 per decade (at least 5, allowing for the solver's
    # share of the smallest error, ~rtol-level), and k err about constant
    assert np.all(err[1:] < err[:-1] / 5.0), err
    k_err = np.asarray(STIFFNESSES) * err
    assert_allclose(k_err, np.median(k_err), rtol=0.5, atol=0)
    # the stiffest compliant run is within 2e-4 of the tilt amplitude
    assert err[-1] < 2e-4 * TILT


def test_rolling_centre_converges_too():
    """Rolling moves the centre sideways (frictionless does not): its error also falls as 1/k."""
    err = errors_against_stiffness("rolling")[:, 1]
    assert np.all(err[1:] < err[:-1] / 5.0), err
    # measured 1.1e-4, 9.7e-6, 7.8e-7 m on a 2 cm sideways motion
    assert err[-1] < 2e-6


@pytest.mark.parametrize("friction", ["frictionless", "rolling"])
def test_the_model_builds_and_runs_with_either_contact(friction):
    tilt = {}
    for kind, leaf in (("compliant", "spring"), ("sliding_plane", "constraint")):
        model = rocking(kind, friction)
        system = ph.compile(model.graph, baumgarte=model.baumgarte)
        assert f"contact/{leaf}" in system.elements
        traj = ph.simulate(system, (0.0, 0.05), system.initial_state(model.initial), **model.solver)
        assert traj.success
        # the model's solver tolerance is 1e-8: the ledger closes to that level
        assert traj.power_budget().relative_residual < 1e-7
        tilt[kind] = model.observables["tilt"](system, traj.t[-1], traj.x[-1])
    # with the default stiffness (1e5 N/m) the two agree to ~1.2e-4 rad (k err ~ 12 rad N/m
    # in the convergence test); the tilt has moved by 0.02-0.03 rad in 50 ms
    assert_allclose(tilt["compliant"], tilt["sliding_plane"], rtol=0, atol=5e-4)
    assert abs(tilt["sliding_plane"] - TILT) > 0.01


def sliding_plane_start(system):
    """The rigid model's start: touching at the support height, at rest."""
    x = system.initial_state()
    pose = x[system.layout["body.pose"]].copy()
    pose[6] = support_height(AXES, TILT)
    return system.initial_state({"body.pose": pose})


@pytest.mark.parametrize("friction", ["frictionless", "rolling"])
def test_bondgraph_swap_compliant_for_sliding_plane(friction):
    """Swap the contact component of a built compliant model for a sliding-plane one: the
    result is the sliding-plane model (same trajectory to round-off)."""
    model = rocking("compliant", friction)
    bg = model.graph
    stiff = contact("sliding_plane", "contact", bg["body"], Ellipsoid(*AXES), bg["ground"], Plane(),
                    friction=friction, unilateral=False)
    old = bg.swap("contact", stiff)
    assert "spring" in old and bg["contact"] is stiff
    swapped = run(model, 0.1, RTOL_REF, x0=sliding_plane_start)
    built = run(rocking("sliding_plane", friction), 0.1, RTOL_REF)
    # same equations, same element order within the component: identical up to round-off
    assert_allclose(swapped, built, rtol=0, atol=1e-12)


def test_bondgraph_swap_sliding_plane_for_compliant():
    model = rocking("sliding_plane", "frictionless")
    bg = model.graph
    soft = contact("compliant", "contact", bg["body"], Ellipsoid(*AXES), bg["ground"], Plane(), stiffness=1e5,
                   damping=2 * 0.1 * np.sqrt(1e5 * MASS), friction=0.0, tangential_stiffness=0.0,
                   tangential_damping=0.0, spin_stiffness=0.0, spin_damping=0.0)
    bg.swap("contact", soft)
    built = rocking("compliant", "frictionless")
    start = built.graph["body"].pose0

    def compliant_start(system):
        return system.initial_state({"body.pose": start})

    # the compliant model's defaults are those of the component given here
    assert_allclose(run(model, 0.1, RTOL, x0=compliant_start), run(built, 0.1, RTOL), rtol=0, atol=1e-12)


def test_swap_needs_an_editable_graph():
    model = rocking("compliant", "frictionless")
    ph.compile(model.graph)
    stiff = contact("sliding_plane", "contact", model.graph["body"], Ellipsoid(*AXES), model.graph["ground"], Plane())
    with pytest.raises(ph.PhaseError, match=r"was compiled and is frozen: `swap` is not allowed after compile"):
        model.graph.swap("contact", stiff)
    # an editable copy (its own bodies) takes the swap
    bg = model.graph.copy()
    stiff = contact("sliding_plane", "contact", bg["body"], Ellipsoid(*AXES), bg["ground"], Plane(), unilateral=False)
    bg.swap("contact", stiff)
    model.graph = bg
    swapped = run(model, 0.1, RTOL_REF, x0=sliding_plane_start)
    assert_allclose(swapped, run(rocking("sliding_plane", "frictionless"), 0.1, RTOL_REF), rtol=0, atol=1e-12)
