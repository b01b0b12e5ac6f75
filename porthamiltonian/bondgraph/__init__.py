"""Bond graphs: elements, junctions, the BondGraph container, causality, save/load."""

from .causality import AlgebraicLoop, CausalityReport, Cut, assign_causality
from .element import (
    ELEMENT_TYPES,
    ConstraintElement,
    Element,
    EventOutcome,
    EventSpec,
    JunctionElement,
    ResistorElement,
    SourceElement,
    StorageElement,
    TwoPortElement,
    register_element,
)
from .elements import C, GY, I, MGY, MTF, R, Se, Sf, TF
from .functions import T_SYMBOL, Hamiltonian, TimeFunction
from .graph import Bond, BondGraph, PortRef
from .junctions import Junction0, Junction1
from .ports import EFFORT_OUT, FLOW_OUT, Port, StateBlock, StateRef
from .serialize import load, save
from . import views  # noqa: F401  (wires BondGraph.save/draw/displays to their modules)

__all__ = [
    "BondGraph", "Bond", "PortRef", "Port", "StateBlock", "StateRef", "EFFORT_OUT", "FLOW_OUT",
    "Element", "SourceElement", "StorageElement", "ResistorElement", "TwoPortElement", "ConstraintElement",
    "JunctionElement", "EventSpec", "EventOutcome", "register_element", "ELEMENT_TYPES",
    "Se", "Sf", "C", "I", "R", "TF", "GY", "MTF", "MGY", "Junction0", "Junction1",
    "TimeFunction", "Hamiltonian", "T_SYMBOL",
    "assign_causality", "CausalityReport", "Cut", "AlgebraicLoop", "save", "load",
]
