"""The shapes of the bowl-on-a-table scene (Kry & Pai 2003): the table top, the bowl's contact
surface and its mass properties, each against something independent of how it was built.

* Table: the surface's own derivatives and curvatures (not the 1-D profile the module solves
  on), the exact zero of the flat top, the sign of its normal.
* Bowl: distances to the exact map and to the exact surface of revolution (a point-to-arc
  distance written here), dimensions, normals against the profile's tangent taken by finite
  differences, regularity on a dense grid including the boundary.
* Mass properties: a seeded Monte Carlo integration of the solid, whose inside test is the
  distance to the wall's mid-curve (the lip is the end cap of that tube), not the boundary
  integrals of the module; a thick hemispherical shell in closed form.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.errors import ParameterError
from porthamiltonian.models.bowl_shapes import (TABLE_SIDE_SLOPE, Arc, bowl_map, bowl_mass_properties,
                                                bowl_profile, bowl_surface, revolved_mass_properties,
                                                table_surface)

ROUND = 16 * np.finfo(float).eps  # round-off of the quadrature's sums, relative


# ------------------------------------------------------------------------------------ table

@pytest.fixture(scope="module")
def table():
    return table_surface()


def test_the_table_top_is_exactly_flat_with_normal_up(table):
    """Where only flat control points have support ([-0.2, 0.2]^2) the top is z == 0.0 to the
    last bit, x = u and y = v to round-off, and the normal is exactly (0, 0, 1)."""
    rng = np.random.default_rng(3)
    for u, v in rng.uniform(-0.1999, 0.1999, size=(40, 2)):
        p = table.point(u, v)
        assert p[2] == 0.0
        assert p[:2] == pytest.approx((u, v), abs=1e-15)
        # bit-exact on every CPU: the table's normal is a constant
        assert np.array_equal(table.normal(u, v), (0.0, 0.0, 1.0))
    assert table.point(0.0, 0.0) == pytest.approx((0.0, 0.0, 0.0), abs=1e-16)


def _inclination(table, u):
    """Angle [rad] of the normal from the vertical on the edge x > 0 (v = 0)."""
    n = table.normal(u, 0.0)
    return math.atan2(n[0], n[2])


def test_the_edge_is_rounded_with_about_the_asked_radius(table):
    """Along the edge's mid-section (v = 0) the surface's largest principal curvature has its
    peak at 1 / edge_radius (1e-4), and where the normal has turned through half the side slope
    (39 degrees) the radius is within a factor 1.25 of edge_radius; a tighter edge follows."""
    for radius in (0.015, 0.01):
        S = table if radius == 0.015 else table_surface(edge_radius=radius)
        end = float(S.knots[0][-1])
        us = np.linspace(0.2, end, 600)[1:-1]
        k = np.array([S.principal_curvatures(u, 0.0).k1 for u in us])
        # measured 1.4e-6 and 5.6e-6: the fit and the 600-point sampling of the peak
        assert 1.0 / k.max() == pytest.approx(radius, rel=1e-4)
        lo, hi = 0.2, end
        for _ in range(60):                                   # bisection on the inclination
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _inclination(S, mid) < 0.5 * TABLE_SIDE_SLOPE else (lo, mid)
        r_mid = 1.0 / S.principal_curvatures(lo, 0.0).k1
        assert radius / 1.25 < r_mid < 1.25 * radius, r_mid
        assert 0.2 < lo < 0.2 + 2 * radius                     # the rounding starts at the border


def test_the_sides_end_at_the_depth_sloping_outward(table):
    """The rim of the surface is side_depth below the top (twice that at the corners), and the
    side's normal there is inclined by the side slope, pointing outward."""
    end = float(table.knots[0][-1])
    p = table.point(end, 0.0)
    assert p[2] == pytest.approx(-0.03, abs=1e-15)
    assert table.point(end, end)[2] == pytest.approx(-0.06, abs=1e-15)
    n = table.normal(end, 0.0)
    assert n == pytest.approx((math.sin(TABLE_SIDE_SLOPE), 0.0, math.cos(TABLE_SIDE_SLOPE)), abs=1e-12)


def test_the_table_is_regular_everywhere_with_its_normal_out_of_the_material(table):
    """On a 41 x 41 grid including the boundary and the four corners: regular (relative
    regularity > 0.05), normal up on the top, pointing away from the table's centre on the sides
    and corners (horizontal component along the position's), never down."""
    lo, hi = float(table.knots[0][0]), float(table.knots[0][-1])
    grid = np.linspace(lo, hi, 41)
    for u in grid:
        for v in grid:
            assert table.regularity(u, v) > 0.05
            n, p = table.normal(u, v), table.point(u, v)
            assert n[2] > 0.0
            if max(abs(p[0]), abs(p[1])) > 0.2 + 1e-9:      # off the flat top
                assert n[:2] @ p[:2] > 0.0
    for u, v in ((lo, lo), (lo, hi), (hi, lo), (hi, hi)):  # the corners, both directions steep
        n = table.normal(u, v)
        assert np.sign(n[:2]).tolist() == [np.sign(u), np.sign(v)]
        assert table.regularity(u, v) > 0.05


