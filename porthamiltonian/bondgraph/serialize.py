"""Save and load bond graphs as JSON in networkx's node-link form.

Every node stores its element type (`type_name`, looked up in the registry on load) and its
parameters; components store their nested graph and exposed ports; links store the bond
name and ports. References to other elements (a gravity's body, a joint's bodies) are
written as ``{"$ref": "path/to/element"}`` and resolved on load. Numbers are written with
full precision (repr), so a loaded graph simulates identically.

Only constants and sympy expressions can be saved: an element holding a Python callable
raises SerializationError when saved. Loading evaluates sympy expressions from the file
(`sympy.sympify`): load only files you trust.

Loading checks the file's structure before building anything (nodes are objects with a
string "id" and "type", links objects with "source", "target", "key", "tail_port",
"head_port" and an integer "dim", link ends and exposed ports among the nodes, ...) and
then every bond with the rules of `BondGraph.connect` (ports that exist, equal dimensions,
equal frames, one bond per port) plus "dim" equal to the ports' dimension. Any malformed
file raises SerializationError naming the file (for `load`), the graph and the offending
node, link or key; never a raw KeyError or TypeError.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import numpy as np

from .._files import write_text
from ..errors import PortHamiltonianError, SerializationError
from .element import ELEMENT_TYPES, Element
from .graph import BondGraph, PortRef
from .ports import Port, StateRef, check_name

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
    if isinstance(value, Element) and hasattr(value, "view_of"):
        # a view of part of a saved element (an articulated body's link): saved as the owner
        # and the key its `view(key)` takes
        owner, key = value.view_of
        return {"$view": [_encode(owner, paths, where)["$ref"], key]}
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
            if not isinstance(value["$ref"], str):
                raise SerializationError(f"a reference {{'$ref': path}} takes a string path, got {value['$ref']!r}")
            if value["$ref"] not in built:
                raise _Pending(value["$ref"])
            return built[value["$ref"]]
        if set(value) == {"$view"}:
            ref = value["$view"]
            if not (isinstance(ref, list) and len(ref) == 2 and all(isinstance(r, str) for r in ref)):
                raise SerializationError(f"a view {{'$view': [path, key]}} takes two strings, got {ref!r}")
            if ref[0] not in built:
                raise _Pending(ref[0])
            return built[ref[0]].view(ref[1])
        if set(value) == {"$stateref"}:
            ref = value["$stateref"]
            if not (isinstance(ref, list) and len(ref) == 2 and all(isinstance(r, str) for r in ref)):
                raise SerializationError(
                    f"a state reference {{'$stateref': [path, block]}} takes two strings, got {ref!r}"
                )
            path, block = ref
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
    write_text(path, json.dumps(data, indent=1))   # atomic: an interruption leaves no partial file
    return Path(path)


def _ensure_library_registered():
    try:  # library element types register themselves on import
        import porthamiltonian.library  # noqa: F401
    except ImportError:
        pass


_LINK_KEYS = ("source", "target", "key", "tail_port", "head_port", "dim")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _type_name(value):
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _check_graph_data(gd, where):
    """Check the structure of one (possibly nested) graph of `to_json` output; `where` names
    it in messages ("the root graph", "component 'susp'")."""
    if not isinstance(gd, dict):
        raise SerializationError(f"{where}: must be an object with 'graph', 'nodes' and 'links', got {_type_name(gd)}")
    missing = [k for k in ("graph", "nodes", "links") if k not in gd]
    if missing:
        raise SerializationError(f"{where}: lacks the key(s) {missing} (a graph has 'graph', 'nodes' and 'links')")
    meta = gd["graph"]
    if not isinstance(meta, dict):
        raise SerializationError(f"{where}: 'graph' must be an object with 'name', got {_type_name(meta)}")
    if not isinstance(meta.get("name"), str):
        raise SerializationError(f"{where}: 'graph' needs a string 'name', got {meta.get('name', '<missing>')!r}")
    if "bond_counter" in meta and not (_is_int(meta["bond_counter"]) and meta["bond_counter"] >= 0):
        raise SerializationError(
            f"{where}: 'bond_counter' must be an integer >= 0, got {meta['bond_counter']!r}"
        )
    nodes, links = gd["nodes"], gd["links"]
    if not isinstance(nodes, list):
        raise SerializationError(f"{where}: 'nodes' must be a list of objects, got {_type_name(nodes)}")
    if not isinstance(links, list):
        raise SerializationError(f"{where}: 'links' must be a list of objects, got {_type_name(links)}")
    ids = set()
    for i, nd in enumerate(nodes):
        if not isinstance(nd, dict):
            raise SerializationError(f"{where}: node {i} must be an object with 'id' and 'type', got {nd!r}")
        for key in ("id", "type"):
            if not isinstance(nd.get(key), str):
                raise SerializationError(
                    f"{where}: node {i} needs a string {key!r}, got {nd.get(key, '<missing>')!r} (node {nd!r})"
                )
        nid = nd["id"]
        if nid in ids:
            raise SerializationError(f"{where}: node id {nid!r} appears twice; node ids must be unique")
        ids.add(nid)
        if nd["type"] == "BondGraph":
            if "graph" not in nd:
                raise SerializationError(f"{where}: component node {nid!r} lacks its nested 'graph'")
            _check_graph_data(nd["graph"], f"{where} > component {nid!r}")
        elif "params" in nd and not isinstance(nd["params"], dict):
            raise SerializationError(
                f"{where}: the 'params' of node {nid!r} must be an object, got {_type_name(nd['params'])} "
                f"({nd['params']!r})"
            )
    keys = set()
    for i, ln in enumerate(links):
        if not isinstance(ln, dict):
            raise SerializationError(f"{where}: link {i} must be an object with keys {list(_LINK_KEYS)}, got {ln!r}")
        missing = [k for k in _LINK_KEYS if k not in ln]
        if missing:
            raise SerializationError(f"{where}: link {i} ({ln.get('key', 'unnamed')!r}) lacks {missing}")
        for k in _LINK_KEYS[:5]:
            if not isinstance(ln[k], str):
                raise SerializationError(f"{where}: link {i} ({ln['key']!r}): {k!r} must be a string, got {ln[k]!r}")
        name = ln["key"]
        if not (_is_int(ln["dim"]) and ln["dim"] >= 1):
            raise SerializationError(f"{where}: link {name!r}: 'dim' must be a positive integer, got {ln['dim']!r}")
        if name in keys:
            raise SerializationError(f"{where}: link key {name!r} appears twice; bond names must be unique")
        keys.add(name)
        for end in ("source", "target"):
            if ln[end] not in ids:
                raise SerializationError(
                    f"{where}: link {name!r}: {end} {ln[end]!r} is not a node of the graph; nodes are {sorted(ids)}"
                )
    exposed = meta.get("exposed", [])
    if not isinstance(exposed, list):
        raise SerializationError(f"{where}: 'exposed' must be a list of objects, got {_type_name(exposed)}")
    names = set()
    for i, ex in enumerate(exposed):
        if not (isinstance(ex, dict) and all(isinstance(ex.get(k), str) for k in ("name", "node", "port"))):
            raise SerializationError(
                f"{where}: exposed entry {i} must be an object with string 'name', 'node' and 'port', got {ex!r}"
            )
        if ex["name"] in names:
            raise SerializationError(f"{where}: exposed port {ex['name']!r} appears twice")
        names.add(ex["name"])
        if ex["node"] not in ids:
            raise SerializationError(
                f"{where}: exposed port {ex['name']!r}: node {ex['node']!r} is not a node of the graph; "
                f"nodes are {sorted(ids)}"
            )


def from_json(data, *, source=None):
    """Rebuild a bond graph from `to_json` output.

    `source` (a path, for messages) prefixes every error. Raises SerializationError for
    anything malformed (see the module docstring), naming the graph and the node, link or key.
    """
    try:
        return _from_json(data)
    except SerializationError as exc:
        if source is None:
            raise
        raise SerializationError(f"{source}: {exc}") from exc


def _from_json(data):
    _ensure_library_registered()
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SerializationError(f"not a porthamiltonian bond graph file (expected format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise SerializationError(f"unsupported file version {data.get('version')!r}; this version reads {VERSION}")
    if "graph" not in data:
        raise SerializationError("the file lacks its 'graph'")
    _check_graph_data(data["graph"], "the root graph")
    built: dict[str, object] = {}
    pending = []  # (graph, name, type, params, path)

    def make_graph(gd, prefix):
        where = f"graph {prefix[:-1]!r}" if prefix else "the root graph"
        try:
            g = BondGraph(gd["graph"]["name"])
        except PortHamiltonianError as exc:
            raise SerializationError(f"{where}: {exc}") from None
        for nd in gd["nodes"]:
            path = prefix + nd["id"]
            if nd["type"] == "BondGraph":
                sub = make_graph(nd["graph"], path + "/")
                try:
                    sub.name = check_name(nd["id"], "component name")
                except PortHamiltonianError as exc:
                    raise SerializationError(f"{where}: node {nd['id']!r}: {exc}") from None
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
            except SerializationError as exc:
                raise SerializationError(f"cannot rebuild {path!r} ({typ}): {exc}") from None
            cls = ELEMENT_TYPES[typ]

            def resolve(p, path=path):
                if p not in built:
                    raise SerializationError(f"{path!r} references {p!r}, which is not in the file")
                return built[p]

            try:
                obj = cls.from_parameters(name, decoded, resolve)
                if getattr(obj, "name", None) != name:
                    raise SerializationError(f"rebuilt under the name {getattr(obj, 'name', None)!r}")
                g.add(obj)
            except Exception as exc:
                raise SerializationError(f"cannot rebuild {path!r} ({typ}): {exc}") from exc
            built[path] = obj
            progress = True
        if not progress:
            missing = sorted({p for _, _, _, _, p in rest})
            raise SerializationError(f"unresolvable references among {missing}")
        pending = rest

    # restore insertion order of nodes (deferred ones were added late), then bonds and exposures
    def finish(g, gd, prefix):
        where = f"graph {prefix[:-1]!r}" if prefix else "the root graph"
        order = [nd["id"] for nd in gd["nodes"]]
        objs = {n: g.graph.nodes[n]["obj"] for n in order}
        g.graph.remove_nodes_from(order)
        for n in order:
            g.graph.add_node(n, obj=objs[n])
        for nd in gd["nodes"]:
            if nd["type"] == "BondGraph":
                finish(objs[nd["id"]], nd["graph"], prefix + nd["id"] + "/")
        for ln in gd["links"]:
            tref, href = PortRef(ln["source"], ln["tail_port"]), PortRef(ln["target"], ln["head_port"])
            what = f"{where}: link {ln['key']!r} ({tref} -> {href})"
            try:
                check_name(ln["key"], "bond name")
                tport, hport = objs[tref.node].port(tref.port), objs[href.node].port(href.port)
                g._check_bond(tref, tport, href, hport)  # the rules of `connect`
            except PortHamiltonianError as exc:
                raise SerializationError(f"{what}: {exc}") from None
            if ln["dim"] != tport.dim:
                raise SerializationError(
                    f"{what}: 'dim' is {ln['dim']} but the ports have dimension {tport.dim}; "
                    "a bond joins ports of equal dimension and has their dimension"
                )
            g._add_bond(ln["key"], tref, href, ln["dim"])
        for ex in gd["graph"].get("exposed", []):
            ref = PortRef(ex["node"], ex["port"])
            try:
                check_name(ex["name"], "port name")
                port = objs[ex["node"]].port(ex["port"])
            except PortHamiltonianError as exc:
                raise SerializationError(f"{where}: exposed port {ex['name']!r} ({ref}): {exc}") from None
            if g._is_exposed(ref) or (not port.multi and g._bonds_at(ref)):
                used = f"exposed as {g._exposed_at[ref]!r}" if g._is_exposed(ref) else f"bonded by {g._bonds_at(ref)[0]!r}"
                raise SerializationError(
                    f"{where}: exposed port {ex['name']!r} ({ref}): the port is already used ({used}); "
                    "a port takes one bond or one exposure"
                )
            g._set_exposed(ex["name"], ref, Port(ex["name"], port.dim, port.orientation, port.frame, port.multi))
        g._bond_counter = gd["graph"].get("bond_counter", len(gd["links"]))

    finish(root, data["graph"], "")
    return root


def load(path):
    """Load a bond graph saved with `save`.

    Raises
    ------
    SerializationError
        Missing or unreadable file, not JSON, unknown element type (with the nearest known
        name), bad format or version, malformed structure, a bond breaking the rules of
        `connect` or whose 'dim' differs from its ports', unresolvable references; the
        message starts with the path.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except IsADirectoryError:
        raise SerializationError(f"{path}: is a directory, not a bond graph file") from None
    except FileNotFoundError:
        raise SerializationError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise SerializationError(f"{path}: not a text (UTF-8 JSON) file ({exc})") from None
    except OSError as exc:
        raise SerializationError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SerializationError(f"{path}: not valid JSON ({exc})") from exc
    return from_json(data, source=path)
