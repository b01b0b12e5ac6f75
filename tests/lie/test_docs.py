"""The public API of porthamiltonian.lie: exports, numpydoc sections, runnable examples."""

import doctest
import inspect

import pytest

from porthamiltonian import lie
from porthamiltonian.lie import quaternion, se3, so3

MODULES = [so3, se3, quaternion]
PUBLIC = [
    pytest.param(getattr(m, name), id=f"{m.__name__.rsplit('.', 1)[1]}.{name}")
    for m in MODULES
    for name in m.__all__
]


def test_package_exports_the_modules():
    assert lie.__all__ == ["so3", "se3", "quaternion"]
    assert (lie.so3, lie.se3, lie.quaternion) == (so3, se3, quaternion)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_all_lists_every_public_function(module):
    public = {
        n
        for n, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == module.__name__ and not n.startswith("_")
    }
    assert public == set(module.__all__)


@pytest.mark.parametrize("func", PUBLIC)
def test_docstring_has_numpydoc_sections(func):
    doc = inspect.getdoc(func)
    summary = doc.splitlines()[0]
    assert summary.endswith(".") and len(summary) <= 100
    for section in ("Parameters", "Returns", "Raises", "Notes", "Examples"):
        assert f"\n{section}\n{'-' * len(section)}\n" in doc, section


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0
