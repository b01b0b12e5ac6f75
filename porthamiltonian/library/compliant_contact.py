"""Compliant contact between two bodies with surfaces (Duindam & Stramigioli, *Modeling the
kinematics and dynamics of compliant contact*, 2003, sec. 5).

`CompliantContact(...)` returns a component (a BondGraph with ports "a" and "b", bonded to
the two bodies' "B" ports) made of three elements sharing one `ContactPair`::

          a ──┬── ContactSpring ──── slip ──> SlipFriction      (regularized Coulomb)
              │        (stores V)
              └── ContactDamper                                   (dissipates)
          b ──┘ (each of spring and damper has ports a and b, joined by 1-junctions)

Geometry (docs/math.md sec. 5-6): the generalized contact points are tracked through the
simulation (the parameters are states, integrated with the contact kinematics, used as
warm starts of an exact Newton re-projection at every evaluation). The contact frame C has
z = n_a (pointing from body a toward body b) and its origin on the average tangent plane.
The relative twist of b w.r.t. a in C, T_C = (w_x, w_y, w_z, v_x, v_y, v_z), splits into
rolling (w_x, w_y) and the rest: spin w_z, sliding (v_x, v_y), normal approach v_z.

Spring: while in contact it stores

    V = V_n(delta) + 1/2 k_spin phi^2 + 1/2 k_t (s_x^2 + s_y^2)

with delta = -Delta the exact penetration (a function of the configuration) and
(phi, s_x, s_y) a deformation integrated from (w_z, v_x, v_y) minus the slip (so pure
rolling does not charge it). It exerts W_C = (0, 0, k_spin phi, k_t s_x, k_t s_y, -F_e(delta))
on the relative motion. The tangential deformation is stored in contact-frame coordinates;
the frame's x axis follows f_u of surface a, so its rotation about the normal as the contact
point moves (a property of the parametrization, not a physical spin) is removed from the
rate of (s_x, s_y): the deformation keeps its direction relative to surface a. That
rotation does no work (isotropic k_t); at a chart switch of surface a the deformation is
re-expressed in the new axes.

Damper: W_C = -(0, 0, F_spin, F_x, F_y, F_d(delta, d delta/dt)) with F_d from the normal
law (`NormalLaw`) and the stick dampers F_spin = c_spin w_z, (F_x, F_y) = c_t (v_x, v_y) in
parallel with the spring-and-slip branch, each dissipating F . v >= 0. With the Dahl friction
law (default) a stick damper's force is capped at what the friction limit leaves to it,
mu F_e - |k_t s| (likewise for spin), keeping the force's direction: it damps the stick
phase fully and adds nothing to a sliding contact, whose spring then holds the limit. With
the viscous law they are plain dampers (off by default: a sliding body would feel c_t |v_t|
on top of mu F_e).

Friction: in series with the tangential spring, the anchor slips along the spring force f_t
at (`porthamiltonian.kernels.contact.slip_rates`)

    v_slip = |v_t| min(|f_t| / (mu F_e), 1) + max(|f_t| - mu F_e, 0) / c_slip    (Dahl, default)
    v_slip = max(|f_t| - mu F_e, 0) / c_slip                                     (viscous)

and likewise for spin with |w_z| and the torque limit mu_spin F_e. The Dahl term (P. R.
Dahl, "A solid friction model", The Aerospace Corporation, TOR-0158(3107-18)-1, 1968) makes
the deformation rate v_t - v_slip vanish exactly at |f_t| = mu F_e while sliding, at any
speed: sliding friction is Coulomb's mu F_e once the surfaces have slid a few mu F_e / k_t,
with no rate to tune; at rest nothing slips, so a load inside the cone is held without
creep. The cap (the anchor never slips faster than the surfaces slide) keeps the law finite
as F_e -> 0 at a release, and the excess term then unloads the spring.
The slip power f_t . v_slip >= 0 is dissipated and booked in the ledger.

Events: contact starts when Delta crosses zero downward (deformation reset to zero; with a
`TouchdownGuard`, ``guard=``, only while the guard is armed: `library.touchdown`), and
ends when it crosses zero upward; the energy still in the tangential spring at that moment
is booked as "lost". Chart switches of the tracked parameters are events too.

Range: a compliant contact is a model of small penetrations. The initial poses must not
penetrate deeper than `max_penetration`, and during the run a penetration deeper than a
quarter of the smaller surface's size (`DEPTH_FRACTION`) is outside the model: its
evaluation fails with a GeometryError, so a solver stage that overshoots is rejected and a
motion that really sinks that deep stops the integration, saying when and how deep (a soft
floor that lets a body sink through it, an impact too fast for the stiffness).

Culling: while the contact is not touching and a bounding test (separating axis on the
surfaces' bounds, `porthamiltonian.kernels.closest.separation_bound`) proves the surfaces
more than `ContactPair.cull_distance` (a tenth of the smaller surface's size) apart, no
contact points are computed: the tracked parameters stand still and the touch event reads
the bound, which has the sign of Delta. When the bound comes within the cull distance an
"approach" event restarts the tracked parameters from the exact contact points. A body in
free flight then costs one bounding test per contact, not a Newton solve.
"""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_finite_float
from porthamiltonian.bondgraph.element import (
    EventOutcome,
    EventSpec,
    Kernel,
    ResistorElement,
    StorageElement,
    register_element,
)
from porthamiltonian.bondgraph.graph import BondGraph
from porthamiltonian.bondgraph.junctions import Junction1
from porthamiltonian.bondgraph.ports import EFFORT_OUT, FLOW_OUT, Port, StateBlock, StateRef
from porthamiltonian.contact.hertz import ElasticSolid, effective_modulus
from porthamiltonian.contact.laws import (
    LocalHertzLaw,
    NormalLaw,
    UserNormalLaw,
    law_from_spec,
    law_to_spec,
    linear_damping_ratio,
)
from porthamiltonian.contact.restitution import hunt_crossley_damping
from porthamiltonian.errors import GeometryError, ModelError, ParameterError
from porthamiltonian.kernels import compliant as _kcompliant
from porthamiltonian.kernels import contact as _kcontact

from .contact_geometry import ContactPair, ContactState
from .rigid_body import RigidBody
from .touchdown import TouchdownGuard

__all__ = ["CompliantContact", "ContactSpring", "ContactDamper", "SlipFriction", "ContactParameters"]

# layout of the spring's own state; discrete entries (charts, flag) are read with round()/0.5
# thresholds because dense-output interpolation may add round-off to them
_X, _CH, _ACT, _S = slice(0, 4), slice(4, 6), 6, slice(7, 10)

#: friction laws of the spring's anchor (module docstring, "Friction")
FRICTION_LAWS = ("dahl", "viscous")

#: the deepest penetration the model represents, as a fraction of the smaller surface's size
#: (module docstring, "Range")
DEPTH_FRACTION = 0.25


