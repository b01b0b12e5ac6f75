"""`porthamiltonian.kernels._parallel`: kernels of declared argument types compiled under
claims, by helper processes or by the process that needs them, in fresh processes sharing one
numba cache; and the declaration kept true."""

import os
import subprocess
import sys
import textwrap
import time

import pytest

from porthamiltonian.kernels import _parallel

KERNELS = textwrap.dedent('''
    from porthamiltonian.kernels._njit import njit, separate

    @njit(argtypes="f8[::1], i8")
    def leaf(a, k):
        return a.sum() * k

    _leaf = separate(leaf)

    @njit
    def top(a):
        return _leaf(a, 2) + 1.0      # the literal 2 is an int64: the declared types

    @njit
    def wrong(a):
        return _leaf(a, 2.0)          # a float64 where an int64 is declared
''')

#: in a child process: call `top`, print its value and how `leaf` came (loaded, compiled)
CALL_TOP = """
    import numpy as np, parallel_kernels as k
    value = k.top(np.array([0.5, 1.5]))
    sig = k.leaf._fixed
    print(value, k.leaf.stats.cache_hits[sig], k.leaf.stats.cache_misses[sig])
"""


@pytest.fixture
def kernels(tmp_path):
    (tmp_path / "parallel_kernels.py").write_text(KERNELS)
    return tmp_path


def _env(folder):
    return {**os.environ, "NUMBA_CACHE_DIR": str(folder / "cache"), "PYTHONPATH": str(folder)}


def _run(folder, code):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=_env(folder), capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.split()


def _claim_path(folder):
    """The claim file of `leaf`'s compile (numba's cache folder of the module, ``claims``)."""
    path = _run(folder, """
        import parallel_kernels as k
        from porthamiltonian.kernels import _parallel
        print(k.leaf._cache.cache_path, _parallel._claim_name(k.leaf, k.leaf._fixed))
    """)
    claims = os.path.join(path[0], "claims")
    os.makedirs(claims, exist_ok=True)
    return os.path.join(claims, path[1])


def test_a_call_with_other_argument_types_than_declared_is_a_typing_error(kernels):
    out = _run(kernels, """
        import numpy as np, parallel_kernels as k
        from numba.core.errors import TypingError
        try:
            k.wrong(np.array([1.0]))
        except TypingError as exc:
            print("declared" in str(exc) and "parallel_kernels.leaf" in str(exc))
    """)
    assert out == ["True"]


