"""The compiled right-hand side (porthamiltonian.compile.jit) against the generated Python one.

Reference: the Python right-hand side (`PHSystem._rhs`), which calls the elements' methods,
evaluated at the same states. The compiled path calls the same kernels in the same order, so
the two agree to round-off; where a kernel meets a state the compiled path does not handle,
it must say so (status != 0) and `PHSystem.rhs` must return the Python value.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import porthamiltonian as ph
from porthamiltonian.compile import jit as _jit
from porthamiltonian.models import build_model

from ..models.test_registry import VARIANTS

#: variants whose every element exports kernels (the others use the Python path: a source, a
#: distance joint), both contact kinds
COMPILED = [(n, p) for n, p in VARIANTS if n != "mass-spring-damper" and p.get("model") != "massless_link"]
#: every variant runs in CI: the two slowest (the spherical Geneva and the 8-foot rimless wheel on
#: sliding-plane contacts) took 60-75 s each when their right-hand sides compiled every foot's
#: statements anew; the wheel's feet are now outlined (`porthamiltonian.compile.outline`): 6-7 s
#: each with the kernels cached (2026-11-29)


def _trajectory_states(name, params, t_end=0.3, n=25):
    model = build_model(name, **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    traj = ph.simulate(system, (0.0, t_end), x0, throw=False, **model.solver)
    system.compiled  # noqa: B018 - builds the compiled right-hand side now
    return system, traj.x[:: max(1, len(traj.x) // n)]


@pytest.mark.parametrize("name, params", COMPILED, ids=[f"{n}-{p}" for n, p in COMPILED])
def test_compiled_rhs_equals_python_rhs_along_a_trajectory(name, params):
    system, xs = _trajectory_states(name, params)
    assert system.compiled == "numba", system.compiled
    j = system._jit
    handled = 0
    for x in xs:
        ref = system._rhs(0.0, x, system._u0, False)
        xdot, status, _, _, _, _ = j["fn"](0.0, x, system._u0, j["F"], j["I"])
        tol = dict(rtol=1e-12, atol=1e-12 * (1.0 + np.abs(ref).max()))  # round-off: inlining differs
        if status == 0:
            handled += 1
            np.testing.assert_allclose(xdot, ref, **tol)
        np.testing.assert_allclose(system.rhs(0.0, x), ref, **tol)
    assert handled == len(xs)


def _spring_damper_scene():
    """Two bodies under gravity: a point spring from the ground to body a, a spatial damper
    from a to the ground, a point damper and a point spring between a and b, a spatial damper
    from b to a, a spatial spring with a rotated rest pose from the ground to b (each kernel
    with the ground on either side and with two moving frames)."""
    from porthamiltonian.library import (Gravity, Ground, PointDamper, PointSpring, RigidBody, SpatialDamper,
                                         SpatialSpring)

    bg = ph.BondGraph("springs")
    ground = bg.add(Ground(frames={"top": np.eye(4)}))
    offset = np.eye(4)
    offset[:3, 3] = (0.05, -0.02, 0.1)
    rest = np.eye(4)
    rest[:3, :3] = Rotation.from_rotvec([0.3, -0.2, 0.5]).as_matrix()
    rest[:3, 3] = (0.2, 0.1, -0.45)
    a = bg.add(RigidBody("a", 1.2, (0.02, 0.03, 0.04), frames={"hook": offset}))
    b = bg.add(RigidBody("b", 0.7, (0.01, 0.012, 0.02)))
    for body in (a, b):
        bg.add(Gravity(f"g_{body.name}", body))
        bg.connect(body.frame().port, f"g_{body.name}")
    elements = [
        PointSpring("s_ga", ground.frame("top"), a.frame("hook"), stiffness=300.0, rest_length=0.2,
                    point_a=(0.1, 0.0, 0.0), point_b=(0.0, 0.02, 0.0)),
        SpatialDamper("d_ag", a.frame(), ground.frame("top"), damping=np.diag([0.1, 0.2, 0.3, 4.0, 5.0, 6.0])),
        PointDamper("d_ab", a.frame("hook"), b.frame(), damping=3.0, point_b=(0.01, 0.0, 0.03)),
        PointSpring("s_ab", a.frame(), b.frame(), stiffness=150.0, rest_length=0.1),
        SpatialDamper("d_ba", b.frame(), a.frame("hook"), rotational=0.05, translational=2.0),
        SpatialSpring("k_gb", ground.frame("top"), b.frame(), rotational=np.diag([0.2, 0.3, 0.4]),
                      translational=80.0, coupling=np.full((3, 3), 0.5), rest=rest),
    ]
    for el in elements:
        bg.add(el)
        bg.connect(el.fa.port, (el, "a"))
        bg.connect(el.fb.port, (el, "b"))
    return bg


def test_springs_and_dampers_compile_and_match_python():
    """Compiled against the Python elements along a run; the ledger closes."""
    system = ph.compile(_spring_damper_scene())
    assert system.compiled == "numba", system.compiled
    x0 = system.initial_state({"a.pose": [1, 0, 0, 0, 0.1, 0.0, -0.3], "b.pose": [1, 0, 0, 0, 0.2, 0.1, -0.5]})
    traj = ph.simulate(system, (0.0, 0.5), x0)
    j = system._jit
    for x in traj.x[:: max(1, len(traj.x) // 20)]:
        ref = system._rhs(0.0, x, system._u0, False)
        xdot, status, _, _, _, _ = j["fn"](0.0, x, system._u0, j["F"], j["I"])
        assert status == 0
        np.testing.assert_allclose(xdot, ref, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(ref).max()))
    assert traj.power_budget().relative_residual < 1e-6


def test_a_state_the_compiled_path_declines_is_evaluated_in_python():
    """A touching contact whose tracked parameters were carried across the ellipsoid's pole
    (the warm start is not sane and the pair has no closed form): the compiled kernel returns
    a non-zero status and `rhs` answers with the Python path, which re-charts."""
    system, xs = _trajectory_states("two-ellipsoids", {}, t_end=0.6)
    j = system._jit
    sl = system.layout["upper_lower/spring.x"]
    active = system.layout["upper_lower/spring.active"]
    x = next(x for x in xs[::-1] if x[active][0] > 0.5).copy()
    x[sl][1] = 1.5707963  # the pole of chart 0's latitude
    xdot, status, _, _, _, _ = j["fn"](0.0, x, system._u0, j["F"], j["I"])
    assert status != 0
    before = j["fallbacks"]
    # bit-identical on purpose: the fallback runs the same kernels on the same inputs
    np.testing.assert_array_equal(system.rhs(0.0, x), system._rhs(0.0, x, system._u0, False))
    assert j["fallbacks"] == before + 1


def test_models_outside_the_compiled_path_say_why():
    model = build_model("four-bar-clearance", model="massless_link")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    assert system.compiled.startswith("python: "), system.compiled
    assert "DistanceJoint 'link' exports no compiled terms kernel" in system.compiled
    model = build_model("two-ellipsoids")
    assert ph.compile(model.graph, jit=False).compiled == "python: compile(..., jit=False)"


def test_no_generated_source_assigns_to_an_array_slice_or_joins_a_blocks_inputs_call_by_call():
    """numba compiles an assignment to a slice or through an index array with its formatted
    shape-error message: 1.4 s of the trotting Go1's 6 s compile were its linear block's two
    (`porthamiltonian.kernels.lie.put` and `put_at` write without it), and the block's 36
    inputs were joined by nested calls (47 arrays per evaluation): they now go into one buffer
    (`codegen._Gen.block_inputs`). Every registered variant's compiled source is read for
    both patterns; a scalar store (``xdot[12] = ...``, ``a0[a7] = ...`` in a helper) is
    allowed. That the buffers hold the right values is
    `test_compiled_rhs_equals_python_rhs_along_a_trajectory`'s."""
    import re

    store = re.compile(r"^\s*\w+\[([^\]]*:[^\]]*|[A-Z_]\w*)\]\s*=[^=]")
    for name, params in COMPILED:
        model = build_model(name, **params)
        src = _jit.generate_jit(ph.compile(model.graph, baumgarte=model.baumgarte)._plan)[0]
        assert not [line for line in src.splitlines() if store.match(line)], (name, params)
        assert "_cat(_cat(" not in src, (name, params)
    trot = _jit.generate_jit(ph.compile(build_model("quadruped-trot").graph)._plan)[0]
    assert "_mv(LINR_B, _in_linr)" in trot and "_mv(LIN0_B, _in_lin0)" in trot


