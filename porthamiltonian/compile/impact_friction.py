"""Coulomb friction in an impulse (`porthamiltonian.compile.system.PHSystem.apply_impulse`).

Between impacts a sliding-plane contact with Coulomb friction pushes along its effort map D
(the normal row plus the regularized friction against the slip, `ConstraintElement.effort_map`);
an impulse directed by the rows J alone is frictionless. Here the impulse of each such contact
k taking part is directed by::

    J_k + s_k sigma_k (D_k - J_k),     0 <= s_k <= 1,

D_k frozen at the state before the impulse, ``sigma_k`` its element's
`ConstraintElement.impact_friction` (the factor to Coulomb's full mu Lambda_k along the slip v_k
before the impulse), and ``s_k`` the largest value for which the slip does not reverse along
v_k: s_k = 1 where the contact slides through the impulse (friction impulse mu Lambda_k), else
the value that ends the impulse with no slip along v_k (friction impulse below mu Lambda_k: the
contact sticks), 0 where even the frictionless impulse reverses it or Lambda_k <= 0. The
columns of the impulse matrices A and G (`codegen`: rows and state change per unit multiplier)
are linear in each contact's direction, so A(s) and G(s) blend the associated evaluation's
columns with the non-associated one's exactly.

This is Coulomb's law with the friction's direction fixed by the slip before the impulse (the
classical stick-or-slide impact): exact where the contact's tangential mobility keeps that
direction (a sphere on a plane: Routh's oblique impact, stick if ``(2/7) |v_t| <= mu (1 + e) v_n``
for a solid ball); where the mobility turns the slip, the slip across v_k left by the impulse is
left to the regularized friction after it. A friction impulse never reverses the slip, so it
only dissipates: its work over the impulse, ``sigma_k s_k Lambda_k (D_k - J_k) f_mean =
s_k mu Lambda_k (v_k . v_mean) / |v_k| >= 0``, is booked as absorbed by the contact.
"""

from __future__ import annotations

import numpy as np

from ..bondgraph.element import ConstraintElement
from .plan import active_rows

__all__ = ["ImpactFriction"]


