"""Touchdown guards: a unilateral contact that may only be made once a point is ahead of another.

A passive walker's swing foot passes through the ground at mid-stance when its legs have no
knees (both legs are equally long): the literature ignores this scuffing (Garcia, Chatterjee,
Ruina & Coleman 1998, "The simplest walking model", sec. 2; Goswami, Thuilot & Espiau 1998)
and counts a heel strike only once the swing leg is ahead of the stance leg. A
`TouchdownGuard` given to a contact (``guard=`` of `SlidingPlaneContact`, `SoilContact` and
`CompliantContact`, hence of `contact`) does the same, for any contact: while the contact is
off, it is made only when the surfaces meet *and* the guard is armed::

    armed  <=>  s = d . (p_W - q_W) > 0            ("p is ahead of q along d")

    event  g = max(Delta, -s)    crossing zero downward     (Delta: signed distance)

with p a point fixed on one body (the swing foot's centre), q a point fixed on another (the
stance foot's centre) and d a fixed world direction (downhill along the slope). While the
guard is not armed (s < 0) the surfaces may overlap without any force: the contact stays
off. The event function is continuous, so the integrator locates a touchdown like any other
event. If the guard arms while the surfaces overlap (Delta < -`OVERLAP_TOL` where g crosses
zero, at s = 0), that is no touchdown: the contact stays off, g = Delta stays negative, and
the contact is made when the surfaces have parted and meet again (a compliant stance foot
sinks a little, so a swing foot passing it is that much below the ground). For the stiff
compass walker both s and Delta vanish together when the swing leg passes the stance leg (g
touches zero without crossing), then Delta > 0 until the heel strike.

A guard only gates *making* the contact; a contact already on detaches as it would without
it (the sliding-plane impact releases a trailing foot that would pull; a compliant contact
releases when the surfaces part).
"""

from __future__ import annotations

import numpy as np

from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.lie import quaternion

from .rigid_body import Ground, RigidBody

__all__ = ["TouchdownGuard", "OVERLAP_TOL"]

#: [m] a guarded event located with the surfaces deeper in each other than this is the guard
#: arming over an overlap, not a touchdown (module docstring)
OVERLAP_TOL = 1e-9


def _point(value, name):
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        raise ParameterError(f"`{name}` must be a pair (body, point in the body frame), got {value!r}")
    body, p = value
    if not isinstance(body, (RigidBody, Ground)):
        raise ParameterError(f"`{name}`: the body must be a RigidBody or a Ground, got {body!r}")
    p = np.asarray(p, dtype=float)
    if p.shape != (3,) or not np.all(np.isfinite(p)):
        raise ParameterError(f"`{name}`: the point must be 3 finite numbers [m], got {value[1]!r}")
    return body, p


class TouchdownGuard:
    """Arms a contact's touchdown only while a point p is ahead of a point q along d (module docstring).

    Parameters
    ----------
    point : (RigidBody or Ground, array_like (3,))
        p: a body and a point in its body frame [m] (the swing foot's centre).
    behind : (RigidBody or Ground, array_like (3,))
        q: the point p must be ahead of [m] (the stance foot's centre).
    direction : array_like, shape (3,)
        d: the world direction "ahead" (normalised here; downhill along the slope).

    Raises
    ------
    ParameterError
        A point that is not a (body, 3-vector) pair, or a zero or non-finite direction.
    ModelError
        Both points on the same body (s would be constant).

    Examples
    --------
    The swing foot (leg2) must be downhill of the stance foot (leg1)::

        TouchdownGuard((leg2, (0, 0, -L)), (leg1, (0, 0, -L)), (cos(gamma), 0, -sin(gamma)))
    """

    def __init__(self, point, behind, direction):
        self.point = _point(point, "point")
        self.behind = _point(behind, "behind")
        if self.point[0] is self.behind[0]:
            raise ModelError(f"touchdown guard: `point` and `behind` are both on {self.point[0].name!r}; the "
                             "guard compares points on two bodies (on one body their order never changes)")
        d = np.asarray(direction, dtype=float)
        if d.shape != (3,) or not np.all(np.isfinite(d)) or not np.linalg.norm(d) > 0.0:
            raise ParameterError(f"`direction` must be a non-zero 3-vector, got {direction!r}")
        self.direction = d / np.linalg.norm(d)
        self._bound = None   # (system, pose slice or None per point)

    def __repr__(self):
        return (f"TouchdownGuard({self.point[0].name}:{self.point[1].tolist()} ahead of "
                f"{self.behind[0].name}:{self.behind[1].tolist()} along {self.direction.tolist()})")

    def _slices(self, system):
        if self._bound is None or self._bound[0] is not system:
            slices = []
            for body, _ in (self.point, self.behind):
                if isinstance(body, Ground):
                    slices.append(None)
                    continue
                path = next((p for p, o in system.elements.items() if o is body), None)
                if path is None:
                    raise ModelError(f"touchdown guard: body {body.name!r} is not part of system {system.name!r}")
                slices.append(system.layout[f"{path}.pose"])
            self._bound = (system, tuple(slices))
        return self._bound[1]

    def margin(self, system, x):
        """s = d . (p_W - q_W) [m] at the full state x of `system`: armed when positive."""
        world = []
        for (body, p), sl in zip((self.point, self.behind), self._slices(system)):
            H = body.H_WG if sl is None else quaternion.pose_to_matrix(x[sl])
            world.append(H[:3, :3] @ p + H[:3, 3])
        return float(self.direction @ (world[0] - world[1]))

    def event_value(self, system, x, distance):
        """max(Delta, -s): the touchdown event of a contact that is off (module docstring)."""
        return max(distance, -self.margin(system, x))

    @staticmethod
    def is_touchdown(distance):
        """Whether a guarded event located at signed distance `distance` [m] is a touchdown
        (not the guard arming over an overlap)."""
        return distance >= -OVERLAP_TOL

    def parameters(self):
        return {"point": [self.point[0], self.point[1].tolist()], "behind": [self.behind[0], self.behind[1].tolist()],
                "direction": self.direction.tolist()}

    @classmethod
    def from_parameters(cls, params):
        return None if params is None else cls(tuple(params["point"]), tuple(params["behind"]), params["direction"])
