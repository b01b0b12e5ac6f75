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

__all__ = ["ContactMaterial", "ElasticSolid", "DAMPING_SOURCES"]


#: where the compliant contact's normal damping comes from (`ContactMaterial.damping`)
DAMPING_SOURCES = ("restitution", "law")


@dataclass(frozen=True)
class ContactMaterial:
    """Friction, restitution and normal compliance of a pair of surfaces.

    Parameters
    ----------
    friction : float
        Coulomb coefficient mu >= 0 (default 0.5); 0 is frictionless.
    restitution : float
        Newton's coefficient of restitution e in [0, 1] for a normal impact (default 0.5);
        0 is a perfectly plastic impact. The rigid contacts (sliding-plane, reduced) apply it
        at impacts; the soil ignores it (its own law unloads). The compliant contact turns it
        into the damping of its normal law (`normal_law`) unless the law brings its own
        (`damping` "law"): exact for the linear law (an unclipped spring-damper impact of the
        two bodies' reduced mass returns at e; e = 0 is critical damping, zeta = 1, whose
        unclipped impact returns to the surface only as t -> inf, at zero speed), and for the
        Hertz and Hunt-Crossley laws at `impact_speed` (their restitution depends on the
        impact speed; the exact Hunt-Crossley map, `restitution.hunt_crossley_damping`). A
        Hunt-Crossley impact with e = 0 needs infinite damping: a nonlinear law (or the
        compliant contact's default law) with e = 0 must bring its own damping.
    normal : NormalLaw or LocalHertzLaw, optional
        The compliant contact's normal law (its kind, stiffness and exponent, or Hertz from
        the moduli and the local curvatures; with its own damping, see `damping`). Default
        None: the compliant contact's default normal law (Hertz of the default pair of
        solids, rigid polymer, whose static sinkage under the bodies' weight stays below
        0.1 % of the contact's size: `library.compliant_contact.default_normal_law`) with
        the Hunt-Crossley damping of `restitution` at `impact_speed`. The rigid contacts and
        the soil do not use it.
    impact_speed : float [m/s]
        Reference speed of the restitution of Hertz and Hunt-Crossley laws (default 1).
    damping : {"restitution", "law"}, optional
        Where the compliant contact's normal damping comes from. "restitution": the damping
        that gives `restitution` (the `normal` law must then be elastic, damping 0). "law":
        the `normal` law's own damping as given (N s/m for linear and Hertz, the
        Hunt-Crossley coefficient in s/m), 0 included (an undamped spring); `restitution`
        then serves only the rigid kinds. This expresses a compliant contact whose damping
        is set apart from the rigid kinds' restitution (e.g. an undamped spring foot that
        lands plastically on a rigid ground). Default (None): "law" when the `normal` law
        has damping, else "restitution".
    """

    friction: float = 0.5
    restitution: float = 0.5
    normal: NormalLaw | None = None
    impact_speed: float = 1.0
    damping: str | None = None

    def __post_init__(self):
        as_finite_float(self.friction, "friction", nonnegative=True)
        e = as_finite_float(self.restitution, "restitution", nonnegative=True)
        if e > 1.0:
            raise ParameterError(f"`restitution` must lie in [0, 1], got {e!r}")
        as_finite_float(self.impact_speed, "impact_speed", positive=True)
        law = self.normal
        if law is not None and not isinstance(law, (NormalLaw, LocalHertzLaw)):
            raise ParameterError(f"`normal` must be a NormalLaw or a LocalHertzLaw, got {law!r}")
        source = self.damping
        if source is None:
            source = "law" if law is not None and law.damping != 0.0 else "restitution"
        elif source not in DAMPING_SOURCES:
            raise ParameterError(f"`damping` must be one of {DAMPING_SOURCES} or None, got {source!r}")
        object.__setattr__(self, "damping", source)
        if source == "law":
            if law is None:
                raise ParameterError("`damping` 'law' takes the `normal` law's own damping: give a `normal` law")
        elif law is not None:
            if law.damping != 0.0:
                raise ParameterError(
                    f"`normal` must be elastic (damping 0, got {law.damping!r}) with `damping` 'restitution': its "
                    "damping comes from `restitution` (or pass damping='law' to use the law's own)")
            if e == 0.0 and law.kind != "linear":
                raise ParameterError(_PLASTIC_RULE.format(law=f"a {law.kind} law"))

    def normal_law(self, mass):
        """The compliant contact's normal law for two bodies of reduced `mass` [kg].

        `damping` "law": the `normal` law as given. "restitution": the elastic law with the
        damping that gives `restitution`. Linear: ``c = 2 zeta sqrt(k m)`` with ``zeta =
        -ln e / sqrt(pi^2 + ln^2 e)`` (`laws.linear_damping_ratio`), and zeta = 1 (critical)
        at e = 0, its limit; Hertz and Hunt-Crossley: the Hunt-Crossley law ``F = k delta^n
        (1 + d d(delta)/dt)`` with ``d`` from the exact map at `impact_speed` (for a
        `LocalHertzLaw` too: the map does not depend on k).

        Returns None without a `normal` law: the kind's default law then applies, with the
        damping of `restitution` (`library.contact_kinds`).
        """
        m = as_finite_float(mass, "mass", positive=True)
        law = self.normal
        if law is None or self.damping == "law":
            return law
        e = float(self.restitution)
        if law.kind == "linear":
            zeta = 1.0 if e == 0.0 else linear_damping_ratio(e)
            return NormalLaw("linear", stiffness=law.stiffness, damping=2.0 * zeta * math.sqrt(law.stiffness * m),
                             clip=law.clip)
        d = self.hunt_crossley_damping()
        if isinstance(law, LocalHertzLaw):
            return LocalHertzLaw(law.modulus, damping=d, clip=law.clip)
        return NormalLaw("hunt_crossley", stiffness=law.stiffness, damping=d, exponent=law.exponent, clip=law.clip)

    def hunt_crossley_damping(self):
        """The Hunt-Crossley coefficient d [s/m] that gives `restitution` at `impact_speed`
        (0 at e = 1; `restitution.hunt_crossley_damping`).

        Raises
        ------
        ParameterError
            `restitution` 0, which needs infinite damping (the rule of `restitution`).
        """
        e = float(self.restitution)
        if e == 0.0:
            raise ParameterError(_PLASTIC_RULE.format(law="the compliant contact's default (Hunt-Crossley) law"))
        return hunt_crossley_damping(e, self.impact_speed) if e < 1.0 else 0.0


#: the rule a plastic material breaks with a nonlinear law (`ContactMaterial.restitution`)
_PLASTIC_RULE = ("`restitution` 0 with {law} and no damping of its own: a Hunt-Crossley impact returns at e = 0 "
                 "only with infinite damping; give the `normal` law its damping (damping='law'), a linear law "
                 "(e = 0 is its critical damping) or a restitution > 0")
