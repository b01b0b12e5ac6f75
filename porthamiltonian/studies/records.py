"""One run and its record: the path shared by `porthamiltonian run`, `sweep` and `rerun`.

A run is a pure function of a `RunSpec` (model, every parameter value, end time, solver
settings, output samples): `prepare` builds and compiles the model (its compiled right-hand
side loaded or built at once, so every run evaluates the same code), `integrate` simulates
it, `summary` writes down everything needed to do it again (`rerun`), and `write_run` saves
the trajectory, the observables (CSV with units in the header) and `summary.json`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import inspect
import json
import math
import platform
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .._files import atomic_file, savez, write_text
from .._interrupt import reraise_interrupt
from .._options import API_LABELS, check_method, check_run_solver, check_step
from ..errors import AuditWarning, ParameterError, PortHamiltonianError

__all__ = ["RunSpec", "Prepared", "model_reference", "load_model_file", "resolve_parameters", "prepare", "integrate", "summary", "write_run",
           "observables_table", "versions", "run_id", "rerun", "changes_since", "step_estimate",
           "long_run_warning"]

#: solver settings a spec may override (the rest of `simulate`'s keywords are the model's)
SOLVER_KEYS = ("method", "rtol", "atol", "max_step", "step")
#: the distributions whose versions a record holds
_DISTRIBUTIONS = ("porthamiltonian", "numpy", "scipy", "numba", "sympy", "networkx", "dask", "distributed",
                  "pandas", "pyarrow")


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run.

    Parameters
    ----------
    model : str
        A registered model's name, a model file (``.json``), a Python file defining
        ``build()``, or ``"module:function"`` naming an importable build function.
    parameters : dict
        Every parameter value (defaults included; `resolve_parameters` fills them in), the
        contact kind among them. Empty for a model file.
    t_end : float or None
        Simulated time [s]; None: the model's own.
    solver : dict
        Overrides of the model's solver settings (keys in `SOLVER_KEYS`; `step` is the
        fixed step [s] of the fixed-step methods RK4 and discrete_gradient). A method given
        here brings its own stepping (`porthamiltonian._options.check_run_solver`).
    samples : int
        Evenly spaced output samples from 0 to t_end (events included), or 0 for the
        solver's own steps.
    max_nfev, timeout : int, float or None
        Limits passed to `simulate` (a run that hits one ends with a failed status).
    """

    model: str
    parameters: dict = field(default_factory=dict)
    t_end: float | None = None
    solver: dict = field(default_factory=dict)
    samples: int = 1001
    max_nfev: int | None = None
    timeout: float | None = None

    def __post_init__(self):
        """Raise ParameterError for settings no run could use (checked before any run)."""
        if self.t_end is not None and not (_is_number(self.t_end) and math.isfinite(self.t_end) and self.t_end > 0):
            raise ParameterError(f"`t_end` must be None (the model's) or a finite number of seconds > 0, got "
                                 f"{self.t_end!r}")
        if not (_is_integer(self.samples) and (self.samples == 0 or self.samples >= 2)):
            raise ParameterError(f"`samples` must be 0 (the solver's own steps) or an integer >= 2, got {self.samples!r}")
        unknown = sorted(set(self.solver) - set(SOLVER_KEYS))
        if unknown:
            raise ParameterError(f"`solver` takes {', '.join(SOLVER_KEYS)}; got {', '.join(map(repr, unknown))}")
        if "method" in self.solver:
            check_method(self.solver["method"], "solver['method']")
        if "step" in self.solver:
            check_step(self.solver["step"], "solver['step']")
        if self.max_nfev is not None and not (_is_integer(self.max_nfev) and self.max_nfev > 0):
            raise ParameterError(f"`max_nfev` must be None or an integer > 0, got {self.max_nfev!r}")
        if self.timeout is not None and not (_is_number(self.timeout) and self.timeout > 0):
            raise ParameterError(f"`timeout` must be None or a number of seconds > 0, got {self.timeout!r}")

    def to_dict(self):
        """Plain JSON-able values (tuples as lists)."""
        return json.loads(json.dumps(asdict(self), default=_plain))