def test_table_arguments_are_checked():
    with pytest.raises(ParameterError, match=r"`spans_top` must be an integer >= 1, got 0"):
        table_surface(spans_top=0)
    with pytest.raises(ParameterError, match=r"`edge_radius` = 0.04 must be < side_depth = 0.03"):
        table_surface(edge_radius=0.04)
    with pytest.raises(ParameterError, match=r"`size` must be > 0"):
        table_surface(size=-1.0)


# ------------------------------------------------------------------------------------- bowl

def _distance_to_arcs(arcs, q):
    """Distance [m] from points q (..., 2) in (R, Z) to a chain of arcs."""
    best = np.full(q.shape[:-1], np.inf)
    for a in arcs:
        dr, dz = q[..., 0] - a.cr, q[..., 1] - a.cz
        lo, hi = min(a.phi0, a.phi1), max(a.phi0, a.phi1)
        phi = np.arctan2(dr, -dz)                            # the point is c + rho (sin, -cos)
        phi = np.where(phi < lo - 1e-12, phi + 2 * np.pi, phi)
        on = (phi >= lo) & (phi <= hi)
        ends = [np.hypot(q[..., 0] - e[0], q[..., 1] - e[1]) for e in (a.at(a.phi0), a.at(a.phi1))]
        best = np.minimum(best, np.where(on, np.abs(np.hypot(dr, dz) - a.rho), np.minimum(*ends)))
    return best


@pytest.fixture(scope="module")
def bowl():
    S = bowl_surface()
    L = float(S.knots[0][-1])
    grid = np.linspace(-L, L, 121)                           # includes the boundary
    points = np.array([[S.point(u, v) for v in grid] for u in grid])
    return S, grid, points


def test_the_profile_is_tangent_continuous_and_the_inside_is_the_offset():
    """Consecutive arcs meet with equal tangents; the outside bottom is at the origin and the
    lip's top at the height; every inside point is `wall` from the outside."""
    P = bowl_profile()
    for a, b in zip(P.arcs, P.arcs[1:]):
        assert np.allclose(a.at(a.phi1), b.at(b.phi0), atol=1e-15)
        ta = np.sign(a.phi1 - a.phi0) * np.array((math.cos(a.phi1), math.sin(a.phi1)))
        tb = np.sign(b.phi1 - b.phi0) * np.array((math.cos(b.phi0), math.sin(b.phi0)))
        assert ta == pytest.approx(tb, abs=1e-12)
    s = np.linspace(0.0, P.length, 2001)
    R, Z = P.at(s)
    assert (R[0], Z[0]) == (0.0, 0.0) and P.arcs[3].at(math.pi)[1] == pytest.approx(0.11, abs=1e-15)
    assert R.max() == pytest.approx(0.065, abs=1e-12) and (R[-1], Z[-1]) == pytest.approx((0.0, 0.01), abs=1e-15)
    inside = np.stack(P.arcs[4].at(np.linspace(P.arcs[4].phi0, P.arcs[4].phi1, 50)), -1)
    assert _distance_to_arcs(P.arcs[:3], inside) == pytest.approx(0.01, abs=1e-12)


def test_the_bowl_has_the_asked_dimensions(bowl):
    """Widest radius diameter / 2 and top height within 1 mm; the lowest point is the origin
    (pinned exactly), the bottom's radius of curvature is bottom_radius there."""
    S, grid, points = bowl
    assert np.hypot(points[..., 0], points[..., 1]).max() == pytest.approx(0.065, abs=1e-3)
    assert points[..., 2].max() == pytest.approx(0.11, abs=1e-3)
    assert points[..., 2].min() >= -1e-15
    assert np.abs(S.point(0.0, 0.0)).max() < 1e-15
    pc = S.principal_curvatures(0.0, 0.0)
    assert (1 / pc.k1, 1 / pc.k2) == pytest.approx((0.12, 0.12), rel=1e-9)


