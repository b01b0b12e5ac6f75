"""A real quadruped trotting: Go1 (example-robot-data URDF) with PD joint control on its four sphere feet.

The robot is read from its URDF (`robot_drop.robot_description`'s reader: inertias balanced
where the file breaks the triangle inequality) and built as one `ArticulatedBody` on a free
base. The file's joint damping and friction are replaced by zero: every joint torque comes
from its controller, so the ledger shows where the controllers' energy goes. Each of the 12
revolute joints is driven by a `pd_controller` (a virtual spring ``kp`` and damper ``kd``
to a moving reference joint, control by interconnection, `library.controllers`)::

      base  ____           joint i:  tau_i = kp (theta_ref,i(t) - theta_i) + kd (w_ref,i(t) - w_i)
           |    |
           /\\  /\\          theta_ref: `foot_reference` = the foot path below through the
          o  o  o  o        leg's analytic inverse kinematics (`ThreeJointLeg`)
     ~~~~~~~~~~~~~~~~  ground z = 0, contact `contact`

The trot: the diagonal pairs (FL, RR) and (FR, RL) alternate, each in stance for half of the
stride `period` T. In each leg's hip frame (at the ab/ad axis, base-aligned: x forward, y
left, z up) the foot follows, with phase s = t/T (+ 1/2 for FR and RL) mod 1::

    stance s < 1/2:   x = L/2 - 2 L s,                       z = -height
    swing  s >= 1/2:  u = 2 s - 1,
                      x = -L/2 + L (u - sin(2 pi u) / (2 pi)), z = -height + step_height (1 - cos(2 pi u)) / 2

and y = the leg's lateral offset d (foot under the thigh). L = speed T / 2 is the stride
length of one stance: a foot that does not slip carries the base forward at `speed`. The
joint references are the periodic cubic splines through 64 samples of this path's IK, so
their speeds are exact derivatives of their angles (the PD spring's state is the tracking
error). The robot starts at rest on the reference's pose at t = 0, base level, the feet
touching the ground (lowest foot sphere at z = 0). On soil it starts standing in the soil:
every foot sunk to the static sinkage of its share of the weight, ``m g / 4`` (0.79 cm on
sandy loam), the soil loaded to that depth (`SoilSpring.initialize` with the soil's memory
given), so the first stance loads the soil as the later ones do rather than after a fall.

Decisions (the issue is silent):

* The defaults (``speed`` 0.5 m/s, ``period`` 0.3 s, ``step_height`` 0.08 m, ``height``
  0.25 m, ``kp`` 150 N m/rad, ``kd`` 3 N m s/rad) are a calm Go1 trot, chosen by trial
  runs: with kp 60 the legs sag 5 cm under the robot's weight, the swing feet scuff and the
  robot advanced 5 cm in 1 s; with these it advances 1.80 m in 5 s (drifting 7.6 cm to
  the side), the base never below 0.244 m, and settles on a periodic gait after two strides
  (benchmarks/results/quadruped_trot.md; examples/quadruped_trot_grounds.py). The robot's
  achieved speed is below the reference `speed` because the feet slip and the PD lags the
  reference (no feedforward torque, no balance control).
* Solver: RK23 at rtol 1e-4, atol 1e-6 (`Model.solver`). Measured over 1 s against DOP853 at
  rtol 1e-10 (benchmarks/results/quadruped_trot.md, "The steps"): the base's position within
  1.6e-5 m, the joint angles within 3.5e-5 rad, the ledger closed to 7e-6 of the energy
  throughput, in 5 100 evaluations, where RK45 at rtol 1e-6 (the default before) takes
  13 500 for 3.8e-6 m and RK4 at MuJoCo's step (1 ms) 4 200 for 8.8e-4 m; over 5 s the
  base's error grows to 3.8e-4 m (2e-4 of the distance; RK45 rtol 1e-6: 5.8e-6 m). The steps are set
  by accuracy (the feet's touchdowns, the friction cones' kinks), not by stability: the
  fastest modes are real (the legs' PD damping against the links' inertia and the feet's
  tangential compliance, -770 1/s at mid-stance), whose bound (~3 ms) is five times the
  steps taken. About 1 s of CPU per simulated second on the compiled path (loaded machine).
  The per-stride ledger closes to 4e-6 .. 1e-5 of a stride's energy at this default (2e-7 at
  RK45 rtol 1e-6, atol 1e-8: pass those to `simulate` for a study that needs it tighter).
* Joint limits are not modelled (the reference stays well inside Go1's ranges: checked at
  build time, `ParameterError` if a reference angle leaves the URDF's limits).
* No torque limit on the PD (Go1's 23.7 / 35.55 N m are not reached at the defaults).

Contact kinds (every foot from one `ContactMaterial` through `make_contact`, what it cannot
say given per kind by `robot_drop.foot_options`): ``compliant`` (linear spring `stiffness`
per foot, restitution, Coulomb friction). ``soil``: `SoilContact` feet on ``terrain`` (default ``sandy_loam``), built as
robot-drop builds them (`robot_drop.attach_feet`, the decisions in `robot_drop`'s docstring):
the round-sole law of each 2 cm foot sphere (or of ``foot_footprint``), the terrain's
``tan(phi)`` as Coulomb coefficient (0.55 on sandy loam; ``friction`` is the compliant
ground's), the feet's plastic work booked under each contact's element ``plastic``. Measured on sandy
loam (benchmarks/results/quadruped_trot.md): the trot settles on a periodic gait within five
strides (stride-to-stride change 1e-5 after ten), each stance pressing fresh soil to 1.6 cm
(front feet) and 1.84 cm (rear) of the 2 cm sole's range; it advances 1.80 m in 5 s in 55.7k
right-hand-side evaluations (65.6k on compliant ground), the base never below 0.2325 m. The run is flagged ``soil_depth``: in the first stride, as
the base sags 3 cm onto the first stance pair (the PD starts with zero tracking error), the
rear swing foot lands early and sinks 2.13 cm, 6 % beyond the law's range; on ``dry_sand``
every stance sinks past it. Its cost of transport is 0.80 per stride (0.89-0.91 on compliant
ground): the soil takes 0.36 of it (plastic work, slip), the compliant ground's contacts
0.15, but the PD dampers take 0.33 less on the soft ground (`studies.transport.compare_transport`).
``sliding_plane``: rigid feet, built as robot-drop builds them (`robot_drop.foot_options`: the
simultaneous-impact gap, the 1 cm/s slip speed below which a foot sticks), landing in Newton
impacts with Coulomb friction at ``restitution`` (each landing bounces and settles below the
rest speed within ~1 ms). Measured over 5 s (examples/quadruped_trot_grounds.py,
benchmarks/results/quadruped_trot.md): 1.68 m, the base never below 0.2459 m, the ledger
closed to 5.5e-7, 40.8k evaluations, about 50 events per stride (landings with their
bounces, sticks, slips, lift-offs; every foot lands once per stride, 19-35 ms before its
reference stance starts). Its periodic orbit is stable: largest Floquet multiplier modulus
0.772 (a complex pair; compliant ground: 0.801), a perturbation along it shrinking by 0.774 per
stride in a direct run (benchmarks/quadruped_trot_orbit.py --contact sliding_plane). Its cost of
transport is 1.20-1.21 per stride, above compliant ground (0.89) and soil (0.80): the
impacts take 0.12 of it, and the legs' PD dampers 1.10 (0.46 on soil) absorbing each
landing's jolt. ``terrain`` is checked against the known terrains whatever the contact.

Motors (``motors=true``): every joint is driven by a Go1-like DC motor chain
(`library.motors.motor_drive` with `go1_motor`: voltage source limited to the 21.6 V bus
-> armature R, L -> gyrator K -> gearbox loss -> gearbox TF 9.1, 13.65 at the knee -> joint,
the rotor's inertia as the joint's armature), and the PD law acts through the motor's voltage (`MotorPD`: the torque
demand ``kp e + kd de/dt`` turned into the voltage that makes the motor deliver it,
armature drop and back emf compensated; the reasons are in its docstring): the run's
``inputs`` (`Model.inputs`). The URDF's joint damping (0.01 N m s/rad) is kept as
`JointDamper` elements (its Coulomb friction, 0.2 N m, is not: regularized, it would make
the run stiff). The ledger then splits the electrical input (VoltageSource) into Joule heat
(R:armature), gearbox loss (R:gear_loss), joint damping, the inductors' magnetic energy,
the robot's energy (the rotors' kinetic energy included) and the contacts' losses. The rotor's inertia about its
axis (the URDF's *_rotor links, 1.118e-4 kg m^2) is the joint's armature, reflected through
the gearbox (N^2 J: 9.3e-3 kg m^2 at the hips, 2.1e-2 at the knees), so its kinetic energy
is booked with the robot's (a rotor storage in the motor would be rigidly tied to the
joint: a constraint per joint, which the compiled right-hand side does not cover); the
rotor links' mass and non-spinning inertia stay in the URDF's parent links, whose fixed
rotor inertia about the spin axis (1.1e-4 kg m^2, 1 % of the armature) is thereby counted
twice: left as is.

Observables: the base height [m], the base's forward position x [m] and its forward
velocity [m/s] (world frame).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from functools import partial

import numpy as np

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.contact.materials import ContactMaterial
from porthamiltonian.contact.soil import SoilLaw
from porthamiltonian.errors import RobotFileWarning

from .registry import Model, Parameter, check_parameter, register_model
from .robot_drop import SOIL_TERRAIN, takes_terrain, attach_feet

__all__ = ["quadruped_trot", "LEGS", "trot_references", "trot_foot_path", "TRUNK_HALF_HEIGHT"]

#: legs in the order (ab/ad, hip, knee) joints are named in Go1's URDF, and their trot phase [stride]
LEGS = {"FL": 0.0, "RR": 0.0, "FR": 0.5, "RL": 0.5}
#: half the height of Go1's trunk collision box [m] (URDF: box 0.3762 x 0.0935 x 0.114): the
#: base touches the ground when its height drops below this
TRUNK_HALF_HEIGHT = 0.057
CONTACTS = ("compliant", "sliding_plane", "soil")
_G = 9.81
_SAMPLES = 64


def trot_foot_path(t, *, period, stride, step_height, height, offset, phase):
    """The foot position in the hip frame [m], shape (3,), at time t [s] (module docs)."""
    s = (t / period + phase) % 1.0
    if s < 0.5:
        return np.array([stride / 2 - 2 * stride * s, offset, -height])
    u = 2 * s - 1
    x = -stride / 2 + stride * (u - math.sin(2 * math.pi * u) / (2 * math.pi))
    return np.array([x, offset, -height + step_height * (1 - math.cos(2 * math.pi * u)) / 2])


def _leg_geometry(description, leg):
    """ThreeJointLeg of `leg` from the URDF's joint placements (thigh offset, thigh and calf lengths)."""
    from porthamiltonian.library.leg_kinematics import ThreeJointLeg

    P = {j.name: j.placement[:3, 3] for j in description.joints}
    return ThreeJointLeg(thigh=float(-P[f"{leg}_calf_joint"][2]), calf=float(-P[f"{leg}_foot_fixed"][2]),
                         offset=float(P[f"{leg}_thigh_joint"][1]), knee="backward")


