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
`curvature`, the relative curvature and its rates), `point` (the contact kinematics in
radius-of-curvature form, for a point foot against a surface), `reduced` (Kry & Pai's
contact matrices and the reduced dynamics' solve), `hertz` (elliptical Hertz stiffness),
`bodies` (rigid-body rates, gravity, springs and dampers), the element kernels of the compiled right-hand
side: `compliant` (compliant contact), `soil` (soil contact and its law), `sliding_plane`
(sliding-plane constraint), `joints`, and `algebra`, the array algebra the generated code
strings them with (products, constraint rows, the multipliers' solve).
"""

import hashlib
from pathlib import Path


def _sources_digest() -> str:
    """SHA-256 of every kernel source (file names and contents, in name order): read only.

    numba invalidates a cached function only when the file defining it changes, not when a
    kernel it calls from another file does (a caller compiled against an old `surfaces.py`
    would keep running the old evaluation). Every function compiled through `_njit.njit`
    therefore carries this digest in its cache entry's freshness stamp
    (`porthamiltonian.kernels._njit.KernelCache`): after any kernel source changes, the old
    entries are never read, and numba overwrites them in place (its data files are numbered)
    when it saves the new versions. Nothing is deleted or written at import; ``porthamiltonian
    warmup`` deletes the stale entries (`porthamiltonian.kernels._njit.prune_stale_cache`).
    """
    digest = hashlib.sha256()
    for src in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(src.name.encode())
        digest.update(src.read_bytes())
    return digest.hexdigest()


#: digest of every kernel source: part of every compiled kernel's cache stamp, and of the
#: generated right-hand sides' file names (numba would reuse one compiled against old kernels)
SOURCES_DIGEST = _sources_digest()
