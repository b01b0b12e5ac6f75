"""Modal analysis and transfer functions of one-degree-of-freedom systems against closed forms,
and the named input columns of `PHSystem.analysis`."""

import math

import numpy as np
import pytest
import scipy.signal
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.compile import transfer_function

from ..core.conftest import two_masses

M, K, B = 2.0, 8.0, 0.6


def msd(constant_force=0.0):
    """Mass m on spring k and damper b, driven by input "F" and a constant force "W"."""
    bg = ph.BondGraph("msd")
    bg.add(ph.Se("W", constant_force), ph.Se("F", input=True), ph.Junction1("v"), ph.I("m", mass=M),
           ph.C("k", stiffness=K), ph.R("b", B))
    for a, b in (("W", "v"), ("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")):
        bg.connect(a, b)
    return ph.compile(bg)


def test_msd_mode_is_the_closed_form():
    system = msd()
    lin = system.linearize(0.0, system.default_state())
    (mode,) = lin.modes()
    wn, zeta = math.sqrt(K / M), B / (2.0 * math.sqrt(K * M))
    assert_allclose(mode.natural_frequency, wn, rtol=1e-12, atol=0)
    assert_allclose(mode.damping_ratio, zeta, rtol=1e-12, atol=0)
    assert_allclose(mode.damped_frequency, wn * math.sqrt(1 - zeta**2), rtol=1e-12, atol=0)
    # dq/dt = p/m: the momentum amplitude is m lambda times the displacement's
    assert_allclose(mode.shape["m.p"] / mode.shape["k.q"], M * mode.eigenvalue, rtol=1e-12, atol=0)
    assert max(abs(v) for v in mode.shape.values()) == 1.0


# scipy's freqresp goes through a transfer-function polynomial whose leading numerator
# coefficient is D, here ~1e-17 of round-off rather than 0: it warns that the polynomial is
# badly conditioned (its values are checked below)
@pytest.mark.filterwarnings("ignore::scipy.signal.BadCoefficients")
def test_msd_response_is_the_closed_form_and_scipy_agrees():
    """Velocity over force: s / (m s^2 + b s + k); scipy's freqresp of `to_statespace` too."""
    system = msd(constant_force=3.0)
    # at the static equilibrium under the constant force: the same linear model
    x = system.initial_state({"k.q": 3.0 / K})
    lin = system.linearize(0.0, x)
    assert_allclose(lin.rates, 0.0, rtol=0, atol=1e-15)
    omega = np.logspace(-1, 1.5, 12)
    s = 1j * omega
    expected = s / (M * s**2 + B * s + K)
    # the differences of rates holding a 3 N force at step 1e-4 lose eps 3 / 1e-4 to
    # round-off: measured 6e-12 (relative)
    assert_allclose(lin.transfer_function(s)[:, 0, 0], expected, rtol=1e-10, atol=0)
    assert_allclose(transfer_function(system, s, x=x)[:, 0, 0], expected, rtol=1e-10, atol=0)
    _, H = scipy.signal.freqresp(lin.to_statespace(), omega)
    assert_allclose(H, expected, rtol=1e-10, atol=0)


def test_flow_input_has_feedthrough():
    """A velocity source v on a spring k and damper b in parallel: the collocated output is the
    force, F = (k / s + b) v, with D = b (u . y the supplied power)."""
    bg = ph.BondGraph("kv")
    bg.add(ph.Sf("v", input=True), ph.Junction1("j"), ph.C("k", stiffness=K), ph.R("b", B))
    for a, b in (("v", "j"), ("j", "k"), ("j", "b")):
        bg.connect(a, b)
    system = ph.compile(bg)
    lin = system.linearize(0.0, system.default_state())
    assert_allclose(lin.D, [[B]], rtol=1e-12, atol=0)
    s = np.array([0.5j, 2.0j, 1.0 + 1.0j])
    assert_allclose(lin.transfer_function(s)[:, 0, 0], K / s + B, rtol=1e-12, atol=0)


