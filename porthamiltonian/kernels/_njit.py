"""The decorator of every compiled kernel: numba's ``njit`` with the package's options.

Every kernel and every generated right-hand side is compiled with `OPTIONS`:

- ``cache=True``: machine code is kept on disk (beside the kernels, or under
  ``NUMBA_CACHE_DIR``), so a machine compiles each kernel once; the cache is a `KernelCache`
  (stamped with the sources' content, and read also from the machine code built at ``pip
  install``: `SHIPPED_FOLDER`).
- ``error_model="numpy"``: a float division by zero gives ``inf``/``nan`` instead of raising
  ``ZeroDivisionError``. The kernels never rely on the exception: a non-finite rate is a
  status the caller answers by evaluating the Python path at the same state, which raises
  the element's own error. numba's Python error model wraps every division in a test and an
  exception block, which is compiled again in every caller the kernel is linked into.
- ``no_cfunc_wrapper=True``: numba otherwise builds, for every kernel, a C-callable wrapper
  used only when a function is passed as a first-class function value, which the package
  never does.

Together the last two take 2 to 5 s off the first run of the main job (`porthamiltonian
run two-ellipsoids` on empty caches) on the 2-core CI machine: 44.3 -> 39.5 s in one
measurement, 47-48 -> 44-46 s in runs interleaved with the commit before (2026-11-26, numba
0.68; `benchmarks/results/speed_after.md`). The saving is larger than the code they remove
because numba links a kernel's whole call tree into every function compiled above it and
optimizes and emits it again there, so everything a kernel carries is paid at every level of
the tree. The calling convention is unchanged (every kernel stays callable
from Python).

Kernels whose call tree is large are called from other kernels and from the generated
right-hand sides through `separate`: numba otherwise links a callee's whole tree into every
function compiled above it, and optimizes it and emits its machine code again at each level
(`separate`'s docstring). The contact chain's kernels are declared with their one signature
(`njit`'s ``argtypes``), so that helper processes can compile them while a model's process
compiles the rest of its right-hand side (`porthamiltonian.kernels._parallel`).
"""

import functools
import hashlib
import importlib
import inspect
import os

import numba
from numba.core import caching, sigutils

from . import _parallel
from ._parallel import DECLARED, PREBUILT, compile_claimed, lock_saves, version_name

__all__ = ["njit", "separate", "OPTIONS", "KernelCache", "SHIPPED_FOLDER", "cache_folders", "prune_stale_cache",
           "compile_declared", "compile_prebuilt"]

#: numba options of every kernel and generated right-hand side (module docstring)
OPTIONS = {"cache": True, "error_model": "numpy", "no_cfunc_wrapper": True}


