"""A point of a body as a contact partner of a smooth surface (a walker's point foot)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import as_array
from ..errors import GeometryError, ParameterError
from ..kernels import closest as _kclosest
from ..kernels import point as _kpoint
from ..kernels import surfaces as _ksurfaces
from . import gauss
from .closest import DEFAULT_TOL, _scale, check_pose, project_point
from .domain import ParameterDomain
from .surface import Surface

__all__ = ["Point", "PointContact", "point_contact"]


class Point:
    """A point `center` of a body: a sphere of radius 0, the textbook walker's point foot.

    Parameters
    ----------
    center : array_like, shape (3,)
        The point in the body frame [m].

    Raises
    ------
    ParameterError
        If `center` is not a finite 3-vector.

    Notes
    -----
    A point is not a `Surface`: it has no tangent plane to parametrize (``f_u = f_v = 0``),
    and its shape operator (``1/r`` for a sphere of radius r) is infinite. Its contacts are
    therefore written in radius-of-curvature form (`porthamiltonian.kernels.point`), in which
    a point is the regular case ``M = 0`` (``radius_tensor``) and which for a sphere of radius
    r gives the sphere's kinematics: the point is their limit r -> 0, linearly in r. The
    contact normal is the other surface's (``n_point = -R^T n_surface``), and the contact point
    on the point is the point itself. So the partner must be a regular surface where the foot
    of the normal lies: not another point (two points have no normal between them), and not
    an edge of a bounded patch (no normal there): `point_contact` raises `GeometryError` for
    both.

    In the contact elements (`SlidingPlaneContact`, `CompliantContact`, their `ContactPair`) a
    point is `surface_b`, meeting the built-in surface `surface_a`; the pair stage is compiled
    (`porthamiltonian.kernels.contact_pair.point_pair_state`), and a point as `surface_a`, two
    points, or a point against a surface evaluated in Python are refused at construction.

    Examples
    --------
    >>> Point((0.0, 0.0, -1.0)).center.tolist()
    [0.0, 0.0, -1.0]
    """

    #: radius [m]: a point is the sphere of radius 0
    radius = 0.0

    def __init__(self, center=(0.0, 0.0, 0.0)):
        self._center = as_array(center, "center", (3,))
        self._center.flags.writeable = False

    @property
    def center(self) -> np.ndarray:
        """The point, shape (3,) [m], body frame (read-only)."""
        return self._center

    def radius_tensor(self) -> np.ndarray:
        """The radius-of-curvature tensor ``M`` (``dp = M dn`` along the body), shape (3, 3)
        [m]: zero for a point, whatever the normal (`porthamiltonian.kernels.point`)."""
        return np.zeros((3, 3))

    def __repr__(self) -> str:
        return f"Point(center={tuple(self._center.tolist())})"

    # ---- what a contact pair reads of its partner (`library.contact_geometry.ContactPair`)
    #: the compiled contact kernels take a point (`porthamiltonian.kernels.point.pack`)
    _is_compiled = True
    #: a point is the limit of convex bodies; it has no patches
    is_convex = True
    is_network = False
    #: the tracked state keeps two parameters per partner: the point's are placeholders
    #: (always 0) in one chart whose domain is the whole plane, without edges or singular set
    n_charts = 1
    _DOMAIN = ParameterDomain((-np.inf, -np.inf), (np.inf, np.inf))

    def domain(self, chart: int = 0) -> ParameterDomain:
        """The placeholder domain of the point's two tracked parameters (always 0)."""
        return self._DOMAIN

    def edges(self, chart: int = 0) -> np.ndarray:
        """No edges: ``(-inf, -inf, inf, inf)``."""
        return np.array([-np.inf, -np.inf, np.inf, np.inf])

    @property
    def _kernel_spec(self):
        """``(F, I)`` of the point for the compiled contact kernels (`kernels.point.pack`)."""
        return _kpoint.pack(self._center)

    @property
    def _bound_spec(self) -> np.ndarray:
        """The culling bound: a sphere of radius 0 about the point
        (`porthamiltonian.kernels.closest.separation_bound`)."""
        return np.array([_kclosest.BOUND_SPHERE, *self._center, 0.0, 0.0, 0.0])


