"""Joint-space elements of an `ArticulatedBody`: damping, Coulomb friction, springs, limits.

Each acts on one joint of one degree of freedom (revolute, continuous, prismatic) through the
robot's joint port (``robot.joint_port(name)``: flow the joint velocity, effort the torque or
force on the element; the joint receives the opposite), so the ledger books what each one
stores or dissipates under its own name. Bond them from the robot's port::

    bg.connect((robot, robot.joint_port("knee")), (damper, "p"))

or let `add_joint_dynamics` add and bond every element the description asks for (URDF
``dynamics``, MJCF ``damping``/``frictionloss``/``stiffness``, limits).

Laws (q the joint position, v its velocity):

- `JointDamper`: effort c v (dissipates c v^2);
- `JointFriction`: Coulomb friction regularised as the package's sliding friction,
  F_c v / sqrt(v^2 + eps^2) (dissipates F_c v^2 / sqrt(v^2 + eps^2) >= 0);
- `JointSpring`: stores 1/2 k (q - rest)^2, effort k (q - rest);
- `JointLimit`: compliant unilateral stops, stores 1/2 k d^2 with d the overshoot past
  ``lower``/``upper`` (zero between them), plus `JointLimitDamper`, effort ``c |d| v`` past a
  stop (zero at first touch, as a Hunt-Crossley contact: no pull when the stop releases).
"""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_finite_float
from porthamiltonian.bondgraph.element import Kernel, ResistorElement, StorageElement, register_element
from porthamiltonian.bondgraph.ports import EFFORT_OUT, Port, StateRef
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.kernels import articulated as _k

from .articulated_body import ArticulatedBody

__all__ = ["JointDamper", "JointFriction", "JointSpring", "JointLimit", "JointLimitDamper", "add_joint_dynamics"]

_I0 = np.zeros(1, dtype=np.int64)


class _OnJoint:
    """The robot, the joint (one degree of freedom), its port and its index in q."""

    def _init_joint(self, name, robot, joint):
        if not isinstance(robot, ArticulatedBody):
            raise ParameterError(f"`{name}.robot` must be an ArticulatedBody, got {robot!r}")
        j = robot.description.joint(joint)
        if j.nv != 1:
            raise ModelError(f"{name!r}: joint {joint!r} of {robot.label} is {j.kind}; joint elements act on joints of one degree of freedom")
        self.robot, self.joint = robot, j
        self.port_name = robot.joint_port(joint)
        # the generated right-hand side writes one joint's elements together, one block per
        # joint, so that a robot's joints are one compiled helper (`compile.codegen._Gen.component`)
        self.component = f"{robot.name}:{j.name}"
        self._iq = np.array([robot._qo[robot._jindex[joint]]], dtype=np.int64)

    def _default(self, value, key, name):
        v = getattr(self.joint, key) if value is None else value
        return as_finite_float(v, f"{name}.{key}", nonnegative=True)

    def ports(self):
        return (Port("p", 1, "in"),)

    def port_bindings(self):
        return {"p": (self.robot, self.port_name)}

    def _q(self, refs):
        return refs[0][self._iq[0]]


class _JointResistor(_OnJoint, ResistorElement):
    def causalities(self):
        return ((EFFORT_OUT,),)

    def law(self, k, t, inputs, refs):
        return self._law(t, tuple(np.asarray(i, dtype=float) for i in inputs), tuple(refs), self._F, self._iq)

    def law_jacobian(self, k, t, inputs, refs):
        return self._jac(t, tuple(np.asarray(i, dtype=float) for i in inputs), tuple(refs), self._F, self._iq)

    def kernel(self, role):
        if role == "law":
            return Kernel(self._law, self._F, self._iq)
        if role == "law_jacobian":
            return Kernel(self._jac, self._F, self._iq)
        return None


