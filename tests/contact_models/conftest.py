"""Builders and measurements shared by the compliant-contact tests.

Every scenario is one rigid body (sphere or ellipsoid) against the ground plane z = 0,
assembled exactly as a user would (`CompliantContact` bonded to the body's and the ground's
frame ports). Measurements read the body's state (pose, momentum) and the system's
right-hand side, not the contact's internals, unless the internals are what is tested.
"""

import numpy as np

import porthamiltonian as ph
from porthamiltonian.geometry import Ellipsoid, Plane, Sphere
from porthamiltonian.library import Gravity, Ground, RigidBody, contact as make_contact

from .reference import ellipsoid_inertia, rotations_of

#: accurate integration of the short scenarios; errors are measured in units of RTOL
RTOL, ATOL = 1e-10, 1e-12
TIGHT = dict(rtol=RTOL, atol=ATOL, method="DOP853")


def body_on_plane(body, surface, *, gravity=False, kind="compliant", **contact):
    """Compile `body` (with `surface`) against the ground plane with a contact of the given
    kind (`library.contact`); returns (system, x0)."""
    bg = ph.BondGraph("on_plane")
    ground = Ground("ground")
    c = make_contact(kind, "c", body, surface, ground, Plane(), **contact)
    bg.add(body, ground, c)
    if gravity:
        bg.add(Gravity("gravity", body))
        bg.connect(body.frame().port, "gravity")
    bg.connect(body.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    system = ph.compile(bg)
    return system, system.initial_state()


def ball(m, r, height, twist=(0, 0, 0, 0, 0, 0)):
    """A solid sphere (inertia 2/5 m r^2) with its centre at `height`, unrotated."""
    H = np.eye(4)
    H[2, 3] = height
    return RigidBody("ball", m, [0.4 * m * r * r] * 3, pose=H, twist=twist), Sphere(r)


def ellipsoid(m, axes, R, height, twist_world=(0, 0, 0, 0, 0, 0)):
    """A solid ellipsoid rotated by R (body to world), centre at (0, 0, height), with a twist
    given in world axes (angular, linear velocity of the centre)."""
    H = np.eye(4)
    H[:3, :3] = R
    H[2, 3] = height
    tw = np.asarray(twist_world, float)
    twist = np.concatenate((R.T @ tw[:3], R.T @ tw[3:]))
    return RigidBody("body", m, ellipsoid_inertia(m, *axes), pose=H, twist=twist), Ellipsoid(*axes)


def contact_distance(system, x, path="c/spring"):
    """The product's signed distance Delta of a contact at state x."""
    own, refs = system.element_state(path, x)
    return float(system.elements[path].distance(own, refs))


def world_momenta(traj, body="ball"):
    """(linear momentum, angular momentum about the centre of mass), world axes, (N, 3) each,
    of a body whose frame is at its centre of mass: R P_v and R P_w."""
    R = rotations_of(traj.state(f"{body}.pose"))
    P = traj.state(f"{body}.P")
    return np.einsum("nij,nj->ni", R, P[:, 3:]), np.einsum("nij,nj->ni", R, P[:, :3])


def world_force(system, t, x, body="ball"):
    """Total force on a body (frame at its centre of mass) in world axes, from the system's
    right-hand side: d(R P_v)/dt = R (dP_v/dt + w x P_v)."""
    b = system.elements[body]
    pose, P = x[system.layout[f"{body}.pose"]], x[system.layout[f"{body}.P"]]
    dP = system.rhs(t, x)[system.layout[f"{body}.P"]]
    w = b.Minv[:3] @ P
    R = rotations_of(pose)[0]
    return R @ (dP[3:] + np.cross(w, P[3:]))


def assert_ledger_closes(traj, rel):
    """The energy ledger residual is below `rel` of the largest energy seen; dissipated
    entries are non-negative (integrated round-off allowed at the residual level)."""
    b = traj.power_budget()
    scale = b.scale
    assert b.max_residual <= rel * scale, f"ledger residual {b.max_residual:.3e} J > {rel:.1e} x {scale:.4g} J"
    for path, col in b.entries["dissipated"].items():
        assert col.min() >= -rel * scale, f"{path} dissipated {col.min():.3e} J < 0"
    return b
