"""A foot on soft soil with memory: the compliant contact with an elastoplastic normal law.

`SoilContact(...)` returns a component with the compliant contact's ports "a" (the foot's
body) and "b" (the ground) and its geometry (tracked contact points, contact frame, Dahl
friction), whose normal law is the soil's (`porthamiltonian.contact.soil.SoilLaw`: Bekker
loading, stiffer elastic unloading, permanent sinkage)::

          a ──┬── SoilSpring ──── slip ──> SoilSlip       (regularized Coulomb, Dahl)
              │    (stores V)
              ├── SoilDamper                               (viscous soil damping, stick dampers)
              └── PlasticFlow                              (the plastic part of the loading force)
          b ──┘

The soil is in one of two modes, switched by events (the spring's own state holds the mode,
the memory m, the deepest sinkage of the footprint [m], and the footprint's centre):

- loading (virgin soil, z > m): the spring stores ``V(z, z) = K z^(N+1) / (2 beta N)`` and exerts
  its gradient ``K (N+1) z^N / (2 beta N)``; `PlasticFlow` adds the rest of the loading force,
  ``K z^N (1 - (N+1) / (2 beta N))`` (`SoilLaw.plastic_force`), whose power is the plastic work
  (booked as dissipated by the element "plastic"). Together: ``K z^N``, Bekker's curve;
- elastic (z <= m): ``V(z, m) = 1/2 k_u(m) (z - z_p(m))^2``, the force its gradient.

Events: "unload" when the sinkage rate dz/dt falls through 0 while loading (m := z, elastic);
"yield" when z rises through m while elastic (loading again; its function is read only while
dz/dt > 0, so that the unload's own instant, z = m at a rate zero to the root's accuracy, does
not read as a yield). Energy and force are continuous
at both (V(m, m) is the same on both branches). With the memory a state changed only at
events, the vector field is smooth between them: a memory integrated as dm/dt = dz/dt while
z >= m slides along m = z, and explicit solvers crawl there (measured: 1 us steps once the
rimless wheel's foot had sunk 3 mm).

Footprints: the memory belongs to one footprint. When the foot leaves the soil (at the
imprint's floor, z = z_p(m)) the footprint's centre is recorded; a later touch within the
imprint's radius (`SoilLaw.footprint_radius`) lands in the imprint (touching at z = z_p(m),
elastic until z passes m), a touch elsewhere on virgin soil (the memory restarts at 0). The
stored energy is continuous at a touch: a touch off the footprint but below the virgin surface
(z > 0: a sole that is not the law's sphere leaves an imprint wider than its round footprint)
starts elastic on an imprint whose floor is z (V = 0; loading again past m = z / (1 - 1 /
(beta N))), not on the loading curve at V(z, z).
Sliding while in contact carries the footprint along (ploughing is not modelled).

Tangential: the compliant contact's Dahl friction (regularized Coulomb) with the soil's total
normal force; for a steady slide it traces Janosi and Hanamoto's shear curve
``mu F (1 - exp(-j / K))`` with ``K = mu F / k_t`` (cohesion not modelled). The Dahl term
slips no faster than the slip damping allows (its speed capped at ``mu F / c_slip``,
`porthamiltonian.kernels.soil.dahl_speed`): at a vanishing normal force (a touch, a rise to
the imprint's floor) its relaxation rate ``k_t speed / (mu F)`` would otherwise diverge and
stall explicit solvers; there the sliding force is ``c_slip speed``, below the viscous law's.

Compiled: the four elements export the kernels of `porthamiltonian.kernels.soil` (the
compliant contact's kernels around the soil's force, its events included unless a guard is
set), so a model with soil contacts runs on the compiled right-hand side; the Python methods
here evaluate the same formulas (`SoilLaw` calls the same scalar kernels) and take over where
the compiled path declines a state. The spring references the moving bodies' momenta after
their poses, for the "unload" event's sinkage rate.
"""

from __future__ import annotations

import numpy as np

