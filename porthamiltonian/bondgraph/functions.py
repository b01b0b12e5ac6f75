"""Parameter functions: time signals for sources, Hamiltonians and laws given as callables or sympy.

A value given by the user can be a constant, a Python callable, or a sympy expression. These
wrappers turn all three into fast numeric callables (sympy is lambdified once, with all the
derivatives the compiler needs derived symbolically) and remember how to save themselves.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .._validate import as_array
from ..errors import ParameterError, SerializationError
from .element import fd_jacobian

__all__ = ["TimeFunction", "Hamiltonian", "T_SYMBOL"]

#: The symbol for time in sympy-defined signals.
T_SYMBOL = sp.Symbol("t", real=True)


def _is_sympy(value):
    return isinstance(value, (sp.Basic, sp.MatrixBase))


class _AsVector:
    """``t -> np.asarray(f(t), float).reshape(-1)``."""

    def __init__(self, f):
        self.f = f

    def __call__(self, t):
        return np.asarray(self.f(t), dtype=float).reshape(-1)


class TimeFunction:
    """A vector-valued signal of time: constant, callable ``f(t)``, or sympy expression in ``t``.

    Parameters
    ----------
    value : float, array_like, callable or sympy expression
        Constant value; callable returning an array of shape (dim,) (or a float if dim is 1);
        or a sympy scalar/Matrix in the symbol ``t`` (`T_SYMBOL`, or any symbol named "t").
    name : str
        Argument name for error messages.
    dim : int or None
        Expected dimension; None infers it from a constant or sympy value (callables: 1).
    derivative : callable, optional
        ``derivative(t)`` for a callable `value`; without it the rate (needed only when the
        signal drives a constraint) is a central finite difference with step 1e-6 [s].
    """

    def __init__(self, value, name, dim=None, derivative=None):
        self.name = name
        self._derivative = derivative
        if _is_sympy(value):
            expr = sp.Matrix([value]) if not isinstance(value, sp.MatrixBase) else sp.Matrix(value).reshape(len(value), 1)
            tsyms = [s for s in expr.free_symbols if s.name == "t"]
            other = [s for s in expr.free_symbols if s.name != "t"]
            if other:
                raise ParameterError(
                    f"`{name}`: a sympy signal may depend on t only, got free symbols {sorted(map(str, other))}"
                )
            expr = expr.subs({s: T_SYMBOL for s in tsyms})
            self.kind = "sympy"
            self.expr = expr
            self.dim = expr.shape[0]
            f = sp.lambdify(T_SYMBOL, list(expr), "numpy")
            df = sp.lambdify(T_SYMBOL, list(expr.diff(T_SYMBOL)), "numpy")
            self._f = lambda t: np.array(f(t), dtype=float).reshape(-1)
            self._df = lambda t: np.array(df(t), dtype=float).reshape(-1)
        elif callable(value):
            self.kind = "callable"
            self.expr = None
            self.dim = 1 if dim is None else dim
            self._callable = value
            self._f = _AsVector(value)   # picklable (unlike a lambda) when `value` is
            self._df = None
        else:
            arr = as_array(value, name)
            if arr.ndim == 0 and dim is not None:
                arr = np.full(dim, float(arr))
            arr = arr.reshape(-1)
            self.kind = "constant"
            self.expr = None
            self.dim = arr.size
            self._const = arr
            self._f = lambda t: arr
            self._df = lambda t: np.zeros_like(arr)
        if dim is not None and self.dim != dim:
            raise ParameterError(f"`{name}` must have dimension {dim}, got {self.dim}")
        if self.kind == "callable":
            try:
                probe = self._f(0.0)
            except Exception as exc:  # the user's function is called once to check its shape
                raise ParameterError(f"`{name}`: calling it at t=0 raised {exc!r}") from exc
            if probe.shape != (self.dim,) or not np.all(np.isfinite(probe)):
                raise ParameterError(
                    f"`{name}` must return a finite array of shape ({self.dim},), got {probe!r} at t=0"
                )

    def __call__(self, t):
        return self._f(t)

    def rate(self, t):
        """d/dt of the signal (exact for constants and sympy; see `derivative` otherwise)."""
        if self._df is not None:
            return self._df(t)
        if self._derivative is not None:
            return np.asarray(self._derivative(t), dtype=float).reshape(-1)
        h = 1e-6
        return (self._f(t + h) - self._f(t - h)) / (2 * h)

    def symbolic(self):
        """The signal as a sympy Matrix in `T_SYMBOL` (constants and sympy only)."""
        if self.kind == "constant":
            return sp.Matrix([sp.nsimplify(v) if float(v).is_integer() else sp.Float(v) for v in self._const])
        if self.kind == "sympy":
            return self.expr
        raise SerializationError(f"`{self.name}` is a Python callable and has no symbolic form")

    @property
    def is_zero(self):
        """True for the constant zero signal."""
        return self.kind == "constant" and not np.any(self._const)

    def to_json(self):
        """JSON form: a list for constants, {"sympy": srepr} for expressions."""
        if self.kind == "constant":
            return self._const.tolist()
        if self.kind == "sympy":
            return {"sympy": sp.srepr(self.expr)}
        raise SerializationError(
            f"`{self.name}` is a Python callable; only constants and sympy expressions can be saved"
        )

    @staticmethod
    def from_json(data):
        """Inverse of `to_json`."""
        if isinstance(data, dict) and "sympy" in data:
            return sp.sympify(data["sympy"])
        return data


class Hamiltonian:
    """A scalar energy function of a state vector, with its gradient and Hessian.

    Parameters
    ----------
    energy : callable or sympy expression
        ``energy(x) -> float`` for ``x`` of shape (dim,), or a sympy expression in `symbols`.
    name : str
        Argument name for error messages.
    dim : int
        State dimension.
    symbols : sequence of sympy.Symbol, optional
        The state symbols of a sympy `energy` (required for sympy).
    gradient, hessian : callable, optional
        Analytic derivatives of a callable `energy`. Without them, central finite differences
        are used (gradient error ~1e-10 relative); the sympy form derives both exactly.
    """

    def __init__(self, energy, name, dim, symbols=None, gradient=None, hessian=None):
        self.name = name
        self.dim = dim
        if _is_sympy(energy):
            if symbols is None:
                raise ParameterError(f"`{name}` is a sympy expression: give its state symbols as `state=`")
            symbols = list(symbols) if isinstance(symbols, (list, tuple, sp.MatrixBase)) else [symbols]
            if len(symbols) != dim:
                raise ParameterError(f"`state` must list {dim} symbols, got {len(symbols)}")
            extra = set(energy.free_symbols) - set(symbols)
            if extra:
                raise ParameterError(
                    f"`{name}` has free symbols {sorted(map(str, extra))} that are not state symbols "
                    f"{[str(s) for s in symbols]}; substitute numbers for parameters"
                )
            self.kind = "sympy"
            self.expr = sp.sympify(energy)
            self.symbols = symbols
            grad = [sp.diff(self.expr, s) for s in symbols]
            hess = [[sp.diff(g, s) for s in symbols] for g in grad]
            fe = sp.lambdify([symbols], self.expr, "numpy")
            fg = sp.lambdify([symbols], grad, "numpy")
            fh = sp.lambdify([symbols], hess, "numpy")
            self.energy = lambda x: float(fe(x))
            self.gradient = lambda x: np.array(fg(x), dtype=float).reshape(dim)
            self.hessian = lambda x: np.array(fh(x), dtype=float).reshape(dim, dim)
        elif callable(energy):
            self.kind = "callable"
            self.expr = None
            self.symbols = None
            self.energy = lambda x: float(energy(x))
            self.gradient = (
                (lambda x: np.asarray(gradient(x), dtype=float).reshape(dim))
                if gradient is not None
                else (lambda x: fd_jacobian(lambda z: np.array([energy(z)]), x)[0])
            )
            self.hessian = (
                (lambda x: np.asarray(hessian(x), dtype=float).reshape(dim, dim))
                if hessian is not None
                else (lambda x: fd_jacobian(self.gradient, x))
            )
            probe = np.zeros(dim)
            try:
                e0 = self.energy(probe)
            except Exception as exc:
                raise ParameterError(f"`{name}`: calling it at x=0 raised {exc!r}") from exc
            if not np.isfinite(e0):
                raise ParameterError(f"`{name}` must be finite at x=0, got {e0!r}")
        else:
            raise ParameterError(f"`{name}` must be a callable or a sympy expression, got {energy!r}")

    def to_json(self):
        """JSON form of a sympy Hamiltonian."""
        if self.kind != "sympy":
            raise SerializationError(
                f"`{self.name}` is a Python callable; only sympy Hamiltonians can be saved"
            )
        return {"sympy": sp.srepr(self.expr), "state": [sp.srepr(s) for s in self.symbols]}

    @staticmethod
    def from_json(data):
        """Inverse of `to_json`: (expression, symbols)."""
        return sp.sympify(data["sympy"]), [sp.sympify(s) for s in data["state"]]
