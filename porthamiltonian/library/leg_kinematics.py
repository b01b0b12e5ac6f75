"""A 3-joint leg (hip ab/ad, hip flexion, knee) in closed form, and joint references from foot
paths.

Geometry (Go1 / A1 / Mini-Cheetah legs), in the hip frame H at the ab/ad axis: x forward,
y to the side (left), z up::

    q1  hip ab/ad    rotation about x
    q2  hip flexion  rotation about the leg plane's y axis
    q3  knee         rotation about the same y axis
    d   lateral offset from the ab/ad axis to the leg plane (signed: + left leg, - right)
    l1  thigh length, l2 calf length (foot at the end of the calf)

Forward kinematics, foot position p_H = (x, y, z) [m]::

    x   = -l1 sin q2 - l2 sin(q2 + q3)
    z_p = -l1 cos q2 - l2 cos(q2 + q3)                     (in the leg plane)
    y   = d cos q1 - z_p sin q1,   z = d sin q1 + z_p cos q1

Inverse kinematics: z_p = -sqrt(y^2 + z^2 - d^2) (foot below the hip), q1 = atan2(z, y) -
atan2(z_p, d); cos q3 = (x^2 + z_p^2 - l1^2 - l2^2) / (2 l1 l2), q3 = -acos(.) for a knee
that bends backward ("backward", the Go1 convention, q3 < 0) or +acos(.) ("forward");
q2 = atan2(-x, -z_p) - atan2(l2 sin q3, l1 + l2 cos q3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from porthamiltonian._validate import as_array
from porthamiltonian.errors import GeometryError, ParameterError

from .controllers import PeriodicReference

__all__ = ["ThreeJointLeg", "foot_reference"]


@dataclass(frozen=True)
class ThreeJointLeg:
    """A hip ab/ad + hip flexion + knee leg (module docs).

    Parameters
    ----------
    thigh, calf : float [m]
        l1, l2 > 0.
    offset : float [m]
        Signed lateral offset d of the leg plane from the ab/ad axis.
    knee : {"backward", "forward"}
        The IK branch (sign of q3).
    """

    thigh: float
    calf: float
    offset: float = 0.0
    knee: str = "backward"

    def __post_init__(self):
        for key in ("thigh", "calf"):
            v = getattr(self, key)
            if not (isinstance(v, (int, float, np.floating)) and np.isfinite(v) and v > 0):
                raise ParameterError(f"`{key}` must be a positive finite length, got {v!r}")
        if not np.isfinite(self.offset):
            raise ParameterError(f"`offset` must be finite, got {self.offset!r}")
        if self.knee not in ("backward", "forward"):
            raise ParameterError(f"`knee` must be 'backward' or 'forward', got {self.knee!r}")

    def forward(self, q):
        """Foot position in the hip frame, shape (3,) [m], from q, shape (3,) [rad]."""
        q1, q2, q3 = as_array(q, "q", (3,))
        l1, l2, d = self.thigh, self.calf, self.offset
        x = -l1 * np.sin(q2) - l2 * np.sin(q2 + q3)
        zp = -l1 * np.cos(q2) - l2 * np.cos(q2 + q3)
        return np.array([x, d * np.cos(q1) - zp * np.sin(q1), d * np.sin(q1) + zp * np.cos(q1)])

    def jacobian(self, q):
        """d(foot position)/dq, shape (3, 3) [m/rad]."""
        q1, q2, q3 = as_array(q, "q", (3,))
        l1, l2, d = self.thigh, self.calf, self.offset
        zp = -l1 * np.cos(q2) - l2 * np.cos(q2 + q3)
        dx = np.array([0.0, -l1 * np.cos(q2) - l2 * np.cos(q2 + q3), -l2 * np.cos(q2 + q3)])
        dzp = np.array([0.0, l1 * np.sin(q2) + l2 * np.sin(q2 + q3), l2 * np.sin(q2 + q3)])
        c, s = np.cos(q1), np.sin(q1)
        dy = -s * dzp
        dy[0] = -d * s - zp * c
        dz = c * dzp
        dz[0] = d * c - zp * s
        return np.vstack((dx, dy, dz))

    def inverse(self, p):
        """Joint angles q, shape (3,) [rad], placing the foot at p, shape (3,) [m] (hip frame).

        Raises
        ------
        GeometryError
            p is out of reach (closer to the ab/ad axis than the offset, or farther from the
            hip than l1 + l2 or closer than abs(l1 - l2)).
        """
        x, y, z = as_array(p, "p", (3,))
        l1, l2, d = self.thigh, self.calf, self.offset
        rr = y * y + z * z - d * d
        if rr < 0:
            raise GeometryError(f"foot position {[x, y, z]} is out of reach: its distance to the ab/ad axis "
                                f"{np.hypot(y, z):.6g} m is below the offset |d| = {abs(d):.6g} m")
        zp = -np.sqrt(rr)
        q1 = np.arctan2(z, y) - np.arctan2(zp, d)
        q1 = (q1 + np.pi) % (2 * np.pi) - np.pi
        c3 = (x * x + zp * zp - l1 * l1 - l2 * l2) / (2 * l1 * l2)
        if not -1.0 <= c3 <= 1.0:
            raise GeometryError(f"foot position {[x, y, z]} is out of reach: its distance {np.hypot(x, zp):.6g} m "
                                f"from the hip in the leg plane is outside [{abs(l1 - l2):.6g}, {l1 + l2:.6g}] m")
        q3 = np.arccos(c3) * (-1.0 if self.knee == "backward" else 1.0)
        q2 = np.arctan2(-x, -zp) - np.arctan2(l2 * np.sin(q3), l1 + l2 * np.cos(q3))
        return np.array([q1, q2, q3])


def foot_reference(leg, foot, period, samples=64):
    """A joint-space `PeriodicReference` from a periodic foot path through the leg's IK.

    Parameters
    ----------
    leg : ThreeJointLeg
    foot : callable
        ``foot(t) -> p``, shape (3,) [m], the foot position in the hip frame, periodic with
        `period`.
    period : float [s]
    samples : int
        Samples per period (>= 4); the reference is the periodic cubic spline through the
        joint angles there.

    Returns
    -------
    PeriodicReference
        3 joints (ab/ad, hip, knee).

    Raises
    ------
    ParameterError
        `foot` is not callable, returns the wrong shape or a non-finite value, or is not
        periodic (foot(period) differs from foot(0) by more than 1e-9 m).
    GeometryError
        A sample out of reach.
    """
    if not callable(foot):
        raise ParameterError(f"`foot` must be a callable t -> position (3,), got {foot!r}")
    if not (isinstance(samples, (int, np.integer)) and samples >= 4):
        raise ParameterError(f"`samples` must be an integer >= 4, got {samples!r}")
    ts = np.arange(samples) * (float(period) / samples)
    P = np.array([as_array(foot(t), "foot(t)", (3,)) for t in ts])
    if not np.allclose(as_array(foot(float(period)), "foot(period)", (3,)), P[0], rtol=0, atol=1e-9):
        raise ParameterError(f"`foot` must be periodic with period {period!r}: foot(period) != foot(0)")
    Q = np.unwrap(np.array([leg.inverse(p) for p in P]), axis=0)
    return PeriodicReference(period, Q, n_joints=3)
