"""A Pinocchio model built from a `RobotDescription`: the second formulation the import tests
compare against Pinocchio's own URDF parse and against MuJoCo.

Fixed joints are merged the way Pinocchio's URDF parser merges them: a fixed child's inertia is
appended to the nearest moving ancestor joint at the accumulated fixed placement, and the next
moving joint's placement absorbs the fixed placements above it. Continuous joints are built as
revolute ones (the mass matrix depends only on the angle).
"""

import numpy as np
import pinocchio as pin


def joint_model(joint):
    a = np.asarray(joint.axis, dtype=float)
    if joint.kind in ("revolute", "continuous"):
        return pin.JointModelRevoluteUnaligned(a)
    if joint.kind == "prismatic":
        return pin.JointModelPrismaticUnaligned(a)
    if joint.kind == "spherical":
        return pin.JointModelSpherical()
    if joint.kind == "free":
        return pin.JointModelFreeFlyer()
    raise ValueError(joint.kind)


def pinocchio_model(description):
    """(model, link_frame) with link_frame[link] = (pinocchio joint id, H_joint_link)."""
    model = pin.Model()
    link_frame = {}
    for j in description.joints:
        parent_id, H_parent = (0, np.eye(4)) if j.parent is None else link_frame[j.parent]
        H = H_parent @ j.placement
        if j.kind == "fixed":
            jid, H_link = parent_id, H
        else:
            jid = model.addJoint(parent_id, joint_model(j), pin.SE3(H[:3, :3], H[:3, 3]), j.name)
            H_link = np.eye(4)
        link_frame[j.child] = (jid, H_link)
        inertia = description.link(j.child).inertia
        if jid > 0:
            Y = pin.Inertia(inertia.mass, inertia.com, inertia.inertia)
            model.appendBodyToJoint(jid, Y, pin.SE3(H_link[:3, :3], H_link[:3, 3]))
    return model, link_frame


def mass_matrix(description, q):
    """M(q) of the description's tree (Pinocchio's CRBA), q in Pinocchio's order and layout."""
    model, _ = pinocchio_model(description)
    data = model.createData()
    M = pin.crba(model, data, q)
    return np.triu(M) + np.triu(M, 1).T


def velocity_names(model):
    """The joint name of each velocity coordinate, with its index within the joint."""
    names = []
    for jid in range(1, model.njoints):
        names += [(model.names[jid], k) for k in range(model.joints[jid].nv)]
    return names


def joint_axis(model, jid):
    """A 1-dof joint's motion axis in its own frame, read from its LOCAL Jacobian at q = 0
    (Pinocchio's twist order (v, omega)): (kind letter 'R' or 'P', axis)."""
    data = model.createData()
    q = pin.neutral(model)
    pin.computeJointJacobians(model, data, q)
    J = pin.getJointJacobian(model, data, jid, pin.ReferenceFrame.LOCAL)[:, model.joints[jid].idx_v]
    return ("R", J[3:]) if np.linalg.norm(J[3:]) > 0 else ("P", J[:3])
