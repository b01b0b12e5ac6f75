"""Contact forces over a trajectory: normal and tangential force, contact point, centre of pressure.

Any contact component built by `library.contact` (compliant or sliding-plane) is read the
same way, from what the system already computes: the wrench the component exerts on body b
is minus the sum of the efforts its elements receive at their ports "b" (the port
convention of `PHSystem.port_variables`), expressed in the contact frame C through the twist
map ``G_b`` of the contact geometry (``W_B = G_b^T W_C``). The frame C has its z axis along
the normal of surface a, pointing from body a toward body b, and its origin on the average
tangent plane, so that:

- the normal force is the z component of the force on body b: positive when the contact
  pushes the bodies apart (a compliant contact's damper may pull while it separates);
- the tangential force is the x-y part of the force on body b (friction on b);
- the spin torque is the z component of the torque on body b about the frame origin.

The forces on body a are the opposite ones at the same point (no moment arm: the wrench acts
at the frame origin, whose x-y torques vanish). Not for the hot path: it evaluates every bond
at every sample, once for all contacts (`contacts_forces`; `Trajectory.contact_forces` keeps
the result, which the centre of pressure and the support polygon read).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import ModelError

__all__ = ["ContactForces", "contact_bodies", "contact_forces", "contacts_forces", "contact_frames", "center_of_pressure",
           "contact_names", "support_polygon"]


class ContactForces(NamedTuple):
    """A contact's forces over a trajectory (module docstring for signs and frames).

    Attributes
    ----------
    t : ndarray, shape (N,) [s]
    normal : ndarray, shape (N,) [N]
        Normal force on body b along the normal, positive pushing the bodies apart.
    tangential : ndarray, shape (N, 3) [N]
        Tangential (friction) force on body b, world axes.
    spin : ndarray, shape (N,) [N m]
        Torque on body b about the normal.
    point : ndarray, shape (N, 3) [m]
        Contact frame origin (on the average tangent plane), world coordinates; NaN where the
        contact point is off a bounded surface (then the forces are zero).
    normal_direction : ndarray, shape (N, 3)
        Unit normal of surface a (from body a toward body b), world axes.
    body_a, body_b : str
        Names of the two bodies.
    """

    t: np.ndarray
    normal: np.ndarray
    tangential: np.ndarray
    spin: np.ndarray
    point: np.ndarray
    normal_direction: np.ndarray
    body_a: str
    body_b: str


def contact_names(system):
    """Names of the system's contact components (those whose elements share a contact pair)."""
    return sorted({p.split("/")[0] for p, o in system.elements.items() if hasattr(o, "pair") and "/" in p})


def _leaves(system, name):
    """The component's elements that hold its contact pair (spring, damper, slip, constraint)."""
    leaves = [p for p, o in system.elements.items() if p.startswith(name + "/") and hasattr(o, "pair")]
    if not leaves:
        known = contact_names(system)
        raise ModelError(f"system {system.name!r} has no contact component {name!r}; its contacts are {known}")
    return leaves


def _geometry(system, leaves, x):
    """The exact contact state and the world pose of the contact frame at state x."""
    path = leaves[0]
    pair = system.elements[path].pair
    own, refs = system.element_state(path, x)
    st = pair.state(own[0:4], own[4:6], refs)
    if st.culled:
        return st, None
    H_Wa, _ = pair.body_poses(refs)
    return st, H_Wa @ pair.H_aS1 @ st.H_1C


def contact_forces(trajectory, name):
    """The forces of contact component `name` at every sample of `trajectory`.

    Returns
    -------
    ContactForces

    Raises
    ------
    ModelError
        If the system has no contact component of that name (the message lists them).
    """
    return contacts_forces(trajectory, [name])[name]


def contacts_forces(trajectory, names):
    """`contact_forces` of several contact components at once: dict name -> ContactForces.

    One pass over the samples: the system's port variables are evaluated once per sample for
    all of them (the cost of this function: one evaluation of every bond per sample), and not
    at all at a sample where every one of them is off its bounded surface.

    Raises
    ------
    ModelError
        If the system has no contact component of one of these names.
    """
    system = trajectory.system
    leaves = {n: _leaves(system, n) for n in names}
    N = len(trajectory.t)
    normal, spin = {n: np.zeros(N) for n in names}, {n: np.zeros(N) for n in names}
    tangential, point, direction = ({n: np.zeros((N, 3)) for n in names} for _ in range(3))
    for k, (t, x) in enumerate(zip(trajectory.t, trajectory.x)):
        pv = None
        for n in names:
            st, H_WC = _geometry(system, leaves[n], x)
            if H_WC is None:       # the contact point is off a bounded surface: no contact, no point
                point[n][k] = direction[n][k] = np.nan
                continue
            pv = system.port_variables(t, x) if pv is None else pv
            e_b = sum(pv[(p, "b")][0] for p in leaves[n] if (p, "b") in pv)
            W = np.linalg.solve(st.G_b.T, -e_b)        # wrench on body b, contact frame
            R = H_WC[:3, :3]
            normal[n][k], spin[n][k] = W[5], W[2]
            tangential[n][k] = R[:, 0] * W[3] + R[:, 1] * W[4]
            point[n][k], direction[n][k] = H_WC[:3, 3], R[:, 2]
    out = {}
    for n in names:
        pair = system.elements[leaves[n][0]].pair
        out[n] = ContactForces(trajectory.t, normal[n], tangential[n], spin[n], point[n], direction[n],
                               pair.body_a.name, pair.body_b.name)
    return out


