"""A rimless wheel rolling down a slope (McGeer 1990; Coleman, Chatterjee & Ruina 1997).

A hub (mass m, radius of gyration rho about its centre) carries N spokes of length L in its
xz plane, 2 alpha = 2 pi / N apart, each ending in a spherical foot of radius r. The ground is
a plane inclined by the slope gamma (downhill is +x, its normal n = (sin gamma, 0, cos gamma));
every foot has its own contact with it. A joint from the ground locks the hub's rotations
about x and z, so the wheel stays upright and turns about y (its lateral drift is held by
the feet's friction)::

               \\   |   /          hub: m, I = m rho^2
                \\  |  /           spokes: L, 2 alpha apart
            -----(  +  )-----
                /  |  \\
         n ^   /   |   \\  o foot (sphere r), stance
           |  o    |        \\
        ---+-------o------------o----___          slope gamma, downhill +x
                                        ----___

Stance: the foot rolls without slipping (sliding plane with ``friction="rolling"``); with
phi the stance spoke's angle from n (foot to hub, positive downhill) the hub is at
s = r phi + L sin phi along the slope and h = r + L cos phi above it, so energy is
conserved with the inertia about the contact point J(phi) = m (rho^2 + L^2 + r^2 +
2 L r cos phi).

Heel strike at phi = alpha: the next foot lands (plastic, no slip) and the trailing foot
leaves the ground (its contact would pull: `PHSystem.apply_impulse` releases it). Angular
momentum about the new contact point is conserved, so the angular speed drops by

    eta = (rho^2 + L^2 cos 2 alpha + 2 L r cos alpha + r^2) / (rho^2 + L^2 + 2 L r cos alpha + r^2)

(`impact_factor`; cos 2 alpha for point feet and a point mass, the textbook's value). Between
strikes gravity gives omega^2 the gain K = 4 m g sin gamma (L sin alpha + r alpha) / J(alpha),
so the post-strike speed obeys omega_{k+1}^2 = eta^2 (omega_k^2 + K): its fixed point
(`steady_speed`) omega*^2 = eta^2 K / (1 - eta^2) is reached geometrically, with the stride
map's Floquet multiplier eta^2. The wheel keeps rolling only if omega* carries it over
mid-stance (the potential's top at phi = -gamma - asin(r sin gamma / L)): below the critical
slope (`critical_slope`) it rocks back and comes to rest.

Point feet (``foot=0``): each foot is a `porthamiltonian.geometry.Point` at the spoke's end,
meeting the plane as the contact's body b (the ground's plane is body a, whose normal is the
contact's); r = 0 in the formulas above, whose eta is then (rho^2 + L^2 cos 2 alpha) /
(rho^2 + L^2), angular momentum about the new stance foot conserved. The soil contact needs
a round sole (`foot` > 0): `SoilContact` refuses a point foot.

Contacts: "sliding_plane" (the stiff contact the closed forms are for) or "compliant" (a
spring-damper foot: the impact is spread over the contact's duration, so its loss differs
from eta and the damper books it as dissipated rather than lost).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.geometry import Plane, Point, Sphere
from porthamiltonian.library import CONTACT_KINDS, ContactMaterial, Gravity, Ground, Joint, RigidBody, make_contact
from porthamiltonian.lie import quaternion, se3, so3
from porthamiltonian.studies import StrideMap

from .registry import Model, Parameter, check_parameter, register_model
from .slope import UPRIGHT_LOCK, slope_axes, slope_pose

__all__ = ["rimless_wheel", "impact_factor", "stride_gain", "steady_speed", "critical_slope", "vaults",
           "mid_stance_speed", "speed_map", "strike_pose", "UPRIGHT_LOCK", "CONTACTS", "STRIKE"]


#: contact kinds the model builds (the reduced contact handles one contact point per body)
CONTACTS = ("sliding_plane", "compliant", "soil")

G = 9.81

#: the heel strike of the sliding-plane feet (an element event name pattern): the Poincaré
#: section of the stiff wheel's gait (`strike_pose` for any contact kind)
STRIKE = "foot*/constraint.impact"


def strike_pose(system, spokes, slope):
    """A user event g(t, x) that crosses zero whenever the wheel is turned to a strike's pose
    (the spoke pair symmetric about the slope normal, phi = alpha + 2 alpha k), for a
    Poincaré section of any contact kind: a compliant foot touches down, bounces and
    touches again, so its touch events are no stride marker. ``g = -cos(N psi / 2)`` with
    psi the angle of spoke 0 from the normal."""
    P = system.layout["hub.pose"]

    def strike_pose(t, x):
        R = quaternion.to_matrix(x[P][:4])
        return -math.cos(0.5 * spokes * (math.atan2(R[0, 2], R[2, 2]) - slope))

    return strike_pose


def _inertia_about_contact(leg, foot, gyration, phi):
    """J(phi) / m [m^2]: the wheel's inertia about the stance contact point per unit mass."""
    return gyration ** 2 + leg ** 2 + foot ** 2 + 2.0 * leg * foot * math.cos(phi)


