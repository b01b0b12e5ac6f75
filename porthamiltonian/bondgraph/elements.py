"""The basic bond-graph elements: Se, Sf, C, I, R, TF, GY, MTF, MGY, for any dimension.

Sign conventions (half-arrow = positive power direction)::

    Se ---\\ (port "p", orientation out)      C, I, R  /--- (port "p", orientation in)
    p1 (in) ---\\ TF/GY ---\\ p2 (out)

If a bond is drawn against an element's orientation, the element sees the flow with the
opposite sign; efforts are never flipped.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .._validate import as_array, as_spd, as_symmetric_psd
from ..errors import ModelError, ParameterError
from .element import (
    Kernel,
    ResistorElement,
    SourceElement,
    StorageElement,
    TwoPortElement,
    register_element,
)
from .functions import Hamiltonian, TimeFunction
from .ports import EFFORT_OUT, FLOW_OUT, Port, StateBlock, StateRef
from ..kernels import linear as _linear

__all__ = ["Se", "Sf", "C", "I", "R", "TF", "GY", "MTF", "MGY"]


def _dim_of(dim, candidate=None, name=None):
    """Infer a dimension: explicit `dim`, else the size of the array `candidate` (a parameter
    called `name`, checked to be numeric), else 1."""
    if dim is not None:
        if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)) or dim < 1:
            raise ParameterError(f"`dim` must be a positive integer, got {dim!r}")
        return int(dim)
    if candidate is not None and not callable(candidate) and not isinstance(candidate, (sp.Basic, sp.MatrixBase)):
        a = as_array(candidate, name or "value")
        if a.ndim >= 1:
            return a.shape[0]
    return 1


# --------------------------------------------------------------------------- sources
class _Source(SourceElement):
    _param = "effort"

    def __init__(self, name, value=0.0, *, dim=None, derivative=None, input=False):
        super().__init__(name)
        self.is_input = bool(input)
        if self.is_input:
            self.input_dim = _dim_of(dim)
            self.signal = None
            self.dim = self.input_dim
        else:
            self.signal = TimeFunction(value, f"{name}.{self._param}", dim=dim, derivative=derivative)
            self.dim = self.signal.dim
            self.input_dim = 0

    def ports(self):
        return (Port("p", self.dim, "out"),)

    def value(self, t, u):
        return u if self.is_input else self.signal(t)

    def value_rate(self, t):
        if self.is_input:
            raise ModelError(
                f"{self.label} is an external input and drives a constraint: the constraint needs "
                "the input's time derivative, which is unknown; give the source a time function instead"
            )
        return self.signal.rate(t)

    def kernel(self, role):
        """The compiled "value" / "value_rate" kernel of a signal that has one (a callable
        with a ``source_kernel(role)`` method returning a `Kernel` ``(t, F, I) -> (dim,)``:
        `porthamiltonian.library.controllers.ReferenceSignal`), else None (Python path). An
        external input's "value" kernel is `porthamiltonian.kernels.inputs.input_value`, called
        ``(t, u, F, I)`` with the source's slice of u."""
        if self.is_input:
            if role != "value":
                return None
            from porthamiltonian.kernels import inputs as _kinputs

            return Kernel(_kinputs.input_value, np.zeros(0), np.zeros(0, dtype=np.int64))
        if role not in ("value", "value_rate") or self.signal.kind != "callable":
            return None
        source_kernel = getattr(self.signal._callable, "source_kernel", None)
        return None if source_kernel is None else source_kernel(role)

    def parameters(self):
        if self.is_input:
            return {"input": True, "dim": self.dim}
        return {"value": self.signal.to_json(), "dim": self.dim}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        params = dict(params)
        if "value" in params:
            params["value"] = TimeFunction.from_json(params["value"])
        return cls(name, **params)


@register_element
class Se(_Source):
    """Effort source: imposes e(t) (a constant, a function of time, or an external input).

    Parameters
    ----------
    name : str
    value : float, array_like, callable or sympy expression in t
        The effort; ignored when `input` is True.
    dim : int, optional
        Bond dimension (inferred from a constant or sympy value).
    derivative : callable, optional
        d(value)/dt for a callable value (used only if the source drives a constraint).
    input : bool
        If True, the effort is an external input u supplied at simulation time.
    """

    type_name = "Se"
    role = EFFORT_OUT


@register_element
class Sf(_Source):
    """Flow source: imposes f(t). A zero flow source acts as an ideal constraint.

    Parameters are those of `Se`, for the flow.
    """

    type_name = "Sf"
    role = FLOW_OUT
    _param = "flow"


