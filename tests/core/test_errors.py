"""Every bad input raises a typed porthamiltonian error whose message names the problem and the fix."""

import inspect
import json

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import (
    BondError,
    CausalityError,
    ModelError,
    ParameterError,
    PhaseError,
    SerializationError,
)
from porthamiltonian.library import DistanceConstraint, PointMass

from .conftest import msd_graph, pendulum_graph


def connect_mismatched_dimensions():
    bg = ph.BondGraph()
    bg.add(ph.Se("F", [1.0, 2.0]), ph.I("m", mass=1.0))
    bg.connect("F", "m")


def use_a_port_twice():
    bg = ph.BondGraph()
    bg.add(ph.Se("F", 1.0), ph.I("m", mass=1.0), ph.C("k", stiffness=1.0))
    bg.connect("F", "m")
    bg.connect("k", "m")


def compile_with_a_dangling_port():
    bg = ph.BondGraph()
    bg.add(ph.Junction1("v"), ph.I("m", mass=1.0), ph.C("k", stiffness=1.0))
    bg.connect("v", "m")
    ph.compile(bg)


def edit_after_compile():
    bg = msd_graph()
    ph.compile(bg)
    bg.add(ph.R("b2", 1.0))


def disconnect_after_compile():
    bg = msd_graph()
    ph.compile(bg)
    bg.disconnect("b3")


def swap_after_compile():
    bg = msd_graph()
    ph.compile(bg)
    bg.swap("k", ph.C("k", stiffness=5.0))


def simulate_with_wrong_x0_shape():
    system = ph.compile(msd_graph())
    ph.simulate(system, (0.0, 1.0), np.zeros(3))


def simulate_with_nonfinite_x0():
    system = ph.compile(msd_graph())
    x0 = system.initial_state()
    x0[1] = np.nan
    ph.simulate(system, (0.0, 1.0), x0)


def initial_state_unknown_block():
    ph.compile(msd_graph()).initial_state({"k.qq": 1.0})


def load_unknown_element_type(tmp_path):
    path = tmp_path / "msd.json"
    msd_graph().save(path)
    data = json.loads(path.read_text())
    node = next(n for n in data["graph"]["nodes"] if n["id"] == "m")
    node["type"] = "Inertia"
    path.write_text(json.dumps(data))
    ph.load(path)


def load_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    ph.load(path)


def swap_with_mismatched_dimension():
    bg = msd_graph()
    bg.swap("k", ph.C("k3", stiffness=np.eye(3)))


def swap_element_for_component_with_other_port_names():
    bg = msd_graph()
    comp = ph.BondGraph("spring")
    comp.add(ph.Junction1("j"), ph.C("k", stiffness=1.0))
    comp.connect("j", "k")
    comp.expose("a", "j")
    bg.swap("k", comp)


def simulate_an_uncompiled_graph():
    ph.simulate(msd_graph(), (0.0, 1.0), np.zeros(4))


def simulate_with_unknown_method():
    system = ph.compile(msd_graph())
    ph.simulate(system, (0.0, 1.0), system.initial_state(), method="RK54")


def simulate_with_decreasing_t_span():
    system = ph.compile(msd_graph())
    ph.simulate(system, (1.0, 0.0), system.initial_state())


def two_effort_sources_on_one_0_junction():
    bg = ph.BondGraph("two_sources")
    bg.add(ph.Se("E1", 1.0), ph.Se("E2", 2.0), ph.Junction0("u"), ph.C("c", compliance=1.0))
    bg.connect("E1", "u")
    bg.connect("E2", "u")
    bg.connect("u", "c")
    ph.compile(bg)


def inconsistent_velocities_of_dependent_masses():
    bg = ph.BondGraph("two_masses")
    bg.add(ph.Junction1("v"), ph.I("m1", mass=2.0), ph.I("m2", mass=3.0), ph.C("k", stiffness=5.0))
    bg.connect("v", "m1")
    bg.connect("v", "m2")
    bg.connect("v", "k")
    system = ph.compile(bg)
    ph.simulate(system, (0.0, 1.0), system.initial_state({"m1.p": 1.0, "m2.p": 0.0}))


def pendulum_off_its_rod():
    system = ph.compile(pendulum_graph(length=2.0))
    ph.simulate(system, (0.0, 1.0), system.initial_state({"ball.r": [2.2, 0.0]}))


def pendulum_moving_along_its_rod():
    system = ph.compile(pendulum_graph(length=2.0))
    ph.simulate(system, (0.0, 1.0), system.initial_state({"ball.p": [1.0, 0.0]}))  # r0 = (2, 0): radial velocity