def impact_factor(spokes, leg, foot=0.0, gyration=0.0):
    """eta: the angular speed after a heel strike over the speed before (module docstring).

    Conservation of angular momentum about the landing foot's contact point, the trailing
    foot leaving the ground; cos(2 pi / spokes) for point feet and a point mass.
    """
    a = math.pi / spokes
    common = gyration ** 2 + foot ** 2 + 2.0 * leg * foot * math.cos(a)
    return (common + leg ** 2 * math.cos(2.0 * a)) / (common + leg ** 2)


def stride_gain(spokes, leg, foot, gyration, slope, g=G):
    """K [rad^2/s^2]: omega^2 just before a strike minus omega^2 just after the previous one."""
    a = math.pi / spokes
    return 4.0 * g * math.sin(slope) * (leg * math.sin(a) + foot * a) / _inertia_about_contact(leg, foot, gyration, a)


def steady_speed(spokes, leg, foot, gyration, slope, g=G):
    """omega* [rad/s]: the angular speed just after a strike in the steady gait."""
    eta = impact_factor(spokes, leg, foot, gyration)
    return math.sqrt(eta ** 2 * stride_gain(spokes, leg, foot, gyration, slope, g) / (1.0 - eta ** 2))


def _potential(leg, foot, slope, phi, g=G):
    """Potential per unit mass [J/kg] of the hub at stance angle phi."""
    return g * ((foot + leg * math.cos(phi)) * math.cos(slope) - (foot * phi + leg * math.sin(phi)) * math.sin(slope))


def _vault_margin(spokes, leg, foot, gyration, slope, speed, g=G):
    """Kinetic energy per unit mass after a strike at `speed` minus the potential barrier up
    to the stance's top at phi = -gamma - asin(r sin gamma / L) (none if the top lies behind
    the strike pose) [J/kg]."""
    a = math.pi / spokes
    top = -slope - math.asin(foot * math.sin(slope) / leg)
    barrier = _potential(leg, foot, slope, top, g) - _potential(leg, foot, slope, -a, g) if top > -a else 0.0
    return 0.5 * _inertia_about_contact(leg, foot, gyration, -a) * speed ** 2 - barrier


def vaults(spokes, leg, foot, gyration, slope, speed, g=G):
    """Whether a wheel leaving a strike at angular speed `speed` passes mid-stance."""
    return _vault_margin(spokes, leg, foot, gyration, slope, speed, g) > 0.0


def critical_slope(spokes, leg, foot=0.0, gyration=0.0, g=G):
    """gamma_c [rad]: the smallest slope whose steady gait passes mid-stance (module docstring)."""

    def margin(slope):
        return _vault_margin(spokes, leg, foot, gyration, slope, steady_speed(spokes, leg, foot, gyration, slope, g), g)

    return brentq(margin, 1e-9, math.pi / spokes, xtol=1e-15, rtol=1e-14)


