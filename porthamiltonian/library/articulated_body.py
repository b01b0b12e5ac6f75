"""An articulated body: a robot's kinematic tree in joint coordinates, as one storage element.

State: the joint positions ``q`` (quaternions for spherical and free joints, normalised where
used) and the joint velocities ``v`` (`porthamiltonian.kernels.articulated` says why
velocities rather than momenta); energy: the links' kinetic energies plus the potential of the
tree's own weight. Its rates come from Featherstone's articulated-body algorithm (O(n), no
mass matrix, no multiplier per joint) with the wrenches of the elements bonded to its links
passed in.

Ports
-----
- a link's port (``robot.link("foot").frame("B").port``): flow the link's twist in its own
  frame, effort the wrench on the link (as `RigidBody`'s "B" port). The link is seen by every
  element written for rigid bodies (contacts, feet, springs, dampers, lock joints) through a
  `LinkBody`, a read-only view that stands for the link;
- a joint's port (``robot.joint_port("knee")``): flow the joint's velocity (nv of the joint),
  effort the joint's torque or force applied by the element bonded there (actuators, joint
  dampers, friction, springs, limits: `library.joint_elements`).

Ports are made on demand (a tree of 30 links gets the ports of the few links something is
bonded to); ask for them before compiling.

How the links' poses reach the rigid-body elements (a decision)
----------------------------------------------------------------
Every element written for rigid bodies reads a body's pose (and a contact its momentum) as a
block of the state vector. A link with a port therefore carries two *mirror* blocks in this
element's state: its pose (7, integrated from its twist as `RigidBody` integrates its own) and
its twist (6, integrated from the link acceleration the articulated-body algorithm returns;
the `LinkBody` has unit inertia so that the contact's ``M^-1 P`` is this twist). They are set
from ``q``, ``v`` by forward kinematics when the state is initialised (`initialize`) and agree
with them to the integration tolerance afterwards (`mirror_drift` measures it). The energy
does not depend on them, so the ledger stays exact: a spring or contact reads the mirrored
pose, and the power it exchanges is its wrench times the link twist computed from ``(q, v)``.

Why the mirrors stay (measured, benchmarks/results/robot_speed.md): in one compiled
right-hand side of the Go1 on a compliant floor (~88 µs), the mirrors' rates are four pose
rates and four copies (well under 1 µs), the second forward kinematics of the outputs kernel
2.3 µs (2.6 %), the articulated-body algorithm 10 µs, and the four foot contacts 70 µs (79 %).
Deriving the ported links' poses inside the rhs (no mirror blocks) would change how the
compiler resolves a port's state references for every contact and spring kind, and would
save little of the rhs; the contacts are where the time is. The outputs kernel computes the
link twists from ``(q, v)`` (never from the mirrored twist), which keeps the ledger exact.

Gravity of the whole tree is built in (``gravity=``): one product per link inside the
recursions; do not add `Gravity` elements to its links as well.

Linearization and the discrete-gradient integrator need the structure matrices
(``structure``); an articulated body refuses them by name (`ModelError`).
"""

from __future__ import annotations

import re

import numpy as np

from porthamiltonian.bondgraph.element import Kernel, StorageElement, register_element
from porthamiltonian.bondgraph.ports import Port, StateBlock
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.kernels import articulated as _k
from porthamiltonian.lie import quaternion
from porthamiltonian.robots.description import JOINT_SIZES, RobotDescription

from .rigid_body import Frame, RigidBody, spatial_inertia

__all__ = ["ArticulatedBody", "LinkBody", "tree_arrays"]

_SAFE = re.compile(r"[^A-Za-z0-9_-]")


def _safe(name):
    """A link or joint name as a port or block name (letters, digits, '_', '-')."""
    s = _SAFE.sub("_", name)
    return s if s[:1].isalpha() else "n" + s


