"""simulate(): integrate a compiled system with scipy's solve_ivp, handling element events.

`simulate` is five steps: check the arguments (`_checked_run`), check that the initial state
evaluates and is consistent (`_check_start`), integrate in segments (`_Segments`), build the
`Trajectory` and audit it by its ledger, and judge the run (`_verdict`: raise or not). It uses
the system only through the integration interface of `PHSystem` (rates, events, jump maps,
energy, constraints, phases); the solvers are `scipy.integrate.OdeSolver` classes (`METHODS`), given the options
their constructors take (`_solver_options`), so the driver has no case for any of them.

The integration runs in segments: solve_ivp's loop (`porthamiltonian.integrate.ivp.solve_segment`,
every element event's value at a step's end from one look-up) integrates until a terminal
event (an element event such as contact making/breaking, or a terminal user event), the element's handler
changes its own state (and reports the energy lost), and a new segment starts. Energy lost
at events is accumulated in the ledger quadrature "lost" of the element. While an element
takes the integration over (an integrator phase, `porthamiltonian.integrate.phases`: a
reduced contact that is on integrates its contact coordinates), the phase runs the segments;
the trajectory holds system states throughout.
"""

from __future__ import annotations

import fnmatch
import inspect
import logging
import math
import time as _time
import warnings
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.integrate import OdeSolver
from scipy.integrate._ivp.ivp import METHODS as _SCIPY_METHODS

from .._interrupt import check as check_interrupt, reraise_interrupt
from .._validate import as_array, as_finite_float, is_real_scalar
from ..bondgraph.graph import BondGraph
from ..compile.system import PATH_PROBE_AT, PHSystem
from ..errors import AuditError, GeometryError, IntegrationError, IntegrationWarning, ParameterError, PhaseError
from .events import SegmentEvents, starts_crossing, wrap_event
from .ivp import solve_segment
from .discrete_gradient import DiscreteGradient
from .dop853 import DOP853
from .fixed_step import RK4
from .phases import phases_of
from .progress import Progress, progress_logging
from .trajectory import EventRecord, Trajectory

__all__ = ["simulate", "FIXED_STEP_METHODS", "METHODS"]

_log = logging.getLogger(__name__)

#: fixed-step methods of `simulate` (name -> OdeSolver subclass), used with ``step=``
FIXED_STEP_METHODS = {"RK4": RK4, "discrete_gradient": DiscreteGradient}

#: method names `simulate` resolves to its own OdeSolver classes (the other solve_ivp names
#: go to scipy's): the fixed-step methods, and DOP853 with its dense output's extra stages
#: checked inside the step (`porthamiltonian.integrate.dop853`)
METHODS = {"DOP853": DOP853, **FIXED_STEP_METHODS}


def _finite(v):
    """All entries finite: ``v . v`` is finite unless an entry is not (or it overflows, which
    the exact test after it sorts out). 0.28 us for 168 entries, against 0.76 for ``v.sum()``
    (numpy's Python layer) and 3x that for `np.all(np.isfinite(v))`: called twice per
    evaluation."""
    return math.isfinite(v.dot(v)) or bool(np.all(np.isfinite(v)))


def _takes(method, option):
    """True if the solver's constructor has the named parameter `option` (a `jac` for Radau,
    BDF and LSODA, a `step` for the fixed-step methods, the `system` for the discrete
    gradient)."""
    cls = _SCIPY_METHODS.get(method) if isinstance(method, str) else method
    return option in inspect.signature(cls.__init__).parameters


def _uses_jacobian(method):
    """True for solvers that take a `jac` argument (Radau, BDF, LSODA and their subclasses)."""
    return _takes(method, "jac")


def _method_name(method):
    """A method's name in messages and in the trajectory's record: its name in `METHODS`
    (or solve_ivp's), else the class's name."""
    if isinstance(method, str):
        return method
    return next((n for n, cls in FIXED_STEP_METHODS.items() if cls is method), method.__name__)


def _jacobian(rhs, system, rtol, atol):
    """Forward-difference Jacobian of `rhs` for the implicit solvers, by columns of the
    continuous state only.

    scipy's own estimate perturbs every state entry and, where the rate does not depend on an
    entry, grows the perturbation until it does: a discrete entry (a contact flag, a chart
    index) then jumps to a value the model rejects. Discrete entries change only at events
    and the ledger quadratures feed nothing back, so their columns are exactly zero and are
    not perturbed. Step ``h_j = sqrt(eps) max(|x_j|, atol / rtol)``: relative where the
    tolerance is relative, and the magnitude where the absolute tolerance takes over below.
    """
    cols = np.array([i for b in system.layout.blocks if b.kind != "discrete" for i in range(b.start, b.stop)], dtype=int)
    floor = atol / rtol
    sqrt_eps = np.sqrt(np.finfo(float).eps)
    n = system.layout.size

    def jac(t, x):
        f0 = rhs(t, x)
        J = np.zeros((n, n))
        for j in cols:
            h = sqrt_eps * max(abs(x[j]), floor)
            xj = x.copy()
            xj[j] += h
            h = xj[j] - x[j]  # the step actually taken (exact in floating point)
            J[:, j] = (rhs(t, xj) - f0) / h
        return J

    return jac


#: scipy's solvers clamp rtol to this floor (scipy.integrate._ivp.common.validate_tol), with a
#: warning only; simulate refuses smaller values instead of running at a tolerance not asked for.
RTOL_FLOOR = 100 * np.finfo(float).eps


def _event_label(k, e):
    name = getattr(e, "__name__", None)
    return f"`events[{k}]`" + (f" ({name!r})" if isinstance(name, str) else "")


def _check_events(events, t0, x0):
    """Validate user events once, at the boundary: callables ``g(t, x)`` whose value at the
    initial state is a finite real scalar; `direction` a real number if given."""
    if callable(events):
        raise ParameterError(f"`events` must be a sequence of callables g(t, x), got the callable {events!r}: wrap it in a list")
    try:
        events = list(events)
    except TypeError:
        raise ParameterError(f"`events` must be a sequence of callables g(t, x), got {events!r}") from None
    for k, e in enumerate(events):
        label = _event_label(k, e)
        if not callable(e):
            raise ParameterError(f"{label} must be a callable g(t, x), got {e!r} ({type(e).__name__})")
        _check_signature(e, t0, x0, f"{label} must take two positional arguments (t, x)")
        try:
            g0 = e(t0, x0.copy())
        except Exception as exc:
            raise ParameterError(
                f"{label} cannot be evaluated at the initial state (t = {t0:.9g} s): {type(exc).__name__}: {exc}"
            ) from exc
        if not is_real_scalar(g0):
            shape = f", shape {np.shape(g0)}" if isinstance(g0, np.ndarray) else ""
            raise ParameterError(
                f"{label} must return a real scalar (Python or numpy int/float), got {g0!r} "
                f"({type(g0).__name__}{shape}) at t = {t0:.9g} s"
            )
        if not np.isfinite(float(g0)):
            raise ParameterError(f"{label} must return a finite value, got {g0!r} at the initial state (t = {t0:.9g} s)")
        direction = getattr(e, "direction", 0.0)
        if not is_real_scalar(direction) or not np.isfinite(float(direction)):
            raise ParameterError(f"{label}.direction must be a real number (sign of the crossing), got {direction!r}")
    return events