def distance_constraint_on_a_non_point_mass():
    DistanceConstraint("rod", ph.I("m", mass=1.0), 1.0)


def compile_a_non_graph():
    ph.compile(ph.I("m", mass=1.0))


def compile_an_empty_graph():
    ph.compile(ph.BondGraph("empty"))


def negative_baumgarte():
    ph.compile(msd_graph(), baumgarte=(-1.0, 1.0))


BAD_INPUTS = [
    pytest.param(
        connect_mismatched_dimensions, BondError,
        r"dimension mismatch: Se:F port 'p' has dimension 2 but I:m port 'p' has dimension 1",
        id="connect_mismatched_dimensions",
    ),
    pytest.param(
        use_a_port_twice, BondError,
        r"port 'p' of I:m is already used \(bonded by 'b0'\).*add a junction",
        id="use_a_port_twice",
    ),
    pytest.param(
        compile_with_a_dangling_port, ModelError,
        r"port 'p' of C:k \(at 'k'\) is not connected",
        id="compile_with_a_dangling_port",
    ),
    pytest.param(
        lambda: ph.R("b", [[1.0, 0.5], [0.0, 1.0]]), ParameterError,
        r"`b\.resistance` must be symmetric",
        id="nonsymmetric_R",
    ),
    pytest.param(
        lambda: ph.R("b", [[-1.0, 0.0], [0.0, 1.0]]), ParameterError,
        r"`b\.resistance` must be positive semidefinite, got eigenvalue -1",
        id="negative_definite_R",
    ),
    pytest.param(
        lambda: ph.I("m", mass=0.0), ParameterError,
        r"`m\.mass` must be positive definite, got smallest eigenvalue 0",
        id="zero_mass",
    ),
    pytest.param(
        lambda: ph.I("m", mass=-2.0), ParameterError,
        r"`m\.mass` must be positive definite",
        id="negative_mass",
    ),
    pytest.param(
        lambda: ph.I("m", mass=[[1.0, 2.0], [2.0, 1.0]]), ParameterError,
        r"`m\.mass` must be positive definite, got smallest eigenvalue -1",
        id="indefinite_mass_matrix",
    ),
    pytest.param(
        lambda: PointMass("ball", 0.0, dim=2), ParameterError,
        r"`ball\.mass` must be > 0, got 0\.0",
        id="zero_point_mass",
    ),
    pytest.param(
        lambda: ph.C("k", stiffness=float("nan")), ParameterError,
        r"`k\.stiffness` must be finite, got nan",
        id="nan_stiffness",
    ),
    pytest.param(
        lambda: ph.C("k", stiffness=1.0, compliance=1.0), ParameterError,
        r"give `stiffness` or `compliance`, not both",
        id="stiffness_and_compliance",
    ),
    pytest.param(
        lambda: ph.Se("F", lambda t: [1.0, np.inf]), ParameterError,
        r"`F\.effort` must return a finite array",
        id="nonfinite_source_signal",
    ),
    pytest.param(
        edit_after_compile, PhaseError,
        r"BondGraph 'msd' was compiled and is frozen: `add` is not allowed after compile\. "
        r"Edit a copy instead: `bg2 = bg\.copy\(\)`",
        id="edit_after_compile",
    ),
    pytest.param(
        disconnect_after_compile, PhaseError,
        r"`disconnect` is not allowed after compile.*bg\.copy\(\)",
        id="disconnect_after_compile",
    ),
    pytest.param(
        swap_after_compile, PhaseError,
        r"`swap` is not allowed after compile.*bg\.copy\(\)",
        id="swap_after_compile",
    ),
    pytest.param(
        simulate_with_wrong_x0_shape, ParameterError,
        r"`x0` must have shape \(4,\) for system 'msd' \(2 blocks \+ 2 ledger entries\), got \(3,\)",
        id="simulate_with_wrong_x0_shape",
    ),
    pytest.param(
        simulate_with_nonfinite_x0, ParameterError,
        r"`x0` must be finite; non-finite entries: \['k\.q'\]",
        id="simulate_with_nonfinite_x0",
    ),
    pytest.param(
        initial_state_unknown_block, ModelError,
        r"the state has no block 'k\.qq'; did you mean 'k\.q'\?; blocks are \['m\.p', 'k\.q'\]",
        id="initial_state_unknown_block",
    ),
    pytest.param(
        load_unknown_element_type, SerializationError,
        r"unknown element type 'Inertia' for 'm'.*Known types: .*'I'",
        id="load_unknown_element_type",
    ),
    pytest.param(
        load_a_file_that_is_not_json, SerializationError,
        r"broken\.json: not valid JSON",
        id="load_a_file_that_is_not_json",
    ),
    pytest.param(
        swap_with_mismatched_dimension, ModelError,
        r"cannot swap C:k for C:k3: port 'p' differs \(dim 1 vs 3",
        id="swap_with_mismatched_dimension",
    ),
    pytest.param(
        swap_element_for_component_with_other_port_names, ModelError,
        r"cannot swap C:k for graph:spring: port 'p' is missing",
        id="swap_element_for_component_with_other_port_names",
    ),
    pytest.param(
        simulate_an_uncompiled_graph, PhaseError,
        r"simulate needs a compiled system, got the BondGraph 'msd': call `system = compile\(bg\)` first",
        id="simulate_an_uncompiled_graph",
    ),
    pytest.param(
        simulate_with_unknown_method, ParameterError,
        r"`method` 'RK54' is not a solve_ivp method.*did you mean 'RK4' or 'RK45'",
        id="simulate_with_unknown_method",
    ),
    pytest.param(
        simulate_with_decreasing_t_span, ParameterError,
        r"`t_span` must be increasing \(t0 < t1\), got \(1\.0, 0\.0\)",
        id="simulate_with_decreasing_t_span",
    ),
    pytest.param(
        two_effort_sources_on_one_0_junction, CausalityError,
        r"Se:E1 conflicts with Se:E2.*Two sources \(or ideal constraints\) impose the same variable",
        id="two_effort_sources_on_one_0_junction",
    ),
    pytest.param(
        inconsistent_velocities_of_dependent_masses, ParameterError,
        r"`x0` violates the constraint of the dependent storage 'm2' by 0\.5.*initial state consistent with 'm1'",
        id="inconsistent_velocities_of_dependent_masses",
    ),
    pytest.param(
        pendulum_off_its_rod, ParameterError,
        r"`x0` violates constraint 'rod': gap 0\.2.*check_constraints=False",
        id="pendulum_off_its_rod",
    ),
    pytest.param(
        pendulum_moving_along_its_rod, ParameterError,
        r"`x0` violates constraint 'rod': gap 0, velocity residual 0\.6",
        id="pendulum_moving_along_its_rod",
    ),
    pytest.param(
        distance_constraint_on_a_non_point_mass, ParameterError,
        r"`rod\.mass` must be a PointMass",
        id="distance_constraint_on_a_non_point_mass",
    ),
    pytest.param(compile_a_non_graph, ModelError, r"`compile` takes a BondGraph, got I", id="compile_a_non_graph"),
    pytest.param(compile_an_empty_graph, ModelError, r"BondGraph 'empty' is empty", id="compile_an_empty_graph"),
    pytest.param(
        negative_baumgarte, ParameterError,
        r"`baumgarte\[0\]` must be >= 0, got -1\.0",
        id="negative_baumgarte",
    ),
]


