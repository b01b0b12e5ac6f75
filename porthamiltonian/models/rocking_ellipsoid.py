"""An ellipsoid rocking (and rolling) on a floor under gravity.

A solid ellipsoid with semi-axes (a, b, c) along its body axes rests on the plane z = 0 on
the end of its shortest axis c; it is released tilted by `tilt` about its y axis, so it
rocks in the xz plane across its long axis a (and, with `spin`, also turns about the
vertical, which makes the motion three-dimensional)::

        z ^        .-'''''-.          tilt: rotation about body y
          |      /     +    \\        + centre of mass at height z(tilt)
          |      \\          /          = sqrt(a^2 sin^2 tilt + c^2 cos^2 tilt)
          |        '-.....-'
        --+--------------*----------> x    * contact point, off-centre while tilted
        ////////////////////////////

Tangential behaviour: "frictionless" (the centre of mass moves only vertically) or
"rolling" (no slip: the contact point is the instantaneous centre of rotation). Contact:
"compliant" (a spring-damper, Duindam & Stramigioli), "sliding_plane" (a constraint,
Tasora & Righettini) or "reduced" (reduced contact coordinates, Kry & Pai: the gap stays at
round-off at any step); they agree as the stiffness grows.

Small oscillations (radius of curvature a^2/c of the xz section at the resting point,
centre of mass c above it, I_y = m (a^2 + c^2)/5)::

    V = m g z(theta) ~ m g (c + (a^2 - c^2)/(2 c) theta^2)
    frictionless   omega^2 = m g (a^2 - c^2)/c / I_y
    rolling        omega^2 = m g (a^2 - c^2)/c / (I_y + m c^2)
"""

from __future__ import annotations

import difflib
import math

import numpy as np

import porthamiltonian as ph
from porthamiltonian.geometry import Ellipsoid, Plane
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.library import CONTACT_KINDS, ContactMaterial, Gravity, Ground, RigidBody, make_contact
from porthamiltonian.lie import quaternion, se3, so3

from .registry import Model, Parameter, register_model
from .two_ellipsoids import ellipsoid_inertia

__all__ = ["rocking_ellipsoid", "support_height", "rocking_frequency", "TANGENTIAL_MODES"]

#: tangential behaviours of the contact (the sliding plane's friction modes of the same name)
TANGENTIAL_MODES = ("frictionless", "rolling")


def support_height(axes, tilt):
    """Height [m] of the centre of an ellipsoid touching the plane z = 0, tilted about y.

    ``z = sqrt(a^2 sin^2 tilt + c^2 cos^2 tilt)`` (the support function along the plane normal).
    """
    a, _, c = axes
    return math.sqrt((a * math.sin(tilt)) ** 2 + (c * math.cos(tilt)) ** 2)


def rocking_frequency(mass, axes, friction, g=9.81):
    """Angular frequency [rad/s] of small rigid rocking about y (module docstring)."""
    a, _, c = axes
    I = ellipsoid_inertia(mass, axes)[1] + (mass * c * c if friction == "rolling" else 0.0)
    return math.sqrt(mass * g * (a * a - c * c) / c / I)


def _lowest_point(axes, R_WB):
    """Lowest point of the ellipsoid in body coordinates: the support point along
    m = R_WB^T (-e_z), p = D^2 m / sqrt(m . D^2 m) with D = diag(a, b, c)."""
    D2 = np.asarray(axes) ** 2
    m = -R_WB[2, :]
    return D2 * m / math.sqrt(float(m @ (D2 * m)))


def _quasi_static_load(mass, axes, tilt, friction, g):
    """Normal force [N] at release from rest: m (g + z''), z'' the rigid motion's initial
    vertical acceleration of the centre (planar rocking about y, closed form)."""
    a, _, c = axes
    z = support_height(axes, tilt)
    dz = (a * a - c * c) * math.sin(tilt) * math.cos(tilt) / z  # dz/dtilt
    I_y = ellipsoid_inertia(mass, axes)[1]
    J = I_y + mass * dz * dz + (mass * z * z if friction == "rolling" else 0.0)
    return mass * (g - mass * g * dz * dz / J)


def _contact_element(system):
    for leaf in ("constraint", "spring"):
        if f"contact/{leaf}" in system.elements:
            return f"contact/{leaf}"
    raise ph.ModelError(f"system {system.name!r} has no contact component 'contact'")


def _rotation(system, x):
    return quaternion.to_matrix(x[system.layout["body.pose"]][:4])


def _distance(system, t, x):
    path = _contact_element(system)
    own, refs = system.element_state(path, x)
    return float(system.elements[path].distance(own, refs))