def test_a_kernel_another_process_compiles_is_waited_for_then_loaded(kernels, tmp_path):
    """A process holding `leaf`'s claim starts compiling it only once the second process is
    about to call `top` (a marker file), then saves it and lets the claim go: the second
    process waits for the claim and loads `leaf` (without the claims it compiles it itself)."""
    marker = tmp_path / "calling"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import os, time, parallel_kernels as k
        from porthamiltonian.kernels import _parallel
        folder = _parallel._claims_folder(k.leaf)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / _parallel._claim_name(k.leaf, k.leaf._fixed)
        assert _parallel._claim(path)
        print("claimed", flush=True)
        while not os.path.exists({str(marker)!r}):
            time.sleep(0.01)
        time.sleep(0.5)
        k.leaf.compile(k.leaf._fixed)
        path.unlink()
    """)], env=_env(kernels), stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "claimed"
        value, hits, misses = _run(kernels, CALL_TOP.replace("value = ", f"open({str(marker)!r}, 'w').close()\n    value = "))
    finally:
        holder.wait(timeout=600)
    assert holder.returncode == 0
    assert float(value) == 5.0
    assert (int(hits), int(misses)) == (1, 0)


@pytest.mark.parametrize("left_by", ["a finished process", "a process on another host, long ago"])
def test_a_left_over_claim_is_taken_over(kernels, left_by):
    path = _claim_path(kernels)
    if left_by == "a finished process":
        done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        owner = f"{done.stdout.strip()} {_parallel._HOST}"
    else:
        owner = f"{os.getpid()} elsewhere"
    with open(path, "w") as f:
        f.write(owner)
    if left_by != "a finished process":
        long_ago = time.time() - _parallel.STALE_AFTER - 1.0
        os.utime(path, (long_ago, long_ago))
    value, hits, misses = _run(kernels, CALL_TOP)
    assert float(value) == 5.0
    assert (int(hits), int(misses)) == (0, 1)   # compiled here, the claim taken over
    assert not os.path.exists(path)


def test_a_helper_fills_the_cache_for_the_next_process(kernels):
    subprocess.run([sys.executable, "-c", _parallel._HELPER, "parallel_kernels:leaf"], env=_env(kernels),
                   check=True, timeout=600)
    value, hits, misses = _run(kernels, CALL_TOP)
    assert float(value) == 5.0
    assert (int(hits), int(misses)) == (1, 0)


def test_helper_passes_over_a_kernel_claimed_elsewhere(kernels):
    path = _claim_path(kernels)
    with open(path, "w") as f:
        f.write(f"{os.getpid()} {_parallel._HOST}")   # held by a live process: this one
    subprocess.run([sys.executable, "-c", _parallel._HELPER, "parallel_kernels:leaf"], env=_env(kernels),
                   check=True, timeout=60)
    assert os.path.exists(path)
    os.unlink(path)
    value, hits, misses = _run(kernels, CALL_TOP)
    assert (int(hits), int(misses)) == (0, 1)   # the helper compiled nothing


def test_the_contact_chain_is_declared_and_reached_from_the_compliant_kernels():
    from porthamiltonian.kernels import bodies, compliant, contact

    modules = _parallel._kernel_modules([compliant.spring_outputs])
    assert {"porthamiltonian.kernels.contact", "porthamiltonian.kernels.closest",
            "porthamiltonian.kernels.surfaces"} <= modules
    assert contact.evaluate in _parallel.DECLARED and contact.spring_rates in _parallel.DECLARED
    assert not [k for k in _parallel.DECLARED if k.py_func.__module__ in _parallel._kernel_modules([bodies.rigid_body_rates])]


@pytest.mark.parametrize("value", ["two", "-1", "1.5"])
def test_a_bad_helper_count_is_refused(monkeypatch, value):
    monkeypatch.setenv("PORTHAMILTONIAN_COMPILE_HELPERS", value)
    with pytest.raises(_parallel.HelperCountError, match=rf"PORTHAMILTONIAN_COMPILE_HELPERS='{value}'.*0 or more"):
        _parallel._helper_count(5)


def test_helper_count_follows_the_setting_and_the_work(monkeypatch):
    monkeypatch.setenv("PORTHAMILTONIAN_COMPILE_HELPERS", "2")
    assert _parallel._helper_count(5) == 2
    assert _parallel._helper_count(1) == 1
    monkeypatch.setenv("PORTHAMILTONIAN_COMPILE_HELPERS", "0")
    assert _parallel._helper_count(5) == 0


def test_a_save_to_the_cache_waits_for_the_lock_of_its_index(kernels):
    """numba's save of a compiled version (index read, data name chosen, index and data
    written) runs under a lock file beside the index: while another process holds it, the save
    waits; after, it completes and the next process loads what it saved."""
    index = _run(kernels, "import parallel_kernels as k; print(k.leaf._cache._cache_file._index_path)")[0]
    os.makedirs(os.path.dirname(index), exist_ok=True)
    lock = index + ".lock"
    with open(lock, "w") as f:
        f.write(f"{os.getpid()} {_parallel._HOST}")   # held by this live process
    saver = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import parallel_kernels as k
        print("compiling", flush=True)
        k.leaf.compile(k.leaf._fixed)
        print("saved", flush=True)
    """)], env=_env(kernels), stdout=subprocess.PIPE, text=True)
    try:
        assert saver.stdout.readline().strip() == "compiling"
        time.sleep(2.0)   # compiling `leaf` takes a fraction of that
        assert saver.poll() is None
    finally:
        os.unlink(lock)
    assert saver.stdout.readline().strip() == "saved"
    assert saver.wait(timeout=600) == 0
    value, hits, misses = _run(kernels, CALL_TOP)
    assert (int(hits), int(misses)) == (1, 0)