@register_element
class JointDamper(_JointResistor):
    """Viscous joint damping, effort c v [N m s/rad or N s/m] (default: the joint's ``damping``)."""

    type_name = "JointDamper"
    _law = staticmethod(_k.joint_damper_law)
    _jac = staticmethod(_k.joint_damper_law_jacobian)

    def __init__(self, name, robot, joint, *, damping=None):
        ResistorElement.__init__(self, name)
        self._init_joint(name, robot, joint)
        self.c = self._default(damping, "damping", name)
        self._F = np.array([self.c])

    def parameters(self):
        return {"robot": self.robot, "joint": self.joint.name, "damping": self.c}

    def linear_matrix(self, k):
        return np.array([[self.c]])


@register_element
class JointFriction(_JointResistor):
    """Coulomb joint friction F_c [N m or N] (default: the joint's ``friction``), regularised
    below the speed ``speed`` [rad/s or m/s] (default 1e-3)."""

    type_name = "JointFriction"
    _law = staticmethod(_k.joint_friction_law)
    _jac = staticmethod(_k.joint_friction_law_jacobian)

    def __init__(self, name, robot, joint, *, friction=None, speed=1e-3):
        ResistorElement.__init__(self, name)
        self._init_joint(name, robot, joint)
        self.F_c = self._default(friction, "friction", name)
        self.speed = as_finite_float(speed, f"{name}.speed", positive=True)
        self._F = np.array([self.F_c, self.speed])

    def parameters(self):
        return {"robot": self.robot, "joint": self.joint.name, "friction": self.F_c, "speed": self.speed}


@register_element
class JointLimitDamper(_JointResistor):
    """Damping of a joint's stops, effort ``c |d| v`` past a stop (`JointLimit`); reads q."""

    type_name = "JointLimitDamper"
    _law = staticmethod(_k.joint_limit_damper_law)
    _jac = staticmethod(_k.joint_limit_damper_law_jacobian)

    def __init__(self, name, robot, joint, *, damping, lower=None, upper=None):
        ResistorElement.__init__(self, name)
        self._init_joint(name, robot, joint)
        self.c = as_finite_float(damping, f"{name}.damping", nonnegative=True)
        self.lower, self.upper = _limits(name, self.joint, lower, upper)
        self._F = np.array([self.c, self.lower, self.upper])

    def parameters(self):
        return {"robot": self.robot, "joint": self.joint.name, "damping": self.c, "lower": self.lower,
                "upper": self.upper}

    def state_refs(self):
        return (StateRef(self.robot, "q"),)


class _JointPotential(_OnJoint, StorageElement):
    """A storage without state: energy of the joint position read from the robot's q."""

    def port_types(self):
        return ("C",)

    def state_refs(self):
        return (StateRef(self.robot, "q"),)

    def outputs(self, t, x, refs):
        return self._out(t, np.asarray(x, float), (np.asarray(refs[0], float),), self._F, self._iq)

    def kernel(self, role):
        return Kernel(self._out, self._F, self._iq) if role == "outputs" else None

    def rates(self, t, x, refs, inputs):
        return np.zeros(0)

    def input_matrix(self, t, x, refs):
        return np.zeros((0, 1))

    def output_jacobian(self, t, x, refs):
        return np.zeros((1, 0))

    def structure(self, t, x, refs):
        B = np.zeros((len(refs[0]), 1))
        B[self._iq[0], 0] = 1.0   # dq_j/dt = v_j: the port flow
        return np.zeros((len(refs[0]), len(refs[0]))), B

    def gradient(self, x, refs):
        g = np.zeros(len(refs[0]))
        g[self._iq[0]] = self.outputs(0.0, x, refs)[0][0]
        return g


