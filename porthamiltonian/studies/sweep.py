"""Parameter sweeps: many runs of one model, on Dask, as rows of a table.

Each point of a sweep is a `records.RunSpec`; its run is isolated (a bad value or a failed
integration is a row with its error, never a stopped sweep) and its row is saved as soon as
it finishes, with its spec and its record (the `summary.json` of a single run), in
``runs/<run_id>.json``: an interrupted sweep started again runs only the missing points, and
``rerun("runs/<run_id>.json")`` does any one of them again. The table is saved as Parquet
(``sweep.parquet``), the failures as a text log (``failures.log``) and, on request, each
run's trajectory as npz
(``trajectories/<run_id>.npz``): numpy's own format, written atomically by the package's
`Trajectory.save`, one small file per run that any numpy reads back without a dependency;
zarr's chunked stores pay off for arrays larger than memory or written in parallel into one
store, neither of which a run's trajectory (a few MB) is.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
import traceback
from pathlib import Path

import numpy as np

from .._files import write_text
from .._interrupt import reraise_interrupt
from ..errors import ParameterError
from .cluster import WorkerLost, open_executor, run_all, stop_in_a_worker_importing_the_script
from .records import RunSpec, integrate, model_reference, prepare, resolve_parameters, run_id, summary

__all__ = ["sweep", "grid_points", "parse_range", "failure_lines", "TABLE", "FAILURES"]

#: file names in a sweep's output directory
TABLE, FAILURES, RUNS, TRAJECTORIES = "sweep.parquet", "failures.log", "runs", "trajectories"
#: energy kinds of the ledger totalled per element class
_KINDS = ("stored", "supplied", "dissipated", "lost", "stabilization")


def parse_range(name, text):
    """Values of a swept parameter from its command-line text.

    ``a:b:linN`` (N evenly spaced from a to b), ``a:b:logN`` (N log-spaced, a, b > 0), or a
    comma-separated list of values (numbers or words, e.g. contact kinds).

    Raises
    ------
    ParameterError
        A malformed range (naming `name`, the text and the accepted forms).
    """
    forms = "use a:b:linN, a:b:logN (N >= 2) or a comma-separated list v1,v2,..."
    text = str(text).strip()
    if ":" not in text:
        values = [v.strip() for v in text.split(",")]
        if not text or any(not v for v in values):
            raise ParameterError(f"`{name}`: empty value in {text!r}; {forms}")
        return values
    parts = text.split(":")
    if len(parts) != 3 or not parts[2][:3] in ("lin", "log") or not parts[2][3:].isdigit():
        raise ParameterError(f"`{name}`: malformed range {text!r}; {forms}")
    try:
        a, b = float(parts[0]), float(parts[1])
    except ValueError:
        raise ParameterError(f"`{name}`: malformed range {text!r} (bounds must be numbers); {forms}") from None
    n, spacing = int(parts[2][3:]), parts[2][:3]
    if n < 2 or not (math.isfinite(a) and math.isfinite(b)):
        raise ParameterError(f"`{name}`: malformed range {text!r} (finite bounds and N >= 2); {forms}")
    if spacing == "log":
        if a <= 0 or b <= 0:
            raise ParameterError(f"`{name}`: a log range needs bounds > 0, got {text!r}")
        return [float(v) for v in np.geomspace(a, b, n)]
    return [float(v) for v in np.linspace(a, b, n)]


def grid_points(grid):
    """The points of a full grid: the product of the value lists, in the order given (the
    last parameter varies fastest); a list of dicts name -> value."""
    if not isinstance(grid, dict) or not grid:
        raise ParameterError(f"`grid` must be a non-empty dict name -> list of values, got {grid!r}")
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) == 0:
            raise ParameterError(f"`grid[{name!r}]` must be a non-empty list of values, got {values!r}")
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(list(grid[n]) for n in names))]


def _ledger_columns(budget, system):
    """Totals [J] and, per kind of energy, the sum over the elements of each class
    (``ledger.dissipated.ContactDamper``; only the nonzero ones: the table fills the others
    of a successful run with 0)."""
    row = {"ledger.H0": float(budget.H[0]), "ledger.dH": float(budget.H[-1] - budget.H[0]),
           "ledger.supplied": float(budget.supplied[-1]), "ledger.dissipated": float(budget.dissipated[-1]),
           "ledger.lost": float(budget.lost[-1]), "ledger.stabilization": float(budget.stabilization[-1]),
           "ledger.max_residual": budget.max_residual}
    for r in budget.rows():
        element = system.elements.get(r.element)
        cls = type(element).__name__ if element is not None else r.label.split(":")[0]
        for kind in _KINDS:
            if getattr(r, kind) != 0.0:
                key = f"ledger.{kind}.{cls}"
                row[key] = row.get(key, 0.0) + getattr(r, kind)
    return row


def _execute(task):
    """One run, on a worker: ``(row, summary)``, the row of the table (plain values) and the
    run's record (`records.summary`, None when the run failed before integrating). Never
    raises for the run's own failures (the row says `failed` and why)."""
    spec, metrics, trajectory = task
    row = {"status": "failed", "failure": MODEL, "error": "", "flags": "", "wall_time_s": math.nan, "nfev": 0}
    record = None
    try:
        prepared = prepare(spec)
        traj, wall = integrate(prepared)
        budget = traj.power_budget()
        record = summary(prepared, traj, wall, budget)
        row.update(wall_time_s=wall, nfev=int(traj.nfev), t_reached=float(traj.t[-1]))
        row.update(_ledger_columns(budget, prepared.system))
        for name, f in metrics.items():
            row[f"metric.{name}"] = float(f(prepared, traj))
        if trajectory:
            traj.save(trajectory)
        row.update(status="ok" if traj.status >= 0 else "failed", error="" if traj.status >= 0 else traj.message,
                   failure="" if traj.status >= 0 else MODEL,
                   flags=",".join(dict.fromkeys(traj.flags)))   # the energy audit's findings ("" clean)
    except Exception as exc:  # a run's failure is data: recorded, the sweep goes on (not Ctrl-C's)
        reraise_interrupt(exc)
        row["error"] = f"{type(exc).__name__}: {exc}"
        row["failure"] = failure_class(exc)
        row["traceback"] = traceback.format_exc(limit=6)
    return row, record


