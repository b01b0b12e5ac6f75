"""Flatten a hierarchical bond graph into elements and bonds with path names ("sub/elem").

Components (nested bond graphs) dissolve: a bond to an exposed port becomes a bond to the
internal port behind it. Ports declared `multi` get an implicit junction (even with a single
bond, so that the sign convention does not depend on the number of bonds): a 1-junction
where the element imposes the flow, a 0-junction where it imposes the effort. The element
sits at the head of the junction's bond, so a bond drawn *from* the element to a neighbour
carries the element's own flow (body twist), and the neighbour sees power leaving the element.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import BondError, ModelError
from .element import Element
from .graph import BondGraph
from .junctions import Junction0, Junction1

__all__ = ["FlatGraph", "FlatBond", "flatten", "check_bindings"]


@dataclass(frozen=True)
class FlatBond:
    """A bond of the flat graph; `tail` and `head` are (element path, port name)."""

    name: str
    tail: tuple[str, str]
    head: tuple[str, str]
    dim: int


@dataclass
class FlatGraph:
    """Elements by path name (insertion order) and bonds, with lookups."""

    name: str
    elements: dict[str, Element]
    bonds: list[FlatBond]
    path_of: dict[int, str] = field(default_factory=dict)

    def __post_init__(self):
        self.path_of = {id(e): n for n, e in self.elements.items()}
        # (path, port name) -> Port: one `ports()` call per element (C, I, R build theirs)
        self.port_of = {(n, p.name): p for n, e in self.elements.items() for p in e.ports()}
        self.bond_at = {}
        for i, b in enumerate(self.bonds):
            for end in (b.tail, b.head):
                self.bond_at[end] = i

    def label(self, path):
        """"type:path" of the element at `path` (unique, unlike the element's own label)."""
        return f"{self.elements[path].type_name}:{path}"

    def path(self, element):
        """Path name of an element object; ModelError if it is not in this graph."""
        try:
            return self.path_of[id(element)]
        except KeyError:
            raise ModelError(
                f"{element.label} is referenced but is not part of graph {self.name!r}; "
                "add it to the graph (or to one of its components)"
            ) from None


def _storage_port_type(obj, port):
    if obj.category == "storage":
        return dict(zip([p.name for p in obj.ports()], obj.port_types()))[port]
    return None


def flatten(bg: BondGraph) -> FlatGraph:
    """Flatten `bg` (see module docstring). Raises ModelError for dangling ports."""
    elements: dict[str, Element] = {}
    raw_bonds: list[tuple[str, tuple, tuple, int]] = []

    def walk(g: BondGraph, prefix: str):
        for node, obj in g.elements.items():
            path = prefix + node
            if isinstance(obj, BondGraph):
                walk(obj, path + "/")
            else:
                elements[path] = obj
        for b in g.bonds:
            raw_bonds.append((prefix + b.name, endpoint(g, prefix, b.tail), endpoint(g, prefix, b.head), b.dim))

    def endpoint(g: BondGraph, prefix, ref):
        obj = g.graph.nodes[ref.node]["obj"]  # not `g.elements`, which builds a dict per call
        if isinstance(obj, BondGraph):
            inner = obj.exposed_target(ref.port)
            return endpoint(obj, prefix + ref.node + "/", inner)
        return (prefix + ref.node, ref.port)

    walk(bg, "")

    # implicit junctions for multi ports with several bonds
    count: dict[tuple, int] = {}
    for _, t, h, _ in raw_bonds:
        count[t] = count.get(t, 0) + 1
        count[h] = count.get(h, 0) + 1
    bonds: list[FlatBond] = []
    joined: dict[tuple, str] = {}
    for (node, port), n in count.items():
        obj = elements[node]
        p = obj.port(port)
        if n > 1 and not p.multi:
            raise ModelError(f"port {node}.{port} carries {n} bonds but is not a multi port")
        if p.multi:
            # always join, even a single bond: the element then sits at the head of a bond from
            # the junction, so a bond drawn from the element outwards carries its own flow
            ptype = _storage_port_type(obj, port)
            if ptype is None:
                raise ModelError(f"{obj.label}: only storage elements may declare multi ports ({port!r})")
            jname = f"{node}.{port}:join"
            j = (Junction1 if ptype == "I" else Junction0).implicit(jname, p.dim, p.frame)
            elements[jname] = j
            jp = j.new_port(p.frame)
            bonds.append(FlatBond(f"{jname}.b", (jname, jp), (node, port), p.dim))
            joined[(node, port)] = jname
    for name, t, h, dim in raw_bonds:
        if t in joined:
            j = elements[joined[t]]
            t = (joined[t], j.new_port())
        if h in joined:
            j = elements[joined[h]]
            h = (joined[h], j.new_port())
        bonds.append(FlatBond(name, t, h, dim))

    # dangling ports
    used = {b.tail for b in bonds} | {b.head for b in bonds}
    for node, obj in elements.items():
        for p in obj.ports():
            if (node, p.name) not in used and not p.multi:
                raise BondError(
                    f"port {p.name!r} of {obj.label} (at {node!r}) is not connected; every port needs a bond "
                    "(connect it, or remove the element)"
                )
    return FlatGraph(bg.name, elements, bonds)


def _sigma(flat, end, bond):
    orient = flat.port_of[end].orientation
    return 1.0 if (orient == "in") == (bond.head == end) else -1.0


def check_bindings(flat: FlatGraph):
    """Check every `Element.port_bindings` (see there). Raises ModelError with the fix."""
    for path, obj in flat.elements.items():
        for port, (target, tport) in obj.port_bindings().items():
            if hasattr(target, "stands_for_port"):   # a view of another element's port (a robot's link)
                target, tport = target.stands_for_port(tport)
            tpath = flat.path(target)
            start = (path, port)
            if start not in flat.bond_at:
                continue  # dangling ports are reported by flatten
            found = None
            seen = set()
            work = [(start, 1.0)]
            while work and found is None:
                end, sign = work.pop()
                bi = flat.bond_at[end]
                b = flat.bonds[bi]
                if bi in seen:
                    continue
                seen.add(bi)
                other = b.head if b.tail == end else b.tail
                # flow sign relative to the bond, then to the next element's port
                s_here = sign * _sigma(flat, end, b) if end == start else sign
                if other == (tpath, tport):
                    found = s_here * _sigma(flat, other, b)
                    break
                oobj = flat.elements[other[0]]
                if oobj.category == "junction" and oobj.kind == "1":
                    for p in oobj.ports():
                        nxt = (other[0], p.name)
                        if nxt != other and nxt in flat.bond_at:
                            work.append((nxt, s_here))
            if found is None:
                raise ModelError(
                    f"{obj.label} port {port!r} must carry the twist of {target.label} port {tport!r} "
                    f"(it reads that body's pose), but it is not bonded to it; connect them: "
                    f"bg.connect(({target.name!r}, {tport!r}), ({obj.name!r}, {port!r}))"
                )
            if found < 0:
                raise ModelError(
                    f"{obj.label} port {port!r} is bonded to {target.label} port {tport!r} against its "
                    f"orientation: draw the bond from the body to the element, "
                    f"bg.connect(({target.name!r}, {tport!r}), ({obj.name!r}, {port!r}))"
                )
