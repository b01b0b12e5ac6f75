"""Errors and exports that name the fix (issue 35): an undeclared input says how to declare it,
and `plot_bode` is where the API reference puts it (`porthamiltonian.diagnostics`)."""

import numpy as np
import pytest

import porthamiltonian as ph


def test_an_undeclared_input_says_to_declare_the_source_as_an_input():
    bg = ph.BondGraph("msd")
    bg.add(ph.Se("F", 1.0), ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=3.0))
    for el in ("m", "k"):
        bg.connect("v", el)
    bg.connect("F", "v")
    system = ph.compile(bg)
    lin = system.linearize(0.0, system.initial_state({}))
    with pytest.raises(ph.ParameterError, match=r"Se\('F', input=True\)"):
        lin.transfer_function(1j * np.array([1.0]), inputs="F", outputs="F")


def test_plot_bode_is_in_diagnostics_as_the_reference_says():
    from porthamiltonian.diagnostics import plot_bode, plot_sweep
    from porthamiltonian.diagnostics import plots

    assert plot_bode is plots.plot_bode and plot_sweep is plots.plot_sweep
    with pytest.raises(ImportError, match="no_such_plot"):
        from porthamiltonian.diagnostics import no_such_plot  # noqa: F401
