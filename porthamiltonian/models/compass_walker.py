"""A passive compass-gait walker down a slope (Goswami, Thuilot & Espiau 1998; Garcia et al. 1998).

Two equal legs (rigid bodies: mass m, centre of mass at b from the hip, radius of gyration
rho about it, length L from the hip to the centre of a spherical foot of radius r) are
joined at the hip by a revolute joint about y; a point mass m_H sits at the hip (half of it
carried by each leg's body: a point mass on the hinge axis moves with the hinge, so this is
the same mechanism). Each foot has its own contact with a plane inclined by the slope gamma
(downhill is +x, its normal n = (sin gamma, 0, cos gamma)). A joint from the ground locks
leg 1's rotations about x and z, which with the hinge keeps both legs in the xz plane::

                  m_H o  hip (revolute about y)
                     / \\
            leg 1   /   \\   leg 2      q_i: angle of leg i's foot-to-hip direction from n,
          (m, rho) /     \\             positive with the hip downhill of the foot
                  o       o  feet (spheres r)
        n ^   ____________________           slope gamma, downhill +x
          | /                     ----____

Stance: the stance foot rolls without slipping (sliding plane with ``friction="rolling"``,
or a compliant foot that sticks); the swing leg swings about the hip. Scuffing: with equal
legs the swing foot passes through the ground at mid-stance. As in the literature (Garcia
et al. 1998, sec. 2; Goswami et al. 1998) this is ignored: each foot's contact has a
`TouchdownGuard` that arms it only while its foot is downhill of the other foot (the swing
leg ahead of the stance leg), so the swing foot lands only at the heel strike, when the legs
are symmetric about n (q_swing = -q_stance). The strike is plastic and does not slip; the
trailing foot leaves the ground (the sliding-plane impact releases a contact that would
pull), and the legs swap roles. Angular momentum of the walker about the landing point and
of the trailing leg about the hip are conserved through it.

Point feet (``foot=0``): each foot is a `porthamiltonian.geometry.Point` at the leg's end,
meeting the plane as the contact's body b (the plane, body a, gives the contact's normal);
the textbook compass gait of Goswami et al. (r = 0).

The Poincaré section is the heel strike (`STRIKE`, the landing foot's impact); `stride_map`
gives the stride map on z = (q, w_stance, w_swing) just after a strike (half the angle
between the legs [rad], the legs' angular speeds about y [rad/s]) for
`porthamiltonian.studies.fixed_point`.

Defaults: Goswami et al. (1998)'s walker (m = 5 kg, m_H = 10 kg, a = b = 0.5 m, slope
3 degrees, whose period-one gait is stable), with the legs given a radius of gyration of
0.1 m and round feet of 0.05 m; the initial state is this walker's periodic gait just after a
heel strike (to 1e-6; the fixed point itself is found by `stride_map` and checked in
``tests/models/test_compass_walker.py`` against an independent reduced model).

Contacts: "sliding_plane" (the stiff feet the gait analysis is for) or "compliant" (spring-
damper feet: the strike is spread over the contact's duration and booked by the dampers as
dissipated instead of lost at an impact).
"""

from __future__ import annotations

import math

import numpy as np

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.geometry import Plane, Point, Sphere
from porthamiltonian.library import (
    CONTACT_KINDS,
    ContactMaterial,
    Frame,
    Gravity,
    Ground,
    Joint,
    RigidBody,
    TouchdownGuard,
    make_contact,
)
from porthamiltonian.library.contacts import contact_flag
from porthamiltonian.lie import quaternion, se3, so3
from porthamiltonian.studies import StrideMap

from .registry import Model, Parameter, check_parameter, register_model
from .slope import UPRIGHT_LOCK, slope_axes, slope_pose

__all__ = ["compass_walker", "walker_contacts", "walker_geometry", "leg_states", "leg_angles", "stride_map",
           "strike_pose", "CONTACTS", "STRIKE", "UPRIGHT_LOCK"]

#: contact kinds the model builds
CONTACTS = ("sliding_plane", "compliant")


#: the heel strike of the sliding-plane feet (an element event name pattern): the Poincaré section
STRIKE = "foot*/constraint.impact"

G = 9.81