def njit(*args, argtypes=None, versions=None, prebuilt=None, **options):
    """``numba.njit`` with `OPTIONS` (``options`` add to or override them), used as
    ``@njit``, ``@njit(inline="always")`` or ``@njit("signature")``. The dispatcher keeps the
    symbol hooks of what it loads from the cache (`_keep_hooks`), and saves to the cache
    under a lock shared with other processes (`porthamiltonian.kernels._parallel.lock_saves`).

    ``argtypes`` (numba's notation, as in a signature: ``"f8[::1], i8[::1], f8, i8"``) declares
    the one version other kernels call: numba's explicit signature, compiled at first use
    instead of at import. Such a kernel can be compiled ahead, in a helper process, before a
    caller asks for it (`porthamiltonian.kernels._parallel`); a caller's literal arguments
    are converted to it rather than compiled into a version of their own; a call through
    `separate` with other argument types is a typing error (the declaration stays true).
    ``versions`` (a sequence of such argument-type strings) declares the few versions of a
    small helper other kernels call, for example one per array dtype: each is compiled at the
    first call from another kernel whose argument types convert to it (not at import, as
    numba's signature list would: importing the package compiles nothing), and a call from a
    kernel resolves to one of them, its literal arguments and array layouts converted,
    instead of compiling a version of its own (a literal index would otherwise make one per
    value). It is not a `separate` declaration (no helper process compiles it ahead).
    ``prebuilt`` (a sequence of such strings) names versions compiled before any call, with
    the contact chain (`compile_prebuilt`: at install by the build backend, and by ``porthamiltonian
    warmup``): those that the built-in models' right-hand sides and the package's Python
    wrappers call. Element kernels take tuples whose lengths depend on the model (its ports,
    its references), so they cannot have one declared version. Calls with other argument types
    compile what they need, as for any kernel.

    Calls from Python compile what their arguments need, as for any kernel. The cache is a
    `KernelCache`: a cached version is read only if no kernel source changed since it was
    saved, whatever the files' times or folder, and also from the machine code built with the
    package (`SHIPPED_FOLDER`)."""
    function = args[0] if args and callable(args[0]) else None
    signatures = None if function or not args else args[0]
    options = {**OPTIONS, **options}
    cached = options.pop("cache")

    def decorate(fn):
        dispatcher = numba.njit(**options)(fn)
        if cached:
            dispatcher = _content_cached(dispatcher)
        if signatures is not None and hasattr(dispatcher, "py_func"):   # as numba.njit("sig")
            for sig in [signatures] if isinstance(signatures, str) else signatures:
                dispatcher.compile(sig)
            dispatcher.disable_compile()
        dispatcher = lock_saves(_keep_hooks(dispatcher))
        if argtypes is not None and hasattr(dispatcher, "py_func"):
            dispatcher._fixed = tuple(sigutils.normalize_signature(f"({argtypes},)")[0])
            _typed_as_declared(dispatcher)
            DECLARED.append(dispatcher)
        elif versions is not None and hasattr(dispatcher, "py_func"):
            dispatcher._versions = [tuple(sigutils.normalize_signature(f"({a},)")[0]) for a in versions]
            _typed_as_versions(dispatcher, dispatcher._versions)
        if prebuilt is not None and hasattr(dispatcher, "py_func"):
            PREBUILT.extend((dispatcher, tuple(sigutils.normalize_signature(f"({a},)")[0])) for a in prebuilt)
        return dispatcher

    return decorate(function) if function else decorate


#: the folder, beside a module's source, of the kernels' machine code compiled when the package
#: was built (``pip install``: the build backend, ``_build/backend.py``); read, never written
SHIPPED_FOLDER = "_numba_cache"


