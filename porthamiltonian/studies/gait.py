"""Gait analysis: Poincaré sections, the stride map, its fixed point and Floquet multipliers,
and the energy of every stride.

A gait is periodic motion broken by events (heel strikes). A `PoincareSection` names the
events that end a stride: an element event by name pattern (``"foot*/constraint.impact"``,
the state taken just after the event's jump), or a user event function ``g(t, x)`` (the
state where g crosses zero). The **stride map** P takes section coordinates z (a few
numbers chosen by the user: `project` maps a state on the section to z, `lift` builds the
state on the section from z) to their values at the next crossing::

    z_{k+1} = P(z_k) = project(x(t_{k+1})),  x(t_k) = lift(z_k)

A periodic gait is a fixed point z* = P(z*) (`fixed_point`: scipy root finding on
P(z) - z); its stability is given by the Floquet multipliers, the eigenvalues of the stride
map's Jacobian dP/dz at z*, by central finite differences (`stride_jacobian`): the gait
is stable when all have modulus < 1.

`stride_energy` splits a trajectory's energy ledger (`PowerBudget`) at the section
crossings: for each stride, every element's change of stored energy (gravity's is the
work the slope supplies), energy supplied, dissipated (soil plasticity, friction, dampers)
and lost at events (impacts), and the stride's ledger residual.

Each stride runs `simulate` over at most `horizon` seconds from the lifted state; the
first crossing after the start ends it (a state that starts on the section does not count
as a crossing).

A gait driven by a periodic reference of period T (``quadruped-trot``'s PD references) has a
time-periodic right-hand side: its stride map is the **time-T map** (`PeriodMap`), the state
at t0 + T from the state at t0, x(t0) = lift(z). Its fixed point is found by `newton_fixed_point`:
Newton on F(z) = P(z) - z,

    z <- z + (I - dP/dz)^-1 (P(z) - z)

with dP/dz by finite differences (`stride_jacobian`: 2m strides for m section coordinates,
central, or m + 1 forward), each Jacobian's strides independent of each other: with a Dask
client (`studies.cluster.open_executor`) they run as one task each, else one after another
here. The Floquet multipliers are the eigenvalues of the central-difference Jacobian at the
fixed point; a perturbation of the orbit along the dominant multiplier's eigenvector decays
(or grows) by |lambda_max| per period, which a direct simulation checks.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from porthamiltonian.errors import IntegrationError, ParameterError
from porthamiltonian.integrate import simulate

__all__ = ["PoincareSection", "StrideMap", "PeriodMap", "FixedPoint", "StrideEnergy", "fixed_point",
           "newton_fixed_point", "stride_jacobian", "stride_energy"]


class PoincareSection:
    """The events that end a stride (module docstring).

    Parameters
    ----------
    event : str or callable
        A pattern (`fnmatch`, e.g. ``"foot*/constraint.impact"``) over the names of element
        events, or a user event function ``g(t, x)`` (given to `simulate` as a non-terminal
        event; a ``direction`` attribute selects the crossing direction as in solve_ivp).

    Raises
    ------
    ParameterError
        Neither a non-empty string nor a callable.
    """

    def __init__(self, event):
        if isinstance(event, str):
            if not event:
                raise ParameterError("`event` must be a non-empty name pattern or a function g(t, x), got ''")
            self.pattern, self.function = event, None
        elif callable(event):
            self.pattern, self.function = getattr(event, "__name__", "section"), event
        else:
            raise ParameterError(f"`event` must be an event name pattern (str) or a function g(t, x), got {event!r}")

    def __repr__(self):
        return f"PoincareSection({self.pattern!r})"

    @property
    def events(self):
        """The user events `simulate` must watch: the section's function, if any."""
        return () if self.function is None else (self.function,)

    @property
    def terminal(self):
        """`simulate` keywords that end the run at the section's first crossing: ``stop_after``
        the pattern, or the section's function as a terminal event (same name and direction)."""
        if self.function is None:
            return {"stop_after": self.pattern}
        f = self.function

        def section(t, x):
            return f(t, x)

        section.__name__, section.terminal = self.pattern, True
        section.direction = getattr(f, "direction", 0.0)
        return {"events": (section,)}

    def crossings(self, traj, after=None):
        """The section's crossings in `traj` (strictly after time `after`, if given), as a list
        of (t, state) with the state just after an element event's jump."""
        out = []
        for rec in traj.events:
            if after is not None and rec.t <= after:
                continue
            if self.function is not None:
                if rec.name == self.pattern and rec.message in ("crossing", "terminal user event"):
                    out.append((rec.t, np.array(rec.x)))
            elif fnmatch.fnmatchcase(rec.name, self.pattern):
                last = np.flatnonzero(traj.t == rec.t)[-1]   # the sample after the jump
                out.append((rec.t, np.array(traj.x[last])))
        return out


