"""Progress of an integration as `logging` records, and a handler that draws them as a bar.

`simulate(..., progress=True)` emits INFO records on the logger of
``porthamiltonian.integrate.progress``; each carries ``record.progress`` (the fraction of the
time span done, in [0, 1]). If the application configured logging (a handler anywhere above
that logger), the records go to its handlers like any other INFO record. If it did not, the
integration attaches a `ProgressHandler` on stderr for its own duration (`progress_logging`),
so ``progress=True`` shows a bar in a plain script or a notebook. The command line attaches
one whatever the logging configuration: the bar is part of its output.

`ProgressHandler` draws the records on a terminal as one line redrawn in place, elsewhere (a
log file, a CI log, a notebook) as one line per 10 % of the span.
"""

from __future__ import annotations

import logging
import sys
import time as _time
from contextlib import contextmanager

__all__ = ["ProgressHandler", "progress_logging"]

_log = logging.getLogger(__name__)

#: seconds between two progress records (the last one is always sent)
INTERVAL = 0.1


class Progress:
    """Progress of one integration from `t0` to `t1`: INFO records, at most one per `INTERVAL`
    seconds and one per percent of the span, and the final one at `close`."""

    def __init__(self, t0: float, t1: float, enabled: bool):
        self.t0, self.t1 = t0, t1
        self.enabled = bool(enabled) and _log.isEnabledFor(logging.INFO)
        self.start = _time.perf_counter()
        self.last = -INTERVAL
        self.percent = -1

    def update(self, t: float, force: bool = False) -> None:
        if not self.enabled:
            return
        now = _time.perf_counter() - self.start
        frac = min(max((t - self.t0) / (self.t1 - self.t0), 0.0), 1.0)
        percent = int(100 * frac)
        if not force and (now - self.last < INTERVAL or percent == self.percent):
            return
        self.last, self.percent = now, percent
        n = int(30 * frac)
        _log.info("[%s%s] %5.1f%%  t = %.4g / %.4g s  (%.1f s wall)", "#" * n, "." * (30 - n), 100 * frac, t,
                  self.t1, now, extra={"progress": frac, "progress_final": force})

    def close(self, t: float) -> None:
        self.update(t, force=True)


@contextmanager
def progress_logging(enabled: bool = True, *, force: bool = False, stream=None):
    """Draw progress records with a `ProgressHandler` on `stream` (default stderr) inside the
    block, unless disabled or, without `force`, unless logging already has a handler for them.

    The logger's handlers, level and propagation are restored on exit.
    """
    if not enabled or (_log.hasHandlers() and not force):
        yield
        return
    handler = ProgressHandler(stream)
    level, propagate = _log.level, _log.propagate
    _log.addHandler(handler)
    _log.setLevel(logging.INFO)
    _log.propagate = False
    try:
        yield
    finally:
        _log.removeHandler(handler)
        _log.setLevel(level)
        _log.propagate = propagate


class ProgressHandler(logging.StreamHandler):
    """Draws progress records as a bar on `stream` (default stderr); other records as lines.

    On a terminal the bar is one line redrawn in place (``\\r``); on any other stream, one line
    per 10 % of the span and the final line, so logs stay short.
    """

    def __init__(self, stream=None):
        super().__init__(stream if stream is not None else sys.stderr)
        self._tenth = -1
        self._open = False   # a bar is drawn on the current terminal line

    def _tty(self) -> bool:
        return bool(getattr(self.stream, "isatty", lambda: False)())

    def emit(self, record: logging.LogRecord) -> None:
        frac = getattr(record, "progress", None)
        try:
            if frac is None:
                if self._open:
                    self.stream.write("\n")
                    self._open = False
                super().emit(record)
                return
            final = getattr(record, "progress_final", False)
            line = self.format(record)
            if self._tty():
                self.stream.write("\r" + line + ("\n" if final else ""))
                self._open = not final
            else:
                tenth = int(10 * frac)
                if tenth <= self._tenth and not final:
                    return
                self._tenth = -1 if final else tenth
                self.stream.write(line + "\n")
            self.flush()
        except Exception:
            self.handleError(record)
