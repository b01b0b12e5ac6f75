"""The first compile spread over processes: kernels of fixed argument types compiled ahead, in
helper processes, while the model's own process compiles the rest.

A model's first compile is a tree of kernels (the generated right-hand side, the element
kernels it calls, the contact chain below them), and numba compiles it in one process, one
kernel after another. The contact chain (evaluation, pair state, Newton search, closed forms,
parameter rates) is most of it and does not depend on the model: its kernels are declared with
the one signature they are compiled for (``njit(argtypes=...)``), called through
`porthamiltonian.kernels._njit.separate` (compiled on their own, never linked into a caller).
So while the model's process types and compiles its right-hand side and element kernels, helper
processes compile those kernels into numba's on-disk cache, and the model's process loads them
from there when it reaches them. Measured on the main job's first run (`porthamiltonian run
two-ellipsoids` with empty caches, 2-core machine, one helper, 2026-11-27, numba 0.68): 27.5-28.7 s
against 38.3-38.6 s for the commit before, interleaved (21.0-21.4 s more than a warm run
instead of 31.5-31.6 s); with a CPU-bound process on the other core, 34.7-35.6 s against
38.1-39.1 s without helpers (`benchmarks/results/jit_boundary.md`).

How the processes share the work, without a coordinator:

- Each kernel of fixed argument types is compiled under a *claim*: a file named by the kernel
  and its argument types (`_claim_name`) in the folder ``claims`` of numba's cache of it,
  created exclusively (``O_EXCL``) and removed when its compile (or load) is done. It holds
  the claiming process's id and host.
- A process that needs a kernel another one has claimed waits until the claim is removed,
  then loads the kernel from numba's cache (or compiles it, if the other process died before
  saving it). A claim whose process is gone (same host, ``os.kill(pid, 0)`` fails) or older
  than `STALE_AFTER` (its file's time) is removed and taken over.
- numba saves a compiled version by reading its function's index, choosing a data file
  name, writing the index and the data; two processes saving two versions of one function at
  once could both choose the same name, leaving an index that points one signature at the
  other's machine code. `lock_saves` makes each save of a kernel's cache exclusive, under a
  lock file beside its index.
- A helper goes through the kernels in the order they are defined (`DECLARED`: a kernel's
  callees before it, so the bottom of the chain, which the model's process reaches last as
  it types its way down from the right-hand side, comes first) and passes over a kernel
  another process has claimed. No process waits on one that waits on it: a process holds
  claims only on the kernels it is compiling, each waits only for a kernel below the one it
  compiles, and the calls between kernels have no cycles.

Nothing depends on the helpers: without them (``PORTHAMILTONIAN_COMPILE_HELPERS=0``, one
CPU, numba's cache disabled, or a helper that fails) the model's process compiles everything,
as before. The helpers are stopped when the right-hand side is compiled.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from ..errors import PortHamiltonianError

__all__ = ["DECLARED", "PREBUILT", "import_kernel_modules", "compile_claimed", "lock_saves", "start_helpers",
           "stop_helpers", "helpers_wanted", "ahead", "HelperCountError", "STALE_AFTER"]

#: the kernels declared with their argument types (`porthamiltonian.kernels._njit.njit`'s
#: ``argtypes``, which adds them), in the order they were defined
DECLARED = []

#: ``(kernel, argument types)`` of the element kernels' versions compiled ahead with the
#: contact chain (`porthamiltonian.kernels._njit.njit`'s ``prebuilt``, which adds them)
PREBUILT = []

#: seconds after which a claim is taken over even if its process seems alive: the largest
#: kernel tree compiles in seconds, so a claim that old is left over from a process on another
#: host sharing the cache (taking over a live one only compiles a kernel twice)
STALE_AFTER = 120.0

#: claims need to tell whether a process is alive (``os.kill(pid, 0)``): POSIX only; elsewhere
#: each process compiles what it needs, as numba does, without helpers or locks
ENABLED = os.name == "posix"

_POLL = 0.02   # seconds between looks at a claim another process holds
_HOST = socket.gethostname()
_RUNNING = []  # helper processes started by this one and not yet reaped


class HelperCountError(PortHamiltonianError, ValueError):
    """``PORTHAMILTONIAN_COMPILE_HELPERS`` is not a whole number of processes, 0 or more."""


# -- claims
def version_name(module, name, argtypes):
    """``module.name.<digest of argtypes>``: the name of a kernel's compiled version, of its
    claim file here and (prefixed) of its machine code's symbol (`_njit.separate`)."""
    digest = hashlib.sha1(str(tuple(argtypes)).encode()).hexdigest()[:16]
    return f"{module}.{name}.{digest}"


