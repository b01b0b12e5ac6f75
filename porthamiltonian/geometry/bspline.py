"""Tensor-product B-spline and NURBS surfaces of any degree, and interpolation of point grids."""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_array
from ..errors import GeometryError, ParameterError
from ._bspline_basis import basis_derivatives, find_span
from ._compiled import CompiledSurface
from .domain import ParameterDomain

__all__ = ["BSplineSurface"]


def _check_degree(value, name) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"`{name}` must be an integer >= 1, got {value!r}")
    return int(value)


def _check_knots(knots, degree: int, n_ctrl: int, name: str) -> np.ndarray:
    """Validate a knot vector: length, order, multiplicities, nonempty domain."""
    t = as_array(knots, name, (None,))
    want = n_ctrl + degree + 1
    if t.shape[0] != want:
        raise ParameterError(f"`{name}` must have length n_ctrl + degree + 1 = "
                             f"{n_ctrl} + {degree} + 1 = {want}, got {t.shape[0]}")
    drops = np.nonzero(np.diff(t) < 0.0)[0]
    if drops.size:
        i = int(drops[0])
        raise ParameterError(f"`{name}` must be non-decreasing, got "
                             f"{name}[{i + 1}] = {float(t[i + 1])!r} < {name}[{i}] = {float(t[i])!r}")
    lo, hi = float(t[degree]), float(t[n_ctrl])
    if not lo < hi:
        raise ParameterError(f"`{name}` spans an empty domain [{lo!r}, {hi!r}] = "
                             f"[{name}[{degree}], {name}[{n_ctrl}]]")
    values, counts = np.unique(t, return_counts=True)
    for x, m in zip(values.tolist(), counts.tolist()):
        if lo < x < hi and m > degree:
            raise ParameterError(f"interior knot {x!r} of `{name}` has multiplicity {m} > degree "
                                 f"{degree}: the surface would be discontinuous there")
        if m > degree + 1:
            raise ParameterError(f"knot {x!r} of `{name}` has multiplicity {m} > degree + 1 = "
                                 f"{degree + 1}")
    return t


def _span_data(t: np.ndarray, degree: int, n_ctrl: int):
    """Breakpoints of the domain, knot-span indices and Taylor matrices of every span.

    ``T[s, c, a]`` is the coefficient of ``((x - mid_s) / h_s)^c`` in the basis function
    ``N_{i_s - p + a, p}`` on span s: ``d^c N / dx^c (mid_s) h_s^c / c!`` (Piegl & Tiller A2.3).
    """
    edges = np.unique(t[degree:n_ctrl + 1])
    spans, taylor = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        mid, h = 0.5 * (a + b), b - a
        i = find_span(t, degree, mid)
        ders = basis_derivatives(t, degree, i, mid, degree)
        scale = np.array([h ** c / math.factorial(c) for c in range(degree + 1)])
        spans.append(i)
        taylor.append(ders * scale[:, None])
    return edges, spans, np.array(taylor)


def _chord_parameters(points: np.ndarray, axis: int, closed: bool) -> np.ndarray:
    """Averaged chord-length parameters in [0, 1] along `axis` of a (m, n, 3) grid
    (Piegl & Tiller eq. 9.5 averaged over the rows); ``m + 1`` values when `closed`."""
    P = np.moveaxis(points, axis, 0)
    if closed:
        P = np.concatenate((P, P[:1]), axis=0)
    chords = np.linalg.norm(np.diff(P, axis=0), axis=-1)        # (m-1, n)
    total = chords.sum(axis=0)
    use = total > 0.0
    if not np.any(use):
        raise GeometryError(f"cannot parametrize the grid along axis {axis}: all points coincide")
    cum = np.vstack((np.zeros((1, int(use.sum()))), np.cumsum(chords[:, use], axis=0))) / total[use]
    params = cum.mean(axis=1)
    if not np.all(np.diff(params) > 0.0):
        raise GeometryError(f"cannot parametrize the grid along axis {axis}: consecutive rows "
                            f"coincide")
    params[-1] = 1.0
    return params


