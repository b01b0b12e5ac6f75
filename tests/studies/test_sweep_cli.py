"""`porthamiltonian sweep` (issue 15, acceptance 4 and 5): the table, a plot per swept
parameter and the failure log; bad input refused before any run, nothing written."""

import pandas as pd
import pytest

from porthamiltonian.cli import main


def test_sweep_writes_table_plots_and_failures(tmp_path, capsys):
    out = tmp_path / "sweep"
    code = main(["sweep", "ball-drop", "-p", "stiffness=1e4:1e6:log3", "-p", "restitution=0.6,1.2",
                 "--contact", "compliant,sliding_plane", "--workers", "0", "--t-end", "0.3", "--samples", "31",
                 "--metric", "min:gap", "--no-progress", "--out", str(out)])
    assert code == 1   # some runs failed (e = 1.2): the table says which
    table = pd.read_parquet(out / "sweep.parquet")
    assert len(table) == 12 and list(table["stiffness"][::4]) == pytest.approx([1e4, 1e5, 1e6], rel=1e-12)
    assert set(table[table["status"] != "ok"]["restitution"]) == {1.2}
    assert (out / "failures.log").read_text().startswith("6 of 12 runs failed")
    ok = table[table["status"] == "ok"]
    assert (ok[ok["contact"] == "compliant"]["metric.min:gap"] < 0).all()   # a compliant contact penetrates
    for name in ("stiffness", "restitution"):
        for suffix in ("", "_metrics"):
            assert (out / f"sweep_{name}{suffix}.png").stat().st_size > 0
    assert "12 runs, 6 failed" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["-p", "stiffness=1e4:1e6:log"], r"error: `stiffness`: malformed range '1e4:1e6:log'; use a:b:linN"),
    (["-p", "stiffness=1e4:x:lin3"], r"error: `stiffness`: malformed range '1e4:x:lin3' \(bounds must be numbers\)"),
    (["-p", "stiffness=-1:1:log3"], r"error: `stiffness`: a log range needs bounds > 0"),
    (["-p", "stifness=1,2"], r"error: model 'ball-drop' has no parameter 'stifness'; did you mean 'stiffness'\?"),
    (["-p", "stiffness=1,2", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "0.5"],
     r"error: `scheduler` 'tcp://127.0.0.1:9': no Dask scheduler answered within 0.5 s"),
    ([], r"error: `porthamiltonian sweep` needs a swept parameter"),
    (["-p", "stiffness=1,2", "--metric", "min:depth"], r"error: metric min:depth: model 'ball-drop' has no observable"),
])
def test_bad_input_fails_before_any_run(tmp_path, capsys, argv, message):
    import re

    out = tmp_path / "sweep"
    assert main(["sweep", "ball-drop", *argv, "--workers", "0", "--no-progress", "--out", str(out)]) == 2
    assert re.match(message, capsys.readouterr().err)
    assert not out.exists()
