"""Compiled closest points of two packed surfaces: closed forms and the warm-started Newton
refinement.

The four stationarity equations of the generalized contact points (docs/math.md sec. 5, Duindam &
Stramigioli, *Modeling the kinematics and dynamics of compliant contact*, 2003
eqs. 6-7), for ``x = (u1, v1, u2, v2)`` in charts ``(c1, c2)`` and ``H_12 = (R, d)``::

    f1_a . (R p2 + d - p1) = 0,   f1_a . (R n2) = 0      (a = u, v)

are solved by Newton's method with the analytic Jacobian (second derivatives of both
surfaces), a trust region in space (a step moves each point by at most ``STEP_FRACTION`` of its
surface's extent, and at least of ``scale``: `step_limit`),
Armijo backtracking on the scaled residual, wrapping/clamping into the domains and chart
switches near singular sets. `porthamiltonian.geometry.closest` documents the method and
validates arguments; this is its implementation for surfaces with a compiled evaluator.

Where the pair has a closed form (plane and ellipsoid or sphere, two spheres: `closed_form`)
it gives the exact parameters directly; Newton then only confirms them (zero iterations),
so such contacts never depend on a warm start.
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit, separate

from . import borrow as _borrow
from . import lie as _lie
from . import surfaces as _s

ARMIJO = 1e-4
MAX_HALVINGS = 30
STEP_FRACTION = 0.25
#: the tangential gap is a difference of positions, so its round-off is a few eps times their
#: size; the gap tolerance is at least this many eps times ``|p1| + |p2| + |d|``
#: (`gap_tolerance`): a 10 um foot 3 m down a slope has a gap tolerance of 1e-16 m from ``tol *
#: scale`` alone, below the round-off (~1e-15 m) of the gap it must certify
GAP_ROUNDOFF = 16.0
_EPS = 2.220446049250313e-16


@njit(inline="always")
def _t3(D, i, j):
    """``D[i, j]`` of a derivative array as a 3-tuple (kept in registers: no array)."""
    return (D[i, j, 0], D[i, j, 1], D[i, j, 2])


@njit(inline="always")
def _rt(R, a):
    """``R @ a`` of a 3x3 matrix and a 3-tuple as a tuple, summed as `porthamiltonian.kernels.lie.mv`
    sums (from 0.0, left to right: the same bits)."""
    return (0.0 + R[0, 0] * a[0] + R[0, 1] * a[1] + R[0, 2] * a[2],
            0.0 + R[1, 0] * a[0] + R[1, 1] * a[1] + R[1, 2] * a[2],
            0.0 + R[2, 0] * a[0] + R[2, 1] * a[1] + R[2, 2] * a[2])


@njit(inline="always")
def _add3(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(inline="always")
def _normal_rate(mu, n2, s):
    """``mu / s - ((n2 . mu) / s) n2``: the rate of the unit normal ``m / |m|`` (``|m| = s``)."""
    c = (n2[0] * mu[0] + n2[1] * mu[1] + n2[2] * mu[2]) / s
    return (mu[0] / s - c * n2[0], mu[1] / s - c * n2[1], mu[2] / s - c * n2[2])


@njit(argtypes="f8[::1], i8[::1], f8[::1], i8[::1], f8[:, ::1], f8[::1], f8[::1], i8, i8")
def _evaluate(F1, I1, F2, I2, R, d, x, c1, c2):
    """Derivatives (order 2), residual ``r``, Jacobian ``J``, row weights ``w``, ``R n2`` and
    the separation ``e = R p2 + d - p1`` at ``x``; ``ok`` False where a surface is singular
    (then ``r`` ... ``e`` are zero): `evaluate_into` in new arrays."""
    r, J, w, Rn2, e = np.zeros(4), np.zeros((4, 4)), np.zeros(2), np.zeros(3), np.zeros(3)
    D1, D2, ok = _evaluate_into_by_symbol(F1, I1, F2, I2, R, d, x, c1, c2, r, J, w, Rn2, e)
    return D1, D2, r, J, w, Rn2, e, ok


@njit(argtypes=("f8[::1], i8[::1], f8[::1], i8[::1], f8[:, ::1], f8[::1], f8[::1], i8, i8, f8[::1], f8[:, ::1], "
                "f8[::1], f8[::1], f8[::1]"))
def evaluate_into(F1, I1, F2, I2, R, d, x, c1, c2, r, J, w, Rn2, e):
    """`_evaluate` writing ``r``, ``J``, ``w``, ``Rn2``, ``e`` into the arrays given (untouched
    where ``ok`` is False): ``(D1, D2, ok)``. A caller that keeps none of them passes scratch
    arrays on its stack (`kernels.borrow.local`: the pair state's confirmation of a closed form).

    The intermediate 3-vectors are tuples (registers, no array: the hot path of every contact
    pair, issue 33); the arithmetic is that of the array formulas, operation for operation."""
    R, d, x, r, J, w, Rn2, e = _borrow.record((R, d, x, r, J, w, Rn2, e))   # uncounted: `kernels.borrow`
    D1 = _s.derivatives(F1, I1, x[0], x[1], 2, c1)
    D2 = _s.derivatives(F2, I2, x[2], x[3], 2, c2)
    p1, f1u, f1v = _t3(D1, 0, 0), _t3(D1, 1, 0), _t3(D1, 0, 1)
    f1uu, f1uv, f1vv = _t3(D1, 2, 0), _t3(D1, 1, 1), _t3(D1, 0, 2)
    p2, f2u, f2v = _t3(D2, 0, 0), _t3(D2, 1, 0), _t3(D2, 0, 1)
    f2uu, f2uv, f2vv = _t3(D2, 2, 0), _t3(D2, 1, 1), _t3(D2, 0, 2)
    m = cross3(f2u, f2v)
    s = math.sqrt(dot3(m, m))
    l1u, l1v = math.sqrt(dot3(f1u, f1u)), math.sqrt(dot3(f1v, f1v))
    if not (s > 0.0 and l1u > 0.0 and l1v > 0.0):
        return D1, D2, False
    n2 = (m[0] / s, m[1] / s, m[2] / s)
    n2u = _normal_rate(_add3(cross3(f2uu, f2v), cross3(f2u, f2uv)), n2, s)
    n2v = _normal_rate(_add3(cross3(f2uv, f2v), cross3(f2u, f2vv)), n2, s)
    c2 = _add3(_rt(R, p2), d)
    Rf2u, Rf2v = _rt(R, f2u), _rt(R, f2v)
    rn = _rt(R, n2)
    Rn2u, Rn2v = _rt(R, n2u), _rt(R, n2v)
    for k in range(3):
        Rn2[k] = rn[k]
        e[k] = c2[k] - p1[k]
    r[0], r[1], r[2], r[3] = dot3(f1u, e), dot3(f1v, e), dot3(f1u, rn), dot3(f1v, rn)
    J[0, 0] = dot3(f1uu, e) - dot3(f1u, f1u)
    J[0, 1] = dot3(f1uv, e) - dot3(f1u, f1v)
    J[0, 2], J[0, 3] = dot3(f1u, Rf2u), dot3(f1u, Rf2v)
    J[1, 0] = dot3(f1uv, e) - dot3(f1v, f1u)
    J[1, 1] = dot3(f1vv, e) - dot3(f1v, f1v)
    J[1, 2], J[1, 3] = dot3(f1v, Rf2u), dot3(f1v, Rf2v)
    J[2, 0], J[2, 1] = dot3(f1uu, rn), dot3(f1uv, rn)
    J[2, 2], J[2, 3] = dot3(f1u, Rn2u), dot3(f1u, Rn2v)
    J[3, 0], J[3, 1] = dot3(f1uv, rn), dot3(f1vv, rn)
    J[3, 2], J[3, 3] = dot3(f1v, Rn2u), dot3(f1v, Rn2v)
    w[0], w[1] = 1.0 / l1u, 1.0 / l1v
    return D1, D2, True


#: `evaluate_into` as `_evaluate` and the pair state call it: by symbol (`_njit.separate`)
_evaluate_into_by_symbol = separate(evaluate_into)


@njit
def gap_tolerance(tol, scale, size):
    """The convergence bound of the tangential gap [m]: ``tol * scale``, but not below the
    round-off ``GAP_ROUNDOFF * eps * size`` of the gap ``e = R p2 + d - p1`` computed from
    positions of norms ``size = |p1| + |p2| + |d|`` [m] (each point in its surface's frame:
    a small foot far along a plane is a difference of metre-sized terms)."""
    return max(tol * scale, GAP_ROUNDOFF * _EPS * size)


@njit(inline="always")
def confirmed(D1, D2, d, r, w, scale, tol):
    """`newton`'s convergence test at an evaluation (`_evaluate`'s ``D1``, ``D2``, ``r``, ``w``):
    the tangential gap within `gap_tolerance` and the misalignment within `tol`."""
    gap, ang = errors(r, w)
    size = (math.sqrt(_lie.dot3(D1[0, 0], D1[0, 0])) + math.sqrt(_lie.dot3(D2[0, 0], D2[0, 0]))
            + math.sqrt(_lie.dot3(d, d)))
    return gap <= gap_tolerance(tol, scale, size) and ang <= tol


@njit
def errors(r, w):
    """Tangential gap [m] and normal misalignment [-] from the residual and row weights."""
    return (max(abs(r[0] * w[0]), abs(r[1] * w[1])), max(abs(r[2] * w[0]), abs(r[3] * w[1])))


@njit
def _merit(r, scale, w):
    return (((r[0] * w[0]) ** 2 + (r[1] * w[1]) ** 2) / (scale * scale)
            + (r[2] * w[0]) ** 2 + (r[3] * w[1]) ** 2)


@njit
def _solve4(J, r):
    """``J dx = -r`` by Gaussian elimination with partial pivoting; ``ok`` False if singular."""
    A = np.empty((4, 5))
    for i in range(4):   # not by slices: `porthamiltonian.kernels.lie.put`
        for j in range(4):
            A[i, j] = J[i, j]
        A[i, 4] = -r[i]
    dx = np.zeros(4)
    for k in range(4):
        p, big = k, abs(A[k, k])
        for i in range(k + 1, 4):
            if abs(A[i, k]) > big:
                p, big = i, abs(A[i, k])
        if big == 0.0:
            return dx, False
        if p != k:
            for j in range(5):
                A[k, j], A[p, j] = A[p, j], A[k, j]
        inv = 1.0 / A[k, k]
        for i in range(k + 1, 4):
            f = A[i, k] * inv
            for j in range(k + 1, 5):
                A[i, j] -= f * A[k, j]
    dx[3] = A[3, 4] / A[3, 3]
    dx[2] = (A[2, 4] - A[2, 3] * dx[3]) / A[2, 2]
    dx[1] = (A[1, 4] - A[1, 2] * dx[2] - A[1, 3] * dx[3]) / A[1, 1]
    dx[0] = (A[0, 4] - A[0, 1] * dx[1] - A[0, 2] * dx[2] - A[0, 3] * dx[3]) / A[0, 0]
    return dx, True


@njit
def _damped_step(J, r):
    """Step of a singular Jacobian: ``(J^T J + mu I) dx = -J^T r`` with ``mu`` 1e-12 of the
    largest diagonal entry, which tends to the minimum-norm least-squares step as mu -> 0
    (a LAPACK least-squares call here would add seconds to the first compile; the products
    are written out, `porthamiltonian.kernels.lie.mm`, for the same reason)."""
    A = _lie.mm(J.T, J)
    mu = 1e-12 * max(A[0, 0], A[1, 1], A[2, 2], A[3, 3], 1e-300)
    for k in range(4):
        A[k, k] += mu
    dx, _ = _solve4(A, _lie.mtv(J, r))
    return dx


@njit
def step_limit(F, scale):
    """The largest move [m] of a surface's point in one Newton step: `STEP_FRACTION` of the
    surface's own extent, and at least of the pair's `scale` (the smaller surface's size).

    The extent is ``max(|f_u|max (u_max - u_min), |f_v|max (v_max - v_min))`` of chart 0 (the
    reference speeds and bounds of the packed domain block, `porthamiltonian.kernels.surfaces`:
    ``2 pi r`` for a sphere), or `scale` where it is not finite (an unbounded plane, a patch
    network). With the smaller surface's size for both points, as before, the larger
    surface's point crept by a quarter of a small foot per iteration, and the global search
    found no contact for a 1 mm sphere on an ellipsoid (issue 36, small feet).
    """
    extent = max(F[11] * (F[3] - F[1]), F[12] * (F[4] - F[2]))
    if math.isfinite(extent) and extent > scale:
        return STEP_FRACTION * extent
    return STEP_FRACTION * scale


#: `_evaluate` as `newton` calls it: by symbol (`_njit.separate`)
_evaluate_by_symbol = separate(_evaluate)


@njit(argtypes="f8[::1], i8[::1], f8[::1], i8[::1], f8[:, ::1], f8[::1], f8[::1], i8, i8, f8, f8, i8")
def newton(F1, I1, F2, I2, R, d, x0, c1, c2, scale, tol, max_iter):
    """Newton refinement of the contact parameters from ``x0`` in charts ``(c1, c2)``.

    Parameters
    ----------
    F1, I1, F2, I2 : ndarray
        Packed surfaces (`porthamiltonian.kernels.surfaces`).
    R : ndarray, shape (3, 3)
    d : ndarray, shape (3,) [m]
        Pose of surface 2's frame in surface 1's frame.
    x0 : ndarray, shape (4,)
        Start, inside the domains of the charts (not moved to the best charts here).
    c1, c2 : int
        Charts of the start.
    scale : float [m]
        Size of the smaller surface (gap tolerance; each point's move per step is limited by
        `step_limit`, at least ``STEP_FRACTION * scale``).
    tol : float
        Convergence: tangential gap ``<= tol * scale`` (at least its round-off, `gap_tolerance`)
        and misalignment ``<= tol``.
    max_iter : int

    Returns
    -------
    x : ndarray, shape (4,)
    c1, c2 : int
        Final charts.
    iterations : int
    converged, clamped, ok : bool
        ``ok`` False when the last iterate is singular on a surface (no state).
    D1, D2 : ndarray, shape (3, 3, 3)
        Order-2 derivatives at ``x``.
    r : ndarray, shape (4,)
    w : ndarray, shape (2,)
        Residual and row weights at ``x`` (`errors`).
    Rn2, e : ndarray, shape (3,)
        ``R n2`` and the separation ``R p2 + d - p1`` at ``x``.
    """
    R, d, x0 = _borrow.record((R, d, x0))   # uncounted: `kernels.borrow`
    x = x0.copy()
    clamped = False
    limit1, limit2 = step_limit(F1, scale), step_limit(F2, scale)
    D1, D2, r, J, w, Rn2, e, ok = _evaluate_by_symbol(F1, I1, F2, I2, R, d, x, c1, c2)
    for it in range(max_iter + 1):
        if not ok:
            return x, c1, c2, it, False, clamped, False, D1, D2, r, w, Rn2, e
        if confirmed(D1, D2, d, r, w, scale, tol):
            return x, c1, c2, it, True, clamped, True, D1, D2, r, w, Rn2, e
        if it == max_iter:
            break
        dx, solved = _solve4(J, r)
        finite = solved
        for k in range(4):
            finite = finite and math.isfinite(dx[k])
        if not finite:
            dx = _damped_step(J, r)
        m1 = dx[0] * D1[1, 0] + dx[1] * D1[0, 1]
        m2 = dx[2] * D2[1, 0] + dx[3] * D2[0, 1]
        move1, move2 = math.sqrt(_lie.dot3(m1, m1)), math.sqrt(_lie.dot3(m2, m2))
        lam = 1.0
        if move1 > limit1:
            lam = limit1 / move1
        if move2 * lam > limit2:
            lam = limit2 / move2
        phi0 = _merit(r, scale, w)
        accepted = False
        trial = np.empty(4)
        for _ in range(MAX_HALVINGS):
            u1, v1, cl1 = _s.place(F1, c1, x[0] + lam * dx[0], x[1] + lam * dx[1])
            u2, v2, cl2 = _s.place(F2, c2, x[2] + lam * dx[2], x[3] + lam * dx[3])
            trial[0], trial[1], trial[2], trial[3] = u1, v1, u2, v2
            tD1, tD2, tr, tJ, tw, tRn2, te, tok = _evaluate_by_symbol(F1, I1, F2, I2, R, d, trial, c1, c2)
            if tok and _merit(tr, scale, w) <= (1.0 - ARMIJO * lam) * phi0:
                accepted = True
                break
            lam *= 0.5
        if not accepted:
            return x, c1, c2, it, False, clamped, True, D1, D2, r, w, Rn2, e
        clamped = cl1 or cl2
        x = trial.copy()
        n1c, x[0], x[1] = _s.best_chart(F1, I1, x[0], x[1], c1)
        n2c, x[2], x[3] = _s.best_chart(F2, I2, x[2], x[3], c2)
        if n1c != c1 or n2c != c2:
            c1, c2 = n1c, n2c
            D1, D2, r, J, w, Rn2, e, ok = _evaluate_by_symbol(F1, I1, F2, I2, R, d, x, c1, c2)
        else:
            D1, D2, r, J, w, Rn2, e, ok = tD1, tD2, tr, tJ, tw, tRn2, te, tok
    return x, c1, c2, max_iter, False, clamped, ok, D1, D2, r, w, Rn2, e


@njit
def cross3(a, b):
    """``a x b`` of 3-tuples or 3-vectors, real or complex, as a tuple."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit
def dot3(a, b):
    """``a . b`` of 3-tuples or 3-vectors, real or complex (no conjugate)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(versions=("f8[:, :, :], i8, i8", "c16[:, :, :], i8, i8"))
def row3(D, i, j):
    """``D[i, j]`` of a derivative array (real, or complex for complex steps) as a 3-tuple.
    One version per dtype (`porthamiltonian.kernels._njit.njit`'s ``versions``): called with
    literal indices, it compiled a version per index pair (5 in the main job)."""
    return (D[i, j, 0], D[i, j, 1], D[i, j, 2])


@njit
def tangent_form(D):
    """`weingarten` with the normal as a tuple, for real or complex derivative arrays (the
    analytic continuation used by complex steps: no conjugates, ``sqrt`` of ``m . m``)."""
    fu, fv = row3(D, 1, 0), row3(D, 0, 1)
    m = cross3(fu, fv)
    s = np.sqrt(dot3(m, m))
    n = (m[0] / s, m[1] / s, m[2] / s)
    E, Fm, G = dot3(fu, fu), dot3(fu, fv), dot3(fv, fv)
    e, f, g = -dot3(n, row3(D, 2, 0)), -dot3(n, row3(D, 1, 1)), -dot3(n, row3(D, 0, 2))
    det = E * G - Fm * Fm
    a00, a01 = (G * e - Fm * f) / det, (G * f - Fm * g) / det
    a10, a11 = (E * f - Fm * e) / det, (E * g - Fm * f) / det
    b00 = (a00 * G - a01 * Fm) / det
    b01 = 0.5 * ((a01 * E - a00 * Fm) + (a10 * G - a11 * Fm)) / det
    b11 = (a11 * E - a10 * Fm) / det
    return n, b00, b01, b11


@njit
def weingarten(D):
    """Unit normal and ``B = I^-1 II I^-1`` (so that ``L = F^T B F``) of a derivative array.

    Returns
    -------
    n : ndarray, shape (3,)
    b00, b01, b11 : float [1/m per param^2]
    """
    n, b00, b01, b11 = tangent_form(D)
    return np.array(n), b00, b01, b11


@njit
def _congruence(b00, b01, b11, x00, x01, x10, x11):
    """``X^T B X`` for symmetric 2x2 B, as (s00, s01, s11)."""
    y00, y01 = b00 * x00 + b01 * x10, b00 * x01 + b01 * x11
    y10, y11 = b01 * x00 + b11 * x10, b01 * x01 + b11 * x11
    return x00 * y00 + x10 * y10, x00 * y01 + x10 * y11, x01 * y01 + x11 * y11


@njit
def tangent_curvatures(D1, D2, R):
    """``S1 = E^T L1 E`` and ``K2 = E^T R L2 R^T E`` as (s00, s01, s11) [1/m], in the
    orthonormal basis ``E = (f1_u / |f1_u|, n1 x e1)`` of the tangent plane of surface 1
    (3-vectors as tuples: no array)."""
    n1, a00, a01, a11 = tangent_form(D1)
    _, b00, b01, b11 = tangent_form(D2)
    f1u, f1v = _t3(D1, 1, 0), _t3(D1, 0, 1)
    lu = math.sqrt(dot3(f1u, f1u))
    e1 = (f1u[0] / lu, f1u[1] / lu, f1u[2] / lu)
    e2 = cross3(n1, e1)
    Rf2u, Rf2v = _rt(R, _t3(D2, 1, 0)), _rt(R, _t3(D2, 0, 1))
    S1 = _congruence(a00, a01, a11, lu, 0.0, dot3(f1v, e1), dot3(f1v, e2))
    K2 = _congruence(b00, b01, b11, dot3(Rf2u, e1), dot3(Rf2u, e2), dot3(Rf2v, e1), dot3(Rf2v, e2))
    return S1, K2


@njit
def curvature_margin(S1, K2, distance):
    """Smallest real part of the eigenvalues of ``M = S1 + K2 (I + Delta S1)`` [1/m]."""
    s00, s01, s11 = S1
    k00, k01, k11 = K2
    a00, a01, a11 = 1.0 + distance * s00, distance * s01, 1.0 + distance * s11
    m00 = s00 + k00 * a00 + k01 * a01
    m01 = s01 + k00 * a01 + k01 * a11
    m10 = s01 + k01 * a00 + k11 * a01
    m11 = s11 + k01 * a01 + k11 * a11
    half = 0.5 * (m00 + m11)
    disc = 0.25 * (m00 - m11) ** 2 + m01 * m10
    return half - math.sqrt(disc) if disc > 0.0 else half


@njit
def finish(F1, F2, D1, D2, R, Rn2, e, c1, c2, reg_tol):
    """What a converged refinement reports: normals, signed distance, curvature margin, and
    validity (regular points of both surfaces with antiparallel normals; the rest is NaN at
    a singular point).

    Returns
    -------
    n1, n2 : ndarray, shape (3,)
    distance : float [m]
    margin : float [1/m]
    valid : bool
    """
    D1, D2, R, Rn2, e = _borrow.record((D1, D2, R, Rn2, e))   # uncounted: `kernels.borrow`
    if not (_s.regular(F1, D1, c1, reg_tol) and _s.regular(F2, D2, c2, reg_tol)):
        nan3 = np.full(3, np.nan)
        return nan3, nan3, np.nan, np.nan, False
    n1, _, _, _ = weingarten(D1)
    n2, _, _, _ = weingarten(D2)
    distance = dot3(n1, e)
    S1, K2 = tangent_curvatures(D1, D2, R)
    margin = curvature_margin(S1, K2, distance)
    return n1, n2, distance, margin, dot3(cross3(_t3(D1, 1, 0), _t3(D1, 0, 1)), Rn2) < 0.0


# ------------------------------------------------------------------ closed forms

@njit
def _plane(F):
    """Origin, ``e_u``, ``e_v`` and normal ``e_u x e_v`` of a packed `SHAPE_PLANE` (3-tuples)."""
    off = 1 + _s.DOMAIN_SIZE
    e_u = (F[off + 3], F[off + 4], F[off + 5])
    e_v = (F[off + 9], F[off + 10], F[off + 11])
    p = (F[off + 12], F[off + 13], F[off + 14])
    return p, e_u, e_v, cross3(e_u, e_v)


@njit
def _ellipsoid(F, I):
    """Semi-axes and centre of a packed `SHAPE_ELLIPSOID` (chart 0's coefficients; 3-tuples)."""
    off = 1 + _s.DOMAIN_SIZE * I[1]
    return (F[off], F[off + 10], F[off + 23]), (F[off + 24], F[off + 25], F[off + 26])


@njit
def _ellipsoid_point(F, I, axes, center, m, chart):
    """The ellipsoid's point whose outward normal is ``-m`` (any length): its parameters in
    `chart` and its position (a 3-tuple).

    The outward normal at ``center + A s`` (``|s| = 1``, ``A = diag(axes)``) is along
    ``A^-1 s``, so ``s = -A m / |A m|``; `chart` 1 reads ``s`` permuted as ``(s_1, s_2, s_0)``.
    """
    s = (-axes[0] * m[0], -axes[1] * m[1], -axes[2] * m[2])
    norm = math.sqrt(dot3(s, s))
    s = (s[0] / norm, s[1] / norm, s[2] / norm)
    if chart == 0:
        s0, s1, s2 = s[0], s[1], s[2]
    else:
        s0, s1, s2 = s[1], s[2], s[0]
    u, v = _s.wrap(F, chart, math.atan2(s1, s0), math.atan2(s2, math.hypot(s0, s1)))
    return u, v, (center[0] + axes[0] * s[0], center[1] + axes[1] * s[1], center[2] + axes[2] * s[2])


@njit(inline="always")
def _rtt(R, a):
    """``R^T @ a`` of a 3x3 matrix and a 3-tuple as a tuple, summed as `porthamiltonian.kernels.lie.mtv`
    sums (the same bits)."""
    return (0.0 + R[0, 0] * a[0] + R[1, 0] * a[1] + R[2, 0] * a[2],
            0.0 + R[0, 1] * a[0] + R[1, 1] * a[1] + R[2, 1] * a[2],
            0.0 + R[0, 2] * a[0] + R[1, 2] * a[1] + R[2, 2] * a[2])


@njit(inline="always")
def _sub3(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit
def _in_domain(F, chart, u, v):
    for k in range(2):
        y = u if k == 0 else v
        b = 1 + _s.DOMAIN_SIZE * chart
        if F[b + 4 + k] == 0.0 and not (F[b + k] <= y <= F[b + 2 + k]):
            return False
    return True


@njit
def _plane_parameters(F, q):
    """``(u, v)`` of the foot of the point ``q`` on a packed plane (orthonormal axes)."""
    p, e_u, e_v, _ = _plane(F)
    w = _sub3(q, p)
    return dot3(w, e_u), dot3(w, e_v)


@njit(argtypes="f8[::1], i8[::1], f8[::1], i8[::1], f8[:, ::1], f8[::1], i8, i8")
def closed_form(F1, I1, F2, I2, R, d, c1, c2):
    """`closed_form_extended`, found only where the parameters lie inside both domains (a
    foot off a bounded plane's extent is an edge contact, for Newton to clamp)."""
    found, x = closed_form_extended(F1, I1, F2, I2, R, d, c1, c2)
    return found and _in_domain(F1, c1, x[0], x[1]) and _in_domain(F2, c2, x[2], x[3]), x


@njit(argtypes="f8[::1], i8[::1], f8[::1], i8[::1], f8[:, ::1], f8[::1], i8, i8")
def closed_form_extended(F1, I1, F2, I2, R, d, c1, c2):
    """Exact contact parameters where a closed form exists: plane and ellipsoid (sphere) in
    either order, two spheres.

    The pair is the one `porthamiltonian.geometry.closest_points` selects (antiparallel
    normals, the separating-axis solution): against a plane with normal ``n`` the ellipsoid's
    point is the one with outward normal ``-n`` (its support point along ``-n``) and the
    plane's is its foot; two spheres touch along the line of their centres. Apart or
    penetrating alike, this is the unique stationary pair with antiparallel normals of a
    strictly convex body and a plane (or of two spheres with distinct centres).

    Parameters
    ----------
    F1, I1, F2, I2 : ndarray
        Packed surfaces; only ``SEPARABLE`` ones with a ``shape`` code have a closed form.
    R : ndarray, shape (3, 3)
    d : ndarray, shape (3,) [m]
        Pose of surface 2's frame in surface 1's frame.
    c1, c2 : int
        Charts to express the parameters in (the caller moves them to the best charts).

    Returns
    -------
    found : bool
        False when no closed form applies: other shapes, coincident sphere centres. A bounded
        plane is treated as unbounded here (its foot may lie outside its extent).
    x : ndarray, shape (4,)
        ``(u1, v1, u2, v2)`` in ``(c1, c2)``.
    """
    x = np.zeros(4)
    if I1[0] != _s.SEPARABLE or I2[0] != _s.SEPARABLE:
        return False, x
    s1, s2 = I1[5], I2[5]
    if s1 == _s.SHAPE_PLANE and s2 == _s.SHAPE_ELLIPSOID:
        _, _, _, n = _plane(F1)
        axes, center = _ellipsoid(F2, I2)
        x[2], x[3], p2 = _ellipsoid_point(F2, I2, axes, center, _rtt(R, n), c2)
        x[0], x[1] = _plane_parameters(F1, _add3(_rt(R, p2), d))
    elif s1 == _s.SHAPE_ELLIPSOID and s2 == _s.SHAPE_PLANE:
        _, _, _, n = _plane(F2)
        axes, center = _ellipsoid(F1, I1)
        x[0], x[1], p1 = _ellipsoid_point(F1, I1, axes, center, _rt(R, n), c1)
        x[2], x[3] = _plane_parameters(F2, _rtt(R, _sub3(p1, d)))
    elif s1 == _s.SHAPE_ELLIPSOID and s2 == _s.SHAPE_ELLIPSOID:
        a1, o1 = _ellipsoid(F1, I1)
        a2, o2 = _ellipsoid(F2, I2)
        if not (a1[0] == a1[1] == a1[2] and a2[0] == a2[1] == a2[2]):
            return False, x
        k = _sub3(_add3(_rt(R, o2), d), o1)               # centre to centre, frame 1
        dist = math.sqrt(_lie.dot3(k, k))
        if not dist > 1e-12 * (a1[0] + a2[0]):
            return False, x
        x[0], x[1], _ = _ellipsoid_point(F1, I1, a1, o1, (-k[0], -k[1], -k[2]), c1)
        x[2], x[3], _ = _ellipsoid_point(F2, I2, a2, o2, _rtt(R, k), c2)
    else:
        return False, x
    return True, x


# ------------------------------------------------------------------ bounding test

BOUND_NONE = 0        # unbounded, or no guaranteed bound: never culled
BOUND_SPHERE = 1      # (code, centre(3), radius, 0, 0, 0)
BOUND_ELLIPSOID = 2   # (code, centre(3), semi-axes(3)): the surface itself
BOUND_HALFSPACE = 3   # (code, point(3), unit outward normal(3)): a plane, bounded or not


@njit(inline="always")
def _support_radius(B, m0, m1, m2):
    """``max_{x in body} m . (x - centre)`` for a unit direction ``m`` in the bound's frame."""
    if B[0] == BOUND_SPHERE:
        return B[4]
    return math.sqrt((B[4] * m0) ** 2 + (B[5] * m1) ** 2 + (B[6] * m2) ** 2)


@njit(inline="always")
def _rotate(R, v0, v1, v2):
    """``R v`` as three floats."""
    return (R[0, 0] * v0 + R[0, 1] * v1 + R[0, 2] * v2, R[1, 0] * v0 + R[1, 1] * v1 + R[1, 2] * v2,
            R[2, 0] * v0 + R[2, 1] * v1 + R[2, 2] * v2)


@njit(inline="always")
def _rotate_back(R, v0, v1, v2):
    """``R^T v`` as three floats."""
    return (R[0, 0] * v0 + R[1, 0] * v1 + R[2, 0] * v2, R[0, 1] * v0 + R[1, 1] * v1 + R[2, 1] * v2,
            R[0, 2] * v0 + R[1, 2] * v1 + R[2, 2] * v2)


@njit
def separation_bound(B1, B2, R, d):
    """A lower bound of the signed distance of two surfaces from their bounds (separating axis).

    Along any unit axis ``k``, the gap between the two bodies' projections,
    ``min_{x2} k . x2 - max_{x1} k . x1``, is at most their distance, so it is a lower bound
    whenever it is positive. The axis is the line of the centres of two bounded bodies (a
    sphere around the surface, or an ellipsoid itself, whose support function
    ``h(m) = m . c + |A m|`` is exact), or the plane's normal against a half-space (then the
    bound is the exact distance of an ellipsoid). The test run before any closest-point work,
    so it is written in scalars and allocates nothing: 50 ns, against 250 ns for the same
    arithmetic with the small-array kernels of `porthamiltonian.kernels.lie` on copies of ``R``
    and ``d``, whose order of operations it keeps (the same bits).

    Parameters
    ----------
    B1, B2 : ndarray, shape (7,)
        Bounds packed by ``Surface._bound_spec`` (codes ``BOUND_*``), each in its surface frame.
    R : ndarray, shape (3, 3)
    d : ndarray, shape (3,) [m]
        Pose of surface 2's frame in surface 1's frame (any layout: views of ``H_12`` do).

    Returns
    -------
    float [m]
        The lower bound; ``-inf`` when no bound applies (an unbounded surface, two planes).
    """
    k1, k2 = B1[0], B2[0]
    if k1 == BOUND_NONE or k2 == BOUND_NONE or (k1 == BOUND_HALFSPACE and k2 == BOUND_HALFSPACE):
        return -math.inf
    c0, c1, c2 = _rotate(R, B2[1], B2[2], B2[3])       # body 2's centre (or plane point), frame 1
    c0, c1, c2 = c0 + d[0], c1 + d[1], c2 + d[2]
    if k1 == BOUND_HALFSPACE:                      # plane 1, body 2 on the normal's side
        n0, n1, n2 = B1[4], B1[5], B1[6]
        m0, m1, m2 = _rotate_back(R, n0, n1, n2)
        return n0 * (c0 - B1[1]) + n1 * (c1 - B1[2]) + n2 * (c2 - B1[3]) - _support_radius(B2, m0, m1, m2)
    if k2 == BOUND_HALFSPACE:                      # plane 2 (in frame 1: R n, R p + d)
        n0, n1, n2 = _rotate(R, B2[4], B2[5], B2[6])
        return n0 * (B1[1] - c0) + n1 * (B1[2] - c1) + n2 * (B1[3] - c2) - _support_radius(B1, n0, n1, n2)
    k0, k1_, k2_ = c0 - B1[1], c1 - B1[2], c2 - B1[3]
    length = math.sqrt(k0 * k0 + k1_ * k1_ + k2_ * k2_)
    if length == 0.0:
        return -math.inf
    k0, k1_, k2_ = k0 / length, k1_ / length, k2_ / length
    m0, m1, m2 = _rotate_back(R, k0, k1_, k2_)
    return length - _support_radius(B1, k0, k1_, k2_) - _support_radius(B2, m0, m1, m2)
