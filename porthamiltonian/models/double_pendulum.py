"""A planar double pendulum of two rigid links on revolute joints, under gravity."""

from __future__ import annotations

import numpy as np

import porthamiltonian as ph
from porthamiltonian.library import Frame, Gravity, Ground, Joint, RigidBody
from porthamiltonian.lie import quaternion, se3

from .registry import Model, Parameter, register_model

__all__ = ["double_pendulum", "link_poses"]


def link_poses(theta1, theta2, L1, L2):
    """Poses H_W1, H_W2 of the links (body frames at their proximal joints) for joint angles
    about world y, angles measured from the downward vertical."""
    R1 = se3.exp(np.array([0.0, theta1, 0.0, 0.0, 0.0, 0.0]))
    R12 = se3.exp(np.array([0.0, theta2, 0.0, 0.0, 0.0, 0.0]))
    T = np.eye(4)
    T[2, 3] = -L1
    H1 = R1
    H2 = H1 @ T @ R12
    return H1, H2


@register_model(
    "double-pendulum",
    "two uniform rods on revolute joints swinging in a vertical plane (chaotic)",
    m1=Parameter(1.0, "kg", "mass of link 1", rule="positive"),
    m2=Parameter(1.0, "kg", "mass of link 2", rule="positive"),
    L1=Parameter(1.0, "m", "length of link 1", rule="positive"),
    L2=Parameter(1.0, "m", "length of link 2", rule="positive"),
    theta1=Parameter(1.2, "rad", "initial angle of link 1 from the vertical"),
    theta2=Parameter(-0.4, "rad", "initial angle of link 2 relative to link 1"),
)
def double_pendulum(*, m1=1.0, m2=1.0, L1=1.0, L2=1.0, theta1=1.2, theta2=-0.4):
    """Ground --revolute-- link1 --revolute-- link2, both with Gravity; hinge axes along world y."""
    bg = ph.BondGraph("double_pendulum")
    rod = lambda m, L: np.diag([m * L * L / 12, m * L * L / 12, 1e-6 * m * L * L])  # noqa: E731 - thin rod along z
    H1, H2 = link_poses(theta1, theta2, L1, L2)
    l1 = RigidBody("link1", m1, rod(m1, L1), com=[0, 0, -L1 / 2], pose=H1)
    l2 = RigidBody("link2", m2, rod(m2, L2), com=[0, 0, -L2 / 2], pose=H2)
    G = Ground("ground")
    # hinge markers: z axis along world y (rotate x by -90 deg)
    Hy = se3.exp(np.array([-np.pi / 2, 0, 0, 0, 0, 0]))
    Ht = np.eye(4)
    Ht[2, 3] = -L1
    j1 = Joint("hinge1", Frame(G, "B", Hy), Frame(l1, "B", Hy), kind="revolute")
    j2 = Joint("hinge2", Frame(l1, "B", Ht @ Hy), Frame(l2, "B", Hy), kind="revolute")
    bg.add(l1, l2, G, Gravity("g1", l1), Gravity("g2", l2), j1, j2)
    bg.connect(l1.frame().port, "g1")
    bg.connect(l2.frame().port, "g2")
    bg.connect(G.frame().port, ("hinge1", "a"))
    bg.connect(l1.frame().port, ("hinge1", "b"))
    bg.connect(l1.frame().port, ("hinge2", "a"))
    bg.connect(l2.frame().port, ("hinge2", "b"))

    def angle(name):
        def f(s, t, x):
            R = quaternion.to_matrix(x[s.layout[f"{name}.pose"]][:4])
            return float(np.arctan2(R[0, 2], R[2, 2]))  # the link points along -z of its frame

        return f

    return Model(
        bg,
        t_end=10.0,
        solver=dict(method="DOP853", rtol=1e-9, atol=1e-11),
        observables={"link1 angle": angle("link1"), "link2 angle": angle("link2")},
        units={"link1 angle": "rad", "link2 angle": "rad"},
        groups={"absolute link angles": ["link1 angle", "link2 angle"]},
        notes="joint reactions are the multipliers of hinge1/hinge2; energy is conserved",
    )
