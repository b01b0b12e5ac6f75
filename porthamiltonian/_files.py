"""Outputs that survive faults: atomic files and output directories replaced whole.

Every file the package writes (trajectories, summaries, figures, model files) goes through
`atomic_file`: it is written under a temporary name in its own directory and renamed into
place (``os.replace``, atomic on POSIX and Windows), so an interruption (SIGINT, a full disk,
an exception) leaves the previous complete file or none, never a truncated one.

The CLI's output directory goes through `staged_directory`: a run writes everything into a
hidden sibling directory, which then replaces the output directory whole, so a run into a
directory used before leaves only its own outputs (no figures of another model beside its
summary), and an interrupted run leaves the previous outputs untouched.

The guarantee, at every instant (SIGINT, SIGTERM, SIGKILL or power loss included): the
output directory's name holds either the previous run or the new one, complete. On Linux the
swap is one ``renameat2(RENAME_EXCHANGE)`` (atomic for directories); elsewhere the previous
directory is renamed aside (``.NAME.old-PID-*``) and the new one renamed in, with SIGINT and
SIGTERM held back in between, and a SIGKILL between the two renames is repaired by
`recover_leftovers` (the previous run is renamed back) at the next run into that directory.
Leftovers of a killed run (``.NAME.partial-PID-*``, ``.NAME.old-PID-*``, whose process is
gone) are removed or restored by `recover_leftovers`, which says what it did.

A failed write (a full disk, a read-only file system) raises `OutputWriteError`, naming the
file and the reason.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from . import _interrupt
from .errors import ParameterError, PortHamiltonianError

__all__ = ["atomic_file", "write_text", "savez", "staged_directory", "check_replaceable", "check_writable",
           "recover_leftovers", "OutputWriteError", "OUTPUT_MARKER"]

#: the file marking a directory the CLI wrote (it may be replaced by the next run)
OUTPUT_MARKER = ".porthamiltonian-output"
#: names the CLI writes; a directory holding only these (and figures) predates the marker
_OUTPUT_NAMES = {"trajectory.npz", "trajectory.csv", "summary.json", "observables.npz", "observables.csv",
                 "view.json", "view.html",
                 OUTPUT_MARKER}


class OutputWriteError(PortHamiltonianError, OSError):
    """A file of the outputs could not be written (a full disk, a read-only file system, ...).

    Attributes
    ----------
    path : Path
        The file that could not be written.
    reason : str
        The system's reason (``strerror``), e.g. "No space left on device".
    """

    def __init__(self, path, reason):
        self.path, self.reason = Path(path), reason
        super().__init__(f"cannot write {self.path.name!r} in {str(self.path.parent)!r} ({reason})")


def _reason(exc):
    return exc.strerror or str(exc) or type(exc).__name__


def check_writable(folder, what="`--out`"):
    """Raise ParameterError unless a file can really be created in the existing directory
    `folder` (a probe file is made and removed: ``os.access`` says yes for root, and on
    /proc or a read-only mount)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".porthamiltonian-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ParameterError(f"{what}: the directory {str(folder)!r} cannot be written ({_reason(exc)})") from None


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

    An OSError (a full disk) becomes `OutputWriteError` naming `path`.
    """
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=f".partial{path.suffix}", dir=path.parent)
    except OSError as exc:
        raise OutputWriteError(path, _reason(exc)) from exc
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())   # mkstemp's 0o600 is for secrets; outputs are shared as usual
        yield Path(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OutputWriteError):
            raise
        raise OutputWriteError(path, _reason(exc)) from exc
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


def _exchange(a, b):
    """Swap the directories `a` and `b` atomically (Linux ``renameat2(RENAME_EXCHANGE)``);
    False where that is unavailable (another system, an old kernel or libc, a file system
    without it), nothing done then."""
    import ctypes
    import errno
    import sys

    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(stage, out):
    """Put the complete directory `stage` at `out` (replacing a previous `out`); the previous
    one is deleted. See the module's guarantee."""
    if not out.exists():
        os.replace(stage, out)
        return
    if _exchange(stage, out):
        shutil.rmtree(stage, ignore_errors=True)   # now the previous run
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=out.parent))
    os.replace(out, old / out.name)
    os.replace(stage, out)
    shutil.rmtree(old, ignore_errors=True)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:   # exists, another user's
        return True
    return True


def _leftovers(out, kind):
    """The hidden siblings ``.NAME.KIND-PID-*`` of `out` whose process is gone."""
    prefix = f".{out.name}.{kind}-"
    found = []
    for p in out.parent.glob(f"{glob_escape(prefix)}*"):
        pid = p.name[len(prefix):].split("-", 1)[0]
        if p.is_dir() and not (pid.isdigit() and _alive(int(pid))):
            found.append(p)
    return sorted(found)


def glob_escape(text):
    import glob

    return glob.escape(text)


def recover_leftovers(out):
    """Repair what a killed run left beside the output directory `out`; returns a one-line
    report of what was done ('' if nothing).

    A ``.NAME.old-PID-*`` directory (a run killed between the two renames of a swap without
    RENAME_EXCHANGE) holds the previous run: it is renamed back to `out` when `out` is
    missing, deleted otherwise. ``.NAME.partial-PID-*`` directories (a run killed while
    writing, or after an exchange) are deleted. Leftovers of a process still alive (a
    concurrent run) are left alone.
    """
    out = Path(out)
    if not out.parent.is_dir():
        return ""
    done = []
    with _interrupt.deferred():
        for old in _leftovers(out, "old"):
            if not out.exists() and (old / out.name).is_dir():
                os.replace(old / out.name, out)
                done.append(f"restored the previous run from {old.name}")
            shutil.rmtree(old, ignore_errors=True)
        partial = _leftovers(out, "partial")
        for p in partial:
            shutil.rmtree(p, ignore_errors=True)
        if partial:
            done.append(f"removed {len(partial)} incomplete output director{'y' if len(partial) == 1 else 'ies'} "
                        f"({', '.join(p.name for p in partial)})")
    if not done:
        return ""
    return f"{str(out)!r}: an earlier run was killed; " + "; ".join(done)


@contextmanager
def staged_directory(out):
    """Yield a fresh hidden directory beside `out` to write a run's outputs in; when the block
    ends normally it replaces `out` whole (see the module's guarantee), when it raises it is
    deleted and `out` is left as it was. A signal swallowed inside the block
    (`porthamiltonian._interrupt.check`) counts as raising.

    `out` must have passed `check_replaceable`; its parent must exist.
    """
    out = Path(out)
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-{os.getpid()}-", dir=out.parent))
    except OSError as exc:
        raise OutputWriteError(out.parent / f".{out.name}.partial-*", _reason(exc)) from exc
    try:
        os.chmod(stage, 0o777 & ~_umask())
        write_text(stage / OUTPUT_MARKER, "written by the porthamiltonian CLI; the next run replaces this directory\n")
        yield stage
        _interrupt.check()
        with _interrupt.deferred():
            _swap_in(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
