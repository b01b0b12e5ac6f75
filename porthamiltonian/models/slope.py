"""The inclined ground the passive walkers go down (`rimless-wheel`, `compass-walker`).

The slope descends along world +x at the angle gamma; its plane is the z = 0 plane of the
ground surface's frame, turned by gamma about the world y axis.
"""

from __future__ import annotations

import math

import numpy as np

from porthamiltonian.lie import se3, so3

__all__ = ["UPRIGHT_LOCK", "slope_axes", "slope_pose"]

#: the joint keeping a walker in its sagittal plane (marker a = world, marker b = the body):
#: rotations about x and z locked
UPRIGHT_LOCK = (True, False, True, False, False, False)


def slope_axes(slope):
    """(n, t): the ground's unit normal and its downhill direction in world coordinates,
    shape (3,) each, for the inclination `slope` [rad]."""
    return np.array((math.sin(slope), 0.0, math.cos(slope))), np.array((math.cos(slope), 0.0, -math.sin(slope)))


def slope_pose(slope):
    """The pose (4, 4) of the inclined ground plane in the ground's frame."""
    return se3.make(so3.exp(np.array((0.0, slope, 0.0))), np.zeros(3))
