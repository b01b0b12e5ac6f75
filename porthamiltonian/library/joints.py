"""Joints as ideal constraints between two markers, by locking relative degrees of freedom.

The lock formulation (Tasora & Righettini, *Sliding contact between freeform surfaces*, 2003, sec.
3): marker M on body 1 and marker N on body 2; the
relative pose H_MN = H_WM^-1 H_WN has rotation R and translation p (N's origin in M
coordinates). A joint locks a subset of the six relative degrees of freedom, ordered like
twists: rotations about the M axes (x, y, z), then translations along them::

    weld            lock all six
    spherical       lock translations                     (rotations free)
    revolute        lock translations, rotations x, y     (rotation about z free)
    prismatic       lock rotations, translations x, y     (translation along z free)
    cylindrical     lock rotations x, y, translations x, y
    point_on_line   lock translations x, y                (N's origin on M's z axis)
    point_on_plane  lock translation z                    (N's origin on M's xy plane)

Kinematics (all in M coordinates). With T_MN = vee(dH_MN/dt H_MN^-1) = (omega, v):
    c (rotation rows)    = omega_i
    c (translation rows) = (dp/dt)_i = (v - hat(p) omega)_i
The ports are bonded to the two bodies' "B" ports: the flows are the body twists T_1, T_2.
The Jacobian is J = S A(p) [-Ad(H_M1), Ad(H_M2)] with A(p) = [[I, 0], [-hat(p), I]] and S
the row selection. Markers may move on their bodies with a prescribed pose, body twist and
its derivative (`motion_a`, `motion_b`): their velocities enter the velocity bias b and
their accelerations the acceleration bias beta.

Gaps (position level, used by Baumgarte stabilization): translations p_i; rotations: all
three locked -> log(R); two locked, axis k free -> components of R e_k orthogonal to e_k
(arranged so that d(gap)/dt = omega_i exactly on the joint manifold). A single locked
rotation i is not holonomic as omega_i = 0; it is written as Tasora's quaternion lock
q_i = 0 (q the relative quaternion, q_w >= 0), with the row c_i = dq_i/dt =
1/2 (q_w omega - q_v x omega)_i, so that d(gap)/dt = c exactly.
"""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_array
from porthamiltonian.bondgraph.element import ConstraintElement, Kernel, register_element
from porthamiltonian.bondgraph.ports import Port
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.kernels import joints as _kjoints
from porthamiltonian.kernels import lie as _klie
from porthamiltonian.lie import quaternion, se3, so3

from .rigid_body import Frame, _cross

__all__ = ["Joint", "JOINT_LOCKS", "DistanceJoint", "ConstantRotation"]

_ZERO6 = np.zeros(6)   # the twist of a fixed marker (never written: the kernels only read it)

#: lock masks (omega_x, omega_y, omega_z, v_x, v_y, v_z) of the named joints
JOINT_LOCKS = {
    "weld": (1, 1, 1, 1, 1, 1),
    "spherical": (0, 0, 0, 1, 1, 1),
    "revolute": (1, 1, 0, 1, 1, 1),
    "prismatic": (1, 1, 1, 1, 1, 0),
    "cylindrical": (1, 1, 0, 1, 1, 0),
    "point_on_line": (0, 0, 0, 1, 1, 0),
    "point_on_plane": (0, 0, 0, 0, 0, 1),
}