# --------------------------------------------------------------------------- storages
class _Storage1(StorageElement):
    """One-port storage (C or I) with a state block, linear or from a Hamiltonian."""

    _state = "q"
    _ptype = "C"

    def _setup(self, name, matrix, matrix_name, energy, state, gradient, hessian, dim, x0, inverse):
        if (matrix is None) == (energy is None):
            raise ParameterError(
                f"{type(self).__name__} {name!r}: give exactly one of `{matrix_name}` (linear) or `energy`"
            )
        if matrix is not None:
            self.dim = _dim_of(dim, matrix, f"{name}.{matrix_name}")
            self.matrix = as_spd(matrix, f"{name}.{matrix_name}", self.dim) if inverse else as_symmetric_psd(
                matrix, f"{name}.{matrix_name}", self.dim
            )
            self.Q = np.linalg.inv(self.matrix) if inverse else self.matrix  # H = 1/2 x.Q.x
            self.hamiltonian = None
        else:
            self.dim = _dim_of(dim) if not isinstance(state, (list, tuple, sp.MatrixBase)) else len(state)
            self.hamiltonian = Hamiltonian(energy, f"{name}.energy", self.dim, state, gradient, hessian)
            self.matrix = None
            self.Q = None
        self.matrix_name = matrix_name
        x0 = np.zeros(self.dim) if x0 is None else as_array(np.atleast_1d(x0), f"{name}.{self._state}0", (self.dim,))
        self._x0 = x0

    def ports(self):
        return (Port("p", self.dim, "in"),)

    def port_types(self):
        return (self._ptype,)

    def state_blocks(self):
        return (StateBlock(self._state, self.dim, "energy", default=self._x0),)

    @property
    def linear(self):
        return self.Q is not None

    def energy(self, x, refs=()):
        if self.Q is not None:
            return 0.5 * float(x @ self.Q @ x)
        return self.hamiltonian.energy(x)

    def outputs(self, t, x, refs):
        if self.Q is not None:
            return (self.Q @ x,)
        return (self.hamiltonian.gradient(x),)

    def rates(self, t, x, refs, inputs):
        return inputs[0]

    def input_matrix(self, t, x, refs):
        return np.eye(self.dim)

    def output_jacobian(self, t, x, refs):
        return self.Q if self.Q is not None else self.hamiltonian.hessian(x)

    def linear_matrices(self):
        if self.Q is None:
            return None
        return np.zeros((self.dim, self.dim)), np.eye(self.dim), self.Q

    def kernel(self, role):
        """Compiled "outputs" (Q x) and "rates" kernels of a linear storage
        (`porthamiltonian.kernels.linear`); None for a Hamiltonian one (Python path)."""
        if self.Q is None:
            return None
        fn = {"outputs": _linear.storage_outputs, "rates": _linear.storage_rates}.get(role)
        return None if fn is None else Kernel(fn, np.ascontiguousarray(self.Q, float).ravel(),
                                              np.array([self.dim], dtype=np.int64))

    def gradient(self, x, refs=()):
        return self.outputs(0.0, x, refs)[0]

    def structure(self, t, x, refs):
        return np.zeros((self.dim, self.dim)), np.eye(self.dim)

    def parameters(self):
        out = {"dim": self.dim, f"{self._state}0": self._x0.tolist()}
        if self.matrix is not None:
            out[self.matrix_name] = self.matrix.tolist()
        else:
            h = self.hamiltonian.to_json()
            out["energy"] = {"sympy": h["sympy"]}
            out["state"] = h["state"]
        return out

    @classmethod
    def from_parameters(cls, name, params, resolve):
        params = dict(params)
        if "energy" in params:
            params["energy"] = sp.sympify(params["energy"]["sympy"])
            params["state"] = [sp.sympify(s) for s in params["state"]]
        return cls(name, **params)