def test_the_generated_source_depends_on_the_structure_only():
    """Parameters live in the packed arrays, not in the source: a parameter sweep compiles once."""
    a = ph.compile(build_model("two-ellipsoids").graph)
    b = ph.compile(build_model("two-ellipsoids", mass=2.0, friction=0.4).graph)
    assert a._jit["source"] == b._jit["source"]
    assert not np.array_equal(a._jit["F"], b._jit["F"])


def test_the_generated_source_names_the_kernels_it_was_compiled_against():
    """numba keeps a cached function's machine code while its own file is unchanged, even when
    a kernel it calls changed: the generated source carries the digest of the kernel sources
    (and of jit.py), so a changed kernel gives a new cache file. A kernel change with the old
    file name ran the old kernel (seen when the local Hertz law's wrench was added)."""
    import hashlib
    from pathlib import Path

    from porthamiltonian import kernels

    sources = hashlib.sha256()
    for src in sorted(Path(kernels.__file__).parent.glob("*.py")):
        sources.update(src.name.encode())
        sources.update(src.read_bytes())
    assert kernels.SOURCES_DIGEST == sources.hexdigest()
    expected = hashlib.sha256((sources.hexdigest() + Path(_jit.__file__).read_text()).encode()).hexdigest()[:20]
    source = ph.compile(build_model("heavy-top").graph)._jit["source"]
    assert f"# kernels {expected}\n" in source


