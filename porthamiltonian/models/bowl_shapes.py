"""The shapes of "a bowl thrown on a table" (Kry & Pai, Continuous contact simulation for smooth
surfaces, ACM TOG 2003): a table top with rounded edges, a bowl's contact surface, and the
bowl's mass properties. Units: metres, kilograms.

Both surfaces are polynomial bicubic `BSplineSurface` objects with clamped knot vectors, meant
to be split into patch networks of bicubic Bezier patches (one per knot span):

* `table_surface`: the top face and its rounded edges, ``8 x 8`` spans by default (the paper's
  table has 60 patches). The interior of the top is exactly planar.
* `bowl_surface`: the outside, the lip and a band of the inside wall of a bowl 13 cm across and
  11 cm high, ``10 x 10`` spans by default (the paper's bowl has 14 patches), as one regular
  parametrization of the square (the exponential map of the surface of revolution at the
  outside bottom; `BowlMap`).
* `bowl_mass_properties`: centre of mass and inertia of the solid bowl (0.95 kg), by exact
  integration over its cross-section (`revolved_mass_properties`).

The bowl's profile (`bowl_profile`) is a chain of circular arcs with tangent-continuous joins:
a large-radius outside bottom (so that the bowl stands stably: its centre of mass lies well
below the bottom's centre of curvature), a fillet, a wall arc that ends vertical at the rim, a
semicircular lip, and the inside, the outside offset inward by the wall thickness.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from porthamiltonian._validate import as_finite_float
from porthamiltonian.errors import ParameterError
from porthamiltonian.geometry import BSplineSurface

__all__ = ["Arc", "BowlProfile", "BowlMap", "table_surface", "bowl_profile", "bowl_map", "bowl_surface",
           "revolved_mass_properties", "bowl_mass_properties"]

#: slope of the table's sides below the rounded edge [rad] (outward, so the surface stays regular
#: at its corners, where both directions are steep)
TABLE_SIDE_SLOPE = math.radians(78.0)


# ----------------------------------------------------------------------------------- checks

def _positive(value, name) -> float:
    return as_finite_float(value, name, positive=True)


def _below(name, value, bound, bound_text) -> None:
    if not value < bound:
        raise ParameterError(f"`{name}` = {value!r} must be < {bound_text} = {bound:.6g}")


def _count(value, name, least) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ParameterError(f"`{name}` must be an integer >= {least}, got {value!r}")
    return int(value)


# ------------------------------------------------------------------------------------ table

def _table_profile(size, ell, side_depth, spans_top):
    """Knots and control points ``(X, Z)`` of the table's edge profile (see `table_surface`),
    the chamfer leg of the control polygon ``ell`` long."""
    th = TABLE_SIDE_SLOPE
    leg = (side_depth - ell * math.sin(0.5 * th)) / math.sin(th)
    h1, h2 = 0.7 * ell, leg
    widths = [h2, h1] + [size / spans_top] * spans_top + [h1, h2]
    edges = np.cumsum([0.0] + widths) - (0.5 * size + h1 + h2)
    knots = np.r_[[edges[0]] * 3, edges, [edges[-1]] * 3]
    n = len(knots) - 4
    X = (knots[1:n + 1] + knots[2:n + 2] + knots[3:n + 3]) / 3.0     # Greville: x = s on the top
    Z = np.zeros(n)
    c1 = np.array((X[n - 3], 0.0))
    c2 = c1 + ell * np.array((math.cos(0.5 * th), -math.sin(0.5 * th)))
    end = c2 + leg * np.array((math.cos(th), -math.sin(th)))
    (X[n - 2], Z[n - 2]), (X[n - 1], Z[n - 1]) = c2, end
    X[:2], Z[:2] = -X[n - 1:n - 3:-1], Z[n - 1:n - 3:-1]
    return knots, X, Z


def _edge_radius(size, ell, side_depth, spans_top) -> float:
    """Smallest radius of curvature [m] of the profile over the rounded edge."""
    from scipy.interpolate import BSpline

    knots, X, Z = _table_profile(size, ell, side_depth, spans_top)
    curve = BSpline(knots, np.c_[X, Z], 3)
    s = np.linspace(0.5 * size, knots[-1], 801)[1:-1]
    d1, d2 = curve(s, 1), curve(s, 2)
    kappa = np.abs(d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]) / np.hypot(d1[:, 0], d1[:, 1]) ** 3
    return float(1.0 / kappa.max())


def table_surface(size=0.40, edge_radius=0.015, side_depth=0.03, spans_top=4) -> BSplineSurface:
    """The table top with its rounded edges, in the table frame.

    The top is the plane z = 0, centred at the origin, flat for x, y in ``[-size/2, size/2]``;
    around it the edges round down into sides that end `side_depth` below the top. The
    surface is the tensor product of one cubic B-spline profile ``(X(s), Z(s))``:
    ``f(u, v) = (X(u), X(v), Z(u) + Z(v))`` exactly (control points
    ``P_ij = (X_i, X_j, Z_i + Z_j)`` and the partition of unity), so along an edge away from
    the corners the section is the profile, and at a corner the two roundings add.

    The profile's control polygon: flat points at the Greville abscissae of the knots over the
    top (so ``X(s) = s`` and ``Z(s) == 0`` there: the top is exactly planar on
    ``[-size/2, size/2]^2``, to the last bit, its normal exactly (0, 0, 1)), then a corner
    ``C1`` at the table edge, a chamfer leg turning half of the side slope, a corner ``C2``,
    and the side leg at `TABLE_SIDE_SLOPE` = 78 degrees from horizontal down to depth
    `side_depth` (the clamped end point). The cubic rounds the two corners into the edge; the
    chamfer length is solved so that the smallest radius of curvature over the edge is
    `edge_radius`. With the defaults: 15.0 mm at a slope of 29 degrees, 1.3 cm beyond the
    border of the flat top; 16.3 mm at 39 degrees (half the turn), 18 mm at 15 and 45
    degrees, 32 mm at 60 degrees, then straightening into the side, which ends 2.7 cm beyond
    the border. The sides slope outward, so ``X'(s) > 0`` everywhere and
    ``f_u x f_v = (-Z'(u) X'(v), -X'(u) Z'(v), X'(u) X'(v))`` never vanishes, also at the four
    corners where both directions are steep (smallest relative regularity 0.11); it points up
    on the top and outward on the sides (out of the material).

    Parameters
    ----------
    size : float
        Side of the flat top [m].
    edge_radius : float
        Smallest radius of curvature of the rounded edge [m]; below `side_depth`.
    side_depth : float
        Depth of the surface's rim below the top [m] (twice that at the corners).
    spans_top : int
        Knot spans across the flat top; the surface has ``spans_top + 4`` spans per direction
        (two per edge: 8 x 8 = 64 Bezier patches with the defaults).

    Returns
    -------
    BSplineSurface
        Bicubic, polynomial, clamped; parameters u, v in metres (``x = u`` on the top).

    Raises
    ------
    ParameterError
        A parameter that is not positive, `spans_top` not an integer >= 1, `edge_radius` not
        below `side_depth` or a rounding that cannot reach it, or a `side_depth` not below
        ``size / 2``.
    """
    size, edge_radius, side_depth = (_positive(x, name) for x, name in
                                     ((size, "size"), (edge_radius, "edge_radius"), (side_depth, "side_depth")))
    spans_top = _count(spans_top, "spans_top", 1)
    _below("side_depth", side_depth, 0.5 * size, "size / 2")
    _below("edge_radius", edge_radius, side_depth, "side_depth")
    ell = _solve_chamfer(size, edge_radius, side_depth, spans_top)
    knots, X, Z = _table_profile(size, ell, side_depth, spans_top)
    n = len(X)
    P = np.empty((n, n, 3))
    P[..., 0], P[..., 1] = X[:, None], X[None, :]
    P[..., 2] = Z[:, None] + Z[None, :]
    return BSplineSurface(knots, knots, 3, 3, P)


def _solve_chamfer(size, edge_radius, side_depth, spans_top) -> float:
    """The chamfer length giving the smallest edge radius `edge_radius` (the radius grows
    with it while the chamfer drops at most half of `side_depth`)."""
    from scipy.optimize import brentq

    hi = 0.5 * side_depth / math.sin(0.5 * TABLE_SIDE_SLOPE)       # the side leg keeps half the depth
    lo = 0.02 * hi

    def gap(ell):
        return _edge_radius(size, ell, side_depth, spans_top) - edge_radius

    g_lo, g_hi = gap(lo), gap(hi)
    if not g_lo < 0.0 < g_hi:
        reach = (g_lo + edge_radius, g_hi + edge_radius)
        raise ParameterError(f"`edge_radius` = {edge_radius!r} cannot be reached with side_depth = "
                             f"{side_depth!r}: the rounding gives radii between {reach[0]:.4g} and "
                             f"{reach[1]:.4g} m")
    return brentq(gap, lo, hi, xtol=1e-12)


# ------------------------------------------------------------------------------ bowl profile

class Arc(NamedTuple):
    """A circular arc in the (R, Z) half-plane: ``(cr + rho sin(phi), cz - rho cos(phi))`` for
    `phi` running from `phi0` to `phi1` (either way) [m, rad]; ``phi`` is the tangent's angle
    from the R axis when `phi` increases (``phi + pi`` when it decreases)."""

    cr: float
    cz: float
    rho: float
    phi0: float
    phi1: float

    @property
    def length(self) -> float:
        """Arclength [m]."""
        return self.rho * abs(self.phi1 - self.phi0)

    def at(self, phi):
        """Point(s) ``(R, Z)`` at angle(s) `phi` [rad]."""
        phi = np.asarray(phi, dtype=float)
        return self.cr + self.rho * np.sin(phi), self.cz - self.rho * np.cos(phi)


class BowlProfile(NamedTuple):
    """The bowl's profile (`bowl_profile`): seven arcs from the outside bottom centre over the
    lip to the inside bottom centre, and the wall thickness [m]."""

    arcs: tuple
    wall: float

    # the arcs' names, in order (a class attribute, not a field)
    NAMES = ("bottom", "fillet", "wall", "lip", "inner wall", "inner fillet", "inner bottom")

    @property
    def length(self) -> float:
        """Total arclength [m] from the outside to the inside bottom centre."""
        return float(sum(a.length for a in self.arcs))

    @property
    def breaks(self) -> np.ndarray:
        """Arclength at the start of each arc and the end, shape (8,) [m]."""
        return np.cumsum([0.0] + [a.length for a in self.arcs])

    def at(self, s):
        """Point(s) ``(R, Z)`` [m] at arclength(s) `s` in ``[0, length]`` (clamped)."""
        s = np.asarray(s, dtype=float)
        b = self.breaks
        k = np.clip(np.searchsorted(b, s, side="right") - 1, 0, len(self.arcs) - 1)
        R, Z = np.empty(s.shape), np.empty(s.shape)
        for i, a in enumerate(self.arcs):
            on = k == i
            t = np.clip((s[on] - b[i]) / a.length, 0.0, 1.0)
            R[on], Z[on] = a.at(a.phi0 + t * (a.phi1 - a.phi0))
        return R, Z


def _solve_wall_angle(half, rim, bottom_radius, fillet_radius, phi1):
    """Tangent angle ``phi2`` where the fillet meets the wall arc, and the wall arc's radius,
    so that the wall ends vertical at ``(half, rim)``; None if there is no solution."""
    from scipy.optimize import brentq

    s1, c1 = math.sin(phi1), math.cos(phi1)

    def radius(p2):
        return (half - bottom_radius * s1 - fillet_radius * (math.sin(p2) - s1)) / (1.0 - math.sin(p2))

    def gap(p2):
        return (bottom_radius * (1.0 - c1) + fillet_radius * (c1 - math.cos(p2))
                + radius(p2) * math.cos(p2) - rim)

    lo, hi = phi1 + 1e-9, 0.5 * math.pi - 1e-6
    if not gap(lo) < 0.0 < gap(hi):
        return None
    p2 = brentq(gap, lo, hi, xtol=1e-15)
    return p2, radius(p2)


def bowl_profile(diameter=0.13, height=0.11, wall=0.01, *, bottom_radius=0.12, fillet_radius=0.03,
                 foot_radius=0.025) -> BowlProfile:
    """The profile of the bowl in the (R, Z) half-plane of its frame (origin at the lowest point
    of the outside, Z up the axis).

    Outside, from the bottom centre: an arc of radius `bottom_radius` (centre on the axis at
    ``Z = bottom_radius``) out to ``R = foot_radius``; a fillet of radius `fillet_radius`; a
    wall arc (radius solved) that ends vertical at ``R = diameter / 2``,
    ``Z = height - wall / 2``; all joins tangent-continuous. Then the lip, a semicircle of
    diameter `wall` whose top is at ``Z = height``; then the inside, the outside offset inward
    by `wall` (the same centres, radii less `wall`), down to the inside bottom centre
    ``(0, wall)``. With the defaults the fillet turns the tangent from 12.0 to 64.9 degrees,
    the wall arc has radius 0.202 m, and the profile is 0.283 m long.

    Parameters
    ----------
    diameter, height : float
        Outside diameter at the rim (the widest) and height to the top of the lip [m].
    wall : float
        Wall thickness [m]; below ``diameter / 4`` and `fillet_radius`.
    bottom_radius, fillet_radius, foot_radius : float
        Radii of the outside bottom and the fillet, and the radius at which they join [m]:
        ``foot_radius < bottom_radius``, ``wall < fillet_radius < bottom_radius``.

    Returns
    -------
    BowlProfile

    Raises
    ------
    ParameterError
        A parameter that is not positive or breaks an inequality above, or dimensions the arcs
        cannot reach (no wall arc through the rim, or one tighter than `wall`).
    """
    names = ("diameter", "height", "wall", "bottom_radius", "fillet_radius", "foot_radius")
    D, H, w, Rb, rf, foot = (_positive(x, k) for x, k in
                             zip((diameter, height, wall, bottom_radius, fillet_radius, foot_radius), names))
    _below("wall", w, 0.25 * D, "diameter / 4")
    _below("wall", w, rf, "fillet_radius")
    _below("fillet_radius", rf, Rb, "bottom_radius")
    _below("foot_radius", foot, min(Rb, 0.5 * D), "min(bottom_radius, diameter / 2)")
    phi1 = math.asin(foot / Rb)
    found = _solve_wall_angle(0.5 * D, H - 0.5 * w, Rb, rf, phi1)
    if found is None or found[1] <= w:
        raise ParameterError(f"no bowl profile with diameter = {D!r}, height = {H!r}, wall = {w!r}, "
                             f"bottom_radius = {Rb!r}, fillet_radius = {rf!r}, foot_radius = {foot!r}: "
                             f"no wall arc wider than `wall` ends vertical at the rim")
    phi2, Rw = found
    bottom = Arc(0.0, Rb, Rb, 0.0, phi1)
    cf = np.array(bottom.at(phi1)) - rf * np.array((math.sin(phi1), -math.cos(phi1)))
    fillet = Arc(float(cf[0]), float(cf[1]), rf, phi1, phi2)
    cw = np.array(fillet.at(phi2)) - Rw * np.array((math.sin(phi2), -math.cos(phi2)))
    cw = (float(cw[0]), float(cw[1]))
    arcs = (bottom, fillet, Arc(*cw, Rw, phi2, 0.5 * math.pi),
            Arc(0.5 * D - 0.5 * w, H - 0.5 * w, 0.5 * w, 0.5 * math.pi, 1.5 * math.pi),
            Arc(*cw, Rw - w, 0.5 * math.pi, phi2),
            Arc(*fillet[:2], rf - w, phi2, phi1),
            Arc(0.0, Rb, Rb - w, phi1, 0.0))
    return BowlProfile(arcs, w)


# ------------------------------------------------------------------------ the contact map

_LIP_SPEED = 0.35      # sigma' at the middle of the lip
_INNER_SPEED = 0.8     # sigma' on the inside wall
_BUMP_LIPS = 3.5       # half-width of the slow-down, in lip lengths
_INNER_BAND = 0.02     # the square reaches this far down the inside wall along its axes [m]
_POLE_MARGIN = 0.01    # least arclength left between the square's corners and the inside pole [m]
_B1 = 32.0 / 35.0      # integral of the bump (1 - t^2)^3 over [-1, 1]


def _bump_integral(t):
    """``int_{-1}^t (1 - x^2)^3 dx`` for t clipped to [-1, 1]."""
    t = np.clip(t, -1.0, 1.0)
    return t - t ** 3 + 0.6 * t ** 5 - t ** 7 / 7.0 + 16.0 / 35.0


def _bump_integral2(t):
    """``int_{-1}^t _bump_integral``, continued linearly (slope 32/35) beyond t = 1."""
    tc = np.clip(t, -1.0, 1.0)

    def prim(x):
        return x * x / 2.0 - x ** 4 / 4.0 + x ** 6 / 10.0 - x ** 8 / 56.0 + 16.0 * x / 35.0

    return prim(tc) - prim(-1.0) + _B1 * np.maximum(t - 1.0, 0.0)


class BowlMap(NamedTuple):
    """The regular parametrization of the bowl's contact surface (`bowl_map`).

    ``map(u, v)`` is the point at ``p = (x, y) = (v, u)`` of the square ``[-L, L]^2`` (the swap
    makes ``f_u x f_v`` point out of the material): with ``r = |p|`` and the profile position
    ``s = sigma(r)``, ``(R(s) x / r, R(s) y / r, Z(s))``, the exponential map of the surface of
    revolution at its outside bottom composed with the radial reparametrization `sigma`.
    """

    profile: BowlProfile
    half_width: float    # L [m]
    r_lip: float         # r at the middle of the lip [m]
    bump: float          # half-width of the slow-down [m]

    def sigma(self, r):
        """Profile arclength [m] at distance(s) r >= 0 [m] from the centre of the square:
        ``sigma(r) = r`` up to ``r_lip - bump``; then ``sigma'`` dips smoothly (a
        ``(1 - t^2)^3`` bump) to `_LIP_SPEED` at the middle of the lip and settles to
        `_INNER_SPEED` on the inside wall."""
        t = (np.asarray(r, dtype=float) - self.r_lip) / self.bump
        return (np.asarray(r, dtype=float) - (1.0 - _LIP_SPEED) * self.bump * _bump_integral(t)
                + (_INNER_SPEED - 1.0) * self.bump * _bump_integral2(t) / _B1)

    def __call__(self, u, v) -> np.ndarray:
        """Point(s) at parameters u, v [m], shape ``broadcast(u, v).shape + (3,)`` [m]."""
        y, x = np.broadcast_arrays(np.asarray(u, dtype=float), np.asarray(v, dtype=float))
        r = np.hypot(x, y)
        R, Z = self.profile.at(self.sigma(r))
        scale = np.divide(R, r, out=np.ones_like(r), where=r > 0.0)      # R'(0) sigma'(0) = 1
        return np.stack((scale * x, scale * y, Z), axis=-1)


def bowl_map(profile: BowlProfile) -> BowlMap:
    """The contact surface's exact map for a profile (`BowlMap`).

    Along the square's axes (``r = L``) it reaches `_INNER_BAND` = 2 cm of arclength down the
    inside wall past the lip; along its diagonals (``r = sqrt(2) L``) it stops short of the
    inside pole (3.3 cm of arclength with the defaults), so ``R(sigma(r)) > 0`` over the square:
    the map is regular everywhere on it, smooth at p = 0 (``sigma(r) = r`` near 0, R odd and Z
    even in s). The lip is slowed down (``sigma'`` dips to 0.35) so that more of the square, and
    more knot spans, cover it.

    Raises
    ------
    ParameterError
        If the slow-down would reach the centre of the square, or the square's corners would
        come within `_POLE_MARGIN` of the inside pole (a bowl too shallow for the band).
    """
    from scipy.optimize import brentq

    breaks = profile.breaks
    lip = breaks[4] - breaks[3]
    s_mid = 0.5 * (breaks[3] + breaks[4])
    bump = _BUMP_LIPS * lip
    # sigma(r_lip) = s_mid, closed form
    r_lip = s_mid + (1.0 - _LIP_SPEED) * bump * 16.0 / 35.0 - (_INNER_SPEED - 1.0) * bump * float(
        _bump_integral2(0.0)) / _B1
    if not r_lip > bump:
        raise ParameterError(f"the lip's slow-down ({bump:.4g} m each side) would reach the bottom centre "
                             f"(the lip is at arclength {s_mid:.4g} m): the wall is too thick for the bowl")
    partial = BowlMap(profile, 1.0, r_lip, bump)
    target = breaks[4] + _INNER_BAND
    L = brentq(lambda r: float(partial.sigma(r)) - target, 0.0, 10.0 * target, xtol=1e-14)
    out = BowlMap(profile, L, r_lip, bump)
    left = profile.length - float(out.sigma(math.sqrt(2.0) * L))
    if not left > _POLE_MARGIN:
        raise ParameterError(f"the bowl is too shallow for its contact surface: the square's corners come within "
                             f"{left:.4g} m (arclength) of the inside pole, less than {_POLE_MARGIN} m")
    return out


# ------------------------------------------------------------------------------------ bowl

def _fit_constrained(design, data, rows, values):
    """``argmin |design c - data|`` subject to ``rows c = values`` (KKT system)."""
    m = rows.shape[0]
    kkt = np.block([[2.0 * design.T @ design, rows.T], [rows, np.zeros((m, m))]])
    return np.linalg.solve(kkt, np.r_[2.0 * design.T @ data, values])[:design.shape[1]]


def bowl_surface(diameter=0.13, height=0.11, wall=0.01, n=13, *, bottom_radius=0.12, fillet_radius=0.03,
                 foot_radius=0.025) -> BSplineSurface:
    """The bowl's contact surface in the bowl frame (origin at the lowest point of the outside,
    z up the axis when upright).

    The whole outside, the lip and a 2 cm band of the inside wall (more along the diagonals of
    the parameter square): everything a convex table can touch. The inside bottom is not part
    of it (a tensor-product parametrization of the closed surface would be singular at its
    second pole; only something put into the bowl can touch the inside bottom).

    The surface approximates `bowl_map` (a regular map of the square ``[-L, L]^2``; L = 0.220 m
    with the defaults) with ``n x n`` control points on uniform clamped knots over the square,
    so ``n - 3`` spans per direction (10 x 10 = 100 Bezier patches with the defaults), by least
    squares on a dense grid (8 samples per span and direction) under constraints that pin the
    resting point: ``f(0, 0) = 0``, ``z_uu = z_vv = 1 / bottom_radius`` and unit speeds
    ``x_v = y_u = 1`` there, so the surface touches the plane z = 0 at the origin with the
    normal (0, 0, -1) and the bottom's radius of curvature, exactly. Least squares rather than
    interpolation of an ``n x n`` grid: the profile's features (a 2.5 cm bottom, a 3 cm
    fillet, a lip of radius `wall` / 2) are all smaller than the knot spacing (44 mm of the
    square), and interpolation leaves the bottom's curvature wrong by a factor of up to 7.

    Accuracy with the defaults (measured; the tests check it): within 2.2 mm of the exact map
    at the same parameters and of the exact surface of revolution, the largest errors on the
    fillet, the lip and the outside wall (1.0 mm on the bottom arc); widest radius 0.4 mm and
    top 0.9 mm over the profile's. The bottom's radius of curvature falls smoothly from
    0.12 m at the centre to 3.4 cm at the fillet (the exact profile jumps from 0.12 m to 3 cm
    at r = 2.5 cm); the outside below the lip is convex (smallest principal curvature
    -0.04 1/m, flat to sampling accuracy). The normal is within 6 degrees of the exact one on
    the bottom arc, 10 on the fillet, 14 on the wall, 34 on the lip and 20 on the inside band.
    More control points buy accuracy (not always fairness): the deviation is 1.4 mm with
    n = 19 and 0.44 mm with n = 25 (22 x 22 spans).
    Regular everywhere including the boundary (smallest relative regularity 0.060);
    ``f_u x f_v`` points out of the material, (0, 0, -1) at the bottom centre.

    Parameters
    ----------
    diameter, height, wall, bottom_radius, fillet_radius, foot_radius
        The profile (`bowl_profile`) [m].
    n : int
        Control points per direction, >= 4.

    Returns
    -------
    BSplineSurface
        Bicubic, polynomial, clamped; parameters u, v in ``[-L, L]`` [m].

    Raises
    ------
    ParameterError
        Bad profile parameters (`bowl_profile`, `bowl_map`) or `n`.
    """
    from scipy.interpolate import BSpline

    n = _count(n, "n", 4)
    exact = bowl_map(bowl_profile(diameter, height, wall, bottom_radius=bottom_radius,
                                  fillet_radius=fillet_radius, foot_radius=foot_radius))
    L = exact.half_width
    knots = np.r_[[-L] * 3, np.linspace(-L, L, n - 2), [L] * 3]
    x = np.linspace(-L, L, 8 * (n - 3) + 1)
    B = BSpline.design_matrix(x, knots, 3).toarray()
    design = np.kron(B, B)                                   # rows (u_i, v_j), columns (a, b)
    data = exact(x[:, None], x[None, :]).reshape(-1, 3)
    at0 = [np.array([BSpline(knots, e, 3)(0.0, k) for e in np.eye(n)]) for k in range(3)]
    value, d_u, d_uu = (np.kron(at0[k], at0[0]) for k in range(3))       # derivatives in u at (0, 0)
    d_v, d_vv = np.kron(at0[0], at0[1]), np.kron(at0[0], at0[2])
    control = np.stack([
        _fit_constrained(design, data[:, 0], np.array([value, d_v]), np.array([0.0, 1.0])),
        _fit_constrained(design, data[:, 1], np.array([value, d_u]), np.array([0.0, 1.0])),
        _fit_constrained(design, data[:, 2], np.array([value, d_uu, d_vv]),
                         np.array([0.0, 1.0, 1.0]) / np.array([1.0, bottom_radius, bottom_radius])),
    ], axis=-1).reshape(n, n, 3)
    return BSplineSurface(knots, knots, 3, 3, control)


# --------------------------------------------------------------------------- mass properties

def _boundary_quadrature(arcs, order=40):
    """Gauss-Legendre nodes ``R, Z`` and weights ``dZ`` for ``oint P(R, Z) dZ`` along the
    arcs and the straight segments closing the gaps between them (and back to the first)."""
    x, w = np.polynomial.legendre.leggauss(order)
    R, Z, dZ = [], [], []
    for a, b in zip(arcs, arcs[1:] + arcs[:1]):
        phi = a.phi0 + 0.5 * (x + 1.0) * (a.phi1 - a.phi0)
        r, z = a.at(phi)
        R.append(r), Z.append(z), dZ.append(a.rho * np.sin(phi) * 0.5 * (a.phi1 - a.phi0) * w)
        p, q = np.array(a.at(a.phi1)), np.array(b.at(b.phi0))
        if np.hypot(*(q - p)) > 0.0:
            t = 0.5 * (x + 1.0)
            R.append(p[0] + t * (q[0] - p[0])), Z.append(p[1] + t * (q[1] - p[1]))
            dZ.append(0.5 * (q[1] - p[1]) * w)
    return np.concatenate(R), np.concatenate(Z), np.concatenate(dZ)


def revolved_mass_properties(arcs, mass):
    """Centre of mass and inertia of the uniform solid swept by a cross-section revolved
    about the z axis.

    Parameters
    ----------
    arcs : sequence of Arc
        The cross-section's boundary in the (R, Z) half-plane (R >= 0), counterclockwise,
        closed by straight segments between consecutive arcs where their ends differ (and
        from the last back to the first; a segment on the axis contributes nothing).
    mass : float
        Mass [kg].

    Returns
    -------
    com : ndarray, shape (3,)
        Centre of mass [m], on the axis.
    inertia : ndarray, shape (3, 3)
        Inertia matrix about the centre of mass [kg m^2], ``diag(I_xx, I_xx, I_zz)``.
    volume : float
        Volume [m^3].

    Raises
    ------
    ParameterError
        If `mass` is not positive, or the boundary is not counterclockwise (volume <= 0).

    Notes
    -----
    With the cross-section A, by Pappus and ``x = R cos(theta)``, ``y = R sin(theta)``::

        V = 2 pi int_A R dA              z_c = 2 pi int_A R Z dA / V
        I_zz = rho 2 pi int_A R^3 dA     I_xx(origin) = rho pi int_A R (R^2 + 2 Z^2) dA

    and ``I_xx = I_xx(origin) - m z_c^2``. Each ``int_A R^a Z^b dA`` is
    ``oint R^(a+1) Z^b / (a+1) dZ`` by Green's theorem, integrated by 40-point Gauss-Legendre
    on each arc and segment (exact to round-off: the integrands are polynomials on the
    segments and trigonometric polynomials of low degree on the arcs).
    """
    mass = _positive(mass, "mass")
    R, Z, dZ = _boundary_quadrature(tuple(arcs))
    a1 = np.sum(R ** 2 / 2.0 * dZ)                 # int R dA
    a_rz = np.sum(R ** 2 * Z / 2.0 * dZ)           # int R Z dA
    a_r3 = np.sum(R ** 4 / 4.0 * dZ)               # int R^3 dA
    a_rz2 = np.sum(R ** 2 * Z ** 2 / 2.0 * dZ)     # int R Z^2 dA
    volume = 2.0 * math.pi * a1
    if not volume > 0.0:
        raise ParameterError(f"`arcs` must bound the cross-section counterclockwise in (R, Z): the "
                             f"swept volume comes out {volume:.6g} m^3")
    rho = mass / volume
    zc = a_rz / a1
    izz = rho * 2.0 * math.pi * a_r3
    ixx = rho * math.pi * (a_r3 + 2.0 * a_rz2) - mass * zc * zc
    return np.array((0.0, 0.0, zc)), np.diag((ixx, ixx, izz)), volume


def bowl_mass_properties(mass=0.95, diameter=0.13, height=0.11, wall=0.01, *, bottom_radius=0.12,
                         fillet_radius=0.03, foot_radius=0.025):
    """Centre of mass and inertia of the uniform solid bowl (the whole bowl, inside bottom
    included), in the bowl frame.

    The solid between the outside and inside profiles (`bowl_profile`) closed by the lip,
    revolved; exact integration over the cross-section (`revolved_mass_properties`), not from
    the contact surface's B-spline. With the defaults: volume 374.2 cm^3, so a density of
    2.54 g/cm^3 (stoneware or porcelain; the 1 cm wall is what a 0.95 kg bowl of this size
    needs: 6 mm would mean 4.0 g/cm^3), centre of mass 5.69 cm above the lowest point,
    ``I_xx = I_yy = 2.192e-3`` and ``I_zz = 2.535e-3 kg m^2`` about it. The centre of curvature
    of the outside bottom is `bottom_radius` = 12 cm up the axis, 6.3 cm above the centre of
    mass: the bowl stands
    stably upright (the potential ``m g (z_c + (bottom_radius - z_c)(1 - cos(tilt)))`` has its
    minimum upright).

    Parameters
    ----------
    mass : float
        Mass [kg].
    diameter, height, wall, bottom_radius, fillet_radius, foot_radius
        The profile (`bowl_profile`) [m].

    Returns
    -------
    com : ndarray, shape (3,)
        Centre of mass [m] in the bowl frame (on the axis).
    inertia : ndarray, shape (3, 3)
        Inertia matrix about the centre of mass in the bowl frame [kg m^2].

    Raises
    ------
    ParameterError
        Bad profile parameters or a mass that is not positive.
    """
    profile = bowl_profile(diameter, height, wall, bottom_radius=bottom_radius,
                           fillet_radius=fillet_radius, foot_radius=foot_radius)
    com, inertia, _ = revolved_mass_properties(profile.arcs, mass)
    return com, inertia
