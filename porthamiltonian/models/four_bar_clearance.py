"""A four-bar linkage with a clearance in the coupler-rocker pair (Tasora & Righettini, *Sliding
contact between freeform surfaces*, 2003, sec. 6.3, Figs. 9-10).

Crank-rocker in the world x-y plane (hinge axes along z, gravity along -y), the crank driven
at constant speed by a weld to a turning ground marker (a rheonomic constraint whose work
is a ledger entry)::

                   b      C: the coupler's pin in the rocker's hole
              B __________o
               /           \\
            a /             \\ c
             /               \\
            A=================D        A = (0, 0), D = (d, 0); the crank AB turns at omega

Two models of the clearance, chosen by `model`:

- ``"clearance"``: the pin, a sphere of radius R2 on the coupler, stays on the wall of the
  hole, an inward-facing sphere of radius R1 on the rocker, through a bilateral frictionless
  sliding-plane contact (Tasora & Righettini). The centres stay in the plane z = 0, so the
  spheres behave as the circles of the paper (point contact, isolated);
- ``"massless_link"``: the classical model (the paper's ref. [14]): a massless link of length
  e = R1 - R2 joining the two centres.

Tasora & Righettini 2003, eqs. (45)-(49): the sliding-plane constraint depends on R1 and R2 only through e, and
equals the massless link's; the two models move identically from the same initial state.

The massless link is a `DistanceJoint` between the pin centre (on the coupler) and the hole
centre (on the rocker): an exact massless rigid link with ball ends.

Body frames: each link's frame is at its proximal hinge (crank at A, coupler at B, rocker at
D) with x along the link, z along world z.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy as sp

import porthamiltonian as ph
from porthamiltonian._validate import as_finite_float
from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import ParameterDomain, Sphere, SymbolicSurface
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.library import (
    ContactMaterial,
    DistanceJoint,
    Frame,
    Gravity,
    Ground,
    Joint,
    RigidBody,
    make_contact,
)
from porthamiltonian.library.joints import ConstantRotation
from porthamiltonian.lie import quaternion, se3, so3

from .registry import Model, Parameter, register_model

__all__ = [
    "four_bar_clearance", "Linkage", "hole_surface", "linkage_configuration", "linkage_velocities",
    "MODELS_OF_CLEARANCE",
]

#: the two models of the clearance
MODELS_OF_CLEARANCE = ("clearance", "massless_link")


@dataclass(frozen=True)
class Linkage:
    """Dimensions of the four-bar [m]: crank a, coupler b, rocker c, ground d, hole R1, pin R2."""

    crank: float = 0.06
    coupler: float = 0.2
    rocker: float = 0.12
    ground: float = 0.2
    hole_radius: float = 0.01
    pin_radius: float = 0.009

    def __post_init__(self):
        for name in ("crank", "coupler", "rocker", "ground", "hole_radius", "pin_radius"):
            as_finite_float(getattr(self, name), name, positive=True)
        if not self.pin_radius < self.hole_radius:
            raise ParameterError(
                f"the pin must be smaller than the hole: pin_radius {self.pin_radius!r} >= "
                f"hole_radius {self.hole_radius!r}"
            )

    @property
    def clearance(self):
        """Radial clearance e = R1 - R2 [m] (the massless link's length)."""
        return self.hole_radius - self.pin_radius


def _unit(angle):
    return np.array((math.cos(angle), math.sin(angle)))


def _perp(angle):
    return np.array((-math.sin(angle), math.cos(angle)))


def linkage_configuration(linkage, theta1, psi):
    """Absolute link angles for a crank angle and a clearance direction (elbow up).

    Parameters
    ----------
    linkage : Linkage
    theta1 : float [rad]
        Crank angle from world x.
    psi : float [rad]
        Direction of the pin centre seen from the hole centre: C_pin - C_hole = e (cos psi, sin psi).

    Returns
    -------
    theta1, theta2, theta3 : float [rad]
        Crank, coupler (B -> pin centre) and rocker (D -> hole centre) angles.

    Raises
    ------
    GeometryError
        If the loop cannot close at this crank angle.

    Notes
    -----
    The hole centre C_r lies on the circle of radius c about D and on the circle of radius b
    about Q = B - e u(psi) (so that the pin centre C_r + e u(psi) is at b from B); of the two
    intersections, the one above the line Q-D.
    """
    a, b, c, d, e = linkage.crank, linkage.coupler, linkage.rocker, linkage.ground, linkage.clearance
    B = a * _unit(theta1)
    D = np.array((d, 0.0))
    Q = B - e * _unit(psi)
    r = float(np.linalg.norm(Q - D))
    cos_gamma = (c * c + r * r - b * b) / (2 * c * r)
    if abs(cos_gamma) > 1.0:
        raise GeometryError(f"the four-bar does not close at crank angle {theta1!r} rad (cos = {cos_gamma:.4g})")
    alpha = math.atan2(Q[1] - D[1], Q[0] - D[0])
    theta3 = alpha - math.acos(cos_gamma)  # Q is left of D: turning clockwise from D->Q is "up"
    C_r = D + c * _unit(theta3)
    C_c = C_r + e * _unit(psi)
    theta2 = math.atan2(C_c[1] - B[1], C_c[0] - B[0])
    return theta1, theta2, theta3


def linkage_velocities(linkage, angles, psi, omega, psi_rate):
    """Coupler and rocker angular speeds from the crank speed and the clearance rate.

    Parameters
    ----------
    linkage : Linkage
    angles : (float, float, float) [rad]
        From `linkage_configuration`.
    psi, omega, psi_rate : float [rad, rad/s, rad/s]

    Returns
    -------
    theta2_rate, theta3_rate : float [rad/s]

    Notes
    -----
    Differentiating C_pin - C_hole = e u(psi) with C_pin = B + b u(theta2), C_hole = D + c u(theta3):
    ``b u'(theta2) theta2' - c u'(theta3) theta3' = e u'(psi) psi' - a u'(theta1) omega``.
    """
    t1, t2, t3 = angles
    A = np.column_stack((linkage.coupler * _perp(t2), -linkage.rocker * _perp(t3)))
    rhs = linkage.clearance * psi_rate * _perp(psi) - linkage.crank * omega * _perp(t1)
    return tuple(float(v) for v in np.linalg.solve(A, rhs))


def hole_surface(radius):
    """The wall of a spherical hole: a sphere whose normal points to its centre (into the hole).

    ``f(u, v) = radius (cos v cos u, cos v sin u, -sin v)``, u in [-pi, pi) periodic, v in
    [-pi/2, pi/2] (poles at v = +-pi/2, singular). Negating z reverses the orientation of the
    usual latitude-longitude sphere: ``f_u x f_v = -radius^2 cos v (cos v cos u, cos v sin u,
    sin v)`` points inward, out of the material around the hole. The contact stays on the
    equator v = 0, far from the poles.
    """
    u, v = sp.symbols("u v")
    expr = [radius * sp.cos(v) * sp.cos(u), radius * sp.cos(v) * sp.sin(u), -radius * sp.sin(v)]
    dom = ParameterDomain((-math.pi, -math.pi / 2), (math.pi, math.pi / 2), (True, False),
                          singular_v=(-math.pi / 2, math.pi / 2))
    return SymbolicSurface(expr, u, v, dom)


def _planar(angle, origin):
    return se3.make(so3.exp(np.array((0.0, 0.0, angle))), np.array((origin[0], origin[1], 0.0)))


def _translation(x):
    H = np.eye(4)
    H[0, 3] = x
    return H


def _rod(mass, length):
    """Principal inertia about the centre of a slender link along x [kg m^2]."""
    I = mass * length * length / 12.0
    return np.array((1e-2 * I, I, I))


def _planar_twist(angle, rate, origin_velocity):
    """Body twist (0, 0, rate, R^T v) of a planar body at `angle` whose origin moves at `origin_velocity` (2,)."""
    R = so3.exp(np.array((0.0, 0.0, angle)))
    return np.concatenate(((0.0, 0.0, rate), R.T @ np.array((origin_velocity[0], origin_velocity[1], 0.0))))


@register_model(
    "four-bar-clearance",
    "crank-rocker four-bar with a clearance in the coupler-rocker pair: sliding-plane pin-in-hole contact, or "
    "the massless-link model (Tasora & Righettini 2003, sec. 6.3, Fig. 10)",
    model=Parameter("clearance", "-", "clearance (pin in hole, sliding-plane contact) or massless_link"),
    crank=Parameter(0.06, "m", "crank length a", rule="positive"),
    coupler=Parameter(0.2, "m", "coupler length b (hinge B to pin centre)", rule="positive"),
    rocker=Parameter(0.12, "m", "rocker length c (hinge D to hole centre)", rule="positive"),
    ground=Parameter(0.2, "m", "distance d between the ground hinges", rule="positive"),
    hole_radius=Parameter(0.01, "m", "hole radius R1 (on the rocker)", rule="positive"),
    pin_radius=Parameter(0.009, "m", "pin radius R2 (on the coupler); clearance e = R1 - R2", rule="positive"),
    masses=Parameter((0.3, 0.6, 0.4), "kg", "masses of crank, coupler, rocker (uniform slender links)", rule="positive"),
    omega=Parameter(2 * math.pi, "rad/s", "crank speed (prescribed)"),
    theta=Parameter(math.pi / 3, "rad", "initial crank angle"),
    psi=Parameter(-math.pi / 2, "rad", "initial direction of the pin centre from the hole centre"),
    psi_rate=Parameter(0.0, "rad/s", "initial rate of that direction"),
    g=Parameter(9.81, "m/s^2", "gravity (along -y, in the plane of the linkage)", rule="nonnegative"),
    stiffness=Parameter(1e6, "N/m", "normal stiffness (compliant clearance)", rule="positive"),
    damping=Parameter(100.0, "N s/m", "normal damping (compliant clearance)", rule="nonnegative"),
    contact=Parameter("sliding_plane", "-", "clearance contact: sliding_plane (bilateral) or compliant",
                      choices=('sliding_plane', 'compliant')),
)
def four_bar_clearance(*, model="clearance", crank=0.06, coupler=0.2, rocker=0.12, ground=0.2, hole_radius=0.01,
                       pin_radius=0.009, masses=(0.3, 0.6, 0.4), omega=2 * math.pi, theta=math.pi / 3,
                       psi=-math.pi / 2, psi_rate=0.0, g=9.81, stiffness=1e6, damping=100.0,
                       contact="sliding_plane"):
    """Build the model (module docstring); both models start from the same state.

    A compliant clearance (``contact="compliant"``) lets the pin leave the wall and hit it
    again: a different model, not comparable with the massless link.
    """
    if model not in MODELS_OF_CLEARANCE:
        raise ParameterError(f"`model` must be one of {MODELS_OF_CLEARANCE}, got {model!r}")
    lk = Linkage(crank, coupler, rocker, ground, hole_radius, pin_radius)
    m1, m2, m3 = (as_finite_float(m, "masses", positive=True) for m in masses)
    omega = as_finite_float(omega, "omega")
    angles = linkage_configuration(lk, theta, psi)
    t1, t2, t3 = angles
    w2, w3 = linkage_velocities(lk, angles, psi, omega, psi_rate)
    a, b, c, d, e = lk.crank, lk.coupler, lk.rocker, lk.ground, lk.clearance
    B, D = a * _unit(t1), np.array((d, 0.0))

    crank_body = RigidBody("crank", m1, _rod(m1, a), com=(a / 2, 0, 0), pose=_planar(t1, (0, 0)),
                           twist=(0, 0, omega, 0, 0, 0))
    coupler_body = RigidBody("coupler", m2, _rod(m2, b), com=(b / 2, 0, 0), pose=_planar(t2, B),
                             twist=_planar_twist(t2, w2, a * omega * _perp(t1)))
    rocker_body = RigidBody("rocker", m3, _rod(m3, c), com=(c / 2, 0, 0), pose=_planar(t3, D), twist=(0, 0, w3, 0, 0, 0))

    G = Ground("ground")
    turning = ConstantRotation(_planar(t1, (0, 0)), (0.0, 0.0, 1.0), omega)   # the crank angle t1 + omega t
    joints = (
        (Joint("drive", Frame(G, "B", _planar(t1, (0, 0))), crank_body.frame(), kind="weld", motion_a=turning),
         G, crank_body),
        (Joint("hinge_B", Frame(crank_body, "B", _translation(a)), coupler_body.frame(), kind="revolute"),
         crank_body, coupler_body),
        (Joint("hinge_D", Frame(G, "B", _planar(0.0, D)), rocker_body.frame(), kind="revolute"), G, rocker_body),
    )
    bodies = [crank_body, coupler_body, rocker_body]
    bg = ph.BondGraph(f"four_bar_{model}")
    bg.add(G, *bodies)
    if model == "clearance":
        # the sliding plane rides on the pin (surface a), the point on the hole's wall (the paper's eq. 44)
        # one material for every kind: frictionless, the compliant law's own damping
        # (damping="law"); the sliding plane is bilateral (the pin stays on the wall)
        material = ContactMaterial(friction=0.0, restitution=0.0, damping="law",
                                   normal=NormalLaw("linear", stiffness=stiffness, damping=damping))
        clr = make_contact(contact, "clearance", coupler_body, Sphere(lk.pin_radius), rocker_body,
                           hole_surface(lk.hole_radius), pose_a=_translation(b), pose_b=_translation(c),
                           material=material, kind_options={"sliding_plane": dict(unilateral=False)})
        bg.add(clr)
        bg.connect(coupler_body.frame().port, ("clearance", "a"))
        bg.connect(rocker_body.frame().port, ("clearance", "b"))
    else:
        link = DistanceJoint("link", Frame(coupler_body, "B", _translation(b)), Frame(rocker_body, "B", _translation(c)), e)
        joints += ((link, coupler_body, rocker_body),)
    for body in bodies:
        grav = Gravity(f"g_{body.name}", body, g=(0.0, -g, 0.0))
        bg.add(grav)
        bg.connect(body.frame().port, grav)
    for joint, body_a, body_b in joints:
        bg.add(joint)
        bg.connect(body_a.frame().port, (joint, "a"))
        bg.connect(body_b.frame().port, (joint, "b"))

    def angle(name):
        def f(system, t, x):
            R = quaternion.to_matrix(x[system.layout[f"{name}.pose"]][:4])
            return float(math.atan2(R[1, 0], R[0, 0]))

        f.__name__ = f"{name}_angle"
        return f

    def centres(system, t, x):
        Hc = quaternion.pose_to_matrix(x[system.layout["coupler.pose"]])
        Hr = quaternion.pose_to_matrix(x[system.layout["rocker.pose"]])
        return Hc[:3, :3] @ (b, 0, 0) + Hc[:3, 3], Hr[:3, :3] @ (c, 0, 0) + Hr[:3, 3]

    def clearance_angle(system, t, x):
        pin, hole = centres(system, t, x)
        return float(math.atan2(pin[1] - hole[1], pin[0] - hole[0]))

    def distance(system, t, x):
        pin, hole = centres(system, t, x)
        return float(np.linalg.norm(pin - hole))

    def pin_force(system, t, x):
        """Force of the hole wall (or the link) on the pin along the direction pin -> hole centre [N]:
        the compressive contact force, or the link's tension."""
        if model == "massless_link":
            return float(system.multipliers(t, x)["link"][0])  # the link's tension pulls the pin to the hole centre
        if "clearance/constraint" in system.elements:   # a constraint (the sliding plane): its multiplier
            return float(system.multipliers(t, x)["clearance/constraint"][0])
        # a compliant contact: the wrench the spring and the damper exert on the coupler (port "a", coupler frame)
        ports = system.port_variables(t, x)
        f_coupler = -sum(ports[(f"clearance/{el}", "a")][0][3:] for el in ("spring", "damper"))
        pin, hole = centres(system, t, x)
        R = quaternion.to_matrix(x[system.layout["coupler.pose"]][:4])
        r = float(np.linalg.norm(hole - pin))
        return 0.0 if r == 0.0 else float((R @ f_coupler) @ (hole - pin)) / r  # centred pin: no contact

    observables = {
        "crank angle": angle("crank"),
        "coupler angle": angle("coupler"),
        "rocker angle": angle("rocker"),
        "clearance angle": clearance_angle,
        "centre distance": distance,
    }
    observables["pin force"] = pin_force
    return Model(
        bg,
        t_end=1.0,
        solver=dict(method="DOP853", rtol=1e-10, atol=1e-12),
        observables=observables,
        units={"crank angle": "rad", "coupler angle": "rad", "rocker angle": "rad", "clearance angle": "rad",
               "centre distance": "m", "pin force": "N"},
        groups={
            "link angles [rad]": ["crank angle", "coupler angle", "rocker angle"],
            "pin in the hole": ["clearance angle"],
            "centre distance [m]": ["centre distance"],
            "pin force [N]": ["pin force"],
        },
        notes=(
            "Fig. 10 of Tasora & Righettini 2003: the clearance model (sliding-plane pin in hole) and the massless-link model "
            f"move identically; clearance e = {e:g} m."
        ),
    )

