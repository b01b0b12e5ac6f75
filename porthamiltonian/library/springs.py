"""Spatial springs and dampers between two frames, and point-to-point springs and dampers.

All act between two frames a and b (on bodies or on the ground). Each port is bonded to the
port of its frame's body (``bg.connect(frame.port, (spring, "a"))``); the element reads the
bodies' poses, so springs store energy as an exact function of the relative configuration
(nothing is integrated twice) and their wrenches are exact gradients of that energy.

Sign convention: the effort at a port is the wrench exerted *on the element* (expressed in
the port's frame), so e . T is the power flowing into the spring or damper; the body
receives the opposite wrench.
"""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_array, as_finite_float, as_symmetric_psd
from porthamiltonian.bondgraph.element import Kernel, ResistorElement, StorageElement, register_element
from porthamiltonian.bondgraph.ports import EFFORT_OUT, Port
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.kernels import bodies as _kernels
from porthamiltonian.kernels.lie import adjoint, pose_gradient, pose_rate_map, se3_inverse
from porthamiltonian.lie import se3

from .rigid_body import Frame

__all__ = ["SpatialSpring", "SpatialDamper", "PointSpring", "PointDamper", "stiffness_matrix"]


def stiffness_matrix(name, stiffness=None, *, rotational=None, translational=None, coupling=None):
    """6x6 symmetric PSD stiffness for twists (omega, v) from a matrix or 3x3 blocks.

    K = [[K_r, K_c^T], [K_c, K_t]]; scalars mean multiples of the identity.
    """
    if stiffness is not None:
        if any(v is not None for v in (rotational, translational, coupling)):
            raise ParameterError(f"`{name}`: give `stiffness` or the blocks, not both")
        return as_symmetric_psd(stiffness, name, 6)
    Kr = np.zeros((3, 3)) if rotational is None else as_symmetric_psd(rotational, f"{name}.rotational", 3)
    Kt = np.zeros((3, 3)) if translational is None else as_symmetric_psd(translational, f"{name}.translational", 3)
    Kc = np.zeros((3, 3)) if coupling is None else as_array(np.asarray(coupling, float) * (np.eye(3) if np.ndim(coupling) == 0 else 1), f"{name}.coupling", (3, 3))
    K = np.block([[Kr, Kc.T], [Kc, Kt]])
    return as_symmetric_psd(K, name, 6)


class _TwoFrames:
    """Poses, refs, ports and bindings for elements acting between frames a and b."""

    def _init_frames(self, name, a, b):
        for key, fr in (("a", a), ("b", b)):
            if not isinstance(fr, Frame):
                raise ParameterError(f"`{name}.{key}` must be a Frame (body.frame(name)), got {fr!r}")
        if a.body is b.body:
            raise ModelError(f"{name!r}: frames a and b are on the same body {a.body.name!r}")
        self.fa, self.fb = a, b
        self._na = len(a.refs())

    def ports(self):
        return (Port("a", 6, "in", frame=self.fa.label), Port("b", 6, "in", frame=self.fb.label))

    def port_bindings(self):
        return {"a": (self.fa.body, self.fa.name), "b": (self.fb.body, self.fb.name)}

    def state_refs(self):
        return self.fa.refs() + self.fb.refs()

    def _poses(self, refs):
        Ha = self.fa.pose(refs[0] if self._na else None)
        Hb = self.fb.pose(refs[self._na] if self.fb.moving else None)
        return Ha, Hb

    def _pose_rate_matrix(self, refs):
        """B_e: pose rates of the moving bodies from the port flows (frame twists)."""
        blocks = []
        cols = []
        for k, fr in enumerate((self.fa, self.fb)):
            if fr.moving:
                pose = refs[0] if k == 0 else refs[self._na]
                blocks.append(pose_rate_map(pose) @ se3.Ad(fr.H_BF))  # T_B = Ad(H_BF) T_F
                cols.append(k)
        B = np.zeros((7 * len(blocks), 12))
        for i, (blk, k) in enumerate(zip(blocks, cols)):
            B[7 * i : 7 * i + 7, 6 * k : 6 * k + 6] = blk
        return B

    def _pose_gradient(self, refs, efforts):
        """grad V over the moving bodies' poses from the exact port efforts (dV/dT_F)."""
        out = []
        for k, (fr, e) in enumerate(zip((self.fa, self.fb), efforts)):
            if fr.moving:
                pose = refs[0] if k == 0 else refs[self._na]
                out.append(pose_gradient(pose, se3.Ad(se3.inverse(fr.H_BF)).T @ e))
        return np.concatenate(out) if out else np.zeros(0)

    def _kernel(self, function, F):
        """A `Kernel` of `porthamiltonian.kernels.bodies` for this pair of frames (None if both
        are on the ground: nothing moves)."""
        if not (self.fa.moving or self.fb.moving):
            return None
        return Kernel(function, np.asarray(F, dtype=np.float64),
                      np.array((self.fa.moving, self.fb.moving), dtype=np.int64))

    def _frames_parameters(self):
        return {"a": [self.fa.body, self.fa.name], "b": [self.fb.body, self.fb.name]}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        """Rebuild from `parameters()` (frames saved as [body, frame name])."""
        params = dict(params)
        a, b = params.pop("a"), params.pop("b")
        return cls(name, a[0].frame(a[1]), b[0].frame(b[1]), **params)


