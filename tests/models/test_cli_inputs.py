"""Bad inputs of model files, `run` and `sweep` (issues 38 and 39): each refused with one line
on stderr that names the option (or the file's field), the value and the rule, exit status 2,
before any model is built or simulated; and `--step`, the fixed step of RK4 and
discrete_gradient on the command line."""

import json

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.cli import main
from porthamiltonian.models.files import load_model, read_model_file


@pytest.fixture
def simulate_spy(monkeypatch):
    """Fails the test if `simulate` is reached."""
    def never(*args, **kwargs):
        raise AssertionError("simulate was called")

    monkeypatch.setattr(ph, "simulate", never)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The contents of a model file written by `porthamiltonian save mass-spring-damper`."""
    path = tmp_path_factory.mktemp("saved") / "msd.json"
    assert main(["save", "mass-spring-damper", "--out", str(path)]) == 0
    return json.loads(path.read_text())


def _write(tmp_path, data, name="scene.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _one_line_error(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, (code, err)
    return err


# ------------------------------------------------------------------ model files


@pytest.mark.parametrize("field, value, message", [
    ("solver", "fast", r"\"solver\" must be an object of `simulate` settings \(keys method, rtol.*got 'fast'"),
    ("solver", {"method": "DOP853", "rtol": -1.0}, r"\"solver\"\['rtol'\] must be a finite number > 0, got -1.0"),
    ("solver", {"method": 3}, r"\"solver\"\['method'\] must be a method name \(a string\), got 3"),
    ("solver", {"tolerance": 1e-6}, r"\"solver\" has the unknown key 'tolerance'; its keys are method, rtol"),
    ("t_end", "20", r"\"t_end\" must be a finite number of seconds > 0, got '20'"),
    ("t_end", -1, r"\"t_end\" must be a finite number of seconds > 0, got -1"),
    ("initial", {"k.q": "half"}, r"\"initial\"\['k.q'\] must be a finite number or a list of them, got 'half'"),
    ("initial", [0.5], r"\"initial\" must be an object \"element.block\" -> numbers, got \[0.5\]"),
    ("baumgarte", [1.0], r"\"baumgarte\" must be null or two finite numbers >= 0 \(alpha, beta\), got \[1.0\]"),
    ("baumgarte", [1.0, -2.0], r"\"baumgarte\" must be null or two finite numbers >= 0"),
    ("notes", 7, r"\"notes\" must be a string, got 7"),
    ("graph", [], r"\"graph\" must be an object \(the bond graph\), got \[\]"),
    ("version", "1", r"\"version\" must be an integer >= 1, got '1'"),
    ("colour", "red", r"has unknown field\(s\) \['colour'\]; a model file holds \"format\""),
])
def test_every_field_of_a_model_file_is_checked(tmp_path, saved, field, value, message):
    path = _write(tmp_path, {**saved, field: value})
    with pytest.raises(ph.SerializationError, match=r"model file '.*scene.json'.*" + message):
        load_model(path)


def test_a_solver_given_as_a_string_is_named_on_the_command_line(tmp_path, saved, capsys, simulate_spy):
    path = _write(tmp_path, {**saved, "solver": "fast"})
    err = _one_line_error(capsys, ["run", str(path), "--no-progress", "--out", str(tmp_path / "o")])
    assert f"error: model file '{path}': \"solver\" must be an object" in err and "got 'fast'" in err


def test_a_newer_format_version_is_refused_by_name(tmp_path, saved, capsys, simulate_spy):
    path = _write(tmp_path, {**saved, "version": 99})
    with pytest.raises(ph.SerializationError, match=r"has format version 99, newer than this release reads "
                                                    r"\(version 1\): it was written by a newer porthamiltonian"):
        load_model(path)
    err = _one_line_error(capsys, ["run", str(path), "--no-progress", "--out", str(tmp_path / "o")])
    assert "format version 99" in err
    assert not (tmp_path / "o").exists()


def test_a_model_file_without_its_graph_is_named_by_the_path_given(tmp_path, saved, capsys, monkeypatch,
                                                                   simulate_spy):
    data = dict(saved)
    del data["graph"]
    _write(tmp_path, data, "nograph.json")
    monkeypatch.chdir(tmp_path)
    err = _one_line_error(capsys, ["run", "nograph.json", "--no-progress", "--out", "o"])
    # the path as typed, not the absolute path the run's record holds
    assert "error: model file 'nograph.json' lacks ['graph']; a model file holds \"format\"" in err
    assert "\"graph\" (the bond graph), \"t_end\" and \"solver\"" in err


def test_every_registered_model_that_saves_passes_the_schema(tmp_path):
    """The schema accepts what `save` writes (else a saved model would not load back)."""
    from porthamiltonian.models import MODELS, build_model, save_model

    saved = 0
    for name in sorted(MODELS):
        try:
            path = save_model(build_model(name), tmp_path / f"{name}.json")
        except ph.SerializationError:   # a model with a Python callable in it cannot be saved
            continue
        read_model_file(path)
        saved += 1
    assert saved >= 10


# ------------------------------------------------------------------ run


@pytest.mark.parametrize("argv, message", [
    (["ball-drop", "--method", "RK99"], "error: `--method` 'RK99' is not a solve_ivp method; use one of ['BDF', "
                                        "'DOP853', 'LSODA', 'RK23', 'RK45', 'Radau', 'RK4', 'discrete_gradient']"),
    (["ball-drop", "--animate", "out.avi"], "error: `--animate` 'out.avi': an animation must be written to a .gif "
                                            "or .mp4 file (GIF by Pillow, MP4 by ffmpeg), got the suffix '.avi'"),
    (["rocking-ellipsoid", "--contact", "soil"],
     "error: `--contact` 'soil': model 'rocking-ellipsoid' is not built for the soil contact kind (its contact's "
     "options do not fit that kind); `contact` must be one of the kinds it offers: compliant, sliding_plane, "
     "reduced"),
    (["heavy-top", "--method", "discrete_gradient"],
     "error: `--method` discrete_gradient steps by a fixed step: give `--step`, the step [s]"),
    (["heavy-top", "--step", "0.01"], "error: `--step` is for the fixed-step methods ['RK4', 'discrete_gradient']; "
                                      "this run's method 'DOP853' (the model's) chooses its own steps"),
    (["heavy-top", "--method", "RK4", "--step", "-0.01"],
     "error: `--step` must be a finite number of seconds > 0 (the fixed step of RK4 and discrete_gradient), "
     "got -0.01"),
    (["heavy-top", "--method", "RK4", "--step", "inf"], "error: `--step` must be a finite number of seconds > 0"),
    (["ball-drop", "-p", "restitution=1.5"],
     "error: `-p restitution` '1.5': model 'ball-drop': `restitution` must lie in [0, 1], got 1.5"),
])
def test_run_names_the_option_the_value_and_the_rule(tmp_path, capsys, simulate_spy, argv, message):
    err = _one_line_error(capsys, ["run", *argv, "--no-progress", "--out", str(tmp_path / "o")])
    assert err.startswith(message), err
    assert not (tmp_path / "o").exists()


def test_a_model_offers_the_contact_kinds_it_builds_with():
    """The declared kinds are the ones the model builds with: each builds, the others are
    refused by the registry (before the build) rather than by a contact factory's option."""
    from porthamiltonian.library.contacts import CONTACT_KINDS
    from porthamiltonian.models import MODELS, build_model

    for name, spec in MODELS.items():
        p = spec.parameters.get("contact")
        if p is None:
            continue
        assert p.choices and set(p.choices) <= set(CONTACT_KINDS), name
        for kind in sorted(CONTACT_KINDS):
            if kind in p.choices:
                build_model(name, contact=kind)
            else:
                with pytest.raises(ph.ParameterError, match=f"model '{name}' is not built for the {kind} contact"):
                    build_model(name, contact=kind)


