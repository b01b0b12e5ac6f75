"""A foot on soft soil with memory: the compliant contact with an elastoplastic normal law.

`SoilContact(...)` returns a component with the compliant contact's ports "a" (the foot's
body) and "b" (the ground) and its geometry (tracked contact points, contact frame, Dahl
friction), whose normal law is the soil's (`porthamiltonian.contact.soil.SoilLaw`: Bekker
loading, stiffer elastic unloading, permanent sinkage)::

          a ──┬── SoilSpring ──── slip ────> SoilSlip       (regularized Coulomb, Dahl)
              │    (stores V(z, m))
              │        └───────── plastic ─> PlasticFlow    (the memory's growth: plastic work)
              └── SoilDamper                                 (viscous soil damping, stick dampers)
          b ──┘

The spring's own state adds the soil's memory ``m`` (the deepest sinkage of the current
footprint [m], an energy variable: V depends on it) and the footprint's centre (the contact
point on surface b where the foot last pressed, in b's surface frame [m]). The memory grows
through the "plastic" port: its effort is ``-dV/dm >= 0`` and `PlasticFlow` returns

    dm/dt = max(dz/dt, 0)  where z >= m,  + lambda max(z - m, 0)

(the exact loading rate, plus a relaxation at `memory_relax` lambda [1/s] that removes the
integrator's drift of m below z; elsewhere 0), so its power ``-dV/dm dm/dt`` is the plastic
work, booked as dissipated by the element "plastic". Unloading needs no event: below m the
soil is elastic because m stands still.

Footprints: the memory belongs to one footprint. When the foot leaves the soil (at the
imprint's floor, z = z_p(m)) the footprint's centre is recorded; a later touch within the
imprint's radius (`SoilLaw.footprint_radius`) lands in the imprint (touching at z = z_p(m),
elastic until z passes m), a touch elsewhere on virgin soil (the memory restarts at 0).
Sliding while in contact carries the footprint along (ploughing is not modelled).

Tangential: the compliant contact's Dahl friction (regularized Coulomb) with the soil's total
normal force ``F = dV/dz``; for a steady slide it traces Janosi and Hanamoto's shear curve
``mu F (1 - exp(-j / K))`` with ``K = mu F / k_t`` (cohesion not modelled).

Only the Python path evaluates these elements (no compiled kernel yet): a soil contact costs
about a millisecond per right-hand side.
"""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_finite_float
from porthamiltonian.bondgraph.element import EventOutcome, register_element
from porthamiltonian.bondgraph.graph import BondGraph
from porthamiltonian.bondgraph.junctions import Junction1
from porthamiltonian.bondgraph.ports import FLOW_OUT, Port, StateBlock, StateRef
from porthamiltonian.contact.soil import SoilLaw
from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry.sphere import Sphere
from porthamiltonian.kernels import contact as _kcontact

from .compliant_contact import (
    _ACT,
    _NO_WRENCH,
    _S,
    FRICTION_LAWS,
    ContactDamper,
    ContactParameters,
    ContactSpring,
    SlipFriction,
    _friction_limits,
    _reduced_mass,
    _SpringResistor,
)
from .contact_geometry import ContactPair
from .touchdown import TouchdownGuard

__all__ = ["SoilContact", "SoilSpring", "SoilDamper", "SoilSlip", "PlasticFlow"]

# the soil spring's state: the compliant spring's 10 entries, then the memory and the footprint
_M, _FP = 10, slice(11, 14)

#: a soil contact may start touching the surface, not pressed into virgin soil [m]
START_TOLERANCE = 1e-9