class PointContact(NamedTuple):
    """The contact of a surface S1 (body 1) and a point (body 2): the foot of the normal.

    ``u1, v1, chart1``: S1's contact parameters; ``p1``, ``n1`` (shape (3,)): S1's contact
    point [m] and outward unit normal, frame 1; ``p2`` (shape (3,)) [m]: the point, frame 2;
    ``n2 = -R^T n1`` (shape (3,)): the contact normal of the point, frame 2; ``distance``
    [m]: ``n1 . (R p2 + d - p1)``, negative in penetration; ``margin`` [-]: the smallest
    eigenvalue of ``I + distance K1`` (K1: S1's curvature on its tangent plane), positive when
    the foot is a strict local minimum of the distance and the kinematics are regular
    (`porthamiltonian.kernels.point.kinematics`), zero where the point sits at a centre of
    curvature of S1; ``iterations``: Newton iterations.
    """

    u1: float
    v1: float
    chart1: int
    p1: np.ndarray
    n1: np.ndarray
    p2: np.ndarray
    n2: np.ndarray
    distance: float
    margin: float
    iterations: int


def _margin(S1: Surface, u, v, chart, distance) -> float:
    """Smallest eigenvalue of ``I + distance L1`` on S1's tangent plane at ``(u, v)``."""
    D = S1._derivatives(u, v, 2, chart)
    k = gauss.principal_curvatures(D)
    return float(min(1.0 + distance * k.k1, 1.0 + distance * k.k2))


def point_contact(S1: Surface, P: Point, H_12, *, uv0=None, chart: int = 0,
                  tol: float = DEFAULT_TOL, max_iter: int = 50) -> PointContact:
    """Contact of surface `S1` (body 1) with point `P` (body 2): the foot on S1 of the normal
    through the point.

    Parameters
    ----------
    S1 : Surface
        Surface of body 1, in its body frame.
    P : Point
        The point of body 2, in its body frame.
    H_12 : array_like, shape (4, 4)
        Pose of body 2 in body 1, ``x_1 = R x_2 + d``.
    uv0 : array_like, shape (2,), optional
        Warm start ``(u1, v1)`` in `chart` (the hot path); without it the nearest samples of
        S1 (or the exact foot on an unbounded plane) start the iteration.
    chart : int
        Chart of `uv0`.
    tol : float
        Tangential residual ``<= tol * scale`` [m] (scale: S1's bounding-box diagonal, 1 m
        for an unbounded plane).
    max_iter : int
        Newton iterations per start.

    Returns
    -------
    PointContact

    Raises
    ------
    ParameterError
        If `S1` is not a `Surface` (a `Point`: two points have no normal between them) or `P`
        not a `Point`, or a shape or number is invalid.
    GeometryError
        If the foot of the normal lies on an edge of a bounded patch (the contact normal of a
        point is the surface's, undefined at an edge), the iteration does not converge, or
        it ends at a singular point of S1.

    Notes
    -----
    ``project_point(S1, R p2 + d)`` (Newton on ``f_a . (f - c) = 0``): the contact of a point
    is the closest point of S1 to it when apart and the foot of the normal through it when
    penetrating (the smallest absolute distance among the feet the starts reach).

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane
    >>> H = np.eye(4); H[2, 3] = 0.25
    >>> c = point_contact(Plane(), Point((0.0, 0.0, -0.5)), H)
    >>> round(c.distance, 12), c.n2.tolist()
    (-0.25, [-0.0, -0.0, -1.0])
    """
    if isinstance(S1, Point):
        raise ParameterError(f"`S1` = {S1!r} is a point: a point touches a surface, not another "
                             f"point (two points have no contact normal); give one body a Surface")
    if not isinstance(S1, Surface):
        raise ParameterError(f"`S1` must be a Surface, got {type(S1).__name__}")
    if not isinstance(P, Point):
        raise ParameterError(f"`P` must be a Point, got {type(P).__name__}")
    R, d = check_pose(H_12, "H_12")
    R, d = np.array(R), np.array(d)
    c2 = R @ P.center + d
    pr = project_point(S1, c2, uv0=uv0, chart=chart, tol=tol, max_iter=max_iter)
    if pr.on_boundary:
        raise GeometryError(f"point_contact: the foot on {S1!r} of the normal through {P!r} lies "
                            f"on an edge of the patch, at (u, v) = ({pr.u:.6g}, {pr.v:.6g}) in chart "
                            f"{pr.chart}: a point's contact normal is the surface's, which an edge "
                            f"does not have (a point contact needs a smooth surface where it touches)")
    n1 = pr.normal
    distance = float(n1 @ (c2 - pr.point))
    return PointContact(pr.u, pr.v, pr.chart, pr.point, n1, P.center.copy(), -(R.T @ n1), distance,
                        _margin(S1, pr.u, pr.v, pr.chart, distance), pr.iterations)