def trot_references(description, *, speed, period, step_height, height):
    """The trot's joint references, ``{leg: PeriodicReference}`` (3 joints: ab/ad, hip, knee).

    Raises
    ------
    ParameterError
        A reference angle outside the joint's URDF limits (named).
    GeometryError
        A foot position out of the leg's reach.
    """
    from porthamiltonian.library.leg_kinematics import foot_reference

    joints = {j.name: j for j in description.joints}
    refs = {}
    for leg, phase in LEGS.items():
        geometry = _leg_geometry(description, leg)
        path = lambda t, g=geometry, p=phase: trot_foot_path(  # noqa: E731
            t, period=period, stride=speed * period / 2, step_height=step_height, height=height,
            offset=g.offset, phase=p)
        ref = foot_reference(geometry, path, period, samples=_SAMPLES)
        fine = ref.position(np.linspace(0.0, period, 4 * _SAMPLES))
        for k, part in enumerate(("hip", "thigh", "calf")):
            j = joints[f"{leg}_{part}_joint"]
            lo, hi = fine[:, k].min(), fine[:, k].max()
            if lo < j.lower or hi > j.upper:
                raise ph.ParameterError(
                    f"model 'quadruped-trot': the reference of joint {j.name!r} spans [{lo:.4g}, {hi:.4g}] rad, "
                    f"outside its limits [{j.lower}, {j.upper}] rad; lower `speed`/`step_height` or change `height`")
        refs[leg] = ref
    return refs