@register_element
class SoilSpring(ContactSpring):
    """The soil contact's storage (module docstring). Built by `SoilContact`.

    Own state (14): the compliant spring's 10 entries, the memory m [m, energy] and the
    footprint's centre (3) [m, discrete]. Ports "a", "b", "slip" (3) and "plastic" (1).
    """

    type_name = "SoilSpring"

    def __init__(self, name, pair: ContactPair, params: ContactParameters, soil: SoilLaw, *, relax=1.0, guard=None):
        super().__init__(name, pair, params, relax=relax, guard=guard)
        self.soil = soil
        #: sinkage beyond the smaller surface's size is outside the model
        self.depth_limit = pair._scale
        self._x0 = np.zeros(14)

    def ports(self):
        return super().ports() + (Port("plastic", 1, "in"),)

    def port_types(self):
        return ("C",) * 4

    def state_blocks(self):
        return super().state_blocks() + (StateBlock("memory", 1, "energy", default=np.zeros(1)),
                                         StateBlock("footprint", 3, "discrete", default=np.zeros(3)))

    def initialize(self, t, x, refs):
        """Closest points at the initial poses; the soil is virgin under the foot.

        Raises GeometryError if the foot starts pressed into the soil (a start on the surface,
        e.g. by `place_on`, is accepted).
        """
        params, charts, cp = self.pair.initial(refs)
        if -cp.distance > START_TOLERANCE:
            raise GeometryError(
                f"{self.label}: the foot starts {-cp.distance:.6g} m into virgin soil; a soil contact must start on "
                "the surface or above it (the soil's memory of how it was pressed there is unknown)")
        out = np.array(x, dtype=float)
        out[:4], out[4:6] = params, charts
        out[_ACT] = 1.0 if cp.distance < 0.0 else 0.0
        out[_S] = 0.0
        out[_M] = 0.0
        out[_FP] = cp.p2
        return out

    def kernel(self, role):
        return None

    # ---- the soil's normal force
    def _normal(self, x, st):
        """``(F, V, sigma)``: force [N], stored energy [J] and memory force -dV/dm [N]."""
        z, m = st.edge_delta if st.culled else st.delta, x[_M]
        return self.soil.force(z, m), self.soil.potential(z, m), self.soil.memory_force(z, m)

    def energy(self, x, refs):
        if x[_ACT] < 0.5:
            return 0.0
        st = self._state(x, refs)
        s = x[_S]
        return self._normal(x, st)[1] + 0.5 * float(self.p.K_t @ (s * s))

    def outputs(self, t, x, refs):
        if x[_ACT] < 0.5:
            return (np.zeros(6), np.zeros(6), np.zeros(3), np.zeros(1))
        st = self._state(x, refs)
        if st.culled:
            return (np.zeros(6), np.zeros(6), np.zeros(3), np.zeros(1))
        if st.delta > self.depth_limit:
            raise GeometryError(
                f"{self.label}: sinkage {st.delta:.4g} m is beyond the soil contact's range ({self.depth_limit:.4g} m, "
                "the foot's size): the foot sinks through the soil; stiffen the soil or enlarge the foot")
        F, _, sigma = self._normal(x, st)
        return _kcontact.spring_outputs(st.G_a, st.G_b, self.p.K_t, x[_S], F, _NO_WRENCH) + (np.array([sigma]),)

    def rates(self, t, x, refs, inputs):
        out = np.zeros(14)
        out[:10] = super().rates(t, x[:10], refs, inputs[:3])
        if x[_ACT] > 0.5:   # the port's flow is into the spring: the memory grows by the flow out of it
            out[_M] = -inputs[3][0]
        return out

    def input_matrix(self, t, x, refs):
        B = np.zeros((14, 16))
        B[:10, :15] = super().input_matrix(t, x[:10], refs)
        if x[_ACT] > 0.5:
            B[_M, 15] = -1.0
        return B

    def output_jacobian(self, t, x, refs):
        J = np.zeros((16, 14))
        J[:15, :10] = super().output_jacobian(t, x[:10], refs)
        if x[_ACT] > 0.5:
            st = self._state(x, refs)
            if not st.culled:
                dF, dsigma = self.soil.memory_slopes(st.delta, x[_M])
                J[:6, _M] = st.G_a[5] * dF
                J[6:12, _M] = -st.G_b[5] * dF
                J[15, _M] = dsigma
        return J

    def gradient(self, x, refs):
        g_own = np.zeros(14)
        st = self._state(x, refs)
        if x[_ACT] < 0.5 or st.culled:
            return np.concatenate((g_own, self.pair.pose_gradient(refs, np.zeros(6), np.zeros(6))))
        F, _, sigma = self._normal(x, st)
        g_own[_S] = self.p.K_t * x[_S]
        g_own[_M] = -sigma
        Wn = np.zeros(6)
        Wn[5] = -F
        return np.concatenate((g_own, self.pair.pose_gradient(refs, -(st.G_a.T @ Wn), st.G_b.T @ Wn)))

    def structure(self, t, x, refs):
        B_own = self.input_matrix(t, x, refs)
        B_ref = np.hstack((self.pair.pose_rate_matrix(refs), np.zeros((7 * self.pair.n_pose_refs, 4))))
        B = np.vstack((B_own, B_ref))
        return np.zeros((B.shape[0], B.shape[0])), B

    # ---- touching, leaving, footprints
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

    def _release_fn(self, t, x, refs):
        if x[_ACT] < 0.5:
            return -1.0
        return self.soil.permanent_sinkage(x[_M]) - self.pair.state(x[:4], x[4:6], refs).delta

    def _touch(self, t, x, refs):
        st = self.pair.state(x[:4], x[4:6], refs)
        zp = self._imprint(x, st)
        out = super()._touch(t, x, refs).x
        if zp > 0.0:
            return EventOutcome(out, 0.0, f"contact made in the imprint (permanent sinkage {zp:.4g} m, loaded to "
                                          f"{x[_M]:.4g} m)")
        out[_M] = 0.0
        out[_FP] = st.cp.p2
        return EventOutcome(out, 0.0, "contact made on virgin soil")

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