#: right-hand-side evaluations per step of scipy's explicit Runge-Kutta methods
_STAGES = {"RK23": 3, "RK45": 6, "DOP853": 12}
#: the evaluation at which an explicit method's run is checked for stiffness (once)
STIFF_CHECK_AT = 3000
#: evaluations an explicit method may be projected to need before `simulate` warns
STIFF_EVALS = 1_000_000
#: the steps of the last this many evaluations before the check measure the current step
STIFF_WINDOW = 600


def _fastest_rate(system, t, x, iterations=12):
    """Spectral radius of the rates' Jacobian over the continuous state [1/s], by power
    iteration on finite-difference Jacobian-vector products (discrete entries and the ledger
    quadratures, which feed nothing back, are left out).

    The estimate is the geometric mean of the last two growth factors ``|J v|``: for the
    complex pair of an oscillation (eigenvalues +-i w) the iterates do not converge and the
    factors alternate between values whose product is w^2 (J^2 = -w^2 on the pair; with
    J = [[0, -k], [1/m, 0]] they swing between k and 1/m), while for a real dominant
    eigenvalue both factors tend to it."""
    cols = np.array([i for b in system.layout.blocks if b.kind != "discrete" for i in range(b.start, b.stop)])
    f0 = system.rhs(t, x)[cols]
    v = np.random.default_rng(0).normal(size=cols.size)
    v /= np.linalg.norm(v)
    eps = np.sqrt(np.finfo(float).eps) * max(1.0, float(np.linalg.norm(x[cols])))
    rho = previous = 0.0
    for _ in range(iterations):
        xp = np.array(x, dtype=float)
        xp[cols] += eps * v
        w = (system.rhs(t, xp)[cols] - f0) / eps
        previous, rho = rho, float(np.linalg.norm(w))
        if not (rho > 0.0 and np.isfinite(rho)):
            return 0.0
        v = w / rho
    return math.sqrt(previous * rho)


def _warn_if_stiff(system, t, x, method, t_window, t1):
    """Warn (`IntegrationWarning`) when an explicit method's steps are bounded by stability on
    a fast mode and finishing the run that way would take more than `STIFF_EVALS`
    evaluations. The stability region of scipy's explicit methods reaches about 3 / rho; the
    warning needs the steps of the last `STIFF_WINDOW` evaluations (since `t_window`) to be
    within a factor 10 of that bound, so a large estimate that the solver does not feel (the
    finite differences crossing a kink of a friction law) says nothing."""
    try:
        rho = _fastest_rate(system, t, x)
    except Exception as exc:  # noqa: BLE001 - a diagnostic: the run itself reports evaluation failures
        reraise_interrupt(exc)
        return
    name = method if isinstance(method, str) else method.__name__
    stages = _STAGES[name]
    recent_step = (t - t_window) / (STIFF_WINDOW / stages)
    projected = stages * rho * (t1 - t) / 3.0
    if projected > STIFF_EVALS and rho > 0.0 and 0.1 * 3.0 / rho < recent_step < 10.0 * 3.0 / rho:
        warnings.warn(IntegrationWarning(
            f"the model is stiff for {name} at t = {t:.6g} s: its fastest mode has a rate of {rho:.3g} 1/s, so "
            f"stable steps stay below about {3.0 / rho:.3g} s and reaching t = {t1:.6g} s would take about "
            f"{projected:.3g} evaluations; an implicit method (method='Radau' or 'BDF') takes steps set by the "
            "accuracy instead, or soften the stiffest element (a contact's stiffness)"), stacklevel=3)


def _check_budget(budget, nfev, t):
    """Raise IntegrationError once `max_nfev` evaluations or the `timeout` are used up."""
    if budget["nfev"] is not None and nfev > budget["nfev"]:
        raise IntegrationError(f"stopped after max_nfev = {budget['nfev']} right-hand-side evaluations, at "
                               f"t = {t:.9g} s (a stiff model? try method='Radau' or 'BDF')")
    if budget["deadline"] is not None and nfev % 64 == 0 and _time.perf_counter() > budget["deadline"]:
        raise IntegrationError(f"stopped at the timeout after {nfev} right-hand-side evaluations, at t = {t:.9g} s")