from porthamiltonian.bondgraph.element import EventOutcome, EventSpec, Kernel, register_element
from porthamiltonian.bondgraph.ports import StateBlock, StateRef
from porthamiltonian.contact.soil import SoilLaw
from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry.point import Point
from porthamiltonian.geometry.sphere import Sphere
from porthamiltonian.kernels import contact as _kcontact
from porthamiltonian.kernels import soil as _ksoil

from .compliant_contact import (
    _ACT,
    _NO_WRENCH,
    _S,
    FRICTION_LAWS,
    ContactDamper,
    ContactParameters,
    ContactSpring,
    SlipFriction,
    _reduced_mass,
    _SpringResistor,
    contact_component,
    friction_parameters,
    _WrenchResistor,
    _contiguous,
    _padded,
    call_kernel,
    pair_record,
)
from .contact_geometry import ContactPair
from .touchdown import TouchdownGuard

__all__ = ["SoilContact", "SoilSpring", "SoilDamper", "SoilSlip", "PlasticFlow"]

# the soil spring's state: the compliant spring's 10 entries, then the soil's block: the memory,
# the mode (1 loading, 0 elastic) and the footprint's centre
_SOIL = slice(10, 15)
_M, _MODE, _FP = 10, 11, slice(12, 15)

#: a soil contact may start touching the surface, not pressed into virgin soil [m]
START_TOLERANCE = 1e-9