class _SoilResistor(_SpringResistor):
    """A resistor of the soil contact: also reads the memory (last reference; the spring's
    deformation is the one before)."""

    def state_refs(self):
        return super().state_refs() + (StateRef(self.spring, "memory"),)

    def kernel(self, role):
        return None

    def _touching(self, refs):
        """The contact state, or None while not touching or off a bounded ground."""
        st = self._state(refs) if refs[2][0] > 0.5 else None
        return None if st is None or st.culled else st

    def _limits(self, st, refs):
        return _friction_limits(self.p, self.spring.soil.force(st.delta, refs[-1][0]), refs[-2])


@register_element
class SoilDamper(_SoilResistor, ContactDamper):
    """The soil's viscous damping (`SoilLaw.damping`) and the contact's stick dampers,
    capped by the friction limit of the soil's force. Built by `SoilContact`."""

    type_name = "SoilDamper"

    def _efforts(self, inputs, refs):
        st = self._touching(refs)
        if st is None:
            return None
        _, _, cap_spin, cap_t = self._limits(st, refs)
        law = np.array((_kcontact.LAW_LINEAR, 0.0, self.spring.soil.damping, 1.0, 0.0))
        return st, _kcontact.damper_efforts(st.G_a, st.G_b, inputs[0], inputs[1], self.p.c_spin, self.p.c_t,
                                            cap_spin, cap_t, law, st.delta)


@register_element
class SoilSlip(_SoilResistor, SlipFriction):
    """Dahl slip of the soil contact's tangential spring, limited by mu times the soil's
    force. Built by `SoilContact`."""

    type_name = "SoilSlip"

    def _arguments(self, refs):
        st = self._touching(refs)
        if st is None:
            return 0.0, 0.0, self.p.c_slip, 0.0, 0.0
        lim_spin, lim_t, _, _ = self._limits(st, refs)
        if not self.p.dahl:
            return lim_spin, lim_t, self.p.c_slip, 0.0, 0.0
        n = self.pair.n_pose_refs
        T_C = self.pair.contact_twist(st, refs[3 + n : 3 + 2 * n])
        return lim_spin, lim_t, self.p.c_slip, abs(T_C[2]), float(np.hypot(T_C[3], T_C[4]))