@register_element
class C(_Storage1):
    """Capacitive storage (spring): state q, effort e = dH/dq, dq/dt = f.

    Parameters
    ----------
    name : str
    stiffness : float or array_like, shape (n, n)
        Linear law H = 1/2 q.K.q with K symmetric positive semidefinite [N/m or 1/F].
    compliance : float or array_like, shape (n, n)
        Linear law with C symmetric positive definite, H = 1/2 q.C^-1.q.
    energy : callable or sympy expression
        Nonlinear H(q). For sympy, `state` gives the symbols of q.
    state : sympy.Symbol or list of Symbol
        State symbols of a sympy `energy`.
    gradient, hessian : callable, optional
        Derivatives of a callable `energy` (else finite differences).
    dim : int, optional
        Dimension (inferred from the matrix or the symbols).
    q0 : array_like, optional
        Default initial displacement.
    """

    type_name = "C"
    _state = "q"
    _ptype = "C"

    def __init__(self, name, *, stiffness=None, compliance=None, energy=None, state=None,
                 gradient=None, hessian=None, dim=None, q0=None):
        super().__init__(name)
        if stiffness is not None and compliance is not None:
            raise ParameterError(f"C {name!r}: give `stiffness` or `compliance`, not both")
        if compliance is not None:
            self._setup(name, compliance, "compliance", energy, state, gradient, hessian, dim, q0, inverse=True)
        else:
            self._setup(name, stiffness, "stiffness", energy, state, gradient, hessian, dim, q0, inverse=False)


@register_element
class I(_Storage1):  # noqa: E742 - the bond-graph name
    """Inertial storage (mass): state p, flow f = dH/dp, dp/dt = e.

    Parameters
    ----------
    name : str
    mass : float or array_like, shape (n, n)
        Linear law H = 1/2 p.M^-1.p, M symmetric positive definite [kg].
    energy : callable or sympy expression
        Nonlinear H(p); `state` gives the symbols of p for sympy.
    state, gradient, hessian, dim
        As for `C`.
    p0 : array_like, optional
        Default initial momentum.
    """

    type_name = "I"
    _state = "p"
    _ptype = "I"

    def __init__(self, name, *, mass=None, energy=None, state=None, gradient=None, hessian=None,
                 dim=None, p0=None):
        super().__init__(name)
        self._setup(name, mass, "mass", energy, state, gradient, hessian, dim, p0, inverse=True)


