"""0- and 1-junctions with any number of ports, any dimension.

::

    0-junction: common effort, sum of inward flows = 0       (parallel connection)
    1-junction: common flow,   sum of inward efforts = 0     (series connection)

"Inward" refers to the bond's half-arrow: a bond pointing into the junction counts +1,
one pointing out counts -1. Ports are created as bonds are connected ("p0", "p1", ...).
"""

from __future__ import annotations

from ..errors import ModelError
from .element import JunctionElement, register_element
from .ports import Port

__all__ = ["Junction0", "Junction1"]


class _Junction(JunctionElement):
    # Ports are kept by name (a junction may have many: a ground shared by every body), so
    # that `port` is a lookup and `ports` a cached tuple, not a scan per call.
    def __init__(self, name, *, dim=1, frame=None):
        super().__init__(name)
        if not isinstance(dim, int) or dim < 1:
            raise ModelError(f"junction {name!r}: `dim` must be a positive integer, got {dim!r}")
        self.dim = dim
        self.frame = frame
        self._set_ports([])
        self._next = 0

    def _set_ports(self, ports):
        self._ports: dict[str, Port] = {p.name: p for p in ports}
        self._tuple = None

    def ports(self):
        if self._tuple is None:
            self._tuple = tuple(self._ports.values())
        return self._tuple

    def port(self, name):
        try:
            return self._ports[name]
        except (KeyError, TypeError):
            return super().port(name)  # raises ModelError listing the ports

    @classmethod
    def implicit(cls, name, dim, frame):
        """An internal junction made by `flatten` for a multi port (its name is not checked)."""
        j = cls.__new__(cls)
        j.name, j.dim, j.frame, j._next = name, dim, frame, 0
        j._set_ports([])
        return j

    def new_port(self, frame=None):
        """Add a port and return its name (the junction adopts the first frame it meets)."""
        if frame is not None:
            if self.frame is None:
                self.frame = frame
                self._set_ports([Port(p.name, p.dim, "in", frame) for p in self._ports.values()])
        name = f"p{self._next}"
        self._next += 1
        self._ports[name] = Port(name, self.dim, "in", self.frame)
        self._tuple = None
        return name

    def remove_port(self, name):
        """Forget a port (used when a bond is deleted). Later ports keep their names."""
        self._ports.pop(name, None)
        self._tuple = None

    def parameters(self):
        return {"dim": self.dim, "frame": self.frame, "ports": list(self._ports)}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        j = cls(name, dim=params["dim"], frame=params.get("frame"))
        j._set_ports([Port(p, j.dim, "in", j.frame) for p in params.get("ports", [])])
        j._next = 1 + max((int(p[1:]) for p in j._ports), default=-1)
        return j


@register_element
class Junction0(_Junction):
    """0-junction (common effort). Parameters: name, dim (bond dimension), frame (optional)."""

    type_name = "0"
    kind = "0"


@register_element
class Junction1(_Junction):
    """1-junction (common flow). Parameters: name, dim (bond dimension), frame (optional)."""

    type_name = "1"
    kind = "1"
