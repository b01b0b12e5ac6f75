"""Sphere: the ellipsoid with three equal semi-axes."""

from __future__ import annotations

from .._validate import as_finite_float
from ..errors import ParameterError
from .ellipsoid import Ellipsoid

__all__ = ["Sphere"]


class Sphere(Ellipsoid):
    """Sphere of radius `radius` about `center`, outward normal, two-chart atlas.

    Parameters
    ----------
    radius : float
        Radius [m], > 0. Small radii are fine: a walker's "point foot" is a sphere of 1e-6 m
        (the sliding-plane and compliant contacts find and track its contact point metres
        from its body's origin: the closest points' gap tolerance has a round-off floor,
        `porthamiltonian.kernels.closest.gap_tolerance`), whose gait differs from the
        textbook point foot's by terms of order radius / leg. A radius of exactly 0 is
        refused: a point has no tangent plane to parametrize; it is a `Point`, whose contact
        kinematics are the limit of the sphere's (`porthamiltonian.kernels.point`).
    center : array_like, shape (3,)
        Centre in the body frame [m].

    Raises
    ------
    ParameterError
        If `radius` is not a finite positive number (for 0, the message names `Point`).

    Notes
    -----
    Same latitude-longitude atlas as `Ellipsoid` (chart 0 poles on +-z, chart 1 on +-x).
    ``L = (I - n n^T) / radius``; principal curvatures ``1/radius`` (umbilic everywhere).

    Examples
    --------
    >>> Sphere(2.0).principal_curvatures(0.3, 0.2).k1
    0.5
    """

    def __init__(self, radius: float, center=(0.0, 0.0, 0.0)):
        try:
            r = as_finite_float(radius, "radius", positive=True)
        except ParameterError as exc:
            if isinstance(radius, (int, float)) and radius == 0:
                raise ParameterError(f"{exc}: a sphere of radius 0 is a point, "
                                     f"`porthamiltonian.geometry.Point(center)` (its contact with a surface: "
                                     f"`point_contact`)") from None
            raise
        super().__init__(r, r, r, center=center)

    @property
    def radius(self) -> float:
        """Radius [m]."""
        return self._axes[0]

    def __repr__(self) -> str:
        return f"Sphere(radius={self.radius!r}, center={tuple(self._center.tolist())})"