def mid_stance_speed(spokes, leg, foot, gyration, slope, post_speed, g=G):
    """Angular speed [rad/s] at phi = 0 of a stance that starts at -alpha at `post_speed`."""
    a = math.pi / spokes
    energy = 0.5 * _inertia_about_contact(leg, foot, gyration, -a) * post_speed ** 2 + _potential(leg, foot, slope, -a, g)
    return math.sqrt(2.0 * (energy - _potential(leg, foot, slope, 0.0, g)) / _inertia_about_contact(leg, foot, gyration, 0.0))


def speed_map(system, x_strike, *, horizon=3.0, **solver):
    """The stride map of the angular speed just after a strike, for the sliding-plane wheel.

    Parameters
    ----------
    system : PHSystem
        The compiled sliding-plane wheel.
    x_strike : ndarray
        A state just after a strike (a trajectory's sample after the impact's jump). Every
        post-strike state is this one turned by a multiple of 2 alpha, moved along the slope
        and with another angular speed: the wheel pivots about the new contact point, so its
        momentum is proportional to the speed, and the lift scales the momentum of
        `x_strike` (exact, so the map's fixed point is the periodic gait).
    horizon : float
        Longest stride [s].
    **solver
        `simulate` keyword arguments.

    Returns
    -------
    porthamiltonian.studies.StrideMap
        z = (omega,) [rad/s] -> omega after the next strike.
    """
    hub = system.elements["hub"]
    sl = system.layout.element_slice("hub")
    P = system.layout["hub.P"]
    w_ref = float(hub.twist(x_strike[sl])[1])

    def lift(z):
        x = np.array(x_strike, dtype=float)
        x[P] = x_strike[P] * (z[0] / w_ref)
        return x

    def project(x):
        return (float(hub.twist(x[sl])[1]),)

    return StrideMap(system, STRIKE, lift, project, horizon=horizon, **solver)


#: the solver method per contact kind (others: DOP853); see the measurements at `solver=` below
_METHODS = {"compliant": "BDF"}