# --------------------------------------------------------------------------- resistor
@register_element
class R(ResistorElement):
    """Resistor (damper): linear e = R f, or a nonlinear law, any dimension.

    Parameters
    ----------
    name : str
    resistance : float or array_like, shape (n, n)
        Symmetric positive semidefinite matrix [N s/m]. If it is definite, both causalities
        are allowed (admittance uses R^-1), so the compiler can pick either.
    law : callable or sympy expression
        Nonlinear law. With ``causality="impedance"``: ``law(f) -> e``; with "admittance":
        ``law(e) -> f``. For sympy give the input symbols as `variables`. The law must be
        passive (law(v) . v >= 0); the ledger reports the dissipated power it produces.
    causality : {"impedance", "admittance"}
        Which variable a nonlinear `law` takes.
    jacobian : callable, optional
        d(law)/d(input) for a callable law (else finite differences).
    variables : sympy.Symbol or list of Symbol
        Input symbols of a sympy `law`.
    dim : int, optional
    """

    type_name = "R"

    def __init__(self, name, resistance=None, *, law=None, causality="impedance", jacobian=None,
                 variables=None, dim=None):
        super().__init__(name)
        if (resistance is None) == (law is None):
            raise ParameterError(f"R {name!r}: give exactly one of `resistance` or `law`")
        if causality not in ("impedance", "admittance"):
            raise ParameterError(
                f"R {name!r}: `causality` must be 'impedance' or 'admittance', got {causality!r}"
            )
        self.causality = causality
        self.law_expr = None
        if resistance is not None:
            self.dim = _dim_of(dim, resistance, f"{name}.resistance")
            self.resistance = as_symmetric_psd(resistance, f"{name}.resistance", self.dim)
            try:
                self.conductance = np.linalg.inv(self.resistance)
                if not np.all(np.isfinite(self.conductance)) or np.linalg.cond(self.resistance) > 1e12:
                    self.conductance = None
            except np.linalg.LinAlgError:
                self.conductance = None
            self._law = None
        else:
            self.resistance = None
            self.conductance = None
            if isinstance(law, (sp.Basic, sp.MatrixBase)):
                vars_ = list(variables) if isinstance(variables, (list, tuple)) else [variables]
                if variables is None:
                    raise ParameterError(f"R {name!r}: a sympy `law` needs its input symbols as `variables`")
                self.dim = len(vars_)
                expr = sp.Matrix([law]) if not isinstance(law, sp.MatrixBase) else sp.Matrix(law).reshape(self.dim, 1)
                if expr.shape[0] != self.dim:
                    raise ParameterError(f"R {name!r}: `law` must have {self.dim} components, got {expr.shape[0]}")
                self.law_expr, self.law_vars = expr, vars_
                f = sp.lambdify([vars_], list(expr), "numpy")
                jf = sp.lambdify([vars_], expr.jacobian(vars_).tolist(), "numpy")
                self._law = lambda v: np.array(f(v), dtype=float).reshape(-1)
                self._law_jac = lambda v: np.array(jf(v), dtype=float).reshape(self.dim, self.dim)
            elif callable(law):
                self.dim = _dim_of(dim)
                self._law = lambda v: np.asarray(law(v), dtype=float).reshape(-1)
                self._law_jac = (lambda v: np.asarray(jacobian(v), dtype=float).reshape(self.dim, self.dim)) if jacobian else None
                probe = self._law(np.zeros(self.dim))
                if probe.shape != (self.dim,):
                    raise ParameterError(f"R {name!r}: `law` must return shape ({self.dim},), got {probe.shape}")
            else:
                raise ParameterError(f"R {name!r}: `law` must be a callable or a sympy expression, got {law!r}")

    @property
    def linear(self):
        return self.resistance is not None

    def ports(self):
        return (Port("p", self.dim, "in"),)

    def causalities(self):
        if self.resistance is not None:
            return ((EFFORT_OUT,), (FLOW_OUT,)) if self.conductance is not None else ((EFFORT_OUT,),)
        return ((EFFORT_OUT,),) if self.causality == "impedance" else ((FLOW_OUT,),)

    def law(self, k, t, inputs, refs):
        v = inputs[0]
        if self.resistance is not None:
            return (self.resistance @ v,) if k == 0 else (self.conductance @ v,)
        return (self._law(v),)

    def linear_matrix(self, k):
        if self.resistance is None:
            return None
        return self.resistance if k == 0 else self.conductance

    def kernel(self, role):
        """Compiled impedance "law" (R f) and "law_jacobian" kernels of a linear resistor
        (`porthamiltonian.kernels.linear`); None for a nonlinear law (Python path)."""
        if self.resistance is None:
            return None
        fn = {"law": _linear.resistor_law, "law_jacobian": _linear.resistor_law_jacobian}.get(role)
        return None if fn is None else Kernel(fn, np.ascontiguousarray(self.resistance, float).ravel(),
                                              np.array([self.dim], dtype=np.int64))

    def law_jacobian(self, k, t, inputs, refs):
        if self.resistance is not None:
            return self.resistance if k == 0 else self.conductance
        if self._law_jac is not None:
            return self._law_jac(inputs[0])
        return super().law_jacobian(k, t, inputs, refs)

    def parameters(self):
        if self.resistance is not None:
            return {"resistance": self.resistance.tolist(), "dim": self.dim}
        if self.law_expr is None:
            from ..errors import SerializationError

            raise SerializationError(f"{self.label}: a Python-callable `law` cannot be saved; use sympy")
        return {
            "law": sp.srepr(self.law_expr),
            "variables": [sp.srepr(v) for v in self.law_vars],
            "causality": self.causality,
        }

    @classmethod
    def from_parameters(cls, name, params, resolve):
        params = dict(params)
        if "law" in params:
            params["law"] = sp.sympify(params["law"])
            params["variables"] = [sp.sympify(v) for v in params["variables"]]
        return cls(name, **params)


# --------------------------------------------------------------------------- two-ports
class _ConstTwoPort(TwoPortElement):
    def __init__(self, name, modulus, *, dim=None):
        super().__init__(name)
        m = as_array(modulus, f"{name}.modulus")
        if m.ndim == 0:
            n = _dim_of(dim)
            m = float(m) * np.eye(n)
        elif m.ndim != 2:
            raise ParameterError(f"`{name}.modulus` must be a scalar or a matrix, got shape {m.shape}")
        if m.ndim == 2 and np.linalg.norm(m) == 0:
            raise ParameterError(f"`{name}.modulus` must not be zero")
        self.m = m
        self.n2, self.n1 = m.shape
        self._inv = None
        if self.n1 == self.n2 and np.linalg.cond(m) < 1e12:
            self._inv = np.linalg.inv(m)

    def ports(self):
        return (Port("p1", self.n1, "in"), Port("p2", self.n2, "out"))

    def modulus(self, t, refs):
        return self.m

    def modulus_rate(self, t, refs, ref_rates):
        return np.zeros_like(self.m)

    def invertible(self):
        return self._inv is not None

    def parameters(self):
        return {"modulus": self.m.tolist()}


