"""Compiled evaluation of the built-in surfaces: derivatives, domains and chart maps.

A surface is packed once (``Surface._kernel_spec``) into an int array ``I`` and a float array
``F``; every kernel here takes ``(F, I, ...)`` and branches on the integer codes, so one
compiled function serves every built-in kind.

Layout::

    I = (kind, n_charts, atlas, basis_u, basis_v, shape)       (separable and callback kinds)
    F = (chart_switch_margin,
         per chart c, 12 floats at 1 + 12 c:
             lower_u, lower_v, upper_u, upper_v, periodic_u, periodic_v,
             singular_u (2, NaN-padded), singular_v (2, NaN-padded), ref_speed_u, ref_speed_v,
         per chart c, 27 floats at 1 + 12 n_charts + 27 c:
             C[a, b, k] (row-major 3x3x3): f_k(u, v) = sum_ab C[a, b, k] phi_a(u) psi_b(v))

Kinds:

- ``PIECEWISE``: tensor-product piecewise polynomials in local Taylor form on every span
  pair (Bezier patches, B-spline and NURBS surfaces, `porthamiltonian.geometry.bspline`)::

      F(u, v) = sum_{c, d} A[su, sv, c, d] t_u^c t_v^d,   t = (x - mid_s) / h_s

  ``I = (PIECEWISE, 1, ATLAS_SINGLE, p, q, n_spans_u, n_spans_v, dim, wrap_u, wrap_v)`` and,
  after the domain block, ``F`` holds the span edges in u (n_spans_u + 1), in v, then
  ``A`` (n_spans_u, n_spans_v, p+1, (q+1) dim) flattened. ``dim`` is 3, or 4 for rational
  surfaces in homogeneous coordinates ``(w x, w y, w z, w)`` (derivatives of the quotient by
  the Leibniz rule on ``x r`` with ``r = 1/w``). Parameters past the ends fall in the end
  spans (polynomial extrapolation); ``wrap_u``, ``wrap_v`` wrap periodic directions first.
- ``SEPARABLE``: ``f = phi(u)^T C psi(v)`` per component, with bases closed under
  differentiation, ``TRIG = (cos x, sin x, 1)`` or ``LINEAR = (x, 1, 0)``. Planes (linear x
  linear), ellipsoids and spheres, tori (trig x trig) and cylinders (trig x linear) are all
  of this form, so all their partial derivatives are ``d^i phi(u)^T C d^j psi(v)``.
  ``shape`` names the ones with closed-form contact points
  (`porthamiltonian.kernels.closest.closed_form`): `SHAPE_PLANE` (chart 0 holds
  ``C[0, 1] = e_u``, ``C[1, 0] = e_v``, ``C[1, 1] = point``, orthonormal axes),
  `SHAPE_ELLIPSOID` (``C[0, 0, 0] = a``, ``C[1, 0, 1] = b``, ``C[2, 1, 2] = c``,
  ``C[2, 2] = center`` in chart 0, the lat-long atlas), else `SHAPE_GENERAL`.

- ``TAPE``: a surface given by expressions (`porthamiltonian.geometry.SymbolicSurface`),
  its partial derivatives compiled once into straight-line instruction tapes, one per highest
  order 0..3, run by one interpreter (`_run_tape`) over a register file: registers 0 and 1
  hold ``u`` and ``v``. ``I = (TAPE, 1, ATLAS_SINGLE, 0, 0, SHAPE_GENERAL, n_registers,
  start_0, start_1, start_2, start_3, ...)``; the tape of order ``o`` starts at ``I[start_o]``
  with its instruction count, then ``TAPE_WIDTH`` ints per instruction ``(op, dst, a, b, c)``
  (codes `OP_*`; `OP_CONST` reads ``F[a]``, `OP_POWI` takes the integer exponent in ``b``),
  then ``3 (o+1)^2`` output registers of ``D[i, j, k]`` row-major (-1: zero). The constants
  follow the domain block in ``F``. The translation from sympy is
  `porthamiltonian.geometry.symbolic`; no new compile per surface.
- ``NETWORK``: a patch network (`porthamiltonian.geometry.PatchNetwork`): one chart per
  patch, each a self-contained ``PIECEWISE`` block on ``[0, 1]^2``.
  ``I = (NETWORK, n_charts, ATLAS_NETWORK, 0, 0, SHAPE_GENERAL,`` then per chart
  ``(f_offset, f_length, i_offset, i_length)`` of its block in ``F`` and ``I``, then per chart
  and side (0: ``u = 0``, 1: ``u = 1``, 2: ``v = 0``, 3: ``v = 1``) ``(neighbour chart or -1,
  neighbour side, reversed)``, then the blocks' ``I``); ``F`` holds the domain block, then
  the blocks' ``F``. The domain block's bounds are infinite, so that the Newton iteration is
  not clamped at a side: `best_chart` carries a point past a shared side into the neighbour
  (`network_hop`), past a boundary side the patch is extrapolated.
- ``CALLBACK``: a surface without a compiled evaluator (user subclasses of `Surface`, a
  symbolic surface using a function the tape lacks): only its domains are packed, for the
  kernels that work on derivative arrays evaluated in Python (`derivatives` must not be
  called on it).

Atlases: ``ATLAS_SINGLE`` (one chart), ``ATLAS_LATLONG`` (the two latitude-longitude charts
of `porthamiltonian.geometry.Ellipsoid`: chart 1 permutes the unit-sphere coordinates
cyclically, so chart maps go through the unit-sphere point and ``atan2``) and
``ATLAS_NETWORK`` (the patches of a network: maps only between neighbours, across their
shared side).
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit, separate
from . import borrow as _borrow

SEPARABLE = 0
PIECEWISE = 1
TAPE = 2
NETWORK = 3
CALLBACK = -1      # evaluated in Python (symbolic and user surfaces): only the domain is packed

TRIG = 0
LINEAR = 1

ATLAS_SINGLE = 0
ATLAS_LATLONG = 1
ATLAS_NETWORK = 2

SHAPE_GENERAL = 0
SHAPE_PLANE = 1
SHAPE_ELLIPSOID = 2

#: ints per chart of a network's block table, and per side of its neighbour table; hops
#: `network_hop` makes at most (a contact through a corner where several patches meet)
NETWORK_BLOCK = 4
NETWORK_SIDE = 3
MAX_HOPS = 8
#: `PatchNetwork.TRANSITION_DEPTH` [parameter units]
TRANSITION_DEPTH = 1e-7

#: floats per chart in the domain block, and per chart in the coefficient block
DOMAIN_SIZE = 12
COEF_SIZE = 27

#: instruction codes of the `TAPE` kind: ``(op, dst, a, b, c)``, operands are registers
#: except `OP_CONST` (``a`` indexes ``F``) and `OP_POWI` (``b`` is the integer exponent)
OP_CONST, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG, OP_POWI, OP_POW, OP_SQRT = range(9)
OP_SIN, OP_COS, OP_TAN, OP_EXP, OP_LOG, OP_ABS, OP_ASIN, OP_ACOS, OP_ATAN = range(9, 18)
OP_ATAN2, OP_SINH, OP_COSH, OP_TANH, OP_MIN, OP_MAX, OP_SIGN = range(18, 25)
#: comparisons and logic give 1.0 or 0.0; `OP_SELECT` is ``a if reg[c] != 0 else b``
OP_LT, OP_LE, OP_EQ, OP_NE, OP_AND, OP_OR, OP_NOT, OP_SELECT = range(25, 33)
TAPE_WIDTH = 5
TAPE_HEADER = 11


def pack_separable(C_per_chart, basis_u, basis_v, domains, ref_speeds, margin, atlas, shape=SHAPE_GENERAL):
    """Pack a separable surface (called once per surface, at construction; not a kernel).

    Parameters
    ----------
    C_per_chart : sequence of ndarray, shape (n_phi, n_psi, 3), n_phi, n_psi <= 3
        Coefficients of each chart (padded with zeros to 3x3x3).
    basis_u, basis_v : int
        `TRIG` or `LINEAR`.
    domains : sequence of ParameterDomain
    ref_speeds : ndarray, shape (n_charts, 2)
        ``max |f_u|``, ``max |f_v|`` per chart (the regularity scale).
    margin : float
        ``chart_switch_margin`` [rad].
    atlas : int
        `ATLAS_SINGLE` or `ATLAS_LATLONG`.
    shape : int
        `SHAPE_PLANE`, `SHAPE_ELLIPSOID` (coefficients as in the module docstring) or
        `SHAPE_GENERAL`.

    Returns
    -------
    (F, I) : ndarray float64, ndarray int64
    """
    n = len(domains)
    F = np.zeros(1 + DOMAIN_SIZE * n + COEF_SIZE * n)
    F[0] = margin
    for c, dom in enumerate(domains):
        block = F[1 + DOMAIN_SIZE * c : 1 + DOMAIN_SIZE * (c + 1)]
        block[0:2] = dom.lower
        block[2:4] = dom.upper
        block[4:6] = dom.periodic
        block[6:10] = np.nan
        block[6 : 6 + len(dom.singular_u)] = dom.singular_u
        block[8 : 8 + len(dom.singular_v)] = dom.singular_v
        block[10:12] = ref_speeds[c]
        C = np.zeros((3, 3, 3))
        Cc = np.asarray(C_per_chart[c], dtype=float)
        C[: Cc.shape[0], : Cc.shape[1]] = Cc
        start = 1 + DOMAIN_SIZE * n + COEF_SIZE * c
        F[start : start + COEF_SIZE] = C.ravel()
    I = np.array((SEPARABLE, n, atlas, basis_u, basis_v, shape), dtype=np.int64)
    return F, I


def pack_domains(domains, ref_speeds, margin):
    """Pack only the domains of a surface evaluated in Python (kind `CALLBACK`)."""
    F, _ = pack_separable([np.zeros((3, 3, 3))] * len(domains), TRIG, TRIG, domains, ref_speeds, margin,
                          ATLAS_SINGLE)
    return F, np.array((CALLBACK, len(domains), ATLAS_SINGLE, TRIG, TRIG, SHAPE_GENERAL), dtype=np.int64)


def pack_tape(tapes, constants, n_registers, domain, ref_speeds, margin):
    """Pack a `TAPE` surface (called at construction; not a kernel).

    Parameters
    ----------
    tapes : sequence of 4 (instructions, outputs)
        Per highest order ``o``: ``instructions`` int array (n, TAPE_WIDTH), ``outputs`` int
        array (o+1, o+1, 3) of registers (-1: zero).
    constants : sequence of float
        Referenced by `OP_CONST` as 0-based indices; stored after the domain block.
    n_registers : int
    domain : ParameterDomain
    ref_speeds : ndarray, shape (1, 2)
    margin : float

    Returns
    -------
    (F, I) : ndarray float64, ndarray int64
    """
    F0, _ = pack_separable([np.zeros((3, 3, 3))], TRIG, TRIG, [domain], ref_speeds, margin, ATLAS_SINGLE)
    F = np.concatenate((F0[: 1 + DOMAIN_SIZE], np.asarray(constants, dtype=float)))
    head = [TAPE, 1, ATLAS_SINGLE, 0, 0, SHAPE_GENERAL, int(n_registers), 0, 0, 0, 0]
    body = []
    for order, (instructions, outputs) in enumerate(tapes):
        head[7 + order] = TAPE_HEADER + len(body)
        ins = np.array(instructions, dtype=np.int64).reshape(-1, TAPE_WIDTH)
        ins[ins[:, 0] == OP_CONST, 2] += 1 + DOMAIN_SIZE
        body += [len(ins)] + ins.ravel().tolist() + np.asarray(outputs, dtype=np.int64).ravel().tolist()
    return F, np.array(head + body, dtype=np.int64)


def pack_piecewise(edges_u, edges_v, p, q, coeffs, dim, domain, ref_speeds, margin, wrap_u, wrap_v):
    """Pack a piecewise-polynomial surface (called at construction; not a kernel).

    Parameters
    ----------
    edges_u, edges_v : ndarray
        Distinct increasing span edges.
    p, q : int
        Degrees.
    coeffs : ndarray, shape (n_spans_u, n_spans_v, p+1, (q+1) dim)
        Taylor coefficients about the span midpoints in ``t = (x - mid) / h``.
    dim : int
        3, or 4 for homogeneous (rational) coordinates.
    domain : ParameterDomain
    ref_speeds : ndarray, shape (1, 2)
    margin : float
    wrap_u, wrap_v : bool
        Wrap the parameter into the span range before evaluating.

    Returns
    -------
    (F, I) : ndarray float64, ndarray int64
    """
    F0, _ = pack_separable([np.zeros((3, 3, 3))], TRIG, TRIG, [domain], ref_speeds, margin, ATLAS_SINGLE)
    F = np.concatenate((F0[: 1 + DOMAIN_SIZE], np.asarray(edges_u, dtype=float),
                        np.asarray(edges_v, dtype=float), np.ascontiguousarray(coeffs, dtype=float).ravel()))
    I = np.array((PIECEWISE, 1, ATLAS_SINGLE, p, q, len(edges_u) - 1, len(edges_v) - 1, dim,
                  int(bool(wrap_u)), int(bool(wrap_v))), dtype=np.int64)
    return F, I


def pack_network(blocks, neighbours, domains, ref_speeds, margin):
    """Pack a patch network (called at construction; not a kernel).

    Parameters
    ----------
    blocks : sequence of (F, I)
        Each patch packed alone (`pack_piecewise`, domain ``[0, 1]^2``).
    neighbours : ndarray, shape (n_charts, 4, 3) int
        Per patch and side ``(neighbour, its side, reversed)``, neighbour -1 on the boundary.
    domains : sequence of ParameterDomain
        The kernels' domains of the patches (unbounded: module docstring).
    ref_speeds : ndarray, shape (n_charts, 2)
    margin : float

    Returns
    -------
    (F, I) : ndarray float64, ndarray int64
    """
    n = len(blocks)
    F0, _ = pack_separable([np.zeros((3, 3, 3))] * n, TRIG, TRIG, domains, ref_speeds, margin, ATLAS_NETWORK)
    head = [NETWORK, n, ATLAS_NETWORK, 0, 0, SHAPE_GENERAL]
    table = np.zeros((n, NETWORK_BLOCK), dtype=np.int64)
    f_parts, i_parts = [F0[: 1 + DOMAIN_SIZE * n]], []
    f_off = 1 + DOMAIN_SIZE * n
    i_off = len(head) + NETWORK_BLOCK * n + 4 * NETWORK_SIDE * n
    for c, (Fb, Ib) in enumerate(blocks):
        table[c] = (f_off, len(Fb), i_off, len(Ib))
        f_parts.append(np.asarray(Fb, dtype=float))
        i_parts.append(np.asarray(Ib, dtype=np.int64))
        f_off += len(Fb)
        i_off += len(Ib)
    I = np.concatenate([np.array(head, dtype=np.int64), table.ravel(),
                        np.asarray(neighbours, dtype=np.int64).ravel()] + i_parts)
    return np.concatenate(f_parts), I


@njit
def _span(F, start, n_spans, x, wrap):
    """Span index of ``x`` among the edges ``F[start : start + n_spans + 1]``, the wrapped
    ``x``, and the local coordinate's midpoint and inverse length."""
    lo, hi = F[start], F[start + n_spans]
    if wrap and not (lo <= x < hi):
        x = lo + (x - lo) % (hi - lo)
    s = 0
    # the interior breaks are F[start + 1 : start + n_spans]; x past the ends stays in the end span
    while s < n_spans - 1 and F[start + s + 1] <= x:
        s += 1
    a, b = F[start + s], F[start + s + 1]
    return s, x, 0.5 * (a + b), 1.0 / (b - a)


