"""Run records (issue 15, acceptance 4): `summary.json` of a single run holds the model, every
parameter value (defaults included), the contact kind, the solver and its tolerances, the
versions, the wall time and the ledger; `observables.csv` has units in its header; `rerun`
reproduces the run from its summary bit for bit (reference: the saved trajectory)."""

import json

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.cli import main
from porthamiltonian.errors import ParameterError
from porthamiltonian.models import get_model


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "drop"
    code = main(["run", "ball-drop", "-p", "stiffness=2e4", "--contact", "sliding_plane", "--t-end", "0.4",
                 "--samples", "81", "--rtol", "1e-8", "--no-progress", "--out", str(out)])
    assert code == 0
    return out


def test_summary_fields(run_dir):
    s = json.loads((run_dir / "summary.json").read_text())
    defaults = {n: p.default for n, p in get_model("ball-drop").parameters.items()}
    assert s["model"] == "ball-drop" and s["contact"] == "sliding_plane"
    assert s["parameters"] == {**defaults, "stiffness": 2e4, "contact": "sliding_plane"}
    assert s["solver"]["method"] == "DOP853" and s["solver"]["rtol"] == 1e-8 and s["solver"]["atol"] == 1e-11
    assert s["solver"]["t_end"] == 0.4 and s["solver"]["samples"] == 81
    assert s["versions"]["porthamiltonian"] == ph.__version__
    assert {"numpy", "scipy", "numba", "python"} <= set(s["versions"])
    assert s["wall_time_s"] > 0 and s["status"] == 0
    assert s["ledger"]["lost"] > 0 and abs(s["ledger"]["max_residual"]) < 1e-9


def test_observables_csv_units(run_dir):
    lines = (run_dir / "observables.csv").read_text().splitlines()
    assert lines[0] == "t [s],height [m],vertical velocity [m/s]"
    values = np.loadtxt(run_dir / "observables.csv", delimiter=",", skiprows=1)
    saved = np.load(run_dir / "observables.npz")
    np.testing.assert_array_equal(values[:, 1], saved["height"])


def test_rerun_reproduces(run_dir):
    _, traj = ph.rerun(run_dir / "summary.json")
    saved = np.load(run_dir / "trajectory.npz")
    assert np.array_equal(traj.t, saved["t"]) and np.array_equal(traj.x, saved["x"])


def test_rerun_refuses_other_files(tmp_path):
    bad = tmp_path / "summary.json"
    bad.write_text(json.dumps({"model": "ball-drop"}))
    with pytest.raises(ParameterError, match=r"is not a run summary written by porthamiltonian \(KeyError"):
        ph.rerun(bad)
