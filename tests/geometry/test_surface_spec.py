"""Surface specs: every kind survives JSON and is rebuilt as the same surface; bad specs are
refused with a SerializationError naming the kind and the key."""

import functools
import json
import math

import numpy as np
import pytest
import sympy as sp
from scipy.spatial.transform import Rotation

from porthamiltonian.errors import ParameterError, SerializationError
from porthamiltonian.geometry import (
    BezierPatch,
    BSplineSurface,
    Cylinder,
    Ellipsoid,
    ParameterDomain,
    Plane,
    Sphere,
    Surface,
    SymbolicSurface,
    Torus,
)
from porthamiltonian.geometry.spec import surface_from_spec, surface_to_spec

from .conftest import cam_points, random_params, smooth_net

HALF_PI = 0.5 * math.pi


def _pose(seed):
    rng = np.random.default_rng(seed)
    H = np.eye(4)
    H[:3, :3] = Rotation.random(random_state=seed).as_matrix()
    H[:3, 3] = rng.normal(size=3)
    return H


def _clamped_random_knots(rng, n, p):
    return np.r_[np.zeros(p + 1), np.sort(rng.uniform(0.1, 0.9, n - p - 1)), np.ones(p + 1)]


def _bspline():
    rng = np.random.default_rng(21)
    return BSplineSurface(_clamped_random_knots(rng, 7, 3), _clamped_random_knots(rng, 5, 2), 3, 2,
                          smooth_net(7, 5, 21))


def _nurbs():
    rng = np.random.default_rng(22)
    return BSplineSurface(_clamped_random_knots(rng, 6, 3), _clamped_random_knots(rng, 6, 3), 3, 3,
                          smooth_net(6, 6, 22), rng.uniform(0.4, 2.5, (6, 6)))


def _cam():
    theta, z, P = cam_points(24, 5)
    return BSplineSurface.interpolate(P, 3, 3, periodic_u=True, u_params=np.r_[theta, 2.0 * math.pi],
                                      v_params=z, closed=False)


def _symbolic_unbounded():
    """Float coefficients (one needing 17 digits, one of 100 bits), a rational, an unbounded u."""
    u, v = sp.symbols("u v")
    expr = [u, v + sp.Float("0.1", 30) * u * v,
            0.01 * u**2 + (0.1 + 0.2) * sp.sin(v) * u + sp.Rational(1, 3) * v**2]
    dom = ParameterDomain((-math.inf, -1.0), (math.inf, 1.5))
    return SymbolicSurface(expr, u, v, dom)


def _symbolic_ellipsoid():
    """Real symbols, a periodic u, singular poles in v, declared closed and convex."""
    u, v = sp.symbols("theta phi", real=True)
    expr = [1.2 * sp.cos(v) * sp.cos(u), 0.7 * sp.cos(v) * sp.sin(u), 0.5 * sp.sin(v)]
    dom = ParameterDomain((-math.pi, -HALF_PI), (math.pi, HALF_PI), (True, False),
                          singular_v=(-HALF_PI, HALF_PI))
    return SymbolicSurface(expr, u, v, dom, closed=True, convex=True)


def _plane(seed):
    """A bounded plane with random point, normal and explicit `u_axis`."""
    rng = np.random.default_rng(seed)
    return Plane(rng.normal(size=3), rng.normal(size=3), u_axis=rng.normal(size=3),
                 extent=((-1.0, 2.0), (-0.5, 0.75)))


CASES = {
    "plane_bounded": lambda: _plane(4),
    "plane_explicit_axis": lambda: _plane(0),
    "plane_unbounded": lambda: Plane((0.1, -0.2, 0.3), (1.0, 2.0, 2.0)),
    "plane_from_pose": lambda: Plane.from_pose(_pose(7), extent=((-0.5, 0.5), (-0.25, 1.0))),
    "plane_from_pose_unbounded": lambda: Plane.from_pose(_pose(8)),
    "sphere": lambda: Sphere(0.7, center=(0.1, 0.2, -0.3)),
    "ellipsoid": lambda: Ellipsoid(1.0, 0.6, 0.4, center=(0.2, -0.1, 0.05)),
    "torus": lambda: Torus(1.3, 0.3),
    "cylinder": lambda: Cylinder(0.45, 1.1),
    "bezier": lambda: BezierPatch(smooth_net(4, 5, 1)),
    "bspline": _bspline,
    "nurbs": _nurbs,
    "cam": _cam,
    "symbolic_unbounded": _symbolic_unbounded,
    "symbolic_ellipsoid": _symbolic_ellipsoid,
}