def test_analysis_names_the_input_columns():
    bg = ph.BondGraph("two_inputs")
    bg.add(ph.Se("W", 1.5), ph.Se("F", input=True), ph.Se("G", input=True, dim=1), ph.Junction1("v"),
           ph.I("m", mass=M), ph.C("k", stiffness=K))
    for a, b in (("W", "v"), ("G", "v"), ("F", "v"), ("v", "m"), ("v", "k")):
        bg.connect(a, b)
    system = ph.compile(bg)
    a = system.analysis(0.0, system.default_state(), u=[0.2, -0.7])
    assert sorted(a.source_names) == ["F", "G", "W"]
    assert a.input_names == [p for p, _ in sorted(system.inputs.items(), key=lambda kv: kv[1].start)]
    assert a.B_u.shape == (2, 2)
    for path, sl in system.inputs.items():
        # bit-exact on every CPU: data movement and sign changes only, no rounding
        assert_allclose(a.B_u[:, sl], a.B[:, [a.source_names.index(path)]], rtol=0, atol=0)
    # the constant source is in B and s but not in B_u; the rates follow
    assert_allclose(a.s[a.source_names.index("W")], 1.5, rtol=0, atol=0)
    assert_allclose(a.structure_rates(), a.zdot, rtol=0, atol=1e-15)


@pytest.fixture(scope="module")
def lin():
    system = msd()
    return system.linearize(0.0, system.default_state())


@pytest.mark.parametrize("kwargs, match", [
    (dict(s=1j, inputs="X"), r"`inputs` must name entries of \['F'\], got 'X'"),
    (dict(s=1j, outputs=["F", "m.q"]), r"`outputs` must name collocated outputs \['F'\] or tangent"),
    (dict(s=[[1j]]), r"`s` must be a finite complex number or 1-D array"),
    (dict(s=np.nan), r"`s` must be a finite"),
])
def test_transfer_function_errors(lin, kwargs, match):
    with pytest.raises(ph.ParameterError, match=match):
        lin.transfer_function(**kwargs)


def test_transfer_function_at_a_pole():
    bg = ph.BondGraph("free_mass")
    bg.add(ph.Se("F", input=True), ph.I("m", mass=M))
    bg.connect("F", "m")
    lin = ph.compile(bg).linearize(0.0, np.zeros(2))
    assert_allclose(lin.transfer_function(2.0j), [[1.0 / (2.0j * M)]], rtol=1e-12, atol=0)
    with pytest.raises(ph.ParameterError, match=r"`s` = 0j is an eigenvalue of A"):
        lin.transfer_function(0.0)


def test_transfer_function_needs_a_point_for_a_system():
    with pytest.raises(ph.ParameterError, match=r"`x` \(the expansion point\) is required"):
        transfer_function(msd(), 1j)


@pytest.mark.parametrize("step, match", [
    (0.0, r"`step`"), (-1e-4, r"`step`"), (0.5, r"`step` must be in \(0, 0.1\]"), (np.inf, r"`step`"),
])
def test_linearize_rejects_bad_steps(step, match):
    system = msd()
    with pytest.raises(ph.ParameterError, match=match):
        system.linearize(0.0, system.default_state(), step=step)


def test_linearize_rejects_bad_states_and_inputs():
    system = msd()
    with pytest.raises(ph.ParameterError, match=r"`x` must have shape \(5,\)"):
        system.linearize(0.0, np.zeros(3))
    with pytest.raises(ph.ParameterError, match=r"`u`"):
        system.linearize(0.0, system.default_state(), u=[1.0, 2.0])
    with pytest.raises(ph.ParameterError, match=r"`t`"):
        system.linearize(np.nan, system.default_state())


def test_dependent_storage_is_a_constraint():
    """Two masses on one 1-junction with a spring (m2 dependent, a cut bond): one degree of
    freedom, omega = sqrt(k / (m1 + m2)); the manifold p1 / m1 = p2 / m2 is spanned by (m1, m2, 0)."""
    m1, m2, k = 2.0, 3.0, 5.0
    bg, _ = two_masses(m1, m2, k, 0.0)
    system = ph.compile(bg)
    lin = system.linearize(0.0, system.default_state())
    assert lin.tangent_names == ("m1.p", "m2.p", "k.q")
    assert lin.basis.shape == (3, 2)
    p_dir = lin.basis[:2] @ lin.basis[:2].T  # projector onto the momentum part of the basis
    assert_allclose(p_dir, np.outer([m1, m2], [m1, m2]) / (m1**2 + m2**2), rtol=0, atol=1e-12)
    (mode,) = lin.modes()
    assert_allclose(mode.natural_frequency, math.sqrt(k / (m1 + m2)), rtol=1e-10, atol=0)
