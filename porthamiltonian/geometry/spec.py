"""Surfaces as plain JSON-compatible dicts ("specs"), for human-readable model files.

`surface_to_spec` writes a surface as a dict with a ``"kind"`` key (the class name) and its
constructor parameters by name, in JSON types only (floats, ints, bools, strings, null and
nested lists), so that ``json.dumps`` works on it and a human can read and edit it;
`surface_from_spec` rebuilds the surface by calling the constructor again. Floats are kept
as Python floats, which ``json`` writes with full precision (repr), so the rebuilt surface
is the same mathematical object, evaluated bit for bit like the original (except sympy
expressions built with ``evaluate=False``, below). Only the built-in kinds and `SymbolicSurface` can be saved.

One line per kind (keys in brackets are optional on load, with the constructor's default;
`surface_to_spec` always writes them):

- ``Plane``: [point] (3,), [normal] (3,), [u_axis] (3,) or null (the default axis), [extent]
  ((2, 2) or null for an unbounded plane), as given to the constructor (`Plane.inputs`);
  `Plane.from_pose` planes are saved as the plain planes it builds.
- ``Sphere``: radius, [center] (3,).
- ``Ellipsoid``: a, b, c, [center] (3,).
- ``Torus``: R, r.
- ``Cylinder``: radius, half_length.
- ``BezierPatch``: control_points (p+1, q+1, 3).
- ``PatchNetwork``: patches (a list of control nets (p+1, q+1, 3)), [tol], [normal_tol],
  [closed], [convex].
- ``BSplineSurface``: knots_u, knots_v, degree_u, degree_v, control_points (n_u, n_v, 3),
  [weights] ((n_u, n_v) for NURBS, null for polynomial), [periodic_u], [periodic_v],
  [closed], [convex]. Surfaces from `BSplineSurface.interpolate` are saved by their knots and
  control net, not re-interpolated.
- ``SymbolicSurface``: expr (3 strings), u and v (the symbol names), domain (a dict: lower,
  upper, [periodic], [singular_u], [singular_v]), [closed], [convex], and [assumptions]
  (written only when a symbol has some, e.g. ``{"u": {"real": true}}``).

Expressions are written with ``str``-like printing in which every float is the shortest
decimal that reads back as the same double (``0.01``, ``0.30000000000000004``); on load,
decimal literals are read as doubles (53-bit sympy Floats), floats of other precisions are
written as ``Float('...', precision=p)``. An expression that does not read back identical
(structurally) is written with ``sympy.srepr`` instead if that reads back identical, else
in the readable form if that reads back mathematically equal (``sympy.simplify(a - b) == 0``:
expressions built with ``evaluate=False`` are read back evaluated). Loading evaluates
these strings with `sympy.parsing.sympy_parser.parse_expr`: load only files you trust.

JSON has no infinity in strict mode: infinite bounds of a `ParameterDomain` (an unbounded
symbolic chart) are written as the strings ``"inf"`` and ``"-inf"`` and read back.

Examples
--------
>>> import json
>>> from porthamiltonian.geometry import Ellipsoid
>>> spec = surface_to_spec(Ellipsoid(1.0, 0.6, 0.4, center=(0.0, 0.0, 0.1)))
>>> json.dumps(spec)
'{"kind": "Ellipsoid", "a": 1.0, "b": 0.6, "c": 0.4, "center": [0.0, 0.0, 0.1]}'
>>> surface_from_spec(json.loads(json.dumps(spec)))
Ellipsoid(a=1.0, b=0.6, c=0.4, center=(0.0, 0.0, 0.1))

A symbolic surface (a paraboloid over an unbounded strip)::

    {"kind": "SymbolicSurface", "expr": ["u", "v", "0.01*u**2 + v**2/2"], "u": "u", "v": "v",
     "domain": {"lower": ["-inf", -1.0], "upper": ["inf", 1.0], "periodic": [false, false],
                "singular_u": [], "singular_v": []},
     "closed": false, "convex": false}
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from typing import Any, Callable, NamedTuple

import numpy as np
import sympy as sp
from sympy.parsing import sympy_parser as _parser
from sympy.printing.str import StrPrinter

from ..errors import SerializationError
from .bezier import BezierPatch
from .network import PatchNetwork
from .bspline import BSplineSurface
from .cylinder import Cylinder
from .domain import ParameterDomain
from .ellipsoid import Ellipsoid
from .plane import Plane
from .sphere import Sphere
from .surface import Surface
from .symbolic import SymbolicSurface
from .torus import Torus

__all__ = ["surface_to_spec", "surface_from_spec"]


class _Kind(NamedTuple):
    """How one surface class is written and read."""

    cls: type
    required: tuple[str, ...]
    optional: tuple[str, ...]
    to_params: Callable[[Any], dict]
    from_params: Callable[[dict], Surface]
    flags: tuple[str, ...] = ()        # keys that must be JSON booleans


# ------------------------------------------------------------------ analytic kinds

def _plane_params(s: Plane) -> dict:
    """The constructor's arguments as given (`Plane.inputs`), and the extent."""
    dom = s.domain(0)
    extent = (np.stack((dom.lower, dom.upper), axis=1).tolist() if dom.is_bounded else None)
    return {**s.inputs, "extent": extent}


