"""Outputs that survive faults (issue 17): atomic files, output directories replaced whole, a
one-line message and exit status 130 on SIGINT.

References: the bytes of the previous outputs (an interrupted write must leave them exactly),
the directory listing (no partial or temporary files), and a real SIGINT sent to a CLI
subprocess.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian import _files
from porthamiltonian.cli import main
from porthamiltonian.errors import ParameterError
from porthamiltonian.models import build_model


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(Path(folder).iterdir())}


def _run(out, model="mass-spring-damper", *extra):
    return main(["run", model, "--no-progress", "--t-end", "0.5", "--samples", "51", "--out", str(out), *extra])


@pytest.fixture
def msd_trajectory():
    model = build_model("mass-spring-damper")
    system = ph.compile(model.graph)
    return ph.simulate(system, (0.0, 0.5), system.initial_state(model.initial))


def test_atomic_file_keeps_the_previous_file_when_the_writer_fails(tmp_path):
    target = tmp_path / "data.txt"
    target.write_text("previous\n")
    with pytest.raises(RuntimeError, match="disk full"):
        with _files.atomic_file(target) as tmp:
            tmp.write_text("half of the new cont")
            raise RuntimeError("disk full")
    assert target.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["data.txt"]


@pytest.mark.parametrize("suffix", [".csv", ".npz"])
def test_trajectory_save_interrupted_leaves_the_previous_file(tmp_path, monkeypatch, msd_trajectory, suffix):
    """A KeyboardInterrupt in the middle of writing (after some CSV rows, inside np.savez)
    leaves the earlier complete file byte for byte and no temporary file."""
    path = tmp_path / f"run{suffix}"
    msd_trajectory.save(path)
    before = path.read_bytes()
    calls = {"n": 0}
    if suffix == ".csv":
        import csv

        real = csv.writer

        class Writer:
            def __init__(self, fh):
                self.w = real(fh)

            def writerow(self, row):
                calls["n"] += 1
                if calls["n"] == 10:
                    raise KeyboardInterrupt
                self.w.writerow(row)

        monkeypatch.setattr(csv, "writer", Writer)
    else:
        real_savez = np.savez

        def savez(fh, **arrays):
            fh.write(b"PK\x03\x04 partial")
            raise KeyboardInterrupt

        monkeypatch.setattr(np, "savez", savez)
    with pytest.raises(KeyboardInterrupt):
        msd_trajectory.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    if suffix == ".npz":
        monkeypatch.setattr(np, "savez", real_savez)
        assert set(np.load(path).files) >= {"t", "x", "names", "event_t"}


def test_a_second_run_replaces_the_output_directory_whole(tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(out, "double-pendulum") == 0
    first = set(_snapshot(out))
    assert "absolute_link_angles.png" in first
    assert _run(out, "mass-spring-damper") == 0
    second = set(_snapshot(out))
    assert "absolute_link_angles.png" not in second    # the first model's figure is gone
    assert {"summary.json", "trajectory.npz", "trajectory.csv", "energy_budget.png", _files.OUTPUT_MARKER} <= second
    assert [p.name for p in tmp_path.iterdir()] == ["out"]   # nothing staged or set aside is left


def test_a_directory_with_foreign_files_is_not_replaced(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes")
    assert _run(out) == 2
    err = capsys.readouterr().err
    assert "holds files the CLI did not write (notes.txt)" in err and "give a new or empty directory" in err
    assert _snapshot(out) == {"notes.txt": b"my notes"}
    with pytest.raises(ParameterError, match=r"holds files the CLI did not write \(notes.txt\)"):
        _files.check_replaceable(out)
    # an empty directory, and one holding only outputs of an older version (no marker), are fine
    (out / "notes.txt").unlink()
    _files.check_replaceable(out)
    (out / "summary.json").write_text("{}")
    (out / "energy_budget.png").write_bytes(b"")
    _files.check_replaceable(out)


def test_interrupted_while_writing_leaves_the_previous_outputs(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert _run(out) == 0
    before = _snapshot(out)
    from porthamiltonian.integrate.trajectory import Trajectory

    real = Trajectory.save

    def save(self, path):
        if Path(path).suffix == ".csv":
            raise KeyboardInterrupt
        return real(self, path)

    monkeypatch.setattr(Trajectory, "save", save)
    capsys.readouterr()
    assert _run(out, "mass-spring-damper", "-p", "mass=2.0") == 130
    err = capsys.readouterr().err.strip()
    assert err == "interrupted: `porthamiltonian run` stopped; no output was written or replaced"
    assert _snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_sigint_during_a_run_prints_one_line_and_exits_130(tmp_path):
    """A real SIGINT to a CLI process integrating a long run: exit status 130, one line on
    stderr (no traceback), the previous outputs untouched, nothing partial left."""
    out = tmp_path / "out"
    assert _run(out) == 0
    before = _snapshot(out)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        # undamped: the oscillation never settles, so the solver's steps stay small and the
        # run takes hours (a damped one at rest takes huge steps and may finish in a second)
        [sys.executable, "-m", "porthamiltonian.cli", "run", "mass-spring-damper", "-p", "damping=0", "--t-end", "1e7",
         "--rtol", "1e-12", "--atol", "1e-14", "--samples", "0", "--no-progress", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
        # a test session started in the background of a non-interactive shell ignores SIGINT
        # and its children inherit that (Python then installs no KeyboardInterrupt handler):
        # give the CLI the disposition of a terminal's foreground process
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = ""
        deadline = time.monotonic() + 120
        while not line.startswith("model ") and time.monotonic() < deadline:   # built and compiled
            line = proc.stdout.readline()
        assert line.startswith("model "), "the run did not start"
        time.sleep(1.0)   # integrating now
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    # a run this long is warned about before it starts (`studies.records.long_run_warning`)
    assert lines[0].startswith("warning: this run may take about "), err
    assert lines[1:] == ["interrupted: `porthamiltonian run` stopped; no output was written or replaced"], err
    assert _snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_the_pulling_note_skips_the_round_off_of_rigid_contacts(capsys):
    """A normal force below zero is noted on the contact-force figure unless it is within
    `PULL_ROUND_OFF` of the run's largest normal force (a rigid contact's multiplier solve
    leaves -3e-13 N on feet carrying 130 N)."""
    import matplotlib.pyplot as plt
    from types import SimpleNamespace

    from porthamiltonian.cli import PULL_ROUND_OFF, _flag_pulling

    fig, ax = plt.subplots()
    forces = {"a": SimpleNamespace(normal=np.array([130.0, 65.0, -0.5 * PULL_ROUND_OFF * 130.0])),
              "b": SimpleNamespace(normal=np.array([10.0, 0.0]))}
    _flag_pulling(ax, forces)
    assert "pulling" not in capsys.readouterr().out and not ax.texts
    forces["b"] = SimpleNamespace(normal=np.array([10.0, -2.0 * PULL_ROUND_OFF * 130.0]))
    _flag_pulling(ax, forces)
    assert "in 1 contact(s), down to -2.6e-07 N (b)" in capsys.readouterr().out and ax.texts
    plt.close(fig)


def test_the_pulling_note_tells_a_rigid_contacts_event_instant_from_a_held_pull(capsys):
    """A rigid contact's force may pull between two jumps of one instant (a slip changes the
    forces, the detach that follows at once switches it off): not reported. A rigid contact
    pulling at any other sample was held on while pulling (a missed detach): reported as that,
    not as a compliant law's damper."""
    import matplotlib.pyplot as plt
    from types import SimpleNamespace

    from porthamiltonian.cli import _flag_pulling

    fig, ax = plt.subplots()
    t = np.array([0.0, 0.1, 0.2, 0.2, 0.2, 0.3])                     # an event at 0.2 s: three samples
    forces = {"foot": SimpleNamespace(normal=np.array([50.0, 40.0, 20.0, -5.3, 0.0, 0.0]))}
    _flag_pulling(ax, forces, rigid={"foot"}, instants=t, events=[0.2])
    assert "pulling" not in capsys.readouterr().out and not ax.texts
    forces["foot"].normal[1] = -4.0                                    # held on, pulling, between events
    _flag_pulling(ax, forces, rigid={"foot"}, instants=t, events=[0.2])
    assert "down to -4 N (foot): a rigid contact held on while its force pulls" in capsys.readouterr().out
    _flag_pulling(ax, forces, instants=t, events=[0.2])                 # a compliant contact: its damper
    assert "down to -5.3 N (foot): the contact law's damper pulls" in capsys.readouterr().out
    plt.close(fig)