@functools.cache
def case(name):
    """(original, spec, rebuilt through JSON), built once per test session."""
    s = CASES[name]()
    spec = surface_to_spec(s)
    return s, spec, surface_from_spec(json.loads(json.dumps(spec, allow_nan=False)))


def _walk(x, path="spec"):
    """Every leaf of a spec with its path."""
    if isinstance(x, dict):
        for k, v in x.items():
            assert type(k) is str, f"{path}: key {k!r} is not a str"
            yield from _walk(v, f"{path}[{k!r}]")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, x


@pytest.mark.parametrize("name", sorted(CASES))
def test_spec_holds_plain_json_types_only(name):
    s, spec, _ = case(name)
    assert spec["kind"] == type(s).__name__
    for path, leaf in _walk(spec):
        # exact types: numpy scalars subclass float/int but are not plain JSON values
        assert type(leaf) in (float, int, bool, str, type(None)), f"{path} is {type(leaf)!r}"
        if type(leaf) is float:
            assert math.isfinite(leaf), path
    assert json.loads(json.dumps(spec, allow_nan=False)) == spec


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip_rebuilds_the_same_surface(name):
    s, _, r = case(name)
    assert type(r) is type(s)
    assert repr(r) == repr(s)
    assert (r.n_charts, r.is_convex, r.is_closed) == (s.n_charts, s.is_convex, s.is_closed)
    for chart in range(s.n_charts):
        a, b = s.domain(chart), r.domain(chart)
        # bit-identical on purpose: a save/load round trip (repr of floats) reproduces the surface
        assert np.array_equal(a.lower, b.lower) and np.array_equal(a.upper, b.upper)
        assert (a.periodic, a.singular_u, a.singular_v) == (b.periodic, b.singular_u, b.singular_v)


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip_derivatives_agree_in_every_chart(name):
    s, _, r = case(name)
    rng = np.random.default_rng(sorted(CASES).index(name))
    for chart in range(s.n_charts):
        for u, v in random_params(s, chart, rng, 20):
            for order in (2, 3):
                D0 = s.derivatives(u, v, order=order, chart=chart)
                D1 = r.derivatives(u, v, order=order, chart=chart)
                # bit-identical on purpose: a save/load round trip reproduces the surface
                assert np.array_equal(D0, D1), (chart, u, v, order)


@pytest.mark.parametrize("name", sorted(CASES))
def test_spec_of_rebuilt_surface_is_the_same(name):
    _, spec, r = case(name)
    assert surface_to_spec(r) == spec


def test_nurbs_spec_keeps_knots_net_and_weights():
    s, spec, r = case("nurbs")
    assert set(spec) == {"kind", "knots_u", "knots_v", "degree_u", "degree_v", "control_points",
                         "weights", "periodic_u", "periodic_v", "closed", "convex"}
    assert (spec["degree_u"], spec["degree_v"]) == (3, 3)
    W = np.array(spec["weights"])
    assert W.shape == (6, 6) and not np.allclose(W, 1.0)
    for a, b in [(s.knots[0], r.knots[0]), (s.knots[1], r.knots[1]),
                 (s.control_points, r.control_points), (s.weights, r.weights)]:
        # bit-identical on purpose: a save/load round trip reproduces the data
        assert np.array_equal(a, b)
    assert case("bspline")[1]["weights"] is None and case("bspline")[2].weights is None


def test_periodic_interpolated_bspline_is_saved_by_its_net_not_reinterpolated():
    s, spec, r = case("cam")
    assert spec["kind"] == "BSplineSurface" and spec["periodic_u"] is True
    assert spec["periodic_v"] is False
    # bit-identical on purpose: the spec stores floats by repr
    assert np.array_equal(np.array(spec["knots_u"]), s.knots[0])
    assert np.array_equal(np.array(spec["control_points"]), s.control_points)
    assert r.domain(0).periodic == (True, False)


