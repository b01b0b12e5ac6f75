"""Microseconds per scalar surface evaluation on the hot path (``Surface._derivatives``).

Run: ``python benchmarks/bench_geometry.py``. Prints one line per surface and order, the
best of several repeats (least disturbed by other processes), and the validated public call
and the Gauss-map kernels for comparison.
"""

import math
import timeit

import numpy as np
import sympy as sp

from porthamiltonian.geometry import (
    BSplineSurface,
    Ellipsoid,
    ParameterDomain,
    SymbolicSurface,
    Torus,
    normal_derivatives,
    principal_curvatures,
    shape_operator,
    unit_normal,
)


def bicubic_nurbs():
    rng = np.random.default_rng(0)
    n = 10
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n), indexing="ij")
    P = np.stack((x, y, 0.2 * np.sin(3 * x) * np.cos(2 * y)), axis=-1)
    knots = np.r_[np.zeros(4), np.linspace(0, 1, n - 2)[1:-1], np.ones(4)]
    return BSplineSurface(knots, knots, 3, 3, P, rng.uniform(0.5, 2.0, (n, n)))


def sympy_surface():
    u, v = sp.symbols("u v")
    expr = [(2 + sp.cos(v)) * sp.cos(u) + u * v / 5, (2 + sp.cos(v)) * sp.sin(u), sp.sin(v) + sp.exp(u / 3) / 10]
    return SymbolicSurface(expr, u, v, ParameterDomain((-1.0, -1.0), (1.0, 1.0)))


def per_call_us(fun, number=20000, repeat=7):
    return min(timeit.repeat(fun, number=number, repeat=repeat)) / number * 1e6


def main():
    surfaces = {
        "ellipsoid": Ellipsoid(1.0, 0.6, 0.4),
        "torus": Torus(1.0, 0.3),
        "bicubic NURBS (10x10)": bicubic_nurbs(),
        "sympy surface": sympy_surface(),
    }
    u, v = 0.31, 0.27
    print(f"{'surface':<24}{'_derivatives(2)':>17}{'_derivatives(3)':>17}{'derivatives(3)':>16}")
    for name, s in surfaces.items():
        t2 = per_call_us(lambda: s._derivatives(u, v, 2, 0))
        t3 = per_call_us(lambda: s._derivatives(u, v, 3, 0))
        tp = per_call_us(lambda: s.derivatives(u, v, 3, 0), number=5000)
        print(f"{name:<24}{t2:>14.2f} us{t3:>14.2f} us{tp:>13.2f} us")
    D = surfaces["ellipsoid"]._derivatives(u, v, 3, 0)
    print("kernels on a (4, 4, 3) derivative array:")
    for label, fun in [("unit_normal", lambda: unit_normal(D)),
                       ("normal_derivatives(order=1)", lambda: normal_derivatives(D, 1)),
                       ("normal_derivatives(order=2)", lambda: normal_derivatives(D, 2)),
                       ("shape_operator", lambda: shape_operator(D)),
                       ("principal_curvatures", lambda: principal_curvatures(D))]:
        print(f"  {label:<30}{per_call_us(fun, number=5000):>8.2f} us")
    print(f"(math.cos for scale: {per_call_us(lambda: math.cos(u)):.3f} us)")


if __name__ == "__main__":
    main()