def _sphere_params(s: Sphere) -> dict:
    return {"radius": float(s.radius), "center": s.center.tolist()}


def _ellipsoid_params(s: Ellipsoid) -> dict:
    a, b, c = (float(x) for x in s.axes)
    return {"a": a, "b": b, "c": c, "center": s.center.tolist()}


def _torus_params(s: Torus) -> dict:
    return {"R": float(s.R), "r": float(s.r)}


def _cylinder_params(s: Cylinder) -> dict:
    return {"radius": float(s.radius), "half_length": float(s.half_length)}


def _bezier_params(s: BezierPatch) -> dict:
    return {"control_points": s.control_points.tolist()}


def _network_params(s: PatchNetwork) -> dict:
    return {"patches": [p.control_points.tolist() for p in s.patches], "tol": s.tol, "normal_tol": s.normal_tol,
            "closed": bool(s.is_closed), "convex": bool(s.is_convex)}


def _bspline_params(s: BSplineSurface) -> dict:
    (p, q), (tu, tv), W = s.degrees, s.knots, s.weights
    periodic_u, periodic_v = s.domain(0).periodic
    return {"knots_u": tu.tolist(), "knots_v": tv.tolist(), "degree_u": int(p), "degree_v": int(q),
            "control_points": s.control_points.tolist(),
            "weights": None if W is None else W.tolist(),
            "periodic_u": bool(periodic_u), "periodic_v": bool(periodic_v),
            "closed": bool(s.is_closed), "convex": bool(s.is_convex)}


# --------------------------------------------------------------- symbolic surfaces

class _ExactPrinter(StrPrinter):
    """``str`` printing with floats that read back exactly through `_parse`."""

    def _print_Float(self, expr):
        if expr._prec == 53:
            return repr(float(expr))
        return sp.srepr(expr)


def _double_literals(tokens, local_dict, global_dict):
    """Parser transformation: decimal literals become 53-bit Floats (IEEE doubles), not
    Floats with as many digits as written (``sympify("0.30000000000000004")`` has 60 bits)."""
    out = []
    for toknum, tokval in tokens:
        if toknum == _parser.NUMBER and ("." in tokval or "e" in tokval.lower()) \
                and not tokval.lower().startswith("0x") and not tokval.lower().endswith("j"):
            out.extend([(_parser.NAME, "Float"), (_parser.OP, "("), (_parser.STRING, repr(tokval)),
                        (_parser.OP, ","), (_parser.NAME, "precision"), (_parser.OP, "="),
                        (_parser.NUMBER, "53"), (_parser.OP, ")")])
        else:
            out.append((toknum, tokval))
    return out