@njit
def _monomials(t, hinv, degree, order):
    """``M[i, c] = d^i/dx^i t^c`` with ``t = (x - mid) hinv``, shape (order+1, degree+1)."""
    M = np.zeros((order + 1, degree + 1))
    for c in range(degree + 1):
        for i in range(min(c, order) + 1):
            # c! / (c - i)! hinv^i t^(c - i)
            coef = 1.0
            for k in range(i):
                coef *= (c - k) * hinv
            M[i, c] = coef * t ** (c - i)
    return M


@njit
def _reciprocal(w, order):
    """Partials ``r[i, j]`` of ``1/w`` up to total order 3 (Faa di Bruno with ``g = 1/w``)."""
    r = np.zeros((order + 1, order + 1))
    r0 = 1.0 / w[0, 0]
    r[0, 0] = r0
    if order == 0:
        return r
    g1 = -r0 * r0
    w10, w01 = w[1, 0], w[0, 1]
    r[1, 0], r[0, 1] = g1 * w10, g1 * w01
    if order == 1:
        return r
    g2 = 2.0 * r0 * r0 * r0
    w20, w11, w02 = w[2, 0], w[1, 1], w[0, 2]
    r[2, 0] = g2 * w10 * w10 + g1 * w20
    r[1, 1] = g2 * w10 * w01 + g1 * w11
    r[0, 2] = g2 * w01 * w01 + g1 * w02
    if order == 2:
        return r
    g3 = -6.0 * r0 * r0 * r0 * r0
    w30, w21, w12, w03 = w[3, 0], w[2, 1], w[1, 2], w[0, 3]
    r[3, 0] = g3 * w10 ** 3 + 3.0 * g2 * w10 * w20 + g1 * w30
    r[2, 1] = g3 * w10 * w10 * w01 + g2 * (w20 * w01 + 2.0 * w10 * w11) + g1 * w21
    r[1, 2] = g3 * w10 * w01 * w01 + g2 * (w02 * w10 + 2.0 * w01 * w11) + g1 * w12
    r[0, 3] = g3 * w01 ** 3 + 3.0 * g2 * w01 * w02 + g1 * w03
    return r