class ConstantRotation:
    """A prescribed marker motion: constant-speed rotation about one of the marker's own axes,
    ``H(t) = H0 Rot(axis, omega t)``, body twist ``(omega axis, 0)`` (constant).

    A callable ``t -> (H, T, dT)`` as `Joint`'s `motion_a`/`motion_b` take, that model files
    can save (Python callables cannot be).

    Parameters
    ----------
    H0 : array_like, shape (4, 4)
        The marker's pose at t = 0 in its body.
    axis : array_like, shape (3,)
        Unit axis of the rotation, in the marker's frame.
    omega : float [rad/s]
    """

    def __init__(self, H0, axis, omega):
        self.H0 = se3.as_se3(H0, "H0")
        a = as_array(axis, "axis", (3,))
        if not abs(float(np.linalg.norm(a)) - 1.0) < 1e-12:
            raise ParameterError(f"`axis` must be a unit vector, got {a.tolist()} (norm {np.linalg.norm(a):.6g})")
        self.axis = a
        self.omega = float(as_array(omega, "omega", ()))
        self._twist = np.concatenate((self.omega * a, np.zeros(3)))

    def __call__(self, t):
        return self.H0 @ se3.make(so3.exp(self.omega * t * self.axis), np.zeros(3)), self._twist.copy(), np.zeros(6)

    def parameters(self):
        return {"H0": self.H0.tolist(), "axis": self.axis.tolist(), "omega": self.omega}

    def __repr__(self):
        return f"ConstantRotation(axis={self.axis.tolist()}, omega={self.omega!r})"


def _motion_spec(motion, label):
    if motion is None:
        return None
    if isinstance(motion, ConstantRotation):
        return {"ConstantRotation": motion.parameters()}
    from porthamiltonian.errors import SerializationError

    raise SerializationError(f"{label}: a prescribed marker motion given as a Python callable cannot be saved; use "
                             "a ConstantRotation (or another motion with parameters)")


def _motion_from_spec(spec):
    return None if spec is None else ConstantRotation(**spec["ConstantRotation"])


def _motion(fn, name, H_fixed):
    if fn is None:
        return None
    if not callable(fn):
        raise ParameterError(f"`{name}` must be a callable t -> (H_BM, T_BM_M, dT_BM_M/dt), got {fn!r}")
    H, T, dT = fn(0.0)
    se3.as_se3(H, f"{name}(0)[0]")
    as_array(T, f"{name}(0)[1]", (6,))
    as_array(dT, f"{name}(0)[2]", (6,))
    return fn


