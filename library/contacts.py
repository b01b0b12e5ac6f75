"""Choosing a contact model by name: the one argument that swaps stiff and compliant contact."""

from __future__ import annotations

import difflib

from porthamiltonian.errors import ParameterError

from .compliant_contact import CompliantContact
from .sliding_plane_contact import SlidingPlaneContact

__all__ = ["contact", "CONTACT_KINDS"]

#: contact kind -> factory; both build a component with ports "a" and "b"
CONTACT_KINDS = {"compliant": CompliantContact, "sliding_plane": SlidingPlaneContact}


def contact(kind, name, body_a, surface_a, body_b, surface_b, **parameters):
    """A contact component of the given kind between body a and body b.

    Parameters
    ----------
    kind : {"compliant", "sliding_plane"}
        `CompliantContact` (spring-damper, Duindam & Stramigioli) or `SlidingPlaneContact`
        (constraint, Tasora & Righettini). Both expose ports "a" and "b", bonded from the
        bodies' "B" ports, so a model built with one swaps to the other by this argument
        (or `BondGraph.swap` on the component).
    **parameters
        Passed to the factory; each takes only its own (see their docstrings).

    Raises
    ------
    ParameterError
        Unknown kind (the nearest one is suggested), or a parameter the factory does not take.
    """
    if kind not in CONTACT_KINDS:
        close = difflib.get_close_matches(str(kind), list(CONTACT_KINDS), n=1)
        raise ParameterError(
            f"unknown contact kind {kind!r}; use one of {sorted(CONTACT_KINDS)}" + (f" (did you mean {close[0]!r}?)" if close else "")
        )
    factory = CONTACT_KINDS[kind]
    try:
        return factory(name, body_a, surface_a, body_b, surface_b, **parameters)
    except TypeError as exc:
        raise ParameterError(f"{kind} contact {name!r}: {exc}") from None