def test_plane_specs():
    """A plane is saved by its constructor's arguments as given (`Plane.inputs`)."""
    _, spec, _ = case("plane_unbounded")
    assert spec["extent"] is None and spec["u_axis"] is None
    assert spec["normal"] == [1.0, 2.0, 2.0]                     # not normalized
    s, spec, r = case("plane_bounded")
    assert spec["extent"] == [[-1.0, 2.0], [-0.5, 0.75]]
    rng = np.random.default_rng(4)
    assert spec["point"] == rng.normal(size=3).tolist() and spec["normal"] == rng.normal(size=3).tolist()
    s, spec, r = case("plane_explicit_axis")
    # bit-identical on purpose: a save/load round trip reproduces the data
    assert np.array_equal(r.plane_normal, s.plane_normal) and np.array_equal(r.u_axis, s.u_axis)
    _, spec, r = case("plane_from_pose")
    assert spec["kind"] == "Plane"
    assert np.allclose(r.u_axis, _pose(7)[:3, 0], rtol=0.0, atol=1e-15)
    assert np.allclose(r.plane_normal, _pose(7)[:3, 2], rtol=0.0, atol=1e-15)
    assert np.allclose(r.origin, _pose(7)[:3, 3], rtol=0.0, atol=0.0)


def test_infinite_domain_bounds_are_written_as_strings():
    _, spec, r = case("symbolic_unbounded")
    dom = spec["domain"]
    assert dom["lower"] == ["-inf", -1.0] and dom["upper"] == ["inf", 1.5]
    assert "Infinity" not in json.dumps(spec)
    assert r.domain(0).lower[0] == -math.inf and r.domain(0).upper[0] == math.inf


def test_symbolic_spec_is_readable_and_its_floats_exact():
    s, spec, r = case("symbolic_unbounded")
    assert (spec["u"], spec["v"]) == ("u", "v") and "assumptions" not in spec
    text = " ".join(spec["expr"])
    assert "0.01*u**2" in text and "0.30000000000000004" in text and "u**2" in text
    assert "Symbol(" not in text                          # str form, not srepr
    assert "precision=103" in text                        # the 30-digit Float keeps its bits
    for a, b in zip(s.expr, r.expr):
        assert a == b                                     # structurally identical
    floats = sorted(r.expr.atoms(sp.Float), key=float)
    assert sorted(f._prec for f in floats) == [53, 53, 103]
    assert {float(f) for f in floats} >= {0.01, 0.1 + 0.2}


def test_symbolic_spec_keeps_symbol_names_assumptions_and_flags():
    s, spec, r = case("symbolic_ellipsoid")
    assert (spec["u"], spec["v"]) == ("theta", "phi")
    assert spec["assumptions"] == {"theta": {"real": True}, "phi": {"real": True}}
    assert spec["closed"] is True and spec["convex"] is True
    assert spec["domain"]["periodic"] == [True, False]
    assert spec["domain"]["singular_v"] == [-HALF_PI, HALF_PI]
    assert r.symbols == s.symbols and r.symbols[0].is_real


def _round_trip(surface):
    spec = surface_to_spec(surface)
    return spec, surface_from_spec(json.loads(json.dumps(spec, allow_nan=False)))


def test_symbolic_fallbacks_srepr_and_unevaluated_input():
    dom = ParameterDomain((0.5, -1.0), (2.0, 1.0))
    odd, v = sp.Symbol("x y"), sp.Symbol("v")          # a name that str() cannot read back
    s = SymbolicSurface([odd, v, odd * v], odd, v, dom)
    spec, r = _round_trip(s)
    assert spec["u"] == "x y" and spec["expr"][0] == "Symbol('x y')"
    assert all(a == b for a, b in zip(s.expr, r.expr)) and r.symbols == s.symbols
    u = sp.Symbol("u")
    s = SymbolicSurface([sp.Add(u, u, evaluate=False), v, 0.1 * u], u, v, dom)
    spec, r = _round_trip(s)
    assert spec["expr"][0] == "u + u" and r.expr[0] == 2 * u     # read back evaluated
    for uv in random_params(s, 0, np.random.default_rng(3), 20):
        # bit-identical on purpose: a save/load round trip reproduces the surface
        assert np.array_equal(s.derivatives(*uv, order=3), r.derivatives(*uv, order=3))