@register_element
class JointSpring(_JointPotential):
    """A spring of stiffness k [N m/rad or N/m] to the position ``rest`` (defaults: the joint's
    ``stiffness`` and ``rest``): stores 1/2 k (q - rest)^2."""

    type_name = "JointSpring"
    _out = staticmethod(_k.joint_spring_outputs)

    def __init__(self, name, robot, joint, *, stiffness=None, rest=None):
        StorageElement.__init__(self, name)
        self._init_joint(name, robot, joint)
        self.k = self._default(stiffness, "stiffness", name)
        r = self.joint.rest if rest is None else rest
        self.rest = as_finite_float(r, f"{name}.rest")
        self._F = np.array([self.k, self.rest])

    def parameters(self):
        return {"robot": self.robot, "joint": self.joint.name, "stiffness": self.k, "rest": self.rest}

    def energy(self, x, refs):
        return float(self.energies(None, (np.asarray(refs[0])[None, :],))[0])

    def energies(self, X, refs):
        """1/2 k (q - rest)^2 at every state of a series (`PHSystem.element_energy_series`): the
        robot's states refs[0] (N, n)."""
        return 0.5 * self.k * (refs[0][:, self._iq[0]] - self.rest) ** 2


@register_element
class JointLimit(_JointPotential):
    """Compliant stops of stiffness k at the joint's limits (default: the description's
    ``lower``/``upper``; an infinite one is no stop): stores 1/2 k d^2, d the overshoot."""

    type_name = "JointLimit"
    _out = staticmethod(_k.joint_limit_outputs)

    def __init__(self, name, robot, joint, *, stiffness, lower=None, upper=None):
        StorageElement.__init__(self, name)
        self._init_joint(name, robot, joint)
        self.k = as_finite_float(stiffness, f"{name}.stiffness", positive=True)
        self.lower, self.upper = _limits(name, self.joint, lower, upper)
        self._F = np.array([self.k, self.lower, self.upper])

    def parameters(self):
        return {"robot": self.robot, "joint": self.joint.name, "stiffness": self.k, "lower": self.lower,
                "upper": self.upper}

    def energy(self, x, refs):
        d = _k.limit_penetration(self._q(refs), self.lower, self.upper)
        return 0.5 * self.k * d * d


def _limits(name, joint, lower, upper):
    lo = joint.lower if lower is None else float(lower)
    hi = joint.upper if upper is None else float(upper)
    if np.isnan(lo) or np.isnan(hi) or not lo < hi:
        raise ParameterError(f"`{name}`: the limits must satisfy lower < upper, got [{lo}, {hi}]")
    if not (np.isfinite(lo) or np.isfinite(hi)):
        raise ModelError(f"{name!r}: joint {joint.name!r} has no finite limit: a JointLimit would never act")
    return lo, hi


def add_joint_dynamics(bg, robot, *, limit_stiffness=None, limit_damping=0.0, friction_speed=1e-3):
    """Add to `bg` (and bond) the joint elements the robot's description asks for.

    For every joint of one degree of freedom: a `JointDamper` if ``damping > 0``, a
    `JointFriction` if ``friction > 0``, a `JointSpring` if ``stiffness > 0``, and, if
    `limit_stiffness` is given, a `JointLimit` (and a `JointLimitDamper` if `limit_damping`
    > 0) where a limit is finite. Names: ``"<robot>-<joint>-damper"`` etc.

    Returns
    -------
    list of Element
        The elements added.
    """
    added = []
    for j in robot.joints:
        if j.nv != 1:
            continue
        base = f"{robot.name}-{_safe_name(j.name)}"
        todo = []
        if j.damping > 0:
            todo.append(JointDamper(f"{base}-damper", robot, j.name))
        if j.friction > 0:
            todo.append(JointFriction(f"{base}-friction", robot, j.name, speed=friction_speed))
        if j.stiffness > 0:
            todo.append(JointSpring(f"{base}-spring", robot, j.name))
        if limit_stiffness is not None and (np.isfinite(j.lower) or np.isfinite(j.upper)):
            todo.append(JointLimit(f"{base}-limit", robot, j.name, stiffness=limit_stiffness))
            if limit_damping > 0:
                todo.append(JointLimitDamper(f"{base}-limit-damper", robot, j.name, damping=limit_damping))
        for el in todo:
            bg.add(el)
            bg.connect((robot, el.port_name), (el, "p"))
        added += todo
    return added


def _safe_name(name):
    from .articulated_body import _safe

    return _safe(name)
