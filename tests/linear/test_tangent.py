"""The chart x = x0 (+) delta: retraction, tangent rates and gradients against finite differences."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.compile import BlockInfo, StateLayout
from porthamiltonian.compile.tangent import TangentChart
from porthamiltonian.lie import quaternion


def layout():
    """A pose, a lone quaternion, a vector block, an auxiliary and a discrete block, a ledger entry."""
    return StateLayout([
        BlockInfo("body", "pose", 0, 7, "configuration", "pose"),
        BlockInfo("top", "q", 7, 11, "configuration", "quaternion"),
        BlockInfo("body", "P", 11, 13, "energy", "R"),
        BlockInfo("contact", "x", 13, 17, "auxiliary", "R"),
        BlockInfo("contact", "active", 17, 18, "discrete", "R"),
    ], [])


@pytest.fixture(params=range(3))
def chart_and_delta(request):
    rng = np.random.default_rng(request.param)
    x0 = rng.standard_normal(18)
    x0[0:4] *= 1.7  # not unit: the chart normalizes
    chart = TangentChart(layout(), x0)
    return chart, 0.3 * rng.standard_normal(chart.size), rng


def test_names_and_held_blocks(chart_and_delta):
    chart, delta, _ = chart_and_delta
    assert chart.size == 6 + 3 + 2
    assert chart.names[:6] == tuple(f"body.pose.{k}[{i}]" for k in ("phi", "rho") for i in range(3))
    assert chart.names[6:] == ("top.q.phi[0]", "top.q.phi[1]", "top.q.phi[2]", "body.P[0]", "body.P[1]")
    assert_allclose(np.linalg.norm(chart.x0[0:4]), 1.0, rtol=1e-15, atol=0)
    # bit-exact on every CPU: retracting zero multiplies by the identity quaternion
    assert_allclose(chart.retract(np.zeros(chart.size)), chart.x0, rtol=0, atol=0)
    x = chart.retract(delta)
    assert_allclose(x[13:], chart.x0[13:], rtol=0, atol=0)  # auxiliary and discrete blocks held
    assert_allclose([np.linalg.norm(x[0:4]), np.linalg.norm(x[7:11])], 1.0, rtol=1e-14, atol=0)


def test_retraction_is_the_body_frame_exponential(chart_and_delta):
    """H(delta) = H0 exp(hat(delta)): for a pure rotation delta the position is unchanged and
    R0^T R = exp(hat(phi)); for a pure translation p = p0 + R0 rho."""
    chart, delta, _ = chart_and_delta
    R0, p0 = quaternion.to_matrix(chart.x0[:4]), chart.x0[4:7]
    rot = np.zeros(chart.size)
    rot[:3] = delta[:3]
    x = chart.retract(rot)
    assert_allclose(x[4:7], p0, rtol=0, atol=1e-15)
    assert_allclose(R0.T @ quaternion.to_matrix(x[:4]), quaternion.to_matrix(quaternion.from_rotvec(delta[:3])),
                    rtol=0, atol=1e-14)
    tr = np.zeros(chart.size)
    tr[3:6] = delta[3:6]
    assert_allclose(chart.retract(tr)[4:7], p0 + R0 @ delta[3:6], rtol=0, atol=1e-14)


def test_rates_invert_the_retraction_derivative(chart_and_delta):
    """x(s) = x0 (+) (delta + s v): rates(delta, x, dx/ds) = v."""
    chart, delta, rng = chart_and_delta
    v = rng.standard_normal(chart.size)
    eps = 1e-5
    xdot = (chart.retract(delta + eps * v) - chart.retract(delta - eps * v)) / (2 * eps)
    # central differences: O(eps^2) = 1e-10 truncation
    assert_allclose(chart.rates(delta, chart.retract(delta), xdot), v, rtol=0, atol=1e-8)
    # at delta = 0 the rate matrix is the same map
    xdot0 = (chart.retract(eps * v) - chart.retract(-eps * v)) / (2 * eps)
    assert_allclose(chart.rate_matrix(18) @ xdot0, v, rtol=0, atol=1e-8)


def test_gradient_is_the_derivative_along_the_chart(chart_and_delta):
    """f(x) = w . x + |x|^2 / 2: chart.gradient(delta, x, grad f) = d f(x0 (+) delta) / d delta."""
    chart, delta, rng = chart_and_delta
    w = rng.standard_normal(18)

    def f(x):
        return w @ x + 0.5 * x @ x

    eps, n = 1e-5, chart.size
    fd = np.array([(f(chart.retract(delta + eps * e)) - f(chart.retract(delta - eps * e))) / (2 * eps)
                   for e in np.eye(n)])
    x = chart.retract(delta)
    assert_allclose(chart.gradient(delta, x, w + x), fd, rtol=0, atol=1e-8)


def test_constraint_basis_drops_redundant_rows():
    """Rows scaled differently and a repeated constraint: the basis spans the true null space."""
    from porthamiltonian.compile.linearize import _tangent_basis

    Jc = np.array([[1.0, 0.0, 0.0, 0.0], [2e3, 0.0, 0.0, 0.0], [0.0, 1e-6, 1e-9, 0.0], [0.0, 0.0, 0.0, 0.0]])
    V = _tangent_basis(Jc, 4)
    assert V.shape == (4, 2)
    assert_allclose(V.T @ V, np.eye(2), rtol=0, atol=1e-15)
    assert_allclose(Jc @ V, 0.0, rtol=0, atol=1e-15)
    # bit-exact on every CPU: no constraint gives the identity
    assert_allclose(_tangent_basis(np.zeros((2, 3)), 3), np.eye(3), rtol=0, atol=0)
    assert_allclose(_tangent_basis(np.zeros((0, 3)), 3), np.eye(3), rtol=0, atol=0)