class StrideMap:
    """z -> z at the next section crossing (module docstring).

    Parameters
    ----------
    system : PHSystem
    section : PoincareSection or str or callable
        Where a stride ends (a string or function is wrapped in a `PoincareSection`).
    lift : callable
        ``lift(z) -> x``: the full state on the section with coordinates z.
    project : callable
        ``project(x) -> z`` (array_like of the same size as z).
    horizon : float
        Longest stride [s]: a stride that has not crossed the section by then fails with an
        `IntegrationError` (the walker fell, stopped or turned back).
    **solver
        Keyword arguments of `simulate` (method, rtol, atol, max_step, ...).
    """

    def __init__(self, system, section, lift, project, *, horizon, **solver):
        self.system = system
        self.section = section if isinstance(section, PoincareSection) else PoincareSection(section)
        self.lift, self.project = lift, project
        if not np.isfinite(horizon) or horizon <= 0:
            raise ParameterError(f"`horizon` must be a positive number of seconds, got {horizon!r}")
        self.horizon = float(horizon)
        self.solver = solver
        self.evaluations = 0

    def stride(self, z):
        """``(z_next, duration, trajectory)`` of one stride from the section point z.

        The integration stops at the section's first crossing (an element event pattern is
        `simulate`'s ``stop_after``; a section function runs as a terminal event), so a stride
        costs the time to that crossing, not the horizon's, and whatever would happen after
        it (a fall, a failure) cannot fail the stride.
        """
        x0 = self.lift(np.asarray(z, dtype=float))
        traj = simulate(self.system, (0.0, self.horizon), x0, **self.section.terminal, **self.solver)
        self.evaluations += 1
        hits = self.section.crossings(traj, after=0.0)
        if not hits:
            raise IntegrationError(
                f"stride map at z = {np.asarray(z).tolist()}: no crossing of {self.section} within the horizon "
                f"{self.horizon:g} s (the gait fell, stopped or turned back; or raise `horizon`)")
        t1, x1 = hits[0]
        return np.atleast_1d(np.asarray(self.project(x1), dtype=float)), t1, traj

    def __call__(self, z):
        return self.stride(z)[0]


class PeriodMap:
    """The time-T map of a periodic driven system: z -> project(x(t0 + T)), x(t0) = lift(z)
    (module docstring).

    Parameters
    ----------
    system : PHSystem
        Its right-hand side (and inputs) T-periodic in time.
    period : float [s]
        T > 0.
    lift : callable
        ``lift(z) -> x``: the full state at t0 with section coordinates z.
    project : callable
        ``project(x) -> z``.
    t0 : float [s]
        The section's phase.
    inputs : optional
        The external inputs, as for `simulate` (a feedback law ``u(t, x)``: `MotorPD`).
    **solver
        Keyword arguments of `simulate` (method, rtol, atol, max_step, ...).

    Raises
    ------
    ParameterError
        A period that is not a positive finite number, a non-finite t0.

    Notes
    -----
    Usable wherever a `StrideMap` is (`fixed_point`, `stride_jacobian`,
    `newton_fixed_point`): ``stride(z)`` returns ``(z_next, T, trajectory)``. It pickles if
    its system, lift, project and inputs do (a Dask client then runs its strides).
    """

    def __init__(self, system, period, lift, project, *, t0=0.0, inputs=None, **solver):
        if not (isinstance(period, (int, float, np.integer, np.floating)) and np.isfinite(period) and period > 0):
            raise ParameterError(f"`period` must be a positive finite number of seconds, got {period!r}")
        if not np.isfinite(t0):
            raise ParameterError(f"`t0` must be finite, got {t0!r}")
        self.system, self.period, self.t0 = system, float(period), float(t0)
        self.lift, self.project, self.inputs = lift, project, inputs
        self.solver = solver
        self.evaluations = 0

    def stride(self, z):
        """``(z_next, period, trajectory)`` of one period from the section point z.

        Raises
        ------
        IntegrationError
            The integration failed (its message, and z).
        """
        x0 = self.lift(np.asarray(z, dtype=float))
        traj = simulate(self.system, (self.t0, self.t0 + self.period), x0, inputs=self.inputs, throw=False,
                        **self.solver)
        self.evaluations += 1
        if traj.status != 0:
            raise IntegrationError(f"period map at z = {np.asarray(z).tolist()}: {traj.message}")
        return np.atleast_1d(np.asarray(self.project(traj.x[-1]), dtype=float)), self.period, traj

    def __call__(self, z):
        return self.stride(z)[0]