def test_generated_sources_are_cached_in_the_cache_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("PORTHAMILTONIAN_CACHE", str(tmp_path))
    source = (
        '"""a test module"""\nimport numpy as np\nfrom numba import njit\n\n\n@njit(cache=True)\n'
        "def rhs(t, x, u_in, F, I):\n    return x * 2.0 + 0.0 * t, 0  # test_generated_sources_are_cached\n"
    )
    module = _jit.load_jit(source)
    files = list(tmp_path.glob("porthamiltonian_rhs_*.py"))
    assert len(files) == 1 and files[0].read_text() == source
    assert _jit.load_jit(source) is module
    out, status = module.rhs(0.0, np.arange(3.0), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64))
    # bit-exact on every CPU: small integers
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])


#: variants whose events compile too: the reduced contacts' events stay in Python (models
#: built on the reduced contact with no `contact` parameter: REDUCED_ONLY), and so do those of
#: contacts with a touchdown guard, which reads other bodies' poses (GUARDED)
REDUCED_ONLY = {"bowl-on-table"}
GUARDED = {"compass-walker"}
EVENTS_COMPILED = [(n, p) for n, p in COMPILED if p.get("contact") != "reduced" and n not in REDUCED_ONLY | GUARDED]


def _python_only(system):
    """Context: `system` evaluated on its Python path only (the reference of the compiled one:
    `PHSystem.multipliers` and `_event_value` use the compiled evaluation when it is built)."""
    import contextlib

    @contextlib.contextmanager
    def ctx():
        j = system._jit
        fn, values = j["fn"], j["values"]
        j["fn"], j["values"] = None, None
        try:
            yield
        finally:
            j["fn"], j["values"] = fn, values
    return ctx()


@pytest.mark.parametrize("name, params", EVENTS_COMPILED, ids=[f"{n}-{p}" for n, p in EVENTS_COMPILED])
def test_compiled_event_values_equal_the_python_event_functions(name, params):
    """Every element event's value from the one compiled call (`PHSystem._event_value`)
    against the element's Python event function (on the Python path: a sliding-plane
    contact's detach value is then the multiplier of the Python solve), along a trajectory
    with contacts made, culled and released; and at a state where no compiled evaluation was
    made (the root finder's), from one compiled evaluation there."""
    system, xs = _trajectory_states(name, params, t_end=0.6)
    if not system.events:
        return
    assert system._jit["events"]
    for x in xs:
        with _python_only(system):
            refs = [b.value(0.0, x, system) for b in system.events]
        for fresh in (False, True):
            if fresh:
                system._jit["values"] = None
            else:
                system.rhs(0.0, x)   # the compiled evaluation at x provides the event values there
            for k, (b, ref) in enumerate(zip(system.events, refs)):
                got = system._event_value(k, 0.0, x)
                # the multipliers of the two paths differ by the solve's round-off
                tol = dict(rel=1e-9, abs=1e-12) if b.spec.name == "detach" else dict(rel=1e-12, abs=1e-15)
                assert got == pytest.approx(ref, **tol), (b.name, got, ref)
            # all at once (`event_values`, what `simulate` asks per step): the same numbers bit
            # for bit, from the last evaluation and from a fresh one
            each = np.array([system.event_value(k, 0.0, x) for k in range(len(system.events))])
            if fresh:
                system._jit["values"] = None
            np.testing.assert_array_equal(system.event_values(0.0, x), each)
        with _python_only(system):   # the elements' Python functions
            np.testing.assert_array_equal(system.event_values(0.0, x), refs)


