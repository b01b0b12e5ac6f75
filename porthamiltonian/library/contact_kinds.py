"""The registry of contact kinds: one `ContactKind` registration per kind.

A contact kind is a way of simulating two touching surfaces (a spring-damper, a constraint
with impacts, reduced coordinates, soft soil). Its registration says everything the rest of
the library needs to know about it, so that `library.make_contact`, `ContactMaterial`, the
models, the CLI's ``--contact`` and the sweep never branch on a kind's name:

- ``factory``: ``factory(name, body_a, surface_a, body_b, surface_b, **options)`` returns a
  component (a `BondGraph`) with ports "a" and "b" bonded from the two bodies' "B" ports,
  so that one kind swaps for another (`BondGraph.swap`) and saves and loads with its
  elements (`register_element`);
- ``from_material``: ``from_material(material, body_a, body_b[, options]) -> dict`` of
  factory options that a `ContactMaterial` sets (friction, restitution, normal compliance),
  given the other `options` passed with the material if it takes a fourth argument (so that
  it sets only what they leave open: the rigid kinds set Coulomb's mu only in the
  "coulomb" mode), and
  ``material_options``: the names of those a user may not also pass. Other options it
  returns are defaults a given option overrides: what a material cannot express is a named
  option of the kind (the rigid kinds' ``friction="rolling"``, a rolling constraint, with
  the material's restitution), which a model offering several kinds gives once for all of
  them (`make_contact`'s ``kind_options``);
- ``ignores``: the `ContactMaterial` fields the kind does not use (a sweep over a model
  parameter that only sets an ignored field runs its points once:
  `models.registry.Parameter`, ``material=``);
- ``events``: the names of the events its elements fire (touch, release, impact, ...);
- ``phases``: the name of the integrator phases the kind needs beyond the plain ODE/DAE
  (the reduced contact's continuous-contact phases, `integrate.reduced`), or None. The
  integrator finds them from the elements (``reduced = True``); this is a declaration.

A new kind is one folder (or module) with its elements and factory, plus one
`register_contact_kind` call; it then works with `make_contact`, materials, ``swap``, the
CLI's ``--contact`` of every model that builds its contacts from a material, and save/load.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.contact.materials import ContactMaterial
from porthamiltonian.errors import ModelError, ParameterError

__all__ = ["ContactKind", "register_contact_kind", "CONTACT_KINDS", "MATERIAL_FIELDS"]

#: the fields of `ContactMaterial` a kind may use or ignore
MATERIAL_FIELDS = tuple(f.name for f in fields(ContactMaterial))


@dataclass(frozen=True)
class ContactKind:
    """One contact kind's registration (module docstring).

    Parameters
    ----------
    name : str
        The kind's name (``make_contact(name, ...)``, ``--contact name``), lower case.
    factory : callable
        Builds the component; its options are keyword-only parameters.
    from_material : callable
        ``(material, body_a, body_b[, options]) -> dict`` of factory options; `options`
        (if it takes them) are those given besides the material, a dict.
    material_options : tuple of str
        The options `from_material` sets that may not also be passed; its other options are
        defaults that given options override.
    ignores : tuple of str
        The `ContactMaterial` fields the kind does not use (`MATERIAL_FIELDS`).
    events : tuple of str
        Names of the events its elements may fire.
    phases : str, optional
        The integrator phases the kind needs (e.g. "reduced"), or None.
    summary : str
        One line: what the kind simulates.
    """

    name: str
    factory: Callable
    from_material: Callable
    material_options: tuple = ()
    ignores: tuple = ()
    events: tuple = ()
    phases: str | None = None
    summary: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier() or self.name != self.name.lower():
            raise ParameterError(f"contact kind `name` must be a lower-case identifier, got {self.name!r}")
        for key in ("factory", "from_material"):
            if not callable(getattr(self, key)):
                raise ParameterError(f"contact kind {self.name!r}: `{key}` must be callable, got {getattr(self, key)!r}")
        unknown = sorted(set(self.ignores) - set(MATERIAL_FIELDS))
        if unknown:
            raise ParameterError(f"contact kind {self.name!r}: `ignores` names {unknown}, which are not fields of "
                                 f"ContactMaterial {MATERIAL_FIELDS}")
        options = self.options()
        missing = sorted(set(self.material_options) - set(options))
        if missing:
            raise ParameterError(f"contact kind {self.name!r}: `material_options` {missing} are not options of its "
                                 f"factory (it takes {', '.join(options)})")
        for key in ("material_options", "ignores", "events"):
            object.__setattr__(self, key, tuple(getattr(self, key)))

    def options(self):
        """The factory's keyword-only options, in its order."""
        return [p.name for p in inspect.signature(self.factory).parameters.values() if p.kind is p.KEYWORD_ONLY]

    def uses(self, field):
        """Whether the kind uses `ContactMaterial` field `field`."""
        return field not in self.ignores

    def rest_penetration(self, material, load):
        """How deep [m] a body that starts at rest on a contact of this kind built from
        `material` sits under the normal `load` [N]: the depth of the material's `normal` law
        at that load (`NormalLaw.penetration_at_rest`; m g / k for a linear law) for a kind
        that uses the normal law, 0 for one that ignores it (the rigid kinds hold the surfaces
        exactly; the soil has memory: a body placed on undisturbed soil starts at its surface
        and sinks as it loads). A model starts its bodies lowered by it, so that a compliant
        contact does not begin with a drop.

        Raises
        ------
        ParameterError
            `material` is not a `ContactMaterial`, or the kind uses the normal law and the
            material's is not a `NormalLaw` (the compliant contact's default law and a
            `LocalHertzLaw` depend on the surfaces).
        """
        if not isinstance(material, ContactMaterial):
            raise ParameterError(f"{self.name} contact: `material` must be a ContactMaterial, got {material!r}")
        if not self.uses("normal"):
            return 0.0
        if not isinstance(material.normal, NormalLaw):
            raise ParameterError(f"{self.name} contact: the depth at rest needs the material's `normal` law of fixed "
                                 f"stiffness (a NormalLaw), got {material.normal!r} (the default law and a "
                                 "LocalHertzLaw depend on the surfaces)")
        return float(material.normal.penetration_at_rest(load))

    def material_parameters(self, name, material, body_a, body_b, given=()):
        """The factory options `material` sets for contact `name` between the two bodies.

        `given` (the options passed besides the material: names, or a mapping of them to
        their values) may not include one the material sets, except with the value None,
        which asks for the factory's own default instead of the material's value (the soil's
        ``friction=None``: the Mohr-Coulomb friction of its terrain).

        Raises
        ------
        ParameterError
            `material` is not a `ContactMaterial`; one of `given` is one the material sets.
        """
        if not isinstance(material, ContactMaterial):
            raise ParameterError(f"{self.name} contact {name!r}: `material` must be a ContactMaterial, got {material!r}")
        options = dict(given) if isinstance(given, Mapping) else {}
        if isinstance(given, Mapping):   # an option given as None asks for the kind's own default
            given = [k for k, v in given.items() if v is not None]
        clash = sorted(set(given) & set(self.material_options))
        if clash:
            raise ParameterError(
                f"{self.name} contact {name!r}: {', '.join(f'`{c}`' for c in clash)} would override the material's "
                f"friction, restitution or normal law; set them in the ContactMaterial")
        if len(inspect.signature(self.from_material).parameters) >= 4:
            return dict(self.from_material(material, body_a, body_b, options))
        return dict(self.from_material(material, body_a, body_b))

    def __call__(self, name, body_a, surface_a, body_b, surface_b, **options):
        """The factory (so that ``CONTACT_KINDS[kind](...)`` builds a component, as before)."""
        return self.factory(name, body_a, surface_a, body_b, surface_b, **options)