def _evaluate(stride_map, points, client):
    """``[stride_map(z) for z in points]``, as Dask tasks with a client (`cluster.run_all`)."""
    from .cluster import WorkerLost, run_all

    out = [None] * len(points)
    for i, value in run_all(client, stride_map, points, progress=False, description="strides"):
        if isinstance(value, (WorkerLost, Exception)):
            raise IntegrationError(f"stride {i} of a Jacobian failed: {value}")
        out[i] = np.asarray(value, dtype=float)
    return out


def stride_jacobian(stride_map, z, step=None, *, central=True, client=None, value=None):
    """dP/dz at z by finite differences, shape (m, m).

    Parameters
    ----------
    stride_map : StrideMap or PeriodMap
    z : array_like, shape (m,)
    step : float or array_like, optional
        [units of z], default ``1e-5 max(1, |z_i|)`` per coordinate: the stride map is an
        integration at the solver's tolerance, so its noise divided by the step must stay
        below the accuracy wanted (rtol 1e-10 gives Jacobian entries to about 1e-5).
    central : bool
        Central differences (2m strides, error O(h^2)) or forward ones (m strides plus P(z),
        error O(h): enough for Newton's steps, not for the multipliers).
    client : distributed.Client, optional
        Run the strides as Dask tasks (`studies.cluster.open_executor`; the map must pickle).
    value : array_like, optional
        P(z), if known (forward differences reuse it).
    """
    z = np.atleast_1d(np.asarray(z, dtype=float))
    h = 1e-5 * np.maximum(1.0, np.abs(z)) if step is None else np.broadcast_to(np.asarray(step, dtype=float), z.shape)
    E = np.diag(h)
    if central:
        points = [z + E[i] for i in range(z.size)] + [z - E[i] for i in range(z.size)]
    else:
        points = [z + E[i] for i in range(z.size)] + ([z] if value is None else [])
    P = _evaluate(stride_map, points, client)
    m = z.size
    if central:
        cols = [(P[i] - P[m + i]) / (2.0 * h[i]) for i in range(m)]
    else:
        P0 = P[m] if value is None else np.asarray(value, dtype=float)
        cols = [(P[i] - P0) / h[i] for i in range(m)]
    return np.column_stack(cols)


@dataclass(frozen=True)
class FixedPoint:
    """A periodic gait: the stride map's fixed point and its stability.

    Attributes
    ----------
    z : ndarray
        Section coordinates of the fixed point.
    residual : float
        ``max |P(z) - z|``.
    period : float
        Duration of the stride [s].
    jacobian : ndarray, shape (m, m)
        dP/dz at z (central differences).
    multipliers : ndarray
        Floquet multipliers (eigenvalues of `jacobian`), largest modulus first.
    stable : bool
        All multipliers inside the unit circle.
    iterations : int
        Newton iterations (`newton_fixed_point`; 0 for `fixed_point`'s root finder).
    evaluations : int
        Strides integrated to find the point and its Jacobian.
    history : tuple of float
        ``max |P(z) - z|`` at each Newton iterate (`newton_fixed_point`).
    """

    z: np.ndarray
    residual: float
    period: float
    jacobian: np.ndarray
    multipliers: np.ndarray
    stable: bool
    iterations: int = 0
    evaluations: int = 0
    history: tuple = ()

    def dominant_mode(self):
        """(lambda_max, its unit eigenvector (real part, normalized), shape (m,))."""
        mu, V = np.linalg.eig(self.jacobian)
        k = int(np.argmax(np.abs(mu)))
        v = np.real(V[:, k])
        return mu[k], v / np.linalg.norm(v)


