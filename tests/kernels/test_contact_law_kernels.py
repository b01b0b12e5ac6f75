"""The compiled compliant-contact laws against closed forms and finite differences.

`normal_force` against the laws' formulas written out; the slip rates' and the capped
damper's Jacobians against central differences of the kernels themselves, on seeded random
inputs across their switches (inside and beyond the friction limit, below and on the cap).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.kernels import contact as kc
from porthamiltonian.lie import se3

from .reference import central


@pytest.mark.parametrize("kind", ["linear", "hertz", "hunt_crossley"])
def test_normal_force_is_the_written_out_law(kind):
    rng = np.random.default_rng(1)
    law = NormalLaw(kind, stiffness=3e4, damping=0.7, exponent=1.8)
    n = {"linear": 1.0, "hertz": 1.5}.get(kind, 1.8)
    for _ in range(50):
        delta, rate = rng.uniform(1e-4, 1e-2), rng.uniform(-2.0, 2.0)
        fe, fd, slope = kc.normal_force(law.packed, delta, rate)
        c = 3e4 * 0.7 * delta**n if kind == "hunt_crossley" else 0.7
        assert_allclose((fe, fd, slope), (3e4 * delta**n, c * rate, c), rtol=1e-14)
    # apart, the damper only pushes; clipped, the total never pulls
    assert kc.normal_force(law.packed, -1e-3, -1.0) == (0.0, 0.0, 0.0)
    clipped = NormalLaw(kind, stiffness=3e4, damping=50.0, exponent=1.8, clip=True)
    fe, fd, slope = kc.normal_force(clipped.packed, 1e-3, -5.0)
    assert fd == -fe and slope == 0.0


def test_slip_rates_are_dissipative_and_their_jacobian_matches_differences():
    rng = np.random.default_rng(2)
    for _ in range(200):
        f = rng.standard_normal(3) * rng.uniform(0.1, 3.0)
        lims = rng.uniform(0.0, 2.0, 2)
        speeds = rng.uniform(0.0, 1.5, 2) * (rng.uniform() > 0.2)
        args = (lims[0], lims[1], 0.05, speeds[0], speeds[1])
        v = kc.slip_rates(f, *args)
        assert f @ v >= 0.0
        assert abs(v[1] * f[2] - v[2] * f[1]) < 1e-12 * (1 + np.abs(v).max())   # along the force
        if min(abs(abs(f[0]) - lims[0]), abs(np.hypot(f[1], f[2]) - lims[1])) < 1e-5:
            continue   # too close to a switch for central differences
        assert_allclose(kc.slip_jacobian(f, *args), central(lambda y: kc.slip_rates(y, *args), f),
                        rtol=1e-6, atol=1e-6)


def test_dahl_slip_holds_the_limit_in_steady_sliding():
    """Deformation rate v - v_slip vanishes exactly at |f| = limit along v, at any speed."""
    for speed in (1e-3, 0.1, 10.0):
        f = np.array((0.0, 0.6, 0.8)) * 2.0
        v = kc.slip_rates(f, 1.0, 2.0, 1e-3, 0.0, speed)
        assert_allclose(v[1:], speed * f[1:] / 2.0, rtol=1e-15)


def test_capped_damper_and_its_jacobian():
    rng = np.random.default_rng(3)
    law = NormalLaw("hunt_crossley", stiffness=1e5, damping=0.4).packed
    for k in range(40):
        G_a, G_b = se3.Ad(se3.exp(rng.standard_normal(6))), se3.Ad(se3.exp(rng.standard_normal(6)))
        T = rng.standard_normal(12)
        caps = (np.inf, np.inf) if k % 3 == 0 else tuple(rng.uniform(0.0, 5.0, 2))
        args = (3.0, 20.0, caps[0], caps[1], law, 2e-3)

        def efforts(T):
            e_a, e_b, _ = kc.damper_efforts(G_a, G_b, T[:6], T[6:], *args)
            return np.concatenate((e_a, e_b))

        e_a, e_b, dW = kc.damper_efforts(G_a, G_b, T[:6], T[6:], *args)
        T_C = G_b @ T[6:] - G_a @ T[:6]
        W = np.linalg.solve(G_b.T, e_b)
        assert np.linalg.norm(W[3:5]) <= caps[1] * (1 + 1e-12) and abs(W[2]) <= caps[0] * (1 + 1e-12)
        assert W[2] * T_C[2] >= 0 and W[3:5] @ T_C[3:5] >= 0          # the stick dampers dissipate
        assert_allclose(e_a, -G_a.T @ W, atol=1e-9)
        assert_allclose(kc.damper_jacobian(G_a, G_b, dW), central(efforts, T), rtol=1e-5, atol=1e-5)
