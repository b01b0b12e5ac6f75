"""Patch networks: a surface made of many polynomial Bezier patches joined along their sides.

A `PatchNetwork` is one surface whose charts are its patches, each on ``[0, 1]^2``. Sides
where two patches meet are found from the control nets (a shared side has the same control
polygon in both, in the same or the reverse order); a point carried past a shared side is
re-expressed in the neighbour (`porthamiltonian.kernels.surfaces.network_hop`), which is how
the closest-point iteration moves from patch to patch; the contacts change patch on a
"chart" event when their point is `PatchNetwork.TRANSITION_DEPTH` past a shared side (the
reduced contact's coordinates, the sliding-plane and compliant contacts' tracked parameters;
Kry & Pai, "Continuous contact simulation for smooth surfaces", ACM TOG 2003, sec. 3.5:
patch transitions). Sides shared with no patch are the surface's
boundary: a contact point that reaches one leaves the surface.

What the paper used, and what this is instead: the paper's surfaces are Loop subdivision
surfaces evaluated with Stam's method; their extraordinary vertices are non-regular points
(``f_u x f_v = 0``), where the paper had to force the bodies apart. Here the patches are
tensor-product Bezier patches of any degree (bicubic from `from_bspline`), required to be
regular everywhere and to join with a continuous tangent plane, which the construction
checks; a B-spline surface split at its knots (`from_bspline`) gives a C2 network of
bicubic patches whose neighbours join with equal parameter speeds, so the transition map
is exact. Networks with extraordinary vertices (closed surfaces of genus 0 need them, or
poles) are accepted when they pass those checks.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_finite_float
from ..errors import GeometryError, ParameterError
from ..kernels import surfaces as _k
from . import gauss
from ._compiled import CompiledSurface
from .bezier import BezierPatch
from .domain import ParameterDomain
from .surface import REGULARITY_TOL

__all__ = ["PatchNetwork"]

#: the names of a patch's sides, in the kernels' order
SIDES = ("u=0", "u=1", "v=0", "v=1")
#: a side of one patch nearer than this fraction of its length to a side of another, but not
#: within the matching tolerance, is a gap (not a boundary)
GAP_FRACTION = 0.05


def _side_polygon(P, side):
    """The control polygon of `side` of a control net, in the direction of increasing
    parameter (shape (n, 3))."""
    return (P[0], P[-1], P[:, 0], P[:, -1])[side]


def _side_point(side, t):
    """``(u, v)`` of the point at position `t` along `side`."""
    return ((0.0, t), (1.0, t), (t, 0.0), (t, 1.0))[side]


class PatchNetwork(CompiledSurface):
    """A surface made of polynomial Bezier patches, one chart per patch (module docstring).

    Parameters
    ----------
    patches : sequence of BezierPatch or array_like, shape (p+1, q+1, 3)
        The patches (their control nets [m]), each on ``[0, 1]^2``; ``f_u x f_v`` of every
        patch points out of the material (the patches are oriented alike).
    tol : float
        Sides whose control polygons agree to ``tol`` times the network's size are shared
        (default 1e-9).
    normal_tol : float [rad]
        Largest angle between the two patches' normals along a shared side (tangent-plane
        continuity, which a contact crossing the side needs; default 1e-6).
    closed : bool
        Declare that the network bounds a solid: then every side must be shared.
    convex : bool
        Declare the network absolutely convex; checked (``k2 > 0``) on a sample of every patch.

    Raises
    ------
    ParameterError
        Fewer than one patch, a control net of the wrong shape, a side shared by more than
        two patches, a gap (two sides that nearly coincide), an open side of a `closed`
        network.
    GeometryError
        A patch that is not regular somewhere (``f_u x f_v`` vanishes: a degenerate normal),
        two patches meeting at a crease or with opposite orientations; a failed `convex`
        check. Each message names the patch (its index), the side or the point, and the rule.

    Notes
    -----
    Regularity is checked on a 9 x 9 grid of every patch (its sides and corners included)
    against `REGULARITY_TOL` relative to the patch's largest parameter speeds, tangent-plane
    continuity at 9 points of every shared side. Checks on samples cannot prove a property;
    they catch the usual faults (a collapsed corner, a flipped or displaced patch).

    Evaluation outside a patch: the public methods accept ``(u, v)`` in ``[0, 1]^2`` of the
    chart; the kernels (closest points, the contact coordinates) carry points past shared
    sides into the neighbours and evaluate a patch's polynomial a little past its boundary
    sides (for the solver's stages; the contact's edge event is located there).

    Examples
    --------
    >>> import numpy as np
    >>> def flat(x0):        # a unit square of the plane z = 0, as a bicubic patch
    ...     g = np.linspace(0.0, 1.0, 4)
    ...     return np.stack(np.meshgrid(x0 + g, g, [0.0], indexing="ij"), -1)[:, :, 0]
    >>> net = PatchNetwork([flat(0.0), flat(1.0)])
    >>> net.neighbour(0, "u=1")
    (1, 'u=0', False)
    >>> net.point(1.0, 0.5, chart=0).tolist() == net.point(0.0, 0.5, chart=1).tolist()
    True
    """

    is_network = True
    #: a contact's tracked parameters move to the neighbour when they are this far [parameter
    #: units] past a shared side, and arrive as far inside it: the hysteresis that keeps a
    #: contact running along a side from switching back and forth at every step
    TRANSITION_DEPTH = _k.TRANSITION_DEPTH
    #: how far [parameter units] past its sides the reduced contact evaluates a patch (a solver
    #: stage); beyond, the stage is rejected and the step shrinks (Kry & Pai sec. 3.5: approach
    #: the transition from inside the patch, the polynomial departing quickly outside it)
    REACH = 0.25

    def __init__(self, patches, *, tol=1e-9, normal_tol=1e-6, closed=False, convex=False):
        if isinstance(patches, (str, bytes)) or not hasattr(patches, "__len__") or len(patches) < 1:
            raise ParameterError(f"`patches` must be a non-empty sequence of Bezier patches or control nets, "
                                 f"got {patches!r}")
        self._patches = tuple(p if isinstance(p, BezierPatch) else BezierPatch(p) for p in patches)
        self.tol = tol = as_finite_float(tol, "tol", positive=True)
        self.normal_tol = self._normal_tol = as_finite_float(normal_tol, "normal_tol", positive=True)
        nets = [p.control_points for p in self._patches]
        pts = np.concatenate([P.reshape(-1, 3) for P in nets])
        self._size = float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0))) or 1.0
        self._neighbours = self._match(nets, tol * self._size)
        open_sides = [(c, s) for c in range(len(nets)) for s in range(4) if self._neighbours[c, s, 0] < 0]
        if closed and open_sides:
            c, s = open_sides[0]
            raise ParameterError(f"`closed` was declared but side {SIDES[s]} of patch {c} (and "
                                 f"{len(open_sides) - 1} other sides) is shared with no patch")
        self._domains = tuple(ParameterDomain((0.0, 0.0), (1.0, 1.0)) for _ in nets)
        # the kernels' domains are unbounded: the closest-point iteration is not clamped at a
        # side; past a shared side it moves to the neighbour, past a boundary side it follows the
        # patch extended (the contact then finds its point outside the surface and releases)
        unbounded = ParameterDomain((-math.inf, -math.inf), (math.inf, math.inf))
        self._F, self._I = _k.pack_network([(p._F, p._I) for p in self._patches], self._neighbours,
                                           [unbounded] * len(nets), np.zeros((len(nets), 2)), self.chart_switch_margin)
        self._check_regular()
        self._check_tangent_planes()
        self.is_closed = bool(closed)
        self.is_convex = False
        if convex:
            for chart in range(self.n_charts):
                self._verify_convex(chart=chart)
            self.is_convex = True

    # ---------------------------------------------------------------- topology
    @staticmethod
    def _match(nets, tol):
        """Per patch and side ``(neighbour, its side, reversed)`` (-1: boundary). Sides are
        compared with the sides that have a corner within a gap's reach of theirs (a grid of
        the corners), so that large networks do not compare every pair."""
        n = len(nets)
        out = np.full((n, 4, 3), -1, dtype=np.int64)
        sides = [(c, s, _side_polygon(nets[c], s)) for c in range(n) for s in range(4)]
        lengths = [float(np.sum(np.linalg.norm(np.diff(A, axis=0), axis=1))) for _, _, A in sides]
        cell = max(GAP_FRACTION * max(lengths), tol, 1e-300)
        grid = {}
        for i, (_, _, A) in enumerate(sides):
            for key in {tuple(np.floor(A[0] / cell).astype(int)), tuple(np.floor(A[-1] / cell).astype(int))}:
                grid.setdefault(key, []).append(i)
        for i, (c, s, A) in enumerate(sides):
            near = set()
            base = np.floor(A[0] / cell).astype(int)
            for off in np.ndindex(3, 3, 3):
                near.update(j for j in grid.get(tuple(base + np.array(off) - 1), ()) if j > i)
            for j in sorted(near):
                d, t, B = sides[j]
                if B.shape != A.shape:
                    continue
                gaps = (float(np.max(np.linalg.norm(A - B, axis=1))), float(np.max(np.linalg.norm(A - B[::-1], axis=1))))
                rev = gaps[1] < gaps[0]
                gap = gaps[int(rev)]
                if gap <= tol:
                    for (e, f) in ((c, s), (d, t)):
                        if out[e, f, 0] >= 0:
                            raise ParameterError(
                                f"patch network: side {SIDES[f]} of patch {e} is shared by more than two patches "
                                f"(patches {out[e, f, 0]}, {c if e == d else d}): a network must be a manifold")
                    out[c, s] = (d, t, int(rev))
                    out[d, t] = (c, s, int(rev))
                elif gap < GAP_FRACTION * lengths[i]:
                    raise ParameterError(
                        f"patch network has a gap: side {SIDES[s]} of patch {c} and side {SIDES[t]} of patch {d} "
                        f"are {gap:.3g} m apart; neighbouring patches must share their side's control points to "
                        f"{tol:.3g} m (`tol` times the network's size)")
        return out

    def neighbour(self, chart: int, side: str):
        """``(patch, side, reversed)`` across `side` (one of ``"u=0", "u=1", "v=0", "v=1"``) of
        patch `chart`, or None on the boundary; `reversed` when the side runs the other way in
        the neighbour."""
        chart = self._check_chart(chart)
        if side not in SIDES:
            raise ParameterError(f"`side` must be one of {SIDES}, got {side!r}")
        nb, nside, rev = self._neighbours[chart, SIDES.index(side)]
        return None if nb < 0 else (int(nb), SIDES[nside], bool(rev))

    @property
    def patches(self) -> tuple:
        """The patches (`BezierPatch`), in chart order."""
        return self._patches

    def edges(self, chart: int) -> np.ndarray:
        """``(lower_u, lower_v, upper_u, upper_v)`` of the boundary sides of patch `chart`:
        ``-inf`` / ``inf`` where the side is shared (the contact moves on to the neighbour
        there, it does not leave the surface)."""
        chart = self._check_chart(chart)
        nb = self._neighbours[chart, :, 0]
        return np.array([-math.inf if nb[0] >= 0 else 0.0, -math.inf if nb[2] >= 0 else 0.0,
                         math.inf if nb[1] >= 0 else 1.0, math.inf if nb[3] >= 0 else 1.0])

    def transition_margin(self, u: float, v: float, chart: int) -> float:
        """Signed parameter distance from ``(u, v)`` of patch `chart` to the nearest shared
        side plus `TRANSITION_DEPTH` (inf when no side is shared; NaN parameters give -inf):
        a contact's tracked parameters move to the neighbour at zero (the contacts' "chart"
        event; `porthamiltonian.kernels.surfaces.transition_margin`)."""
        return _k.transition_margin(self._I, float(u), float(v), int(chart), self.TRANSITION_DEPTH)

    def _best_chart(self, u, v, chart):
        return _k.network_hop(self._I, float(u), float(v), int(chart))

    # ------------------------------------------------------------------ checks
    def _check_regular(self, n: int = 9):
        for chart in range(self.n_charts):
            for u in np.linspace(0.0, 1.0, n).tolist():
                for v in np.linspace(0.0, 1.0, n).tolist():
                    D = self._derivatives(u, v, 1, chart)
                    r = self._regularity(D, chart)
                    if not r >= REGULARITY_TOL:
                        raise GeometryError(
                            f"patch {chart} of the network is not regular at (u, v) = ({u:.4g}, {v:.4g}): "
                            f"|f_u x f_v| is {r:.3g} of its scale (< {REGULARITY_TOL:g}), a degenerate normal; "
                            "the contact needs a regular surface (move the control points apart)")

    def _check_tangent_planes(self, n: int = 9):
        for c in range(self.n_charts):
            for s in range(4):
                d, t, rev = (int(x) for x in self._neighbours[c, s])
                if d < c:
                    continue
                worst = 0.0
                for a in np.linspace(0.0, 1.0, n).tolist():
                    n1 = gauss.unit_normal(self._derivatives(*_side_point(s, a), 1, c))
                    n2 = gauss.unit_normal(self._derivatives(*_side_point(t, 1.0 - a if rev else a), 1, d))
                    worst = max(worst, math.acos(max(-1.0, min(1.0, float(n1 @ n2)))))
                if worst > self._normal_tol:
                    kind = ("opposite orientations (f_u x f_v of one points into the material)"
                            if worst > 0.5 * math.pi else "a crease")
                    raise GeometryError(
                        f"patches {c} (side {SIDES[s]}) and {d} (side {SIDES[t]}) meet at {kind}: their normals "
                        f"differ by up to {worst:.3g} rad along the shared side (> `normal_tol` = "
                        f"{self._normal_tol:g}); a contact crossing it needs a continuous tangent plane")

    # -------------------------------------------------------------- construction
    @classmethod
    def from_bspline(cls, surface, **kwargs) -> "PatchNetwork":
        """The network of a polynomial B-spline surface's knot spans, one Bezier patch each
        (Bezier extraction), with the same geometry: a C^(p-1) network whose neighbours join
        with equal parameter speeds; a periodic direction closes (its end patches share a side).

        Parameters
        ----------
        surface : BSplineSurface
            Polynomial (no weights).
        **kwargs
            Passed to the constructor (`tol`, `normal_tol`, `closed`, `convex`).
        """
        from .bspline import BSplineSurface

        if not isinstance(surface, BSplineSurface):
            raise ParameterError(f"`surface` must be a BSplineSurface, got {surface!r}")
        if surface.weights is not None:
            raise ParameterError(f"`surface` must be polynomial (no weights): a rational span is not a "
                                 f"polynomial Bezier patch, got {surface!r}")
        p, q = surface.degrees
        edges = [np.unique(t[d:len(t) - d]) for t, d in zip(surface.knots, (p, q))]
        # the Bernstein coefficients of each span from its values at p+1 (q+1) nodes
        nodes_u, nodes_v = np.linspace(0.0, 1.0, p + 1), np.linspace(0.0, 1.0, q + 1)
        Bu = np.array([[math.comb(p, a) * x ** a * (1 - x) ** (p - a) for a in range(p + 1)] for x in nodes_u])
        Bv = np.array([[math.comb(q, b) * y ** b * (1 - y) ** (q - b) for b in range(q + 1)] for y in nodes_v])
        patches = []
        for a0, a1 in zip(edges[0][:-1], edges[0][1:]):
            for b0, b1 in zip(edges[1][:-1], edges[1][1:]):
                # on the span's far sides the kernel evaluates the next span: the same point (the
                # surface is continuous), so neighbours get the same side polygon
                us = (a0 + (a1 - a0) * nodes_u).tolist()
                vs = (b0 + (b1 - b0) * nodes_v).tolist()
                vals = np.array([[surface._derivatives(x, y, 0, 0)[0, 0] for y in vs] for x in us])
                patches.append(np.einsum("ia,jb,abk->ijk", np.linalg.inv(Bu), np.linalg.inv(Bv), vals))
        return cls(patches, **kwargs)

    def __repr__(self) -> str:
        n_open = int(np.sum(self._neighbours[:, :, 0] < 0))
        return f"PatchNetwork({self.n_charts} patches, {n_open} boundary sides)"

    def _bounding_box(self):
        pts = np.concatenate([p.control_points.reshape(-1, 3) for p in self._patches])
        return np.array((pts.min(axis=0), pts.max(axis=0)))

