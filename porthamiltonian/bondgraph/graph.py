"""BondGraph: a thin layer over networkx.MultiDiGraph.

Nodes are elements (or nested bond graphs used as components), keyed by name, with the
object in the node attribute "obj". Edges are bonds from the tail element to the head
element (the half-arrow: positive power flows from tail to head), keyed by bond name, with
the attributes "tail_port", "head_port" and "dim".

    bg = BondGraph("msd")
    bg.add(Se("F", 1.0)); bg.add(Junction1("v")); bg.add(I("m", mass=2.0))
    bg.connect("F", "v"); bg.connect("v", "m")

A bond graph with exposed ports can be added to another as a component; `swap` replaces
a component by another one with the same ports.

Building is linear in graph size: besides the networkx graph, a BondGraph keeps indexes of
its bonds by name and by port and of its exposed ports, so that `connect` checks a port or a
bond name without scanning the graph. Edit a graph through its methods; `graph` is for
reading (a bond added to it directly is not indexed).
"""

from __future__ import annotations

import copy as _copy
import difflib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

import networkx as nx

from ..errors import BondError, ModelError, PhaseError, PortHamiltonianError
from .element import Element
from .junctions import _Junction
from .ports import Port, check_name

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: how `connect` and `expose` accept a port: an element or component (its only port, or a
#: junction's new one), its name, ``(element_or_name, port_name)`` or ``"element.port"``
PortTarget = Union["Element", "BondGraph", str, tuple]

__all__ = ["BondGraph", "Bond", "PortRef"]


#: The graph's views (`BondGraph.save`, `draw` and the rich displays): functions of the modules
#: that make them (`serialize`, `diagnostics.plots`, `diagnostics.html`), which import this module
#: themselves and so cannot be imported by it; `porthamiltonian.bondgraph.views`, above all of them
#: and imported with the package, fills this table with them.
_VIEWS: dict = {}


@dataclass(frozen=True)
class PortRef:
    """A resolved (node name, port name) pair."""

    node: str
    port: str

    def __str__(self):
        return f"{self.node}.{self.port}"


@dataclass(frozen=True)
class Bond:
    """A bond: power flows from `tail` to `head` when e . f > 0."""

    name: str
    tail: PortRef
    head: PortRef
    dim: int


def _suggest(name, options):
    close = difflib.get_close_matches(str(name), [str(o) for o in options], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _frame_fix(tref, tobj, tport, href, hobj, hport):
    """The fix of a frame mismatch between two ports, in words.

    If one side has another port in the other side's frame (a body bonded from its marker
    frame to a joint or contact, which are expressed in the body frame "B"), that port is the
    fix, and the call to make is spelled out. Otherwise the two ports belong to different
    bodies or frames, and each must be bonded from a port in its own frame.
    """
    for ref, obj, frame, tail in ((tref, tobj, hport.frame, True), (href, hobj, tport.frame, False)):
        same = [p.name for p in obj.ports() if p.frame == frame]
        if same:
            fixed = (ref.node, same[0])
            other = (href.node, href.port) if tail else (tref.node, tref.port)
            call = f"bg.connect({fixed!r}, {other!r})" if tail else f"bg.connect({other!r}, {fixed!r})"
            return f"bond {obj.label} port {same[0]!r}, which is in frame {frame!r}, instead: {call}"
    return (f"no port of {tobj.label} is in frame {hport.frame!r} and none of {hobj.label} in frame "
            f"{tport.frame!r}: bond {hobj.label} port {hport.name!r} from a port in frame {hport.frame!r} "
            "(for a body: `body.frame(name).port`)")


class BondGraph:
    """A mutable bond graph (build phase). See the module docstring.

    Parameters
    ----------
    name : str
        Name of the graph (and of the component when nested in another graph).
    """

    type_name = "BondGraph"
    category = "graph"

    def __init__(self, name="model"):
        self.name = check_name(name, "bond graph name")
        self.graph = nx.MultiDiGraph(name=name)
        self._exposed: dict[str, tuple[PortRef, Port]] = {}
        self._exposed_at: dict[PortRef, str] = {}  # exposed port name by internal port
        self._bond_ends: dict[str, tuple[str, str]] = {}  # bond name -> (tail node, head node)
        self._port_bonds: dict[PortRef, list[str]] = {}  # bond names at each port
        self._frozen_by = None
        self._bond_counter = 0

    # ----------------------------------------------------------------- phase
    def _check_mutable(self, method):
        if self._frozen_by is not None:
            raise PhaseError(
                f"BondGraph {self.name!r} was compiled and is frozen: `{method}` is not allowed "
                f"after compile. Edit a copy instead: `bg2 = bg.copy()` (the copy is editable)."
            )

    @property
    def frozen(self) -> bool:
        """True once the graph has been compiled."""
        return self._frozen_by is not None

    def freeze(self, by: str = "compile") -> None:
        """Forbid further edits (called by `compile`); nested graphs are frozen too."""
        self._frozen_by = by
        for obj in self.objects():
            if isinstance(obj, BondGraph):
                obj.freeze(by)

    def copy(self, name: str | None = None) -> BondGraph:
        """An editable deep copy (elements and nested graphs are copied)."""
        g = _copy.deepcopy(self)
        g._unfreeze()
        if name is not None:
            g.name = check_name(name, "bond graph name")
            g.graph.graph["name"] = g.name
        return g

    def __deepcopy__(self, memo):
        # networkx's own deep copy walks its adjacency dicts generically and costs more than
        # the elements; rebuilding the graph in node and edge order keeps `bonds` ordered
        # (the indexes hold only immutable names, PortRefs and Ports: their containers are
        # copied, not their items)
        new = BondGraph.__new__(BondGraph)
        memo[id(self)] = new
        indexes = ("graph", "_exposed", "_exposed_at", "_bond_ends", "_port_bonds")
        for key, value in self.__dict__.items():
            if key not in indexes:
                setattr(new, key, _copy.deepcopy(value, memo))
        new._exposed = dict(self._exposed)
        new._exposed_at = dict(self._exposed_at)
        new._bond_ends = dict(self._bond_ends)
        new._port_bonds = {ref: list(names) for ref, names in self._port_bonds.items()}
        g = nx.MultiDiGraph(**_copy.deepcopy(self.graph.graph, memo))
        g.add_nodes_from((n, _copy.deepcopy(d, memo)) for n, d in self.graph.nodes(data=True))
        g.add_edges_from((u, v, k, dict(d)) for u, v, k, d in self.graph.edges(keys=True, data=True))
        new.graph = g
        return new

    def _unfreeze(self):
        self._frozen_by = None
        for obj in self.objects():
            if isinstance(obj, BondGraph):
                obj._unfreeze()

    # ----------------------------------------------------------------- elements
    def add(self, *items: Element | BondGraph) -> Element | BondGraph:
        """Add elements or nested bond graphs; returns the (last) item added.

        Raises ModelError if a name is already used in this graph.
        """
        self._check_mutable("add")
        if not items:
            raise ModelError("`add` needs at least one element")
        for item in items:
            if not isinstance(item, (Element, BondGraph)):
                raise ModelError(f"`add` takes elements or bond graphs, got {item!r}")
            if item.name in self.graph:
                raise ModelError(
                    f"BondGraph {self.name!r} already has an element called {item.name!r}; names must be unique"
                )
            if item is self:
                raise ModelError("a bond graph cannot contain itself")
            self.graph.add_node(item.name, obj=item)
        return items[-1]

    def __getitem__(self, name):
        """The element or component called `name` (a "a/b" path reaches into components)."""
        head, _, rest = str(name).partition("/")
        if head not in self.graph:
            raise ModelError(f"BondGraph {self.name!r} has no element {head!r}{_suggest(head, self.graph.nodes)}")
        obj = self.graph.nodes[head]["obj"]
        if rest:
            if not isinstance(obj, BondGraph):
                raise ModelError(f"{head!r} in {self.name!r} is an element, not a component; cannot look up {rest!r}")
            return obj[rest]
        return obj

    def __contains__(self, name):
        try:
            self[name]
        except ModelError:
            return False
        return True

    def objects(self) -> list[Element | BondGraph]:
        """Elements and components, in insertion order."""
        return [d["obj"] for _, d in self.graph.nodes(data=True)]

    @property
    def elements(self) -> dict[str, Element | BondGraph]:
        """Mapping name -> element or component (insertion order)."""
        return {n: d["obj"] for n, d in self.graph.nodes(data=True)}

    @property
    def bonds(self) -> list[Bond]:
        """The bonds, in creation order."""
        out = []
        for u, v, k, d in self.graph.edges(keys=True, data=True):
            out.append(Bond(k, PortRef(u, d["tail_port"]), PortRef(v, d["head_port"]), d["dim"]))
        return sorted(out, key=lambda b: int(b.name[1:]) if b.name[1:].isdigit() else 0)

    # ----------------------------------------------------------------- ports
    def ports(self):
        """Exposed ports (when this graph is used as a component)."""
        return tuple(p for _, p in self._exposed.values())

    def port(self, name):
        """The exposed port called `name`."""
        for p in self.ports():
            if p.name == name:
                return p
        raise ModelError(
            f"component {self.name!r} exposes no port {name!r}; it exposes {[p.name for p in self.ports()]}"
        )

    @property
    def label(self):
        return f"graph:{self.name}"

    def expose(self, name: str, target: PortTarget) -> None:
        """Expose an internal port as a port of this graph (for use as a component).

        The exposed port has the dimension, orientation and frame of the internal one.

        Parameters
        ----------
        name : str
            External port name.
        target : element, name, (element, port) or "element.port"
            The internal port. A junction without a port name gets a new port.
        """
        self._check_mutable("expose")
        check_name(name, "port name")
        if name in self._exposed:
            raise BondError(f"component {self.name!r} already exposes a port {name!r}")
        ref, port = self._resolve(target, new_junction_port=True)
        if self._is_exposed(ref):
            raise BondError(f"port {ref} of {self.name!r} is already exposed")
        if self._bonds_at(ref) and not port.multi:
            raise BondError(f"port {ref} is already bonded inside {self.name!r}; it cannot also be exposed")
        self._set_exposed(name, ref, Port(name, port.dim, port.orientation, port.frame, port.multi))
        return name

    def _set_exposed(self, name, ref, port):
        """Record exposed port `name` behind internal port `ref` (also used by `load`)."""
        self._exposed[name] = (ref, port)
        self._exposed_at[ref] = name

    def exposed_target(self, name):
        """The internal (node, port) behind exposed port `name`."""
        return self._exposed[name][0]

    def _bonds_at(self, ref):
        """Names of the bonds at port `ref` (a list, possibly empty)."""
        return list(self._port_bonds.get(ref, ()))

    def _resolve(self, target, new_junction_port=False, frame=None):
        """Resolve a port designation to (PortRef, Port)."""
        port_name = None
        if isinstance(target, tuple):
            if len(target) != 2:
                raise BondError(f"a port is given as (element, port_name), got {target!r}")
            target, port_name = target
        if isinstance(target, str) and "." in target and port_name is None:
            target, port_name = target.rsplit(".", 1)
        if isinstance(target, (Element, BondGraph)):
            node = target.name
            if node not in self.graph or self.graph.nodes[node]["obj"] is not target:
                raise BondError(f"{target.label} is not part of bond graph {self.name!r}; add it first")
        elif isinstance(target, str):
            node = target
            if node not in self.graph:
                raise BondError(f"bond graph {self.name!r} has no element {node!r}{_suggest(node, self.graph.nodes)}")
        else:
            raise BondError(f"cannot interpret {target!r} as a port; use an element, a name, or (element, port)")
        obj = self.graph.nodes[node]["obj"]
        if port_name is None:
            if isinstance(obj, _Junction):
                if not new_junction_port:
                    raise BondError(f"junction {node!r}: name the port")
                port_name = obj.new_port(frame)
            else:
                ports = obj.ports()
                if len(ports) != 1:
                    raise BondError(
                        f"{obj.label} has several ports {[p.name for p in ports]}: say which one, e.g. ({node!r}, {ports[0].name!r})"
                    )
                port_name = ports[0].name
        try:
            # `port` is a lookup, not a scan, for junctions (which may have many ports)
            return PortRef(node, port_name), obj.port(port_name)
        except ModelError:
            names = [p.name for p in obj.ports()]
            raise BondError(
                f"{obj.label} has no port {port_name!r}; its ports are {names}" + _suggest(port_name, names)
            ) from None

    # ----------------------------------------------------------------- bonds
    def connect(self, tail: PortTarget, head: PortTarget, *, name: str | None = None) -> str:
        """Make a bond from `tail` to `head` (positive power flows from tail to head).

        Ports are designated as an element (if it has one port, or a junction, which gets a
        new port), a name, a tuple (element, port) or a string "element.port".

        Returns
        -------
        str
            The bond name.

        Raises
        ------
        BondError
            Unknown element or port, dimension mismatch, frame mismatch, port already used.
        """
        self._check_mutable("connect")
        tref, tport = self._peek(tail)
        href, hport = self._peek(head)
        # a junction adopts the frame of what it is connected to
        tframe = tport.frame if tport is not None else None
        hframe = hport.frame if hport is not None else None
        if tport is None:
            tref, tport = self._resolve(tail, new_junction_port=True, frame=hframe)
        if hport is None:
            href, hport = self._resolve(head, new_junction_port=True, frame=tframe)
        try:
            self._check_bond(tref, tport, href, hport)
        except BondError:
            for ref, fresh in ((tref, tail), (href, head)):
                obj = self.graph.nodes[ref.node]["obj"]
                if isinstance(obj, _Junction) and not self._bonds_at(ref) and not self._is_exposed(ref):
                    obj.remove_port(ref.port)
            raise
        if name is None:
            name = f"b{self._bond_counter}"
        else:
            check_name(name, "bond name")
        if name in self._bond_ends:
            raise BondError(f"bond graph {self.name!r} already has a bond called {name!r}")
        self._bond_counter += 1
        self._add_bond(name, tref, href, tport.dim)
        return name

    def _add_bond(self, name, tref, href, dim):
        """Add the edge of bond `name` and index it (also used by `load`)."""
        self.graph.add_edge(tref.node, href.node, key=name, tail_port=tref.port, head_port=href.port, dim=dim)
        self._bond_ends[name] = (tref.node, href.node)
        self._port_bonds.setdefault(tref, []).append(name)
        self._port_bonds.setdefault(href, []).append(name)

    def _is_exposed(self, ref):
        return ref in self._exposed_at

    def _peek(self, target):
        """Resolve without creating junction ports: (ref, port) or (None, None) for a new junction port."""
        t, pn = (target if isinstance(target, tuple) else (target, None))
        if isinstance(t, str) and "." in t and pn is None:
            t, pn = t.rsplit(".", 1)
        node = t.name if isinstance(t, (Element, BondGraph)) else t
        if isinstance(node, str) and node in self.graph and pn is None:
            if isinstance(self.graph.nodes[node]["obj"], _Junction):
                return None, None
        return self._resolve(target)

    def _check_bond(self, tref, tport, href, hport):
        tobj = self.graph.nodes[tref.node]["obj"]
        hobj = self.graph.nodes[href.node]["obj"]
        if tref == href:
            raise BondError(f"cannot bond port {tref} to itself")
        if tport.dim != hport.dim:
            raise BondError(
                f"dimension mismatch: {tobj.label} port {tport.name!r} has dimension {tport.dim} but "
                f"{hobj.label} port {hport.name!r} has dimension {hport.dim}; a bond joins ports of equal dimension"
            )
        if tport.frame is not None and hport.frame is not None and tport.frame != hport.frame:
            raise BondError(
                f"frame mismatch: {tobj.label} port {tport.name!r} is expressed in frame {tport.frame!r} but "
                f"{hobj.label} port {hport.name!r} in frame {hport.frame!r}; "
                + _frame_fix(tref, tobj, tport, href, hobj, hport)
            )
        for ref, port, obj in ((tref, tport, tobj), (href, hport, hobj)):
            if not port.multi and (self._bonds_at(ref) or self._is_exposed(ref)):
                where = "exposed" if self._is_exposed(ref) else f"bonded by {self._bonds_at(ref)[0]!r}"
                raise BondError(
                    f"port {port.name!r} of {obj.label} is already used ({where}); a port takes one bond "
                    "(add a junction to connect several)"
                )

    def remove(self, name: str) -> Element | BondGraph:
        """Remove the element or component `name` and every bond attached to it.

        Returns the removed object. Elements that reference it (a gravity reading a body's
        pose) are not removed: compile will report them as dangling references.
        """
        self._check_mutable("remove")
        obj = self[name]
        if "/" in name:
            raise ModelError("remove a component's inside from that component: bg['a'].remove('b')")
        for u, v, k in list(self.graph.in_edges(name, keys=True)) + list(self.graph.out_edges(name, keys=True)):
            self.disconnect(k)
        self._exposed = {n: (r, p) for n, (r, p) in self._exposed.items() if r.node != name}
        self._exposed_at = {r: n for n, (r, _) in self._exposed.items()}
        self.graph.remove_node(name)
        return obj

    def disconnect(self, bond: str) -> None:
        """Remove the bond called `bond`."""
        self._check_mutable("disconnect")
        if bond not in self._bond_ends:
            raise BondError(f"bond graph {self.name!r} has no bond {bond!r}")
        u, v = self._bond_ends.pop(bond)
        d = self.graph.edges[u, v, bond]
        self.graph.remove_edge(u, v, key=bond)
        for node, port in ((u, d["tail_port"]), (v, d["head_port"])):
            ref = PortRef(node, port)
            at = self._port_bonds[ref]
            at.remove(bond)
            if not at:
                del self._port_bonds[ref]
            obj = self.graph.nodes[node]["obj"]
            if isinstance(obj, _Junction):
                obj.remove_port(port)

    # ----------------------------------------------------------------- swap
    def swap(self, name: str, replacement: Element | BondGraph) -> Element | BondGraph:
        """Replace the element or component `name` by `replacement`, keeping its bonds.

        The replacement must expose the same ports (names, dimensions, orientations and
        frames). It takes the old one's name in this graph.

        Returns
        -------
        The element or component that was removed.
        """
        self._check_mutable("swap")
        old = self[name]
        if "/" in name:
            raise ModelError("swap a component's inside from that component: bg['a'].swap('b', new)")
        if not isinstance(replacement, (Element, BondGraph)):
            raise ModelError(f"`replacement` must be an element or a bond graph, got {replacement!r}")
        old_ports = {p.name: p for p in old.ports()}
        new_ports = {p.name: p for p in replacement.ports()}
        used = {d["tail_port"] for _, _, d in self.graph.out_edges(name, data=True)}
        used |= {d["head_port"] for _, _, d in self.graph.in_edges(name, data=True)}
        problems = []
        for pn in sorted(used | set(old_ports)):
            if pn not in new_ports:
                if pn in used:
                    problems.append(f"port {pn!r} is missing")
                continue
            a, b = old_ports.get(pn), new_ports[pn]
            if a is not None and (a.dim, a.orientation, a.frame) != (b.dim, b.orientation, b.frame):
                problems.append(
                    f"port {pn!r} differs (dim {a.dim} vs {b.dim}, orientation {a.orientation} vs "
                    f"{b.orientation}, frame {a.frame} vs {b.frame})"
                )
        if problems:
            raise ModelError(
                f"cannot swap {old.label} for {replacement.label}: " + "; ".join(problems)
                + f". {old.name!r} has ports {sorted(old_ports)}, the replacement {sorted(new_ports)}"
            )
        replacement.name = name
        if isinstance(replacement, BondGraph):
            replacement.graph.graph["name"] = name
        self.graph.nodes[name]["obj"] = replacement
        return old

    # ----------------------------------------------------------------- persistence & display
    def save(self, path: str | os.PathLike) -> None:
        """Save to a JSON file (node-link form). See `porthamiltonian.bondgraph.load`."""
        _VIEWS["save"](self, path)

    def draw(self, ax: Axes | None = None, **kwargs) -> Axes:
        """Draw the graph (labels, half-arrows, causal strokes); returns the matplotlib axes
        (`porthamiltonian.diagnostics.plots.draw_bondgraph`)."""
        return _VIEWS["draw"](self, ax=ax, **kwargs)

    def _repr_html_(self):
        """Elements and bonds as HTML tables (Jupyter's rich display)."""
        return _VIEWS["html"](self)

    def _repr_png_(self):
        """The drawing of `draw` as PNG bytes (Jupyter's rich display; made without pyplot).
        None if the graph cannot be drawn yet (causality cannot be assigned): the display
        falls back to the tables."""
        try:
            return _VIEWS["png"](self)
        except PortHamiltonianError:
            return None

    def __repr__(self):
        return f"<BondGraph {self.name!r}: {self.graph.number_of_nodes()} elements, {self.graph.number_of_edges()} bonds>"
