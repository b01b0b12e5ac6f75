"""Actuation at joints: a scalar port on a joint's free axis, and torque sources with limits.

A lock `Joint` has no state of its own: the joint angle (or slide) is a function of the two
bodies' poses and the joint speed a linear map of their twists. `joint_axis` builds the
component that exposes that speed as an ordinary scalar bond-graph port::

      body a "B" --6--\\ [a: JointAxisMap] --1--\\
                                                   0 (axis) --1--\\ "axis"  (effort tau, flow w)
      body b "B" --6--\\ [b: JointAxisMap] --1--\\

With J = [J_a, J_b] the joint's constraint row of the free axis (`library.joints`: row k of
S A(p) [-Ad(H_M1), Ad(H_M2)]), the joint speed is ``w = J_a T_a + J_b T_b`` and a torque (or
force) tau at the "axis" port acts on the bodies as the wrenches ``J_a^T tau`` and
``J_b^T tau`` (equal and opposite about the axis). Each `JointAxisMap` is a modulated
transformer with modulus ``-J_k`` (the minus puts power *into* the bodies when tau w > 0),
so the component conserves power exactly: ``tau w = W_a . T_a + W_b . T_b``. A ground side
has no map. Any element with a scalar port bonds to "axis": a `JointActuator` (torque
source), a motor's output shaft (`library.motors`), a controller (`library.controllers`).
The articulated body's joint ports (effort = joint torque, flow = joint speed) have the same
sign convention, so these elements bond to them unchanged.

Sign convention at "axis": power tau * w flows from the bonded element into the joint; w is
the speed of marker N (body b) relative to marker M (body a) about / along the axis, in M.
"""

from __future__ import annotations

import numpy as np

from porthamiltonian.bondgraph.element import TwoPortElement, register_element
from porthamiltonian.bondgraph.elements import Se
from porthamiltonian.bondgraph.graph import BondGraph
from porthamiltonian.bondgraph.junctions import Junction0
from porthamiltonian.bondgraph.ports import Port
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.kernels import joints as _kjoints

from .joints import Joint

__all__ = ["AXES", "JointAxisMap", "joint_axis", "add_joint_axis", "JointActuator", "withheld_power"]

#: the names of a joint's six relative degrees of freedom, in the order of `Joint.lock`
AXES = ("rx", "ry", "rz", "tx", "ty", "tz")


def _free_axis(joint, axis):
    """Index (0..5) of the actuated relative degree of freedom of `joint`."""
    if not isinstance(joint, Joint):
        raise ParameterError(f"`joint` must be a library Joint, got {joint!r}")
    free = [k for k in range(6) if not joint.lock[k]]
    if not free:
        raise ModelError(f"cannot actuate joint {joint.name!r}: it is a fixed joint (all six relative degrees "
                         "of freedom locked); an actuator needs a free axis")
    if joint.motion_a is not None or joint.motion_b is not None:
        raise ModelError(f"cannot actuate joint {joint.name!r}: its markers have a prescribed motion; "
                         "actuate an axis or prescribe its motion, not both")
    if axis is None:
        if len(free) > 1:
            raise ParameterError(f"joint {joint.name!r} has {len(free)} free axes "
                                 f"{[AXES[k] for k in free]}: give `axis`, one of them")
        return free[0]
    if axis not in AXES:
        raise ParameterError(f"`axis` must be one of {list(AXES)}, got {axis!r}")
    k = AXES.index(axis)
    if joint.lock[k]:
        raise ModelError(f"cannot actuate axis {axis!r} of joint {joint.name!r}: it is locked; the free axes "
                         f"are {[AXES[j] for j in free]}")
    return k


@register_element
class JointAxisMap(TwoPortElement):
    """Modulated transformer from one body's twist to its share of a joint's axis speed.

    ``f2 = -J_side T_side`` (scalar), ``e1 = -J_side^T e2`` (module docs, sign convention).

    Parameters
    ----------
    name : str
    joint : Joint
        A lock joint without prescribed marker motion.
    side : {"a", "b"}
        Which body: the one of marker a (M) or of marker b (N). It must be a moving body.
    axis : int
        The free relative degree of freedom, an index into `AXES`.
    """

    type_name = "JointAxisMap"
    kind = "TF"

    def __init__(self, name, joint, side, axis):
        super().__init__(name)
        if side not in ("a", "b"):
            raise ParameterError(f"`{name}.side` must be 'a' or 'b', got {side!r}")
        self.joint = joint
        self.side = side
        self.axis = int(axis)
        self._rows = np.array([self.axis], dtype=np.int64)
        marker = joint.ma if side == "a" else joint.mb
        if not marker.moving:
            raise ModelError(f"{name!r}: side {side!r} of joint {joint.name!r} is the ground; it has no twist to map")
        self._frame = f"{marker.body.name}.B"
        self._cols = slice(0, 6) if side == "a" else slice(6, 12)

    def ports(self):
        return (Port("p1", 6, "in", frame=self._frame), Port("p2", 1, "out"))

    def state_refs(self):
        return self.joint.state_refs()

    @property
    def modulated(self):
        return True

    def modulus(self, t, refs):
        H_W1, H_W2, H_1M, T_1M, _, H_2N, T_2N, _ = self.joint._markers(t, refs)
        J = _kjoints.terms(H_W1, H_W2, H_1M, T_1M, H_2N, T_2N, self._rows)[0]
        return -J[:, self._cols]

    def parameters(self):
        return {"joint": self.joint, "side": self.side, "axis": self.axis}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        return cls(name, params["joint"], params["side"], params["axis"])