def leg_states(leg, foot, slope, q1, q2, w1, w2, sink=0.0):
    """Poses H_Wi (4x4) and body twists T_i (6,) of legs 1 (stance) and 2 (swing).

    Leg i's body frame sits at the hip with the leg along its -z axis; the stance foot's
    centre is at r n - sink n (x = 0 along the slope) and it rolls: every point X of leg 1
    moves at w1 e_y x (X - P), P its contact point; leg 2 turns at w2 about the hip.

    Parameters
    ----------
    leg, foot : float [m]
        L (hip to foot centre) and r.
    slope : float [rad]
    q1, q2 : float [rad]
        Leg angles from the slope normal (module docstring).
    w1, w2 : float [rad/s]
        Angular speeds about y (positive: the leg turns so that its hip moves downhill).
    sink : float [m]
        Depth of the stance foot in the ground (a compliant foot's static penetration).

    Returns
    -------
    list of (ndarray (4, 4), ndarray (6,))
    """
    n, _ = slope_axes(slope)
    contact_point = -sink * n
    hip = (foot - sink) * n + leg * so3.exp(np.array((0.0, slope + q1, 0.0)))[:, 2]
    v_hip = np.cross((0.0, w1, 0.0), hip - contact_point)
    out = []
    for q, w in ((q1, w1), (q2, w2)):
        R = so3.exp(np.array((0.0, slope + q, 0.0)))
        out.append((se3.make(R, hip), np.concatenate((R.T @ np.array((0.0, w, 0.0)), R.T @ v_hip))))
    return out


def leg_angles(system, x, slope):
    """(q1, q2, w1, w2): the legs' angles from the slope normal [rad] and angular speeds about y
    [rad/s] at state x."""
    n, t = slope_axes(slope)
    angles, speeds = [], []
    for name in ("leg1", "leg2"):
        R = quaternion.to_matrix(x[system.layout[f"{name}.pose"]][:4])
        angles.append(math.atan2(R[:, 2] @ t, R[:, 2] @ n))
        T = system.elements[name].twist(x[system.layout.element_slice(name)])
        speeds.append(float((R @ T[:3])[1]))
    return (*angles, *speeds)


def _stance(system, x, flags, q1, q2):
    """1 or 2: the leg whose foot is on the ground (`flags`: the feet's contact flags,
    `contact_flag`); while both or neither are, the one whose foot is downhill (the smaller
    angle q)."""
    on = [x[system.layout[flag]][0] > 0.5 for flag in flags]
    if on[0] != on[1]:
        return 1 if on[0] else 2
    return 1 if q1 <= q2 else 2


def strike_pose(system, slope):
    """A user event g(t, x) = q1 + q2 (direction +1) that crosses zero upward at the heel-strike
    pose (the legs symmetric about the normal, the swing leg ahead), for a Poincaré section
    of any contact kind: a compliant foot's touch is no stride marker (it may bounce)."""
    n, t = slope_axes(slope)
    P = (system.layout["leg1.pose"], system.layout["leg2.pose"])

    def strike_pose(t_, x):
        total = 0.0
        for sl in P:
            axis = quaternion.to_matrix(x[sl][:4])[:, 2]
            total += math.atan2(axis @ t, axis @ n)
        return total

    strike_pose.direction = 1.0
    return strike_pose


def walker_geometry(system):
    """(L [m], r [m], gamma [rad]) of a compiled walker, read from foot 1's contact pair
    (of whichever kind: the element of foot 1 that holds the pair)."""
    pair = next(el.pair for path, el in system.elements.items() if path.startswith("foot1/") and hasattr(el, "pair"))
    if isinstance(pair.S2, Point):   # point feet: the ground's plane is the pair's surface a
        n = pair.H_aS1[:3, 2]
        return -float(pair.S2.center[2]), 0.0, math.atan2(n[0], n[2])
    n = pair.H_bS2[:3, 2]
    return -float(pair.H_aS1[2, 3]), float(pair.S1.radius), math.atan2(n[0], n[2])


