"""A real robot dropped on the ground: example-robot-data's URDF, joints held at its standing pose.

The robot (`robot`: go1, a1, anymal_c, solo12) is read from its URDF (`load_urdf`, inertias
balanced where the file breaks the triangle inequality) and built as one `ArticulatedBody` on a
free base. Every revolute joint carries a `JointSpring` to the SRDF's standing angle and a
`JointDamper` (the file's own damping and friction are replaced: the drop studies the feet, not
the motors). The robot starts at rest in its standing pose, base level, its lowest foot `drop`
above the ground, and falls:

      base  ____
           |    |      joints: spring k to the standing angle + damper c
           /\\  /\\
          o  o  o  o   feet: `feet()`'s sphere of each leg (Go1, A1, ANYmal C); Solo12's
     ~~~~~~~~~~~~~~~~  mesh feet a sphere enclosing the foot mesh (`robot_description`)
     ground z = 0, contact `contact`: compliant, sliding_plane (rigid) or soil

Parameters scale with the robot: the joint stiffness is ``joint_stiffness * m`` and the damping
``joint_damping * m`` (m the robot's mass), so every robot sags by about the same angle.

Every foot's contact is built from one `ContactMaterial` (``friction``, ``restitution``, the
linear ``stiffness``) by `make_contact`, whatever the kind; what the material cannot say is
given per kind once (`foot_options`: the sliding plane's simultaneous-impact gap and slip
speed, the soil's law, friction and tangential stiffness below), so no line here branches on
the kind.

Observables: the base height and the base's vertical velocity.

Feet on rigid ground (``contact="sliding_plane"``; decisions, the issue is silent):

* A landing is a Newton impact with the material's restitution (below the contact's rest speed,
  1 mm/s, plastic), its impulse carrying Coulomb friction along the foot's slip, up to stopping
  it (`PHSystem.apply_impulse`, `compile.impact_friction`).
  Feet within `IMPACT_GAP` (10 um, 10 us at 1 m/s) of the ground when one lands join its
  impact: one simultaneous Newton impact, not a cascade microseconds apart. A foot an impact
  leaves on whose normal force would pull is released (the contacts' forces solved as a
  complementarity problem after every impulse).
* Between impacts a foot sticks (no-slip rows while its friction force lies in the cone) or
  slides under the smoothed Coulomb law with slip speed `SLIP_SPEED`, below which it sticks
  again (1 cm/s; the contact's default 1 mm/s makes a sliding light foot's friction a damper
  so stiff that DOP853 crawls: benchmarks/results/robot_drop_grounds.md).
* Measured (`benchmarks/robot_drop_rigid.py`, 10 cm, 1 s): the four robots land and come to
  rest on their four stuck feet (the feet carry m g to 2e-3 at 1 s, the joints still settling
  at mm/s; ledgers 1e-10). With frictionless impacts ANYmal C's legs at friction 0.8 met
  Painlevé's paradox at the landing (the impact left the four feet on at rest, sliding, with
  forces that would pull); the impacts' friction now stops that slip, and a paradox met by
  sliding feet after an impulse is resolved by a tangential impact where its impulse lies in
  the friction cones (`PHSystem.release_pulling_contacts`). Where no set of contact forces
  exists all the same, the run stops at that impact with the reason.

Feet on soil (``contact="soil"``; decisions, the issue is silent):

* The footprint is the foot's own: a robot's foot is a rubber sphere (Go1, A1: 2 cm radius;
  ANYmal C: 3 cm; Solo12: the sphere fitted to its foot mesh), and on soil it sinks until
  the soil's bearing pressure over the pressed cap carries its load, which is the round-sole
  law of `SoilLaw` with the sole's radius: ``SoilLaw.terrain(terrain, radius=R)``,
  ``F = 2 pi R k z^(n+1) / (n+1)``. ``foot_footprint`` (> 0) replaces R in the law (a
  larger sole or pad fitted to the foot; the contact's geometry stays the URDF's sphere), for
  feet that would sink beyond the law's range on soft terrain.
* The law holds while the sinkage is below the sole's radius (`SoilLaw.max_sinkage`); deeper,
  the run is finished and flagged ``soil_depth`` by its audit. The default 10 cm drop lands
  beyond it on every robot (deepest sinkage over sole radius: Go1 2.56 / 2 cm, A1 2.73 / 2,
  ANYmal C 4.29 / 3; Solo12 1.42 / 1.62 is clean) and is flagged; a 2 cm drop stays within
  (benchmarks/results/robot_drop_soil.md). The default terrain is
  ``sandy_loam`` (Wong's Bekker constants): every robot of `ROBOTS` stands within the range
  (static sinkage under m g / 4 per foot, `standing_sinkage`: Go1 0.79 cm of 2 cm, A1 0.81 of
  2, ANYmal C 1.42 of 3, Solo12 0.33 of 1.62). On ``dry_sand`` Go1's feet sink
  2.2 cm standing, beyond their 2 cm radius (measured: 4.0-4.5 cm after a 2 cm drop, and the
  stiff elastic unloading at that depth made 0.3 s take 254k evaluations).
* The feet's Coulomb coefficient is the terrain's ``tan(phi)`` (`SoilLaw.friction_coefficient`,
  0.55 on sandy loam): the soil shears, not the rubber; ``friction`` is the compliant ground's.
  The tangential (Dahl, Janosi-Hanamoto) stiffness of each foot is the soil's secant
  stiffness ``F / z`` under the foot's share of the robot's weight, ``m g / n_feet``
  (`attach_feet`), not under the foot link's own weight (the `SoilContact` default for two
  free bodies).
* The drop's restitution on soil is the soil's own (its elastic unloading); ``restitution``
  and ``stiffness`` are the compliant ground's.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.contact.materials import ContactMaterial
from porthamiltonian.contact.soil import SoilLaw
from porthamiltonian.errors import RobotFileWarning
from porthamiltonian.geometry import Plane, Sphere

from .registry import Model, Parameter, check_parameter, register_model

__all__ = ["robot_drop", "ROBOTS", "robot_description", "attach_feet", "foot_options", "stand_on_feet", "feet_material",
           "takes_terrain", "standing_sinkage", "SOIL_TERRAIN"]

#: robots the model offers (example-robot-data names with a standing pose)
ROBOTS = ("go1", "a1", "anymal_c", "solo12")
CONTACTS = ("compliant", "sliding_plane", "soil")
#: sliding_plane: feet within this gap of the ground when another foot's impact happens take
#: part in it (one simultaneous Newton impact, `SlidingPlaneContact`'s `impact_gap`) [m]
IMPACT_GAP = 1e-5
#: sliding_plane: the feet's slip speed of the smoothed Coulomb law, below which they stick [m/s] (module docstring)
SLIP_SPEED = 0.01
#: the robots' default terrain (module docstring: every robot of `ROBOTS` stands within the law's range)
SOIL_TERRAIN = "sandy_loam"
_G = 9.81


def _terrains():
    from porthamiltonian.contact.soil import _TERRAINS

    return tuple(sorted(_TERRAINS))


def robot_description(robot, *, joint_stiffness, joint_damping):
    """The robot's description with its 1-dof joints held at the standing pose.

    Returns
    -------
    description : RobotDescription
        Joints with ``stiffness = joint_stiffness * m``, ``rest`` the standing angle,
        ``damping = joint_damping * m``, no friction.
    feet : dict
        ``{link: (H_link_surface, Sphere)}``: the sphere feet, or for Solo12 (mesh feet) the
        sphere about the centre of each foot mesh's minimum-volume ellipsoid with its largest
        semi-axis as radius (the foot is nearly round: semi-axes 16.2, 16.2, 12.3 mm), which
        encloses the mesh.
    """
    from porthamiltonian.robots import example, feet, fit_ellipsoid, load_urdf, standing_pose

    with warnings.catch_warnings():
        # the balanced inertias (Go1's `base`, ANYmal C's cameras) are fixed to the trunk and
        # named in the module docstring; the drop does not repeat the warning
        warnings.simplefilter("ignore", RobotFileWarning)
        raw = load_urdf(example(robot), balance_inertia=True)
    pose = standing_pose(robot)
    mass = raw.mass
    joints = tuple(
        replace(j, stiffness=joint_stiffness * mass, rest=pose[j.name], damping=joint_damping * mass, friction=0.0)
        if j.nv == 1 else j
        for j in raw.joints
    )
    description = ph.robots.RobotDescription(raw.name, raw.links, joints, source=raw.source)
    found = feet(description)
    if not found:  # Solo12: mesh feet; the minimum-volume ellipsoid of each foot's mesh
        import trimesh

        for link in description.links:
            meshes = [s for s in link.collisions if s.kind == "mesh"]
            if link.name.endswith("FOOT") and meshes:
                vertices = trimesh.load(meshes[0].mesh, force="mesh").vertices * np.asarray(meshes[0].size)
                H, ellipsoid = fit_ellipsoid(vertices)
                found[link.name] = (meshes[0].placement @ H, Sphere(max(ellipsoid.axes)))
    return description, found


@register_model(
    "robot-drop",
    "a real robot (example-robot-data URDF: go1, a1, anymal_c, solo12) dropped on the ground, joints held by "
    "springs and dampers at its standing pose, on compliant, rigid (sliding-plane) or soil ground",
    robot=Parameter("go1", "-", "robot: go1, a1, anymal_c or solo12"),
    contact=Parameter("compliant", "-", "ground contact: compliant, sliding_plane or soil", choices=CONTACTS),
    drop=Parameter(0.1, "m", "height of the lowest foot above the ground at release", rule="positive"),
    joint_stiffness=Parameter(40.0, "N m/rad/kg", "joint spring stiffness per kg of robot", rule="positive"),
    joint_damping=Parameter(0.5, "N m s/rad/kg", "joint damping per kg of robot", rule="positive"),
    stiffness=Parameter(5.0e4, "N/m", "compliant: normal stiffness of each foot contact", rule="positive"),
    restitution=Parameter(0.3, "-", "coefficient of restitution of the feet", rule="positive"),
    friction=Parameter(0.8, "-", "Coulomb friction coefficient of the feet (soil: the terrain's tan(phi))",
                       rule="nonnegative"),
    terrain=Parameter(SOIL_TERRAIN, "-", "soil: the measured terrain under the feet (SoilLaw.terrain)",
                      choices=_terrains()),
    foot_footprint=Parameter(0.0, "m", "soil: radius of the round sole the soil law presses (0: each foot's own "
                             "sphere radius)", rule="nonnegative"),
)
def robot_drop(*, robot="go1", contact="compliant", drop=0.1, joint_stiffness=40.0, joint_damping=0.5,
               stiffness=5.0e4, restitution=0.3, friction=0.8, terrain=SOIL_TERRAIN, foot_footprint=0.0):
    """Build the model (module docstring).

    Raises
    ------
    ParameterError
        `robot` not in `ROBOTS`, `contact` not in `CONTACTS`, `restitution` above 1,
        `terrain` not a terrain of `SoilLaw.terrain`.
    """
    if robot not in ROBOTS:
        raise ph.ParameterError(f"model 'robot-drop': `robot` must be one of {ROBOTS}, got {robot!r}")
    check_parameter("robot-drop", "contact", contact)
    # one material for every kind: the feet's friction, restitution and linear stiffness (the
    # soil takes its terrain's friction instead: `foot_options`)
    material = feet_material(drop, friction=friction, restitution=restitution, stiffness=stiffness)
    return assemble(robot, contact, drop, material, joint_stiffness=joint_stiffness, joint_damping=joint_damping,
                    terrain=terrain, foot_footprint=foot_footprint)


def feet_material(drop, *, friction=0.8, restitution=0.3, stiffness=5.0e4):
    """The feet's `ContactMaterial` of a `drop` [m] (`robot_drop`'s parameters and defaults): the
    friction, restitution and linear stiffness given, the impact speed of a fall from `drop`
    (which sets the compliant law's damping for that restitution)."""
    return ContactMaterial(friction=friction, restitution=restitution, normal=NormalLaw("linear", stiffness=stiffness),
                           impact_speed=math.sqrt(2.0 * _G * drop))


def assemble(robot, contact, drop, material, *, joint_stiffness=40.0, joint_damping=0.5, terrain=SOIL_TERRAIN,
             foot_footprint=0.0, **options):
    """The drop's `Model` for validated arguments (`robot_drop`, whose parameters these are),
    with `material` on every foot and `options` passed to every foot's contact factory; also
    serves the benchmarks (`benchmarks/robot_drop_rigid.py`) with options of their own."""
    from porthamiltonian.library import ArticulatedBody, Ground, add_joint_dynamics

    description, foot_surfaces = robot_description(robot, joint_stiffness=joint_stiffness, joint_damping=joint_damping)
    q, _ = stand_on_feet(ArticulatedBody("robot", description, gravity=(0.0, 0.0, -_G)), foot_surfaces, gap=drop)
    robot_body = ArticulatedBody("robot", description, gravity=(0.0, 0.0, -_G), q=q)

    ground = Ground("ground")
    bg = ph.BondGraph("robot_drop")
    bg.add(robot_body, ground)
    add_joint_dynamics(bg, robot_body)
    attach_feet(bg, robot_body, foot_surfaces, ground, contact, material=material, terrain=terrain,
                footprint=foot_footprint or None, **options)
    feet_names = list(foot_surfaces)
    return Model(
        bg,
        t_end=1.0,
        solver=dict(method="DOP853", rtol=1e-8, atol=1e-10),
        observables={"base height": lambda s, t, x: float(x[s.layout["robot.q"]][6]),
                     "base vertical velocity": lambda s, t, x: _base_vz(s, x)},
        units={"base height": "m", "base vertical velocity": "m/s"},
        groups={"base": ["base height"], "velocity": ["base vertical velocity"]},
        notes=f"{robot} ({description.mass:.4g} kg, {len(feet_names)} feet: {', '.join(feet_names)}) dropped "
              f"{drop} m on {contact} ground" + (f" ({terrain})" if takes_terrain(contact) else ""),
    )


def takes_terrain(kind):
    """Whether contact `kind`'s factory takes a `terrain` (the notes name it)."""
    from porthamiltonian.library import CONTACT_KINDS

    return "terrain" in CONTACT_KINDS[kind].options()


def standing_sinkage(robot, terrain=SOIL_TERRAIN, *, footprint=None):
    """Each foot's static sinkage [m] in virgin `terrain` when the robot stands on its feet.

    The weight m g (m the URDF's total mass) shared equally by the feet, each pressing the
    round-sole law of its sphere (`attach_feet`): ``SoilLaw.static_sinkage(m g / n_feet)``.

    Parameters
    ----------
    robot : str
        One of `ROBOTS`.
    terrain : str
        A terrain of `SoilLaw.terrain`.
    footprint : float, optional
        The sole radius the law presses [m] (default each foot's sphere radius).

    Returns
    -------
    dict
        ``{link: (sinkage [m], sole radius [m])}``: the law holds while the sinkage is below
        the radius (`SoilLaw.max_sinkage`).
    """
    description, feet = robot_description(robot, joint_stiffness=1.0, joint_damping=1.0)
    share = description.mass * _G / len(feet)
    out = {}
    for link, (_, sphere) in feet.items():
        law = _foot_soil(terrain, sphere, footprint)
        out[link] = (float(law.static_sinkage(share)), float(law.radius))
    return out


def _foot_soil(terrain, sphere, footprint):
    """The soil law under a sphere foot: the round-sole law of the sphere's radius, or of
    `footprint` [m] when given."""
    return SoilLaw.terrain(terrain, radius=float(sphere.radius if footprint is None else footprint))


def attach_feet(bg, robot_body, foot_surfaces, ground, kind, *, material, terrain=SOIL_TERRAIN, footprint=None,
                **options):
    """Put a robot's feet on the ground plane z = 0 with one contact kind (one contact per foot).

    Parameters
    ----------
    bg : BondGraph
        The graph that holds `robot_body` and `ground` (already added); the contacts are added
        to it and bonded from the feet's link ports (port "a") and the ground's frame (port "b").
    robot_body : ArticulatedBody
        The robot.
    foot_surfaces : dict
        ``{link: (H_link_surface (4, 4), Sphere)}`` as `robot_description` (or
        `porthamiltonian.robots.feet`) returns: each sphere is placed at the translation of
        its ``H_link_surface`` [m] in the link frame (a sphere's orientation does not matter).
    ground : Ground
        The ground; its frame is the plane z = 0, normal +z (`Plane()`).
    kind : {"compliant", "sliding_plane", "soil"}
        The contact kind (`porthamiltonian.library.contact`).
    material : ContactMaterial
        Friction, restitution and normal law of every foot; the soil takes only its friction
        and replaces the normal law by the terrain's (`SoilContact`).
    terrain : str
        soil only: the measured terrain of `SoilLaw.terrain` under every foot (its law is
        built for each foot's sphere radius, or `footprint`). Ignored by the other kinds.
    footprint : float, optional
        soil only: the radius [m] of the round sole the soil law presses (default each foot's
        sphere radius; the contact geometry stays the sphere). Each soil foot's tangential
        stiffness is the law's secant stiffness ``F / z`` under ``m g / n_feet`` (m the
        robot's mass: the foot's share of the standing weight) unless `options` give
        ``tangential_stiffness``.
    **options
        Passed to every contact factory (the kind's own parameters, e.g. ``eps`` of the
        sliding plane), replacing the model's option of that name (`foot_options`: what the
        material cannot express, given for every kind, so that this function builds any kind
        without a branch on it).

    Returns
    -------
    list of str
        The contact components' names, ``"<link>-contact"``, in the order of `foot_surfaces`.
    """
    from porthamiltonian.library import make_contact

    share = robot_body.description.mass * _G / max(len(foot_surfaces), 1)
    names = []
    for link, (H, surface) in foot_surfaces.items():
        name = f"{link}-contact"
        bg.add(make_contact(kind, name, robot_body.link(link), Sphere(surface.radius, center=H[:3, 3]), ground, Plane(),
                            material=material, kind_options=foot_options(surface, share, terrain, footprint, options),
                            **options))
        bg.connect(robot_body.frame(link).port, (name, "a"))
        bg.connect(ground.frame().port, (name, "b"))
        names.append(name)
    return names


def foot_options(sphere, share, terrain=SOIL_TERRAIN, footprint=None, given=()):
    """What a foot's `ContactMaterial` cannot express, by kind (`make_contact`'s `kind_options`).

    * sliding_plane: feet within `IMPACT_GAP` of the ground take part in another foot's
      impact (one simultaneous Newton impact);
    * soil: the round-sole law of `terrain` under the foot (`_foot_soil`: the sphere's
      radius, or `footprint`), the terrain's own Coulomb coefficient tan(phi) (``friction``
      None: the soil shears, not the rubber), and the tangential stiffness ``F / z`` of the
      law under the foot's `share` [N] of the standing weight;
    * compliant: nothing beyond the material.

    Options in `given` (names: those passed to every foot's factory) are left out, so that
    a caller's option replaces the model's.

    Parameters
    ----------
    sphere : Sphere
        The foot.
    share : float [N]
        The foot's share of the robot's weight, m g / n_feet.
    terrain : str
        A terrain of `SoilLaw.terrain`.
    footprint : float, optional
        The sole radius [m] the soil law presses (default the sphere's radius).
    given : iterable of str
        Options given besides (left out).

    Returns
    -------
    dict
        ``{kind: {option: value}}``.
    """
    law = _foot_soil(terrain, sphere, footprint)
    out = {"sliding_plane": dict(impact_gap=IMPACT_GAP, eps=SLIP_SPEED),
           "soil": dict(soil=law, terrain=terrain, friction=None,
                        tangential_stiffness=share / law.static_sinkage(share))}
    given = set(given)
    return {kind: {k: v for k, v in options.items() if k not in given} for kind, options in out.items()}


def stand_on_feet(robot_body, foot_surfaces, *, joints=None, gap=0.0):
    """Joint positions of a floating robot standing level on its feet above the ground z = 0.

    The base is level (identity rotation) over the origin, the 1-dof joints at `joints` (default:
    each joint's ``rest``, the standing angle in `robot_description`), and the base height is
    the one that puts the lowest foot sphere's bottom at z = `gap`. Unlike
    `ArticulatedBody.standing_state`, the feet are the given spheres (e.g. Solo12's fitted to
    its foot meshes), not only the description's collision spheres. At a left-right and
    front-back symmetric pose (the standing poses of `ROBOTS`) every foot touches: see the
    returned heights.

    Parameters
    ----------
    robot_body : ArticulatedBody
        A robot on a free root joint.
    foot_surfaces : dict
        ``{link: (H_link_surface (4, 4), Sphere)}`` as `robot_description` returns.
    joints : dict, optional
        Joint name -> position [rad or m] for the joints to set other than at their ``rest``.
    gap : float
        Height of the lowest foot's bottom above the ground [m] (0: touching).

    Returns
    -------
    q : ndarray, shape (n_q,)
        The robot's joint positions (base pose first).
    heights : dict
        ``{link: z}``: each foot sphere's bottom height above the ground [m] (their minimum is
        `gap`).

    Raises
    ------
    ModelError
        The root joint is not free, or a foot link is not a link of the robot.
    """
    root = robot_body.joints[0]
    if root.kind != "free":
        raise ph.ModelError(f"stand_on_feet: the root joint {root.name!r} of {robot_body.label} is {root.kind}, not free")
    q = robot_body.q0.copy()
    q[:7] = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for start, joint in _offsets(robot_body.description):
        if joint.nv == 1:
            q[start] = joint.rest
    q = robot_body.state(q=q, joints=joints)[: robot_body.nq]
    poses = dict(zip(robot_body.link_names, robot_body.link_poses(q)))
    missing = sorted(set(foot_surfaces) - set(poses))
    if missing:
        raise ph.ModelError(f"stand_on_feet: {robot_body.label} has no links {missing}")
    bottoms = {link: _bottom(poses[link] @ H, surface) for link, (H, surface) in foot_surfaces.items()}
    q[6] = gap - min(bottoms.values())
    return q, {link: z + q[6] for link, z in bottoms.items()}


def _offsets(description):
    start = 0
    for joint in description.joints:
        yield start, joint
        start += joint.nq


def _bottom(H_W_surface, sphere):
    """The lowest world z of a sphere placed at H_W_surface [m]."""
    return float(H_W_surface[2, 3] - sphere.radius)


def _base_vz(system, x):
    """The base's world vertical velocity [m/s] (the root twist is in the base frame)."""
    from porthamiltonian.lie import quaternion

    q, v = x[system.layout["robot.q"]], x[system.layout["robot.v"]]
    return float(quaternion.to_matrix(q[:4])[2] @ v[3:6])