def contact_frames(trajectory, name):
    """The world pose ``H_WC`` of the contact frame of component `name` at every sample
    (z along the normal of surface a, toward body b; origin on the average tangent plane).

    Returns
    -------
    ndarray, shape (N, 4, 4)
        NaN where the contact point is off a bounded surface (as in `contact_forces`).

    Raises
    ------
    ModelError
        If the system has no contact component of that name.
    """
    system = trajectory.system
    leaves = _leaves(system, name)
    out = np.full((len(trajectory.t), 4, 4), np.nan)
    for k, x in enumerate(trajectory.x):
        H_WC = _geometry(system, leaves, x)[1]
        if H_WC is not None:
            out[k] = H_WC
    return out


def _body_name(body):
    """The name a contact's body is reported under: a link of an articulated body (a
    `LinkBody` view, which has a ``robot``) counts as its robot, so that the robot's feet
    share one centre of pressure; any other body under its own name."""
    robot = getattr(body, "robot", None)
    return robot.name if robot is not None else body.name


def contact_bodies(system):
    """The contacts acting on each moving or fixed body: dict body name -> list of contact
    component names (`contact_names`), in the system's order. The links of an
    `ArticulatedBody` are one body, the robot's (its name): a robot's feet are its contacts."""
    out = {}
    for n in contact_names(system):
        pair = system.elements[_leaves(system, n)[0]].pair
        for body in (_body_name(pair.body_a), _body_name(pair.body_b)):
            out.setdefault(body, []).append(n)
    return out


#: the centre of pressure is drawn where the total normal force exceeds this fraction of its peak
PRESSED = 1e-3


def center_of_pressure(trajectory, body, contacts=None):
    """Centre of pressure of the contacts acting on `body`: the contact points weighted by
    their pushing normal forces, ``sum F_i p_i / sum F_i`` with ``F_i = max(F_n,i, 0)`` [m]
    (world, shape (N, 3)).

    Parameters
    ----------
    body : str
        A body's name (a robot's, an `ArticulatedBody`, for all contacts on its links).
    contacts : sequence of str, optional
        The contact components to include (default: every contact of the system involving
        `body`, `contact_bodies`).

    Returns
    -------
    cop : ndarray, shape (N, 3)
        NaN where the body is not pressed: the total normal force is at most `PRESSED`
        (1e-3) times its largest magnitude over the trajectory (in the air, or at a contact's
        first and last instants, where the ratio of two near-zero sums is meaningless).
    total : ndarray, shape (N,)
        The summed pushing normal force [N] (each contact's normal force, 0 where it pulls).
    """
    system = trajectory.system
    if contacts is None:
        contacts = contact_bodies(system).get(body, [])
    if not contacts:
        raise ModelError(f"no contact of system {system.name!r} involves body {body!r}")
    forces = [trajectory.contact_forces(n) for n in contacts]   # computed once per trajectory
    # pressure pushes: a contact whose law pulls (a damper at separation) is left out of the
    # centre (weighted by a negative force, it would throw the centre outside the contacts)
    pushes = [np.maximum(f.normal, 0.0) for f in forces]
    total = sum(pushes)
    weighted = sum(n[:, None] * np.nan_to_num(f.point) for n, f in zip(pushes, forces))
    # where the total is a sliver of its peak (a contact closing or opening, or a damper's pull
    # cancelling a push) the ratio is the quotient of two round-off sized numbers and lands
    # metres away from every contact point: the body is not pressed there
    pressed = total > PRESSED * max(float(np.max(np.abs(total), initial=0.0)), np.finfo(float).tiny)
    with np.errstate(invalid="ignore", divide="ignore"):
        cop = np.where(pressed[:, None], weighted / total[:, None], np.nan)
    return cop, total


def support_polygon(trajectory, body, contacts=None):
    """The contact points that push on `body` at the sample where the most of them push at once
    (the latest such sample): the corners of its support polygon, as a robot's or a walker's
    feet span it in double or quadruple stance.

    Parameters
    ----------
    body : str
    contacts : sequence of str, optional
        As in `center_of_pressure`.

    Returns
    -------
    t : float or None
        The sample's time [s]; None when no contact on `body` ever pushes.
    points : ndarray, shape (M, 3)
        The pushing contacts' points there (world) [m], M the number of them (0 when none).
    """
    system = trajectory.system
    if contacts is None:
        contacts = contact_bodies(system).get(body, [])
    if not contacts:
        raise ModelError(f"no contact of system {system.name!r} involves body {body!r}")
    forces = [trajectory.contact_forces(n) for n in contacts]   # computed once per trajectory
    pushing = np.array([(f.normal > 0.0) & np.all(np.isfinite(f.point), axis=1) for f in forces])
    count = pushing.sum(axis=0)
    if not count.size or count.max() == 0:
        return None, np.zeros((0, 3))
    k = int(np.flatnonzero(count == count.max())[-1])
    return float(trajectory.t[k]), np.array([f.point[k] for f, on in zip(forces, pushing[:, k]) if on])