def test_step_runs_discrete_gradient_from_the_command_line(tmp_path, capsys):
    """`--method discrete_gradient --step h`: the heavy top (conservative) keeps H, and so
    closes its ledger, to round-off; the record names the method and the step."""
    out = tmp_path / "dg"
    assert main(["run", "heavy-top", "--method", "discrete_gradient", "--step", "0.01", "--t-end", "1",
                 "--samples", "11", "--no-progress", "--out", str(out)]) == 0
    record = json.loads((out / "summary.json").read_text())
    assert record["solver"]["method"] == "discrete_gradient" and record["solver"]["step"] == 0.01
    assert record["spec"]["solver"] == {"method": "discrete_gradient", "step": 0.01}
    ledger = record["ledger"]
    # 100 steps, each exact to the per-step solve's round-off (~1e-15 of H): 1e-12 of H has room
    assert abs(ledger["H_end"] - ledger["H0"]) < 1e-12 * ledger["H0"]
    assert ledger["max_residual"] < 1e-12 * ledger["H0"]
    # and the run is the API's discrete-gradient run at that step, to the last bit
    prepared, traj = ph.rerun(out / "summary.json")
    assert np.array_equal(traj.x, np.load(out / "trajectory.npz")["x"])


def test_a_variable_step_method_drops_a_fixed_step_models_step(tmp_path):
    """bowl-on-table runs RK4 at its own step; `--method DOP853` brings its own stepping (the
    model's `step` is dropped, not passed to a method that refuses it)."""
    from porthamiltonian.studies.records import RunSpec, prepare

    prepared = prepare(RunSpec("bowl-on-table", {}, 0.01, {"method": "DOP853"}))
    assert prepared.solver["method"] == "DOP853" and "step" not in prepared.solver
    assert prepare(RunSpec("bowl-on-table", {}, 0.01)).solver["method"] == "RK4"