def _description(motors=False):
    from porthamiltonian.robots import example, load_urdf

    with warnings.catch_warnings():
        # Go1's `base` inertia is balanced (3e-6 kg m^2, fixed to the trunk); not repeated here
        warnings.simplefilter("ignore", RobotFileWarning)
        raw = load_urdf(example("go1"), balance_inertia=True)
    joints = tuple(replace(j, stiffness=0.0, damping=j.damping if motors else 0.0, friction=0.0,
                           armature=_motor(j.name).reflected_inertia if motors else 0.0) if j.nv == 1
                   else j for j in raw.joints)
    return ph.robots.RobotDescription(raw.name, raw.links, joints, source=raw.source)


def _terrains():
    from porthamiltonian.contact.soil import _TERRAINS

    return tuple(sorted(_TERRAINS))


@register_model(
    "quadruped-trot",
    "Go1 (example-robot-data URDF) trotting forward under PD joint control tracking a trot reference "
    "(diagonal pairs, foot path through the legs' analytic IK), on compliant, rigid or soft ground",
    contact=Parameter("compliant", "-", "ground contact: compliant, sliding_plane (rigid) or soil", choices=CONTACTS),
    terrain=Parameter(SOIL_TERRAIN, "-", "soil: terrain of SoilLaw.terrain", choices=_terrains()),
    foot_footprint=Parameter(0.0, "m", "soil: radius of the round sole the soil law presses (0: the foot's own "
                             "sphere radius)", rule="nonnegative"),
    motors=Parameter(False, "-", "drive every joint through a Go1-like DC motor on a 21.6 V bus, the PD law as its "
                                 "voltage (library.controllers.MotorPD)"),
    speed=Parameter(0.5, "m/s", "reference forward speed of the feet in stance", rule="positive"),
    period=Parameter(0.3, "s", "stride period (each diagonal pair in stance for half of it)", rule="positive"),
    step_height=Parameter(0.08, "m", "foot lift at mid-swing", rule="positive"),
    height=Parameter(0.25, "m", "foot depth below the ab/ad axis in stance", rule="positive"),
    kp=Parameter(150.0, "N m/rad", "PD stiffness of every joint", rule="positive"),
    kd=Parameter(3.0, "N m s/rad", "PD damping of every joint", rule="nonnegative"),
    stiffness=Parameter(5.0e4, "N/m", "compliant: normal stiffness of each foot contact", rule="positive"),
    restitution=Parameter(0.3, "-", "coefficient of restitution of the feet", rule="positive"),
    friction=Parameter(0.8, "-", "compliant and sliding_plane: Coulomb friction coefficient of the feet (soil: the "
                                "terrain's tan(phi))",
                       rule="nonnegative"),
)
def quadruped_trot(*, contact="compliant", terrain=SOIL_TERRAIN, motors=False, speed=0.5, period=0.3, step_height=0.08,
                   height=0.25, kp=150.0, kd=3.0, stiffness=5.0e4, restitution=0.3, friction=0.8, foot_footprint=0.0):
    """Build the model (module docstring).

    Raises
    ------
    ParameterError
        `contact` not offered, `restitution` above 1, a reference out of the joint limits.
    """
    from porthamiltonian.library import ArticulatedBody, Ground
    from porthamiltonian.library.controllers import pd_controller
    from porthamiltonian.robots import feet as find_feet

    for name, value in (("contact", contact), ("terrain", terrain), ("motors", motors)):
        check_parameter("quadruped-trot", name, value)
    if restitution > 1:
        raise ph.ParameterError(f"model 'quadruped-trot': `restitution` must be in (0, 1], got {restitution!r}")
    description = _description(motors=bool(motors))
    refs = trot_references(description, speed=speed, period=period, step_height=step_height, height=height)
    feet = find_feet(description)

    body = ArticulatedBody("robot", description, gravity=(0.0, 0.0, -_G))
    q = body.q0.copy()
    q[:7] = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    starts = dict(_offsets(description))
    for leg, ref in refs.items():
        for k, part in enumerate(("hip", "thigh", "calf")):
            q[starts[f"{leg}_{part}_joint"]] = ref.position(0.0, k)
    poses = dict(zip(body.link_names, body.link_poses(q)))
    lowest = min(float((poses[link] @ H)[2, 3]) - s.radius for link, (H, s) in feet.items())
    q[6] = -lowest
    robot = ArticulatedBody("robot", description, gravity=(0.0, 0.0, -_G), q=q)

    # one material for every kind: the feet's friction, restitution and linear stiffness
    # (the soil takes its terrain's friction and law instead: `robot_drop.foot_options`)
    material = ContactMaterial(friction=friction, restitution=restitution, normal=NormalLaw("linear", stiffness=stiffness),
                               impact_speed=max(speed, 0.1))
    ground = Ground("ground")
    bg = ph.BondGraph("quadruped_trot")
    bg.add(robot, ground)
    servos = _add_motor_drives(bg, robot, refs, kp, kd) if motors else None
    for leg, ref in refs.items() if not motors else ():
        for k, part in enumerate(("hip", "thigh", "calf")):
            joint = f"{leg}_{part}_joint"
            pd = pd_controller(f"pd-{joint}", kp, kd, reference=ref, joint=k, angle0=ref.position(0.0, k))
            bg.add(pd)
            bg.connect((pd, "axis"), (robot, robot.joint_port(joint)))
    names = attach_feet(bg, robot, feet, ground, contact, material=material, terrain=terrain,
                        footprint=foot_footprint or None)
    initial = _standing_in_imprints(bg, names, q, poses, feet, description.mass)
    return Model(
        bg,
        initial=initial,
        t_end=5.0,
        solver=dict(method="RK23", rtol=1e-4, atol=1e-6),   # module docstring: "Solver"
        observables={"base height": lambda s, t, x: float(x[s.layout["robot.q"]][6]),
                     "base x": lambda s, t, x: float(x[s.layout["robot.q"]][4]),
                     "base forward velocity": lambda s, t, x: _base_velocity(s, x)[0]},
        units={"base height": "m", "base x": "m", "base forward velocity": "m/s"},
        groups={"base": ["base height", "base x"], "velocity": ["base forward velocity"]},
        notes=f"Go1 ({description.mass:.4g} kg) trotting at a reference {speed} m/s, stride {period} s, step "
              f"{step_height} m, PD kp {kp} N m/rad kd {kd} N m s/rad{' through DC motors' if motors else ''}, "
              f"on {contact} ground" + (f" ({terrain})" if takes_terrain(contact) else ""),
        inputs=None if servos is None else partial(_motor_pd, servos=servos),
    )


