"""Diagnostics: the energy ledger (power budget) and plots.

The plots (`porthamiltonian.diagnostics.plots`: `plot_bode`, `plot_sweep`, ...) are also
importable from here; they load matplotlib when first asked for, not with this package.
"""

from .ledger import LedgerRow, PowerBudget

__all__ = ["PowerBudget", "LedgerRow"]


def __getattr__(name):
    import importlib

    if name.startswith("_") or name == "plots":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    plots = importlib.import_module(f"{__name__}.plots")
    if name in plots.__all__:
        return getattr(plots, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