class _PoseSpring(_TwoFrames, StorageElement):
    """A storage without state of its own: V depends on the two frames' poses only, its
    port efforts (`outputs`) are dV/dT_F, and the pose rates come from the port flows."""

    def rates(self, t, x, refs, inputs):
        return np.zeros(0)

    def input_matrix(self, t, x, refs):
        return np.zeros((0, 12))

    def output_jacobian(self, t, x, refs):
        return np.zeros((12, 0))

    def gradient(self, x, refs):
        return self._pose_gradient(refs, self.outputs(0.0, x, refs))

    def structure(self, t, x, refs):
        B = self._pose_rate_matrix(refs)
        return np.zeros((B.shape[0], B.shape[0])), B


@register_element
class SpatialSpring(_PoseSpring):
    """Geometric spring on the relative pose of frame b with respect to frame a.

    With H_ab = H_Wa^-1 H_Wb, the rest pose H_0 and xi = log(H_0^-1 H_ab) (exponential
    coordinates, (phi, rho)), the potential is V = 1/2 xi . K . xi. Its exact gradient gives
    the wrench in frame b (T_ab_b = J_r(xi) dxi/dt, docs/math.md sec. 1)::

        W = J_r(xi)^-T K xi,    e_b = W,    e_a = -Ad(H_ba)^T W

    so that e_a . T_a + e_b . T_b = dV/dt. V depends only on the relative pose: it is
    invariant to the choice of world frame. (The log map is singular at a relative rotation
    of pi: the spring is meant for rotations well below that.)

    Parameters
    ----------
    name : str
    a, b : Frame
        The two frames (on different bodies; one may be on the ground).
    stiffness : array_like, shape (6, 6), optional
        Symmetric positive semidefinite, for (rotation, translation) [N m/rad, N/m, coupling N/rad].
    rotational, translational, coupling : array_like (3, 3) or float, optional
        The blocks K_r, K_t, K_c of K = [[K_r, K_c^T], [K_c, K_t]] instead of `stiffness`.
    rest : array_like, shape (4, 4), optional
        Rest relative pose H_0 (default identity: the frames coincide at rest).
    """

    type_name = "SpatialSpring"

    def __init__(self, name, a, b, *, stiffness=None, rotational=None, translational=None, coupling=None, rest=None):
        StorageElement.__init__(self, name)
        self._init_frames(name, a, b)
        self.K = stiffness_matrix(f"{name}.stiffness", stiffness, rotational=rotational, translational=translational, coupling=coupling)
        self.rest = np.eye(4) if rest is None else se3.as_se3(rest, f"{name}.rest")
        self._rest_inv = se3.inverse(self.rest)

    def port_types(self):
        return ("C", "C")

    def _xi(self, refs):
        Ha, Hb = self._poses(refs)
        Hab = se3_inverse(Ha) @ Hb
        return se3.log(self._rest_inv @ Hab), Hab

    def energy(self, x, refs):
        xi, _ = self._xi(refs)
        return 0.5 * float(xi @ self.K @ xi)

    def wrench(self, refs):
        """(W, H_ab): the spring wrench in frame b and the relative pose."""
        xi, Hab = self._xi(refs)
        W = se3.right_jacobian_inverse(xi).T @ (self.K @ xi)
        return W, Hab

    def outputs(self, t, x, refs):
        W, Hab = self.wrench(refs)
        Ad_ba = adjoint(se3_inverse(Hab))
        return (-(Ad_ba.T @ W), W)

    def kernel(self, role):
        if role != "outputs":
            return None
        H = [fr.H_BF if fr.moving else fr.pose() for fr in (self.fa, self.fb)]
        return self._kernel(_kernels.spatial_spring_outputs,
                            np.concatenate([np.ravel(A) for A in (H[0], H[1], self.K, self._rest_inv)]))

    def parameters(self):
        return {**self._frames_parameters(), "stiffness": self.K.tolist(), "rest": self.rest.tolist()}