@njit
def _binomial(n, k):
    out = 1.0
    for i in range(k):
        out = out * (n - i) / (i + 1)
    return out


@njit(argtypes="f8[::1], i8[::1], f8, f8, i8")
def _piecewise(F, I, u, v, order):
    p, q, nsu, nsv, dim = I[3], I[4], I[5], I[6], I[7]
    eu = 1 + DOMAIN_SIZE
    ev = eu + nsu + 1
    ec = ev + nsv + 1
    su, u, mu, hu = _span(F, eu, nsu, u, I[8] != 0)
    sv, v, mv, hv = _span(F, ev, nsv, v, I[9] != 0)
    Mu = _monomials((u - mu) * hu, hu, p, order)
    Mv = _monomials((v - mv) * hv, hv, q, order)
    n = order + 1
    H = np.zeros((n, n, dim))
    row = (q + 1) * dim
    base = ec + (su * nsv + sv) * (p + 1) * row
    for i in range(n):
        for j in range(n - i):
            for c in range(p + 1):
                a = Mu[i, c]
                if a == 0.0:
                    continue
                for dd in range(q + 1):
                    w = a * Mv[j, dd]
                    if w == 0.0:
                        continue
                    off = base + c * row + dd * dim
                    for k in range(dim):
                        H[i, j, k] += w * F[off + k]
    if dim == 3:
        return H
    r = _reciprocal(H[:, :, 3], order)
    D = np.zeros((n, n, 3))
    for k in range(n):
        for l in range(n - k):
            for i in range(k + 1):
                for j in range(l + 1):
                    c = _binomial(k, i) * _binomial(l, j) * r[i, j]
                    for m in range(3):
                        D[k, l, m] += c * H[k - i, l - j, m]
    return D