@register_element
class SoilSpring(ContactSpring):
    """The soil contact's storage (module docstring). Built by `SoilContact`.

    Own state (15): the compliant spring's 10 entries and the soil's block [discrete]: the
    memory m [m], the mode (1 loading, 0 elastic) and the footprint's centre (3) [m, in
    surface b's frame]. Ports "a", "b" and "slip" (3), as the compliant spring's.
    References: the moving bodies' poses, then their momenta (the "unload" event's sinkage
    rate); the energy does not depend on the momenta.
    """

    type_name = "SoilSpring"

    def __init__(self, name, pair: ContactPair, params: ContactParameters, soil: SoilLaw, *, relax=1.0, guard=None):
        super().__init__(name, pair, params, relax=relax, guard=guard)
        self.soil = soil
        #: sinkage beyond the smaller surface's size is outside the model
        self.depth_limit = pair._scale
        self._x0 = np.zeros(15)

    def state_blocks(self):
        return super().state_blocks() + (StateBlock("soil", 5, "discrete", default=np.zeros(5)),)

    def initialize(self, t, x, refs):
        """Closest points at the initial poses; the soil is virgin under the foot, unless its
        memory is given.

        A foot may start pressed into the soil (a robot standing in its imprints) when the
        initial state gives the soil block (``"<contact>/spring.soil"``: memory m [m], mode,
        footprint centre) with a memory m > 0 at least the foot's sinkage (to `START_TOLERANCE`,
        1 nm): the soil was
        pressed that deep, the foot rests in the imprint (the mode as given: 0 elastic, 1 on
        the loading curve, which needs the sinkage to equal m). The given block is kept as is
        (`PHSystem.initial_state` never overwrites a given block), including its footprint
        centre.

        Raises
        ------
        GeometryError
            The foot starts pressed into virgin soil (no memory given, or a memory shallower
            than the sinkage); a start on the surface, e.g. by `place_on`, is accepted.
        """
        params, charts, cp = self.pair.initial(refs)
        memory = float(x[_M])
        if -cp.distance > START_TOLERANCE and not (memory > 0.0 and -cp.distance <= memory + START_TOLERANCE):
            given = (f"; the given memory m = {memory:.6g} m is shallower than that" if memory > 0.0 else
                     ": give the soil block's memory m >= the sinkage (the depth the soil was pressed to) to start "
                     "in an imprint")
            raise GeometryError(
                f"{self.label}: the foot starts {-cp.distance:.6g} m into virgin soil; a soil contact must start on "
                f"the surface or above it (the soil's memory of how it was pressed there is unknown){given}")
        out = np.array(x, dtype=float)
        out[:4], out[4:6] = params, charts
        out[_ACT] = 1.0 if cp.distance < 0.0 else 0.0
        out[_S] = 0.0
        if memory <= 0.0:
            out[_M], out[_MODE], out[_FP] = 0.0, 1.0, cp.p2
        return out

    def state_refs(self):
        return self.pair.refs() + self.pair.momentum_refs()

    # ---- kernels
    def _packed(self, python_path=False):
        """``(F, I)`` of `porthamiltonian.kernels.soil` (shared by the contact's four elements):
        the pair's compliant constants with the linear law of the soil's damping and the soil's
        block; None where a surface is evaluated in Python, unless `python_path`
        (`ContactSpring._arrays`)."""
        p, soil = self.p, self.soil
        packed = self.pair.pack(
            cullable=True, depth_limit=self.depth_limit, relax=self.relax,
            law=self.damping_law(), c_spin=p.c_spin, c_t=p.c_t, c_slip=p.c_slip,
            mu=p.mu, mu_spin=p.mu_spin, k_spin=p.k_spin, k_t=p.k_t, dahl=p.dahl, python_surfaces=python_path)
        if packed is None:
            return None
        return _ksoil.pack(*packed, stiffness=soil.stiffness, exponent=soil.exponent, unloading=soil.unloading,
                           area=soil.area or 0.0, radius=soil.radius or 0.0)

    def damping_law(self):
        """The packed linear law (`porthamiltonian.kernels.contact`) of the soil's viscous
        damping: its normal force c dz/dt; the stiffness slot is the kernels' (the soil's
        secant stiffness, set at each evaluation)."""
        return np.array((_kcontact.LAW_LINEAR, 0.0, self.soil.damping, 1.0, 0.0))

    def kernel(self, role):
        packed = self._packed()
        if packed is None:
            return None
        refs = self.pair.padded_refs(momenta=True)
        if role == "outputs":
            return Kernel(_ksoil.spring_outputs, *packed, shares=True, refs=refs)
        if role == "events":
            # a guarded touch needs the other bodies' poses: the events stay in Python
            return None if self.guard is not None else Kernel(_ksoil.spring_events, *packed, reads=self, refs=refs,
                                                               idle=_ksoil.culled_events)
        fn = {"rates": _ksoil.spring_rates, "input_matrix": _ksoil.spring_input_matrix,
              "output_jacobian": _ksoil.spring_output_jacobian}.get(role)
        idle = 15 if role == "rates" else None   # culled: the state stands still
        return None if fn is None else Kernel(fn, *packed, reads=self, refs=refs, idle=idle)

    def _law_at(self, st, rate=0.0):
        """The law in the spring's pair record (`ContactSpring._record`): the soil's damping
        law, which the spring's kernels do not read (the resistors' records hold the secant
        law of the soil's force, `_SoilResistor._record`)."""
        return self.damping_law()

    # ---- the soil's normal force
    def _normal(self, x, st):
        """``(F, V)``: the spring's normal force [N] and stored energy [J] in the soil's mode."""
        z = st.edge_delta if st.culled else st.delta
        return soil_spring(self.soil, z, x[_M], x[_MODE] > 0.5)

    def energy(self, x, refs):
        if x[_ACT] < 0.5:
            return 0.0
        s = x[_S]
        return self._normal(x, self._state(x, refs))[1] + 0.5 * float(self.p.K_t @ (s * s))

    def outputs(self, t, x, refs):
        if x[_ACT] < 0.5:
            return (np.zeros(6), np.zeros(6), np.zeros(3))
        st = self._state(x, refs)
        if st.culled:
            return (np.zeros(6), np.zeros(6), np.zeros(3))
        if st.delta > self.depth_limit:
            raise GeometryError(
                f"{self.label}: sinkage {st.delta:.4g} m is beyond the soil contact's range ({self.depth_limit:.4g} m, "
                "the foot's size): the foot sinks through the soil; stiffen the soil or enlarge the foot")
        return _kcontact.spring_outputs(st.G_a, st.G_b, self.p.K_t, x[_S], self._normal(x, st)[0], _NO_WRENCH)

    def gradient(self, x, refs):
        g_own = np.zeros(15)
        g_momenta = np.zeros(6 * self.pair.n_pose_refs)
        st = self._state(x, refs)
        if x[_ACT] < 0.5 or st.culled:
            return np.concatenate((g_own, self.pair.pose_gradient(refs, np.zeros(6), np.zeros(6)), g_momenta))
        g_own[_S] = self.p.K_t * x[_S]
        Wn = np.zeros(6)
        Wn[5] = -self._normal(x, st)[0]
        return np.concatenate((g_own, self.pair.pose_gradient(refs, -(st.G_a.T @ Wn), st.G_b.T @ Wn), g_momenta))

    def structure(self, t, x, refs):
        """The compliant spring's ``(J_e, B_e)`` with zero rows and columns for the momenta
        (referenced for the "unload" event only: their rates are their bodies')."""
        J, B = super().structure(t, x, refs)
        n = B.shape[0] + 6 * self.pair.n_pose_refs
        return np.zeros((n, n)), np.vstack((B, np.zeros((n - B.shape[0], B.shape[1]))))

    def rates(self, t, x, refs, inputs):
        return np.concatenate((super().rates(t, x[:10], refs, inputs), np.zeros(5)))

    def input_matrix(self, t, x, refs):
        return np.vstack((super().input_matrix(t, x[:10], refs), np.zeros((5, 15))))

    def output_jacobian(self, t, x, refs):
        return np.hstack((super().output_jacobian(t, x[:10], refs), np.zeros((15, 5))))

    def audit_states(self, t, own, last_refs):
        """Findings of a finished run for its audit (`Trajectory.audit`): ``("soil_depth",
        message)`` if the foot sank beyond the law's range (`SoilLaw.max_sinkage`), else none.

        The deepest sinkage of a loading phase is where it unloads, which the memory (own
        state's entry 10) records; a run that ends while loading adds its last sinkage.

        Parameters
        ----------
        t : ndarray, shape (N,)
            Sample times [s].
        own : ndarray, shape (N, 15)
            The spring's own state at the samples.
        last_refs : tuple of ndarray
            Its referenced blocks at the last sample.
        """
        limit = self.soil.max_sinkage
        depth = own[:, _M].copy()
        last = own[-1]
        if last[_ACT] > 0.5 and last[_MODE] > 0.5:
            st = self._state(last, last_refs)
            if not st.culled:
                depth[-1] = max(depth[-1], st.delta)
        k = int(np.argmax(depth))
        if not depth[k] > limit:
            return []
        return [("soil_depth", f"{self.label}: the foot sank {depth[k]:.4g} m (by t = {t[k]:.6g} s), beyond the soil "
                               f"law's range (the sole's radius {limit:.4g} m), where the round-sole law overstates the "
                               "force: stiffen the soil, or give the law the foot's size")]

    # ---- events: the soil's modes, touching, leaving, footprints
    def events(self):
        return super().events() + (
            EventSpec("unload", self._unload_fn, -1.0, self._unload),
            EventSpec("yield", self._yield_fn, +1.0, self._yield),
        )

    def _event_values(self, x, refs):
        """The event functions' values in the order of `events` (touch, release, chart,
        [approach], unload, yield) from `porthamiltonian.kernels.soil.spring_events` at the
        Python path's pair state (unguarded; a guarded touch reads `_touch_gap`)."""
        st = self._state(x, refs)
        F, I = self._arrays()
        return call_kernel(self, _ksoil.spring_events, 0.0, _contiguous(x), _padded(refs, self._slots()),
                           self._record(st), F, I)

    def _slots(self):
        """`ContactPair.padded_refs` of the spring's references (poses, then momenta)."""
        return self.pair.padded_refs(momenta=True)

    def _touch_fn(self, t, x, refs):
        """The touch gap (within an imprint, to its floor: `_touch_gap`) while not touching, else 1."""
        return self._event_values(x, refs)[0]

    def _release_fn(self, t, x, refs):
        """The penetration below the imprint's floor (loading: below the virgin surface) while
        touching, else -1."""
        return self._event_values(x, refs)[1]

    def _chart_fn(self, t, x, refs):
        return self._event_values(x, refs)[2]

    def _approach_fn(self, t, x, refs):
        return self._event_values(x, refs)[3]

    def _unload_fn(self, t, x, refs):
        """The sinkage rate dz/dt [m/s] (the contact twist from the momenta, the references
        after the poses) while loading and touching, else 1."""
        return self._event_values(x, refs)[-2]

    def _unload(self, t, x, refs):
        out = np.array(x, dtype=float)
        out[_M], out[_MODE] = self.pair.state(x[:4], x[4:6], refs).delta, 0.0
        return EventOutcome(out, 0.0, f"soil unloads at {out[_M]:.4g} m (imprint {self.soil.permanent_sinkage(out[_M]):.4g}"
                                      " m deep when the foot leaves)")

    def _yield_fn(self, t, x, refs):
        """The sinkage beyond the memory while elastic, touching and sinking (dz/dt > 0: z
        rises through m only while it rises; at the unload that set m := z the rate is zero
        to the root's accuracy), else -1."""
        return self._event_values(x, refs)[-1]

    def _yield(self, t, x, refs):
        out = np.array(x, dtype=float)
        out[_MODE] = 1.0
        return EventOutcome(out, 0.0, f"soil loaded past {x[_M]:.4g} m: plastic again")

    def _imprint(self, x, st):
        """The imprint's depth z_p [m] under the current contact point: the remembered one if
        the point lies within the footprint, else 0 (virgin soil)."""
        m = x[_M]
        if m <= 0.0 or st.culled:
            return 0.0
        if np.linalg.norm(st.cp.p2 - x[_FP]) > self.soil.footprint_radius(m):
            return 0.0
        return self.soil.permanent_sinkage(m)

    def _touch_gap(self, x, refs):
        st = self._state(x, refs)
        return -(st.delta - self._imprint(x, st))

    def _touch(self, t, x, refs):
        st = self.pair.state(x[:4], x[4:6], refs)
        zp = self._imprint(x, st)
        out = super()._touch(t, x, refs).x
        if zp > 0.0:
            out[_MODE] = 0.0
            return EventOutcome(out, 0.0, f"contact made in the imprint (permanent sinkage {zp:.4g} m, loaded to "
                                          f"{x[_M]:.4g} m)")
        z = st.delta
        keep = 1.0 - 1.0 / (self.soil.unloading * self.soil.exponent)   # z_p(m) / m
        out[_FP] = st.cp.p2
        if z > START_TOLERANCE and keep > 0.0:
            # below the virgin surface off the recorded footprint (a non-spherical sole leaves a
            # wider imprint than the law's round footprint): the soil here was pressed to z, so
            # the spring starts elastic on the imprint whose floor is z (V = 0, no force) and
            # loads again past m = z / keep (issue 39: it started on the loading curve at
            # V(z, z), 0.0238 J out of nothing, and its plastic element then pushed the foot out)
            out[_M], out[_MODE] = z / keep, 0.0
            return EventOutcome(out, 0.0, f"contact made {z:.4g} m below the virgin surface, off the footprint: "
                                          f"taken as an imprint {z:.4g} m deep (loaded to {z / keep:.4g} m)")
        out[_M], out[_MODE] = 0.0, 1.0
        # the event lands within its root's tolerance of the surface: the stored energy it
        # starts with, V(z, z) (round-off for z <= START_TOLERANCE), is booked as supplied by
        # the event (a negative loss) so that the ledger closes exactly
        created = soil_spring(self.soil, z, 0.0, True)[1]
        return EventOutcome(out, -created if created else 0.0, "contact made on virgin soil")

    def _release(self, t, x, refs):
        lost = 0.5 * float(self.p.K_t @ (x[_S] * x[_S]))
        st = self._state(x, refs)
        if st.culled:   # off a bounded ground's edge, still pressed: that energy is lost too
            lost += self._normal(x, st)[1]
        out = self._exact(x, refs)
        out[_ACT] = 0.0
        out[_S] = 0.0
        if not st.culled:
            out[_FP] = st.cp.p2
        m = x[_M]
        left = f" ({lost:.3g} J left in the tangential spring)" if lost > 1e-15 else ""
        return EventOutcome(out, lost, f"foot left the soil, imprint {self.soil.permanent_sinkage(m):.4g} m deep "
                                       f"(loaded to {m:.4g} m)" + left)

    def parameters(self):
        p = self.p
        return {"pair": self.pair.parameters(), "soil": self.soil.to_spec(), "relax": self.relax,
                "contact": {key: getattr(p, attr) for key, attr in ContactParameters._FIELDS},
                "guard": None if self.guard is None else self.guard.parameters()}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        return cls(name, ContactPair.from_parameters(params["pair"]),
                   ContactParameters(law=None, **params["contact"]), SoilLaw(**params["soil"]), relax=params["relax"],
                   guard=TouchdownGuard.from_parameters(params["guard"]))


