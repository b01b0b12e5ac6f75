"""Surface defined by a sympy expression, differentiated and compiled once."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from ..errors import ParameterError
from .domain import ParameterDomain
from .surface import Surface

__all__ = ["SymbolicSurface"]


class SymbolicSurface(Surface):
    """Surface ``f(u, v)`` given as a 3-vector of sympy expressions.

    Parameters
    ----------
    expr : sympy Matrix or sequence of 3 sympy expressions
        ``f(u, v)`` in the body frame [m]; the only free symbols are `u` and `v`.
    u, v : sympy.Symbol
        The parameters.
    domain : ParameterDomain
        Parameter domain of the single chart (declare singular sets there, e.g. poles).
    closed : bool
        Declare that the surface bounds a solid (not checked).
    convex : bool
        Declare the surface absolutely convex; checked (``k2 > 0``, which also catches an
        inward orientation of ``f_u x f_v``) on a 12 x 12 sample of regular interior points.

    Raises
    ------
    ParameterError
        If `expr` is not a 3-vector, has other free symbols, `u`/`v` are not symbols,
        `domain` is not a `ParameterDomain`, or the compiled function cannot be evaluated
        at a point of the domain.
    GeometryError
        If `convex` is declared but a sampled principal curvature is not positive.

    Notes
    -----
    All partials ``d^(i+j) f / du^i dv^j`` with ``i + j <= 3`` are derived symbolically once,
    and for each order 0..3 the needed ones are compiled once with
    ``sympy.lambdify(..., modules="math", cse=True)`` into one function of scalar floats
    (common subexpressions shared; the math module is the fastest for scalars). The
    orientation ``f_u x f_v`` must point out of the material.

    Examples
    --------
    >>> import sympy as sp
    >>> u, v = sp.symbols("u v")
    >>> dom = ParameterDomain((-1.0, -1.0), (1.0, 1.0))
    >>> s = SymbolicSurface([u, v, (u**2 + v**2) / 2], u, v, dom)
    >>> s.derivatives(0.5, 0.0, 2)[2, 0].tolist()
    [0.0, 0.0, 1.0]
    """

    def __init__(self, expr, u, v, domain: ParameterDomain, *, closed: bool = False,
                 convex: bool = False):
        for name, sym in (("u", u), ("v", v)):
            if not isinstance(sym, sp.Symbol):
                raise ParameterError(f"`{name}` must be a sympy Symbol, got {sym!r}")
        if u == v:
            raise ParameterError(f"`u` and `v` must be distinct symbols, got {u!r} twice")
        if not isinstance(domain, ParameterDomain):
            raise ParameterError(f"`domain` must be a ParameterDomain, got {domain!r}")
        try:
            f = sp.Matrix(expr)
        except (TypeError, ValueError, sp.SympifyError) as exc:
            raise ParameterError(f"`expr` must be a 3-vector of sympy expressions "
                                 f"({exc})") from None
        if f.shape not in ((3, 1), (1, 3)):
            raise ParameterError(f"`expr` must be a 3-vector of sympy expressions, "
                                 f"got shape {f.shape}")
        f = f.reshape(3, 1)
        extra = f.free_symbols - {u, v}
        if extra:
            names = ", ".join(sorted(str(s) for s in extra))
            raise ParameterError(f"`expr` may depend only on {u} and {v}; "
                                 f"substitute values for: {names}")
        partials = {(0, 0): f}
        for total in range(1, 4):
            for i in range(total, -1, -1):
                j = total - i
                partials[(i, j)] = (partials[(i - 1, j)].diff(u) if i > 0
                                    else partials[(i, j - 1)].diff(v))
        self._funcs = []
        for order in range(4):
            n = order + 1
            flat = []
            for i in range(n):
                for j in range(n):
                    flat.extend(partials[(i, j)] if i + j <= order else (sp.S.Zero,) * 3)
            self._funcs.append(sp.lambdify((u, v), flat, modules="math", cse=True))
        self._expr = f
        self._symbols = (u, v)
        self._domains = (domain,)
        self.is_closed = bool(closed)
        self.is_convex = False
        probe = [0.5 * (lo + hi) if math.isfinite(lo) and math.isfinite(hi) else
                 (lo if math.isfinite(lo) else hi if math.isfinite(hi) else 0.0)
                 for lo, hi in zip(domain.lower.tolist(), domain.upper.tolist())]
        try:
            values = np.array(self._funcs[3](*probe), dtype=float)
        except (TypeError, ValueError, NameError, ArithmeticError) as exc:
            raise ParameterError(f"`expr` cannot be evaluated with the math module at (u, v) = "
                                 f"{tuple(probe)}: {exc}") from None
        if not np.all(np.isfinite(values)):
            raise ParameterError(f"`expr` or its derivatives are not finite at "
                                 f"(u, v) = {tuple(probe)}")
        if convex:
            self._verify_convex()
            self.is_convex = True

    @property
    def expr(self) -> sp.Matrix:
        """The expression ``f(u, v)``, shape (3, 1)."""
        return self._expr

    @property
    def symbols(self) -> tuple[sp.Symbol, sp.Symbol]:
        """The parameter symbols ``(u, v)``."""
        return self._symbols

    def __repr__(self) -> str:
        return f"SymbolicSurface({list(self._expr)}, {self._symbols[0]}, {self._symbols[1]})"

    def _derivatives(self, u, v, order, chart):
        n = order + 1
        return np.array(self._funcs[order](u, v), dtype=float).reshape(n, n, 3)
