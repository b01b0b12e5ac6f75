"""Linearization of a compiled system at a state: port-Hamiltonian and state-space matrices.

Coordinates. The state is expanded in the local coordinates of `TangentChart`,
x = x0 (+) delta (body-frame exponential coordinates on poses, differences on vector blocks;
contact parameters, flags and ledger quadratures held). With constraints (joints, the
sliding-plane contact, dependent storages) the state moves on the constraint manifold

    g(x) = 0 (position gaps, where an element defines them),   c(x) = 0 (velocity residuals)

whose tangent space at x0 is the null space of d(g, c)/d(delta). `Linearization.basis` is an
orthonormal basis V of it (from the SVD of the row-normalized constraint Jacobian, rank
threshold `RANK_TOL` times its largest singular value); the state-space model is written in
the coordinates eta of delta = V eta, eta = V^T delta. Without constraints V = I and eta = delta
(the state-space states keep the tangent names).

Matrices.
* State space: with f(delta, u) = d(delta)/dt (the compiled right-hand side, multipliers
  solved, mapped to the chart) and the collocated outputs y(delta, u) (below),
  A = V^T df/d(delta) V, B = V^T df/du, C = dy/d(delta) V, D = dy/du.
  At an equilibrium on the manifold (f = 0) the manifold is invariant, df/d(delta) V lies in
  span V and A is exactly the linearized flow on it; `leakage` measures
  |(I - V V^T) df/d(delta) V| (round-off at an equilibrium; at another state the basis turns
  along the trajectory and A is only the projected Jacobian).
* Port-Hamiltonian, on the full tangent space (not reduced): Q the Hessian of H(x0 (+) delta),
  grad_H its gradient, and J, R, B, G of `PHSystem.analysis` mapped to the chart:
  with T the map from state rates to tangent rates (`TangentChart.rate_matrix`) and E the
  extended-state copy that owns each block, J_t = T E J E^T T^T (and so R, B = T E B_u,
  G = T E G). A block read by another element (a body's pose by its gravity) enters through
  its owner's columns, as the junction structure makes it do. Then
  d(delta)/dt = (J_t - R_t) grad_H + B u + B_c s_c + G lambda at x0
  (`structure_rates`; s_c the constant and timed sources, e.g. a weight),
  and, at an unconstrained equilibrium with constant structure, A = (J_t - R_t) Q.
  In general A also holds the derivatives of J, R, B and of the multipliers.

Outputs: the conjugate (collocated) output of every external input, y_k with u . y the power
the inputs supply [W] (the effort source's flow, the flow source's effort, signed as the
ledger's "supplied" line), named like the input (`input_names`).

Derivatives. Analytic, from what the compiled system provides: grad_H (the elements'
`gradient`, mapped by the chart) and J, R, B, G (`analysis`, seeds propagated through the
evaluation plan). Finite differences, since the compiled system has no derivatives of its
right-hand side or Hessians: df/d(delta), df/du, dy/d(delta), dy/du, d(g, c)/d(delta), and
Q = d(grad_H)/d(delta) (differences of the analytic gradient). They are central differences
with one Richardson extrapolation, D = (4 D(h/2) - D(h)) / 3 with D(h) = (F(+h) - F(-h)) / (2 h):
truncation error O(h^4), round-off O(eps / h). The step is h = `step` (default 1e-4) in
radians and metres on poses and h = step * max(1, |x0_i|) on vector entries and inputs;
for a linear system the differences are exact to round-off.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import as_finite_float
from ..errors import ModelError, ParameterError
from .tangent import TangentChart

__all__ = ["Linearization", "PortHamiltonianMatrices", "linearize", "DEFAULT_STEP", "RANK_TOL"]

#: default finite-difference step (module docstring)
DEFAULT_STEP = 1e-4
#: singular values of the row-normalized constraint Jacobian below RANK_TOL times the largest
#: count as zero (redundant constraints)
RANK_TOL = 1e-8


@dataclass(frozen=True)
class PortHamiltonianMatrices:
    """J, R, Q, B, G of a system at a state, on the tangent space of its state (module docstring).

    Attributes
    ----------
    names : tuple of str
        Tangent coordinates (rows and columns of J, R, Q; rows of B, G), `TangentChart`.
    input_names : tuple of str
        Columns of B: the entries of the input vector u.
    J, R : ndarray, shape (n, n)
        Skew-symmetric structure and symmetric positive semidefinite dissipation.
    Q : ndarray, shape (n, n)
        Hessian of H(x0 (+) delta) at delta = 0 [J per unit^2], symmetrized.
    grad_H : ndarray, shape (n,)
        Gradient of H in the chart, from the elements' analytic gradients.
    B : ndarray, shape (n, m)
        Input matrix of the external inputs u (the columns of `B_sources` of the inputs).
    G : ndarray, shape (n, n_lambda)
        Constraint input matrix of the multipliers `lam`.
    lam : ndarray, shape (n_lambda,)
        Multipliers (and loop tears' unknowns) at the state.
    source_names : tuple of str
        Every source, constant and timed ones (e.g. a weight) as well as the inputs.
    B_sources : ndarray, shape (n, n_s)
        Input matrix of all the sources.
    s : ndarray, shape (n_s,)
        The source values at the point (the inputs' are u).
    """

    names: tuple
    input_names: tuple
    J: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    grad_H: np.ndarray
    B: np.ndarray
    G: np.ndarray
    lam: np.ndarray
    source_names: tuple
    B_sources: np.ndarray
    s: np.ndarray

    def structure_rates(self):
        """(J - R) grad_H + B_sources s + G lam: the tangent rates at the state, shape (n,)."""
        return (self.J - self.R) @ self.grad_H + self.B_sources @ self.s + self.G @ self.lam


@dataclass(frozen=True, repr=False)
class Linearization:
    """A compiled system linearized at (t, x, u) (module docstring).

    Attributes
    ----------
    t : float [s]
    x : ndarray, shape (layout.size,)
        Expansion point (quaternions normalized).
    u : ndarray, shape (m,)
    tangent_names : tuple of str
        The tangent coordinates delta (length n).
    state_names : tuple of str
        The state-space states (length r): the tangent names without constraints, else
        "eta[k]", the coordinates along the columns of `basis`.
    input_names, output_names : tuple of str
        Inputs u (`system.inputs`) and their collocated outputs y (same names).
    basis : ndarray, shape (n, r)
        Orthonormal basis V of the constraint tangent space: delta = V eta.
    A : ndarray, shape (r, r)
    B : ndarray, shape (r, m)
    C : ndarray, shape (m, r)
    D : ndarray, shape (m, m)
    rates : ndarray, shape (n,)
        d(delta)/dt at the point (zero at an equilibrium).
    constraint_residual : float
        Largest |g| or |c| at the point (zero on the constraint manifold).
    leakage : float
        |(I - V V^T) df/d(delta) V|_max: how far the flow leaves the tangent space.
    ph : PortHamiltonianMatrices
        J, R, Q, B, G on the full tangent space.
    step : float
        The finite-difference step used.
    """

    t: float
    x: np.ndarray
    u: np.ndarray
    tangent_names: tuple
    state_names: tuple
    input_names: tuple
    output_names: tuple
    basis: np.ndarray
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    rates: np.ndarray
    constraint_residual: float
    leakage: float
    ph: PortHamiltonianMatrices
    step: float

    def __repr__(self):
        n, r = self.basis.shape
        return (f"<Linearization at t={self.t:g}: {r} states ({n} tangent coordinates), {len(self.input_names)} "
                f"inputs, |rates| {np.max(np.abs(self.rates), initial=0.0):.3g}, constraint residual "
                f"{self.constraint_residual:.3g}, leakage {self.leakage:.3g}>")

    def to_statespace(self):
        """The model as `scipy.signal.StateSpace(A, B, C, D)` (continuous time)."""
        from scipy.signal import StateSpace

        return StateSpace(self.A, self.B, self.C, self.D)

    def transfer_function(self, s, inputs=None, outputs=None):
        """Frequency response; see `porthamiltonian.compile.modal.transfer_function`."""
        from .modal import transfer_function

        return transfer_function(self, s, inputs, outputs)

    def modes(self):
        """Modal analysis; see `porthamiltonian.compile.modal.modes`."""
        from .modal import modes

        return modes(self)


def _richardson(fun, center, steps):
    """Jacobian of `fun` at `center` by Richardson-extrapolated central differences.

    Parameters
    ----------
    fun : callable, ndarray (n,) -> ndarray (k,)
    center : ndarray, shape (n,)
    steps : ndarray, shape (n,)

    Returns
    -------
    ndarray, shape (k, n)
    """
    cols = []
    for j, h in enumerate(steps):
        def central(hh):
            e = np.zeros_like(center)
            e[j] = hh
            return (fun(center + e) - fun(center - e)) / (2.0 * hh)

        cols.append((4.0 * central(0.5 * h) - central(h)) / 3.0)
    return np.stack(cols, axis=1) if cols else np.zeros((0, 0))


class _Probe:
    """Evaluations of one system around (t, x0, u0) in the chart: rates, outputs, residuals."""

    def __init__(self, system, chart, t, u0):
        self.system, self.chart, self.t = system, chart, t
        plan = system._plan
        self.constraints = [c for c in plan.constraints
                            if np.any(c["obj"].active(chart.x0[c["slice"]]) > 0.5)]
        x0 = chart.x0
        g0 = system._rhs(t, x0, u0, True)["g"]
        self.gap_rows = [np.isfinite(np.asarray(g0[c["path"]], dtype=float)) & (c["obj"].active(x0[c["slice"]]) > 0.5)
                         for c in self.constraints]
        self.outputs = self._outputs(plan)

    def _outputs(self, plan):
        """(u slice, conjugate variable name, factor) per external input: y = factor * var."""
        steps = {s.element: s for s in plan.pre_steps + plan.u_steps if s.kind == "source"}
        out = []
        for src in plan.sources:
            if src["path"] not in plan.input_slices:
                continue
            (imposed, sign), = steps[src["path"]].outputs
            other = src["f"] if imposed.name == src["e"].name else src["e"]
            # supplied power -omega e.f (the ledger's), imposed variable = sign * u
            out.append((plan.input_slices[src["path"]], other.name, -src["omega"] * sign))
        return out

    def evaluate(self, delta, u):
        """(rates, outputs, constraint residuals) at x0 (+) delta with inputs u."""
        system = self.system
        x = self.chart.retract(delta)
        ev = system._rhs(self.t, x, u, True)
        rates = self.chart.rates(delta, x, ev["xdot"])
        y = np.zeros(system.n_inputs)
        for sl, var, factor in self.outputs:
            y[sl] = factor * np.asarray(ev["vars"][var], dtype=float)
        res = []
        for c, rows in zip(self.constraints, self.gap_rows):
            act = c["obj"].active(x[c["slice"]]) > 0.5
            res.append(np.asarray(ev["g"][c["path"]], dtype=float)[rows])
            res.append(np.asarray(ev["c"][c["path"]], dtype=float)[act])
        res += [np.asarray(v, dtype=float).ravel() for v in ev["cut_c"].values()]
        return rates, y, (np.concatenate(res) if res else np.zeros(0))

    def gradient(self, delta):
        """Gradient of H in the chart at x0 (+) delta, from the elements' analytic gradients."""
        system = self.system
        x = self.chart.retract(delta)
        gx = np.zeros(x.size)
        for path, obj, sl, refs in system._storages:
            g = np.asarray(obj.gradient(x[sl], tuple(x[r] for r in refs)), dtype=float)
            gx[sl] += g[: sl.stop - sl.start]
            at = sl.stop - sl.start
            for r in refs:
                n = r.stop - r.start
                gx[r] += g[at : at + n]
                at += n
        return self.chart.gradient(delta, x, gx)


def _tangent_basis(Jc, n):
    """Orthonormal basis of the null space of Jc (rows normalized first), shape (n, r); the
    identity when Jc has no nonzero row (no constraint)."""
    norms = np.linalg.norm(Jc, axis=1)
    rows = Jc[norms > 0] / norms[norms > 0, None]
    if rows.shape[0] == 0:
        return np.eye(n)
    _, sv, Vt = np.linalg.svd(rows)
    rank = int(np.sum(sv > RANK_TOL * sv[0]))
    return Vt[rank:].T.copy()


def _structure(system, chart, t, x, u):
    """`analysis` mapped to the chart (module docstring): J, R, B_u, G, lambda, the input
    names, then the source names, the input matrix of all sources and their values."""
    a = system.analysis(t, x, u)
    plan = system._plan
    owner = np.zeros((x.size, len(a.names)))  # E: owner copies of the extended state
    at = 0
    for st in plan.storages:
        sl = st["slice"]
        n = sl.stop - sl.start
        owner[np.arange(sl.start, sl.stop), np.arange(at, at + n)] = 1.0
        at += n + sum(r.stop - r.start for r in plan.refs[st["path"]])
    TE = chart.rate_matrix(x.size) @ owner
    # The congruence TE J TE^T is skew (and TE R TE^T symmetric) only up to the summation order
    # of the matrix products, which depends on the CPU's SIMD paths; the structure is made exact
    # (fl(a - b) = -fl(b - a) and halving is exact), so J + J^T == 0 bit for bit on every machine.
    J, R = TE @ a.J @ TE.T, TE @ a.R @ TE.T
    J, R = 0.5 * (J - J.T), 0.5 * (R + R.T)
    return (J, R, TE @ a.B_u, TE @ a.G, a.lam, tuple(a.input_names),
            tuple(a.source_names), TE @ a.B, a.s)


def linearize(system, t, x, u=None, *, step=DEFAULT_STEP):
    """Linearize a compiled system at (t, x, u) (module docstring).

    Parameters
    ----------
    system : PHSystem
    t : float [s]
    x : ndarray, shape (system.layout.size,)
        Expansion point; quaternions are normalized. For a constrained system it should lie
        on the constraint manifold (`PHSystem.project_constraints`); `constraint_residual`
        reports how far it is.
    u : ndarray, shape (system.n_inputs,), optional
        Inputs at the point (default zero).
    step : float, keyword-only
        Finite-difference step (module docstring), in (0, 0.1].

    Returns
    -------
    Linearization

    Raises
    ------
    ParameterError
        Bad `t`, `x`, `u` or `step` (shape, finiteness, range).
    ModelError
        The system has no state coordinates.

    Notes
    -----
    Cost: 4 (n + m) evaluations of the right-hand side and 4 n of the gradient of H,
    n tangent coordinates and m inputs; plus one `analysis`.

    Examples
    --------
    >>> import porthamiltonian as ph
    >>> bg = ph.BondGraph("msd")
    >>> _ = bg.add(ph.Se("F", input=True), ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=8.0))
    >>> for a, b in (("F", "v"), ("v", "m"), ("v", "k")):
    ...     _ = bg.connect(a, b)
    >>> lin = ph.compile(bg).linearize(0.0, np.zeros(3))  # state (m.p, k.q, ledger: F supplied)
    >>> lin.state_names, lin.input_names
    (('m.p', 'k.q'), ('F',))
    >>> [round(m.natural_frequency, 9) for m in lin.modes()]  # sqrt(k / m) [rad/s]
    [2.0]
    """
    t = as_finite_float(t, "t")
    x = system.check_state(x)
    u = np.zeros(system.n_inputs) if u is None else system._check_u(u)
    step = as_finite_float(step, "step", positive=True)
    if step > 0.1:
        raise ParameterError(f"`step` must be in (0, 0.1] (a finite-difference step), got {step!r}")
    chart = TangentChart(system.layout, x)
    if chart.size == 0:
        raise ModelError(f"system {system.name!r} has no state coordinates to linearize")
    x = chart.x0
    probe = _Probe(system, chart, t, u)
    n, m = chart.size, system.n_inputs
    zero = np.zeros(n)
    rates, _, residual = probe.evaluate(zero, u)

    def at_delta(d):
        return np.concatenate(probe.evaluate(d, u))

    def at_u(v):
        f, y, _ = probe.evaluate(zero, v)
        return np.concatenate((f, y))

    Jx = _richardson(at_delta, zero, chart.steps(step))
    Fx, Yx, Cx = Jx[:n], Jx[n : n + m], Jx[n + m :]
    Ju = _richardson(at_u, u, step * np.maximum(1.0, np.abs(u))) if m else np.zeros((n + m, 0))
    Fu, Yu = Ju[:n], Ju[n:]
    V = _tangent_basis(Cx, n)
    constrained = V.shape[1] < n
    Q = _richardson(probe.gradient, zero, chart.steps(step))
    J, R, B, G, lam, input_names, source_names, B_sources, s_values = _structure(system, chart, t, x, u)
    ph = PortHamiltonianMatrices(chart.names, input_names, J, R, 0.5 * (Q + Q.T), probe.gradient(zero),
                                 B, G, lam, source_names, B_sources, s_values)
    FV = Fx @ V
    leak = FV - V @ (V.T @ FV)
    return Linearization(
        t=t, x=x, u=u, tangent_names=chart.names,
        state_names=tuple(f"eta[{k}]" for k in range(V.shape[1])) if constrained else chart.names,
        input_names=ph.input_names, output_names=ph.input_names, basis=V,
        A=V.T @ FV, B=V.T @ Fu, C=Yx @ V, D=Yu, rates=rates,
        constraint_residual=float(np.max(np.abs(residual))) if residual.size else 0.0,
        leakage=float(np.max(np.abs(leak))) if leak.size else 0.0, ph=ph, step=step,
    )

