"""Mass-spring-damper driven by a force: the smallest complete example of the engine."""

from __future__ import annotations

import porthamiltonian as ph

from .registry import Model, Parameter, register_model

__all__ = ["mass_spring_damper"]


@register_model(
    "mass-spring-damper",
    "a mass on a linear spring and damper, driven by a constant force (closed form known)",
    mass=Parameter(1.0, "kg", "mass", rule="positive"),
    stiffness=Parameter(4.0, "N/m", "spring stiffness", rule="nonnegative"),
    damping=Parameter(0.2, "N s/m", "damper coefficient", rule="nonnegative"),
    force=Parameter(1.0, "N", "constant driving force"),
    q0=Parameter(0.5, "m", "initial spring elongation"),
)
def mass_spring_damper(*, mass=1.0, stiffness=4.0, damping=0.2, force=1.0, q0=0.5):
    """Se (force) -> 1-junction (common velocity) -> I (mass), C (spring), R (damper)."""
    bg = ph.BondGraph("mass_spring_damper")
    bg.add(ph.Se("F", force), ph.Junction1("v"), ph.I("m", mass=mass), ph.C("k", stiffness=stiffness), ph.R("b", damping))
    for el in ("m", "k", "b"):
        bg.connect("v", el)
    bg.connect("F", "v")
    return Model(
        bg,
        initial={"k.q": q0},
        t_end=20.0,
        solver=dict(method="DOP853", rtol=1e-10, atol=1e-12),
        observables={"position": lambda s, t, x: x[s.layout["k.q"]][0], "velocity": lambda s, t, x: x[s.layout["m.p"]][0] / mass},
        units={"position": "m", "velocity": "m/s"},
        groups={"state": ["position", "velocity"]},
        notes="Energy supplied by the force equals the change in stored energy plus the damper's dissipation.",
    )