@register_element
class Joint(ConstraintElement):
    """Ideal joint locking relative degrees of freedom between two markers (module docs).

    Parameters
    ----------
    name : str
    marker_a, marker_b : Frame
        Marker frames M (on body 1 or the ground) and N (on body 2 or the ground), given as
        body frames (``body.frame("hinge")``) or built with `Frame(body, name, H_BM)`.
    kind : str, optional
        One of `JOINT_LOCKS` ("revolute", ...), or give `lock`.
    lock : sequence of 6 bools, optional
        Which relative degrees of freedom (rotations x, y, z; translations x, y, z) are locked.
    motion_a, motion_b : callable, optional
        Prescribed marker motion on its body: ``t -> (H_BM(t), T_BM_M(t), dT_BM_M/dt(t))``
        (pose, body twist of the marker relative to the body in marker coordinates, and its
        time derivative). Without it the marker is fixed at its frame.
    stabilization : (float, float), optional
        Baumgarte (alpha, beta) [1/s]; default: the compile option.

    Notes
    -----
    Ports "a" and "b" are expressed in the body frames of the markers' bodies, not in the
    markers: bond them from the bodies' "B" ports (``bg.connect(body.frame("B").port,
    (joint, "a"))``), whatever the markers (see `Frame`). The multipliers are the locked
    components of the constraint wrench; `reactions` gives the wrenches on the two bodies.
    """

    type_name = "Joint"

    def __init__(self, name, marker_a, marker_b, *, kind=None, lock=None, motion_a=None, motion_b=None,
                 stabilization=None):
        super().__init__(name)
        for key, fr in (("marker_a", marker_a), ("marker_b", marker_b)):
            if not isinstance(fr, Frame):
                raise ParameterError(f"`{name}.{key}` must be a Frame (body.frame(...)), got {fr!r}")
        if marker_a.body is marker_b.body:
            raise ModelError(f"joint {name!r}: both markers are on {marker_a.body.name!r}")
        if (kind is None) == (lock is None):
            raise ParameterError(f"joint {name!r}: give exactly one of `kind` {sorted(JOINT_LOCKS)} or `lock`")
        if kind is not None:
            if kind not in JOINT_LOCKS:
                import difflib

                close = difflib.get_close_matches(str(kind), list(JOINT_LOCKS), n=1)
                raise ParameterError(
                    f"joint {name!r}: unknown kind {kind!r}; known kinds are {sorted(JOINT_LOCKS)}"
                    + (f" (did you mean {close[0]!r}?)" if close else "")
                )
            lock = JOINT_LOCKS[kind]
        lock = np.asarray(lock, dtype=bool)
        if lock.shape != (6,) or not lock.any():
            raise ParameterError(f"joint {name!r}: `lock` must be 6 booleans with at least one True, got {lock.tolist()}")
        self.kind = kind
        self.lock = lock
        self.rows = np.flatnonzero(lock)
        self.ma, self.mb = marker_a, marker_b
        self.motion_a = _motion(motion_a, f"{name}.motion_a", marker_a.H_BF)
        self.motion_b = _motion(motion_b, f"{name}.motion_b", marker_b.H_BF)
        self.stabilization = None if stabilization is None else tuple(float(s) for s in stabilization)
        self._na = len(marker_a.refs())
        self._rot = np.flatnonzero(lock[:3])

    # ---- declaration
    @property
    def n_constraints(self):
        return int(self.lock.sum())

    def ports(self):
        return (Port("a", 6, "in", frame=f"{self.ma.body.name}.B"), Port("b", 6, "in", frame=f"{self.mb.body.name}.B"))

    def port_bindings(self):
        return {"a": (self.ma.body, "B"), "b": (self.mb.body, "B")}

    def state_refs(self):
        return self.ma.refs() + self.mb.refs()

    # ---- kinematics
    def _markers(self, t, refs):
        """Poses H_W1, H_W2, marker poses on the bodies and marker twists/accelerations."""
        H_W1 = _klie.pose_to_matrix(refs[0]) if self.ma.moving else self.ma.body.H_WG
        H_W2 = _klie.pose_to_matrix(refs[self._na]) if self.mb.moving else self.mb.body.H_WG
        if self.motion_a is None:
            H_1M, T_1M, dT_1M = self.ma.H_BF, _ZERO6, _ZERO6
        else:
            H_1M, T_1M, dT_1M = (np.ascontiguousarray(v, float) for v in self.motion_a(t))
        if self.motion_b is None:
            H_2N, T_2N, dT_2N = self.mb.H_BF, _ZERO6, _ZERO6
        else:
            H_2N, T_2N, dT_2N = (np.ascontiguousarray(v, float) for v in self.motion_b(t))
        return H_W1, H_W2, H_1M, T_1M, dT_1M, H_2N, T_2N, dT_2N

    def _geometry(self, t, refs):
        H_W1, H_W2, H_1M, T_1M, dT_1M, H_2N, T_2N, dT_2N = self._markers(t, refs)
        H_WM = H_W1 @ H_1M
        H_WN = H_W2 @ H_2N
        H_MN = se3.inverse(H_WM) @ H_WN
        H_M1 = se3.inverse(H_1M)
        H_N2 = se3.inverse(H_2N)
        return H_MN, H_M1, H_N2, T_1M, dT_1M, T_2N, dT_2N

    def _operator(self, H_MN, w=None, pdot=None):
        """S (rows of the constraint operator on T_MN) and, given omega and dp/dt, dS/dt.

        Translation rows: dp/dt = v - hat(p) omega. Rotation rows: omega_i, except when a
        single rotation is locked: then the row is d(q_i)/dt = 1/2 (q_w omega - q_v x omega)_i,
        the derivative of the imaginary part q_i of the relative quaternion (Tasora's lock
        formulation), which keeps the constraint holonomic (omega_i = 0 alone is not).
        """
        p = H_MN[:3, 3]
        op = np.eye(6)
        op[3:, :3] = -so3.hat(p)
        dop = None
        if w is not None:
            dop = np.zeros((6, 6))
            dop[3:, :3] = -so3.hat(pdot)
        if self._rot.size == 1:
            q = quaternion.from_matrix(H_MN[:3, :3])
            Q = 0.5 * (q[0] * np.eye(3) - so3.hat(q[1:]))
            op[:3, :3] = Q
            if w is not None:
                # dq/dt = 1/2 (0, omega) (x) q, omega the relative angular velocity in M
                qdot = 0.5 * np.concatenate(([-(w @ q[1:])], q[0] * w + _cross(w, q[1:])))
                dop[:3, :3] = 0.5 * (qdot[0] * np.eye(3) - so3.hat(qdot[1:]))
        return op[self.rows], (None if dop is None else dop[self.rows])

    def terms(self, t, x, refs):
        if self._rot.size != 1:   # compiled (porthamiltonian.kernels.joints)
            H_W1, H_W2, H_1M, T_1M, _, H_2N, T_2N, _ = self._markers(t, refs)
            J, b, H_MN = _kjoints.terms(H_W1, H_W2, H_1M, T_1M, H_2N, T_2N, self.rows)
            return J, b, self._gap_of(H_MN)
        H_MN, H_M1, H_N2, T_1M, dT_1M, T_2N, dT_2N = self._geometry(t, refs)
        S, _ = self._operator(H_MN)
        J = np.hstack((-S @ se3.Ad(H_M1), S @ se3.Ad(H_MN @ H_N2)))
        if self.motion_a is None and self.motion_b is None:
            b = np.zeros(self.n_constraints)
        else:
            b = S @ (se3.Ad(H_MN) @ T_2N - T_1M)
        return J, b, self._gap_of(H_MN)

    def kernel(self, role):
        """Compiled kernels (`porthamiltonian.kernels.joints`) for joints locking 0, 2 or 3
        rotations with fixed or `ConstantRotation` markers (the quaternion row of a single
        locked rotation and other prescribed motions stay in Python)."""
        if role not in ("terms", "acceleration_bias") or self._rot.size == 1:
            return None
        motions = (self.motion_a, self.motion_b)
        if any(m is not None and not isinstance(m, ConstantRotation) for m in motions):
            return None
        fixed = [np.eye(4) if fr.moving else fr.body.H_WG for fr in (self.ma, self.mb)]
        H0 = [fr.H_BF if m is None else m.H0 for fr, m in zip((self.ma, self.mb), motions)]
        spin = [np.zeros(4) if m is None else np.append(m.axis, m.omega) for m in motions]
        F = np.concatenate([np.ravel(H) for H in (*H0, *fixed)] + spin).astype(float)
        free = int(({0, 1, 2} - set(self._rot.tolist())).pop()) if self._rot.size == 2 else -1
        I = np.concatenate(([int(self.ma.moving), int(self.mb.moving), self._na, free, self._rot.size,
                             int(motions[0] is not None), int(motions[1] is not None)], self.rows)).astype(np.int64)
        fn = _kjoints.joint_terms if role == "terms" else _kjoints.joint_acceleration_bias
        return Kernel(fn, F, I)

    def jacobian(self, t, x, refs):
        return self.terms(t, x, refs)[0]

    def velocity_bias(self, t, x, refs):
        return self.terms(t, x, refs)[1]

    def acceleration_bias(self, t, x, refs, flows):
        T1, T2 = flows
        if self._rot.size != 1:   # compiled (porthamiltonian.kernels.joints)
            return _kjoints.acceleration_bias(*self._markers(t, refs), T1, T2, self.rows)
        H_MN, H_M1, H_N2, T_1M, dT_1M, T_2N, dT_2N = self._geometry(t, refs)
        Ad_MN = se3.Ad(H_MN)
        T_M = se3.Ad(H_M1) @ T1 + T_1M  # body twist of marker M
        Ad_N2 = se3.Ad(H_N2)
        T_N = Ad_N2 @ T2 + T_2N  # body twist of marker N
        T_rel = Ad_MN @ T_N - T_M  # twist of N relative to M, in M
        p = H_MN[:3, 3]
        w = T_rel[:3]
        pdot = T_rel[3:] + _cross(w, p)
        S, dS = self._operator(H_MN, w, pdot)
        # d(T_rel)/dt without the body accelerations (those are J dT/dt)
        rest = (
            Ad_MN @ (-se3.ad(T_2N) @ (Ad_N2 @ T2) + dT_2N)
            - (-se3.ad(T_1M) @ (se3.Ad(H_M1) @ T1) + dT_1M)
            - se3.ad(T_M) @ (Ad_MN @ T_N)
        )
        return dS @ T_rel + S @ rest

    def gap(self, t, x, refs):
        return self._gap_of(self._geometry(t, refs)[0])

    def _gap_of(self, H_MN):
        R, p = H_MN[:3, :3], H_MN[:3, 3]
        g_rot = np.zeros(3)
        nr = self._rot.size
        if nr == 3:
            g_rot = so3.log(R)
        elif nr == 2:
            k = ({0, 1, 2} - set(self._rot.tolist())).pop()
            i, j = (k + 1) % 3, (k + 2) % 3
            ek = R[:, k]
            g_rot[i] = -ek[j]
            g_rot[j] = ek[i]
        elif nr == 1:
            i = int(self._rot[0])
            g_rot[i] = quaternion.from_matrix(R)[1 + i]
        g = np.concatenate((g_rot, p))
        return g[self.rows]

    def reactions(self, t, x, refs, lam):
        """Constraint wrenches on body 1 and body 2, each in its body frame: -(J_k^T lambda)."""
        J = self.jacobian(t, x, refs)
        return -(J[:, :6].T @ lam), -(J[:, 6:].T @ lam)

    def parameters(self):
        return {
            "marker_a": [self.ma.body, self.ma.name, self.ma.H_BF.tolist()],
            "marker_b": [self.mb.body, self.mb.name, self.mb.H_BF.tolist()],
            "lock": self.lock.astype(int).tolist(),
            "stabilization": list(self.stabilization) if self.stabilization else None,
            "motion_a": _motion_spec(self.motion_a, self.label),
            "motion_b": _motion_spec(self.motion_b, self.label),
        }

    @classmethod
    def from_parameters(cls, name, params, resolve):
        a, b = params["marker_a"], params["marker_b"]
        fa = Frame(a[0], a[1], np.asarray(a[2], float))
        fb = Frame(b[0], b[1], np.asarray(b[2], float))
        return cls(name, fa, fb, lock=params["lock"], stabilization=params.get("stabilization"),
                   motion_a=_motion_from_spec(params.get("motion_a")), motion_b=_motion_from_spec(params.get("motion_b")))


