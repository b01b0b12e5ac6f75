"""Import `porthamiltonian.library` and `porthamiltonian.models` from a source checkout.

An installed package holds `library/` and `models/` inside it (pyproject `package-dir`); a
checkout has them beside `porthamiltonian/`. When the checkout itself is on `sys.path` (e.g.
``python -m pytest`` or ``python`` started in it, where the checkout's package shadows the
installed one), a finder maps the two subpackages to the checkout's folders, so that the
code imported is the checkout's, whole. Nothing happens for an installed package.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_PACKAGE_DIR)
_FOLDERS = {"porthamiltonian.library": "library", "porthamiltonian.models": "models"}


class _CheckoutFolders(importlib.abc.MetaPathFinder):
    """Finds the two mapped subpackages in the checkout; their modules are found normally."""

    def find_spec(self, fullname, path=None, target=None):
        folder = _FOLDERS.get(fullname)
        if folder is None:
            return None
        location = os.path.join(_ROOT, folder)
        return importlib.util.spec_from_file_location(
            fullname, os.path.join(location, "__init__.py"), submodule_search_locations=[location]
        )


def in_checkout() -> bool:
    """True if this package was imported from a source checkout (not an installed copy)."""
    return not os.path.isdir(os.path.join(_PACKAGE_DIR, "library")) and all(
        os.path.isfile(os.path.join(_ROOT, folder, "__init__.py")) for folder in _FOLDERS.values()
    ) and os.path.isfile(os.path.join(_ROOT, "pyproject.toml"))


def install() -> None:
    """Put the finder on `sys.meta_path` (once) if imported from a checkout."""
    if in_checkout() and not any(isinstance(f, _CheckoutFolders) for f in sys.meta_path):
        sys.meta_path.append(_CheckoutFolders())
