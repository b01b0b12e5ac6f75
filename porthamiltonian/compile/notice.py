"""Saying so before a long first compile: the notice (`porthamiltonian.studies.warmup` compiles ahead).

A model's first compiled right-hand side costs seconds to a minute of numba compiling (the
contact chain's kernels, then the element kernels and the generated right-hand side; all
kept in numba's on-disk cache, so each machine pays once). Two things make that visible and
avoidable:

- `notice`: before `PHSystem` compiles anything that is not in numba's cache yet, one line
  on stderr says what is compiled, that it is the first run only, and about how long it takes
  (drawn as its own line above an integration's progress bar). Nothing is said when
  everything loads from the cache.
- `porthamiltonian.studies.warmup.warmup` (``porthamiltonian warmup``) compiles all of it ahead
  of time; it runs models, so it sits with the studies, above the compiler that says this.
"""

from __future__ import annotations

import re
import sys
import time

__all__ = ["notice", "say", "new_element_kernels", "kernel_kind", "CONTACT_KERNELS_S", "RHS_S", "ELEMENT_KERNEL_S"]

#: seconds to compile the whole contact chain (every kernel of `_parallel.DECLARED`) from an
#: empty cache, and a generated right-hand side's own level with its element kernels cached:
#: measured for the main job (`porthamiltonian run two-ellipsoids`) on the 2-core CI machine,
#: ~25 s of kernels (benchmarks/results/jit_boundary.md, 2026-11-27); the right-hand sides of
#: the models `benchmarks/rhs_compile.py` measures 2.3-4.3 s, the trotting Go1 the longest
#: (benchmarks/results/rhs_compile.md, 2026-11-29; ~6 s before); a busy machine takes up to
#: three times as long, so the notice's figure is an order of magnitude
CONTACT_KERNELS_S = 25.0
RHS_S = 4.0
#: seconds per element kernel compiled for the first time on this machine (the main job's
#: spring_rates 4.6 s, damper 1.3 s, friction 0.6 s, spring events 1.0 s, same measurement;
#: ball-drop's five sliding-plane kernels 19 s on a loaded 2-core machine, 2026-11-28)
ELEMENT_KERNEL_S = 3.0

#: the element kernels a generated source imports (`porthamiltonian.compile.jit`: ``_kN_``)
_ELEMENT_KERNEL = re.compile(r"_k\d+_")


def new_element_kernels(module):
    """The element kernels the generated right-hand side `module` calls of which numba's cache
    holds no version at all (they will compile; one with a version for other argument types
    may compile too, so this is a lower bound). The contact chain's kernels
    (`porthamiltonian.kernels._parallel.DECLARED`, which include the compliant contact's element
    kernels) are left out: the notice counts them as contact kernels."""
    from ..kernels._parallel import DECLARED

    declared = {id(k) for k in DECLARED}
    out = []
    for name, fn in vars(module).items():
        if _ELEMENT_KERNEL.fullmatch(name) and hasattr(fn, "py_func") and id(fn) not in declared:
            try:
                empty = not fn._cache.entries()   # the user's cache and the one built with the package
            except Exception:  # noqa: BLE001 - numba internals: when in doubt, not counted
                empty = False
            if empty and not fn.overloads:
                out.append(fn)
    return out


#: how the notice names the element kernels of a kernel module (others: the module's name)
_KIND_NAMES = {"bodies": "body", "compliant": "compliant-contact", "sliding_plane": "sliding-plane",
               "reduced": "reduced-contact", "joints": "joint", "articulated": "articulated-body", "hertz": "Hertz"}


def kernel_kind(kernel):
    """How the notice names `kernel`'s kind: its module's (``soil``, ``body``, ``joint``,
    ``compliant-contact``, ...)."""
    module = kernel.py_func.__module__.rsplit(".", 1)[-1]
    return _KIND_NAMES.get(module, module.replace("_", "-"))


def _elements(kinds):
    """``"5 soil kernels, 2 body kernels"`` for the kinds of the element kernels to compile
    (in their order of first appearance), or ``"2 element kernels"`` for a bare count."""
    if isinstance(kinds, int):
        return [f"{kinds} element kernel{'s' if kinds > 1 else ''}"] if kinds else []
    counts = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return [f"{n} {kind} kernel{'s' if n > 1 else ''}" for kind, n in counts.items()]


def notice(model, missing, declared, rhs_cached, new_elements=0):
    """The line said before a first compile, or None when everything is in numba's cache.

    Parameters
    ----------
    model : str
        The system's name.
    missing : int
        Contact-chain kernels the right-hand side may call that are not in numba's cache
        (`porthamiltonian.kernels._parallel.helpers_wanted`).
    declared : int
        Contact-chain kernels in all (`_parallel.DECLARED`).
    rhs_cached : bool
        Whether numba's cache holds the generated right-hand side for its argument types.
    new_elements : int or sequence of str
        Element kernels it calls never compiled on this machine (`new_element_kernels`): their
        number, or the kind of each (`kernel_kind`), which the line then names (``5 soil
        kernels, 3 body kernels``: the soil model's first compile, which the user would
        otherwise not tell from the right-hand side's).

    Returns
    -------
    str or None
        ``"porthamiltonian: compiling 14 contact kernels, 4 body kernels, 2 compliant-contact
        kernels and the right-hand side of 'two_ellipsoids' (first run only, cached
        afterwards), ~45 s"`` (the main job on empty caches: 27-40 s on the 2-core machine,
        more when it is loaded, `benchmarks/results/first_run.md`); the estimate is
        `CONTACT_KERNELS_S` times the fraction of kernels missing, plus `ELEMENT_KERNEL_S` per
        new element kernel, plus `RHS_S`.
    """
    what, seconds = [], 0.0
    if missing:
        what.append(f"{missing} contact kernel{'s' if missing > 1 else ''}")
        seconds += CONTACT_KERNELS_S * missing / max(declared, 1)
    elements = _elements(new_elements)
    what.extend(elements)
    seconds += ELEMENT_KERNEL_S * (new_elements if isinstance(new_elements, int) else len(new_elements))
    if not rhs_cached:
        what.append(f"the right-hand side of {model!r}")
        seconds += RHS_S
    if not what:
        return None
    listed = what[0] if len(what) == 1 else f"{', '.join(what[:-1])} and {what[-1]}"
    return f"porthamiltonian: compiling {listed} (first run only, cached afterwards), ~{seconds:.0f} s"


def say(line):
    """Write `line` on stderr now: through the progress logger when an integration's progress
    bar is drawn (the bar is closed first, then redrawn below), else directly."""
    from ..integrate.progress import ProgressHandler, _log

    if any(isinstance(h, ProgressHandler) for h in _log.handlers):
        _log.info(line)
    else:
        print(line, file=sys.stderr, flush=True)
