"""The rocking ellipsoid on the sliding-plane contact: modes on the constraint manifold.

Closed forms (derived as in tests/models/test_rocking_ellipsoid.py, for either horizontal
axis). An ellipsoid with semi-axes (a, b, c), c the smallest, resting on the end of c: a tilt
theta about its y axis raises the centre by (a^2/c - c) theta^2 / 2 (radius of curvature a^2/c
of the xz section), about x by (b^2/c - c) theta^2 / 2. Frictionless, the centre moves only
vertically (no horizontal force): omega_y^2 = m g (a^2/c - c) / I_y. Rolling, the contact
point is the instantaneous centre, c below the centre: omega_y^2 = m g (a^2/c - c) / (I_y + m c^2),
and the centre moves by c dtheta horizontally (dx = +c dtheta_y, dy = -c dtheta_x, frame
at rest = world frame). I_x = m (b^2 + c^2)/5, I_y = m (a^2 + c^2)/5. The other coordinates
(horizontal position, yaw) are neutral: zero eigenvalues.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.models import build_model

G, MASS, AXES = 9.81, 1.3, (0.2, 0.15, 0.1)


def closed_form(friction):
    """(omega_x, omega_y) [rad/s] (module docstring)."""
    a, b, c = AXES
    extra = MASS * c * c if friction == "rolling" else 0.0
    I_x, I_y = MASS * (b * b + c * c) / 5.0, MASS * (a * a + c * c) / 5.0
    return (math.sqrt(MASS * G * (b * b / c - c) / (I_x + extra)),
            math.sqrt(MASS * G * (a * a / c - c) / (I_y + extra)))


def system_and_rest(friction, spin=0.0, tilt=0.0):
    model = build_model("rocking-ellipsoid", contact="sliding_plane", friction=friction, unilateral=False,
                        tilt=tilt, spin=spin, mass=MASS, axes=AXES)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    return system, system.initial_state(model.initial)


@pytest.fixture(scope="module", params=["frictionless", "rolling"])
def rocking(request):
    system, x = system_and_rest(request.param)
    return request.param, system.linearize(0.0, x)


def test_eigenfrequencies_are_the_closed_forms(rocking):
    friction, lin = rocking
    # frictionless: 12 tangent coordinates - gap - normal velocity; rolling: 2 no-slip rows more
    assert lin.A.shape == ((10, 10) if friction == "frictionless" else (8, 8))
    modes = lin.modes()
    oscillating = [m for m in modes if m.natural_frequency > 1.0]
    assert len(oscillating) == 2
    # measured: 1.2e-13 (relative)
    assert_allclose([m.natural_frequency for m in oscillating], closed_form(friction), rtol=1e-8, atol=0)
    assert_allclose([m.damping_ratio for m in oscillating], 0.0, rtol=0, atol=1e-10)
    # the rest are neutral (Jordan blocks split by round-off into ~sqrt(eps)-sized eigenvalues)
    assert max(m.natural_frequency for m in modes if m not in oscillating) < 1e-5
    assert lin.leakage < 1e-8 and lin.constraint_residual < 1e-14


def test_mode_shapes_are_rocking_about_the_axes(rocking):
    friction, lin = rocking
    c = AXES[2]
    mode_x, mode_y = (m for m in lin.modes() if m.natural_frequency > 1.0)
    sx, sy = mode_x.shape, mode_y.shape
    # tilting about x (the shorter section), about y: the other rotation does not take part
    assert abs(sx["body.pose.phi[1]"]) < 1e-9 * abs(sx["body.pose.phi[0]"])
    assert abs(sy["body.pose.phi[0]"]) < 1e-9 * abs(sy["body.pose.phi[1]"])
    slide = (c, -c) if friction == "rolling" else (0.0, 0.0)
    assert_allclose(sy["body.pose.rho[0]"] / sy["body.pose.phi[1]"], slide[0], rtol=1e-9, atol=1e-12)
    assert_allclose(sx["body.pose.rho[1]"] / sx["body.pose.phi[0]"], slide[1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("friction", ["frictionless", "rolling"])
def test_structure_reproduces_the_rates_off_equilibrium(friction):
    """At a tilted, spinning state: (J - R) grad H + G lambda is the compiled rate in the chart,
    J skew, R zero (no friction work), and the flow leaves the tangent basis (not an equilibrium)."""
    system, x = system_and_rest(friction, spin=2.0, tilt=0.2)
    lin = system.linearize(0.0, x)
    ph_ = lin.ph
    scale = np.max(np.abs(lin.rates))
    assert_allclose(ph_.structure_rates(), lin.rates, rtol=0, atol=1e-12 * scale)
    # bit-exact on every CPU by construction: linearize builds J as (A - A^T)/2; R is exact zero (no damping)
    assert_allclose(ph_.J, -ph_.J.T, rtol=0, atol=0)
    assert_allclose(ph_.R, 0.0, rtol=0, atol=0)
    assert lin.leakage > 1e-3


def test_a_detached_unilateral_contact_is_no_constraint():
    """Started detached (flag `active` 0), the unilateral contact drops out: a free body in
    free fall, whose linearization has no oscillation (A nilpotent: every eigenvalue zero)."""
    model = build_model("rocking-ellipsoid", contact="sliding_plane", friction="frictionless", unilateral=True,
                        tilt=0.0, mass=MASS, axes=AXES)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x = system.initial_state({**model.initial, "contact/constraint.active": 0.0})
    lin = system.linearize(0.0, x)
    assert lin.state_names == lin.tangent_names and lin.A.shape == (12, 12)
    # bit-exact on every CPU: without constraints the basis is the identity
    assert_allclose(lin.basis, np.eye(12), rtol=0, atol=0)
    assert_allclose(lin.rates[9:12], [0.0, 0.0, -G * MASS], rtol=1e-12, atol=1e-12)  # dP/dt = weight (body frame)
    assert max(m.natural_frequency for m in lin.modes()) < 1e-6
