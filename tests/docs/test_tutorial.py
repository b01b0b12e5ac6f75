"""The docs' tutorial (examples/tutorial_foot.py) runs, and its numbers are right."""

import importlib.util
import logging
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tutorial_foot.py"


@pytest.fixture(scope="module")
def tutorial():
    spec = importlib.util.spec_from_file_location("tutorial_foot", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture(scope="module")
def event_lines():
    return _Lines()


@pytest.fixture(scope="module")
def runs(tutorial, event_lines):
    log = logging.getLogger("porthamiltonian.integrate.simulate")
    level = log.level
    log.addHandler(event_lines)
    log.setLevel(logging.DEBUG)
    try:
        return tutorial.run(t_end=0.6)
    finally:
        log.removeHandler(event_lines)
        log.setLevel(level)


def test_ledgers_close(tutorial, runs, capsys):
    """Both ledgers balance at the solver's tolerance (rtol 1e-8), and both runs start from
    the same energy: the swap changed the contact only."""
    budgets = tutorial.compare(runs)
    assert "compliant" in capsys.readouterr().out
    for kind, budget in budgets.items():
        assert budget.max_residual < 1e-7 * budget.exchanged, kind
    np.testing.assert_allclose(budgets["compliant"].H[0], budgets["sliding_plane"].H[0], rtol=1e-14, atol=0)


def test_stiff_contact_loses_at_impacts_compliant_dissipates(tutorial, runs):
    """The same landing costs the compliant contact damper work and the stiff one impact
    losses; the joint's stabilization does no work (it only corrects round-off drift)."""
    compliant = runs["compliant"][1].power_budget()
    stiff = runs["sliding_plane"][1].power_budget()
    assert stiff.lost[-1] > 0.5 * compliant.dissipated[-1]
    assert compliant.lost[-1] < 1e-2 * compliant.dissipated[-1]
    for budget in (compliant, stiff):
        assert abs(budget.stabilization[-1]) < 1e-6 * budget.exchanged


def test_first_impact_at_free_fall_time(tutorial, runs):
    """The stiff contact's first impact comes after a free fall of the initial gap:
    t = sqrt(2 DROP / g) (the leg, foot and ankle fall as one body until then)."""
    traj = runs["sliding_plane"][1]
    impacts = [e.t for e in traj.events if e.name.endswith("impact")]
    assert impacts, [e.name for e in traj.events]
    np.testing.assert_allclose(impacts[0], np.sqrt(2 * tutorial.DROP / tutorial.G), rtol=1e-7)


def test_events_are_logged_as_they_fire(runs, event_lines):
    """Every element event of both runs is one DEBUG line of the simulate module's logger."""
    events = [e for _, traj in runs.values() for e in traj.events]
    assert any(e.name.endswith("impact") for e in events)
    assert event_lines.lines == [f"event at t = {e.t:.9g} s: {e.name}: {e.message} (lost {e.lost:.6g} J)" for e in events]
