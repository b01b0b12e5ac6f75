"""Importing the package, or plotting with it, never switches matplotlib's backend."""

import os
import subprocess
import sys

SCRIPT = r"""
import matplotlib
matplotlib.use("module://matplotlib_inline.backend_inline")   # what a Jupyter kernel runs with
before = matplotlib.get_backend()
import porthamiltonian as ph
import porthamiltonian.library, porthamiltonian.models, porthamiltonian.studies, porthamiltonian.contact
import porthamiltonian.diagnostics.plots
assert matplotlib.get_backend() == before, ("import", matplotlib.get_backend())
bg = ph.BondGraph("msd")
bg.add(ph.Se("F", 1.0), ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=3.0), ph.R("b", 0.5))
for el in ("m", "k", "b"):
    bg.connect("v", el)
bg.connect("F", "v")
bg.draw()
system = ph.compile(bg)
traj = ph.simulate(system, (0, 1), system.initial_state({"k.q": 0.2}))
traj.power_budget().plot()
assert matplotlib.get_backend() == before, ("plot", matplotlib.get_backend())
print("backend kept:", before)
"""


def test_backend_untouched_by_import_and_plots():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND")}
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "backend kept: module://matplotlib_inline.backend_inline" in run.stdout
