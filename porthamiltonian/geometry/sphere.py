"""Sphere: the ellipsoid with three equal semi-axes."""

from __future__ import annotations

from .._validate import as_finite_float
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
        refused: the Gauss-map kinematics need a regular surface (a point has no tangent
        plane to parametrize).
    center : array_like, shape (3,)
        Centre in the body frame [m].

    Raises
    ------
    ParameterError
        If `radius` is not a finite positive number.

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
        r = as_finite_float(radius, "radius", positive=True)
        super().__init__(r, r, r, center=center)

    @property
    def radius(self) -> float:
        """Radius [m]."""
        return self._axes[0]

    def __repr__(self) -> str:
        return f"Sphere(radius={self.radius!r}, center={tuple(self._center.tolist())})"
