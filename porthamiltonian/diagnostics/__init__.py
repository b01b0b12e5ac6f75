"""Diagnostics: the energy ledger (power budget) and plots."""

from .ledger import LedgerRow, PowerBudget

__all__ = ["PowerBudget", "LedgerRow"]