class ContactParameters:
    """Validated parameters of a compliant contact (see `CompliantContact` for their meaning)."""

    def __init__(self, *, law, tangential_stiffness, tangential_damping, spin_stiffness, spin_damping, friction,
                 spin_friction, slip_damping, max_penetration, friction_law="dahl"):
        self.law = law
        f = as_finite_float
        self.k_t = f(tangential_stiffness, "tangential_stiffness", nonnegative=True)
        self.c_t = f(tangential_damping, "tangential_damping", nonnegative=True)
        self.k_spin = f(spin_stiffness, "spin_stiffness", nonnegative=True)
        self.c_spin = f(spin_damping, "spin_damping", nonnegative=True)
        self.mu = f(friction, "friction", nonnegative=True)
        self.mu_spin = f(spin_friction, "spin_friction", nonnegative=True)
        self.c_slip = f(slip_damping, "slip_damping", positive=True)
        self.max_penetration = f(max_penetration, "max_penetration", positive=True)
        if friction_law not in FRICTION_LAWS:
            raise ParameterError(f"`friction_law` must be one of {FRICTION_LAWS}, got {friction_law!r}")
        self.friction_law = friction_law
        self.dahl = friction_law == "dahl"
        self.K_t = np.array([self.k_spin, self.k_t, self.k_t])

    _FIELDS = (("tangential_stiffness", "k_t"), ("tangential_damping", "c_t"), ("spin_stiffness", "k_spin"),
               ("spin_damping", "c_spin"), ("friction", "mu"), ("spin_friction", "mu_spin"),
               ("slip_damping", "c_slip"), ("max_penetration", "max_penetration"), ("friction_law", "friction_law"))

    def to_spec(self):
        """JSON-ready parameters (model files); the law by `laws.law_to_spec`."""
        return {"law": law_to_spec(self.law), **{key: getattr(self, attr) for key, attr in self._FIELDS}}

    @classmethod
    def from_spec(cls, spec):
        spec = dict(spec)
        return cls(law=law_from_spec(spec.pop("law")), **spec)


