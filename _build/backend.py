"""The package's PEP 517 build backend: setuptools', and a wheel that carries the kernels the
main job needs compiled for the machine that builds it (issue 36, "The first run").

``pip install .`` (or ``pip install porthamiltonian`` from a source distribution) builds the
wheel on the user's own machine through this backend, in an environment holding the build
requirements (``pyproject.toml``: setuptools, numba, numpy, and scipy, whose LAPACK numba compiles
``np.linalg`` against). `build_wheel` builds the wheel
with setuptools, unpacks it into a temporary folder, compiles there the kernels
``porthamiltonian warmup`` compiles first (the contact chain and the element kernels'
prebuilt versions: `porthamiltonian.kernels._njit.compile_declared`, `compile_prebuilt`, in
two processes sharing the work through the kernels' claims), and adds numba's cache of them
to the wheel, in a folder ``_numba_cache`` beside each kernel module
(`porthamiltonian.kernels._njit.SHIPPED_FOLDER`). At run time every kernel's cache
(`porthamiltonian.kernels._njit.KernelCache`) reads the user's cache first, then that folder.

Why it loads after install: the cache entries are stamped with the kernel sources' content,
not with file times, which pip does not keep, nor with the folder (`_njit._ContentStamp`).
Why it is never wrong: numba keys each entry by the function's signature and bytecode and by
the CPU's name and features, and reads an index only if the same numba version wrote it; a
wheel moved to another machine, or installed beside another numba than the build
environment's, finds no entry that applies and compiles as without it.

What is compiled besides the contact chain: the versions of element kernels (bodies, gravity,
the compliant contact's laws, the generated code's slices) that the built-in models'
right-hand sides and the package's Python wrappers call, declared beside each kernel
(``njit``'s ``prebuilt``: `porthamiltonian.kernels._njit.compile_prebuilt`). What is not:
other versions (a model whose elements have other port counts), the other element kernels
(joints, soil, ...), and each model's generated right-hand side, which needs the model layer
and its dependencies that the build environment does not hold (installing them there would
double the install's downloads). They compile at the first run (the main job: its right-hand
side only, a few seconds: ``benchmarks/results/first_run.md``); ``porthamiltonian warmup``
compiles the built-in models' ahead.
It never makes an install fail: if numba cannot be imported in the build environment (a build
without isolation in an environment without it), or compiling fails or takes more than
`TIMEOUT` seconds, the wheel is built without the cache and one line on stderr says so (pip
shows the backend's output with ``-v``); the kernels then compile at first use, as without
this backend. ``PORTHAMILTONIAN_COMPILE_AT_INSTALL=0`` in the environment, or the config
setting ``compile-kernels=false`` (``pip install . -C compile-kernels=false``), skips the
compile.

Editable installs (``pip install -e .``) and source distributions are setuptools' own: the
package runs from the source tree, and its kernels compile at first use into numba's cache
(``__pycache__`` beside them, or ``NUMBA_CACHE_DIR``), as before.
"""

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 - the hooks this backend does not change
    __legacy__,
    SetupRequirementsError,
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = list(_setuptools.__all__)

#: seconds the kernels may take to compile at install (about a minute on a quiet 2-core
#: machine); past it the wheel is built without them
TIMEOUT = 1200

#: the folder, beside each kernel module, of the machine code added to the wheel (the same
#: name as `porthamiltonian.kernels._njit.SHIPPED_FOLDER`, which this backend cannot import)
SHIPPED_FOLDER = "_numba_cache"

_HERE = Path(__file__).resolve().parent


def _notice(message):
    print(f"porthamiltonian build: {message}", file=sys.stderr, flush=True)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """setuptools' wheel, with the kernels compiled into it (module docstring);
    returns the wheel's file name."""
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    wheel = Path(wheel_directory) / name
    why_not = _skipped(config_settings)
    if why_not:
        _notice(f"kernels not compiled at install ({why_not}): they compile at first use")
        return name
    start = time.monotonic()
    try:
        added = add_compiled_kernels(wheel)
    except Exception as exc:  # noqa: BLE001 - nothing here may fail the install
        _notice(f"compiling the kernels at install failed ({type(exc).__name__}: {_last_line(exc)}); "
                "the wheel carries no compiled kernels: they compile at first use")
        return name
    _notice(f"compiled the kernels into the wheel ({added} cache files, {time.monotonic() - start:.0f} s)")
    return name


