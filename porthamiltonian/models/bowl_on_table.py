"""A bowl thrown onto a table with rounded edges, both patch networks (Kry & Pai, *Continuous
contact simulation for smooth surfaces*, 2003
sec. 4.2, Figs. 6-7 and Table II).

The paper's scene: a bowl about 13 cm across, 11 cm high, a little under 1 kg, thrown onto a
table about 40 cm square with rounded edges, integrated by fixed-step RK4 at 1, 16 and 64 ms
in reduced contact coordinates; in each run the bowl "collides with the table several times
before establishing a continuous contact", then rolls and slides, its contact moving from
patch to patch, "as the bowl gradually comes to rest on the table".

Geometry (`porthamiltonian.models.bowl_shapes`): the table's top and rounded edges, and the
bowl's outside, lip and the upper part of its inside, as bicubic B-splines split at their
knots into patch networks (`PatchNetwork.from_bspline`: C2, neighbours with equal parameter
speeds; 100 patches for the bowl, 64 for the table, against the paper's 14 and 60 Loop patches).
The bowl's spline is a fit within 2.2 mm of its profile of circular arcs (1 cm wall, a bottom
cap of radius of curvature 12 cm out to `foot`, which it rests on, a 3 cm fillet, the wall and
a round lip); its mass properties are those of the uniform solid of revolution between the
exact outer and inner profiles (2.54 g/cm^3: ceramic). The body frame is at the centre of mass; the bowl starts `drop`
above the table (its axis tilted by `tilt` about the world x axis), thrown with `velocity`
and `spin` (world frame).

Contact: the reduced contact (the paper's method) with the paper's friction: dynamic Coulomb
while sliding, no slip below `slip_speed` (5 mm/s), left when the friction force leaves the
cone; Newton impacts with `restitution` and Coulomb friction in the impulse (stick or
slide), continuous contact established by impacts slower than `rest_speed`. The rigid contact keeps a rocking or rolling bowl going for ever (no slip,
no loss); a real bowl comes to rest because its contact patch resists rolling and spinning:
`rolling_damping` and `spin_damping` (viscous moments, booked as dissipated) model that. The
scene has no `contact` parameter: the sliding-plane and compliant contacts have no stick and
no rolling resistance, and the thrown bowl rolls on off the table (measured: it leaves the
table at 0.61 s with the sliding plane); `examples/contact_swap.py` compares the kinds on
the rocking ellipsoid.

The paper gives no friction or restitution values; the defaults (mu 0.3, e 0.4) are
ceramic-on-wood-like.
"""

from __future__ import annotations

import math

import numpy as np

import porthamiltonian as ph
from porthamiltonian.geometry import PatchNetwork
from porthamiltonian.library import ContactMaterial, Gravity, Ground, RigidBody, make_contact
from porthamiltonian.lie import quaternion, se3

from .bowl_shapes import bowl_mass_properties, bowl_surface, table_surface
from .registry import Model, Parameter, register_model

__all__ = ["bowl_on_table"]


def _centre(system, x):
    return x[system.layout["bowl.pose"]][4:7]


def _axis_tilt(system, x):
    """Angle of the bowl's axis from the vertical [rad]."""
    R = quaternion.to_matrix(x[system.layout["bowl.pose"]][:4])
    return float(math.acos(max(-1.0, min(1.0, R[2, 2]))))


def _kinetic(system, x):
    P = x[system.layout["bowl.P"]]
    return float(0.5 * P @ np.linalg.solve(system.elements["bowl"].M, P))


