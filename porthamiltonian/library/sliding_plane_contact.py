"""Stiff contact: the sliding-plane constraint (Tasora & Righettini, *Sliding contact between
freeform surfaces*, 2003; unilateral, Drake, *Contact surface constraints*).

`SlidingPlaneContact(...)` returns a component with the same ports as `CompliantContact`
("a", "b", bonded from the two bodies' "B" ports), so a model swaps one for the other with
one argument. Inside is a `SlidingPlaneConstraint`: point P of surface b stays on the
tangent plane of surface a at S. P and S move on their surfaces: the contact parameters are
carried in the state only as warm starts and re-projected exactly (Newton) at every
evaluation (the position problem); their rates are the contact kinematics (the speed
problem, Tasora & Righettini 2003, eq. 23 = docs/math.md sec. 5 with Delta = 0).

Rows (contact frame C: z = n_a from a toward b, origin on the tangent plane; T_C the twist of
b relative to a in C; R_k f = -(T_C)_k)::

    normal                  c = -dDelta/dt = R_5 f,   gap g = -Delta (penetration)
    no-slip (friction="rolling") two more rows c = R_3 f, R_4 f (the sliding velocity)

A positive multiplier is a compressive normal force (or, for the no-slip rows, the friction
force components). The constraint bias (the part of dc/dt without body accelerations) is

    beta_k = dr_k/dt . s_O + r_k . (dw_b x O + w x dO/dt + dv_b)

with r_k the row's direction (n1, e_x, e_y in frame 1), s_O = w x O + v the velocity of
body b's material point at O, (dw_b, dv_b) = -(w1 x w, w1 x v + v1 x w) the part of the
relative twist's rate due to frame 1 moving, and dO/dt, dn1/dt, de_k/dt from the contact
kinematics. Tasora & Righettini 2003 state it as "only the centripetal marker accelerations"; the two are
the same equation (the wheel on a plane gives q_y'' = 0 exactly, seed eq. 43). For the
no-slip rows the moving-contact-point terms (dO/dt, de_k/dt) are what keeps rolling
energy-conserving.

Friction: "frictionless"; "rolling": no slip (two more rows); "coulomb": Coulomb's law with a
stick phase (a unilateral contact; the contact flag is 1 sliding, 2 stuck):

* sliding, the friction is regularized and proportional to the normal multiplier,
  f_t = -mu lambda_n v_t / sqrt(|v_t|^2 + eps^2) (a non-associated effort map, whose
  dissipation is booked in the ledger);
* when the slip speed falls below `eps` (event "stick") a tangential impulse stops it (its
  kinetic energy booked as lost) and the two no-slip rows hold the contact, their force the
  static friction (a body held by friction does not creep);
* stuck, the contact slides again when that force leaves the cone mu lambda_n (event "slip");
* after every impulse and at a run's start a contact on is settled (`stuck_state`): stuck
  where it slips slower than `eps` and the no-slip force lies in the cone, else sliding (a
  foot whose landing impulse stopped its slip lands stuck).

(A bilateral "coulomb" contact has no stick phase: its friction stays the regularized law.)

Unilateral (default): the contact detaches when the normal multiplier crosses zero (an event on
the system's multiplier) and is re-established by a Newton impact when the gap closes:
c_n after = -e c_n before (and zero sliding for "rolling"; with "coulomb" the impulse carries
friction along the slip before it, at most mu times the normal impulse and never more than
stops the slip: `impact_friction`, `porthamiltonian.compile.impact_friction`); the kinetic
energy the impact removes is booked as lost. A `TouchdownGuard` (``guard=``) lets the impact happen only once
the guard is armed (a walker's swing foot passing through the ground at mid-stance,
`porthamiltonian.library.touchdown`).
"""

from __future__ import annotations

import difflib
import math
import warnings

import numpy as np