#: the classes of a failed run (column ``failure``): of the machine (retried on resume), of the model (kept)
MACHINE, MODEL = "machine", "model"
#: exceptions of the machine, not of the model: a full disk, an I/O error, no memory
_MACHINE_ERRORS = (OSError, MemoryError)
_MACHINE_NAMES = ("OSError", "MemoryError", "worker lost", "OutputWriteError", "PermissionError", "IOError",
                  "FileNotFoundError", "BlockingIOError", "TimeoutError", "ConnectionError", "BrokenPipeError")


def failure_class(exc):
    """`MACHINE` for a failure of the machine the run executed on (OSError: a full disk, an
    I/O error; MemoryError; a lost worker, see `sweep`), `MODEL` for anything else (a value
    breaking a rule, a failed integration, an error of the model's code)."""
    return MACHINE if isinstance(exc, _MACHINE_ERRORS) else MODEL


def _row_failure(row):
    """A recorded row's failure class; rows written before the column existed are classified
    by their error's exception name."""
    if row.get("status") == "ok":
        return ""
    if row.get("failure") in (MACHINE, MODEL):
        return row["failure"]
    return MACHINE if str(row.get("error", "")).startswith(_MACHINE_NAMES) else MODEL


def _check_metrics(metrics, first):
    """The metrics, each callable; the observables that `metrics.ObservableExtreme` names are
    checked on the model of the first point (built, not compiled) before any run."""
    from .metrics import ObservableExtreme
    from .records import _build

    metrics = dict(metrics or {})
    for name, f in metrics.items():
        if not callable(f):
            raise ParameterError(f"`metrics[{name!r}]` must be a function (prepared, trajectory) -> float, got {f!r}")
    named = [f for f in metrics.values() if isinstance(f, ObservableExtreme)]
    if named:
        known = _build(first).observables
        for f in named:
            if f.name not in known:
                raise ParameterError(f"metric {f.kind}:{f.name}: model {first.model!r} has no observable {f.name!r}; "
                                     f"its observables: {', '.join(known)}")
    return metrics


