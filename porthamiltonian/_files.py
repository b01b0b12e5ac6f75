"""Outputs that survive faults: atomic files and output directories replaced whole.

Every file the package writes (trajectories, summaries, figures, model files) goes through
`atomic_file`: it is written under a temporary name in its own directory and renamed into
place (``os.replace``, atomic on POSIX and Windows), so an interruption (SIGINT, a full disk,
an exception) leaves the previous complete file or none, never a truncated one.

The CLI's output directory goes through `staged_directory`: a run writes everything into a
hidden sibling directory, which then replaces the output directory whole, so a run into a
directory used before leaves only its own outputs (no figures of another model beside its
summary), and an interrupted run leaves the previous outputs untouched.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .errors import ParameterError

__all__ = ["atomic_file", "write_text", "savez", "staged_directory", "check_replaceable", "OUTPUT_MARKER"]

#: the file marking a directory the CLI wrote (it may be replaced by the next run)
OUTPUT_MARKER = ".porthamiltonian-output"
#: names the CLI writes; a directory holding only these (and figures) predates the marker
_OUTPUT_NAMES = {"trajectory.npz", "trajectory.csv", "summary.json", "observables.npz", "observables.csv",
                 "view.json", "view.html",
                 OUTPUT_MARKER}


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_file(path):
    """Yield a temporary path beside `path`; rename it to `path` when the block ends normally,
    delete it when the block raises (KeyboardInterrupt included).

    The temporary name keeps the suffix, so writers that pick a format by suffix (matplotlib)
    see the right one; writers that append a suffix when it is missing (``np.savez``) must be
    given an open file instead.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=f".partial{path.suffix}", dir=path.parent)
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())   # mkstemp's 0o600 is for secrets; outputs are shared as usual
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path, text):
    """Write a text file atomically (`atomic_file`); returns the path."""
    with atomic_file(path) as tmp:
        tmp.write_text(text)
    return Path(path)


def savez(path, **arrays):
    """``np.savez`` atomically (`atomic_file`), to exactly `path`; returns the path."""
    import numpy as np

    with atomic_file(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
    return Path(path)


def check_replaceable(out):
    """Raise ParameterError if `out` is an existing directory holding files the CLI did not
    write (a run replaces its output directory whole and must never delete a user's files)."""
    out = Path(out)
    if not out.is_dir():
        return
    entries = list(out.iterdir())
    if not entries or (out / OUTPUT_MARKER).exists():
        return
    foreign = sorted(e.name for e in entries if not (e.is_file() and (e.name in _OUTPUT_NAMES or e.suffix == ".png")))
    if foreign:
        shown = ", ".join(foreign[:5]) + (f", ... ({len(foreign) - 5} more)" if len(foreign) > 5 else "")
        raise ParameterError(
            f"`--out` {str(out)!r} holds files the CLI did not write ({shown}); a run replaces its output "
            "directory whole, so give a new or empty directory, or one a previous run wrote")


@contextmanager
def staged_directory(out):
    """Yield a fresh hidden directory beside `out` to write a run's outputs in; when the block
    ends normally it replaces `out` whole (the previous directory is renamed aside, then
    deleted), when it raises it is deleted and `out` is left as it was.

    `out` must have passed `check_replaceable`; its parent must exist.
    """
    out = Path(out)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        os.chmod(stage, 0o777 & ~_umask())
        (stage / OUTPUT_MARKER).write_text("written by the porthamiltonian CLI; the next run replaces this directory\n")
        yield stage
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, old / out.name)
        os.replace(stage, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
