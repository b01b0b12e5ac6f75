"""The generated right-hand side's array algebra, compiled once (`porthamiltonian.compile.jit`).

numba lowers an array expression written in a function's source anew at every place it
appears, and LLVM optimizes each copy: a ``J @ F`` costs 21 KB of optimized IR, an
``np.all(np.isfinite(J))`` 28 KB, a broadcast blend ``a[:, None] * R + (1 - a)[:, None] * S``
68 KB, while a call of a function compiled on its own costs about 3 KB (measured with numba
0.68, eight copies of each statement in one function). The generated right-hand side of the
8-foot rimless wheel wrote such expressions out ~200 times: 4.6 MB of optimized IR, 57 s of
compile. Its operations are therefore these kernels, called through their symbols
(`porthamiltonian.kernels._njit.separate`), each declared in one version taking any array
layout (`njit`'s ``versions``: the generated code passes C-contiguous arrays and views of
constraint columns alike) and compiled ahead with the contact chain (``prebuilt``).

The products are `porthamiltonian.kernels.lie`'s loops, not BLAS: the operands have 3 to 30
entries a side, where a BLAS call costs more than the product. They compute what the Python
right-hand side's numpy expressions compute (`porthamiltonian.compile.codegen`), in another
summation order: the two paths agree to round-off, not to the bit.
"""

from __future__ import annotations

import numpy as np

from . import lie
from ._njit import njit

__all__ = ["solve", "reduceat", "mv", "mv_add", "mm", "mtv", "mtm", "all_finite", "blend", "blend_rows", "stabilized_row",
           "residual_power", "difference_power", "join", "join_rows", "scaled", "add_scaled", "scaled_rows",
           "add_scaled_rows", "matrix", "put_rows"]

_M, _V = "f8[:, :]", "f8[:]"

#: `solve` (and the Python path's `porthamiltonian.compile.codegen._solve`) takes the least-squares
#: solution when |A| |x| exceeds this times |b| (max norms). Measured along the registered
#: models' runs: regular systems reach 3e6 (double pendulum; the clearance four-bar 9e5, whose
#: drive drifts 5 times more if it is solved by lstsq), a body standing on two no-slip feet
#: 1e31. Defined here, in the kernel's own file: numba freezes a global into the machine code
#: it caches, and its cache follows the file of the kernel, not the module a global came from.
SINGULAR_GROWTH = 1e10


def _one(*args):
    """The declared version (and prebuilt) of a kernel taking `args`, as `njit` keywords."""
    sig = ", ".join(args)
    return {"versions": (sig,), "prebuilt": (sig,)}


@njit(**_one(_M, _V))
def mv(A, v):
    """``A @ v``."""
    return lie.mv(A, v)


@njit(**_one(_M, _V, _V))
def mv_add(A, v, b):
    """``A @ v + b``."""
    out = lie.mv(A, v)
    for i in range(out.shape[0]):
        out[i] += b[i]
    return out


@njit(**_one(_M, _M))
def mm(A, B):
    """``A @ B``."""
    return lie.mm(A, B)


@njit(**_one(_M, _V))
def mtv(A, v):
    """``A.T @ v``."""
    return lie.mtv(A, v)


@njit(**_one(_M, _M))
def mtm(A, B):
    """``A.T @ B``."""
    return lie.mm(A.T, B)


@njit(**_one(_V, _V))
def join(a, b):
    """``np.concatenate((a, b))``: numba lowers a concatenation anew for every tuple of
    argument types, ~100 KB of optimized IR each; the generated code folds a longer one."""
    out = np.empty(a.shape[0] + b.shape[0])
    lie.put(out, 0, a)
    lie.put(out, a.shape[0], b)
    return out


@njit(**_one(_M, _M))
def join_rows(A, B):
    """``np.concatenate((A, B), axis=0)`` (`join`)."""
    out = np.empty((A.shape[0] + B.shape[0], A.shape[1]))
    lie.put2(out, 0, 0, A)
    lie.put2(out, A.shape[0], 0, B)
    return out


@njit(**_one("f8", _V))
def scaled(c, x):
    """``c * x``: the first term of a sum the generated code writes as calls (numba lowers
    an array expression anew at every place, ~0.25 s of compile for a sum of ten)."""
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = c * x[i]
    return out


@njit(**_one(_V, "f8", _V))
def add_scaled(y, c, x):
    """``y + c * x`` (`scaled`)."""
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = y[i] + c * x[i]
    return out


@njit(**_one("f8", _M))
def scaled_rows(c, X):
    """``c * X`` for a matrix (`scaled`)."""
    n, m = X.shape
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = c * X[i, j]
    return out


