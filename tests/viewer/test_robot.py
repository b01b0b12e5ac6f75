"""A robot in the viewer (issue 35): the contact forces of an articulated body's feet are drawn
on the feet (the links of the robot, which moves), pointing the way the ground pushes them (up
at standing load), and at standing load the arrows are not dwarfed by the landing's peak."""

import numpy as np

import porthamiltonian as ph
from porthamiltonian.models import build_model
from porthamiltonian.viewer import scene_from_trajectory


def test_a_robots_foot_forces_are_drawn_on_its_feet_pointing_up():
    model = build_model("robot-drop", robot="go1", contact="compliant", drop=0.02)
    system = ph.compile(model.graph)
    # a 2 cm drop: touchdown at 64 ms, the landing inside the 0.12 s run (tests/models/test_robot_drop.py)
    traj = ph.simulate(system, (0.0, 0.12), system.initial_state(model.initial), t_eval=np.linspace(0.0, 0.12, 13))
    scene = scene_from_trajectory(traj, resolution=8)
    feet = [c for c in scene.data["contacts"] if c["name"].endswith("foot-contact")]
    assert len(feet) == 4
    for c in feet:
        assert c["body_b"] == "ground" and c["arrows"] == [-1], c["name"]   # on body a, the foot
        drawn = -np.asarray(c["force"])                                      # the force on the foot
        # the landing's peak pushes the foot up (the law's damper may pull a little as a foot lifts)
        peak = drawn[np.argmax(np.linalg.norm(drawn, axis=1))]
        assert peak[2] > 0.5 * np.linalg.norm(peak), f"{c['name']}: the landing's force on the foot: {peak}"
