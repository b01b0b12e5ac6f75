"""The first run said and avoided: `porthamiltonian warmup` fills numba's cache ahead (the
contact kernels, a model's right-hand side), and a compile of what the cache lacks is announced
once on stderr before it starts, with what it is and that it is cached; nothing is said when
everything loads from the cache.

Fresh processes share a fresh numba cache (``NUMBA_CACHE_DIR``) and right-hand-side cache
(``PORTHAMILTONIAN_CACHE``) in a temporary folder; numba's own index files (``*.nbi``) are
the independent witness of what was compiled.
"""

import os
import re
import subprocess
import sys
import textwrap

import pytest

from porthamiltonian.cli import main
from porthamiltonian.compile.notice import CONTACT_KERNELS_S, ELEMENT_KERNEL_S, RHS_S, notice
from porthamiltonian.kernels import _parallel

#: in a child process: compile ball-drop's right-hand side (as a run does) and say how
COMPILE_BALL_DROP = """
    from porthamiltonian.studies.records import RunSpec, prepare, resolve_parameters
    prepared = prepare(RunSpec("ball-drop", resolve_parameters("ball-drop", {"contact": "compliant"})))
    print(prepared.jit)
"""


def _env(folder):
    return {**os.environ, "NUMBA_CACHE_DIR": str(folder / "numba"), "PORTHAMILTONIAN_CACHE": str(folder / "rhs"),
            "PORTHAMILTONIAN_COMPILE_HELPERS": "0"}


def _run(folder, args):
    out = subprocess.run([sys.executable, *args], env=_env(folder), capture_output=True, text=True, timeout=1200,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def _warmup(folder, *options):
    return _run(folder, ["-m", "porthamiltonian.cli", "warmup", *options])


@pytest.fixture(scope="module")
def warmed(tmp_path_factory):
    """A fresh cache after ``porthamiltonian warmup --models none`` (the contact kernels and
    the element kernels' prebuilt versions)."""
    folder = tmp_path_factory.mktemp("warmup")
    return folder, _warmup(folder, "--models", "none")


def test_warmup_compiles_every_contact_kernel_into_numbas_cache(warmed):
    folder, out = warmed
    _parallel.import_kernel_modules()   # every declared kernel, as the warmup saw them
    n = len(_parallel.DECLARED)
    assert re.search(rf"^contact kernels \({n}\) +compiled \({n} of {n}\) +\d+\.\d s$", out.stdout, re.M), out.stdout
    # a prebuilt version can be compiled already as a callee of the contact chain's kernels
    m = len(_parallel.PREBUILT)
    assert re.search(rf"^element kernel versions \({m}\) +compiled \(\d+ of {m}\) +\d+\.\d s$", out.stdout, re.M)
    assert re.search(r"^warmup +done +\d+\.\d s$", out.stdout, re.M)
    indexes = [p.name for p in (folder / "numba").rglob("*.nbi")]
    for kernel in _parallel.DECLARED + [k for k, _ in _parallel.PREBUILT]:   # named after the function
        assert any(name.startswith(f"{kernel.py_func.__module__.rsplit('.', 1)[1]}.{kernel.py_func.__qualname__}-")
                   for name in indexes), kernel.py_func.__qualname__
    assert "porthamiltonian: compiling" not in out.stderr   # warmup reports on stdout


def test_a_second_warmup_loads_everything(warmed):
    folder, _ = warmed
    out = _warmup(folder, "--models", "none")
    assert re.search(r"^contact kernels \(\d+\) +cached ", out.stdout, re.M), out.stdout


def _kernel_indexes(folder):
    """numba's index files of the package's kernels in the cache `folder` (not of generated
    right-hand sides), with their sizes and times: an index is written at every compile."""
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in (folder / "numba").rglob("*.nbi")
            if not p.name.startswith("porthamiltonian_rhs_")}


def test_the_first_compile_of_a_model_is_announced_once_then_never(warmed):
    """The kernels are warm (the contact chain and the element kernels' prebuilt versions):
    ball-drop's first compile (the compliant contact, as the main job's) compiles its
    right-hand side only, and says so, once; numba's index files of the kernels are the
    witness that no kernel compiled. The second process loads it all, silently; a warmup of
    the model then reports it cached."""
    folder, _ = warmed
    before = _kernel_indexes(folder)
    first = _run(folder, ["-c", textwrap.dedent(COMPILE_BALL_DROP)])
    assert first.stdout.split() == ["numba"]
    assert _kernel_indexes(folder) == before
    said = [line for line in first.stderr.splitlines() if line.startswith("porthamiltonian: compiling")]
    assert len(said) == 1, first.stderr
    assert re.fullmatch(r"porthamiltonian: compiling the right-hand side of 'ball_drop' \(first run only, cached "
                        r"afterwards\), ~\d+ s", said[0]), said[0]
    again = _run(folder, ["-c", textwrap.dedent(COMPILE_BALL_DROP)])
    assert again.stdout.split() == ["numba"] and "porthamiltonian: compiling" not in again.stderr
    out = _warmup(folder, "--models", "ball-drop")
    assert re.search(r"^ball-drop \(compliant\) +cached ", out.stdout, re.M), out.stdout


