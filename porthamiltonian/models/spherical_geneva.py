r"""Spherical Geneva wheel (Tasora & Righettini, *Sliding contact between freeform surfaces*, 2003, sec. 6.4, Fig. 11).

Mechanism. The wheel axis z and the crank axis x meet at right angles at O. The crank,
driven at constant speed, carries a ball-shaped pin (radius r) whose centre stays on the
pitch sphere of radius R about O, on a cone of half angle theta about the crank axis::

    p(alpha) = R (cos theta, sin theta cos alpha, sin theta sin alpha),   alpha the crank angle

The wheel turns on a revolute joint about z and is moved only through contact. Its four
slots run along meridians (great circles through its axis) from mouths on its rim, the
equator z = 0. For alpha in (0, pi) the pin is above the rim, inside a slot, and turns the
wheel; for alpha in (pi, 2 pi) it passes below the rim from one mouth to the next while
the wheel rests::

    top view from +z, wheel at rest: the slots are the diagonals, the pin path the segment

                     y
         slot 1 \    |    / slot k = 0: the pin enters its mouth at alpha = 0 (azimuth theta)
                 \   |   /|
                  \  |  / |  pin path seen from above: x = R cos theta, y = R sin theta cos alpha
        -----------\-O-/--|------ x (crank axis)
                   /   \  |
                  /     \ |
         slot 2  /       \| slot 3 (azimuth -theta): at alpha = pi the wheel has turned
                                    by -pi/2, slot 0 is here and the pin leaves it

The pin enters a slot moving along it (tangentially: no shock), climbs to latitude theta
and leaves at the same mouth after half a crank turn; the wheel turns by the angle between
the entry and exit azimuths. Without clearance the pin stays on the slot's meridian plane
and the slot azimuth is psi = phi(alpha), tan psi = tan theta cos alpha: with theta = pi / n
= pi / 4 a stroke of pi/2 per crank turn and a dwell of pi, whatever n.

Clearance. The flanks are planes parallel to the slot's meridian plane at c + r, a gap c on
each side of the centred pin. Only one flank can carry load at a time (two opposite flanks
touching at once would be redundant constraints): the pin drives flank A while the wheel
accelerates, crosses the slot when the acceleration reverses, and brakes the wheel on flank
B. With rho(alpha) the pin centre's distance from the wheel axis, psi = phi + asin(c / rho)
on A and psi = phi - asin(c / rho) on B. The cone angle theta = pi/4 - delta/2, delta =
asin(c / R), makes the pin enter each slot on its centre plane after leaving the previous
one on flank B, the wheel at rest (d psi/d alpha = 0 at alpha = pi on B)::

    slot section at the pin, looking along the slot toward O

        flank A                         flank B      the wheel turns toward A (negative
       ////////|<- c ->(  pin  )<- c ->|////////     beta); entering at the centre, the
       ////////|       (  2 r  )       |////////     pin hits A (impact), drives it,
       ////////|                       |////////     crosses (free), hits B (impact) and
               |<---- 2 (c + r) ------>|             brakes the wheel on it to the exit

Blades. Each flank is a blade (`slot_flank`): a flat disc face with a half-round edge of
radius r / 2. The face holds the whole path of the contact point (the pin's foot on the
flank plane), so the motion is that of plane flanks exactly; it ends at the slot mouth on
the rim, where the rounded edge recedes from the pin faster than the pin's path bends
toward it after the exit (edge radius + r < R). Blades, not unbounded planes, because a
contact tracks its closest point everywhere: an unbounded flank plane would also pass
under the rim and through the opposite slot, where the pin would run into it.

Locking: none (no locking arcs). The wheel comes to rest exactly at the exit and nothing
acts on it during the dwell (measured: |beta'| ~ 1e-8 rad/s over the dwell). A light
viscous brake (`brake`, bearing friction) dissipates a little energy while the wheel turns;
it leaves the motion on a flank unchanged (a constraint) and delays and softens the
crossing from A to B. A real wheel needs the lock against outside disturbances, absent here.

Contacts: eight unilateral sliding-plane contacts (one per flank, each tracking one contact
point), plastic impacts by default; `contact="compliant"` swaps them for spring-damper
contacts on the same surfaces. No gravity: the wheel is balanced about its vertical axis and
the crank is driven.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

import porthamiltonian as ph
from porthamiltonian._validate import as_finite_float
from porthamiltonian.errors import ParameterError
from porthamiltonian.geometry import ParameterDomain, Sphere, SymbolicSurface
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.library import (
    ContactMaterial,
    Frame,
    Ground,
    Joint,
    RigidBody,
    SpatialDamper,
    make_contact,
)
from porthamiltonian.library.joints import ConstantRotation
from porthamiltonian.lie import quaternion, se3

from .registry import Model, Parameter, register_model

__all__ = [
    "spherical_geneva", "slot_flank", "cone_angle", "contact_name", "crank_angle", "wheel_angle", "wheel_speed",
    "SLOTS", "FLANKS",
]

#: number of slots of the wheel
SLOTS = 4
#: flank A: ahead of the pin (drives the wheel); flank B: behind it (brakes the wheel)
FLANKS = ("A", "B")
#: blade face radius as a fraction of the contact circle's radius sqrt(R^2 - c^2): the face
#: then holds the contact path up to latitude 2 atan(0.55) = 57.6 deg (the pin reaches theta)
FACE_RATIO = 0.55


def contact_name(slot, flank):
    """Name of the contact component between the pin and a flank, e.g. "slot0_A"."""
    return f"slot{slot}_{flank}"


def cone_angle(radius, clearance):
    """Half angle theta [rad] of the pin's cone about the crank axis.

    theta = pi / n - delta / 2 with delta = asin(c / R): the pin enters each slot on its
    centre plane after leaving the previous one in contact with its flank B (module
    docstring); with c = 0 the classical pi / n.
    """
    return math.pi / SLOTS - 0.5 * math.asin(clearance / radius)


def slot_flank(radius, pin_radius, clearance, flank):
    r"""The blade surface of one flank of a slot, in the slot frame.

    Parameters
    ----------
    radius : float [m]
        Pitch sphere radius R (distance from O to the pin centre).
    pin_radius : float [m]
        r; the blade's edge radius is r / 2.
    clearance : float [m]
        c, the gap between the centred pin and the flank.
    flank : {"A", "B"}
        A lies on the -y side of the slot plane, B on the +y side.

    Returns
    -------
    SymbolicSurface
        Closed, C1 (curvature jumps where the face meets the edge), normals out of the blade.

    Raises
    ------
    ParameterError
        An unknown flank, a non-positive size, or a clearance not smaller than the radius.

    Notes
    -----
    Slot frame: x toward the slot mouth on the rim, z the wheel axis, the slot's meridian
    plane y = 0. With a = sqrt(R^2 - c^2) the pin centre touching flank B has y = c and
    x^2 + z^2 = a^2; the foot of the pin (the contact point) runs on the circle of radius a
    about the y axis in the face plane y = c + r. The face is the disc of radius
    rho = FACE_RATIO a centred at (a, c + r, rho): it is tangent to the rim z = 0 at the slot
    mouth M = (a, c + r, 0)::

              z                    face (y = c + r), seen from the slot
              |         ________
              |      .'        '.       the contact path, the arc of radius a about
              |     /    C       \      the y axis, lies on the face from M (latitude 0)
              |     \            /      up to latitude 2 atan(0.55) = 57.6 deg
              |      '.________.'
        ------+-----------M------------ x   rim z = 0: below M the half-round edge
              O          (a)                (radius r/2) recedes from the pin

    Parameters (u, v): u the angle about the blade axis (periodic); v in [0, pi] runs by
    arc length over the face (from its centre, a pole), around the half-round edge, and
    over the back face to the back centre (the other pole). The pin never comes near the
    poles (its foot stays at least a (sqrt(1 + 0.55^2) - 1) = 0.14 a from the face centre).
    """
    if flank not in FLANKS:
        raise ParameterError(f"`flank` must be one of {FLANKS}, got {flank!r}")
    radius = as_finite_float(radius, "radius", positive=True)
    pin_radius = as_finite_float(pin_radius, "pin_radius", positive=True)
    clearance = as_finite_float(clearance, "clearance", positive=True)
    if not clearance < radius:
        raise ParameterError(f"`clearance` must be smaller than `radius` = {radius!r} m, got {clearance!r}")
    side = 1.0 if flank == "B" else -1.0
    u, v = sp.symbols("u v", real=True)
    a = math.sqrt(radius * radius - clearance * clearance)
    rho, edge = FACE_RATIO * a, 0.5 * pin_radius
    length = 2.0 * rho + math.pi * edge
    s = v * length / math.pi
    phi = (s - rho) / edge
    # profile: distance from the blade axis and offset along it (toward the back face)
    out = sp.Piecewise((s, s <= rho), (rho + edge * sp.sin(phi), s <= rho + math.pi * edge), (length - s, True))
    along = sp.Piecewise((-edge, s <= rho), (-edge * sp.cos(phi), s <= rho + math.pi * edge), (edge, True))
    centre = sp.Matrix([a, side * (clearance + pin_radius + edge), rho])
    q = -side * u  # orientation: f_u x f_v out of the blade on both sides
    f = centre + out * sp.Matrix([sp.cos(q), 0, sp.sin(q)]) + along * sp.Matrix([0, side, 0])
    dom = ParameterDomain((-math.pi, 0.0), (math.pi, math.pi), (True, False), singular_v=(0.0, math.pi))
    return SymbolicSurface(f, u, v, dom, closed=True)


def _rotation(axis, angle):
    xi = np.zeros(6)
    xi["xyz".index(axis)] = angle
    return se3.exp(xi)


def _rotation_matrix(system, x, body):
    return quaternion.to_matrix(x[system.layout[f"{body}.pose"]][:4])


def crank_angle(system, t, x):
    """Observable alpha [rad]: the crank's rotation about x, in (-pi, pi]."""
    R = _rotation_matrix(system, x, "crank")
    return float(math.atan2(R[2, 1], R[1, 1]))


