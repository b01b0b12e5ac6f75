"""The 3-joint leg: inverse kinematics round trip through forward kinematics, the analytic
Jacobian against central finite differences, and the joint reference of a foot path: its
velocity against J^-1 dp/dt (finite difference of the foot path)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.library.leg_kinematics import ThreeJointLeg, foot_reference

GO1 = dict(thigh=0.213, calf=0.213)


@pytest.mark.parametrize("offset", [0.08, -0.08, 0.0])
@pytest.mark.parametrize("knee", ["backward", "forward"])
def test_inverse_then_forward_is_identity(rng, offset, knee):
    leg = ThreeJointLeg(**GO1, offset=offset, knee=knee)
    sign = -1.0 if knee == "backward" else 1.0
    for _ in range(50):
        q = np.array([rng.uniform(-0.6, 0.6), rng.uniform(-1.0, 1.0), sign * rng.uniform(0.3, 2.5)])
        p = leg.forward(q)
        if np.hypot(p[1], p[2]) ** 2 - offset ** 2 <= 0:
            continue
        q_back = leg.inverse(p)
        # the solution is unique on the branch: angles come back, and so does the foot
        assert_allclose(leg.forward(q_back), p, rtol=0, atol=1e-14 * 10)
        # only configurations with the foot below the hip in the leg plane are on the IK's branch
        zp = -GO1["thigh"] * np.cos(q[1]) - GO1["calf"] * np.cos(q[1] + q[2])
        if zp < 0:
            assert_allclose(q_back, q, rtol=0, atol=1e-10)


def test_jacobian_matches_finite_differences(rng):
    leg = ThreeJointLeg(**GO1, offset=0.08)
    for _ in range(20):
        q = rng.uniform(-1.0, 1.0, 3)
        h = 1e-6
        fd = np.column_stack([(leg.forward(q + h * e) - leg.forward(q - h * e)) / (2 * h) for e in np.eye(3)])
        # central differences at h = 1e-6: truncation ~ h^2 |p'''| ~ 1e-13, round-off ~ eps / h ~ 1e-10
        assert_allclose(leg.jacobian(q), fd, rtol=0, atol=1e-9)


def test_foot_reference_velocity_is_the_ik_rate():
    leg = ThreeJointLeg(**GO1, offset=0.08)
    period = 0.5

    def foot(t):
        s = 2 * np.pi * t / period
        return np.array([0.06 * np.cos(s), 0.08 + 0.01 * np.sin(s), -0.28 + 0.02 * (1.0 - np.cos(s))])  # smooth: a C1 path would blunt the spline at its kinks

    ref = foot_reference(leg, foot, period, samples=400)
    for t in np.linspace(0.01, 0.49, 9):
        assert_allclose(leg.forward(ref.position(t)), foot(t), rtol=0, atol=1e-7)  # spline of 400 samples
        h = 1e-6
        pdot = (foot(t + h) - foot(t - h)) / (2 * h)
        qdot = np.linalg.solve(leg.jacobian(ref.position(t)), pdot)
        # the spline's derivative against the exact rate: interpolation error O(dt^3)
        assert_allclose(ref.velocity(t), qdot, rtol=0, atol=1e-5 * np.max(np.abs(qdot)))


def test_bad_leg_input():
    leg = ThreeJointLeg(**GO1, offset=0.08)
    with pytest.raises(GeometryError, match="out of reach"):
        leg.inverse([0.0, 0.08, -0.5])
    with pytest.raises(GeometryError, match="below the offset"):
        leg.inverse([0.0, 0.01, -0.01])
    with pytest.raises(ParameterError, match="thigh"):
        ThreeJointLeg(thigh=-0.2, calf=0.2)
    with pytest.raises(ParameterError, match="periodic"):
        foot_reference(leg, lambda t: np.array([0.01 * t, 0.08, -0.28]), 0.5)
    with pytest.raises(ParameterError, match="foot"):
        foot_reference(leg, lambda t: np.array([np.nan, 0.08, -0.28]), 0.5)
