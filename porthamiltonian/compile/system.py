"""PHSystem: the frozen result of `compile` (structure and parameters; never the state)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numba
import numpy as np

from .._validate import as_array
from ..errors import IntegrationError, ModelError, ParameterError, PhaseError, PortHamiltonianError
from ..bondgraph.element import ConstraintElement
from .codegen import _solve
from .impact_friction import ImpactFriction
from .plan import active_rows

_log = logging.getLogger(__name__)

__all__ = ["PHSystem", "EventBinding", "JIT_AFTER", "PATH_PROBE_AT", "worth_loading"]

#: evaluations of a system in Python before its compiled right-hand side is built and used
#: (`porthamiltonian.compile.jit`); the compile costs seconds (5-25 s for a new structure, a
#: tenth of a second from the disk cache), which a run this long amortizes
JIT_AFTER = 2000

#: `simulate` asks `PHSystem.plan_path` for the path after this many evaluations (enough to
#: extrapolate the run's length from its progress; few enough that a long run spends next to
#: nothing on the slow path)
PATH_PROBE_AT = 20


def worth_loading(evaluated, expected):
    """Whether to build (or load from numba's cache) the compiled right-hand side now
    (`PHSystem.plan_path`).

    Parameters
    ----------
    evaluated : int
        Evaluations of the run so far (`PATH_PROBE_AT`).
    expected : float
        Evaluations still expected in the run (extrapolated from its progress).

    Returns
    -------
    bool
        True when the run is expected to outlast the count rule (`JIT_AFTER` evaluations in
        all): the rule would build the compiled path anyway, so it is built at once rather than
        after 2000 slow evaluations. The decision reads neither numba's cache nor a clock: the
        path changes at the same evaluation on every machine and in every cache state (a cold
        cache pays its compile now instead of later), so a run reproduces bit for bit.
    """
    return evaluated + expected > JIT_AFTER


@dataclass(frozen=True)
class EventBinding:
    """An element event bound to its slices of the state vector."""

    element: str
    spec: object
    own: slice
    refs: tuple

    @property
    def name(self):
        return f"{self.element}.{self.spec.name}"

    def value(self, t, x, system=None):
        if self.spec.uses_system:
            return self.spec.function(system, t, x)
        return self.spec.function(t, x[self.own], tuple(x[s] for s in self.refs))


def _active_sets(A, b, blocks):
    """The active sets of a complementarity problem over `blocks` (each the rows and columns
    of one contact in ``A x = b``), from the largest: ``(held, x)``, `held` the indices of
    the blocks kept, `x` solving ``A x = b`` on the kept rows with the other blocks' columns
    zero. A set whose system is singular or gives a non-finite solution is skipped."""
    n = len(blocks)
    for mask in sorted(range(1 << n), key=lambda m: (-bin(m).count("1"), m)):
        held = [i for i in range(n) if mask >> i & 1]
        keep_r, keep_c = np.ones(A.shape[0], bool), np.ones(A.shape[1], bool)
        for i in range(n):
            if not mask >> i & 1:
                keep_r[blocks[i][0]] = keep_c[blocks[i][1]] = False
        x = np.zeros(A.shape[1])
        try:
            x[keep_c] = np.linalg.solve(A[np.ix_(keep_r, keep_c)], b[keep_r])
        except np.linalg.LinAlgError:
            continue
        if np.all(np.isfinite(x)):
            yield held, x


class PHSystem:
    """A compiled port-Hamiltonian system: dx/dt = (J - R) grad H + B u + G lambda.

    Built by `porthamiltonian.compile`; immutable. The state is a flat array described by
    `layout` (names -> slices), threaded through `rhs` and `simulate`.

    Attributes
    ----------
    name : str
    layout : StateLayout
        Element state blocks, then the ledger quadratures.
    elements : dict
        Flat element path -> element (private copies; editing them has no effect).
    report : CausalityReport
        The causality assignment, printable.
    source : str
        Python source of the generated right-hand side.
    inputs : dict
        External input source path -> slice of the input vector u.
    n_inputs : int
    n_multipliers : int
        Number of unknowns solved at every evaluation (multipliers and loop tears).
    compiled : str
        "numba" or "python: <why>": whether `rhs` runs the compiled right-hand side
        (`porthamiltonian.compile.jit`; in `simulate`, built or loaded `PATH_PROBE_AT`
        evaluations into a run expected to outlast `JIT_AFTER` evaluations (`plan_path`), else
        after `JIT_AFTER` evaluations; at once when this attribute is read).

    Notes
    -----
    The integration interface, all that `porthamiltonian.integrate` uses of a system (and what
    a new integrator may rely on): the state (`layout`, `check_state`, `elements`), the rates
    (`rhs`, `reference_rhs`, `plan_path`; `compiled_call` and `remember_event_values` for an
    integrator with its own compiled step), the element events and their jump maps (`events`,
    `event_value`, `apply_impulse`), the energy (`energy`, `storages`), the constraints
    (`constraints`, `has_constraints`, `velocity_residuals`, `impulse_directions`,
    `constraint_residuals`, `constraint_series`, `project_constraints`) and the regimes
    elements take the integration over (`integrator_phases`).
    """

    def __init__(self, name, plan, source, namespace, jit=None):
        s = object.__setattr__
        s(self, "name", name)
        s(self, "_plan", plan)
        s(self, "layout", plan.layout)
        s(self, "report", plan.report)
        s(self, "elements", plan.report.flat.elements)
        s(self, "source", source)
        exec(compile(source, f"<porthamiltonian rhs of {name!r}>", "exec"), namespace)  # noqa: S102
        s(self, "_rhs", namespace["rhs"])
        # the compiled right-hand side (porthamiltonian.compile.jit): (source, F, I), built
        # after JIT_AFTER evaluations (`rhs`); None with the reason where the model has none.
        # Mutable evaluation state (the built function, counters, the last event values): a
        # cache, not part of the frozen structure
        jit = jit or (None, "compile(..., jit=False)", None)
        s(self, "_jit", {"source": jit[0], "F": jit[1], "I": jit[2], "fn": None, "events": None,
                         "reason": None if jit[0] is not None else jit[1], "fallbacks": 0, "key": None,
                         "values": None, "residuals": None, "count": 0, "first_compile": None})
        s(self, "inputs", dict(plan.input_slices))
        s(self, "n_inputs", plan.n_inputs)
        s(self, "n_multipliers", plan.n_u)
        s(self, "_u0", np.zeros(plan.n_inputs))
        events = []
        for path, obj in self.elements.items():
            for spec in obj.events():
                events.append(EventBinding(path, spec, self.layout.element_slice(path), plan.refs[path]))
        s(self, "events", tuple(events))
        storages = [
            (p, o, self.layout.element_slice(p), plan.refs[p]) for p, o in self.elements.items() if o.category == "storage"
        ]
        s(self, "_storages", storages)

    def __setattr__(self, key, value):
        raise PhaseError(f"PHSystem {self.name!r} is frozen: cannot set `{key}`; recompile a modified graph instead")

    # ----------------------------------------------------------------- evaluation

    @property
    def compiled(self):
        """How `rhs` is evaluated: "numba" (the compiled right-hand side of
        `porthamiltonian.compile.jit`; states it does not handle are evaluated in Python) or
        "python: <reason>" (the generated Python code, and why)."""
        j = self._jit
        if j["source"] is not None and j["fn"] is None:
            self._load_jit()
        return "numba" if j["fn"] is not None else f"python: {j['reason']}"

    def compiled_call(self):
        """``(fn, u0, F, I)``: the compiled right-hand side, called as ``fn(t, x, u0, F, I) ->
        (xdot, status, event_values, multipliers, residuals, gaps)`` (`porthamiltonian.compile.jit`;
        the last three None for a model without multipliers or constraints),
        with the default inputs and its packed parameters; None while it is not built. For
        integrators that call it from their own compiled step (`integrate.compiled_rk`)."""
        j = self._jit
        return None if j["fn"] is None else (j["fn"], self._u0, j["F"], j["I"])

    def remember_event_values(self, t, x, values):
        """Keep the event values an integrator's compiled step evaluated at (t, x), so that
        `event_value` and `event_values` answer from them at that state (as after an `rhs`
        evaluation there).
        Ignored when the compiled right-hand side carries no events."""
        j = self._jit
        if j["events"]:
            j["key"], j["values"] = (t, x.tobytes()), values

    def _load_jit(self):
        """Compile the generated right-hand side (or load it from numba's cache) without
        running it; helper processes compile the contact chain's kernels meanwhile if they
        are not in numba's cache yet (`porthamiltonian.kernels._parallel`)."""
        j = self._jit
        from ..kernels import _parallel
        from .jit import load_jit

        x, F, I = np.zeros(self.layout.size), j["F"], j["I"]
        helpers = []
        try:
            module = load_jit(j["source"])
            signature = tuple(numba.typeof(a) for a in (0.0, x, self._u0, F, I))
            # a cached right-hand side loads the kernels it calls (their hooks: `_njit.separate`);
            # the declared kernels of the modules it reaches that it does not call stay missing
            # and are neither announced nor given to helpers
            rhs_cached = _parallel._on_disk(module.rhs, signature)
            wanted = [] if rhs_cached else _parallel.helpers_wanted(vars(module).values())
            self._say_first_compile(module, len(wanted), rhs_cached)
            helpers = _parallel.start_helpers(wanted)
            module.rhs.compile(signature)
        except _parallel.HelperCountError:
            raise
        except Exception as exc:  # numba could not type the kernels together: Python path
            j["source"], j["reason"] = None, f"numba failed to compile it ({type(exc).__name__}: {str(exc)[:300]})"
            return
        finally:
            _parallel.stop_helpers(helpers)
        j["fn"], j["events"] = module.rhs, module.HAS_EVENTS

    def _say_first_compile(self, module, missing, rhs_cached):
        """Announce on stderr, before it starts, a compile of what numba's cache lacks
        (`porthamiltonian.compile.notice.notice`); remembered as ``first_compile``."""
        from ..kernels import _parallel
        from .notice import kernel_kind, new_element_kernels, notice, say

        kinds = [kernel_kind(k) for k in new_element_kernels(module)]
        line = notice(self.name, missing, len(_parallel.DECLARED), rhs_cached, kinds)
        self._jit["first_compile"] = line is not None
        if line is not None:
            say(line)

    def plan_path(self, evaluated, expected):
        """Choose the path `PATH_PROBE_AT` evaluations into a run
        (`porthamiltonian.integrate.simulate` calls it with the evaluations made and those it
        still expects, extrapolated from the run's progress).

        The rule (`worth_loading`): a run expected to outlast `JIT_AFTER` evaluations builds
        the compiled right-hand side now (from numba's cache when it holds it), since the count
        rule would build it later anyway; a shorter one stays on the Python path, with the
        count rule. So a long run of a model of a few bodies runs compiled after
        `PATH_PROBE_AT` evaluations rather than 2000. The rule reads neither the cache nor a
        clock, so the evaluation at which the path changes is the same in every cache state:
        runs reproduce bit for bit (the two paths agree to round-off only).

        Returns
        -------
        str
            What was decided, in words (for the log and tests).
        """
        j = self._jit
        if j["fn"] is not None or j["source"] is None or j.get("planned"):
            return "already chosen"
        if not worth_loading(evaluated, expected):   # asked again by the next run
            return "count rule: the run is expected to end before JIT_AFTER evaluations"
        j["planned"] = True
        self._load_jit()
        j["plan"] = dict(evaluated=evaluated, expected=expected)
        return "numba" if j["fn"] is not None else "Python: " + str(j["reason"])

    def event_value(self, k, t, x):
        """The value of element event `k` (`events` order) at (t, x): from the compiled
        evaluation of the rates at that very state if there was one (an explicit Runge-Kutta
        step ends with it; `event_values` gives all of them at once there); else,
        where the compiled right-hand side is built with its events, from one compiled
        evaluation at (t, x) (the root finder's states inside a step: a sliding-plane contact's
        detach value is then its multiplier from that evaluation, not a Python solve); else the
        element's Python event function. An event fires where its value crosses zero in its
        `spec.direction`; its handler (`spec.handler`) is the jump map."""
        j = self._jit
        key = (t, x.tobytes())
        if j["values"] is not None and j["key"] == key:
            return j["values"][k]
        if j["fn"] is not None and j["events"]:
            _, status, values, _, _, _ = j["fn"](float(t), np.ascontiguousarray(x, dtype=float), self._u0, j["F"], j["I"])
            if status == 0:
                j["key"], j["values"] = key, values
                return values[k]
        return self.events[k].value(t, x, self)

    def event_values(self, t, x):
        """Every element event's value at (t, x), in `events` order: ``event_value(k, t, x)``
        for all k from one look-up (the last compiled evaluation at that very state, else one
        compiled evaluation, else the elements' Python event functions), bit for bit the same
        numbers. `porthamiltonian.integrate.simulate` asks it once per step.

        Returns
        -------
        ndarray, shape (len(events),)
        """
        j = self._jit
        n = len(self.events)
        values = j["values"]
        if values is not None and j["key"][0] == t and j["key"][1] == x.tobytes():
            return values[:n]
        if j["fn"] is not None and j["events"]:
            _, status, values, _, _, _ = j["fn"](float(t), np.ascontiguousarray(x, dtype=float), self._u0, j["F"], j["I"])
            if status == 0:
                j["key"], j["values"] = (t, x.tobytes()), values
                return values[:n]
        return np.array([self.events[k].value(t, x, self) for k in range(n)], dtype=float)

    # ----------------------------------------------------------------- integration interface
    # What an integrator needs from a compiled system, and all `porthamiltonian.integrate`
    # uses of it: the state layout (`layout`, `check_state`, `elements`), the rates (`rhs`,
    # `reference_rhs`), the element events (`events`, `event_value`) and their jump maps
    # (`apply_impulse`), the energy (`energy`, `storages`), the constraints (`constraints`,
    # `has_constraints`, `constraint_residuals`, `velocity_residuals`, `impulse_directions`,
    # `project_constraints`), the regimes elements take the integration over in
    # (`integrator_phases`) and the choice of the evaluation path (`plan_path`).

    def rhs(self, t, x, u=None):
        """dx/dt at (t, x) with external inputs u (default zero). Fast path: no validation.

        Through the compiled right-hand side, the Python one where it declines. The compiled
        function is built after `JIT_AFTER` evaluations of this system (module docstring of
        `porthamiltonian.compile.jit`): short runs never pay numba's compile time, long runs
        and sweeps do once. Within `simulate`, `plan_path` builds it earlier for a run expected
        to outlast `JIT_AFTER` evaluations.

        Parameters
        ----------
        t : float
            Time [s].
        x : ndarray, shape (layout.size,)
            State (not checked).
        u : ndarray, shape (n_inputs,), optional
            External inputs (default zero).

        Returns
        -------
        ndarray, shape (layout.size,)
            The rates, ledger quadratures included. An element that cannot evaluate the state
            raises (a `GeometryError` for a state beyond a contact's range).
        """
        if u is None:
            u = self._u0
        j = self._jit
        fn = j["fn"]
        if fn is None:
            if j["source"] is None:
                return self._rhs(t, x, u, False)
            j["count"] += 1
            if j["count"] <= JIT_AFTER:
                return self._rhs(t, x, u, False)
            self._load_jit()
            fn = j["fn"]
            if fn is None:
                return self._rhs(t, x, u, False)
        xdot, status, values, _, cv, _ = fn(t, x, u, j["F"], j["I"])
        if status:
            j["fallbacks"] += 1
            j["values"] = j["residuals"] = None
            return self._rhs(t, x, u, False)
        if cv is not None:   # the constraints' velocity residuals there (discrete gradient)
            j["residuals"] = (t, x, cv)
        if j["events"]:
            j["key"], j["values"] = (t, x.tobytes()), values
        return xdot

    def reference_rhs(self, t, x, u=None):
        """dx/dt at (t, x) by the generated Python code alone (never the compiled one): the
        reference the compiled path is checked against, and the evaluation that raises an
        element's own error for a state it cannot evaluate. No validation; `u` as in `rhs`."""
        return self._rhs(t, x, self._u0 if u is None else u, False)

    # the names these had before they were public (kept for existing callers)
    _plan_path = plan_path
    _event_value = event_value

    @property
    def has_constraints(self):
        """Whether the system has constraints (constraint elements or cut bonds), i.e.
        multipliers whose velocity residuals and gaps an integrator may check or project."""
        return bool(self._plan.constraints or self._plan.cuts)

    @property
    def storages(self):
        """The storage elements: a tuple of ``(path, element, own slice, reference slices)``
        (the element's energy is ``element.energy(x[own], tuple(x[r] for r in refs))``, its
        gradient likewise)."""
        return tuple(self._storages)

    @property
    def constraints(self):
        """The constraint elements: a tuple of ``(path, element, own slice, rows, columns)``
        with `rows` the indices of its velocity residuals in `velocity_residuals` and
        `columns` those of its multipliers among the unknowns (the columns of
        `impulse_directions`); both of length the element's dimension."""
        out, at = [], 0
        for c in self._plan.constraints:
            m = c["lam"].dim
            out.append((c["path"], c["obj"], c["slice"], np.arange(at, at + m),
                        np.arange(c["lam"].unknown.start, c["lam"].unknown.stop)))
            at += m
        return tuple(out)

    def velocity_residuals(self, t, x):
        """The constraint elements' velocity residuals at (t, x), concatenated in
        `constraints` order (inactive rows included as computed): from the compiled
        evaluation of the rates at that very state when there was one, else the compiled
        function when it is built, else the generated Python. Empty without constraints."""
        if not self._plan.constraints:
            return np.zeros(0)
        j = self._jit
        last = j["residuals"]
        if last is not None and last[1] is x and last[0] == t:   # from the rates just evaluated there
            return last[2]
        if j["fn"] is not None:
            _, status, _, _, cv, _ = j["fn"](t, x, self._u0, j["F"], j["I"])
            if not status:
                return cv
        ev = self._rhs(t, x, self._u0, True)
        return np.concatenate([ev["c"][c["path"]] for c in self._plan.constraints])

    def impulse_directions(self, t, x):
        """Gx at (t, x): the state change per unit of each unknown (multipliers and loop
        tears), shape (layout.size, n_multipliers); an impulse Lambda changes the state by
        ``Gx @ Lambda`` (`apply_impulse`). External inputs at zero."""
        return self._rhs(t, x, self._u0, True)["Gx"]

    @property
    def integrator_phases(self):
        """Regimes in which elements take the integration over (a reduced contact's phases in
        contact coordinates): dict phase name -> tuple of ``(path, element)`` declaring it in
        their `integrator_phases` attribute, in element order. `simulate` runs each name's
        registered phase (`porthamiltonian.integrate.phases`)."""
        out = {}
        for path, obj in self.elements.items():
            for name in getattr(obj, "integrator_phases", ()):
                out.setdefault(name, []).append((path, obj))
        return {k: tuple(v) for k, v in out.items()}

    def evaluate(self, t, x, u=None):
        """Every quantity at (t, x): a dict with "xdot", "u" (multipliers), "vars" (bond
        variables by name e<i>/f<i>), "c" (constraint velocity residuals by element) and
        "cut_c" (residuals of cut bonds)."""
        x = self.check_state(x)
        return self._rhs(t, x, self._u0 if u is None else self._check_u(u), True)

    def _check_u(self, u):
        return as_array(u, "u", (self.n_inputs,))

    def check_state(self, x, name="x"):
        """Validate a state vector's shape and finiteness (API boundary)."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.layout.size,):
            raise ParameterError(
                f"`{name}` must have shape ({self.layout.size},) for system {self.name!r} "
                f"({len(self.layout.blocks)} blocks + {len(self.layout.ledger)} ledger entries), got {x.shape}"
            )
        if not np.all(np.isfinite(x)):
            bad = [n for n, v in zip(self.layout.names(), x) if not np.isfinite(v)]
            raise ParameterError(f"`{name}` must be finite; non-finite entries: {bad[:5]}")
        return x

    # ----------------------------------------------------------------- states
    def default_state(self):
        """The elements' default initial states, ledger quadratures zero."""
        x = np.zeros(self.layout.size)
        for path, obj in self.elements.items():
            sl = self.layout.element_slice(path)
            if sl.stop > sl.start:
                x[sl] = obj.default_state()
        return x

    def initial_state(self, values=None, **kwargs):
        """A state vector from the defaults, overridden by "element.block" -> value.

        Keyword form: ``initial_state(m__p=1.0)`` is ``initial_state({"m.p": 1.0})``.
        Pose/quaternion blocks are checked to be unit quaternions. Elements then complete
        the blocks that follow from the configuration (`Element.initialize`: contact points
        and contact flags are found by a global search at the given poses). A block given
        explicitly is never overwritten: e.g. ``{"c/constraint.active": 0}`` starts a touching
        unilateral contact detached, so that an approaching start is an impact at t0.
        """
        values = dict(values or {})
        values.update({k.replace("__", "."): v for k, v in kwargs.items()})
        x = self.layout.pack(values, self.default_state())
        given = [(self.layout[key], x[self.layout[key]].copy()) for key in values]
        for path, obj in self.elements.items():
            sl = self.layout.element_slice(path)
            if sl.stop > sl.start:
                obj.validate_state(x[sl], f"initial state of {path!r}")
        # elements complete what follows from the configuration (contact points, contact flags)
        for path, obj in self.elements.items():
            sl = self.layout.element_slice(path)
            if sl.stop > sl.start:
                try:
                    x[sl] = obj.initialize(0.0, x[sl], tuple(x[r] for r in self._plan.refs[path]))
                except PortHamiltonianError as exc:
                    # say which element of which component: the element only knows its own name
                    raise type(exc)(f"{self.report.flat.label(path)}: {exc}") from exc
        for sl, value in given:
            x[sl] = value
        return x

    def element_state(self, path, x):
        """(own state, referenced blocks) of the element at `path` in state x: the arguments
        of its kernels, for calling them directly (e.g. a contact's distance in a plot)."""
        if path not in self.elements:
            raise ModelError(f"system {self.name!r} has no element {path!r}")
        x = np.asarray(x)
        return x[self.layout.element_slice(path)], tuple(x[s] for s in self._plan.refs[path])

    def project(self, x):
        """Normalize quaternions in pose/quaternion blocks (a new array)."""
        x = np.array(x, dtype=float)
        for b in self.layout.blocks:
            if b.group in ("pose", "quaternion"):
                q = x[b.start : b.start + 4]
                x[b.start : b.start + 4] = q / np.linalg.norm(q)
        return x

    def project_constraints(self, t, x, *, position=True, velocity=True, tol=1e-12, max_iter=20):
        """Project a state onto the constraint manifold (positions, then velocities).

        Positions: Gauss-Newton on the gaps, moving the configurations along the directions
        constraint impulses would move them (`StorageElement.displace`); rows without a gap
        are kept still. Velocities: one impulse G lambda with A lambda = -c, which is the
        change of least kinetic energy (metric M^-1) that zeroes the velocity residuals.
        `A` and `G` are the matrices of the acceleration-level solve, with every effort map D
        replaced by its Jacobian J (associated: friction does not act in a projection; before,
        a sliding contact's projection carried mu times its normal correction along the slip).
        Only active rows are
        projected (`ConstraintElement.active`): a detached foot keeps its gap and its
        velocity, a sliding contact its slip (before, the projection pulled a detached foot
        onto the ground and stopped it).

        Returns
        -------
        ndarray
            The projected state (ledger quadratures untouched).
        """
        plan = self._plan
        if not (plan.constraints or plan.cuts):
            return np.array(x, dtype=float)
        x = self.project(x)
        u0 = self._u0

        def gap_targets(ev, x):
            r = np.zeros(plan.n_rows)
            for c in plan.constraints:
                g = np.asarray(ev["g"][c["path"]], dtype=float)
                r[c["rows"]] = -np.where(np.isfinite(g), g, 0.0) * active_rows(c, x)
            return r

        if position and any(type(c["obj"]).gap is not ConstraintElement.gap for c in plan.constraints):
            for _ in range(max_iter):
                ev = self._rhs(t, x, u0, True, True)
                r = gap_targets(ev, x)
                if np.max(np.abs(r)) <= tol:
                    break
                dx = ev["Gx"] @ _solve(ev["A"], r)
                for path, obj, sl, _ in self._storages:
                    if sl.stop > sl.start:
                        x[sl] = obj.displace(x[sl], dx[sl])
        if velocity:
            ev = self._rhs(t, x, u0, True, True)
            r = self._zeroing_targets(ev, x, plan.constraints)
            for j, ci in enumerate(plan.cuts):
                r[ci["rows"]] = -ev["cut_c"][j]
            if np.max(np.abs(r)) > 0:
                x = x + ev["Gx"] @ _solve(ev["A"], r)
        return x

    def apply_impulse(self, t, x, element, target, work=False):
        """The state right after an impulse that sets `element`'s velocity residuals to `target`
        (an array, or a callable of the current residuals returning it).

        Every other constraint that takes part (and every cut) keeps its velocity residual; the impulse is the
        one of least kinetic-energy change (the acceleration-level matrices A and G of the
        compiled system), directed by the constraint Jacobians J; where an effort map D adds
        Coulomb friction (`ConstraintElement.impact_friction`), each such contact's impulse
        also carries friction along its slip before the impulse, up to mu times its normal
        impulse and never more than stops the slip (`compile.impact_friction.ImpactFriction`:
        Routh's stick-or-slide impact; its work is booked as absorbed by the contact). No-slip
        rows, being constraints, stick exactly. Inactive rows carry no impulse.

        A unilateral contact elsewhere cannot pull: the impulse is first solved with every
        other active unilateral contact released (`ConstraintElement.released`); a released
        contact that would then approach or stay (normal velocity residual above minus
        `_release_tolerance`) is restored, the most approaching first, and the impulse solved
        again, until every contact still released separates. This is an active-set solution of
        the impact's complementarity problem, exact where the contacts that stay are
        independent (a rimless wheel's or a walker's heel strike: the trailing foot leaves the
        ground), and it never solves with the redundant rows of two feet held at once. The
        contacts left on then come to rest (`come_to_rest`, the impacting ones excepted) and
        keep only the forces that push (`release_pulling_contacts`).

        Returns
        -------
        ndarray
            The new state; with ``work=True`` also a dict constraint path -> (supplied,
            absorbed) [J]: the impulse's work split per constraint, and the list of the
            contacts released. Over an impulse the
            kinetic energy changes by mean velocity times momentum change, so constraint k
            does the work -Lambda_k . J_k f_mean = Lambda_k . b_k - Lambda_k . c_mean_k: the
            first part is supplied by a driven (rheonomic) constraint, the second absorbed
            (by the impacting contact, it is the energy its impact dissipates).
        """
        plan = self._plan
        rows = next((c["rows"] for c in plan.constraints if c["path"] == element), None)
        if rows is None:
            raise ModelError(f"{element!r} is not a constraint element of system {self.name!r}")
        x = np.array(x, dtype=float)
        partners = self._impact_partners(t, x, element)
        out = self._simultaneous_impulse(t, x, element, target, partners) if partners else None
        xn, works, released, speed = out if out is not None else self._single_impulse(t, x, element, target, rows)
        xn, rest = self.come_to_rest(t, xn, work=True, skip={element, *(path for path, _ in partners)})
        jam = {}
        xn, pulling = self.release_pulling_contacts(t, xn, speed, works=jam)
        if not work:
            return xn
        out = works()
        for extra in (rest, jam):   # the settling impulse, a tangential impact after it (`_jam`)
            for path, (supplied, absorbed) in extra.items():
                before = out.get(path, (0.0, 0.0))
                out[path] = (before[0] + supplied, before[1] + absorbed)
        return xn, out, sorted(released + pulling)

    def come_to_rest(self, t, x, work=False, skip=()):
        """`x` after the impulse that zeroes the velocity residuals of the unilateral contacts
        that are on, except the paths in `skip` (their active rows; every other row keeps its
        residual); with ``work=True`` also its work per constraint path -> (0, absorbed) [J]
        (`_impulse_works`). `apply_impulse` calls it after every impulse (skipping the
        impacting contacts, whose residuals the impulse set: a bounce leaves), `porthamiltonian.simulate`
        at every element event before its handler.

        An on contact's residuals are zero in exact arithmetic; what they hold is the
        integration's drift (mm/s after a few strides of a trot at rtol 1e-4, a "stuck" foot
        creeping) or an impulse's slow separation, which the Newton law counts as staying
        (`_release_tolerance`). Left in place, a held contact keeps doing work through them,
        and one released with them comes straight back: a foot detached at zero force while
        its drift approaches the ground lands again at the same instant, and a foot leaving
        at 0.7 mm/s under its leg's thrust of hundreds of m/s^2 lands again 0.1 us later, its
        landing lifting the other foot of the pair (Go1's trot on sliding-plane feet: 1,856
        impacts at one instant, issue 34). This impulse is the change of least kinetic energy
        that zeroes them (`project_constraints`' velocity step on those rows). It may pull, by
        at most the residual times the contacts' effective mass, and it only removes kinetic
        energy (a projection in the metric M^-1): absorbed by each contact, which an impulse
        books with the impact's loss (`apply_impulse`: at an impact the contacts left at rest
        are part of it) and `porthamiltonian.simulate` books as stabilization at other events.
        The contacts' friction does not act in it: it corrects a residual, it is not an impact.
        A softened contact (``softening`` > 0: compliant rows, whose residual is a motion) and
        one that takes the integration over (`integrator_phases`) are left as they are.
        """
        plan = self._plan
        on = [c for c in plan.constraints if c["obj"].released(x[c["slice"]]) is not None
              and not getattr(c["obj"], "integrator_phases", ()) and c["obj"].softening == 0.0
              and c["path"] not in skip]
        if not on:
            return (x, {}) if work else x
        ev = self._rhs(t, x, self._u0, True, True)
        r = self._zeroing_targets(ev, x, on)
        if not np.any(r):
            return (x, {}) if work else x
        lam = _solve(ev["A"], r)
        xn = x + ev["Gx"] @ lam
        return (xn, self._impulse_works(t, x, xn, ev, lam, {})) if work else xn

    def _zeroing_targets(self, ev, x, constraints):
        """The change of the rows that zeroes the velocity residuals of the active rows of
        `constraints` (entries of the plan) at the evaluation `ev` of state x; 0 on every other
        row (kept) (`project_constraints`, `come_to_rest`)."""
        r = np.zeros(self._plan.n_rows)
        for c in constraints:
            r[c["rows"]] = -np.asarray(ev["c"][c["path"]], dtype=float) * active_rows(c, x)
        return r

    def _single_impulse(self, t, x, element, target, rows):
        """`apply_impulse` at `element` alone: ``(state after, works, released, speed)``,
        ``works`` a callable giving the impulse's work per constraint (`_impulse_works`),
        ``speed`` the approach speed before the impulse [m/s]."""
        plan = self._plan
        released = {}   # path -> (state slice, own state while active)
        for c in plan.constraints:
            own = c["obj"].released(x[c["slice"]]) if c["path"] != element else None
            if own is not None:
                released[c["path"]] = (c["slice"], x[c["slice"]].copy())
                x[c["slice"]] = own
        while True:
            ev = self._rhs(t, x, self._u0, True, True)
            c_now = ev["c"][element]
            goal = target(c_now) if callable(target) else target
            r = np.zeros(plan.n_rows)
            # inactive rows (identity rows of A, see codegen: a sliding contact's no-slip rows) take
            # no impulse: their targets are their residuals
            r[rows] = (np.asarray(goal, dtype=float) - c_now) * self._active_rows(element, x)
            friction = ImpactFriction(self, t, x, ev, self._active_paths(x))
            s, (lam, G) = friction.settle(lambda A, G: (_solve(A, r), G))
            xn = x + G @ lam
            speed = abs(float(c_now[0]))   # the contacts released here leave the element's residual as it is
            if not released:
                break
            back = self._restored_contact(t, xn, released, speed)
            if back is None:
                break
            sl, active = released.pop(back)
            x[sl] = active
        return xn, lambda: self._impulse_works(t, x, xn, ev, lam, friction.works(lam, s)), sorted(released), speed

    def _active_rows(self, path, x):
        """The mask of `path`'s active rows at state x (`ConstraintElement.active`)."""
        return active_rows(next(c for c in self._plan.constraints if c["path"] == path), x)

    def _active_paths(self, x):
        """The constraint paths whose first row is active at state x."""
        return {c["path"] for c in self._plan.constraints if c["obj"].active(x[c["slice"]])[0] > 0.5}

    def _impulse_works(self, t, x, xn, ev, lam, friction):
        """The impulse `lam` (taking x to xn; ``ev`` the evaluation at x) split per constraint
        path -> (supplied, absorbed) [J] (`apply_impulse`); ``friction``: path -> the work its
        friction impulse absorbed (`ImpactFriction.works`)."""
        plan = self._plan
        ev2 = self._rhs(t, xn, self._u0, True, True)
        works = {}
        for c in plan.constraints:
            L = lam[c["lam"].unknown]
            obj = c["obj"]
            b = obj.terms(t, x[c["slice"]], tuple(x[sl] for sl in plan.refs[c["path"]]))[1]
            c_mean = 0.5 * (ev["c"][c["path"]] + ev2["c"][c["path"]])
            works[c["path"]] = (float(L @ b), float(L @ c_mean) + friction.get(c["path"], 0.0))
        for j, ci in enumerate(plan.cuts):
            L = lam[ci["mult"].unknown]
            c_mean = 0.5 * (ev["cut_c"][j] + ev2["cut_c"][j])
            works[ci["cut"].node] = (0.0, float(L @ c_mean))
        return works

    def _impact_partners(self, t, x, element):
        """[(path, EventOutcome)]: the detached contacts that join an impulse at `element` now
        (their impact events' `EventSpec.joins_impact` says they are within their tolerance
        of touching; the outcome is their impact handler's: activated state, Newton target,
        state after)."""
        out = []
        for b in self.events:
            joins = b.spec.joins_impact
            if joins is None or b.element == element:
                continue
            own, refs = x[b.own], tuple(x[s] for s in b.refs)
            if joins(t, own, refs):
                out.append((b.element, b.spec.handler(t, own, refs)))
        return out

    #: Newton impacts solved by enumerating the active sets of at most this many contacts
    #: (2^n small solves); beyond it, the single-contact active-set rule of `apply_impulse`
    MAX_SIMULTANEOUS = 10

    def _simultaneous_impulse(self, t, x, element, target, partners):
        """The simultaneous Newton impact of `element` and its `partners` (`apply_impulse`):
        ``(state after, works, released, speed)`` as `_single_impulse` (``speed`` the largest
        approach speed of the impacting contacts), or None when no active set
        solves it (then the caller resolves `element` alone).

        The contacts taking part are the impacting ones (`element`, the partners: normal
        target -e c^-, their other rows such as no-slip held at their targets) and the other
        active unilateral contacts (target: keep their velocity residual). On their normal
        rows the impulse solves the linear complementarity problem of Newton's impact law::

            Lambda_i >= 0,   c_i^+ <= g_i,   Lambda_i (c_i^+ - g_i) = 0,

        c^+ = c^- + A Lambda (A, G the acceleration-level matrices at the state with every
        one of them active; bilateral constraints and cuts keep their residuals), by
        enumerating the active sets from the largest (A's blocks are positive definite for
        independent contacts, so the solution is unique; a singular block is skipped). A
        contact with no impulse that separates is off afterwards (a partner stays detached,
        an active contact is released); one that does not (c^+ at its target: redundant
        contacts, a plastic impact at rest) stays on; an impacting one takes its handler's
        state after (a bounce leaves it off). Tolerances: Lambda_i >= -1e-12 max|Lambda|,
        c_i^+ <= g_i + `RELEASE_TOL` times the largest approach speed (at least the
        contacts' largest ``rest_speed``: `_release_tolerance`).
        """
        plan = self._plan
        cons = {c["path"]: c for c in plan.constraints}
        x0 = x.copy()
        goals, afters = {element: target}, {}
        for path, out in partners:
            x[cons[path]["slice"]] = out.x
            goals[path], afters[path] = out.impulse, out.x_after
        others = [c["path"] for c in plan.constraints
                  if c["path"] not in goals and c["obj"].released(x[c["slice"]]) is not None]
        comp = list(goals) + others
        if len(comp) > self.MAX_SIMULTANEOUS:
            return None
        ev = self._rhs(t, x, self._u0, True, True)
        c_now = {p: np.asarray(ev["c"][p], dtype=float) for p in comp}
        goal = {p: np.asarray(g(c_now[p]) if callable(g) else g, dtype=float) for p, g in goals.items()}
        goal.update({p: c_now[p].copy() for p in others})
        r = np.zeros(plan.n_rows)
        for p in comp:
            r[cons[p]["rows"]] = (goal[p] - c_now[p]) * self._active_rows(p, x)
        speed = max(max(c_now[p][0] for p in goals), 0.0)
        tol = self._release_tolerance([cons[p]["obj"] for p in comp], speed)
        rows_of = {p: np.arange(plan.n_rows)[cons[p]["rows"]] for p in comp}
        cols_of = {p: np.arange(ev["A"].shape[1])[cons[p]["lam"].unknown] for p in comp}

        def newton_lcp(A, G):
            for held, lam in _active_sets(A, r, [(rows_of[p], cols_of[p]) for p in comp]):
                inside = [comp[i] for i in held]
                c_after = A @ lam
                scale = np.abs(lam).max()
                if all(lam[cols_of[p][0]] >= -1e-12 * scale for p in inside) and all(
                        c_now[p][0] + c_after[rows_of[p][0]] <= goal[p][0] + tol for p in comp if p not in inside):
                    return lam, G, inside, c_after
            return None

        friction = ImpactFriction(self, t, x, ev, self._active_paths(x))
        settled = friction.settle(newton_lcp)
        if settled is None:
            return None
        s, (lam, Gx, inside, c_after) = settled
        xn = x + Gx @ lam
        # a contact without impulse that does not separate (c+ at its target to the tolerance:
        # redundant contacts, a plastic impact already at rest) stays on; one that separates is off
        touching = set(inside) | {p for p in comp if c_now[p][0] + c_after[rows_of[p][0]]
                                   >= goal[p][0] - tol}
        released = []
        for p in comp:
            if p not in touching and p != element:
                sl = cons[p]["slice"]
                if p in afters:
                    xn[sl] = x0[sl]          # a partner that separates without impulse stays detached
                else:
                    xn[sl] = cons[p]["obj"].released(x[sl])
                    released.append(p)
        x_impulse = xn.copy()
        for p, after in afters.items():
            if p in touching and after is not None:
                xn[cons[p]["slice"]] = after(self, t, xn)
        if element not in touching:   # the contact whose event fired separates: off (its handler's after keeps it off)
            xn[cons[element]["slice"]] = cons[element]["obj"].released(x[cons[element]["slice"]])
        _log.debug("simultaneous impact at t = %.9g s: %s with impulse, %s without", t, inside,
                   [p for p in comp if p not in inside])
        return xn, lambda: self._impulse_works(t, x, x_impulse, ev, lam, friction.works(lam, s)), released, speed

    #: a contact left on by an impulse is released when its normal force pulls by more than this
    #: times the largest normal force of the contacts left on (`release_pulling_contacts`)
    PULL_TOL = 1e-8

    def release_pulling_contacts(self, t, x, speed=0.0, works=None):
        """State `x` with the unilateral contacts that are on at rest but whose normal force
        would pull switched off, and the list of their paths (`apply_impulse` after every
        impulse, `porthamiltonian.simulate` at a run's start).

        The normal forces of contacts that stay on change continuously in time, except where an
        event changes the state: an impulse settles velocities only, so a contact it leaves on
        at rest (a plastic impact, a foot that joined a simultaneous impact) may have to pull
        to stay on, and a run may start with one. Its detach event (the normal force crossing
        zero) would then start past its zero and never fire, and the contact would hold its
        bodies together. ANYmal C's 10 cm drop on sliding-plane feet did that: its last landing
        impact left all four feet on, their forces pulling (-4,700 N each), and the pulls grew
        until the step size underflowed 3.4 ms later (issue 33).

        Among the contacts on with a normal velocity residual at rest (within
        `_release_tolerance` of an impact's approach `speed` [m/s], 0 at a run's start; a bounce
        leaving is not at rest and is left to its event), this solves the acceleration-level
        complementarity problem of their normal forces and accelerations::

            lambda_i >= 0,   a_i <= 0,   lambda_i a_i = 0

        (a_i the normal row of contact i, positive approaching), by enumerating the active sets
        from the largest, as `_simultaneous_impulse` does for impulses, with the rows linear in
        the multipliers about the evaluation's solution (its acceleration-level matrix A: rows(u)
        = A (u - u*)); the contacts outside the first set that solves it are released. Tolerances:
        lambda_i >= -`PULL_TOL` max|lambda|, a_i <= `PULL_TOL` max|A u*| (the solve's relative
        round-off). When every force already pushes (the common case) nothing changes, at the
        cost of one evaluation; beyond `MAX_SIMULTANEOUS` candidates nothing changes either.
        A contact that takes the integration over while it is on (`integrator_phases`: the
        reduced contact) is left to its phase, which separates a pulling contact when it starts.
        Before that, the stick phases of the contacts that have one are settled
        (`_stuck_states`). With `works` (a dict: `apply_impulse` passes one), a set of contacts
        with no consistent forces is first given a tangential impact where it can take one
        (`_jam`: the sliding contacts with a stick phase stopped by an impulse inside their
        friction cones, Génot & Brogliato's dynamic jam), its work added to `works` (path ->
        (supplied, absorbed)), and the forces solved again.

        Raises
        ------
        IntegrationError
            No set of the contacts has consistent forces: held, some pull; released, some move
            into their surfaces. The message names them and their forces, and Painlevé's paradox
            where the same contacts without friction push (ANYmal C's legs landing with friction
            0.8, sliding: friction reverses their normal mobility).
        """
        plan = self._plan
        x = self._stuck_states(t, x)
        active = [c for c in plan.constraints if c["obj"].released(x[c["slice"]]) is not None
                  and not getattr(c["obj"], "integrator_phases", ())]
        if not active:
            return x, []
        ev = self._rhs(t, x, self._u0, True)
        tol = self._release_tolerance([c["obj"] for c in active], speed)
        resting = [c for c in active if float(ev["c"][c["path"]][0]) >= -tol]
        if not resting or len(resting) > self.MAX_SIMULTANEOUS:
            return x, []
        leaving = [c for c in active if c not in resting]
        if leaving:   # a bounce: off for the force problem (its event's `after` switches it off)
            xe = x.copy()
            for c in leaving:
                xe[c["slice"]] = c["obj"].released(x[c["slice"]])
            ev = self._rhs(t, xe, self._u0, True)
        A, u = ev["A"], np.asarray(ev["u"], dtype=float)
        ncol = [np.arange(len(u))[c["lam"].unknown][0] for c in resting]
        nrow = [np.arange(plan.n_rows)[c["rows"]][0] for c in resting]
        lam_tol = self.PULL_TOL * max(np.abs(u[ncol]).max(), 1e-300)
        if np.all(u[ncol] >= -lam_tol):
            return x, []
        b = A @ u
        acc_tol = self.PULL_TOL * max(np.abs(b[nrow]).max(), 1e-300)
        for held, v in _active_sets(A, b, [(c["rows"], c["lam"].unknown) for c in resting]):
            off = [i for i in range(len(resting)) if i not in held]
            a = A @ v - b
            if all(v[ncol[i]] >= -lam_tol for i in held) and all(a[nrow[i]] <= acc_tol for i in off):
                break
        else:
            jam = None if works is None else self._jam(t, x, resting)
            if jam is None:
                raise IntegrationError(self._no_contact_forces(t, x, resting, u[ncol]))
            x, jam_works = jam
            works.update(jam_works)
            return self.release_pulling_contacts(t, x, speed)
        x = x.copy()
        for i in off:
            x[resting[i]["slice"]] = resting[i]["obj"].released(x[resting[i]["slice"]])
        return x, [resting[i]["path"] for i in off]

    def _jam(self, t, x, resting):
        """Painlevé's paradox at sliding contacts with a stick phase resolved by a tangential
        impact (Génot & Brogliato 1999: the dynamic jam): ``(state, works)`` after the impulse
        that stops the slip of every such contact among `resting` (their no-slip rows held at
        zero, every other residual kept), if that impulse lies in each one's friction cone
        (normal impulse >= 0, tangential at most mu times it); else None."""
        xs, jam = x.copy(), []
        for c in resting:
            own = c["obj"].jammed(x[c["slice"]])
            if own is not None:
                xs[c["slice"]] = own
                jam.append(c)
        if not jam:
            return None
        ev = self._rhs(t, xs, self._u0, True, True)
        r = np.zeros(self._plan.n_rows)
        for c in jam:
            rows = np.arange(self._plan.n_rows)[c["rows"]]
            r[rows[1:]] = -np.asarray(ev["c"][c["path"]], dtype=float)[1:]
        lam = _solve(ev["A"], r)
        if not all(c["obj"].in_cone(lam[c["lam"].unknown]) for c in jam):
            return None
        xn = xs + ev["Gx"] @ lam
        _log.debug("tangential impact (jam) at t = %.9g s: %s", t, [c["path"] for c in jam])
        return xn, self._impulse_works(t, xs, xn, ev, lam, {})

    def _stuck_states(self, t, x):
        """`x` with the stick phase of every contact that has one settled (its element's
        ``stuck_state``: stuck where it slips slower than its slip speed and the no-slip force
        lies in its friction cone, else sliding)."""
        for c in self._plan.constraints:
            if not getattr(c["obj"], "integrator_phases", ()):
                own = c["obj"].stuck_state(self, t, x)
                if own is not None and not np.array_equal(own, x[c["slice"]]):
                    x = x.copy()
                    x[c["slice"]] = own
        return x

    def _no_contact_forces(self, t, x, resting, pull):
        """The message of `release_pulling_contacts` when no active set solves the contacts' forces:
        which contacts, their forces, and whether friction is the cause (the frictionless,
        associated problem solved with the same contacts on pushes: Painlevé's paradox)."""
        ev = self._rhs(t, x, self._u0, True, True)
        push = np.array([ev["u"][c["lam"].unknown][0] for c in resting])
        names = ", ".join(c["path"] for c in resting)
        forces = ", ".join(f"{f:.4g}" for f in pull)
        msg = (f"at t = {t:.9g} s the contacts on at rest ({names}) cannot carry their forces: "
               f"held, their normal forces pull ({forces} N); released, they would move into their surfaces. "
               "No set of them solves the complementarity problem of the normal forces")
        if np.all(push >= 0.0):
            mus = sorted({float(c["obj"].mu) for c in resting if getattr(c["obj"], "friction", "") == "coulomb"})
            msg += (f". Without friction the same contacts push ({', '.join(f'{f:.4g}' for f in push)} N): "
                    "friction reverses their normal mobility (Painlevé's paradox"
                    + (f", friction coefficient {', '.join(f'{m:g}' for m in mus)}" if mus else "")
                    + "); a lower friction coefficient or a compliant contact avoids it")
        return msg

    #: a contact released for an impulse elsewhere stays released only if it then separates
    #: faster than RELEASE_TOL times the impact's approach speed, or than its rest speed
    #: (`_release_tolerance`)
    RELEASE_TOL = 1e-9

    @classmethod
    def _release_tolerance(cls, contacts, speed):
        """How fast a contact must separate after an impulse to count as separated [m/s]:
        `RELEASE_TOL` times the impact's approach `speed`, and at least the largest
        `rest_speed` of the `contacts` taking part (the speed below which their impacts are
        plastic: a slower separation is a contact at rest, which `come_to_rest` then settles
        and `release_pulling_contacts` keeps or releases by its force). A foot touching down
        at rest has an approach speed of round-off size; a tolerance relative to it alone read
        the -2.7e-11 m/s the impulse solve left on such a foot as a separation, switched the
        contact off with the foot on the ground and accelerating into it, and its impact fired
        again at the same instant without end (robot-drop on the sliding plane, 10 cm: 10,000
        impacts at t = 0.329 s, issue 33). A floor of 1e-6 rest speeds, kept until Go1's trot
        on sliding-plane feet, read a foot leaving at 0.7 mm/s after another's landing as
        separated, and it landed again 0.1 us later, again and again (issue 34)."""
        rest = max((float(getattr(c, "rest_speed", 0.0)) for c in contacts), default=0.0)
        return max(cls.RELEASE_TOL * speed, rest)

    def _restored_contact(self, t, xn, released, speed):
        """The released contact that would approach most (or not separate) after the impulse
        that gave state `xn`, or None if every one separates (`apply_impulse`)."""
        objs = {c["path"]: c["obj"] for c in self._plan.constraints}
        worst, found = -self._release_tolerance([objs[p] for p in released], speed), None
        for path in released:
            sl, active = released[path]
            xa = xn.copy()
            xa[sl] = active   # the row's residual as if it were active (its Jacobian row is the same)
            c = float(self._rhs(t, xa, self._u0, True, True)["c"][path][0])
            if c >= worst:
                worst, found = c, path
        return found

    # ----------------------------------------------------------------- energy
    def element_energies(self, x):
        """Stored energy of every storage element at state x: dict path -> H [J]."""
        out = {}
        for path, obj, sl, refs in self._storages:
            out[path] = float(obj.energy(x[sl], tuple(x[r] for r in refs)))
        return out

    def element_energy_series(self, X):
        """Stored energy of every storage element at the states ``X`` (N, n): dict path ->
        ndarray (N,) [J], each entry equal to `element_energies` at that state (to round-off).

        An element with a method ``energies(X_own, refs)`` (its own states (N, n_x) and its
        references' series, each (N, k)) computes them all in one call (a compiled loop: the
        compliant contact's, `library.compliant_contact.ContactSpring.energies`); the others
        are evaluated state by state. This is what the energy ledger of a trajectory reads
        (`Trajectory.energies`): per-state Python contact geometry used to cost the Go1
        quadruped's run as much as its integration (benchmarks/results/robot_speed.md)."""
        X = np.asarray(X, dtype=float)
        out = {}
        for path, obj, sl, refs in self._storages:
            own = np.ascontiguousarray(X[:, sl])
            series = tuple(np.ascontiguousarray(X[:, r]) for r in refs)
            batch = getattr(obj, "energies", None)
            if batch is not None:
                out[path] = np.asarray(batch(own, series), dtype=float)
            else:
                out[path] = np.array([float(obj.energy(own[k], tuple(s[k] for s in series)))
                                      for k in range(X.shape[0])])
        return out

    def energy(self, x):
        """Total stored energy H(x) [J]."""
        return sum(self.element_energies(x).values())

    def port_variables(self, t, x, u=None):
        """Effort and flow at every port of every element of the flat graph.

        Returns a dict ``(element path, port name) -> (e, f)`` of arrays of the bond's
        dimension, oriented so that ``e @ f`` is the power flowing *into* the element through
        that port [W]: the bond's effort for the port at the half-arrow's head, its negative at
        the tail. For a screw port, ``e`` is the wrench the element receives and ``f`` the
        twist, both in the port's frame; the wrench the element exerts on its neighbour is
        ``-e``. Cut bonds (dependent storages, algebraic-loop tears) report the variable of
        their own side. Not for the hot path: it evaluates every bond once.
        """
        V = self.evaluate(t, x, u)["vars"]
        cut = {c.bond: c for c in self.report.cuts}
        out = {}
        for i, b in enumerate(self.report.flat.bonds):
            for end, sgn in ((b.tail, -1.0), (b.head, 1.0)):
                e, f = V[f"e{i}"], V[f"f{i}"]
                c = cut.get(i)
                if c is not None and (c.node, c.port) == end:
                    if c.kind == "flow":
                        f = V[f"fs{i}"]
                    else:
                        e = V[f"es{i}"]
                out[end] = (sgn * np.asarray(e, dtype=float), np.asarray(f, dtype=float))
        return out

    def port_powers(self, t, x, u=None):
        """Power flowing into every element through its ports [W]: dict path -> float.

        Storages receive dH/dt; resistors the dissipated power; sources the negative of the
        supplied power; junctions and two-ports zero (to round-off). Sums `port_variables`.
        """
        out = {p: 0.0 for p in self.report.flat.elements}
        for (path, _), (e, f) in self.port_variables(t, x, u).items():
            out[path] += float(e @ f)
        return out

    def constraint_series(self, ts, xs):
        """Over the samples ``(ts, xs)`` (a trajectory's, already valid): per constraint path
        ``(lambda, c, g)`` arrays of shape (N, rows) and per cut bond name ``lambda`` (N, dim),
        rows a unilateral constraint has switched off zero in ``c`` and ``g``, as
        `multipliers` and `constraint_residuals` give them for one state. One compiled
        evaluation per sample where the compiled right-hand side is built (it is not built
        here: short runs' post-processing does not pay numba's compile), the Python evaluation
        for the states it declines or where it is not built."""
        plan, j = self._plan, self._jit
        N = len(ts)
        cons = [(c, c["lam"].dim) for c in plan.constraints]
        lam = {c["path"]: np.zeros((N, m)) for c, m in cons}
        cut = {self.report.flat.bonds[ci["cut"].bond].name: np.zeros((N, ci["mult"].dim)) for ci in plan.cuts}
        res = {c["path"]: np.zeros((N, m)) for c, m in cons}
        gap = {c["path"]: np.zeros((N, m)) for c, m in cons}
        for k, (t, x) in enumerate(zip(ts, xs)):
            status = 1
            if j["fn"] is not None:
                _, status, _, u, cv, gv = j["fn"](float(t), x, self._u0, j["F"], j["I"])
            if status:
                ev = self.evaluate(t, x)
                u = ev["u"]
                cv = np.concatenate([ev["c"][c["path"]] for c, _ in cons]) if cons else np.zeros(0)
                gv = np.concatenate([c["obj"].gap(t, x[c["slice"]], tuple(x[s] for s in plan.refs[c["path"]]))
                                     for c, _ in cons]) if cons else np.zeros(0)
            for ci in plan.cuts:
                cut[self.report.flat.bonds[ci["cut"].bond].name][k] = u[ci["mult"].unknown]
            at = 0
            for c, m in cons:
                act = c["obj"].active(x[c["slice"]]) > 0.5
                lam[c["path"]][k] = u[c["lam"].unknown]
                res[c["path"]][k] = np.where(act, cv[at : at + m], 0.0)
                gap[c["path"]][k] = np.where(act, gv[at : at + m], 0.0)
                at += m
        return {p: (lam[p], res[p], gap[p]) for p in lam}, cut

    _constraint_series = constraint_series   # its name before it was public

    def constraint_residuals(self, t, x):
        """Velocity-level residuals (c) and position-level gaps (g) of every constraint.

        Rows a unilateral constraint has switched off (detached contacts) report zero.
        """
        ev = self.evaluate(t, x)
        gaps, cs = {}, {}
        for c in self._plan.constraints:
            obj = c["obj"]
            own = x[c["slice"]]
            act = obj.active(own)
            gaps[c["path"]] = np.where(act > 0.5, obj.gap(t, own, tuple(x[s] for s in self._plan.refs[c["path"]])), 0.0)
            cs[c["path"]] = np.where(act > 0.5, ev["c"][c["path"]], 0.0)
        return {"c": cs, "cut_c": ev["cut_c"], "g": gaps}

    def multipliers(self, t, x):
        """Multipliers by owner: constraint path -> lambda, and cut bond name -> lambda.

        From one compiled evaluation where the compiled right-hand side is built (the Python
        evaluation where it declines the state or is not built); the two agree to round-off."""
        j = self._jit
        u = None
        if j["fn"] is not None:
            x = np.ascontiguousarray(self.check_state(x))
            _, status, _, uf, _, _ = j["fn"](float(t), x, self._u0, j["F"], j["I"])
            u = uf if status == 0 else None
        if u is None:
            u = self.evaluate(t, x)["u"]
        out = {}
        for c in self._plan.constraints:
            out[c["path"]] = u[c["lam"].unknown]
        for ci in self._plan.cuts:
            out[self.report.flat.bonds[ci["cut"].bond].name] = u[ci["mult"].unknown]
        return out

    # ----------------------------------------------------------------- analysis
    def analysis(self, t, x, u=None):
        """H, grad H, J, R, B, G at a state (see `porthamiltonian.compile.analysis.Analysis`)."""
        from .analysis import analyze

        return analyze(self, t, self.check_state(x), None if u is None else self._check_u(u))

    def linearize(self, t, x, u=None, *, step=None):
        """Linear model at (t, x, u): state space on the constraint manifold and the
        port-Hamiltonian matrices J, R, Q, B, G on the tangent space
        (`porthamiltonian.compile.linearize.linearize`; `step` defaults to its DEFAULT_STEP)."""
        from .linearize import DEFAULT_STEP, linearize

        return linearize(self, t, x, u, step=DEFAULT_STEP if step is None else step)

    def symbolic_equations(self, parameters="symbols"):
        """State equations as sympy expressions (scalar graphs of sympy-capable elements).

        Returns
        -------
        SymbolicEquations
            `.states` (symbols), `.rates` (sympy Matrix), `.parameters` (symbol -> value),
            printable.
        """
        from .symbolic import symbolic_equations

        return symbolic_equations(self, parameters=parameters)

    def _repr_html_(self):
        """State blocks, multipliers, inputs and events as an HTML table (Jupyter's rich display)."""
        from ..diagnostics.html import system_html

        return system_html(self)

    def __repr__(self):
        return (
            f"<PHSystem {self.name!r}: {len(self.layout.blocks)} state blocks ({self.layout.n_physical} numbers), "
            f"{self.n_multipliers} multipliers/unknowns, {len(self.events)} events>"
        )