@register_model(
    "rimless-wheel",
    "a rimless wheel rolling down a slope: heel strikes, steady gait, critical slope (closed forms)",
    spokes=Parameter(8, "-", "number of spokes N (half-angle between spokes alpha = pi / N)", rule="positive"),
    leg=Parameter(1.0, "m", "spoke length L, hub to foot centre", rule="positive"),
    foot=Parameter(0.02, "m", "radius r of the spherical feet (0: point feet)", rule="nonnegative"),
    mass=Parameter(1.0, "kg", "mass m of the wheel", rule="positive"),
    gyration=Parameter(0.1, "m", "radius of gyration rho of the wheel about its hub", rule="positive"),
    slope=Parameter(0.1, "rad", "inclination gamma of the ground (downhill is +x)", rule="positive"),
    speed=Parameter(1.2, "rad/s", "angular speed at mid-stance of the first step", rule="positive"),
    contact=Parameter("sliding_plane", "-", "contact model of every foot: sliding_plane, compliant or soil (on `terrain`)",
                      choices=CONTACTS,
                      refused={"reduced": "the wheel has a contact per foot; the reduced contact follows one contact "
                                          "point"}),
    stiffness=Parameter(1.0e5, "N/m", "compliant: normal and tangential stiffness", rule="positive"),
    friction=Parameter(100.0, "-", "compliant, soil: friction coefficient of the feet (the default sticks, as the stiff "
                       "feet do)",
                       rule="positive"),
    damping_ratio=Parameter(1.0, "-", "compliant: normal damping as a fraction of critical (at 0.7 a "
                            "landing foot bounces, at 0.85 it does not)", rule="nonnegative"),
    terrain=Parameter("sandy_loam", "-", "soil: Wong's terrain under the feet (the default keeps a 1 kg wheel's 2 cm "
                      "feet within the round-sole law's range; on dry_sand they sink beyond it, flagged soil_depth)",
                      choices=("sandy_loam", "dry_sand", "clayey_soil")),
)
def rimless_wheel(*, spokes=8, leg=1.0, foot=0.02, mass=1.0, gyration=0.1, slope=0.1, speed=1.2,
                  contact="sliding_plane", stiffness=1.0e5, friction=100.0, damping_ratio=1.0,
                  terrain="sandy_loam"):
    """Build the model (module docstring): the wheel starts at mid-stance on foot 0.

    The sliding-plane feet are plastic (restitution 0) and do not slip (``friction=
    "rolling"``). The compliant feet have the normal stiffness and damping tangentially
    too, the friction coefficient `friction` (the default 100 sticks through the strikes,
    as the stiff feet do; at 1 a foot slides at each strike, whose tangential impulse
    exceeds its normal one at alpha = 22.5 degrees) and no spin stiffness. Their default
    damping is critical: a landing foot does not bounce, so the footprints are as far apart as
    the stiff wheel's (at a damping ratio of 0.3 a foot bounces once and lands again a little
    further on, and the wheel descends 2 % less per stride). The hub starts lowered by the
    static penetration m g cos(gamma) / k. The soil feet (`SoilContact` on `terrain`,
    ``SoilLaw.terrain(terrain, radius=foot)``) start on the surface and sink in; each strike
    presses a new footprint, whose plastic work the ledger books under ``foot<j>/plastic``.
    The default terrain is sandy loam: the default 1 kg wheel's 2 cm feet sink 1.78 cm at the
    first strike and about 1.6 cm in the steady gait, within the round-sole law's range (the
    sole's radius, `SoilLaw.max_sinkage`); on dry sand they sink 3.5 cm, beyond it, and the
    run's audit flags ``soil_depth`` (a heavier wheel or smaller feet likewise).

    Raises
    ------
    ParameterError
        Fewer than 5 spokes (at alpha >= 45 degrees the trailing foot does not leave the
        ground at a strike), feet not smaller than the spoke spacing, or an unknown contact;
        point feet (``foot=0``) on soil, from `SoilContact`.
    """
    if float(spokes) != int(spokes) or int(spokes) < 5:
        raise ph.ParameterError(f"`spokes` must be an integer >= 5 (alpha = pi / N < 45 degrees), got {spokes!r}")
    spokes = int(spokes)
    leg, foot, slope = float(leg), float(foot), float(slope)
    a = math.pi / spokes
    if not foot < leg * math.sin(a):
        raise ph.ParameterError(f"`foot` must be smaller than leg sin(pi / N) = {leg * math.sin(a):.6g} m "
                                f"(neighbouring feet would overlap), got {foot!r}")
    check_parameter("rimless-wheel", "contact", contact)
    if not slope < math.pi / 2:
        raise ph.ParameterError(f"`slope` must be below pi/2 rad, got {slope!r}")
    n, downhill = slope_axes(slope)
    # one material for every kind: the feet's friction, plastic strikes, the compliant law's own
    # damping (a fraction of critical: damping="law"); what it cannot say is the kinds' own:
    # the rigid feet roll without slip, the compliant ones are as stiff and damped tangentially
    # with no spin stiffness, the soil is `terrain`
    k = float(stiffness)
    c_n = 2.0 * damping_ratio * math.sqrt(k * mass)
    material = ContactMaterial(friction=float(friction), restitution=0.0, damping="law",
                               normal=NormalLaw("linear", stiffness=k, damping=c_n))
    kind_options = {"sliding_plane": dict(friction="rolling"),
                    "compliant": dict(tangential_stiffness=k, tangential_damping=c_n, spin_stiffness=0.0,
                                      spin_damping=0.0),
                    "soil": dict(terrain=terrain)}
    depth = CONTACT_KINDS[contact].rest_penetration(material, mass * G * math.cos(slope))
    R_WB = so3.exp(np.array((0.0, slope, 0.0)))   # foot 0 along -n: mid-stance
    hub = (foot + leg - depth) * n
    w = np.array((0.0, speed, 0.0))
    v = np.cross(w, hub - (-depth) * n)   # rolling about the contact point
    wheel = RigidBody("hub", mass, mass * gyration ** 2 * np.ones(3), pose=se3.make(R_WB, hub),
                      twist=np.concatenate((R_WB.T @ w, R_WB.T @ v)))
    ground = Ground("ground")
    bg = ph.BondGraph("rimless_wheel")
    bg.add(wheel, ground, Gravity("gravity", wheel, (0.0, 0.0, -G)),
           Joint("upright", ground.frame(), wheel.frame(), lock=UPRIGHT_LOCK))
    bg.connect(wheel.frame().port, "gravity")
    bg.connect(ground.frame().port, ("upright", "a"))
    bg.connect(wheel.frame().port, ("upright", "b"))
    plane_pose = slope_pose(slope)
    for j in range(spokes):
        phi = 2.0 * a * j
        foot_centre = leg * np.array((math.sin(phi), 0.0, -math.cos(phi)))
        given = dict(material=material, kind_options=kind_options)
        if foot > 0.0:
            c = make_contact(contact, f"foot{j}", wheel, Sphere(foot), ground, Plane(),
                             pose_a=se3.make(np.eye(3), foot_centre), pose_b=plane_pose, **given)
            sides = (wheel, ground)
        else:   # a point meets the plane as the pair's body b (its normal is the plane's)
            c = make_contact(contact, f"foot{j}", ground, Plane(), wheel, Point(foot_centre), pose_a=plane_pose,
                             **given)
            sides = (ground, wheel)
        bg.add(c)
        bg.connect(sides[0].frame().port, (f"foot{j}", "a"))
        bg.connect(sides[1].frame().port, (f"foot{j}", "b"))

    def wheel_angle(system, t, x):   # of spoke 0 from the normal; the stance spoke's wraps to [-alpha, alpha)
        R = quaternion.to_matrix(x[system.layout["hub.pose"]][:4])
        return float(math.atan2(R[0, 2], R[2, 2]) - slope)

    def hub_along(system, t, x):
        return float(x[system.layout["hub.pose"]][4:7] @ downhill)

    def stance(system, t, x):
        return (wheel_angle(system, t, x) + a) % (2.0 * a) - a

    observables = {
        "wheel angle": wheel_angle,
        "stance angle": stance,
        "angular speed": lambda s, t, x: float(wheel.twist(x[s.layout.element_slice("hub")])[1]),
        "hub height": lambda s, t, x: float(x[s.layout["hub.pose"]][4:7] @ n),
        "hub downhill": hub_along,
    }
    eta = impact_factor(spokes, leg, foot, gyration)
    return Model(
        bg,
        t_end=6.0,
        # the compliant feet are stiff about the hub (k L^2 / I = 1e7 1/s^2 on the wheel's
        # 0.01 kg m^2, their tangential dampers c L^2 / I = 6e4 1/s): BDF takes 10x fewer
        # evaluations than DOP853 (measured over 0.5 s: 7.4k against 77k, 0.7 against 4.1 s
        # of wall); the other feet have no fast mode: DOP853
        solver=dict(method=_METHODS.get(contact, "DOP853"), rtol=1e-10, atol=1e-12),
        observables=observables,
        units={"wheel angle": "rad", "stance angle": "rad", "angular speed": "rad/s", "hub height": "m",
               "hub downhill": "m"},
        groups={"wheel": ["wheel angle", "stance angle", "angular speed"], "hub": ["hub height", "hub downhill"]},
        notes=f"{spokes} spokes, slope {slope:g} rad, {contact} feet: strike factor eta = {eta:.6g}, steady post-strike "
              f"speed {steady_speed(spokes, leg, foot, gyration, slope):.6g} rad/s, critical slope "
              f"{critical_slope(spokes, leg, foot, gyration):.6g} rad (module docstring)",
    )
