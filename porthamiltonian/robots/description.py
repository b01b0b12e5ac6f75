"""A robot's kinematic tree as plain data: links, joints, inertias and shapes.

This is the one description that the importers (URDF, MJCF) produce and that the articulated
body (`porthamiltonian.library.ArticulatedBody`) is built from, so a tree written by hand and a
tree read from a file go through the same checks and the same component.

Conventions (URDF's, which MJCF is converted to on import):

- Every link has a frame. A joint connects a parent link to a child link; the child's frame
  *is* the joint frame, placed at ``Joint.placement`` (``H_PJ``: the joint frame in the parent's
  frame at zero joint position) and then moved by the joint's own motion ``H_J(q)``::

      H_WC(q) = H_WP(q) @ Joint.placement @ H_J(q)

- ``H_J(q)`` for each kind (``axis`` a unit vector in the joint frame):

  ========== ========= ========= =======================================================
  kind       nq        nv        motion
  ========== ========= ========= =======================================================
  fixed      0         0         identity
  revolute   1         1         rotation by q about ``axis`` (limits apply)
  continuous 1         1         rotation by q about ``axis`` (no limits)
  prismatic  1         1         translation by q along ``axis``
  spherical  4         3         rotation by a unit quaternion (w, x, y, z); velocity is
                                 the angular velocity in the child frame
  free       7         6         pose (qw, qx, qy, qz, px, py, pz) of the child in the
                                 parent frame; velocity the twist (omega, v) in the child
                                 frame, as `RigidBody`
  ========== ========= ========= =======================================================

- A link's inertia is its mass, centre of mass and rotational inertia about the centre of mass,
  all in the link frame. Massless links are allowed only where a child carries mass
  (the articulated body checks that its mass matrix is positive definite).
- Exactly one joint has ``parent=None``: the root joint, which attaches the root link to the
  world (``free`` for a floating base, ``fixed`` for a bolted one, any other kind for a robot
  whose base moves on one axis).

Units: SI (m, kg, kg m^2, rad, N, N m, N m s/rad).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from porthamiltonian.errors import ModelError, ParameterError

__all__ = [
    "JOINT_KINDS",
    "JOINT_SIZES",
    "LinkInertia",
    "Shape",
    "Link",
    "Joint",
    "RobotDescription",
]

JOINT_KINDS = ("fixed", "revolute", "continuous", "prismatic", "spherical", "free")
JOINT_SIZES = {  # kind -> (nq, nv)
    "fixed": (0, 0),
    "revolute": (1, 1),
    "continuous": (1, 1),
    "prismatic": (1, 1),
    "spherical": (4, 3),
    "free": (7, 6),
}
SHAPE_KINDS = ("box", "sphere", "cylinder", "capsule", "ellipsoid", "plane", "mesh")


def _pose(value, name):
    H = np.array(value, dtype=float)
    if H.shape != (4, 4):
        raise ParameterError(f"`{name}` must be a 4x4 homogeneous matrix, got shape {H.shape}")
    if not np.all(np.isfinite(H)):
        raise ParameterError(f"`{name}` must be finite, got {H.tolist()}")
    R = H[:3, :3]
    if np.abs(R.T @ R - np.eye(3)).max() > 1e-9 or np.linalg.det(R) < 0 or np.abs(H[3] - [0, 0, 0, 1]).max() > 0:
        raise ParameterError(f"`{name}` must be a rigid motion (orthonormal rotation, last row 0 0 0 1), got {H.tolist()}")
    H.setflags(write=False)
    return H


def _vector(value, name, n=3):
    v = np.array(value, dtype=float)
    if v.shape != (n,) or not np.all(np.isfinite(v)):
        raise ParameterError(f"`{name}` must be {n} finite numbers, got {value!r}")
    v.setflags(write=False)
    return v


@dataclass(frozen=True)
class LinkInertia:
    """Mass [kg], centre of mass [m] and rotational inertia about it [kg m^2], in the link frame."""

    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))

    def __post_init__(self):
        if not np.isfinite(self.mass) or self.mass < 0:
            raise ParameterError(f"`mass` must be finite and >= 0 kg, got {self.mass!r}")
        object.__setattr__(self, "mass", float(self.mass))
        object.__setattr__(self, "com", _vector(self.com, "com"))
        inertia = np.array(self.inertia, dtype=float)
        if inertia.shape != (3, 3) or not np.all(np.isfinite(inertia)):
            raise ParameterError(f"`inertia` must be a finite 3x3 matrix, got {self.inertia!r}")
        scale = max(1.0, np.abs(inertia).max())
        if np.abs(inertia - inertia.T).max() > 1e-9 * scale:
            raise ParameterError(f"`inertia` must be symmetric, got {inertia.tolist()}")
        inertia = 0.5 * (inertia + inertia.T)
        eig = np.linalg.eigvalsh(inertia)
        # the triangle inequality of principal moments (a physical body), to round-off
        if eig[0] < -1e-12 * scale or eig[2] > eig[0] + eig[1] + 1e-9 * scale:
            raise ParameterError(
                f"`inertia` must be positive semidefinite with principal moments obeying the "
                f"triangle inequality (I3 <= I1 + I2), got principal moments {eig.tolist()}"
            )
        inertia.setflags(write=False)
        object.__setattr__(self, "inertia", inertia)


@dataclass(frozen=True)
class Shape:
    """A visual or collision shape attached to a link.

    ``size`` by kind: box (3 full side lengths), sphere (radius,), cylinder and capsule
    (radius, full length along z), ellipsoid (3 semi-axes), plane (), mesh (3 scale factors,
    with ``mesh`` the file's absolute path). ``placement`` is the shape's frame in the link frame.
    """

    kind: str
    size: tuple = ()
    placement: np.ndarray = field(default_factory=lambda: np.eye(4))
    mesh: str | None = None
    rgba: tuple = (0.7, 0.7, 0.7, 1.0)
    name: str = ""

    def __post_init__(self):
        if self.kind not in SHAPE_KINDS:
            raise ParameterError(f"shape `kind` must be one of {SHAPE_KINDS}, got {self.kind!r}")
        object.__setattr__(self, "size", tuple(float(s) for s in self.size))
        object.__setattr__(self, "placement", _pose(self.placement, "placement"))
        if self.kind == "mesh" and not self.mesh:
            raise ParameterError(f"a mesh shape needs its file in `mesh`, got {self.mesh!r}")


@dataclass(frozen=True)
class Link:
    """A link: its name, inertia, and the shapes drawn (`visuals`) and touched (`collisions`)."""

    name: str
    inertia: LinkInertia = field(default_factory=LinkInertia)
    visuals: tuple = ()
    collisions: tuple = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ParameterError(f"a link's `name` must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "visuals", tuple(self.visuals))
        object.__setattr__(self, "collisions", tuple(self.collisions))


@dataclass(frozen=True)
class Joint:
    """A joint from `parent` to `child` (see the module docstring for frames and kinds).

    Limits, dynamics and drive data as in URDF/MJCF: ``lower``/``upper`` position limits
    [rad or m] (revolute, prismatic), ``effort`` and ``velocity`` limits (inf when absent),
    viscous ``damping`` [N m s/rad], Coulomb ``friction`` [N m], a spring of ``stiffness``
    [N m/rad] to ``rest``, and ``armature`` (rotor inertia reflected to the joint [kg m^2]).
    """

    name: str
    kind: str
    parent: str | None
    child: str
    placement: np.ndarray = field(default_factory=lambda: np.eye(4))
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    lower: float = -np.inf
    upper: float = np.inf
    effort: float = np.inf
    velocity: float = np.inf
    damping: float = 0.0
    friction: float = 0.0
    stiffness: float = 0.0
    rest: float = 0.0
    armature: float = 0.0

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ParameterError(f"a joint's `name` must be a non-empty string, got {self.name!r}")
        if self.kind not in JOINT_KINDS:
            raise ParameterError(f"joint {self.name!r}: `kind` must be one of {JOINT_KINDS}, got {self.kind!r}")
        object.__setattr__(self, "placement", _pose(self.placement, f"joint {self.name!r} placement"))
        axis = _vector(self.axis, f"joint {self.name!r} axis")
        norm = float(np.linalg.norm(axis))
        if self.kind in ("revolute", "continuous", "prismatic") and not norm > 0:
            raise ParameterError(f"joint {self.name!r}: `axis` must be non-zero, got {axis.tolist()}")
        if norm > 0:
            axis = axis / norm
            axis.setflags(write=False)
        object.__setattr__(self, "axis", axis)
        for key in ("lower", "upper", "effort", "velocity", "damping", "friction", "stiffness", "rest", "armature"):
            value = float(getattr(self, key))
            if np.isnan(value):
                raise ParameterError(f"joint {self.name!r}: `{key}` must be a number, got nan")
            object.__setattr__(self, key, value)
        for key in ("effort", "velocity", "damping", "friction", "stiffness", "armature"):
            if getattr(self, key) < 0:
                raise ParameterError(f"joint {self.name!r}: `{key}` must be >= 0, got {getattr(self, key)}")
        if self.lower > self.upper:
            raise ParameterError(f"joint {self.name!r}: `lower` ({self.lower}) must not exceed `upper` ({self.upper})")
        if self.kind == "continuous" and (np.isfinite(self.lower) or np.isfinite(self.upper)):
            raise ParameterError(f"joint {self.name!r}: a continuous joint has no position limits, got [{self.lower}, {self.upper}]")

    @property
    def nq(self):
        """Number of configuration coordinates."""
        return JOINT_SIZES[self.kind][0]

    @property
    def nv(self):
        """Number of velocity coordinates (degrees of freedom)."""
        return JOINT_SIZES[self.kind][1]


@dataclass(frozen=True)
class RobotDescription:
    """A kinematic tree: links and the joints between them, checked to form one tree.

    `joints` are stored in topological order (each parent before its children; the root joint
    first), which is the order of the joint coordinates q and v of the articulated body.
    """

    name: str
    links: tuple
    joints: tuple
    source: str = ""

    def __post_init__(self):
        links = tuple(self.links)
        names = [l.name for l in links]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ModelError(f"robot {self.name!r}: link names must be unique, repeated: {dupes}")
        jnames = [j.name for j in self.joints]
        dupes = sorted({n for n in jnames if jnames.count(n) > 1})
        if dupes:
            raise ModelError(f"robot {self.name!r}: joint names must be unique, repeated: {dupes}")
        known = set(names)
        by_child = {}
        for j in self.joints:
            for role, link in (("parent", j.parent), ("child", j.child)):
                if link is not None and link not in known:
                    raise ModelError(f"robot {self.name!r}: joint {j.name!r} names an unknown {role} link {link!r}")
            if j.child in by_child:
                raise ModelError(
                    f"robot {self.name!r}: link {j.child!r} is the child of two joints "
                    f"({by_child[j.child].name!r}, {j.name!r}); close loops with lock joints instead"
                )
            by_child[j.child] = j
        roots = [j for j in self.joints if j.parent is None]
        if len(roots) != 1:
            raise ModelError(
                f"robot {self.name!r}: exactly one joint must attach a link to the world (parent=None), "
                f"got {[j.name for j in roots]}"
            )
        orphans = sorted(known - set(by_child))
        if orphans:
            raise ModelError(f"robot {self.name!r}: links {orphans} are attached by no joint")
        children = {}
        for j in self.joints:
            children.setdefault(j.parent, []).append(j)
        ordered, stack = [], [roots[0]]
        while stack:
            j = stack.pop()
            ordered.append(j)
            stack.extend(reversed(children.get(j.child, [])))
        if len(ordered) != len(self.joints):
            cut = sorted(set(jnames) - {j.name for j in ordered})
            raise ModelError(f"robot {self.name!r}: joints {cut} form a loop detached from the root")
        object.__setattr__(self, "links", links)
        object.__setattr__(self, "joints", tuple(ordered))

    def link(self, name):
        """The link called `name` (KeyError-free: a ModelError naming the known links)."""
        for l in self.links:
            if l.name == name:
                return l
        raise ModelError(f"robot {self.name!r} has no link {name!r}; links: {[l.name for l in self.links]}")

    def joint(self, name):
        """The joint called `name`."""
        for j in self.joints:
            if j.name == name:
                return j
        raise ModelError(f"robot {self.name!r} has no joint {name!r}; joints: {[j.name for j in self.joints]}")

    @property
    def nq(self):
        """Size of the configuration vector (sum over joints, topological order)."""
        return sum(j.nq for j in self.joints)

    @property
    def nv(self):
        """Number of degrees of freedom."""
        return sum(j.nv for j in self.joints)

    @property
    def mass(self):
        """Total mass [kg]."""
        return sum(l.inertia.mass for l in self.links)

    def to_dict(self):
        """The description as plain JSON data (dicts, lists, strings, numbers).

        Every number is kept exactly (floats as Python floats, which JSON writes with their
        shortest round-trip digits; non-finite limits as the strings "inf" and "-inf"); mesh
        files stay paths (strings), not their contents. `RobotDescription.from_dict` reads it
        back to an equal description.

        Returns
        -------
        dict
            ``{"version", "name", "source", "links": [...], "joints": [...]}``.
        """
        return _description_to_dict(self)

    @classmethod
    def from_dict(cls, data):
        """The description from `to_dict`'s data.

        Raises
        ------
        ParameterError
            Wrong `version`, a missing or unknown key, or a value the fields refuse (each names
            the link, joint or shape).
        ModelError
            The links and joints do not form one tree.
        """
        return _description_from_dict(data)


# ------------------------------------------------------------------ plain data (save/load)
#: the format of `RobotDescription.to_dict` (bumped when its fields change)
DICT_VERSION = 1
_JOINT_NUMBERS = ("lower", "upper", "effort", "velocity", "damping", "friction", "stiffness", "rest", "armature")


def _number(value):
    """A float as JSON data: non-finite ones as the strings "inf", "-inf" (strict JSON has none)."""
    value = float(value)
    return value if np.isfinite(value) else ("inf" if value > 0 else "-inf")


def _matrix(value):
    return np.asarray(value, dtype=float).tolist()


def _shape_dict(shape):
    return {"kind": shape.kind, "size": list(shape.size), "placement": _matrix(shape.placement), "mesh": shape.mesh,
            "rgba": [float(c) for c in shape.rgba], "name": shape.name}


def _from_data(what, build, data, keys):
    """Build `what` from the dict `data` with `build(**data)`, naming what is wrong."""
    if not isinstance(data, dict):
        raise ParameterError(f"robot description data: a {what} must be a dict, got {type(data).__name__} ({data!r:.80})")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise ParameterError(f"robot description data: a {what} takes the keys {list(keys)}, got unknown {unknown}")
    try:
        return build(**data)
    except TypeError as exc:
        raise ParameterError(f"robot description data: {what} {data.get('name', '')!r}: {exc}") from None


def _description_to_dict(description):
    links = [{"name": l.name,
              "inertia": {"mass": l.inertia.mass, "com": _matrix(l.inertia.com), "inertia": _matrix(l.inertia.inertia)},
              "visuals": [_shape_dict(s) for s in l.visuals],
              "collisions": [_shape_dict(s) for s in l.collisions]} for l in description.links]
    joints = [{"name": j.name, "kind": j.kind, "parent": j.parent, "child": j.child,
               "placement": _matrix(j.placement), "axis": _matrix(j.axis),
               **{k: _number(getattr(j, k)) for k in _JOINT_NUMBERS}} for j in description.joints]
    return {"version": DICT_VERSION, "name": description.name, "source": description.source, "links": links,
            "joints": joints}


def _description_from_dict(data):
    if not isinstance(data, dict) or data.get("version") != DICT_VERSION:
        got = data.get("version") if isinstance(data, dict) else type(data).__name__
        raise ParameterError(f"robot description data: `version` must be {DICT_VERSION}, got {got!r}")
    rest = {k: v for k, v in data.items() if k != "version"}

    def shape(d):
        return _from_data("shape", Shape, {**d, "size": tuple(d.get("size", ())), "rgba": tuple(d.get("rgba", (0.7,) * 3 + (1.0,)))}
                          if isinstance(d, dict) else d, ("kind", "size", "placement", "mesh", "rgba", "name"))

    def link(d):
        if not isinstance(d, dict):
            return _from_data("link", Link, d, ())
        built = dict(d)
        built["inertia"] = _from_data("link inertia", LinkInertia, d.get("inertia", {}), ("mass", "com", "inertia"))
        built["visuals"] = tuple(shape(s) for s in d.get("visuals", ()))
        built["collisions"] = tuple(shape(s) for s in d.get("collisions", ()))
        return _from_data("link", Link, built, ("name", "inertia", "visuals", "collisions"))

    def joint(d):
        if isinstance(d, dict):
            d = {k: (float(v) if k in _JOINT_NUMBERS and isinstance(v, str) and v in ("inf", "-inf") else v)
                 for k, v in d.items()}
        return _from_data("joint", Joint, d, ("name", "kind", "parent", "child", "placement", "axis") + _JOINT_NUMBERS)

    def build(name, links, joints, source=""):
        return RobotDescription(name, tuple(link(l) for l in links), tuple(joint(j) for j in joints), source=source)

    return _from_data("robot description", build, rest, ("name", "source", "links", "joints"))