class _Registry(Mapping):
    """kind name -> `ContactKind`, in registration order (read-only; `register_contact_kind` adds)."""

    def __init__(self):
        self._kinds = {}

    def __getitem__(self, name):
        return self._kinds[name]

    def __iter__(self):
        return iter(self._kinds)

    def __len__(self):
        return len(self._kinds)

    def __repr__(self):
        return f"CONTACT_KINDS({', '.join(self._kinds)})"


#: every registered contact kind: name -> `ContactKind`
CONTACT_KINDS = _Registry()


def register_contact_kind(kind, *, replace=False):
    """Register `kind` (a `ContactKind`) under its name; returns it.

    Raises
    ------
    ModelError
        A kind of that name is registered already (pass ``replace=True`` to replace it,
        e.g. when a module is reloaded).
    """
    if not isinstance(kind, ContactKind):
        raise ParameterError(f"`kind` must be a ContactKind, got {kind!r}")
    if kind.name in CONTACT_KINDS._kinds and not replace:
        raise ModelError(f"contact kind {kind.name!r} is registered already (by "
                         f"{CONTACT_KINDS[kind.name].factory.__module__}); pass replace=True to replace it")
    CONTACT_KINDS._kinds[kind.name] = kind
    return kind


def unregister_contact_kind(name):
    """Remove the kind `name` (tests that register a kind of their own clean up with it)."""
    CONTACT_KINDS._kinds.pop(name, None)


