"""Save and load bond graphs as JSON in networkx's node-link form.

Every node stores its element type (`type_name`, looked up in the registry on load) and its
parameters; components store their nested graph and exposed ports; links store the bond
name and ports. References to other elements (a gravity's body, a joint's bodies) are
written as ``{"$ref": "path/to/element"}`` and resolved on load. Numbers are written with
full precision (repr), so a loaded graph simulates identically.

Only constants and sympy expressions can be saved: an element holding a Python callable
raises SerializationError when saved. Loading evaluates sympy expressions from the file
(`sympy.sympify`): load only files you trust.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import numpy as np

from ..errors import SerializationError
from .element import ELEMENT_TYPES, Element
from .graph import BondGraph, PortRef
from .ports import Port, StateRef

__all__ = ["save", "load", "to_json", "from_json"]

FORMAT = "porthamiltonian-bondgraph"
VERSION = 1


def _paths(bg, prefix="", out=None):
    out = {} if out is None else out
    for name, obj in bg.elements.items():
        out[id(obj)] = prefix + name
        if isinstance(obj, BondGraph):
            _paths(obj, prefix + name + "/", out)
    return out


def _encode(value, paths, where):
    if isinstance(value, Element):
        if id(value) not in paths:
            raise SerializationError(f"{where}: references {value.label}, which is not part of the saved graph")
        return {"$ref": paths[id(value)]}
    if isinstance(value, StateRef):
        return {"$stateref": [_encode(value.element, paths, where)["$ref"], value.block]}
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, dict):
        return {k: _encode(v, paths, where) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encode(v, paths, where) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise SerializationError(f"{where}: cannot save a parameter of type {type(value).__name__} ({value!r})")


class _Pending(Exception):
    pass


def _decode(value, built):
    if isinstance(value, dict):
        if set(value) == {"$ref"}:
            if value["$ref"] not in built:
                raise _Pending(value["$ref"])
            return built[value["$ref"]]
        if set(value) == {"$stateref"}:
            path, block = value["$stateref"]
            if path not in built:
                raise _Pending(path)
            return StateRef(built[path], block)
        return {k: _decode(v, built) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v, built) for v in value]
    return value


def _graph_data(bg, paths, prefix):
    nodes = []
    for name, obj in bg.elements.items():
        where = f"{prefix}{name}"
        if isinstance(obj, BondGraph):
            nodes.append({"id": name, "type": "BondGraph", "graph": _graph_data(obj, paths, where + "/")})
        else:
            nodes.append({"id": name, "type": obj.type_name, "params": _encode(obj.parameters(), paths, where)})
    links = [
        {"source": b.tail.node, "target": b.head.node, "key": b.name, "tail_port": b.tail.port,
         "head_port": b.head.port, "dim": b.dim}
        for b in bg.bonds
    ]
    return {
        "directed": True,
        "multigraph": True,
        "graph": {
            "name": bg.name,
            "exposed": [{"name": n, "node": r.node, "port": r.port} for n, (r, _) in bg._exposed.items()],
            "bond_counter": bg._bond_counter,
        },
        "nodes": nodes,
        "links": links,
    }


def to_json(bg):
    """The JSON-ready dict of a bond graph (see module docstring)."""
    return {"format": FORMAT, "version": VERSION, "graph": _graph_data(bg, _paths(bg), "")}


def save(bg, path):
    """Save `bg` to a JSON file.

    Raises
    ------
    SerializationError
        If an element holds a Python callable or references an element outside the graph.
    """
    data = to_json(bg)
    Path(path).write_text(json.dumps(data, indent=1))
    return Path(path)


def _ensure_library_registered():
    try:  # library element types register themselves on import
        import porthamiltonian.library  # noqa: F401
    except ImportError:
        pass


def from_json(data):
    """Rebuild a bond graph from `to_json` output."""
    _ensure_library_registered()
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SerializationError(f"not a porthamiltonian bond graph file (expected format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise SerializationError(f"unsupported file version {data.get('version')!r}; this version reads {VERSION}")
    built: dict[str, object] = {}
    pending = []  # (graph, name, type, params, path)

    def make_graph(gd, prefix):
        g = BondGraph(gd["graph"]["name"])
        for nd in gd["nodes"]:
            path = prefix + nd["id"]
            if nd["type"] == "BondGraph":
                sub = make_graph(nd["graph"], path + "/")
                sub.name = nd["id"]
                g.add(sub)
                built[path] = sub
            else:
                if nd["type"] not in ELEMENT_TYPES:
                    close = difflib.get_close_matches(nd["type"], list(ELEMENT_TYPES), n=1)
                    raise SerializationError(
                        f"unknown element type {nd['type']!r} for {path!r}"
                        + (f"; did you mean {close[0]!r}?" if close else "")
                        + f". Known types: {sorted(ELEMENT_TYPES)}"
                    )
                pending.append((g, nd["id"], nd["type"], nd.get("params", {}), path))
        return g

    root = make_graph(data["graph"], "")
    # build elements, deferring those whose references are not built yet
    while pending:
        progress = False
        rest = []
        for g, name, typ, params, path in pending:
            try:
                decoded = _decode(params, built)
            except _Pending:
                rest.append((g, name, typ, params, path))
                continue
            cls = ELEMENT_TYPES[typ]
            try:
                obj = cls.from_parameters(name, decoded, lambda p: built[p])
            except SerializationError:
                raise
            except Exception as exc:
                raise SerializationError(f"cannot rebuild {path!r} ({typ}): {exc}") from exc
            g.add(obj)
            built[path] = obj
            progress = True
        if not progress:
            missing = sorted({p for _, _, _, _, p in rest})
            raise SerializationError(f"unresolvable references among {missing}")
        pending = rest

    # restore insertion order of nodes (deferred ones were added late), then bonds and exposures
    def finish(g, gd, prefix):
        order = [nd["id"] for nd in gd["nodes"]]
        objs = {n: g.graph.nodes[n]["obj"] for n in order}
        g.graph.remove_nodes_from(order)
        for n in order:
            g.graph.add_node(n, obj=objs[n])
        for nd in gd["nodes"]:
            if nd["type"] == "BondGraph":
                finish(objs[nd["id"]], nd["graph"], prefix + nd["id"] + "/")
        for ln in gd["links"]:
            g._add_bond(ln["key"], PortRef(ln["source"], ln["tail_port"]), PortRef(ln["target"], ln["head_port"]), ln["dim"])
        for ex in gd["graph"].get("exposed", []):
            obj = g.graph.nodes[ex["node"]]["obj"]
            port = obj.port(ex["port"])
            g._set_exposed(
                ex["name"], PortRef(ex["node"], ex["port"]), Port(ex["name"], port.dim, port.orientation, port.frame, port.multi)
            )
        g._bond_counter = gd["graph"].get("bond_counter", len(gd["links"]))

    finish(root, data["graph"], "")
    return root


def load(path):
    """Load a bond graph saved with `save`.

    Raises
    ------
    SerializationError
        Unknown element type (with the nearest known name), bad format or version,
        unresolvable references.
    """
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise SerializationError(f"{path}: not valid JSON ({exc})") from exc
    return from_json(data)