def tree_arrays(description, gravity=(0.0, 0.0, 0.0)):
    """Pack a `RobotDescription` for `porthamiltonian.kernels.articulated` (`pack_tree`).

    Link i is the child of joint i (the description's topological joint order), so the
    coordinates of q and v follow the joints.

    Returns
    -------
    F : ndarray of float64, I : ndarray of int64
    """
    joints = description.joints
    index = {j.child: i for i, j in enumerate(joints)}
    parents, kinds, placements, axes, inertias, iq, iv = [], [], [], [], [], [], []
    nq = nv = 0
    for j in joints:
        link = description.link(j.child)
        parents.append(-1 if j.parent is None else index[j.parent])
        kinds.append(_k.KIND_CODES[j.kind])
        placements.append(j.placement)
        axes.append(j.axis if np.linalg.norm(j.axis) > 0 else np.array([0.0, 0.0, 1.0]))
        li = link.inertia
        M = spatial_inertia(li.mass, li.inertia, li.com)
        if j.armature > 0 and j.nv != 1:
            raise ParameterError(
                f"joint {j.name!r}: `armature` ({j.armature}) applies to joints of one degree of freedom, "
                f"this one is {j.kind}; set it to 0"
            )
        inertias.append(M)
        iq.append(nq)
        iv.append(nv)
        nq += j.nq
        nv += j.nv
    return _k.pack_tree(parents, kinds, np.array(placements), np.array(axes), np.array(inertias), iq, iv,
                        np.asarray(gravity, dtype=float), [j.armature for j in joints])


class LinkFrame(Frame):
    """A frame of a link: its `port` is the articulated body's port of that link."""

    @property
    def port(self):
        return (self.body.robot, self.body.robot._link_port(self.body.link_name))


class LinkBody(RigidBody):
    """A link of an `ArticulatedBody` as the rigid-body elements see it (not an element of the
    graph: it stands for the robot's port and mirror blocks of the link).

    Its pose block is the robot's mirror of the link's pose, its "P" block the mirror of the
    link's twist (unit inertia: ``M = Minv = I6``, so ``M^-1 P`` is the twist). ``mass`` is
    the link's mass, or the mass of its subtree for a massless link (the contacts use it as a
    scale only). Only the frame "B" (the link frame) has a port.
    """

    type_name = "LinkBody"

    def __init__(self, robot, link):
        StorageElement.__init__(self, f"{robot.name}__{_safe(link)}")
        self.robot = robot
        self.link_name = link
        li = robot.description.link(link).inertia
        self.mass = li.mass if li.mass > 0 else robot._subtree_mass(link)
        self.inertia = np.array(li.inertia)
        self.com = np.array(li.com)
        self.frames = {"B": np.eye(4)}
        self._Ad = {"B": np.eye(6)}
        self.M = np.eye(6)
        self.Minv = np.eye(6)
        self.pose0 = quaternion.matrix_to_pose(np.eye(4))
        self.twist0 = np.zeros(6)

    @property
    def view_of(self):
        """(robot, link name): what a saved graph stores for this view (`ArticulatedBody.view`)."""
        return self.robot, self.link_name

    def frame(self, name="B"):
        if name != "B":
            raise ModelError(f"link {self.link_name!r} of {self.robot.label}: only its frame 'B' has a port, got {name!r}")
        return LinkFrame(self, "B", np.eye(4))

    def state_blocks(self):
        return (StateBlock("pose", 7, "configuration", group="pose"), StateBlock("P", 6, "auxiliary"))

    def stands_for_block(self, block):
        """(element, block) that a reference to this view's block resolves to."""
        return self.robot, f"{_safe(self.link_name)}__{'pose' if block == 'pose' else 'T'}"

    def stands_for_port(self, port):
        """(element, port) that this view's port `port` is."""
        return self.robot, self.robot._link_port(self.link_name)

    def ports(self):
        return ()

    def parameters(self):
        raise ModelError(f"{self.label} is a view of {self.robot.label}; save the robot instead")


