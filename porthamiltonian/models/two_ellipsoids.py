"""Two ellipsoids dropped one above the other onto a floor (Duindam & Stramigioli, *Modeling the
kinematics and dynamics of compliant contact*, 2003, sec. 6).

Three contact components, one per pair (lower/floor, upper/floor, upper/lower), soft so that
the motion is visible: the lower ellipsoid lands first, the upper one lands on it, they roll
over each other, the upper one reaches the floor and they roll apart (the paper's Fig. 5-6,
instants (a)-(f)). The paper's tangential contact is a spring-damper without slip (slip is its
"future work"), so the default friction coefficient is high (3: nothing slips); with
Coulomb friction of everyday materials (mu = 0.6) the upper ellipsoid slides instead and
comes to rest leaning on the lower one. The sliding-plane variant is the paper's no-slip
contact exactly (the rolling constraint) by default; with `stiff_friction="coulomb"` it
regularizes Coulomb friction over 1 mm/s, whose stiffness grows with mu (at mu = 3 about 7
times slower to integrate than at 0.6, measured: 38 s against 5 s of wall for 2 s simulated,
and 0.7 s rolling).
"""

from __future__ import annotations

import numpy as np

import porthamiltonian as ph
from porthamiltonian.geometry import Ellipsoid, Plane
from porthamiltonian.contact.laws import NormalLaw, linear_response
from porthamiltonian.library import ContactMaterial, Gravity, Ground, RigidBody, make_contact
from porthamiltonian.lie import se3

from .registry import Model, Parameter, register_model

__all__ = ["two_ellipsoids", "ellipsoid_inertia", "CONTACTS"]

#: contact component names: (component, body a, body b)
CONTACTS = (("lower_floor", "lower", "ground"), ("upper_floor", "upper", "ground"), ("upper_lower", "upper", "lower"))


def ellipsoid_inertia(mass, axes):
    """Principal inertia of a solid ellipsoid: m/5 (b^2 + c^2, a^2 + c^2, a^2 + b^2)."""
    a, b, c = axes
    return mass / 5.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])


def contact_element(system, component):
    """Path of the element of a contact component that knows the distance (spring or constraint)."""
    for leaf in ("spring", "constraint"):
        if f"{component}/{leaf}" in system.elements:
            return f"{component}/{leaf}"
    raise ph.ModelError(f"no contact component {component!r} in system {system.name!r}")


@register_model(
    "two-ellipsoids",
    "two ellipsoids dropped one above the other onto a floor, three contacts: compliant (default) or "
    "sliding-plane with impacts (Duindam & Stramigioli 2003)",
    mass=Parameter(1.0, "kg", "mass of each ellipsoid", rule="positive"),
    axes=Parameter((0.25, 0.15, 0.1), "m", "semi-axes a, b, c of both ellipsoids", rule="positive"),
    lower_height=Parameter(0.35, "m", "initial height of the lower ellipsoid's centre"),
    upper_height=Parameter(0.75, "m", "initial height of the upper ellipsoid's centre"),
    offset=Parameter(0.12, "m", "horizontal offset of the upper ellipsoid (makes it roll off)"),
    tilt=Parameter(0.25, "rad", "initial tilt of the upper ellipsoid about y"),
    stiffness=Parameter(4000.0, "N/m", "normal contact stiffness (soft: 2.5 mm static penetration for 1 kg)", rule="positive"),
    damping=Parameter(8.0, "N s/m", "normal contact damping (restitution about 0.82 for 1 kg)", rule="nonnegative"),
    friction=Parameter(3.0, "-", "Coulomb friction coefficient (high: the paper's contact has no slip)",
                       rule="nonnegative"),
    contact=Parameter("compliant", "-", "contact model: compliant or sliding_plane (stiff, with impacts)",
                      choices=('compliant', 'sliding_plane')),
    friction_law=Parameter("dahl", "-", "compliant contact's slip law: dahl (Coulomb's force while sliding) or "
                           "viscous (the earlier regularization); unused by sliding_plane"),
    stiff_friction=Parameter("rolling", "-", "friction of the sliding_plane variant: rolling (no slip, the paper's "
                             "contact), coulomb (mu = friction) or frictionless; unused by compliant"),
)
def two_ellipsoids(*, mass=1.0, axes=(0.25, 0.15, 0.1), lower_height=0.35, upper_height=0.75, offset=0.12, tilt=0.25,
                   stiffness=4000.0, damping=8.0, friction=3.0, contact="compliant", friction_law="dahl",
                   stiff_friction="rolling"):
    """Build the model (see module docstring). Body frames at the centres, principal axes."""
    axes = tuple(float(a) for a in axes)
    bg = ph.BondGraph("two_ellipsoids")
    I = ellipsoid_inertia(mass, axes)
    H_low = np.eye(4)
    H_low[2, 3] = lower_height
    H_up = se3.exp(np.array([0.0, tilt, 0.0, 0.0, 0.0, 0.0]))
    H_up[:3, 3] = (offset, 0.0, upper_height)
    lower = RigidBody("lower", mass, I, pose=H_low)
    upper = RigidBody("upper", mass, I, pose=H_up)
    G = Ground("ground")
    bg.add(lower, upper, G, Gravity("g_lower", lower), Gravity("g_upper", upper))
    bg.connect(lower.frame().port, "g_lower")
    bg.connect(upper.frame().port, "g_upper")
    E = Ellipsoid(*axes)
    floor = Plane()
    bodies = {"lower": (lower, E), "upper": (upper, E), "ground": (G, floor)}
    # one material for the three pairs and both kinds: the compliant law with its own damping
    # (damping="law"), and for the rigid kind's Newton impacts the restitution that law gives
    # an ellipsoid's mass; what it cannot say is the kinds' own: the rigid kind's tangential
    # mode (`stiff_friction`, mu = `friction`) and the compliant kind's slip law
    law = NormalLaw("linear", stiffness=stiffness, damping=damping)
    material = ContactMaterial(friction=friction, restitution=linear_response(mass, law)[1], normal=law,
                               damping="law")
    kind_options = {"sliding_plane": dict(friction=stiff_friction), "compliant": dict(friction_law=friction_law)}
    for name, a, b in CONTACTS:
        (ba, sa), (bb, sb) = bodies[a], bodies[b]
        c = make_contact(contact, name, ba, sa, bb, sb, material=material, kind_options=kind_options)
        bg.add(c)
        bg.connect(ba.frame().port, (name, "a"))
        bg.connect(bb.frame().port, (name, "b"))

    def distance(name):
        def f(system, t, x):
            path = contact_element(system, name)
            own, refs = system.element_state(path, x)
            return system.elements[path].distance(own, refs)

        f.__name__ = f"distance_{name}"
        return f

    observables = {f"Delta {name.replace('_', '/')}": distance(name) for name, _, _ in CONTACTS}
    observables["height lower"] = lambda s, t, x: float(x[s.layout["lower.pose"]][6])
    observables["height upper"] = lambda s, t, x: float(x[s.layout["upper.pose"]][6])
    return Model(
        bg,
        t_end=5.0,
        solver=dict(method="RK45", rtol=1e-7, atol=1e-9),
        observables=observables,
        units={name: "m" for name in observables},   # signed distances and heights
        groups={
            "distances": [k for k in observables if k.startswith("Delta")],
            "heights": ["height lower", "height upper"],
        },
        notes="Fig. 5 of Duindam & Stramigioli 2003: the three signed distances over time, with the contact events marked.",
    )
