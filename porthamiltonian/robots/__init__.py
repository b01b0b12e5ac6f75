"""Robots: kinematic-tree descriptions and their import from URDF and MJCF files."""

from porthamiltonian.robots.data import example, example_robots, standing_pose
from porthamiltonian.robots.description import Joint, Link, LinkInertia, RobotDescription, Shape
from porthamiltonian.robots.mjcf import load_mjcf
from porthamiltonian.robots.surfaces import contact_surfaces, feet, fit_ellipsoid
from porthamiltonian.robots.urdf import load_urdf

__all__ = ["Joint", "Link", "LinkInertia", "RobotDescription", "Shape", "example", "contact_surfaces", "example_robots", "feet", "fit_ellipsoid", "load_mjcf", "load_urdf", "standing_pose"]
