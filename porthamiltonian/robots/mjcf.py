"""Read an MJCF file into a `RobotDescription` through MuJoCo's own compiler.

MuJoCo compiles the file (defaults, includes, ``<compiler>`` options, frames given as quat,
axis-angle, euler or fromto, degrees) into flat arrays; this module reads those arrays and
converts MuJoCo's convention (joints inside a body, anchored at ``jnt_pos`` in the body frame)
to the description's (a link's frame *is* its joint frame).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from porthamiltonian.errors import ModelError, ParameterError, RobotFileError
from porthamiltonian.robots._build import check_moving_mass, check_tree, link_inertia, pose, quat_matrix
from porthamiltonian.robots.description import Joint, Link, RobotDescription, Shape

__all__ = ["load_mjcf"]

# mjtJoint and mjtGeom, as numbered by MuJoCo
_FREE, _BALL, _SLIDE, _HINGE = 0, 1, 2, 3
_GEOMS = {0: "plane", 2: "sphere", 3: "capsule", 4: "ellipsoid", 5: "cylinder", 6: "box", 7: "mesh"}


def load_mjcf(path, *, balance_inertia=False):
    """Read an MJCF file (or anything MuJoCo compiles, a URDF included) into a kinematic tree.

    Parameters
    ----------
    path : str or path-like
        The file, compiled by ``mujoco.MjModel.from_xml_path``.
    balance_inertia : bool
        As in `load_urdf` (MuJoCo's compiler already refuses such inertias unless the file asks
        for ``balanceinertia``, so this matters only for inertias at round-off distance).

    Returns
    -------
    RobotDescription
        One link per MuJoCo body (named as the body), plus a massless link
        ``"<body>/<joint>"`` after each joint but the last of a body with several joints.
        Joint names are MuJoCo's; a body without joints is welded to its parent by a fixed
        joint ``"<body>_weld"``.

    Raises
    ------
    RobotFileError
        MuJoCo's compiler refused the file (its message is quoted); the world has no body; a
        free joint not at the top of the tree; a spring on a ball or free joint, a nonlinear
        joint spring, or per-dof damping, friction or armature differing within one ball or
        free joint (the description holds one number per joint); a moving joint with no
        inertia below it.

    Notes
    -----
    Conversion, for body B with parent P and joints j1..jn anchored at p1..pn (``jnt_pos``, in
    B's frame, whose orientation every joint frame shares):

    - ``H_PB`` = (``body_pos``, ``body_quat``). The link frame of B is B's frame moved to the
      last anchor ``pn`` (identity when B has no joint), so placements read
      ``placement(j1) = Trans(-o_P) H_PB Trans(p1)`` with ``o_P`` the parent's anchor offset,
      and ``placement(jk) = Trans(pk - p(k-1))`` for the following joints, which MuJoCo applies
      in this order, each in the frame the previous ones moved.
    - Inertia (``body_mass``, ``body_ipos``, ``body_iquat``, ``body_inertia``) and geoms are
      re-expressed in the link frame: ``com = ipos - pn``, ``I = R diag(inertia) R^T``.
    - Kinds: free -> ``free`` (placement identity: the joint's coordinates are the body's pose in
      the world; the pose the file draws is MuJoCo's ``qpos0``, not part of the tree); ball ->
      ``spherical``; hinge -> ``revolute`` when limited, else ``continuous``; slide ->
      ``prismatic``. Hinge and slide positions are measured from the joint's ``ref``
      (``qpos0``), as MuJoCo's kinematics rotate by ``q - qpos0``: limits are
      ``jnt_range - ref`` and the spring's rest ``qpos_spring - ref``.
    - Dynamics: ``dof_damping`` -> damping, ``dof_frictionloss`` -> friction,
      ``jnt_stiffness`` -> stiffness, ``dof_armature`` -> armature, ``jnt_actfrcrange`` ->
      effort (when ``actfrclimited``).
    - Geoms with ``contype`` or ``conaffinity`` set are collisions, the others visuals; geoms of
      the world body (a floor) are not part of the robot and are left out. Capsule and cylinder
      sizes become (radius, full length), boxes full side lengths. Mesh geoms keep the mesh
      file (``mesh_pathadr``) with ``mesh_scale``; their placement puts the file's own frame
      back (MuJoCo recentres meshes at their inertial frame: ``mesh_pos``, ``mesh_quat``).
    - When several bodies hang from the world, a massless link ``"world"`` fixed to the world
      (root joint ``"world_fixed"``) holds them.
    """
    import mujoco

    path = Path(path).expanduser().resolve()
    where = path.name
    if not path.is_file():
        raise RobotFileError(f"{path}: no such MJCF file")
    try:
        model = mujoco.MjModel.from_xml_path(str(path))
    except ValueError as exc:
        raise RobotFileError(f"{where}: MuJoCo's compiler refused the file: {exc}") from None
    if model.nbody < 2:
        raise RobotFileError(f"{where}: the world body holds no body: nothing to import")
    body_names = [model.body(b).name or f"body{b}" for b in range(model.nbody)]
    top = [b for b in range(1, model.nbody) if model.body_parentid[b] == 0]
    link_name = {0: None}
    links, joints = [], []
    if len(top) > 1:
        link_name[0] = "world"
        links.append(Link("world"))
        joints.append(Joint("world_fixed", "fixed", None, "world"))
    offset = {0: np.eye(4)}  # body -> its link frame in the body frame
    for b in range(1, model.nbody):
        body_links, body_joints, offset[b] = _body(model, b, body_names, link_name, offset, where, balance_inertia, path.parent)
        link_name[b] = body_names[b]
        links += body_links
        joints += body_joints
    check_tree([(j.name, j.parent, j.child) for j in joints], [l.name for l in links], where=where)
    try:
        description = RobotDescription(model.names[: model.names.index(b"\0")].decode() or path.stem, tuple(links), tuple(joints), source=str(path))
    except ModelError as exc:
        raise RobotFileError(f"{where}: {exc}") from None
    check_moving_mass(description, where=where)
    return description


def _body(model, b, body_names, link_name, offset, where, balance, folder):
    """The links and joints of MuJoCo body `b`, and its link frame in its body frame."""
    name, parent = body_names[b], int(model.body_parentid[b])
    H_PB = pose(quat_matrix(model.body_quat[b]), model.body_pos[b])
    H_prev = np.linalg.inv(offset[parent]) @ H_PB  # body frame in the parent's link frame
    prev_link, prev_anchor = link_name[parent], np.zeros(3)
    first, count = int(model.body_jntadr[b]), int(model.body_jntnum[b])
    links, joints = [], []
    if count == 0:
        joints.append(Joint(f"{name}_weld", "fixed", prev_link, name, placement=H_prev))
        anchor = np.zeros(3)
    for k, jid in enumerate(range(first, first + count)):
        jname = model.joint(jid).name or f"{name}_joint{k}"
        anchor = np.array(model.jnt_pos[jid], dtype=float)
        child = name if k == count - 1 else f"{name}/{jname}"
        placement = H_prev @ pose(p=anchor) if k == 0 else pose(p=anchor - prev_anchor)
        joints.append(_joint(model, jid, jname, prev_link, child, placement, parent, where))
        if child != name:
            links.append(Link(child))
        prev_link, prev_anchor = child, anchor
    H_BL = pose(p=anchor)
    R_i = quat_matrix(model.body_iquat[b])
    inertia = link_inertia(
        model.body_mass[b], model.body_ipos[b] - anchor, (R_i * model.body_inertia[b]) @ R_i.T,
        where=f"{where}: body {name!r} inertia", balance=balance,
    )
    visuals, collisions = _geoms(model, b, np.linalg.inv(H_BL), folder)
    links.append(Link(name, inertia, visuals=visuals, collisions=collisions))
    return links, joints, H_BL


def _per_joint(values, jname, key, where):
    values = np.asarray(values, dtype=float)
    if np.ptp(values) > 0:
        raise RobotFileError(f"{where}: joint {jname!r}: {key} differs between its degrees of freedom {values.tolist()}; the description holds one value per joint")
    return float(values[0])


def _joint(model, jid, jname, parent, child, placement, parent_body, where):
    kind_id = int(model.jnt_type[jid])
    dofs = slice(int(model.jnt_dofadr[jid]), int(model.jnt_dofadr[jid]) + {_FREE: 6, _BALL: 3}.get(kind_id, 1))
    qadr = int(model.jnt_qposadr[jid])
    damping = _per_joint(model.dof_damping[dofs], jname, "damping", where)
    friction = _per_joint(model.dof_frictionloss[dofs], jname, "frictionloss", where)
    armature = _per_joint(model.dof_armature[dofs], jname, "armature", where)
    stiffness = float(model.jnt_stiffness[jid])
    if hasattr(model, "jnt_stiffnesspoly") and np.any(model.jnt_stiffnesspoly[jid] != 0):
        raise RobotFileError(f"{where}: joint {jname!r}: a nonlinear spring (stiffnesspoly) is not read; the description holds a linear one")
    effort = float(np.max(np.abs(model.jnt_actfrcrange[jid]))) if model.jnt_actfrclimited[jid] else np.inf
    common = dict(placement=placement, damping=damping, friction=friction, armature=armature, effort=effort)
    if kind_id in (_FREE, _BALL):
        if stiffness != 0:
            raise RobotFileError(f"{where}: joint {jname!r}: a spring on a {'free' if kind_id == _FREE else 'ball'} joint is not representable (the description's springs act on 1-dof joints)")
        if kind_id == _FREE:
            if parent_body != 0:
                raise RobotFileError(f"{where}: joint {jname!r}: a free joint must be on a body hanging from the world")
            return Joint(jname, "free", parent, child, damping=damping, friction=friction, armature=armature)
        return Joint(jname, "spherical", parent, child, **common)
    ref = float(model.qpos0[qadr])
    rest = float(model.qpos_spring[qadr]) - ref
    axis = np.array(model.jnt_axis[jid], dtype=float)
    limited = bool(model.jnt_limited[jid])
    lower, upper = (model.jnt_range[jid] - ref) if limited else (-np.inf, np.inf)
    kind = "prismatic" if kind_id == _SLIDE else ("revolute" if limited else "continuous")
    try:
        return Joint(jname, kind, parent, child, axis=axis, lower=lower, upper=upper, stiffness=stiffness, rest=rest, **common)
    except ParameterError as exc:
        raise RobotFileError(f"{where}: joint {jname!r}: {exc}") from None


def _geoms(model, b, H_LB, folder):
    visuals, collisions = [], []
    for g in np.flatnonzero(model.geom_bodyid == b):
        kind = _GEOMS.get(int(model.geom_type[g]))
        if kind is None:
            continue  # height fields and SDF geoms have no description shape
        size = np.array(model.geom_size[g], dtype=float)
        H = H_LB @ pose(quat_matrix(model.geom_quat[g]), model.geom_pos[g])
        mesh = None
        shape_size = {"plane": (), "sphere": size[:1], "ellipsoid": size, "box": 2 * size,
                      "capsule": (size[0], 2 * size[1]), "cylinder": (size[0], 2 * size[1])}.get(kind)
        if kind == "mesh":
            m = int(model.geom_dataid[g])
            start = int(model.mesh_pathadr[m])
            if start < 0:
                continue  # a mesh built in the file (vertex list), no file to show
            mesh = model.paths[start:].split(b"\0", 1)[0].decode()
            mesh = str(mesh_path if (mesh_path := Path(mesh)).is_absolute() else (folder / mesh_path).resolve())
            # MuJoCo recentred the file's (scaled) vertices: v_geom = R(mesh_quat)^T (v_file - mesh_pos),
            # which is the file's frame in the geom frame
            R_m = quat_matrix(model.mesh_quat[m])
            H = H @ pose(R_m.T, -R_m.T @ model.mesh_pos[m])
            shape_size = tuple(model.mesh_scale[m]) if hasattr(model, "mesh_scale") else (1.0, 1.0, 1.0)
        rgba = tuple(float(c) for c in model.geom_rgba[g])
        shape = Shape(kind, tuple(shape_size), H, mesh=mesh, rgba=rgba, name=model.geom(g).name)
        (collisions if model.geom_contype[g] or model.geom_conaffinity[g] else visuals).append(shape)
    return tuple(visuals), tuple(collisions)

