"""A discrete-gradient integrator on the Lie-group state of a compiled system.

``simulate(system, ..., method="discrete_gradient", step=h)``: an energy-consistent implicit
method at a fixed step. For a conservative system the stored energy H is preserved to the
round-off of the per-step nonlinear solve at any step size; with sources, resistors and
constraints the discrete power balance

    H(x_{k+1}) - H(x_k) = supplied_k - dissipated_k - stabilization_k

holds at every step to round-off, with the three terms booked in the ledger quadratures, so
the trajectory's ledger residual (`Trajectory.power_budget`) is the solver's round-off, not
the truncation error.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import DenseOutput, OdeSolver

from ..errors import IntegrationError, ParameterError
from ..kernels.lie import ad_matrix, pose_step

__all__ = ["DiscreteGradient"]

#: sign of each ledger kind in the discrete balance dH = supplied - dissipated - stabilization
_BALANCE_SIGN = {"supplied": 1.0, "dissipated": -1.0, "stabilization": -1.0, "lost": 0.0}


class _StepMap:
    """The discrete-gradient step of one compiled system: which entries are unknowns, which
    are poses, and the residual of the step's nonlinear equations (see `DiscreteGradient`).

    Built once per solver from the system's layout (no graph walking per step).
    """

    def __init__(self, system, fun):
        self.system, self.fun = system, fun
        layout = system.layout
        for path, obj, _, _ in system.storages:   # an element that says why it cannot be stepped so
            why = getattr(obj, "refuses_discrete_gradient", None)
            if why:
                raise ParameterError(f"method 'discrete_gradient' cannot integrate {obj.label} ({path!r}): {why}; "
                                     "use method='RK4' or a scipy method for this system")
        self.poses = []       # (pose slice start, momentum slice, storage element, own slice)
        self.momentum = []    # (momentum slice) with the correction direction -P (kinetic metric)
        self.gradient = []    # (element, own slice, refs, energy-entry offsets, their places in z)
        pose_owner = set()
        for b in layout.blocks:
            if b.group == "pose":
                obj = system.elements[b.element]
                energy = [e for e in layout.blocks if e.element == b.element and e.kind == "energy"]
                if len(energy) != 1 or energy[0].stop - energy[0].start != 6 or not hasattr(obj, "gradient"):
                    raise ParameterError(
                        f"method 'discrete_gradient' needs every pose block to belong to a body whose state is "
                        f"(pose, 6 momenta) (a RigidBody); {b.key!r} belongs to {type(obj).__name__} "
                        f"{b.element!r}: use method='RK4' or a scipy method for this system")
                own = layout.element_slice(b.element)
                self.poses.append((b.start, energy[0].slice, obj, own))
                self.momentum.append(energy[0].slice)
                pose_owner.add(b.element)
        for path, obj, sl, refs in system.storages:
            if path in pose_owner:
                continue
            offs = [i for blk in layout.blocks if blk.element == path and blk.kind == "energy"
                    for i in range(blk.start - sl.start, blk.stop - sl.start)]
            if offs:
                self.gradient.append((obj, sl, refs, np.array(offs), sl.start + np.array(offs)))
        pose_entries = {i for start, *_ in self.poses for i in range(start, start + 7)}
        self.unknown = np.array([i for b in layout.blocks if b.kind != "discrete"
                                 for i in range(b.start, b.stop) if i not in pose_entries], dtype=int)
        self.where = {int(i): k for k, i in enumerate(self.unknown)}
        # positions of each body's momenta among the unknowns (the order of `poses`)
        self.index = [np.array([self.where[i] for i in range(p.start, p.stop)]) for p in self.momentum]
        self.gradient = [(obj, sl, refs, offs, np.array([self.where[int(i)] for i in idx]))
                         for obj, sl, refs, offs, idx in self.gradient]
        n_phys = layout.n_physical
        # constraint rows: (element, own slice, rows in the residual vector, multiplier columns)
        self.constraints = [(obj, sl, rows, cols) for _, obj, sl, rows, cols in system.constraints]
        self.ledger = np.arange(n_phys, layout.size)
        self.ledger_sign = np.array([_BALANCE_SIGN[e.kind] for e in layout.ledger])

    # ------------------------------------------------------------------ pieces of the step
    def twists(self, x):
        """Body twists T = dH/dP of the pose-owning bodies at state x (their momenta only)."""
        return [obj.gradient(x[own])[p.start - own.start : p.stop - own.start] for _, p, obj, own in self.poses]

    def direction(self, xm):
        """The correction direction d over the unknowns at the midpoint state: -P for the
        momenta of bodies (the kinetic-energy metric: M^-1 d = -T is along the motion, so it
        keeps the constraints' velocity residuals), -dH/dy for the other energy entries."""
        d = np.zeros(self.unknown.size)
        for p, k in zip(self.momentum, self.index):
            d[k] = -xm[p]
        for obj, sl, refs, offs, at in self.gradient:
            g = np.asarray(obj.gradient(xm[sl], tuple(xm[r] for r in refs)), dtype=float)
            d[at] = -g[offs]
        return d

    def active_rows(self, x):
        """``(rows, columns)``: the constraint rows active at x (their residual entries) and
        their multipliers' columns of the state's sensitivity Gx; held over a step."""
        rows, cols = [], []
        for obj, sl, r, u in self.constraints:
            on = np.asarray(obj.active(x[sl]), dtype=float) > 0.5
            rows.append(r[np.broadcast_to(on, r.shape)])
            cols.append(u[np.broadcast_to(on, u.shape)])
        if not rows:
            return np.zeros(0, int), np.zeros(0, int)
        return np.concatenate(rows), np.concatenate(cols)

    def sensitivity(self, t, x, cols):
        """The rates' sensitivity to the active multipliers at x, over the unknowns:
        shape (n_unknowns, m) (the impulse directions of the compiled system)."""
        if not cols.size:
            return np.zeros((self.unknown.size, 0))
        return self.system.impulse_directions(t, x)[np.ix_(self.unknown, cols)]

    def velocity_residuals(self, t, x):
        """All constraints' velocity residuals c at x (`PHSystem.velocity_residuals`)."""
        return self.system.velocity_residuals(t, x)

    def residual(self, t, x0, H0, z, h, rows=None, Gm=None):
        """``(residual, x1, g)``: the residual of the step's equations (1)-(3) of
        `DiscreteGradient` at the unknowns ``z = (y1, mu, c)``, the end state, and the
        derivative of the y rows in (mu, c), shape (n, m + 1) (they are affine in both; the
        other rows do not depend on them). `rows` are the active constraint rows, `Gm`
        their impulse directions over the unknowns."""
        u = self.unknown
        n = u.size
        if not np.all(np.isfinite(z)):   # a diverging iteration: the caller halves the step
            return np.full(z.size, np.nan), x0, np.zeros((n, z.size - n))
        y1, mu, c = z[:n], z[n:-1], z[-1]
        xm, x1 = x0.copy(), x0.copy()
        xm[u] = 0.5 * (x0[u] + y1)
        x1[u] = y1
        moves = []
        for (start, p, _, _), k, T in zip(self.poses, self.index, self.twists(xm)):
            xm[start : start + 7], x1[start : start + 7], Ad2, Ad = pose_step(x0[start : start + 7], h * T)
            moves.append((p, k, T, Ad2, Ad))
        fm = self.fun(t + 0.5 * h, xm)
        d = self.direction(xm)
        g = np.zeros((n, mu.size + 1))
        g[:, -1] = -h * d
        if mu.size:   # the multipliers' correction, as forces at the midpoint
            fm = fm.copy()
            fm[u] += Gm @ mu
            g[:, :-1] = -h * Gm
        r = y1 - x0[u] - h * fm[u]
        for p, k, T, Ad2, Ad in moves:
            # Euler-Poincare on SE(3): the body momentum is carried by the increment's
            # coadjoint (exactly momentum- and energy-neutral), the wrench by the half one
            W = fm[p] - ad_matrix(T).T @ xm[p]
            r[k] = y1[k] - Ad.T @ x0[p] - h * (Ad2.T @ W)
            g[k, -1] = -h * (Ad2.T @ d[k])
            if mu.size:
                g[k, :-1] = -h * (Ad2.T @ Gm[k])
        out = np.empty(z.size)
        out[:n] = r + c * g[:, -1]
        if mu.size:
            out[n:-1] = self.velocity_residuals(t + 0.5 * h, xm)[rows]
        out[-1] = (self.system.energy(x1) - H0) / h - self.ledger_sign @ fm[self.ledger]
        x1[self.ledger] = x0[self.ledger] + h * fm[self.ledger]
        return out, x1, g


class DiscreteGradient(OdeSolver):
    """An energy-consistent discrete-gradient method on the Lie-group state, at a fixed step.

    Parameters
    ----------
    fun, t0, y0, t_bound, vectorized
        As for every `scipy.integrate.OdeSolver`; `fun` is the system's right-hand side
        (with its inputs), ``y0`` a full state of `system` (shape ``(system.layout.size,)``).
    step : float
        The step [s], finite and > 0; the last step of an interval is shortened to end on
        `t_bound` (one within ``1e-9 step`` of it is stretched to it).
    system : PHSystem
        The compiled system (its energy, its bodies' momenta and poses, its ledger layout).
    rtol, atol, max_step, first_step
        Accepted and unused (a fixed step; the nonlinear solve runs to round-off).

    Raises
    ------
    ParameterError
        A bad `step`; `y0` not a state of `system` (for instance reduced contact
        coordinates: integrate those with 'RK4' or a scipy method); a pose block that does
        not belong to a body with 6 momenta.

    Notes
    -----
    **Which discrete gradient.** Gonzalez's midpoint discrete gradient, in the body-momentum
    variables, with the poses on SE(3). Average-vector-field needs an integral of grad H
    along the straight segment between two states, which does not exist for a pose (the
    segment between two unit quaternions leaves the group) and costs a quadrature per
    iteration; Itoh-Abe is only first order and not symmetric. Gonzalez's form needs one
    evaluation of the rates and of H per iteration and is second order and symmetric.

    **The step** from x0 over h. Unknowns z = (y1, mu, c): y all continuous entries but
    the poses (body momenta P, the other storages' energy variables, contact coordinates),
    mu one correction per active constraint row, c a scalar. With T = dH/dP (each body's
    twist) at the mean momenta (P0 + P1)/2, E = exp(h T) and E2 = exp(h T / 2)::

        pose_mid = pose0 E2,   pose1 = pose0 E                         (each body, on SE(3))
        x_mid    = (pose_mid, (y0 + y1)/2),   f_mid = rhs(t + h/2, x_mid) + Gx mu
        P1       = Ad(E)^T P0 + h Ad(E2)^T (W_mid + c d_P)              (1a, each body)
        y1 - y0  = h f_mid[y] + h c d_y                                  (1b, the others)
        c_k(x_mid) = 0                 (each active constraint row)      (2)
        (H(x1) - H(x0)) / h = supplied - dissipated - stabilization at x_mid   (3)
        ledger1  = ledger0 + h f_mid[ledger]

    W_mid = f_mid[P] - ad(T)^T P_mid is the wrench on the body at the midpoint (the
    compiled right-hand side's, with its own multipliers). (1a) is Euler-Poincare on
    SE(3): the momentum carried by the coadjoint of the step's increment is exactly
    energy- and momentum-neutral (Ad(E) T = T), so a free body keeps H and its spatial
    momentum Ad(H_WB)^-T P to round-off; the wrench transported by Ad(E2)^T does on T
    exactly h W_mid . T, which is h times the ledger power at the midpoint for a damper, a
    source or a constraint. Without c, the energy error is then the potentials' alone (the
    mean twist does not integrate grad V exactly along the step). The term c d is
    Gonzalez's correction, grad H(x_mid) + c W dz with a metric W, written as a force:
    d_P = -P_mid for body momenta (kinetic-energy metric: the velocity change -h c T is
    along the motion, so it does not disturb the constraints) and d_y = -dH/dy for the
    other energy variables; (3) fixes c, which is O(h^2) (the correction is O(h^3) per
    step), so the method keeps the midpoint rule's second order (measured: 2.00).

    **Constraints.** (2) makes the mean twist tangent to every active constraint at the
    midpoint, so the constraint forces do no work over the step (a scleronomic constraint
    absorbs no energy and the Baumgarte terms of the compiled multipliers stay idle); mu
    enters along the columns of the compiled system's impulse directions Gx (taken at the
    step's start, with the external inputs at their defaults for c). The gaps are not
    enforced: they drift at O(h^3) per step and the compiled Baumgarte terms pull them back,
    the work they do booked as stabilization. Dependent storages' constraints (cut bonds)
    keep the compiled multipliers only.

    **Cost per step.** Newton on the n + m + 1 unknowns (n continuous entries outside the
    poses, m active constraint rows). One evaluation of the residual costs one evaluation of
    the compiled right-hand side, one of H (the storages' energy kernels), one of the
    constraints' velocity residuals when there are constraints, and a few SE(3) operations
    per body; a step takes 2-6 of them, plus one evaluation at the step's end and, with
    constraints, one full evaluation (Python) for Gx. The Jacobian (forward differences,
    n evaluations; the columns of mu and c are exact) is kept across steps with Broyden
    updates while that converges; once it fails (a body turning a radian per step rotates the world-frame
    constraint rows) every step starts from a fresh one, and a step that still does not
    converge is solved by Newton with the Jacobian refreshed at every iteration (a contact
    law's kink inside the step). The iteration stops when the update is below `UPDATE_TOL`
    of the unknowns' size, or stalls at round-off below ``1e3 UPDATE_TOL``. A step whose
    solve fails (or whose rates are not finite) is halved, up to `MAX_HALVINGS` times.
    Measured (one core of a shared machine, compiled right-hand side): heavy top 13.5
    evaluations and about 1 ms per step, rocking ellipsoid on the sliding plane 22.5 and
    2 ms, free body 12, mass-spring-damper 10: the per-step overhead is Python's, so on
    smooth, non-stiff problems over short horizons an explicit high-order method at tight
    tolerance is faster (`benchmarks/results/discrete_gradient.md`); this method pays where
    energy must not drift over long runs, where the ledger must close at any step, and on
    stiff contacts at steps beyond the explicit methods' stability.

    **Dense output and events.** Between two steps the dense output at time t is the
    discrete-gradient step of length t - t_old from the step's start (warm-started from the
    cubic Hermite interpolant): it keeps the energy balance, so an event located inside a
    step (by solve_ivp, on this dense output) restarts from an energy-consistent state. Each
    evaluation costs one nonlinear solve; one that fails raises IntegrationError.

    Discrete entries (contact flags, charts) are held over a step; they change at events.
    """

    order = 2
    fixed_step = True
    #: a step whose nonlinear solve fails is halved at most this many times
    MAX_HALVINGS = 30
    #: Newton iterations per attempt (three times as many for the last, plain Newton)
    MAX_ITER = 12
    #: an iteration contracting the update by less than this ends the attempt (a fresher
    #: Jacobian next), unless the update is already at round-off
    REFRESH_RATE = 0.7
    #: the solve has converged when the update is below this fraction of the unknowns' size
    UPDATE_TOL = 1e-14

    def __init__(self, fun, t0, y0, t_bound, step, system, vectorized=False, rtol=None, atol=None,
                 max_step=None, first_step=None):
        if isinstance(step, (bool, np.bool_)) or not isinstance(step, (int, float, np.integer, np.floating)) \
                or not math.isfinite(step) or not step > 0:
            raise ParameterError(f"`step` must be a finite number > 0 [s], got {step!r}")
        y0 = np.asarray(y0, dtype=float)
        if y0.shape != (system.layout.size,):
            raise ParameterError(
                f"method 'discrete_gradient' integrates states of system {system.name!r} (shape "
                f"({system.layout.size},)), got y0 of shape {y0.shape} (reduced contact coordinates?): use "
                "method='RK4' or a scipy method for this system")
        super().__init__(fun, t0, y0, t_bound, vectorized)
        self.h = float(step)
        self.map = _StepMap(system, self.fun)
        self.f = self.fun(self.t, self.y)
        self.c = 0.0
        self.jac = None
        self.reuse = True   # keep the Jacobian across steps while that converges
        self.t_old = self.y_old = self.f_old = None

    def _step_impl(self):
        t, y = self.t, self.y
        left = abs(self.t_bound - t)
        h = self.h if left > self.h * (1.0 + 1e-9) else left
        for _ in range(self.MAX_HALVINGS + 1):
            out = self.solve(t, y, self.f, h)
            if out is not None:
                y_new, self.c = out
                t_new = self.t_bound if h == left else t + h
                f_new = self.fun(t_new, y_new)
                self.t_old, self.y_old, self.f_old = t, y, self.f
                self.t, self.y, self.f = t_new, y_new, f_new
                return True, None
            h *= 0.5
        return False, (f"discrete_gradient: the step's nonlinear solve failed from t = {t:.9g} s down to a step of "
                       f"{2 * h:.3g} s (no convergence, or the rates are not finite there)")

    def solve(self, t, x0, f0, h, guess=None):
        """``(x1, c)`` of the step of length h from ``(t, x0)`` (`f0` the rates there), or
        None when the solve fails. `guess` is a start for the end state (default: the
        second-order Taylor predictor, the rates' derivative from the last step)."""
        m = self.map
        n = m.unknown.size
        H0 = m.system.energy(x0)
        rows, cols = m.active_rows(x0)
        Gm = m.sensitivity(t, x0, cols)
        z = np.zeros(n + rows.size + 1)
        if guess is None:
            guess = x0 + h * f0
            if self.f_old is not None:   # second-order Taylor predictor, f' from the last step
                guess += (0.5 * h * h / (self.t - self.t_old)) * (f0 - self.f_old)
        z[:n] = guess[m.unknown]
        z[-1] = self.c
        if self.jac is not None and self.jac.shape != (z.size, z.size):
            self.jac = None   # the active constraint rows changed (an event)

        def residual(zz):
            try:
                return m.residual(t, x0, H0, zz, h, rows, Gm)
            except (ValueError, ArithmeticError):   # an iterate beyond the model's range (overflow)
                return np.full(zz.size, np.nan), x0, np.zeros((n, zz.size - n))

        scale = max(float(np.max(np.abs(x0[m.unknown]), initial=0.0)), np.finfo(float).tiny)
        first = residual(z)
        if not np.all(np.isfinite(first[0])):
            return None
        # 1: the Jacobian kept from earlier steps; 2: a fresh one at the start; 3: Newton
        # with the Jacobian refreshed at every iteration (a contact law's kink inside the step)
        for attempt in (1, 2, 3):
            if attempt == 1 and not self.reuse:
                continue
            if attempt > 1 or self.jac is None:
                self.jac = self._jacobian(residual, z, first[0], first[2], n)
                if attempt == 1:
                    attempt = 2
            out = self._iterate(residual, z.copy(), first, n, scale, attempt)
            if out is not None:
                return out
            if attempt == 1:   # the kept Jacobian went stale within a step: stop keeping it
                self.reuse = False
        return None

    def _iterate(self, residual, z, first, n, scale, attempt):
        """Newton iterations from z, where the residual is `first` (see `solve`);
        ``(x1, c)`` or None."""
        r, x1, g = first
        prev = np.inf
        for _ in range(self.MAX_ITER if attempt < 3 else 3 * self.MAX_ITER):
            if not np.all(np.isfinite(r)):
                return None
            if attempt == 3 and prev < np.inf:
                self.jac = self._jacobian(residual, z, r, g, n)
            dz = self._newton(r)
            if dz is None:
                return None
            z = z - dz
            r_old = r
            r, x1, g = residual(z)
            if attempt < 3 and np.all(np.isfinite(r)):
                # Broyden's update: the kept Jacobian follows the step's (a body turning by a
                # large angle per step rotates the world-frame constraint rows)
                self.jac += np.outer(r - r_old + self.jac @ dz, -dz) / (dz @ dz)
            size = float(np.max(np.abs(dz[:n]), initial=0.0)) / scale
            if not np.isfinite(size):
                return None
            slow = size > self.REFRESH_RATE * prev
            if size <= self.UPDATE_TOL or (slow and size < 1e3 * self.UPDATE_TOL):   # converged, or at round-off
                return (x1, float(z[-1])) if np.all(np.isfinite(r)) else None
            if slow and attempt < 3:
                return None
            prev = size
        return None

    def _newton(self, r):
        """The simplified-Newton update J^-1 r (None if J is singular)."""
        try:
            return np.linalg.solve(self.jac, r)
        except np.linalg.LinAlgError:
            return None

    @staticmethod
    def _jacobian(residual, z, r, g, n):
        """Forward differences of `residual` in the end state's unknowns (the first n); the
        columns of mu and c exactly (`g`: the residual is affine in them). A system at rest
        (no correction direction) leaves c undetermined: its row pins c instead."""
        N = z.size
        J = np.zeros((N, N))
        sqrt_eps = math.sqrt(np.finfo(float).eps)
        scale = max(float(np.max(np.abs(z[:n]), initial=0.0)), 1e-8)
        for j in range(n):
            zj = z.copy()
            zj[j] += sqrt_eps * max(abs(z[j]), scale)
            J[:, j] = (residual(zj)[0] - r) / (zj[j] - z[j])
        J[:n, n:] = g
        if not np.any(g[:, -1]):
            J[-1, :] = 0.0
            J[-1, -1] = 1.0
        return J

    def _dense_output_impl(self):
        return _SubStep(self, self.t_old, self.t, self.y_old, self.y, self.f_old, self.f)


class _SubStep(DenseOutput):
    """Dense output of one step: the discrete-gradient step from the step's start to t."""

    def __init__(self, solver, t_old, t, y_old, y, f_old, f):
        super().__init__(t_old, t)
        self.solver = solver
        self.y_old, self.y1, self.f_old, self.f1 = y_old, y, f_old, f
        self.c = solver.c

    def _hermite(self, t):
        h = self.t - self.t_old
        s = (t - self.t_old) / h
        return ((1 + 2 * s) * (1 - s) ** 2 * self.y_old + s * (1 - s) ** 2 * h * self.f_old
                + s * s * (3 - 2 * s) * self.y1 + s * s * (s - 1) * h * self.f1)

    def _one(self, t):
        if t == self.t_old:
            return self.y_old.copy()
        if t == self.t:
            return self.y1.copy()
        out = self.solver.solve(self.t_old, self.y_old, self.f_old, t - self.t_old, guess=self._hermite(t))
        if out is None:
            raise IntegrationError(
                f"discrete_gradient: the dense output's sub-step from t = {self.t_old:.9g} s to t = {t:.9g} s "
                "failed to converge (the full step did); use a smaller `step`")
        return out[0]

    def _call_impl(self, t):
        t = np.asarray(t, dtype=float)
        if t.ndim == 0:
            return self._one(float(t))
        return np.column_stack([self._one(float(tk)) for tk in t]) if t.size else np.zeros((self.y1.size, 0))