def _standing_in_imprints(bg, names, q, poses, feet, mass):
    """The start in a ground with memory (module docstring): the feet sunk to the static
    sinkage of their share of the weight, the ground loaded to it.

    A foot contact with an element that carries a soil law (its ``soil``, a `SoilLaw`: the
    soil kind's spring) remembers how deep it was pressed; there the robot starts standing in
    its imprints. The contacts say it, not the kind's name: on a ground without memory
    (compliant) the feet start touching (no initial state).

    Parameters
    ----------
    bg : BondGraph
        The model's graph, with the foot contacts `names` (`attach_feet`).
    q : ndarray
        The robot's joint positions with the lowest foot touching (base height ``q[6]``).
    poses : dict
        ``{link: H_W_link}`` at `q`.
    feet : dict
        ``{link: (H_link_surface, Sphere)}``, in the order of `names`.
    mass : float [kg]
        The robot's mass.

    Returns
    -------
    dict
        The `Model.initial` entries: none without memory; else ``"robot.q"``, `q` with the
        base lowered by the sinkage z_s, and for every foot
        ``"<foot>-contact/<element>.soil": (z_s, 1, x, y, 0)`` (the soil on its loading curve,
        mode 1: the foot's force is Bekker's ``K z_s^N``; the footprint under the foot's
        centre).
    """
    memories = [[(e, el.soil) for e, el in bg.elements[name].elements.items()
                 if isinstance(getattr(el, "soil", None), SoilLaw)] for name in names]
    if not any(memories):
        return {}
    initial = {}
    sinkage = 0.0
    for name, [(element, law)], (link, (H, _)) in zip(names, memories, feet.items()):
        sinkage = float(law.static_sinkage(mass * _G / len(feet)))
        centre = (poses[link] @ H)[:3, 3]
        initial[f"{name}/{element}.soil"] = np.array((sinkage, 1.0, centre[0], centre[1], 0.0))
    q = q.copy()
    q[6] -= sinkage
    return {"robot.q": q, **initial}


