"""A cam turning at constant speed and a flat-faced follower moved only by contact (Tasora &
Righettini, *Sliding contact between freeform surfaces*, 2003, sec. 6.1).

Tasora & Righettini build a cam as a NURBS surface from the motion law wanted for its
follower and check that the follower, pushed only by the contact, reproduces that law
(their Fig. 7). Here:

- the cam is a body welded to a ground marker that turns at `omega` about the cam axis
  (world -y): a rheonomic weld whose supplied work is a ledger entry;
- the follower slides on a prismatic joint along world +z, held on the cam by gravity; its
  flat face (a `Plane`, normal -z) touches the cam through a sliding-plane contact
  (stiff, unilateral; or compliant with ``contact="compliant"``);
- ``cam="nurbs"``: a periodic `BSplineSurface` synthesized from a cycloidal
  rise-dwell-return-dwell law (`CamLaw`, `cam_profile`, `cam_surface`);
  ``cam="eccentric"``: an eccentric circle (a `Sphere` off the axis), the harmonic law
  ``s = e (1 - cos phi)``, with which the follower lifts off when ``e omega^2 > g``.

Side view (world x right, z up; the cam axis points into the page, -y)::

              | z  follower, prismatic along z
           ___|___
          |_______|  flat face z = r0 + s(omega t), normal -z (out of the follower)
            . ^ .    contact point, offset -s'(phi) from the follower axis
          /   |   \\
         |    +    |  cam, turning at omega (phi = omega t)
          \\       /
            '---'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import porthamiltonian as ph
from porthamiltonian._validate import as_finite_float
from porthamiltonian.errors import ParameterError
from porthamiltonian.geometry import BSplineSurface, Plane, Sphere
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.library import (
    CONTACT_KINDS,
    ContactMaterial,
    Frame,
    Gravity,
    Ground,
    Joint,
    RigidBody,
    make_contact,
)
from porthamiltonian.library.joints import ConstantRotation
from porthamiltonian.lie import se3, so3

from .registry import Model, Parameter, register_model

__all__ = ["cam_follower", "CamLaw", "cam_profile", "cam_surface", "cam_pose", "FOLLOWER_ANGLE", "CAMS"]

#: cam kinds of the model
CAMS = ("nurbs", "eccentric")

#: polar angle, in the cam frame at phi = 0, of the follower's line of motion (cam y = world z)
FOLLOWER_ANGLE = math.pi / 2

#: axial half-width [m] and crown radius [m] of the synthesized cam (see `cam_surface`)
CAM_HALF_WIDTH = 0.01
CROWN_RADIUS = 0.05

# the cam frame at phi = 0: cam z (its axis) along world -y, cam y along world +z
_H0 = se3.make(so3.exp(np.array((math.pi / 2, 0.0, 0.0))), np.zeros(3))


@dataclass(frozen=True)
class CamLaw:
    """Follower lift as a function of the cam angle: rise, dwell, return, dwell.

    Parameters
    ----------
    kind : {"cycloidal", "harmonic"}
        "cycloidal": rise over `rise`, dwell at `stroke` over `dwell`, return over `fall`,
        dwell at zero for the rest of the turn, each move cycloidal,
        ``s = h (x - sin(2 pi x) / (2 pi))`` with ``x`` the fraction of the move.
        "harmonic": ``s = h (1 - cos phi) / 2`` over the whole turn (the eccentric circle
        with eccentricity h/2; `rise`, `dwell`, `fall` unused).
    stroke : float [m]
        Total lift h.
    rise, dwell, fall : float [rad]
        Cam angles of the rise, the upper dwell and the return; their sum must not exceed
        2 pi (the lower dwell takes the rest).

    Notes
    -----
    Cycloidal moves have zero speed and acceleration at both ends, so the lift is C^2 in the
    cam angle (the jerk jumps at the ends of the moves).
    """

    kind: str = "cycloidal"
    stroke: float = 0.02
    rise: float = 2 * math.pi / 3
    dwell: float = math.pi / 3
    fall: float = 2 * math.pi / 3

    def __post_init__(self):
        if self.kind not in ("cycloidal", "harmonic"):
            raise ParameterError(f"`kind` must be 'cycloidal' or 'harmonic', got {self.kind!r}")
        as_finite_float(self.stroke, "stroke", positive=True)
        for name in ("rise", "dwell", "fall"):
            as_finite_float(getattr(self, name), name, nonnegative=True)
        if self.kind == "cycloidal":
            if not (self.rise > 0 and self.fall > 0):
                raise ParameterError(f"`rise` and `fall` must be positive, got {self.rise!r} and {self.fall!r}")
            if self.rise + self.dwell + self.fall > 2 * math.pi * (1 + 1e-12):
                raise ParameterError(
                    f"rise + dwell + fall must not exceed 2 pi, got {self.rise + self.dwell + self.fall!r} rad"
                )

    def lift(self, phi):
        """Lift and its first two derivatives with respect to the cam angle.

        Parameters
        ----------
        phi : float or array_like, shape (N,) [rad]
            Cam angle (any real; the law is 2 pi periodic).

        Returns
        -------
        s, ds, dds : ndarray, shape of `phi` [m, m/rad, m/rad^2]
        """
        phi = np.mod(np.asarray(phi, dtype=float), 2 * math.pi)
        h = self.stroke
        if self.kind == "harmonic":
            return 0.5 * h * (1 - np.cos(phi)), 0.5 * h * np.sin(phi), 0.5 * h * np.cos(phi)
        s, ds, dds = np.zeros_like(phi), np.zeros_like(phi), np.zeros_like(phi)
        up = phi < self.rise
        x = phi[up] / self.rise
        s[up] = h * (x - np.sin(2 * math.pi * x) / (2 * math.pi))
        ds[up] = h * (1 - np.cos(2 * math.pi * x)) / self.rise
        dds[up] = h * 2 * math.pi * np.sin(2 * math.pi * x) / self.rise**2
        top = (phi >= self.rise) & (phi < self.rise + self.dwell)
        s[top] = h
        start = self.rise + self.dwell
        down = (phi >= start) & (phi < start + self.fall)
        x = (phi[down] - start) / self.fall
        s[down] = h * (1 - x + np.sin(2 * math.pi * x) / (2 * math.pi))
        ds[down] = -h * (1 - np.cos(2 * math.pi * x)) / self.fall
        dds[down] = -h * 2 * math.pi * np.sin(2 * math.pi * x) / self.fall**2
        return s, ds, dds

    def motion(self, t, omega):
        """Follower lift, speed and acceleration at times t for a cam turning at omega.

        Returns
        -------
        z, dz, ddz : ndarray [m, m/s, m/s^2]
        """
        s, ds, dds = self.lift(omega * np.asarray(t, dtype=float))
        return s, ds * omega, dds * omega**2


def cam_profile(law, base_radius, n):
    """Profile of the cam for a flat-faced translating follower (envelope of the face).

    Parameters
    ----------
    law : CamLaw
    base_radius : float [m]
        r0: distance from the cam axis to the face at zero lift.
    n : int
        Number of profile samples, evenly spaced in the normal angle.

    Returns
    -------
    theta : ndarray, shape (n,) [rad]
        Polar angle of the outward normal, in the cam frame, ``2 pi k / n``.
    points, normals : ndarray, shape (n, 2) [m, -]
        Profile points and outward unit normals in the cam's x-y plane.

    Raises
    ------
    ParameterError
        If the profile is not convex (radius of curvature ``r0 + s + s'' <= 0``).

    Notes
    -----
    The follower's line of motion is fixed in the world; in the cam frame, turned by the cam
    angle phi, it lies at the polar angle ``theta = theta0 - phi`` (theta0 =
    `FOLLOWER_ANGLE`). The face is the line ``p . e(theta) = r0 + sigma(theta)`` with
    ``e = (cos theta, sin theta)``, ``e' = (-sin theta, cos theta)`` and
    ``sigma(theta) = s(theta0 - theta)``. The cam profile is the envelope of these lines:
    with the derivative in theta, ``p . e' = sigma'``, so ::

        p(theta) = (r0 + sigma) e + sigma' e'
        p'(theta) = (r0 + sigma + sigma'') e'

    The normal at p(theta) is e(theta): the face touches there, at the offset
    ``sigma' = -s'(phi)`` from the follower's axis, and the profile is convex when the radius
    of curvature ``rho = r0 + s + s''`` is positive.
    """
    theta = 2 * math.pi * np.arange(n) / n
    s, ds, dds = law.lift(FOLLOWER_ANGLE - theta)
    rho = base_radius + s + dds
    if rho.min() <= 0.0:
        k = int(np.argmin(rho))
        raise ParameterError(
            f"the cam profile is not convex: radius of curvature r0 + s + s'' = {rho[k]:.4g} m at theta = "
            f"{theta[k]:.4g} rad; increase `base_radius` (now {base_radius!r} m)"
        )
    e = np.stack((np.cos(theta), np.sin(theta)), axis=1)
    ep = np.stack((-np.sin(theta), np.cos(theta)), axis=1)
    return theta, (base_radius + s)[:, None] * e - ds[:, None] * ep, e


def cam_surface(law, base_radius, *, samples=720, degree=5, half_width=CAM_HALF_WIDTH, crown=CROWN_RADIUS):
    """The cam as a periodic B-spline surface (about the frame's z axis) through the profile.

    Parameters
    ----------
    law : CamLaw
    base_radius : float [m]
    samples : int
        Profile points interpolated around the turn (u direction).
    degree : int
        Degree in u (Tasora & Righettini 2003 use fifth-degree NURBS).
    half_width : float [m]
        Half the axial width (v in [-half_width, half_width]).
    crown : float [m]
        Crown radius: the section at axial position v is the profile moved inward by
        ``v^2 / (2 crown)`` along its normals.

    Returns
    -------
    BSplineSurface
        ``f(u, v)``, u the normal angle theta in [0, 2 pi) (periodic), v [m] along z; the
        mid-section ``f(u, 0)`` interpolates `cam_profile` at ``u = theta_k``.

    Notes
    -----
    A straight (cylindrical) cam would touch the flat face along a line: the contact
    kinematics need isolated contact points (docs/math.md sec. 5), so the cam is crowned. Three
    sections at ``v = -w, 0, w`` interpolated with degree 2 in v reproduce the parabolic
    crown exactly, ``f(u, v) = C(u) - v^2 / (2 crown) N(u) + v e_z`` (C, N the u-interpolants
    of the points and normals): the mid-section is the interpolated profile, ``f_v(u, 0) =
    e_z``, and the flat face touches the cam at v = 0, so the crown does not change the
    follower's motion. ``f_u x f_v`` points out of the cam (u turns counter-clockwise about z).
    """
    _, P, N = cam_profile(law, base_radius, samples)
    v = np.array((-half_width, 0.0, half_width))
    grid = np.zeros((samples, 3, 3))
    for j, vj in enumerate(v):
        grid[:, j, :2] = P - (vj * vj / (2 * crown)) * N
        grid[:, j, 2] = vj
    return BSplineSurface.interpolate(
        grid, degree, 2, periodic_u=True, u_params=np.linspace(0.0, 2 * math.pi, samples + 1), v_params=v
    )


def cam_pose(t, omega):
    """Pose of the cam frame H_WC(t) = H_0 Rz(omega t), its body twist and the twist's rate.

    Returns
    -------
    H : ndarray, shape (4, 4)
    T, dT : ndarray, shape (6,)
        Body twist (0, 0, omega, 0, 0, 0) and zero.
    """
    H = _H0 @ se3.make(so3.exp(np.array((0.0, 0.0, omega * t))), np.zeros(3))
    return H, np.array((0.0, 0.0, omega, 0.0, 0.0, 0.0)), np.zeros(6)


#: the solver method per contact kind (others: DOP853); see the measurements at `solver=` below
_METHODS = {"compliant": "BDF"}


@register_model(
    "cam-follower",
    "a cam at constant speed pushes a flat-faced follower by contact only; NURBS cam built from its motion law "
    "(Tasora & Righettini 2003, sec. 6.1, Fig. 7) or an eccentric circle (lift-off above e omega^2 = g)",
    cam=Parameter("nurbs", "-", "cam shape: nurbs (synthesized from the cycloidal law) or eccentric (circle)"),
    omega=Parameter(2 * math.pi, "rad/s", "cam speed (prescribed)"),
    base_radius=Parameter(0.05, "m", "distance from the cam axis to the follower face at zero lift", rule="positive"),
    stroke=Parameter(0.02, "m", "lift of the cycloidal law (nurbs cam)", rule="positive"),
    rise=Parameter(2 * math.pi / 3, "rad", "cam angle of the rise (nurbs cam)", rule="positive"),
    dwell=Parameter(math.pi / 3, "rad", "cam angle of the upper dwell (nurbs cam)", rule="nonnegative"),
    fall=Parameter(2 * math.pi / 3, "rad", "cam angle of the return (nurbs cam)", rule="positive"),
    samples=Parameter(720, "-", "profile points interpolated by the NURBS cam", rule="positive"),
    eccentricity=Parameter(0.01, "m", "offset of the circle's centre from the axis (eccentric cam)", rule="nonnegative"),
    mass=Parameter(0.5, "kg", "follower mass", rule="positive"),
    g=Parameter(9.81, "m/s^2", "gravity, pressing the follower on the cam", rule="nonnegative"),
    restitution=Parameter(0.0, "-", "Newton restitution when the follower lands again (sliding_plane)", rule="fraction"),
    stiffness=Parameter(1e6, "N/m", "normal stiffness (compliant contact)", rule="positive"),
    damping=Parameter(300.0, "N s/m", "normal damping (compliant contact)", rule="nonnegative"),
    contact=Parameter("sliding_plane", "-", "contact model: sliding_plane (stiff) or compliant",
                      choices=('sliding_plane', 'compliant')),
)
def cam_follower(*, cam="nurbs", omega=2 * math.pi, base_radius=0.05, stroke=0.02, rise=2 * math.pi / 3,
                 dwell=math.pi / 3, fall=2 * math.pi / 3, samples=720, eccentricity=0.01, mass=0.5, g=9.81,
                 restitution=0.0, stiffness=1e6, damping=300.0, contact="sliding_plane"):
    """Build the model (module docstring). The follower starts on the cam at phi = 0 with the
    speed of the law; the observables "exact ..." are the law the follower should reproduce."""
    if cam not in CAMS:
        raise ParameterError(f"`cam` must be one of {CAMS}, got {cam!r}")
    omega = as_finite_float(omega, "omega")
    r0 = as_finite_float(base_radius, "base_radius", positive=True)
    if cam == "nurbs":
        law = CamLaw("cycloidal", stroke, rise, dwell, fall)
        surface = cam_surface(law, r0, samples=int(samples))
    else:
        e = as_finite_float(eccentricity, "eccentricity", positive=True)
        law = CamLaw("harmonic", 2 * e)
        # centre opposite the follower at phi = 0: the follower starts at its lowest point
        c = -e * np.array((math.cos(FOLLOWER_ANGLE), math.sin(FOLLOWER_ANGLE), 0.0))
        surface = Sphere(r0 + e, center=c)

    bg = ph.BondGraph("cam_follower")
    G = Ground("ground")
    H_cam, T_cam, _ = cam_pose(0.0, omega)
    cam_body = RigidBody("cam", 2.0, [2e-3, 2e-3, 3e-3], pose=H_cam, twist=T_cam)
    s0, ds0, _ = law.motion(0.0, omega)
    H_f = np.eye(4)
    H_f[2, 3] = r0 + float(s0)
    # one material for every kind: frictionless, Newton's `restitution` for the rigid kinds, the
    # compliant law's own damping (damping="law")
    material = ContactMaterial(friction=0.0, restitution=restitution, damping="law",
                               normal=NormalLaw("linear", stiffness=stiffness, damping=damping))
    # start at the static penetration m g / k of a compliant contact, in contact (started at
    # exactly zero distance while sinking, the compliant contact misses its touch event)
    H_f[2, 3] -= CONTACT_KINDS[contact].rest_penetration(material, mass * g)
    follower = RigidBody("follower", mass, [1e-4, 1e-4, 1e-4], pose=H_f, twist=(0, 0, 0, 0, 0, float(ds0)))
    drive = Joint("drive", Frame(G, "B", H_cam), cam_body.frame(), kind="weld",
                  motion_a=ConstantRotation(_H0, (0.0, 0.0, 1.0), omega))   # = cam_pose(t, omega)
    guide = Joint("guide", G.frame(), follower.frame(), kind="prismatic")
    face = Plane(normal=(0.0, 0.0, -1.0), u_axis=(1.0, 0.0, 0.0))
    c = make_contact(contact, "contact", cam_body, surface, follower, face, material=material)
    bg.add(G, cam_body, follower, Gravity("gravity", follower, g=(0.0, 0.0, -g)), drive, guide, c)
    bg.connect(follower.frame().port, "gravity")
    bg.connect(G.frame().port, ("drive", "a"))
    bg.connect(cam_body.frame().port, ("drive", "b"))
    bg.connect(G.frame().port, ("guide", "a"))
    bg.connect(follower.frame().port, ("guide", "b"))
    bg.connect(cam_body.frame().port, ("contact", "a"))
    bg.connect(follower.frame().port, ("contact", "b"))

    def lift(system, t, x):
        return float(x[system.layout["follower.pose"]][6]) - r0

    def speed(system, t, x):
        return float(follower.Minv[5] @ x[system.layout["follower.P"]])  # no rotation: world z = body z

    def acceleration(system, t, x):
        return float(system.rhs(t, x)[system.layout["follower.P"]][5]) / mass

    def force(system, t, x):
        return mass * (acceleration(system, t, x) + g)  # the guide carries no vertical force

    observables = {
        "lift": lift,
        "exact lift": lambda s, t, x: float(law.motion(t, omega)[0]),
        "speed": speed,
        "exact speed": lambda s, t, x: float(law.motion(t, omega)[1]),
        "acceleration": acceleration,
        "exact acceleration": lambda s, t, x: float(law.motion(t, omega)[2]),
        "contact force": force,
    }
    return Model(
        bg,
        t_end=2 * math.pi / abs(omega) if omega else 1.0,
        # the compliant contact (1e6 N/m on 0.2 kg) is stiff: BDF takes 2.2-2.6x fewer
        # evaluations than DOP853 over a revolution (measured: NURBS cam 11277 vs 20212, eccentric
        # 9152 vs 23690; ledger residual 8e-9 / 8e-10 of the energy scale against 3e-12 / 2e-15,
        # lift error unchanged, 5e-6 m); the stiff sliding plane has no fast mode: DOP853
        solver=dict(method=_METHODS.get(contact, "DOP853"), rtol=1e-9, atol=1e-11),
        observables=observables,
        units={"lift": "m", "exact lift": "m", "speed": "m/s", "exact speed": "m/s", "acceleration": "m/s^2",
               "exact acceleration": "m/s^2", "contact force": "N"},
        groups={
            # titles name the output files: no units with slashes
            "follower lift": ["lift", "exact lift"],
            "follower speed": ["speed", "exact speed"],
            "follower acceleration": ["acceleration", "exact acceleration"],
            "contact force": ["contact force"],
        },
        notes=(
            "Fig. 7 of Tasora & Righettini 2003: the follower, moved only by contact, against the motion law the cam was built "
            "from; the eccentric cam lifts the follower off when e omega^2 > g (a detach event)."
        ),
    )
