"""A ball dropped on a floor: the smallest contact model, and the identification benchmark.

A solid sphere of mass m and radius r falls from rest, its centre at `height` above the floor
z = 0, and bounces under gravity. One `ContactMaterial` (friction, restitution, normal law)
drives the contact whatever its kind, so the same drop runs compliant (a spring-damper whose
damping gives the restitution) or rigid (`sliding_plane`: Newton impacts with restitution e):

    z ^
      |   ( ball )   m, r
      |      |  g
      |      v
    --+---------------- floor (plane z = 0, normal +z)

Compliant laws: ``linear`` (F = k delta + c delta', c = 2 zeta sqrt(k m) with zeta from e:
the spring-damper's impact returns at exactly e, whatever its speed) or ``hunt_crossley``
(F = k delta^1.5 (1 + d delta'), d from the exact Hunt-Crossley map at the first impact's
speed sqrt(2 g (height - r)): later, slower impacts return a little more). Gravity acts
during a compliant contact too, so the ball rebounds a little below e (0.594 for e = 0.6 at
k = 1e5 N/m; e as k grows); the rigid drop's peaks are (height - r) e^(2i) exactly.

Observables: the centre's height, the gap between ball and floor (height - r; negative: the
compliant contact's penetration) and the vertical velocity.

Used by `porthamiltonian.studies.identify`'s acceptance test: stiffness and restitution are
recovered from the height of a noisy synthetic drop.
"""

from __future__ import annotations

import math

import numpy as np

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.contact.materials import ContactMaterial
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import Gravity, Ground, RigidBody, make_contact
from porthamiltonian.lie import quaternion, se3

from .registry import ANY_CONTACT_KIND, Model, Parameter, register_model

__all__ = ["ball_drop", "LAWS"]

#: compliant normal laws the model offers
LAWS = ("linear", "hunt_crossley")
_G = 9.81


def _vertical_velocity(system, x, mass):
    """World z velocity of the centre [m/s]: the body-frame linear momentum rotated to the world."""
    pose, momentum = x[system.layout["ball.pose"]], x[system.layout["ball.P"]]
    return float(quaternion.to_matrix(pose[:4])[2] @ momentum[3:6] / mass)


@register_model(
    "ball-drop",
    "a ball dropped on a floor, bouncing: compliant (linear or Hunt-Crossley law) or sliding-plane contact "
    "with one material",
    mass=Parameter(1.0, "kg", "mass of the ball", rule="positive"),
    radius=Parameter(0.05, "m", "radius of the ball", rule="positive"),
    height=Parameter(0.3, "m", "initial height of the ball's centre (it starts at rest)", rule="positive"),
    stiffness=Parameter(1.0e5, "N/m or N/m^1.5", "normal stiffness k of the material's law", rule="positive",
                        material="normal"),
    restitution=Parameter(0.7, "-", "coefficient of restitution e in [0, 1] (compliant: of the law's impact; 0 is "
                          "critical damping of the linear law, refused with hunt_crossley)", rule="fraction",
                          material="restitution"),
    friction=Parameter(0.5, "-", "Coulomb friction coefficient", rule="nonnegative", material="friction"),
    law=Parameter("linear", "-", "the material's normal law: linear or hunt_crossley", material="normal"),
    contact=Parameter("compliant", "-", "contact model: any registered contact kind (compliant, sliding_plane, "
                      "reduced, soil, ...)", choices=ANY_CONTACT_KIND),
)
def ball_drop(*, mass=1.0, radius=0.05, height=0.3, stiffness=1.0e5, restitution=0.7, friction=0.5, law="linear",
              contact="compliant"):
    """Build the model (module docstring).

    Raises
    ------
    ParameterError
        `law` not in `LAWS`; `restitution` above 1, or 0 with the Hunt-Crossley law (infinite
        damping: `ContactMaterial`); a ball starting in the floor
        (`height` <= `radius`); an unknown contact kind (named by `library.make_contact`).
    """
    if law not in LAWS:
        raise ph.ParameterError(f"model 'ball-drop': `law` must be one of {LAWS}, got {law!r}")
    if height <= radius:
        raise ph.ParameterError(f"model 'ball-drop': `height` must exceed `radius` = {radius!r} (the ball starts "
                                f"above the floor), got {height!r}")
    drop_speed = math.sqrt(2.0 * _G * (height - radius))
    elastic = NormalLaw(law, stiffness=stiffness)
    material = ContactMaterial(friction=friction, restitution=restitution, normal=elastic, impact_speed=drop_speed)
    ball = RigidBody("ball", mass, [0.4 * mass * radius * radius] * 3,
                     pose=se3.make(np.eye(3), np.array((0.0, 0.0, height))))
    ground = Ground("ground")
    bg = ph.BondGraph("ball_drop")
    bg.add(ball, ground, Gravity("gravity", ball, (0.0, 0.0, -_G)),
           make_contact(contact, "contact", ball, Sphere(radius), ground, Plane(), material=material))
    bg.connect(ball.frame().port, "gravity")
    bg.connect(ball.frame().port, ("contact", "a"))
    bg.connect(ground.frame().port, ("contact", "b"))
    return Model(
        bg,
        t_end=1.0,
        solver=dict(method="DOP853", rtol=1e-9, atol=1e-11),
        observables={"height": lambda s, t, x: float(x[s.layout["ball.pose"]][6]),
                     "gap": lambda s, t, x: float(x[s.layout["ball.pose"]][6]) - radius,
                     "vertical velocity": lambda s, t, x: _vertical_velocity(s, x, mass)},
        units={"height": "m", "gap": "m", "vertical velocity": "m/s"},
        groups={"height": ["height"], "vertical velocity": ["vertical velocity"]},
        notes=f"{contact} contact, restitution {restitution}: the rigid drop's peaks are "
              f"{height - radius:.4g} e^(2i) m above the contact height",
    )