def _claim_name(kernel, argtypes):
    """The file name of the claim on `kernel`'s compile for `argtypes`."""
    return version_name(kernel.py_func.__module__, kernel.py_func.__qualname__, argtypes)


def _claims_folder(kernel):
    """The folder of the claims on `kernel`'s compiles: beside numba's cache of it; None if
    numba does not cache it."""
    path = getattr(getattr(kernel, "_cache", None), "cache_path", None)
    return Path(path) / "claims" if path and ENABLED else None


def _claim(path):
    """Create the claim file `path` (holding this process's id and host); True if this
    process now holds it."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write(f"{os.getpid()} {_HOST}")
    return True


def _holder_gone(path):
    """Whether the claim `path` is left over: older than `STALE_AFTER`, or its process (on
    this host) no longer runs; False if it is gone already."""
    try:
        owner, age = path.read_text().split(), time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return False
    if age > STALE_AFTER:
        return True
    if len(owner) == 2 and owner[1] == _HOST:
        try:
            os.kill(int(owner[0]), 0)
        except ProcessLookupError:
            return True
        except (ValueError, OSError):   # a process of another user: alive
            pass
    return False


def compile_claimed(kernel, argtypes, skip_claimed=False):
    """Compile or load `kernel` for `argtypes` (a kernel of fixed argument types) under its
    claim (module docstring): waits while another process
    compiles it, then loads what that process saved. With `skip_claimed` (a helper's own
    list), returns False at once instead of waiting; True once `kernel` has `argtypes`."""
    if tuple(argtypes) in kernel.overloads:
        return True
    folder = _claims_folder(kernel)
    if folder is None:
        kernel.compile(argtypes)
        return True
    path = folder / _claim_name(kernel, argtypes)
    while True:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            held = _claim(path)
        except OSError:   # an unwritable cache folder: numba does not save there either
            kernel.compile(argtypes)
            return True
        if held:
            try:
                kernel.compile(argtypes)
            finally:
                path.unlink(missing_ok=True)
            return True
        if skip_claimed:
            return False
        while path.exists():
            if _holder_gone(path):
                path.unlink(missing_ok=True)
                break
            time.sleep(_POLL)


def _acquire(path):
    """Wait for the lock file `path` (a claim, taken over when left over) and hold it."""
    while not _claim(path):
        if _holder_gone(path):
            path.unlink(missing_ok=True)
        else:
            time.sleep(0.001)


def lock_saves(dispatcher):
    """`dispatcher`, whose saves to numba's cache are exclusive between processes (module
    docstring); left alone if numba does not cache it."""
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
    if index is None or not ENABLED:
        return dispatcher
    cache_file, lock = dispatcher._cache._cache_file, Path(index + ".lock")
    save = cache_file.save

    def locked_save(key, data):
        try:
            _acquire(lock)
        except OSError:   # no lock file can be written there: nor can numba's cache
            return save(key, data)
        try:
            save(key, data)
        finally:
            lock.unlink(missing_ok=True)

    cache_file.save = locked_save
    return dispatcher


# -- helper processes
def _on_disk(kernel, argtypes):
    """Whether numba's cache (the user's or the one built with the package: `_njit.KernelCache`)
    holds `kernel` for `argtypes` (read from its indexes, without loading it; False if that
    cannot be told)."""
    try:
        cache = kernel._cache
        key = cache._index_key(tuple(argtypes), kernel.targetctx.codegen())
        return key in cache.entries()
    except Exception:  # noqa: BLE001 - numba internals: when in doubt, the kernel is missing
        return False


def _kernel_modules(objects):
    """The kernel modules the compiled functions among `objects` come from, and every kernel
    module those import (directly or through a kernel imported by name)."""
    package = __name__.rsplit(".", 1)[0] + "."
    todo = {o.py_func.__module__ for o in objects if hasattr(o, "py_func")}
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen or not name.startswith(package) or name not in sys.modules:
            continue
        seen.add(name)
        for value in vars(sys.modules[name]).values():
            if isinstance(value, type(sys)):
                todo.add(value.__name__)
            elif hasattr(value, "py_func"):
                todo.add(value.py_func.__module__)
    return seen


def helpers_wanted(objects):
    """The kernels of fixed argument types (`DECLARED`, in definition order) that the
    compiled functions among `objects` may call and that are neither compiled in this
    process nor in numba's cache."""
    modules = _kernel_modules(objects)
    return [k for k in DECLARED if k.py_func.__module__ in modules
            and k._fixed not in k.overloads and not _on_disk(k, k._fixed)]


