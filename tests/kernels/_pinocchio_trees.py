"""Trees for the articulated-body tests: a `RobotDescription` built from a Pinocchio model (so
the checks do not go through our importers), random hand-made trees with every joint kind,
and the maps between Pinocchio's coordinates and ours."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from porthamiltonian.robots.description import Joint, Link, LinkInertia, RobotDescription


def robots_folder():
    import pinocchio

    site = Path(pinocchio.__file__).resolve()
    for parent in site.parents:
        cand = parent / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
        if cand.is_dir():
            return cand
    raise FileNotFoundError("example-robot-data's robots folder")


URDFS = {
    "go1": "go1_description/urdf/go1.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
    "anymal_c": "anymal_c_simple_description/urdf/anymal.urdf",
}


def pinocchio_robot(key):
    import pinocchio

    return pinocchio.buildModelFromUrdf(str(robots_folder() / URDFS[key]), pinocchio.JointModelFreeFlyer())


def _H(se3):
    H = np.eye(4)
    H[:3, :3] = se3.rotation
    H[:3, 3] = se3.translation
    return H


def description_from_pinocchio(model, name="pin"):
    """A RobotDescription with the joints, placements and inertias of a Pinocchio model
    (link i is Pinocchio's joint i's body, its frame the joint frame)."""
    links, joints = [], []
    for j in range(1, model.njoints):
        jm = model.joints[j]
        short = jm.shortname()
        inertia = model.inertias[j]
        links.append(Link(f"L{j}", LinkInertia(inertia.mass, np.array(inertia.lever), np.array(inertia.inertia))))
        parent = None if model.parents[j] == 0 else f"L{model.parents[j]}"
        axis = (1.0, 0.0, 0.0)
        if short.endswith("FreeFlyer"):
            kind = "free"
        elif short.endswith("Spherical"):
            kind = "spherical"
        elif short in ("JointModelRX", "JointModelRY", "JointModelRZ"):
            kind, axis = "revolute", np.eye(3)["XYZ".index(short[-1])]
        elif short in ("JointModelRUBX", "JointModelRUBY", "JointModelRUBZ"):
            kind, axis = "continuous", np.eye(3)["XYZ".index(short[-1])]
        elif short == "JointModelRevoluteUnaligned":
            kind, axis = "revolute", np.array(jm.extract().axis)
        elif short in ("JointModelPX", "JointModelPY", "JointModelPZ"):
            kind, axis = "prismatic", np.eye(3)["XYZ".index(short[-1])]
        elif short == "JointModelPrismaticUnaligned":
            kind, axis = "prismatic", np.array(jm.extract().axis)
        else:
            raise NotImplementedError(short)
        armature = float(model.armature[jm.idx_v]) if jm.nv == 1 else 0.0
        joints.append(Joint(model.names[j], kind, parent, f"L{j}", placement=_H(model.jointPlacements[j]), axis=axis,
                            armature=armature))
    return RobotDescription(name, tuple(links), tuple(joints))


def _order(model, description):
    """Pinocchio's joint ids in the description's joint order (topological, depth first)."""
    return [model.getJointId(j.name) for j in description.joints]


def to_ours(model, description, q_pin, v_pin):
    """Pinocchio's (q, v) -> ours (joints in the description's order; per joint: quaternions
    w-first, free pose quaternion first, free velocity (omega, v); continuous (cos, sin) -> angle)."""
    q, v = [], []
    for j in _order(model, description):
        jm = model.joints[j]
        s, iq, iv = jm.shortname(), jm.idx_q, jm.idx_v
        qq, vv = q_pin[iq : iq + jm.nq], v_pin[iv : iv + jm.nv]
        if s.endswith("FreeFlyer"):
            q += [qq[6], qq[3], qq[4], qq[5], qq[0], qq[1], qq[2]]
            v += list(vv[3:]) + list(vv[:3])
        elif s.endswith("Spherical"):
            q += [qq[3], qq[0], qq[1], qq[2]]
            v += list(vv)
        elif s.startswith("JointModelRUB"):
            q.append(np.arctan2(qq[1], qq[0]))
            v += list(vv)
        else:
            q += list(qq)
            v += list(vv)
    return np.array(q), np.array(v)


def v_to_ours(model, description, v_pin):
    """Map a velocity-like vector (velocities, accelerations, efforts) from Pinocchio's order."""
    out = []
    for j in _order(model, description):
        jm = model.joints[j]
        vv = v_pin[jm.idx_v : jm.idx_v + jm.nv]
        out += (list(vv[3:]) + list(vv[:3])) if jm.shortname().endswith("FreeFlyer") else list(vv)
    return np.array(out)


def v_permutation(model, description):
    """P with ours = P @ pinocchio's, for velocity-like vectors."""
    return np.stack([v_to_ours(model, description, e) for e in np.eye(model.nv)], axis=1)


def random_pinocchio_tree(rng, n=8):
    """A random Pinocchio model with every joint kind (free root, spherical, revolute about
    aligned and unaligned axes, continuous, prismatic), random placements and inertias."""
    import pinocchio

    model = pinocchio.Model()
    kinds = ["free", "spherical", "RX", "RY", "RZ", "RUBZ", "PX", "PY", "PZ", "runal", "punal"]
    path = [0]   # the last joint and its ancestors: a parent from it keeps the joints in
    for j in range(n):   # depth-first order, which Pinocchio's crba assumes (subtrees contiguous in v)
        parent = 0 if j == 0 else path[int(rng.integers(1, len(path)))]
        k = "free" if j == 0 else kinds[1 + int(rng.integers(0, len(kinds) - 1))]
        if k == "free":
            jm = pinocchio.JointModelFreeFlyer()
        elif k == "spherical":
            jm = pinocchio.JointModelSpherical()
        elif k == "runal":
            a = rng.normal(size=3)
            jm = pinocchio.JointModelRevoluteUnaligned(*(a / np.linalg.norm(a)))
        elif k == "punal":
            a = rng.normal(size=3)
            jm = pinocchio.JointModelPrismaticUnaligned(*(a / np.linalg.norm(a)))
        else:
            jm = getattr(pinocchio, "JointModel" + k)()
        place = pinocchio.SE3.Random()
        jid = model.addJoint(parent, jm, place, f"j{j}")
        path = path[: path.index(parent) + 1] + [jid]
        model.appendBodyToJoint(jid, random_inertia(rng), pinocchio.SE3.Identity())
    for jid in range(1, model.njoints):   # armatures on the one-dof joints
        if model.joints[jid].nv == 1:
            model.armature[model.joints[jid].idx_v] = rng.uniform(0.0, 0.2)
    return model


def random_inertia(rng):
    """A physical random inertia: a box of random sides and mass, rotated, off its frame's origin."""
    import pinocchio

    m = rng.uniform(0.5, 3.0)
    a, b, c = rng.uniform(0.05, 0.5, size=3)
    Ic = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    R = pinocchio.SE3.Random().rotation
    return pinocchio.Inertia(m, rng.uniform(-0.2, 0.2, size=3), R @ Ic @ R.T)
