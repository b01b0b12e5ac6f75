"""numba's cache of the kernels: importing the package writes and deletes nothing, and a
cached kernel is not read after another kernel's source changed (issue 37 item 5)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import porthamiltonian

PACKAGE = Path(porthamiltonian.__file__).parent


def _listing(root):
    """Every file under `root` with its size and modification time (ns)."""
    out = {}
    for path in sorted(Path(root).rglob("*")):
        if path.is_file():
            st = path.stat()
            out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


def _run(code, cwd, numba_cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache), PYTHONDONTWRITEBYTECODE="1")
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_the_package_writes_and_deletes_nothing(tmp_path):
    """Before, `kernels/__init__.py` deleted every ``.nbi``/``.nbc`` file of a cache folder
    whose ``kernels.stamp`` did not match the sources, and wrote the stamp, on import. A
    foreign index file in the kernels' numba cache folder and the package tree must come out
    of a plain import untouched (bytecode writing off, so that Python's own ``.pyc`` files do
    not count)."""
    from numba.core.caching import _CacheLocator

    cache = tmp_path / "numba"
    folder = cache / _CacheLocator.get_suitable_cache_subpath(str(PACKAGE / "kernels" / "__init__.py"))
    folder.mkdir(parents=True)
    (folder / "someone-1.py311.nbi").write_bytes(b"not ours to delete")
    before = _listing(cache), _listing(PACKAGE)
    _run("import porthamiltonian, porthamiltonian.cli", PACKAGE.parent, cache)
    assert (_listing(cache), _listing(PACKAGE)) == before


_COMPILE = """
from porthamiltonian.kernels import lie
import numpy as np
a = np.array([1.0, 2.0, 3.0])
lie.dot3(a, a)
print(lie.dot3.stats.cache_hits.get(lie.dot3.signatures[0], 0),
      lie.dot3.stats.cache_misses.get(lie.dot3.signatures[0], 0))
