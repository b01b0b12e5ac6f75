"""Every figure the command line draws labels every axis with its quantity and unit (issue 35).

A reviewer rejects an axis labelled "[m]" or nothing. The observable figures of every
registered model (`porthamiltonian run`'s figure set: one per `Model.groups` entry, through
`plot_observables` with the model's own units) are drawn from each model built at its defaults
with placeholder samples (the labels depend on the model's names and units, not on the run);
the ledger and contact figures come from a short real run through the CLI, and the sweep
figures from `plot_sweep` with the registry's units.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from porthamiltonian.diagnostics import plots
from porthamiltonian.models import MODELS, build_model

#: a quantity, a space, a unit in brackets: "height [m]", "restitution [-]"
LABEL = re.compile(r"^\S(.*\S)? \[(?P<unit>[^\]]+)\]$")


def bad_labels(fig):
    """The axes of `fig` whose y label, or whose shown x label, lacks a quantity and a unit."""
    bad = []
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    for k, ax in enumerate(axes):
        for which, label in (("y", ax.get_ylabel()), ("x", ax.get_xlabel())):
            shown = which == "y" or any(t.get_visible() and t.get_text() for t in ax.get_xticklabels()) or label
            m = LABEL.match(label)
            if shown and (m is None or m["unit"] == "unit not given"):
                bad.append(f"axes {k} {which}: {label!r}")
    if not any(ax.get_xlabel() for ax in axes):
        bad.append("no x label on any axes")
    return bad


def test_the_check_catches_what_the_issue_saw():
    fig, ax = plots.figure()
    ax.set_ylabel("[m]")                      # distances.png before issue 35
    assert bad_labels(fig) == ["axes 0 y: '[m]'", "axes 0 x: ''", "no x label on any axes"]
    ax.set_ylabel("distance [m]"), ax.set_xlabel("time [s]")
    assert bad_labels(fig) == []


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_models_observable_figures_label_their_axes(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # robot files' balanced-inertia warnings
        model = build_model(name)
    t = np.linspace(0.0, 1.0, 5)
    groups = model.groups or {"observables": list(model.observables)}
    for title, names in groups.items():
        fig = plots.plot_observables(t, {n: np.zeros_like(t) for n in names}, model.units, title=title)
        assert bad_labels(fig) == [], f"{name}: figure {title!r}"
        plots._plt().close(fig)


@pytest.mark.parametrize("model, figures", [
    ("ball-drop", {"energy_budget.png", "contact_forces.png", "height.png"}),
    ("two-ellipsoids", {"energy_budget.png", "contact_forces.png", "center_of_pressure.png", "distances.png"}),
])
def test_a_runs_ledger_and_contact_figures_label_their_axes(model, figures, tmp_path, monkeypatch):
    from porthamiltonian import cli

    drawn = []

    def keep(fig, path, dpi=120):
        drawn.append((path.name, bad_labels(fig)))
        plots._plt().close(fig)
        return path

    monkeypatch.setattr(plots, "save_figure", keep)
    assert cli.main(["run", model, "--t-end", "0.35", "--out", str(tmp_path / "out")]) == 0
    names = [n for n, _ in drawn]
    assert figures <= set(names), names
    assert [(n, b) for n, b in drawn if b] == []


def test_sweep_figures_label_their_axes_and_tell_categories_apart():
    table = pd.DataFrame({"stiffness": [1e4, 1e5, 1e4, 1e5], "contact": ["compliant"] * 2 + ["sliding_plane"] * 2,
                          "status": ["ok"] * 4, "ledger.dissipated": [1.0, 1.2, 1.5, 1.5],
                          "metric.max_normal_force": [10.0, 20.0, 30.0, 30.0], "metric.min:gap": [-1e-3, -2e-4, 0.0, 0.0]})
    fig = plots.plot_sweep(table, "stiffness", ["ledger.dissipated", "metric.max_normal_force", "metric.min:gap"],
                           group="contact", model="ball-drop")
    assert bad_labels(fig) == []
    assert [ax.get_ylabel() for ax in fig.axes] == ["energy dissipated [J]", "max normal force [N]", "min gap [m]"]
    assert fig.axes[-1].get_xlabel().startswith("stiffness [N/m")   # the registry's unit
    for ax in fig.axes:
        compliant, rigid = ax.get_lines()
        assert compliant.get_color() != rigid.get_color()                       # a colour per kind
        assert compliant.get_marker() != rigid.get_marker()
        assert rigid.get_markersize() < compliant.get_markersize() and rigid.get_markerfacecolor() == "none"
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["contact=compliant", "contact=sliding_plane"]
    words = plots.plot_sweep(table, "contact", ["ledger.dissipated"])
    assert bad_labels(words) == [] and words.axes[0].get_xlabel() == "contact [-]"
    plots._plt().close("all")
