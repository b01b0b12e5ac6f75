"""DOP853 whose interpolant never holds NaN where its step was accepted.

scipy's `DOP853` builds the interpolant of an accepted step from three extra evaluations of
the right-hand side (stages 13-15 of Dormand and Prince's continuous extension, at 0.1, 0.2
and 0.78 of the step), made only when the interpolant is asked for (solve_ivp asks for it at
an event's crossing, for `t_eval` points inside the step, and with ``dense_output=True``).
Those points are not stages of the step itself, so the step's error control never sees
them: when the rates cannot be evaluated there (`simulate`'s right-hand side returns NaN for a
state outside the model's range, such as a contact point beyond its chart), scipy's
interpolant is NaN across the step while the run goes on: NaN samples, NaN event values and
interpolated states (issue 36: the rimless wheel with 10 um feet).

`DOP853` here keeps scipy's steps and interpolant, and where an extra stage is not finite it
interpolates the step by integrating it again from its start in shorter steps (`_Reintegrated`).
The other methods need no such guard: RK23's and RK45's interpolants use the step's own
stages, Radau's, BDF's and LSODA's none.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import DOP853 as _ScipyDOP853
from scipy.integrate import DenseOutput, solve_ivp
from scipy.integrate._ivp import dop853_coefficients
from scipy.integrate._ivp.rk import Dop853DenseOutput

from ..errors import IntegrationError

__all__ = ["DOP853"]


class DOP853(_ScipyDOP853):
    """scipy's explicit Runge-Kutta method of order 8 (`scipy.integrate.DOP853`), whose
    interpolant is finite wherever the step is.

    Parameters
    ----------
    fun, t0, y0, t_bound, max_step, rtol, atol, vectorized, first_step
        As for `scipy.integrate.DOP853`.

    Notes
    -----
    The steps, their count of evaluations and, where the extra stages of the continuous
    extension are finite, the interpolant are scipy's, bit for bit (same points, same
    arithmetic, same order). Where an extra stage is not finite, the interpolant of that step
    is the step integrated again from its start by this method with dense output, at the
    same tolerances and a first step of a quarter of the step (so no extra stage falls where
    the failing one did; the re-integration's own steps shrink where their stages cannot be
    evaluated, and their interpolants are guarded the same way), plus the linear-in-time
    correction that makes it end on the accepted step's end state (a tolerance-sized
    difference between two integrations of the same interval). The re-integration runs once,
    when the interpolant is first asked for, and costs evaluations in those steps only. If it
    fails, the interpolant raises `IntegrationError` saying when (the step, the failing
    stage's time) and why (the re-integration's message): solve_ivp stops there, and
    `simulate` reports the failure with the accepted steps kept.

    Attributes
    ----------
    n_reintegrated : int
        Steps whose interpolant had to be re-integrated.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.integrate import solve_ivp
    >>> sol = solve_ivp(lambda t, y: -y, (0.0, 1.0), [1.0], method=DOP853, rtol=1e-10, atol=1e-12)
    >>> bool(abs(sol.y[0, -1] - np.exp(-1.0)) < 1e-10)
    True
    """

    #: the re-integration's first step, as a fraction of the step it replaces
    REINTEGRATION_FIRST_STEP = 0.25

    def __init__(self, fun, t0, y0, t_bound, max_step=np.inf, rtol=1e-3, atol=1e-6, vectorized=False,
                 first_step=None, **extraneous):
        super().__init__(fun, t0, y0, t_bound, max_step, rtol, atol, vectorized, first_step, **extraneous)
        self.n_reintegrated = 0

    def _dense_output_impl(self):
        """scipy's interpolant (the same code), or the re-integrated step where an extra stage
        is not finite."""
        K = self.K_extended
        h = self.h_previous
        for s, (a, c) in enumerate(zip(self.A_EXTRA, self.C_EXTRA), start=self.n_stages + 1):
            dy = np.dot(K[:s].T, a[:s]) * h
            K[s] = self.fun(self.t_old + c * h, self.y_old + dy)
            if not np.all(np.isfinite(K[s])):
                self.n_reintegrated += 1
                return _Reintegrated(self, self.t_old + c * h)
        F = np.empty((dop853_coefficients.INTERPOLATOR_POWER, self.n), dtype=self.y_old.dtype)
        f_old = K[0]
        delta_y = self.y - self.y_old
        F[0] = delta_y
        F[1] = h * f_old - delta_y
        F[2] = 2 * delta_y - h * (self.f + f_old)
        F[3:] = h * np.dot(self.D, K)
        return Dop853DenseOutput(self.t_old, self.t, self.y_old, F)


class _Reintegrated(DenseOutput):
    """The interpolant of one DOP853 step whose extra stage at `t_bad` is not finite: the step
    integrated again in shorter steps, corrected linearly to end on the step's end state
    (`DOP853` notes). Built when first called."""

    def __init__(self, solver, t_bad):
        super().__init__(solver.t_old, solver.t)
        self.fun, self.rtol, self.atol, self.max_step = solver.fun, solver.rtol, solver.atol, solver.max_step
        self.y_old, self.y1 = solver.y_old.copy(), solver.y.copy()
        self.t_bad = t_bad
        self.sol = self.gap = None

    def _build(self):
        h = self.t - self.t_old
        # (an IntegrationError of the right-hand side, such as simulate's evaluation budget, or
        # of a re-integrated step's own interpolant, says its own when and why: it propagates)
        sol = solve_ivp(self.fun, (self.t_old, self.t), self.y_old, method=DOP853, rtol=self.rtol, atol=self.atol,
                        max_step=self.max_step, first_step=abs(h) * DOP853.REINTEGRATION_FIRST_STEP, dense_output=True)
        if sol.status != 0:
            raise IntegrationError(
                f"DOP853: the rates are not finite at t = {self.t_bad:.9g} s, an extra stage of the interpolant of "
                f"the step from t = {self.t_old:.9g} s to t = {self.t:.9g} s, and integrating that step again in "
                f"shorter steps failed: {sol.message}")
        self.sol = sol.sol
        self.gap = self.y1 - sol.y[:, -1]

    def _call_impl(self, t):
        if self.sol is None:
            self._build()
        s = (np.asarray(t, dtype=float) - self.t_old) / (self.t - self.t_old)
        return self.sol(t) + np.multiply.outer(self.gap, s)
