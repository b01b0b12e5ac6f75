"""Rigid bodies on SE(3), the fixed ground, and body-fixed frames.

Conventions (docs/math.md sec. 1): twists T = (omega, v), wrenches W = (tau, f); the body twist
T_WB_B is the flow at the body-frame port "B"; at the port of a body-fixed frame F the flow
is T_WF_F = Ad(H_FB) T_WB_B and the effort a wrench expressed in F.

The pose is stored as a unit quaternion and a position, x = (qw, qx, qy, qz, px, py, pz)
(the embedding of SE(3) integrated with any scipy solver; the quaternion is normalised
wherever it is used, and the drift of |q| is reported by `Trajectory.quaternion_drift`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from porthamiltonian._validate import as_array, as_finite_float, as_spd
from porthamiltonian.bondgraph.element import Kernel, StorageElement, register_element
from porthamiltonian.bondgraph.ports import Port, StateBlock, StateRef, check_name
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.kernels import bodies as _kernels
from porthamiltonian.kernels.lie import cross3, pose_gradient, pose_rate_map
from porthamiltonian.lie import quaternion, se3, so3

_NO_INTS = np.zeros(0, dtype=np.int64)  # the int constants of kernels that need none
# smallest principal moment / the body's inertia scale below which an inertia is singular:
# ~1e5 times the round-off of the computed moments (~3 eps I_max), so an accepted one is known to ~1e-5
_INERTIA_RTOL = 1e-10

__all__ = ["RigidBody", "Ground", "Frame", "spatial_inertia", "pose_vector", "pose_gradient"]


def spatial_inertia(mass, inertia, com):
    """Spatial inertia about the body-frame origin, 6x6 for twists (omega, v).

    Parameters
    ----------
    mass : float [kg]
    inertia : ndarray, shape (3, 3) [kg m^2]
        Rotational inertia about the centre of mass, in body axes.
    com : ndarray, shape (3,) [m]
        Centre of mass in body coordinates.

    Returns
    -------
    ndarray, shape (6, 6)

    Notes
    -----
    The velocity of the centre of mass is v + omega x c = v - hat(c) omega, so
    ``T = 1/2 (omega.I_c.omega + m |v - hat(c) omega|^2) = 1/2 T.M.T`` with
    M = [[I_c + m hat(c)^T hat(c), m hat(c)], [-m hat(c), m I]].
    """
    c = so3.hat(com)
    M = np.zeros((6, 6))
    M[:3, :3] = inertia + mass * c.T @ c
    M[:3, 3:] = mass * c
    M[3:, :3] = -mass * c
    M[3:, 3:] = mass * np.eye(3)
    return M


def pose_vector(H, name="H"):
    """Validate a 4x4 pose and return it as (qw, qx, qy, qz, px, py, pz)."""
    H = se3.as_se3(H, name)
    return quaternion.matrix_to_pose(H)


def _pose_of(value, name):
    """Accept a 4x4 matrix or a 7-vector pose; return the 7-vector (validated)."""
    arr = np.asarray(value, dtype=float)
    if arr.shape == (4, 4):
        return pose_vector(arr, name)
    if arr.shape == (7,):
        return quaternion.as_pose(arr, name)
    raise ParameterError(f"`{name}` must be a 4x4 homogeneous matrix or a pose 7-vector, got shape {arr.shape}")


# library.joints imports `_cross`, library.contact_geometry `_rate_map` and `pose_gradient`
# (the compiled kernels of porthamiltonian.kernels.lie) from here.
_cross = cross3
_rate_map = pose_rate_map


@dataclass(frozen=True)
class Frame:
    """A frame fixed on a body (or on the ground): the body, a name, and its pose H_BF.

    Each frame of a body is one of its ports, whose flow is the body's twist expressed in that
    frame. Elements that act on bodies take frames, in two ways:

    - springs, dampers and gravity are expressed in the frames they take: bond each of their
      ports from the body's port of that frame (``bg.connect(frame.port, (spring, "a"))``);
    - joints and contacts take frames as markers (where they act on the body) but are
      expressed in the body frame: bond their ports from the body's "B" port
      (``bg.connect(body.frame("B").port, (joint, "a"))``), whatever the marker.

    `BondGraph.connect` checks the frames of the two ports, and its error names the port to
    use; `compile` checks that each port carries its body's twist. `Frame.port` is the
    (body, port name) pair of this frame, to pass to `BondGraph.connect`.
    """

    body: object
    name: str
    H_BF: np.ndarray

    def __post_init__(self):
        if not isinstance(self.body, (RigidBody, Ground)):
            raise ParameterError(f"a Frame needs a RigidBody or a Ground as its body, got {self.body!r}")
        object.__setattr__(self, "H_BF", se3.as_se3(self.H_BF, f"frame {self.body.name}.{self.name} (H_BF)"))

    @property
    def port(self):
        """(body, port name): the body's port for this frame."""
        return (self.body, self.name)

    @property
    def label(self):
        """Frame label used to check bonds at connect: "body.frame"."""
        return f"{self.body.name}.{self.name}"

    @property
    def moving(self):
        """True if the frame's body has a state (a RigidBody), False for the ground."""
        return isinstance(self.body, RigidBody)

    def refs(self):
        """State references needed to know this frame's pose: the body's pose, if it moves."""
        return (StateRef(self.body, "pose"),) if self.moving else ()

    def pose(self, body_pose=None):
        """H_WF, shape (4, 4), given the body's pose vector (None for the ground)."""
        if body_pose is None:
            return self.body.H_WG @ self.H_BF
        return quaternion.pose_to_matrix(body_pose) @ self.H_BF