def soil_spring(soil, z, m, loading):
    """``(F, V)`` of the soil's spring at sinkage z [m] with memory m [m]: on the loading
    branch the conservative part of Bekker's force and V(z, z), else the elastic branch
    (`porthamiltonian.kernels.soil.spring_force`)."""
    return _ksoil.spring_force(*soil._packed, float(z), float(m), bool(loading))


class _SoilResistor(_SpringResistor):
    """A resistor of the soil contact: also reads the soil's block (the last reference, after
    the spring's deformation: the compliant resistors' kernels, which the damper and the slip
    export, read the references before it, `porthamiltonian.kernels.soil`)."""

    def state_refs(self):
        return super().state_refs() + (StateRef(self.spring, "soil"),)

    def _record(self, st, refs, rate):
        """The pair record of `st` with the law the soil's kernels put in it
        (`porthamiltonian.kernels.soil.spring_outputs`): the soil's viscous damping with the
        secant stiffness of its whole normal force (Bekker's K z^N while loading, else
        elastic) at the memory and mode of the soil block (the last reference)."""
        if st.culled:
            return pair_record(st, None, self.spring._arrays()[0])
        soil, (m, mode) = self.spring.soil, refs[-1][:2]
        law = self.spring.damping_law()
        z = st.delta
        law[1] = _ksoil.total_force(*soil._packed[:3], float(z), float(m), bool(mode > 0.5)) / z if z > 0.0 else 0.0
        return pair_record(st, law, self.spring._arrays()[0])