@register_element
class ContactSpring(StorageElement):
    """The contact's storage (see module docstring). Built by `CompliantContact`.

    Own state (10): tracked parameters (u1, v1, u2, v2) [auxiliary], their charts and the
    contact flag [discrete], and the deformation (phi, s_x, s_y) [energy].
    Ports: "a", "b" (bodies' twists, C-type) and "slip" (3, to the friction element).
    """

    type_name = "ContactSpring"

    def __init__(self, name, pair: ContactPair, params: ContactParameters, *, relax=1.0, guard=None):
        super().__init__(name)
        if guard is not None and not isinstance(guard, TouchdownGuard):
            raise ParameterError(f"`guard` must be a TouchdownGuard or None, got {guard!r}")
        self.guard = guard
        self.pair = pair
        self.p = params
        self.relax = as_finite_float(relax, f"{name}.relax", nonnegative=True)
        #: penetrations beyond this [m] are outside the model (module docstring, "Range")
        self.depth_limit = DEPTH_FRACTION * pair._scale
        self._x0 = np.zeros(10)

    # ---- declaration
    def ports(self):
        return (
            Port("a", 6, "in", frame=f"{self.pair.body_a.name}.B"),
            Port("b", 6, "in", frame=f"{self.pair.body_b.name}.B"),
            Port("slip", 3, "in"),
        )

    def port_types(self):
        return ("C", "C", "C")

    def port_bindings(self):
        return {"a": (self.pair.body_a, "B"), "b": (self.pair.body_b, "B")}

    def state_blocks(self):
        return (
            StateBlock("x", 4, "auxiliary", default=self._x0[_X]),
            StateBlock("charts", 2, "discrete", default=self._x0[_CH]),
            StateBlock("active", 1, "discrete", default=self._x0[_ACT : _ACT + 1]),
            StateBlock("s", 3, "energy", default=self._x0[_S]),
        )

    def state_refs(self):
        return self.pair.refs()

    def initialize(self, t, x, refs):
        """Global closest points at the initial poses; contact flag from the signed distance
        (penetrating: in contact; exactly touching: the touch event fires at the start if the
        bodies approach).

        Raises GeometryError if the bodies start penetrating deeper than `max_penetration`.
        """
        params, charts, cp = self.pair.initial(refs)
        delta = -cp.distance
        if delta > self.p.max_penetration:
            raise GeometryError(
                f"{self.label}: the initial poses penetrate by {delta:.6g} m, beyond the model's range "
                f"max_penetration = {self.p.max_penetration:.6g} m; start the bodies apart (or raise it)"
            )
        out = np.array(x, dtype=float)
        out[_X], out[_CH] = params, charts
        out[_ACT] = 1.0 if delta > 0 else 0.0
        out[_S] = 0.0
        return out

    # ---- kernels
    def _packed(self, python_path=False):
        """``(F, I)`` of `porthamiltonian.kernels.compliant` (shared by the contact's three
        elements), or None where the compiled path does not apply: a surface evaluated in
        Python, a law given in Python. With `python_path` never None (`_arrays`): a user's law
        packs as a placeholder (its values enter the pair record, `_law_at`), a surface
        evaluated in Python as its domains (`ContactPair.pack`)."""
        user = isinstance(self.p.law, UserNormalLaw)
        if user and not python_path:
            return None
        p = self.p
        return self.pair.pack(
            cullable=True, depth_limit=self.depth_limit, relax=self.relax, law=_NO_LAW if user else p.law.packed,
            c_spin=p.c_spin, c_t=p.c_t, c_slip=p.c_slip, mu=p.mu, mu_spin=p.mu_spin, k_spin=p.k_spin, k_t=p.k_t,
            dahl=p.dahl, python_surfaces=python_path)

    def _arrays(self):
        """``(F, I)`` of the contact's kernels for its Python element methods, which call the
        same kernels as the compiled path (a formula lives once): `_packed` for any law and
        surface, packed once and again only when a parameter changed."""
        p = self.p
        key = (p.law, p.k_t, p.c_t, p.k_spin, p.c_spin, p.mu, p.mu_spin, p.c_slip, p.dahl, self.relax,
               self.depth_limit)
        cached = self.__dict__.get("_arrays_cache")
        if cached is None or cached[0] != key:
            cached = self.__dict__["_arrays_cache"] = (key, self._packed(python_path=True))
        return cached[1]

    def _law_at(self, st, rate=0.0):
        """The packed normal law (`porthamiltonian.kernels.contact.normal_force`) at the touching
        pair state `st`: a fixed law's own, a `LocalHertzLaw` resolved at the local curvatures
        (`ContactPair.local_hertz`, which raises where Hertz does not apply), a user's law
        evaluated in Python at the penetration and its `rate` [m/s] (the one thing of a user's
        law the kernels cannot run)."""
        law = self.p.law
        if isinstance(law, UserNormalLaw):
            return law.given(st.delta, rate)
        if isinstance(law, LocalHertzLaw):
            return _local_law(self.p, self.pair, st)[0]
        return law.packed

    def _record(self, st, rate=0.0):
        """The kernels' pair record (`pair_record`) of the pair state `st` with the law at it,
        built once per state (and rate) for the contact's elements of one evaluation."""
        cached = self.__dict__.get("_record_cache")
        if cached is not None and cached[0] is st and cached[1] == rate:
            return cached[2]
        sh = pair_record(st, None if st.culled else self._law_at(st, rate), self._arrays()[0])
        self.__dict__["_record_cache"] = (st, rate, sh)
        return sh

    def _idle_record(self):
        """The pair record the resistors' kernels get while the contact is not touching (they
        read the contact flag first and return their idle values)."""
        cached = self.__dict__.get("_idle_cache")
        if cached is None or cached[0] is not self._arrays()[0]:
            cached = self.__dict__["_idle_cache"] = (self._arrays()[0], pair_record(_IDLE_STATE, None,
                                                                                   self._arrays()[0]))
        return cached[1]

    def _pose_args(self, refs):
        """The spring kernels' ``refs`` (the two bodies' poses, a fixed body's empty) from the
        element's references (the moving bodies' poses first)."""
        return _padded(refs, self.pair.padded_refs())

    def kernel(self, role):
        packed = self._packed()
        if packed is None:
            return None
        refs = self.pair.padded_refs()
        if role == "outputs":
            local = isinstance(self.p.law, LocalHertzLaw)
            outputs = _kcompliant.spring_outputs_local if local else _kcompliant.spring_outputs
            return Kernel(outputs, *packed, shares=True, refs=refs)
        if role == "rates":
            return Kernel(_kcompliant.spring_rates, *packed, reads=self, refs=refs, idle=10)
        if role == "events":
            # a guarded touch needs the other bodies' poses: the events stay in Python
            return None if self.guard is not None else Kernel(_kcompliant.spring_events, *packed, reads=self,
                                                               refs=refs, idle=_kcompliant.culled_events)
        if role == "input_matrix":
            return Kernel(_kcompliant.spring_input_matrix, *packed, reads=self, refs=refs)
        if role == "output_jacobian":
            return Kernel(_kcompliant.spring_output_jacobian, *packed, reads=self, refs=refs)
        return None

    def _state(self, x, refs):
        """The pair's state; culled by the bounding test while the contact is not touching."""
        return self.pair.state(x[_X], x[_CH], refs, cull=x[_ACT] < 0.5)

    def energy(self, x, refs):
        if x[_ACT] < 0.5:
            return 0.0
        st = self._state(x, refs)
        s = x[_S]
        # off a bounded surface's edge (until the release event books it as lost): the
        # penetration of the surface extended, so that the stored energy stays continuous
        if st.culled:
            return self.p.law.potential(st.edge_delta) + 0.5 * float(self.p.K_t @ (s * s))
        F = self._arrays()[0]
        if isinstance(self.p.law, UserNormalLaw):   # its potential is Python's; the tangential part the kernel's
            return self.p.law.potential(st.delta) + _kcompliant._stored(x, _NO_LAW, 0.0, F)
        return _kcompliant._stored(x, self._law_at(st), st.delta, F)

    def energies(self, X, refs):
        """`energy` at N states in one compiled loop (`porthamiltonian.kernels.compliant.spring_energies`):
        ``X`` (N, 10) the own states, ``refs`` the references' series (each (N, k)); returns
        (N,) [J]. The samples the kernel declines (NaN: a re-charted or failed pair state, a
        contact point off a bounded surface) and every sample of a contact without kernels
        (a surface or law evaluated in Python) or of a subclass with its own `energy` (the
        soil's spring) go through `energy`, which raises where it must."""
        n = X.shape[0]
        packed = self._packed() if type(self).energy is ContactSpring.energy else None
        if packed is None:
            return np.array([self.energy(X[k], tuple(r[k] for r in refs)) for k in range(n)], dtype=float)
        pa, pb = (np.ascontiguousarray(r, dtype=float) if np.ndim(r) == 2 else np.zeros((n, 0))
                  for r in self.kernel("outputs").pad(refs))   # a fixed body: an empty array
        kernel = (_kcompliant.spring_energies_local if isinstance(self.p.law, LocalHertzLaw)
                  else _kcompliant.spring_energies)
        out = kernel(np.ascontiguousarray(X, dtype=float), pa, pb, *packed)
        for k in np.flatnonzero(np.isnan(out)):
            out[k] = self.energy(X[k], tuple(r[k] for r in refs))
        return out

    def outputs(self, t, x, refs):
        if x[_ACT] < 0.5:    # not touching: no wrench, no contact points needed
            return (np.zeros(6), np.zeros(6), np.zeros(3))
        st = self._state(x, refs)
        if st.culled:        # off a bounded surface, before the release event: no surface, no force
            return (np.zeros(6), np.zeros(6), np.zeros(3))
        if st.delta > self.depth_limit:
            raise GeometryError(
                f"{self.label}: penetration {st.delta:.4g} m is beyond the compliant contact's range "
                f"({self.depth_limit:.4g} m, {DEPTH_FRACTION:g} of the smaller surface's size): the bodies sink "
                "into each other; stiffen the contact or lower the impact speed")
        F_e, _, W_geo = _elastic(self.p, self.pair, st)
        return _kcontact.spring_outputs(st.G_a, st.G_b, self.p.K_t, x[_S], F_e, W_geo)

    def _spring_kernel(self, kernel, idle, t, x, refs, *inputs):
        """`kernel` (`porthamiltonian.kernels.compliant.spring_rates`, `spring_input_matrix`,
        `spring_output_jacobian`) at the Python path's pair state, or zeros of shape `idle`
        while the state is culled (the kernels' own first branch, taken without the call); a
        NaN result (a singular contact matrix) raises the pair's error
        (`ContactPair.spring_rates`)."""
        st = self._state(x, refs)
        if st.culled:
            return np.zeros(idle)
        x = _contiguous(x[:10])
        out = call_kernel(self, kernel, float(t), x, self._pose_args(refs), *inputs, self._record(st), *self._arrays())
        if np.isnan(out).any():
            z = np.zeros(6)
            self.pair.spring_rates(st, x[_X], x[_CH], z, z, np.zeros(3), x[_S], False, 0.0)   # raises
            raise GeometryError(f"{self.label}: the contact kernels declined the pair state (a NaN result)")
        return out

    def rates(self, t, x, refs, inputs):
        """`porthamiltonian.kernels.compliant.spring_rates` (culled: zero, the tracked
        parameters wait for the approach event)."""
        inputs = tuple(_contiguous(u) for u in inputs)
        return self._spring_kernel(_kcompliant.spring_rates, 10, t, x, refs, inputs)

    def input_matrix(self, t, x, refs):
        """`porthamiltonian.kernels.compliant.spring_input_matrix`: the rates without the
        relaxation are linear in the twists and the slip."""
        return self._spring_kernel(_kcompliant.spring_input_matrix, (10, 15), t, x, refs)

    def output_jacobian(self, t, x, refs):
        """`porthamiltonian.kernels.compliant.spring_output_jacobian`: the outputs depend on
        the own state through the deformation (linearly) and the flag only."""
        if x[_ACT] < 0.5:
            return np.zeros((15, 10))
        return self._spring_kernel(_kcompliant.spring_output_jacobian, (15, 10), t, x, refs)

    def gradient(self, x, refs):
        g_own = np.zeros(10)
        st = self._state(x, refs)
        if x[_ACT] < 0.5 or st.culled:
            return np.concatenate((g_own, self.pair.pose_gradient(refs, np.zeros(6), np.zeros(6))))
        g_own[_S] = self.p.K_t * x[_S]
        F_e, _, Wn = _elastic(self.p, self.pair, st)
        Wn = Wn.copy()
        Wn[5] -= F_e
        return np.concatenate((g_own, self.pair.pose_gradient(refs, -(st.G_a.T @ Wn), st.G_b.T @ Wn)))

    def structure(self, t, x, refs):
        B_own = self.input_matrix(t, x, refs)
        B_ref = np.hstack((self.pair.pose_rate_matrix(refs), np.zeros((7 * self.pair.n_pose_refs, 3))))
        B = np.vstack((B_own, B_ref))
        return np.zeros((B.shape[0], B.shape[0])), B

    # ---- events
    def events(self):
        out = (
            EventSpec("touch", self._touch_fn, -1.0, self._touch) if self.guard is None else
            EventSpec("touch", self._guarded_touch_fn, -1.0, self._guarded_touch, uses_system=True),
            EventSpec("release", self._release_fn, +1.0, self._release),
            EventSpec("chart", self._chart_fn, -1.0, self._chart),
        )
        if self.pair._cullable:
            out += (EventSpec("approach", self._approach_fn, -1.0, self._approach),)
        return out

    def distance(self, x, refs):
        """Signed distance Delta between the surfaces [m] (exact, at the current poses)."""
        return -self.pair.state(x[_X], x[_CH], refs).delta

    def _touch_gap(self, x, refs):
        """How far the surfaces are from touching [m] (negative: overlapping); culled, a
        positive lower bound of Delta, which has the same sign."""
        return -self._state(x, refs).delta

    def _event_values(self, x, refs):
        """The event functions' values in the order of `events` (touch, release, chart,
        [approach]) from `porthamiltonian.kernels.compliant.spring_events` at the Python path's
        pair record (unguarded; a guarded touch reads `_touch_gap`)."""
        st = self._state(x, refs)
        F, I = self._arrays()
        return call_kernel(self, _kcompliant.spring_events, 0.0, _contiguous(x[:10]), self._pose_args(refs),
                           self._record(st), F, I)

    def _touch_fn(self, t, x, refs):
        """The signed distance (culled: a lower bound of it) while not touching, else 1."""
        return self._event_values(x, refs)[0]

    def _guarded_touch_fn(self, system, t, x):
        if getattr(self, "_cached_system", None) is not system:
            path = next(p for p, o in system.elements.items() if o is self)
            self._cached_system, self._cached_path = system, path
        own, refs = system.element_state(self._cached_path, x)
        if own[_ACT] > 0.5:
            return 1.0
        return self.guard.event_value(system, x, self._touch_gap(own, refs))

    def _release_fn(self, t, x, refs):
        """The signed distance while touching, else -1."""
        return self._event_values(x, refs)[1]

    def _approach_fn(self, t, x, refs):
        """The bounding test's distance bound minus the cull distance (untouched contacts)."""
        return self._event_values(x, refs)[3]

    def _approach(self, t, x, refs):
        """The bodies came within the cull distance: the tracked parameters, frozen while the
        contact was culled, restart from the exact contact points."""
        out = self._exact(x, refs)
        out[_X], out[_CH] = self.pair.farthest_charts(out[_X], out[_CH])
        return EventOutcome(out, 0.0, "bodies within the cull distance: contact points tracked again")

    def _exact(self, x, refs):
        """The state with the tracked parameters set to the exact ones (kept as they are off a
        bounded surface, where there are none)."""
        st = self.pair.state(x[_X], x[_CH], refs)
        out = np.array(x, dtype=float)
        if not st.culled:
            out[_X] = st.cp.x
            out[_CH] = st.cp.charts
        return out

    def _touch(self, t, x, refs):
        out = self._exact(x, refs)
        out[_ACT] = 1.0
        out[_S] = 0.0
        return EventOutcome(out, 0.0, "contact made")

    def _guarded_touch(self, t, x, refs):
        gap = self._touch_gap(x, refs)
        if self.guard.is_touchdown(gap):
            return self._touch(t, x, refs)
        return EventOutcome(np.array(x, dtype=float), 0.0, f"touchdown guard armed {-gap:.3g} m inside the surface: "
                            "no contact until the surfaces part and meet again")

    def _release(self, t, x, refs):
        lost = 0.5 * float(self.p.K_t @ (x[_S] * x[_S]))
        st = self._state(x, refs)
        if st.culled:   # released off a bounded surface's edge, still pressed: that energy is lost too
            lost += self.p.law.potential(st.edge_delta)
        out = self._exact(x, refs)
        out[_ACT] = 0.0
        out[_S] = 0.0
        left = f" ({lost:.3g} J left in the tangential spring)" if lost > 1e-15 else ""
        return EventOutcome(out, lost, "contact released" + left)

    def _chart_fn(self, t, x, refs):
        """The tracked charts' margin to their singular sets (`kernels.compliant.chart_margin`),
        1 while culled or off the surface."""
        return self._event_values(x, refs)[2]

    def _chart(self, t, x, refs):
        from porthamiltonian.kernels.reduced import patch_frame

        def frame(S, u, v, chart):     # unchecked: at a patch transition the old chart's point lies just past its side
            return patch_frame(np.array(S._derivatives(u, v, 1, chart), dtype=float))

        ch_old = (int(round(x[_CH][0])), int(round(x[_CH][1])))
        st = self.pair.state(x[_X], x[_CH], refs)
        xe = np.array(st.cp.x, dtype=float)
        ch_e = tuple(st.cp.charts)
        x_new, ch_new = self.pair.farthest_charts(xe, ch_e)
        out = np.array(x, dtype=float)
        out[_X], out[_CH] = x_new, ch_new
        if ch_new[0] != ch_old[0] and x[_ACT] > 0.5:
            # re-express the tangential deformation in the new frame axes (rotation about n)
            Fo = frame(self.pair.S1, *self.pair.S1._chart_map(xe[0], xe[1], ch_e[0], ch_old[0]), ch_old[0])
            Fn = frame(self.pair.S1, x_new[0], x_new[1], ch_new[0])
            Rrel = Fn[:3, :3].T @ Fo[:3, :3]
            s = np.array(x[_S])
            out[_S][1:3] = Rrel[:2, :2] @ s[1:3]
        return EventOutcome(out, 0.0, f"charts {ch_old} -> {tuple(ch_new)}")

    def parameters(self):
        return {"pair": self.pair.parameters(), "contact": self.p.to_spec(), "relax": self.relax,
                "guard": None if self.guard is None else self.guard.parameters()}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        return cls(name, ContactPair.from_parameters(params["pair"]), ContactParameters.from_spec(params["contact"]),
                   relax=params["relax"], guard=TouchdownGuard.from_parameters(params.get("guard")))


