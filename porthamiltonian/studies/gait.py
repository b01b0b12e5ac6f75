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
as a crossing). The stride map's evaluations run one after another in this process;
`porthamiltonian.studies` will route them through the sweep layer's Dask cluster when it
exists (DESIGN.md, "Studies").
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from porthamiltonian.errors import IntegrationError, ParameterError
from porthamiltonian.integrate import simulate

__all__ = ["PoincareSection", "StrideMap", "FixedPoint", "StrideEnergy", "fixed_point", "stride_jacobian",
           "stride_energy"]


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


def stride_jacobian(stride_map, z, step=None):
    """dP/dz at z by central differences, shape (m, m).

    `step` [units of z] defaults to ``1e-5 max(1, |z_i|)`` per coordinate: the stride map is an
    integration at the solver's tolerance, so its noise divided by the step must stay below
    the accuracy wanted (rtol 1e-10 gives Jacobian entries to about 1e-5).
    """
    z = np.atleast_1d(np.asarray(z, dtype=float))
    h = 1e-5 * np.maximum(1.0, np.abs(z)) if step is None else np.broadcast_to(np.asarray(step, dtype=float), z.shape)
    cols = []
    for i in range(z.size):
        e = np.zeros_like(z)
        e[i] = h[i]
        cols.append((stride_map(z + e) - stride_map(z - e)) / (2.0 * h[i]))
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
    """

    z: np.ndarray
    residual: float
    period: float
    jacobian: np.ndarray
    multipliers: np.ndarray
    stable: bool


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