@njit(argtypes="f8[::1], i8[::1], f8, f8, i8")
def _run_tape(F, I, u, v, order):
    """Run the `TAPE` of `order` (module docstring); IEEE results (inf, NaN) instead of Python's
    exceptions (numpy error model, as every kernel), as the math module's domain errors would
    stop the closest-point search."""
    reg = np.empty(I[6])
    reg[0], reg[1] = u, v
    pc = I[7 + order]
    n_ins = I[pc]
    pc += 1
    for _ in range(n_ins):
        op, dst, a, b, c = I[pc], I[pc + 1], I[pc + 2], I[pc + 3], I[pc + 4]
        pc += TAPE_WIDTH
        if op == OP_CONST:
            r = F[a]
        elif op == OP_ADD:
            r = reg[a] + reg[b]
        elif op == OP_SUB:
            r = reg[a] - reg[b]
        elif op == OP_MUL:
            r = reg[a] * reg[b]
        elif op == OP_DIV:
            r = reg[a] / reg[b]
        elif op == OP_NEG:
            r = -reg[a]
        elif op == OP_POWI:   # a negative power as a division: inf at 0, as IEEE
            r = reg[a] ** b if b >= 0 else 1.0 / reg[a] ** (-b)
        elif op == OP_POW:
            r = reg[a] ** reg[b]
        elif op == OP_SQRT:
            r = math.sqrt(reg[a])
        elif op == OP_SIN:
            r = math.sin(reg[a])
        elif op == OP_COS:
            r = math.cos(reg[a])
        elif op == OP_TAN:
            r = math.tan(reg[a])
        elif op == OP_EXP:
            r = math.exp(reg[a])
        elif op == OP_LOG:
            r = math.log(reg[a])
        elif op == OP_ABS:
            r = abs(reg[a])
        elif op == OP_ASIN:
            r = math.asin(reg[a])
        elif op == OP_ACOS:
            r = math.acos(reg[a])
        elif op == OP_ATAN:
            r = math.atan(reg[a])
        elif op == OP_ATAN2:
            r = math.atan2(reg[a], reg[b])
        elif op == OP_SINH:
            r = math.sinh(reg[a])
        elif op == OP_COSH:
            r = math.cosh(reg[a])
        elif op == OP_TANH:
            r = math.tanh(reg[a])
        elif op == OP_MIN:
            r = min(reg[a], reg[b])
        elif op == OP_MAX:
            r = max(reg[a], reg[b])
        elif op == OP_SIGN:
            x = reg[a]
            r = 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)
        elif op == OP_LT:
            r = 1.0 if reg[a] < reg[b] else 0.0
        elif op == OP_LE:
            r = 1.0 if reg[a] <= reg[b] else 0.0
        elif op == OP_EQ:
            r = 1.0 if reg[a] == reg[b] else 0.0
        elif op == OP_NE:
            r = 1.0 if reg[a] != reg[b] else 0.0
        elif op == OP_AND:
            r = 1.0 if (reg[a] != 0.0 and reg[b] != 0.0) else 0.0
        elif op == OP_OR:
            r = 1.0 if (reg[a] != 0.0 or reg[b] != 0.0) else 0.0
        elif op == OP_NOT:
            r = 1.0 if reg[a] == 0.0 else 0.0
        else:  # OP_SELECT
            r = reg[a] if reg[c] != 0.0 else reg[b]
        reg[dst] = r
    n = order + 1
    D = np.zeros((n, n, 3))
    for i in range(n):
        for j in range(n):
            for k in range(3):
                g = I[pc + (i * n + j) * 3 + k]
                if g >= 0:
                    D[i, j, k] = reg[g]
    return D