@register_model(
    "bowl-on-table",
    "a bowl thrown onto a table with rounded edges, both patch networks (reduced contact; Kry & Pai 2003, Fig. 7)",
    mass=Parameter(0.95, "kg", "mass of the bowl", rule="positive"),
    diameter=Parameter(0.13, "m", "outside diameter of the bowl", rule="positive"),
    height=Parameter(0.11, "m", "height of the bowl", rule="positive"),
    foot=Parameter(0.04, "m", "radius of the bowl's bottom cap (radius of curvature 12 cm): it rests on it",
                   rule="positive"),
    table=Parameter(0.40, "m", "side of the table's flat top", rule="positive"),
    edge_radius=Parameter(0.015, "m", "radius of the table's rounded edges", rule="positive"),
    drop=Parameter(0.04, "m", "height of the bowl's lowest point above the table at the start", rule="positive"),
    tilt=Parameter(0.1, "rad", "initial tilt of the bowl's axis about the world x axis"),
    velocity=Parameter((0.6, 0.2, -0.2), "m/s", "initial velocity of the centre of mass"),
    spin=Parameter((0.3, -0.5, 6.0), "rad/s", "initial angular velocity (world frame)"),
    mu=Parameter(0.3, "-", "Coulomb friction coefficient", rule="positive"),
    restitution=Parameter(0.4, "-", "Newton's coefficient of restitution at impacts"),
    rest_speed=Parameter(0.05, "m/s", "impacts slower than this establish continuous contact", rule="positive"),
    slip_speed=Parameter(5e-3, "m/s", "slip speed below which the contact sticks (Kry & Pai 2003: 5 mm/s)", rule="positive"),
    rolling_damping=Parameter(0.02, "N m s/rad", "viscous resistance to rolling in continuous contact"),
    spin_damping=Parameter(0.01, "N m s/rad", "viscous resistance to spinning in continuous contact"),
    step=Parameter(0.016, "s", "RK4 step (the paper's maximum step: 1, 16 or 64 ms)", rule="positive"),
)
def bowl_on_table(*, mass=0.95, diameter=0.13, height=0.11, foot=0.04, table=0.40, edge_radius=0.015, drop=0.04, tilt=0.1,
                  velocity=(0.6, 0.2, -0.2), spin=(0.3, -0.5, 6.0), mu=0.3, restitution=0.4, rest_speed=0.05,
                  slip_speed=5e-3, rolling_damping=0.02, spin_damping=0.01, step=0.016):
    """Build the model (module docstring).

    Raises
    ------
    ParameterError
        Bad dimensions (from `porthamiltonian.models.bowl_shapes`) or contact parameters (from
        the contact factory).
    """
    bowl_bs = bowl_surface(diameter=diameter, height=height, foot_radius=foot)
    com, inertia = bowl_mass_properties(mass=mass, diameter=diameter, height=height, foot_radius=foot)
    S_bowl = PatchNetwork.from_bspline(bowl_bs)
    S_table = PatchNetwork.from_bspline(table_surface(size=table, edge_radius=edge_radius))
    R0 = se3.exp(np.r_[tilt, 0.0, 0.0, 0.0, 0.0, 0.0])[:3, :3]
    lowest = min(float((R0 @ (p - com))[2]) for p in bowl_bs.sample(25, 25).points.reshape(-1, 3))
    centre = np.array((0.0, 0.0, drop - lowest))
    w, v = np.asarray(spin, dtype=float), np.asarray(velocity, dtype=float)
    bowl = RigidBody("bowl", mass, inertia, pose=se3.make(R0, centre), twist=np.r_[R0.T @ w, R0.T @ v])
    ground = Ground("table")
    c = make_contact("reduced", "contact", bowl, S_bowl, ground, S_table,
                     pose_a=se3.make(np.eye(3), -np.asarray(com, dtype=float)),    # the surface in the body (CoM) frame
                     material=ContactMaterial(friction=mu, restitution=restitution),   # Coulomb (mu > 0), Newton
                     rest_speed=rest_speed, slip_speed=slip_speed, rolling_damping=rolling_damping,
                     spin_damping=spin_damping)
    bg = ph.BondGraph("bowl_on_table")
    bg.add(bowl, ground, Gravity("gravity", bowl), c)
    bg.connect(bowl.frame().port, "gravity")
    bg.connect(bowl.frame().port, ("contact", "a"))
    bg.connect(ground.frame().port, ("contact", "b"))
    observables = {
        "x": lambda s, t, x: float(_centre(s, x)[0]),
        "y": lambda s, t, x: float(_centre(s, x)[1]),
        "z": lambda s, t, x: float(_centre(s, x)[2]),
        "tilt": lambda s, t, x: _axis_tilt(s, x),
        "kinetic": lambda s, t, x: _kinetic(s, x),
    }
    return Model(
        bg,
        t_end=3.0,
        solver=dict(method="RK4", step=step),
        observables=observables,
        units={"x": "m", "y": "m", "z": "m", "tilt": "rad", "kinetic": "J"},
        groups={"centre of mass": ["x", "y", "z"], "tilt": ["tilt"], "kinetic energy": ["kinetic"]},
        notes=f"reduced contact, {S_bowl!r} on {S_table!r}; the paper's Fig. 7 is examples/bowl_fig7.py",
    )