def _spring_refs(spring):
    return (StateRef(spring, "x"), StateRef(spring, "charts"), StateRef(spring, "active"))


_NO_WRENCH = np.zeros(6)
#: a law of no force (`porthamiltonian.kernels.contact.normal_force`): a user's law's slot in the
#: packed constants (its values enter the pair record at each evaluation, `ContactSpring._law_at`)
_NO_LAW = np.array((_kcontact.LAW_LINEAR, 0.0, 0.0, 1.0, 0.0))
_Z3 = np.zeros((3, 3, 3))
_Z6 = np.zeros((6, 6))
_EYE4 = np.eye(4)


def pair_record(st, law, F):
    """The shared pair record of `porthamiltonian.kernels.compliant` (its fields `P_STATUS` ...
    `P_LAW`) of a pair state that the Python path resolved (`ContactPair.state`: re-charted,
    searched globally, a surface evaluated in Python): the one packing through which the
    Python element methods call the kernels the compiled path calls.

    Parameters
    ----------
    st : ContactState
    law : ndarray, shape (5,) or None
        The packed normal law at `st` (`ContactSpring._law_at`); None where the kernels do not
        read it (a culled state, a sliding-plane contact): the packed constants' law stands in.
    F : ndarray
        The packed constants (`porthamiltonian.kernels.compliant.pack`).

    Returns
    -------
    tuple
        ``(status, culled, delta, H_12, x, c1, c2, D1, D2, H_1C, G_a, G_b, law)``. A culled
        state (far apart, or off a bounded surface) is recorded as off the surface (culled
        2.0): the kernels read the same values from it (the approach event's bound recomputed
        by the same kernel as the bounding test's).
    """
    c = _contiguous
    if law is None:
        law = F[_kcompliant.LAW : _kcompliant.LAW + 5].copy()
    if st.culled:
        return (_kcontact.OK, 2.0, float(st.delta), c(st.H_12), np.zeros(4), 0, 0, _Z3, _Z3, _EYE4, _Z6, _Z6, law)
    return (_kcontact.OK, 0.0, float(st.delta), c(st.H_12), c(st.cp.x), int(st.cp.charts[0]), int(st.cp.charts[1]),
            c(st.D[0]), c(st.D[1]), c(st.H_1C), c(st.G_a), c(st.G_b), c(law))


