"""A small sweep written from the docs alone (issue 35): docs/sweeps.md (the call, the table,
`plot_sweep`) and docs/integration.md (the ledger and its audit)."""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.diagnostics import plot_sweep
from porthamiltonian.studies.metrics import metric


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    return ph.sweep("ball-drop", {"restitution": [0.5, 0.9], "contact": ["compliant", "sliding_plane"]}, t_end=0.4,
                    metrics={"max_normal_force": metric("max_normal_force")}, out=out, workers=0, progress=False), out


def test_every_point_runs_clean_and_is_saved(table):
    table, out = table
    assert len(table) == 4 and list(table["status"]) == ["ok"] * 4 and list(table["flags"]) == [""] * 4
    assert (out / "sweep.parquet").is_file() and len(list((out / "runs").glob("*.json"))) == 4


def test_the_dissipated_energy_grows_as_restitution_falls(table):
    """The ball falls 0.25 m (height 0.3 m, radius 0.05 m): it has bounced at least once by
    0.4 s, and a lower restitution loses more of m g h = 2.45 J at each bounce, on either kind."""
    table, _ = table
    for kind in ("compliant", "sliding_plane"):
        rows = table[table["contact"] == kind].sort_values("restitution")
        lost = (rows["ledger.dissipated"] + rows["ledger.lost"]).to_numpy()
        assert lost[0] > lost[1] > 0.0, (kind, lost)
        assert np.all(lost < 1.0 * 9.81 * 0.25 + 1e-9)            # never more than the fall's energy
    compliant = table[table["contact"] == "compliant"]
    assert np.all(compliant["metric.max_normal_force"] > 1.0 * 9.81)   # a bounce pushes harder than the weight
    # a rigid impact is an impulse, not a force (docs/sweeps.md): in flight between impacts, none
    assert np.all(table[table["contact"] == "sliding_plane"]["metric.max_normal_force"] == 0.0)


def test_the_sweep_plot_has_units_and_a_colour_per_contact_kind(table):
    table, _ = table
    fig = plot_sweep(table, "restitution", ["ledger.dissipated", "metric.max_normal_force"], group="contact",
                     model="ball-drop")
    assert [ax.get_ylabel() for ax in fig.axes] == ["energy dissipated [J]", "max normal force [N]"]
    assert fig.axes[-1].get_xlabel() == "restitution [-]"
    colours = {line.get_color() for line in fig.axes[0].get_lines()}
    assert len(colours) == 2
