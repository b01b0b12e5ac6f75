"""Compile a bond graph into a frozen port-Hamiltonian system (`PHSystem`)."""

from .layout import BlockInfo, LedgerEntry, StateLayout
from .system import EventBinding, PHSystem
from .compiler import compile
from .linearize import Linearization, PortHamiltonianMatrices
from .modal import Mode, modes, transfer_function

__all__ = ["compile", "PHSystem", "StateLayout", "BlockInfo", "LedgerEntry", "EventBinding",
           "Linearization", "PortHamiltonianMatrices", "Mode", "modes", "transfer_function"]