@register_element
class PlasticFlow(_SoilResistor):
    """The soil memory's growth (module docstring): receives the memory force -dV/dm and
    returns dm/dt; its power is the plastic work. Built by `SoilContact`."""

    type_name = "PlasticFlow"

    def __init__(self, name, spring: SoilSpring, *, memory_relax=1e3):
        super().__init__(name, spring)
        self.memory_relax = as_finite_float(memory_relax, "memory_relax", positive=True)

    def ports(self):
        return (Port("p", 1, "in"),)

    def causalities(self):
        return ((FLOW_OUT,),)

    def law(self, k, t, inputs, refs):
        st = self._touching(refs)
        if st is None:
            return (np.zeros(1),)
        z, m = st.delta, refs[-1][0]
        if z < m:
            return (np.zeros(1),)
        n = self.pair.n_pose_refs
        rate = -self.pair.contact_twist(st, refs[3 + n : 3 + 2 * n])[5]
        return (np.array([max(rate, 0.0) + self.memory_relax * (z - m)]),)

    def law_jacobian(self, k, t, inputs, refs):
        return np.zeros((1, 1))

    def parameters(self):
        return {"spring": self.spring, "memory_relax": self.memory_relax}


def _default_soil(name, surface_a, terrain):
    if not isinstance(surface_a, Sphere):
        raise ParameterError(
            f"soil contact {name!r}: give `soil=SoilLaw(..., area=A)` (a flat plate) or `radius=R` (a round sole): "
            f"the footprint of a {type(surface_a).__name__} sole is not derived automatically (a Sphere's is)")
    return SoilLaw.terrain(terrain, radius=surface_a.radius)


def SoilContact(name, body_a, surface_a, body_b, surface_b, *, soil=None, terrain="dry_sand", friction=None,
                pose_a=None, pose_b=None, tangential_stiffness=None, tangential_damping=None, spin_friction=0.01,
                slip_damping=None, alpha=0.5, relax=1.0, memory_relax=1e3, cull=True, friction_law="dahl", guard=None):
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
    memory_relax : float [1/s]
        Rate at which the memory catches up with the sinkage while loading (module
        docstring; default 1e3).

    Returns
    -------
    BondGraph
        Component with ports "a" and "b".
    """
    if not isinstance(cull, bool):
        raise ParameterError(f"`cull` must be True or False, got {cull!r}")
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
    frictionless = friction == 0
    k_t = (0.0 if frictionless else weight / soil.static_sinkage(weight)) if tangential_stiffness is None \
        else tangential_stiffness
    if tangential_damping is None:
        tangential_damping = 2.0 * float(np.sqrt(k_t * mass)) if friction_law == "dahl" else 0.0
    params = ContactParameters(
        law=None, tangential_stiffness=k_t, tangential_damping=tangential_damping, spin_stiffness=k_t * 1e-4,
        spin_damping=tangential_damping * 1e-4 if friction_law == "dahl" else 0.0, friction=friction,
        spin_friction=spin_friction, slip_damping=max(k_t * 1e-3, 1.0) if slip_damping is None else slip_damping,
        max_penetration=START_TOLERANCE, friction_law=friction_law)
    spring = SoilSpring("spring", pair, params, soil, relax=relax, guard=guard)
    g = BondGraph(name)
    ja, jb = Junction1("ja", dim=6), Junction1("jb", dim=6)
    damper, slip, plastic = SoilDamper("damper", spring), SoilSlip("slip", spring), PlasticFlow(
        "plastic", spring, memory_relax=memory_relax)
    g.add(spring, damper, slip, plastic, ja, jb)
    g.connect(ja, (spring, "a"))
    g.connect(ja, (damper, "a"))
    g.connect(jb, (spring, "b"))
    g.connect(jb, (damper, "b"))
    g.connect((spring, "slip"), slip)
    g.connect((spring, "plastic"), plastic)
    g.expose("a", ja)
    g.expose("b", jb)
    return g