def test_optional_keys_default_to_the_constructor_defaults():
    assert repr(surface_from_spec({"kind": "Plane"})) == repr(Plane())
    assert repr(surface_from_spec({"kind": "Sphere", "radius": 0.5})) == repr(Sphere(0.5))
    P = smooth_net(3, 3, 5)
    spec = {"kind": "BSplineSurface", "knots_u": [0, 0, 0, 1, 1, 1], "knots_v": [0, 0, 1, 1.0],
            "degree_u": 2, "degree_v": 1, "control_points": P[:, :2].tolist()}
    r = surface_from_spec(spec)
    assert r.weights is None and r.domain(0).periodic == (False, False) and not r.is_convex


def test_hand_written_symbolic_spec_loads():
    text = """{"kind": "SymbolicSurface", "expr": ["u", "v", "0.01*u**2 + v**2/2"],
               "u": "u", "v": "v", "domain": {"lower": ["-inf", -1.0], "upper": ["inf", 1]}}"""
    s = surface_from_spec(json.loads(text))
    assert s.derivatives(3.0, 0.5, order=2)[0, 0].tolist() == [3.0, 0.5, 0.01 * 9.0 + 0.125]
    assert s.derivatives(3.0, 0.5, order=2)[2, 0].tolist() == [0.0, 0.0, 0.02]
    assert s.domain(0).periodic == (False, False) and not s.is_closed


# -------------------------------------------------------------------------- errors

SPHERE = {"kind": "Sphere", "radius": 0.5, "center": [0.0, 0.0, 0.0]}


def _symbolic_spec(**changes):
    spec = json.loads(json.dumps(case("symbolic_unbounded")[1]))
    for key, value in changes.items():
        if value is None:
            del spec[key]
        else:
            spec[key] = value
    return spec


@pytest.mark.parametrize("spec, match", [
    ({"kind": "Elipsoid", "a": 1.0, "b": 1.0, "c": 1.0},
     r"unknown surface kind 'Elipsoid'; did you mean 'Ellipsoid'\? \(known kinds: BSplineSurface, "
     r"BezierPatch, Cylinder, Ellipsoid, PatchNetwork, Plane, Sphere, SymbolicSurface, Torus\)"),
    ({"kind": "Banana"}, r"unknown surface kind 'Banana' \(known kinds: .*Torus\)"),
    ({"radius": 1.0}, r"unknown surface kind None"),
    ([1.0], r"a surface spec must be a dict with a 'kind' key, got list"),
    ({"kind": "Sphere"}, r"surface spec of kind 'Sphere' is missing the key 'radius' "
                         r"\(required: radius; optional: center\)"),
    ({"kind": "Torus", "R": 1.0}, r"kind 'Torus' is missing the key 'r'"),
    ({**SPHERE, "radios": 2.0}, r"surface spec of kind 'Sphere' has the unknown key 'radios'; "
                                r"did you mean 'radius'\?"),
    ({**SPHERE, "colour": "red"}, r"kind 'Sphere' has the unknown key 'colour' \(required"),
    ({**SPHERE, "radius": -1.0}, r"surface spec of kind 'Sphere': `radius` must be > 0, got -1.0"),
    ({"kind": "Torus", "R": 1.0, "r": 1.5}, r"kind 'Torus': a ring torus needs `r` < `R`"),
    ({**SPHERE, "center": [0.0, 0.0]}, r"kind 'Sphere': `center` must have shape \(3,\)"),
    ({"kind": "Plane", "normal": [0.0, 0.0, 0.0]}, r"kind 'Plane': `normal` must be nonzero"),
    ({"kind": "BSplineSurface", "knots_u": [0, 0, 1], "knots_v": [0, 0, 1, 1], "degree_u": 1,
      "degree_v": 1, "control_points": smooth_net(2, 2, 0).tolist()},
     r"kind 'BSplineSurface': `knots_u` must have length"),
    ({"kind": "BSplineSurface", "knots_u": [0, 0, 1, 1], "knots_v": [0, 0, 1, 1], "degree_u": 1.0,
      "degree_v": 1, "control_points": smooth_net(2, 2, 0).tolist()},
     r"kind 'BSplineSurface': `degree_u` must be an integer >= 1, got 1.0"),
    ({"kind": "BSplineSurface", "knots_u": [0, 0, 1, 1], "knots_v": [0, 0, 1, 1], "degree_u": 1,
      "degree_v": 1, "control_points": smooth_net(2, 2, 0).tolist(), "periodic_u": "false"},
     r"kind 'BSplineSurface': key 'periodic_u' must be true or false, got 'false'"),
])
def test_bad_specs_are_refused(spec, match):
    with pytest.raises(SerializationError, match=match):
        surface_from_spec(spec)


