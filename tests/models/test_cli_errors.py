"""Bad command-line options of `porthamiltonian run` (and `graph`, `save`): each prints a
clear error naming the option, the value and the rule on stderr and returns 2, before any
model is built or simulated (nothing is written). Also bad model parameters (a bool for a
number) and degenerate ellipsoids (the surfaces models build), refused with ParameterError."""

import os
import stat

import numpy as np
import pytest

from porthamiltonian.cli import main
from porthamiltonian.errors import ParameterError
from porthamiltonian.geometry import Ellipsoid, Sphere
from porthamiltonian.models import build_model


def run(capsys, *argv):
    code = main(["run", "mass-spring-damper", "--no-progress", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def simulate_spy(monkeypatch):
    """Fails the test if `simulate` is reached."""
    import porthamiltonian

    def never(*args, **kwargs):
        raise AssertionError("simulate was called")

    monkeypatch.setattr(porthamiltonian, "simulate", never)


def test_out_pointing_to_an_existing_file_is_refused(tmp_path, capsys, simulate_spy):
    target = tmp_path / "results.txt"
    target.write_text("keep me")
    code, out, err = run(capsys, "--out", str(target))
    assert code == 2
    assert "error: `--out`" in err and "results.txt' is an existing file, not a directory" in err
    assert target.read_text() == "keep me" and out == ""


def test_out_below_an_existing_file_is_refused(tmp_path, capsys, simulate_spy):
    (tmp_path / "f").write_text("")
    code, _, err = run(capsys, "--out", str(tmp_path / "f" / "sub"))
    assert code == 2
    assert "cannot be created:" in err and "f' is a file, not a directory" in err


def _as_owner(path, mode, **kw):
    """`os.access` as a non-root owner is answered: from the owner's permission bits (root
    may write anywhere, so a read-only directory cannot be made for it)."""
    bits = os.stat(path).st_mode
    need = ((os.R_OK, stat.S_IRUSR), (os.W_OK, stat.S_IWUSR), (os.X_OK, stat.S_IXUSR))
    return all(bits & bit for flag, bit in need if mode & flag)


def test_out_in_a_read_only_directory_is_refused(tmp_path, capsys, simulate_spy, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        if os.access(locked, os.W_OK):   # running as root: ask as the directory's owner would be answered
            monkeypatch.setattr(os, "access", _as_owner)
        code, _, err = run(capsys, "--out", str(locked))
        assert code == 2
        assert "error: `--out`" in err and "locked' is a directory that is not writable" in err
        code, _, err = run(capsys, "--out", str(locked / "new"))
        assert code == 2
        assert "locked' is not writable" in err and "cannot be created" in err
    finally:
        locked.chmod(stat.S_IRWXU)


@pytest.mark.parametrize("samples", ["-5", "1"])
def test_samples_must_be_zero_or_at_least_two(tmp_path, capsys, simulate_spy, samples):
    code, _, err = run(capsys, "--samples", samples, "--out", str(tmp_path / "o"))
    assert code == 2
    assert "error: `--samples` must be 0 (the solver's own steps) or >= 2 " in err and f"got {samples}" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("t_end, shown", [("inf", "inf"), ("-1", "-1.0"), ("0", "0.0"), ("nan", "nan")])
def test_t_end_must_be_finite_and_positive(tmp_path, capsys, simulate_spy, t_end, shown):
    code, _, err = run(capsys, "--t-end", t_end, "--out", str(tmp_path / "o"))
    assert code == 2
    assert err.strip() == f"error: `--t-end` must be a finite number of seconds > 0, got {shown}"
    assert "t_span" not in err


def test_graph_out_pointing_to_a_file_is_refused(tmp_path, capsys):
    target = tmp_path / "g.png"
    target.write_text("")
    assert main(["graph", "mass-spring-damper", "--out", str(target)]) == 2
    assert "g.png' is an existing file, not a directory" in capsys.readouterr().err


def test_save_out_pointing_to_a_directory_is_refused(tmp_path, capsys):
    assert main(["save", "mass-spring-damper", "--out", str(tmp_path)]) == 2
    assert "is a directory; give the model file to write (FILE.json)" in capsys.readouterr().err


def test_valid_options_still_run(tmp_path, capsys):
    code, out, err = run(capsys, "--t-end", "0.2", "--samples", "2", "--out", str(tmp_path / "o"))
    assert code == 0, err
    assert (tmp_path / "o" / "summary.json").exists()


def test_out_not_writable_per_os_access_is_refused(tmp_path, capsys, simulate_spy, monkeypatch):
    """The permission check itself, also under root (where the 0o500 test above is skipped):
    `os.access` is made to report the directory as not writable."""
    import porthamiltonian.cli as cli

    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(cli.os, "access", lambda p, mode: False if os.fspath(p) == os.fspath(locked) else real(p, mode))
    code, _, err = run(capsys, "--out", str(locked))
    assert code == 2 and "locked' is a directory that is not writable" in err
    code, _, err = run(capsys, "--out", str(locked / "new" / "deeper"))
    assert code == 2 and f"cannot be created: directory {str(locked)!r} is not writable" in err


# ------------------------------------------------ model parameters and surfaces built by models

@pytest.mark.parametrize("params, message", [
    (dict(mass=True), r"^model 'heavy-top': `mass` takes numbers like 1\.0, got True: a bool is not a number$"),
    (dict(mass=np.bool_(False)), r"model 'heavy-top': `mass` takes numbers like 1\.0, got .*False.*: a bool is not"),
])
def test_a_bool_is_not_a_number(params, message):
    with pytest.raises(ParameterError, match=message):
        build_model("heavy-top", **params)


def test_bools_inside_tuples_and_non_bools_for_flags_are_refused_numpy_scalars_accepted():
    with pytest.raises(ParameterError, match=r"`axes` takes numbers like \(0\.2, 0\.15, 0\.1\), got \(0\.2, True, 0\.1\)"):
        build_model("rocking-ellipsoid", axes=(0.2, True, 0.1))
    with pytest.raises(ParameterError, match=r"model 'rocking-ellipsoid': `unilateral` must be True or False, got 1"):
        build_model("rocking-ellipsoid", unilateral=1)
    build_model("heavy-top", mass=np.float32(2.0))
    build_model("rocking-ellipsoid", axes=np.array([0.2, 0.15, 0.1]), mass=np.float64(1.5), unilateral=np.bool_(True))


@pytest.mark.parametrize("make, message", [
    (lambda: Ellipsoid(1e-300, 1.0, 1.0), r"Ellipsoid: `a` = 1e-300 m is outside \[1e-12, 1e\+12\] m"),
    (lambda: Ellipsoid(1.0, 1.0, 1e13), r"Ellipsoid: `c` = 10000000000000\.0 m is outside \[1e-12, 1e\+12\] m"),
    (lambda: Ellipsoid(1.0, 1e-7, 0.5), r"Ellipsoid: semi-axis `b` = 1e-07 m is less than 1e-06 times the largest "
                                        r"semi-axis \(1\.0 m\)"),
    (lambda: Sphere(1e-300), r"Sphere: `radius` = 1e-300 m is outside \[1e-12, 1e\+12\] m"),
])
def test_degenerate_ellipsoids_are_refused(make, message):
    with pytest.raises(ParameterError, match=message):
        make()


def test_ellipsoids_at_the_limits_are_accepted():
    assert Ellipsoid(1.0, 1e-6, 1.0).axes == (1.0, 1e-6, 1.0)
    assert Sphere(1e-12).radius == 1e-12 and Sphere(1e12).radius == 1e12


def test_max_nfev_stops_a_run_from_the_command_line(tmp_path, capsys):
    from porthamiltonian.cli import main

    code = main(["run", "mass-spring-damper", "--max-nfev", "30", "--no-progress", "--out", str(tmp_path / "o")])
    out = capsys.readouterr()
    assert code == 1 and "stopped after max_nfev = 30" in out.err
