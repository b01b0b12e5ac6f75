"""examples/mass_spring_damper.ipynb runs end to end in a kernel of this Python, shows its
objects richly, and leaves matplotlib's (inline) backend untouched."""

import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "mass_spring_damper.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=600,
                                     resources={"metadata": {"path": str(tmp_path_factory.mktemp("nb"))}})
    backend = os.environ.pop("MPLBACKEND", None)   # the kernel then runs with Jupyter's inline backend
    try:
        client.execute()   # raises CellExecutionError with the cell and its traceback if a cell fails
    finally:
        if backend is not None:
            os.environ["MPLBACKEND"] = backend
    return nb


def outputs(nb, source_start):
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(source_start))
    return cell.outputs


def text(outs):
    return "".join(o.get("text", "") for o in outs if o.output_type == "stream")


def test_runs_in_this_python_and_keeps_the_backend(executed):
    last = text(outputs(executed, "assert matplotlib.get_backend()"))
    assert "backend kept: module://matplotlib_inline.backend_inline" in last
    assert f"python: {sys.prefix}" in last


def test_rich_displays(executed):
    (graph,) = outputs(executed, 'bg = ph.BondGraph("msd")')
    assert "image/png" in graph.data and "text/html" in graph.data
    (system,) = outputs(executed, "system = ph.compile(bg)")
    assert "PHSystem" in system.data["text/html"]
    (budget,) = outputs(executed, "budget = traj.power_budget()")
    assert "Energy ledger" in budget.data["text/html"]
    figures = [o for o in outputs(executed, "fig = budget.plot()") if o.output_type == "display_data"]
    assert len(figures) == 1 and "image/png" in figures[0].data   # drawn inline, once


def test_energy_check_printed(executed):
    assert "max |H - ledger H|" in text(outputs(executed, "q, p = traj.state"))