def _add_motor_drives(bg, robot, refs, kp, kd):
    """Bond a Go1-like `motor_drive` to every joint and the URDF's joint dampers (module docs);
    returns the `MotorServo` of every joint, their state entries named as the compiled
    system's layout names them."""
    from porthamiltonian.library import add_joint_dynamics
    from porthamiltonian.library.controllers import MotorServo
    from porthamiltonian.library.motors import motor_drive

    add_joint_dynamics(bg, robot)
    qo, vo = dict(_offsets(robot.description)), dict(_offsets(robot.description, "nv"))
    servos = []
    for leg, ref in refs.items():
        for k, part in enumerate(("hip", "thigh", "calf")):
            joint = f"{leg}_{part}_joint"
            constants = _motor(joint)
            drive = motor_drive(f"drive-{joint}", constants, rotor=False)
            bg.add(drive)
            bg.connect((drive, "shaft"), (robot, robot.joint_port(joint)))
            servos.append(MotorServo(f"drive-{joint}/source", f"drive-{joint}/motor/inductance.p",
                                     f"{robot.name}.q[{qo[joint]}]", f"{robot.name}.v[{vo[joint]}]", constants, ref,
                                     k, kp, kd))
    return servos


def _motor(joint):
    """The Go1-like motor constants of a joint (the knee's gearing for "*_calf_joint")."""
    from porthamiltonian.library.motors import go1_motor

    return go1_motor(knee=joint.endswith("_calf_joint"))


def _motor_pd(system, *, servos):
    """The motors' voltage law on the compiled system (`Model.inputs`)."""
    from porthamiltonian.library.controllers import MotorPD

    return MotorPD(system, servos)


def _offsets(description, size="nq"):
    start = 0
    for joint in description.joints:
        yield joint.name, start
        start += getattr(joint, size)


def _base_velocity(system, x):
    """The base's world linear velocity [m/s], shape (3,) (the root twist is in the base frame)."""
    from porthamiltonian.lie import quaternion

    q, v = x[system.layout["robot.q"]], x[system.layout["robot.v"]]
    return quaternion.to_matrix(q[:4]) @ v[3:6]