def test_the_bowl_is_close_to_the_exact_map_and_surface(bowl):
    """Default n = 13 (10 x 10 spans): within 2.2 mm of the exact map at the same parameters
    and of the exact surface of revolution (distance to the profile's arcs); the bottom arc
    (first 2.5 cm of the profile) within 1.1 mm."""
    S, grid, points = bowl
    P = bowl_profile()
    exact = bowl_map(P)
    assert exact.half_width == pytest.approx(float(S.knots[0][-1]), abs=0)
    deviation = np.linalg.norm(points - exact(grid[:, None], grid[None, :]), axis=-1)
    assert deviation.max() < 2.2e-3
    q = np.stack((np.hypot(points[..., 0], points[..., 1]), points[..., 2]), -1)
    distance = _distance_to_arcs(P.arcs, q)
    assert distance.max() < 2.2e-3
    s = exact.sigma(np.hypot(grid[:, None], grid[None, :]))
    assert distance[s < P.breaks[1]].max() < 1.1e-3


def test_more_control_points_reach_half_a_millimetre():
    """n = 25 (22 x 22 spans): within 0.5 mm of the exact map, on a grid off the sample's."""
    S = bowl_surface(n=25)
    exact = bowl_map(bowl_profile())
    L = exact.half_width
    grid = np.linspace(-L, L, 97)
    points = np.array([[S.point(u, v) for v in grid] for u in grid])
    assert np.linalg.norm(points - exact(grid[:, None], grid[None, :]), axis=-1).max() < 0.5e-3


def test_the_bowl_is_regular_with_its_normal_out_of_the_material(bowl):
    """On the 121 x 121 grid including the boundary: relative regularity > 0.05, and the
    normal on the side of the exact outward normal of the profile (its tangent, from finite
    differences, turned by -90 degrees: down at the bottom, out on the outside wall, up on the
    lip, toward the axis inside): within 15 degrees of it on the outside below the lip
    (measured: 6 on the bottom arc, 10 on the fillet, 14 on the wall), within 35 on the lip
    (which turns the normal through 180 degrees in 1.6 cm) and the inside band (measured 34
    and 20); exactly (0, 0, -1) at the bottom centre."""
    S, grid, points = bowl
    P = bowl_profile()
    exact = bowl_map(P)
    for i in range(0, 121, 2):
        for j in range(0, 121, 2):
            u, v = grid[i], grid[j]
            assert S.regularity(u, v) > 0.05
            s = float(exact.sigma(math.hypot(u, v)))
            (r0, r1), (z0, z1) = exact.profile.at(np.array((s - 1e-7, s + 1e-7)))
            t = np.array((r1 - r0, z1 - z0))
            n_rz = np.array((t[1], -t[0])) / np.hypot(*t)
            azimuth = np.array((v, u, 0.0)) / max(math.hypot(u, v), 1e-300)
            n_exact = n_rz[0] * azimuth + np.array((0.0, 0.0, n_rz[1]))
            bound = 15.0 if s < P.breaks[3] else 35.0
            assert S.normal(u, v) @ n_exact > math.cos(math.radians(bound))
    assert S.normal(0.0, 0.0) == pytest.approx((0.0, 0.0, -1.0), abs=1e-12)


def test_bowl_arguments_are_checked():
    with pytest.raises(ParameterError, match=r"`wall` = 0.04 must be < diameter / 4 = 0.0325"):
        bowl_surface(wall=0.04)
    with pytest.raises(ParameterError, match=r"`n` must be an integer >= 4, got 3"):
        bowl_surface(n=3)
    with pytest.raises(ParameterError, match=r"no wall arc wider than `wall` ends vertical at the rim"):
        bowl_profile(height=0.05)


# -------------------------------------------------------------------------- mass properties

def _monte_carlo(n_samples, seed):
    """Points uniform in the bowl's bounding box; inside the solid when within wall / 2 of the
    wall's mid-curve (the outside arcs offset by wall / 2 inward, ending at the middle of the
    rim: the lip is the tube's end cap)."""
    P = bowl_profile()
    w = P.wall
    mid = [Arc(a.cr, a.cz, a.rho - w / 2, a.phi0, a.phi1) for a in P.arcs[:3]]
    rng = np.random.default_rng(seed)
    box = np.array((0.065, 0.065, 0.11))
    x = rng.uniform((-1, -1, 0), (1, 1, 1), size=(n_samples, 3)) * box
    q = np.stack((np.hypot(x[:, 0], x[:, 1]), x[:, 2]), -1)
    inside = _distance_to_arcs(mid, q) <= w / 2
    return x[inside], inside.mean(), 4 * box[0] * box[1] * box[2]


