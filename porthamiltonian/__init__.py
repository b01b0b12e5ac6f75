"""porthamiltonian: spatial screw bond graphs compiled to energy-consistent port-Hamiltonian ODE/DAEs.

Phases::

    bg = BondGraph("model"); bg.add(...); bg.connect(...)    # build (mutable)
    system = compile(bg)                                     # check, assign causality, freeze
    traj = simulate(system, (0, 5), x0)                      # integrate
    print(traj.power_budget())                               # audit the energy ledger
"""

from . import _launcher

_launcher.guard_command_line()  # the command line: Ctrl-C during the imports below is one line, exit 130

from .bondgraph import (  # noqa: E402
    GY,
    I,
    MGY,
    MTF,
    TF,
    BondGraph,
    C,
    Junction0,
    Junction1,
    R,
    Se,
    Sf,
    StateRef,
    assign_causality,
    load,
    save,
)
from .compile import PHSystem, compile
from .diagnostics import PowerBudget
from .errors import (
    BondError,
    CausalityError,
    GeometryError,
    IntegrationError,
    ModelError,
    ParameterError,
    PhaseError,
    PortHamiltonianError,
    SerializationError,
)
from .integrate import Trajectory, simulate
from .studies import identify, rerun, sweep
from . import robots  # noqa: E402  (ph.robots.load_urdf; the file readers import lazily)

__version__ = "0.1.0"

__all__ = [
    "BondGraph", "Se", "Sf", "C", "I", "R", "TF", "GY", "MTF", "MGY", "Junction0", "Junction1", "StateRef",
    "assign_causality", "save", "load", "compile", "PHSystem", "simulate", "Trajectory", "PowerBudget",
    "PortHamiltonianError", "ModelError", "BondError", "ParameterError", "CausalityError", "PhaseError",
    "IntegrationError", "GeometryError", "SerializationError", "sweep", "identify", "rerun",
]