@register_element
class DistanceJoint(ConstraintElement):
    """Keeps a point of body a and a point of body b at a fixed distance: a massless rigid
    link with ball joints at both ends (the "massless link" of Tasora & Righettini 2003, sec. 6.3).

    With p_a, p_b the points in the world, d = p_b - p_a, ``L = |d|``, ``u = d / L``::

        g = L - length,   c = u . (v_pb - v_pa) = dg/dt
        dc/dt = J dT/dt + (|dv|^2 - (u . dv)^2) / L + u . (a_b - a_a)

    where dv = v_pb - v_pa and a_k = R_k (w_k x (v_k + w_k x r_k)) is the part of a point's
    acceleration without body accelerations (body twist (w_k, v_k), point r_k in body k).
    The multiplier is the link's tension (positive pulls the points together).

    Parameters
    ----------
    name : str
    frame_a, frame_b : Frame
        Frames on the two bodies (either may be on the ground).
    length : float [m]
        Positive.
    point_a, point_b : array_like, shape (3,), optional
        The points in their frames' coordinates (default the frame origins).
    stabilization : (float, float), optional
    """

    type_name = "DistanceJoint"

    def __init__(self, name, frame_a, frame_b, length, *, point_a=None, point_b=None, stabilization=None):
        super().__init__(name)
        for key, fr in (("frame_a", frame_a), ("frame_b", frame_b)):
            if not isinstance(fr, Frame):
                raise ParameterError(f"`{name}.{key}` must be a Frame (body.frame(...)), got {fr!r}")
        if frame_a.body is frame_b.body:
            raise ModelError(f"distance joint {name!r}: both points are on {frame_a.body.name!r}")
        self.fa, self.fb = frame_a, frame_b
        self.length = float(length)
        if not (np.isfinite(self.length) and self.length > 0):
            raise ParameterError(f"`{name}.length` must be a positive finite number, got {length!r}")
        pa = np.zeros(3) if point_a is None else as_array(point_a, f"{name}.point_a", (3,))
        pb = np.zeros(3) if point_b is None else as_array(point_b, f"{name}.point_b", (3,))
        # the points in their bodies' frames
        self.ra = frame_a.H_BF[:3, :3] @ pa + frame_a.H_BF[:3, 3]
        self.rb = frame_b.H_BF[:3, :3] @ pb + frame_b.H_BF[:3, 3]
        self.stabilization = None if stabilization is None else tuple(float(s) for s in stabilization)
        self._na = len(frame_a.refs())

    @property
    def n_constraints(self):
        return 1

    def ports(self):
        return (Port("a", 6, "in", frame=f"{self.fa.body.name}.B"), Port("b", 6, "in", frame=f"{self.fb.body.name}.B"))

    def port_bindings(self):
        return {"a": (self.fa.body, "B"), "b": (self.fb.body, "B")}

    def state_refs(self):
        return self.fa.refs() + self.fb.refs()

    def _rotations_and_points(self, refs):
        Ra = self.fa.body.pose_matrix(refs[0]) if self.fa.moving else self.fa.body.H_WG
        Rb = self.fb.body.pose_matrix(refs[self._na]) if self.fb.moving else self.fb.body.H_WG
        pa = Ra[:3, :3] @ self.ra + Ra[:3, 3]
        pb = Rb[:3, :3] @ self.rb + Rb[:3, 3]
        return Ra[:3, :3], Rb[:3, :3], pa, pb

    def terms(self, t, x, refs):
        Ra, Rb, pa, pb = self._rotations_and_points(refs)
        d = pb - pa
        L = float(np.sqrt(d @ d))
        u = d / L
        ua, ub = Ra.T @ u, Rb.T @ u
        J = np.concatenate((-_cross(self.ra, ua), -ua, _cross(self.rb, ub), ub))[None, :]
        return J, np.zeros(1), np.array([L - self.length])

    def jacobian(self, t, x, refs):
        return self.terms(t, x, refs)[0]

    def gap(self, t, x, refs):
        return self.terms(t, x, refs)[2]

    def acceleration_bias(self, t, x, refs, flows):
        Ra, Rb, pa, pb = self._rotations_and_points(refs)
        d = pb - pa
        L = float(np.sqrt(d @ d))
        u = d / L
        (wa, va), (wb, vb) = (flows[0][:3], flows[0][3:]), (flows[1][:3], flows[1][3:])
        vpa = Ra @ (va + _cross(wa, self.ra))
        vpb = Rb @ (vb + _cross(wb, self.rb))
        dv = vpb - vpa
        acc_a = Ra @ _cross(wa, va + _cross(wa, self.ra))
        acc_b = Rb @ _cross(wb, vb + _cross(wb, self.rb))
        un = u @ dv
        return np.array([(dv @ dv - un * un) / L + u @ (acc_b - acc_a)])

    def parameters(self):
        return {
            "frame_a": [self.fa.body, self.fa.name, self.fa.H_BF.tolist()],
            "frame_b": [self.fb.body, self.fb.name, self.fb.H_BF.tolist()],
            "length": self.length, "point_a": self.ra.tolist(), "point_b": self.rb.tolist(),
            "stabilization": list(self.stabilization) if self.stabilization else None,
        }

    @classmethod
    def from_parameters(cls, name, params, resolve):
        a, b = params["frame_a"], params["frame_b"]
        # points were saved in body coordinates: rebuild with body-frame markers
        fa = Frame(a[0], "B", np.eye(4))
        fb = Frame(b[0], "B", np.eye(4))
        return cls(name, fa, fb, params["length"], point_a=params["point_a"], point_b=params["point_b"],
                   stabilization=params.get("stabilization"))
