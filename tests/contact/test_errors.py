"""Degenerate input gives a clear error, never a silent NaN (RuntimeWarnings are errors)."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.contact import (
    centripetal_accelerations,
    contact_coordinate_jacobian,
    contact_frame,
    contact_kinematics,
    contact_pose,
    patch_frame,
    sliding_plane_rates,
    split_twist,
)
from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import Cylinder, Ellipsoid, Plane, Sphere
from porthamiltonian.lie import se3

from . import reference as ref
from .test_sliding_plane import ball

T = np.array((0.1, -0.2, 0.3, 0.4, 0.5, -0.6))


def cavity_pair(R1, R2):
    """A ball (R2) touching the bottom of a spherical hole (R1) from inside."""
    H_12 = se3.make(np.eye(3), np.array((0.0, R2 - R1, 0.0)))
    return ball(R1, inward=True), ball(R2, inward=False), H_12, (0.0, 0.0, 0.0, 0.0)


def test_conforming_ball_in_socket():
    hole, shaft, H, x = cavity_pair(0.5, 0.5)
    with pytest.raises(GeometryError, match=r"singular contact kinematics .* condition number "
                                            r"inf .*conforming contact"):
        contact_kinematics(hole, shaft, x, H, T)
    with pytest.raises(GeometryError, match=r"singular sliding-plane speed problem .* "
                                            r"eq. \(23\)"):
        sliding_plane_rates(hole, shaft, x, H, T)


def test_nearly_conforming_is_regular_but_ill_conditioned():
    hole, shaft, H, x = cavity_pair(0.5, 0.499)
    k = contact_kinematics(hole, shaft, x, H, T)
    assert np.all(np.isfinite(k.x_rate)) and k.condition < 10.0
    # the rates blow up like 1 / (1/R2 - 1/R1), not the condition number (the matrix is a
    # multiple of the identity); both formulations agree
    assert_allclose(sliding_plane_rates(hole, shaft, x, H, T), k.x_rate, rtol=1e-9)


@pytest.mark.parametrize("make", [
    # a cylinder lying on a plane: line contact
    lambda: (Plane(), Cylinder(0.5, 1.0), se3.make(
        np.array(((1.0, 0.0, 0.0), (0.0, 0.0, -1.0), (0.0, 1.0, 0.0))), np.array((0, 0, 0.5))),
        (0.0, 0.0, -math.pi / 2, 0.0)),
    # two planes
    lambda: (Plane(), Plane(normal=(0.0, 0.0, -1.0)), se3.make(np.eye(3), np.zeros(3)),
             (0.0, 0.0, 0.0, 0.0)),
    # concentric spheres: Delta = -(r1 + r2) = Delta_min, every direction is a contact pair
    lambda: (Sphere(0.5), Sphere(0.3), np.eye(4), (0.0, 0.0, math.pi, 0.0)),
], ids=["cylinder-on-plane", "plane-on-plane", "concentric-spheres"])
def test_singular_contact_matrix(make):
    S1, S2, H, x = make()
    with pytest.raises(GeometryError, match=r"singular contact kinematics"):
        contact_kinematics(S1, S2, x, H, T)


def test_singular_parametrization_and_domain():
    E, P = Ellipsoid(1.0, 0.6, 0.4), Plane()
    H = se3.make(np.eye(3), np.array((0.0, 0.0, 0.5)))
    pole = (0.0, 0.0, 0.3, -math.pi / 2)               # south pole of chart 0
    with pytest.raises(GeometryError, match=r"is not regular .* best_chart"):
        contact_kinematics(P, E, pole, H, T)
    with pytest.raises(GeometryError, match=r"is not regular"):
        contact_coordinate_jacobian(P, E, pole + (0.0,))
    with pytest.raises(GeometryError, match=r"is not regular"):
        patch_frame(E, 0.3, math.pi / 2)
    terrain = ref.terrain()
    for fun in (lambda: contact_kinematics(terrain, E, (1.5, 0.5, 0.0, 0.0), H, T),
                lambda: sliding_plane_rates(terrain, E, (0.5, -0.1, 0.0, 0.0), H, T),
                lambda: contact_pose(terrain, E, (0.5, 1.2, 0.0, 0.0, 0.0)),
                lambda: centripetal_accelerations(terrain, E, (2.0, 0.5, 0, 0), np.ones(4))):
        with pytest.raises(GeometryError, match=r"outside the domain .* of chart 0"):
            fun()


E, P = Ellipsoid(1.0, 0.6, 0.4), Plane()
H = se3.make(np.eye(3), np.array((0.0, 0.0, 0.5)))
X = (0.0, 0.0, 0.3, -1.0)


@pytest.mark.parametrize("call, match", [
    (lambda: contact_kinematics(P, E, X, H, (0.0, math.nan, 0, 0, 0, 0)),
     r"`T_12` must be finite"),
    (lambda: contact_kinematics(P, E, X[:3], H, T), r"`x` must have shape \(4,\), got \(3,\)"),
    (lambda: contact_kinematics(P, E, X, H, T, charts=(0, 2)),
     r"chart of S2 must be an integer in \[0, 1\]"),
    (lambda: contact_kinematics(P, E, X, H, T, charts=0), r"`charts` must be a pair"),
    (lambda: contact_kinematics(P, "E", X, H, T), r"`S2` must be a Surface, got str"),
    (lambda: contact_kinematics(P, E, X, 2 * H, T), r"`H_12` must have last row"),
    (lambda: sliding_plane_rates(P, E, X, H[:3], T), r"`H_12` must have shape \(4, 4\)"),
    (lambda: centripetal_accelerations(P, E, X, (1.0, math.inf, 0, 0)),
     r"`x_rate` must be finite"),
    (lambda: contact_frame(P, E, X, H, alpha=1.5), r"`alpha` must lie in \[0, 1\]"),
    (lambda: contact_coordinate_jacobian(P, E, X), r"`q` must have shape \(5,\)"),
    (lambda: contact_coordinate_jacobian(P, E, X + (0.0,), q_rate=(1, 2)),
     r"`q_rate` must have shape \(5,\)"),
    (lambda: split_twist(T, np.eye(3)), r"`H_1C` must have shape \(4, 4\)"),
    (lambda: patch_frame(E, 0.0, 0.0, chart=True), r"`chart` must be an integer"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ParameterError, match=match):
        call()
