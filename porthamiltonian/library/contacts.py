"""Choosing a contact model by name: the one argument that swaps stiff and compliant contact.

`make_contact(kind, ...)` builds a contact of any registered kind (`contact_kinds`), from its
own options or from one `ContactMaterial`; it knows no kind by name.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from porthamiltonian.errors import ParameterError

from .contact_kinds import CONTACT_KINDS

__all__ = ["make_contact", "contact", "contact_flag", "CONTACT_KINDS"]


def make_contact(kind, name, body_a, surface_a, body_b, surface_b, *, material=None, kind_options=None, **parameters):
    """A contact component of the given kind between body a and body b.

    Parameters
    ----------
    kind : str
        A registered contact kind (`CONTACT_KINDS`; `contact_kinds.register_contact_kind`
        adds one). Built in: "compliant" (`CompliantContact`: spring-damper, Duindam &
        Stramigioli), "sliding_plane" (`SlidingPlaneContact`: constraint, Tasora &
        Righettini), "reduced" (`ReducedContact`: reduced contact coordinates, Kry & Pai; one
        body fixed) and "soil" (`SoilContact`: soft soil with memory: Bekker loading,
        elastic unloading, permanent sinkage; the material gives only its friction). All
        expose ports "a" and "b", bonded from the bodies' "B" ports, so a model built with one
        swaps to another by this argument (or `BondGraph.swap` on the component).
    name : str
    body_a, body_b : RigidBody or Ground or a link
    surface_a, surface_b : Surface
    material : ContactMaterial, optional
        One parameter set for every kind (friction, restitution, normal law): the same
        `material` gives every kind the same materials (each kind's registration says how it
        uses it and which fields it ignores). The options it sets cannot also be passed,
        except as None, which asks for the kind's own default instead of the material's
        value (``kind_options={"soil": dict(friction=None)}``: the soil's terrain friction).
    kind_options : mapping of str to mapping, optional
        Options by kind name, for a model that offers several kinds: the options of `kind`
        are passed to its factory (as `parameters`, which may not repeat them); those of the
        other kinds are checked against their factories and not used, so that a misspelt
        option fails whichever kind is built. This is how a model says what its material
        cannot express (a rolling constraint, a soil terrain, a tangential stiffness) once
        for every kind it offers, instead of branching on the kind. A kind it does not name
        gets no options of its own.
    **parameters
        Passed to the factory: the kind's own options (see their docstrings), e.g. what a
        material cannot express (the reduced contact's ``friction="rolling"``).

    Raises
    ------
    ParameterError
        Unknown kind (the nearest one is suggested); a parameter the kind does not take
        (named, with the ones it takes); a parameter that the `material` sets; a
        `kind_options` key that is not a registered kind, or an option that kind does not
        take, or one also passed as a parameter.
    """
    if kind not in CONTACT_KINDS:
        close = difflib.get_close_matches(str(kind), list(CONTACT_KINDS), n=1)
        raise ParameterError(
            f"unknown contact kind {kind!r}; use one of {sorted(CONTACT_KINDS)}" + (f" (did you mean {close[0]!r}?)" if close else "")
        )
    entry = CONTACT_KINDS[kind]
    if kind_options is not None:
        own = _check_kind_options(name, kind_options).get(kind, {})
        twice = sorted(set(own) & set(parameters))
        if twice:
            raise ParameterError(f"{kind} contact {name!r}: {', '.join(f'`{t}`' for t in twice)} given both as a "
                                 "parameter and in `kind_options`")
        parameters = {**own, **parameters}
    _check_options(kind, name, parameters)
    if material is not None:
        # the material's options first: a given option that is not one of its `material_options`
        # (the rigid kinds' friction="rolling") overrides the default the material implies, and
        # one given as None asks for the factory's own default (the soil's terrain friction)
        parameters = {**entry.material_parameters(name, material, body_a, body_b, parameters), **parameters}
    return entry.factory(name, body_a, surface_a, body_b, surface_b, **parameters)


def _check_options(kind, name, options):
    """Raise ParameterError naming the options the factory of `kind` does not take."""
    accepted = CONTACT_KINDS[kind].options()
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        hints = [f"`{u}`" + (f" (did you mean `{m[0]}`?)" if (m := difflib.get_close_matches(u, accepted, n=1)) else "")
                 for u in unknown]
        raise ParameterError(f"{kind} contact {name!r} takes no parameter {', '.join(hints)}; it takes "
                             f"{', '.join(accepted)} (or `material=ContactMaterial(...)` for every kind)")


def _check_kind_options(name, kind_options):
    """`kind_options` as a dict of dicts, each kind registered and each option one it takes."""
    if not isinstance(kind_options, Mapping):
        raise ParameterError(f"contact {name!r}: `kind_options` must map kind names to options, got {kind_options!r}")
    out = {}
    for k, options in kind_options.items():
        if k not in CONTACT_KINDS:
            close = difflib.get_close_matches(str(k), list(CONTACT_KINDS), n=1)
            raise ParameterError(f"contact {name!r}: `kind_options` names {k!r}, which is not a registered contact "
                                 f"kind {sorted(CONTACT_KINDS)}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        if not isinstance(options, Mapping):
            raise ParameterError(f"contact {name!r}: `kind_options[{k!r}]` must be a mapping of options, got "
                                 f"{options!r}")
        _check_options(k, name, options)
        out[k] = dict(options)
    return out


def contact_flag(component, prefix=""):
    """The state name of a contact component's on/off flag, whatever its kind.

    Every contact kind keeps whether its surfaces touch in a one-entry discrete state block
    "active" (1 touching, 0 apart) of one of its elements: the spring of the compliant and
    soil contacts, the constraint of the sliding-plane and reduced contacts. A model that
    reads or sets the flag (a foot's stance, a contact that starts open) names it through
    this function rather than by the kind's element name.

    Parameters
    ----------
    component : BondGraph
        A contact component (`make_contact`'s result).
    prefix : str
        The path of the graph that holds `component` in the compiled system, with a
        trailing "/" (default "": the component sits in the top-level graph).

    Returns
    -------
    str
        ``"<prefix><component>/<element>.active"``, a key of `PHSystem.layout` and of
        `PHSystem.initial_state`'s values.

    Raises
    ------
    ParameterError
        `component` has no element with an "active" block (it is not a contact), or more than
        one (the flag is ambiguous).
    """
    from porthamiltonian.bondgraph.graph import BondGraph

    if not isinstance(component, BondGraph):
        raise ParameterError(f"`component` must be a contact component (a BondGraph from make_contact), got "
                             f"{component!r}")
    found = [name for name, el in component.elements.items()
             if any(b.name == "active" for b in getattr(el, "state_blocks", tuple)())]
    if len(found) != 1:
        raise ParameterError(f"`component` {component.name!r} has {len(found)} elements with an 'active' state block "
                             f"({found}); a contact component has exactly one")
    return f"{prefix}{component.name}/{found[0]}.active"


#: the earlier name of `make_contact`, kept because user code and the README use it
#: (``from porthamiltonian.library import contact``); it shadows nothing at run time, but
#: reads like the `porthamiltonian.contact` package: new code uses `make_contact`
contact = make_contact
