"""Read a URDF file into a `RobotDescription` (parsed by yourdfpy).

URDF already uses the description's convention (a child link's frame is its joint frame), so the
import is a translation plus checks: inertias re-expressed from the ``<inertial><origin>`` frame
into the link frame, axes normalized, limits and ``<dynamics>`` read, mesh files resolved.
"""

from __future__ import annotations

import os
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from porthamiltonian.errors import ModelError, ParameterError, RobotFileError, RobotFileWarning
from porthamiltonian.robots._build import check_moving_mass, check_tree, link_inertia
from porthamiltonian.robots.description import Joint, Link, RobotDescription, Shape

__all__ = ["load_urdf", "resolve_mesh"]

_KINDS = {"fixed": "fixed", "revolute": "revolute", "continuous": "continuous", "prismatic": "prismatic", "floating": "free"}
_PATH_VARIABLES = ("ROS_PACKAGE_PATH", "AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH")


def load_urdf(path, floating_base=True, *, mimic="raise", balance_inertia=False, package_dirs=()):
    """Read a URDF file into a kinematic tree.

    Parameters
    ----------
    path : str or path-like
        The ``.urdf`` file.
    floating_base : bool
        True: a ``free`` root joint ``"root_joint"`` attaches the root link to the world (a
        walking robot). False: a ``fixed`` one (a bolted arm).
    mimic : {"raise", "independent"}
        What to do with ``<mimic>`` joints. "raise" (default) refuses them by name, since the
        coupling ``q = multiplier q_leader + offset`` is a constraint the tree alone cannot hold;
        "independent" reads them as ordinary joints (Pinocchio's default) and leaves the coupling
        to the user (a lock or a stiff spring between the two joints).
    balance_inertia : bool
        Real files carry inertias that no body has (principal moments breaking the triangle
        inequality ``I3 <= I1 + I2``: Go1's ``base``, ANYmal C's camera links). False (default):
        such a link is an error naming it. True: its two smaller principal moments are raised
        by half the excess each, the nearest physical body (`_build.balance_inertia`), with a
        `RobotFileWarning` naming the link and the excess.
    package_dirs : sequence of str or path-like
        Extra roots searched for ``package://NAME/...`` mesh paths, before the default ones.

    Returns
    -------
    RobotDescription
        Joints in topological order, the root joint first. Visual and collision shapes are kept
        per link (meshes as ``Shape(kind="mesh", mesh=<absolute path>, size=<scale>)``).

    Raises
    ------
    RobotFileError
        Naming the file, the element and the rule: the file is not XML or not a ``<robot>``; a
        joint names an undefined parent or child link; the links form a cycle or more than one
        root; an unknown or unsupported joint type (``planar``); a joint axis of zero length; a
        negative, non-physical or missing-where-needed inertia (a moving joint whose subtree has
        no inertia); a mimic joint with ``mimic="raise"``.
    ParameterError
        If `mimic` is not one of its values.

    Warns
    -----
    RobotFileWarning
        A mesh file that cannot be found: the shape is dropped, the link keeps its inertia.

    Notes
    -----
    Mesh paths: ``package://NAME/rest`` is looked up in `package_dirs`, then in the URDF's
    folder and each folder above it (a folder named NAME, or holding NAME/), then in the
    roots listed by ``ROS_PACKAGE_PATH``, ``AMENT_PREFIX_PATH`` and ``CMAKE_PREFIX_PATH``
    (also under their ``share/``). ``file://`` and relative paths are read from the URDF's
    folder.

    Inertia: the ``<inertial><origin xyz rpy>`` frame F holds the centre of mass at its origin and
    the inertia tensor I_F; in the link frame L: ``com = xyz`` and ``I_L = R_LF I_F R_LF^T``.
    A link with no ``<inertial>`` is massless.

    Examples
    --------
    >>> from porthamiltonian.robots import example, load_urdf
    >>> go1 = load_urdf(example("go1"))                      # doctest: +SKIP
    >>> go1.nv                                                # doctest: +SKIP
    18
    """
    import yourdfpy

    if mimic not in ("raise", "independent"):
        raise ParameterError(f"`mimic` must be 'raise' or 'independent', got {mimic!r}")
    path = Path(path).expanduser().resolve()
    where = path.name
    if not path.is_file():
        raise RobotFileError(f"{path}: no such URDF file")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise RobotFileError(f"{where}: not a URDF file: the file is not well-formed XML ({exc})") from None
    if root.tag != "robot":
        raise RobotFileError(f"{where}: not a URDF file: the root element is <{root.tag}>, a URDF's is <robot>")
    _check_joint_elements(root, where)
    robot = yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False, build_collision_scene_graph=False, load_collision_meshes=False).robot

    check_tree([(j.name, j.parent, j.child) for j in robot.joints], [l.name for l in robot.links], where=where)
    children = {j.child for j in robot.joints}
    roots = [l.name for l in robot.links if l.name not in children]
    if len(roots) != 1:
        raise RobotFileError(
            f"{where}: the links must form one tree with one root link, got {len(roots)} links without a parent joint: {roots}"
            + ("; the links form a cycle" if not roots else "")
        )
    materials = {m.name: m for m in robot.materials}
    search = _package_roots(path, package_dirs)
    links = [_link(l, materials, path, search, where, balance_inertia) for l in robot.links]
    root_name = "root_joint" if "root_joint" not in {j.name for j in robot.joints} else "root_joint_world"
    joints = [Joint(root_name, "free" if floating_base else "fixed", None, roots[0])]
    joints += [_joint(j, where, mimic) for j in robot.joints]
    try:
        description = RobotDescription(robot.name or path.stem, tuple(links), tuple(joints), source=str(path))
    except ModelError as exc:
        raise RobotFileError(f"{where}: {exc}") from None
    check_moving_mass(description, where=where)
    return description


