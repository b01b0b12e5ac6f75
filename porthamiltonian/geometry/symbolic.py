"""Surface defined by a sympy expression, differentiated and compiled once."""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
import sympy as sp

from ..errors import ParameterError
from ..kernels import surfaces as _k
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
    and for each order 0..3 the needed ones are translated, common subexpressions shared
    (``sympy.cse``), into a straight-line instruction tape run by the compiled surface kernels
    (`porthamiltonian.kernels.surfaces`, kind ``TAPE``): one interpreter compiled once for every
    symbolic surface, so a new expression costs no JIT, and its contacts run on the compiled
    right-hand side like the built-in surfaces. The tape knows arithmetic, integer, rational
    and real powers, ``sin cos tan exp log sqrt Abs asin acos atan atan2 sinh cosh tanh sign
    Min Max`` and ``Piecewise`` with relational and logical conditions (all branches are
    evaluated, the condition selects; a piecewise without a final ``True`` branch is NaN where
    no condition holds). The parameters are differentiated as real symbols, so ``Abs``,
    ``sign``, ``Min`` and ``Max`` have the derivatives of either side of their kinks
    (``Heaviside(x)`` is the step with value 1/2 at 0; ``DiracDelta``, the derivative of a
    step, is taken as 0: a kink's curvature jump is not a force density the contact could
    use). An expression using anything else is compiled instead with
    ``sympy.lambdify(..., modules="math", cse=True)`` and evaluated in Python
    (`uses_tape` is then False). The orientation ``f_u x f_v`` must point out of the material.

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
        # differentiated in real parameters: Abs, sign, Min, Max have real derivatives
        ur, vr = sp.Dummy(f"{u}", real=True), sp.Dummy(f"{v}", real=True)
        partials = {(0, 0): f.subs({u: ur, v: vr}, simultaneous=True)}
        for total in range(1, 4):
            for i in range(total, -1, -1):
                j = total - i
                partials[(i, j)] = (partials[(i - 1, j)].diff(ur) if i > 0
                                    else partials[(i, j - 1)].diff(vr))
        flats = []
        for order in range(4):
            n = order + 1
            flat = []
            for i in range(n):
                for j in range(n):
                    flat.extend(partials[(i, j)] if i + j <= order else (sp.S.Zero,) * 3)
            flats.append(flat)
        try:
            self._tape = _translate(flats, ur, vr, domain, self.chart_switch_margin)
            self._funcs = None
        except _Untranslatable:
            self._tape = None
            self._funcs = [sp.lambdify((ur, vr), flat, modules="math", cse=True) for flat in flats]
        self._is_compiled = self._tape is not None
        self._expr = f
        self._symbols = (u, v)
        self._domains = (domain,)
        self.is_closed = bool(closed)
        self.is_convex = False
        probe = [0.5 * (lo + hi) if math.isfinite(lo) and math.isfinite(hi) else
                 (lo if math.isfinite(lo) else hi if math.isfinite(hi) else 0.0)
                 for lo, hi in zip(domain.lower.tolist(), domain.upper.tolist())]
        try:
            values = self._derivatives(*probe, 3, 0)
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
    def uses_tape(self) -> bool:
        """Whether the surface is evaluated by the compiled instruction tape (else by a
        lambdified Python function: its contacts then run on the Python right-hand side)."""
        return self._tape is not None

    @property
    def symbols(self) -> tuple[sp.Symbol, sp.Symbol]:
        """The parameter symbols ``(u, v)``."""
        return self._symbols

    def __repr__(self) -> str:
        return f"SymbolicSurface({list(self._expr)}, {self._symbols[0]}, {self._symbols[1]})"

    def _derivatives(self, u, v, order, chart):
        if self._tape is not None:
            return _k.derivatives(self._tape[0], self._tape[1], float(u), float(v), int(order), 0)
        n = order + 1
        return np.array(self._funcs[order](u, v), dtype=float).reshape(n, n, 3)

    @cached_property
    def _kernel_spec(self):
        """``(F, I)``: the packed tape with the domain and regularity scale (kind ``TAPE``), or
        the domain alone (``CALLBACK``) when the expression is evaluated in Python."""
        if self._tape is None:
            return super()._kernel_spec
        F, I = self._tape
        F = F.copy()
        F[1 + 10 : 1 + 12] = self._reference_speeds[0]
        return F, I


class _Untranslatable(Exception):
    """An expression uses a function the instruction tape does not know."""


_UNARY = {sp.sin: _k.OP_SIN, sp.cos: _k.OP_COS, sp.tan: _k.OP_TAN, sp.exp: _k.OP_EXP,
          sp.Abs: _k.OP_ABS, sp.asin: _k.OP_ASIN, sp.acos: _k.OP_ACOS, sp.atan: _k.OP_ATAN,
          sp.sinh: _k.OP_SINH, sp.cosh: _k.OP_COSH, sp.tanh: _k.OP_TANH, sp.sign: _k.OP_SIGN}
_RELATION = {sp.StrictLessThan: (_k.OP_LT, False), sp.LessThan: (_k.OP_LE, False),
             sp.StrictGreaterThan: (_k.OP_LT, True), sp.GreaterThan: (_k.OP_LE, True),
             sp.Equality: (_k.OP_EQ, False), sp.Unequality: (_k.OP_NE, False)}


