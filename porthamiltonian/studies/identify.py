"""Identification: contact parameters fitted to a measured trajectory by least squares.

Each evaluation of the residual is a run (`records.prepare`, `records.integrate`) of the
model at the trial parameters, sampled at the measured times; `scipy.optimize.least_squares`
(trust-region reflective, bounded) fits from several starting points, one Dask task per start
through the sweep layer's executor (`cluster.run_all`), and the best fit is reported with
Jacobian-based standard errors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._interrupt import reraise_interrupt
from ..errors import ParameterError
from .cluster import WorkerLost, open_executor, run_all
from .records import RunSpec, _build, integrate, model_reference, prepare, resolve_parameters

__all__ = ["Measurement", "Identification", "identify"]


@dataclass(frozen=True)
class Measurement:
    """A measured observable: times t [s], shape (m,), increasing, from t > 0; values y,
    shape (m,), in the observable's unit."""

    t: np.ndarray
    y: np.ndarray

    def __post_init__(self):
        t, y = np.asarray(self.t, dtype=float), np.asarray(self.y, dtype=float)
        if t.ndim != 1 or t.shape != y.shape or t.size < 2:
            raise ParameterError(f"`data`: t and y must be 1-D of one length >= 2, got shapes {t.shape} and {y.shape}")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(y))):
            raise ParameterError("`data`: t and y must be finite")
        if t[0] < 0.0 or np.any(np.diff(t) <= 0.0):
            raise ParameterError("`data`: t must be increasing and >= 0 (the run starts at t = 0)")
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "y", y)


@dataclass(frozen=True)
class Identification:
    """The result of `identify`.

    Attributes
    ----------
    parameters : tuple of str
        The fitted parameters, in order.
    estimates, standard_errors : dict
        name -> value (in the parameter's unit).
    covariance : ndarray, shape (n, n)
        ``s^2 (J^T J)^-1`` at the estimate, ``s^2 = |r|^2 / (m - n)``.
    residuals : ndarray, shape (m,)
        Model minus data at the estimate.
    cost : float
        ``|r|^2 / 2`` at the estimate.
    starts : list of dict
        Per start: ``x0``, ``x``, ``cost``, ``nfev``, ``status``, ``message`` (or ``error``).

    ``print(fit)`` shows a summary (parameters with standard errors, cost, residual norm,
    number of points and starts), not the arrays.
    """

    parameters: tuple
    estimates: dict
    standard_errors: dict
    covariance: np.ndarray
    residuals: np.ndarray
    cost: float
    starts: list

    def __repr__(self):
        """A summary, not the arrays: each parameter with its standard error, the cost, the
        residual's norm and RMS, the number of points and of starts (``fit.residuals`` and
        ``fit.covariance`` hold the arrays)."""
        m = int(np.size(self.residuals))
        norm = float(np.linalg.norm(self.residuals))
        failed = sum("error" in s for s in self.starts)
        width = max(len(n) for n in self.parameters)
        lines = [f"Identification of {', '.join(self.parameters)} from {m} points "
                 f"({len(self.starts)} starts, {failed} failed)"]
        for n in self.parameters:
            v, se = self.estimates[n], self.standard_errors[n]
            rel = f" ({abs(se / v):.2%})" if v != 0 else ""
            lines.append(f"  {n:<{width}} = {v:.6g} +/- {se:.2g}{rel}")
        lines.append(f"  cost |r|^2/2 = {self.cost:.6g}, |r| = {norm:.6g}, rms r = {norm / np.sqrt(max(m, 1)):.6g}")
        return "\n".join(lines)

    __str__ = __repr__


def _residual_function(spec_of, observable, data):
    def residual(theta):
        prepared = prepare(spec_of(theta))
        traj, _ = integrate(prepared, t_eval=data.t)
        if traj.status < 0:
            raise RuntimeError(f"run at {dict(zip(spec_of.names, theta))} failed: {traj.message}")
        rows = np.searchsorted(traj.t, data.t)   # events add samples; the measured times are among them
        if not np.array_equal(traj.t[rows], data.t):
            raise RuntimeError("the trajectory is not sampled at the measured times")
        f = prepared.model.observables[observable]
        return np.array([f(prepared.system, traj.t[i], traj.x[i]) for i in rows]) - data.y

    return residual


class _SpecOf:
    """theta -> RunSpec (picklable, so a start runs on any worker)."""

    def __init__(self, model, names, fixed, t_end, solver):
        self.model, self.names, self.fixed, self.t_end, self.solver = model, names, fixed, t_end, solver

    def __call__(self, theta):
        params = {**self.fixed, **{n: float(v) for n, v in zip(self.names, theta)}}
        return RunSpec(self.model, params, self.t_end, self.solver, samples=0)


def _fit(task):
    """One start of the fit (runs on a worker)."""
    from scipy.optimize import least_squares

    spec_of, observable, data, x0, lower, upper, diff_step = task
    try:
        fit = least_squares(_residual_function(spec_of, observable, data), x0, bounds=(lower, upper),
                            method="trf", x_scale="jac", jac="2-point", diff_step=diff_step)
    except Exception as exc:  # a start that fails is reported, the others go on (not Ctrl-C's)
        reraise_interrupt(exc)
        return {"x0": list(x0), "error": f"{type(exc).__name__}: {exc}"}
    return {"x0": list(x0), "x": fit.x, "cost": float(fit.cost), "jac": fit.jac, "fun": fit.fun, "nfev": fit.nfev,
            "status": fit.status, "message": fit.message}