_TRANSFORMS = tuple(x for t in _parser.standard_transformations
                    for x in ((_double_literals, t) if t is _parser.auto_number else (t,)))


def _parse(text: str, symbols: dict):
    return _parser.parse_expr(text, local_dict=dict(symbols), transformations=_TRANSFORMS)


def _reads_back(text: str, symbols: dict, expr, identical: bool = True) -> bool:
    try:
        back = _parse(text, symbols)
        return back == expr if identical else sp.simplify(back - expr) == 0
    except Exception:      # any parse failure: this form does not read back
        return False


def _expr_text(expr, symbols: dict, where: str) -> str:
    """Readable text of `expr` that parses back to the identical expression; else its srepr if
    that does; else the readable text if it parses back to an equal expression (e.g. for
    ``evaluate=False`` input, which is read back evaluated)."""
    readable = _ExactPrinter().doprint(expr)
    for text in (readable, sp.srepr(expr)):
        if _reads_back(text, symbols, expr):
            return text
    if _reads_back(readable, symbols, expr, identical=False):
        return readable
    raise SerializationError(f"{where}: cannot write {expr} so that it reads back equal")


def _assumptions(sym: sp.Symbol) -> dict:
    """The assumptions a symbol was created with (``{}`` for a plain symbol)."""
    given = getattr(sym, "_assumptions_orig", None)
    given = sym.assumptions0 if given is None else given
    return {k: bool(v) for k, v in given.items() if not (k == "commutative" and v)}


def _bound(x: float):
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _domain_spec(d: ParameterDomain) -> dict:
    return {"lower": [_bound(x) for x in d.lower.tolist()],
            "upper": [_bound(x) for x in d.upper.tolist()],
            "periodic": [bool(p) for p in d.periodic],
            "singular_u": list(d.singular_u), "singular_v": list(d.singular_v)}


def _symbolic_params(s: SymbolicSurface) -> dict:
    u, v = s.symbols
    names = {u.name: u, v.name: v}
    params = {"expr": [_expr_text(e, names, f"{s!r}, component {i}") for i, e in enumerate(s.expr)],
              "u": u.name, "v": v.name, "domain": _domain_spec(s.domain(0)),
              "closed": bool(s.is_closed), "convex": bool(s.is_convex)}
    assumptions = {sym.name: a for sym in (u, v) if (a := _assumptions(sym))}
    if assumptions:
        params["assumptions"] = assumptions
    return params


_DOMAIN_KEYS = (("lower", "upper"), ("periodic", "singular_u", "singular_v"))
_WHERE = "surface spec of kind 'SymbolicSurface', key"


def _read_bounds(values, key: str) -> list:
    if not isinstance(values, list):
        raise SerializationError(f"{_WHERE} 'domain.{key}': expected a list of two bounds, "
                                 f"got {values!r}")
    out = []
    for x in values:
        if isinstance(x, str) and x not in ("inf", "-inf"):
            raise SerializationError(f"{_WHERE} 'domain.{key}': a bound is a number, \"inf\" or "
                                     f"\"-inf\", got {x!r}")
        out.append(float(x) if isinstance(x, str) else x)
    return out


def _read_domain(d) -> ParameterDomain:
    if not isinstance(d, Mapping):
        raise SerializationError(f"{_WHERE} 'domain': expected a dict, got {d!r}")
    _check_keys("SymbolicSurface", d, *_DOMAIN_KEYS, where=" (key 'domain')")
    periodic = d.get("periodic", [False, False])
    if not (isinstance(periodic, list) and all(isinstance(p, bool) for p in periodic)):
        raise SerializationError(f"{_WHERE} 'domain.periodic': expected two booleans, got "
                                 f"{periodic!r}")
    try:
        return ParameterDomain(_read_bounds(d["lower"], "lower"), _read_bounds(d["upper"], "upper"),
                               tuple(periodic), tuple(d.get("singular_u", ())),
                               tuple(d.get("singular_v", ())))
    except (ValueError, TypeError) as exc:
        raise SerializationError(f"{_WHERE} 'domain': {exc}") from exc