@register_element
class ArticulatedBody(StorageElement):
    """A kinematic tree in joint coordinates (module docstring).

    Parameters
    ----------
    name : str
    description : RobotDescription
    gravity : array_like, shape (3,) [m/s^2]
        Gravitational acceleration in world coordinates, on every link (default
        (0, 0, -9.81); zeros for none).
    q : array_like, shape (n_q,), optional
        Default joint positions, n_q = ``description.nq`` (default: zeros, identity
        quaternions, the base at the origin).
    v : array_like, shape (n_v,), optional
        Default joint velocities, n_v = ``description.nv`` (default zeros).

    Raises
    ------
    ModelError
        A joint with degrees of freedom moves no mass (a massless leaf: the mass matrix
        would be singular), or the mass matrix is not positive definite at ``q``.
    """

    type_name = "ArticulatedBody"
    #: `porthamiltonian.integrate.discrete_gradient` reads this and refuses the element
    refuses_discrete_gradient = ("its state is joint positions and velocities, not energy variables with a "
                                 "port-Hamiltonian structure (J_e, B_e), which the discrete gradient needs")

    def __init__(self, name, description, *, gravity=(0.0, 0.0, -9.81), q=None, v=None):
        super().__init__(name)
        if not isinstance(description, RobotDescription):
            raise ParameterError(f"`{name}.description` must be a RobotDescription, got {description!r}")
        self.description = description
        self.gravity = np.array(gravity, dtype=float)
        if self.gravity.shape != (3,) or not np.all(np.isfinite(self.gravity)):
            raise ParameterError(f"`{name}.gravity` must be 3 finite numbers [m/s^2], got {gravity!r}")
        self._TF, self._TI = tree_arrays(description, self.gravity)
        self.joints = description.joints
        self.link_names = tuple(j.child for j in self.joints)
        self._index = {l: i for i, l in enumerate(self.link_names)}
        self._jindex = {j.name: i for i, j in enumerate(self.joints)}
        self.nq, self.nv = description.nq, description.nv
        self._qo = np.cumsum([0] + [j.nq for j in self.joints])
        self._vo = np.cumsum([0] + [j.nv for j in self.joints])
        self.q0 = self._default_q() if q is None else self._check_q(q, f"{name}.q")
        self.v0 = np.zeros(self.nv) if v is None else _finite(v, f"{name}.v", (self.nv,))
        self._check_masses()
        self._links = {}            # link name -> LinkBody (ported links, in port order)
        self._joint_ports = []      # joint names with a port, in port order
        self._pack_ports()

    @classmethod
    def from_description(cls, description, *, name=None, **options):
        """The articulated body of `description`, named after it (its name made a valid element
        name) unless `name` is given; `options` as for the constructor."""
        if not isinstance(description, RobotDescription):
            raise ParameterError(f"`description` must be a RobotDescription, got {description!r}")
        return cls(_safe(description.name) if name is None else name, description, **options)

    # ---------------------------------------------------------------- construction helpers
    def _default_q(self):
        q = np.zeros(self.nq)
        for j, o in zip(self.joints, self._qo):
            if j.kind in ("spherical", "free"):
                q[o] = 1.0
        return q

    def _check_q(self, q, name):
        q = _finite(q, name, (self.nq,))
        for j, o in zip(self.joints, self._qo):
            if j.kind in ("spherical", "free"):
                nrm = np.linalg.norm(q[o : o + 4])
                if abs(nrm - 1.0) > 1e-9:
                    raise ParameterError(f"`{name}`: joint {j.name!r} holds a quaternion of norm {nrm:.12g}; it must be 1 (to 1e-9)")
        return q

    def _subtree_mass(self, link):
        i0 = self._index[link]
        parents = self._TI[3::4][: len(self.joints)]
        mass = 0.0
        for i, l in enumerate(self.link_names):
            k = i
            while k >= 0 and k != i0:
                k = parents[k]
            if k == i0:
                mass += self.description.link(l).inertia.mass
        return mass

    def _check_masses(self):
        for j in self.joints:
            if j.nv and self._subtree_mass(j.child) <= 0:
                raise ModelError(
                    f"{self.label}: joint {j.name!r} moves link {j.child!r} and its subtree, which have no mass; "
                    "the mass matrix would be singular (give the links mass, or make the joint fixed)"
                )
        M = self.mass_matrix(self.q0)
        try:
            np.linalg.cholesky(M)
        except np.linalg.LinAlgError:
            ev = np.linalg.eigvalsh(M)
            raise ModelError(
                f"{self.label}: the mass matrix at the default q is not positive definite (smallest eigenvalue "
                f"{ev[0]:.3g}): a joint moves no inertia about its axis (a massless link or a point mass on the axis)"
            ) from None

    # ---------------------------------------------------------------- ports
    def link(self, name):
        """The `LinkBody` of link `name`: bond rigid-body elements to it (gives the link a port)."""
        if name not in self._index:
            raise ModelError(f"{self.label} has no link {name!r}; its links are {list(self.link_names)}")
        if name not in self._links:
            self._links[name] = LinkBody(self, name)
            self._pack_ports()
        return self._links[name]

    def view(self, key):
        """The view a saved graph names by `key`: the `LinkBody` of link `key` (model files)."""
        return self.link(key)

    def frame(self, link, name="B"):
        """The frame `name` of link `link` (``robot.link(link).frame(name)``)."""
        return self.link(link).frame(name)

    def joint_port(self, joint):
        """The port name of joint `joint` (made on first request): flow the joint's velocity,
        effort the torque/force applied on the joint (power e . f into the robot)."""
        if joint not in self._jindex:
            raise ModelError(f"{self.label} has no joint {joint!r}; its joints are {[j.name for j in self.joints]}")
        j = self.joints[self._jindex[joint]]
        if j.nv == 0:
            raise ModelError(f"{self.label}: joint {joint!r} is fixed: it has no velocity, no port")
        if joint not in self._joint_ports:
            self._joint_ports.append(joint)
            self._pack_ports()
        return "J_" + _safe(joint)

    def _link_port(self, link):
        return "L_" + _safe(link)

    def _pack_ports(self):
        n = len(self.joints)
        ports = [len(self._links)] + [self._index[l] for l in self._links]
        ports += [len(self._joint_ports)] + [self._jindex[j] for j in self._joint_ports]
        self._F = self._TF
        self._I = np.concatenate([self._TI, np.array(ports, dtype=np.int64)])
        assert self._I.shape[0] == 3 + 4 * n + len(ports)

    def ports(self):
        out = [Port(self._link_port(l), 6, "in", frame=f"{lb.name}.B", multi=True) for l, lb in self._links.items()]
        out += [Port("J_" + _safe(j), self.joints[self._jindex[j]].nv, "in", multi=True) for j in self._joint_ports]
        return tuple(out)

    def port_types(self):
        return ("I",) * (len(self._links) + len(self._joint_ports))

    def state_blocks(self):
        blocks = [StateBlock("q", self.nq, "configuration", default=self.q0),
                  StateBlock("v", self.nv, "energy", default=self.v0)]
        if self._links:
            poses, twists = self._mirrors(self.q0, self.v0)
            for k, l in enumerate(self._links):
                blocks.append(StateBlock(f"{_safe(l)}__pose", 7, "configuration", group="pose", default=poses[k]))
                blocks.append(StateBlock(f"{_safe(l)}__T", 6, "auxiliary", default=twists[k]))
        return tuple(blocks)

    # ---------------------------------------------------------------- kinematics
    def _kinematics(self, q, v):
        n = len(self.joints)
        Rl, tl, Rw, pw, vel = (np.empty(s * n) for s in (9, 3, 9, 3, 6))
        _k.forward_kinematics(self._TF, self._TI, np.asarray(q, float), Rl, tl, Rw, pw)
        _k.link_velocities(self._TF, self._TI, Rl, tl, np.asarray(v, float), vel)
        return Rw.reshape(n, 3, 3), pw.reshape(n, 3), vel.reshape(n, 6)

    def link_poses(self, q):
        """World poses H_WL of every link, shape (n_links, 4, 4), in `link_names` order."""
        Rw, pw, _ = self._kinematics(q, np.zeros(self.nv))
        H = np.zeros((len(Rw), 4, 4))
        H[:, :3, :3], H[:, :3, 3], H[:, 3, 3] = Rw, pw, 1.0
        return H

    def link_twists(self, q, v):
        """Twists of every link in its own frame, shape (n_links, 6) [rad/s, m/s]."""
        return self._kinematics(q, v)[2]

    def _mirrors(self, q, v):
        Rw, pw, vel = self._kinematics(q, v)
        poses, twists = [], []
        for l in self._links:
            i = self._index[l]
            H = np.eye(4)
            H[:3, :3], H[:3, 3] = Rw[i], pw[i]
            poses.append(quaternion.matrix_to_pose(H))
            twists.append(vel[i].copy())
        return poses, twists

    def mass_matrix(self, q):
        """M(q), shape (nv, nv) (composite-rigid-body algorithm)."""
        return _k.crba(self._TF, self._TI, np.asarray(q, float))

    def bias(self, q, v):
        """b(q, v) = Coriolis, centrifugal and weight terms, shape (nv,) (M dv/dt + b = tau)."""
        return _k.rnea(self._TF, self._TI, np.asarray(q, float), np.asarray(v, float), np.zeros(self.nv),
                       np.zeros(6 * len(self.joints)))

    def link_energies(self, x):
        """Kinetic energy of each link [J], shape (n_links,), from the own state (a joint's
        armature counted with its child link)."""
        return self._energy_series(np.asarray(x, dtype=float)[None, :])[0][0]

    def subtree_energies(self, x):
        """Kinetic energy of the subtree of each link (the link and its descendants) [J]."""
        return self._subtrees(self.link_energies(x)[None, :])[0]

    def _energy_series(self, X):
        """``(E, P)``: the links' kinetic energies (N, n_links) and the weight's potential (N,)
        at the own states X (N, n) (`porthamiltonian.kernels.articulated.energy_series`)."""
        Q = np.ascontiguousarray(X[:, : self.nq], dtype=float)
        V = np.ascontiguousarray(X[:, self.nq : self.nq + self.nv], dtype=float)
        return _k.energy_series(self._TF, self._TI, Q, V)

    def _subtrees(self, E):
        """Each link's energy plus its descendants', per row of E (N, n_links)."""
        out = E.copy()
        parents = self._TI[3::4][: len(self.joints)]
        for i in range(E.shape[1] - 1, 0, -1):
            if parents[i] >= 0:
                out[:, parents[i]] += out[:, i]
        return out

    def energy_parts_series(self, X):
        """The energy split for the ledger (`PowerBudget.parts`) at the own states X (N, n),
        each an array (N,) [J]: the kinetic energy of the root link, of each subtree hanging
        from it (a leg, an arm), and the weight's potential (one compiled loop)."""
        E, P = self._energy_series(np.asarray(X, dtype=float))
        sub = self._subtrees(E)
        parents = self._TI[3::4][: len(self.joints)]
        out = {f"kinetic {self.link_names[0]}": E[:, 0]}
        for i in range(1, E.shape[1]):
            if parents[i] == 0:
                out[f"kinetic {self.link_names[i]} subtree"] = sub[:, i]
        out["weight potential"] = P
        return out

    def energy_parts(self, x):
        """`energy_parts_series` at one state: dict of floats [J]."""
        return {k: float(v[0]) for k, v in self.energy_parts_series(np.asarray(x, dtype=float)[None, :]).items()}

    def energies(self, X, refs=()):
        """`energy` at the own states X (N, n) [J] (`PHSystem.element_energy_series`)."""
        E, P = self._energy_series(np.asarray(X, dtype=float))
        return E.sum(axis=1) + P

    def mirror_drift(self, x):
        """Largest difference between the mirrored link poses/twists and those of (q, v)."""
        if not self._links:
            return 0.0
        poses, twists = self._mirrors(x[: self.nq], x[self.nq : self.nq + self.nv])
        at, worst = self.nq + self.nv, 0.0
        for p, T in zip(poses, twists):
            m = x[at : at + 7].copy()
            m[:4] *= np.sign(m[:4] @ p[:4]) or 1.0
            worst = max(worst, np.abs(m - p).max(), np.abs(x[at + 7 : at + 13] - T).max())
            at += 13
        return worst

    # ---------------------------------------------------------------- storage element
    def initialize(self, t, x, refs):
        """Set the mirrors from (q, v) by forward kinematics (idempotent)."""
        x = np.array(x, dtype=float)
        if self._links:
            poses, twists = self._mirrors(x[: self.nq], x[self.nq : self.nq + self.nv])
            at = self.nq + self.nv
            for p, T in zip(poses, twists):
                x[at : at + 7], x[at + 7 : at + 13] = p, T
                at += 13
        return x

    def energy(self, x, refs=()):
        return _k.tree_energy(x, self._F, self._I)

    def outputs(self, t, x, refs):
        return _k.tree_outputs_list(x, self._F, self._I)

    def rates(self, t, x, refs, inputs):
        W = np.concatenate(inputs) if inputs else np.zeros(0)
        return _k.tree_rates_flat(x, W, self._F, self._I)

    def input_matrix(self, t, x, refs):
        """d(rates)/d(inputs) in closed form: ``M^-1 J^T`` from one composite-rigid-body pass
        and a Cholesky factorisation (`kernels.articulated.tree_input_matrix`)."""
        return _k.tree_input_matrix(t, np.asarray(x, float), refs, self._F, self._I)

    def output_jacobian(self, t, x, refs):
        """d(port flows)/dt = ``output_jacobian @ dx/dt`` exactly, through the mirrored link
        twists (`kernels.articulated.tree_output_jacobian`; a selection, not a Jacobian in
        every direction of x)."""
        return _k.tree_output_jacobian(t, np.asarray(x, float), refs, self._F, self._I)

    def kernel(self, role):
        """The compiled kernels. The outputs kernel (one per number of ports, up to
        `kernels.articulated.TREE_OUTPUTS`'s) shares the forward kinematics and link velocities
        it computes, which the rates kernel reads (`kernels.articulated.tree_rates_read`)
        instead of computing them again at the same state."""
        n = len(self._links) + len(self._joint_ports)
        shared = 1 <= n <= len(_k.TREE_OUTPUTS)
        if role == "rates":
            if shared:
                return Kernel(_k.tree_rates_read, self._F, self._I, reads=self)
            return Kernel(_k.tree_rates if n else _k.tree_rates_unported, self._F, self._I)
        if role == "input_matrix":
            return Kernel(_k.tree_input_matrix, self._F, self._I)
        if role == "output_jacobian":
            return Kernel(_k.tree_output_jacobian, self._F, self._I)
        if role == "outputs" and shared:
            return Kernel(_k.TREE_OUTPUTS[n - 1], self._F, self._I, shares=True)
        return None

    def structure(self, t, x, refs):
        raise ModelError(
            f"{self.label}: an ArticulatedBody does not provide port-Hamiltonian structure matrices (J_e, B_e); "
            "linearization and the discrete-gradient integrator do not support it yet: use an explicit or implicit "
            "Runge-Kutta method (simulate(method='RK45'|'DOP853'|'Radau'))"
        )

    def gradient(self, x, refs=()):
        raise ModelError(
            f"{self.label}: an ArticulatedBody does not provide its energy gradient over a port-Hamiltonian structure; "
            "linearization and the discrete-gradient integrator do not support it yet"
        )

    # ---------------------------------------------------------------- user helpers
    def state(self, q=None, v=None, *, joints=None, base_pose=None, base_twist=None):
        """The own state vector from joint positions and velocities.

        Parameters
        ----------
        q : array_like, shape (n_q,), optional
            All joint positions (default: the element's default).
        v : array_like, shape (n_v,), optional
        joints : dict, optional
            Joint name -> position (a scalar for 1-dof joints, a quaternion for spherical).
        base_pose : array_like, (4, 4) or (7,), optional
            The root joint's pose (a free root joint only).
        base_twist : array_like, shape (6,), optional
            The root's twist in its frame (a free root joint only).
        """
        q = self.q0.copy() if q is None else self._check_q(q, f"{self.name}.state(q)")
        v = self.v0.copy() if v is None else _finite(v, f"{self.name}.state(v)", (self.nv,))
        for jn, val in (joints or {}).items():
            if jn not in self._jindex:
                raise ModelError(f"{self.label} has no joint {jn!r}; its joints are {[j.name for j in self.joints]}")
            i = self._jindex[jn]
            nq = self.joints[i].nq
            q[self._qo[i] : self._qo[i] + nq] = _finite(np.atleast_1d(val), f"joints[{jn!r}]", (nq,))
        root = self.joints[0]
        if base_pose is not None or base_twist is not None:
            if root.kind != "free":
                raise ModelError(f"{self.label}: `base_pose`/`base_twist` need a free root joint, the root joint {root.name!r} is {root.kind}")
            if base_pose is not None:
                from .rigid_body import _pose_of

                q[:7] = _pose_of(base_pose, f"{self.name}.state(base_pose)")
            if base_twist is not None:
                v[:6] = _finite(base_twist, f"{self.name}.state(base_twist)", (6,))
        q = self._check_q(q, f"{self.name}.state(q)")
        return self.initialize(0.0, np.concatenate([q, v, np.zeros(self.n_states - self.nq - self.nv)]), ())

    def standing_state(self, joints=None, *, base_rotation=None, base_xy=(0.0, 0.0), height=0.0, gap=0.0):
        """The own state of a floating robot standing at rest on the horizontal plane
        z = `height`: the joints at `joints`, the base at `base_xy` with `base_rotation`, and
        the base lowered until its lowest collision sphere touches the plane (`gap` [m] left).

        The robot's collision spheres (``Shape("sphere")`` of the links' `collisions`, a
        robot's feet) are the contacts this assumes; velocities are zero.

        Raises
        ------
        ModelError
            The root joint is not free, or no link has a collision sphere.
        """
        root = self.joints[0]
        if root.kind != "free":
            raise ModelError(f"{self.label}.standing_state: the root joint {root.name!r} is {root.kind}, not free")
        R = np.eye(3) if base_rotation is None else np.asarray(base_rotation, dtype=float)
        H = np.eye(4)
        H[:3, :3] = R
        H[:2, 3] = _finite(base_xy, f"{self.name}.standing_state(base_xy)", (2,))
        x = self.state(joints=joints, base_pose=H, v=np.zeros(self.nv))
        poses = self.link_poses(x[: self.nq])
        lowest = np.inf
        for i, l in enumerate(self.link_names):
            for s in self.description.link(l).collisions:
                if s.kind == "sphere":
                    c = (poses[i] @ s.placement)[:3, 3]
                    lowest = min(lowest, c[2] - s.size[0])
        if not np.isfinite(lowest):
            raise ModelError(f"{self.label}.standing_state: no link has a collision sphere to stand on")
        H[2, 3] = height + gap - lowest
        return self.state(joints=joints, base_pose=H, v=np.zeros(self.nv))

    def drawn_bodies(self):
        """[(name "robot/link", visual shapes in the link frame), ...] for every link with a shape
        (the links' `visuals`, else their `collisions`)."""
        out = []
        for l in self.link_names:
            link = self.description.link(l)
            shapes = tuple(link.visuals) or tuple(link.collisions)
            if shapes:
                out.append((f"{self.name}/{l}", shapes))
        return out

    def drawn_poses(self, states):
        """World poses (qw, qx, qy, qz, px, py, pz) of the drawn bodies, shape
        (n_frames, n_bodies, 7), from ``states['q']`` of shape (n_frames, nq)."""
        if "q" not in states:
            raise ModelError(f"{self.label}.drawn_poses: `states` needs the block 'q', got {sorted(states)}")
        Q = np.atleast_2d(np.asarray(states["q"], dtype=float))
        drawn = [self._index[name.split("/", 1)[1]] for name, _ in self.drawn_bodies()]
        out = np.zeros((Q.shape[0], len(drawn), 7))
        for f, q in enumerate(Q):
            H = self.link_poses(q)
            for b, i in enumerate(drawn):
                out[f, b] = quaternion.matrix_to_pose(H[i])
        return out

    def parameters(self):
        """The constructor's arguments as data: the description as `RobotDescription.to_dict`
        (mesh files kept as paths), gravity, the initial q and v, and the ported links and
        joints in port order (so a loaded body has the same ports and state layout)."""
        return {"description": self.description.to_dict(), "gravity": self.gravity, "q": self.q0, "v": self.v0,
                "links": list(self._links), "joint_ports": list(self._joint_ports)}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        params = dict(params)
        links, joint_ports = params.pop("links", []), params.pop("joint_ports", [])
        params["description"] = RobotDescription.from_dict(params["description"])
        body = cls(name, **params)
        for link in links:
            body.link(link)
        for joint in joint_ports:
            body.joint_port(joint)
        return body


def _finite(value, name, shape):
    arr = np.array(value, dtype=float)
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        raise ParameterError(f"`{name}` must be finite with shape {shape}, got {value!r}")
    return arr