def _contiguous(a):
    """``a`` as a C-contiguous float64 array (itself when it is one already: the types
    `call_kernel` relies on)."""
    if type(a) is np.ndarray and a.dtype == np.float64 and a.flags.c_contiguous:
        return a
    return np.ascontiguousarray(a, dtype=float)


def _padded(refs, slots):
    """``refs`` as a kernel takes them (`Kernel.pad`): by the element's `ContactPair.padded_refs`
    slots, an empty array for a fixed body, each a contiguous float array."""
    return tuple(_EMPTY if k < 0 else _contiguous(refs[k]) for k in slots)


def call_kernel(owner, kernel, *args):
    """``kernel(*args)`` from an element's Python method, through the compiled entry point of
    the overload its first call selected (kept in ``owner``).

    numba's dispatcher types every call's arguments in Python, about 1 us per entry of a tuple
    argument, and the contact kernels take the pair record (13 entries) and the padded
    references (8): that typing cost more than the kernel itself. The Python methods build
    these arguments with fixed types (`pair_record`, `_padded`: float64 C-contiguous arrays,
    Python ints and floats), so the overload of the first call is the overload of every call.
    Where the first call's types do not name an overload (the dispatcher converted an
    argument), every call goes through the dispatcher.
    """
    entries = owner.__dict__.setdefault("_kernel_entries", {})
    entry = entries.get(kernel)
    if entry is not None:
        return entry(*args)
    out = kernel(*args)
    if entry is None and kernel not in entries:
        cres = kernel.overloads.get(tuple(kernel.typeof_pyval(a) for a in args))
        entries[kernel] = None if cres is None else cres.entry_point
    return out


_EMPTY = np.zeros(0)
#: the pair state of a contact that is not touching, for the resistors' kernels (which read the
#: contact flag first and return their idle values)
_IDLE_STATE = ContactState(None, np.eye(4), None, None, None, 0.0, None, True)


def _local_law(p, pair, st):
    """``(packed Hunt-Crossley law with the local stiffness, configuration part of the
    spring's wrench)`` of a `LocalHertzLaw` at the contact state (`ContactPair.local_hertz`)."""
    K, g = pair.local_hertz(st, p.law.modulus)
    W_geo = 0.4 * st.delta**2.5 * g if st.delta > 0.0 else _NO_WRENCH
    return _kcontact.resolve_law(p.law.packed, K), W_geo


def _elastic(p, pair, st):
    """``(F_e [N], V [J], W_geo)`` of the normal law at a touching contact state: elastic force,
    stored energy, and the part of the spring's wrench from a configuration-dependent
    stiffness (`porthamiltonian.kernels.contact.local_hertz`; zero for a fixed law)."""
    if isinstance(p.law, LocalHertzLaw):
        law, W_geo = _local_law(p, pair, st)
        return (_kcontact.normal_force(law, st.delta, 0.0)[0], _kcontact.normal_potential(law, st.delta), W_geo)
    return p.law.elastic(st.delta), p.law.potential(st.delta), _NO_WRENCH


class _SpringResistor(ResistorElement):
    """A resistor of a compliant contact that reads its spring's state and the two bodies'
    poses and momenta: the damper and the slip.

    References: the spring's tracked parameters, charts and contact flag, the moving bodies'
    poses, their momenta, and the spring's deformation (last).
    """

    linear = False

    def __init__(self, name, spring: ContactSpring):
        super().__init__(name)
        self.spring = spring
        self.pair = spring.pair
        self.p = spring.p

    def state_refs(self):
        return _spring_refs(self.spring) + self.pair.refs() + self.pair.momentum_refs() + (StateRef(self.spring, "s"),)

    def _state(self, refs):
        return self.pair.state(refs[0], refs[1], refs[3:])

    def _slots(self):
        """`ContactPair.padded_refs` of the resistor's references (its kernels' ``refs``)."""
        slots = self.__dict__.get("_slots_cache")
        if slots is None:
            n = self.pair.n_pose_refs    # the spring's three, the poses, the momenta, the rest
            slots = self.__dict__["_slots_cache"] = self.pair.padded_refs(
                before=3, momenta=True, after=len(self.state_refs()) - 3 - 2 * n)
        return slots

    def _kernel_at(self, kernel, t, inputs, refs):
        """`kernel` (the element's law or its Jacobian, `porthamiltonian.kernels.compliant`) at
        the Python path's pair state (`ContactSpring._record`); while the contact is not
        touching no pair state is computed (the kernels read the flag first: a culled record
        stands in)."""
        inputs = tuple(_contiguous(u) for u in inputs)
        F, I = self.spring._arrays()
        if refs[2][0] < 0.5:
            sh = self.spring._idle_record()
        else:
            st = self._state(refs)
            rate = 0.0
            if len(inputs) == 2 and not st.culled and isinstance(self.p.law, UserNormalLaw):
                rate = -(st.G_b @ inputs[1] - st.G_a @ inputs[0])[5]   # a user's law's damping: the penetration rate
            sh = self._record(st, refs, rate)
        return call_kernel(self, kernel, float(t), inputs, _padded(refs, self._slots()), sh, F, I)

    def _record(self, st, refs, rate):
        """The pair record of the touching state `st` (`ContactSpring._record`)."""
        return self.spring._record(st, rate)

    def kernel(self, role):
        if role not in ("law", "law_jacobian"):
            return None
        packed = self.spring._packed()
        fn = self._law_kernel if role == "law" else self._law_jacobian_kernel
        n = self.pair.n_pose_refs    # the spring's three, the poses, the momenta, the rest
        refs = self.pair.padded_refs(before=3, momenta=True, after=len(self.state_refs()) - 3 - 2 * n)
        # culled, the contact is not touching: no wrench, no slip (the spring exerts nothing)
        idle = tuple(port.dim for port in self.ports()) if role == "law" else None
        return None if packed is None else Kernel(fn, *packed, reads=self.spring, refs=refs, idle=idle)

    def parameters(self):
        return {"spring": self.spring}


class _WrenchResistor(_SpringResistor):
    """A resistor on the two bodies' twists (ports "a", "b" bonded from their "B" ports)
    returning the wrenches on them."""

    def ports(self):
        return (Port("a", 6, "in", frame=f"{self.pair.body_a.name}.B"), Port("b", 6, "in", frame=f"{self.pair.body_b.name}.B"))

    def port_bindings(self):
        return {"a": (self.pair.body_a, "B"), "b": (self.pair.body_b, "B")}

    def causalities(self):
        return ((EFFORT_OUT, EFFORT_OUT),)


