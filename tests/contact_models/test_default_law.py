"""The compliant contact's default normal law does not distort the geometry (issue 36).

With no law given, a compliant contact is Hertz's law of the default pair of solids (rigid
polymer, E* = 1.71 GPa; `compliant_contact.default_normal_law`), stiffened where the bodies'
weight would sink it deeper than 0.1 % of the contact's size. Checked against Hertz's closed
form for a sphere on a flat, delta = (9 F^2 / (16 R E*^2))^(1/3), through the compiled
right-hand side: at that depth the contact carries the ball's weight.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.contact.hertz import effective_modulus
from porthamiltonian.library import compliant_contact as cc

from .conftest import ball, body_on_plane, world_force
from .reference import G

#: E* of two solids of E = 3 GPa, nu = 0.35 (the stated default pair), by its own formula
E_POLYMER = 3.0e9 / (2.0 * (1.0 - 0.35**2))


def hertz_rest_depth(weight, radius, modulus):
    return (9.0 * weight**2 / (16.0 * radius * modulus**2)) ** (1.0 / 3.0)


def test_the_default_solids_are_the_stated_polymer():
    assert_allclose(cc.DEFAULT_MODULUS, E_POLYMER, rtol=1e-15)
    assert_allclose(effective_modulus(3e9, 0.35, 3e9, 0.35), 1.709e9, rtol=1e-3)


@pytest.mark.parametrize("m, r", [(1.0, 0.05), (0.2, 0.01), (50.0, 0.01)], ids=["1kg-5cm", "light-1cm", "heavy-1cm"])
def test_a_default_contact_rests_at_hertz_depth_and_does_not_visibly_sink(m, r):
    """The ball held at the closed-form depth of the (possibly stiffened) default feels no net
    force: the contact carries m g within round-off of the depth (1e-12 m g: delta to ~16
    digits, the force ~ delta^1.5). The depth is at most 0.1 % of the radius; the 1 kg, 5 cm
    ball and the light one keep the polymer (7.2 um, 0.014 %), the 50 kg ball on 1 cm is
    stiffened to exactly 0.1 %."""
    weight = m * G
    E = max(E_POLYMER, 3.0 * weight / (4.0 * np.sqrt(r) * (1e-3 * r) ** 1.5))
    depth = hertz_rest_depth(weight, r, E)
    assert depth <= 1e-3 * r * (1 + 1e-12)
    if m == 1.0:
        assert_allclose(depth, 7.18e-6, rtol=1e-3)          # the measured 7.2 um of the brief
        assert E == E_POLYMER
    if m == 50.0:
        assert_allclose(depth, 1e-3 * r, rtol=1e-12)
    system, x0 = body_on_plane(*ball(m, r, r - depth), gravity=True)
    law = system.elements["c/spring"].p.law
    assert law.kind == "hunt_crossley" and law.exponent == 1.5
    F = world_force(system, 0.0, x0)
    assert_allclose(F, 0.0, atol=1e-9 * weight)
    # and 1 % shallower the contact no longer holds the weight (the check can fail)
    system, x1 = body_on_plane(*ball(m, r, r - 0.99 * depth), gravity=True)
    assert world_force(system, 0.0, x1)[2] < -0.01 * weight


def test_a_named_law_without_stiffness_sinks_as_deep_as_the_default():
    """normal="linear" with no stiffness: k = m g / delta_0, the same rest depth, and the
    damping ratio of restitution 0.5 (exact for the linear law)."""
    m, r = 1.0, 0.05
    depth = hertz_rest_depth(m * G, r, E_POLYMER)
    system, x0 = body_on_plane(*ball(m, r, r - depth), gravity=True, normal="linear")
    law = system.elements["c/spring"].p.law
    assert_allclose(law.stiffness, m * G / depth, rtol=1e-12)
    zeta = law.damping / (2.0 * np.sqrt(law.stiffness * m))
    assert_allclose(np.exp(-zeta * np.pi / np.sqrt(1 - zeta**2)), 0.5, rtol=1e-12)
    assert_allclose(world_force(system, 0.0, x0), 0.0, atol=1e-9 * m * G)


def test_the_tangential_default_is_decoupled_from_a_stiff_law():
    """A Hertz default would give k_t = its tangent stiffness at rest, 1.5 m g / delta_0 =
    2e6 N/m for 1 kg on 5 cm (Dahl relaxation ~4e5 1/s at 1 m/s, mu = 0.5): the default is
    1e4 N/m per kg instead; a linear law keeps its own stiffness; frictionless is 0."""
    m, r = 2.0, 0.05
    p = body_on_plane(*ball(m, r, 0.2))[0].elements["c/spring"].p
    assert p.k_t == m * 1e4
    p = body_on_plane(*ball(m, r, 0.2), normal="linear", stiffness=3e5)[0].elements["c/spring"].p
    assert p.k_t == 3e5
    p = body_on_plane(*ball(m, r, 0.2), friction=0.0)[0].elements["c/spring"].p
    assert p.k_t == 0.0