from porthamiltonian._validate import as_finite_float
from porthamiltonian.bondgraph.element import ConstraintElement, EventOutcome, EventSpec, Kernel, register_element
from porthamiltonian.bondgraph.graph import BondGraph
from porthamiltonian.bondgraph.junctions import Junction1
from porthamiltonian.bondgraph.ports import Port, StateBlock
from porthamiltonian.errors import ContactWarning, GeometryError, ParameterError
from porthamiltonian.kernels import sliding_plane as _ksp

from .compliant_contact import _contiguous, _padded, call_kernel, pair_record
from .contact_geometry import ContactPair
from .touchdown import TouchdownGuard

__all__ = ["SlidingPlaneContact", "SlidingPlaneConstraint", "FRICTION_MODES"]

FRICTION_MODES = ("frictionless", "coulomb", "rolling")

#: a unilateral contact starting detached closer than this fraction of the smaller surface's
#: size is probably meant to touch: `initialize` warns (`ContactWarning`)
NEAR_FRACTION = 1e-3
_X, _CH, _ACT = slice(0, 4), slice(4, 6), 6


@register_element
class SlidingPlaneConstraint(ConstraintElement):
    """The sliding-plane contact constraint (module docstring). Built by `SlidingPlaneContact`.

    Own state (7): contact parameters (u1, v1, u2, v2) [auxiliary], their charts and the
    contact flag [discrete].
    """

    type_name = "SlidingPlaneConstraint"

    def __init__(self, name, pair: ContactPair, *, friction="frictionless", mu=0.0, eps=1e-3, restitution=0.0,
                 unilateral=True, stabilization=None, softening=0.0, max_gap=None, relax=1.0, rest_speed=1e-3,
                 guard=None, impact_gap=1e-9):
        super().__init__(name)
        if friction not in FRICTION_MODES:
            close = difflib.get_close_matches(str(friction), FRICTION_MODES, n=1)
            raise ParameterError(
                f"`friction` must be one of {FRICTION_MODES}, got {friction!r}" + (f"; did you mean {close[0]!r}?" if close else "")
            )
        self.pair = pair
        self.friction = friction
        self.mu = as_finite_float(mu, "mu", nonnegative=True)
        self.eps = as_finite_float(eps, "eps", positive=True)
        e = as_finite_float(restitution, "restitution")
        if not 0.0 <= e <= 1.0:
            raise ParameterError(f"`restitution` must lie in [0, 1], got {e!r}")
        self.restitution = e
        self.unilateral = bool(unilateral)
        self.stabilization = None if stabilization is None else tuple(float(v) for v in stabilization)
        self.softening = as_finite_float(softening, "softening", nonnegative=True)
        self.max_gap = None if max_gap is None else as_finite_float(max_gap, "max_gap", positive=True)
        self.relax = as_finite_float(relax, "relax", nonnegative=True)
        self.rest_speed = as_finite_float(rest_speed, "rest_speed", nonnegative=True)
        self.impact_gap = as_finite_float(impact_gap, "impact_gap", nonnegative=True)
        if guard is not None and not isinstance(guard, TouchdownGuard):
            raise ParameterError(f"`guard` must be a TouchdownGuard or None, got {guard!r}")
        if guard is not None and not self.unilateral:
            raise ParameterError("`guard` gates the impact of a unilateral contact; a bilateral one (unilateral=False) "
                                 "is always on")
        self.guard = guard
        # Coulomb: the no-slip rows are active while the contact sticks (flag 2), `active`
        self._rows = (5, 3, 4) if friction in ("rolling", "coulomb") else (5,)
        self._row_array = np.array(self._rows, dtype=np.int64)

    # ---- declaration
    @property
    def n_constraints(self):
        return len(self._rows)

    def ports(self):
        return (Port("a", 6, "in", frame=f"{self.pair.body_a.name}.B"), Port("b", 6, "in", frame=f"{self.pair.body_b.name}.B"))

    def port_bindings(self):
        return {"a": (self.pair.body_a, "B"), "b": (self.pair.body_b, "B")}

    def state_blocks(self):
        return (
            StateBlock("x", 4, "auxiliary"),
            StateBlock("charts", 2, "discrete"),
            StateBlock("active", 1, "discrete", default=np.ones(1)),
        )

    def state_refs(self):
        return self.pair.refs()

    def initialize(self, t, x, refs):
        """Global closest points at the initial poses. The contact starts active (bilateral
        contacts always are); a unilateral contact penetrating deeper than `max_gap` (default
        1 nm) is refused (GeometryError); one whose gap exceeds it
        starts off, with a `ContactWarning` when the gap is below `NEAR_FRACTION` of the
        smaller surface's size (a body placed a hair above its support by round-off in the
        user's pose is usually meant to rest on it)."""
        params, charts, cp = self.pair.initial(refs)
        out = np.array(x, dtype=float)
        out[_X], out[_CH] = params, charts
        gap = cp.distance
        if self.max_gap is not None and abs(gap) > self.max_gap and not (self.unilateral and gap > 0):
            raise GeometryError(
                f"{self.label}: the contact is initialised far from the surfaces (signed distance {gap:.6g} m, "
                f"max_gap {self.max_gap:.6g} m); start the bodies in contact"
            )
        if self.unilateral and gap < -(self.max_gap or 1e-9):
            raise GeometryError(
                f"{self.label}: the bodies start {-gap:.6g} m into each other (signed distance {gap:.6g} m); a "
                f"unilateral contact starts touching (within {self.max_gap or 1e-9:.3g} m) or apart, never "
                "penetrating: place the body on or above the surface")
        detached = self.unilateral and gap > (self.max_gap or 1e-9)
        if detached and gap < NEAR_FRACTION * self.pair._scale:
            warnings.warn(ContactWarning(
                f"{self.label}: the unilateral contact starts detached, {gap:.3g} m above the surface (it starts "
                f"in contact only within {self.max_gap or 1e-9:.3g} m), so the body falls onto it and the first "
                "impact happens at once. To start in contact, place the body that much lower or give this "
                "element's block `active` the value 1 in `initial_state`"), stacklevel=2)
        out[_ACT] = 0.0 if detached else 1.0
        return out

    # ---- geometry
    def _state(self, x, refs):
        st = self.pair.state(x[_X], x[_CH], refs)
        if st.culled:
            raise GeometryError(
                f"{self.label}: the contact point left a bounded surface ({-st.delta:.3g} outside its edge): a "
                "sliding-plane contact cannot leave its surface; use the compliant contact, which releases there")
        return st

    def distance(self, x, refs):
        """Signed distance Delta between the surfaces [m]."""
        return -self._state(x, refs).delta

    def _R(self, st, k):
        """R_k (12,): R_k . (T_a, T_b) = -(T_C)_k."""
        return np.concatenate((st.G_a[k], -st.G_b[k]))

    def terms(self, t, x, refs):
        st = self._state(x, refs)
        J = np.array([self._R(st, k) for k in self._rows])
        g = np.full(len(self._rows), np.nan)
        g[0] = st.delta  # penetration
        return J, np.zeros(len(self._rows)), g

    def jacobian(self, t, x, refs):
        return self.terms(t, x, refs)[0]

    def gap(self, t, x, refs):
        return self.terms(t, x, refs)[2]

    def active(self, x):
        out = np.full(len(self._rows), 1.0 if x[_ACT] > 0.5 else 0.0)
        if self.friction == "coulomb" and x[_ACT] < 1.5:
            out[1:] = 0.0
        return out

    def released(self, x):
        if not self.unilateral or x[_ACT] < 0.5:
            return None
        out = np.array(x, dtype=float)
        out[_ACT] = 0.0
        return out

    def _packed(self, python_path=False):
        """``(F, I)`` of `porthamiltonian.kernels.sliding_plane` (the pair's, then the friction
        mode, rows, mu and eps), or None where a surface is evaluated in Python, unless
        `python_path` (`_arrays`: such a surface packs as its domains, `ContactPair.pack`)."""
        packed = self.pair.pack(cullable=False, relax=self.relax, python_surfaces=python_path)
        if packed is None:
            return None
        mode = {"frictionless": _ksp.FRICTIONLESS, "coulomb": _ksp.COULOMB, "rolling": _ksp.ROLLING}[self.friction]
        return _ksp.pack(*packed, mode, self._rows, self.mu, self.eps)

    def _arrays(self):
        """``(F, I)`` for the Python element methods, which call the kernels the compiled path
        calls (`_packed` for any surface; packed again only when a parameter changed)."""
        key = (self.friction, self.mu, self.eps, self.relax)
        cached = self.__dict__.get("_arrays_cache")
        if cached is None or cached[0] != key:
            cached = self.__dict__["_arrays_cache"] = (key, self._packed(python_path=True))
        return cached[1]

    def _kernel_at(self, kernel, t, x, refs, flows):
        """`kernel` (`porthamiltonian.kernels.sliding_plane.acceleration_bias`, `effort_map`,
        `rates`) at the Python path's pair state (`pair_record`, the compliant kernels' record);
        a NaN result (a singular contact matrix) raises the pair's error
        (`ContactPair.sliding_plane_bias`)."""
        st = self._state(x, refs)
        F, I = self._arrays()
        flows = (_contiguous(flows[0]), _contiguous(flows[1]))
        out = call_kernel(self, kernel, float(t), _contiguous(x[:7]), _padded(refs, self.pair.padded_refs()), flows,
                          pair_record(st, None, F), F, I)
        if np.isnan(out).any():
            self.pair.sliding_plane_bias(st, flows[0], flows[1], self._row_array)   # raises
            raise GeometryError(f"{self.label}: the contact kernels declined the pair state (a NaN result)")
        return out

    def acceleration_bias(self, t, x, refs, flows):
        """`porthamiltonian.kernels.sliding_plane.acceleration_bias` of the rows."""
        return self._kernel_at(_ksp.acceleration_bias, t, x, refs, flows)

    def effort_map(self, t, x, refs, flows):
        """With Coulomb friction `porthamiltonian.kernels.sliding_plane.effort_map` (the normal
        row plus the regularized sliding friction), else None (the Jacobian itself)."""
        if self.friction != "coulomb":
            return None
        return self._kernel_at(_ksp.effort_map, t, x, refs, flows)

    #: below this slip speed before an impulse, relative to `eps`, the impulse carries no friction: the
    #: slip's direction is then round-off (D - J, of size ``mu |v| / eps``, is a difference of rows of size 1)
    IMPACT_SLIP = 1e-6

    def impact_friction(self, q):
        """With Coulomb friction, the factor ``sqrt(|v|^2 + eps^2) / |v|`` that turns the regularized
        friction of the effort map (`effort_map`: ``mu f_n |v| / sqrt(|v|^2 + eps^2)`` against the
        slip v) into Coulomb's mu Lambda_n along the slip before the impulse, ``|v|`` recovered from
        the dissipated power per newton ``q = mu |v|^2 / sqrt(|v|^2 + eps^2)``; None without Coulomb
        friction or when ``|v| < IMPACT_SLIP eps`` (`ConstraintElement.impact_friction`)."""
        if self.friction != "coulomb" or not self.mu > 0.0 or not q > 0.0:
            return None
        a, e2 = q / self.mu, self.eps * self.eps
        v2 = 0.5 * (a * a + a * math.sqrt(a * a + 4.0 * e2))
        if not v2 >= (self.IMPACT_SLIP * self.eps) ** 2:
            return None
        return math.sqrt((v2 + e2) / v2)

    def rates(self, t, x, refs, flows):
        """`porthamiltonian.kernels.sliding_plane.rates`: the tracked parameters' (the contact
        kinematics plus the relaxation toward the exact ones)."""
        return self._kernel_at(_ksp.rates, t, x, refs, flows)

    def reaction(self, t, x, refs, lam):
        """Contact force on body b in the contact frame (tau, f) = (0, 0, 0, f_x, f_y, f_n)."""
        W = np.zeros(6)
        W[5] = lam[0]
        if len(lam) == 3:   # rolling, or Coulomb while stuck (0 while sliding: inactive rows)
            W[3], W[4] = -lam[1], -lam[2]
        return W

    # ---- kernels
    def kernel(self, role):
        """Compiled kernels (`porthamiltonian.kernels.sliding_plane`) where both surfaces have
        compiled evaluators. The events are compiled too: (chart, detach, impact) of an
        unguarded unilateral contact (`_ksp.events`: the detach value is the multiplier of the
        same evaluation), (chart,) of a bilateral one; a guarded impact reads the guard's
        bodies (and a subclass may declare other events): those stay in Python."""
        fn = {"terms": _ksp.terms, "acceleration_bias": _ksp.acceleration_bias, "effort_map": _ksp.effort_map,
              "rates": _ksp.rates, "active": _ksp.active}.get(role)
        if role == "events":
            fn = {("chart", "detach", "impact"): _ksp.events, ("chart", "detach", "impact", "stick", "slip"): _ksp.events,
                  ("chart",): _ksp.events_bilateral}.get(tuple(e.name for e in self.events())) if self.guard is None else None
        packed = self._packed() if fn is not None else None
        if packed is None:
            return None
        # terms computes the pair's geometry once per evaluation; the later kernels read it
        share = {"terms": dict(shares=True), "active": {}}.get(role, dict(reads=self))
        return Kernel(fn, *packed, **share, refs=self.pair.padded_refs())

    # ---- events
    def events(self):
        ev = [EventSpec("chart", self._chart_fn, -1.0, self._chart)]
        if self.unilateral:
            # past_start: a contact whose normal force starts pulling (the forces change at a slip
            # event) detaches as soon as it pulls more
            ev.append(EventSpec("detach", self._detach_fn, -1.0, self._detach, uses_system=True, past_start=True))
            if self.guard is None:
                # (a reduced contact, `ReducedContactConstraint`, is integrated in its own phase: it
                # does not join other contacts' impulses)
                joins = None if getattr(self, "reduced", False) else self._joins_impact
                ev.append(EventSpec("impact", self._impact_fn, -1.0, self._impact, joins_impact=joins, past_start=True))
            else:
                ev.append(EventSpec("impact", self._guarded_impact_fn, -1.0, self._guarded_impact, uses_system=True))
            if self._sticks:
                ev.append(EventSpec("stick", self._stick_fn, -1.0, self._stick, uses_system=True))
                ev.append(EventSpec("slip", self._slip_fn, -1.0, self._slip, uses_system=True))
        return tuple(ev)

    @property
    def _sticks(self):
        """Whether the contact has a stick phase (unilateral with Coulomb friction: no-slip rows
        while it sticks; `stuck_state`)."""
        return self.unilateral and self.friction == "coulomb" and len(self._rows) == 3

    def _slip_speed(self, system, t, x):
        """|v_t| [m/s] at the full state x: the tangential rows' residuals (R_k . f = -(T_C)_k)."""
        J, _, F = system.evaluate(t, x)["maps"][self._own_path(system)]
        return float(np.hypot(J[1] @ F, J[2] @ F))

    #: a sliding contact is stuck by `stuck_state` only if its no-slip force uses at most 1 - STICK_MARGIN
    #: of the cone: at a slip event the force lies on the cone, and it must not stick again there
    STICK_MARGIN = 1e-6

    def in_cone(self, lam, margin=0.0):
        """Whether the force (or impulse) `lam` (normal, two tangential) lies in the friction
        cone: normal >= 0, tangential at most (1 - `margin`) mu times it."""
        return lam[0] >= 0.0 and math.hypot(lam[1], lam[2]) <= (1.0 - margin) * self.mu * lam[0]

    def jammed(self, x):
        """`ConstraintElement.jammed`: flag 2 if on and sliding with a stick phase."""
        if not self._sticks or not 0.5 < x[_ACT] < 1.5:
            return None
        out = np.array(x, dtype=float)
        out[_ACT] = 2.0
        return out

    def _stick_fn(self, system, t, x):
        own = x[system.layout.element_slice(self._own_path(system))]
        if not 0.5 < own[_ACT] < 1.5:
            return 1.0
        return self._slip_speed(system, t, x) - self.eps

    def _slip_fn(self, system, t, x):
        path = self._own_path(system)
        if x[system.layout.element_slice(path)][_ACT] < 1.5:
            return 1.0
        lam = system.multipliers(t, x)[path]
        return self.mu * lam[0] - math.hypot(lam[1], lam[2])

    def _stick(self, t, x, refs):
        """The slip fell below `eps`: a tangential impulse stops it (its kinetic energy booked as
        lost) and the no-slip rows hold it, unless the friction force they need is outside the
        cone (then it slides on from rest)."""
        out = np.array(x, dtype=float)
        out[_ACT] = 2.0   # the impulse's `PHSystem.release_pulling_contacts` checks the cone (`stuck_state`)
        return EventOutcome(out, 0.0, "stick", impulse=lambda c: np.array([c[0], 0.0, 0.0]))

    def _slip(self, t, x, refs):
        """The friction force left its cone: the contact slides (the regularized friction starts
        from zero slip, so its normal force may start pulling: the detach event then fires at
        once, `EventSpec.past_start`)."""
        out = np.array(x, dtype=float)
        out[_ACT] = 1.0
        return EventOutcome(out, 0.0, "the friction force left its cone: slip")

    def stuck_state(self, system, t, x):
        """This contact's own state at the full state x with its stick phase settled: stuck
        (flag 2) if it is on, slips slower than `eps` and the no-slip rows' force lies in the
        friction cone; sliding (flag 1) otherwise; unchanged if off
        (`PHSystem.release_pulling_contacts` after every impulse and at a run's start); None
        without a stick phase (`ConstraintElement.stuck_state`)."""
        if not self._sticks:
            return None
        sl = system.layout.element_slice(self._own_path(system))
        own = np.array(x[sl], dtype=float)
        if own[_ACT] < 0.5:
            return own
        if self._slip_speed(system, t, x) >= self.eps:
            own[_ACT] = 1.0
            return own
        xs = np.array(x, dtype=float)
        xs[sl.start + _ACT] = 2.0
        lam = system.multipliers(t, xs)[self._own_path(system)]
        own[_ACT] = 2.0 if self.in_cone(lam, 0.0 if own[_ACT] > 1.5 else self.STICK_MARGIN) else 1.0
        return own

    def _path(self, system):
        for p, o in system.elements.items():
            if o is self:
                return p
        raise ParameterError(f"{self.label} is not part of system {system.name!r}")

    def _own_path(self, system):
        path = self._cached_path if getattr(self, "_cached_system", None) is system else None
        if path is None:
            path = self._path(system)
            self._cached_system, self._cached_path = system, path
        return path

    def _detach_fn(self, system, t, x):
        path = self._own_path(system)
        own = x[system.layout.element_slice(path)]
        if own[_ACT] < 0.5:
            return 1.0
        return float(system.multipliers(t, x)[path][0])

    def _detach(self, t, x, refs):
        out = np.array(x, dtype=float)
        out[_ACT] = 0.0
        return EventOutcome(out, 0.0, "contact force reached zero: detached")

    def _impact_fn(self, t, x, refs):
        return self.distance(x, refs) if x[_ACT] < 0.5 else 1.0

    def _joins_impact(self, t, x, refs):
        """Whether this detached contact takes part in an impulse happening elsewhere now: its
        gap is at most `impact_gap` (`PHSystem.apply_impulse` then solves the impacts of every
        such contact together, one Newton impact; one that separates takes no impulse)."""
        return x[_ACT] < 0.5 and self.distance(x, refs) <= self.impact_gap

    def _guarded_impact_fn(self, system, t, x):
        own, refs = system.element_state(self._own_path(system), x)
        if own[_ACT] > 0.5:
            return 1.0
        return self.guard.event_value(system, x, self.distance(own, refs))

    def _guarded_impact(self, t, x, refs):
        gap = self.distance(x, refs)
        if self.guard.is_touchdown(gap):
            return self._impact(t, x, refs)
        return EventOutcome(np.array(x, dtype=float), 0.0, f"touchdown guard armed {-gap:.3g} m inside the surface: "
                            "no impact until the surfaces part and meet again")

    def _impact(self, t, x, refs):
        st = self._state(x, refs)
        out = np.array(x, dtype=float)
        out[_X], out[_CH] = st.cp.x, st.cp.charts
        out[_ACT] = 1.0
        # target velocity residuals: normal c' = -e c (c is the approach rate), no sliding
        # for a rolling contact; the simulator applies the impulse and books the energy lost.
        # A bounce leaves the contact off afterwards; below `rest_speed` the impact is plastic
        # and the contact persists (no infinite sequence of ever smaller bounces). Whether it
        # bounced is the law's decision (e c > 0), not the sign of the residual the impulse
        # leaves: a plastic impact's normal residual is zero only to the impulse solve's
        # round-off (-4e-11 m/s on a rimless wheel of gyration 1e-3 m), and reading that as a
        # separation left the landing foot off, to land again at once or ns later (issue 36).
        n = len(self._rows)
        bounced = [False]

        def target(c):
            e = self.restitution if c[0] > self.rest_speed else 0.0
            bounced[0] = e * c[0] > 0.0
            out_c = np.zeros(n)
            out_c[0] = -e * c[0]
            return out_c

        def after(system, t_, xf):
            # separating after the impulse (a bounce): the contact is off until the next impact;
            # also off if a simultaneous impact left it without impulse (it separates on its own,
            # `PHSystem.apply_impulse` switched it off)
            # on, its stick phase is as the impulse settled it (sliding, or stuck if it stopped the slip)
            own = xf[system.layout.element_slice(self._path(system))].copy()
            if bounced[0]:
                own[_ACT] = 0.0
            return own

        return EventOutcome(out, 0.0, f"impact (restitution {self.restitution:g})", impulse=target, x_after=after)

    def _chart_fn(self, t, x, refs):
        return self.pair.chart_margin(self._state(x, refs), x[_CH])

    def _chart(self, t, x, refs):
        st = self._state(x, refs)
        out = np.array(x, dtype=float)
        out[_X], ch = self.pair.farthest_charts(st.cp.x, st.cp.charts)
        out[_CH] = ch
        return EventOutcome(out, 0.0, f"charts -> {tuple(ch)}")

    def parameters(self):
        return {"pair": self.pair.parameters(), "friction": self.friction, "mu": self.mu, "eps": self.eps,
                "restitution": self.restitution, "unilateral": self.unilateral,
                "stabilization": None if self.stabilization is None else list(self.stabilization),
                "softening": self.softening, "max_gap": self.max_gap, "relax": self.relax,
                "rest_speed": self.rest_speed, "guard": None if self.guard is None else self.guard.parameters(),
                "impact_gap": self.impact_gap}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        params = dict(params)
        if "guard" in params:   # (not a parameter of the subclass ReducedContactConstraint)
            params["guard"] = TouchdownGuard.from_parameters(params["guard"])
        return cls(name, ContactPair.from_parameters(params.pop("pair")), **params)


