"""Choosing a contact model by name: the one argument that swaps stiff and compliant contact."""

from __future__ import annotations

import difflib
import inspect

from porthamiltonian.contact.laws import LocalHertzLaw
from porthamiltonian.contact.materials import ContactMaterial
from porthamiltonian.errors import ParameterError

from .compliant_contact import CompliantContact, _reduced_mass
from .reduced_contact import ReducedContact
from .sliding_plane_contact import SlidingPlaneContact
from .soil_contact import SoilContact

__all__ = ["contact", "CONTACT_KINDS"]

#: contact kind -> factory; each builds a component with ports "a" and "b"
CONTACT_KINDS = {"compliant": CompliantContact, "sliding_plane": SlidingPlaneContact, "reduced": ReducedContact,
                 "soil": SoilContact}

#: the factory parameters a `ContactMaterial` sets, per kind
_FROM_MATERIAL = {
    "compliant": ("normal", "stiffness", "damping", "exponent", "clip", "friction"),
    "sliding_plane": ("friction", "mu", "restitution"),
    "reduced": ("friction", "mu", "restitution"),
    "soil": ("friction",),
}


def _accepted(factory):
    return [p.name for p in inspect.signature(factory).parameters.values() if p.kind is p.KEYWORD_ONLY]


def _material_parameters(kind, name, material, body_a, body_b, parameters):
    if not isinstance(material, ContactMaterial):
        raise ParameterError(f"{kind} contact {name!r}: `material` must be a ContactMaterial, got {material!r}")
    clash = sorted(set(parameters) & set(_FROM_MATERIAL[kind]))
    if clash:
        raise ParameterError(
            f"{kind} contact {name!r}: {', '.join(f'`{c}`' for c in clash)} would override the material's "
            f"friction, restitution or normal law; set them in the ContactMaterial")
    if kind in ("sliding_plane", "reduced"):
        return material.sliding_plane_parameters()
    if kind == "soil":   # the soil's own law replaces the material's normal law and restitution
        return {"friction": float(material.friction)}
    law = material.normal_law(_reduced_mass(body_a, body_b))
    if isinstance(law, LocalHertzLaw):
        return {"normal": law, "friction": float(material.friction)}
    return {"normal": law.kind, "stiffness": law.stiffness, "damping": law.damping, "exponent": law.exponent,
            "clip": law.clip, "friction": float(material.friction)}


def contact(kind, name, body_a, surface_a, body_b, surface_b, *, material=None, **parameters):
    """A contact component of the given kind between body a and body b.

    Parameters
    ----------
    kind : {"compliant", "sliding_plane", "reduced", "soil"}
        `CompliantContact` (spring-damper, Duindam & Stramigioli), `SlidingPlaneContact`
        (constraint, Tasora & Righettini), `ReducedContact` (reduced contact coordinates,
        Kry & Pai; one body fixed) or `SoilContact` (soft soil with memory: Bekker loading,
        elastic unloading, permanent sinkage; the material gives only its friction). All expose ports "a" and "b", bonded from the bodies'
        "B" ports, so a model built with one swaps to another by this argument (or
        `BondGraph.swap` on the component).
    material : ContactMaterial, optional
        One parameter set for every kind (friction, restitution, normal law): the same
        `material` gives both kinds the same materials (`ContactMaterial` says how each kind
        uses it). The parameters it sets cannot also be passed.
    **parameters
        Passed to the factory: the kind's own parameters (see their docstrings).

    Raises
    ------
    ParameterError
        Unknown kind (the nearest one is suggested); a parameter the kind does not take
        (named, with the ones it takes); a parameter that the `material` sets.
    """
    if kind not in CONTACT_KINDS:
        close = difflib.get_close_matches(str(kind), list(CONTACT_KINDS), n=1)
        raise ParameterError(
            f"unknown contact kind {kind!r}; use one of {sorted(CONTACT_KINDS)}" + (f" (did you mean {close[0]!r}?)" if close else "")
        )
    factory = CONTACT_KINDS[kind]
    accepted = _accepted(factory)
    unknown = sorted(set(parameters) - set(accepted))
    if unknown:
        hints = [f"`{u}`" + (f" (did you mean `{m[0]}`?)" if (m := difflib.get_close_matches(u, accepted, n=1)) else "")
                 for u in unknown]
        raise ParameterError(f"{kind} contact {name!r} takes no parameter {', '.join(hints)}; it takes "
                             f"{', '.join(accepted)} (or `material=ContactMaterial(...)` for every kind)")
    if material is not None:
        parameters = {**parameters, **_material_parameters(kind, name, material, body_a, body_b, parameters)}
    return factory(name, body_a, surface_a, body_b, surface_b, **parameters)
