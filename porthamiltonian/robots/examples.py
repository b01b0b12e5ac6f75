"""Robot descriptions built in code (no file): a Go1-sized quadruped and an n-link chain.

For benchmarks, tests and examples that need a tree of a known size without an importer.
"""

from __future__ import annotations

import numpy as np

from .description import Joint, Link, LinkInertia, RobotDescription, Shape

__all__ = ["quadruped", "chain", "HIPS"]

#: the legs and the hips' positions in the base frame [m] (Go1's)
HIPS = {"FR": (0.1881, -0.04675), "FL": (0.1881, 0.04675), "RR": (-0.1881, -0.04675), "RL": (-0.1881, 0.04675)}


def _box(m, a, b, c):
    return np.diag([m * (b * b + c * c), m * (a * a + c * c), m * (a * a + b * b)]) / 12.0


def _at(x, y, z):
    H = np.eye(4)
    H[:3, 3] = (x, y, z)
    return H


def quadruped(name="quadruped", *, foot_radius=0.02):
    """A Go1-sized quadruped: a 6 kg base on a free joint and four legs of hip (about x), thigh
    and calf (about y) on revolute joints, a fixed sphere foot at each calf's end (18 degrees
    of freedom, 17 links). Masses, lengths and hip positions are Go1's, rounded; each foot
    link carries the sphere as its collision shape (radius `foot_radius` [m])."""
    links = [Link("base", LinkInertia(6.0, (0, 0, 0), _box(6.0, 0.38, 0.09, 0.11)),
                  visuals=(Shape("box", (0.38, 0.09, 0.11)),))]
    joints = [Joint("root", "free", None, "base")]
    for leg, (x, y) in HIPS.items():
        side = 1.0 if y > 0 else -1.0
        links += [
            Link(f"{leg}_hip", LinkInertia(0.7, (0, side * 0.01, 0), _box(0.7, 0.08, 0.05, 0.05))),
            Link(f"{leg}_thigh", LinkInertia(1.0, (0, 0, -0.03), _box(1.0, 0.04, 0.04, 0.213)),
                 visuals=(Shape("box", (0.04, 0.03, 0.213), _at(0, 0, -0.1065)),)),
            Link(f"{leg}_calf", LinkInertia(0.15, (0, 0, -0.1), _box(0.15, 0.02, 0.02, 0.213)),
                 visuals=(Shape("box", (0.02, 0.02, 0.213), _at(0, 0, -0.1065)),)),
            Link(f"{leg}_foot", LinkInertia(0.06, (0, 0, 0), 0.4 * 0.06 * foot_radius ** 2 * np.eye(3)),
                 collisions=(Shape("sphere", (foot_radius,)),)),
        ]
        joints += [
            Joint(f"{leg}_hip_joint", "revolute", "base", f"{leg}_hip", placement=_at(x, y, 0), axis=(1, 0, 0),
                  lower=-0.86, upper=0.86),
            Joint(f"{leg}_thigh_joint", "revolute", f"{leg}_hip", f"{leg}_thigh", placement=_at(0, side * 0.08, 0),
                  axis=(0, 1, 0), lower=-0.69, upper=4.5),
            Joint(f"{leg}_calf_joint", "revolute", f"{leg}_thigh", f"{leg}_calf", placement=_at(0, 0, -0.213),
                  axis=(0, 1, 0), lower=-2.8, upper=-0.9),
            Joint(f"{leg}_foot_fixed", "fixed", f"{leg}_calf", f"{leg}_foot", placement=_at(0, 0, -0.213)),
        ]
    return RobotDescription(name, tuple(links), tuple(joints))


def chain(n, name="chain", *, length=0.1, mass=0.5):
    """A serial chain of `n` uniform rods [kg, m] on revolute joints alternating about y and x,
    bolted to the world (n degrees of freedom)."""
    links, joints = [], []
    for k in range(n):
        links.append(Link(f"l{k}", LinkInertia(mass, (0, 0, -length / 2), _box(mass, 0.02, 0.02, length))))
        joints.append(Joint(f"j{k}", "revolute", None if k == 0 else f"l{k - 1}", f"l{k}",
                            placement=_at(0, 0, -length if k else 0.0), axis=(0, 1, 0) if k % 2 == 0 else (1, 0, 0)))
    return RobotDescription(name, tuple(links), tuple(joints))