class BSplineSurface(CompiledSurface):
    """Tensor-product B-spline surface, rational (NURBS) when `weights` are given.

    Parameters
    ----------
    knots_u, knots_v : array_like, shape (n_u + p + 1,), (n_v + q + 1,)
        Non-decreasing knot vectors. Clamped vectors (end multiplicity degree + 1) give the
        usual open surfaces; general (e.g. periodic) vectors are accepted too, the domain
        being ``[knots[p], knots[n_ctrl]]``.
    degree_u, degree_v : int
        Degrees ``p, q >= 1``.
    control_points : array_like, shape (n_u, n_v, 3)
        Control net [m].
    weights : array_like, shape (n_u, n_v), optional
        Positive weights; ``None`` for a polynomial B-spline.
    periodic_u, periodic_v : bool
        Declare a direction periodic: parameters are wrapped. The surface must close with
        continuous derivatives up to order ``min(degree - 1, 3)`` (checked).
    closed : bool
        Declare that the surface bounds a solid (not checked).
    convex : bool
        Declare the surface absolutely convex; checked (``k2 > 0``) on a 12 x 12 sample of
        regular interior points.

    Raises
    ------
    ParameterError
        Bad degree, knot vector (length, order, multiplicity), control net or weights, or a
        periodic direction that does not close.
    GeometryError
        If `convex` is declared but a sampled principal curvature is not positive.

    Notes
    -----
    ``f(u, v) = sum_ij N_ip(u) N_jq(v) w_ij P_ij / sum_ij N_ip(u) N_jq(v) w_ij``.
    Basis derivatives by Piegl & Tiller, The NURBS Book, A2.3, evaluated once per span to
    build a local Taylor form (`porthamiltonian.kernels.surfaces`, kind PIECEWISE); rational derivatives by the Leibniz rule on
    ``f = A / w`` (equivalent to A4.4). Interior knots may have multiplicity at most the
    degree (the surface stays continuous); derivatives are one-sided (right-continuous)
    on knot lines. The bounding box is the hull of the control net (conservative).
    Material side: ``f_u x f_v`` points out of the material.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.zeros((2, 2, 3)); P[1, :, 0] = 1.0; P[:, 1, 1] = 1.0
    >>> s = BSplineSurface([0, 0, 1, 1], [0, 0, 1, 1], 1, 1, P)
    >>> s.point(0.25, 0.5).tolist()
    [0.25, 0.5, 0.0]
    """

    def __init__(self, knots_u, knots_v, degree_u, degree_v, control_points, weights=None, *,
                 periodic_u=False, periodic_v=False, closed=False, convex=False):
        p = _check_degree(degree_u, "degree_u")
        q = _check_degree(degree_v, "degree_v")
        P = as_array(control_points, "control_points", (None, None, 3))
        n_u, n_v = P.shape[:2]
        if n_u < p + 1 or n_v < q + 1:
            raise ParameterError(f"`control_points` needs at least (degree_u + 1, degree_v + 1) = "
                                 f"({p + 1}, {q + 1}) points, got shape {P.shape}")
        tu = _check_knots(knots_u, p, n_u, "knots_u")
        tv = _check_knots(knots_v, q, n_v, "knots_v")
        if weights is None:
            W = None
            Pw = P
        else:
            W = as_array(weights, "weights", (n_u, n_v))
            if not np.all(W > 0.0):
                i, j = np.unravel_index(int(np.argmin(W)), W.shape)
                raise ParameterError(f"`weights` must be > 0, got {float(W[i, j])!r} "
                                     f"at index ({i}, {j})")
            Pw = np.concatenate((P * W[..., None], W[..., None]), axis=-1)
        dim = Pw.shape[-1]
        edges_u, spans_u, Tu = _span_data(tu, p, n_u)
        edges_v, spans_v, Tv = _span_data(tv, q, n_v)
        coeffs = np.empty((len(spans_u), len(spans_v), p + 1, (q + 1) * dim))
        for a, iu in enumerate(spans_u):
            rows = np.einsum("ca,ajk->cjk", Tu[a], Pw[iu - p:iu + 1])
            for b, iv in enumerate(spans_v):
                block = np.einsum("db,cbk->cdk", Tv[b], rows[:, iv - q:iv + 1])
                coeffs[a, b] = block.reshape(p + 1, (q + 1) * dim)
        self._rational = W is not None
        self._degrees = (p, q)
        self._knots = (tu, tv)
        self._P, self._W = P, W
        for arr in (tu, tv, P) + (() if W is None else (W,)):
            arr.flags.writeable = False
        self._domains = (ParameterDomain((edges_u[0], edges_v[0]), (edges_u[-1], edges_v[-1]),
                                         (bool(periodic_u), bool(periodic_v))),)
        # closure is checked without wrapping, then the periodic directions wrap
        self._init_piecewise(edges_u, edges_v, p, q, coeffs, dim)
        for k, (flag, deg) in enumerate(((periodic_u, p), (periodic_v, q))):
            if flag:
                self._check_closes(k, deg)
        self._init_piecewise(edges_u, edges_v, p, q, coeffs, dim, wrap=(bool(periodic_u), bool(periodic_v)))
        self.is_closed = bool(closed)
        self.is_convex = False
        if convex:
            self._verify_convex()
            self.is_convex = True

    def _check_closes(self, k: int, degree: int) -> None:
        """Derivatives up to ``min(degree - 1, 3)`` must agree on the two ends of direction k."""
        name = "uv"[k]
        dom = self._domains[0]
        lo, hi = float(dom.lower[k]), float(dom.upper[k])
        order = min(degree - 1, 3)
        scale = float(np.ptp(self._P.reshape(-1, 3), axis=0).max()) or 1.0
        for s in np.linspace(dom.lower[1 - k], dom.upper[1 - k], 7):
            pair = [(x, s) if k == 0 else (s, x) for x in (lo, hi)]
            D0, D1 = (self._derivatives(x, y, order, 0) for x, y in pair)
            for o in range(order + 1):
                gap = max(float(np.abs(D0[i, o - i] - D1[i, o - i]).max()) for i in range(o + 1))
                size = max(float(np.abs(D0[i, o - i]).max()) for i in range(o + 1)) + scale
                if gap > 1e-9 * size:
                    raise ParameterError(
                        f"`periodic_{name}` is True but the surface does not close: derivatives of "
                        f"order {o} differ by {gap:.3g} between {name} = {lo!r} and "
                        f"{name} = {hi!r} "
                        f"(a periodic B-spline needs a periodic knot vector and its first "
                        f"degree_{name} control rows repeated at the end)")

    @classmethod
    def interpolate(cls, points, degree_u: int = 3, degree_v: int = 3, *, periodic_u: bool = False,
                    u_params=None, v_params=None, closed: bool = False,
                    convex: bool = False) -> "BSplineSurface":
        """B-spline surface through a grid of points (tensor-product interpolation).

        Parameters
        ----------
        points : array_like, shape (m, n, 3)
            Data grid [m]; row ``points[i]`` is the curve at parameter ``u_params[i]``.
            With `periodic_u`, the surface closes from the last row back to the first (do not
            repeat the first row).
        degree_u, degree_v : int
            Degrees (``m > degree_u``, ``n > degree_v``).
        periodic_u : bool
            Closed in u with ``C^(degree_u - 1)`` continuity across the seam (e.g. a cam).
        u_params : array_like, optional
            Strictly increasing parameters of the rows, shape (m,), or shape (m + 1,) with
            the closing parameter last when `periodic_u` (e.g. ``linspace(0, 2 pi, m + 1)``
            for a cam angle). Default: averaged chord length in [0, 1].
        v_params : array_like, shape (n,), optional
            Parameters of the columns; default averaged chord length in [0, 1].
        closed, convex : bool
            Passed to the constructor.

        Returns
        -------
        BSplineSurface
            Polynomial B-spline with ``f(u_params[i], v_params[j]) = points[i, j]``.

        Raises
        ------
        ParameterError
            Bad shapes, degrees, or parameters that are not strictly increasing.
        GeometryError
            If default parameters cannot be computed (coincident rows).

        Notes
        -----
        Successive 1-D interpolation with `scipy.interpolate.make_interp_spline` (knots by
        scipy's rule; periodic boundary conditions when `periodic_u`): first along u for every
        column, then along v for the resulting control rows.
        """
        from scipy.interpolate import make_interp_spline

        X = as_array(points, "points", (None, None, 3))
        p = _check_degree(degree_u, "degree_u")
        q = _check_degree(degree_v, "degree_v")
        m, n = X.shape[:2]
        if m <= p or n <= q:
            raise ParameterError(f"`points` needs more than (degree_u, degree_v) = ({p}, {q}) "
                                 f"points per direction, got shape {X.shape}")
        if u_params is None:
            su = _chord_parameters(X, 0, periodic_u)
        else:
            su = as_array(u_params, "u_params", (m + 1 if periodic_u else m,))
        if v_params is None:
            sv = _chord_parameters(X, 1, False)
        else:
            sv = as_array(v_params, "v_params", (n,))
        for name, s in (("u_params", su), ("v_params", sv)):
            if not np.all(np.diff(s) > 0.0):
                raise ParameterError(f"`{name}` must be strictly increasing, got {s.tolist()}")
        Y = np.concatenate((X, X[:1]), axis=0) if periodic_u else X
        spl_u = make_interp_spline(su, Y, k=p, bc_type="periodic" if periodic_u else None, axis=0)
        spl_v = make_interp_spline(sv, spl_u.c, k=q, axis=1)
        # scipy keeps the interpolation axis first in `c`
        return cls(spl_u.t, spl_v.t, p, q, np.moveaxis(spl_v.c, 0, 1), periodic_u=periodic_u,
                   closed=closed, convex=convex)

    @property
    def degrees(self) -> tuple[int, int]:
        """Degrees ``(p, q)``."""
        return self._degrees

    @property
    def knots(self) -> tuple[np.ndarray, np.ndarray]:
        """Knot vectors ``(knots_u, knots_v)`` (read-only)."""
        return self._knots

    @property
    def control_points(self) -> np.ndarray:
        """Control net, shape (n_u, n_v, 3) [m] (read-only)."""
        return self._P

    @property
    def weights(self) -> np.ndarray | None:
        """Weights, shape (n_u, n_v), or None for a polynomial surface (read-only)."""
        return self._W

    def __repr__(self) -> str:
        kind = "NURBS" if self._rational else "polynomial"
        return (f"BSplineSurface(degrees={self._degrees}, control net {self._P.shape[:2]}, {kind}, "
                f"periodic={self._domains[0].periodic})")

    def _bounding_box(self):
        flat = self._P.reshape(-1, 3)
        return np.array((flat.min(axis=0), flat.max(axis=0)))