def _read_symbols(params) -> tuple[sp.Symbol, sp.Symbol]:
    names = (params["u"], params["v"])
    assumptions = params.get("assumptions", {})
    if not all(isinstance(n, str) for n in names):
        raise SerializationError(f"{_WHERE}s 'u', 'v': symbol names must be strings, got {names!r}")
    if not (isinstance(assumptions, Mapping) and set(assumptions) <= set(names)):
        raise SerializationError(f"{_WHERE} 'assumptions': expected a dict from the symbol names "
                                 f"{list(names)} to dicts of assumptions, got {assumptions!r}")
    return tuple(sp.Symbol(n, **assumptions.get(n, {})) for n in names)


def _read_expr(texts, symbols: dict) -> list:
    if not (isinstance(texts, list) and all(isinstance(t, str) for t in texts)):
        raise SerializationError(f"{_WHERE} 'expr': expected a list of 3 strings, got {texts!r}")
    out = []
    for i, text in enumerate(texts):
        try:
            out.append(_parse(text, symbols))
        except Exception as exc:      # parse_expr evaluates code: many kinds of errors
            raise SerializationError(f"{_WHERE} 'expr'[{i}]: cannot parse {text!r} "
                                     f"({type(exc).__name__}: {exc})") from exc
    return out


def _symbolic_from(params) -> SymbolicSurface:
    u, v = _read_symbols(params)
    expr = _read_expr(params["expr"], {u.name: u, v.name: v})
    return SymbolicSurface(expr, u, v, _read_domain(params["domain"]),
                           closed=params.get("closed", False), convex=params.get("convex", False))


# ---------------------------------------------------------------------- registry

def _call(cls):
    return lambda params: cls(**params)


_KINDS: dict[str, _Kind] = {
    "Plane": _Kind(Plane, (), ("point", "normal", "u_axis", "extent"), _plane_params, _call(Plane)),
    "Sphere": _Kind(Sphere, ("radius",), ("center",), _sphere_params, _call(Sphere)),
    "Ellipsoid": _Kind(Ellipsoid, ("a", "b", "c"), ("center",), _ellipsoid_params,
                       _call(Ellipsoid)),
    "Torus": _Kind(Torus, ("R", "r"), (), _torus_params, _call(Torus)),
    "Cylinder": _Kind(Cylinder, ("radius", "half_length"), (), _cylinder_params, _call(Cylinder)),
    "BezierPatch": _Kind(BezierPatch, ("control_points",), (), _bezier_params, _call(BezierPatch)),
    "PatchNetwork": _Kind(PatchNetwork, ("patches",), ("tol", "normal_tol", "closed", "convex"), _network_params,
                          _call(PatchNetwork), ("closed", "convex")),
    "BSplineSurface": _Kind(
        BSplineSurface, ("knots_u", "knots_v", "degree_u", "degree_v", "control_points"),
        ("weights", "periodic_u", "periodic_v", "closed", "convex"), _bspline_params,
        _call(BSplineSurface), ("periodic_u", "periodic_v", "closed", "convex")),
    "SymbolicSurface": _Kind(SymbolicSurface, ("expr", "u", "v", "domain"),
                             ("closed", "convex", "assumptions"), _symbolic_params, _symbolic_from,
                             ("closed", "convex")),
}


