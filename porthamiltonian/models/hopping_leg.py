"""A hopping leg: a hip on a springy telescopic leg with a round foot, dropped on the ground.

Two rigid bodies, the hip (mass M) and the foot (mass m, a sphere of radius r), joined by a
prismatic joint along the vertical (the leg) and a linear spring between their centres (rest
length L0, stiffness k; an optional damper in parallel), both under gravity. The foot has one
contact with the ground, of the kind given:

- "compliant": a spring foot (linear, stiffness `stiffness`, damping ratio `damping_ratio`
  of the foot's mass, 0 by default): with no damping the motion is conservative, and from
  the apex map's fixed point (`apex_map`) the hops repeat exactly;
- "sliding_plane": a rigid ground; the foot lands plastically (restitution 0), losing its
  kinetic energy at every landing, and leaves when the ground stops pushing;
- "soil": dry sand under the round foot (`SoilContact`, the default `SoilLaw.terrain`): each
  landing on virgin soil loses the plastic work the ledger books under ``foot/plastic``; a
  landing in its own imprint is elastic until the foot presses deeper than before.

A hop is measured from apex to apex of the centre of mass (`APEX`: the two bodies' vertical
momentum crossing zero downward).
"""

from __future__ import annotations

import math

import numpy as np

import porthamiltonian as ph
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.library import (
    ContactMaterial,
    Gravity,
    Ground,
    Joint,
    PointDamper,
    PointSpring,
    RigidBody,
    make_contact,
)
from porthamiltonian.studies import PoincareSection, StrideMap

from .registry import Model, Parameter, check_parameter, register_model

__all__ = ["hopping_leg", "apex_map", "APEX", "CONTACTS"]

G = 9.81
#: contact kinds of the foot
CONTACTS = ("compliant", "sliding_plane", "soil")


def _apex(system):
    """The section's event function: the vertical momentum of the two bodies, crossing zero
    downward (the centre of mass at its highest point: once per flight, whatever the leg's own
    oscillation does to the hip)."""
    Ph, Pf = system.layout["hip.P"], system.layout["foot.P"]

    def apex(t, x):
        return float(x[Ph][5] + x[Pf][5])

    apex.direction = -1.0
    return apex


APEX = _apex
"""``APEX(system)`` -> the event function of the apex (a `PoincareSection` argument)."""


def apex_map(system, x_apex, *, horizon=3.0, **solver):
    """The hop-to-hop map of the leg's state at the apex, at the energy of `x_apex`.

    Parameters
    ----------
    system : PHSystem
        The compiled hopping leg.
    x_apex : ndarray
        A state at an apex in flight (the foot off the ground): it gives the energy and the
        contact's state (a soil's memory included).
    horizon : float
        Longest hop [s].
    **solver
        `simulate` keyword arguments.

    Returns
    -------
    porthamiltonian.studies.StrideMap
        z = (leg stretch L - L0 [m], its rate [m/s]) -> their values at the next apex. The
        lift keeps the energy of `x_apex`: the centre of mass at rest at the height that
        energy leaves, the two bodies moving apart at the stretch rate; so a fixed point is an
        exactly periodic hop.
    """
    M, m = system.elements["hip"].mass, system.elements["foot"].mass
    leg = system.elements["leg_spring"]
    Xh, Xf = system.layout["hip.pose"], system.layout["foot.pose"]
    Ph, Pf = system.layout["hip.P"], system.layout["foot.P"]
    k, L0, mu = leg.k, leg.L0, M * m / (M + m)
    E = float(system.energy(x_apex))

    def lift(z):
        d, v = float(z[0]), float(z[1])
        L = L0 + d
        h = (E - 0.5 * mu * v * v - 0.5 * k * d * d + m * G * L) / ((M + m) * G)
        x = np.array(x_apex, dtype=float)
        x[Xh.start + 6], x[Xf.start + 6] = h, h - L
        x[Ph.start + 5], x[Pf.start + 5] = -mu * v, mu * v
        return x

    def project(x):
        return (float(x[Xh][6] - x[Xf][6]) - L0, float(x[Pf][5] / m - x[Ph][5] / M))

    return StrideMap(system, PoincareSection(_apex(system)), lift, project, horizon=horizon, **solver)