@njit
def _basis(code, x, order, out):
    """``out[i] = d^i/dx^i`` of the basis (3 entries) for i <= order."""
    if code == TRIG:
        c, s = math.cos(x), math.sin(x)
        # the derivatives of (cos, sin) cycle with period 4
        for i in range(order + 1):
            r = i % 4
            if r == 0:
                out[i, 0], out[i, 1] = c, s
            elif r == 1:
                out[i, 0], out[i, 1] = -s, c
            elif r == 2:
                out[i, 0], out[i, 1] = -c, -s
            else:
                out[i, 0], out[i, 1] = s, -c
            out[i, 2] = 1.0 if i == 0 else 0.0
    else:
        for i in range(order + 1):
            out[i, 0] = x if i == 0 else (1.0 if i == 1 else 0.0)
            out[i, 1] = 1.0 if i == 0 else 0.0
            out[i, 2] = 0.0


#: the evaluators of the other kinds, called by symbol (`_njit.separate`): not optimized again in
#: every kernel that links `derivatives`
_piecewise_by_symbol = separate(_piecewise)
_run_tape_by_symbol = separate(_run_tape)


#: the orders of `derivatives` up to which its basis values live on its stack (0..3: the
#: contact chain's 2, the curvature's 3)
_LOCAL_ORDERS = 4