def _is_number(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _is_integer(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _plain(value):
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, (tuple, np.ndarray)):
        return list(value)
    raise TypeError(f"cannot record a value of type {type(value).__name__}: {value!r}")


def run_id(spec):
    """A 16-hex-digit digest of the spec: the same run has the same id in every sweep."""
    text = json.dumps(spec.to_dict(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _is_file(model):
    return str(model).endswith((".json", ".py"))


def model_reference(model):
    """How a spec names a model: a registered name as given, a model file by its absolute
    path (a worker or a later `rerun` may start elsewhere), a build function as
    ``"module:function"``.

    Raises
    ------
    ParameterError
        A build function not defined at a module's top level (workers and `rerun` could
        not import it), or a `model` of another type.
    """
    if callable(model):
        name = f"{model.__module__}:{model.__qualname__}"
        if "<" in name:
            raise ParameterError(f"`model` {name!r}: a build function must be defined at a module's top level, so "
                                 "that workers and `rerun` can import it")
        return name
    if not isinstance(model, (str, Path)):
        raise ParameterError(f"`model` must be a registered model's name, a model file or a build function, got "
                             f"{model!r}")
    return str(Path(model).absolute()) if _is_file(model) else str(model)


def _file_digest(model):
    try:
        return hashlib.sha256(Path(model).read_bytes()).hexdigest()
    except OSError:
        return None


def _build_function(model):
    """The callable named by ``"module:function"``; ParameterError if it cannot be imported."""
    module, _, name = str(model).partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ParameterError(f"`model` {model!r}: cannot import the build function ({exc})") from None


def _function_parameters(fn):
    return {n: p.default for n, p in inspect.signature(fn).parameters.items()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty}


def resolve_parameters(model, given=None):
    """Every parameter value of a run: the model's defaults updated by `given`.

    Names are checked (unknown ones raise ParameterError naming the model's parameters) and
    command-line strings are converted to the parameter's type; the values' rules are
    checked when the model is built (a sweep records a run whose value breaks one as failed).

    Parameters
    ----------
    model : str
        As in `RunSpec.model`.
    given : dict, optional
        name -> value (numbers, or strings as typed on the command line).

    Returns
    -------
    dict
        name -> value, every parameter of the model; {} for a model file.

    Raises
    ------
    ParameterError
        Parameters given for a model file (they are in the file), or an unknown name.
    ModelError
        An unknown registered model (the nearest name is suggested).
    """
    from porthamiltonian import models
    from porthamiltonian.models.registry import _coerce

    given = dict(given or {})
    if _is_file(model):
        if given:
            raise ParameterError(f"a model file's parameters are in the file: {sorted(given)} apply to registered "
                                 f"models (save one with `porthamiltonian save MODEL -p ...`), not to {model!r}")
        return {}
    if ":" in str(model):
        defaults = _function_parameters(_build_function(model))
    else:
        spec = models.get_model(model)
        defaults = {n: p.default for n, p in spec.parameters.items()}
        given = {n: (_coerce(spec, n, v) if n in defaults else v) for n, v in given.items()}
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        import difflib

        # worded as the registry's own message (`models.registry.build_model`)
        hints = [repr(u) + (f"; did you mean {m[0]!r}?" if (m := difflib.get_close_matches(u, list(defaults), n=1))
                            else "") for u in unknown]
        raise ParameterError(f"model {model!r} has no parameter {', '.join(hints)} Its parameters: "
                             f"{', '.join(sorted(defaults))}")
    return {**defaults, **given}


def load_model_file(path):
    """A model file (.json, `porthamiltonian.models.files`) or a Python file whose `build()`
    returns a `Model` (or a `BondGraph`, run for 1 s at the default solver settings)."""
    from porthamiltonian.models import load_model

    if str(path).endswith(".json"):
        return load_model(path)
    import importlib.util

    if not Path(path).is_file():
        raise PortHamiltonianError(f"no Python model file {str(path)!r}")
    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ModelFileError(f"the model file {str(path)!r} failed to load (its code raised "
                             f"{type(exc).__name__}, traceback below)", exc) from exc
    build = getattr(module, "build", None)
    if not callable(build):
        raise PortHamiltonianError(f"{str(path)!r} defines no function `build()` returning a Model or a BondGraph")
    try:
        built = build()
    except Exception as exc:
        raise ModelFileError(f"the model file {str(path)!r}: `build()` failed ({type(exc).__name__}, "
                             "traceback of its code below)", exc) from exc
    return _as_model(built, f"`build()` of {str(path)!r}")


class ModelFileError(PortHamiltonianError):
    """A model file's own code (a Python model file's import or `build()`) raised.

    The CLI prints the message as one line, then the traceback of the user's code
    (`user_traceback`), which is theirs to read, and exits 1.
    """

    def __init__(self, message, cause):
        super().__init__(message)
        self.cause = cause

    def user_traceback(self):
        """The traceback of the model file's exception, from the model file's frames on."""
        import traceback

        package = str(Path(__file__).resolve().parents[1])
        tb = self.cause.__traceback__
        while tb is not None and tb.tb_next is not None and (
                tb.tb_frame.f_code.co_filename.startswith(("<frozen", package))):
            tb = tb.tb_next
        return "".join(traceback.format_exception(type(self.cause), self.cause, tb))


def _as_model(built, what):
    """A build function's result as a `Model` (a bare BondGraph is wrapped)."""
    from porthamiltonian.bondgraph.graph import BondGraph
    from porthamiltonian.models import Model

    if isinstance(built, BondGraph):
        return Model(built)
    if not isinstance(built, Model):
        raise PortHamiltonianError(f"{what} must return a Model or a BondGraph, got {type(built).__name__}")
    return built


def _build(spec):
    """The `Model` of a spec."""
    from porthamiltonian import models

    if _is_file(spec.model):
        return load_model_file(spec.model)
    if ":" in spec.model:
        return _as_model(_build_function(spec.model)(**spec.parameters), f"build function {spec.model!r}")
    registered = models.get_model(spec.model).parameters
    params = {n: tuple(v) if isinstance(registered[n].default, tuple) and isinstance(v, list) else v
              for n, v in spec.parameters.items()}
    return models.build_model(spec.model, **params)


@dataclass
class Prepared:
    """A built and compiled model, ready to integrate: its `Model`, `PHSystem`, initial
    state x0 (shape (n,)), end time [s], solver settings (the model's with the spec's
    overrides) and the seconds it took to compile or load the compiled right-hand side."""

    spec: RunSpec
    model: object
    system: object
    x0: np.ndarray
    t_end: float
    solver: dict
    jit: str
    jit_wall: float


def prepare(spec, *, labels=API_LABELS):
    """Build and compile the model of `spec`, its compiled right-hand side built now (not
    after `porthamiltonian.compile.system.JIT_AFTER` evaluations as in the Python API): every
    run of a spec evaluates the same code, whichever process runs it. The solver settings are
    the model's with the spec's overrides (`porthamiltonian._options.check_run_solver`, its
    messages naming the settings by `labels`: the CLI passes its options' names).

    Raises
    ------
    ParameterError
        A value that breaks its parameter's rule, a model whose own end time is bad, a
        fixed-step method without a step or a step for a method that chooses its own.
    """
    from porthamiltonian import compile

    model = _build(spec)
    t_end = model.t_end if spec.t_end is None else spec.t_end
    try:
        t_end = float(t_end)
    except (TypeError, ValueError):
        t_end = math.nan
    if not (math.isfinite(t_end) and t_end > 0):
        raise ParameterError(f"model {spec.model!r}: t_end must be a finite number of seconds > 0, got {t_end!r}")
    solver = check_run_solver({**model.solver, **{k: (v if k == "method" else float(v))
                                                  for k, v in spec.solver.items()}}, spec.solver, labels)
    system = compile(model.graph, baumgarte=model.baumgarte)
    wall = time.perf_counter()
    jit = system.compiled
    wall = time.perf_counter() - wall
    return Prepared(spec, model, system, system.initial_state(model.initial), t_end, solver, str(jit), wall)


def integrate(prepared, *, progress=False, t_eval=None):
    """Simulate a prepared run from 0 to its end time; returns ``(trajectory, wall time [s])``.

    The trajectory's status says whether it failed (never raised: `throw=False`). `t_eval`
    (times [s] in [0, t_end], increasing) replaces the spec's evenly spaced samples (the
    identification samples the run at the measured times)."""
    from porthamiltonian import simulate

    spec = prepared.spec
    limits = {k: v for k, v in (("max_nfev", spec.max_nfev), ("timeout", spec.timeout)) if v is not None}
    if t_eval is None and spec.samples:
        t_eval = np.linspace(0.0, prepared.t_end, spec.samples)
    wall = time.perf_counter()
    with warnings.catch_warnings():   # the audit's findings go to the record (and the CLI's last line) instead
        warnings.simplefilter("ignore", AuditWarning)
        traj = simulate(prepared.system, (0.0, prepared.t_end), prepared.x0, progress=progress, throw=False,
                        t_eval=t_eval, inputs=model_inputs(prepared), **prepared.solver, **limits)
    return traj, time.perf_counter() - wall


def model_inputs(prepared):
    """The external inputs of a prepared run: the model's input law built on its compiled
    system (`Model.inputs`), or None (the inputs' defaults)."""
    law = getattr(prepared.model, "inputs", None)
    return None if law is None else law(prepared.system)


#: a run projected to take more steps than this is warned about before it starts
LONG_RUN_STEPS = 1e7


def step_estimate(prepared):
    """``(steps, rate)``: about how many steps the prepared run takes, and the rate [1/s] of
    its fastest mode at the initial state (None for a fixed-step method, whose count is
    exact: ``t_end / step``).

    The rate is the spectral radius of the rates' Jacobian at the initial state, by power
    iteration on finite-difference products (`integrate.simulate._fastest_rate`, 13
    evaluations of the right-hand side); the estimate is ``rate * t_end``, one step per
    fastest time scale: a floor for an explicit method (stable below about 3 / rate, so
    within a factor of a few) and for an implicit one resolving that mode (tens of steps per
    period), an overestimate for an implicit one stepping over a damped fast mode. A contact
    open at the initial state does not show in the rate (its stiffness enters at touch-down;
    `simulate`'s own check at its 3000th evaluation sees it then, for explicit methods).
    """
    from porthamiltonian.integrate.simulate import _fastest_rate

    step = prepared.solver.get("step")
    if step is not None:
        return prepared.t_end / float(step), None
    try:
        rate = _fastest_rate(prepared.system, 0.0, prepared.x0)
    except Exception as exc:  # noqa: BLE001 - an estimate: a state the model cannot evaluate fails the run itself
        reraise_interrupt(exc)
        return 0.0, 0.0
    return rate * prepared.t_end, rate


def long_run_warning(prepared, labels=API_LABELS):
    """The warning for a run that `step_estimate` projects past `LONG_RUN_STEPS` steps, with
    the limits that bound it (named by `labels`), or None: for a run short enough, or one
    already bounded by a timeout or an evaluation budget."""
    spec = prepared.spec
    if spec.timeout is not None or spec.max_nfev is not None:
        return None
    steps, rate = step_estimate(prepared)
    if not steps > LONG_RUN_STEPS:
        return None
    why = (f"t_end = {prepared.t_end:.6g} s at the fixed step {prepared.solver['step']:.6g} s" if rate is None else
           f"the fastest mode at the initial state has a rate of {rate:.3g} 1/s over t_end = {prepared.t_end:.6g} s")
    return (f"this run may take about {steps:.2g} steps ({why}), more than {LONG_RUN_STEPS:.0e}: it can run for "
            f"hours; bound it with `{labels['timeout']}` SECONDS (or `{labels['max_nfev']}` N), shorten "
            f"`{labels['t_end']}`, or soften the stiffest element")


def versions():
    """Python, platform and the versions of the package and its dependencies (None: not
    installed)."""
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for name in _DISTRIBUTIONS:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def summary(prepared, traj, wall, budget):
    """The run's record (`summary.json`): the model (a model file with the digest of its
    bytes), every parameter value, the contact kind, the solver and its tolerances, end time
    and samples, the versions, the wall time, the ledger, the events, and the energy audit's
    findings ("flags": codes, "warnings": messages; status 2 when flagged); `rerun` reproduces the
    run from its "spec" entry."""
    spec = prepared.spec
    return {
        "model": spec.model,
        "model_file_sha256": _file_digest(spec.model) if _is_file(spec.model) else None,
        "parameters": spec.to_dict()["parameters"],
        "contact": spec.parameters.get("contact"),
        "spec": spec.to_dict(),
        "solver": {"t_end": prepared.t_end, "samples": spec.samples, **{k: prepared.solver.get(k) for k in SOLVER_KEYS},
                   "rhs": prepared.jit, "max_nfev": spec.max_nfev, "timeout": spec.timeout},
        "versions": versions(),
        "t_end": float(traj.t[-1]), "status": traj.status, "message": traj.message,
        "flags": list(getattr(traj, "flags", [])), "warnings": list(getattr(traj, "warnings", [])),
        "wall_time_s": wall, "nfev": traj.nfev, "ledger": budget.to_dict(),
        "observable_units": {n: prepared.model.units.get(n) for n in prepared.model.observables},
        "events": [dict(t=e.t, name=e.name, message=e.message, lost=e.lost) for e in traj.events],
    }


def observables_table(prepared, traj):
    """The observables along the trajectory: ``{"t [s]": t, "name [unit]": values, ...}``,
    each of shape (n_samples,) or (n_samples, k) ("[?]" for an observable without a unit)."""
    model, system = prepared.model, prepared.system
    out = {"t [s]": traj.t}
    for name, f in model.observables.items():
        out[f"{name} [{model.units.get(name, '?')}]"] = np.array([f(system, t, x) for t, x in zip(traj.t, traj.x)])
    return out


def _write_csv(path, table):
    columns, names = [], []
    for name, values in table.items():
        values = np.asarray(values, dtype=float).reshape(len(values), -1)
        names += [name] if values.shape[1] == 1 else [f"{name}[{k}]" for k in range(values.shape[1])]
        columns.append(values)
    with atomic_file(path) as tmp:
        np.savetxt(tmp, np.hstack(columns), delimiter=",", header=",".join(names), comments="", fmt="%.17g")


def write_run(out, prepared, traj, wall, budget):
    """Write ``trajectory.npz``, ``trajectory.csv``, ``summary.json``, ``observables.npz``
    and ``observables.csv`` (units in its header) into the directory `out`; returns the
    summary and the observables table."""
    out = Path(out)
    traj.save(out / "trajectory.npz")
    traj.save(out / "trajectory.csv")
    record = summary(prepared, traj, wall, budget)
    write_text(out / "summary.json", json.dumps(record, indent=1, default=float))
    table = observables_table(prepared, traj)
    if len(table) > 1:
        savez(out / "observables.npz", t=traj.t,
              **{k.split(" [")[0].replace(" ", "_"): v for k, v in list(table.items())[1:]})
        _write_csv(out / "observables.csv", table)
    return record, table


def rerun(summary_file, *, progress=False, allow_changes=False):
    """Run again the run a `summary.json` (or a sweep's ``runs/<run_id>.json``) records;
    returns ``(prepared, trajectory)``.

    The spec (model, every parameter, end time, solver, samples, limits) is read from the
    summary, so the trajectory equals the recorded one to the last bit on the same versions
    (`summary["versions"]`). What the spec does not hold is compared with the record first
    (`changes_since`): the model file's bytes (its SHA-256) and the versions of Python and of
    the recorded packages. A run whose inputs changed is not the recorded run: it is refused,
    saying what differs, unless `allow_changes` asks for it (then a `RecordChangedWarning`
    says what differs, and the run goes on). A sweep's record of a run that failed before
    integrating holds no versions or digest: only what it holds is compared.

    Parameters
    ----------
    summary_file : str or Path
    progress : bool
        A progress bar, as in `simulate`.
    allow_changes : bool
        Run the edited model file, or on other versions, anyway.

    Raises
    ------
    ParameterError
        A file that is not a run summary (no "spec" entry).
    RecordChangedError
        The model file or the versions differ from the record, without `allow_changes`.

    Examples
    --------
    >>> prepared, traj = rerun("out/ball-drop/summary.json")        # doctest: +SKIP
    """
    import warnings

    from ..errors import RecordChangedError, RecordChangedWarning

    path = Path(summary_file)
    try:
        record = json.loads(path.read_text())
        spec = RunSpec(**record["spec"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParameterError(f"`summary_file` {str(path)!r} is not a run summary written by porthamiltonian "
                             f"({type(exc).__name__}: {exc})") from None
    if not isinstance(allow_changes, bool):
        raise ParameterError(f"`allow_changes` must be True or False, got {allow_changes!r}")
    differences = changes_since(record.get("summary") if "row" in record else record, spec)
    if differences:
        what = f"the run recorded in {str(path)!r} has changed since: {'; '.join(differences)}"
        if not allow_changes:
            raise RecordChangedError(f"{what}. Running it now would not reproduce the record; pass "
                                     "`allow_changes=True` to run it anyway")
        warnings.warn(RecordChangedWarning(f"{what}; run anyway (allow_changes=True)"), stacklevel=2)
    prepared = prepare(spec)
    traj, _ = integrate(prepared, progress=progress)
    return prepared, traj


def changes_since(record, spec):
    """What differs between a run's record (`summary`) and now: a list of sentences, [] when
    nothing does.

    Compared: the model file's SHA-256 (a model file's bytes are not in the spec), and the
    versions of Python and of the distributions the record lists (None there: not installed
    then). The platform string is not compared (a kernel update is not a change of the
    run's inputs). A record without these entries (None) has nothing to compare.
    """
    out = []
    record = record or {}
    recorded = record.get("model_file_sha256")
    if recorded is not None and _is_file(spec.model):
        now = _file_digest(spec.model)
        if now is None:
            out.append(f"the model file {spec.model!r} cannot be read now")
        elif now != recorded:
            out.append(f"the model file {spec.model!r} was edited (SHA-256 recorded {recorded[:12]}..., now "
                       f"{now[:12]}...)")
    then, current = record.get("versions") or {}, versions()
    changed = [f"{name} {then[name]} -> {current.get(name)}" for name in sorted(then)
               if name != "platform" and then[name] != current.get(name)]
    if changed:
        out.append(f"versions differ ({', '.join(changed)})")
    return out
