"""Every subpackage of the source tree is installed: pyproject's explicit `packages` list names
each folder of `porthamiltonian/` that holds an ``__init__.py`` (a missing entry would install a
package without, e.g., `porthamiltonian.models`, and only a user's import would tell)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_every_subpackage_is_listed_in_pyproject():
    tomllib = pytest.importorskip("tomllib")   # Python >= 3.11
    with open(ROOT / "pyproject.toml", "rb") as f:
        setuptools = tomllib.load(f)["tool"]["setuptools"]
    in_tree = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "porthamiltonian").rglob("__init__.py")
               if "__pycache__" not in p.parts}
    assert in_tree == set(setuptools["packages"])
    assert "package-dir" not in setuptools   # library/ and models/ live inside the package folder


def test_library_and_models_are_inside_the_package():
    import porthamiltonian
    import porthamiltonian.library as library
    import porthamiltonian.models as models

    package = Path(porthamiltonian.__file__).parent
    assert Path(library.__file__).parent == package / "library"
    assert Path(models.__file__).parent == package / "models"
