"""Separable surfaces ``f(u, v) = phi(u)^T C psi(v)`` (per component), evaluated by a kernel.

With bases closed under differentiation, ``phi = (cos u, sin u, 1)`` (`TRIG`) or
``phi = (u, 1)`` (`LINEAR`), every partial is again separable::

    d^(i+j) f / du^i dv^j = (d^i phi)^T C (d^j psi)

Planes, ellipsoids (and spheres), tori and cylinders are of this form; they hold their
coefficients packed for `porthamiltonian.kernels.surfaces`, whose `derivatives` is the one
implementation of their evaluation (the public `Surface.derivatives` and the simulation's
hot path both call it).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..kernels import surfaces as _k
from .surface import Surface

TRIG = _k.TRIG
LINEAR = _k.LINEAR


class SeparableSurface(Surface):
    """Base of the separable built-in surfaces: subclasses call `_init_separable` after
    setting ``_domains``."""

    def _init_separable(self, C_per_chart, basis_u: int, basis_v: int, atlas: int = _k.ATLAS_SINGLE):
        n = len(self._domains)
        # the regularity scale is filled in by `_kernel_spec` (it needs the evaluation itself)
        self._F, self._I = _k.pack_separable(C_per_chart, basis_u, basis_v, self._domains,
                                             np.zeros((n, 2)), self.chart_switch_margin, atlas)

    def _derivatives(self, u, v, order, chart):
        return _k.derivatives(self._F, self._I, float(u), float(v), int(order), int(chart))

    def _chart_map(self, u, v, src, dst):
        return _k.chart_map(self._F, self._I, float(u), float(v), int(src), int(dst))

    @cached_property
    def _kernel_spec(self):
        """``(F, I)``: the packed surface for `porthamiltonian.kernels`, regularity scale
        included."""
        F = self._F.copy()
        n = self._I[1]
        for c in range(n):
            F[1 + _k.DOMAIN_SIZE * c + 10 : 1 + _k.DOMAIN_SIZE * c + 12] = self._reference_speeds[c]
        F.flags.writeable = False
        return F, self._I
