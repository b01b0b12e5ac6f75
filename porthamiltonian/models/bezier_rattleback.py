"""A rattleback (celt) made of one bicubic Bezier patch, rolling on a floor (Kry & Pai, *Continuous
contact simulation for smooth surfaces*, 2003
sec. 4.2.1, Figs. 10-11).

The bottom of the top is a bicubic Bezier patch, longest along a direction turned by `skew`
(10 degrees) from the body x axis, its width a third of its length, curved by raising the
outer control points: with control heights ``k x_i^2 + l y_j^2`` on an even 4 x 4 grid, the
patch is the paraboloid ``z = (2/3) (k x^2 + l y^2) + const`` (Bernstein polynomials of degree
3 raise a quadratic's samples by ``t (1 - t) / 3``), so its radii of curvature at the bottom
are ``3 / (4 k)`` along and ``3 / (4 l)`` across. The inertia tensor is diagonal in the body
axes, hence not aligned with the patch's planes of symmetry: the misalignment of the
principal axes of inertia and of curvature at the contact point is what couples spin and
rocking (Garcia & Hubbard 1988), so that the top, spun one way about the vertical and slightly
rocked, reverses its spin.

Contact: "reduced" (default: reduced contact coordinates, rolling without slip, the paper's
setting), or "sliding_plane" / "compliant" for comparison. Friction: "rolling" (no slip, no
energy lost) or "coulomb" with `mu`.

The body frame is at the centre of mass, `height` above the lowest point of the patch; the
top starts resting on its lowest point, spinning at `spin` about the vertical with a small
rocking rate `rock` about its long axis (a perfect spin about the vertical is a stable
rotation: the paper starts "slightly off the centre").

The paper gives no dimensions; the defaults (a 20 cm top of 300 g, radii of curvature 0.75 m
along and 7 cm across at the bottom, centre of mass 2 cm up) reproduce its Fig. 11: spun at
-3 rad/s it rocks with a period of about 0.4 s as the spin dies, and reverses after about
8 s (the spin passes zero at 7.98 s with the model's RK4 at 10 ms, the paper's step, and at
7.99 s with DOP853 at rtol 1e-9). Rolling without
slip loses no energy, so the rocking the reversal leaves behind later turns the spin back
(about 13.7 s): the paper's "single or multiple spin reversals, depending on viscous damping
and the coefficient of friction". The sliding-plane constraint and a stiff compliant contact
(k = 1e5 N/m) give the same reversal (7.994 s and 7.981 s).
"""

from __future__ import annotations

import math

import numpy as np

import porthamiltonian as ph
from porthamiltonian.geometry import BezierPatch, Plane
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.library import ContactMaterial, Gravity, Ground, RigidBody, make_contact
from porthamiltonian.lie import quaternion, se3

from .registry import Model, Parameter, register_model

__all__ = ["bezier_rattleback", "rattleback_patch"]


def rattleback_patch(length, width, rise_long, rise_across, skew, height):
    """The bottom patch in body coordinates: a bicubic Bezier patch over ``length x width``,
    the outer control points raised by `rise_long` (at the ends) and `rise_across` (at the
    sides) above the centre's, turned by `skew` [rad] about z, its lowest point at
    ``(0, 0, -height)``; the normal ``f_u x f_v`` points down (out of the body)."""
    a, b = 0.5 * length, 0.5 * width
    xs, ys = np.linspace(-a, a, 4), np.linspace(b, -b, 4)         # v runs along -y: normal down
    k, l_ = rise_long / (a * a), rise_across / (b * b)
    c, s = math.cos(skew), math.sin(skew)
    net = np.zeros((4, 4, 3))
    for i, x in enumerate(xs):
        for j, y in enumerate(ys):
            net[i, j] = (c * x - s * y, s * x + c * y, k * x * x + l_ * y * y)
    net[..., 2] -= (k * a * a + l_ * b * b) / 3.0 + height      # the surface's lowest point at -height
    return BezierPatch(net)


def _spin(system, x):
    """Angular velocity about the world vertical [rad/s]."""
    pose, P = x[system.layout["top.pose"]], x[system.layout["top.P"]]
    w = np.linalg.solve(system.elements["top"].M, P)[:3]
    return float((quaternion.to_matrix(pose[:4]) @ w)[2])


def _tilt(system, x, axis):
    R = quaternion.to_matrix(x[system.layout["top.pose"]][:4])
    return float(math.asin(max(-1.0, min(1.0, R[2, axis]))))


#: the solver per contact kind (others: DOP853 at rtol 1e-8): the paper's fixed step for the
#: reduced contact; the others need error control (a stiff spring, a constraint's impacts)
_SOLVERS = {"reduced": dict(method="RK4", step=0.01)}


