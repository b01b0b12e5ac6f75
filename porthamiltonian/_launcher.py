"""The command line's start: Ctrl-C (or SIGTERM) from the first instant is one line and exit 130.

Importing the package takes seconds (numpy, scipy, numba, networkx and the kernels' modules),
and a first run then compiles for seconds more; a Ctrl-C there used to print a
KeyboardInterrupt traceback from deep inside an import. The CLI's own handlers
(`porthamiltonian._interrupt.install`) are set by `porthamiltonian.cli.main`, which runs only
once every heavy module is imported. This module imports nothing but the standard library,
and handles SIGINT and SIGTERM from before the heavy imports until the CLI takes over:

- `guard` sets a handler that writes one line (``interrupted: `porthamiltonian run` stopped
  while starting; no output was written or replaced``) and exits with 128 + the signal number
  (130 for SIGINT, 143 for SIGTERM), by raising ``SystemExit`` from the import that was
  running (nothing is written before the CLI starts, so there is nothing to clean up).
- Every way of starting the command line reaches it before the heavy imports. Python imports a
  package's ``__init__`` before any of its modules, so ``porthamiltonian/__init__.py`` calls
  `guard_command_line` first thing: it calls `guard` only when this process *is* the command
  line (`is_command_line`: the ``porthamiltonian`` console script, ``python -m
  porthamiltonian`` or ``python -m porthamiltonian.cli``); a program or notebook importing the
  package keeps its own signal handlers.
- The console script (``[project.scripts]``) and ``python -m porthamiltonian``
  (``porthamiltonian/__main__.py``) run `main`, which calls the CLI.

Once `porthamiltonian.cli.main` runs, its handlers replace these (a Ctrl-C during a compile or
a run is reported by it, with the same line and status).
"""

from __future__ import annotations

import os
import signal
import sys
import threading

__all__ = ["guard", "guard_command_line", "is_command_line", "main"]

#: the names a console script of the command line may have (pip writes ``.exe`` launchers or
#: ``-script.py`` files on Windows)
_SCRIPT_NAMES = ("porthamiltonian", "porthamiltonian.exe", "porthamiltonian-script.py")
#: the modules ``python -m`` runs as the command line
_MODULES = ("porthamiltonian", "porthamiltonian.cli")


def _command():
    """``porthamiltonian`` and the subcommand, as the CLI names them in its lines (the first
    argument that is not an option)."""
    args = sys.argv[1:]
    word = next((a for a in args if not a.startswith("-")), None)
    return "porthamiltonian" if word is None else f"porthamiltonian {word}"


def _starting(signum, frame):
    """The handler while the command line starts: one line, then exit 128 + `signum`."""
    name = "" if signum == signal.SIGINT else f" by {signal.Signals(signum).name}"
    sys.stderr.write(f"\ninterrupted{name}: `{_command()}` stopped while starting; no output was written or "
                     "replaced\n")
    sys.stderr.flush()
    raise SystemExit(128 + signum)


def guard():
    """Handle SIGINT and SIGTERM with one line and exit 128 + the signal number (module
    docstring) until the CLI installs its own handlers. Only in the main thread (signal
    handlers can be set nowhere else); does nothing elsewhere."""
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, _starting)


def _module_run_with_m():
    """The module named by the interpreter's ``-m`` option (None without one): from
    ``sys.orig_argv`` (Python >= 3.10), the interpreter's own command line, read as Python
    reads its options (flags may be grouped, ``-Im``; ``-W`` and ``-X`` take a value, attached
    or the next argument; ``-c``, a script or ``-`` ends them)."""
    argv = list(getattr(sys, "orig_argv", []))[1:]
    while argv:
        arg = argv.pop(0)
        if arg.startswith("--"):
            if arg == "--check-hash-based-pycs" and argv:
                argv.pop(0)
            continue
        if not arg.startswith("-") or arg == "-":
            return None
        for i, flag in enumerate(arg[1:], 1):
            if flag in "cmWX":
                value = arg[i + 1:] or (argv.pop(0) if argv else None)
                if flag == "m":
                    return value
                if flag == "c":
                    return None
                break
    return None


def is_command_line():
    """Whether this process was started as the command line: the ``porthamiltonian`` console
    script (``sys.argv[0]``'s name), or ``python -m porthamiltonian`` / ``python -m
    porthamiltonian.cli`` (while ``-m`` imports the package, Python sets ``sys.argv[0]`` to
    ``"-m"``; the module's name is in ``sys.orig_argv``)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0 == "-m":
        return _module_run_with_m() in _MODULES
    return os.path.basename(argv0) in _SCRIPT_NAMES


def guard_command_line():
    """`guard` if this process is the command line (`is_command_line`), else nothing."""
    if is_command_line():
        guard()


def main(argv=None):
    """The command line's entry point (console script and ``python -m porthamiltonian``):
    `guard`, then import and run `porthamiltonian.cli.main`. Returns its exit status."""
    guard()
    from porthamiltonian.cli import main as cli_main

    return cli_main(argv)