@register_element
class SoilDamper(_SoilResistor, ContactDamper):
    """The soil's viscous damping (`SoilLaw.damping`) and the contact's stick dampers,
    capped by the friction limit of the soil's force. Built by `SoilContact`."""

    type_name = "SoilDamper"



@register_element
class SoilSlip(_SoilResistor, SlipFriction):
    """Dahl slip of the soil contact's tangential spring, limited by mu times the soil's
    force, with the Dahl term's speed capped at ``limit / c_slip`` so that the slip stays
    non-stiff as the soil's force vanishes (`porthamiltonian.kernels.soil.dahl_speed`).
    Built by `SoilContact`."""

    type_name = "SoilSlip"
    _law_kernel = staticmethod(_ksoil.slip_law)
    _law_jacobian_kernel = staticmethod(_ksoil.slip_law_jacobian)



@register_element
class PlasticFlow(_SoilResistor, _WrenchResistor):
    """The plastic part of the loading force, ``SoilLaw.plastic_force(z)`` along the normal
    (module docstring): its power is the plastic work. Built by `SoilContact`."""

    type_name = "PlasticFlow"
    _law_kernel = staticmethod(_ksoil.plastic_law)
    _law_jacobian_kernel = staticmethod(_ksoil.plastic_law_jacobian)

    def law(self, k, t, inputs, refs):
        """`porthamiltonian.kernels.soil.plastic_law`."""
        return self._kernel_at(self._law_kernel, t, inputs, refs)

    def law_jacobian(self, k, t, inputs, refs):
        """`porthamiltonian.kernels.soil.plastic_law_jacobian`."""
        return self._kernel_at(self._law_jacobian_kernel, t, inputs, refs)