def SlidingPlaneContact(name, body_a, surface_a, body_b, surface_b, *, pose_a=None, pose_b=None, friction="frictionless",
                        mu=0.5, eps=1e-3, restitution=0.0, unilateral=True, stabilization=None, softening=0.0,
                        max_gap=None, alpha=0.0, relax=1.0, rest_speed=1e-3, guard=None, impact_gap=1e-9):
    """A stiff (constraint) contact component between body a and body b (module docstring).

    Same ports and bonding as `CompliantContact`::

        c = SlidingPlaneContact("c", wheel, Torus(...), ground, Plane(), friction="rolling")
        bg.add(c); bg.connect(wheel.frame().port, (c, "a")); bg.connect(ground.frame().port, (c, "b"))

    Parameters
    ----------
    name : str
    body_a, body_b : RigidBody or Ground
    surface_a, surface_b : Surface
        The plane rides on surface a, the point on surface b. Surface a must be at least as
        curved as needed for isolated contact points (a convex surface against a plane works
        either way round).
        `surface_b` may be a `porthamiltonian.geometry.Point` (a point foot, a sphere of radius
        0): it meets `surface_a` at the foot of the normal through it, with `surface_a`'s
        normal (`ContactPair`; `surface_a` a built-in surface, smooth where the point touches:
        an edge of a bounded patch is a `GeometryError`, a point as `surface_a` or two points a
        `ParameterError` at construction). "rolling" then pins the point (no slip, no spin row).
    pose_a, pose_b : array_like (4, 4), optional
    friction : {"frictionless", "coulomb", "rolling"}
    mu : float
        Coulomb coefficient (for "coulomb").
    eps : float [m/s]
        "coulomb": the slip speed of the regularized friction while sliding (the friction force
        reaches mu f_n beyond it), and below which a unilateral contact sticks.
    restitution : float in [0, 1]
        Newton's coefficient at impacts (unilateral contacts).
    unilateral : bool
        Detach when the normal force reaches zero and re-contact with an impact (default);
        False keeps the contact bilateral (it can pull).
    stabilization : (alpha, beta), optional
        Baumgarte parameters [1/s] (default: the compile option).
    softening : float >= 0
        gamma of Drake's *Contact surface constraints* (a compliant constraint); 0 is ideal.
    max_gap : float [m], optional
        Initialising a bilateral contact (or a penetrating one) farther than this from the
        surfaces is an error.
    alpha : float
        Position of the contact frame between the surfaces (0: on a).
    relax : float [1/s]
        Pull of the tracked parameters toward the exact contact points.
    rest_speed : float [m/s]
        Impacts slower than this are plastic (e = 0): the contact settles instead of
        bouncing ever less in ever shorter intervals.
    guard : TouchdownGuard, optional
        The impact (making the contact) happens only while the guard is armed (a walker's
        swing foot passing through the ground at mid-stance is ignored; `library.touchdown`).
    impact_gap : float [m]
        Simultaneous impacts: when another contact's impulse happens (its impact), this
        detached unguarded contact takes part if its gap is at most `impact_gap`, and the
        impacts are solved together as one Newton impact (complementarity: each contact's
        impulse >= 0, its normal speed after >= -e times before, one of the two tight;
        `PHSystem.apply_impulse`), not as a cascade of single impacts microseconds apart.
        The gap left (<= `impact_gap`) is the constraint stabilization's to close. Default
        1e-9 m, the package's "touching" (`max_gap`'s default): exactly simultaneous
        contacts (a symmetric landing) only; a robot's feet take a wider window (1e-5 m
        reached at 1 m/s is 10 us).
    """
    if not isinstance(friction, str):
        raise ParameterError(
            f"sliding-plane contact {name!r}: `friction` is a mode ('frictionless', 'coulomb' or 'rolling'), got "
            f"{friction!r}; the coefficient is `mu` (or use material=ContactMaterial(friction=mu) for both kinds)")
    pair = ContactPair(body_a, surface_a, body_b, surface_b, pose_a=pose_a, pose_b=pose_b, alpha=alpha)
    con = SlidingPlaneConstraint(
        "constraint", pair, friction=friction, mu=mu, eps=eps, restitution=restitution, unilateral=unilateral,
        stabilization=stabilization, softening=softening, max_gap=max_gap, relax=relax, rest_speed=rest_speed,
        guard=guard, impact_gap=impact_gap,
    )
    return contact_component(name, con)


def contact_component(name, con):
    """The component of a two-port contact constraint: ports "a" and "b" on 1-junctions."""
    g = BondGraph(name)
    ja = Junction1("ja", dim=6)
    jb = Junction1("jb", dim=6)
    g.add(con, ja, jb)
    g.connect(ja, (con, "a"))
    g.connect(jb, (con, "b"))
    g.expose("a", ja)
    g.expose("b", jb)
    return g