@register_element
class TF(_ConstTwoPort):
    """Transformer: f2 = m f1, e1 = m^T e2 (m scalar or matrix of shape (n2, n1)).

    Parameters
    ----------
    name : str
    modulus : float or array_like, shape (n2, n1)
        A scalar means ``modulus * I`` of dimension `dim`.
    dim : int, optional
        Dimension for a scalar modulus (default 1).
    """

    type_name = "TF"
    kind = "TF"


@register_element
class GY(_ConstTwoPort):
    """Gyrator: e2 = m f1, e1 = m^T f2 (m scalar or matrix of shape (n2, n1)).

    Parameters are those of `TF`.
    """

    type_name = "GY"
    kind = "GY"


class _ModTwoPort(TwoPortElement):
    def __init__(self, name, modulus, *, shape=None, refs=(), modulus_rate=None, invertible=False):
        super().__init__(name)
        self._refs = tuple(refs)
        for r in self._refs:
            if not isinstance(r, StateRef):
                raise ParameterError(f"`{name}.refs` must contain StateRef objects, got {r!r}")
        self._rate = modulus_rate
        self._invertible = bool(invertible)
        if isinstance(modulus, (sp.Basic, sp.MatrixBase)):
            if self._refs:
                raise ParameterError(f"`{name}.modulus`: a sympy modulus may depend on t only")
            expr = sp.Matrix([[modulus]]) if not isinstance(modulus, sp.MatrixBase) else sp.Matrix(modulus)
            self.expr = expr
            sig = TimeFunction(expr.reshape(expr.shape[0] * expr.shape[1], 1), f"{name}.modulus")
            shp = expr.shape
            self._fun = lambda t, *r: sig(t).reshape(shp)
            self._rate = lambda t, *r: sig.rate(t).reshape(shp)
            shape = shp
        elif callable(modulus):
            self.expr = None
            self._fun = modulus
            if shape is None:
                raise ParameterError(f"`{name}`: give the modulus `shape` (n2, n1) for a callable modulus")
        else:
            raise ParameterError(
                f"`{name}.modulus` must be a callable modulus(t, *refs) or a sympy expression in t, got {modulus!r}"
            )
        if not (
            isinstance(shape, (tuple, list))
            and len(shape) == 2
            and all(isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) for k in shape)
            and min(shape) >= 1
        ):
            raise ParameterError(f"`{name}.shape` must be (n2, n1) with positive integer sizes, got {shape!r}")
        self.n2, self.n1 = int(shape[0]), int(shape[1])

    def ports(self):
        return (Port("p1", self.n1, "in"), Port("p2", self.n2, "out"))

    def state_refs(self):
        return self._refs

    @property
    def modulated(self):
        return True

    def modulus(self, t, refs):
        return np.asarray(self._fun(t, *refs), dtype=float).reshape(self.n2, self.n1)

    def modulus_rate(self, t, refs, ref_rates):
        if self._rate is not None:
            return np.asarray(self._rate(t, *refs, *ref_rates), dtype=float).reshape(self.n2, self.n1)
        return super().modulus_rate(t, refs, ref_rates)

    def invertible(self):
        return self._invertible and self.n1 == self.n2

    def parameters(self):
        if self.expr is None:
            from ..errors import SerializationError

            raise SerializationError(f"{self.label}: a Python-callable modulus cannot be saved; use sympy in t")
        return {"modulus": sp.srepr(self.expr), "invertible": self._invertible}

    @classmethod
    def from_parameters(cls, name, params, resolve):
        return cls(name, sp.sympify(params["modulus"]), invertible=params.get("invertible", False))


@register_element
class MTF(_ModTwoPort):
    """Modulated transformer: f2 = m(t, refs) f1, e1 = m^T e2.

    Parameters
    ----------
    name : str
    modulus : callable or sympy expression in t
        ``modulus(t, *refs) -> ndarray, shape (n2, n1)``, where refs are the referenced state
        blocks (e.g. the pose of a body for a frame change); or a sympy Matrix in t.
    shape : tuple (n2, n1)
        Modulus shape (required for a callable).
    refs : sequence of StateRef
        State blocks the modulus reads.
    modulus_rate : callable, optional
        ``modulus_rate(t, *refs, *ref_rates) -> d(modulus)/dt``; needed exactly only when the
        element lies between a constraint and the storages (else a finite difference is used).
    invertible : bool
        Allow the reverse causality (the compiler then solves with the modulus).
    """

    type_name = "MTF"
    kind = "TF"


@register_element
class MGY(_ModTwoPort):
    """Modulated gyrator: e2 = m(t, refs) f1, e1 = m^T f2. Parameters are those of `MTF`."""

    type_name = "MGY"
    kind = "GY"
