"""porthamiltonian: spatial screw bond graphs compiled to port-Hamiltonian ODE/DAEs."""

from .errors import *  # noqa: F401,F403

__version__ = "0.1.0"
