"""The `Surface` interface: a regular parametric patch with an atlas of charts.

A surface is ``f: (u, v) -> R^3`` in its body frame. Subclasses implement only the hook
``_derivatives(u, v, order, chart)`` (and, with several charts, ``_chart_map``); the Gauss map,
curvatures, chart selection and global-search helpers are written once here from the
derivatives, through the kernels of `porthamiltonian.geometry.gauss`.

Public methods validate their input (finite floats, order, chart, domain) and check regularity
before dividing by ``|f_u x f_v|``; the private hooks compute without checks and are what the
contact hot path calls.
"""

from __future__ import annotations

import abc
import math
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .._validate import as_array, as_finite_float
from ..errors import GeometryError, ParameterError
from ..kernels import surfaces as _ksurfaces
from . import gauss
from .domain import ParameterDomain
from .gauss import PrincipalCurvatures

__all__ = ["REGULARITY_TOL", "Surface", "SurfaceFrame", "SupportPoint", "SurfaceSample"]

REGULARITY_TOL = 1e-10
"""Points with ``regularity < REGULARITY_TOL`` are singular: the Gauss map is refused there."""


class SurfaceFrame(NamedTuple):
    """Point and tangent frame at ``(u, v)``: ``point``, ``f_u``, ``f_v``, ``normal`` (shape (3,))."""

    point: np.ndarray
    f_u: np.ndarray
    f_v: np.ndarray
    normal: np.ndarray


class SupportPoint(NamedTuple):
    """The point maximizing ``direction . p`` (shape (3,) [m]) and its ``(chart, u, v)``."""

    point: np.ndarray
    chart: int
    u: float
    v: float


class SurfaceSample(NamedTuple):
    """Parameter grid ``u, v`` (shape (n_u, n_v) each) and ``points`` (shape (n_u, n_v, 3) [m])."""

    u: np.ndarray
    v: np.ndarray
    points: np.ndarray
    chart: int


def _check_int(value, name, allowed):
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer))
            or int(value) not in allowed):
        raise ParameterError(f"`{name}` must be an integer in {sorted(allowed)}, got {value!r}")
    return int(value)


