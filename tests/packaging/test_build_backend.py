"""The in-tree build backend (`_build/backend.py`): setuptools' wheel, with the contact kernels
compiled into it when it can, and a valid wheel without them when it cannot."""

import base64
import csv
import hashlib
import importlib.util
import io
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _backend():
    spec = importlib.util.spec_from_file_location("porthamiltonian_build_backend", ROOT / "_build" / "backend.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _source_tree(into):
    """What ``pip install .`` builds from: the project's files, without caches."""
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy(ROOT / name, into / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "_numba_cache")
    shutil.copytree(ROOT / "_build", into / "_build", ignore=ignore)
    shutil.copytree(ROOT / "porthamiltonian", into / "porthamiltonian", ignore=ignore)


def _check_record(wheel):
    """Every file of `wheel` is listed in its RECORD with its SHA-256 and size, and nothing else."""
    with zipfile.ZipFile(wheel) as zf:
        assert zf.testzip() is None
        record = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
        rows = {r[0]: r[1:] for r in csv.reader(io.StringIO(zf.read(record).decode())) if r}
        assert set(rows) == set(zf.namelist())
        for name in zf.namelist():
            if name != record:
                data = zf.read(name)
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert rows[name] == [f"sha256={digest}", str(len(data))], name
        return zf.namelist()


def test_without_numba_the_wheel_is_built_without_the_cache_and_says_so(tmp_path, monkeypatch, capsys):
    """numba not importable in the build environment (``sys.modules['numba'] = None`` makes its
    import raise ImportError): setuptools' wheel, valid (every file in its RECORD, hashes
    right), with the package and no compiled kernels, and one notice line. Then the step that
    adds the cache (`_add_to_wheel`) keeps the wheel valid with files added."""
    # the compile step must be asked for (.ci/run turns it off for its own install)
    monkeypatch.delenv("PORTHAMILTONIAN_COMPILE_AT_INSTALL", raising=False)
    backend = _backend()
    src = tmp_path / "src"
    src.mkdir()
    _source_tree(src)
    monkeypatch.chdir(src)
    monkeypatch.setitem(sys.modules, "numba", None)
    name = backend.build_wheel(str(tmp_path / "dist"))
    wheel = tmp_path / "dist" / name
    names = _check_record(wheel)
    assert "porthamiltonian/kernels/_njit.py" in names
    assert not [n for n in names if backend.SHIPPED_FOLDER in n or n.endswith((".nbi", ".nbc"))]
    notices = [line for line in capsys.readouterr().err.splitlines() if line.startswith("porthamiltonian build:")]
    assert len(notices) == 1 and "numba cannot be imported" in notices[0], notices

    index = tmp_path / "lie.dot3-58.py311.nbi"
    index.write_bytes(b"an index")
    backend._add_to_wheel(wheel, {"porthamiltonian/kernels/_numba_cache/lie.dot3-58.py311.nbi": index},
                          tmp_path / "scratch.whl")
    assert set(_check_record(wheel)) == set(names) | {"porthamiltonian/kernels/_numba_cache/lie.dot3-58.py311.nbi"}


_BLOCKER = '''\
"""Only the build requirements importable (test_build_backend): the package's other
dependencies raise ImportError, as in pip's isolated build environment."""
import sys

BLOCKED = {blocked!r}


class _Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is not a build requirement (pyproject.toml [build-system] requires)")
        return None


sys.meta_path.insert(0, _Refuse())
'''


def _module_names(requirements):
    """The top-level module names of distribution requirements ("dask[distributed]>=2023.6" ->
    dask, distributed), the names this project's dependencies import as."""
    import re

    names = set()
    for req in requirements:
        m = re.match(r"([A-Za-z0-9_.-]+)(?:\[([^\]]*)\])?", req)
        names.add(m.group(1).lower().replace("-", "_"))
        names.update(e.strip().lower().replace("-", "_") for e in (m.group(2) or "").split(",") if e.strip())
    return names


def test_the_kernels_compile_with_only_the_build_requirements(tmp_path, monkeypatch, capsys):
    """The real install path: `build_wheel` compiles the kernels in its two helper processes,
    where every dependency of the package that is not a build requirement cannot be imported
    (a ``sitecustomize`` on their ``PYTHONPATH`` refuses it; pip's isolated build environment
    holds only ``[build-system] requires``). The wheel must carry the compiled kernels and the
    notice say so. This failed while ``np.linalg`` kernels were compiled at install and scipy was
    not a build requirement (numba compiles LAPACK calls against scipy's): every install
    shipped no compiled kernels and the first run compiled them all (23 s more than a warm run,
    2026-11-29). ~40 s on 2 cores."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

    monkeypatch.delenv("PORTHAMILTONIAN_COMPILE_AT_INSTALL", raising=False)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    build = _module_names(project["build-system"]["requires"])
    runtime = _module_names(project["project"]["dependencies"])
    for extra in project["project"]["optional-dependencies"].values():
        runtime |= _module_names(extra)
    blocked = sorted(runtime - build - {"pin"} | {"pinocchio"})
    assert {"networkx", "sympy", "matplotlib"} <= set(blocked), blocked
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_BLOCKER.format(blocked=set(blocked)))
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "unused"))  # the backend sets its own
    backend = _backend()
    src = tmp_path / "src"
    src.mkdir()
    _source_tree(src)
    monkeypatch.chdir(src)
    name = backend.build_wheel(str(tmp_path / "dist"))
    notices = [line for line in capsys.readouterr().err.splitlines() if line.startswith("porthamiltonian build:")]
    assert len(notices) == 1 and "compiled the kernels into the wheel" in notices[0], notices
    names = _check_record(tmp_path / "dist" / name)
    shipped = [n for n in names if f"/{backend.SHIPPED_FOLDER}/" in n]
    # the contact chain and the solve of the multipliers (algebra.solve, the LAPACK call) at least
    assert any("/kernels/_numba_cache/contact_pair." in n for n in shipped), shipped[:10]
    assert any("/kernels/_numba_cache/algebra.solve" in n for n in shipped), shipped[:10]
