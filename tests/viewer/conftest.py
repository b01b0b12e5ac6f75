"""One short run of the main job with its viewer, shared by the viewer's tests."""

import pytest


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory):
    """The output directory of `porthamiltonian run two-ellipsoids --t-end 0.25 --view`
    (26 samples: the lower ellipsoid has just landed, the upper one is still falling)."""
    from porthamiltonian.cli import main

    out = tmp_path_factory.mktemp("viewer") / "two"
    status = main(["run", "two-ellipsoids", "--t-end", "0.25", "--samples", "26", "--view", "--no-progress",
                   "--out", str(out)])
    assert status == 0
    return out


@pytest.fixture(scope="session")
def walker_dir(tmp_path_factory):
    """The output directory of `porthamiltonian run compass-walker --t-end 0.05 --samples 6 --view`
    (standing on one foot, the other swinging)."""
    from porthamiltonian.cli import main

    out = tmp_path_factory.mktemp("viewer") / "walker"
    assert main(["run", "compass-walker", "--t-end", "0.05", "--samples", "6", "--view", "--no-progress",
                 "--out", str(out)]) == 0
    return out
