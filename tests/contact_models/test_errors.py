"""Bad parameters give clear errors (issue 5, acceptance 5)."""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.cli import main
from porthamiltonian.geometry import Cylinder, Plane, Sphere
from porthamiltonian.geometry.torus import Torus
from porthamiltonian.library import CompliantContact, Ground, RigidBody

from .conftest import ball, body_on_plane


@pytest.fixture
def bodies():
    return ball(1.0, 0.1, 0.5)[0], Ground("ground")


@pytest.mark.parametrize("key, value, match", [
    ("stiffness", -1.0, r"`stiffness` must be > 0, got -1.0"),
    ("stiffness", float("nan"), r"`stiffness` must be finite"),
    ("damping", -2.0, r"`damping` must be >= 0, got -2.0"),
    ("friction", -0.1, r"`friction` must be >= 0, got -0.1"),
    ("tangential_stiffness", -1.0, r"`tangential_stiffness` must be >= 0"),
    ("spin_friction", -1.0, r"`spin_friction` must be >= 0"),
    ("slip_damping", 0.0, r"`slip_damping` must be > 0"),
    ("max_penetration", -1.0, r"`max_penetration` must be > 0"),
    ("alpha", 1.5, r"`alpha` must lie in \[0, 1\], got 1.5"),
    ("alpha", -0.1, r"`alpha` must lie in \[0, 1\], got -0.1"),
    ("normal", "herz", r"unknown normal law 'herz'.*did you mean 'hertz'"),
    ("normal", "hunt-crossley", r"unknown normal law 'hunt-crossley'.*did you mean 'hunt_crossley'"),
])
def test_bad_contact_parameters(bodies, key, value, match):
    b, g = bodies
    with pytest.raises(ph.ParameterError, match=match):
        CompliantContact("c", b, Sphere(0.1), g, Plane(), **{key: value})


def test_same_body_twice(bodies):
    b, _ = bodies
    with pytest.raises(ph.ModelError, match="two different bodies, got 'ball' twice"):
        CompliantContact("c", b, Sphere(0.1), b, Sphere(0.1))


@pytest.mark.parametrize("depth, limit", [(0.02, None), (0.002, 1e-3)])
def test_initial_penetration_beyond_the_range(depth, limit):
    law = {} if limit is None else {"max_penetration": limit}
    shown = 0.01 if limit is None else limit  # default: max(1 cm, 10 x static penetration of 1 kg)
    with pytest.raises(ph.GeometryError, match=rf"penetrate by {depth:g} m.*max_penetration = {shown:g} m"):
        body_on_plane(*ball(1.0, 0.1, 0.1 - depth), **law)


def test_initial_penetration_within_the_range_starts_in_contact():
    system, x0 = body_on_plane(*ball(1.0, 0.1, 0.1 - 0.005))
    own, _ = system.element_state("c/spring", x0)
    assert own[6] == 1.0


def test_conforming_planes_are_rejected():
    b = RigidBody("slab", 1.0, [0.1, 0.1, 0.1], pose=np.eye(4))
    with pytest.raises(ph.GeometryError, match="not isolated"):
        body_on_plane(b, Plane())


def test_torus_lying_flat_is_rejected_clearly():
    """A torus flat on a plane touches along a circle where its ring curvature vanishes:
    the contact kinematics need convexity there. The error must say so before any
    integration (not a NaN deep in an event function)."""
    H = np.eye(4)
    H[2, 3] = 0.105
    torus = RigidBody("torus", 1.0, [0.05, 0.05, 0.09], pose=H, twist=[0, 0, 0, 0, 0, -1])
    with pytest.raises(ph.PortHamiltonianError, match="convex|isolated|conforming"):
        system, x0 = body_on_plane(torus, Torus(0.3, 0.1))
        ph.simulate(system, (0.0, 0.01), x0)


@pytest.mark.parametrize("kind", ["compliant", "sliding_plane"])
def test_a_cylinder_sole_lying_on_the_floor_gets_a_short_message(kind):
    """Issue 17: a non-convex sole (a cylinder lying on the plane) was refused with a
    3,349-character message listing every start of the global search; it must say in a few
    lines what is wrong and what to do."""
    H = np.eye(4)
    H[2, 3] = 0.1
    foot = RigidBody("foot", 1.0, [0.01, 0.01, 0.01], pose=H)
    with pytest.raises(ph.GeometryError) as info:
        body_on_plane(foot, Cylinder(0.1, 0.3), kind=kind)
    msg = str(info.value)
    assert len(msg) < 700, len(msg)
    for part in ("no isolated contact point between Cylinder(radius=0.1, half_length=0.3) and Plane(",
                 "Neither surface is strictly convex", "touch along a line", "use a Sphere or an Ellipsoid"):
        assert part in msg, (part, msg)


@pytest.mark.parametrize("argv, hint", [
    (["run", "two-elipsoids"], "did you mean 'two-ellipsoids'?"),
    (["graph", "two_ellipsoids"], "did you mean 'two-ellipsoids'?"),
    (["run", "two-ellipsoids", "--param", "stifness=100"], "has no parameter 'stifness'; did you mean 'stiffness'?"),
    (["run", "two-ellipsoids", "--param", "fricton=0.2"], "did you mean 'friction'?"),
    (["run", "two-ellipsoids", "--param", "stiffness=abc"], "'stiffness' expects float like 4000.0, got 'abc'"),
    (["run", "two-ellipsoids", "--param", "friction=-1"], "`friction` must be >= 0, got -1.0"),
])
def test_cli_errors_suggest_the_nearest_name(argv, hint, capsys, tmp_path):
    extra = ["--out", str(tmp_path)] + (["--no-progress"] if argv[0] == "run" else [])
    code = main(argv + extra)
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: ") and hint in err
