"""Surfaces evaluated by the compiled kernels of `porthamiltonian.kernels.surfaces`.

Every built-in surface kind is packed once, at construction, into the arrays ``(F, I)`` of
that module, whose `derivatives` is then the one implementation of its evaluation: the
public `Surface.derivatives`, the closest-point search and the simulation's hot path all
call it.

- Separable surfaces ``f(u, v) = phi(u)^T C psi(v)`` (per component), with bases closed under
  differentiation, ``phi = (cos u, sin u, 1)`` (`TRIG`) or ``phi = (u, 1)`` (`LINEAR``), so
  that ``d^(i+j) f / du^i dv^j = (d^i phi)^T C (d^j psi)``: planes, ellipsoids and spheres,
  tori, cylinders.
- Piecewise polynomials in local Taylor form on every span pair: Bezier patches, B-spline and
  NURBS surfaces.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..kernels import closest as _kclosest
from ..kernels import surfaces as _k
from .surface import Surface

TRIG = _k.TRIG
LINEAR = _k.LINEAR


class CompiledSurface(Surface):
    """Base of the built-in surfaces: subclasses set ``_domains``, then call
    `_init_separable` or `_init_piecewise`."""

    _is_compiled = True

    def _init_separable(self, C_per_chart, basis_u: int, basis_v: int, atlas: int = _k.ATLAS_SINGLE,
                        shape: int = _k.SHAPE_GENERAL):
        n = len(self._domains)
        # the regularity scale is filled in by `_kernel_spec` (it needs the evaluation itself)
        self._F, self._I = _k.pack_separable(C_per_chart, basis_u, basis_v, self._domains,
                                             np.zeros((n, 2)), self.chart_switch_margin, atlas, shape)

    def _init_piecewise(self, edges_u, edges_v, p: int, q: int, coeffs, dim: int, *, wrap=(False, False)):
        self._F, self._I = _k.pack_piecewise(edges_u, edges_v, p, q, coeffs, dim, self._domains[0],
                                             np.zeros((1, 2)), self.chart_switch_margin, *wrap)

    def _derivatives(self, u, v, order, chart):
        return _k.derivatives(self._F, self._I, float(u), float(v), int(order), int(chart))

    def _chart_map(self, u, v, src, dst):
        return _k.chart_map(self._F, self._I, float(u), float(v), int(src), int(dst))

    @cached_property
    def _kernel_spec(self):
        """``(F, I)``: the packed surface for `porthamiltonian.kernels`, regularity scale
        included."""
        F = self._F.copy()
        for c in range(self._I[1]):
            F[1 + _k.DOMAIN_SIZE * c + 10 : 1 + _k.DOMAIN_SIZE * c + 12] = self._reference_speeds[c]
        # left writeable: numba compiles read-only arrays as another type (a second compile),
        # and deep copies of models (compile) make them writeable anyway
        return F, self._I

    @cached_property
    def _bound_spec(self):
        """Bound for the culling test (`porthamiltonian.kernels.closest.separation_bound`): the
        sphere around the bounding box (exact for the analytic kinds, the control net's hull
        for Bezier, B-spline and NURBS patches, so it contains the surface); none when the
        surface is unbounded."""
        box = self._bbox
        B = np.zeros(7)
        if np.all(np.isfinite(box)):
            B[0] = _kclosest.BOUND_SPHERE
            B[1:4] = 0.5 * (box[0] + box[1])
            B[4] = 0.5 * float(np.linalg.norm(box[1] - box[0]))
        return B