@register_element
class ContactDamper(_WrenchResistor):
    """The contact's damper (see module docstring). Built by `CompliantContact`."""

    type_name = "ContactDamper"
    _law_kernel = staticmethod(_kcompliant.damper_law)
    _law_jacobian_kernel = staticmethod(_kcompliant.damper_law_jacobian)

    def law(self, k, t, inputs, refs):
        """`porthamiltonian.kernels.compliant.damper_law`: the normal law's damping and the
        stick dampers, capped by the friction limits the spring leaves (Dahl friction law);
        nothing while the contact is not touching (the kernel's first branch)."""
        if refs[2][0] < 0.5:
            return (np.zeros(6), np.zeros(6))
        return self._kernel_at(self._law_kernel, t, inputs, refs)

    def law_jacobian(self, k, t, inputs, refs):
        """`porthamiltonian.kernels.compliant.damper_law_jacobian`."""
        if refs[2][0] < 0.5:
            return np.zeros((12, 12))
        return self._kernel_at(self._law_jacobian_kernel, t, inputs, refs)


@register_element
class SlipFriction(_SpringResistor):
    """Regularized Coulomb slip of the contact's tangential spring anchor (module docstring).

    Admittance causality: receives the spring's (spin torque, f_x, f_y), returns the slip rates.
    """

    type_name = "SlipFriction"
    _law_kernel = staticmethod(_kcompliant.friction_law)
    _law_jacobian_kernel = staticmethod(_kcompliant.friction_law_jacobian)

    def ports(self):
        return (Port("p", 3, "in"),)

    def causalities(self):
        return ((FLOW_OUT,),)

    def law(self, k, t, inputs, refs):
        """`porthamiltonian.kernels.compliant.friction_law`: the slip rates for the spring's
        forces (not touching: none)."""
        return self._kernel_at(self._law_kernel, t, inputs, refs)

    def law_jacobian(self, k, t, inputs, refs):
        """`porthamiltonian.kernels.compliant.friction_law_jacobian`."""
        return self._kernel_at(self._law_jacobian_kernel, t, inputs, refs)


def _reduced_mass(body_a, body_b):
    """Reduced translational mass of the two bodies [kg] (a ground is infinitely heavy)."""
    inv = sum(1.0 / b.mass for b in (body_a, body_b) if isinstance(b, RigidBody))
    return 1.0 / inv


#: the default pair of solids of a compliant contact's normal law (`default_normal_law`): a rigid
#: polymer (ABS, nylon, acetal: E = 3 GPa, nu = 0.35) on the same, contact modulus E* = 1.71 GPa
DEFAULT_SOLID = ElasticSolid(young=3.0e9, poisson=0.35)
DEFAULT_MODULUS = effective_modulus(DEFAULT_SOLID.young, DEFAULT_SOLID.poisson, DEFAULT_SOLID.young,
                                    DEFAULT_SOLID.poisson)
#: the deepest static sinkage a default normal law allows, as a fraction of the reference radius
MAX_REST_SINKAGE = 1e-3
#: restitution of the default normal law's damping, at the impact speed `DEFAULT_IMPACT_SPEED` [m/s]
DEFAULT_RESTITUTION = 0.5
DEFAULT_IMPACT_SPEED = 1.0
#: stick frequency [rad/s] of the default tangential spring: k_t = m OMEGA_T^2 (`default_tangential_stiffness`)
TANGENTIAL_FREQUENCY = 100.0
_G = 9.81


def reference_radius(pair):
    """The radius [m] the default normal law is derived from: that of the sphere whose bounding
    box has the diagonal of the smaller surface's (`ContactPair` scale / (2 sqrt 3)); for a sphere
    on a plane, the sphere's radius."""
    return pair._scale / (2.0 * np.sqrt(3.0))


def default_modulus(mass, radius):
    """Contact modulus E* [Pa] of the default normal law for bodies of reduced `mass` [kg] on a
    contact of reference `radius` [m]: the default solids' `DEFAULT_MODULUS`, raised where the
    bodies' weight m g would sink that Hertz contact deeper than `MAX_REST_SINKAGE` of the radius
    to the modulus that sinks it exactly that deep (Hertz, sphere on a flat:
    delta = (9 F^2 / (16 R E*^2))^(1/3), so E* = 3 F / (4 sqrt(R) delta^(3/2)))."""
    weight = _G * mass
    limit = MAX_REST_SINKAGE * radius
    return max(DEFAULT_MODULUS, 3.0 * weight / (4.0 * np.sqrt(radius) * limit**1.5))


def default_normal_law(name, normal, stiffness, damping, exponent, clip, *, mass, radius):
    """The contact's normal law: a law object as given, or built from its kind's name with the
    defaults of the parameters not given. No name (`normal` None): "hunt_crossley" (Hertz's
    exponent 3/2), unless a `stiffness` or a `damping` is given, which are then a linear
    spring's [N/m] and damper's [N s/m], as they always were.

    Defaults (the decision, issue 36: a default must not distort the geometry): the bodies
    rest as deep as a Hertz contact of the default solids would hold them,
    ``delta_0 = (9 W^2 / (16 R E*^2))^(1/3)`` with W = m g the weight of the two bodies'
    reduced `mass`, R = `radius` (`reference_radius`) and E* = `default_modulus` (the rigid
    polymer `DEFAULT_SOLID`, stiffened where needed so that delta_0 <= `MAX_REST_SINKAGE` R;
    a 1 kg ball of 5 cm rests 7.2 um deep, 0.014 % of its radius, and its 1 m/s impact lasts
    1.06 ms). So

    - stiffness: ``W / delta_0^n`` (n = 1 linear, 3/2 Hertz, `exponent` Hunt-Crossley); for
      Hertz and Hunt-Crossley of exponent 3/2 that is Hertz's (4/3) E* sqrt(R);
    - damping: the restitution `DEFAULT_RESTITUTION` = 0.5 of an impact at
      `DEFAULT_IMPACT_SPEED` = 1 m/s: exact for Hunt-Crossley (`restitution.hunt_crossley_damping`,
      any speed-independent k, n) and for linear (``c = 2 zeta sqrt(k m)``, any speed); for
      "hertz" (a constant c on the Hertz spring) the Hunt-Crossley damping force at rest,
      c = d W;
    - exponent: 3/2.
    """
    if isinstance(normal, (NormalLaw, UserNormalLaw, LocalHertzLaw)):
        given = [k for k, v in (("stiffness", stiffness), ("damping", damping), ("exponent", exponent)) if v is not None]
        if given or clip:
            raise ParameterError(f"compliant contact {name!r}: `normal` is a law object, which holds its own "
                                 f"{', '.join(f'`{g}`' for g in given + (['clip'] if clip else []))}")
        return normal
    if normal is None:   # a bare stiffness or damping is a spring's [N/m], a damper's [N s/m]: linear
        normal = "linear" if stiffness is not None or damping is not None else "hunt_crossley"
    kind = normal
    n = {"linear": 1.0, "hertz": 1.5}.get(kind, 1.5 if exponent is None else exponent)
    weight = _G * mass
    if stiffness is None:
        E = default_modulus(mass, radius)
        rest = (9.0 * weight**2 / (16.0 * radius * E**2)) ** (1.0 / 3.0)
        stiffness = float(4.0 / 3.0 * E * np.sqrt(radius) if n == 1.5 else weight / rest**n)
    if damping is None:
        d = hunt_crossley_damping(DEFAULT_RESTITUTION, DEFAULT_IMPACT_SPEED)
        if kind == "linear":
            damping = 2.0 * linear_damping_ratio(DEFAULT_RESTITUTION) * np.sqrt(
                as_finite_float(stiffness, "stiffness", positive=True) * mass)
        else:
            damping = d * weight if kind == "hertz" else d
    return NormalLaw(kind, stiffness=stiffness, damping=damping, exponent=1.5 if exponent is None else exponent,
                     clip=clip)


