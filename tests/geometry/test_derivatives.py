"""Finite-difference checks of every derivative: f up to order 3, n up to order 2, and L."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.geometry import gauss

from .conftest import random_params

# Central differences of the next-lower derivative with step H: truncation error
# H^2/6 |f'''| ~ 1e-11 relative and round-off eps/H ~ 1e-11 relative, so 1e-6 relative to
# the largest derivative of the same order leaves a wide margin while catching any wrong
# coefficient (those show up at O(1)).
H = 1e-5
RTOL = 1e-6


def fd(fun, u, v, direction, h=H):
    du, dv = (h, 0.0) if direction == 0 else (0.0, h)
    return (fun(u + du, v + dv) - fun(u - du, v - dv)) / (2.0 * h)


def charts(surface):
    return range(surface.n_charts)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_derivatives_match_finite_differences(surface, order):
    rng = np.random.default_rng(10 + order)
    for chart in charts(surface):
        for u, v in random_params(surface, chart, rng, 6):
            D = surface.derivatives(u, v, order, chart)
            lower = lambda a, b: surface.derivatives(a, b, order - 1, chart)
            scale = max(np.abs(D[i, order - i]).max() for i in range(order + 1))
            for i in range(order + 1):
                j = order - i
                if i > 0:
                    approx = fd(lower, u, v, 0)[i - 1, j]
                else:
                    approx = fd(lower, u, v, 1)[i, j - 1]
                assert_allclose(D[i, j], approx, rtol=RTOL, atol=RTOL * scale,
                                err_msg=f"{surface!r} D[{i},{j}] chart {chart} at {(u, v)}")


def test_derivative_array_layout(surface):
    u, v = random_params(surface, 0, np.random.default_rng(0), 1)[0]
    for order in range(4):
        D = surface.derivatives(u, v, order)
        assert D.shape == (order + 1, order + 1, 3)
        i, j = np.indices(D.shape[:2])
        assert np.all(D[i + j > order] == 0.0)
        # lower orders are the leading block of higher orders
        assert_allclose(D[i + j <= order], surface.derivatives(u, v, 3)[:order + 1, :order + 1][i + j <= order],
                        rtol=1e-14, atol=1e-14 * np.abs(D).max())


def test_normal_derivatives_match_finite_differences(surface):
    rng = np.random.default_rng(20)
    for chart in charts(surface):
        for u, v in random_params(surface, chart, rng, 5):
            N = surface.normal_derivatives(u, v, 2, chart)
            n = lambda a, b: surface.normal(a, b, chart)
            N1 = lambda a, b: surface.normal_derivatives(a, b, 1, chart)
            assert_allclose(N[0, 0], surface.normal(u, v, chart), rtol=0, atol=1e-15)
            s1 = max(np.abs(N[1, 0]).max(), np.abs(N[0, 1]).max(), 1e-300)
            assert_allclose(N[1, 0], fd(n, u, v, 0), rtol=RTOL, atol=RTOL * s1)
            assert_allclose(N[0, 1], fd(n, u, v, 1), rtol=RTOL, atol=RTOL * s1)
            s2 = max(np.abs(N[2, 0]).max(), np.abs(N[1, 1]).max(), np.abs(N[0, 2]).max(), 1e-300)
            assert_allclose(N[2, 0], fd(N1, u, v, 0)[1, 0], rtol=RTOL, atol=RTOL * s2)
            assert_allclose(N[1, 1], fd(N1, u, v, 0)[0, 1], rtol=RTOL, atol=RTOL * s2)
            assert_allclose(N[1, 1], fd(N1, u, v, 1)[1, 0], rtol=RTOL, atol=RTOL * s2)
            assert_allclose(N[0, 2], fd(N1, u, v, 1)[0, 1], rtol=RTOL, atol=RTOL * s2)


def test_shape_operator_reproduces_normal_derivatives(surface):
    rng = np.random.default_rng(30)
    for chart in charts(surface):
        for u, v in random_params(surface, chart, rng, 5):
            L = surface.shape_operator(u, v, chart)
            D = surface.derivatives(u, v, 2, chart)
            N = surface.normal_derivatives(u, v, 1, chart)
            n, fu, fv = N[0, 0], D[1, 0], D[0, 1]
            scale = max(np.abs(L).max(), 1e-12)
            assert_allclose(L @ fu, N[1, 0], rtol=1e-10, atol=1e-12 * scale * np.linalg.norm(fu))
            assert_allclose(L @ fv, N[0, 1], rtol=1e-10, atol=1e-12 * scale * np.linalg.norm(fv))
            assert_allclose(L @ n, 0.0, atol=1e-12 * scale)
            assert_allclose(L, L.T, rtol=0, atol=1e-12 * scale)
            # symmetric w.r.t. the first fundamental form: f_a . L f_b = II_ab
            F = np.array((fu, fv))
            II = surface.second_fundamental_form(u, v, chart)
            assert_allclose(F @ L @ F.T, II, rtol=1e-10, atol=1e-12 * np.abs(II).max())
            # the MATH.md formula L = N_u (F^T F)^-1 F^T, from the normal derivatives
            Nu = np.array((N[1, 0], N[0, 1])).T
            assert_allclose(Nu @ np.linalg.inv(F @ F.T) @ F, L, rtol=1e-9, atol=1e-10 * scale)


def test_principal_directions_are_orthonormal_eigenvectors(surface):
    rng = np.random.default_rng(40)
    for chart in charts(surface):
        for u, v in random_params(surface, chart, rng, 5):
            k1, k2, d1, d2 = surface.principal_curvatures(u, v, chart)
            n = surface.normal(u, v, chart)
            L = surface.shape_operator(u, v, chart)
            assert k1 >= k2
            assert_allclose([d1 @ d1, d2 @ d2, d1 @ d2, d1 @ n, d2 @ n], [1, 1, 0, 0, 0], atol=1e-12)
            assert_allclose(np.cross(d1, d2), n, atol=1e-12)
            scale = max(abs(k1), abs(k2), 1e-12)
            assert_allclose(L @ d1, k1 * d1, atol=1e-10 * scale)
            assert_allclose(L @ d2, k2 * d2, atol=1e-10 * scale)


def test_kernels_agree_with_methods(surface):
    """The hot path (private hook + kernel) returns what the validated methods return."""
    u, v = random_params(surface, 0, np.random.default_rng(50), 1)[0]
    D = surface._derivatives(u, v, 3, 0)
    # bit-identical on purpose: the validated methods call the same kernels on the same inputs
    assert_allclose(D, surface.derivatives(u, v, 3), rtol=0, atol=0)
    assert_allclose(gauss.unit_normal(D), surface.normal(u, v), rtol=0, atol=0)
    assert_allclose(gauss.shape_operator(D), surface.shape_operator(u, v), rtol=0, atol=0)
    assert_allclose(gauss.normal_derivatives(D, 2), surface.normal_derivatives(u, v, 2), rtol=0, atol=0)
    assert_allclose(gauss.first_fundamental_form(D), surface.first_fundamental_form(u, v), rtol=0, atol=0)
