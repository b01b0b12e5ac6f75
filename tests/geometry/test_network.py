"""Patch networks: Bezier extraction against the B-spline it came from, the transition map
across shared sides, closest points across patches, and the construction's typed errors."""

import math

import numpy as np
import pytest

from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import BSplineSurface, PatchNetwork, Sphere, closest_points, surface_from_spec, surface_to_spec
from porthamiltonian.geometry.closest import refine
from porthamiltonian.kernels import surfaces as K

KNOTS_U = [0, 0, 0, 0, 0.25, 0.5, 0.75, 1, 1, 1, 1]
KNOTS_V = [0, 0, 0, 0, 0.3, 0.6, 1, 1, 1, 1]


def _bumpy():
    """A bicubic B-spline sheet, 4 x 3 spans, uneven knots in v."""
    P = np.zeros((7, 6, 3))
    for i in range(7):
        for j in range(6):
            P[i, j] = (0.1 * i, 0.1 * j, 0.02 * math.sin(i) * math.cos(j))
    return BSplineSurface(KNOTS_U, KNOTS_V, 3, 3, P)


def _patch_of(u, v):
    """(chart, local u, local v) of the B-spline's parameters in `from_bspline`'s network."""
    eu, ev = np.unique(KNOTS_U), np.unique(KNOTS_V)
    i = min(int(np.searchsorted(eu, u, side="right")) - 1, len(eu) - 2)
    j = min(int(np.searchsorted(ev, v, side="right")) - 1, len(ev) - 2)
    return i * (len(ev) - 1) + j, (u - eu[i]) / (eu[i + 1] - eu[i]), (v - ev[j]) / (ev[j + 1] - ev[j]), \
        (eu[i + 1] - eu[i], ev[j + 1] - ev[j])


def _flat(x0, y0, size=1.0):
    g = np.linspace(0.0, size, 4)
    X, Y = np.meshgrid(x0 + g, y0 + g, indexing="ij")
    return np.stack((X, Y, np.zeros_like(X)), -1)


def test_bezier_extraction_is_the_same_surface():
    """Every span is one patch with the B-spline's points and derivatives (chain rule for the
    span's length) to round-off, at random points."""
    B = _bumpy()
    net = PatchNetwork.from_bspline(B)
    assert net.n_charts == 12
    rng = np.random.default_rng(3)
    for u, v in rng.uniform(0.0, 1.0, (40, 2)):
        c, a, b, (hu, hv) = _patch_of(u, v)
        D_net, D_bs = net.derivatives(a, b, 3, c), B.derivatives(u, v, 3)
        for i in range(4):
            for j in range(4 - i):
                assert np.allclose(D_net[i, j] / (hu**i * hv**j), D_bs[i, j], rtol=0, atol=1e-12 * 10**(i + j))


def test_neighbours_are_found_from_the_control_nets():
    """Interior sides of the split sheet are shared (u=1 of one span with u=0 of the next),
    the outer ones are the boundary; the edges a contact leaves by are the boundary sides."""
    net = PatchNetwork.from_bspline(_bumpy())
    assert net.neighbour(0, "u=1") == (3, "u=0", False)
    assert net.neighbour(0, "v=1") == (1, "v=0", False)
    assert net.neighbour(0, "u=0") is None and net.neighbour(11, "v=1") is None
    assert net.edges(0).tolist() == [0.0, 0.0, math.inf, math.inf]
    assert net.edges(4).tolist() == [-math.inf, -math.inf, math.inf, math.inf]
    assert "14 boundary sides" in repr(net)


def test_reversed_and_rotated_neighbours_map_points_across():
    """A neighbour whose side runs the other way and whose parameters are swapped: a point on
    the shared side is the same point in both patches, and a point past the side, carried
    across, lands inside the neighbour at the same place (flat patches: exact)."""
    A = _flat(0.0, 0.0)
    B = _flat(1.0, 0.0)[::-1].transpose(1, 0, 2)    # rotated a quarter turn in its parameters
    net = PatchNetwork([A, B])
    nb = net.neighbour(0, "u=1")
    assert nb[0] == 1 and nb[1] in ("v=1", "v=0")
    F, I = net._kernel_spec
    for t in (0.0, 0.3, 1.0):
        c, u, v = K.network_hop(I, 1.0 + 0.2, t, 0)
        assert c == 1
        assert np.allclose(net.point(u, v, 1), (1.2, t, 0.0), atol=1e-14)
    assert K.network_hop(I, 0.5, 0.5, 0) == (0, 0.5, 0.5)
    assert K.network_hop(I, -0.1, 0.5, 0) == (0, -0.1, 0.5)      # past a boundary side: stays


