"""Compiled numerical kernels of the hot path (numba, every one through `_njit.njit`: cached,
numpy error model, no C-callable wrapper; the large ones called by symbol, `_njit.separate`;
the contact chain's declared with their one signature and compiled, on a model's first
compile, by helper processes alongside it: `_parallel`).

Pure functions on float64/int64 arrays and scalars: no Python objects, no validation (that
happens at the public API's boundary), output buffers passed in where an allocation can be
avoided. The public API (`porthamiltonian.geometry`, `porthamiltonian.contact`,
`porthamiltonian.library`) calls these same kernels after validating its arguments, so one
implementation serves both the tests of the public API and the generated right-hand side.

Modules: `lie` (quaternions, SO(3), SE(3)), `surfaces` (evaluation of the built-in surface
kinds by integer kind code and packed parameters, and the instruction tapes of sympy
surfaces), `closest` (closed forms, bounding tests, warm-started Newton refinement),
`contact` (the compliant contact's chain, gathered from its stages: `contact_pair`, the exact
contact pair computed once per contact and evaluation; `contact_kinematics`, Gauss-map
contact kinematics, contact frame and its rates; `contact_laws`, the laws read on the pair;
`curvature`, the relative curvature and its rates), `reduced` (Kry & Pai's
contact matrices and the reduced dynamics' solve), `hertz` (elliptical Hertz stiffness),
`bodies` (rigid-body rates, gravity, springs and dampers), and the element kernels of the compiled right-hand
side: `compliant` (compliant contact), `soil` (soil contact and its law), `sliding_plane`
(sliding-plane constraint), `joints`.
"""

import hashlib
from pathlib import Path


def _drop_stale_cache() -> str:
    """Delete numba's on-disk cache of these kernels when any kernel source changed.

    numba invalidates a cached function only when the file defining it changes, not when a
    kernel it calls from another file does (a caller compiled against an old `surfaces.py`
    would keep running the old evaluation). A stamp of all kernel sources, kept beside the
    cache, makes any change drop every cached kernel at once, in the package folder and in
    ``NUMBA_CACHE_DIR`` when that is set. An unwritable folder is left alone. Returns the
    stamp (`SOURCES_DIGEST`).
    """
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for src in sorted(here.glob("*.py")):
        digest.update(src.name.encode())
        digest.update(src.read_bytes())
    for cache in _cache_folders(here):
        stamp = cache / "kernels.stamp"
        try:
            if stamp.is_file() and stamp.read_text() == digest.hexdigest():
                continue
            for entry in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                entry.unlink(missing_ok=True)
            cache.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest.hexdigest())
        except OSError:
            pass
    return digest.hexdigest()


def _cache_folders(here):
    """Where numba caches these kernels: beside them, and under ``NUMBA_CACHE_DIR`` when it
    is set (numba's own sub-folder for this source folder: `_CacheLocator`)."""
    import os

    folders = [here / "__pycache__"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        from numba.core.caching import _CacheLocator

        sub = _CacheLocator.get_suitable_cache_subpath(str(here / "__init__.py"))
        folders.append(Path(os.environ["NUMBA_CACHE_DIR"]) / sub)
    return folders


#: digest of every kernel source: the generated right-hand sides carry it, so that a changed
#: kernel gives them a new cache file (numba would reuse one compiled against the old kernels)
SOURCES_DIGEST = _drop_stale_cache()
