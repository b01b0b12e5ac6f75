"""Sweeps on Dask (issue 15, acceptance 1 and 2): a LocalCluster of 2 worker processes returns
the table of the same runs done serially in this process, trajectories bit for bit; a run made
to fail is a row with its message; an interrupted sweep started again runs only the missing
points.

References: the serial sweep (`workers=0`, no Dask) for the parallel one; the uninterrupted
sweep's table and a count of the runs executed for the resumed one.
"""

import os
from pathlib import Path

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.studies import sweep
from porthamiltonian.studies.cluster import open_executor

GRID = {"stiffness": [1e4, 1e5, 1e6], "restitution": [0.5, 0.8], "contact": ["compliant", "sliding_plane"]}
BAD = {"stiffness": 1e5, "restitution": 1.5, "contact": "compliant"}   # e > 1: this run fails
RUN = dict(t_end=0.4, samples=201, progress=False)
# columns that differ between two executions of one run by design
VOLATILE = ["wall_time_s", "trajectory", "traceback"]


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    return sweep("ball-drop", GRID, points=[BAD], out=out, trajectories=True, workers=0, **RUN)


@pytest.fixture(scope="module")
def client():
    with open_executor(workers=2) as c:
        yield c


def test_parallel_equals_serial(serial, client, tmp_path):
    parallel = sweep("ball-drop", GRID, points=[BAD], out=tmp_path, trajectories=True, scheduler=client, **RUN)
    # the workers from the scheduler itself: distributed 2026.8's `scheduler_info()` can return the
    # client's periodic totals-only refresh (no workers) that raced its own fetch (seen in CI)
    assert len(parallel) == 13 and len(client.nthreads()) == 2
    ok = parallel["status"] == "ok"
    assert ok.sum() == 12
    assert parallel.drop(columns=VOLATILE, errors="ignore").equals(serial.drop(columns=VOLATILE, errors="ignore"))
    for a, b in zip(serial["trajectory"][ok], parallel["trajectory"][ok]):
        ta, tb = np.load(a), np.load(b)
        # bit-identical on purpose: serial and Dask runs of one point are the same computation
        assert ta.files == tb.files and all(np.array_equal(ta[k], tb[k]) for k in ta.files)
    # any row again alone, from its record
    _, traj = ph.rerun(tmp_path / "runs" / f"{parallel['run_id'][5]}.json")
    # bit-identical on purpose: a sweep row reproduces the single run
    assert np.array_equal(traj.x, np.load(parallel["trajectory"][5])["x"])
    failed = parallel[~ok].iloc[0]
    assert failed["restitution"] == 1.5 and failed["trajectory"] == ""
    assert "ParameterError: model 'ball-drop': `restitution` must lie in [0, 1], got 1.5" in failed["error"]
    log = (tmp_path / "failures.log").read_text()
    assert log.startswith("1 of 13 runs failed") and failed["run_id"] in log


def test_table_rows(serial, tmp_path):
    """Rows in the points' order, the grid's values as columns, the ledger closed, the table
    saved as Parquet and read back equal."""
    import pandas as pd

    assert list(serial["contact"][:4]) == ["compliant", "sliding_plane"] * 2
    assert list(serial["stiffness"][:12]) == [1e4] * 4 + [1e5] * 4 + [1e6] * 4
    ok = serial[serial["status"] == "ok"]
    # the ledger closes at integration-tolerance level (rtol 1e-9 on a 2.9 J energy scale)
    assert (ok["ledger.max_residual"] < 1e-6).all()
    compliant = ok[ok["contact"] == "compliant"]
    np.testing.assert_allclose(compliant["ledger.dissipated.ContactDamper"], compliant["ledger.dissipated"],
                               rtol=1e-6)
    rigid = ok[ok["contact"] == "sliding_plane"]
    assert (rigid["ledger.dissipated"] == 0).all() and (rigid["ledger.lost.SlidingPlaneConstraint"] > 0).all()
    saved = pd.read_parquet(Path(serial["trajectory"][0]).parents[1] / "sweep.parquet")
    assert saved.drop(columns=VOLATILE, errors="ignore").equals(serial.drop(columns=VOLATILE, errors="ignore"))


def test_workers_share_the_caches(client):
    """The worker processes inherit this process's environment: the disk caches of numba and
    of the compiled right-hand sides are the ones this process uses."""
    names = ("NUMBA_CACHE_DIR", "PORTHAMILTONIAN_CACHE")
    here = {n: os.environ.get(n) for n in names}
    for env in client.run(lambda: {n: os.environ.get(n) for n in names}).values():
        assert env == here


def test_local_workers_start_no_compile_helpers(client):
    """Workers compile in parallel already (the contact chain's claims shared between them):
    `porthamiltonian.kernels._parallel` starts no helpers of theirs (unless set here)."""
    expected = os.environ.get("PORTHAMILTONIAN_COMPILE_HELPERS", "0")
    for value in client.run(lambda: os.environ.get("PORTHAMILTONIAN_COMPILE_HELPERS")).values():
        assert value == expected


_executed = []
_armed = []


