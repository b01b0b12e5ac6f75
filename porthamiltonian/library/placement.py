"""Initial states on a support: a body resting on a plane with a given orientation and motion.

`place_on` answers the question a user building a rattleback, a rolling disk or a foot on the
ground asks before any simulation: where must the body be, and how fast must it move, so that
its surface touches the plane and its velocity is consistent with the contact (rolling: the
contact point at rest; sliding: moving in the plane at a given velocity)? Without it the
state is found by hand algebra, or by `PHSystem.project_constraints`, which moves the velocity
to the nearest consistent one in the kinetic-energy metric and so changes the spin the user
asked for.
"""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_array
from porthamiltonian.errors import ParameterError
from porthamiltonian.geometry import Plane, Surface
from porthamiltonian.lie import se3

from .rigid_body import RigidBody, pose_vector

__all__ = ["place_on"]


def _rotation(value):
    R = as_array(value, "rotation", (3, 3))
    if not (np.allclose(R.T @ R, np.eye(3), rtol=0, atol=1e-12) and np.linalg.det(R) > 0):
        raise ParameterError(f"`rotation` must be a rotation matrix (R^T R = I to 1e-12, det R = +1), got {R.tolist()}")
    return R


def place_on(body, surface, plane=None, *, rotation=None, position=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0),
             sliding_velocity=(0.0, 0.0, 0.0), surface_pose=None, gap=0.0):
    """The state of `body` with `surface` touching `plane`, for `PHSystem.initial_state`.

    Parameters
    ----------
    body : RigidBody
    surface : Surface
        A convex closed surface of the body (an ellipsoid, a sphere), posed in the body frame
        by `surface_pose`.
    plane : Plane, optional
        The support, in world coordinates (default: z = 0, normal +z).
    rotation : array_like, shape (3, 3), optional
        The body's orientation R_WB (default identity).
    position : array_like, shape (3,)
        Where the body frame's origin goes, up to the motion along the plane's normal that
        brings the surface onto the plane [m].
    angular_velocity : array_like, shape (3,)
        The body's angular velocity in world coordinates [rad/s], kept exactly.
    sliding_velocity : array_like, shape (3,)
        Velocity of the material point at the contact, in world coordinates [m/s]: zero for
        rolling (the default), tangent to the plane for sliding.
    surface_pose : array_like, shape (4, 4), optional
        Pose of the surface in the body frame (default identity), as given to the contact.
    gap : float
        Distance left between the surface and the plane [m] (0: touching).

    Returns
    -------
    dict
        ``{"<body>.pose": pose vector, "<body>.P": momentum}``: pass it (with any other
        values) to `PHSystem.initial_state`.

    Raises
    ------
    ParameterError
        A bad argument (named with its value and the rule), or a sliding velocity with a
        component along the plane's normal (the contact would open or penetrate at once).
    GeometryError
        The surface is not convex and closed (its lowest point is not unique).

    Notes
    -----
    The contact point is the surface's support point in the direction ``-n`` (the plane's
    normal), expressed in the body by ``R^T``: its world position ``s`` fixes the height of
    the body along ``n``. The body's origin then moves at ``v_s + w x (o - s)``, so the
    material point at ``s`` moves at ``v_s``; the body twist is ``(R^T w, R^T v_o)``.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Sphere
    >>> ball = RigidBody("ball", 1.0, [0.004] * 3)
    >>> values = place_on(ball, Sphere(0.1), angular_velocity=(0.0, 10.0, 0.0))
    >>> values["ball.pose"][4:].round(12).tolist()             # centre 0.1 m above the plane
    [0.0, 0.0, 0.1]
    >>> (values["ball.P"][3:] / 1.0).round(12).tolist()         # rolling: v = w x (0, 0, r)
    [1.0, 0.0, 0.0]
    """
    if not isinstance(body, RigidBody):
        raise ParameterError(f"`body` must be a RigidBody, got {body!r}")
    if not isinstance(surface, Surface):
        raise ParameterError(f"`surface` must be a Surface, got {surface!r}")
    plane = Plane() if plane is None else plane
    if not isinstance(plane, Plane):
        raise ParameterError(f"`plane` must be a Plane, got {plane!r}")
    R = np.eye(3) if rotation is None else _rotation(rotation)
    H_BS = np.eye(4) if surface_pose is None else se3.as_se3(surface_pose, "surface_pose")
    o = as_array(position, "position", (3,))
    w = as_array(angular_velocity, "angular_velocity", (3,))
    v_s = as_array(sliding_velocity, "sliding_velocity", (3,))
    gap = float(as_array(gap, "gap", ()))
    if not gap >= 0.0:
        raise ParameterError(f"`gap` must be >= 0, got {gap!r}")
    n, p0 = plane._normal, plane._origin
    if abs(float(v_s @ n)) > 1e-12 * max(1.0, float(np.linalg.norm(v_s))):
        raise ParameterError(f"`sliding_velocity` must lie in the plane (normal {n.tolist()}), got {v_s.tolist()}: a "
                             "normal component would open or close the contact at once")
    R_WS = R @ H_BS[:3, :3]
    s_S = surface.support(R_WS.T @ (-n)).point
    s_B = H_BS[:3, :3] @ s_S + H_BS[:3, 3]
    o = o + (float(n @ p0) + gap - float(n @ (R @ s_B + o))) * n   # the support point onto the plane
    s_W = R @ s_B + o
    v_o = v_s + np.cross(w, o - s_W)
    H = np.eye(4)
    H[:3, :3], H[:3, 3] = R, o
    T = np.concatenate((R.T @ w, R.T @ v_o))
    return {f"{body.name}.pose": pose_vector(H), f"{body.name}.P": body.M @ T}