def fixed_point(stride_map, z0, *, tol=1e-10, method="hybr", step=None):
    """The stride map's fixed point near z0 (module docstring).

    `scipy.optimize.root` (``method``, ``tol``) on P(z) - z, then the Jacobian and the
    Floquet multipliers at the root (`stride_jacobian` with `step`).

    Raises
    ------
    IntegrationError
        The root finder did not converge (its message, and the best z it reached).
    """
    z0 = np.atleast_1d(np.asarray(z0, dtype=float))
    sol = optimize.root(lambda z: stride_map(z) - z, z0, method=method, tol=tol)
    z_next, period, _ = stride_map.stride(sol.x)
    residual = float(np.max(np.abs(z_next - sol.x)))
    if not sol.success:
        raise IntegrationError(f"no fixed point of the stride map found from z0 = {z0.tolist()}: {sol.message} "
                               f"(best z = {sol.x.tolist()}, |P(z) - z| = {residual:.3g})")
    J = stride_jacobian(stride_map, sol.x, step)
    mu = np.linalg.eigvals(J)
    mu = mu[np.argsort(-np.abs(mu))]
    return FixedPoint(sol.x, residual, float(period), J, mu, bool(np.all(np.abs(mu) < 1.0)))


def newton_fixed_point(stride_map, z0, *, tol=1e-9, max_iter=12, step=None, client=None, forward=True):
    """The fixed point of a stride or period map by Newton's method on P(z) - z (module docstring).

    Parameters
    ----------
    stride_map : StrideMap or PeriodMap
    z0 : array_like, shape (m,)
        The first guess (e.g. the state after a few periods of a transient run).
    tol : float
        Stop when ``max |P(z) - z| <= tol`` [units of z].
    max_iter : int
        Newton iterations at most.
    step : float or array_like, optional
        The finite-difference step (`stride_jacobian`).
    client : distributed.Client, optional
        Run each Jacobian's strides as Dask tasks.
    forward : bool
        Forward differences for the Newton Jacobians (m + 1 strides; the P(z) of the iterate
        reused), central ones for the multipliers at the end in any case (2m strides).

    Returns
    -------
    FixedPoint
        With the central-difference Jacobian at the fixed point, its multipliers, the Newton
        iterations, the strides integrated and the residual history.

    Raises
    ------
    IntegrationError
        No convergence within `max_iter` (the residual history and the best z), or a stride
        that failed.

    Notes
    -----
    Each iteration costs m + 1 strides (forward) or 2m + 1 (central); convergence is
    quadratic once the iterate is close, so from the end of a settled transient 2-4
    iterations reach the integration noise. Decision: the step is the plain Newton step (no
    line search): the stride map is smooth near a stable gait; a step that makes the
    residual grow is reported by the history.
    """
    z = np.atleast_1d(np.asarray(z0, dtype=float)).copy()
    history = []
    best = (np.inf, z.copy())
    for it in range(max_iter + 1):
        Pz, period, _ = stride_map.stride(z)
        F = Pz - z
        r = float(np.max(np.abs(F)))
        history.append(r)
        if r < best[0]:
            best = (r, z.copy())
        if r <= tol:
            break
        if it == max_iter:
            raise IntegrationError(f"Newton on the stride map did not reach |P(z) - z| <= {tol:g} in {max_iter} "
                                   f"iterations: residuals {[float(f'{h:.3g}') for h in history]} (best z = "
                                   f"{best[1].tolist()})")
        J = stride_jacobian(stride_map, z, step, central=not forward, client=client, value=Pz)
        z = z + np.linalg.solve(np.eye(z.size) - J, F)
    J = stride_jacobian(stride_map, z, step, client=client)
    mu = np.linalg.eigvals(J)
    mu = mu[np.argsort(-np.abs(mu))]
    # strides: P at each iterate, m (forward, P reused) or 2m per Newton Jacobian, 2m at the end
    its = len(history) - 1
    used = len(history) + its * (z.size if forward else 2 * z.size) + 2 * z.size
    return FixedPoint(z, history[-1], float(period), J, mu, bool(np.all(np.abs(mu) < 1.0)), its, used,
                      tuple(history))