def stride_map(system, *, horizon=3.0, **solver):
    """The stride map of the sliding-plane walker on z = (q, w_stance, w_swing) just after a
    heel strike (module docstring).

    Parameters
    ----------
    system : PHSystem
        The compiled walker with ``contact="sliding_plane"`` (its L, r and gamma are read
        from it: `walker_geometry`).
    horizon : float
        Longest stride [s].
    **solver
        `simulate` keyword arguments.

    Returns
    -------
    porthamiltonian.studies.StrideMap
        `lift` builds the post-strike state with leg 1 standing at q1 = -q and leg 2
        trailing at q2 = q, both feet on the ground, foot 2's contact off; `project` reads
        the state after the next strike with whichever leg then stands. The lift is exact
        (every post-strike state is of this form up to a shift along the slope), so the
        map's fixed point is the periodic gait.

    Raises
    ------
    ParameterError
        The system's feet are not sliding-plane contacts.
    """
    if "foot1/constraint" not in system.elements:
        raise ph.ParameterError("`stride_map` takes the walker built with contact='sliding_plane' (its section is "
                                "the impact of a stiff foot); for other kinds cut strides with `strike_pose`")
    leg, foot, slope = walker_geometry(system)
    bodies = [system.elements[name] for name in ("leg1", "leg2")]

    def lift(z):
        q, w_st, w_sw = (float(v) for v in z)
        values = {}
        for name, body, (H, T) in zip(("leg1", "leg2"), bodies, leg_states(leg, foot, slope, -q, q, w_st, w_sw)):
            values[f"{name}.pose"] = quaternion.matrix_to_pose(H)
            values[f"{name}.P"] = body.M @ T
        values["foot1/constraint.active"], values["foot2/constraint.active"] = [1.0], [0.0]
        return system.initial_state(values)

    def project(x):
        q1, q2, w1, w2 = leg_angles(system, x, slope)
        if _stance(system, x, ("foot1/constraint.active", "foot2/constraint.active"), q1, q2) == 2:
            q1, q2, w1, w2 = q2, q1, w2, w1
        return (0.5 * (q2 - q1), w1, w2)

    return StrideMap(system, STRIKE, lift, project, horizon=horizon, **solver)


def _leg_body(name, leg_mass, hip_mass, com, gyration, pose, twist):
    """A leg with half the hip mass at its hip (body frame at the hip, leg along -z)."""
    m = leg_mass + 0.5 * hip_mass
    c = leg_mass * com / m     # distance of the combined centre of mass below the hip
    I = leg_mass * gyration ** 2 + leg_mass * (com - c) ** 2 + 0.5 * hip_mass * c ** 2
    # about the leg's own axis (no effect in the plane): the leg's m rho^2
    return RigidBody(name, m, np.diag((I, I, leg_mass * gyration ** 2)), com=(0.0, 0.0, -c), pose=pose, twist=twist)


def walker_contacts(kind, legs, leg, foot, slope, law):
    """The two feet's contacts with the ground, of one kind, each with its touchdown guard
    (module docstring): a list of components "foot1", "foot2" (ports "a" = leg, "b" = ground;
    for point feet, ``foot = 0``, "a" = ground, "b" = leg: a `porthamiltonian.geometry.Point`
    meets the plane as the pair's body b, the plane's normal being the contact's).

    Parameters
    ----------
    kind : str
        A contact kind of `porthamiltonian.library.contact`.
    legs : (RigidBody, RigidBody, Ground)
        Leg 1, leg 2 and the ground.
    leg, foot, slope : float
        L [m], r [m], gamma [rad].
    law : dict
        Keyword parameters of `library.make_contact` (``material=``, ``kind_options=``, or
        the kind's own options).
    """
    leg1, leg2, ground = legs
    _, t = slope_axes(slope)
    centre = np.array((0.0, 0.0, -leg))
    plane_pose = slope_pose(slope)
    out = []
    for k, (me, other) in enumerate(((leg1, leg2), (leg2, leg1)), start=1):
        guard = TouchdownGuard((me, centre), (other, centre), t)
        if foot > 0.0:
            out.append(make_contact(kind, f"foot{k}", me, Sphere(foot), ground, Plane(),
                                    pose_a=se3.make(np.eye(3), centre), pose_b=plane_pose, guard=guard, **law))
        else:
            out.append(make_contact(kind, f"foot{k}", ground, Plane(), me, Point(centre), pose_a=plane_pose,
                                    guard=guard, **law))
    return out


def _check(leg, foot, com, slope, q1, q2):
    if not foot < leg:
        raise ph.ParameterError(f"`foot` must be smaller than the leg length {leg:g} m, got {foot!r}")
    if not com <= leg:
        raise ph.ParameterError(f"`com` (distance of a leg's centre of mass from the hip) must be <= the leg length "
                                f"{leg:g} m, got {com!r}")
    if not slope < 0.5 * math.pi:
        raise ph.ParameterError(f"`slope` must be below pi/2 rad, got {slope!r}")
    for name, q in (("stance_angle", q1), ("swing_angle", q2)):
        if not abs(q) < 0.5 * math.pi:
            raise ph.ParameterError(f"`{name}` must lie in (-pi/2, pi/2) rad (the hip above the foot), got {q!r}")
    height = leg * (math.cos(q1) - math.cos(q2))
    if height < -1e-12 * leg:
        raise ph.ParameterError(
            f"the swing foot starts {-height:.6g} m below the ground (`swing_angle` {q2!r} rad, `stance_angle` {q1!r} "
            f"rad: it needs |swing_angle| >= |stance_angle|); start the swing foot on or above the ground")


