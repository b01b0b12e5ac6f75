"""Compile a bond graph into a frozen port-Hamiltonian system (`PHSystem`)."""

from .layout import BlockInfo, LedgerEntry, StateLayout
from .system import EventBinding, PHSystem
from .compiler import compile

__all__ = ["compile", "PHSystem", "StateLayout", "BlockInfo", "LedgerEntry", "EventBinding"]
