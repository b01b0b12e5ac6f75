"""Compiled numerical kernels of the hot path (numba ``@njit(cache=True)``).

Pure functions on float64/int64 arrays and scalars: no Python objects, no validation (that
happens at the public API's boundary), output buffers passed in where an allocation can be
avoided. The public API (`porthamiltonian.geometry`, `porthamiltonian.contact`,
`porthamiltonian.library`) calls these same kernels after validating its arguments, so one
implementation serves both the tests of the public API and the generated right-hand side.

Modules: `lie` (quaternions, SO(3), SE(3)), `surfaces` (evaluation of the built-in surface
kinds by integer kind code and packed parameters, and the instruction tapes of sympy
surfaces), `closest` (closed forms, bounding tests, warm-started Newton refinement),
`contact` (Gauss-map contact kinematics, contact frame and its rates), `reduced` (Kry & Pai's
contact matrices and the reduced dynamics' solve), `hertz` (elliptical Hertz stiffness),
`bodies` (rigid-body rates, gravity, springs and dampers), and the element kernels of the compiled right-hand
side: `compliant` (compliant contact), `sliding_plane` (sliding-plane constraint), `joints`.
"""

import hashlib
from pathlib import Path


def _drop_stale_cache() -> str:
    """Delete numba's on-disk cache of these kernels when any kernel source changed.

    numba invalidates a cached function only when the file defining it changes, not when a
    kernel it calls from another file does (a caller compiled against an old `surfaces.py`
    would keep running the old evaluation). A stamp of all kernel sources, kept beside the
    cache, makes any change drop every cached kernel at once. An unwritable package folder
    is left alone (numba then caches in its user-wide folder, keyed the same way). Returns the
    stamp (`SOURCES_DIGEST`).
    """
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for src in sorted(here.glob("*.py")):
        digest.update(src.name.encode())
        digest.update(src.read_bytes())
    cache = here / "__pycache__"
    stamp = cache / "kernels.stamp"
    try:
        if stamp.is_file() and stamp.read_text() == digest.hexdigest():
            return digest.hexdigest()
        for entry in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            entry.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass
    return digest.hexdigest()


#: digest of every kernel source: the generated right-hand sides carry it, so that a changed
#: kernel gives them a new cache file (numba would reuse one compiled against the old kernels)
SOURCES_DIGEST = _drop_stale_cache()