def joint_axis(name, joint, *, axis=None):
    """The component exposing a joint's free axis as a scalar port (module docs).

    Parameters
    ----------
    name : str
        Name of the component.
    joint : Joint
        A lock joint with at least one free axis and no prescribed marker motion.
    axis : str, optional
        Which free axis ("rx", "ry", "rz" rotations about marker M's axes, "tx", "ty", "tz"
        translations along them); default the joint's only free axis.

    Returns
    -------
    BondGraph
        Exposed ports: "a" and/or "b" (dim 6, bond them from the bodies' "B" ports; a ground
        side has none) and "axis" (dim 1, effort tau [N m or N], flow w [rad/s or m/s],
        power tau w into the joint). "axis" takes one bond: to drive one axis with several
        elements (a PD controller and a feed-forward torque, say), bond a 1-junction to it
        (common joint speed, torques add) and the elements to the junction.

    Raises
    ------
    ModelError
        The joint is fixed (no free axis), the axis is locked, or a marker has a prescribed
        motion.
    ParameterError
        `joint` is not a Joint, or `axis` is unknown or needed (several free axes).

    Examples
    --------
    >>> axis = add_joint_axis(bg, "hinge_axis", hinge)          # doctest: +SKIP
    >>> bg.add(JointActuator("motor_torque", 0.5)); bg.connect("motor_torque", (axis, "axis"))  # doctest: +SKIP
    """
    k = _free_axis(joint, axis)
    g = BondGraph(name)
    hub = Junction0("axis")
    g.add(hub)
    for side, marker in (("a", joint.ma), ("b", joint.mb)):
        if marker.moving:
            m = JointAxisMap(side, joint, side, k)
            g.add(m)
            g.connect((m, "p2"), hub)
            g.expose(side, (m, "p1"))
    g.expose("axis", hub)
    return g


def add_joint_axis(bg, name, joint, *, axis=None):
    """Add `joint_axis(name, joint, axis=axis)` to `bg` and bond it to the joint's bodies.

    Returns the component; bond any scalar element to its "axis" port.
    """
    g = joint_axis(name, joint, axis=axis)
    bg.add(g)
    for side, marker in (("a", joint.ma), ("b", joint.mb)):
        if marker.moving:
            bg.connect(marker.body.frame("B").port, (g, side))
    return g


@register_element
class JointActuator(Se):
    """Torque (or force) source for a joint axis, with an optional symmetric limit.

    The applied effort is ``tau = clip(u, -limit, limit)`` with u the commanded value (a
    constant, a function of time, or an external input given to `simulate` as ``inputs``,
    e.g. a `library.controllers.FeedbackController`).

    Ledger: the source's supplied energy is the integral of the *applied* tau times the joint
    speed, tau w. The saturation does not store or dissipate anything: the commanded power
    above the limit, (u - tau) w, is never delivered, so it is not booked as supplied, nor as
    dissipated (which would invent a loss that no element takes). `withheld_power` computes
    it from a trajectory for those who want to see what the limit cut.

    Parameters
    ----------
    name : str
    value : float or callable t -> float, optional
        The commanded torque [N m] or force [N]; ignored with ``input=True``.
    limit : float, optional
        Torque limit [N m] or force limit [N], > 0 (default no limit).
    input : bool
        The command is an external input.
    """

    type_name = "JointActuator"

    def __init__(self, name, value=0.0, *, limit=None, input=False, derivative=None):
        super().__init__(name, value, dim=1, input=input, derivative=derivative)
        if limit is not None:
            lim = limit
            if isinstance(lim, (bool, np.bool_)) or not isinstance(lim, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(lim) or lim <= 0:
                raise ParameterError(f"`{name}.limit` must be a positive finite torque, got {limit!r} "
                                     "(rule: limit > 0; give None for no limit)")
            limit = float(lim)
        self.limit = limit

    def command(self, t, u):
        """The commanded (unsaturated) effort, shape (1,)."""
        return np.asarray(super().value(t, u), dtype=float).reshape(1)

    def value(self, t, u):
        c = self.command(t, u)
        return c if self.limit is None else np.clip(c, -self.limit, self.limit)

    def kernel(self, role):
        """The compiled "value" kernel: the input (or the signal) as `Se`'s without a limit; with
        a limit, an input's limited by `porthamiltonian.kernels.inputs.limited_input`, and no
        kernel for a limited signal (the Python path applies its limit)."""
        if self.limit is None:
            return super().kernel(role)
        if self.is_input and role == "value":
            from porthamiltonian.bondgraph.element import Kernel
            from porthamiltonian.kernels import inputs as _kinputs

            return Kernel(_kinputs.limited_input, np.array([self.limit]), np.zeros(0, dtype=np.int64))
        return None

    def value_rate(self, t):
        if self.limit is not None:
            raise ModelError(f"{self.label} drives a constraint through a torque limit: the limited torque has "
                             "no time derivative at the limit; drop the limit or add a compliant element")
        return super().value_rate(t)

    def parameters(self):
        out = super().parameters()
        out["limit"] = self.limit
        out.pop("dim", None)
        return out


def withheld_power(actuator, t, u, speed):
    """Power a torque limit withheld: ``(u - tau) w`` per sample [W].

    Parameters
    ----------
    actuator : JointActuator
    t : array_like, shape (n,) [s]
    u : array_like, shape (n,) or None
        The commands (None for a time-function actuator).
    speed : array_like, shape (n,)
        The joint speed w at the samples [rad/s or m/s].

    Returns
    -------
    ndarray, shape (n,)
    """
    t = np.asarray(t, float)
    w = np.asarray(speed, float).reshape(-1)
    cmd = np.array([actuator.command(ti, None if u is None else np.atleast_1d(u[i]))[0] for i, ti in enumerate(t)])
    app = np.array([actuator.value(ti, None if u is None else np.atleast_1d(u[i]))[0] for i, ti in enumerate(t)])
    return (cmd - app) * w
