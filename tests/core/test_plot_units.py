"""Observable plots: an axes per unit, every axis labelled with its unit."""

import matplotlib
import numpy as np
import pytest

from porthamiltonian.diagnostics.plots import plot_observables
from porthamiltonian.models import MODELS, build_model

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


def test_series_of_one_quantity_share_its_name_on_the_axis():
    t = np.linspace(0.0, 1.0, 11)
    fig = plot_observables(t, {"lower height": t, "upper height": t, "gap lower_floor": t, "gap upper_floor": t},
                           {"lower height": "m", "upper height": "m", "gap lower_floor": "mm", "gap upper_floor": "mm"})
    assert [ax.get_ylabel() for ax in fig.axes] == ["height [m]", "gap [mm]"]


def test_one_axes_per_unit_with_units_in_the_labels():
    t = np.linspace(0.0, 1.0, 11)
    series = {"position": t, "velocity": 2 * t, "height": 3 * t, "spin": 4 * t}
    units = {"position": "m", "velocity": "m/s", "height": "m", "spin": "rad/s"}
    fig = plot_observables(t, series, units, title="msd", events=[(0.5, "impact")])
    axes = fig.axes
    # two series of one unit: the axis names both quantities (no shared word), with the unit
    assert [ax.get_ylabel() for ax in axes] == ["position, height [m]", "velocity [m/s]", "spin [rad/s]"]
    assert [[ln.get_label() for ln in ax.lines if not ln.get_label().startswith("_")] for ax in axes] == [
        ["position", "height"], ["velocity"], ["spin"]]
    assert axes[-1].get_xlabel() == "time [s]" and axes[0].get_title() == "msd"
    for ax, expect in zip(axes, ([t, 3 * t], [2 * t], [4 * t])):
        data = [ln.get_ydata() for ln in ax.lines if not ln.get_label().startswith("_")]
        # bit-identical on purpose: the plotted data are these expressions of the same time array
        np.testing.assert_array_equal(data, expect)


def test_series_without_unit_are_flagged_on_their_axes():
    t = np.linspace(0.0, 1.0, 5)
    fig = plot_observables(t, {"a": t, "b": t}, {"a": "m"})
    assert [ax.get_ylabel() for ax in fig.axes] == ["a [m]", "b [unit not given]"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_registered_observable_has_a_unit(name):
    model = build_model(name)
    assert set(model.units) == set(model.observables), name
    assert all(isinstance(u, str) and u for u in model.units.values())
