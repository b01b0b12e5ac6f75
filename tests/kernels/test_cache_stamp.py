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


def test_a_cached_kernel_is_not_read_after_another_kernel_changed(tmp_path):
    """A copy of the package: `lie.dot3` is compiled into an empty cache (a miss), loaded by a
    second process (a hit), and compiled again (a miss, not a stale hit) after a change to
    another kernel file (`bodies.py`, which `lie.py` does not see), then loaded again."""
    copy = tmp_path / "src"
    # the kernels and what they import (`errors`) under an empty package: a light import
    shutil.copytree(PACKAGE / "kernels", copy / "porthamiltonian" / "kernels",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    shutil.copy(PACKAGE / "errors.py", copy / "porthamiltonian" / "errors.py")
    (copy / "porthamiltonian" / "__init__.py").write_text("")
    cache = tmp_path / "numba"

    def hits_misses():
        return tuple(int(x) for x in _run(_COMPILE, copy, cache).split())

    assert hits_misses() == (0, 1)
    assert hits_misses() == (1, 0)
    bodies = copy / "porthamiltonian" / "kernels" / "bodies.py"
    bodies.write_text(bodies.read_text() + "\n# a changed kernel source\n")
    assert hits_misses() == (0, 1)
    assert hits_misses() == (1, 0)


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