def _check_keys(kind: str, params, required, optional, where: str = "") -> None:
    """Every required key present, no unknown key (with a "did you mean")."""
    known = tuple(required) + tuple(optional)
    listing = (f"required: {', '.join(required) or '(none)'}; "
               f"optional: {', '.join(optional) or '(none)'}")
    for key in required:
        if key not in params:
            raise SerializationError(f"surface spec of kind {kind!r}{where} is missing the key "
                                     f"{key!r} ({listing})")
    for key in params:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise SerializationError(f"surface spec of kind {kind!r}{where} has the unknown key "
                                     f"{key!r}{hint} ({listing})")


def _check_flags(kind: str, params, flags) -> None:
    for key in flags:
        if key in params and not isinstance(params[key], bool):
            raise SerializationError(f"surface spec of kind {kind!r}: key {key!r} must be true or "
                                     f"false, got {params[key]!r}")


def surface_to_spec(surface: Surface) -> dict:
    """The JSON-compatible spec of a surface (see the module docstring for the format).

    Parameters
    ----------
    surface : Surface
        A built-in surface (`Plane`, `Sphere`, `Ellipsoid`, `Torus`, `Cylinder`,
        `BezierPatch`, `BSplineSurface`) or a `SymbolicSurface`, not a subclass of one.

    Returns
    -------
    dict
        ``{"kind": <class name>, <constructor parameter>: <value>, ...}`` with JSON types only
        (infinite domain bounds as the strings ``"inf"``/``"-inf"``).

    Raises
    ------
    SerializationError
        If the class is not one of these kinds, or a symbolic expression cannot be written
        so that it reads back identical.

    Examples
    --------
    >>> from porthamiltonian.geometry import Torus
    >>> surface_to_spec(Torus(2.0, 0.5))
    {'kind': 'Torus', 'R': 2.0, 'r': 0.5}
    """
    cls = type(surface)
    entry = _KINDS.get(cls.__name__)
    if entry is None or entry.cls is not cls:
        raise SerializationError(
            f"cannot save a surface of class {cls.__module__}.{cls.__qualname__}: only the "
            f"built-in kinds ({', '.join(k for k in _KINDS if k != 'SymbolicSurface')}) and "
            f"SymbolicSurface are saved (subclasses are not); write the surface as a "
            f"SymbolicSurface to save it")
    return {"kind": cls.__name__, **entry.to_params(surface)}


def surface_from_spec(spec: Mapping) -> Surface:
    """Rebuild a surface from its spec (`surface_to_spec`, possibly through JSON).

    Parameters
    ----------
    spec : dict
        ``{"kind": <class name>, ...}``; optional keys may be omitted (constructor defaults),
        infinite domain bounds may be written ``"inf"``/``"-inf"``.

    Returns
    -------
    Surface

    Raises
    ------
    SerializationError
        Unknown kind (with the nearest known one), a missing or unknown key, a flag that is
        not a boolean, an unparsable expression, or a value the constructor rejects (its
        message follows ``surface spec of kind X:``).

    Examples
    --------
    >>> surface_from_spec({"kind": "Sphere", "radius": 0.5})
    Sphere(radius=0.5, center=(0.0, 0.0, 0.0))
    """
    if not isinstance(spec, Mapping):
        raise SerializationError(f"a surface spec must be a dict with a 'kind' key, got "
                                 f"{type(spec).__name__}")
    kind = spec.get("kind")
    if not isinstance(kind, str) or kind not in _KINDS:
        close = difflib.get_close_matches(str(kind), list(_KINDS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SerializationError(f"unknown surface kind {kind!r}{hint} "
                                 f"(known kinds: {', '.join(sorted(_KINDS))})")
    entry = _KINDS[kind]
    params = {k: v for k, v in spec.items() if k != "kind"}
    _check_keys(kind, params, entry.required, entry.optional)
    _check_flags(kind, params, entry.flags)
    try:
        return entry.from_params(params)
    except SerializationError:
        raise
    except (ValueError, TypeError) as exc:     # ParameterError and GeometryError included
        raise SerializationError(f"surface spec of kind {kind!r}: {exc}") from exc
