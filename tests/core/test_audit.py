"""The energy audit of a finished run (issue 39): a run whose ledger does not close within what
its tolerances allow, or whose element generates energy, is flagged (status 2, warnings, an
AuditWarning, the run record and the ledger figure); a clean run is not."""

import json
import warnings

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import AuditWarning
from porthamiltonian.models.registry import build_model


def msd(stiffness=4.0, law=None, q0=0.5):
    bg = ph.BondGraph("msd")
    r = ph.R("b", law=law) if law is not None else ph.R("b", 0.2)
    bg.add(ph.Junction1("v"), ph.I("m", mass=1.0), ph.C("k", stiffness=stiffness), r)
    for el in ("m", "k", "b"):
        bg.connect("v", el)
    system = ph.compile(bg)
    return system, system.initial_state({"k.q": q0})


def test_an_unresolved_stiff_run_is_flagged():
    """k = 1e14 over 1 ms (1600 periods) at RK45's defaults: the ledger residual is 2.9e-3 of
    the energy scale, about 2900 (rtol scale + atol), far above the bound of 100."""
    system, x0 = msd(stiffness=1e14)
    with pytest.warns(AuditWarning, match="the energy ledger does not close"):
        traj = ph.simulate(system, (0.0, 1e-3), x0)
    b = traj.power_budget()
    assert b.max_residual > b.residual_bound == pytest.approx(100 * (1e-6 * b.scale + 1e-9), rel=1e-12)
    assert traj.status == ph.Trajectory.FLAGGED == 2 and traj.success
    assert traj.flags == ["ledger_residual"] and "does not close" in traj.warnings[0]
    assert "Flagged by the energy audit" in traj.message
    assert "flagged: ledger_residual" in repr(traj)
    assert b.to_dict()["flags"][0]["code"] == "ledger_residual"


def test_a_clean_run_is_not_flagged():
    system, x0 = msd()
    with warnings.catch_warnings():
        warnings.simplefilter("error", AuditWarning)
        traj = ph.simulate(system, (0.0, 5.0), x0, rtol=1e-8, atol=1e-10)
    b = traj.power_budget()
    assert traj.status == 0 and traj.warnings == [] and traj.flags == []
    assert b.max_residual < 0.1 * b.residual_bound    # well under: the bound is not tight on clean runs
    assert b.findings() == []


def test_audit_false_skips_it():
    system, x0 = msd(stiffness=1e14)
    traj = ph.simulate(system, (0.0, 1e-3), x0, audit=False)
    assert traj.status == 0 and traj.warnings == []
    with pytest.raises(ph.ParameterError, match="`audit` must be True, False or .strict."):
        ph.simulate(system, (0.0, 1e-3), x0, audit="yes")


def test_a_law_that_injects_energy_from_the_start_is_flagged_at_the_start():
    """e . f = -0.3 f^2: it pumps energy in from t = 0 and the motion grows exponentially. The
    old onset was the first sample whose fall exceeded 1e-6 of the (final, grown) energy scale:
    t = 2.9 s here, though the injection starts at once."""
    system, x0 = msd(law=lambda f: -0.3 * f)
    with pytest.warns(AuditWarning, match="is not passive: it generates energy from t = 0 s"):
        traj = ph.simulate(system, (0.0, 20.0), x0, rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 20, 401))
    ((path, t, generated),) = traj.power_budget().passivity_violations
    assert path == "b" and t == 0.0   # the first sample, exactly as given by t_eval
    assert traj.status == 2 and traj.flags == ["not_passive"]
    b = traj.power_budget()
    assert b.max_residual <= b.residual_bound   # the ledger itself closes


def test_the_run_record_and_the_cli_say_so(tmp_path, capsys):
    from porthamiltonian.cli import main

    out = tmp_path / "run"
    code = main(["run", "mass-spring-damper", "-p", "stiffness=1e14", "--t-end", "1e-3", "--rtol", "1e-6",
                 "--atol", "1e-9", "--method", "RK45", "--out", str(out), "--no-progress"])
    assert code == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("FLAGGED (ledger_residual): the energy ledger does not close")
    record = json.loads((out / "summary.json").read_text())
    assert record["status"] == 2 and record["flags"] == ["ledger_residual"]
    assert record["ledger"]["residual_bound"] > 0 and record["ledger"]["max_residual"] > record["ledger"]["residual_bound"]


def test_the_ledger_figure_says_so():
    pytest.importorskip("matplotlib")
    system, x0 = msd(stiffness=1e14)
    with pytest.warns(AuditWarning):
        b = ph.simulate(system, (0.0, 1e-3), x0).power_budget()
    fig = b.plot()
    assert "FLAGGED: ledger_residual" in fig.axes[0].get_title()
    system, x0 = msd()
    clean = ph.simulate(system, (0.0, 1.0), x0, rtol=1e-8, atol=1e-10).power_budget().plot()
    assert "FLAGGED" not in clean.axes[0].get_title()