def _check_signature(fn, t0, x0, rule):
    """Raise ParameterError (`rule`, then the signature) unless `fn` can be called as fn(t, x);
    without an introspectable signature (some builtins) the first call decides."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(t0, x0)
    except TypeError as exc:
        raise ParameterError(f"{rule}, but its signature {sig} does not ({exc})") from None


def _check_inputs_callable(inputs, system, t0, x0):
    """Check that `inputs(t, x)` returns u of shape (n_inputs,), finite, at the initial state."""
    n = system.n_inputs
    _check_signature(inputs, t0, x0, "`inputs` must be a constant vector or a callable inputs(t, x) -> u")
    try:
        u0 = inputs(t0, x0.copy())
    except Exception as exc:
        raise ParameterError(f"`inputs` cannot be evaluated at t = {t0:.9g} s: {type(exc).__name__}: {exc}") from exc
    u = as_array(u0, f"inputs(t0 = {t0:.9g}, x0)")
    if u.shape != (n,):
        raise ParameterError(
            f"`inputs` must return u of shape ({n},) for system {system.name!r} ({n} external input"
            f"{'s' if n != 1 else ''}), got {u0!r} (shape {u.shape}) at t = {t0:.9g} s"
        )


def simulate(system: PHSystem, t_span: ArrayLike, x0: ArrayLike, *, method: str | type[OdeSolver] = "RK45",
             rtol: float = 1e-6, atol: float = 1e-9, max_step: float = np.inf, t_eval: ArrayLike | None = None,
             events: Sequence[Callable[[float, np.ndarray], float]] = (),
             inputs: ArrayLike | Callable[[float, np.ndarray], ArrayLike] | None = None, progress: bool = False,
             throw: bool = True, first_step: float | None = None, max_events: int = 10000,
             check_constraints: bool = True, projection: float | None = None, max_nfev: int | None = None,
             timeout: float | None = None, dense_output: bool = False, step: float | None = None,
             stop_after: str | None = None, audit: bool | str = True) -> Trajectory:
    """Integrate a compiled system over `t_span`.

    Parameters
    ----------
    system : PHSystem
        From `compile(bg)`.
    t_span : (float, float)
        Start and end time [s], t0 < t1.
    x0 : array_like, shape (n,), or dict
        Initial state (see `system.layout`), or a mapping "element.block" -> value applied to
        the default state (`system.initial_state`).
    method : str or OdeSolver subclass
        Any `scipy.integrate.solve_ivp` method ("RK45", "DOP853", "Radau", "BDF", "LSODA", ...),
        or "RK4": the classical Runge-Kutta method at the fixed `step`
        (`porthamiltonian.integrate.fixed_step.RK4`; events and dense output as usual, no
        error control: rtol and atol then only set the initial-constraint check), or
        "discrete_gradient": an energy-consistent implicit method at the fixed `step`
        (`porthamiltonian.integrate.discrete_gradient.DiscreteGradient`: H preserved, and the
        ledger closed, to the per-step solve's round-off at any step; poses on SE(3)).
        Implicit methods get a finite-difference Jacobian over the continuous state entries
        (discrete entries change only at events; see `_jacobian`). "DOP853" is scipy's with
        an interpolant that is never NaN where a step was accepted
        (`porthamiltonian.integrate.dop853.DOP853`). An OdeSolver subclass gets the options
        its constructor names: `step`, `system` (the compiled system), `jac`.
    step : float, optional
        The step [s] of a fixed-step method (required there, refused otherwise; a segment
        between events ends with a shorter step on the event).
    rtol, atol : float
        Integration tolerances, > 0; rtol must be >= 100 machine epsilons (about 2.2e-14), the
        smallest value scipy's solvers use (they would clamp it silently, with a warning only).
        Numbers may be Python or numpy real scalars (not bools) here and everywhere below. They apply to every state entry, the ledger quadratures
        included (for these, atol is an energy tolerance [J]). The ledger stays in the error
        control on purpose: its error estimates are what holds the energy balance, and the
        constraint drift, at rtol level. Measured with the quadratures outside it (weight
        zero, tolerances rescaled so that the physical state keeps its own norm): a point-mass
        pendulum with Baumgarte (10, 10), RK45 at rtol 1e-4 over 10 s, ledger residual 0.13
        -> 80 rtol and gap 2e-3 -> 0.1 rtol L; a contact with a clipped damper (a kink in the
        dissipated power that the state's error estimate barely sees), DOP853 at 1e-10 with
        the same number of steps, 0.5 -> 660 rtol. Keeping only the stabilization work in
        the control restores the pendulum but not the contact, and saves at most 13 % of the
        evaluations (two-ellipsoids); benchmarks/results/ledger_error_control.md has the data.
    max_step : float
        Largest step [s] (> 0; np.inf for none).
    t_eval : array_like, optional
        Output times (sorted, inside t_span). Default: the solver's own steps. Event times are
        always included (twice: before and after the state jump).
    events : sequence of callables
        User events ``g(t, x)`` with optional attributes ``terminal`` (stop the simulation) and
        ``direction``, as in solve_ivp. Their crossings are listed in `Trajectory.events`. Each
        must accept the two positional arguments (t, x) and return a real scalar: a Python or
        numpy int/float (or a 0-d array), not a bool, string or an array with an axis. This is
        checked once, at the initial state (the value there must also be finite).
    inputs : None, array_like or callable
        External inputs u (for sources created with ``input=True``): a constant vector of shape
        (system.n_inputs,) or ``inputs(t, x) -> u`` of that shape (feedback allowed; checked at
        the initial state). A non-finite u during the run fails it with an IntegrationError.
    progress : bool
        Report progress as INFO records of the ``porthamiltonian.integrate.progress`` logger:
        to the application's handlers if it configured logging, else as a bar on stderr (see
        that module). Events are logged as they fire, at DEBUG level, on this module's logger.
    throw : bool
        Raise IntegrationError on failure (default). If False, the failure is returned in the
        trajectory's `status` and `message`.
    first_step : float, optional
        Size of the first step [s], > 0 and at most t1 - t0 (of each segment between events,
        the smaller of this and the segment's length).
    max_events : int
        Stop with an error after this many element events (guards against chattering).
    stop_after : str, optional
        An `fnmatch` pattern over element event names (``"foot*/constraint.impact"``): the run
        ends (status 1) right after the first such event fires later than t0, its jump applied
        (the trajectory's last sample is the state after it). A stride of a gait ends there
        (`porthamiltonian.studies.StrideMap`). An event fired at t0 itself (a state that starts
        on the event's surface) does not stop the run.
    max_nfev : int, optional
        Stop with an error after this many right-hand-side evaluations (a stiff model on an
        explicit method can take millions); the message says where the run was.
    timeout : float, optional
        Stop with an error after this many seconds of wall time, likewise.
    dense_output : bool
        Keep the solver's interpolants, so that `Trajectory.sol` gives the state at any time
        of the run (at an event time, the state after the event); costs memory per step.
    check_constraints : bool
        Refuse an initial state whose constraint residuals exceed ``100 * atol`` (the multiplier
        formulation keeps residuals constant only up to stabilization; start consistent).
    audit : bool or 'strict'
        Audit the finished run by its energy ledger (`Trajectory.audit`, default): a ledger
        residual above what rtol and atol allow (`PowerBudget.residual_bound`), an element
        that generates energy, or a contact beyond the range of its law is listed in the
        trajectory's `warnings`, raised as an `AuditWarning`, and makes a run that reached its
        end status 2 (flagged, still a success) instead of 0. It costs one evaluation of the
        stored energies per output sample. False skips it (status 0 as before); "strict"
        raises `AuditError` (an IntegrationError, with the trajectory as its `trajectory`
        attribute) for any finding, throw or not.
    projection : float, optional
        Project the state onto the constraint manifold (positions and velocities of the
        active rows, along the constraints' Jacobians: `PHSystem.project_constraints`) every
        `projection` seconds of simulated time, on top of Baumgarte stabilization. The energy
        the projections remove is reported in the ledger entry "projection" (stabilization).

    Returns
    -------
    Trajectory
        Times, states, status/message, event log, and the energy ledger (`power_budget()`).

    Raises
    ------
    PhaseError
        If given an uncompiled BondGraph.
    ParameterError
        Bad arguments (shape of x0, t_span, tolerances, method name...).
    ModelError
        An element declares an integrator phase that no module registered
        (`porthamiltonian.integrate.phases`).
    IntegrationError
        When the integration fails: the message says when (time), where (element/state
        block) and why (the solver's or the element's message).
    """
    run = _checked_run(system, t_span, x0, method=method, rtol=rtol, atol=atol, max_step=max_step, t_eval=t_eval,
                       events=events, inputs=inputs, first_step=first_step, max_events=max_events,
                       check_constraints=check_constraints, projection=projection, max_nfev=max_nfev,
                       timeout=timeout, dense_output=dense_output, step=step, stop_after=stop_after, audit=audit)
    with progress_logging(progress):   # a bar on stderr unless the application's logging takes the records
        rhs = _Evaluator(system, run.method, run.inputs, callable(inputs), run.budget, run.t0, run.t1,
                         Progress(run.t0, run.t1, progress))
        _check_start(system, run)
        segments = _Segments(system, rhs, _solver_options(system, rhs, run), run)
        segments.integrate(run.t0, run.t1, run.x0)
        rhs.progress.close(_last_time(segments.T))
    traj = Trajectory(
        system, np.concatenate(segments.T), np.concatenate(segments.X, axis=0), segments.status, segments.message,
        segments.records, nfev=rhs.nfev, njev=segments.njev, nlu=segments.nlu,
        method=run.method if isinstance(run.method, str) else run.method.__name__, rtol=run.rtol, atol=run.atol,
        dense=segments.pieces if run.dense_output else None,
    )
    # the audit runs in this frame, so that its warnings point at the caller's line
    found = traj.audit() if audit and traj.status >= 0 else []
    return _verdict(system, traj, throw, audit, found)


# ------------------------------------------------------------------ the steps of simulate


@dataclass(frozen=True)
class _Run:
    """`simulate`'s arguments, checked (`_checked_run`): the settings of one run."""

    t0: float
    t1: float
    x0: np.ndarray
    method: object            # a solve_ivp method name or an OdeSolver subclass
    rtol: float
    atol: float
    max_step: float
    first_step: float | None
    step: float | None        # the fixed step of a method that takes one
    dense_output: bool
    t_eval: np.ndarray | None
    inputs: Callable | None   # u(t, x), None for the system's defaults
    user_events: list
    budget: dict              # `_check_budget`'s evaluation budget
    max_events: int
    projection: float | None
    stop_after: str | None
    check_constraints: bool


def _checked_run(system, t_span, x0, *, method, rtol, atol, max_step, t_eval, events, inputs, first_step,
                 max_events, check_constraints, projection, max_nfev, timeout, dense_output, step, stop_after,
                 audit):
    """Step 1: every argument checked once, at the boundary (a typed error naming the
    argument, the value and the rule); returns the run's settings."""
    if isinstance(system, BondGraph):
        raise PhaseError(
            f"simulate needs a compiled system, got the BondGraph {system.name!r}: call "
            "`system = compile(bg)` first, then `simulate(system, ...)`"
        )
    if not isinstance(system, PHSystem):
        raise ParameterError(f"`system` must be a PHSystem from compile(), got {type(system).__name__}")
    t0, t1, rtol, atol, max_step, first_step = _checked_times(t_span, rtol, atol, max_step, first_step)
    budget = _checked_limits(dense_output, max_events, max_nfev, timeout)
    if not (isinstance(audit, (bool, np.bool_)) or audit == "strict"):
        raise ParameterError(f"`audit` must be True, False or 'strict', got {audit!r}")
    method, step = _checked_method(method, step, max_step, first_step)
    x0 = _checked_state(system, x0)
    projection = _checked_projection(system, projection)
    t_eval = _checked_t_eval(t_eval, t0, t1)
    ufun = _input_function(system, inputs, t0, x0)
    user_events = _check_events(events, t0, x0)
    if stop_after is not None and (not isinstance(stop_after, str) or not stop_after):
        raise ParameterError(f"`stop_after` must be a non-empty element event name pattern (str) or None, "
                             f"got {stop_after!r}")
    return _Run(t0, t1, x0, method, rtol, atol, max_step, first_step, step, dense_output, t_eval, ufun,
                user_events, budget, max_events, projection, stop_after, check_constraints)


def _check_start(system, run):
    """Step 2: the initial state evaluates (else an IntegrationError with the element's
    message) and, if asked, satisfies the constraints (`_check_initial_constraints`)."""
    t0, x0 = run.t0, run.x0
    try:
        system.reference_rhs(t0, x0, None if run.inputs is None else np.asarray(run.inputs(t0, x0), dtype=float))
    except Exception as exc:
        reraise_interrupt(exc)
        raise IntegrationError(
            f"the initial state cannot be evaluated at t = {t0:.9g} s: {type(exc).__name__}: {exc}") from exc
    if run.check_constraints and system.has_constraints:
        _check_initial_constraints(system, t0, x0, run.atol)


def _solver_options(system, rhs, run):
    """solve_ivp's options for the run's method: the tolerances, step limits and dense output
    every solver takes, and what its constructor asks for by name: the fixed `step`, the
    compiled `system` (a solver built on the system's structure, the discrete gradient), a
    `jac` (the implicit methods: `_jacobian`)."""
    options = dict(method=run.method, rtol=run.rtol, atol=run.atol, max_step=run.max_step,
                   dense_output=run.dense_output)
    if run.step is not None:
        options["step"] = run.step
    if _takes(run.method, "system"):
        options["system"] = system
    if _uses_jacobian(run.method):
        options["jac"] = _jacobian(rhs, system, run.rtol, run.atol)
    return options


def _verdict(system, traj, throw, audit, found):
    """Step 5: a failed run raises (`throw`); a finished one whose ledger audit `found`
    something raises if the audit is "strict". Returns the trajectory."""
    if traj.status == -1 and throw:
        err = IntegrationError(traj.message)
        err.trajectory = traj
        raise err
    if found and audit == "strict":
        err = AuditError(f"{system.name}: the run was flagged by its energy audit: " + "; ".join(traj.warnings))
        err.trajectory = traj
        raise err
    return traj


# ------------------------------------------------------------------ arguments


def _checked_times(t_span, rtol, atol, max_step, first_step):
    """``(t0, t1, rtol, atol, max_step, first_step)`` as floats, or a ParameterError naming the
    argument and the rule."""
    ts = as_array(t_span, "t_span", (2,))
    t0, t1 = float(ts[0]), float(ts[1])
    if not t1 > t0:
        raise ParameterError(f"`t_span` must be increasing (t0 < t1), got ({t0!r}, {t1!r})")
    rtol = as_finite_float(rtol, "rtol", positive=True)
    if rtol < RTOL_FLOOR:
        raise ParameterError(
            f"`rtol` must be >= 100 * machine epsilon = {RTOL_FLOOR:.3g} (scipy's solvers cannot use a smaller "
            f"relative tolerance and would silently clamp it), got {rtol!r}"
        )
    atol = as_finite_float(atol, "atol", positive=True)
    if not (is_real_scalar(max_step) and float(max_step) > 0):  # np.inf allowed (no limit)
        raise ParameterError(f"`max_step` must be a positive number (or np.inf), got {max_step!r}")
    if first_step is not None:
        fs = as_finite_float(first_step, "first_step")
        if not fs > 0:
            raise ParameterError(f"`first_step` must be > 0, got {first_step!r}")
        first_step = fs
        if first_step > t1 - t0:
            raise ParameterError(
                f"`first_step` must be <= t1 - t0 = {t1 - t0!r} (the length of t_span), got {first_step!r}"
            )
    return t0, t1, rtol, atol, float(max_step), first_step


def _checked_limits(dense_output, max_events, max_nfev, timeout):
    """Check the run's switches and limits; returns the evaluation budget (`_check_budget`)."""
    if not isinstance(dense_output, (bool, np.bool_)):
        raise ParameterError(f"`dense_output` must be True or False, got {dense_output!r}")
    if isinstance(max_events, (bool, np.bool_)) or not isinstance(max_events, (int, np.integer)) or max_events < 0:
        raise ParameterError(f"`max_events` must be a non-negative integer, got {max_events!r}")
    if max_nfev is not None and (isinstance(max_nfev, (bool, np.bool_)) or not isinstance(max_nfev, (int, np.integer))
                                 or max_nfev < 1):
        raise ParameterError(f"`max_nfev` must be a positive integer (or None), got {max_nfev!r}")
    if timeout is not None:
        timeout = as_finite_float(timeout, "timeout", positive=True)
    return {"nfev": max_nfev, "deadline": None if timeout is None else _time.perf_counter() + timeout}


def _checked_method(method, step, max_step, first_step):
    """``(method, step)``: a name of `METHODS` becomes its class (other names stay solve_ivp's);
    a method whose constructor takes a `step` (the fixed-step methods) needs one, and no
    `max_step` or `first_step`; any other method refuses a `step`."""
    if isinstance(method, str):
        from .._options import check_method

        method = METHODS.get(check_method(method), method)
    elif not (inspect.isclass(method) and issubclass(method, OdeSolver)):
        raise ParameterError(f"`method` must be a solve_ivp method name or an OdeSolver subclass, got {method!r}")
    name = _method_name(method)
    if not _takes(method, "step"):
        if step is not None:
            raise ParameterError(f"`step` is for the fixed-step methods {sorted(FIXED_STEP_METHODS)}; "
                                 f"method {name!r} chooses its own steps (got step={step!r})")
        return method, None
    if step is None:
        raise ParameterError(f"method {name!r} needs `step`, the fixed step [s]")
    step = as_finite_float(step, "step", positive=True)
    if math.isfinite(max_step) or first_step is not None:
        raise ParameterError(f"method {name!r} steps by `step` = {step!r}: leave `max_step` and `first_step` unset")
    return method, step


def _checked_state(system, x0):
    """The initial state as a fresh array (a dict goes through `system.initial_state`), each
    element's block checked by the element."""
    if isinstance(x0, dict):
        x0 = system.initial_state(x0)
    x0 = system.check_state(x0, "x0").copy()
    for path, obj in system.elements.items():
        sl = system.layout.element_slice(path)
        if sl.stop > sl.start:
            obj.validate_state(x0[sl], f"x0[{path!r}]")
    return x0


def _checked_projection(system, projection):
    if projection is None:
        return None
    projection = as_finite_float(projection, "projection", positive=True)
    if not system.has_constraints:
        raise ParameterError(f"`projection` was given but system {system.name!r} has no constraints")
    return projection


def _checked_t_eval(t_eval, t0, t1):
    if t_eval is None:
        return None
    t_eval = as_array(t_eval, "t_eval", (None,))
    if np.any(np.diff(t_eval) < 0) or t_eval[0] < t0 or t_eval[-1] > t1:
        raise ParameterError(f"`t_eval` must be sorted and inside t_span [{t0}, {t1}]")
    return t_eval


def _input_function(system, inputs, t0, x0):
    """``u(t, x)`` of the external inputs (None without inputs: the system's defaults)."""
    if system.n_inputs == 0:
        if inputs is not None:
            raise ParameterError(f"system {system.name!r} has no external inputs, but `inputs` was given")
        return None
    if inputs is None:
        return None
    if callable(inputs):
        _check_inputs_callable(inputs, system, t0, x0)
        return inputs
    uc = as_array(inputs, "inputs", (system.n_inputs,))
    return lambda t, x: uc


# ------------------------------------------------------------------ the right-hand side


class _Evaluator:
    """The right-hand side handed to solve_ivp: the system's fast evaluation with the external
    inputs, counting evaluations against the budget, checking once for stiffness, and
    remembering where the solver was (the last finite state) and why an evaluation could not
    be made.

    An evaluation at a solver stage far outside the model's range (a contact extrapolated deep
    into a body) returns NaN: explicit and implicit scipy solvers then reject the step and
    shrink it. If the integration fails anyway, the last such reason (`failed`) is reported.
    """

    def __init__(self, system, method, ufun, user_inputs, budget, t0, t1, progress):
        self.system, self.method, self.ufun, self.budget, self.progress = system, method, ufun, budget, progress
        self.user_inputs = user_inputs   # a user's callable: its values are checked
        self.t1 = t1
        self.explicit = _STAGES.get(method if isinstance(method, str) else getattr(method, "__name__", "")) is not None
        self.names = system.layout.names()
        self.nan = np.full(system.layout.size, np.nan)
        self.nfev = 0
        self.t_window = self.t_start = t0
        self.planned = False                  # `PHSystem.plan_path` asked (once per run)
        self.last_t, self.last_x = t0, None   # the last finite state evaluated
        self.failed = None                    # (t, reason) of the last evaluation that could not be made

    def __call__(self, t, x):
        system = self.system
        self.nfev += 1
        check_interrupt()   # a signal whose exception something swallowed (a CLI run)
        _check_budget(self.budget, self.nfev, t)
        if self.nfev == STIFF_CHECK_AT - STIFF_WINDOW:
            self.t_window = self.last_t
        elif self.nfev == STIFF_CHECK_AT and self.explicit and self.last_x is not None:
            _warn_if_stiff(system, self.last_t, self.last_x, self.method, self.t_window, self.t1)
        if not _finite(x):  # a stage built from a rejected (NaN) stage
            return self.nan
        self.last_t, self.last_x = t, x  # where the solver was when it gave up, if it does
        u = None if self.ufun is None else self._inputs(t, x)
        try:
            xd = system.rhs(t, x, u)
        except GeometryError as exc:
            self.failed = (t, f"{type(exc).__name__}: {exc}")
            return self.nan
        if not _finite(xd):
            bad = sorted({self.names[i].split("[")[0] for i in np.flatnonzero(~np.isfinite(xd))})
            self.failed = (t, f"non-finite state rate in {bad}")
        elif self.nfev >= PATH_PROBE_AT and not self.planned and t != self.t_start:
            # the compiled or the Python path (after an evaluation that succeeded): the run's
            # length extrapolated from its progress
            self.planned = True
            system.plan_path(self.nfev, self.nfev * abs((self.t1 - t) / (t - self.t_start)))
        if self.progress.enabled:
            self.progress.update(t)
        return xd

    def _inputs(self, t, x):
        """u(t, x), checked (a user's callable): raised through solve_ivp, reported as the
        failure (not as a step-size failure)."""
        u = np.asarray(self.ufun(t, x), dtype=float)
        n = self.system.n_inputs
        if self.user_inputs and (u.shape != (n,) or not np.all(np.isfinite(u))):
            if u.shape != (n,):
                raise IntegrationError(f"input u returned shape {u.shape} at t = {t:.9g} s; `inputs` must return shape ({n},)")
            bad = "nan" if np.any(np.isnan(u)) else "inf"
            raise IntegrationError(f"input u returned {bad} at t = {t:.9g} s (u = {u.tolist()}); `inputs(t, x)` must stay finite")
        return u


# ------------------------------------------------------------------ segments between events


class _Segments:
    """The integration in segments (module docstring): solve_ivp from one event to the next,
    the element's handler changing the state in between. Collects the samples (`T`, `X`),
    the event records, each segment's interpolant (`pieces`, with dense output), the solver's
    counts, and how the run ended (`status`, `message`)."""

    def __init__(self, system, rhs, solver, run):
        self.system, self.rhs, self.solver = system, rhs, solver
        self.user_events, self.t_eval, self.first_step = run.user_events, run.t_eval, run.first_step
        self.projection, self.max_events = run.projection, run.max_events
        self.element_events = list(system.events)
        layout = system.layout
        # ledger entries: "lost" and "supplied" per element, the projection's
        self.lost_index = {e.element: layout.n_physical + e.index for e in layout.ledger if e.kind == "lost"}
        self.supplied_index = {e.element: layout.n_physical + e.index for e in layout.ledger if e.kind == "supplied"}
        self.proj_index = next((layout.n_physical + e.index for e in layout.ledger if e.element == "projection"), None)
        self.stabilization_index = {e.element: layout.n_physical + e.index for e in layout.ledger
                                    if e.kind == "stabilization"}
        self.T, self.X, self.records, self.pieces = [], [], [], []
        self.status, self.message = 0, "The solver successfully reached the end of the integration interval."
        self.njev = self.nlu = 0
        self.n_events = 0
        self.fired_at_start = set()   # (event, time) fired at a segment's start: once per instant
        self.stop_after, self.n_seen = run.stop_after, 0   # `simulate`'s stop_after; records already checked
        self.phases = phases_of(self)   # regimes elements take the integration over (`.phases`)

    def integrate(self, t0, t1, x0):
        """Run from ``(t0, x0)`` to `t1`, a terminal user event, a failure, or too many events."""
        self.T.append(np.array([t0]))
        self.X.append(x0[None, :])
        try:
            x0 = self._release_pulling(t0, x0)
        except IntegrationError as exc:   # no consistent contact forces at the start
            self.status, self.message = -1, f"at the start: {exc}"
            return
        t, x = t0, x0
        next_projection = t0 + self.projection if self.projection is not None else np.inf
        while True:
            try:
                b = self._starting(t, x)
            except Exception as exc:  # an element's event function failed at the segment start
                reraise_interrupt(exc)
                self.status, self.message = -1, (
                    f"an event function could not be evaluated at t = {t:.9g} s (the start of a segment, kept in the "
                    f"trajectory): {type(exc).__name__}: {exc}")
                break
            if b is not None:   # zero at the start, moving in its direction: fire it now
                self.fired_at_start.add((b.name, t))
                x = self.fire(b, t, x)
                self.n_events += 1
                if self._stops(t0):
                    break
                continue
            t_stop = min(t1, next_projection)
            phase, which = self._phase(x)
            if phase is not None:   # an element takes the integration over (a reduced contact)
                t, x, stop, reached = phase.run(which, t, x, t_stop)
            else:
                sol, evs = self._solve(t, x, t_stop)
                if sol is None or sol.status == -1:
                    break
                reached = sol.status == 0
                if reached:
                    t, x, stop = t_stop, np.asarray(sol.y, dtype=float)[:, -1].copy(), False
                else:
                    t, x, stop = self._terminal(sol, evs)
            if stop or t >= t1 or self._stops(t0):
                break
            if reached:
                t, x = t_stop, self._project(t_stop, x)
                next_projection = t + self.projection

    def _release_pulling(self, t, x):
        """The run's first state with the unilateral contacts that are on but would pull
        released and the contacts' stick phases settled (`PHSystem.release_pulling_contacts`),
        each change an event record with no energy (a detach, a stick): a contact starting on
        with a pulling force would otherwise hold its bodies together, its detach event
        starting past its zero."""
        x_after, released = self.system.release_pulling_contacts(t, x)
        for path, _, sl, _, _ in self.system.constraints:
            if not np.array_equal(x_after[sl], x[sl]):
                x_next = x.copy()
                x_next[sl] = x_after[sl]
                name, message = ((f"{path}.detach", "released at the start: its normal force would pull")
                                 if path in released else
                                 (f"{path}.stick", "its stick phase settled at the start (stuck where it slips "
                                  "slower than its slip speed within its friction cone)"))
                x = self.record_event(t, x, x_next, name, message, 0.0)
        return x

    def _phase(self, x):
        """``(phase, what it takes over)`` of the first phase that takes state `x` over, or
        ``(None, None)``."""
        for phase in self.phases:
            which = phase.active(x)
            if which is not None:
                return phase, which
        return None, None

    def _stops(self, t0):
        """Whether an element event fired since the last check matches `stop_after` (later
        than `t0`); if so, the run's status says which and when."""
        if self.stop_after is None:
            return False
        new, self.n_seen = self.records[self.n_seen:], len(self.records)
        for rec in new:
            if (rec.t > t0 and rec.message not in ("crossing", "terminal user event")
                    and fnmatch.fnmatchcase(rec.name, self.stop_after)):
                self.status, self.message = 1, f"{rec.name} occurred at t = {rec.t:.9g} s (`stop_after`)."
                return True
        return False

    def _starting(self, t, x):
        """The first element event exactly zero at ``(t, x)`` and moving in its direction
        (not fired at this instant yet), or None."""
        for b in self.element_events:
            if (b.name, t) not in self.fired_at_start and starts_crossing(
                    lambda tt, xx, b=b: b.value(tt, xx, self.system), b.spec.direction, t, x, self.rhs,
                    b.spec.past_start):
                return b
        return None

    def _solve(self, t, x, t_stop):
        """One segment of solve_ivp from ``(t, x)`` to `t_stop` or the first terminal event;
        stores its samples. Returns ``(sol, event functions)``, sol None if solve_ivp raised."""
        system, rhs = self.system, self.rhs
        evs = [
            wrap_event(lambda tt, xx, k=k: system.event_value(k, tt, xx), b.spec.direction, True, t, x, rhs,
                       b.spec.past_start)
            for k, b in enumerate(self.element_events)
        ]
        evs += [
            wrap_event(e, getattr(e, "direction", 0.0), bool(getattr(e, "terminal", False)), t, x, rhs)
            for e in self.user_events
        ]
        # at each step's end, every element event's value from one look-up (`event_values`)
        values = SegmentEvents(system.event_values, evs, len(self.element_events))
        return self.run_solver(rhs, t, x, t_stop, evs, len(self.element_events), None, self.solver, values), evs

    def run_solver(self, fun, t, y, t_stop, evs, n_before_user, to_x, solver, values=None):
        """`solve_segment` (solve_ivp's loop) of ``dy/dt = fun(t, y)`` from ``(t, y)`` to
        `t_stop` with the event functions `evs` (the user events after the first
        `n_before_user`; `values`, all their values at once, when given); stores the samples
        as states (``to_x(y)``, or y itself when None). Returns sol, None if the solver raised."""
        rhs = self.rhs
        accepted = _StepRecorder()   # a raising solver loses its steps: keep them here
        te = None
        if self.t_eval is not None:
            # the segment's own end is always evaluated (the state to restart from); it is
            # dropped from the output below unless it is one of the requested times
            te = np.union1d(self.t_eval[(self.t_eval > t) & (self.t_eval <= t_stop)], [t_stop])
        first = None if self.first_step is None else min(self.first_step, t_stop - t)
        try:
            sol = solve_segment(fun, (t, t_stop), y, t_eval=te, events=evs, values=values, on_step=accepted,
                                first_step=first, **solver)
        except IntegrationError as exc:
            accepted.keep(self.T, self.X, to_x)
            self.status, self.message = -1, str(exc)
            return None
        except Exception as exc:  # an element kernel or event failed: say when and where
            reraise_interrupt(exc)   # Ctrl-C inside compiled code surfaces as a SystemError
            accepted.keep(self.T, self.X, to_x)
            self.status, self.message = -1, (
                f"evaluation failed near t = {rhs.last_t:.9g} s (the last accepted step ends at "
                f"t = {_last_time(self.T):.9g} s, kept in the trajectory): {type(exc).__name__}: {exc}")
            return None
        self._store(sol, t, len(y), n_before_user, to_x)
        if sol.status == -1:
            self.status = -1
            self.message = _explain_failure(self.system, rhs.last_t, rhs.last_x, sol.message, solver["method"],
                                            rhs.names)
            if rhs.failed is not None:
                self.message += f" Last evaluation that could not be made: at t = {rhs.failed[0]:.9g} s, {rhs.failed[1]}"
        return sol

    def _store(self, sol, t_start, n, n_el, to_x):
        """Keep a segment's samples (as states, through `to_x` when not None), interpolant
        (over the segment, from `t_start`: with `t_eval` its first sample comes later),
        counts and non-terminal user events (after the first `n_el` event functions)."""
        if self.solver["dense_output"] and sol.sol is not None and sol.t.size:
            self.pieces.append((float(t_start), float(sol.t[-1]), sol.sol if to_x is None else _Mapped(sol.sol, to_x)))
        self.njev += sol.njev
        self.nlu += sol.nlu
        ts_, ys_ = np.asarray(sol.t, dtype=float), np.asarray(sol.y, dtype=float).reshape(n, -1).T
        if self.t_eval is not None and ts_.size and sol.status == 0 and not np.any(self.t_eval == ts_[-1]):
            ts_, ys_ = ts_[:-1], ys_[:-1]  # the segment end was added for the restart only
        if ts_.size:
            self.T.append(ts_)
            self.X.append(ys_ if to_x is None else np.array([to_x(y) for y in ys_]))
        for k, e in enumerate(self.user_events):
            if not getattr(e, "terminal", False):
                for te_k, ye_k in zip(sol.t_events[n_el + k], sol.y_events[n_el + k]):
                    self.records.append(EventRecord(float(te_k), getattr(e, "__name__", f"event{k}"), "crossing", 0.0,
                                                    np.array(ye_k if to_x is None else to_x(ye_k))))

    def _project(self, t, x):
        """At a projection time: move onto the constraint manifold, book the energy change."""
        H_before = self.system.energy(x)
        x = self.system.project_constraints(t, x)
        x[self.proj_index] += H_before - self.system.energy(x)
        self.T.append(np.array([t]))
        self.X.append(x[None, :])
        return x

    def _terminal(self, sol, evs):
        """After a segment ended at a terminal event: fire it (an element's) or stop (a
        user's). Returns ``(t, x, stop)``. A non-terminal user event crossed earlier in the
        same step is not the one."""
        fired = [(k, sol.t_events[k][-1]) for k in range(len(evs)) if evs[k].terminal and sol.t_events[k].size]
        k, te_ = min(fired, key=lambda kv: kv[1])
        xe = sol.y_events[k][-1].copy()
        if k < len(self.element_events):
            b = self.element_events[k]
            self.fired_at_start.add((b.name, te_))  # it just fired: not again at the restart
            try:
                x = self.fire(b, te_, xe)
            except IntegrationError as exc:   # the event's impulse left no consistent contact forces
                self.record_event(te_, xe, xe, b.name, f"not applied: {exc}", 0.0)
                self.status, self.message = -1, f"event {b.name}: {exc}"
                return te_, xe, True
            self.n_events += 1
            if self.n_events > self.max_events:
                self.status, self.message = -1, (
                    f"more than {self.max_events} events by t = {te_:.9g} s (last: {b.name}); the model may be "
                    "chattering: check contact parameters or raise `max_events`"
                )
                return te_, x, True
            return te_, x, False
        e = self.user_events[k - len(self.element_events)]
        self.records.append(EventRecord(te_, getattr(e, "__name__", "user event"), "terminal user event", 0.0,
                                        np.array(xe)))
        self.records.sort(key=lambda r: r.t)
        if self.T[-1][-1] != te_:
            self.T.append(np.array([te_]))
            self.X.append(xe[None, :])
        self.status, self.message = 1, f"A terminal user event occurred at t = {te_:.9g} s."
        return te_, xe, True

    def fire(self, b, te_, xe):
        """Apply element event `b` at `te_` to state `xe`; book its energy; return the new state.

        The contacts that are on first come to rest (`PHSystem.come_to_rest`: their velocity
        residuals, the integration's drift, zeroed by the impulse of least kinetic energy): a
        contact detached at zero force, or slipping from a stick, starts its new phase from a
        consistent state. Like a projection onto the constraint manifold, that impulse's work
        is stabilization: booked in each constraint's stabilization entry, not as the event's
        loss."""
        system = self.system
        xs, works = system.come_to_rest(te_, xe, work=True)
        for path, (_, absorbed) in works.items():
            xs[self.stabilization_index.get(path, self.proj_index)] += absorbed
        out = b.spec.handler(te_, xs[b.own], tuple(xs[s] for s in b.refs))
        xn = xs.copy()
        xn[b.own] = out.x
        lost, message = float(out.lost), out.message
        if out.impulse is not None:
            xn, works, released = system.apply_impulse(te_, xn, b.element, out.impulse, work=True)
            for path, (supplied_k, absorbed_k) in works.items():
                if supplied_k and path in self.supplied_index:  # a driven constraint's impulsive work
                    xn[self.supplied_index[path]] += supplied_k
                lost += absorbed_k
            if released:
                message += f"; released {', '.join(released)} (it would have pulled)"
        if out.x_after is not None:
            xn[b.own] = out.x_after(system, te_, xn)
        if b.element in self.lost_index:
            xn[self.lost_index[b.element]] += lost
        return self.record_event(te_, xe, xn, b.name, message, lost)

    def record_event(self, t, x_before, x_after, name, message, lost):
        """Log an event at `t` and store the states before and after it; returns `x_after`."""
        _log.debug("event at t = %.9g s: %s: %s (lost %.6g J)", t, name, message, lost)
        self.records.append(EventRecord(t, name, message, lost, np.array(x_before)))
        if self.T[-1][-1] != t:
            self.T.append(np.array([t]))
            self.X.append(x_before[None, :])
        self.T.append(np.array([t]))
        self.X.append(x_after[None, :])
        return x_after


class _StepRecorder:
    """The steps of a segment, kept as the solver goes (`solve_segment`'s `on_step`, called at
    the end of every accepted step), so that they survive an exception raised inside the
    solver (a user law or element kernel failing, a singular implicit solve), which would
    otherwise lose the whole segment. Holds the last `KEEP` steps of one segment."""

    KEEP = 100_000

    def __init__(self):
        self.t, self.x = deque(maxlen=self.KEEP), deque(maxlen=self.KEEP)

    def __call__(self, t, x):
        self.t.append(float(t))
        self.x.append(np.array(x, dtype=float))
        return 1.0

    def keep(self, T, X, to_x=None):
        """Append the recorded steps after the last stored sample to the output lists (as
        states, through `to_x` when not None)."""
        last = _last_time(T)
        keep = [k for k, tk in enumerate(self.t) if tk > last]
        if keep:
            T.append(np.array([self.t[k] for k in keep]))
            X.append(np.array([self.x[k] if to_x is None else to_x(self.x[k]) for k in keep]))


class _Mapped:
    """A segment's interpolant in other coordinates, returning states (``to_x`` per column)."""

    def __init__(self, sol, to_x):
        self.sol, self.to_x = sol, to_x

    def __call__(self, t):
        y = self.sol(t)
        if y.ndim == 1:
            return self.to_x(y)
        return np.column_stack([self.to_x(c) for c in y.T])


def _last_time(T):
    for arr in reversed(T):
        if arr.size:
            return float(arr[-1])
    return float("nan")


def _check_initial_constraints(system, t0, x0, atol):
    res = system.constraint_residuals(t0, x0)
    tol = 100 * atol
    for path, c in res["c"].items():
        g = res["g"][path]
        worst_c = float(np.max(np.abs(c))) if c.size else 0.0
        worst_g = float(np.nanmax(np.abs(g))) if np.any(np.isfinite(g)) else 0.0
        if worst_c > tol or worst_g > tol:
            raise ParameterError(
                f"`x0` violates constraint {path!r}: gap {worst_g:.3g}, velocity residual {worst_c:.3g} "
                f"(tolerance {tol:.3g} = 100 atol). Start from a consistent state, or pass "
                "check_constraints=False to let the stabilization pull it back"
            )
    for j, c in res["cut_c"].items():
        w = float(np.max(np.abs(c)))
        if w > tol:
            cut = system.report.cuts[j]
            raise ParameterError(
                f"`x0` violates the constraint of the dependent storage {cut.node!r} by {w:.3g} (tolerance "
                f"{tol:.3g}): {cut.text}. Give it an initial state consistent with {cut.origin!r}"
            )


def _explain_failure(system, t, x, solver_message, method, names):
    """When (the time of the solver's last evaluation), where (the state entries changing
    fastest relative to their size there) and why (the solver's message), with a hint."""
    method = getattr(method, "__name__", method)
    where = ""
    if x is not None:
        try:
            xd = system.rhs(t, x)
        except Exception as exc:  # the state itself cannot be evaluated: say so, keep the solver's message
            reraise_interrupt(exc)
            return f"integration failed at t = {t:.9g} s (method {method}): {solver_message}."
        n = system.layout.n_physical  # the physics, not the ledger quadratures
        rate = np.abs(xd[:n]) / (np.abs(x[:n]) + 1e-12)
        worst = np.argsort(rate)[::-1][:3]
        where = "; fastest-changing state entries: " + ", ".join(
            f"{names[i]} (|dx/dt|/|x| = {rate[i]:.3g} 1/s)" for i in worst if i < len(names)
        )
    hint = ""
    if isinstance(method, str) and method in ("RK45", "RK23", "DOP853"):
        hint = " If the model is stiff (stiff contact), try method='Radau' or 'BDF'."
    return f"integration failed at t = {t:.9g} s (method {method}): {solver_message}{where}.{hint}"
