"""`porthamiltonian sweep` (issue 15, acceptance 4 and 5): the table, a plot per swept
parameter and the failure log; bad input refused before any run, nothing written."""

import pandas as pd
import pytest

from porthamiltonian.cli import main


def test_sweep_writes_table_plots_and_failures(tmp_path, capsys):
    out = tmp_path / "sweep"
    code = main(["sweep", "ball-drop", "-p", "stiffness=1e4:1e6:log3", "-p", "restitution=0.6,0.9",
                 "--contact", "compliant,sliding_plane", "--workers", "0", "--t-end", "0.3", "--samples", "31",
                 "--max-nfev", "400", "--metric", "min:gap", "--no-progress", "--out", str(out)])
    # measured: a compliant run takes 650-730 evaluations, a sliding-plane one 92
    assert code == 1   # some runs failed (compliant, past max_nfev): the table says which
    table = pd.read_parquet(out / "sweep.parquet")
    assert len(table) == 12 and list(table["stiffness"][::4]) == pytest.approx([1e4, 1e5, 1e6], rel=1e-12)
    assert set(table[table["status"] != "ok"]["contact"]) == {"compliant"}
    assert (out / "failures.log").read_text().startswith("6 of 12 runs failed")
    ok = table[table["status"] == "ok"]
    assert len(ok) == 6
    for name in ("stiffness", "restitution"):
        assert (out / f"sweep_{name}.png").stat().st_size > 0
    captured = capsys.readouterr()
    assert "12 runs, 6 failed" in captured.out
    # one line says that the sliding plane ignores the stiffness (its 6 points are 2 runs); the six
    # failures differ only in the time they stopped at: one line on stderr, with its count
    lines = captured.err.strip().splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("sweep ball-drop: contact 'sliding_plane' ignores stiffness")
    assert lines[1].startswith("failed: 6 of 12 runs like run ") and "stopped after max_nfev = 400" in lines[1]


def test_sweep_prints_each_distinct_failure_once(tmp_path, capsys):
    """Two kinds of failure, each on stderr once with its count (issue 39): they went only
    to failures.log."""
    out = tmp_path / "sweep"
    # height 0.01 < radius 0.05: the ball starts in the floor (found by the build, in the run);
    # the compliant run from 0.3 m needs about 690 evaluations (measured), past max_nfev
    code = main(["sweep", "ball-drop", "-p", "height=0.3,0.01", "--contact", "compliant,sliding_plane",
                 "--max-nfev", "400", "--workers", "0", "--t-end", "0.3", "--samples", "11", "--no-progress",
                 "--out", str(out)])
    assert code == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("failed: 2 of 4 runs like run ") and "ParameterError" in lines[0]
    assert "floor" in lines[0]
    assert lines[1].startswith("failed: 1 of 4 runs like run ") and "max_nfev = 400" in lines[1]


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
