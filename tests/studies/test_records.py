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
from porthamiltonian.models import Model, get_model


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
    assert lines[0] == "t [s],height [m],gap [m],vertical velocity [m/s]"
    values = np.loadtxt(run_dir / "observables.csv", delimiter=",", skiprows=1)
    saved = np.load(run_dir / "observables.npz")
    # bit-identical on purpose: csv and npz hold the same numbers at full precision
    np.testing.assert_array_equal(values[:, 1], saved["height"])


def test_rerun_reproduces(run_dir):
    _, traj = ph.rerun(run_dir / "summary.json")
    saved = np.load(run_dir / "trajectory.npz")
    # bit-identical on purpose: the saved record reproduces the run
    assert np.array_equal(traj.t, saved["t"]) and np.array_equal(traj.x, saved["x"])


def test_rerun_refuses_other_files(tmp_path):
    bad = tmp_path / "summary.json"
    bad.write_text(json.dumps({"model": "ball-drop"}))
    with pytest.raises(ParameterError, match=r"is not a run summary written by porthamiltonian \(KeyError"):
        ph.rerun(bad)


def damped_mass(*, mass=1.0, damping=0.5):
    """A build function for `sweep`: a mass on a damper from 1 m/s (v(t) = exp(-b t / m))."""
    bg = ph.BondGraph("damped_mass")
    bg.add(ph.Junction1("v"), ph.I("m", mass=mass), ph.R("b", damping))
    bg.connect("v", "m")
    bg.connect("v", "b")
    return Model(bg, initial={"m.p": mass}, t_end=1.0, solver=dict(method="DOP853", rtol=1e-10, atol=1e-12))


def test_build_function_and_model_file(tmp_path, monkeypatch):
    """A sweep over a user's build function records its defaults; a model file is referred to
    by its absolute path and digest, so its summary reruns from another directory."""
    table = ph.sweep(damped_mass, {"damping": [0.5, 1.0]}, workers=0, progress=False, samples=11)
    assert [json.loads(p) for p in table["parameters"]] == [{"mass": 1.0, "damping": 0.5}, {"mass": 1.0, "damping": 1.0}]
    # dissipated energy over 1 s: (1/2) m v0^2 (1 - exp(-2 b / m))
    np.testing.assert_allclose(table["ledger.dissipated"], 0.5 * (1.0 - np.exp(-2.0 * table["damping"])), rtol=1e-8)
    monkeypatch.chdir(tmp_path)
    assert main(["save", "ball-drop", "-p", "height=0.2", "--out", "drop.json"]) == 0
    assert main(["run", "drop.json", "--t-end", "0.1", "--samples", "11", "--no-progress", "--out", "o"]) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["model"] == str(tmp_path / "drop.json") and len(summary["model_file_sha256"]) == 64
    monkeypatch.chdir(tmp_path.parent)
    _, traj = ph.rerun(tmp_path / "o" / "summary.json")
    # bit-identical on purpose: the saved record reproduces the run
    assert np.array_equal(traj.x, np.load(tmp_path / "o" / "trajectory.npz")["x"])


@pytest.fixture
def file_run(tmp_path):
    """A run of a model file (mass-spring-damper saved), 0.5 s: its output directory and the file."""
    scene = tmp_path / "msd.json"
    assert main(["save", "mass-spring-damper", "--out", str(scene)]) == 0
    out = tmp_path / "run"
    assert main(["run", str(scene), "--t-end", "0.5", "--samples", "11", "--no-progress", "--out", str(out)]) == 0
    return out, scene


def test_rerun_refuses_an_edited_model_file(file_run):
    """Issue 39: the recorded `model_file_sha256` is checked; the edited model runs only when
    asked for, with a warning saying what differs (and it is the edited model that runs)."""
    from porthamiltonian.errors import RecordChangedError, RecordChangedWarning

    out, scene = file_run
    _, traj = ph.rerun(out / "summary.json")   # unchanged: runs, bit for bit
    assert np.array_equal(traj.x, np.load(out / "trajectory.npz")["x"])
    data = json.loads(scene.read_text())
    node = next(n for n in data["graph"]["graph"]["nodes"] if n["id"] == "m")
    node["params"]["mass"] = [[2.0]]
    scene.write_text(json.dumps(data))
    with pytest.raises(RecordChangedError, match=r"has changed since: the model file '.*msd.json' was edited "
                                                 r"\(SHA-256 recorded [0-9a-f]{12}\.\.\., now [0-9a-f]{12}\.\.\.\)\. "
                                                 r"Running it now would not reproduce the record; pass "
                                                 r"`allow_changes=True`"):
        ph.rerun(out / "summary.json")
    with pytest.warns(RecordChangedWarning, match=r"was edited .*run anyway"):
        _, edited = ph.rerun(out / "summary.json", allow_changes=True)
    assert not np.allclose(edited.x, np.load(out / "trajectory.npz")["x"])   # twice the mass: another motion


def test_rerun_refuses_other_versions(file_run, monkeypatch):
    from porthamiltonian.errors import RecordChangedError
    from porthamiltonian.studies import records

    out, _ = file_run
    real = records.versions()
    monkeypatch.setattr(records, "versions", lambda: {**real, "numpy": "0.0.1", "platform": "elsewhere"})
    with pytest.raises(RecordChangedError, match=rf"versions differ \(numpy {real['numpy']} -> 0.0.1\)\. Running"):
        ph.rerun(out / "summary.json")
    with pytest.raises(ParameterError, match=r"`allow_changes` must be True or False, got 'yes'"):
        ph.rerun(out / "summary.json", allow_changes="yes")