class ImpactFriction:
    """The frictional contacts of one impulse at state x and their blended impulse matrices.

    Parameters
    ----------
    system : PHSystem
    t, x : the time and the state before the impulse (contacts set as the impulse solves them)
    ev : the associated full evaluation at (t, x) (its ``A``, ``Gx``)
    paths : the constraint paths taking part
    """

    #: Gauss-Seidel sweeps over the contacts' s at most, and the change of s that ends them
    MAX_SWEEPS = 30
    S_TOL = 1e-13

    def __init__(self, system, t, x, ev, paths):
        plan = system._plan
        self.A, self.Gx = ev["A"], ev["Gx"]
        self.paths, cols, sigma, rows, q = [], [], [], [], []
        evd = None
        for c in plan.constraints:
            if c["path"] not in paths or type(c["obj"]).impact_friction is ConstraintElement.impact_friction:
                continue
            if evd is None:
                evd = system._rhs(t, x, system._u0, True, False)
            J, D, F = evd["maps"][c["path"]]
            dj = np.asarray(D[0] - J[0], dtype=float)
            qk = float(dj @ F)
            sk = c["obj"].impact_friction(qk)
            if sk is None:
                continue
            self.paths.append(c["path"])
            cols.append(np.arange(len(ev["u"]))[c["lam"].unknown][0])
            sigma.append(sk)
            rows.append(dj)
            q.append(qk)
        self.cols = np.array(cols, dtype=int)
        if not self.paths:
            return
        self.sigma, self.q = np.array(sigma), np.array(q)
        self.dA = (evd["A"] - self.A)[:, self.cols] * self.sigma
        self.dG = (evd["Gx"] - self.Gx)[:, self.cols] * self.sigma
        # (D_k - J_k) . f is linear in the momenta: its change per unit of each column of G
        # (the associated columns, then the friction columns), one evaluation per column. An
        # inactive row's multiplier is zero in every impulse (its row of A is the identity, its
        # target its residual: `plan.active_rows`), so its column is not evaluated (Go1's
        # trot: 16 evaluations per impulse before, ~9 now)
        f0 = [evd["maps"][p][2] for p in self.paths]
        dirs = np.concatenate((self.Gx, self.dG), axis=1)
        needed = np.ones(dirs.shape[1], dtype=bool)
        unknowns = np.arange(len(ev["u"]))
        for c in plan.constraints:
            needed[unknowns[c["lam"].unknown]] = active_rows(c, x) > 0.5
        self.psi = np.zeros((len(self.paths), dirs.shape[1]))
        for j in np.flatnonzero(needed):
            maps = system._rhs(t, x + dirs[:, j], system._u0, True, True)["maps"]
            for k, p in enumerate(self.paths):
                self.psi[k, j] = rows[k] @ (maps[p][2] - f0[k])

    def __bool__(self):
        return bool(self.paths)

    def matrices(self, s):
        """``(A(s), G(s))``: the impulse matrices with contact k's column directed by
        J_k + s_k sigma_k (D_k - J_k)."""
        if not self.paths:
            return self.A, self.Gx
        A, G = self.A.copy(), self.Gx.copy()
        A[:, self.cols] += self.dA * s
        G[:, self.cols] += self.dG * s
        return A, G

    def slip_ratio(self, lam, s):
        """Per contact, the slip after the impulse ``lam`` along the slip before it, over ``|v_k|^2``:
        1 unchanged, 0 stuck along v_k, negative reversed."""
        z = np.concatenate((lam, s * lam[self.cols]))
        return 1.0 + (self.psi @ z) / self.q

    def settle(self, solve):
        """``(s, result)``: the contacts' s (module docstring) and ``solve(A(s), G(s))`` there;
        `solve` returns ``(lam, ...)`` or None (no impulse solves it: then this returns None).
        Each s_k is found with the others held (Gauss-Seidel), by the Illinois variant of false
        position on its slip ratio."""
        n = len(self.paths)
        s = np.ones(n)
        if not n:
            out = solve(self.A, self.Gx)
            return None if out is None else (s, out)
        if solve(*self.matrices(s)) is None:
            s[:] = 0.0
        for _ in range(self.MAX_SWEEPS):
            moved = 0.0
            for k in range(n):
                sk = self._settle_one(k, s, solve)
                moved, s[k] = max(moved, abs(sk - s[k])), sk
            if moved <= self.S_TOL:
                break
        out = solve(*self.matrices(s))
        if out is None:
            s[:] = 0.0
            out = solve(self.A, self.Gx)
        return None if out is None else (s, out)

    def _settle_one(self, k, s, solve):
        """The largest s_k in [0, 1] with the others held whose impulse leaves contact k's slip
        ratio >= 0 (0 where Lambda_k <= 0)."""
        col = self.cols[k]

        def ratio(v):
            s2 = s.copy()
            s2[k] = v
            out = solve(*self.matrices(s2))
            if out is None:
                return None
            lam = out[0]
            return self.slip_ratio(lam, s2)[k] if lam[col] > 0.0 else None

        hi_r = ratio(1.0)
        if hi_r is not None and hi_r >= 0.0:
            return 1.0
        lo_r = ratio(0.0)
        if lo_r is None or lo_r < 0.0:
            return 0.0
        # between them the slip ratio falls to 0 (sticking), or to minus infinity where friction
        # reverses the normal mobility (Painleve: A_kk(s) crosses 0, Lambda_k changes sign through
        # infinity); either way the largest admissible s_k is where it reaches 0
        hi_r = -1.0 if hi_r is None else hi_r
        lo, hi, side = 0.0, 1.0, 0
        for _ in range(200):
            m = hi - hi_r * (hi - lo) / (hi_r - lo_r)
            if not lo < m < hi:
                m = 0.5 * (lo + hi)
            r = ratio(m)
            if r is None:
                hi, hi_r = m, -1.0
                continue
            if r >= 0.0:
                lo, lo_r = m, r
                hi_r = hi_r * 0.5 if side == 1 else hi_r
                side = 1
            else:
                hi, hi_r = m, r
                lo_r = lo_r * 0.5 if side == -1 else lo_r
                side = -1
            if hi - lo <= self.S_TOL or lo_r <= 1e-14:
                break
        return lo

    def works(self, lam, s):
        """Per contact path the friction impulse's work absorbed [J]:
        s_k sigma_k Lambda_k (D_k - J_k) . f_mean (module docstring)."""
        if not self.paths:
            return {}
        rho = self.slip_ratio(lam, s)
        absorbed = s * lam[self.cols] * self.q * 0.5 * (1.0 + rho) * self.sigma
        return {p: float(a) for p, a in zip(self.paths, absorbed)}