@register_element
class SpatialDamper(_TwoFrames, ResistorElement):
    """Linear damper on the relative twist of frame b with respect to frame a.

    T_ab_b = T_b - Ad(H_ba) T_a (twist of b relative to a, in b); W = D T_ab_b;
    e_b = W, e_a = -Ad(H_ba)^T W. Dissipated power T_ab_b . D . T_ab_b >= 0.

    Parameters
    ----------
    name : str
    a, b : Frame
    damping : array_like, shape (6, 6)
        Symmetric positive semidefinite [N m s/rad, N s/m] (or blocks as for SpatialSpring:
        rotational, translational, coupling).
    """

    type_name = "SpatialDamper"
    linear = True

    def __init__(self, name, a, b, *, damping=None, rotational=None, translational=None, coupling=None):
        ResistorElement.__init__(self, name)
        self._init_frames(name, a, b)
        self.D = stiffness_matrix(f"{name}.damping", damping, rotational=rotational, translational=translational, coupling=coupling)

    def causalities(self):
        return ((EFFORT_OUT, EFFORT_OUT),)

    def _Ad_ba(self, refs):
        Ha, Hb = self._poses(refs)
        return adjoint(se3_inverse(Hb) @ Ha)

    def law(self, k, t, inputs, refs):
        Ad = self._Ad_ba(refs)
        W = self.D @ (inputs[1] - Ad @ inputs[0])
        return (-(Ad.T @ W), W)

    def law_jacobian(self, k, t, inputs, refs):
        Ad = self._Ad_ba(refs)
        G = np.hstack((-Ad, np.eye(6)))
        return G.T @ self.D @ G

    def kernel(self, role):
        H = [fr.H_BF if fr.moving else fr.pose() for fr in (self.fa, self.fb)]
        F = np.concatenate((np.ravel(H[0]), np.ravel(H[1]), np.ravel(self.D)))
        if role == "law":
            return self._kernel(_kernels.spatial_damper_law, F)
        if role == "law_jacobian":
            return self._kernel(_kernels.spatial_damper_law_jacobian, F)
        return None

    def parameters(self):
        return {**self._frames_parameters(), "damping": self.D.tolist()}


class _PointPair(_TwoFrames):
    """Geometry of the line between a point fixed in frame a and one fixed in frame b."""

    def _init_points(self, name, point_a, point_b, coefficient):
        """Attachment points and the packed parameters `_F` (kernels.bodies.pack_point_pair)."""
        self.ra = np.zeros(3) if point_a is None else as_array(point_a, f"{name}.point_a", (3,))
        self.rb = np.zeros(3) if point_b is None else as_array(point_b, f"{name}.point_b", (3,))
        # a frame on the ground is packed with its world pose and read at the identity pose
        Ha = self.fa.H_BF if self.fa.moving else self.fa.pose()
        Hb = self.fb.H_BF if self.fb.moving else self.fb.pose()
        self._F = _kernels.pack_point_pair(Ha, Hb, self.ra, self.rb, coefficient)

    def _pose_args(self, refs):
        """The two body poses the kernels read (`IDENTITY_POSE` for a frame on the ground)."""
        xa = refs[0] if self._na else _kernels.IDENTITY_POSE
        xb = refs[self._na] if self.fb.moving else _kernels.IDENTITY_POSE
        return xa, xb

    def _check_length(self, L):
        if L < 1e-12:
            raise ModelError(f"{self.label}: the two points coincide (length {L:.3g} m): the line direction is undefined")

    def _line(self, refs):
        """(length, g): g . (T_a, T_b) = d(length)/dt."""
        L, g = _kernels.point_line(self._F, *self._pose_args(refs))
        self._check_length(L)
        return L, g

    def length(self, refs):
        """Current distance between the two points [m]."""
        return self._line(refs)[0]


