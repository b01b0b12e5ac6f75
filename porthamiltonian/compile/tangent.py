"""Local coordinates on the state of a compiled system: x = x0 (+) delta.

The physical state of a `PHSystem` lives partly on Lie groups (a rigid body's pose is a unit
quaternion and a position, 7 numbers for 6 degrees of freedom). Linear analysis needs a
vector space: the tangent space at the expansion point x0, with one coordinate per degree of
freedom. Per state block (`porthamiltonian.bondgraph.ports.StateBlock`):

    group "R"           delta = x - x0 (names "element.block[i]", as `StateLayout.names`)
    group "pose"        H = H0 exp(hat(phi, rho)): body-frame exponential coordinates,
                        names "element.block.phi[i]" (rotation) and ".rho[i]" (translation)
    group "quaternion"  R = R0 exp(hat(phi)), names "element.block.phi[i]"

Only blocks of kind "energy" and "configuration" are coordinates. "auxiliary" blocks (contact
parameters: warm starts that the contact elements re-project at every evaluation) and
"discrete" ones (charts, contact flags), and the ledger quadratures, are held at their values
in x0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lie import quaternion, se3, so3

__all__ = ["TangentChart"]

_COORDINATE_KINDS = ("energy", "configuration")


@dataclass(frozen=True)
class _Piece:
    """One state block seen as tangent coordinates: its slice in x and in delta."""

    group: str
    x: slice
    d: slice


class TangentChart:
    """The chart x = x0 (+) delta of a system's state at x0 (module docstring).

    Parameters
    ----------
    layout : StateLayout
        The system's state layout.
    x0 : ndarray, shape (layout.size,)
        Expansion point; its quaternions are normalized.

    Attributes
    ----------
    names : tuple of str
        Names of the tangent coordinates, length `size`.
    size : int
        Dimension of the tangent space (6 per pose, 3 per quaternion, n per vector block).
    """

    def __init__(self, layout, x0):
        pieces, names, at = [], [], 0
        x0 = np.array(x0, dtype=float)
        for b in layout.blocks:
            if b.kind not in _COORDINATE_KINDS:
                continue
            n = b.stop - b.start
            if b.group == "pose":
                x0[b.start : b.start + 4] /= np.linalg.norm(x0[b.start : b.start + 4])
                names += [f"{b.key}.phi[{i}]" for i in range(3)] + [f"{b.key}.rho[{i}]" for i in range(3)]
                dn = 6
            elif b.group == "quaternion":
                x0[b.start : b.stop] /= np.linalg.norm(x0[b.start : b.stop])
                names += [f"{b.key}.phi[{i}]" for i in range(3)]
                dn = 3
            else:
                names += [f"{b.key}[{i}]" if n > 1 else b.key for i in range(n)]
                dn = n
            pieces.append(_Piece(b.group, slice(b.start, b.stop), slice(at, at + dn)))
            at += dn
        self.x0 = x0
        self.names = tuple(names)
        self.size = at
        self._pieces = tuple(pieces)

    def steps(self, step):
        """Finite-difference steps per coordinate, shape (size,): `step` on Lie-group
        coordinates [rad, m], step * max(1, |x0_i|) on vector entries."""
        h = np.full(self.size, float(step))
        for p in self._pieces:
            if p.group == "R":
                h[p.d] = step * np.maximum(1.0, np.abs(self.x0[p.x]))
        return h

    def retract(self, delta):
        """The state x0 (+) delta: ndarray, shape (layout.size,)."""
        x = self.x0.copy()
        for p in self._pieces:
            d = delta[p.d]
            if p.group == "pose":
                q0 = self.x0[p.x][:4]
                H = quaternion.pose_to_matrix(self.x0[p.x]) @ se3.exp(d)
                x[p.x.start : p.x.start + 4] = quaternion.multiply(q0, quaternion.from_rotvec(d[:3]))
                x[p.x.start + 4 : p.x.stop] = H[:3, 3]
            elif p.group == "quaternion":
                x[p.x] = quaternion.multiply(self.x0[p.x], quaternion.from_rotvec(d))
            else:
                x[p.x] = self.x0[p.x] + d
        return x

    def rates(self, delta, x, xdot):
        """d(delta)/dt from the state rate at x = x0 (+) delta.

        Pose: body twist T = (4 G(q)^T dq/dt, R^T dp/dt), d(delta)/dt = J_r(delta)^-1 T
        (`se3.right_jacobian_inverse`); quaternion likewise on SO(3); vector blocks: dx/dt.
        """
        out = np.empty(self.size)
        for p in self._pieces:
            if p.group == "pose":
                q, qd = x[p.x][:4], xdot[p.x][:4]
                w = 4.0 * quaternion.rate_matrix(q).T @ qd
                v = quaternion.to_matrix(q).T @ xdot[p.x][4:]
                out[p.d] = se3.right_jacobian_inverse(delta[p.d]) @ np.concatenate((w, v))
            elif p.group == "quaternion":
                w = 4.0 * quaternion.rate_matrix(x[p.x]).T @ xdot[p.x]
                out[p.d] = so3.right_jacobian_inverse(delta[p.d]) @ w
            else:
                out[p.d] = xdot[p.x]
        return out

    def gradient(self, delta, x, grad_x):
        """d/d(delta) of a function whose gradient in x (at x = x0 (+) delta) is `grad_x`.

        Pose: J_r(delta)^T K(x)^T grad_x with dx/dt = K(x) T (`quaternion.pose_rate`), the
        derivative of the retraction, so only the gradient's tangent part counts.
        """
        out = np.empty(self.size)
        for p in self._pieces:
            g = grad_x[p.x]
            if p.group == "pose":
                q = x[p.x][:4]
                gt = np.concatenate((quaternion.rate_matrix(q).T @ g[:4], quaternion.to_matrix(q).T @ g[4:]))
                out[p.d] = se3.right_jacobian(delta[p.d]).T @ gt
            elif p.group == "quaternion":
                out[p.d] = so3.right_jacobian(delta[p.d]).T @ (quaternion.rate_matrix(x[p.x]).T @ g)
            else:
                out[p.d] = g
        return out

    def rate_matrix(self, n_x):
        """The matrix T, shape (size, n_x), with d(delta)/dt = T dx/dt at delta = 0: K(x0)^+
        (the rate map's pseudo-inverse, `rates`) on pose and quaternion blocks, the identity on
        vector blocks, zero columns for the entries that are not coordinates."""
        T = np.zeros((self.size, n_x))
        for p in self._pieces:
            x = self.x0[p.x]
            if p.group == "pose":
                T[p.d.start : p.d.start + 3, p.x.start : p.x.start + 4] = 4.0 * quaternion.rate_matrix(x[:4]).T
                T[p.d.start + 3 : p.d.stop, p.x.start + 4 : p.x.stop] = quaternion.to_matrix(x[:4]).T
            elif p.group == "quaternion":
                T[p.d, p.x] = 4.0 * quaternion.rate_matrix(x).T
            else:
                T[p.d, p.x] = np.eye(p.x.stop - p.x.start)
        return T
