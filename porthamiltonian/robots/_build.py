"""Shared steps of the importers: frames, checked inertias, and the whole-tree checks.

Both importers turn a file into `RobotDescription` through these, so a URDF and an MJCF file
meet the same rules with the same messages (each naming the file and the element).
"""

from __future__ import annotations

import warnings

import numpy as np

from porthamiltonian.errors import ParameterError, RobotFileError, RobotFileWarning
from porthamiltonian.lie import quaternion
from porthamiltonian.robots.description import LinkInertia

__all__ = ["balance_inertia", "pose", "quat_matrix", "link_inertia", "check_tree", "check_moving_mass"]


def pose(R=None, p=None):
    """The 4x4 homogeneous matrix of rotation `R` (3, 3) and translation `p` (3,) [m]."""
    H = np.eye(4)
    if R is not None:
        H[:3, :3] = R
    if p is not None:
        H[:3, 3] = p
    return H


def quat_matrix(q):
    """Rotation matrix of the quaternion `q` = (w, x, y, z), normalized on the fly (as MuJoCo's)."""
    return quaternion.to_matrix(np.asarray(q, dtype=float))


def balance_inertia(inertia):
    """The nearest body inertia to a tensor that breaks the triangle inequality, and the excess.

    In the principal frame (moments I1 <= I2 <= I3), when ``I3 > I1 + I2`` the two smaller
    moments are raised by half the excess ``e = I3 - I1 - I2`` each, so ``I3 = I1 + I2``: the
    flat plate, the closest physical body with the same principal axes (the mass, the centre
    of mass and I3 unchanged; the trace grows by ``e``).

    Parameters
    ----------
    inertia : ndarray, shape (3, 3) [kg m^2]
        Symmetric.

    Returns
    -------
    balanced : ndarray, shape (3, 3) [kg m^2]
    excess : float [kg m^2]
        ``e`` (0 when the tensor already obeys the inequality; then `balanced` is `inertia`).
    """
    inertia = 0.5 * (np.asarray(inertia, dtype=float) + np.asarray(inertia, dtype=float).T)
    eig, V = np.linalg.eigh(inertia)
    excess = eig[2] - eig[0] - eig[1]
    if not excess > 0:
        return inertia, 0.0
    eig = eig + np.array([0.5 * excess, 0.5 * excess, 0.0])
    return (V * eig) @ V.T, float(excess)


def link_inertia(mass, com, inertia, *, where, balance=False):
    """A `LinkInertia`, with the file's element named when the numbers are not a body's.

    Parameters
    ----------
    mass : float [kg]
    com : array_like, shape (3,) [m]
        Centre of mass in the link frame.
    inertia : array_like, shape (3, 3) [kg m^2]
        Rotational inertia about the centre of mass, in the link frame.
    where : str
        The file and element, for the message (``"go1.urdf: link 'trunk' <inertial>"``).
    balance : bool
        True: a tensor breaking the triangle inequality is replaced by `balance_inertia`'s
        (a warning names the link and the excess); False: it is an error.

    Raises
    ------
    RobotFileError
        If the mass is negative or not finite, if the inertia is not symmetric positive
        semidefinite with principal moments obeying the triangle inequality, or if a massless
        link carries rotational inertia (a body of zero mass has zero inertia).
    """
    mass = float(mass)
    if not np.isfinite(mass) or mass < 0:
        raise RobotFileError(f"{where}: mass must be finite and >= 0 kg, got {mass!r}")
    if balance:
        inertia, excess = balance_inertia(inertia)
        if excess > 0:
            warnings.warn(
                f"{where}: principal moments break the triangle inequality by {excess!r} kg m^2; "
                "balanced (the two smaller moments raised by half of it each)",
                RobotFileWarning,
                stacklevel=4,
            )
    try:
        value = LinkInertia(mass, com, inertia)
    except ParameterError as exc:
        hint = "" if balance else " (pass balance_inertia=True to raise the two smaller moments to the nearest physical body)"
        raise RobotFileError(f"{where}: non-physical inertia: {exc}{hint}") from None
    if mass == 0 and np.abs(value.inertia).max() > 0:
        raise RobotFileError(
            f"{where}: a link of zero mass must have zero rotational inertia (non-physical), "
            f"got {value.inertia.tolist()} kg m^2"
        )
    return value


