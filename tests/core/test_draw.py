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


def _label_boxes(ax):
    """Rendered boxes (display coordinates) of the element labels (texts with a box)."""
    renderer = ax.figure.canvas.get_renderer()
    ax.figure.draw(renderer)
    return [t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts if t.get_bbox_patch() is not None]


@pytest.mark.parametrize("given_axes", [False, True])
def test_two_ellipsoids_labels_do_not_overlap(given_axes):
    """The rendered label boxes of the two-ellipsoids graph (23 elements) are pairwise
    disjoint, on the figure draw() sizes and, scaled down, on a small given axes."""
    import matplotlib.pyplot as plt

    from porthamiltonian.models import build_model

    bg = build_model("two-ellipsoids").graph
    ax = bg.draw(ax=plt.subplots(figsize=(6, 5))[1] if given_axes else None)
    boxes = _label_boxes(ax)
    assert len(boxes) == 23
    overlaps = [(i, j) for i in range(len(boxes)) for j in range(i) if boxes[i].overlaps(boxes[j])]
    assert not overlaps, [(ax.texts[i].get_text(), ax.texts[j].get_text()) for i, j in overlaps]
    inside = ax.get_window_extent()
    assert all(inside.x0 - 1 <= b.x0 and b.x1 <= inside.x1 + 1 and inside.y0 - 1 <= b.y0 and b.y1 <= inside.y1 + 1
               for b in boxes)
