"""Failed runs of a sweep are of two classes (issue 36): a failure of the machine (a full
disk, an OSError, MemoryError, a lost worker) is run again on resume; a failure of the model
(a value breaking a rule, a failed integration) is kept, unless `rerun_failed`.

References: a count of the runs executed by each resume, and the errno of the fault injected
(ENOSPC from the run's metric, evaluated on the worker like the run itself).
"""

import errno
import os
import sys

import pytest

from porthamiltonian.cli import main
from porthamiltonian.studies import sweep
from porthamiltonian.studies.sweep import MACHINE, MODEL, _row_failure, failure_class


_executed = []
_disk_full = []


def _end(prepared, traj):
    """A metric that records the run and fails as a full disk would while armed."""
    _executed.append(prepared.spec.parameters["mass"])
    if _disk_full:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return float(traj.t[-1])


def test_machine_failures_are_retried_model_failures_kept(tmp_path):
    kwargs = dict(t_end=0.2, samples=11, workers=0, progress=False, metrics={"end": _end}, out=tmp_path)
    grid = {"mass": [1.0, 2.0, -1.0]}            # mass -1 breaks the rule mass > 0: a failure of the model
    _executed.clear()
    _disk_full.append(True)
    table = sweep("mass-spring-damper", grid, **kwargs)
    _disk_full.clear()
    assert list(table["status"]) == ["failed"] * 3
    assert list(table["failure"]) == [MACHINE, MACHINE, MODEL]
    assert table["error"][0] == "OSError: [Errno 28] No space left on device"
    assert "(failure of the machine)" in (tmp_path / "failures.log").read_text()
    _executed.clear()
    table = sweep("mass-spring-damper", grid, **kwargs)           # the space is freed: resume
    assert _executed == [1.0, 2.0]                                  # the model's failure is not rerun
    assert list(table["status"]) == ["ok", "ok", "failed"] and list(table["failure"]) == ["", "", MODEL]
    _executed.clear()
    sweep("mass-spring-damper", grid, **kwargs)
    assert _executed == []
    with pytest.MonkeyPatch.context() as mp:                        # --rerun-failed: the model's failure again
        calls = []
        module = sys.modules["porthamiltonian.studies.sweep"]   # the package attribute `sweep` is the function
        real = module.prepare
        mp.setattr(module, "prepare", lambda spec: calls.append(spec.parameters["mass"]) or real(spec))
        table = sweep("mass-spring-damper", grid, rerun_failed=True, **kwargs)
    assert calls == [-1.0] and list(table["failure"]) == ["", "", MODEL]


def test_failure_classes():
    assert failure_class(OSError(errno.ENOSPC, "full")) == MACHINE
    assert failure_class(MemoryError()) == MACHINE
    assert failure_class(ValueError("bad")) == MODEL
    # rows recorded before the column existed: by the exception's name
    assert _row_failure({"status": "failed", "error": "OSError: [Errno 28] No space left on device"}) == MACHINE
    assert _row_failure({"status": "failed", "error": "worker lost: KilledWorker"}) == MACHINE
    assert _row_failure({"status": "failed", "error": "ParameterError: mass must be > 0"}) == MODEL
    assert _row_failure({"status": "ok", "error": ""}) == ""


def test_cli_rerun_failed_option(tmp_path, capsys):
    # a model failure that the CLI cannot refuse up front (a rule-breaking value it does): the
    # light mass's fast oscillation runs out of its evaluation budget
    args = ["sweep", "mass-spring-damper", "-p", "mass=1,1e-8", "--t-end", "0.1", "--max-nfev", "200", "--samples",
            "11", "--workers", "0", "--no-progress", "--out", str(tmp_path)]
    assert main(args) == 1
    assert main(args + ["--rerun-failed"]) == 1
    assert "2 runs, 1 failed" in capsys.readouterr().out
