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
