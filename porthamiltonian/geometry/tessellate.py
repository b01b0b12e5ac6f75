"""Triangle meshes of parametric surfaces, for drawing (the 3D viewer, animations).

A mesh is sampled on a regular parameter grid of each chart the surface needs: the first
chart of a surface whose charts each cover it (sphere, ellipsoid, torus: the second chart only
re-parametrizes the poles), every patch of a `PatchNetwork`. Vertices are points of the
surface (`Surface.point`) and vertex normals its Gauss map (`Surface.normal`), evaluated in
another chart where the grid's chart is singular (the poles of a latitude-longitude chart), so
the shading is that of the exact surface, not of the facets; where no chart is regular (the pole
of a one-chart sympy sphere) the normal is its limit from inside the chart.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..errors import GeometryError, ParameterError

__all__ = ["SurfaceMesh", "tessellate"]


class SurfaceMesh(NamedTuple):
    """A triangle mesh in the surface's (body) frame.

    Attributes
    ----------
    vertices : ndarray, shape (n, 3) [m]
    normals : ndarray, shape (n, 3)
        Unit outward normals of the surface at the vertices (the Gauss map).
    faces : ndarray of int64, shape (m, 3)
        Vertex indices, counter-clockwise seen from the side the normals point to.
    """

    vertices: np.ndarray
    normals: np.ndarray
    faces: np.ndarray


def _count(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
        raise ParameterError(f"`{name}` must be an integer >= 2, got {value!r}")
    return int(value)


def _bounds(surface, chart, extent):
    """Parameter bounds ``((u0, u1), (v0, v1))`` of `chart`, unbounded directions taken from
    `extent`, and the periodic flags."""
    dom = surface.domain(chart)
    out = []
    for k, name in enumerate("uv"):
        lo, hi = float(dom.lower[k]), float(dom.upper[k])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            if extent is None:
                raise GeometryError(f"cannot tessellate {surface!r}: its `{name}` direction is unbounded; give "
                                    f"`extent` ((u_min, u_max), (v_min, v_max)) in parameter units")
            lo, hi = max(lo, extent[k][0]), min(hi, extent[k][1])
            if not lo < hi:
                raise ParameterError(f"`extent` {extent.tolist()} does not overlap the `{name}` domain "
                                     f"[{float(dom.lower[k])!r}, {float(dom.upper[k])!r}] of {surface!r}")
        out.append((lo, hi))
    return out, dom.periodic


def _check_extent(extent):
    if extent is None:
        return None
    try:
        ext = np.asarray(extent, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`extent` must be ((u_min, u_max), (v_min, v_max)), got {extent!r}") from None
    if ext.shape != (2, 2) or not np.all(np.isfinite(ext)) or not np.all(ext[:, 0] < ext[:, 1]):
        raise ParameterError(f"`extent` must be a finite increasing ((u_min, u_max), (v_min, v_max)), got "
                             f"{extent!r}")
    return ext


#: a point singular in every chart takes the normal at this fraction of its chart's size inside
LIMIT_STEP = 1e-6


def _normal(surface, u, v, chart, lengths):
    """The Gauss map at ``(u, v)`` of `chart`, through the best chart where it is singular,
    else its limit: the normal at a point `LIMIT_STEP` of the chart's size inside (the pole
    of a one-chart sphere, the tip of a surface of revolution)."""
    if surface.is_regular(u, v, chart):
        return surface.normal(u, v, chart)
    best, bu, bv = surface.best_chart(u, v, chart)
    if best != chart and surface.is_regular(bu, bv, best):
        return surface.normal(bu, bv, best)
    dom = surface.domain(chart)
    for du in (0.0, 1.0, -1.0):
        for dv in (0.0, 1.0, -1.0):
            pu, pv = u + du * LIMIT_STEP * lengths[0], v + dv * LIMIT_STEP * lengths[1]
            if (du or dv) and dom.contains(pu, pv) and surface.is_regular(pu, pv, chart):
                return surface.normal(pu, pv, chart)
    raise GeometryError(f"cannot tessellate {surface!r}: the point (u, v) = ({u!r}, {v!r}) of chart {chart} "
                        "is singular in every chart and around it (no normal)")


def _chart_mesh(surface, chart, n_u, n_v, extent):
    (u_lim, v_lim), periodic = _bounds(surface, chart, extent)
    axes = [np.linspace(lo, hi, n, endpoint=not per) for (lo, hi), n, per in zip((u_lim, v_lim), (n_u, n_v), periodic)]
    lengths = (u_lim[1] - u_lim[0], v_lim[1] - v_lim[0])
    P = np.empty((n_u, n_v, 3))
    N = np.empty((n_u, n_v, 3))
    for i, u in enumerate(axes[0]):
        for j, v in enumerate(axes[1]):
            P[i, j] = surface.point(float(u), float(v), chart)
            N[i, j] = _normal(surface, float(u), float(v), chart, lengths)
    idx = np.arange(n_u * n_v).reshape(n_u, n_v)
    if periodic[0]:
        idx = np.vstack((idx, idx[:1]))
    if periodic[1]:
        idx = np.hstack((idx, idx[:, :1]))
    a, b = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel()
    c, d = idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
    # (a, b, c) spans f_u then f_u + f_v: counter-clockwise about f_u x f_v, the outward normal
    faces = np.concatenate((np.stack((a, b, c), axis=1), np.stack((a, c, d), axis=1)))
    return P.reshape(-1, 3), N.reshape(-1, 3), faces


def _drop_degenerate(vertices, faces):
    """Faces of nonzero area only (a pole row collapses half of its triangles to segments)."""
    e1 = vertices[faces[:, 1]] - vertices[faces[:, 0]]
    e2 = vertices[faces[:, 2]] - vertices[faces[:, 0]]
    area2 = np.linalg.norm(np.cross(e1, e2), axis=1)
    scale = float(np.max(np.ptp(vertices, axis=0))) if len(vertices) else 0.0
    return faces[area2 > 1e-12 * scale * scale]


def tessellate(surface, n_u=32, n_v=16, *, extent=None):
    """A triangle mesh of `surface` in its body frame, from its parametrization.

    Parameters
    ----------
    surface : Surface
        Any surface of `porthamiltonian.geometry` (built-in, sympy, patch network).
    n_u, n_v : int
        Grid points per chart along ``u`` and ``v`` (at least 2 each); for a patch network,
        per patch. A periodic direction has `n_u` (`n_v`) distinct points, its end joined to
        its start.
    extent : array_like, shape (2, 2), optional
        ``((u_min, u_max), (v_min, v_max))`` [parameter units] replacing the bounds of the
        chart's unbounded directions (an unbounded plane becomes this finite rectangle);
        finite bounds of the domain are kept.

    Returns
    -------
    SurfaceMesh
        Vertices and their outward unit normals (the Gauss map, shape (n, 3) each) and
        counter-clockwise faces (shape (m, 3)); triangles collapsed at a singular row (a pole)
        are left out.

    Raises
    ------
    ParameterError
        If `n_u` or `n_v` is not an integer >= 2, or `extent` is malformed or misses the domain.
    GeometryError
        If a direction is unbounded and no `extent` is given, or a grid point is singular in
        every chart and at `LIMIT_STEP` around it.

    Notes
    -----
    Charts tessellated: every patch of a `PatchNetwork` (``surface.is_network``), otherwise
    chart 0 only (the atlases of closed surfaces cover the whole surface with each chart).
    Patches are meshed separately, so their shared sides have coincident, duplicated vertices.

    Examples
    --------
    >>> from porthamiltonian.geometry import Ellipsoid
    >>> mesh = tessellate(Ellipsoid(0.25, 0.15, 0.1), 24, 12)
    >>> mesh.vertices.shape, mesh.faces.shape[1]
    ((288, 3), 3)
    """
    n_u, n_v = _count(n_u, "n_u"), _count(n_v, "n_v")
    ext = _check_extent(extent)
    charts = range(surface.n_charts) if surface.is_network else (0,)
    V, N, F = [], [], []
    offset = 0
    for chart in charts:
        p, n, f = _chart_mesh(surface, chart, n_u, n_v, ext)
        V.append(p)
        N.append(n)
        F.append(f + offset)
        offset += len(p)
    vertices = np.concatenate(V)
    faces = _drop_degenerate(vertices, np.concatenate(F).astype(np.int64))
    return SurfaceMesh(vertices, np.concatenate(N), faces)