# one declared signature: the calls from other kernels pass a literal order (2), which would
# otherwise compile a second specialization (seconds of first-run JIT)
@njit(argtypes="f8[::1], i8[::1], f8, f8, i8, i8")
def derivatives(F, I, u, v, order, chart):
    """Derivative array ``D[i, j] = d^(i+j) f / du^i dv^j`` of a packed surface.

    Parameters
    ----------
    F, I : ndarray
        Packed surface (module docstring).
    u, v : float
        Parameters in `chart` (no domain check).
    order : int
        Highest total order.
    chart : int

    Returns
    -------
    D : ndarray, shape (order+1, order+1, 3) [m, m/param, ...]
        Zero for ``i + j > order``.
    """
    if I[0] == PIECEWISE:
        return _piecewise_by_symbol(F, I, u, v, order)
    if I[0] == NETWORK:
        t = 6 + NETWORK_BLOCK * chart
        return _piecewise_by_symbol(F[I[t]:I[t] + I[t + 1]], I[I[t + 2]:I[t + 2] + I[t + 3]], u, v, order)
    if I[0] == TAPE:
        return _run_tape_by_symbol(F, I, u, v, order)
    n = order + 1
    D = np.zeros((n, n, 3))
    if n <= _LOCAL_ORDERS:   # the basis values on the stack (`kernels.borrow.local`): no arrays
        bu, bv = _borrow.local(_LOCAL_ORDERS, 3), _borrow.local(_LOCAL_ORDERS, 3)
    else:
        bu, bv = np.empty((n, 3)), np.empty((n, 3))
    _basis(I[3], u, order, bu)
    _basis(I[4], v, order, bv)
    off = 1 + DOMAIN_SIZE * I[1] + COEF_SIZE * chart
    for i in range(n):
        for j in range(n - i):
            for a in range(3):
                pa = bu[i, a]
                if pa == 0.0:
                    continue
                for b in range(3):
                    w = pa * bv[j, b]
                    if w == 0.0:
                        continue
                    base = off + 9 * a + 3 * b
                    D[i, j, 0] += w * F[base]
                    D[i, j, 1] += w * F[base + 1]
                    D[i, j, 2] += w * F[base + 2]
    return D