class _TapeWriter:
    """Emits the instructions of one tape; each distinct subexpression gets one register."""

    def __init__(self, u, v, constants):
        self.ins = []
        self.constants = constants          # shared by the four tapes: {value: index}
        self.reg = {u: 0, v: 1}
        self.n = 2

    def emit(self, op, a=0, b=0, c=0):
        self.ins.append((op, self.n, a, b, c))
        self.n += 1
        return self.n - 1

    def const(self, value):
        key = ("const", value)
        if key not in self.reg:
            index = self.constants.setdefault(value, len(self.constants))
            self.reg[key] = self.emit(_k.OP_CONST, index)
        return self.reg[key]

    def fold(self, op, args):
        out = self.of(args[0])
        for a in args[1:]:
            out = self.emit(op, out, self.of(a))
        return out

    def of(self, e):
        """The register holding `e` (emitting its instructions on first use)."""
        if e in self.reg:
            return self.reg[e]
        out = self._emit_expr(e)
        self.reg[e] = out
        return out

    def _emit_expr(self, e):
        if e is sp.true or e is sp.false:
            return self.const(1.0 if e is sp.true else 0.0)
        if e.is_number:
            try:
                value = complex(e)
            except (TypeError, ValueError):
                raise _Untranslatable(e) from None
            if value.imag != 0.0:
                raise _Untranslatable(e)
            return self.const(value.real)
        if e.is_Add:
            terms = list(e.args)
            out = self.of(terms[0])
            for t in terms[1:]:
                coeff, rest = t.as_coeff_Mul()
                if coeff == -1:
                    out = self.emit(_k.OP_SUB, out, self.of(rest))
                else:
                    out = self.emit(_k.OP_ADD, out, self.of(t))
            return out
        if e.is_Mul:
            coeff, rest = e.as_coeff_Mul()
            num, den = [], []
            for f in sp.Mul.make_args(rest):
                if f.is_Pow and f.exp.is_Integer and f.exp < 0:
                    den.append(f.base ** (-f.exp))
                else:
                    num.append(f)
            out = self.fold(_k.OP_MUL, num) if num else None
            if den:
                out = self.emit(_k.OP_DIV, out if out is not None else self.const(1.0),
                                self.fold(_k.OP_MUL, den))
            if coeff == -1:
                return self.emit(_k.OP_NEG, out)
            if coeff != 1:
                return self.emit(_k.OP_MUL, self.const(float(coeff)), out)
            return out
        if e.is_Pow:
            base, exp = e.args
            if exp.is_Integer:
                return self.emit(_k.OP_POWI, self.of(base), int(exp))
            if exp.is_Rational and exp.q == 2:
                root = self.emit(_k.OP_SQRT, self.of(base))
                return root if exp.p == 1 else self.emit(_k.OP_POWI, root, int(exp.p))
            return self.emit(_k.OP_POW, self.of(base), self.of(exp))
        if isinstance(e, sp.Piecewise):
            *pairs, (last, cond) = e.args
            out = self.of(last) if cond is sp.true else self.const(math.nan)
            if cond is not sp.true:
                pairs.append((last, cond))
            for value, cond in reversed(pairs):
                out = self.emit(_k.OP_SELECT, self.of(value), out, self.of(cond))
            return out
        if type(e) in _RELATION:
            op, swap = _RELATION[type(e)]
            a, b = self.of(e.lhs), self.of(e.rhs)
            return self.emit(op, b, a) if swap else self.emit(op, a, b)
        if isinstance(e, (sp.And, sp.Or)):
            return self.fold(_k.OP_AND if isinstance(e, sp.And) else _k.OP_OR, list(e.args))
        if isinstance(e, sp.Not):
            return self.emit(_k.OP_NOT, self.of(e.args[0]))
        if isinstance(e, (sp.Min, sp.Max)):
            return self.fold(_k.OP_MIN if isinstance(e, sp.Min) else _k.OP_MAX, list(e.args))
        if e.func in _UNARY and len(e.args) == 1:
            return self.emit(_UNARY[e.func], self.of(e.args[0]))
        if e.func is sp.log and len(e.args) == 1:
            return self.emit(_k.OP_LOG, self.of(e.args[0]))
        if e.func is sp.DiracDelta:
            return self.const(0.0)
        if e.func is sp.Heaviside:
            x = self.of(e.args[0])
            at0 = self.of(e.args[1]) if len(e.args) > 1 else self.const(0.5)
            zero = self.const(0.0)
            step = self.emit(_k.OP_SELECT, self.const(1.0), self.const(0.0), self.emit(_k.OP_LT, zero, x))
            return self.emit(_k.OP_SELECT, at0, step, self.emit(_k.OP_EQ, x, zero))
        if e.func is sp.atan2:
            return self.emit(_k.OP_ATAN2, self.of(e.args[0]), self.of(e.args[1]))
        raise _Untranslatable(e)


def _translate(flats, u, v, domain, margin):
    """The packed tapes ``(F, I)`` (regularity scale left for `_kernel_spec` to fill) of the
    partials in `flats` (per order, the row-major ``D[i, j, k]``); raises `_Untranslatable`."""
    constants = {}
    tapes, n_registers = [], 2
    for order, flat in enumerate(flats):
        writer = _TapeWriter(u, v, constants)
        replacements, reduced = sp.cse(flat)
        for sym, sub in replacements:
            writer.reg[sym] = writer.of(sub)
        outputs = [-1 if e == 0 else writer.of(e) for e in reduced]
        tapes.append((np.array(writer.ins, dtype=np.int64).reshape(-1, _k.TAPE_WIDTH),
                      np.array(outputs, dtype=np.int64)))
        n_registers = max(n_registers, writer.n)
    values = sorted(constants, key=constants.get)
    return _k.pack_tape(tapes, values, n_registers, domain, np.zeros((1, 2)), margin)
