"""Validation and small float kernels shared by the contact modules (not public)."""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_array
from ..errors import GeometryError, ParameterError
from ..geometry import Surface
from ..geometry.closest import check_pose
from ..geometry.gauss import _cross, _dot

__all__ = ["check_pose", "check_vector", "frame_from", "pair_derivatives", "rotate", "surface_derivatives",
           "tangent_basis"]


def check_vector(value, name: str, n: int) -> list:
    """A finite vector of length n as a list of floats (ParameterError otherwise)."""
    return as_array(value, name, (n,)).tolist()


def _check_surface(S, name):
    if not isinstance(S, Surface):
        raise ParameterError(f"`{name}` must be a Surface, got {type(S).__name__}")


def _check_chart(S, chart, name):
    if (isinstance(chart, bool) or not isinstance(chart, (int, np.integer))
            or not 0 <= int(chart) < S.n_charts):
        raise ParameterError(f"chart of {name} must be an integer in "
                             f"{list(range(S.n_charts))}, got {chart!r}")
    return int(chart)


def surface_derivatives(S, u, v, chart, order, name, *, lists=True):
    """Derivative array (nested lists, or the array) at a regular point of `chart`, validated."""
    dom = S._domains[chart]
    u, v = dom.wrap(u, v)
    if not dom.contains(u, v):
        raise GeometryError(f"parameters (u, v) = ({u!r}, {v!r}) of {name} = {S!r} are outside "
                            f"the domain {dom!r} of chart {chart}")
    D = S._derivatives(u, v, order, chart)
    S._require_regular(D, u, v, chart)
    return D.tolist() if lists else D


def pair_derivatives(S1, S2, x, charts, order, *, lists=True):
    """Validated derivative arrays (nested lists, or arrays) of both surfaces at
    ``x = (u1, v1, u2, v2)``.

    Raises
    ------
    ParameterError
        Bad surfaces, shapes, non-finite parameters or chart indices.
    GeometryError
        Parameters outside a domain, or a singular point (non-regular parametrization).
    """
    _check_surface(S1, "S1")
    _check_surface(S2, "S2")
    x = check_vector(x, "x", 4)
    try:
        c1, c2 = charts
    except (TypeError, ValueError):
        raise ParameterError(f"`charts` must be a pair of chart indices, got {charts!r}") from None
    c1 = _check_chart(S1, c1, "S1")
    c2 = _check_chart(S2, c2, "S2")
    return (surface_derivatives(S1, x[0], x[1], c1, order, "S1", lists=lists),
            surface_derivatives(S2, x[2], x[3], c2, order, "S2", lists=lists))


def rotate(R, a):
    """``R a`` for nested-list R (3x3) and a 3-sequence."""
    return (R[0][0] * a[0] + R[0][1] * a[1] + R[0][2] * a[2],
            R[1][0] * a[0] + R[1][1] * a[1] + R[1][2] * a[2],
            R[2][0] * a[0] + R[2][1] * a[1] + R[2][2] * a[2])


def tangent_basis(n, fu):
    """Orthonormal tangent basis ``e1 = f_u / |f_u|``, ``e2 = n x e1`` (Kry & Pai eq. 5)."""
    lu = math.sqrt(_dot(fu, fu))
    e1 = (fu[0] / lu, fu[1] / lu, fu[2] / lu)
    return e1, _cross(n, e1)


def frame_from(point, fu, n) -> np.ndarray:
    """4x4 pose of the frame with origin `point`, ``x = f_u / |f_u|``, ``z = n``, ``y = z x x``
    (Kry & Pai, *Continuous contact simulation for smooth surfaces*, 2003, eqs. 5-6)."""
    e1, e2 = tangent_basis(n, fu)
    H = np.eye(4)
    H[:3, 0], H[:3, 1], H[:3, 2], H[:3, 3] = e1, e2, n, point
    return H