@njit
def wrap(F, chart, u, v):
    """Map the periodic parameters of `chart` into ``[lower, upper)`` (values inside are
    returned bit for bit), as `ParameterDomain.wrap`."""
    out_u, out_v = u, v
    for k in range(2):
        if F[1 + DOMAIN_SIZE * chart + 4 + k] == 0.0:
            continue
        lo, hi = F[1 + DOMAIN_SIZE * chart + k], F[1 + DOMAIN_SIZE * chart + 2 + k]
        x = out_u if k == 0 else out_v
        if not (lo <= x < hi):
            y = lo + (x - lo) % (hi - lo)
            x = lo if y >= hi else y
        if k == 0:
            out_u = x
        else:
            out_v = x
    return out_u, out_v


@njit
def distance_to_singular(F, chart, u, v):
    """Parameter-space distance of ``(u, v)`` to the singular set of `chart` (inf if none),
    periodic directions modulo the period, as `ParameterDomain.distance_to_singular`."""
    d = np.inf
    for k in range(2):
        x = u if k == 0 else v
        periodic = F[1 + DOMAIN_SIZE * chart + 4 + k] != 0.0
        per = F[1 + DOMAIN_SIZE * chart + 2 + k] - F[1 + DOMAIN_SIZE * chart + k]
        for m in range(2):
            s = F[1 + DOMAIN_SIZE * chart + 6 + 2 * k + m]
            if math.isnan(s):
                continue
            gap = abs(x - s)
            if periodic:
                gap = gap % per
                gap = min(gap, per - gap)
            d = min(d, gap)
    return d


@njit
def place(F, chart, u, v):
    """Wrap periodic and clamp bounded parameters into the domain of `chart`.

    Returns ``(u, v, clamped)``.
    """
    u, v = wrap(F, chart, u, v)
    cu = min(max(u, F[1 + DOMAIN_SIZE * chart + 0]), F[1 + DOMAIN_SIZE * chart + 2])
    cv = min(max(v, F[1 + DOMAIN_SIZE * chart + 1]), F[1 + DOMAIN_SIZE * chart + 3])
    return cu, cv, (cu != u or cv != v)


@njit
def chart_map(F, I, u, v, src, dst):
    """Parameters in chart `dst` of the point ``(u, v)`` of chart `src` (no domain check).
    In a network only neighbours map onto each other (`across`); NaN for other patches."""
    if src == dst or I[2] == ATLAS_SINGLE:
        return u, v
    if I[2] == ATLAS_NETWORK:
        for side in range(4):
            if neighbour(I, src, side)[0] == dst:
                return across(I, src, side, u, v)[1:]
        return np.nan, np.nan
    # ATLAS_LATLONG: through the unit-sphere point in axis-scaled coordinates
    cv = math.cos(v)
    s0, s1, s2 = cv * math.cos(u), cv * math.sin(u), math.sin(v)
    if src == 1:
        s0, s1, s2 = s2, s0, s1
    if dst == 1:
        s0, s1, s2 = s1, s2, s0
    uu = math.atan2(s1, s0)
    vv = math.atan2(s2, math.hypot(s0, s1))
    return wrap(F, dst, uu, vv)


