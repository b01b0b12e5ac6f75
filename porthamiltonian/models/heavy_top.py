"""A heavy symmetric top on a spherical joint at a fixed pivot, under gravity."""

from __future__ import annotations

import numpy as np

import porthamiltonian as ph
from porthamiltonian.library import Gravity, Ground, Joint, RigidBody
from porthamiltonian.lie import quaternion, se3

from .registry import Model, Parameter, register_model

__all__ = ["heavy_top", "steady_precession_rate"]


def steady_precession_rate(mass, r, I1, I3, spin, tilt, g=9.81):
    """Slow steady precession rate [rad/s] of a heavy symmetric top (closed form).

    Solves I1' cos(tilt) W^2 - I3 w3 W + m g r = 0 with I1' = I1 + m r^2 (pivot inertia) and
    w3 the body-axis component of the angular velocity; returns the smaller root.
    """
    a = (I1 + mass * r * r) * np.cos(tilt)
    b = -I3 * spin
    c = mass * g * r
    disc = b * b - 4 * a * c
    if disc < 0:
        raise ph.ParameterError(f"spin {spin} rad/s is too slow for steady precession at tilt {tilt} rad")
    return (-b - np.sqrt(disc)) / (2 * a)


@register_model(
    "heavy-top",
    "a spinning symmetric top on a spherical joint, in steady precession under gravity",
    mass=Parameter(1.0, "kg", "mass of the top", rule="positive"),
    r=Parameter(0.5, "m", "distance from the pivot to the centre of mass", rule="positive"),
    I1=Parameter(0.1, "kg m^2", "transverse inertia about the centre of mass", rule="positive"),
    I3=Parameter(0.05, "kg m^2", "axial inertia", rule="positive"),
    spin=Parameter(100.0, "rad/s", "body-axis angular velocity component"),
    tilt=Parameter(0.3, "rad", "tilt of the axis from the vertical"),
)
def heavy_top(*, mass=1.0, r=0.5, I1=0.1, I3=0.05, spin=100.0, tilt=0.3):
    """Ground -- spherical Joint -- RigidBody (com on its z axis) with Gravity."""
    bg = ph.BondGraph("heavy_top")
    top = RigidBody("top", mass, [I1, I1, I3], com=[0.0, 0.0, r])
    G = Ground("ground")
    bg.add(top, G, Gravity("gravity", top), Joint("pivot", G.frame("B"), top.frame("B"), kind="spherical"))
    bg.connect(top.frame("B").port, "gravity")
    bg.connect(top.frame("B").port, ("pivot", "b"))
    bg.connect(G.frame("B").port, ("pivot", "a"))
    Om = steady_precession_rate(mass, r, I1, I3, spin, tilt)
    H0 = se3.exp(np.array([tilt, 0, 0, 0, 0, 0]))
    w = H0[:3, :3].T @ np.array([0.0, 0.0, Om])
    w[2] = spin
    axis = lambda s, t, x: quaternion.to_matrix(x[s.layout["top.pose"]][:4])[:, 2]  # noqa: E731
    return Model(
        bg,
        initial={"top.pose": quaternion.matrix_to_pose(H0), "top.P": top.M @ np.concatenate((w, np.zeros(3)))},
        t_end=3.0,
        solver=dict(method="DOP853", rtol=1e-10, atol=1e-12),
        observables={
            "tilt": lambda s, t, x: float(np.arccos(np.clip(axis(s, t, x)[2], -1, 1))),
            "azimuth": lambda s, t, x: float(np.arctan2(axis(s, t, x)[1], axis(s, t, x)[0])),
        },
        units={"tilt": "rad", "azimuth": "rad"},
        groups={"axis angles": ["tilt", "azimuth"]},
        notes=f"closed-form steady precession rate {Om:.10g} rad/s; the tilt stays constant",
    )