# ------------------------------------------------------------------ sweep


@pytest.mark.parametrize("argv, message", [
    (["--contact", "compliant,rigid"],
     "error: `--contact` 'rigid': model 'ball-drop': unknown contact kind 'rigid'; use one of ['compliant', "
     "'reduced', 'sliding_plane', 'soil']; this model offers compliant, sliding_plane, reduced, soil"),
    (["-p", "restitution=0.5,1.5"],
     "error: `-p restitution` '1.5': model 'ball-drop': `restitution` must lie in [0, 1], got 1.5"),
    (["-p", "restitution=0.5", "--method", "RK99"], "error: `--method` 'RK99' is not a solve_ivp method; use one of"),
    (["-p", "restitution=0.5", "--method", "RK4", "--step", "0"], "error: `--step` must be a finite number of "
                                                                  "seconds > 0"),
])
def test_sweep_names_the_option_the_value_and_the_rule(tmp_path, capsys, argv, message):
    """The run path's own wording (one check for both), before any run: nothing written."""
    out = tmp_path / "sweep"
    err = _one_line_error(capsys, ["sweep", "ball-drop", *argv, "--workers", "0", "--no-progress",
                                   "--out", str(out)])
    assert err.startswith(message), err
    assert not out.exists()


def test_sweep_api_refuses_an_unknown_method_before_any_run():
    from porthamiltonian.studies.sweep import sweep

    with pytest.raises(ph.ParameterError, match=r"`solver\['method'\]` 'RK99' is not a solve_ivp method"):
        sweep("ball-drop", {"restitution": [0.5]}, solver={"method": "RK99"}, workers=0, progress=False)


# ------------------------------------------------------------------ long runs


@pytest.mark.parametrize("stiffness, mass", [(4.0, 1.0), (1e6, 2.0), (1e14, 1.0)])
def test_step_estimate_is_the_oscillators_rate(stiffness, mass):
    """The fastest rate of a damped mass on a spring is |lambda| = sqrt(k / m) (closed form:
    lambda^2 + (c/m) lambda + k/m = 0, so |lambda|^2 = k/m for an underdamped pair)."""
    from porthamiltonian.studies.records import RunSpec, prepare, step_estimate

    prepared = prepare(RunSpec("mass-spring-damper", {"stiffness": stiffness, "mass": mass}, t_end=3.0))
    steps, rate = step_estimate(prepared)
    # 12 power iterations on a damped pair (c = 0.2 N s/m): 2 % at k = 4, round-off at 1e14
    assert rate == pytest.approx(np.sqrt(stiffness / mass), rel=0.05)
    assert steps == pytest.approx(3.0 * rate, rel=1e-12)


@pytest.mark.parametrize("argv, words", [
    (["-p", "stiffness=1e14", "--t-end", "2"], "rate of 1e+07 1/s over t_end = 2 s"),
    (["--t-end", "1e8"], "1/s over t_end = 1e+08 s"),   # the rate: about 2 (the test above)
    (["--method", "RK4", "--step", "1e-9", "--t-end", "1"], "t_end = 1 s at the fixed step 1e-09 s"),
])
def test_a_run_of_more_than_1e7_steps_is_warned_about_before_it_starts(tmp_path, capsys, simulate_spy, argv, words):
    with pytest.raises(AssertionError, match="simulate was called"):
        main(["run", "mass-spring-damper", *argv, "--no-progress", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert err.startswith("warning: this run may take about ") and words in err
    assert "more than 1e+07: it can run for hours; bound it with `--timeout` SECONDS (or `--max-nfev` N)" in err


def test_a_bounded_or_short_run_is_not_warned_about(tmp_path, capsys, simulate_spy):
    for argv in (["-p", "stiffness=1e14", "--t-end", "2", "--timeout", "60"], ["--t-end", "1e5"]):
        with pytest.raises(AssertionError, match="simulate was called"):
            main(["run", "mass-spring-damper", *argv, "--no-progress", "--out", str(tmp_path / "o")])
        assert "warning" not in capsys.readouterr().err