def _skipped(config_settings):
    """Why the kernels are not to be compiled (a switch, or numba missing), or None."""
    setting = str((config_settings or {}).get("compile-kernels", "true")).lower()
    if setting in ("0", "false", "no", "off"):
        return f"config setting compile-kernels={setting}"
    if os.environ.get("PORTHAMILTONIAN_COMPILE_AT_INSTALL", "1").lower() in ("0", "false", "no", "off"):
        return "PORTHAMILTONIAN_COMPILE_AT_INSTALL=" + os.environ["PORTHAMILTONIAN_COMPILE_AT_INSTALL"]
    try:
        import numba  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as exc:
        return f"numba cannot be imported in the build environment: {exc}"
    return None


def _last_line(exc):
    text = str(exc).strip().splitlines()
    return text[-1] if text else ""


def add_compiled_kernels(wheel):
    """Compile the kernels of the package in `wheel` (a path; module docstring) and add numba's
    cache of them to it, in place (the wheel is rewritten only once everything succeeded).

    Returns
    -------
    int
        The number of cache files added.

    Raises
    ------
    RuntimeError
        The compile failed (its last lines of stderr) or took longer than `TIMEOUT`.
    """
    wheel = Path(wheel)
    with tempfile.TemporaryDirectory(prefix="porthamiltonian-build-") as tmp:
        tmp = Path(tmp)
        site, numba_cache = tmp / "site", tmp / "numba"
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(site)
        _compile(site, numba_cache)
        files = _cache_files(site, numba_cache)
        if not files:
            raise RuntimeError("the compile wrote no cache files")
        _add_to_wheel(wheel, files, tmp / wheel.name)
    return len(files)


def _compile(site, numba_cache):
    """Run `compile_kernels.py` on the unpacked package `site` in two processes sharing the
    kernels (their claims), numba's cache at `numba_cache`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_DISABLE_JIT", "NUMBA_CACHE_LOCATOR_CLASSES", "PYTHONSTARTUP")}
    env.update(NUMBA_CACHE_DIR=str(numba_cache), PYTHONDONTWRITEBYTECODE="1")
    script = str(_HERE / "compile_kernels.py")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    procs = [subprocess.Popen([sys.executable, script, str(site)] + (["--pass-over"] if i else []), cwd=site,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2 if cpus > 1 else 1)]
    deadline = time.monotonic() + TIMEOUT
    try:
        for proc in procs:
            _, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            if proc.returncode != 0:
                raise RuntimeError(f"exit {proc.returncode}: " + " | ".join(err.strip().splitlines()[-3:]))
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"not done after {TIMEOUT} s") from None
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _cache_files(site, numba_cache):
    """{name in the wheel: file} of numba's cache files (index and data) of every module folder
    of the package in `site`, taken from `numba_cache` (numba's sub-folder of a source folder:
    its name and a hash of its path, as `numba.core.caching._CacheLocator` makes it)."""
    from numba.core.caching import _CacheLocator

    files = {}
    for folder in sorted({p.parent for p in (site / "porthamiltonian").rglob("*.py")}):
        written = numba_cache / _CacheLocator.get_suitable_cache_subpath(str(folder / "__init__.py"))
        for path in sorted(written.glob("*.nb[ic]")) if written.is_dir() else ():
            files[(folder / SHIPPED_FOLDER / path.name).relative_to(site).as_posix()] = path
    return files


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _add_to_wheel(wheel, files, scratch):
    """Rewrite `wheel` with `files` ({name: path}) added and listed in its RECORD (name, hash,
    size: the wheel format), through `scratch` (replaces the wheel at the end)."""
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(scratch, "w", zipfile.ZIP_DEFLATED) as dst:
        record_name = next(n for n in src.namelist() if n.endswith(".dist-info/RECORD"))
        rows = list(csv.reader(io.StringIO(src.read(record_name).decode())))
        rows = [r for r in rows if r and r[0] != record_name]
        for info in src.infolist():
            if info.filename != record_name:
                dst.writestr(info, src.read(info))
        for name, path in files.items():
            data = path.read_bytes()
            dst.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
            rows.append([name, _record_hash(data), str(len(data))])
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows + [[record_name, "", ""]])
        dst.writestr(src.getinfo(record_name), out.getvalue())
    shutil.move(str(scratch), str(wheel))