@functools.lru_cache(maxsize=None)
def _file_digest(path, mtime_ns, size):
    """SHA-256 (bytes) of the file `path`'s content (memoized on its time and size, so that a
    file changed while the process runs is read again)."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


class _ContentStamp:
    """A numba cache locator whose freshness stamp is the content of the function's source file
    and of every kernel source, never a file time.

    The stamp is the pair (SHA-256 of the function's own source file, `porthamiltonian.kernels.
    SOURCES_DIGEST`). numba before 0.61 stamps an index with its source file's modification
    time and size, which copying a package (``pip install`` does not keep file times) changes:
    a cache compiled when the wheel was built would never load. With the content, a cache
    loads wherever the same sources are, whatever their times and their folder's path; after
    any kernel source changes, every entry is stale, is never read, and is overwritten in place
    at the next save (numba numbers its data files from 1 in a fresh index)."""

    def get_source_stamp(self):
        from . import SOURCES_DIGEST

        st = os.stat(self._py_file)
        return (_file_digest(self._py_file, st.st_mtime_ns, st.st_size), SOURCES_DIGEST)


class _UserProvidedLocator(_ContentStamp, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR`` (numba's first choice), content-stamped."""


class _InTreeLocator(_ContentStamp, caching.InTreeCacheLocator):
    """``__pycache__`` beside the source when writable (numba's second), content-stamped."""


class _UserWideLocator(_ContentStamp, caching.UserWideCacheLocator):
    """numba's user-wide cache folder (its last resort for a file), content-stamped."""


class _KernelCacheImpl(caching.CompileResultCacheImpl):
    """numba's cache of compile results with the content-stamped locators, in numba's order
    (``NUMBA_CACHE_LOCATOR_CLASSES``, when set, replaces them, and numba's stamps with them)."""

    _locator_classes = [_UserProvidedLocator, _InTreeLocator, _UserWideLocator]


class KernelCache(caching.FunctionCache):
    """numba's on-disk cache of one compiled function of the package: content-stamped
    (`_ContentStamp`), written where numba writes (``NUMBA_CACHE_DIR``, else ``__pycache__``
    beside the source, else the user-wide cache), and read there first, then from the machine
    code built with the package (`SHIPPED_FOLDER` beside the source, read only).

    The shipped entries are used only where they are valid: numba keys every entry by the
    function's signature, its bytecode, and the CPU (name and features: ``codegen.
    magic_tuple()``), and reads an index only if it was written by this numba version with
    this stamp; anything else (another CPU, another numba, changed sources) is a miss, and the
    function compiles into the user's cache as without a shipped cache."""

    _impl_class = _KernelCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        shipped = os.path.join(os.path.dirname(inspect.getfile(py_func)), SHIPPED_FOLDER)
        self._shipped = caching.IndexDataCacheFile(cache_path=shipped, filename_base=self._impl.filename_base,
                                                   source_stamp=self._cache_file._source_stamp)

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        data = self._cache_file.load(key)
        if data is None:
            data = self._shipped.load(key)
        return None if data is None else self._impl.rebuild(target_context, data)

    def entries(self):
        """The index keys (numba's ``_index_key``: signature, CPU, bytecode) the user's cache
        and the shipped one hold for this function, read from their indexes without loading
        any machine code."""
        return set(self._cache_file._load_index()) | set(self._shipped._load_index())


def _content_cached(dispatcher):
    """`dispatcher` (compiled with numba's caching off), given a `KernelCache`."""
    if hasattr(dispatcher, "py_func"):   # not with numba's JIT disabled
        dispatcher._cache = KernelCache(dispatcher.py_func)
    return dispatcher


def cache_folders():
    """The folders of numba's cache of the kernels: beside them (``__pycache__``) and, when
    ``NUMBA_CACHE_DIR`` is set, numba's sub-folder for them there (numba's `_CacheLocator`)."""
    import os
    from pathlib import Path

    from numba.core.caching import _CacheLocator

    here = Path(__file__).parent
    folders = [here / "__pycache__"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        folders.append(Path(os.environ["NUMBA_CACHE_DIR"]) / _CacheLocator.get_suitable_cache_subpath(
            str(here / "__init__.py")))
    return folders


def prune_stale_cache(folders=None):
    """Delete the kernels' numba cache entries compiled against other kernel sources.

    Such entries are never read (`_ContentStamp`), and numba overwrites an entry in
    place when it saves the same function again; this removes, deliberately (``porthamiltonian
    warmup`` calls it), the index files whose stamp does not carry this version's
    `porthamiltonian.kernels.SOURCES_DIGEST` (older versions of the package, kernels since
    renamed or removed) with the data files they list, and the stamp file of the older
    scheme (``kernels.stamp``). An index of another numba version, one that cannot be read,
    and files that cannot be deleted are left alone. A process of another version of the
    package sharing the folder loses its entries (it compiles them again).

    Parameters
    ----------
    folders : sequence of pathlib.Path, optional
        Where to look; by default `cache_folders()`.

    Returns
    -------
    int
        Number of files deleted.
    """
    import pickle

    import numba

    from . import SOURCES_DIGEST

    removed = 0
    for folder in cache_folders() if folders is None else folders:
        if not folder.is_dir():
            continue
        legacy = folder / "kernels.stamp"
        for index in sorted(folder.glob("*.nbi")):
            try:
                with open(index, "rb") as f:
                    version = pickle.load(f)
                    if version != numba.__version__:
                        continue
                    stamp, overloads = pickle.loads(f.read())
            except Exception:  # noqa: BLE001 - numba's own format: what cannot be read is not judged
                continue
            if isinstance(stamp, tuple) and len(stamp) == 2 and stamp[1] == SOURCES_DIGEST:
                continue
            for path in [folder / name for name in overloads.values()] + [index]:
                try:
                    path.unlink()
                    removed += 1
                except OSError:
                    pass
        try:
            legacy.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def _compile_versions(versions, skip_claimed):
    """Compile, or load from numba's cache, each ``(kernel, argtypes)`` of `versions` under the
    claims other processes honour (`_parallel.compile_claimed`); returns how many numba's
    caches (the user's or the shipped one) held before."""
    cached = sum(_parallel._on_disk(k, a) for k, a in versions)
    for kernel, argtypes in versions:
        _parallel.compile_claimed(kernel, argtypes, skip_claimed=skip_claimed)
    return cached


def compile_declared(skip_claimed=False):
    """Compile, or load from numba's cache, every contact-chain kernel (`_parallel.DECLARED`)
    for its declared argument types, under the claims other processes honour
    (`_parallel.compile_claimed`); every kernel module is imported first (each declares its
    kernels as it is imported). Needs only numpy, numba, scipy (numba's LAPACK) and the kernels
    (``porthamiltonian warmup`` and the build backend, ``_build/backend.py``, which runs it without the rest of the
    package installed).

    Parameters
    ----------
    skip_claimed : bool
        Pass over a kernel another process is compiling instead of waiting for it (a second
        process sharing the work: call again without it to wait for what was passed over).

    Returns
    -------
    (int, int)
        The number of declared kernels, and how many of them numba's caches (the user's or
        the shipped one) held before.
    """
    _parallel.import_kernel_modules()

    versions = [(k, k._fixed) for k in _parallel.DECLARED]
    return len(versions), _compile_versions(versions, skip_claimed)


def compile_prebuilt(skip_claimed=False):
    """`compile_declared` for the element kernels' prebuilt versions (`njit`'s ``prebuilt``,
    `_parallel.PREBUILT`): those the built-in models' right-hand sides and the package's Python
    wrappers call, so that the main job's first run after install compiles its generated
    right-hand side only. Same parameters; returns the number of versions and how many the
    caches held before."""
    _parallel.import_kernel_modules()

    versions = list(_parallel.PREBUILT)
    return len(versions), _compile_versions(versions, skip_claimed)


def _typed_as_declared(dispatcher):
    """Calls of `dispatcher` from other kernels resolve to its declared version (`njit`'s
    ``argtypes``), compiled (or loaded, or waited for: `_parallel.compile_claimed`) first."""

    def ready(args):
        if dispatcher._fixed not in dispatcher.overloads:
            compile_claimed(dispatcher, dispatcher._fixed)

    _resolve_to_existing(dispatcher, ready)


def _typed_as_versions(dispatcher, versions):
    """Calls of `dispatcher` from other kernels resolve to one of `versions` (`njit`'s
    ``versions``: tuples of numba types): those the call's argument types convert to are
    compiled (or loaded) first, the others only when a call needs them."""
    from numba import types
    from numba.core.registry import cpu_target

    def ready(args):
        given = [types.unliteral(a) for a in args]
        for argtypes in versions:
            if argtypes not in dispatcher.overloads and len(argtypes) == len(given) and all(
                    cpu_target.typing_context.can_convert(a, t) is not None for a, t in zip(given, argtypes)):
                dispatcher.compile(argtypes)

    _resolve_to_existing(dispatcher, ready)


def _resolve_to_existing(dispatcher, ready):
    """Calls of `dispatcher` from other kernels: `ready(args)` compiles what they may use,
    then numba's typing picks among the compiled versions only (its literal arguments
    converted) instead of compiling a version for the literal types."""
    resolve = dispatcher.get_call_template

    def get_call_template(args, kws):
        ready(args)
        can_compile, dispatcher._can_compile = dispatcher._can_compile, False
        try:
            return resolve(args, kws)
        finally:
            dispatcher._can_compile = can_compile

    dispatcher.get_call_template = get_call_template


def separate(kernel):
    """`kernel` as a function other kernels call through its symbol: compiled once, on its own,
    and never linked into its callers.

    numba compiles a kernel called from another one as a library of its own, then links that
    library (its whole call tree) into the caller's module, where LLVM optimizes it and emits
    its machine code again, and so at every level above: the main job's contact chain (Newton
    search, surfaces, kinematics) was optimized and emitted again in the pair state, the
    evaluation, the spring's kernels and the right-hand side. A call through `separate`
    instead declares the callee's machine code as an external symbol of the caller's module:
    the caller compiles only its own code. The generated right-hand sides call every element
    kernel this way, and the contact chain its large kernels (the evaluation, pair state,
    closed forms, Newton search and its evaluation, parameter rates, the piecewise and tape
    surface evaluators). Measured on the main job's first run (`benchmarks/jit_profile.py`,
    2026-11-27, numba 0.68): 71 % of the optimized LLVM instructions numba emitted were linked
    callees before (159,000 of 225,000), 43 % after (49,000 of 115,000); LLVM's optimization
    8.9 -> 4.1 s, its code generation 7.9 -> 4.1 s; with the generated code's slices
    (`lie.span`), the first run 43.5-47.2 -> 35.2-37.6 s, interleaved, warm 6.3-7.0 s.

    The price is LLVM's inlining across that call (a few nanoseconds per call: use it for
    kernels that do real work, or where a call site's compile time matters more, as for the
    generated code's array algebra, `porthamiltonian.kernels.algebra`) and these mechanics:

    - At typing, the caller's argument types (literals widened: ``2`` is an ``int64``) select
      the callee's compiled version, compiled or loaded from numba's cache like any call (for
      a kernel declared with `njit`'s ``argtypes``, they must be those, and another process
      may be compiling it: `porthamiltonian.kernels._parallel.compile_claimed`; for one
      declared with ``versions``, the first version they convert to, array layouts included,
      so that views and contiguous arrays share one version); its
      address is registered in this process under a name made of the kernel's module, name
      and argument types (`llvmlite.binding.add_symbol`, as numba registers its runtime).
    - The caller's machine code refers to that name. So that a caller loaded from numba's
      cache in another process finds it, the caller's library carries a hook (`_Symbol`, in
      numba's ``reload_init``, run before a cached library is loaded): it compiles or loads
      the callee and registers the name first. A library linking the caller inherits the
      hook (numba copies ``reload_init`` from linked libraries; `_keep_hooks` does so for a
      library loaded from the cache too).
    - The callee's errors propagate through numba's calling convention, as for a linked
      call.

    These mechanics use numba internals (a library's ``_reload_init``, the lowering context's
    ``active_code_library``, the CPU calling convention), as numba 0.68 has them;
    `tests/kernels/test_separate.py` checks them in fresh processes sharing one cache.

    Parameters
    ----------
    kernel : numba dispatcher
        A module-level kernel (`njit`); its module and name find it again from the hook.

    Returns
    -------
    A numba intrinsic, called in compiled code with `kernel`'s positional arguments.
    """
    if not hasattr(kernel, "py_func"):   # numba's JIT disabled (NUMBA_DISABLE_JIT): plain Python
        return kernel
    from numba import types
    from numba.core import cgutils
    from numba.core.errors import TypingError
    from numba.extending import intrinsic

    module, name = kernel.py_func.__module__, kernel.py_func.__qualname__

    @intrinsic
    def call(typingctx, *args):
        argtypes = tuple(types.unliteral(a) for a in args)
        fixed = getattr(kernel, "_fixed", None)
        if fixed is not None and argtypes != fixed:
            raise TypingError(f"{module}.{name} is compiled for {fixed} (its declared argtypes), "
                              f"called with {argtypes}")
        versions = getattr(kernel, "_versions", None)
        if versions is not None:   # the declared version the arguments convert to
            argtypes = next((v for v in versions if len(v) == len(args) and all(
                typingctx.can_convert(a, t) is not None for a, t in zip(argtypes, v))), None)
            if argtypes is None:
                raise TypingError(f"{module}.{name} is declared for {versions}, called with {args}")
        symbol = _Symbol.name_of(module, name, argtypes)
        hook = _Symbol(module, name, argtypes, _register(kernel, argtypes, symbol), symbol)

        def codegen(context, builder, sig, llargs):
            context.active_code_library._reload_init.add(hook)
            values = [context.cast(builder, v, t, u)
                      for v, t, u in zip(cgutils.unpack_tuple(builder, llargs[0]), args, argtypes)]
            fnty = context.call_conv.get_function_type(hook.restype, argtypes)
            fn = cgutils.get_or_insert_function(builder.module, fnty, symbol)
            status, result = context.call_conv.call_function(builder, fn, hook.restype, argtypes, values)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return result

        return hook.restype(types.StarArgTuple.from_types(args)), codegen

    call.__name__ = call.__qualname__ = f"separate({name})"
    return call


class _Symbol:
    """The hook of a `separate` call, pickled into the caller's cache entry: registers the
    callee's symbol before the caller's machine code is loaded (it raises if the callee now
    returns another type: its cache and the caller's disagree, which the stale-cache stamp of
    `porthamiltonian.kernels` rules out)."""

    def __init__(self, module, name, argtypes, restype, symbol):
        self.module, self.name, self.argtypes, self.restype, self.symbol = module, name, argtypes, restype, symbol

    @staticmethod
    def name_of(module, name, argtypes):
        return f"porthamiltonian.separate.{version_name(module, name, argtypes)}"

    def __eq__(self, other):
        return isinstance(other, _Symbol) and other.symbol == self.symbol

    def __hash__(self):
        return hash(self.symbol)

    def __call__(self):
        kernel = getattr(importlib.import_module(self.module), self.name)
        restype = _register(kernel, self.argtypes, self.symbol)
        if restype != self.restype:
            raise RuntimeError(f"{self.module}.{self.name}{self.argtypes} returns {restype}, its cached caller "
                               f"was compiled for {self.restype}: delete numba's cache of porthamiltonian")


_REGISTERED = {}   # symbol -> return type, registered in this process


def _register(kernel, argtypes, symbol):
    """Compile (or load) `kernel` for `argtypes`, register its machine code as `symbol`;
    returns its return type."""
    if symbol not in _REGISTERED:
        import llvmlite.binding as ll

        if getattr(kernel, "_fixed", None) is not None:   # perhaps compiled by another process
            compile_claimed(kernel, argtypes)
        else:
            kernel.compile(argtypes)
        cres = kernel.overloads[tuple(argtypes)]
        ll.add_symbol(symbol, cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))
        _REGISTERED[symbol] = cres.signature.return_type
    return _REGISTERED[symbol]


def _keep_hooks(dispatcher):
    """`dispatcher`, whose compiled versions keep their `separate` hooks in their library.

    numba runs a cached version's ``reload_init`` when it loads it, but leaves its library's
    own set empty, so a kernel compiled later on top of it (linking it) would not inherit the
    hooks, and that kernel's cached machine code, loaded in a third process, would refer to
    a symbol nobody registered. numba adds every version, compiled or loaded, through
    ``add_overload``; this copies the hooks there."""
    if not hasattr(dispatcher, "add_overload"):   # numba's JIT disabled: a plain function
        return dispatcher
    add = dispatcher.add_overload

    def add_overload(cres):
        if cres.reload_init:
            cres.library._reload_init.update(cres.reload_init)
        add(cres)

    dispatcher.add_overload = add_overload
    for cres in dispatcher.overloads.values():   # compiled at decoration (explicit signatures)
        if cres.reload_init:
            cres.library._reload_init.update(cres.reload_init)
    return dispatcher
