"""Compiled laws of linear C / I / R (porthamiltonian.kernels.linear) against the elements'
Python methods (numpy's matrix products)."""

import numpy as np
from numpy.testing import assert_allclose

from porthamiltonian.bondgraph.elements import C, I, R


def _spd(n, seed):
    a = np.random.default_rng(seed).normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def test_storage_kernels_equal_the_python_methods():
    for el in (C("c", stiffness=_spd(3, 1)), I("i", mass=_spd(2, 2)), C("s", stiffness=150.0)):
        x = np.random.default_rng(3).normal(size=el.dim)
        f = np.random.default_rng(4).normal(size=el.dim)
        out, rates = el.kernel("outputs"), el.kernel("rates")
        # the same products in another summation order: round-off of |Q| |x|
        want = el.outputs(0.0, x, ())[0]
        assert_allclose(out.function(0.0, x, (), out.F, out.I)[0], want, rtol=0,
                        atol=1e-14 * np.abs(el.Q).sum() * np.abs(x).max())
        assert_allclose(rates.function(0.0, x, (), (f,), rates.F, rates.I), el.rates(0.0, x, (), (f,)),
                        rtol=0, atol=0)   # a copy of the input
    assert C("h", energy=lambda q: q[0] ** 4, dim=1).kernel("outputs") is None


def test_resistor_kernels_equal_the_python_methods():
    el = R("r", _spd(3, 5))
    v = np.random.default_rng(6).normal(size=3)
    law, jac = el.kernel("law"), el.kernel("law_jacobian")
    assert_allclose(law.function(0.0, (v,), (), law.F, law.I)[0], el.law(0, 0.0, (v,), ())[0], rtol=0,
                    atol=1e-14 * np.abs(el.resistance).sum() * np.abs(v).max())
    assert_allclose(jac.function(0.0, (v,), (), jac.F, jac.I), el.resistance, rtol=0, atol=0)   # copied entries
    assert R("n", law=lambda f: f ** 3, dim=1).kernel("law") is None