def _check_joint_elements(root, where):
    """Joint types, axes and mimic tags, checked on the XML before yourdfpy reads it."""
    for element in root.findall("joint"):  # the robot's joints (not <transmission>'s references)
        name, kind = element.get("name"), element.get("type")
        if kind not in _KINDS:
            rule = "planar joints are not supported" if kind == "planar" else "unknown joint type"
            raise RobotFileError(
                f"{where}: joint {name!r}: {rule} {kind!r}; URDF joint types read: {sorted(_KINDS)}"
            )
        axis = element.find("axis")
        if axis is not None and kind in ("revolute", "continuous", "prismatic"):
            try:
                xyz = np.array(axis.get("xyz", "1 0 0").split(), dtype=float)
            except ValueError:
                raise RobotFileError(f"{where}: joint {name!r} <axis xyz={axis.get('xyz')!r}>: three numbers expected") from None
            if xyz.shape != (3,) or not np.all(np.isfinite(xyz)):
                raise RobotFileError(f"{where}: joint {name!r} <axis xyz={axis.get('xyz')!r}>: three finite numbers expected")
            if not np.linalg.norm(xyz) > 0:
                raise RobotFileError(f"{where}: joint {name!r} <axis xyz={axis.get('xyz')!r}>: a joint axis must have non-zero length")


def _float(value, default):
    return default if value is None else float(value)


def _joint(j, where, mimic):
    if j.mimic is not None and mimic == "raise":
        raise RobotFileError(
            f"{where}: joint {j.name!r} <mimic joint={j.mimic.joint!r}>: mimic joints are refused by default "
            "(the coupling is a constraint, not a joint); pass mimic='independent' to read it as a free joint"
        )
    kind = _KINDS[j.type]
    placement = np.eye(4) if j.origin is None else np.asarray(j.origin, dtype=float)
    axis = np.array([1.0, 0.0, 0.0]) if j.axis is None else np.asarray(j.axis, dtype=float)
    limit, dyn = j.limit, j.dynamics
    lower, upper, effort, velocity = -np.inf, np.inf, np.inf, np.inf
    if limit is not None:
        effort, velocity = _float(limit.effort, np.inf), _float(limit.velocity, np.inf)
        if kind in ("revolute", "prismatic"):
            lower, upper = _float(limit.lower, 0.0), _float(limit.upper, 0.0)
    damping = _float(dyn.damping, 0.0) if dyn is not None else 0.0
    friction = _float(dyn.friction, 0.0) if dyn is not None else 0.0
    try:
        return Joint(
            j.name, kind, j.parent, j.child, placement=placement, axis=axis if kind != "fixed" else (0.0, 0.0, 1.0),
            lower=lower, upper=upper, effort=effort, velocity=velocity, damping=damping, friction=friction,
        )
    except ParameterError as exc:
        raise RobotFileError(f"{where}: joint {j.name!r}: {exc}") from None