def _default_soil(name, surface_a, terrain):
    if not isinstance(surface_a, Sphere):
        raise ParameterError(
            f"soil contact {name!r}: give `soil=SoilLaw(..., area=A)` (a flat plate) or `radius=R` (a round sole): "
            f"the footprint of a {type(surface_a).__name__} sole is not derived automatically (a Sphere's is)")
    return SoilLaw.terrain(terrain, radius=surface_a.radius)


def SoilContact(name, body_a, surface_a, body_b, surface_b, *, soil=None, terrain="dry_sand", friction=None,
                pose_a=None, pose_b=None, tangential_stiffness=None, tangential_damping=None, spin_friction=0.01,
                slip_damping=None, alpha=0.5, relax=1.0, cull=True, friction_law="dahl", guard=None):
    """A foot (body a, surface a) on soft soil (body b, surface b, usually the ground).

    Bond it like `CompliantContact` (from the bodies' "B" ports to "a" and "b").

    Parameters
    ----------
    soil : SoilLaw, optional
        The soil under the foot. Default: `SoilLaw.terrain(terrain, radius=R)` for a
        `Sphere` sole of radius R.
    terrain : str
        A measured terrain of `SoilLaw.terrain` for the default `soil` and `friction`
        (default "dry_sand").
    friction : float
        Coulomb coefficient mu (default tan(phi) of `terrain`: 0.53 for dry sand).
    tangential_stiffness : float [N/m]
        k_t of the Dahl friction's spring; default the soil's secant stiffness F / z under
        the weight of the two bodies' reduced mass (a slide mobilizes 63 % of the shear
        after mu F / k_t, Janosi and Hanamoto's K).
    tangential_damping, spin_friction, slip_damping, alpha, relax, cull, friction_law, guard
        As in `CompliantContact` (spin stiffness and damping follow k_t and c_t as there).

    Returns
    -------
    BondGraph
        Component with ports "a" and "b".
    """
    if not isinstance(cull, bool):
        raise ParameterError(f"`cull` must be True or False, got {cull!r}")
    if isinstance(surface_a, Point) or isinstance(surface_b, Point):
        raise ParameterError(
            f"soil contact {name!r}: a point foot (`geometry.Point`) has no sole: the soil law's sinkage is that of a "
            "round sole or a plate; give the foot a radius (a Sphere) or use another contact kind")
    if soil is None:
        soil = _default_soil(name, surface_a, terrain)
    elif not isinstance(soil, SoilLaw):
        raise ParameterError(f"soil contact {name!r}: `soil` must be a SoilLaw, got {soil!r}")
    if friction is None:
        friction = SoilLaw.friction_coefficient(terrain)
    if friction_law not in FRICTION_LAWS:
        raise ParameterError(f"`friction_law` must be one of {FRICTION_LAWS}, got {friction_law!r}")
    pair = ContactPair(body_a, surface_a, body_b, surface_b, pose_a=pose_a, pose_b=pose_b, alpha=alpha, cull=cull)
    mass = _reduced_mass(body_a, body_b)
    weight = 9.81 * mass
    k_t = (0.0 if friction == 0 else weight / soil.static_sinkage(weight)) if tangential_stiffness is None \
        else tangential_stiffness
    params = ContactParameters(
        law=None, spin_friction=spin_friction, max_penetration=START_TOLERANCE,
        **friction_parameters(k_t, mass, friction, friction_law, tangential_damping=tangential_damping,
                              slip_damping=slip_damping))
    spring = SoilSpring("spring", pair, params, soil, relax=relax, guard=guard)
    return contact_component(name, spring, SoilDamper("damper", spring), SoilSlip("slip", spring),
                             PlasticFlow("plastic", spring))
