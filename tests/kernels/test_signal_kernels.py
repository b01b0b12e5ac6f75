"""The periodic cubic spline kernel (porthamiltonian.kernels.signals) of joint references.

References: scipy's CubicSpline(bc_type="periodic") (the coefficients come from it; the kernel
re-implements the evaluation and the period wrap), central finite differences of the kernel's
own lower derivative, and the source kernels against the Python signal.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.interpolate import CubicSpline

from porthamiltonian.bondgraph.elements import Se, Sf
from porthamiltonian.errors import ParameterError
from porthamiltonian.kernels import signals
from porthamiltonian.library.controllers import PeriodicReference, ReferenceSignal

T = 0.3


@pytest.fixture(scope="module")
def reference():
    rng = np.random.default_rng(7)
    samples = rng.normal(size=(16, 3))
    spline = CubicSpline(np.linspace(0.0, T, 17), np.vstack((samples, samples[:1])), bc_type="periodic", axis=0)
    return PeriodicReference(T, samples), spline


@pytest.mark.parametrize("nu", [0, 1, 2])
def test_kernel_equals_scipy_periodic_spline(reference, nu):
    ref, spline = reference
    t = np.linspace(-0.7, 1.1, 2001)   # several periods, negative times included
    got = ref._eval(t, nu, None)
    want = spline(np.mod(t, T), nu)
    # round-off: the interval start i*T/n (kernel) and scipy's linspace breakpoint differ by a
    # few ulp of T, and the wrap t mod T loses ulp(|t|); times the next derivative's scale,
    # |d^(nu+1)| h ~ the spline's scale / h^nu: 1e-12 relative to the derivative's maximum
    scale = np.max(np.abs(want))
    assert_allclose(got, want, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("nu", [1, 2])
def test_derivatives_are_finite_differences_of_the_lower_order(reference, nu):
    ref, _ = reference
    t = np.linspace(0.0013, 0.29, 37)
    h = 1e-6
    fd = (ref._eval(t + h, nu - 1, None) - ref._eval(t - h, nu - 1, None)) / (2 * h)
    # central difference: truncation |d^(nu+2)| h^2 / 6 plus round-off eps |d^(nu-1)| / h;
    # with |d^(nu-1)| up to 2e2 (nu=2) that round-off is ~2e-8 relative to |d^nu| ~ 2e4
    scale = np.max(np.abs(ref._eval(t, nu, None)))
    assert_allclose(ref._eval(t, nu, None), fd, rtol=0, atol=1e-6 * scale)


def test_shapes_and_methods(reference):
    ref, spline = reference
    assert np.shape(ref.position(0.1)) == (3,)
    assert isinstance(float(ref.velocity(0.1, 2)), float)
    assert ref.acceleration(np.zeros((2, 5))).shape == (2, 5, 3)
    # the value at T is the first sample again (periodic), to round-off of the wrap
    assert_allclose(ref.position(T), ref.samples[0], rtol=0, atol=1e-13 * np.max(np.abs(ref.samples)))


@pytest.mark.parametrize("cls", [Sf, Se])
def test_source_kernels_equal_the_python_signal(reference, cls):
    ref, _ = reference
    src = cls("reference", ref.signal(2, 1), derivative=ref.signal(2, 2))
    value, rate = src.kernel("value"), src.kernel("value_rate")
    for t in (-0.05, 0.0, 0.123, 0.61):
        # the same compiled formula on both sides: equal to round-off of the packing (none)
        assert_allclose(value.function(t, value.F, value.I), ref.velocity(t, 2), rtol=0, atol=1e-12)
        assert_allclose(rate.function(t, rate.F, rate.I), ref.acceleration(t, 2), rtol=0, atol=1e-9)
        assert_allclose(src.value(t, None), [ref.velocity(t, 2)], rtol=0, atol=1e-12)
    # a plain callable has no kernel: the Python path
    assert Sf("f", lambda t: np.sin(t)).kernel("value") is None
    # an external input's value kernel returns its slice of u (kernels.inputs), no rate
    k = Sf("u", input=True).kernel("value")
    assert_allclose(k.function(0.3, np.array([2.5]), k.F, k.I), [2.5], rtol=0, atol=0)
    assert Sf("u", input=True).kernel("value_rate") is None


def test_bad_signal_arguments_are_named(reference):
    ref, _ = reference
    with pytest.raises(ParameterError, match=r"`joint` must be a column of the reference \(0..2\), got 3"):
        ReferenceSignal(ref, 3, 1)
    with pytest.raises(ParameterError, match=r"`order` must be 0, 1 or 2, got 3"):
        ReferenceSignal(ref, 0, 3)


def test_pack_layout():
    c = np.arange(24.0).reshape(4, 3, 2)
    F = signals.pack(2.0, c)
    assert F[0] == 2.0 and F.shape == (25,)
    assert_allclose(F[1:], c.ravel(), rtol=0, atol=0)   # a copy of the coefficients, bit for bit