class _FramedBody:
    """Frames and port bookkeeping shared by RigidBody and Ground."""

    def _init_frames(self, frames):
        self.frames = {"B": np.eye(4)}
        for fname, H in (frames or {}).items():
            check_name(fname, "frame name")
            if fname in self.frames:
                raise ModelError(f"{self.name!r}: frame name {fname!r} is reserved or repeated")
            self.frames[fname] = se3.as_se3(H, f"{self.name}.frames[{fname!r}]")
        self._Ad = {f: se3.Ad(se3.inverse(H)) for f, H in self.frames.items()}  # Ad(H_FB)

    def frame(self, name="B"):
        """The body-fixed frame called `name` ("B" is the body frame itself)."""
        if name not in self.frames:
            raise ModelError(f"{self.name!r} has no frame {name!r}; its frames are {sorted(self.frames)}")
        return Frame(self, name, self.frames[name])

    def ports(self):
        return tuple(Port(f, 6, "in", frame=f"{self.name}.{f}", multi=True) for f in self.frames)

    def port_types(self):
        return ("I",) * len(self.frames)


@register_element
class RigidBody(_FramedBody, StorageElement):
    """A rigid body: pose on SE(3) and body momentum; screw ports at body-fixed frames.

    H = 1/2 P.M^-1.P with P = M T_WB_B (body momentum). Equations (Euler-Poincare)::

        d(pose)/dt = K(pose) T,   dP/dt = ad(T)^T P + sum_F Ad(H_FB)^T W_F,   T = M^-1 P

    Structure on z = (pose, P): J = [[0, K], [-K^T, Gamma(P)]] with Gamma(P) T = ad(T)^T P
    (skew), B = [0; Ad(H_FB)^T ...], outputs T_F = Ad(H_FB) T.

    Parameters
    ----------
    name : str
    mass : float [kg]
        Positive.
    inertia : array_like, shape (3, 3) or (3,) [kg m^2]
        Inertia about the centre of mass in body axes (products of inertia allowed); a
        3-vector means principal moments. Must be symmetric positive definite and satisfy the
        triangle inequalities of a physical body (I1 + I2 >= I3, ...).
    com : array_like, shape (3,) [m]
        Centre of mass in body coordinates (default the origin).
    frames : dict, optional
        Extra body-fixed frames: name -> H_BF (4x4). Each gets a port; "B" is the body frame.
    pose : array_like, (4, 4) or (7,), optional
        Default initial pose H_WB.
    twist : array_like, shape (6,), optional
        Default initial body twist T_WB_B [rad/s, m/s] (the momentum is M twist).

    Raises
    ------
    ParameterError
        For a mass that is not positive, an inertia that is not symmetric, not positive
        definite (relative to the body's scale, see Notes) or violates the triangle
        inequalities, or a badly shaped com, frame, pose or twist.

    Notes
    -----
    The inertia's positive definiteness is judged relative to the body, not in absolute
    units: its smallest principal moment must exceed ``1e-10 * max(I_max, m |com|^2)``, with
    I_max the largest principal moment and ``m |com|^2`` the term the spatial inertia about the
    body origin adds (inverting it recovers the inertia about the centre of mass as a
    difference, so an inertia below ~eps times that term is lost). The verdict is the same in
    any units; a thin rod of radius r and length L passes down to r/L ~ 4e-6 (its moments are
    m r^2/2 and m L^2/12), and a line, a point mass set off its frame, or an inertia singular to
    round-off is refused by name.
    """

    type_name = "RigidBody"

    def __init__(self, name, mass, inertia, *, com=None, frames=None, pose=None, twist=None):
        StorageElement.__init__(self, name)
        self.mass = as_finite_float(mass, f"{name}.mass", positive=True)
        self.com = np.zeros(3) if com is None else as_array(com, f"{name}.com", (3,))
        # relative to the body's own scale (see the class Notes): a thin light leg is a body
        self.inertia = as_spd(
            inertia, f"{name}.inertia", 3, rtol=_INERTIA_RTOL,
            scale=self.mass * float(self.com @ self.com), scale_name="m |com|^2",
        )
        ev = np.linalg.eigvalsh(self.inertia)
        if ev[0] + ev[1] < ev[2] * (1 - 1e-12):
            raise ParameterError(
                f"`{name}.inertia` violates the triangle inequality of principal moments "
                f"({ev[0]:.6g} + {ev[1]:.6g} < {ev[2]:.6g}): no rigid body has it"
            )
        self._init_frames(frames)
        self.M = spatial_inertia(self.mass, self.inertia, self.com)
        self.Minv = np.linalg.inv(self.M)
        Ads = list(self._Ad.values())
        self._F = _kernels.pack_rigid_body(self.Minv, Ads)
        # constant: B = [0; Ad(H_FB)^T ...] and the output Jacobian [0, Ad(H_FB) M^-1; ...]
        self._B = np.zeros((13, 6 * len(Ads)))
        self._OJ = np.zeros((6 * len(Ads), 13))
        for k, Ad in enumerate(Ads):
            self._B[7:, 6 * k : 6 * k + 6] = Ad.T
            self._OJ[6 * k : 6 * k + 6, 7:] = Ad @ self.Minv
        self.pose0 = quaternion.matrix_to_pose(np.eye(4)) if pose is None else _pose_of(pose, f"{name}.pose")
        self.twist0 = np.zeros(6) if twist is None else as_array(twist, f"{name}.twist", (6,))

    def state_blocks(self):
        return (
            StateBlock("pose", 7, "configuration", group="pose", default=self.pose0),
            StateBlock("P", 6, "energy", default=self.M @ self.twist0),
        )

    # ---- kernels (porthamiltonian.kernels.bodies on the packed parameters `_F`)
    def energy(self, x, refs=()):
        return _kernels.body_energy(self._F, x)

    def outputs(self, t, x, refs):
        T = _kernels.body_outputs(self._F, x)
        if len(self.frames) == 1:
            return (T,)
        return tuple(T[6 * k : 6 * k + 6] for k in range(len(self.frames)))

    def rates(self, t, x, refs, inputs):
        W = inputs[0] if len(inputs) == 1 else np.concatenate(inputs)
        return _kernels.body_rates(self._F, x, W)

    def input_matrix(self, t, x, refs):
        return self._B.copy()

    def kernel(self, role):
        n = len(self.frames)
        if role == "outputs" and n <= len(_kernels.RIGID_BODY_OUTPUTS):
            return Kernel(_kernels.RIGID_BODY_OUTPUTS[n - 1], self._F, _NO_INTS)
        if role == "rates":
            return Kernel(_kernels.rigid_body_rates, self._F, _NO_INTS)
        if role in ("input_matrix", "output_jacobian"):
            M = self._B if role == "input_matrix" else self._OJ
            return Kernel(_kernels.constant_matrix, np.ascontiguousarray(M).ravel(), np.array(M.shape, dtype=np.int64))
        return None

    def output_jacobian(self, t, x, refs):
        return self._OJ.copy()

    def gradient(self, x, refs=()):
        return _kernels.body_gradient(self._F, x)

    def structure(self, t, x, refs):
        return _kernels.body_structure(x), self._B.copy()

    def displace(self, x, dx):
        """Pose moved by exp(M^-1 dP) (body twist for unit time); momentum unchanged."""
        H = quaternion.pose_to_matrix(x[:7]) @ se3.exp(self.Minv @ dx[7:])
        out = np.array(x, dtype=float)
        out[:7] = quaternion.matrix_to_pose(H)
        return out

    # ---- helpers for users
    def pose_matrix(self, x_body):
        """H_WB (4x4) from the body's own state (or pose 7-vector)."""
        return quaternion.pose_to_matrix(np.asarray(x_body)[:7])

    def twist(self, x_body):
        """Body twist T_WB_B from the body's own state."""
        return self.Minv @ np.asarray(x_body)[7:13]

    def state(self, pose=None, twist=None):
        """Own state vector (pose 7-vector, momentum) from a pose (4x4 or 7) and a body twist."""
        pv = self.pose0 if pose is None else _pose_of(pose, f"{self.name}.pose")
        tw = self.twist0 if twist is None else as_array(twist, f"{self.name}.twist", (6,))
        return np.concatenate((pv, self.M @ tw))

    def momentum_world(self, x_body):
        """Spatial momentum about the world origin in world coordinates: Ad(H_WB)^-T P."""
        H = self.pose_matrix(x_body)
        return se3.Ad_wrench(H) @ np.asarray(x_body)[7:13]

    # ---- the drawing protocol (porthamiltonian.viewer.shapes)
    def drawn_bodies(self):
        """``[(name, shapes)]``: this body drawn as the ellipsoid of its inertia (translucent)
        and segments from its centre of mass to the origins of its frames; the viewer adds its
        contact surfaces and segments to where joints and contacts hold it."""
        from porthamiltonian.viewer.shapes import inertia_shape, segment_shape, segment_radius

        ellipsoid = inertia_shape(self.mass, self.inertia, self.com)
        radius = segment_radius(ellipsoid)
        segments = [segment_shape(self.com, H[:3, 3], radius) for H in self.frames.values()]
        return [(self.name, (ellipsoid, *[s for s in segments if s is not None]))]

    def drawn_poses(self, states):
        """World pose rows, shape (n_frames, 1, 7), from ``states["pose"]`` (n_frames, 7);
        quaternions normalized."""
        rows = np.array(states["pose"], dtype=float).reshape(-1, 7)
        rows[:, :4] /= np.linalg.norm(rows[:, :4], axis=1)[:, None]
        return rows[:, None, :]

    def parameters(self):
        return {
            "mass": self.mass, "inertia": self.inertia.tolist(), "com": self.com.tolist(),
            "frames": {k: v.tolist() for k, v in self.frames.items() if k != "B"},
            "pose": self.pose0.tolist(), "twist": self.twist0.tolist(),
        }


