"""Ring torus about the body z axis."""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_finite_float
from ..errors import ParameterError
from ._compiled import TRIG, CompiledSurface
from .domain import ParameterDomain

__all__ = ["Torus"]


class Torus(CompiledSurface):
    """Ring torus with major radius `R` (centre circle in the x-y plane) and tube radius `r`.

    Parameters
    ----------
    R : float
        Distance from the z axis to the centre of the tube [m].
    r : float
        Tube radius [m], ``0 < r < R`` (otherwise the torus self-intersects and is singular).

    Raises
    ------
    ParameterError
        If a radius is not finite and positive, or ``r >= R``.

    Notes
    -----
    One chart, periodic in both parameters and regular everywhere::

        f(u, v) = ((R + r cos v) cos u, (R + r cos v) sin u, r sin v),   u, v in [-pi, pi)
        f_u x f_v = r (R + r cos v) (cos v cos u, cos v sin u, sin v)    (outward)

    Principal curvatures with the outward normal: ``1/r`` along the tube (direction ``f_v``)
    and ``cos v / (R + r cos v)`` along the ring (direction ``f_u``), negative on the inner
    half (saddle points). Not convex.

    Examples
    --------
    >>> Torus(2.0, 0.5).point(0.0, 0.0).tolist()
    [2.5, 0.0, 0.0]
    """

    is_closed = True

    def __init__(self, R: float, r: float):
        R = as_finite_float(R, "R", positive=True)
        r = as_finite_float(r, "r", positive=True)
        if not r < R:
            raise ParameterError(f"a ring torus needs `r` < `R`, got r={r!r} and R={R!r}")
        self._R, self._r = R, r
        # f = sum_ab C[a, b] phi_a(u) phi_b(v), phi = (cos, sin, 1)
        C = np.zeros((3, 3, 3))
        C[0, 2, 0] = C[1, 2, 1] = R          # R cos u, R sin u
        C[0, 0, 0] = C[1, 0, 1] = r          # r cos u cos v, r sin u cos v
        C[2, 1, 2] = r                       # r sin v
        self._domains = (ParameterDomain((-math.pi, -math.pi), (math.pi, math.pi), (True, True)),)
        self._init_separable([C], TRIG, TRIG)

    @property
    def R(self) -> float:
        """Major radius [m]."""
        return self._R

    @property
    def r(self) -> float:
        """Tube radius [m]."""
        return self._r

    def __repr__(self) -> str:
        return f"Torus(R={self._R!r}, r={self._r!r})"

    def _bounding_box(self):
        e = self._R + self._r
        return np.array(((-e, -e, -self._r), (e, e, self._r)))