def default_tangential_stiffness(law, mass, friction):
    """k_t [N/m] of the tangential spring when it is not given (the decision, issue 36).

    - A linear normal law: its stiffness k (the penalty convention: one spring rate in the
      three directions, the tangential stick as stiff as the normal support).
    - Any other law (Hertz, Hunt-Crossley, local Hertz, a user's law, the default):
      ``m OMEGA_T^2`` with m the two bodies' reduced `mass` and OMEGA_T =
      `TANGENTIAL_FREQUENCY` = 100 rad/s, i.e. 1e4 N/m per kg. Not the law's tangent stiffness
      at rest, which for stiff solids is 100-2000 times more (Mindlin's k_t ~ k_n): the Dahl
      friction law (`CompliantContact`) slides at Coulomb's mu F_e, within 1 %, once the
      surfaces have slid 5 mu F_e / k_t = 5 mu g / OMEGA_T^2 (1 mm at mu = 0.2 on a level
      floor), whatever k_t, while its relaxation rate k_t |v| / (mu F_e) = OMEGA_T^2 |v| /
      (mu g) bounds an explicit solver's step: 5100 1/s at mu = 0.2 and 1 m/s here, 1e6 1/s
      with the Hertz tangent stiffness. The price is a pre-sliding (stick) displacement of
      mu g / OMEGA_T^2 (0.2 mm at mu = 0.2) and a stick oscillation at 16 Hz; pass
      `tangential_stiffness` for a stiffer stick.
    - frictionless (`friction` 0): 0, no tangential force at all.
    """
    if friction == 0:
        return 0.0
    if isinstance(law, NormalLaw) and law.kind == "linear":
        return law.stiffness
    return mass * TANGENTIAL_FREQUENCY**2


def _scale_law(name, law, pair):
    """The law the defaults are derived from: the law itself, or for a `LocalHertzLaw` (whose
    stiffness depends on where the surfaces touch) the law of a sphere of the pair's size
    (`ContactPair` scale, the smaller surface's) on a flat, whose secant stiffness under a 1 kg
    weight stands for its stiffness. Checks that the pair supports a local law."""
    if not isinstance(law, LocalHertzLaw):
        return law
    if pair._point:
        raise ModelError(f"compliant contact {name!r}: a LocalHertzLaw takes its stiffness from the curvature of "
                         f"both surfaces, and {pair.S2!r} is a point (no radius of curvature); give the law's "
                         "stiffness (NormalLaw('hertz', stiffness=...), or `stiffness=`)")
    if not pair._compiled:
        raise ModelError(f"compliant contact {name!r}: a LocalHertzLaw needs surfaces the compiled kernels "
                         "evaluate (built-in kinds, B-splines, sympy surfaces); a Python-defined surface is not")
    if pair._bounded:
        raise ModelError(f"compliant contact {name!r}: a LocalHertzLaw needs surfaces without edges (a bounded "
                         "plane or patch releases the contact off its edge, where the local stiffness is not "
                         "defined); use an unbounded plane or a fixed-stiffness NormalLaw('hertz', ...)")
    ref = law.reference(pair._scale)
    d = ref.penetration_at_rest(9.81)
    return NormalLaw("linear", stiffness=9.81 / d)