@pytest.mark.parametrize("make, error, match", BAD_INPUTS)
def test_bad_input_raises_a_typed_error(make, error, match, tmp_path):
    args = (tmp_path,) if "tmp_path" in inspect.signature(make).parameters else ()
    with pytest.raises(error, match=match):
        make(*args)


def test_errors_are_also_standard_python_errors():
    """Input errors are ValueErrors, phase errors RuntimeErrors: generic handlers keep working."""
    with pytest.raises(ValueError):
        ph.I("m", mass=-1.0)
    with pytest.raises(RuntimeError):
        edit_after_compile()


def test_a_failed_connect_leaves_the_graph_usable():
    """After a rejected bond the junction keeps no stray port and the graph still compiles."""
    bg = ph.BondGraph("mixed")
    bg.add(ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=3.0))
    bg.add(ph.Junction1("w", dim=3), ph.I("m3", mass=np.eye(3)), ph.C("k3", stiffness=np.eye(3)))
    bg.connect("v", "m")
    with pytest.raises(BondError, match="dimension mismatch: 1:v port 'p1' has dimension 1 but I:m3"):
        bg.connect("v", "m3")
    assert [p.name for p in bg["v"].ports()] == ["p0"]
    bg.connect("v", "k")
    bg.connect("w", "m3")
    bg.connect("w", "k3")
    system = ph.compile(bg)
    assert [p.name for p in bg["v"].ports()] == ["p0", "p2"]
    assert [b.key for b in system.layout.blocks] == ["m.p", "k.q", "m3.p", "k3.q"]