def _helper_count(n_kernels):
    """Helper processes to start: ``PORTHAMILTONIAN_COMPILE_HELPERS`` if set, else one fewer
    than the CPUs this process may use (at most 3: the kernels' call tree is not wider than
    that), and never more than the kernels to compile."""
    env = os.environ.get("PORTHAMILTONIAN_COMPILE_HELPERS")
    if env is not None:
        try:
            wanted = int(env)
        except ValueError:
            wanted = -1
        if wanted < 0:
            raise HelperCountError(f"environment variable PORTHAMILTONIAN_COMPILE_HELPERS={env!r}: expected a whole "
                                   "number of helper processes, 0 or more")
    else:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        wanted = min(cpus - 1, 3)
    return max(0, min(wanted, n_kernels))


def start_helpers(kernels):
    """Start helper processes compiling `kernels` (dispatchers declared with ``argtypes``, in
    definition order: module docstring); returns them (none when there is nothing to gain).
    The helpers this process started that still run (`ahead`'s) count against the number
    allowed (`_helper_count`). Raises `HelperCountError` for a bad
    ``PORTHAMILTONIAN_COMPILE_HELPERS``."""
    count = _helper_count(len(kernels)) - sum(proc.poll() is None for proc in _RUNNING)
    if not ENABLED or os.environ.get("NUMBA_DISABLE_JIT", "0") != "0":
        return []
    names = [f"{k.py_func.__module__}:{k.py_func.__qualname__}" for k in kernels]
    helpers = []
    for _ in range(count):
        try:
            helpers.append(subprocess.Popen([sys.executable, "-c", _HELPER, *names], stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        except OSError:   # no process to spare: this one compiles everything
            break
    _RUNNING.extend(helpers)
    return helpers


def import_kernel_modules():
    """Import every kernel module: each adds its declared kernels to `DECLARED` and its
    prebuilt versions to `PREBUILT` as it is imported (0.04 s)."""
    import importlib
    import pkgutil

    package = importlib.import_module(__name__.rsplit(".", 1)[0])
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{info.name}")


@contextmanager
def ahead():
    """Helper processes compile the contact chain's kernels missing from numba's cache while
    the block runs: the command line builds its model in the block, so that the first run's
    helpers start when the package is imported rather than when the model's right-hand side
    is compiled (`PHSystem.compiled` starts helpers only up to the number allowed,
    `start_helpers`); they are stopped when the block ends.

    Every declared kernel is taken, in definition order (`DECLARED`; the kernel modules are
    imported first, 0.04 s): which of them the model calls is known only once its right-hand
    side is generated. A model that calls none of them pays nothing on its own process; the
    helper then works on the other CPU until the block ends, and what it finished stays in the
    cache. Measured on the main job: `benchmarks/results/first_run.md`."""
    import_kernel_modules()
    missing = [k for k in DECLARED if k._fixed not in k.overloads and not _on_disk(k, k._fixed)]
    helpers = start_helpers(missing) if missing else []
    try:
        yield helpers
    finally:
        stop_helpers(helpers)


def stop_helpers(helpers):
    """Stop `helpers` (what they compile then is not needed: this process has compiled or
    loaded everything it calls); they remove their claims as they exit."""
    for proc in helpers:
        if proc.poll() is None:
            proc.terminate()


@atexit.register
def _reap():
    for proc in _RUNNING:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


def _helper(names):
    """A helper process: compile or load each kernel of `names` ("module:qualname") for its
    declared argument types, passing over those another process has claimed."""
    import importlib

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))   # exit through the claims' ``finally``
    for name in names:
        module, qualname = name.split(":")
        kernel = getattr(importlib.import_module(module), qualname)
        compile_claimed(kernel, kernel._fixed, skip_claimed=True)


#: the helper's command (``python -c``), followed by the kernels' names
_HELPER = f"import sys; from {__name__} import _helper; _helper(sys.argv[1:])"