def CompliantContact(name, body_a, surface_a, body_b, surface_b, *, pose_a=None, pose_b=None, normal=None,
                     stiffness=None, damping=None, exponent=None, clip=False, tangential_stiffness=None,
                     tangential_damping=None, spin_stiffness=None, spin_damping=None, friction=0.5,
                     spin_friction=0.01, slip_damping=None, alpha=0.5, max_penetration=None, relax=1.0,
                     cull=True, friction_law="dahl", guard=None):
    """A compliant contact component between body a (surface a) and body b (surface b).

    Bond it to the bodies (from the bodies to the component)::

        c = CompliantContact("c", ball, Sphere(0.1), ground, Plane())
        bg.add(c); bg.connect(ball.frame().port, (c, "a")); bg.connect(ground.frame().port, (c, "b"))

    Surfaces must be absolutely convex where the kinematics need it (a plane is accepted
    against a convex surface); the contact between the two is one point.

    Parameters
    ----------
    name : str
    body_a, body_b : RigidBody or Ground
    surface_a : Surface
    surface_b : Surface or Point
        A `porthamiltonian.geometry.Point` (a point foot, a sphere of radius 0) meets
        `surface_a` at the foot of the normal through it, with `surface_a`'s normal
        (`ContactPair`): `surface_a` must be a built-in surface, smooth where the point
        touches (an edge of a bounded patch is a `GeometryError`; a point as `surface_a`, or two
        points, a `ParameterError` at construction). A point has no size: give `stiffness` or
        a law object (the default law is derived from the contact's size), not a
        `LocalHertzLaw` (no curvature).
    pose_a, pose_b : array_like (4, 4), optional
        Pose of each surface in its body.
    normal : {"linear", "hertz", "hunt_crossley"} or NormalLaw or UserNormalLaw or LocalHertzLaw, optional
        Normal law (`porthamiltonian.contact.laws`): a built-in kind's name with the next
        three parameters, or a law object (then they are not given), e.g. a
        `UserNormalLaw` from a sympy potential, or a `LocalHertzLaw` whose stiffness comes
        from the contact modulus and the local curvatures of the two surfaces. Default
        "hunt_crossley" with exponent 3/2 (but "linear" when `stiffness` or `damping` is
        given: a bare stiffness is a spring rate): Hertz's law of the default pair of solids
        (`default_normal_law`: rigid polymer on rigid polymer, E* = 1.71 GPa, stiffened
        where the bodies' weight would sink it deeper than 0.1 % of the contact's size; a
        1 kg ball of 5 cm radius rests 7.2 um deep, 0.014 % of its radius), with the damping
        of restitution 0.5 at 1 m/s.
    stiffness : float
        k of the normal law. Default: the stiffness with which the bodies' weight (their
        reduced mass) sinks the contact as deep as the default solids' Hertz contact would
        (`default_normal_law`): (4/3) E* sqrt(R) N/m^1.5 for Hertz; for a linear law 1.36e6
        N/m for a 1 kg ball of 5 cm (an impact of pi sqrt(m/k) = 2.7 ms).
    damping : float
        c [N s/m] (linear, Hertz) or a [s/m] (Hunt-Crossley). Default: restitution 0.5 of a
        1 m/s impact (`default_normal_law`).
    exponent : float
        Hunt-Crossley exponent (default 1.5).
    clip : bool
        Clip the total normal force at zero (no pull). Default False (the classical
        spring-damper impact, whose restitution has a closed form).
    tangential_stiffness : float
        k_t [N/m] of the tangential spring; default (`default_tangential_stiffness`) a
        linear law's stiffness, for any other law 1e4 N/m per kg of the two bodies' reduced
        mass (a stick frequency of 100 rad/s: sliding friction is Coulomb's within 1 % after
        5 mu g / (100/s)^2 of sliding, at a relaxation rate explicit solvers handle), or 0
        when `friction` is 0 (a frictionless contact transmits no tangential force at all).
    tangential_damping : float
        c_t [N s/m] of the stick damper in parallel with the spring and slip. With the Dahl
        law its force is capped by what the friction limit leaves to it (mu F_e minus the
        spring's force), so it damps the stick phase without adding to the sliding force;
        default 2 sqrt(k_t m) with m the reduced mass of the two bodies (critical damping
        of a sticking body; 0 when frictionless). With the viscous law it is not capped and
        defaults to 0.
    spin_stiffness, spin_damping : float
        [N m/rad], [N m s/rad] about the normal; default k_t (1 cm)^2 (0 when frictionless)
        and c_t (1 cm)^2 (0 with the viscous law); the spin damper is capped like c_t.
    friction : float
        Coulomb coefficient mu >= 0 (default 0.5).
    spin_friction : float
        Torsional friction length [m]: the spin torque is limited to spin_friction * F_e,
        F_e the elastic normal force (default 0.01 m).
    slip_damping : float
        c_slip [N s/m] of the slip beyond the friction limit (default k_t * 1 ms). With the
        viscous law it is the only slip: while sliding at speed v the friction force
        exceeds mu F_n by c_slip v (about 6 mu N at 1 m/s with the defaults for 1 kg);
        smaller values are closer to Coulomb friction and make the equations stiffer
        (relaxation rate k_t / c_slip). With the Dahl law it only bounds the force when the
        limit drops faster than the anchor slips.
    friction_law : {"dahl", "viscous"}
        How the spring's anchor slips (module docstring, "Friction"). "dahl" (default): in
        proportion to the sliding speed, so that sliding friction is mu F_e (within 1 %
        once the surfaces have slid 5 mu F_e / k_t, 1 mm for 1 kg at the defaults) at any
        speed, with no tuning; the relaxation rate ``k_t |v| / (mu F_e)`` bounds explicit steps
        (5000 1/s for 1 kg at 1 m/s). Its stick-slip switches are kinks of the vector field
        that implicit solvers' error estimates miss: Radau needs rtol <= 1e-10 (measured on
        the main job after 0.3 s: 1e-4 off at rtol 1e-8, 1.5e-11 at 1e-10); explicit
        methods are unaffected. "viscous": the earlier regularization by c_slip alone.
    alpha : float
        Average tangent plane position between the surfaces (0: on a, 1: on b; 0.5).
    max_penetration : float
        Model range [m]: starting deeper than this is an error (default: the larger of 1 cm
        and 10 times the static penetration under a 1 kg weight).
    relax : float
        Rate [1/s] at which the tracked parameters are pulled to the exact contact points.
    cull : bool
        Skip the contact points while a bounding test proves the surfaces apart (module
        docstring, "Culling"); False computes them at every evaluation (the same motion,
        slower: for comparison).
    guard : TouchdownGuard, optional
        The contact is made only while the guard is armed (a walker's swing foot passing
        through the ground at mid-stance is ignored; `library.touchdown`).

    Returns
    -------
    BondGraph
        Component with ports "a" and "b".
    """
    if not isinstance(cull, bool):
        raise ParameterError(f"`cull` must be True or False, got {cull!r}")
    if isinstance(friction, str):
        raise ParameterError(
            f"compliant contact {name!r}: `friction` is the Coulomb coefficient mu (a number), got {friction!r}; "
            "friction modes are the sliding-plane contact's (or use material=ContactMaterial(friction=mu) for both)")
    pair = ContactPair(body_a, surface_a, body_b, surface_b, pose_a=pose_a, pose_b=pose_b, alpha=alpha, cull=cull)
    if pair._point and stiffness is None and not isinstance(normal, (NormalLaw, UserNormalLaw, LocalHertzLaw)):
        raise ParameterError(
            f"compliant contact {name!r}: `surface_b` = {surface_b!r} is a point, which has no size to derive the "
            "default normal law from (a Hertz contact of radius 0 has no stiffness): give `stiffness` (and "
            "`damping`), or a law object")
    mass = _reduced_mass(body_a, body_b)
    law0 = default_normal_law(name, normal, stiffness, damping, exponent, clip, mass=mass,
                              radius=reference_radius(pair))
    scale_law = _scale_law(name, law0, pair)
    if friction_law not in FRICTION_LAWS:
        raise ParameterError(f"`friction_law` must be one of {FRICTION_LAWS}, got {friction_law!r}")
    k_t = default_tangential_stiffness(law0, mass, friction) if tangential_stiffness is None else tangential_stiffness
    if max_penetration is None:
        max_penetration = max(10.0 * scale_law.penetration_at_rest(9.81), 0.01)
    params = ContactParameters(
        law=law0, spin_friction=spin_friction, max_penetration=max_penetration,
        **friction_parameters(k_t, mass, friction, friction_law,
                              tangential_damping=tangential_damping, spin_stiffness=spin_stiffness,
                              spin_damping=spin_damping, slip_damping=slip_damping))
    spring = ContactSpring("spring", pair, params, relax=relax, guard=guard)
    return contact_component(name, spring, ContactDamper("damper", spring), SlipFriction("slip", spring))


def friction_parameters(k_t, mass, friction, friction_law, *, tangential_damping=None, spin_stiffness=None,
                        spin_damping=None, slip_damping=None):
    """The friction parameters of `ContactParameters`, the ones not given at their defaults
    (`CompliantContact`): the stick damper critical for the reduced mass `mass` [kg] with
    the Dahl law (else 0), spin stiffness and damping (1 cm)^2 times the tangential ones,
    slip damping k_t * 1 ms (at least 1 N s/m); frictionless, no tangential or spin force."""
    frictionless = friction == 0
    dahl = friction_law == "dahl"
    c_t = tangential_damping
    if c_t is None:
        c_t = (2.0 * float(np.sqrt(as_finite_float(k_t, "tangential_stiffness", nonnegative=True) * mass))
               if dahl and not frictionless else 0.0)
    return dict(
        tangential_stiffness=k_t, tangential_damping=c_t, friction=friction, friction_law=friction_law,
        spin_stiffness=(0.0 if frictionless else k_t * 1e-4) if spin_stiffness is None else spin_stiffness,
        spin_damping=(c_t * 1e-4 if dahl else 0.0) if spin_damping is None else spin_damping,
        slip_damping=max(k_t * 1e-3, 1.0) if slip_damping is None else slip_damping)


def contact_component(name, spring, damper, slip, *more):
    """The component of a compliant-kind contact: the spring, the damper and any `more`
    resistors on the two bodies' twists, joined by a 1-junction per body, and the slip on
    the spring's "slip" port; ports "a" and "b"."""
    g = BondGraph(name)
    ja = Junction1("ja", dim=6)
    jb = Junction1("jb", dim=6)
    g.add(spring, damper, slip, *more, ja, jb)
    for junction, port in ((ja, "a"), (jb, "b")):
        for el in (spring, damper, *more):
            g.connect(junction, (el, port))
    g.connect((spring, "slip"), slip)
    g.expose("a", ja)
    g.expose("b", jb)
    return g
