"""What two touching surfaces do, independently of the contact model that simulates them.

A `ContactMaterial` is one parameter set for every contact kind: `library.make_contact(kind,
..., material=...)` turns it into the options of that kind by the kind's registration
(`library.contact_kinds.ContactKind.from_material`: the compliant contact's spring-damper
with Dahl friction, the sliding-plane and reduced contacts' constraint with Newton impacts,
the soil's friction), so that swapping the kind is one argument and every kind simulates the
same materials. This module knows no kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._validate import as_finite_float
from ..errors import ParameterError
from .hertz import ElasticSolid
from .laws import LocalHertzLaw, NormalLaw, linear_damping_ratio
from .restitution import hunt_crossley_damping

__all__ = ["ContactMaterial", "ElasticSolid"]


@dataclass(frozen=True)
class ContactMaterial:
    """Friction, restitution and normal compliance of a pair of surfaces.

    Parameters
    ----------
    friction : float
        Coulomb coefficient mu >= 0 (default 0.5); 0 is frictionless.
    restitution : float
        Newton's coefficient of restitution e in (0, 1] for a normal impact (default 0.5).
        The rigid contacts (sliding-plane, reduced) apply it at impacts; the soil ignores it
        (its own law unloads). The compliant contact turns it into
        the damping of its normal law (`normal_law`): exact for the linear law (an unclipped
        spring-damper impact of the two bodies' reduced mass returns at e), and for the
        Hertz and Hunt-Crossley laws at `impact_speed` (their restitution depends on the
        impact speed; the exact Hunt-Crossley map, `restitution.hunt_crossley_damping`).
    normal : NormalLaw or LocalHertzLaw, optional
        The compliant contact's elastic normal law (its kind, stiffness and exponent, or
        Hertz from the moduli and the local curvatures; its damping must be 0: it comes from
        `restitution`). Default None: the compliant contact's default normal law (Hertz of
        the default pair of solids, rigid polymer, whose static sinkage under the bodies'
        weight stays below 0.1 % of the contact's size: `library.compliant_contact.
        default_normal_law`) with the Hunt-Crossley damping of `restitution` at
        `impact_speed`. The rigid contacts and the soil do not use it.
    impact_speed : float [m/s]
        Reference speed of the restitution of Hertz and Hunt-Crossley laws (default 1).
    """

    friction: float = 0.5
    restitution: float = 0.5
    normal: NormalLaw | None = None
    impact_speed: float = 1.0

    def __post_init__(self):
        as_finite_float(self.friction, "friction", nonnegative=True)
        e = as_finite_float(self.restitution, "restitution", positive=True)
        if e > 1.0:
            raise ParameterError(f"`restitution` must lie in (0, 1], got {e!r}")
        as_finite_float(self.impact_speed, "impact_speed", positive=True)
        if self.normal is not None:
            if not isinstance(self.normal, (NormalLaw, LocalHertzLaw)):
                raise ParameterError(f"`normal` must be a NormalLaw or a LocalHertzLaw, got {self.normal!r}")
            if self.normal.damping != 0.0:
                raise ParameterError(
                    f"`normal` must be elastic (damping 0, got {self.normal.damping!r}): a material's damping "
                    "comes from its `restitution`")

    def normal_law(self, mass):
        """The compliant contact's normal law for two bodies of reduced `mass` [kg]: the
        elastic law with the damping that gives `restitution`.

        Linear: ``c = 2 zeta sqrt(k m)`` with ``zeta = -ln e / sqrt(pi^2 + ln^2 e)``
        (`laws.linear_law_from_response`); Hertz and Hunt-Crossley: the Hunt-Crossley law
        ``F = k delta^n (1 + d d(delta)/dt)`` with ``d`` from the exact map at `impact_speed`
        (for a `LocalHertzLaw` too: the map does not depend on k).

        Returns None without a `normal` law: the kind's default law then applies, with the
        damping of `restitution` (`library.contact_kinds`).
        """
        m = as_finite_float(mass, "mass", positive=True)
        law = self.normal
        if law is None:
            return None
        e = float(self.restitution)
        if law.kind == "linear":
            zeta = linear_damping_ratio(e)
            return NormalLaw("linear", stiffness=law.stiffness, damping=2.0 * zeta * math.sqrt(law.stiffness * m),
                             clip=law.clip)
        d = hunt_crossley_damping(e, self.impact_speed) if e < 1.0 else 0.0
        if isinstance(law, LocalHertzLaw):
            return LocalHertzLaw(law.modulus, damping=d, clip=law.clip)
        return NormalLaw("hunt_crossley", stiffness=law.stiffness, damping=d, exponent=law.exponent, clip=law.clip)