def test_constructor_error_is_chained():
    with pytest.raises(SerializationError) as info:
        surface_from_spec({**SPHERE, "radius": 0.0})
    assert isinstance(info.value.__cause__, ParameterError)


@pytest.mark.parametrize("changes, match", [
    (dict(domain=None), r"kind 'SymbolicSurface' is missing the key 'domain'"),
    (dict(exp=["u", "v", "u"]), r"kind 'SymbolicSurface' has the unknown key 'exp'; did you mean 'expr'"),
    (dict(expr=["u", "v", "u +* v"]), r"key 'expr'\[2\]: cannot parse 'u \+\* v'"),
    (dict(expr="u, v, u*v"), r"key 'expr': expected a list of 3 strings"),
    (dict(expr=["u", "v", "u + w"]), r"kind 'SymbolicSurface': `expr` may depend only on u and v; "
                                     r"substitute values for: w"),
    (dict(expr=["u", "v"]), r"kind 'SymbolicSurface': `expr` must be a 3-vector"),
    (dict(domain={"lower": ["-infinity", -1.0], "upper": ["inf", 1.0]}),
     r"key 'domain.lower': a bound is a number, \"inf\" or \"-inf\", got '-infinity'"),
    (dict(domain={"lower": [0.0, 1.0], "upper": [1.0, 0.0]}), r"key 'domain': domain needs lower < upper"),
    (dict(domain={"lower": [0.0, 0.0], "upper": [1.0, 1.0], "periodc": [True, False]}),
     r"kind 'SymbolicSurface' \(key 'domain'\) has the unknown key 'periodc'; did you mean 'periodic'"),
    (dict(domain={"upper": [1.0, 1.0]}), r"\(key 'domain'\) is missing the key 'lower'"),
    (dict(domain={"lower": [0.0, 0.0], "upper": [1.0, 1.0], "periodic": ["yes", False]}),
     r"key 'domain.periodic': expected two booleans"),
    (dict(convex=1), r"key 'convex' must be true or false, got 1"),
    (dict(u=3), r"symbol names must be strings"),
    (dict(assumptions={"w": {"real": True}}), r"key 'assumptions': expected a dict from the symbol names"),
])
def test_bad_symbolic_specs_are_refused(changes, match):
    with pytest.raises(SerializationError, match=match):
        surface_from_spec(_symbolic_spec(**changes))


class MySphere(Sphere):
    pass


class Paraboloid(Surface):
    def __init__(self):
        self._domains = (ParameterDomain((-1.0, -1.0), (1.0, 1.0)),)

    def _derivatives(self, u, v, order, chart):
        D = np.zeros((order + 1, order + 1, 3))
        D[0, 0] = (u, v, u * u + v * v)
        return D


@pytest.mark.parametrize("surface, name", [
    (MySphere(1.0), r"MySphere"), (Paraboloid(), r"Paraboloid"), ("a sphere", r"builtins\.str"),
])
def test_unsupported_surfaces_are_refused_on_save(surface, name):
    with pytest.raises(SerializationError, match=rf"cannot save a surface of class .*{name}: only the "
                                                 r"built-in kinds \(Plane, .*\) and SymbolicSurface "
                                                 r"are saved"):
        surface_to_spec(surface)
