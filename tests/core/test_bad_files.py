"""Malformed bond graph files: every one raises SerializationError naming the file (for
`load`) and the offending key, node or link, never a raw KeyError, TypeError or OSError;
nothing malformed is silently accepted (a bond whose 'dim' differs from its ports' is refused
on load, not run). A fuzz test mutates a saved graph at random and checks that `from_json`
either succeeds or raises SerializationError."""

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import porthamiltonian as ph
from porthamiltonian.bondgraph.serialize import from_json, to_json
from porthamiltonian.errors import SerializationError

from .conftest import msd_graph, suspension


def saved(tmp_path, mutate=None, graph=None):
    """Save a graph (msd by default), apply `mutate` to its JSON data, return the path."""
    data = to_json(graph or msd_graph())
    if mutate is not None:
        mutate(data)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data))
    return path


def link(data, key):
    return next(ln for ln in data["graph"]["links"] if ln["key"] == key)


def node(data, nid):
    return next(nd for nd in data["graph"]["nodes"] if nd["id"] == nid)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(SerializationError, match=r"nope\.json: no such file"):
        ph.load(tmp_path / "nope.json")


def test_binary_garbage_is_not_a_text_file(tmp_path):
    path = tmp_path / "garbage.json"
    path.write_bytes(bytes(range(128, 256)) * 4)
    with pytest.raises(SerializationError, match=r"garbage\.json: not a text \(UTF-8 JSON\) file"):
        ph.load(path)


def test_a_directory_is_not_a_file(tmp_path):
    with pytest.raises(SerializationError, match=r"is a directory, not a bond graph file"):
        ph.load(tmp_path)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("graph"), r"g\.json: the file lacks its 'graph'"),
    (lambda d: d.update(graph=[]), r"g\.json: the root graph: must be an object .* got a list"),
    (lambda d: d["graph"].pop("links"), r"the root graph: lacks the key\(s\) \['links'\]"),
    (lambda d: d["graph"].update(nodes={"F": "Se"}), r"the root graph: 'nodes' must be a list of objects, got an object"),
    (lambda d: d["graph"].update(links="b0"), r"the root graph: 'links' must be a list of objects, got a string"),
    (lambda d: d["graph"]["nodes"].append("m2"), r"the root graph: node 5 must be an object with 'id' and 'type', got 'm2'"),
    (lambda d: node(d, "m").pop("type"), r"the root graph: node 2 needs a string 'type', got '<missing>'"),
    (lambda d: node(d, "k").update(id=3), r"the root graph: node 3 needs a string 'id', got 3"),
    (lambda d: node(d, "k").update(id="m"), r"the root graph: node id 'm' appears twice"),
    (lambda d: node(d, "m").update(params=[2.0]), r"the 'params' of node 'm' must be an object, got a list \(\[2\.0\]\)"),
    (lambda d: link(d, "b1").pop("head_port"), r"the root graph: link 1 \('b1'\) lacks \['head_port'\]"),
    (lambda d: link(d, "b1").update(head_port=None), r"link 1 \('b1'\): 'head_port' must be a string, got None"),
    (lambda d: link(d, "b1").update(target="mass"),
     r"link 'b1': target 'mass' is not a node of the graph; nodes are \['F', 'b', 'k', 'm', 'v'\]"),
    (lambda d: link(d, "b1").update(dim=True), r"link 'b1': 'dim' must be a positive integer, got True"),
    (lambda d: link(d, "b2").update(key="b1"), r"link key 'b1' appears twice; bond names must be unique"),
    (lambda d: link(d, "b1").update(head_port="q"), r"link 'b1' \(v\.p1 -> m\.q\): I:m has no port 'q'"),
    (lambda d: link(d, "b2").update(tail_port="p1"), r"link 'b2' \(v\.p1 -> k\.p\): port 'p1' of .* is already used"),
    (lambda d: d["graph"]["graph"].update(name=""), r"the root graph: bond graph name must be a non-empty string"),
    (lambda d: d["graph"]["graph"].update(bond_counter=-1), r"'bond_counter' must be an integer >= 0, got -1"),
    (lambda d: d["graph"]["graph"].update(exposed=[{"name": "a", "node": "w", "port": "p"}]),
     r"exposed port 'a': node 'w' is not a node of the graph"),
    (lambda d: d["graph"]["graph"].update(exposed=[{"name": "a", "node": "m", "port": "p"}]),
     r"exposed port 'a' \(m\.p\): the port is already used \(bonded by 'b1'\)"),
    (lambda d: d["graph"]["graph"].update(exposed={"a": "m.p"}), r"'exposed' must be a list of objects, got an object"),
    (lambda d: node(d, "m").update(params={"mass": {"$ref": 3}}),
     r"cannot rebuild 'm' \(I\): a reference \{'\$ref': path\} takes a string path, got 3"),
    (lambda d: node(d, "m").update(params={"mass": "heavy"}), r"cannot rebuild 'm' \(I\): "),
])
def test_malformed_structure_is_refused_naming_the_file_and_the_key(tmp_path, mutate, message):
    path = saved(tmp_path, mutate)
    with pytest.raises(SerializationError, match=message) as info:
        ph.load(path)
    assert str(info.value).startswith(f"{path}: ")


