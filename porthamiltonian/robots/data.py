"""Real robots as data: the URDF files of the `example-robot-data` package.

`example-robot-data` (PyPI, a cmeel package, in the ``robots`` extra) installs its files under
``site-packages/cmeel.prefix/share/example-robot-data/robots/``; they are found through the
installed distribution's metadata, never the network.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from porthamiltonian.errors import ParameterError

__all__ = ["EXAMPLES", "example", "example_robots", "standing_pose"]

# name -> URDF path below share/example-robot-data/robots/ (the files of example-robot-data 6.0)
EXAMPLES = {
    "go1": "go1_description/urdf/go1.urdf",
    "go2": "go2_description/urdf/go2.urdf",
    "a1": "a1_description/urdf/a1.urdf",
    "anymal_c": "anymal_c_simple_description/urdf/anymal.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
    "talos": "talos_data/robots/talos_reduced.urdf",
    "g1": "g1_description/urdf/g1_29dof_rev_1_0.urdf",
}

# name -> SRDF path (its group_state "standing" is the robot's standing pose)
STANDING = {
    "go1": "go1_description/srdf/go1.srdf",
    "a1": "a1_description/srdf/a1.srdf",
    "anymal_c": "anymal_c_simple_description/srdf/anymal.srdf",
    "solo12": "solo_description/srdf/solo.srdf",
}


def _robots_folder():
    try:
        dist = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        raise ParameterError(
            "the robot files come from the `example-robot-data` package, which is not installed; "
            "install the extra: pip install 'porthamiltonian[robots]'"
        ) from None
    return Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots"))


def example_robots():
    """The names `example` accepts whose file is installed, sorted."""
    folder = _robots_folder()
    return sorted(name for name, rel in EXAMPLES.items() if (folder / rel).is_file())


def example(name):
    """The absolute path of an example robot's URDF file.

    Parameters
    ----------
    name : str
        One of (`example_robots` lists those installed): go1, go2, a1, anymal_c, solo12, talos (the reduced model: arms, legs,
        torso, head, grippers with mimic joints), g1 (29 joints).

    Returns
    -------
    pathlib.Path
        The URDF, whose ``package://example-robot-data/...`` meshes `load_urdf` resolves.

    Raises
    ------
    ParameterError
        If `name` is not a listed robot (the message lists the available ones), or if
        `example-robot-data` is not installed.

    Examples
    --------
    >>> example("go1").name                                  # doctest: +SKIP
    'go1.urdf'
    """
    folder = _robots_folder()
    path = folder / EXAMPLES.get(name, "")
    if name not in EXAMPLES or not path.is_file():
        raise ParameterError(f"`name` must be one of the installed example robots {example_robots()}, got {name!r}")
    return path


def standing_pose(name):
    """An example robot's standing joint angles, from its SRDF's ``group_state "standing"``.

    Parameters
    ----------
    name : str
        One of the robots with a standing pose: go1, a1, anymal_c, solo12.

    Returns
    -------
    dict
        ``{joint name: angle [rad]}`` for the 1-dof joints (the file's ``root_joint`` entry,
        a base pose in Pinocchio's layout, is left out).

    Raises
    ------
    ParameterError
        If `name` has no standing pose listed (the message lists those that have).
    """
    import xml.etree.ElementTree as ET

    if name not in STANDING:
        raise ParameterError(f"`name` must be one of the robots with a standing pose {sorted(STANDING)}, got {name!r}")
    root = ET.parse(_robots_folder() / STANDING[name]).getroot()
    state = next(g for g in root.iter("group_state") if g.get("name") == "standing")
    return {j.get("name"): float(j.get("value")) for j in state.iter("joint") if j.get("name") != "root_joint"}
