"""Ports, state blocks and state references: the vocabulary elements declare themselves in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError

__all__ = ["Port", "StateBlock", "StateRef", "check_name", "EFFORT_OUT", "FLOW_OUT"]

#: Causal roles of an element at one of its ports: the element computes the effort
#: (and receives the flow), or computes the flow (and receives the effort).
EFFORT_OUT = "effort_out"
FLOW_OUT = "flow_out"

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def check_name(name, what="element name"):
    """Return `name` if it is a valid identifier-like name, else raise ModelError.

    Names may contain letters, digits, '_' and '-', and must not start with a digit;
    '/' separates levels of hierarchy and '.' separates an element from its port or state.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ModelError(
            f"{what} must be a non-empty string of letters, digits, '_' or '-' not starting "
            f"with a digit (no '/', '.', or spaces), got {name!r}"
        )
    return name


@dataclass(frozen=True)
class Port:
    """A named power port of an element.

    Parameters
    ----------
    name : str
        Port name, unique within the element.
    dim : int
        Dimension of the bond: 1 scalar, 6 screw (wrench, twist), any n for multibonds.
    orientation : {"in", "out"}
        Power direction the element's own equations assume: "in" means e . f > 0 is power
        flowing into the element. A bond drawn the other way flips the sign of the flow the
        element sees (efforts are never flipped).
    frame : str or None
        For screw bonds, the name of the frame in which twist and wrench are expressed.
        Two ports with frames can be bonded only if the frames agree; None means "any".
    multi : bool
        The port accepts several bonds. They are joined by an implicit junction at compile
        time: a 1-junction (common flow) if the element imposes the flow at this port, a
        0-junction (common effort) if it imposes the effort.
    """

    name: str
    dim: int
    orientation: str = "in"
    frame: str | None = None
    multi: bool = False

    def __post_init__(self):
        check_name(self.name, "port name")
        if not isinstance(self.dim, (int, np.integer)) or self.dim < 1:
            raise ModelError(f"port {self.name!r}: `dim` must be a positive integer, got {self.dim!r}")
        if self.orientation not in ("in", "out"):
            raise ModelError(
                f"port {self.name!r}: `orientation` must be 'in' or 'out', got {self.orientation!r}"
            )

    # immutable (frozen, every field immutable): copies share it, which keeps deep copies of
    # large graphs (junctions with many ports) cheap
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


@dataclass(frozen=True)
class StateBlock:
    """A contiguous block of an element's state vector.

    Parameters
    ----------
    name : str
        Block name, unique within the element (the state is addressed as "element.block").
    size : int
        Number of entries in the state vector (configuration size; for a pose stored as a
        unit quaternion and a position this is 7 although the velocity space has 6).
    kind : {"energy", "configuration", "auxiliary", "discrete"}
        "energy": an energy variable (momentum, displacement). "configuration": a
        configuration integrated from flows (pose of a body). "auxiliary": tracked quantity
        that stores no energy (contact parameters). "discrete": changed only at events
        (zero rate between events).
    group : {"R", "pose", "quaternion"}
        How the block is stored: plain vector space, a pose (qw, qx, qy, qz, px, py, pz)
        whose quaternion part is normalised on use and by `PHSystem.project`, or a
        unit quaternion alone.
    default : ndarray
        Default initial value.
    """

    name: str
    size: int
    kind: str = "energy"
    group: str = "R"
    default: np.ndarray = field(default=None, compare=False)

    def __post_init__(self):
        check_name(self.name, "state block name")
        if self.kind not in ("energy", "configuration", "auxiliary", "discrete"):
            raise ModelError(f"state block {self.name!r}: unknown kind {self.kind!r}")
        if self.group not in ("R", "pose", "quaternion"):
            raise ModelError(f"state block {self.name!r}: unknown group {self.group!r}")
        if self.group == "pose" and self.size != 7:
            raise ModelError(f"state block {self.name!r}: a pose block has size 7, got {self.size}")
        if self.group == "quaternion" and self.size != 4:
            raise ModelError(f"state block {self.name!r}: a quaternion block has size 4, got {self.size}")
        default = np.zeros(self.size) if self.default is None else np.asarray(self.default, float).copy()
        if default.shape != (self.size,):
            raise ModelError(
                f"state block {self.name!r}: default must have shape ({self.size},), got {default.shape}"
            )
        object.__setattr__(self, "default", default)


@dataclass(frozen=True)
class StateRef:
    """A read-only reference to a state block owned by another element.

    Used by elements whose equations depend on another element's configuration: gravity
    reads the pose of its body, a frame-change MTF reads the pose that modulates it, a
    joint reads the poses of its two bodies.

    Parameters
    ----------
    element : Element
        The owner (the object, not its name: references survive hierarchy and renaming).
    block : str
        Name of the owner's state block.
    """

    element: object
    block: str

    def __post_init__(self):
        blocks = {b.name for b in self.element.state_blocks()}
        if self.block not in blocks:
            raise ModelError(
                f"element {self.element.name!r} has no state block {self.block!r}; "
                f"it has {sorted(blocks) or 'none'}"
            )
