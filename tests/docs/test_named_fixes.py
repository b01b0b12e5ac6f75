"""A sweep or an identification started without the `__main__` guard says so in its last line, not in pages of
tracebacks (issue 35: two workers printed 466 lines of Dask's start-up errors)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import porthamiltonian as ph
table = ph.sweep("mass-spring-damper", {"stiffness": [1.0, 2.0]}, t_end=0.1, workers=1, progress=False)
"""


def test_a_sweep_without_the_main_guard_names_the_fix_in_a_short_error(tmp_path):
    (tmp_path / "unguarded.py").write_text(SCRIPT)
    run = subprocess.run([sys.executable, "unguarded.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 1
    assert 'if __name__ == "__main__":' in lines[-1] and "workers=0" in lines[-1], lines[-1]
    # the script's own frames and the message; before: the workers' tracebacks, hundreds of lines
    assert len(lines) < 20, run.stderr


IDENTIFY = """
import numpy as np
import porthamiltonian as ph
t = np.linspace(0.0, 0.1, 5)
fit = ph.identify("mass-spring-damper", (t, 0.5 * np.cos(2.0 * t)), ["stiffness"], {"stiffness": (0.5, 5.0)},
                  observable="position", starts=2, workers=1, progress=False)
"""


def test_an_identification_without_the_main_guard_stops_in_its_workers_too(tmp_path):
    """The same guard for `identify` (it starts the same local cluster): no worker traceback,
    the script's last line names the fix (whatever `identify` would have said of its data)."""
    (tmp_path / "unguarded.py").write_text(IDENTIFY)
    run = subprocess.run([sys.executable, "unguarded.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert 'if __name__ == "__main__":' in lines[-1], lines[-1]
    assert len(lines) < 20, run.stderr   # before: each worker's start-up traceback