@register_element
class Ground(_FramedBody, StorageElement):
    """The fixed world: zero twist at every frame, no state, no energy.

    An inertial "body" of infinite mass: its ports impose zero flow and accept any wrench
    (the reaction). Parameters: name, frames (name -> H_WF, 4x4; "B" is the world frame).
    """

    type_name = "Ground"

    def __init__(self, name="ground", *, frames=None):
        StorageElement.__init__(self, name)
        self._init_frames(frames)
        self.H_WG = np.eye(4)

    def energy(self, x, refs=()):
        return 0.0

    def outputs(self, t, x, refs):
        return tuple(np.zeros(6) for _ in self.frames)

    def kernel(self, role):
        n = len(self.frames)
        if role == "outputs" and n <= len(_kernels.GROUND_OUTPUTS):
            return Kernel(_kernels.GROUND_OUTPUTS[n - 1], np.zeros(0), _NO_INTS)
        return None

    def rates(self, t, x, refs, inputs):
        return np.zeros(0)

    def input_matrix(self, t, x, refs):
        return np.zeros((0, 6 * len(self.frames)))

    def output_jacobian(self, t, x, refs):
        return np.zeros((6 * len(self.frames), 0))

    def output_ref_rate(self, t, x, refs, ref_rates):
        return np.zeros(6 * len(self.frames))

    def gradient(self, x, refs=()):
        return np.zeros(0)

    def structure(self, t, x, refs):
        return np.zeros((0, 0)), np.zeros((0, 6 * len(self.frames)))

    # ---- the drawing protocol (porthamiltonian.viewer.shapes)
    def drawn_bodies(self):
        """``[(name, ())]``: the ground has no shape of its own; the viewer draws its contact
        surfaces (a plane as a patch under the motion) and a grid."""
        return [(self.name, ())]

    def drawn_poses(self, states):
        """The fixed pose, shape (1, 1, 7) (one frame: it does not move)."""
        return np.concatenate((quaternion.from_matrix(self.H_WG[:3, :3]), self.H_WG[:3, 3]))[None, None, :]

    def parameters(self):
        return {"frames": {k: v.tolist() for k, v in self.frames.items() if k != "B"}}