def check_tree(joints, links, *, where):
    """Check that joints (name, parent, child) name known links and form a tree, with messages
    naming the file.

    Parameters
    ----------
    joints : list of (str, str or None, str)
        Each joint's name, parent link (None for the world) and child link.
    links : iterable of str
        The file's link names.
    where : str
        The file, for the message.

    Raises
    ------
    RobotFileError
        A joint naming a link the file does not define, a link that is the child of two joints,
        or a cycle in the links (no root, or joints unreachable from the root).
    """
    known = set(links)
    parent_of = {}
    for name, parent, child in joints:
        for role, link in (("parent", parent), ("child", child)):
            if link is not None and link not in known:
                raise RobotFileError(f"{where}: joint {name!r} names a {role} link {link!r} that is not defined")
        if child in parent_of:
            raise RobotFileError(
                f"{where}: link {child!r} is the child of two joints ({parent_of[child][0]!r} and {name!r}); "
                "a kinematic tree gives each link one parent joint"
            )
        parent_of[child] = (name, parent)
    for name, parent, child in joints:
        seen, link = [child], parent
        while link is not None and link in parent_of:
            if link in seen:
                cycle = " -> ".join(seen[seen.index(link):] + [link])
                raise RobotFileError(f"{where}: joint {name!r} closes a cycle in the links ({cycle}); the links must form a tree")
            seen.append(link)
            link = parent_of[link][1]


def check_moving_mass(description, *, where):
    """Check that every moving joint moves some inertia (the mass matrix's diagonal is positive).

    The composite inertia of the subtree below each joint, in the joint frame, must resist the
    joint's motion: ``a^T I_O a > 0`` about a revolute axis (inertia about the joint origin),
    mass > 0 along a prismatic axis, all three for a spherical joint and all six for a free one.

    Raises
    ------
    RobotFileError
        Naming the joint and the subtree's mass when the subtree has zero inertia along a joint
        direction (the mass matrix would be singular).
    """
    children = {}
    for j in description.joints:
        children.setdefault(j.parent, []).append(j)
    composite = {}  # link -> 6x6 spatial inertia in the link frame, rows (omega, v)
    for j in reversed(description.joints):
        link = description.link(j.child)
        I = _spatial_inertia(link.inertia)
        for c in children.get(j.child, []):
            I = I + _transform_inertia(c.placement, composite[c.child])
        composite[j.child] = I
    for j in description.joints:
        I = composite[j.child]
        if j.kind in ("revolute", "continuous"):
            S = np.concatenate([j.axis, np.zeros(3)])[:, None]
        elif j.kind == "prismatic":
            S = np.concatenate([np.zeros(3), j.axis])[:, None]
        elif j.kind == "spherical":
            S = np.vstack([np.eye(3), np.zeros((3, 3))])
        elif j.kind == "free":
            S = np.eye(6)
        else:
            continue
        diag = np.diag(S.T @ I @ S)
        if not np.all(diag > 0):
            raise RobotFileError(
                f"{where}: joint {j.name!r} ({j.kind}) moves zero inertia along {diag.tolist()}: "
                f"the links below it (mass {I[3, 3]:.6g} kg) must resist every direction the joint moves "
                "(zero inertia makes the mass matrix singular)"
            )


def _spatial_inertia(inertia):
    """6x6 spatial inertia about the link frame's origin, rows (omega, v)."""
    m, c, Ic = inertia.mass, inertia.com, inertia.inertia
    C = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    return np.block([[Ic - m * C @ C, m * C], [-m * C, m * np.eye(3)]])


def _transform_inertia(H_PC, I_C):
    """A spatial inertia given in frame C, expressed in frame P (H_PC the pose of C in P)."""
    R, p = H_PC[:3, :3], H_PC[:3, 3]
    P = np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])
    # X maps twists (omega, v) in C to P: omega_P = R omega, v_P = R v + p x R omega
    X = np.block([[R, np.zeros((3, 3))], [P @ R, R]])
    Xi = np.linalg.inv(X)
    return Xi.T @ I_C @ Xi