@register_element
class PointSpring(_PointPair, _PoseSpring):
    """Linear spring between a point of frame a and a point of frame b.

    V = 1/2 k (L - L0)^2 with L the distance. With g such that dL/dt = g . (T_a, T_b), the
    efforts are (e_a, e_b) = k (L - L0) g: the exact gradient of V.

    Parameters
    ----------
    name : str
    a, b : Frame
    stiffness : float [N/m], >= 0
    rest_length : float [m], >= 0
    point_a, point_b : array_like, shape (3,) [m]
        Attachment points in the frames' coordinates (default their origins).
    """

    type_name = "PointSpring"

    def __init__(self, name, a, b, *, stiffness, rest_length=0.0, point_a=None, point_b=None):
        StorageElement.__init__(self, name)
        self._init_frames(name, a, b)
        self.k = as_finite_float(stiffness, f"{name}.stiffness", nonnegative=True)
        self.L0 = as_finite_float(rest_length, f"{name}.rest_length", nonnegative=True)
        self._init_points(name, point_a, point_b, self.k)

    def port_types(self):
        return ("C", "C")

    def energy(self, x, refs):
        L = self._line(refs)[0]
        return 0.5 * self.k * (L - self.L0) ** 2

    def outputs(self, t, x, refs):
        L, e = _kernels.point_spring_efforts(self._F, *self._pose_args(refs), self.L0)
        self._check_length(L)
        return (e[:6], e[6:])

    def kernel(self, role):
        if role == "outputs":
            return self._kernel(_kernels.point_spring_outputs, np.append(self._F, self.L0))
        return None

    def parameters(self):
        return {**self._frames_parameters(), "stiffness": self.k, "rest_length": self.L0,
                "point_a": self.ra.tolist(), "point_b": self.rb.tolist()}


@register_element
class PointDamper(_PointPair, ResistorElement):
    """Linear damper along the line between a point of frame a and a point of frame b.

    Force magnitude c dL/dt along the line: (e_a, e_b) = c g g^T (T_a, T_b); dissipates
    c (dL/dt)^2. Parameters: name, a, b (Frame), damping c [N s/m] >= 0, point_a, point_b.
    """

    type_name = "PointDamper"
    linear = True

    def __init__(self, name, a, b, *, damping, point_a=None, point_b=None):
        ResistorElement.__init__(self, name)
        self._init_frames(name, a, b)
        self.c = as_finite_float(damping, f"{name}.damping", nonnegative=True)
        self._init_points(name, point_a, point_b, self.c)

    def causalities(self):
        return ((EFFORT_OUT, EFFORT_OUT),)

    def law(self, k, t, inputs, refs):
        L, e = _kernels.point_damper_efforts(self._F, *self._pose_args(refs), inputs[0], inputs[1])
        self._check_length(L)
        return (e[:6], e[6:])

    def law_jacobian(self, k, t, inputs, refs):
        g = self._line(refs)[1]
        return self.c * np.outer(g, g)

    def kernel(self, role):
        if role == "law":
            return self._kernel(_kernels.point_damper_law, self._F)
        if role == "law_jacobian":
            return self._kernel(_kernels.point_damper_law_jacobian, self._F)
        return None

    def parameters(self):
        return {**self._frames_parameters(), "damping": self.c, "point_a": self.ra.tolist(), "point_b": self.rb.tolist()}