@njit(**_one(_M, "f8", _M))
def add_scaled_rows(Y, c, X):
    """``Y + c * X`` for matrices (`scaled`)."""
    n, m = X.shape
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = Y[i, j] + c * X[i, j]
    return out


@njit(**_one(_M, "i8", _M))
def put_rows(dst, at, src):
    """``dst[at : at + len(src)] = src`` for matrices of equal width: the generated code stacks
    the constraints' rows into one array this way (`lie.put` for vectors), a concatenation of
    many parts allocating once."""
    lie.put2(dst, at, 0, src)


_MATRICES = ("f8[::1], i8, i8, i8", "i8[::1], i8, i8, i8")


@njit(versions=_MATRICES, prebuilt=_MATRICES)
def matrix(a, start, rows, cols):
    """``a[start:start + rows * cols].reshape((rows, cols))``: a packed constant matrix of
    the generated code (a reshape written there calls numba's reshape helper and its error
    path at every place)."""
    return a[start:start + rows * cols].reshape((rows, cols))


@njit(versions=(_V, _M), prebuilt=(_V, _M))
def all_finite(a):
    """Whether every entry of `a` (one or two dimensions) is finite."""
    for v in a.flat:
        if not np.isfinite(v):
            return False
    return True


@njit(**_one(_V, _V, _V))
def blend(a, row, lam):
    """``a * row + (1 - a) * lam``: a constraint row where its activity ``a`` is 1, the
    multiplier itself (set to 0) where it is 0."""
    out = np.empty(row.shape[0])
    for i in range(row.shape[0]):
        out[i] = a[i] * row[i] + (1.0 - a[i]) * lam[i]
    return out


@njit(**_one(_V, _M, _M))
def blend_rows(a, row, sel):
    """``a[:, None] * row + (1 - a)[:, None] * sel``: the sensitivities of `blend`."""
    n, m = row.shape
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = a[i] * row[i, j] + (1.0 - a[i]) * sel[i, j]
    return out


@njit(**_one(_V, _V, _V, "f8", "f8"))
def stabilized_row(cd, c, g, kc, kg):
    """``cd + kc * c + kg * nan_to_num(g)``, `g` read only where ``kg`` is not 0: a
    constraint's acceleration row with Baumgarte's terms (``kc = 2 alpha``, ``kg = beta^2``;
    an unbounded gap, NaN or infinite, counts as the largest finite value of its sign)."""
    out = np.empty(cd.shape[0])
    big = np.finfo(np.float64).max
    for i in range(cd.shape[0]):
        out[i] = cd[i] + kc * c[i]
        if kg != 0.0:
            gi = g[i]
            if np.isnan(gi):
                gi = 0.0
            elif np.isinf(gi):
                gi = big if gi > 0 else -big
            out[i] += kg * gi
    return out


@njit(**_one(_V, _V, _M, _V))
def residual_power(lam, c, J, F):
    """``lam . (c - J @ F)``: the power a constraint's stabilization supplies."""
    JF = lie.mv(J, F)
    acc = 0.0
    for i in range(lam.shape[0]):
        acc += lam[i] * (c[i] - JF[i])
    return acc


@njit(**_one(_V, _M, _M, _V))
def difference_power(lam, D, J, F):
    """``lam . ((D - J) @ F)``: the power of an effort map that differs from its Jacobian."""
    n, m = J.shape
    acc = 0.0
    for i in range(n):
        row = 0.0
        for j in range(m):
            row += (D[i, j] - J[i, j]) * F[j]
        acc += lam[i] * row
    return acc


@njit(**_one(_M, _V))
def solve(A, b):
    """`porthamiltonian.compile.codegen._solve` compiled: LU, the minimum-norm least squares
    if `A` is (numerically) singular."""
    try:
        x = np.linalg.solve(A, b)
        if np.max(np.abs(x)) * np.max(np.abs(A)) <= SINGULAR_GROWTH * np.max(np.abs(b)):
            return x
    except Exception:  # noqa: BLE001 - numba raises LinAlgError for a singular matrix
        pass
    return np.linalg.lstsq(A, b)[0]


@njit(**_one(_V, "i8[:]"))
def reduceat(values, starts):
    """``np.add.reduceat(values, starts)`` for strictly increasing `starts` (numba has no
    ufunc methods): the sums of the runs of `values` that begin at each start."""
    out = np.zeros(starts.shape[0])
    for k in range(starts.shape[0]):
        end = starts[k + 1] if k + 1 < starts.shape[0] else values.shape[0]
        for j in range(starts[k], end):
            out[k] += values[j]
    return out