@register_model(
    "rocking-ellipsoid",
    "an ellipsoid rocking (frictionless) or rolling (no slip) on a floor, compliant or sliding-plane contact",
    mass=Parameter(1.0, "kg", "mass of the ellipsoid", rule="positive"),
    axes=Parameter((0.2, 0.15, 0.1), "m", "semi-axes a, b, c (it rests on the end of c)", rule="positive"),
    tilt=Parameter(0.1, "rad", "initial tilt about the body y axis"),
    spin=Parameter(0.0, "rad/s", "initial angular velocity about the vertical (through the contact point if rolling)"),
    friction=Parameter("frictionless", "-", "tangential behaviour: frictionless or rolling (no slip)"),
    contact=Parameter("compliant", "-", "contact model: compliant, sliding_plane or reduced",
                      choices=('compliant', 'sliding_plane', 'reduced')),
    unilateral=Parameter(True, "-", "sliding_plane: detach when the normal force would pull"),
    stiffness=Parameter(1.0e5, "N/m", "compliant: normal (and, rolling, tangential) stiffness", rule="positive"),
    damping_ratio=Parameter(0.1, "-", "compliant: damping as a fraction of critical for the mass", rule="nonnegative"),
)
def rocking_ellipsoid(*, mass=1.0, axes=(0.2, 0.15, 0.1), tilt=0.1, spin=0.0, friction="frictionless",
                      contact="compliant", unilateral=True, stiffness=1.0e5, damping_ratio=0.1):
    """Build the model (module docstring). Body frame at the centre, principal axes.

    The compliant contact: frictionless has no tangential or spin stiffness, damping or
    friction; rolling has the normal stiffness and damping tangentially and a friction
    coefficient of 100 (it sticks), and no spin stiffness (the sliding plane's no-slip rows
    leave spin free too). Its centre starts lowered by the quasi-static penetration
    m (g + z'')/k, z'' the rigid motion's initial vertical acceleration, so that the fast
    normal mode is hardly excited.

    Raises
    ------
    ParameterError
        Unknown `friction` (the nearest mode is suggested) or contact kind, or an ellipsoid
        that does not rest on its shortest axis (c must be the smallest semi-axis: otherwise
        the resting point is not a stable equilibrium).
    """
    if friction not in TANGENTIAL_MODES:
        close = difflib.get_close_matches(str(friction), TANGENTIAL_MODES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ph.ParameterError(f"`friction` must be one of {TANGENTIAL_MODES}, got {friction!r}{hint}")
    axes = tuple(float(v) for v in axes)
    if len(axes) != 3 or min(axes) <= 0.0 or axes[2] != min(axes):
        raise ph.ParameterError(f"`axes` must be three positive semi-axes with c the smallest, got {axes}")
    g = 9.81
    height = support_height(axes, tilt)
    # one material for every kind: frictionless, or rolling on a friction coefficient of 100 (it
    # sticks), plastic at impacts, the compliant law's own damping (a fraction of critical:
    # damping="law"); what it cannot say is the kinds' own: the rigid kinds' tangential mode,
    # the compliant tangential spring (as stiff and damped as the normal one when rolling, no
    # spin stiffness)
    rolling = friction == "rolling"
    k = float(stiffness)
    c_n = 2.0 * damping_ratio * math.sqrt(k * mass)
    material = ContactMaterial(friction=100.0 if rolling else 0.0, restitution=0.0, damping="law",
                               normal=NormalLaw("linear", stiffness=k, damping=c_n))
    kind_options = {"sliding_plane": dict(friction=friction, unilateral=unilateral),
                    "reduced": dict(friction=friction),
                    "compliant": dict(tangential_stiffness=k if rolling else 0.0,
                                      tangential_damping=c_n if rolling else 0.0, spin_stiffness=0.0,
                                      spin_damping=0.0)}
    height -= CONTACT_KINDS[contact].rest_penetration(material, _quasi_static_load(mass, axes, tilt, friction, g))
    R_WB = so3.exp(np.array((0.0, tilt, 0.0)))
    w = np.array((0.0, 0.0, spin))
    # frictionless: spin about the vertical through the centre; rolling: about the vertical
    # through the contact point, whose material point must not slip
    v = -np.cross(w, R_WB @ _lowest_point(axes, R_WB)) if friction == "rolling" else np.zeros(3)
    body = RigidBody("body", mass, ellipsoid_inertia(mass, axes), pose=se3.make(R_WB, np.array((0.0, 0.0, height))),
                     twist=np.concatenate((R_WB.T @ w, R_WB.T @ v)))
    ground = Ground("ground")
    bg = ph.BondGraph("rocking_ellipsoid")
    c = make_contact(contact, "contact", body, Ellipsoid(*axes), ground, Plane(), material=material,
                     kind_options=kind_options)
    bg.add(body, ground, Gravity("gravity", body, (0.0, 0.0, -g)), c)
    bg.connect(body.frame().port, "gravity")
    bg.connect(body.frame().port, ("contact", "a"))
    bg.connect(ground.frame().port, ("contact", "b"))
    # tilt: signed angle of the body z axis from the vertical in the world xz plane (the
    # rocking angle while the motion is planar); inclination: its unsigned angle in 3D
    observables = {
        "tilt": lambda s, t, x: float(math.atan2(_rotation(s, x)[0, 2], _rotation(s, x)[2, 2])),
        "inclination": lambda s, t, x: float(math.acos(min(1.0, _rotation(s, x)[2, 2]))),
        "height": lambda s, t, x: float(x[s.layout["body.pose"]][6]),
        "centre x": lambda s, t, x: float(x[s.layout["body.pose"]][4]),
        "centre y": lambda s, t, x: float(x[s.layout["body.pose"]][5]),
        "Delta": _distance,
    }
    return Model(
        bg,
        t_end=2.0,
        solver=dict(method="DOP853", rtol=1e-8, atol=1e-10),
        observables=observables,
        units={"tilt": "rad", "inclination": "rad", "height": "m", "centre x": "m", "centre y": "m", "Delta": "m"},
        groups={"tilt": ["tilt", "inclination"], "centre": ["height", "centre x", "centre y"], "signed distance": ["Delta"]},
        notes=f"{friction} rocking, {contact} contact; small rigid oscillations at "
              f"{rocking_frequency(mass, axes, friction, g):.6g} rad/s (module docstring)",
    )