@dataclass(frozen=True)
class StrideEnergy:
    """The energy ledger of every stride (`stride_energy`) [J].

    Attributes
    ----------
    t : ndarray, shape (k + 1,)
        Section times: stride i runs from t[i] to t[i + 1].
    H : ndarray, shape (k + 1,)
        Total stored energy at the section times.
    elements : list of str
        Element paths (the ledger's).
    labels : dict
        Element path -> label ("RigidBody:hub").
    stored, supplied, dissipated, lost, stabilization : ndarray, shape (k, n_elements)
        Per stride and element: change of stored energy, energy supplied, dissipated, lost
        at events (the event ending the stride included), absorbed by constraint
        stabilization.
    residual : ndarray, shape (k,)
        Per stride: dH - supplied + dissipated + lost + stabilization.
    """

    t: np.ndarray
    H: np.ndarray
    elements: list
    labels: dict
    stored: np.ndarray
    supplied: np.ndarray
    dissipated: np.ndarray
    lost: np.ndarray
    stabilization: np.ndarray
    residual: np.ndarray

    def by_category(self):
        """Per-stride totals by category (`studies.transport.categorize`: electrical input,
        Joule heat, gearbox and friction losses, contact, soil, impacts, ...).

        Returns
        -------
        dict
            Category -> ndarray, shape (k,) [J].
        """
        from .transport import categorize

        def cols(a):
            return {p: a[:, j] for j, p in enumerate(self.elements)}

        return categorize(self.labels, cols(self.supplied), cols(self.dissipated), cols(self.lost),
                          cols(self.stabilization))

    def cost_of_transport(self, mass, distances, g=9.81):
        """Per-stride cost of transport E / (m g d), E the stride's electrical energy where the
        model has voltage sources, else everything supplied (joint torques, references).

        Parameters
        ----------
        mass : float [kg]
        distances : array_like, shape (k,) [m]
            Distance travelled in each stride (> 0).
        g : float [m/s^2]

        Returns
        -------
        ndarray, shape (k,)
        """
        d = np.asarray(distances, dtype=float)
        if d.shape != (self.t.size - 1,) or not np.all(d > 0):
            raise ParameterError(f"`distances` must be {self.t.size - 1} positive numbers (one per stride), got {d.tolist()}")
        cats = self.by_category()
        E = cats["electrical"]
        if not np.any(E):
            E = cats["joint_input"] + cats["reference"] + cats["other_supplied"]
        return E / (float(mass) * float(g) * d)

    def table(self):
        """A text table: one block per stride, one row per element with a non-zero entry."""
        lines = []
        for i in range(self.t.size - 1):
            lines.append(f"stride {i + 1}: t = {self.t[i]:.6g} .. {self.t[i + 1]:.6g} s, H at section "
                         f"{self.H[i]:.9g} J, residual {self.residual[i]:.3g} J")
            lines.append(f"  {'element':40s} {'stored dH':>12s} {'supplied':>12s} {'dissipated':>12s} {'lost':>12s}")
            for j, path in enumerate(self.elements):
                row = (self.stored[i, j], self.supplied[i, j], self.dissipated[i, j], self.lost[i, j])
                if any(row):
                    lines.append(f"  {self.labels[path]:40s} " + " ".join(f"{v:12.6g}" for v in row))
        return "\n".join(lines)

    def __str__(self):
        return self.table()


def stride_energy(traj, section):
    """Split the trajectory's energy ledger at the section's crossings (module docstring).

    Raises
    ------
    ParameterError
        Fewer than two crossings (no whole stride in the trajectory).
    """
    section = section if isinstance(section, PoincareSection) else PoincareSection(section)
    hits = section.crossings(traj)
    if len(hits) < 2:
        raise ParameterError(f"stride_energy needs at least two crossings of {section}; the trajectory has {len(hits)}")
    budget = traj.power_budget()
    idx = []
    for t_hit, _ in hits:
        at = np.flatnonzero(budget.t == t_hit)
        idx.append(at[-1] if at.size else int(np.argmin(np.abs(budget.t - t_hit))))
    idx = np.asarray(idx)
    elements = list(dict.fromkeys(list(budget.stored) + [p for kind in budget.entries.values() for p in kind]))

    def per_stride(series):
        out = np.zeros((idx.size - 1, len(elements)))
        for j, path in enumerate(elements):
            if path in series:
                out[:, j] = np.diff(np.asarray(series[path])[idx])
        return out

    stored = per_stride(budget.stored)
    kinds = {kind: per_stride(budget.entries[kind]) for kind in budget.entries}
    residual = np.diff(np.asarray(budget.residual)[idx])
    labels = {p: budget.labels.get(p, p) for p in elements}
    return StrideEnergy(np.asarray(budget.t[idx]), np.asarray(budget.H[idx]), elements, labels, stored,
                        kinds["supplied"], kinds["dissipated"], kinds["lost"], kinds["stabilization"], residual)