def _starts(lower, upper, starts, seed):
    """`starts` points in the box: log-uniform along a positive axis spanning a decade or more,
    uniform otherwise; seeded."""
    rng = np.random.default_rng(seed)
    u = rng.random((starts, len(lower)))
    log = (lower > 0) & (upper >= 10 * lower)
    x = lower + u * (upper - lower)
    x[:, log] = np.exp(np.log(lower[log]) + u[:, log] * np.log(upper[log] / lower[log]))
    return x


def identify(model, data, parameters, bounds, *, observable, fixed=None, solver=None, starts=4, seed=0,
             diff_step=1e-5, workers=None, scheduler=None, connect_timeout=5.0, progress=True):
    """Fit parameters of a model to a measured observable by nonlinear least squares.

    Parameters
    ----------
    model : str or callable
        As in `sweep`.
    data : Measurement or (t, y)
        The measured observable: times [s] (the run is sampled at exactly these) and values.
    parameters : sequence of str
        The parameters to fit (e.g. ``["stiffness", "restitution"]``).
    bounds : dict
        name -> (lower, upper) for every fitted parameter; the starts are drawn in this box
        (log-uniformly along an axis spanning a decade or more).
    observable : str
        The model's observable compared with ``data.y`` (e.g. ``"height"``).
    fixed : dict, optional
        Values of other parameters (the contact kind, the initial height...).
    solver : dict, optional
        Solver overrides (`records.RunSpec.solver`); tolerances well below the data's noise.
    starts : int
        Number of starting points (multi-start), each one task on the cluster.
    seed : int
        Seed of the starting points.
    diff_step : float
        Relative step of the finite-difference Jacobian: large enough that the solver's error
        (rtol) does not dominate the difference quotient, small enough for its truncation error.
    workers, scheduler, connect_timeout, progress
        As in `sweep` (``workers=0``: the starts run here).

    Returns
    -------
    Identification
        The best start's estimates and their standard errors.

    Raises
    ------
    ParameterError
        Bad data, a parameter or observable unknown to the model, missing or empty bounds
        (all checked before any run), no start converging.

    Notes
    -----
    With residuals r(theta) = y_model(t_i; theta) - y_i of m samples and n parameters, the
    covariance is ``s^2 (J^T J)^-1`` with ``s^2 = 2 cost / (m - n)`` and J the Jacobian at the
    solution (Gauss-Newton approximation, independent noise of equal variance assumed); the
    standard errors are the square roots of its diagonal.

    Examples
    --------
    >>> fit = identify("ball-drop", (t, height), ["stiffness", "restitution"],
    ...                {"stiffness": (3e3, 3e4), "restitution": (0.4, 0.95)}, observable="height")  # doctest: +SKIP
    >>> fit.estimates["restitution"], fit.standard_errors["restitution"]                         # doctest: +SKIP
    """
    name = model_reference(model)
    data = data if isinstance(data, Measurement) else Measurement(*data)
    names = tuple(parameters)
    if not names:
        raise ParameterError("`parameters` must name at least one parameter to fit")
    missing = [n for n in names if n not in (bounds or {})]
    if missing:
        raise ParameterError(f"`bounds` must give (lower, upper) for every fitted parameter; missing {missing}")
    try:
        lower = np.array([float(bounds[n][0]) for n in names])
        upper = np.array([float(bounds[n][1]) for n in names])
    except (TypeError, ValueError, IndexError):
        raise ParameterError(f"`bounds` must map each fitted parameter to two numbers (lower, upper), got "
                             f"{bounds!r}") from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)) and np.all(lower < upper)):
        raise ParameterError(f"`bounds` must be finite with lower < upper, got {dict((n, bounds[n]) for n in names)}")
    if isinstance(starts, bool) or not isinstance(starts, int) or starts < 1:
        raise ParameterError(f"`starts` must be an integer >= 1, got {starts!r}")
    fixed = resolve_parameters(name, {**(fixed or {}), **{n: float(lower[k]) for k, n in enumerate(names)}})
    spec_of = _SpecOf(name, names, fixed, float(data.t[-1]), dict(solver or {}))
    known = _build(spec_of(lower)).observables
    if observable not in known:
        raise ParameterError(f"`observable` {observable!r} is not one of the model's: {', '.join(known)}")
    tasks = [(spec_of, observable, data, x0, lower, upper, diff_step) for x0 in _starts(lower, upper, starts, seed)]
    results = [None] * len(tasks)
    with open_executor(workers, scheduler, connect_timeout) as client:
        for k, result in run_all(client, _fit, tasks, progress=progress, description=f"identify {name}"):
            results[k] = {"x0": list(tasks[k][3]), "error": str(result)} if isinstance(result, WorkerLost) else result
    good = [r for r in results if "error" not in r]
    if not good:
        raise ParameterError("no start of the fit converged: " + "; ".join(r["error"] for r in results))
    best = min(good, key=lambda r: r["cost"])
    m, n = best["fun"].size, len(names)
    cov = 2.0 * best["cost"] / max(m - n, 1) * np.linalg.inv(best["jac"].T @ best["jac"])
    starts_out = [{k: v for k, v in r.items() if k not in ("jac", "fun")} for r in results]
    return Identification(names, dict(zip(names, map(float, best["x"]))),
                          dict(zip(names, map(float, np.sqrt(np.diag(cov))))), cov, best["fun"], best["cost"],
                          starts_out)
