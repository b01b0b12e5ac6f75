"""bg.draw(): element labels, one causal stroke per bond, dashed multiplier bonds (Agg backend)."""

import matplotlib
import pytest
from matplotlib.axes import Axes

import porthamiltonian as ph

from .conftest import msd_graph, pendulum_graph, quarter_car, two_masses

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


def causal_strokes(ax):
    return [ln for ln in ax.lines if ln.get_color() == "tab:red"]


CASES = [
    pytest.param(lambda: msd_graph(), {"Se:F", "1:v", "I:m", "C:k", "R:b"}, 4, 0, id="msd"),
    pytest.param(lambda: two_masses(2.0, 3.0, 5.0, 1.0)[0], {"Se:F", "1:v", "I:m1", "I:m2", "C:k"}, 4, 1,
                 id="two-masses"),
    # elements inside a component are labelled with their path, so two components stay distinct
    pytest.param(lambda: quarter_car(8.0), {"Se:F", "1:v", "I:m", "1:susp/j", "C:susp/k", "R:susp/b"}, 5, 0,
                 id="component"),
    # multibonds are annotated with their dimension ("2"); the implicit junction is labelled "1"
    pytest.param(lambda: pendulum_graph(), {"PointMass:ball", "DistanceConstraint:rod", "Se:gravity", "1", "2"}, 3, 0,
                 id="pendulum-implicit-junction"),
]


@pytest.mark.parametrize("make, labels, n_bonds, n_cuts", CASES)
def test_draw_labels_strokes_and_dashed_cuts(make, labels, n_bonds, n_cuts):
    bg = make()
    ax = bg.draw()
    assert isinstance(ax, Axes)
    texts = {t.get_text() for t in ax.texts}
    assert texts == labels
    assert len(causal_strokes(ax)) == n_bonds
    dashed = [ln for ln in ax.lines if ln.get_linestyle() == "--"]
    assert len(dashed) == n_cuts
    assert bg.name in ax.get_title()


def test_draw_without_causality_and_on_given_axes():
    import matplotlib.pyplot as plt

    fig, given = plt.subplots()
    ax = msd_graph().draw(ax=given, causality=False)
    assert ax is given
    assert causal_strokes(ax) == []
    assert {t.get_text() for t in ax.texts} == {"Se:F", "1:v", "I:m", "C:k", "R:b"}


def test_draw_does_not_freeze_or_change_the_graph():
    bg = msd_graph()
    before = [(b.name, str(b.tail), str(b.head)) for b in bg.bonds]
    bg.draw()
    assert not bg.frozen
    assert [(b.name, str(b.tail), str(b.head)) for b in bg.bonds] == before
    ph.compile(bg)