#: why the walker takes no soil contact (the registry's message and the build's)
_NO_SOIL = ("it has no knees, and on soft soil its stance foot sinks (5 cm on dry sand) so that the swing foot "
            "ploughs in; the rimless wheel and the hopping leg take contact='soil'")


@register_model(
    "compass-walker",
    "a passive compass-gait walker down a slope with round feet: heel strikes, periodic gait, stride map",
    leg_mass=Parameter(5.0, "kg", "mass m of each leg", rule="positive"),
    hip_mass=Parameter(10.0, "kg", "point mass m_H at the hip", rule="nonnegative"),
    leg=Parameter(1.0, "m", "leg length L, hip to foot centre", rule="positive"),
    com=Parameter(0.5, "m", "distance b of a leg's centre of mass from the hip", rule="nonnegative"),
    gyration=Parameter(0.1, "m", "radius of gyration rho of a leg about its centre of mass", rule="positive"),
    foot=Parameter(0.05, "m", "radius r of the spherical feet (0: point feet)", rule="nonnegative"),
    slope=Parameter(0.0524, "rad", "inclination gamma of the ground (downhill is +x; 0.0524 is 3 degrees)",
                    rule="positive"),
    stance_angle=Parameter(-0.287256, "rad", "initial angle q1 of the stance leg (leg 1) from the slope normal"),
    swing_angle=Parameter(0.287256, "rad", "initial angle q2 of the swing leg (leg 2) from the slope normal"),
    stance_rate=Parameter(1.102817, "rad/s", "initial angular speed of the stance leg about y"),
    swing_rate=Parameter(0.367443, "rad/s", "initial angular speed of the swing leg about y"),
    contact=Parameter("sliding_plane", "-", "contact model of both feet: sliding_plane or compliant",
                      choices=CONTACTS, refused={"soil": _NO_SOIL}),
    stiffness=Parameter(1.0e6, "N/m", "compliant: normal and tangential stiffness", rule="positive"),
    friction=Parameter(100.0, "-", "compliant: friction coefficient (the default sticks, as the stiff feet do)",
                       rule="positive"),
    damping_ratio=Parameter(1.0, "-", "compliant: normal damping as a fraction of critical", rule="nonnegative"),
)
def compass_walker(*, leg_mass=5.0, hip_mass=10.0, leg=1.0, com=0.5, gyration=0.1, foot=0.05, slope=0.0524,
                   stance_angle=-0.287256, swing_angle=0.287256, stance_rate=1.102817, swing_rate=0.367443,
                   contact="sliding_plane", stiffness=1.0e6, friction=100.0, damping_ratio=1.0):
    """Build the model (module docstring): leg 1 stands, leg 2 swings.

    The default start is the periodic gait just after a heel strike: both feet on the
    ground, leg 2's contact off (it is leaving the ground). The sliding-plane feet are
    plastic (restitution 0) and do not slip (``friction="rolling"``). The compliant feet have
    the normal stiffness and its critical damping (for the walker's total mass) tangentially
    too and no spin stiffness; the walker starts lowered by the static penetration
    (m_total g cos(gamma) / k).

    Raises
    ------
    ParameterError
        Feet not smaller than the legs, a centre of mass beyond the foot, a leg angle outside
        (-pi/2, pi/2), a swing foot starting below the ground (|swing_angle| <
        |stance_angle|), or an unknown contact kind.
    """
    leg, foot, com, slope = float(leg), float(foot), float(com), float(slope)
    q1, q2 = float(stance_angle), float(swing_angle)
    _check(leg, foot, com, slope, q1, q2)
    check_parameter("compass-walker", "contact", contact)
    total = 2.0 * leg_mass + hip_mass
    # one material for both feet and every kind: the feet's friction, plastic strikes, the
    # compliant law's own damping (a fraction of critical for the walker's total mass:
    # damping="law"); what it cannot say is the kinds' own: the rigid feet roll without slip,
    # the compliant ones are as stiff and damped tangentially with no spin stiffness
    k = float(stiffness)
    c_n = 2.0 * damping_ratio * math.sqrt(k * total)
    material = ContactMaterial(friction=float(friction), restitution=0.0, damping="law",
                               normal=NormalLaw("linear", stiffness=k, damping=c_n))
    law = dict(material=material, kind_options={
        "sliding_plane": dict(friction="rolling"),
        "compliant": dict(tangential_stiffness=k, tangential_damping=c_n, spin_stiffness=0.0, spin_damping=0.0)})
    sink = CONTACT_KINDS[contact].rest_penetration(material, total * G * math.cos(slope))
    legs = [_leg_body(name, leg_mass, hip_mass, com, gyration, H, T) for name, (H, T)
            in zip(("leg1", "leg2"), leg_states(leg, foot, slope, q1, q2, stance_rate, swing_rate, sink))]
    ground = Ground("ground")
    Hy = se3.exp(np.array((-0.5 * math.pi, 0.0, 0.0, 0.0, 0.0, 0.0)))   # hinge markers: z along world y
    bg = ph.BondGraph("compass_walker")
    bg.add(*legs, ground, Joint("upright", ground.frame(), legs[0].frame(), lock=UPRIGHT_LOCK),
           Joint("hip", Frame(legs[0], "B", Hy), Frame(legs[1], "B", Hy), kind="revolute"))
    bg.connect(ground.frame().port, ("upright", "a"))
    bg.connect(legs[0].frame().port, ("upright", "b"))
    bg.connect(legs[0].frame().port, ("hip", "a"))
    bg.connect(legs[1].frame().port, ("hip", "b"))
    for k, body in enumerate(legs, start=1):
        bg.add(Gravity(f"gravity{k}", body, (0.0, 0.0, -G)))
        bg.connect(body.frame().port, f"gravity{k}")
    feet = walker_contacts(contact, (*legs, ground), leg, foot, slope, law)
    flags = tuple(contact_flag(c) for c in feet)   # each foot's contact flag, whatever the kind
    for k, (c, body) in enumerate(zip(feet, legs), start=1):
        bg.add(c)
        sides = (body, ground) if foot > 0.0 else (ground, body)   # `walker_contacts`: a point is body b
        bg.connect(sides[0].frame().port, (f"foot{k}", "a"))
        bg.connect(sides[1].frame().port, (f"foot{k}", "b"))

    n, t = slope_axes(slope)

    def angle(i):
        return lambda s, t_, x: leg_angles(s, x, slope)[i]

    def stance(i):   # i = 0, 1, 2, 3: stance angle, swing angle, stance speed, swing speed
        def f(s, t_, x):
            q1_, q2_, w1_, w2_ = leg_angles(s, x, slope)
            values = (q2_, q1_, w2_, w1_) if _stance(s, x, flags, q1_, q2_) == 2 else (q1_, q2_, w1_, w2_)
            return values[i]
        return f

    observables = {
        "leg1 angle": angle(0), "leg2 angle": angle(1), "leg1 speed": angle(2), "leg2 speed": angle(3),
        "stance angle": stance(0), "swing angle": stance(1), "stance speed": stance(2), "swing speed": stance(3),
        "hip height": lambda s, t_, x: float(x[s.layout["leg1.pose"]][4:7] @ n),
        "hip downhill": lambda s, t_, x: float(x[s.layout["leg1.pose"]][4:7] @ t),
        # whether each foot touches (1) or not (0), one name whatever the kind (`contact_flag`)
        **{f"foot{k} on ground": (lambda s, t_, x, f=f: float(x[s.layout[f]][0]))
           for k, f in enumerate(flags, start=1)},
    }
    return Model(
        bg,
        initial={flags[1]: [0.0]},
        units={**{f"{w} angle": "rad" for w in ("leg1", "leg2", "stance", "swing")},
               **{f"{w} speed": "rad/s" for w in ("leg1", "leg2", "stance", "swing")},
               "hip height": "m", "hip downhill": "m", "foot1 on ground": "-", "foot2 on ground": "-"},
        t_end=4.0,
        solver=dict(method="DOP853", rtol=1e-10, atol=1e-12),
        observables=observables,
        groups={"legs": ["stance angle", "swing angle"], "speeds": ["stance speed", "swing speed"],
                "hip": ["hip height", "hip downhill"], "feet": ["foot1 on ground", "foot2 on ground"]},
        notes=f"compass walker on a {slope:g} rad slope, {contact} feet (r = {foot:g} m): heel strikes at the "
              f"symmetric pose; swing-foot scuffing at mid-stance ignored (touchdown guards)",
    )
