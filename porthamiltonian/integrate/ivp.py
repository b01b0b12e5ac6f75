"""`solve_segment`: scipy's `solve_ivp` loop with the event functions evaluated as one vector.

`scipy.integrate.solve_ivp` asks every event function separately at the end of every step.
A model with many element events (quadruped-trot: 16 contact events, each answered from the
compiled right-hand side's last evaluation) paid ~130 µs of Python per step for that (issue
34, "Speed"). Here the events' values at a step's end come from one call, `values(t, y)`
(`porthamiltonian.compile.system.PHSystem.event_values` behind `events.SegmentEvents`); the
root search (Brent's method on the solver's dense output, as solve_ivp's
``solve_event_equation``) runs only for the events whose sign changed, through their scalar
functions. The loop is solve_ivp's own, statement for statement (scipy 1.11-1.17), so a run
takes the same steps and finds the same event times as solve_ivp with the same event
functions (tests/integrate/test_ivp.py compares the two).

Decisions: only what `simulate` uses is kept: forward or backward time, `t_eval`,
`dense_output`, events whose ``terminal`` is a bool (fire once and stop) and a ``direction``;
no ``args``, ``vectorized`` nor integer ``terminal`` counts. A callback `on_step(t, y)` is
called at the end of every accepted step after the events' values (where `simulate` kept a
never-crossing event function to keep the steps of a segment that raises).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import OdeSolution
from scipy.integrate._ivp.ivp import METHODS as _SCIPY_METHODS
from scipy.optimize import OptimizeResult, brentq

from ..kernels._njit import njit

__all__ = ["solve_segment", "active_events"]

EPS = np.finfo(float).eps

#: solve_ivp's messages for its statuses
MESSAGES = {0: "The solver successfully reached the end of the integration interval.",
            1: "A termination event occurred."}


@njit
def active_events(g, g_new, direction):
    """Indices of the events whose value changed sign over a step in their direction (zero
    counts on both sides), as solve_ivp's ``find_active_events`` (compiled: the test runs at
    every step, and numpy's elementwise operations on a few values cost ~17 µs where this
    costs ~1).

    Parameters
    ----------
    g, g_new : ndarray, shape (n,)
        The events' values at the step's start and end.
    direction : ndarray, shape (n,)
        > 0: only rising crossings count; < 0: only falling ones; 0: both.

    Returns
    -------
    ndarray of int64
        Ascending indices.
    """
    out = np.empty(g.size, dtype=np.int64)
    n = 0
    for k in range(g.size):
        up = g[k] <= 0 and g_new[k] >= 0
        down = g[k] >= 0 and g_new[k] <= 0
        d = direction[k]
        if (up and d > 0) or (down and d < 0) or ((up or down) and d == 0):
            out[n] = k
            n += 1
    return out[:n]


def _roots(sol, events, active, terminal, t_old, t):
    """The crossing times of the `active` events in ``[t_old, t]`` (Brent's method on the dense
    output `sol`, tolerances 4 eps as solve_ivp), cut after the first terminal one in the
    direction of time. Returns ``(indices, roots, terminate)``."""
    roots = np.asarray([brentq(lambda tt, e=events[k]: e(tt, sol(tt)), t_old, t, xtol=4 * EPS, rtol=4 * EPS)
                        for k in active])
    if not np.any(terminal[active]):
        return active, roots, False
    order = np.argsort(roots) if t > t_old else np.argsort(-roots)
    active, roots = active[order], roots[order]
    first = np.nonzero(terminal[active])[0][0]
    return active[:first + 1], roots[:first + 1], True


def _zero_unset_differences(solver):
    """`solver` with the rows of a BDF solver's difference array that its constructor leaves
    unset (``D[2:]``, allocated with ``np.empty``; scipy 1.17-1.18) set to zero.

    The first step subtracts ``D[2]`` before writing it (``D[3] = d - D[2]``) and overwrites the
    result before it is read, so the numbers do not change; but a signalling NaN left there in
    the heap raises ``RuntimeWarning: invalid value encountered in subtract``, an error where
    warnings are errors, in runs that depend on the process's allocation history (the hash
    seed, earlier runs). Other solvers are returned as they are.
    """
    if isinstance(solver, _SCIPY_METHODS["BDF"]):
        solver.D[2:] = 0.0
    return solver


def solve_segment(fun, t_span, y0, *, method="RK45", t_eval=None, dense_output=False, events=(),
                  values=None, on_step=None, **options):
    """Integrate ``dy/dt = fun(t, y)`` over `t_span` as `scipy.integrate.solve_ivp`, the
    events' values at each step's end from one call.

    Parameters
    ----------
    fun : callable
        ``fun(t, y) -> ndarray, shape (n,)``.
    t_span : (float, float)
        Start and end time [s].
    y0 : ndarray, shape (n,)
        Initial state.
    method : str or OdeSolver subclass
        A solve_ivp method name or an `OdeSolver` subclass.
    t_eval : ndarray, optional
        Sorted output times within `t_span` (as solve_ivp; None: every step).
    dense_output : bool
        Build the run's interpolant (`sol`).
    events : sequence of callables
        Event functions ``g(t, y)`` with ``terminal`` (bool) and ``direction`` attributes; their
        scalar calls serve the root search, and the value at ``t_span[0]``.
    values : callable, optional
        ``values(t, y) -> ndarray, shape (len(events),)``: all the events' values at once,
        equal to calling each (the caller's contract); None: each event is called.
    on_step : callable, optional
        ``on_step(t, y)`` at the end of every accepted step.
    **options
        The solver's constructor options (``rtol``, ``atol``, ``max_step``, ``first_step``, ...).

    Returns
    -------
    OptimizeResult
        As solve_ivp's: ``t``, ``y``, ``sol``, ``t_events``, ``y_events``, ``nfev``, ``njev``,
        ``nlu``, ``status`` (0 reached the end, 1 a terminal event, -1 the solver failed),
        ``message``, ``success``.
    """
    t0, tf = map(float, t_span)
    solver_class = _SCIPY_METHODS.get(method, method) if isinstance(method, str) else method
    if t_eval is not None:
        t_eval = np.asarray(t_eval)
        if tf < t0:
            t_eval = t_eval[::-1]
        t_eval_i = 0 if tf > t0 else t_eval.shape[0]
    solver = _zero_unset_differences(solver_class(fun, t0, y0, tf, **options))
    ts, ys, ti = ([t0], [y0], None) if t_eval is None else ([], [], [t0] if dense_output else None)
    interpolants = []
    events = list(events)
    n_ev = len(events)
    direction = np.array([float(getattr(e, "direction", 0.0)) for e in events])
    terminal = np.array([bool(getattr(e, "terminal", False)) for e in events])
    evaluate = values if values is not None else (lambda t, y: np.array([e(t, y) for e in events], dtype=float))
    if n_ev:
        g = np.array([e(t0, y0) for e in events], dtype=float)
    t_events, y_events = [[] for _ in range(n_ev)], [[] for _ in range(n_ev)]
    status, message = None, None
    while status is None:
        message = solver.step()
        if solver.status == "finished":
            status = 0
        elif solver.status == "failed":
            status = -1
            break
        t_old, t, y = solver.t_old, solver.t, solver.y
        sol = None
        if dense_output:
            sol = solver.dense_output()
            interpolants.append(sol)
        if n_ev:
            g_new = np.asarray(evaluate(t, y), dtype=float)
        if on_step is not None:
            on_step(t, y)
        if n_ev:
            active = active_events(g, g_new, direction)
            if active.size:
                if sol is None:
                    sol = solver.dense_output()
                idx, roots, terminate = _roots(sol, events, active, terminal, t_old, t)
                for k, te in zip(idx, roots):
                    t_events[k].append(te)
                    y_events[k].append(sol(te))
                if terminate:
                    status = 1
                    t = roots[-1]
                    y = sol(t)
            g = g_new
        if t_eval is None:
            if not (len(ts) > 1 and ts[-1] == t and dense_output):
                ts.append(t)
                ys.append(y)
            elif interpolants:
                interpolants.pop()
        else:
            if solver.direction > 0:
                t_eval_i_new = np.searchsorted(t_eval, t, side="right")
                t_eval_step = t_eval[t_eval_i:t_eval_i_new]
            else:
                t_eval_i_new = np.searchsorted(t_eval, t, side="left")
                t_eval_step = t_eval[t_eval_i_new:t_eval_i][::-1]
            if t_eval_step.size > 0:
                if sol is None:
                    sol = solver.dense_output()
                ts.append(t_eval_step)
                ys.append(sol(t_eval_step))
                t_eval_i = t_eval_i_new
        if ti is not None:
            ti.append(t)
    message = MESSAGES.get(status, message)
    t_events = [np.asarray(te) for te in t_events]
    y_events = [np.asarray(ye) for ye in y_events]
    if t_eval is None:
        ts, ys = np.array(ts), np.vstack(ys).T
    elif ts:
        ts, ys = np.hstack(ts), np.hstack(ys)
    else:
        ts, ys = [], []
    out = None
    if dense_output:
        alt = {"alt_segment": True} if solver_class in (_SCIPY_METHODS["BDF"], _SCIPY_METHODS["LSODA"]) else {}
        out = OdeSolution(ts if t_eval is None else ti, interpolants, **alt)   # scipy < 1.12 has no alt_segment
    return OptimizeResult(t=ts, y=ys, sol=out, t_events=t_events, y_events=y_events, nfev=solver.nfev,
                          njev=solver.njev, nlu=solver.nlu, status=status, message=message, success=status >= 0)
