"""Small and slender bodies: the inertia is judged relative to the body, not in absolute units.

A thin light leg (a 1 g, 5 cm rod of 0.3 mm radius: smallest moment 4.5e-11 kg m^2) is a body;
its rates match Euler's equations written out independently. A line, an inertia singular to
round-off, or one lost against the m |com|^2 of the spatial inertia is refused, naming the
argument and the rule, and the verdict is the same in any units.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.library import RigidBody

from .helpers import rot

EPS = np.finfo(float).eps
R0 = rot([0.3, -0.5, 0.9])  # a generic orientation of the principal axes in body axes


def rod(mass, length, radius):
    """Principal moments of a solid rod about its centre [kg m^2], the long axis first."""
    side = mass * length**2 / 12 + mass * radius**2 / 4
    return np.array([mass * radius**2 / 2, side, side])


LEG = dict(mass=1e-3, length=0.05, radius=3e-4)


def test_a_thin_light_leg_is_a_body_whose_rates_are_euler_equations():
    moments = rod(**LEG)
    assert moments[0] < 1e-10  # below the old absolute floor
    inertia = R0 @ np.diag(moments) @ R0.T
    leg = RigidBody("leg", LEG["mass"], inertia)
    w = R0 @ np.array([40.0, 3.0, -2.0])  # spinning about its long axis and tumbling [rad/s]
    v = np.array([0.1, -0.2, 0.3])
    tau = R0 @ np.array([1e-9, 2e-6, -1e-6])  # [N m]
    f = np.array([0.0, 0.0, -9.81e-3])  # [N]
    x = np.concatenate([leg.pose0, leg.M @ np.concatenate([w, v])])
    dx = leg.rates(0.0, x, (), (np.concatenate([tau, f]),))
    # independent: Euler's equations about the centre of mass, dL/dt = L x w + tau, dp/dt = p x w + f
    L, p = inertia @ w, LEG["mass"] * v
    # the body recovers w = M^-1 P with a relative error ~ cond(I) eps; the gyroscopic term
    # L x w carries it, hence a bound of 10 cond eps |L| |w| (cond = 5.6e4 here)
    cond = moments.max() / moments.min()
    bound = 10 * cond * EPS * np.linalg.norm(L) * np.linalg.norm(w)
    assert_allclose(dx[7:10], np.cross(L, w) + tau, rtol=0, atol=bound)
    assert_allclose(dx[10:13], np.cross(p, w) + f, rtol=0, atol=10 * cond * EPS * np.linalg.norm(p) * np.linalg.norm(w))


# (mass unit, length unit) in SI: kg m, g mm, t km; the inertia scales as mass * length^2
UNITS = [pytest.param(1.0, 1.0, id="kg-m"), pytest.param(1e3, 1e3, id="g-mm"), pytest.param(1e-3, 1e-3, id="t-km")]


@pytest.mark.parametrize("per_kg, per_m", UNITS)
def test_the_verdict_does_not_depend_on_the_units(per_kg, per_m):
    moments = rod(**LEG) * per_kg * per_m**2
    com = np.array([0.0, 0.0, 0.01]) * per_m
    leg = RigidBody("leg", LEG["mass"] * per_kg, R0 @ np.diag(moments) @ R0.T, com=com)
    # the spatial inertia's inverse is exact to round-off amplified by the inertia's
    # condition number (5.6e4 here) and the com offset (m |c|^2 / I_min = 2.2e-1)
    cond = np.linalg.cond(leg.M)
    assert_allclose(leg.Minv @ leg.M, np.eye(6), rtol=0, atol=10 * cond * EPS)
    with pytest.raises(ph.ParameterError, match=r"`line\.inertia` must be positive definite"):
        RigidBody("line", per_kg, np.array([1e-12, 1.0, 1.0]) * per_kg * per_m**2)


@pytest.mark.parametrize(
    "moments",
    [
        pytest.param([0.0, 1e-7, 1e-7], id="line"),
        pytest.param([1e-18, 1e-7, 1e-7], id="below-1e-10-of-the-largest"),
        pytest.param([-1e-18, 1e-7, 1e-7], id="negative-round-off"),
    ],
)
def test_a_singular_inertia_is_refused_by_name(moments):
    with pytest.raises(
        ph.ParameterError,
        match=r"`leg\.inertia` must be positive definite, got smallest eigenvalue .*, not above 1e-10 x 1e-07 "
        r"\(its largest \|eigenvalue\|\): it is singular to round-off",
    ):
        RigidBody("leg", 1e-3, R0 @ np.diag(moments) @ R0.T)


def test_an_inertia_lost_against_the_com_offset_is_refused():
    # a 1 kg point-like body: 1e-12 kg m^2 is a body about its centre of mass, but set 1 m off
    # the body origin its spatial inertia holds m |c|^2 = 1 kg m^2, which buries it
    ball = RigidBody("ball", 1.0, 1e-12 * np.eye(3))
    assert_allclose(ball.Minv @ ball.M, np.eye(6), rtol=0, atol=4 * EPS)  # diagonal M: inverted to round-off
    with pytest.raises(
        ph.ParameterError,
        match=r"`ball\.inertia` must be positive definite, got smallest eigenvalue 1e-12, not above 1e-10 x 1 "
        r"\(m \|com\|\^2\)",
    ):
        RigidBody("ball", 1.0, 1e-12 * np.eye(3), com=[1.0, 0.0, 0.0])
