"""Atlases: chart maps, best_chart and its hysteresis, domains."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from porthamiltonian.geometry import Ellipsoid, ParameterDomain, Sphere

from .conftest import random_params

ATLASES = [Sphere(0.8, center=(0.1, 0.0, -0.2)), Ellipsoid(1.0, 0.6, 0.4), Ellipsoid(0.2, 0.9, 1.5)]


@pytest.mark.parametrize("surface", ATLASES, ids=repr)
def test_chart_map_keeps_point_and_outward_normal(surface):
    rng = np.random.default_rng(5)
    for src, dst in [(0, 1), (1, 0)]:
        for u, v in random_params(surface, src, rng, 10, margin=0.05):
            u2, v2 = surface.chart_map(u, v, src, dst)
            assert surface.domain(dst).contains(u2, v2)
            assert_allclose(surface.point(u2, v2, dst), surface.point(u, v, src), atol=1e-14)
            if surface.is_regular(u2, v2, dst):
                assert_allclose(surface.normal(u2, v2, dst), surface.normal(u, v, src), atol=1e-12)
            back = surface.chart_map(u2, v2, dst, src)
            assert_allclose(surface.point(*back, src), surface.point(u, v, src), atol=1e-14)


@pytest.mark.parametrize("surface", ATLASES, ids=repr)
def test_outward_normal_in_both_charts(surface):
    for chart in range(2):
        for u, v in random_params(surface, chart, np.random.default_rng(6), 10):
            p = surface.point(u, v, chart) - surface.center
            assert surface.normal(u, v, chart) @ p > 0.0


@pytest.mark.parametrize("surface", ATLASES, ids=repr)
def test_best_chart_leaves_the_singular_region(surface):
    rng = np.random.default_rng(7)
    for _ in range(50):
        u = rng.uniform(-math.pi, math.pi)
        v = rng.choice((-1, 1)) * rng.uniform(math.pi / 3 + 1e-9, math.pi / 2)   # near a pole
        chart, u2, v2 = surface.best_chart(u, v, 0)
        assert chart == 1
        assert surface.domain(1).distance_to_singular(u2, v2) >= surface.chart_switch_margin
        assert surface.is_regular(u2, v2, chart)
        assert_allclose(surface.point(u2, v2, 1), surface.point(u, v, 0), atol=1e-14)
    # exactly at the pole, where chart 0 is singular
    chart, u2, v2 = surface.best_chart(0.7, math.pi / 2, 0)
    assert chart == 1 and abs(v2) < 1e-12     # the pole of chart 0 is on the equator of chart 1
    assert surface.is_regular(u2, v2, 1)
    # far from the poles nothing changes
    assert surface.best_chart(0.3, 0.2, 0) == (0, 0.3, 0.2)


def test_best_chart_has_hysteresis():
    """Dithering around the switching latitude switches once, not on every step."""
    s = Sphere(1.0)
    chart, u, v = 0, 0.4, math.pi / 3 - 0.01
    switches = 0
    for k in range(40):
        lat = math.pi / 3 + (0.01 if k % 2 else -0.01)
        # the same physical point, expressed in the current chart
        u, v = s.chart_map(0.4, lat, 0, chart)
        new, u, v = s.best_chart(u, v, chart)
        switches += new != chart
        chart = new
    assert switches == 1


def test_one_chart_surfaces_map_to_themselves(surfaces):
    t = surfaces["torus"]
    assert t.n_charts == 1
    assert t.best_chart(7.0, 0.5) == (0, 7.0 - 2 * math.pi, 0.5)
    assert t.chart_map(0.1, 0.2, 0, 0) == (0.1, 0.2)


def test_domain_wrap_and_distance():
    d = ParameterDomain((-math.pi, -1.0), (math.pi, 1.0), (True, False), singular_u=(0.0,))
    assert d.wrap(3 * math.pi, 0.5) == (-math.pi, 0.5)
    u, _ = d.wrap(-1e-300 - math.pi, 0.0)
    assert -math.pi <= u < math.pi
    assert_allclose(d.distance_to_singular(2 * math.pi - 0.1, 0.0), 0.1, rtol=1e-12)
    assert d.contains(100.0, 1.0) and not d.contains(0.0, 1.0 + 1e-12)
    assert ParameterDomain((0, 0), (1, 1)).distance_to_singular(0.5, 0.5) == math.inf


@given(st.floats(-1e6, 1e6), st.floats(-0.999, 0.999))
def test_wrap_lands_in_the_domain_on_the_same_point(u, v):
    s = Sphere(1.0)
    dom = s.domain(0)
    uw, vw = dom.wrap(u, v)
    assert -math.pi <= uw < math.pi and vw == v
    # same point on the surface; round-off of the reduction grows with |u| (|u| eps)
    assert_allclose(s.point(uw, vw), Sphere(1.0)._derivatives(u, v, 0, 0)[0, 0],
                    atol=1e-15 * (1.0 + abs(u)) * 8)


def test_signed_distance_to_a_bounding_pole_turns_negative_past_it():
    """Latitude-longitude chart: the poles bound v; past one the signed distance is negative
    (what a step carried over the pole must show), the unsigned one positive again."""
    dom = Ellipsoid(1.0, 2.0, 3.0).domain(0)
    half = math.pi / 2
    for v, expected in ((half - 0.1, 0.1), (half + 0.2, -0.2), (-half - 0.3, -0.3)):
        assert dom.distance_to_singular(0.5, v, signed=True) == pytest.approx(expected, abs=1e-15)
        assert dom.distance_to_singular(0.5, v) == pytest.approx(abs(expected), abs=1e-15)
