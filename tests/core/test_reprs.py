"""Rich reprs for Jupyter: HTML tables of PowerBudget, Trajectory, PHSystem, BondGraph; PNG graph."""

import re

import matplotlib
import numpy as np
import pytest

import porthamiltonian as ph

from .conftest import msd_graph

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def run():
    bg = msd_graph()
    system = ph.compile(bg)
    traj = ph.simulate(system, (0.0, 2.0), system.initial_state({"k.q": 0.2}), rtol=1e-10, atol=1e-12)
    return bg, system, traj


def cells(html):
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>.*?</td>", html)]


def test_budget_html_holds_the_ledger(run):
    budget = run[2].power_budget()
    html = budget._repr_html_()
    got = cells(html)
    for row in budget.rows():
        i = got.index(row.label)
        np.testing.assert_allclose([float(v) for v in got[i + 1:i + 6]],
                                   [row.stored, row.supplied, row.dissipated, row.lost, row.stabilization],
                                   rtol=1e-5, atol=1e-300)
    i = got.index("total")
    np.testing.assert_allclose(float(got[i + 2]), budget.supplied[-1], rtol=1e-5)
    assert f"{budget.max_residual:.3e} J" in html


def test_trajectory_and_system_html(run):
    bg, system, traj = run
    t_html, s_html = traj._repr_html_(), system._repr_html_()
    assert str(traj.t.size) in cells(t_html) and f"{traj.nfev}" in cells(t_html)
    assert [b.key for b in system.layout.blocks] == [c for c in cells(s_html) if "." in c]


def test_bondgraph_html_and_png_without_pyplot(run):
    import matplotlib.pyplot as plt

    bg = msd_graph()
    html = bg._repr_html_()
    assert {"F", "v", "m", "k", "b"} <= set(cells(html))
    assert sum(1 for c in cells(html) if re.fullmatch(r"b\d+", c)) == len(bg.bonds)
    plt.close("all")
    png = bg._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000
    assert plt.get_fignums() == []        # not registered with pyplot: a notebook shows it once
    assert not bg.frozen


def test_png_of_a_graph_that_cannot_be_drawn_yet_is_none():
    """An unbonded port stops causality assignment: no picture, the display shows the tables."""
    bg = ph.BondGraph("open")
    bg.add(ph.I("m", mass=1.0), ph.C("k", stiffness=1.0))
    with pytest.raises(ph.BondError, match="is not connected"):
        ph.assign_causality(bg)
    assert bg._repr_png_() is None
    assert "I:m" not in bg._repr_html_() and ">m<" in bg._repr_html_()