def test_a_cached_right_hand_side_announces_no_kernel_it_does_not_call(warmed):
    """A declared kernel of a module ball-drop's right-hand side reaches but never calls (the
    point foot's evaluation, `contact_pair.point_evaluate`), missing from numba's cache: once
    the right-hand side is cached, a run loads what it calls and says nothing; that kernel
    stays uncompiled (its index file stays absent). Before, every such run announced
    "compiling 1 contact kernel" and compiled nothing."""
    folder, _ = warmed
    _run(folder, ["-c", textwrap.dedent(COMPILE_BALL_DROP)])   # ball-drop's right-hand side cached
    index = list((folder / "numba").rglob("contact_pair.point_evaluate-*.nbi"))
    assert len(index) == 1
    saved = index[0].read_bytes()
    index[0].unlink()
    try:
        again = _run(folder, ["-c", textwrap.dedent(COMPILE_BALL_DROP)])
        assert again.stdout.split() == ["numba"]
        assert "porthamiltonian: compiling" not in again.stderr, again.stderr
        assert not index[0].exists()
    finally:
        index[0].write_bytes(saved)


def test_the_notice_says_what_and_about_how_long():
    assert notice("m", 0, 17, True, 0) is None   # everything in the cache: nothing said
    assert notice("m", 1, 17, True, 0) == (
        f"porthamiltonian: compiling 1 contact kernel (first run only, cached afterwards), ~{CONTACT_KERNELS_S / 17:.0f} s")
    assert notice("m", 0, 17, False, 0) == (
        f"porthamiltonian: compiling the right-hand side of 'm' (first run only, cached afterwards), ~{RHS_S:.0f} s")
    seconds = CONTACT_KERNELS_S * 5 / 17 + 2 * ELEMENT_KERNEL_S + RHS_S
    assert notice("m", 5, 17, False, 2) == (
        "porthamiltonian: compiling 5 contact kernels, 2 element kernels and the right-hand side of "
        f"'m' (first run only, cached afterwards), ~{seconds:.0f} s")


def test_an_unknown_model_is_refused_before_any_compile(capsys):
    assert main(["warmup", "--models", "ball-dorp"]) == 2
    assert "unknown model 'ball-dorp'; did you mean 'ball-drop'?" in capsys.readouterr().err


def test_the_notice_is_its_own_line_above_a_progress_bar(capsys):
    """During an integration's progress bar (on a terminal: one line redrawn in place) the
    notice closes the bar's line and takes one of its own; without a bar it goes to stderr."""
    import io

    from porthamiltonian.compile.notice import say
    from porthamiltonian.integrate.progress import Progress, progress_logging

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    with progress_logging(force=True, stream=stream):
        bar = Progress(0.0, 1.0, True)
        bar.update(0.5, force=True)
        say("porthamiltonian: compiling it")
        bar.close(1.0)
    lines = stream.getvalue().split("\n")
    assert lines[0].startswith("\r[") and "50.0%" in lines[0]
    assert lines[1] == "porthamiltonian: compiling it"
    assert "100.0%" in lines[2]
    say("porthamiltonian: compiling that")
    assert capsys.readouterr().err == "porthamiltonian: compiling that\n"


def test_the_notice_names_the_kinds_of_element_kernels():
    """The soil model's first compile says it compiles soil kernels (issue 36: the first soil
    model added ~70 s that the user could not tell from the rest)."""
    seconds = CONTACT_KERNELS_S * 3 / 17 + 4 * ELEMENT_KERNEL_S + RHS_S
    assert notice("wheel", 3, 17, False, ["soil", "body", "soil", "soil"]) == (
        "porthamiltonian: compiling 3 contact kernels, 3 soil kernels, 1 body kernel and the right-hand side of "
        f"'wheel' (first run only, cached afterwards), ~{seconds:.0f} s")


def test_the_element_kernels_are_named_by_kind_and_the_declared_ones_counted_once():
    """The rimless wheel on soil's generated source imports these element kernels (listed by
    hand from it); the compliant contact's kernels declared with the contact chain are
    counted with it (`notice`'s ``missing``), never again as element kernels, whatever the
    cache holds; the others are counted when numba has no version of them (its index)."""
    import types

    from porthamiltonian.compile.notice import kernel_kind, new_element_kernels
    from porthamiltonian.kernels import bodies, compliant, joints, soil

    imported = [bodies.rigid_body_rates, soil.spring_outputs, soil.plastic_law, compliant.friction_law,
                joints.joint_terms, compliant.spring_outputs, compliant.spring_events]
    module = types.ModuleType("generated")
    for i, k in enumerate(imported):
        setattr(module, f"_k{i}_", k)
    assert [kernel_kind(k) for k in imported] == ["body", "soil", "soil", "compliant-contact", "joint",
                                                  "compliant-contact", "compliant-contact"]
    declared = {id(k) for k in _parallel.DECLARED}
    assert {id(compliant.spring_outputs), id(compliant.spring_events)} <= declared
    never = [k for k in imported if id(k) not in declared and not k.overloads
             and not k._cache._cache_file._load_index()]
    assert new_element_kernels(module) == never
