"""Lateral surface of a finite circular cylinder about the body z axis."""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_finite_float
from ._compiled import LINEAR, TRIG, CompiledSurface
from .domain import ParameterDomain

__all__ = ["Cylinder"]


class Cylinder(CompiledSurface):
    """Open circular tube of radius `radius` about the z axis, ``|z| <= half_length``.

    Parameters
    ----------
    radius : float
        Radius [m], > 0.
    half_length : float
        Half the axial length [m], > 0.

    Raises
    ------
    ParameterError
        If `radius` or `half_length` is not finite and positive.

    Notes
    -----
    ``f(u, v) = (radius cos u, radius sin u, v)``, ``u`` in [-pi, pi) periodic, ``v`` in
    [-half_length, half_length] [m]; ``f_u x f_v = radius (cos u, sin u, 0)`` points outward.
    Principal curvatures ``1/radius`` (along ``f_u``) and 0 (along the axis): the tube is not
    absolutely convex and has no end caps, so ``is_closed`` is False.

    Examples
    --------
    >>> Cylinder(0.5, 1.0).normal(0.0, 0.3).tolist()
    [1.0, 0.0, 0.0]
    """

    def __init__(self, radius: float, half_length: float):
        self._radius = as_finite_float(radius, "radius", positive=True)
        self._half_length = as_finite_float(half_length, "half_length", positive=True)
        h = self._half_length
        self._domains = (ParameterDomain((-math.pi, -h), (math.pi, h), (True, False)),)
        # f = sum_ab C[a, b] phi_a(u) psi_b(v), phi = (cos u, sin u, 1), psi = (v, 1)
        C = np.zeros((3, 2, 3))
        C[0, 1, 0] = C[1, 1, 1] = self._radius
        C[2, 0, 2] = 1.0
        self._init_separable([C], TRIG, LINEAR)

    @property
    def radius(self) -> float:
        """Radius [m]."""
        return self._radius

    @property
    def half_length(self) -> float:
        """Half the axial length [m]."""
        return self._half_length

    def __repr__(self) -> str:
        return f"Cylinder(radius={self._radius!r}, half_length={self._half_length!r})"

    def _bounding_box(self):
        r, h = self._radius, self._half_length
        return np.array(((-r, -r, -h), (r, r, h)))