def wheel_angle(system, t, x):
    """Observable beta [rad]: the wheel's rotation about z (slot 0's azimuth), in (-pi, pi]."""
    R = _rotation_matrix(system, x, "wheel")
    return float(math.atan2(R[1, 0], R[0, 0]))


def wheel_speed(system, t, x):
    """Observable d beta/dt [rad/s]: the wheel's angular velocity about z."""
    return float((system.elements["wheel"].Minv @ x[system.layout["wheel.P"]])[2])


@register_model(
    "spherical-geneva",
    "four-slot spherical Geneva wheel driven by a crank pin through unilateral flank contacts (Tasora & Righettini 2003, Fig. 11)",
    radius=Parameter(0.04, "m", "pitch sphere radius: distance from the centre O to the pin centre", rule="positive"),
    pin_radius=Parameter(0.004, "m", "radius of the ball-shaped pin (at most radius / 5)", rule="positive"),
    clearance=Parameter(3e-4, "m", "gap between the centred pin and each flank (at most radius / 20)", rule="positive"),
    speed=Parameter(2 * math.pi, "rad/s", "crank speed (one turn per second)"),
    wheel_mass=Parameter(0.2, "kg", "mass of the wheel (balanced: centre of mass at O)", rule="positive"),
    wheel_inertia=Parameter(2e-4, "kg m^2", "moment of inertia of the wheel about its axis", rule="positive"),
    brake=Parameter(2e-5, "N m s/rad", "viscous brake on the wheel (bearing friction); 0 for none", rule="nonnegative"),
    restitution=Parameter(0.0, "-", "Newton restitution of the pin-flank impacts (sliding_plane)", rule="fraction"),
    stiffness=Parameter(1e5, "N/m", "normal stiffness of the flank contacts (compliant only)", rule="positive"),
    damping=Parameter(20.0, "N s/m", "normal damping of the flank contacts (compliant only)", rule="nonnegative"),
    contact=Parameter("sliding_plane", "-", "contact model: sliding_plane (stiff, with impacts) or compliant",
                      choices=('sliding_plane', 'compliant')),
)
def spherical_geneva(*, radius=0.04, pin_radius=0.004, clearance=3e-4, speed=2 * math.pi, wheel_mass=0.2,
                     wheel_inertia=2e-4, brake=2e-5, restitution=0.0, stiffness=1e5, damping=20.0,
                     contact="sliding_plane"):
    """Build the model (module docstring): crank, wheel, drive, hinge, brake, eight flank contacts.

    The simulation starts at crank angle alpha = -pi/2 (mid-dwell, pin at its lowest) with
    the wheel at rest and slot 0 on the pin's entry azimuth; `t_end` covers two crank turns.
    Angles: alpha is the crank's rotation about x, beta the wheel's about z (slot 0's
    azimuth), both wrapped to (-pi, pi].

    Raises
    ------
    ParameterError
        A non-positive size, speed, mass or inertia, a negative brake, a pin or clearance
        outside the ranges where the blade geometry is checked, or a bad contact parameter.
    """
    R = as_finite_float(radius, "radius", positive=True)
    r = as_finite_float(pin_radius, "pin_radius", positive=True)
    c = as_finite_float(clearance, "clearance", positive=True)
    w = as_finite_float(speed, "speed", positive=True)
    if r > 0.2 * R:
        raise ParameterError(f"`pin_radius` must be at most radius / 5 = {0.2 * R:.6g} m, got {r!r}")
    if c > 0.05 * R:
        raise ParameterError(f"`clearance` must be at most radius / 20 = {0.05 * R:.6g} m, got {c!r}")
    Iw = as_finite_float(wheel_inertia, "wheel_inertia", positive=True)
    cb = as_finite_float(brake, "brake", nonnegative=True)
    theta = cone_angle(R, c)
    alpha0 = -0.5 * math.pi

    # marker frame turning about its own x axis: body twist (w, 0, 0, 0, 0, 0), constant
    drive_motion = ConstantRotation(_rotation("x", alpha0), (1.0, 0.0, 0.0), w)

    bg = ph.BondGraph("spherical_geneva")
    ground = Ground("ground")
    # the crank's motion is prescribed: its mass only adds a constant kinetic energy
    crank = RigidBody("crank", 0.05, [2e-5, 1.5e-5, 1.5e-5], pose=_rotation("x", alpha0), twist=[w, 0, 0, 0, 0, 0])
    wheel = RigidBody("wheel", wheel_mass, [0.5 * Iw, 0.5 * Iw, Iw], pose=_rotation("z", theta))
    drive = Joint("drive", Frame(ground, "crank_axis", _rotation("x", alpha0)), crank.frame(), kind="weld",
                  motion_a=drive_motion)
    hinge = Joint("hinge", ground.frame(), wheel.frame(), kind="revolute")
    bg.add(ground, crank, wheel, drive, hinge)
    bg.connect(ground.frame().port, ("drive", "a"))
    bg.connect(crank.frame().port, ("drive", "b"))
    bg.connect(ground.frame().port, ("hinge", "a"))
    bg.connect(wheel.frame().port, ("hinge", "b"))
    if cb > 0.0:
        bg.add(SpatialDamper("brake", ground.frame(), wheel.frame(), rotational=np.diag([0.0, 0.0, cb])))
        bg.connect(ground.frame().port, ("brake", "a"))
        bg.connect(wheel.frame().port, ("brake", "b"))

    # one material for every kind: frictionless, Newton's `restitution` for the rigid kinds, the
    # compliant law's own damping (damping="law")
    material = ContactMaterial(friction=0.0, restitution=restitution, damping="law",
                               normal=NormalLaw("linear", stiffness=stiffness, damping=damping))
    pin = Sphere(r, center=(R * math.cos(theta), R * math.sin(theta), 0.0))
    flanks = {f: slot_flank(R, r, c, f) for f in FLANKS}
    for k in range(SLOTS):
        for f in FLANKS:
            name = contact_name(k, f)
            # the pin is surface a (the plane rides on the ball: its curvature keeps every
            # closest point regular), the blade surface b, posed on the wheel at slot k
            pose = _rotation("z", k * 2 * math.pi / SLOTS)
            bg.add(make_contact(contact, name, crank, pin, wheel, flanks[f], pose_b=pose, material=material))
            bg.connect(crank.frame().port, (name, "a"))
            bg.connect(wheel.frame().port, (name, "b"))

    observables = {"crank angle": crank_angle, "wheel angle": wheel_angle, "wheel speed": wheel_speed}
    return Model(
        bg,
        t_end=2 * 2 * math.pi / w,
        solver=dict(method="DOP853", rtol=1e-8, atol=1e-10),
        observables=observables,
        units={"crank angle": "rad", "wheel angle": "rad", "wheel speed": "rad/s"},
        groups={"crank and wheel angles": ["crank angle", "wheel angle"], "wheel speed": ["wheel speed"]},
        notes=(
            "Fig. 11 of Tasora & Righettini 2003: the wheel turns by pi/2 per crank turn and dwells for pi of crank angle; "
            "pin-flank impacts (entry, crossing the slot) are the 'lost' entries of the ledger"
        ),
        baumgarte=(10.0, 10.0),
    )