def _link(l, materials, path, search, where, balance):
    if l.inertial is None:
        inertia = link_inertia(0.0, np.zeros(3), np.zeros((3, 3)), where=f"{where}: link {l.name!r}")
    else:
        H = np.eye(4) if l.inertial.origin is None else np.asarray(l.inertial.origin, dtype=float)
        R = H[:3, :3]
        I_F = np.zeros((3, 3)) if l.inertial.inertia is None else np.asarray(l.inertial.inertia, dtype=float)
        inertia = link_inertia(
            _float(l.inertial.mass, 0.0), H[:3, 3], R @ I_F @ R.T, where=f"{where}: link {l.name!r} <inertial>", balance=balance
        )
    visuals = [s for v in l.visuals if (s := _shape(v, l.name, "visual", materials, path, search, where)) is not None]
    collisions = [s for c in l.collisions if (s := _shape(c, l.name, "collision", None, path, search, where)) is not None]
    return Link(l.name, inertia, visuals=tuple(visuals), collisions=tuple(collisions))


def _shape(element, link, role, materials, path, search, where):
    g = element.geometry
    placement = np.eye(4) if element.origin is None else np.asarray(element.origin, dtype=float)
    rgba = (0.7, 0.7, 0.7, 1.0)
    material = getattr(element, "material", None)
    if material is not None:
        if material.color is None and materials and material.name in materials:
            material = materials[material.name]
        if material.color is not None:
            rgba = tuple(float(c) for c in material.color.rgba)
    name = element.name or ""
    if g is None:
        return None
    if g.sphere is not None:
        return Shape("sphere", (float(g.sphere.radius),), placement, rgba=rgba, name=name)
    if g.box is not None:
        return Shape("box", tuple(float(s) for s in g.box.size), placement, rgba=rgba, name=name)
    if g.cylinder is not None:
        return Shape("cylinder", (float(g.cylinder.radius), float(g.cylinder.length)), placement, rgba=rgba, name=name)
    if g.mesh is not None:
        file = resolve_mesh(g.mesh.filename, path, search)
        if file is None:
            warnings.warn(
                f"{where}: link {link!r} <{role}> mesh {g.mesh.filename!r} not found (searched {[str(s) for s in search]}); "
                "the shape is dropped, the link keeps its inertia",
                RobotFileWarning,
                stacklevel=4,
            )
            return None
        scale = np.ones(3) if g.mesh.scale is None else np.broadcast_to(np.asarray(g.mesh.scale, dtype=float), (3,))
        return Shape("mesh", tuple(scale), placement, mesh=str(file), rgba=rgba, name=name)
    return None


def _package_roots(path, package_dirs):
    roots = [Path(d).expanduser() for d in package_dirs]
    roots += [path.parent, *path.parent.parents]
    for variable in _PATH_VARIABLES:
        for entry in os.environ.get(variable, "").split(os.pathsep):
            if entry:
                roots += [Path(entry), Path(entry) / "share"]
    return roots


def resolve_mesh(filename, urdf_path, roots):
    """The absolute path of a URDF mesh reference, or None when no file is found.

    Parameters
    ----------
    filename : str
        As written in the file: ``package://NAME/rest``, ``file:///abs``, or a path relative to
        the URDF's folder.
    urdf_path : Path
        The URDF file.
    roots : sequence of Path
        Folders searched for a package: ``root/NAME/rest``, or ``root/rest`` when ``root``
        itself is named NAME.
    """
    if filename.startswith("package://"):
        package, _, rest = filename[len("package://"):].partition("/")
        for root in roots:
            for candidate in (root / package / rest, root / rest if root.name == package else None):
                if candidate is not None and candidate.is_file():
                    return candidate.resolve()
        return None
    if filename.startswith("file://"):
        filename = filename[len("file://"):]
    candidate = Path(filename) if os.path.isabs(filename) else urdf_path.parent / filename
    return candidate.resolve() if candidate.is_file() else None
