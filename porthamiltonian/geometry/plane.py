"""Plane (unbounded or a finite rectangle), parametrized by orthonormal axes."""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_array, as_rotation
from ..errors import ParameterError
from ..kernels.closest import BOUND_HALFSPACE
from ..kernels.surfaces import SHAPE_PLANE
from .domain import ParameterDomain
from ._compiled import LINEAR, CompiledSurface

__all__ = ["Plane"]


class Plane(CompiledSurface):
    """Plane through `point` with unit normal `normal` pointing out of the material.

    Parameters
    ----------
    point : array_like, shape (3,)
        A point of the plane, the parameter origin, in the body frame [m].
    normal : array_like, shape (3,)
        Nonzero normal (normalized internally), pointing away from the material side.
    u_axis : array_like, shape (3,), optional
        Direction of increasing ``u``; projected onto the plane. By default the coordinate
        axis least aligned with `normal`, projected (x for a normal along z).
    extent : array_like, shape (2, 2), optional
        ``((u_min, u_max), (v_min, v_max))`` [m] for a finite rectangle; unbounded if None.

    Raises
    ------
    ParameterError
        If `normal` is zero, `u_axis` is parallel to `normal`, or `extent` is not a finite
        increasing rectangle.

    Notes
    -----
    ``f(u, v) = point + u e_u + v e_v`` with orthonormal ``e_u``, ``e_v = n x e_u``, so that
    ``f_u x f_v = n``::

              n ^
                |
        --------+--------> e_u       (e_v into the page)
        ////// material //////

    A plane has zero curvature (``L = 0``) and is not absolutely convex (``is_convex`` is
    False), but it is a valid "relatively convex" contact partner: in the contact matrix
    ``L1 + R L2 R^T (I + Delta L1)`` of docs/math.md sec. 5 its ``L`` vanishes, and the matrix
    stays invertible when the other body is absolutely convex.

    Examples
    --------
    >>> p = Plane(normal=(0.0, 0.0, 1.0))
    >>> p.point(1.0, 2.0).tolist()
    [1.0, 2.0, 0.0]
    """

    def __init__(self, point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0), *, u_axis=None, extent=None):
        p = as_array(point, "point", (3,))
        n = as_array(normal, "normal", (3,))
        # the arguments as given (`porthamiltonian.geometry.spec` saves these, not the frame)
        self._inputs = {"point": p.tolist(), "normal": n.tolist(),
                        "u_axis": None if u_axis is None else as_array(u_axis, "u_axis", (3,)).tolist()}
        norm = float(np.linalg.norm(n))
        if not norm > 0.0:
            raise ParameterError(f"`normal` must be nonzero, got {n.tolist()}")
        n = n / norm
        if u_axis is None:
            a = np.zeros(3)
            a[int(np.argmin(np.abs(n)))] = 1.0
        else:
            a = as_array(u_axis, "u_axis", (3,))
        e_u = a - (a @ n) * n
        length = float(np.linalg.norm(e_u))
        if not length > 1e-12 * max(1.0, float(np.linalg.norm(a))):
            raise ParameterError(f"`u_axis` must not be parallel to `normal`, got u_axis "
                                 f"{a.tolist()} and normal {n.tolist()}")
        e_u = e_u / length
        e_v = np.cross(n, e_u)
        if extent is None:
            dom = ParameterDomain((-math.inf, -math.inf), (math.inf, math.inf))
        else:
            ext = as_array(extent, "extent", (2, 2))
            if not np.all(ext[:, 0] < ext[:, 1]):
                raise ParameterError(f"`extent` must be ((u_min, u_max), (v_min, v_max)) with "
                                     f"min < max, got {ext.tolist()}")
            dom = ParameterDomain(ext[:, 0], ext[:, 1])
        self._domains = (dom,)
        self._origin, self._normal, self._e_u, self._e_v = p, n, e_u, e_v
        for arr in (p, n, e_u, e_v):
            arr.flags.writeable = False
        # f = u e_u + v e_v + origin: phi = (u, 1), psi = (v, 1)
        C = np.zeros((2, 2, 3))
        C[0, 1], C[1, 0], C[1, 1] = e_u, e_v, p
        self._init_separable([C], LINEAR, LINEAR, shape=SHAPE_PLANE)

    @classmethod
    def from_pose(cls, H_BP, *, extent=None) -> "Plane":
        """The x-y plane of frame P, normal ``+z_P``, ``u`` along ``x_P``.

        Parameters
        ----------
        H_BP : array_like, shape (4, 4)
            Pose of the plane frame P in the body frame B.
        extent : array_like, shape (2, 2), optional
            As in `Plane`.

        Raises
        ------
        ParameterError
            If `H_BP` is not a homogeneous transform with a rotation block.
        """
        H = as_array(H_BP, "H_BP", (4, 4))
        R = as_rotation(H[:3, :3], "H_BP[:3, :3]")
        if not np.allclose(H[3], (0.0, 0.0, 0.0, 1.0), rtol=0.0, atol=1e-12):
            raise ParameterError(f"`H_BP` must have last row (0, 0, 0, 1), got {H[3].tolist()}")
        return cls(H[:3, 3], R[:, 2], u_axis=R[:, 0], extent=extent)

    @property
    def origin(self) -> np.ndarray:
        """The point ``f(0, 0)``, shape (3,) [m]."""
        return self._origin

    @property
    def plane_normal(self) -> np.ndarray:
        """Unit normal (out of the material), shape (3,)."""
        return self._normal

    @property
    def u_axis(self) -> np.ndarray:
        """Unit direction of increasing ``u`` (the projected `u_axis`), shape (3,) (read-only)."""
        return self._e_u

    @property
    def inputs(self) -> dict:
        """The constructor's `point`, `normal` and `u_axis` as given (lists; `u_axis` None
        for the default), which rebuild this plane bit for bit."""
        return dict(self._inputs)

    def __repr__(self) -> str:
        dom = self._domains[0]
        ext = ""
        if dom.is_bounded:
            ext = f", extent={tuple(zip(dom.lower.tolist(), dom.upper.tolist()))}"
        return (f"Plane(point={tuple(self._origin.tolist())}, normal={tuple(self._normal.tolist())}"
                f"{ext})")

    @property
    def _reference_speeds(self):
        return np.ones((1, 2))

    @property
    def _bound_spec(self):
        """The half-space behind the plane (`CompiledSurface._bound_spec`)."""
        return np.array((BOUND_HALFSPACE, *self._origin, *self._normal))

    def _bounding_box(self):
        dom = self._domains[0]
        if dom.is_bounded:
            corners = np.array([self._derivatives(float(u), float(v), 0, 0)[0, 0]
                                for u in (dom.lower[0], dom.upper[0])
                                for v in (dom.lower[1], dom.upper[1])])
            return np.array((corners.min(axis=0), corners.max(axis=0)))
        # unbounded: infinite along every axis the plane extends in
        flat = (self._e_u == 0.0) & (self._e_v == 0.0)
        lo = np.where(flat, self._origin, -np.inf)
        return np.array((lo, np.where(flat, self._origin, np.inf)))