def test_a_link_to_a_missing_node_fails_on_load_not_at_compile(tmp_path):
    """Formerly loaded, then failed in compile with KeyError: 'obj'."""
    path = saved(tmp_path, lambda d: link(d, "b3").update(target="damper"))
    with pytest.raises(SerializationError, match=r"g\.json: the root graph: link 'b3': target 'damper' is not a node"):
        ph.load(path)


def test_a_link_whose_dim_differs_from_its_ports_is_refused(tmp_path):
    """Formerly a 5-dimensional bond between 1-D ports loaded, compiled and ran."""
    path = saved(tmp_path, lambda d: link(d, "b1").update(dim=5))
    with pytest.raises(SerializationError, match=r"link 'b1' \(v\.p1 -> m\.p\): 'dim' is 5 but the ports have "
                                                 r"dimension 1; a bond joins ports of equal dimension"):
        ph.load(path)


def test_a_link_between_ports_of_different_dimensions_is_refused_with_the_connect_message(tmp_path):
    def mutate(d):
        node(d, "k")["params"].update(dim=2, q0=[0.0, 0.0], stiffness=[[3.0, 0.0], [0.0, 3.0]])
    path = saved(tmp_path, mutate)
    with pytest.raises(SerializationError, match=r"link 'b2' \(v\.p2 -> k\.p\): dimension mismatch: .* a bond joins "
                                                 r"ports of equal dimension"):
        ph.load(path)


def test_errors_inside_a_component_name_the_component(tmp_path):
    bg = ph.BondGraph("car")
    bg.add(suspension(8.0, name="susp"), ph.I("m", mass=1.0))
    bg.connect("susp.a", "m")

    def mutate(d):
        sub = node(d, "susp")["graph"]
        sub["links"][0]["dim"] = 2
    path = saved(tmp_path, mutate, graph=bg)
    with pytest.raises(SerializationError, match=r"graph 'susp': link 'b\d' .*'dim' is 2 but the ports have dimension 1"):
        ph.load(path)
    path = saved(tmp_path, lambda d: node(d, "susp")["graph"].pop("nodes"), graph=bg)
    with pytest.raises(SerializationError, match=r"the root graph > component 'susp': lacks the key\(s\) \['nodes'\]"):
        ph.load(path)


def test_from_json_without_a_source_has_no_prefix_and_a_valid_file_still_loads(tmp_path):
    data = to_json(msd_graph())
    bad = copy.deepcopy(data)
    link(bad, "b1").pop("head_port")
    with pytest.raises(SerializationError, match=r"^the root graph: link 1 \('b1'\) lacks \['head_port'\]$"):
        from_json(bad)
    assert to_json(from_json(data)) == data


# ---------------------------------------------------------------- fuzz

def _fuzz_graph():
    bg = ph.BondGraph("car")
    bg.add(suspension(8.0, name="susp"), ph.I("m", mass=1.0), ph.Se("F", 2.0), ph.Junction1("v"))
    bg.connect("F", "v")
    bg.connect("v", "m")
    bg.connect("v", "susp.a")
    return to_json(bg)


BASE = _fuzz_graph()
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10) | st.floats(allow_nan=True) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def _containers(value, out):
    if isinstance(value, (dict, list)):
        out.append(value)
        for v in (value.values() if isinstance(value, dict) else value):
            _containers(v, out)
    return out


@st.composite
def mutated(draw):
    data = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(_containers(data, [])))
        keys = list(where) if isinstance(where, dict) else list(range(len(where)))
        if not keys:
            continue
        key = draw(st.sampled_from(keys))
        action = draw(st.sampled_from(["drop", "replace", "string", "duplicate"]))
        if action == "drop":
            del where[key]
        elif action == "replace":
            where[key] = draw(JSON_VALUES)
        elif action == "string":
            old = where[key]
            where[key] = (old + draw(st.text(max_size=2)))[: draw(st.integers(0, 6))] if isinstance(old, str) \
                else draw(st.sampled_from(["", "p0", "v", "m", "susp", "b0", "a", "0", "BondGraph", "I"]))
        elif isinstance(where, list):
            where.append(copy.deepcopy(where[key]))
    return data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_randomly_mutated_file_loads_or_raises_serialization_error(data):
    try:
        from_json(data)
    except SerializationError:
        pass