# ---------------------------------------------------------------- the built-in kinds

def _compliant_from_material(material, body_a, body_b):
    """The compliant contact's normal law (`ContactMaterial.normal_law`: the law's own damping,
    or the damping that gives the material's restitution), and its friction. Without a normal
    law in the material, the compliant contact's default stiffness
    (`compliant_contact.default_normal_law`: Hertz of the default solids) with the
    Hunt-Crossley damping of the material's restitution at its `impact_speed`
    (`ContactMaterial.hunt_crossley_damping`: restitution 0 is a typed error there)."""
    from .compliant_contact import _reduced_mass

    out = {"friction": float(material.friction)}
    if material.normal is None:
        return {**out, "normal": "hunt_crossley", "damping": material.hunt_crossley_damping()}
    law = material.normal_law(_reduced_mass(body_a, body_b))
    if law.kind == "local_hertz":
        return {**out, "normal": law}
    return {**out, "normal": law.kind, "stiffness": law.stiffness, "damping": law.damping, "exponent": law.exponent,
            "clip": law.clip}


def _rigid_from_material(material, body_a, body_b, options):
    """Coulomb friction (frictionless at mu = 0) and Newton's restitution; the normal law is
    not used (a rigid contact). The friction mode is a default: ``friction="rolling"`` given
    with the material makes the contact roll without slip (what a material cannot say). The
    material's mu is set only in the "coulomb" mode, the one that uses it (so that a model
    parameter that sets only the friction coefficient does not change a rolling or
    frictionless contact: `models.registry.ignored_parameters`)."""
    mu = float(material.friction)
    mode = options.get("friction") or ("coulomb" if mu > 0 else "frictionless")
    out = {"friction": mode, "restitution": float(material.restitution)}
    return {**out, "mu": mu} if mode == "coulomb" else out


def _soil_from_material(material, body_a, body_b):
    """The soil's own law replaces the material's normal law and restitution: friction only."""
    return {"friction": float(material.friction)}


def _register_builtin():
    from .compliant_contact import CompliantContact
    from .reduced_contact import ReducedContact
    from .sliding_plane_contact import SlidingPlaneContact
    from .soil_contact import SoilContact

    register_contact_kind(ContactKind(
        "compliant", CompliantContact, _compliant_from_material,
        material_options=("normal", "stiffness", "damping", "exponent", "clip", "friction"),
        events=("touch", "release", "chart", "approach"),
        summary="spring-damper with Dahl friction (Duindam & Stramigioli)"), replace=True)
    register_contact_kind(ContactKind(
        "sliding_plane", SlidingPlaneContact, _rigid_from_material,
        material_options=("mu", "restitution"), ignores=("normal", "impact_speed", "damping"),
        events=("impact", "detach", "chart", "stick", "slip"),
        summary="rigid constraint with Newton impacts and Coulomb's stick and slip (Tasora & Righettini)"), replace=True)
    register_contact_kind(ContactKind(
        "reduced", ReducedContact, _rigid_from_material,
        material_options=("mu", "restitution"), ignores=("normal", "impact_speed", "damping"),
        events=("impact", "chart"), phases="reduced",
        summary="reduced contact coordinates, one body fixed (Kry & Pai)"), replace=True)
    register_contact_kind(ContactKind(
        "soil", SoilContact, _soil_from_material,
        material_options=("friction",), ignores=("restitution", "normal", "impact_speed", "damping"),
        events=("touch", "release", "chart", "approach", "unload", "yield"),
        summary="soft soil with memory: Bekker loading, elastic unloading, permanent sinkage"), replace=True)


_register_builtin()