class Surface(abc.ABC):
    """Abstract regular parametric surface ``f: (u, v) -> R^3`` with an atlas of charts.

    Attributes
    ----------
    n_charts : int
        Number of charts; 1 for open patches, 2 for latitude-longitude parametrizations of
        closed surfaces (every point is regular in at least one chart).
    is_convex : bool
        True when the surface is absolutely convex everywhere (``L`` positive definite on
        the tangent plane), as contact kinematics requires (docs/math.md sec. 5).
    is_closed : bool
        True when the surface bounds a solid.
    chart_switch_margin : float
        ``best_chart`` leaves a chart when the parameter distance to its singular set falls
        below this margin [rad for angular parameters].

    Notes
    -----
    Orientation: every surface orients its parametrization so that
    ``n = f_u x f_v / |f_u x f_v|`` points out of the material (outward for closed surfaces)::

            n  ^
               |
        -------+-------   surface
          material

    Subclasses set ``self._domains`` (a tuple of `ParameterDomain`, one per chart) and
    implement ``_derivatives``; a surface with several charts also implements ``_chart_map``.

    Examples
    --------
    >>> from porthamiltonian.geometry import Sphere
    >>> s = Sphere(2.0)
    >>> s.derivatives(0.0, 0.0, order=1).shape
    (2, 2, 3)
    >>> chart, u, v = s.best_chart(0.0, 1.5)     # near the pole of chart 0
    >>> chart, bool(s.is_regular(u, v, chart))
    (1, True)
    """

    is_convex: bool = False
    is_closed: bool = False
    #: a `PatchNetwork`: charts are patches, changed across shared sides (not at poles)
    is_network: bool = False
    #: evaluated by `porthamiltonian.kernels.surfaces` (the built-in kinds); others are
    #: evaluated through their Python ``_derivatives``
    _is_compiled: bool = False
    chart_switch_margin: float = math.pi / 6
    _domains: tuple[ParameterDomain, ...]

    # ---------------------------------------------------------------- hooks

    @abc.abstractmethod
    def _derivatives(self, u: float, v: float, order: int, chart: int) -> np.ndarray:
        """Derivative array ``D[i, j] = d^(i+j) f / du^i dv^j``, shape (order+1, order+1, 3),
        zero for ``i + j > order``. No checks: ``(u, v)`` is assumed inside the domain."""

    def _chart_map(self, u: float, v: float, src: int, dst: int) -> tuple[float, float]:
        """The parameters in chart `dst` of the point ``(u, v)`` of chart `src`.

        A one-chart surface only ever maps its chart onto itself; atlases override this.
        """
        return u, v

    # ------------------------------------------------------------- bookkeeping

    @property
    def n_charts(self) -> int:
        """Number of charts of the atlas."""
        return len(self._domains)

    def domain(self, chart: int = 0) -> ParameterDomain:
        """The parameter domain of `chart`."""
        return self._domains[self._check_chart(chart)]

    def edges(self, chart: int = 0) -> np.ndarray:
        """``(lower_u, lower_v, upper_u, upper_v)`` of the edges of `chart`, where the surface
        ends (a contact point reaching one leaves the surface): its finite, non-periodic
        bounds that are not singular sets (a pole is not an edge); ``-inf`` / ``inf`` where
        there is none. A patch network's shared sides are not edges either."""
        dom = self._domains[self._check_chart(chart)]
        out = [-math.inf, -math.inf, math.inf, math.inf]
        for i, singular in enumerate((dom.singular_u, dom.singular_v)):
            if dom.periodic[i]:
                continue
            if math.isfinite(dom.lower[i]) and not any(abs(dom.lower[i] - s) < 1e-12 for s in singular):
                out[i] = float(dom.lower[i])
            if math.isfinite(dom.upper[i]) and not any(abs(dom.upper[i] - s) < 1e-12 for s in singular):
                out[2 + i] = float(dom.upper[i])
        return np.array(out)

    def _check_chart(self, chart) -> int:
        return _check_int(chart, "chart", range(self.n_charts))

    def _check_point(self, u, v, chart) -> tuple[float, float, int]:
        chart = self._check_chart(chart)
        u = as_finite_float(u, "u")
        v = as_finite_float(v, "v")
        dom = self._domains[chart]
        u, v = dom.wrap(u, v)
        for k, (name, x) in enumerate((("u", u), ("v", v))):
            if not dom.periodic[k] and not (dom.lower[k] <= x <= dom.upper[k]):
                raise GeometryError(
                    f"`{name}` = {x!r} is outside the domain "
                    f"[{float(dom.lower[k])!r}, {float(dom.upper[k])!r}] of chart {chart} of {self!r}"
                )
        return u, v, chart

    @cached_property
    def _reference_speeds(self) -> np.ndarray:
        """``max |f_u|`` and ``max |f_v|`` over each chart, shape (n_charts, 2), from a 17x17
        sample; the scale against which `regularity` measures the area element."""
        out = np.zeros((self.n_charts, 2))
        for chart in range(self.n_charts):
            grid = self._grid(17, 17, chart)
            for u, v in zip(grid[0].ravel(), grid[1].ravel()):
                D = self._derivatives(float(u), float(v), 1, chart)
                out[chart, 0] = max(out[chart, 0], math.sqrt(D[1, 0] @ D[1, 0]))
                out[chart, 1] = max(out[chart, 1], math.sqrt(D[0, 1] @ D[0, 1]))
        return out

    @cached_property
    def _kernel_spec(self):
        """``(F, I)`` of `porthamiltonian.kernels.surfaces`: here the domains only (kind
        ``CALLBACK``); compiled surfaces pack their evaluation too."""
        return _ksurfaces.pack_domains(self._domains, self._reference_speeds, self.chart_switch_margin)

    @cached_property
    def _bound_spec(self) -> np.ndarray:
        """The bound of `porthamiltonian.kernels.closest.separation_bound`, shape (7,): none
        here (the sampled bounding box of a surface evaluated in Python is not guaranteed to
        contain it, so its contacts are never culled); built-in surfaces override it."""
        return np.zeros(7)

    def _regularity(self, D: np.ndarray, chart: int) -> float:
        su, sv = self._reference_speeds[chart]
        scale = su * sv
        if not scale > 0.0:
            return 0.0
        m = gauss._cross(D[1, 0].tolist(), D[0, 1].tolist())
        return min(1.0, math.sqrt(gauss._dot(m, m)) / scale)

    def _verify_convex(self, n: int = 12, chart: int = 0) -> None:
        """Check a declared convexity: ``k2 > 0`` at the regular points of an interior
        ``n x n`` grid of `chart` (a necessary condition; a sample cannot prove it)."""
        dom = self._domains[chart]
        for u in np.linspace(dom.lower[0], dom.upper[0], n + 2)[1:-1].tolist():
            for v in np.linspace(dom.lower[1], dom.upper[1], n + 2)[1:-1].tolist():
                D = self._derivatives(u, v, 2, chart)
                if self._regularity(D, chart) < REGULARITY_TOL:
                    continue
                k2 = gauss.principal_curvatures(D).k2
                if not k2 > 0.0:
                    raise GeometryError(f"`convex` was declared for {self!r} but it has "
                                        f"principal curvature k2 = {k2:.6g} <= 0 at "
                                        f"(u, v) = ({u:.6g}, {v:.6g}) of chart {chart}")

    def _require_regular(self, D: np.ndarray, u: float, v: float, chart: int) -> None:
        r = self._regularity(D, chart)
        if not r >= REGULARITY_TOL:
            hint = (" Use best_chart(u, v, chart) to move to a regular chart."
                    if self.n_charts > 1 else "")
            raise GeometryError(
                f"{self!r} is not regular at (u, v) = ({u!r}, {v!r}) in chart {chart}: "
                f"regularity {r:.3g} < {REGULARITY_TOL:g} (f_u x f_v vanishes), so the normal "
                f"and curvatures are undefined there.{hint}"
            )

    # ------------------------------------------------------------- evaluation

    def derivatives(self, u: float, v: float, order: int = 2, chart: int = 0) -> np.ndarray:
        """Partial derivatives of f up to `order`.

        Parameters
        ----------
        u, v : float
            Parameters [parameter units]; periodic directions are wrapped.
        order : int
            0, 1, 2 or 3.
        chart : int
            Chart index.

        Returns
        -------
        D : ndarray, shape (order+1, order+1, 3)
            ``D[i, j] = d^(i+j) f / du^i dv^j`` [m / param^(i+j)], zero for ``i + j > order``.

        Raises
        ------
        ParameterError
            If `u` or `v` is not a finite number, or `order` or `chart` is out of range.
        GeometryError
            If a non-periodic parameter lies outside the domain of `chart`.
        """
        order = _check_int(order, "order", range(4))
        u, v, chart = self._check_point(u, v, chart)
        return self._derivatives(u, v, order, chart)

    def point(self, u: float, v: float, chart: int = 0) -> np.ndarray:
        """The point ``f(u, v)``, shape (3,) [m] (validated like `derivatives`)."""
        u, v, chart = self._check_point(u, v, chart)
        return self._derivatives(u, v, 0, chart)[0, 0]

    def regularity(self, u: float, v: float, chart: int = 0) -> float:
        """Regularity of the parametrization at ``(u, v)``, in [0, 1]; 0 at a singular point.

        Notes
        -----
        ``regularity = |f_u x f_v| / (max|f_u| max|f_v|)``, the area element relative to its
        largest value over the chart (maxima from a 17x17 sample, result clipped to 1). It
        is invariant under rescaling of u, v and of space, equals ``cos(latitude)`` on a
        latitude-longitude sphere, and, unlike the sine of the angle between ``f_u`` and
        ``f_v``, goes to 0 when one tangent vanishes (a pole).
        """
        u, v, chart = self._check_point(u, v, chart)
        return self._regularity(self._derivatives(u, v, 1, chart), chart)

    def is_regular(self, u: float, v: float, chart: int = 0, *, throw: bool = False) -> bool:
        """True when ``regularity(u, v, chart) >= REGULARITY_TOL``.

        Raises
        ------
        GeometryError
            If `throw` is true and the point is singular; the message names the point.
        """
        u, v, chart = self._check_point(u, v, chart)
        D = self._derivatives(u, v, 1, chart)
        if throw:
            self._require_regular(D, u, v, chart)
            return True
        return self._regularity(D, chart) >= REGULARITY_TOL

    def _regular_derivatives(self, u, v, order, chart) -> np.ndarray:
        u, v, chart = self._check_point(u, v, chart)
        D = self._derivatives(u, v, order, chart)
        self._require_regular(D, u, v, chart)
        return D

    def normal(self, u: float, v: float, chart: int = 0) -> np.ndarray:
        """Outward unit normal ``n = f_u x f_v / |f_u x f_v|``, shape (3,).

        Raises
        ------
        GeometryError
            At a singular point, or outside the domain.
        """
        return gauss.unit_normal(self._regular_derivatives(u, v, 1, chart))

    def normal_derivatives(self, u: float, v: float, order: int = 1, chart: int = 0) -> np.ndarray:
        """The unit normal and its partials up to `order` (0, 1 or 2).

        Returns
        -------
        N : ndarray, shape (order+1, order+1, 3)
            ``N[i, j] = d^(i+j) n / du^i dv^j`` [1/param^(i+j)]; see `gauss.normal_derivatives`.

        Raises
        ------
        GeometryError
            At a singular point, or outside the domain.
        """
        order = _check_int(order, "order", range(3))
        return gauss.normal_derivatives(self._regular_derivatives(u, v, order + 1, chart), order)

    def frame(self, u: float, v: float, chart: int = 0) -> SurfaceFrame:
        """Point, tangents ``f_u, f_v`` and unit normal at ``(u, v)``.

        Raises
        ------
        GeometryError
            At a singular point, or outside the domain.
        """
        D = self._regular_derivatives(u, v, 1, chart)
        return SurfaceFrame(D[0, 0], D[1, 0], D[0, 1], gauss.unit_normal(D))

    def first_fundamental_form(self, u: float, v: float, chart: int = 0) -> np.ndarray:
        """First fundamental form ``F^T F``, shape (2, 2) [m^2/param^2] (singular at a pole)."""
        u, v, chart = self._check_point(u, v, chart)
        return gauss.first_fundamental_form(self._derivatives(u, v, 1, chart))

    def second_fundamental_form(self, u: float, v: float, chart: int = 0) -> np.ndarray:
        """Second fundamental form ``II_ab = -n . f_ab``, shape (2, 2) [m/param^2].

        Raises
        ------
        GeometryError
            At a singular point, or outside the domain.
        """
        return gauss.second_fundamental_form(self._regular_derivatives(u, v, 2, chart))

    def shape_operator(self, u: float, v: float, chart: int = 0) -> np.ndarray:
        """Shape operator ``L``, shape (3, 3) [1/m]: ``dn = L dp`` for tangent ``dp``.

        Notes
        -----
        ``L = N_u (F^T F)^-1 F^T`` (docs/math.md sec. 4, Duindam & Stramigioli, *Modeling the
        kinematics and dynamics of compliant contact*, 2003, sec. 2), computed as
        ``F I^-1 II I^-1 F^T``; a sphere of radius r has ``L = (I - n n^T) / r``.

        Raises
        ------
        GeometryError
            At a singular point, or outside the domain.
        """
        return gauss.shape_operator(self._regular_derivatives(u, v, 2, chart))

    def principal_curvatures(self, u: float, v: float, chart: int = 0) -> PrincipalCurvatures:
        """Principal curvatures ``k1 >= k2`` [1/m] and unit principal directions.

        Raises
        ------
        GeometryError
            At a singular point, or outside the domain.
        """
        return gauss.principal_curvatures(self._regular_derivatives(u, v, 2, chart))

    # ------------------------------------------------------------------ charts

    def chart_map(self, u: float, v: float, src: int, dst: int) -> tuple[float, float]:
        """The parameters in chart `dst` of the point ``(u, v)`` of chart `src`.

        Raises
        ------
        GeometryError
            If ``(u, v)`` is outside the domain of `src`.
        """
        u, v, src = self._check_point(u, v, src)
        dst = self._check_chart(dst)
        if src == dst:
            return u, v
        return self._chart_map(u, v, src, dst)

    def best_chart(self, u: float, v: float, chart: int = 0) -> tuple[int, float, float]:
        """A chart in which ``(u, v)`` of `chart` is far from the singular set.

        Returns ``(chart', u', v')``: the current chart while the parameter distance to its
        singular set is at least `chart_switch_margin`, otherwise the chart in which the point
        is farthest from the singular set. The hysteresis comes from the atlas: for the
        latitude-longitude atlases a point within 30 degrees of a pole of one chart is at least
        60 degrees from the poles of the other, so the switch does not chatter.
        """
        u, v, chart = self._check_point(u, v, chart)
        return self._best_chart(u, v, chart)

    def _best_chart(self, u: float, v: float, chart: int) -> tuple[int, float, float]:
        if self.n_charts == 1:
            return chart, u, v
        dist = self._domains[chart].distance_to_singular(u, v)
        if dist >= self.chart_switch_margin:
            return chart, u, v
        best = (dist, chart, u, v)
        for other in range(self.n_charts):
            if other != chart:
                uo, vo = self._chart_map(u, v, chart, other)
                do = self._domains[other].distance_to_singular(uo, vo)
                if do > best[0]:
                    best = (do, other, uo, vo)
        return best[1], best[2], best[3]

    # ---------------------------------------------------------- global search

    def _grid(self, n_u: int, n_v: int, chart: int) -> tuple[np.ndarray, np.ndarray]:
        dom = self._domains[chart]
        if not dom.is_bounded:
            raise GeometryError(f"cannot sample {self!r}: chart {chart} has an unbounded "
                                f"domain {dom!r}; give the surface a finite extent")
        axes = [np.linspace(dom.lower[k], dom.upper[k], n, endpoint=not dom.periodic[k])
                for k, n in enumerate((n_u, n_v))]
        return np.meshgrid(axes[0], axes[1], indexing="ij")

    def sample(self, n_u: int, n_v: int, chart: int = 0) -> SurfaceSample:
        """Points on a regular parameter grid (periodic directions without the repeated end).

        Parameters
        ----------
        n_u, n_v : int
            Grid size, at least 2 each.
        chart : int

        Returns
        -------
        SurfaceSample
            ``u, v`` of shape (n_u, n_v) and ``points`` of shape (n_u, n_v, 3) [m].

        Raises
        ------
        ParameterError
            If a grid size is not an integer >= 2.
        GeometryError
            If the domain is unbounded.
        """
        for name, n in (("n_u", n_u), ("n_v", n_v)):
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
                raise ParameterError(f"`{name}` must be an integer >= 2, got {n!r}")
        chart = self._check_chart(chart)
        U, V = self._grid(int(n_u), int(n_v), chart)
        P = np.empty(U.shape + (3,))
        for idx in np.ndindex(U.shape):
            P[idx] = self._derivatives(float(U[idx]), float(V[idx]), 0, chart)[0, 0]
        return SurfaceSample(U, V, P, chart)

    @cached_property
    def _bbox(self) -> np.ndarray:
        return self._bounding_box()

    def bounding_box(self) -> np.ndarray:
        """Axis-aligned bounding box in the body frame, shape (2, 3) [m]: rows min and max.

        Infinite entries for unbounded surfaces. Tight for the analytic surfaces, the hull of
        the control net for Bezier and B-spline surfaces (conservative), and sampled maxima
        refined by a bounded local optimization otherwise.
        """
        return self._bbox.copy()

    def _bounding_box(self) -> np.ndarray:
        from scipy.optimize import minimize

        box = np.array([np.full(3, np.inf), np.full(3, -np.inf)])
        chart = 0
        dom = self._domains[chart]
        U, V = self._grid(33, 33, chart)
        P = np.array([self._derivatives(float(u), float(v), 0, chart)[0, 0]
                      for u, v in zip(U.ravel(), V.ravel())])
        bounds = [(None, None) if dom.periodic[k] else (float(dom.lower[k]), float(dom.upper[k]))
                  for k in range(2)]

        def objective(x, d):
            u, v = dom.wrap(float(x[0]), float(x[1]))
            D = self._derivatives(u, v, 1, chart)
            return -float(D[0, 0] @ d), -np.array((D[1, 0] @ d, D[0, 1] @ d))

        for k in range(3):
            for sign in (1.0, -1.0):
                d = np.zeros(3)
                d[k] = sign
                i = int(np.argmax(P @ d))
                res = minimize(objective, np.array((U.ravel()[i], V.ravel()[i])), args=(d,),
                               jac=True, method="L-BFGS-B", bounds=bounds)
                best = max(float(P[i] @ d), -float(res.fun))
                if sign > 0:
                    box[1, k] = best
                else:
                    box[0, k] = -best
        return box

    def support(self, direction) -> SupportPoint:
        """The point of a convex closed surface that maximizes ``direction . p``.

        Parameters
        ----------
        direction : array_like, shape (3,)
            Nonzero direction in the body frame (normalized internally).

        Returns
        -------
        SupportPoint
            The point [m] and its parameters ``(chart, u, v)`` in a regular chart; the
            outward normal there is ``direction / |direction|``.

        Raises
        ------
        ParameterError
            If `direction` is not a finite nonzero 3-vector.
        GeometryError
            If the surface is not convex and closed.
        """
        d = as_array(direction, "direction", (3,))
        norm = float(np.linalg.norm(d))
        if not norm > 0.0:
            raise ParameterError(f"`direction` must be nonzero, got {d.tolist()}")
        if not (self.is_convex and self.is_closed):
            raise GeometryError(f"support() needs a convex closed surface; {self!r} is not "
                                f"(is_convex={self.is_convex}, is_closed={self.is_closed})")
        return self._support(d / norm)

    def _support(self, d: np.ndarray) -> SupportPoint:
        """Support point by sampling every chart, then Newton on ``(d . f_u, d . f_v) = 0``."""
        best = None
        for chart in range(self.n_charts):
            U, V = self._grid(17, 17, chart)
            for u, v in zip(U.ravel(), V.ravel()):
                h = float(self._derivatives(float(u), float(v), 0, chart)[0, 0] @ d)
                if best is None or h > best[0]:
                    best = (h, chart, float(u), float(v))
        _, chart, u, v = best
        for _ in range(60):
            chart, u, v = self._best_chart(u, v, chart)
            D = self._derivatives(u, v, 2, chart)
            g = np.array((D[1, 0] @ d, D[0, 1] @ d))
            H = np.array(((D[2, 0] @ d, D[1, 1] @ d), (D[1, 1] @ d, D[0, 2] @ d)))
            if np.all(np.linalg.eigvalsh(H) < 0.0):
                step = -np.linalg.solve(H, g)
            else:
                step = g / (abs(np.trace(H)) + math.sqrt(g @ g) + 1e-300)
            h0 = float(D[0, 0] @ d)
            dom = self._domains[chart]
            for _ in range(40):
                un, vn = dom.wrap(u + step[0], v + step[1])
                un = min(max(un, dom.lower[0]), dom.upper[0])
                vn = min(max(vn, dom.lower[1]), dom.upper[1])
                if float(self._derivatives(un, vn, 0, chart)[0, 0] @ d) >= h0 - 1e-15 * abs(h0):
                    break
                step = 0.5 * step
            u, v = float(un), float(vn)
            if math.sqrt(step @ step) < 1e-13 * (1.0 + abs(u) + abs(v)):
                break
        chart, u, v = self._best_chart(u, v, chart)
        D = self._derivatives(u, v, 1, chart)
        # first-order optimality, well defined at a pole (where f_u = 0) unlike the normal
        su, sv = self._reference_speeds[chart]
        if not (abs(D[1, 0] @ d) <= 1e-7 * su and abs(D[0, 1] @ d) <= 1e-7 * sv):
            raise GeometryError(f"support search on {self!r} did not converge for direction "
                                f"{d.tolist()}")
        return SupportPoint(D[0, 0], chart, u, v)
