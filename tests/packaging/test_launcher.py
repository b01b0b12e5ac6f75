"""Ctrl-C while the command line starts (issue 36): one line on stderr and exit 130 (143 for
SIGTERM), however it was started, never a traceback; a program importing the package keeps
Python's own KeyboardInterrupt.

Deterministic: a ``sitecustomize`` module (on ``PYTHONPATH``, run by Python's ``site`` before
anything else) holds the import of `porthamiltonian.bondgraph` -- the first heavy module the
package imports -- until the test has sent its signal: the file ``ready`` says the process is
there. The reference is the exit status and stderr of a real subprocess.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from porthamiltonian import _launcher

ROOT = Path(__file__).resolve().parents[2]

_HOLD = textwrap.dedent("""
    import importlib.abc, os, sys, time

    class Hold(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname == os.environ["HOLD_AT"]:
                open(os.environ["HOLD_READY"], "w").close()
                time.sleep(60)   # the signal's handler runs here
            return None

    sys.meta_path.insert(0, Hold())
""")


def _start(tmp_path, command, hold_at="porthamiltonian.bondgraph"):
    (tmp_path / "sitecustomize.py").write_text(_HOLD)
    ready = tmp_path / "ready"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]), HOLD_AT=hold_at,
               HOLD_READY=str(ready), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                            cwd=str(tmp_path),
                            # a background test session ignores SIGINT and children inherit it
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return proc, ready.exists()


def _signalled(proc, signum):
    try:
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return proc.returncode, [ln for ln in err.splitlines() if ln.strip()]


def _console_script(tmp_path):
    """What pip writes for ``[project.scripts]`` (its wrapper's body, named like it)."""
    script = tmp_path / "bin" / "porthamiltonian"
    script.parent.mkdir()
    script.write_text("import sys\nfrom porthamiltonian._launcher import main\nif __name__ == '__main__':\n"
                      "    sys.exit(main())\n")
    return [sys.executable, str(script)]


@pytest.mark.parametrize("how", ["-m porthamiltonian", "-m porthamiltonian.cli", "console script"])
@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_the_package_imports_is_one_line(tmp_path, how, signum, status):
    prefix = _console_script(tmp_path) if how == "console script" else [sys.executable, *how.split()]
    proc, held = _start(tmp_path, [*prefix, "run", "two-ellipsoids", "--no-progress"])
    assert held, proc.communicate(timeout=5)
    code, lines = _signalled(proc, signum)
    name = "" if signum == signal.SIGINT else " by SIGTERM"
    assert (code, lines) == (status, [f"interrupted{name}: `porthamiltonian run` stopped while starting; "
                                      "no output was written or replaced"])


def test_a_program_importing_the_package_keeps_its_keyboard_interrupt(tmp_path):
    """Not the command line: Python's handler is left, the KeyboardInterrupt reaches the
    program (here uncaught: a traceback, and Python exits by SIGINT)."""
    proc, held = _start(tmp_path, [sys.executable, "-c", "import porthamiltonian"])
    assert held, proc.communicate(timeout=5)
    code, lines = _signalled(proc, signal.SIGINT)
    assert code == -signal.SIGINT and lines[-1] == "KeyboardInterrupt", lines


@pytest.mark.parametrize("orig_argv, argv0, expected", [
    (["python", "-m", "porthamiltonian", "run"], "-m", True),
    (["python", "-X", "dev", "-m", "porthamiltonian.cli", "run"], "-m", True),
    (["python", "-mporthamiltonian"], "-m", True),
    (["python", "-m", "pytest", "tests"], "-m", False),
    (["python", "-m", "porthamiltonian.models"], "-m", False),
    (["python", "/usr/bin/porthamiltonian", "run"], "/usr/bin/porthamiltonian", True),
    (["python", "my_study.py"], "my_study.py", False),
    (["python", "-c", "import porthamiltonian"], "-c", False),
])
def test_which_processes_are_the_command_line(monkeypatch, orig_argv, argv0, expected):
    monkeypatch.setattr(sys, "orig_argv", orig_argv, raising=False)
    monkeypatch.setattr(sys, "argv", [argv0, *orig_argv[2:]])
    assert _launcher.is_command_line() is expected


def test_a_signal_as_the_compile_starts_is_one_line(tmp_path):
    """The CLI's handlers have taken over when the right-hand side's compile starts (held
    where it imports its notice, `porthamiltonian.compile.notice`): the CLI's one line, 130.
    (A Ctrl-C inside numba's compile of the main job on empty caches was checked by hand: the
    same line and status, the helper processes stopped.)"""
    proc, held = _start(tmp_path, [sys.executable, "-m", "porthamiltonian", "run", "ball-drop", "--no-progress",
                                   "--out", str(tmp_path / "out")], hold_at="porthamiltonian.compile.notice")
    assert held, proc.communicate(timeout=5)
    code, lines = _signalled(proc, signal.SIGINT)
    assert (code, lines) == (130, ["interrupted: `porthamiltonian run` stopped; no output was written or replaced"])
    assert not (tmp_path / "out").exists()