"""


def _index(folder, name, stamp, data_names, version=None):
    """A numba index file as numba writes it (`IndexDataCacheFile._save_index`), and its data files."""
    import pickle

    import numba

    with open(folder / f"{name}.nbi", "wb") as f:
        pickle.dump(version or numba.__version__, f, protocol=-1)
        f.write(pickle.dumps((stamp, {("sig", i): n for i, n in enumerate(data_names)})))
    for n in data_names:
        (folder / n).write_bytes(b"machine code")


def test_warmups_prune_deletes_only_entries_of_other_kernel_sources(tmp_path):
    from porthamiltonian.kernels import SOURCES_DIGEST
    from porthamiltonian.kernels._njit import prune_stale_cache

    _index(tmp_path, "lie.dot3-58.py311", (b"src", SOURCES_DIGEST), ["lie.dot3-58.py311.1.nbc"])
    _index(tmp_path, "lie.cross3-23.py311", (b"src", "another digest"), ["lie.cross3-23.py311.1.nbc",
                                                                        "lie.cross3-23.py311.2.nbc"])
    _index(tmp_path, "lie.mm-94.py311", b"the old scheme's stamp", ["lie.mm-94.py311.1.nbc"])
    _index(tmp_path, "lie.mv-69.py311", (b"src", "another digest"), ["lie.mv-69.py311.1.nbc"], version="0.1")
    (tmp_path / "lie.hat-5.py311.nbi").write_bytes(b"unreadable")
    (tmp_path / "kernels.stamp").write_text("an old digest")
    assert prune_stale_cache([tmp_path]) == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "lie.dot3-58.py311.1.nbc", "lie.dot3-58.py311.nbi",      # this version's
        "lie.hat-5.py311.nbi",                                   # unreadable: not judged
        "lie.mv-69.py311.1.nbc", "lie.mv-69.py311.nbi"]          # another numba's


def test_a_shipped_cache_loads_elsewhere_but_not_after_another_kernel_changed(tmp_path):
    """What ``pip install`` does to a cache compiled at build (`_njit.KernelCache`): `lie.dot3`
    is compiled in one copy of the kernels (a miss); its cache files become the shipped cache
    (``_numba_cache``) of a second copy in another folder, every file's time changed (pip does
    not keep them), and a process there with an empty user cache loads it (a hit). After one
    changed byte in another kernel file (`bodies.py`, which `lie.py` does not see) it is not
    read (a miss: issue 37 item 5), and what that compiled loads from the user's cache (a hit).
    A copy of the kernels and what they import (`errors`) under an empty package: a light
    import."""
    from numba.core.caching import _CacheLocator

    from porthamiltonian.kernels._njit import SHIPPED_FOLDER

    def copy_into(root):
        shutil.copytree(PACKAGE / "kernels", root / "porthamiltonian" / "kernels",
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", SHIPPED_FOLDER))
        shutil.copy(PACKAGE / "errors.py", root / "porthamiltonian" / "errors.py")
        (root / "porthamiltonian" / "__init__.py").write_text("")
        return root / "porthamiltonian" / "kernels"

    built, installed = copy_into(tmp_path / "build"), copy_into(tmp_path / "site")

    def hits_misses(root, cache):
        return tuple(int(x) for x in _run(_COMPILE, root, cache).split())

    assert hits_misses(tmp_path / "build", tmp_path / "numba-build") == (0, 1)
    written = tmp_path / "numba-build" / _CacheLocator.get_suitable_cache_subpath(str(built / "lie.py"))
    shipped = installed / SHIPPED_FOLDER
    shipped.mkdir()
    for f in written.glob("lie.*.nb[ic]"):
        shutil.copy(f, shipped / f.name)
    assert list(shipped.glob("lie.dot3-*.nbi"))
    for f in installed.rglob("*"):
        os.utime(f, (1.0e9, 1.0e9))   # 2001: not the build's time
    assert hits_misses(tmp_path / "site", tmp_path / "numba-user") == (1, 0)
    bodies = installed / "bodies.py"
    bodies.write_bytes(bodies.read_bytes() + b"# one more line\n")
    os.utime(bodies, (1.0e9, 1.0e9))
    assert hits_misses(tmp_path / "site", tmp_path / "numba-user") == (0, 1)
    assert hits_misses(tmp_path / "site", tmp_path / "numba-user") == (1, 0)


def test_the_stamp_is_the_content_not_the_files_time(tmp_path):
    """`_njit._ContentStamp`: a new modification time (what ``pip install`` gives every file)
    keeps the stamp; one changed byte changes it (numba before 0.61 stamped time and size)."""
    import importlib.util

    from porthamiltonian.kernels import SOURCES_DIGEST
    from porthamiltonian.kernels._njit import _InTreeLocator

    src = tmp_path / "stamped.py"
    src.write_text("def f(x):\n    return x\n")
    spec = importlib.util.spec_from_file_location("stamped", src)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stamp = _InTreeLocator.from_function(module.f, str(src)).get_source_stamp()
    assert stamp[1] == SOURCES_DIGEST
    os.utime(src, (1.0e9, 1.0e9))
    assert _InTreeLocator.from_function(module.f, str(src)).get_source_stamp() == stamp
    src.write_text("def f(x):\n    return x \n")   # same size too: one byte changed
    os.utime(src, (1.0e9, 1.0e9))
    assert _InTreeLocator.from_function(module.f, str(src)).get_source_stamp() != stamp


def test_a_shipped_entry_of_another_numba_or_cpu_is_not_read(tmp_path):
    """The build backend's claim (`_build/backend.py`): a wheel's cache built with another numba
    version than the runtime's, or on another CPU, means a compile, never a wrong load. A shipped
    index (``_numba_cache``) holding the function's own key is seen (the check can fail); one
    written by another numba version is not read (numba's ``IndexDataCacheFile`` drops it whole),
    nor is an entry for another CPU (numba's key holds the CPU's name and features); the
    function then compiles and returns the right value."""
    import importlib.util
    import pickle

    import numba

    from porthamiltonian.kernels._njit import SHIPPED_FOLDER

    src = tmp_path / "shipped_mod.py"
    src.write_text("from porthamiltonian.kernels._njit import njit\n\n\n@njit\ndef twice(x):\n    return 2.0 * x\n")
    spec = importlib.util.spec_from_file_location("shipped_mod", src)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cache = module.twice._cache
    key = cache._index_key((numba.float64,), module.twice.targetctx.codegen())
    shipped = tmp_path / SHIPPED_FOLDER
    shipped.mkdir()
    stamp = cache._cache_file._source_stamp

    def ship(version, keys):
        with open(shipped / cache._cache_file._index_name, "wb") as f:
            pickle.dump(version, f, protocol=-1)
            f.write(pickle.dumps((stamp, {k: "twice.1.nbc" for k in keys})))
        (shipped / "twice.1.nbc").write_bytes(b"not machine code")

    ship(numba.__version__, [key])
    assert key in cache.entries()
    ship("0.59.0", [key])
    assert key not in cache.entries()
    another_cpu = (key[0], (key[1][0], "another-cpu", key[1][2]), key[2])
    ship(numba.__version__, [another_cpu])
    assert key not in cache.entries()
    assert module.twice(1.5) == 3.0   # exact: a product by 2 of a float
    assert sum(module.twice.stats.cache_misses.values()) == 1