def test_the_compiled_path_starts_after_jit_after_evaluations():
    """Short runs stay in Python (no compile time); the switch comes at the same evaluation
    whatever the state of numba's cache (`PHSystem._plan_path` reads neither the cache nor a
    clock), so two runs of the same system from scratch give identical trajectories: in a
    fresh checkout the first run compiles, the second loads from the cache."""
    from porthamiltonian.compile.system import JIT_AFTER

    model = build_model("rocking-ellipsoid")
    runs = []
    for _ in range(2):
        system = ph.compile(model.graph, baumgarte=model.baumgarte)
        x0 = system.initial_state(model.initial)
        short = ph.simulate(system, (0.0, 0.01), x0, **model.solver)
        assert short.nfev < JIT_AFTER and system._jit["fn"] is None
        runs.append(ph.simulate(system, (0.0, 1.5), x0, **model.solver))
        assert short.nfev + runs[-1].nfev > JIT_AFTER and system._jit["fn"] is not None
    # bit-identical on purpose: the Python path and the compiled path call the same kernels (rerun reproduction)
    np.testing.assert_array_equal(runs[0].x, runs[1].x)


@pytest.mark.parametrize("name", ["heavy-top", "double-pendulum", "four-bar-clearance"])
def test_compiled_multipliers_and_residuals_equal_the_python_evaluation(name, monkeypatch):
    """Post-processing over a trajectory reads the multipliers and the constraints' velocity
    residuals and gaps from the compiled evaluation: equal to the Python path's
    (`PHSystem.multipliers` and `constraint_residuals`, one state at a time)."""
    params = {"contact": "compliant"} if name == "four-bar-clearance" else {}
    system, xs = _trajectory_states(name, params, t_end=0.1, n=12)
    assert system.compiled == "numba"
    ts = np.linspace(0.0, 0.1, len(xs))
    calls = []
    python_evaluate = type(system).evaluate
    monkeypatch.setattr(type(system), "evaluate", lambda self, *a: calls.append(a) or python_evaluate(self, *a))
    series, _ = system._constraint_series(ts, xs)
    assert not calls   # every sample from the compiled evaluation
    checked = 0
    for k, (t, x) in enumerate(zip(ts, xs)):
        with _python_only(system):
            lam, res = system.multipliers(t, x), system.constraint_residuals(t, x)
        fast = system.multipliers(t, x)   # the compiled evaluation's
        for path in lam:
            np.testing.assert_allclose(fast[path], lam[path], rtol=1e-10, atol=1e-10 * (1.0 + np.abs(lam[path]).max()))
        for path, (L, C, G) in series.items():
            np.testing.assert_allclose(L[k], lam[path], rtol=1e-10, atol=1e-10 * (1.0 + np.abs(lam[path]).max()))
            np.testing.assert_allclose(C[k], res["c"][path], rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(G[k], res["g"][path], rtol=1e-9, atol=1e-14)
            checked += 1
    assert checked >= 12


@pytest.mark.parametrize("contact", ["compliant", "soil"])
def test_kernels_skipped_for_a_culled_contact_return_their_idle_zeros(contact):
    """`Kernel.idle`: the generated code returns these zeros instead of calling the kernel
    while the contact's shared value says culled, or calls the cheaper kernel (events); here
    each such kernel is called at a culled foot (the rimless wheel's top foot, 2 m above the
    ground) and must return exactly them, and the events the Python event functions' values."""
    model = build_model("rimless-wheel", contact=contact)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    foot = f"foot{len([p for p in system.elements if p.endswith('/spring')]) // 2}"
    spring = system.elements[f"{foot}/spring"]
    own, refs = system.element_state(f"{foot}/spring", x0)
    out = spring.kernel("outputs")
    shared = out.function(0.0, own, out.pad(refs), out.F, out.I)[-1]
    assert shared[1] == 1.0   # culled by the bounding test
    checked = []
    for path, obj in system.elements.items():
        if not path.startswith(f"{foot}/") or path.endswith(("/ja", "/jb")):
            continue
        own_e, refs_e = system.element_state(path, x0)
        for role in ("rates", "law", "events"):
            kern = obj.kernel(role)
            if kern is None or kern.idle is None:
                continue
            if role == "events":
                python = [ev.value(0.0, x0, system) for ev in system.events if ev.element == path]
                # bit-identical on purpose: an idle kernel returns the zeros its full kernel returns
                np.testing.assert_array_equal(kern.idle(0.0, own_e, shared[2], kern.F, kern.I), python)
                np.testing.assert_array_equal(kern.function(0.0, own_e, kern.pad(refs_e), shared, kern.F, kern.I),
                                              python)
            elif role == "rates":
                inputs = tuple(np.zeros(p.dim) for p in obj.ports())
                got = kern.function(0.0, own_e, kern.pad(refs_e), inputs, shared, kern.F, kern.I)
                np.testing.assert_array_equal(got, np.zeros(kern.idle))
            else:
                # the law's inputs while culled: the bodies' twists, the spring's zero slip effort
                inputs = tuple(np.full(p.dim, 0.3) if p.dim == 6 else np.zeros(p.dim) for p in obj.ports())
                got = kern.function(0.0, inputs, kern.pad(refs_e), shared, kern.F, kern.I)
                assert len(got) == len(kern.idle)
                for value, n in zip(got, kern.idle):
                    np.testing.assert_array_equal(value, np.zeros(n))
            checked.append(path.split("/")[1])
    assert checked == ["spring", "spring", "damper", "slip"] + (["plastic"] if contact == "soil" else [])


def test_worth_loading_builds_the_compiled_path_for_runs_that_outlast_the_count_rule():
    """The path rule (`compile.system.worth_loading`) by hand: build now when the run's
    evaluations so far plus those expected exceed `JIT_AFTER`, whatever the cache holds."""
    from porthamiltonian.compile.system import JIT_AFTER, PATH_PROBE_AT, worth_loading

    assert worth_loading(PATH_PROBE_AT, JIT_AFTER)
    assert not worth_loading(PATH_PROBE_AT, JIT_AFTER - PATH_PROBE_AT)   # ends within the count rule


def test_a_long_run_of_a_tree_of_a_few_bodies_starts_on_the_compiled_path():
    """A 3-link tree simulated for 1 s (4000 RK4 evaluations): `simulate` builds the compiled
    right-hand side `PATH_PROBE_AT` evaluations in (the count rule alone waited `JIT_AFTER` =
    2000); the run equals a run on the Python path to round-off, and a second fresh system (its
    compiled code now from numba's cache, where the first may have compiled it) reproduces the
    first bit for bit."""
    from porthamiltonian.compile.system import JIT_AFTER, PATH_PROBE_AT
    from porthamiltonian.library import ArticulatedBody
    from porthamiltonian.robots.examples import chain

    def system(**options):
        robot = ArticulatedBody("chain", chain(3))
        bg = ph.BondGraph("chain3")
        bg.add(robot)
        return ph.compile(bg, **options), robot

    runs = []
    for _ in range(2):
        fresh, robot = system()
        x0 = fresh.initial_state({"chain.q": np.full(robot.nq, 0.3)})
        runs.append(ph.simulate(fresh, (0.0, 1.0), x0, method="RK4", step=1e-3))
        assert fresh._jit["fn"] is not None and fresh._jit["count"] == PATH_PROBE_AT < JIT_AFTER
    # bit-identical on purpose: the path changes at the same evaluation in both runs (rerun reproduction)
    np.testing.assert_array_equal(runs[0].x, runs[1].x)
    python, _ = system(jit=False)
    ref = ph.simulate(python, (0.0, 1.0), x0, method="RK4", step=1e-3)
    # the same kernels on both paths, 1000 RK4 steps: agreement to round-off (1e-12 of the state's scale)
    np.testing.assert_allclose(runs[0].x, ref.x, rtol=0, atol=1e-12 * np.abs(ref.x).max())