def test_compiling_a_right_hand_side_stops_its_helpers(monkeypatch):
    """`PHSystem.compiled` starts helpers for the kernels the generated module reaches (here
    a stand-in process), compiles, and stops them; the result is the compiled path. The
    right-hand side is taken as missing from numba's cache (a cached one loads the kernels it
    calls and starts no helper: `tests/core/test_warmup.py`), whatever earlier tests left."""
    import porthamiltonian as ph
    from porthamiltonian.models import build_model

    started, asked = [], []

    def start(kernels):
        started.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]))
        return started[-1:]

    def wanted(objects):
        asked.append(_parallel._kernel_modules(list(objects)))
        return ["stand-in"]

    monkeypatch.setattr(_parallel, "start_helpers", start)
    monkeypatch.setattr(_parallel, "helpers_wanted", wanted)
    monkeypatch.setattr(_parallel, "_on_disk", lambda kernel, argtypes: False)
    model = build_model("ball-drop", contact="compliant")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    assert system.compiled == "numba"
    assert "porthamiltonian.kernels.contact" in asked[0]
    assert started[0].wait(timeout=30) != 0   # terminated, not finished


def test_a_bad_helper_count_is_refused_when_a_right_hand_side_compiles(monkeypatch):
    import porthamiltonian as ph
    from porthamiltonian.models import build_model

    monkeypatch.setenv("PORTHAMILTONIAN_COMPILE_HELPERS", "many")
    model = build_model("ball-drop", contact="compliant")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    with pytest.raises(_parallel.HelperCountError, match="PORTHAMILTONIAN_COMPILE_HELPERS='many'"):
        system.compiled  # noqa: B018


def test_the_command_line_starts_the_helpers_before_it_builds_the_model(monkeypatch, tmp_path):
    """`porthamiltonian run` on a cache without the contact chain: helpers for every declared
    kernel start before the model is built (`_parallel.ahead`), not when its right-hand side
    compiles, and are stopped once it is prepared."""
    from porthamiltonian.cli import main
    from porthamiltonian.studies import records

    events = []

    def start(kernels):
        events.append(("start", list(kernels)))
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        _parallel._RUNNING.append(proc)
        return [proc]

    real_prepare = records.prepare

    def prepare(*args, **kw):
        events.append(("prepare", None))
        return real_prepare(*args, **kw)

    import types

    # the declared kernels as a fresh process sees them: none compiled in it; one in numba's cache
    fresh = [types.SimpleNamespace(_fixed=k._fixed, overloads={}, py_func=k.py_func)
             for k in _parallel.DECLARED]
    monkeypatch.setattr(_parallel, "DECLARED", fresh)
    monkeypatch.setattr(_parallel, "_on_disk", lambda kernel, argtypes: kernel is fresh[0])
    monkeypatch.setattr(_parallel, "start_helpers", start)
    monkeypatch.setattr(records, "prepare", prepare)
    assert main(["run", "mass-spring-damper", "--no-progress", "--t-end", "0.1", "--out", str(tmp_path / "o")]) == 0
    assert [e[0] for e in events] == ["start", "prepare"]
    assert events[0][1] == fresh[1:]
    proc = _parallel._RUNNING.pop()
    assert proc.wait(timeout=30) != 0   # terminated when the model was prepared


def test_helpers_already_running_count_against_the_number_allowed(monkeypatch):
    """`start_helpers` after `ahead`'s helper: none more on 2 CPUs (one helper allowed)."""
    monkeypatch.setenv("PORTHAMILTONIAN_COMPILE_HELPERS", "1")
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    monkeypatch.setattr(_parallel, "_RUNNING", [running])
    try:
        assert _parallel.start_helpers(_parallel.DECLARED[:3]) == []
    finally:
        running.kill()
        running.wait()
