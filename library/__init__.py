"""Reusable components: point masses, rigid bodies, springs, dampers, gravity, joints, contacts."""

from .point_mass import DistanceConstraint, PointMass

__all__ = ["PointMass", "DistanceConstraint"]
