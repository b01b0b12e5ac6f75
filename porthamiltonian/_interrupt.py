"""Interruptions (SIGINT, SIGTERM) that always mean "interrupted", wherever they land.

A SIGINT that arrives while numba-compiled code runs does not surface as a
KeyboardInterrupt: Python runs its handler when the compiled function returns, and the
dispatcher then reports ``SystemError: CPUDispatcher(...) returned a result with an
exception set`` (its ``__cause__`` is the KeyboardInterrupt). Code that catches the
failures of a model (the integrator reports them as a failed run) would then turn Ctrl-C
into a failed run. Two defences, used together:

- `install` (the CLI calls it first) replaces the handlers of SIGINT and SIGTERM with one
  that records the signal, then raises `Interrupted` (inside llvmlite, whose callbacks an
  exception cannot cross, it records it and sends it again shortly); `check` re-raises it at every
  evaluation of the right-hand side during an integration and before the outputs replace
  the previous ones, so an interrupt swallowed anywhere is still honoured (one swallowed by
  the step-count estimate before a run used to leave a 1e5 s run going);
- `caused_by_interrupt` finds a KeyboardInterrupt in an exception's ``__cause__`` /
  ``__context__`` chain, for code that catches broad exceptions (`porthamiltonian.simulate`
  and its diagnostics re-raise those with `reraise_interrupt` instead of reporting a failed
  run or skipping the diagnostic).

`deferred` holds SIGINT and SIGTERM back (``pthread_sigmask``) around a few renames that
must not be split; they are delivered when it ends.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

__all__ = ["Interrupted", "install", "restore", "check", "received", "caused_by_interrupt", "reraise_interrupt", "deferred", "exit_status"]

#: the signals handled: Ctrl-C and the polite kill (``kill PID``, a batch scheduler's stop)
SIGNALS = (signal.SIGINT, signal.SIGTERM)

_received = None


class Interrupted(KeyboardInterrupt):
    """A KeyboardInterrupt that remembers the signal that caused it (`signum`)."""

    def __init__(self, signum=signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)


def _in_native_callback(frame):
    """Whether the interrupted code runs inside llvmlite (numba's LLVM binding), whose ctypes
    callbacks (the object cache loading compiled code) cannot pass an exception back to C."""
    while frame is not None:
        if "llvmlite" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


#: inside llvmlite a signal is sent again after this many seconds [s] (`_handler`)
RETRY = 0.05


_pending = False   # a signal recorded inside llvmlite and not raised yet


def _again(signum):
    if _pending:
        os.kill(os.getpid(), signum)


def _handler(signum, frame):
    """Record the signal and raise `Interrupted`, except inside llvmlite, where it is recorded
    (`check` raises it at the next evaluation of a run, or before the outputs are written) and
    sent again `RETRY` s later, to land outside: raised in the ctypes callback through which
    LLVM loads cached compiled code (``ExecutionEngine._raw_object_cache_getbuffer``), the
    exception was ignored, LLVM read an unset buffer and the process died of a segmentation
    fault (a Ctrl-C as `porthamiltonian run` started integrating, CI, 2026-11-29)."""
    global _received, _pending
    _received = signum
    _pending = _in_native_callback(frame)
    if _pending:
        timer = threading.Timer(RETRY, _again, (signum,))
        timer.daemon = True
        timer.start()
        return
    raise Interrupted(signum)


def install():
    """Handle SIGINT and SIGTERM with `Interrupted` (recorded for `check`); idempotent.
    Only in the main thread (signal handlers can be set nowhere else). Returns the previous
    handlers, for `restore`."""
    global _received, _pending
    _received, _pending = None, False
    return {s: signal.signal(s, _handler) for s in SIGNALS}


def restore(previous):
    """Put back the handlers `install` returned (a CLI called in-process leaves none behind)."""
    for s, h in previous.items():
        signal.signal(s, h)


def received():
    """The signal number received since `install` (None if none)."""
    return _received


def check():
    """Raise `Interrupted` if a signal was received, even if its exception was swallowed."""
    global _pending
    if _received is not None:
        _pending = False
        raise Interrupted(_received)


def caused_by_interrupt(exc):
    """True if `exc` is, or was caused by (``__cause__`` / ``__context__``), a KeyboardInterrupt."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def reraise_interrupt(exc):
    """Raise KeyboardInterrupt (from `exc`) if `exc` was caused by one; for the handlers of
    broad exceptions that would otherwise swallow Ctrl-C in compiled code."""
    if caused_by_interrupt(exc):
        raise KeyboardInterrupt("interrupted") from exc


def exit_status(exc=None):
    """The shell's status for an interruption: 128 + the signal number (130 for SIGINT,
    143 for SIGTERM)."""
    signum = getattr(exc, "signum", None) or _received or signal.SIGINT
    return 128 + int(signum)


@contextmanager
def deferred():
    """Block SIGINT and SIGTERM inside the block; a signal received meanwhile is delivered
    (and raises) when the block ends. SIGKILL cannot be blocked: what must survive it is
    made recoverable elsewhere (`porthamiltonian._files.recover_leftovers`)."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