@njit
def best_chart(F, I, u, v, chart):
    """``(chart', u', v')``: the current chart while ``(u, v)`` is at least the chart switch
    margin from its singular set, else the chart farthest from it (`Surface.best_chart`)."""
    if I[1] == 1:
        return chart, u, v
    if I[2] == ATLAS_NETWORK:
        return network_hop(I, u, v, chart)
    dist = distance_to_singular(F, chart, u, v)
    if dist >= F[0]:
        return chart, u, v
    best_d, best_c, best_u, best_v = dist, chart, u, v
    for other in range(I[1]):
        if other != chart:
            uo, vo = chart_map(F, I, u, v, chart, other)
            do = distance_to_singular(F, other, uo, vo)
            if do > best_d:
                best_d, best_c, best_u, best_v = do, other, uo, vo
    return best_c, best_u, best_v


@njit(versions=("i8[::1], i8, i8",))
def neighbour(I, chart, side):
    """``(neighbour chart, its side, reversed)`` across `side` of patch `chart` of a network
    (neighbour -1 on the boundary). One version (`porthamiltonian.kernels._njit.njit`'s
    ``versions``): a caller's side typed as the literal -1 compiled one of its own."""
    k = 6 + NETWORK_BLOCK * I[1] + NETWORK_SIDE * (4 * chart + side)
    return I[k], I[k + 1], I[k + 2] != 0


@njit(versions=("i8[::1], i8, i8, f8, f8",))
def across(I, chart, side, u, v):
    """``(chart', u', v')``: the point ``(u, v)`` of patch `chart` expressed in the neighbour
    across `side`, by the affine map that takes the shared side onto itself (the position
    along it kept, or reversed) and the signed distance past it to the distance inside the
    neighbour. Exact on the side; off it, exact for networks whose neighbours join with
    equal parameter speeds (split B-splines), a first-order start otherwise."""
    nb, nside, rev = neighbour(I, chart, side)
    along = v if side < 2 else u
    past = (-u, u - 1.0, -v, v - 1.0)[side]
    if rev:
        along = 1.0 - along
    depth = past if nside % 2 == 0 else 1.0 - past
    if nside < 2:
        return nb, depth, along
    return nb, along, depth


@njit
def transition_margin(I, u, v, chart, depth):
    """Signed distance of ``(u, v)`` of a network's patch `chart` to its nearest shared side,
    plus `depth` (inf when no side is shared, -inf for NaN parameters: a point of a patch that
    is not a neighbour), as `PatchNetwork.transition_margin`."""
    if not (math.isfinite(u) and math.isfinite(v)):
        return -np.inf
    out = np.inf
    for s in range(4):
        if neighbour(I, chart, s)[0] >= 0:
            out = min(out, (u, 1.0 - u, v, 1.0 - v)[s] + depth)
    return out


@njit
def network_hop(I, u, v, chart):
    """``(chart', u', v')``: a point of a network's patch carried across shared sides until it
    lies in a patch (or past a boundary side, where it stays): at each hop the side it is
    farthest past, so a path through a corner visits the patches around it in turn."""
    for _ in range(MAX_HOPS):
        best, side = 0.0, -1
        for s in range(4):
            past = (-u, u - 1.0, -v, v - 1.0)[s]
            if past > best and neighbour(I, chart, s)[0] >= 0:
                best, side = past, s
        if side < 0:
            break
        chart, u, v = across(I, chart, side, u, v)
    return chart, u, v


@njit
def regular(F, D, chart, tol):
    """``|f_u x f_v| >= tol * ref_speed_u * ref_speed_v`` (the regularity test of
    `Surface._regularity` against `REGULARITY_TOL`)."""
    a, b = D[1, 0], D[0, 1]
    m0 = a[1] * b[2] - a[2] * b[1]
    m1 = a[2] * b[0] - a[0] * b[2]
    m2 = a[0] * b[1] - a[1] * b[0]
    return math.sqrt(m0 * m0 + m1 * m1 + m2 * m2) >= tol * F[1 + DOMAIN_SIZE * chart + 10] * F[1 + DOMAIN_SIZE * chart + 11]
