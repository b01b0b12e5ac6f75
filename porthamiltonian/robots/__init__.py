"""Robots: kinematic-tree descriptions and their import from URDF and MJCF files."""

from porthamiltonian.robots.description import Joint, Link, LinkInertia, RobotDescription, Shape

__all__ = ["Joint", "Link", "LinkInertia", "RobotDescription", "Shape"]