def test_the_mass_properties_match_a_monte_carlo_integration():
    """2e6 seeded samples (~3.9e5 inside): volume, centre of mass and inertia diagonal agree
    within 4.5 standard errors of the estimates (about 0.3 %, 0.2 %, 0.4 %)."""
    mass = 0.95
    com, inertia = bowl_mass_properties(mass)
    _, _, volume = revolved_mass_properties(bowl_profile().arcs, mass)
    pts, frac, box_volume = _monte_carlo(2_000_000, seed=11)
    n_in, n_all = len(pts), 2_000_000
    se_frac = math.sqrt(frac * (1 - frac) / n_all)
    assert abs(frac * box_volume - volume) < 4.5 * se_frac * box_volume
    z = pts[:, 2]
    assert abs(z.mean() - com[2]) < 4.5 * z.std() / math.sqrt(n_in)
    assert np.abs(pts[:, :2].mean(axis=0)).max() < 4.5 * pts[:, 0].std() / math.sqrt(n_in)
    zc = com[2]
    samples = {0: pts[:, 1] ** 2 + (z - zc) ** 2, 1: pts[:, 0] ** 2 + (z - zc) ** 2,
               2: pts[:, 0] ** 2 + pts[:, 1] ** 2}
    for axis, f in samples.items():
        assert abs(mass * f.mean() - inertia[axis, axis]) < 4.5 * mass * f.std() / math.sqrt(n_in)
        assert abs(mass * f.mean() / inertia[axis, axis] - 1) < 0.01


def test_the_inertia_is_axisymmetric_and_the_bowl_stands():
    """Off-diagonals zero, I_xx == I_yy; the density is the 2.54 g/cm^3 the docstrings state (the
    volume itself is checked by Monte Carlo above); the centre of mass lies
    more than 5 cm below the outside bottom's centre of curvature (12 cm up the axis)."""
    com, inertia = bowl_mass_properties()
    # axisymmetric by quadrature: diagonal, with I_xx = I_yy, to round-off (ROUND = 16 eps)
    assert_allclose(inertia - np.diag(np.diag(inertia)), 0.0, rtol=0, atol=ROUND * np.trace(inertia))
    assert_allclose(inertia[0, 0], inertia[1, 1], rtol=ROUND, atol=0)
    assert com[:2].tolist() == [0.0, 0.0]
    _, _, volume = revolved_mass_properties(bowl_profile().arcs, 0.95)
    assert 0.95 / volume / 1000.0 == pytest.approx(2.54, abs=0.005)   # g/cm^3, as the docstrings say
    assert 0.12 - com[2] > 0.05


def test_a_thick_hemispherical_shell_in_closed_form():
    """The solid between spheres of radii a < b about (0, 0, b), below their centre:
    V = 2 pi (b^3 - a^3) / 3, centre 3 (b^4 - a^4) / (8 (b^3 - a^3)) below the spheres' centre,
    I_zz = 2 m (b^5 - a^5) / (5 (b^3 - a^3)) = I_xx about the centre; and the thin limit
    (a -> b): I about the sphere's centre 2/3 m R^2, centre of mass R / 2 below it."""
    b, a, m = 0.1, 0.07, 2.0
    arcs = [Arc(0.0, b, b, 0.0, math.pi / 2), Arc(0.0, b, a, math.pi / 2, 0.0)]
    com, inertia, volume = revolved_mass_properties(arcs, m)
    d = 3 * (b ** 4 - a ** 4) / (8 * (b ** 3 - a ** 3))
    izz = 2 * m * (b ** 5 - a ** 5) / (5 * (b ** 3 - a ** 3))
    assert volume == pytest.approx(2 * math.pi * (b ** 3 - a ** 3) / 3, rel=1e-13)
    assert com[2] == pytest.approx(b - d, rel=1e-13)
    assert np.diag(inertia) == pytest.approx((izz - m * d * d, izz - m * d * d, izz), rel=1e-12)
    thin = [Arc(0.0, b, b, 0.0, math.pi / 2), Arc(0.0, b, 0.9999 * b, math.pi / 2, 0.0)]
    com, inertia, _ = revolved_mass_properties(thin, m)
    assert b - com[2] == pytest.approx(b / 2, rel=1e-3)
    assert inertia[2, 2] == pytest.approx(2 / 3 * m * b * b, rel=1e-3)
    assert inertia[0, 0] + m * (b - com[2]) ** 2 == pytest.approx(2 / 3 * m * b * b, rel=1e-3)


def test_a_clockwise_boundary_is_refused():
    """The hemispherical shell traversed the other way round (up the inside, down the outside)."""
    arcs = [Arc(0.0, 0.1, 0.07, 0.0, math.pi / 2), Arc(0.0, 0.1, 0.1, math.pi / 2, 0.0)]
    with pytest.raises(ParameterError, match=r"`arcs` must bound the cross-section counterclockwise"):
        revolved_mass_properties(arcs, 1.0)
