"""The bowl thrown on a table (seed 002 Figs. 6-7): patch networks, impacts, patch transitions,
stick and rest, at the seed's small and large RK4 steps, and from the CLI."""

import json

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.cli import main
from porthamiltonian.models import build_model

CONTACT = "contact/constraint"


def _run(step, t_end=4.0, **params):
    model = build_model("bowl-on-table", step=step, **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    return model, system, x0, ph.simulate(system, (0.0, t_end), x0, **model.solver)


@pytest.mark.parametrize("step", [0.001, 0.016, 0.064])
def test_the_bowl_bounces_then_rolls_and_slides_to_rest_on_the_table(step):
    """Thrown with a spin, the bowl bounces (impacts with restitution 0.4, each returning it to
    the air), establishes continuous contact by a plastic impact, its slip stopped by the
    impacts' Coulomb friction (or, at the coarsest step, by a stick at 5 mm/s after them),
    rocks over many patches of both networks and is at rest on the table after 4 s (kinetic
    energy below 1e-5 of the throw's, centre inside the table; frictionless impacts left it
    sliding and it rested by 3 s, measured 1e-7 at 4 s now). The patch transitions leave
    the bowl's pose and momentum unchanged; in continuous contact the gap is round-off at
    every sample; the ledger closes to RK4's truncation error."""
    model, system, x0, traj = _run(step)
    # the paper's coarsest step (64 ms) does not resolve the ledger to the 1 % of the energy scale
    # that the energy audit allows a fixed-step method (residual 1.5 %): the run is flagged, as
    # it should be, for that reason alone
    if step == 0.064:
        assert traj.status == traj.FLAGGED and traj.flags == ["ledger_residual"], traj.message
    else:
        assert traj.status == 0, traj.message
    names = [e.name for e in traj.events]
    assert names.count(f"{CONTACT}.impact") >= 3
    assert names.count(f"{CONTACT}.chart") >= 10           # patch transitions (measured 26-27)
    # a patch transition re-expresses the contact coordinates without moving the bowl
    body = np.r_[np.arange(system.layout.size)[system.layout["bowl.pose"]],
                 np.arange(system.layout.size)[system.layout["bowl.P"]]]
    for e in traj.events:
        if e.name == f"{CONTACT}.chart":
            after = traj.x[np.flatnonzero(traj.t == e.t)[-1]]
            assert np.abs(after[body] - e.x[body]).max() < 1e-12          # measured 1e-13
    el, sl = system.elements[CONTACT], system.layout.element_slice(CONTACT)
    assert el.is_active(traj.x[-1][sl])
    gaps = [abs(el.distance(x[sl], system.element_state(CONTACT, x)[1])) for x in traj.x if el.is_active(x[sl])]
    assert max(gaps) < 1e-12                                # measured 5e-17
    ob = model.observables
    x_end = traj.x[-1]
    assert ob["kinetic"](system, 4.0, x_end) < 1e-5 * ob["kinetic"](system, 0.0, x0)
    assert abs(ob["x"](system, 4.0, x_end)) < 0.2 and abs(ob["y"](system, 4.0, x_end)) < 0.2
    assert ob["tilt"](system, 4.0, x_end) < 0.05
    residual = np.abs(traj.power_budget().residual).max()
    # RK4's energy-balance error: measured 2e-7 J at 1 ms, 5.7e-3 J at 16 ms, 1.5e-2 J at 64 ms,
    # of H(0) = 1.13 J (within the h^4 growth from 1 ms: 2e-7 J x 16^4 = 1.3e-2 J). At 16 ms the
    # bowl now hops for 4.7 ms after its impact at 0.18238 s; before the event fix of issue 10
    # (`integrate.events.wrap_event`) a spurious re-impact at the same instant, fired by the gap's
    # restart at round-off, cut the hop short, and the error was 2e-3 J.
    assert residual < {0.001: 1e-6, 0.016: 1e-2, 0.064: 3e-2}[step] * system.energy(x0)


def test_the_scene_runs_from_the_cli(tmp_path):
    """`porthamiltonian run bowl-on-table` writes the run with its energy report."""
    out = tmp_path / "bowl"
    code = main(["run", "bowl-on-table", "--no-progress", "--t-end", "0.5", "--samples", "11", "--out", str(out)])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["model"] == "bowl-on-table"
    assert summary["status"] == 0 and summary["ledger"]["lost"] > 0.0       # the impacts
    assert summary["ledger"]["max_residual"] < 1e-2 * summary["ledger"]["H0"]       # RK4 at 16 ms: 1.2e-3