@register_model(
    "bezier-rattleback",
    "a rattleback of one bicubic Bezier patch that reverses its spin (reduced contact, rolling)",
    mass=Parameter(0.3, "kg", "mass of the top", rule="positive"),
    length=Parameter(0.2, "m", "length of the patch", rule="positive"),
    rise_long=Parameter(0.01, "m", "rise of the end control points above the centre's", rule="positive"),
    rise_across=Parameter(0.012, "m", "rise of the side control points above the centre's", rule="positive"),
    height=Parameter(0.02, "m", "centre of mass above the lowest point", rule="positive"),
    skew=Parameter(10.0, "deg", "angle of the patch's long axis from the body x axis (the principal axis)"),
    inertia=Parameter((3.0e-4, 3.0e-3, 3.2e-3), "kg m^2", "principal moments about the body x, y, z axes",
                      rule="positive"),
    spin=Parameter(-3.0, "rad/s", "initial spin about the vertical"),
    rock=Parameter(0.02, "rad/s", "initial rocking rate about the body x axis"),
    friction=Parameter("rolling", "-", "rolling (no slip) or coulomb"),
    mu=Parameter(0.5, "-", "coulomb: friction coefficient", rule="positive"),
    contact=Parameter("reduced", "-", "contact model: reduced, sliding_plane or compliant",
                      choices=('reduced', 'compliant', 'sliding_plane')),
)
def bezier_rattleback(*, mass=0.3, length=0.2, rise_long=0.01, rise_across=0.012, height=0.02, skew=10.0,
                      inertia=(3.0e-4, 3.0e-3, 3.2e-3), spin=-3.0, rock=0.02, friction="rolling", mu=0.5,
                      contact="reduced"):
    """Build the model (module docstring).

    Raises
    ------
    ParameterError
        A centre of mass at or above a radius of curvature at the bottom (the rest position
        would not be stable), or bad friction or contact names (from the contact factory).
    """
    width = length / 3.0
    radii = (3.0 * length * length / (16.0 * rise_long), 3.0 * width * width / (16.0 * rise_across))
    if not height < min(radii):
        raise ph.ParameterError(
            f"model 'bezier-rattleback': `height` = {height!r} m must be below the bottom's radii of curvature "
            f"{radii[0]:.4g} m and {radii[1]:.4g} m (else the rest position is unstable)")
    S = rattleback_patch(length, width, rise_long, rise_across, math.radians(skew), height)
    w = np.array((rock, 0.0, spin))
    v = -np.cross(w, (0.0, 0.0, -height))                    # the contact point does not slip
    top = RigidBody("top", mass, np.asarray(inertia, dtype=float),
                    pose=se3.make(np.eye(3), np.array((0.0, 0.0, height))), twist=np.r_[w, v])
    ground = Ground("ground")
    # one material for every kind: mu (coulomb) or 100 (rolling: the compliant contact sticks),
    # plastic impacts, a stiff compliant law with its own damping (damping="law"); what it
    # cannot say is the kinds' own: the rigid kinds' tangential mode, the compliant tangential
    # spring (as stiff and damped as the normal one, no spin stiffness)
    material = ContactMaterial(friction=mu if friction == "coulomb" else 100.0, restitution=0.0, damping="law",
                               normal=NormalLaw("linear", stiffness=1e5, damping=20.0))
    kind_options = {"sliding_plane": dict(friction=friction), "reduced": dict(friction=friction),
                    "compliant": dict(tangential_stiffness=1e5, tangential_damping=20.0, spin_stiffness=0.0,
                                      spin_damping=0.0)}
    c = make_contact(contact, "contact", top, S, ground, Plane(), material=material, kind_options=kind_options)
    bg = ph.BondGraph("bezier_rattleback")
    bg.add(top, ground, Gravity("gravity", top), c)
    bg.connect(top.frame().port, "gravity")
    bg.connect(top.frame().port, ("contact", "a"))
    bg.connect(ground.frame().port, ("contact", "b"))
    observables = {
        "spin": lambda s, t, x: _spin(s, x),
        "roll": lambda s, t, x: _tilt(s, x, 1),
        "pitch": lambda s, t, x: _tilt(s, x, 0),
        "height": lambda s, t, x: float(x[s.layout["top.pose"]][6]),
    }
    return Model(
        bg,
        t_end=15.0,
        solver=dict(_SOLVERS.get(contact, dict(method="DOP853", rtol=1e-8, atol=1e-10))),
        observables=observables,
        units={"spin": "rad/s", "roll": "rad", "pitch": "rad", "height": "m"},
        groups={"spin": ["spin"], "rocking": ["roll", "pitch"], "height": ["height"]},
        notes=f"{friction} {contact} contact; radii of curvature at rest {radii[0]:.3g} m (long), {radii[1]:.3g} m "
              "(across); the spin reverses (Kry & Pai 2003, Fig. 11)",
    )
