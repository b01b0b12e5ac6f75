"""Symbolic surfaces on the compiled instruction tape (`kernels.surfaces`, kind ``TAPE``).

Reference: sympy's own evaluation of the same partial derivatives (``lambdify`` with the math
module, an independent code path: sympy's printer and Python's math), on seeded random
points, for expressions covering every instruction, piecewise branches and conditions
included; then central differences of the tape's lower orders (the tape's outputs are
mutually consistent derivatives) and the Python fallback for a function the tape lacks. The
models with tape surfaces (clearance four-bar, spherical Geneva, wheel) are checked on the
compiled right-hand side against the Python one in `test_compiled_rhs`.
"""

import math

import numpy as np
import pytest
import sympy as sp
from numpy.testing import assert_allclose

from porthamiltonian.geometry import ParameterDomain, SymbolicSurface
from porthamiltonian.kernels import surfaces as ks

u, v = sp.symbols("u v")
BOX = ParameterDomain((-0.9, -0.8), (0.9, 0.8))

EXPRESSIONS = {
    "paraboloid": (u, v, (u**2 + v**2) / 2),
    "trig-exp-log": (sp.sin(u) * sp.cos(v) + sp.tan(u / 3), sp.exp(u * v) - sp.log(2 + u),
                     sp.sqrt(3 + u * v) + (2 + v) ** sp.Rational(-3, 2)),
    "inverse-hyperbolic": (sp.asin(u / 2) + sp.acos(v / 2), sp.atan(u * v) + sp.atan2(v, 2 + u),
                           sp.sinh(u) * sp.cosh(v) + sp.tanh(u - v)),
    "powers-division": (u / (1 + v**2), (2 + u) ** sp.Float(1.7) * (1.5 + v) ** u, 1 / (2 + sp.sin(u * v)) ** 3),
    "abs-sign-minmax": (sp.Abs(u - 0.3) * u**2, sp.Max(u, v, 0.1) + sp.Min(u * v, 0.2),
                        sp.sign(v - 0.1) * v**4),
    "piecewise": (sp.Piecewise((u**2, u < 0.2), (sp.sin(u), (u >= 0.2) & (v > 0)), (u**3, True)),
                  sp.Piecewise((v, sp.Ne(u, 0.5) & ~(v > 0.6)), (2 * v, True)),
                  sp.Piecewise((u * v, sp.Eq(u, 0.25) | (v <= -0.5)), (u + v, u > -0.5), (u - v, True)) + 1),
}


def sympy_reference(expr):
    """The partials d^(i+j) f/du^i dv^j (i + j <= 3) by sympy's lambdify (math module), in
    real parameters, the derivative of a step (DiracDelta) taken as zero."""
    ur, vr = sp.symbols("u v", real=True)
    f = sp.Matrix(expr).subs({u: ur, v: vr}, simultaneous=True)
    out = {}
    for i in range(4):
        for j in range(4 - i):
            d = f.diff(ur, i).diff(vr, j) if i + j else f
            d = d.replace(sp.DiracDelta, lambda *args: sp.S.Zero)
            out[(i, j)] = sp.lambdify((ur, vr), list(d), modules="math")
    return out


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_tape_matches_sympy(name):
    S = SymbolicSurface(EXPRESSIONS[name], u, v, BOX)
    assert S.uses_tape and S._is_compiled
    ref = sympy_reference(EXPRESSIONS[name])
    rng = np.random.default_rng(7)
    F, I = S._kernel_spec
    assert I[0] == ks.TAPE
    for _ in range(60):
        uu, vv = rng.uniform(-0.9, 0.9), rng.uniform(-0.8, 0.8)
        for order in range(4):
            D = ks.derivatives(F, I, uu, vv, order, 0)
            assert D.shape == (order + 1, order + 1, 3)
            for (i, j), fn in ref.items():
                if i + j > order:
                    continue
                want = np.array(fn(uu, vv), dtype=float)
                assert_allclose(D[i, j], want, rtol=1e-12, atol=1e-12 * (1 + np.abs(want).max()),
                                err_msg=f"{name}: D[{i}, {j}] of order {order} at ({uu}, {vv})")


def test_piecewise_branches_are_all_taken():
    """The random points above visit every branch of the piecewise expression."""
    S = SymbolicSurface(EXPRESSIONS["piecewise"], u, v, BOX)
    x = [S.derivatives(uu, vv, 0)[0, 0, 0] for uu, vv in ((0.0, 0.3), (0.5, 0.3), (0.5, -0.3))]
    assert_allclose(x, [0.0, math.sin(0.5), 0.125], rtol=1e-15)
    # no final True branch: NaN where no condition holds, as sympy's Piecewise
    S2 = SymbolicSurface((u, v, sp.Piecewise((u, u < 0.5))), u, v, BOX)
    assert math.isnan(S2.derivatives(0.7, 0.0, 0)[0, 0, 2])
    assert S2.derivatives(0.2, 0.0, 0)[0, 0, 2] == 0.2


def test_tape_orders_are_consistent_derivatives():
    """Central differences of each order's output give the next order's (the tapes of the
    four orders are separate programs)."""
    S = SymbolicSurface(EXPRESSIONS["trig-exp-log"], u, v, BOX)
    F, I = S._kernel_spec
    h = 1e-5
    for uu, vv in ((0.1, -0.2), (-0.5, 0.4)):
        for order in range(1, 4):
            D = ks.derivatives(F, I, uu, vv, order, 0)
            lo_up = ks.derivatives(F, I, uu + h, vv, order - 1, 0)
            lo_dn = ks.derivatives(F, I, uu - h, vv, order - 1, 0)
            lv_up = ks.derivatives(F, I, uu, vv + h, order - 1, 0)
            lv_dn = ks.derivatives(F, I, uu, vv - h, order - 1, 0)
            for i in range(order):
                for j in range(order - i):
                    assert_allclose(D[i + 1, j], (lo_up[i, j] - lo_dn[i, j]) / (2 * h), rtol=1e-6, atol=1e-7)
                    assert_allclose(D[i, j + 1], (lv_up[i, j] - lv_dn[i, j]) / (2 * h), rtol=1e-6, atol=1e-7)


def test_ieee_results_instead_of_exceptions():
    """Outside the domain of a function the tape gives NaN or inf (the closest-point search
    rejects such a step) where Python's math would raise."""
    S = SymbolicSurface((u, v, sp.sqrt(1 + u) + sp.log(1 + v) + 1 / (u - 0.5)), u, v, BOX)
    F, I = S._kernel_spec
    D = ks.derivatives(F, I, -2.0, 0.0, 0, 0)
    assert math.isnan(D[0, 0, 2])
    D = ks.derivatives(F, I, 0.5, 0.0, 0, 0)
    assert math.isinf(D[0, 0, 2])


def test_untranslatable_function_falls_back_to_python():
    """A function the tape lacks (erf) is evaluated by sympy's lambdify; its contacts then
    run on the Python right-hand side (the surface says so)."""
    expr = (u, v, sp.erf(u) * v)
    S = SymbolicSurface(expr, u, v, BOX)
    assert not S.uses_tape and not S._is_compiled
    assert S._kernel_spec[1][0] == ks.CALLBACK
    ref = sympy_reference(expr)
    D = S.derivatives(0.3, 0.2, 3)
    for (i, j), fn in ref.items():
        assert_allclose(D[i, j], fn(0.3, 0.2), rtol=1e-14, atol=1e-15)