def _interrupt_third(prepared, traj):
    """A metric that records the runs executed here and, armed, interrupts the sweep (Ctrl-C)
    at the third: as Python raises it, or as it surfaces from numba-compiled code (a
    SystemError caused by the KeyboardInterrupt), which a sweep used to record as a failed run."""
    _executed.append(prepared.spec.parameters["stiffness"])
    if _armed and len(_executed) == 3:
        if _armed[0] == "python":
            raise KeyboardInterrupt
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("CPUDispatcher(<function rhs>) returned a result with an exception set") from exc
    return float(traj.t[-1])


@pytest.mark.parametrize("raised_in", ["python", "compiled"])
def test_resume_runs_only_missing_points(tmp_path, raised_in):
    grid = {"stiffness": [1e4, 2e4, 4e4, 8e4]}
    kwargs = dict(t_end=0.3, samples=31, workers=0, progress=False, metrics={"end": _interrupt_third})
    _executed.clear()
    _armed.append(raised_in)
    with pytest.raises(KeyboardInterrupt):
        sweep("ball-drop", grid, out=tmp_path, **kwargs)
    _armed.clear()
    assert len(list((tmp_path / "runs").glob("*.json"))) == 2 and not (tmp_path / "sweep.parquet").exists()
    _executed.clear()
    table = sweep("ball-drop", grid, out=tmp_path, **kwargs)
    assert _executed == [4e4, 8e4]
    assert list(table["status"]) == ["ok"] * 4 and list(table["metric.end"]) == [0.3] * 4
    _executed.clear()
    again = sweep("ball-drop", grid, out=tmp_path, **kwargs)
    assert _executed == [] and again.drop(columns=["wall_time_s"]).equals(table.drop(columns=["wall_time_s"]))


@pytest.mark.parametrize("kwargs, message", [
    (dict(grid={"stiffness": [1e4]}, samples=1), r"`samples` must be 0 \(the solver's own steps\) or an integer >= 2"),
    (dict(grid={"stiffness": [1e4]}, t_end=-1.0), r"`t_end` must be None \(the model's\) or a finite number"),
    (dict(grid={"stiffness": [1e4]}, solver={"rtool": 1e-6}), r"`solver` takes method, rtol, atol, max_step, step; got 'rtool'"),
    (dict(grid={"stifness": [1e4]}), r"model 'ball-drop' has no parameter 'stifness'; did you mean 'stiffness'\?"),
    (dict(grid={"stiffness": []}), r"`grid\['stiffness'\]` must be a non-empty list of values"),
    (dict(), r"give `grid` \(name -> values\) or `points`"),
    (dict(grid={"stiffness": [1e4]}, trajectories=True), r"`trajectories=True` needs `out`"),
    (dict(grid={"stiffness": [1e4]}, workers=-1), r"`workers` must be an integer >= 0"),
])
def test_bad_input_before_any_run(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        sweep("ball-drop", progress=False, **kwargs)


_ran = []


def _count_runs(prepared, traj):
    """A metric that records the (contact, stiffness) of each run executed here."""
    _ran.append((prepared.spec.parameters["contact"], prepared.spec.parameters["stiffness"]))
    return float(traj.t[-1])


def test_a_parameter_the_kind_ignores_runs_once(tmp_path, capfd):
    """Stiffness means nothing to the sliding-plane contact: its three points are one run, said
    once on stderr and in the table's `ignored` column; the compliant points run each."""
    grid = {"stiffness": [1e4, 1e5, 1e6], "contact": ["compliant", "sliding_plane"]}
    _ran.clear()
    table = sweep("ball-drop", grid, out=tmp_path, t_end=0.3, samples=31, workers=0, progress=False,
                  metrics={"end": _count_runs})
    default = ph.models.MODELS["ball-drop"].parameters["stiffness"].default
    assert sorted(_ran) == [("compliant", 1e4), ("compliant", 1e5), ("compliant", 1e6), ("sliding_plane", default)]
    rigid, soft = table[table["contact"] == "sliding_plane"], table[table["contact"] == "compliant"]
    assert list(rigid["stiffness"]) == [1e4, 1e5, 1e6]            # the table shows the values asked
    assert rigid["run_id"].nunique() == 1 and soft["run_id"].nunique() == 3
    assert list(rigid["ignored"]) == ["stiffness"] * 3 and list(soft["ignored"]) == [""] * 3
    # one run, one row copied: bit-identical on purpose
    assert rigid["ledger.lost"].nunique() == 1 and (rigid["status"] == "ok").all()
    assert len(list((tmp_path / "runs").glob("*.json"))) == 4
    err = capfd.readouterr().err
    assert err.count("ignores") == 1
    assert ("sweep ball-drop: contact 'sliding_plane' ignores stiffness; its points that differ only there run once "
            "(6 points, 4 distinct runs)") in err


def test_a_bad_value_of_an_ignored_parameter_still_fails(tmp_path):
    """An ignored parameter is run at its default only when its value obeys its rule: a
    negative stiffness fails as it does alone (the model never sees a rule-breaking value)."""
    table = sweep("ball-drop", points=[{"stiffness": -1.0, "contact": "sliding_plane"}], t_end=0.1, samples=11,
                  workers=0, progress=False)
    assert table["status"][0] == "failed" and table["ignored"][0] == ""
    assert "`stiffness` must be > 0, got -1.0" in table["error"][0]
