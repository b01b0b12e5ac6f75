"""The package is typed (PEP 561): py.typed ships, and the public entry points carry hints."""

import importlib
import inspect
from importlib import resources
from pathlib import Path

import pytest

import porthamiltonian as ph

ROOT = Path(__file__).resolve().parents[2]


def test_py_typed_is_package_data():
    assert resources.files("porthamiltonian").joinpath("py.typed").is_file()
    tomllib = pytest.importorskip("tomllib")   # Python >= 3.11
    with open(ROOT / "pyproject.toml", "rb") as f:
        package_data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["porthamiltonian"]


ENTRY_POINTS = [
    importlib.import_module("porthamiltonian.compile.compiler").compile,
    ph.simulate,
    *[getattr(ph.BondGraph, m) for m in ("add", "connect", "expose", "remove", "disconnect", "swap", "copy", "save",
                                         "draw")],
    *[getattr(ph.Trajectory, m) for m in ("state", "at", "sol", "power_budget", "save")],
]


@pytest.mark.parametrize("function", ENTRY_POINTS, ids=lambda f: f.__qualname__)
def test_entry_points_are_annotated(function):
    sig = inspect.signature(function)
    bare = [n for n, p in sig.parameters.items()
            if n != "self" and p.kind not in (p.VAR_KEYWORD,) and p.annotation is inspect.Parameter.empty]
    assert not bare, f"{function.__qualname__}: parameters without a type hint: {bare}"
    assert sig.return_annotation is not inspect.Signature.empty, function.__qualname__
