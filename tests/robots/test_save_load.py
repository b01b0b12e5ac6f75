"""Saving and loading a graph that holds an articulated body (robot-drop's Go1: the robot, its
joint springs and dampers, four compliant feet bonded to its links).

References: the description read back equals the one saved (field by field, exactly: JSON
keeps Python floats to the last bit), mesh files are kept as the same paths, and the loaded
graph simulates bit-identically to the built one.
"""

import json

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.models import build_model
from porthamiltonian.robots.description import RobotDescription

pytest.importorskip("yourdfpy")


@pytest.fixture(scope="module")
def drop():
    return build_model("robot-drop", robot="go1", drop=0.01)


def _fields(description):
    """Every number and string of a description, as comparable Python data."""
    return json.dumps(description.to_dict(), sort_keys=True)


def test_description_round_trips_exactly_as_data(drop):
    robot = drop.graph.elements["robot"]
    data = robot.description.to_dict()
    text = json.dumps(data, allow_nan=False)   # strict JSON: no pickled object, no NaN/Infinity
    back = RobotDescription.from_dict(json.loads(text))
    assert _fields(back) == _fields(robot.description)
    meshes = [s.mesh for l in robot.description.links for s in l.visuals + l.collisions if s.kind == "mesh"]
    assert meshes and [s.mesh for l in back.links for s in l.visuals + l.collisions if s.kind == "mesh"] == meshes
    for a, b in zip(robot.description.joints, back.joints):
        assert a.name == b.name and np.array_equal(a.placement, b.placement) and np.array_equal(a.axis, b.axis)
    with pytest.raises(ParameterError, match=r"`version` must be 1, got 7"):
        RobotDescription.from_dict({**data, "version": 7})
    with pytest.raises(ParameterError, match=r"a joint takes the keys .*got unknown \['torque'\]"):
        RobotDescription.from_dict({**data, "joints": [{**data["joints"][0], "torque": 1.0}] + data["joints"][1:]})


def test_saved_robot_graph_simulates_bit_identically(drop, tmp_path):
    path = tmp_path / "go1.json"
    ph.save(drop.graph, path)
    loaded = ph.load(path)
    assert sorted(loaded.elements) == sorted(drop.graph.elements)
    built, again = ph.compile(drop.graph), ph.compile(loaded)
    x_built, x_again = built.initial_state(drop.initial), again.initial_state(drop.initial)
    # bit-identical on purpose: the same numbers in the same order through the same kernels
    assert np.array_equal(x_built, x_again)
    run = dict(t_eval=np.linspace(0.0, 0.06, 4), method="DOP853", rtol=1e-8, atol=1e-10)  # touchdown at 45 ms
    a = ph.simulate(built, (0.0, 0.06), x_built, **run)
    b = ph.simulate(again, (0.0, 0.06), x_again, **run)
    assert a.status == 0 and b.status == 0
    assert np.array_equal(a.t, b.t) and np.array_equal(a.x, b.x)
    assert a.x[-1, 6] < a.x[0, 6] - 0.01  # it did fall onto its feet in that time
