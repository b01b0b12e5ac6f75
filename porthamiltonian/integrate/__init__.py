"""Simulation: `simulate` (scipy's solve_ivp in event-separated segments) and `Trajectory`."""

from .simulate import simulate
from .trajectory import EventRecord, Trajectory

__all__ = ["simulate", "Trajectory", "EventRecord"]
