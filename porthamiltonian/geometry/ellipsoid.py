"""Triaxial ellipsoid with a two-chart latitude-longitude atlas."""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_array, as_finite_float
from ..errors import ParameterError
from ..kernels.closest import BOUND_ELLIPSOID
from ..kernels.surfaces import ATLAS_LATLONG, SHAPE_ELLIPSOID
from ._compiled import TRIG, CompiledSurface
from .domain import ParameterDomain
from .surface import SupportPoint

__all__ = ["Ellipsoid"]

_HALF_PI = 0.5 * math.pi


def _latlong_domain() -> ParameterDomain:
    return ParameterDomain((-math.pi, -_HALF_PI), (math.pi, _HALF_PI), (True, False),
                           singular_v=(-_HALF_PI, _HALF_PI))


class Ellipsoid(CompiledSurface):
    """Ellipsoid ``(x/a)^2 + (y/b)^2 + (z/c)^2 = 1`` about `center`, outward normal.

    Parameters
    ----------
    a, b, c : float
        Semi-axes along x, y, z of the body frame [m], > 0.
    center : array_like, shape (3,)
        Centre in the body frame [m].

    Raises
    ------
    ParameterError
        If a semi-axis is not a finite positive number, lies outside
        [`MIN_AXIS`, `MAX_AXIS`] = [1e-12, 1e12] m, or is less than `MIN_AXIS_RATIO` = 1e-6
        times the largest one; or if `center` is not a finite 3-vector.

    The limits keep every quantity computed from the axes accurate in double precision:

    * ratio >= 1e-6: at the end of the longest axis the two tangent vectors have lengths
      in the ratio of the other two axes, so the first fundamental form has condition
      number up to ``(a_max/a_min)^2``; at 1e12 curvatures (``1/a``-like, from solving with
      that 2x2 metric) keep about 4 significant digits of the 16 of a double, and beyond
      ~7e7 (condition 1/eps) they are noise. A flatter body is a plane or a disc, not an
      ellipsoid.
    * 1e-12 m <= axis <= 1e12 m: the closed forms below take up to sixth powers of the
      axes (``a^2 b^2 c^2 q^2``), which must neither underflow nor overflow (doubles span
      1e-308..1e308; ``(1e-300)^2`` is already 0); the range keeps them within 1e-72..1e72,
      and spans a picometre to several astronomical units, beyond any rigid-body contact.

    Notes
    -----
    With the unit-sphere point ``s(u, v) = (cos v cos u, cos v sin u, sin v)``
    (longitude ``u`` in [-pi, pi), periodic; parametric latitude ``v`` in [-pi/2, pi/2])::

        chart 0:  f = center + (a s_0, b s_1, c s_2)     poles on +-z
        chart 1:  f = center + (a s_2, b s_0, c s_1)     poles on +-x

    Chart 1 permutes the axes cyclically (a rotation), so ``f_u x f_v = cos v (...)`` points
    outward in both charts. A point has parametric latitude at most 45 degrees in one chart
    (``s_x^2 + s_z^2 <= 1``). All partials are linear in
    ``kron((cos u, sin u, 1), (cos v, sin v, 1))``, with coefficient tables built once.
    Closed forms (e.g. MathWorld, "Ellipsoid"), with ``q = x^2/a^4 + y^2/b^4 + z^2/c^4``::

        K = 1 / (a^2 b^2 c^2 q^2)
        H = (a^2 + b^2 + c^2 - x^2 - y^2 - z^2) / (2 a^2 b^2 c^2 q^(3/2))   (outward normal)

    Examples
    --------
    >>> e = Ellipsoid(1.0, 2.0, 3.0)
    >>> e.normal(0.0, 0.0).round(12).tolist()
    [1.0, 0.0, 0.0]
    """

    is_convex = True
    is_closed = True

    #: Limits of the semi-axes (see Raises): absolute [m], and relative to the largest one.
    MIN_AXIS = 1e-12
    MAX_AXIS = 1e12
    MIN_AXIS_RATIO = 1e-6

    def __init__(self, a: float, b: float, c: float, *, center=(0.0, 0.0, 0.0)):
        self._axes = tuple(as_finite_float(x, name, positive=True)
                           for x, name in ((a, "a"), (b, "b"), (c, "c")))
        self._check_axes()
        self._center = as_array(center, "center", (3,))
        self._center.flags.writeable = False
        self._domains = (_latlong_domain(), _latlong_domain())
        self._init_separable([self._coefficients(chart) for chart in range(2)], TRIG, TRIG, ATLAS_LATLONG,
                             SHAPE_ELLIPSOID)

    def _check_axes(self):
        kind = type(self).__name__
        names = ("radius",) * 3 if hasattr(type(self), "radius") else ("a", "b", "c")  # Sphere
        for name, x in zip(names, self._axes):
            if not self.MIN_AXIS <= x <= self.MAX_AXIS:
                raise ParameterError(
                    f"{kind}: `{name}` = {x!r} m is outside [{self.MIN_AXIS:g}, {self.MAX_AXIS:g}] m "
                    "(the range in which its curvature formulas stay accurate in double precision)"
                )
        largest = max(self._axes)
        for name, x in zip(names, self._axes):
            if x < self.MIN_AXIS_RATIO * largest:
                raise ParameterError(
                    f"{kind}: semi-axis `{name}` = {x!r} m is less than {self.MIN_AXIS_RATIO:g} times the largest "
                    f"semi-axis ({largest!r} m); the rule keeps the surface's metric condition number below "
                    f"{self.MIN_AXIS_RATIO ** -2:g} so its curvatures stay accurate"
                )

    def _coefficients(self, chart: int) -> np.ndarray:
        """``C[a, b]`` of ``f = sum_ab C[a, b] phi_a(u) phi_b(v)``, ``phi = (cos, sin, 1)``."""
        # s_0 = cos u cos v, s_1 = sin u cos v, s_2 = sin v: their (phi_u, phi_v) indices
        terms = ((0, 0), (1, 0), (2, 1))
        feeds = (0, 1, 2) if chart == 0 else (2, 0, 1)     # the s_k feeding x, y, z
        C = np.zeros((3, 3, 3))
        for axis in range(3):
            iu, iv = terms[feeds[axis]]
            C[iu, iv, axis] = self._axes[axis]
        C[2, 2] += self._center
        return C

    @property
    def axes(self) -> tuple[float, float, float]:
        """Semi-axes ``(a, b, c)`` [m]."""
        return self._axes

    @property
    def center(self) -> np.ndarray:
        """Centre, shape (3,) [m]."""
        return self._center

    def __repr__(self) -> str:
        a, b, c = self._axes
        return f"Ellipsoid(a={a!r}, b={b!r}, c={c!r}, center={tuple(self._center.tolist())})"

    def _parameters(self, s, chart):
        """``(u, v)`` in `chart` of the point `s` of the unit sphere, in axis-scaled body
        coordinates ``(x/a, y/b, z/c)`` (chart 1 reads them permuted as ``(s_1, s_2, s_0)``)."""
        s0, s1, s2 = s if chart == 0 else (s[1], s[2], s[0])
        u = math.atan2(s1, s0)
        v = math.atan2(s2, math.hypot(s0, s1))
        return self._domains[chart].wrap(u, v)

    @property
    def _bound_spec(self):
        """The surface itself bounds it exactly (`CompiledSurface._bound_spec`)."""
        return np.array((BOUND_ELLIPSOID, *self._center, *self._axes))

    def _bounding_box(self):
        r = np.array(self._axes)
        return np.array((self._center - r, self._center + r))

    def _support(self, d):
        # max of d . (c + A s) over |s| = 1 is at s = A d / |A d|
        s = np.array(self._axes) * d
        s = s / math.sqrt(s @ s)
        u, v = self._parameters(tuple(s.tolist()), 0)
        chart, u, v = self._best_chart(u, v, 0)
        return SupportPoint(self._derivatives(u, v, 0, chart)[0, 0], chart, u, v)
