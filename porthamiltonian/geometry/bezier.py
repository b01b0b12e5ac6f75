"""Tensor-product Bezier patch of any degree."""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_array
from ..errors import ParameterError
from ._compiled import CompiledSurface
from .domain import ParameterDomain

__all__ = ["BezierPatch"]


def _bezier_taylor(p: int) -> np.ndarray:
    """``T[c, a]``: coefficient of ``t^c`` (``t = u - 1/2``) in the Bernstein polynomial
    ``B_{a,p}(u)``, from the Bernstein difference formula
    ``d^c/du^c sum_a P_a B_{a,p} = p!/(p-c)! sum_j (Delta^c P)_j B_{j,p-c}``."""
    T = np.zeros((p + 1, p + 1))
    for c in range(p + 1):
        # (Delta^c P)_j = sum_i (-1)^(c-i) C(c, i) P_{j+i}
        delta = np.zeros((p - c + 1, p + 1))
        for j in range(p - c + 1):
            for i in range(c + 1):
                delta[j, j + i] = (-1.0) ** (c - i) * math.comb(c, i)
        bern = np.array([math.comb(p - c, j) for j in range(p - c + 1)]) / 2.0 ** (p - c)
        T[c] = math.comb(p, c) * (bern @ delta)   # p!/(p-c)! / c! = C(p, c)
    return T


class BezierPatch(CompiledSurface):
    """Polynomial Bezier patch ``f(u, v) = sum_ab P_ab B_{a,p}(u) B_{b,q}(v)`` on [0, 1]^2.

    Parameters
    ----------
    control_points : array_like, shape (p+1, q+1, 3)
        Control net [m]; degrees ``p, q >= 1``.

    Raises
    ------
    ParameterError
        If the control net has the wrong shape or non-finite entries.

    Notes
    -----
    Derivatives by Bernstein differences (Piegl & Tiller, The NURBS Book, sec. 1.3):
    ``d^(k+l) f / du^k dv^l = p!/(p-k)! q!/(q-l)! sum_ab Delta^(k,l) P_ab B_{a,p-k}(u)
    B_{b,q-l}(v)``, evaluated once at the centre of the patch to give the Taylor form used for evaluation
    (`porthamiltonian.kernels.surfaces`, kind PIECEWISE). Material side: the normal ``f_u x f_v`` points out of the material.
    The bounding box is the hull of the control net (convex hull property).

    Examples
    --------
    >>> import numpy as np
    >>> net = np.array([[[0, 0, 0], [0, 1, 0]], [[1, 0, 0], [1, 1, 0]]], dtype=float)
    >>> BezierPatch(net).point(0.5, 0.25).tolist()
    [0.5, 0.25, 0.0]
    """

    def __init__(self, control_points):
        P = as_array(control_points, "control_points", (None, None, 3))
        if P.shape[0] < 2 or P.shape[1] < 2:
            raise ParameterError(f"`control_points` needs at least 2 x 2 points (degree >= 1 in "
                                 f"each direction), got shape {P.shape}")
        p, q = P.shape[0] - 1, P.shape[1] - 1
        coeffs = np.einsum("ca,db,abk->cdk", _bezier_taylor(p), _bezier_taylor(q), P)
        self._P = P
        self._P.flags.writeable = False
        self._domains = (ParameterDomain((0.0, 0.0), (1.0, 1.0)),)
        self._init_piecewise((0.0, 1.0), (0.0, 1.0), p, q, coeffs.reshape(1, 1, p + 1, (q + 1) * 3), 3)

    @property
    def control_points(self) -> np.ndarray:
        """Control net, shape (p+1, q+1, 3) [m] (read-only)."""
        return self._P

    @property
    def degrees(self) -> tuple[int, int]:
        """Degrees ``(p, q)``."""
        return self._P.shape[0] - 1, self._P.shape[1] - 1

    def __repr__(self) -> str:
        return f"BezierPatch(degrees={self.degrees})"

    def _bounding_box(self):
        flat = self._P.reshape(-1, 3)
        return np.array((flat.min(axis=0), flat.max(axis=0)))
