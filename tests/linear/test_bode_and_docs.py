"""The Bode plot (Agg backend) shows the transfer function; the modules' examples run."""

import doctest
import importlib

import matplotlib
import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.diagnostics.plots import plot_bode

from .test_modes import msd

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.mark.parametrize("hz", [False, True])
def test_bode_plot_draws_magnitude_and_phase(hz):
    system = msd()
    lin = system.linearize(0.0, system.default_state())
    omega = np.logspace(-1, 2, 50)
    fig = plot_bode(lin, omega, hz=hz)
    mag, phase = fig.axes
    (line,) = mag.lines
    G = lin.transfer_function(1j * omega)[:, 0, 0]
    # bit-identical on purpose: the plot draws the same expressions evaluated on the same arrays
    assert_allclose(line.get_xdata(), omega / (2 * np.pi) if hz else omega, rtol=0, atol=0)
    assert_allclose(line.get_ydata(), np.abs(G), rtol=0, atol=0)
    # velocity over force of a mass-spring-damper: +90 deg well below resonance, -90 above
    assert_allclose(phase.lines[0].get_ydata()[[0, -1]], [90.0, -90.0], rtol=0, atol=2.0)
    assert line.get_label() == "y(F) / F"
    assert phase.get_xlabel() == ("frequency [Hz]" if hz else "frequency [rad/s]")


@pytest.mark.parametrize("omega", [[], [0.0, 1.0], [[1.0]], [1.0, np.inf]])
def test_bode_plot_rejects_bad_frequencies(omega):
    system = msd()
    lin = system.linearize(0.0, system.default_state())
    with pytest.raises(ph.ParameterError, match=r"`omega` must be a 1-D array of positive finite frequencies"):
        plot_bode(lin, omega)


@pytest.mark.parametrize("name", ["porthamiltonian.compile.linearize", "porthamiltonian.compile.modal"])
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0
