"""The printed ledger shows round-off as 0 below its stated resolution (64 eps x the energy
scale); the data keep every bit. A synthetic budget with known entries: a spring that stores
and gives back 2 J, a damper that dissipated 0.5 J, and a contact whose "dissipated" is the
-6.7e-54 J of round-off a released contact books."""

import re

import numpy as np
import pytest

from porthamiltonian.diagnostics.html import budget_html
from porthamiltonian.diagnostics.ledger import PowerBudget

EPS = np.finfo(float).eps


@pytest.fixture
def budget():
    t = np.linspace(0.0, 1.0, 5)
    spring = np.array([2.0, 1.5, 1.0, 1.6, 1.5])   # lost 0.5 J to the damper
    entries = {"supplied": {}, "stabilization": {},
               "dissipated": {"damper": np.array([0.0, 0.1, 0.3, 0.4, 0.5]),
                              "contact": np.array([0.0, 0.0, 0.0, -1e-54, -6.7e-54]),
                              "tiny": np.array([0.0, 0.0, 0.0, 0.0, 1e-9])},   # small, but energy
               "lost": {"contact": np.array([0.0, 0.0, 0.0, 0.0, 3e-16])}}    # round-off too
    return PowerBudget(t, spring.copy(), {"spring": spring}, entries, {})


def row(table, label):
    return next(line.split()[1:] for line in table.splitlines() if line.startswith(label))


def test_the_resolution_is_64_eps_of_the_energy_scale(budget):
    assert budget.scale == 2.0   # the largest |H|
    assert budget.resolution == pytest.approx(64 * EPS * 2.0, rel=1e-15)


def test_round_off_prints_as_0_and_energy_as_itself(budget):
    table = budget.table()
    # stored dH, supplied, dissipated, lost, stabilization of the contact: round-off only
    assert row(table, "contact") == ["0", "0", "0", "0", "0"]
    assert "e-54" not in table and "e-16" not in table
    assert row(table, "damper")[2] == "0.5"
    assert row(table, "tiny")[2] == "1e-09"     # far below the scale, far above the resolution
    assert row(table, "spring")[0] == "-0.5"
    assert row(table, "total")[2] == "0.5"        # 0.5 + 1e-9 - 6.7e-54 to 6 digits
    assert f"resolution {budget.resolution:.2g} J, 64 eps x the energy scale" in table


def test_the_html_table_shows_the_same_and_the_data_keep_every_bit(budget):
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>.*?</td>", budget_html(budget))]
    i = cells.index("contact")
    assert cells[i + 1:i + 6] == ["0"] * 5
    # bit-identical on purpose: printing must not touch the data
    assert budget.entries["dissipated"]["contact"][-1] == -6.7e-54
    rows = {r.element: r for r in budget.rows()}
    assert rows["contact"].dissipated == -6.7e-54 and rows["contact"].lost == 3e-16
    assert budget.to_dict()["elements"][[r["element"] for r in budget.to_dict()["elements"]].index("contact")][
        "dissipated"] == -6.7e-54


def test_shown_at_the_boundary(budget):
    res = budget.resolution
    assert budget.shown(0.99 * res) == "0" and budget.shown(-0.99 * res) == "0"
    assert budget.shown(res) == f"{res:.6g}" and budget.shown(-2 * res, 12) == f"{-2 * res:>12.6g}"