def _specs(model, points, t_end, solver, samples, max_nfev, timeout):
    """RunSpecs of the points, every name checked against the model first (before any run).

    Returns ``(specs, values, ignored)``, one entry per point: the spec that runs, every
    parameter value as asked, and the names given in the point that its contact kind ignores
    (`models.registry.ignored_parameters`). A spec holds an ignored parameter's default, so
    points that differ only in ignored parameters are one spec, one run; a value that breaks
    its rule is kept (the run fails on it, as alone).
    """
    from porthamiltonian.models.registry import MODELS, ignored_parameters

    specs, values, ignored = [], [], []
    for p in points:
        if not isinstance(p, dict):
            raise ParameterError(f"each point must be a dict name -> value, got {p!r}")
        asked = resolve_parameters(model, p)
        dropped = tuple(n for n in ignored_parameters(model, asked) if n in p and _obeys(model, n, asked[n]))
        run = {**asked, **{n: MODELS[model].parameters[n].default for n in dropped}}
        specs.append(RunSpec(model, run, t_end, dict(solver or {}), samples, max_nfev, timeout))
        values.append(asked)
        ignored.append(dropped)
    return specs, values, ignored


def _obeys(model, name, value):
    from porthamiltonian.models.registry import MODELS

    try:
        MODELS[model].parameters[name].check(model, name, value)
    except ParameterError:
        return False
    return True


def _say_ignored(model, specs, ignored, ids, stream):
    """One line on `stream` per contact kind that ignores swept parameters, with how many runs
    the sweep's points come to."""
    by_kind = {}
    for spec, names in zip(specs, ignored):
        if names:
            by_kind.setdefault(spec.parameters["contact"], set()).update(names)
    distinct = len(set(ids))
    for kind, names in by_kind.items():
        names = [n for n in specs[0].parameters if n in names]   # the model's order
        print(f"sweep {model}: contact {kind!r} ignores {', '.join(names)}; its points that differ only there run "
              f"once ({len(ids)} points, {distinct} distinct runs)", file=stream)


def _load_done(runs, rerun_failed=False):
    """run_id -> row of the runs recorded in `runs` that resuming keeps: a file that does not
    read, a run failed for a reason of the machine, and with `rerun_failed` any failed run,
    are run again."""
    done = {}
    for path in sorted(runs.glob("*.json")) if runs.is_dir() else ():
        try:
            row = json.loads(path.read_text())["row"]
            failure = _row_failure(row)
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        if failure == MACHINE or (failure and rerun_failed):
            continue
        row["failure"] = failure
        done[path.stem] = row
    return done


def _write_failures(path, table):
    failed = table[table["status"] != "ok"]
    lines = [f"{len(failed)} of {len(table)} runs failed"]
    for _, r in failed.iterrows():
        lines.append(f"run {r['run_id']} {r['parameters']} (failure of the {r['failure']}): {r['error']}")
        if isinstance(r.get("traceback"), str) and r["traceback"]:
            lines += ["    " + t for t in r["traceback"].rstrip().splitlines()]
    write_text(path, "\n".join(lines) + "\n")