def test_a_point_through_a_corner_visits_the_patches_around_it():
    """Four patches around a vertex: a point past the corner of patch 0 ends in the diagonal
    patch, at the same place."""
    net = PatchNetwork([_flat(0, 0), _flat(1, 0), _flat(0, 1), _flat(1, 1)])
    F, I = net._kernel_spec
    c, u, v = K.network_hop(I, 1.3, 1.1, 0)
    assert c == 3 and np.allclose(net.point(u, v, c), (1.3, 1.1, 0.0))


def test_closest_points_cross_patches():
    """A ball over the split sheet: the global search, and a warm start in a far patch (the
    compiled iteration hops across shared sides), give the B-spline's own closest point."""
    B = _bumpy()
    net = PatchNetwork.from_bspline(B)
    H = np.eye(4)
    H[:3, 3] = (0.43, 0.31, 0.2)
    ref = closest_points(B, Sphere(0.05), H)
    got = closest_points(net, Sphere(0.05), H)
    warm, _, _ = refine(net, Sphere(0.05), H[:3, :3], H[:3, 3], np.array([0.5, 0.5, 0.0, -1.5]), (0, 0))
    c, a, b, _ = _patch_of(ref.x[0], ref.x[1])
    for cp in (got, warm):
        assert cp.charts[0] == c
        assert np.allclose(cp.x[:2], (a, b), atol=1e-9)
        assert cp.distance == pytest.approx(ref.distance, abs=1e-12)


def test_saved_and_loaded_it_is_the_same_network():
    net = PatchNetwork.from_bspline(_bumpy())
    back = surface_from_spec(surface_to_spec(net))
    assert isinstance(back, PatchNetwork) and back.n_charts == net.n_charts
    # bit-identical on purpose: a save/load round trip reproduces the surface
    assert np.array_equal(back.derivatives(0.3, 0.7, 2, 5), net.derivatives(0.3, 0.7, 2, 5))


def test_bad_networks_are_named():
    """A gap, a degenerate normal, a crease, a flipped patch, an open side of a closed
    network, a side shared three times: each a typed error naming the patch and the rule."""
    A, B = _flat(0.0, 0.0), _flat(1.0, 0.0)
    with pytest.raises(ParameterError, match=r"gap: side u=1 of patch 0 and side u=0 of patch 1 are 0.001 m apart"):
        PatchNetwork([A, B + (1e-3, 0.0, 0.0)])
    collapsed = A.copy()
    collapsed[0, :] = collapsed[0, 0]          # side u=0 collapsed to a point: f_v = 0 there
    with pytest.raises(GeometryError, match=r"patch 0 of the network is not regular at \(u, v\) = \(0, 0\).*degenerate"):
        PatchNetwork([collapsed, B])
    bent = B.copy()
    bent[1:, :, 2] = 0.1 * np.arange(1, 4)[:, None]   # leaves the side at a slope: a crease
    with pytest.raises(GeometryError, match=r"patches 0 \(side u=1\) and 1 \(side u=0\) meet at a crease"):
        PatchNetwork([A, bent])
    flipped = B[:, ::-1]                         # same side points, opposite normal
    with pytest.raises(GeometryError, match="opposite orientations"):
        PatchNetwork([A, flipped])
    with pytest.raises(ParameterError, match=r"`closed` was declared but side u=0 of patch 0"):
        PatchNetwork([A, B], closed=True)
    with pytest.raises(ParameterError, match="shared by more than two patches"):
        PatchNetwork([A, B, B[:, :, :] + 0.0])
    with pytest.raises(ParameterError, match="`patches` must be a non-empty sequence"):
        PatchNetwork([])
    with pytest.raises(ParameterError, match="polynomial"):
        BS = _bumpy()
        PatchNetwork.from_bspline(BSplineSurface(KNOTS_U, KNOTS_V, 3, 3, BS.control_points, np.ones((7, 6))))
