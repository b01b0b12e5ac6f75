"""A wheel on a frictionless plane, its spindle held horizontally (Tasora & Righettini, *Sliding
contact between freeform surfaces*, 2003, sec. 6.2).

The spindle (the wheel's centre) can only move vertically and the wheel can only turn about
its own axis: a `Joint` from the ground locks the other four relative degrees of freedom.
Gravity presses the wheel onto a frictionless floor, so it turns at a constant rate, slipping,
while its contact point runs round the rim. Classical mechanics says the spindle does not
accelerate vertically (Tasora & Righettini 2003, eq. 43: q_y'' = 0), and the contact parameter on the rim moves at
u1' = -q_theta' / (2 pi) (eq. 41)::

            z ^                 wheel turning at q_theta' about +x (out of the page)
              |     .-""-.
              |    /  +   \\     + spindle at height q_y = R (locked: x, y; rotations y, z)
              |    \\      /
              |     '-..-'
        ------+-------*---------> y     * contact: P on the rim (parameter u1), S on the floor
        //////////////////////////      frictionless plane, normal +z

The rim is the paper's circle with the paper's parameter ``u1 in [0, 1)`` (eq. 40): in the
wheel frame, ``R (0, sin 2 pi u1, -cos 2 pi u1)``. A circle has no area to touch a plane
with, so the rim is the equator ``v = 0`` of a thin torus (tube radius `tube`), which keeps
the contact a point. World axes map to the paper's as D_x -> y, D_y -> z; q_theta is the
rotation about +x, so the rim point at u1 is at angle 2 pi u1 + q_theta, as in eq. (40).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

import porthamiltonian as ph
from porthamiltonian.geometry import ParameterDomain, Plane, SymbolicSurface
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.library import CONTACT_KINDS, ContactMaterial, Gravity, Ground, Joint, RigidBody, make_contact
from porthamiltonian.lie import quaternion, se3, so3

from .registry import Model, Parameter, register_model

__all__ = ["wheel_on_plane", "seed_wheel", "SPINDLE_LOCK"]

#: the spindle joint (marker a = world, marker b = wheel frame): rotation about x and
#: translation along z free
SPINDLE_LOCK = (False, True, True, True, True, False)

_TWO_PI = 2.0 * math.pi


def seed_wheel(radius, tube):
    """The rim of Tasora & Righettini 2003, sec. 6.2 as a thin torus about the wheel's x axis.

    Parameters
    ----------
    radius : float [m]
        Rolling radius R: the equator ``v = 0`` is the circle ``R (0, sin 2 pi u, -cos 2 pi u)``.
    tube : float [m]
        Tube radius of the torus, 0 < tube < radius.

    Returns
    -------
    SymbolicSurface
        ``f(u, v) = (tube sin v, rho sin 2 pi u, -rho cos 2 pi u)`` with
        ``rho = radius - tube + tube cos v``, ``u in [0, 1)`` and ``v in [-pi, pi)`` periodic,
        oriented outward (``f_u x f_v`` points away from the axis at the equator).
    """
    u, v = sp.symbols("u v")
    rho = radius - tube + tube * sp.cos(v)
    expr = [tube * sp.sin(v), rho * sp.sin(_TWO_PI * u), -rho * sp.cos(_TWO_PI * u)]
    return SymbolicSurface(expr, u, v, ParameterDomain((0.0, -math.pi), (1.0, math.pi), (True, True)))


def _contact_element(system):
    for leaf in ("constraint", "spring"):
        if f"contact/{leaf}" in system.elements:
            return f"contact/{leaf}"
    raise ph.ModelError(f"system {system.name!r} has no contact component 'contact'")


def _q_theta(system, t, x):
    R = quaternion.to_matrix(x[system.layout["wheel.pose"]][:4])
    return float(math.atan2(R[2, 1], R[1, 1]))


def _u1(system, t, x):
    return float(system.element_state(_contact_element(system), x)[0][0])


def _u1_rate(system, t, x):
    path = _contact_element(system)
    return float(system.evaluate(t, x)["xdot"][system.layout.element_slice(path)][0])


@register_model(
    "wheel-on-plane",
    "a wheel slipping on a frictionless plane, spindle free only vertically (Tasora & Righettini 2003, sec. 6.2)",
    radius=Parameter(0.3, "m", "rolling radius R of the wheel", rule="positive"),
    tube=Parameter(0.02, "m", "tube radius of the torus whose equator is the rim", rule="positive"),
    mass=Parameter(2.0, "kg", "mass of the wheel (a uniform disc: I = m R^2 / 2 about its axis)", rule="positive"),
    angle=Parameter(0.4, "rad", "initial wheel angle q_theta"),
    spin=Parameter(3.0, "rad/s", "wheel angular velocity q_theta' (constant: the plane is frictionless)"),
    contact=Parameter("sliding_plane", "-", "contact model: sliding_plane (the paper's) or compliant",
                      choices=('sliding_plane', 'compliant')),
    unilateral=Parameter(True, "-", "sliding_plane: detach when the normal force would pull"),
    stiffness=Parameter(1.0e5, "N/m", "compliant: normal stiffness", rule="positive"),
    damping_ratio=Parameter(0.1, "-", "compliant: normal damping as a fraction of critical", rule="nonnegative"),
)
def wheel_on_plane(*, radius=0.3, tube=0.02, mass=2.0, angle=0.4, spin=3.0, contact="sliding_plane",
                   unilateral=True, stiffness=1.0e5, damping_ratio=0.1):
    """Build the model (module docstring).

    The default contact is the sliding plane, whose check this mechanism is; with
    ``contact="compliant"`` (frictionless: no tangential or spin stiffness, damping or
    friction) the spindle starts lowered by the static penetration m g / k.

    Raises
    ------
    ParameterError
        Unknown contact kind, or a tube not thinner than the wheel.
    """
    radius, tube = float(radius), float(tube)
    if not 0.0 < tube < radius:
        raise ph.ParameterError(f"`tube` must lie in (0, radius = {radius:g}) m, got {tube!r}")
    g = 9.81
    k = float(stiffness)
    # one material for every kind: frictionless, plastic at impacts (the sliding plane's), the
    # compliant law's damping set as a fraction of critical (its own: damping="law")
    c_n = 2.0 * damping_ratio * math.sqrt(k * mass)
    material = ContactMaterial(friction=0.0, restitution=0.0, damping="law",
                               normal=NormalLaw("linear", stiffness=k, damping=c_n))
    height = radius - CONTACT_KINDS[contact].rest_penetration(material, mass * g)
    bg = ph.BondGraph("wheel_on_plane")
    H_WB = se3.make(so3.exp(np.array((angle, 0.0, 0.0))), np.array((0.0, 0.0, height)))
    I = mass * radius * radius * np.array((0.5, 0.25, 0.25))
    wheel = RigidBody("wheel", mass, I, pose=H_WB, twist=(spin, 0.0, 0.0, 0.0, 0.0, 0.0))
    ground = Ground("ground")
    floor = Plane(u_axis=(0.0, 1.0, 0.0))  # u2 along the paper's D_x
    spindle = Joint("spindle", ground.frame(), wheel.frame(), lock=SPINDLE_LOCK)
    c = make_contact(contact, "contact", wheel, seed_wheel(radius, tube), ground, floor, material=material,
                     kind_options={"sliding_plane": dict(unilateral=unilateral)})
    bg.add(wheel, ground, Gravity("gravity", wheel, (0.0, 0.0, -g)), spindle, c)
    bg.connect(wheel.frame().port, "gravity")
    bg.connect(ground.frame().port, ("spindle", "a"))
    bg.connect(wheel.frame().port, ("spindle", "b"))
    bg.connect(wheel.frame().port, ("contact", "a"))
    bg.connect(ground.frame().port, ("contact", "b"))
    observables = {
        "spindle height": lambda s, t, x: float(x[s.layout["wheel.pose"]][6]),
        "q_theta": _q_theta,
        "u1": _u1,
        "u1 rate": _u1_rate,
        "-q_theta rate / 2 pi": lambda s, t, x: float(-wheel.twist(x[s.layout.element_slice("wheel")])[0] / _TWO_PI),
    }
    return Model(
        bg,
        t_end=2.0,
        solver=dict(method="DOP853", rtol=1e-9, atol=1e-11),
        observables=observables,
        units={"spindle height": "m", "q_theta": "rad", "u1": "-", "u1 rate": "1/s", "-q_theta rate / 2 pi": "1/s"},
        groups={
            "spindle height": ["spindle height"],
            "wheel angle": ["q_theta"],
            "contact parameter": ["u1"],
            "contact parameter rate": ["u1 rate", "-q_theta rate / 2 pi"],
        },
        notes="Tasora & Righettini 2003, sec. 6.2: the spindle height stays R (q_y'' = 0, eq. 43) and u1' = -q_theta'/(2 pi) (eq. 41)",
    )