def failure_lines(table):
    """One line per distinct error of a sweep's failed runs, with how many runs it hit:
    ``"failed: 6 of 12 runs like run 653c0829fde6b69e: IntegrationError: stopped after ..."``.

    Errors that differ only in their numbers (the time a run stopped at, the value it was
    given) are one error: the line quotes the first run's message. The most frequent come
    first (ties in the order of the table); [] when every run succeeded. The CLI prints them
    on stderr; `failures.log` keeps every run's error and traceback.
    """
    failed = table[table["status"] != "ok"]
    counts, first = {}, {}
    for _, r in failed.iterrows():
        error = str(r["error"]).strip() or "failed without a message"
        key = _NUMBER.sub("#", error)
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, (r["run_id"], error))
    total = f"{len(table)} run{'s' if len(table) != 1 else ''}"
    return [f"failed: {counts[k]} of {total} like run {first[k][0]}: {first[k][1]}"
            for k in sorted(counts, key=lambda k: -counts[k])]


#: a number in an error message (failures that differ only in these are one failure)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def sweep(model, grid=None, *, points=None, t_end=None, solver=None, samples=1001, max_nfev=None, timeout=None,
          metrics=None, out=None, trajectories=False, workers=None, scheduler=None, connect_timeout=5.0,
          progress=True, rerun_failed=False):
    """Run a model over a parameter grid or a list of points; returns the table of runs.

    Parameters
    ----------
    model : str or callable
        A registered model's name, a model file, or a build function defined at a module's
        top level (``f(**parameters) -> Model``).
    grid : dict, optional
        name -> list of values; the sweep runs their product (`grid_points`). The contact
        kind is a parameter like the others: ``{"contact": ["compliant", "sliding_plane"]}``.
    points : list of dict, optional
        name -> value per run, instead of (or after) the grid's.
    t_end, solver, samples, max_nfev, timeout
        As in `records.RunSpec`, the same for every run.
    metrics : dict, optional
        name -> ``f(prepared, trajectory) -> float``, evaluated on the worker after each run
        (column ``metric.NAME``); it must be picklable (a module-level function or a lambda).
        `porthamiltonian.studies.metrics` has time to rest, the largest normal force and the
        extremes of an observable (e.g. the largest penetration: minus the minimum gap).
    out : str or Path, optional
        Directory of the table (``sweep.parquet``), the failure log, each run's row
        (``runs/``, what resuming reads) and the trajectories. Without it nothing is saved
        and nothing resumes.
    trajectories : bool
        Save each run's trajectory as ``trajectories/<run_id>.npz`` (needs `out`).
    workers, scheduler, connect_timeout
        Where the runs execute (`cluster.open_executor`): default a `LocalCluster` with one
        worker process per core; ``workers=0`` runs them here, one after the other.
    progress : bool
        A progress bar over the runs.
    rerun_failed : bool
        Resuming into `out`, run again the runs that failed for a reason of the model too
        (see Notes).

    Returns
    -------
    pandas.DataFrame
        One row per point, in the points' order: ``run_id``, the swept parameters (as
        asked), ``ignored`` (the swept parameters its contact kind ignores, comma-separated, or
        ""), ``parameters`` (every value of the run, JSON), ``status`` ("ok" or "failed"),
        ``failure`` ("" for a run that succeeded, "machine" or "model", see Notes), ``error``,
        ``flags`` (the energy audit's codes, comma-separated, "" for a clean run; `Trajectory.flags`),
        ``wall_time_s``, ``nfev``, ``t_reached``, ``ledger.*`` (totals and per element class,
        [J]), ``metric.*``, ``trajectory`` (the npz path or "").

    Raises
    ------
    ParameterError
        Neither grid nor points, an unknown parameter name, a malformed grid, `trajectories`
        without `out`, an unreachable scheduler: before any run.

    Notes
    -----
    A run is identified by a digest of its spec (`records.run_id`), so resuming into `out`
    skips every point whose row is already there, whatever the order of the points. Failed
    runs are of two classes (column ``failure``, `failure_class`): a failure of the machine
    (OSError such as a full disk, MemoryError, a lost worker) is run again on resume; a
    failure of the model (a value breaking a rule, a failed integration, a run stopped by
    `max_nfev` or `timeout`) is kept, since the same spec fails the same way, unless
    `rerun_failed`.
    A run whose values break a parameter's rule is a failed row, not an error of the sweep.
    A parameter that the point's contact kind ignores (``stiffness`` with ``sliding_plane``:
    `models.registry.Parameter.contacts`) is run at its default: points that differ only in
    ignored parameters share one run (and its ``run_id``), and a line on stderr says which
    parameters each kind ignores.
    A script that starts a `LocalCluster` must do so under ``if __name__ == "__main__":``
    (Dask's worker processes import the main module).

    Examples
    --------
    >>> table = sweep("ball-drop", {"stiffness": [1e4, 1e5], "contact": ["compliant", "sliding_plane"]},
    ...               t_end=0.5, out="out/sweep", workers=2)                      # doctest: +SKIP
    """
    import pandas as pd

    if workers != 0 and scheduler is None:
        stop_in_a_worker_importing_the_script()   # before any of the sweep's own work
    name = model_reference(model)
    todo = (grid_points(grid) if grid is not None else []) + list(points or [])
    if not todo:
        raise ParameterError("give `grid` (name -> values) or `points` (a list of name -> value): nothing to run")
    if trajectories and out is None:
        raise ParameterError("`trajectories=True` needs `out`, the directory to save them in")
    specs, asked, ignored = _specs(name, todo, t_end, solver, samples, max_nfev, timeout)
    metrics = _check_metrics(metrics, specs[0])
    ids = [run_id(s) for s in specs]
    _say_ignored(name, specs, ignored, ids, sys.stderr)
    out = Path(out) if out is not None else None
    runs = out / RUNS if out is not None else None
    done = _load_done(runs, rerun_failed) if runs is not None else {}
    missing = [i for i, rid in enumerate(ids) if rid not in done and rid not in ids[:i]]   # a point given twice runs once
    tasks = [(specs[i], metrics, str(out / TRAJECTORIES / f"{ids[i]}.npz") if trajectories else "") for i in missing]
    with open_executor(workers, scheduler, connect_timeout) as client:
        if out is not None:   # after connecting: a sweep refused leaves nothing behind
            for d in (runs, out / TRAJECTORIES) if trajectories else (runs,):
                d.mkdir(parents=True, exist_ok=True)
        for k, result in run_all(client, _execute, tasks, progress=progress, description=f"sweep {name}"):
            if isinstance(result, WorkerLost):
                result = {"status": "failed", "failure": MACHINE, "error": f"worker lost: {result}",
                          "wall_time_s": math.nan, "nfev": 0}, None
            row, record = result
            row["trajectory"] = tasks[k][2] if row["status"] == "ok" else ""
            done[ids[missing[k]]] = row
            if runs is not None:
                text = json.dumps({"row": row, "spec": tasks[k][0].to_dict(), "summary": record}, default=float)
                write_text(runs / f"{ids[missing[k]]}.json", text)
    swept = list(dict.fromkeys(n for p in todo for n in p))
    rows = [{"run_id": ids[i], **{n: asked[i][n] for n in swept}, "ignored": ", ".join(ignored[i]),
             "parameters": json.dumps(specs[i].to_dict()["parameters"], sort_keys=True), **done[ids[i]]}
            for i in range(len(specs))]
    table = pd.DataFrame(rows)
    per_class = [c for c in table.columns if c.count(".") == 2 and c.startswith("ledger.")]
    table.loc[table["status"] == "ok", per_class] = table.loc[table["status"] == "ok", per_class].fillna(0.0)
    table.attrs.update(model=name, swept=swept)
    if out is not None:
        _save_table(table, out / TABLE)
        _write_failures(out / FAILURES, table)
    return table


def _save_table(table, path):
    from .._files import atomic_file

    with atomic_file(path) as tmp:
        table.to_parquet(tmp, index=False)