@register_model(
    "hopping-leg",
    "a hip on a springy telescopic leg with a round foot, hopping on hard ground or soft soil",
    hip_mass=Parameter(5.0, "kg", "mass M of the hip", rule="positive"),
    foot_mass=Parameter(0.5, "kg", "mass m of the foot", rule="positive"),
    foot=Parameter(0.05, "m", "radius r of the spherical foot", rule="positive"),
    leg=Parameter(0.5, "m", "rest length L0 of the leg (hip centre to foot centre)", rule="positive"),
    leg_stiffness=Parameter(4000.0, "N/m", "stiffness k of the leg spring", rule="positive"),
    leg_damping=Parameter(0.0, "N s/m", "damping of the leg, in parallel with its spring", rule="nonnegative"),
    drop=Parameter(0.1, "m", "height of the foot above the ground at the start (both bodies at rest)",
                   rule="positive"),
    contact=Parameter("compliant", "-", "contact of the foot: compliant, sliding_plane or soil (dry sand)",
                      choices=CONTACTS),
    stiffness=Parameter(1.0e4, "N/m", "compliant: stiffness of the ground (at 1e5 the undamped foot chatters)", rule="positive"),
    damping_ratio=Parameter(0.0, "-", "compliant: ground damping, fraction of critical for the foot's mass",
                            rule="nonnegative"),
)
def hopping_leg(*, hip_mass=5.0, foot_mass=0.5, foot=0.05, leg=0.5, leg_stiffness=4000.0, leg_damping=0.0, drop=0.1,
                contact="compliant", stiffness=1.0e4, damping_ratio=0.0):
    """Build the model (module docstring): the leg at rest length, dropped from `drop`.

    The foot's contact is frictionless for the compliant and sliding-plane grounds (the motion
    is vertical) and has the sand's friction on soil.

    Raises
    ------
    ParameterError
        An unknown contact kind.
    """
    check_parameter("hopping-leg", "contact", contact)
    foot, leg, drop = float(foot), float(leg), float(drop)
    H_foot, H_hip = np.eye(4), np.eye(4)
    H_foot[2, 3] = foot + drop
    H_hip[2, 3] = foot + drop + leg
    I_foot = 0.4 * foot_mass * foot * foot
    hip = RigidBody("hip", hip_mass, [0.1 * hip_mass * 0.1] * 3, pose=H_hip)
    sole = RigidBody("foot", foot_mass, [I_foot] * 3, pose=H_foot)
    ground = Ground("ground")
    bg = ph.BondGraph("hopping_leg")
    bg.add(hip, sole, ground, Gravity("hip_weight", hip, (0.0, 0.0, -G)), Gravity("foot_weight", sole, (0.0, 0.0, -G)),
           Joint("leg", hip.frame(), sole.frame(), kind="prismatic"),
           PointSpring("leg_spring", hip.frame(), sole.frame(), stiffness=leg_stiffness, rest_length=leg))
    bg.connect(hip.frame().port, "hip_weight")
    bg.connect(sole.frame().port, "foot_weight")
    for name in ("leg", "leg_spring"):
        bg.connect(hip.frame().port, (name, "a"))
        bg.connect(sole.frame().port, (name, "b"))
    if leg_damping > 0.0:
        bg.add(PointDamper("leg_damper", hip.frame(), sole.frame(), damping=leg_damping))
        bg.connect(hip.frame().port, ("leg_damper", "a"))
        bg.connect(sole.frame().port, ("leg_damper", "b"))
    # one material for every kind: frictionless, plastic at a rigid landing, the compliant
    # ground's own damping (a fraction of critical for the foot's mass, 0 by default:
    # damping="law"); the soil keeps its terrain's friction (friction=None)
    material = ContactMaterial(friction=0.0, restitution=0.0, damping="law", normal=NormalLaw(
        "linear", stiffness=float(stiffness), damping=2.0 * damping_ratio * math.sqrt(stiffness * foot_mass)))
    bg.add(make_contact(contact, "foot_contact", sole, Sphere(foot), ground, Plane(), material=material,
                        kind_options={"soil": dict(friction=None)}))
    bg.connect(sole.frame().port, ("foot_contact", "a"))
    bg.connect(ground.frame().port, ("foot_contact", "b"))

    def height(body):
        return lambda system, t, x: float(x[system.layout[f"{body}.pose"]][6])

    observables = {
        "hip height": height("hip"),
        "foot height": lambda s, t, x: float(x[s.layout["foot.pose"]][6]) - foot,
        "leg length": lambda s, t, x: float(x[s.layout["hip.pose"]][6] - x[s.layout["foot.pose"]][6]),
    }
    return Model(
        bg,
        t_end=2.0,
        solver=dict(method="DOP853", rtol=1e-10, atol=1e-12),
        observables=observables,
        units={name: "m" for name in observables},
        groups={"heights": ["hip height", "foot height", "leg length"]},
        notes=f"hip {hip_mass:g} kg on a {leg:g} m leg ({leg_stiffness:g} N/m), {foot_mass:g} kg foot of radius "
              f"{foot:g} m on {contact} ground, dropped from {drop:g} m",
    )
