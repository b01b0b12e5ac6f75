"""Fixed-step integration as a scipy `OdeSolver`, so events and dense output keep working.

Kry & Pai (*Continuous contact simulation for smooth surfaces*, 2003, sec. 5, Table II) integrate
reduced contact coordinates with the classical fourth-order Runge-Kutta method at fixed steps of 1-64 ms: in reduced coordinates the error
stays on the constraint manifold, so large steps give plausible motion, and the cost of a
simulated second is known in advance. `RK4` is that method behind solve_ivp's interface:
``simulate(system, ..., method="RK4", step=h)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import DenseOutput, OdeSolver

from ..errors import ParameterError

__all__ = ["RK4"]


class RK4(OdeSolver):
    """The classical Runge-Kutta method of order 4 at a fixed step.

    Parameters
    ----------
    fun, t0, y0, t_bound, vectorized
        As for every `scipy.integrate.OdeSolver`.
    step : float
        The step [s], finite and > 0. The last step of an interval is shortened to end on
        `t_bound` (and one within ``1e-9 step`` of it is stretched to it, rather than leave a
        sliver).
    rtol, atol, max_step, first_step
        Accepted (solve_ivp and `simulate` pass them) and unused: a fixed step has no error
        control. `simulate` refuses a `max_step` or `first_step` with this method.

    Notes
    -----
    Four evaluations per step; the derivative at the step's end is the next step's first
    stage. Dense output is the cubic Hermite interpolant of the step's end values and
    derivatives (error ``O(h^4)``, the method's own order), which solve_ivp uses to locate
    events inside a step. A step whose stages leave the model's range (the rates are NaN, as
    `simulate`'s right-hand side returns them there: a contact point beyond its chart before
    the chart-change event is located) is halved until it succeeds, up to `MAX_HALVINGS`
    times, then the step is `step` again; failing that, the integration fails with the time
    in the message. Normal steps are all `step` long.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.integrate import solve_ivp
    >>> sol = solve_ivp(lambda t, y: -y, (0.0, 1.0), [1.0], method=RK4, step=0.1)
    >>> len(sol.t), sol.nfev, bool(abs(sol.y[0, -1] - np.exp(-1.0)) < 1e-6)
    (11, 41, True)
    """

    order = 4
    #: no error control: code that would otherwise rely on it to resolve a switch asks this
    fixed_step = True
    #: a step whose stages or result are not finite is halved at most this many times
    MAX_HALVINGS = 30

    def __init__(self, fun, t0, y0, t_bound, step, vectorized=False, rtol=None, atol=None, max_step=None,
                 first_step=None):
        if isinstance(step, (bool, np.bool_)) or not isinstance(step, (int, float, np.integer, np.floating)) \
                or not math.isfinite(step) or not step > 0:
            raise ParameterError(f"`step` must be a finite number > 0 [s], got {step!r}")
        super().__init__(fun, t0, y0, t_bound, vectorized, support_complex=True)
        self.h = float(step)
        self.f = self.fun(self.t, self.y)
        self.t_old = self.y_old = self.f_old = None

    def _step_impl(self):
        t, y, f = self.t, self.y, self.f
        left = abs(self.t_bound - t)
        h = self.h if left > self.h * (1.0 + 1e-9) else left
        for _ in range(self.MAX_HALVINGS + 1):
            t_new, y_new, f_new = self._try(t, y, f, h, left)
            if np.all(np.isfinite(y_new)) and np.all(np.isfinite(f_new)):
                self.t_old, self.y_old, self.f_old = t, y, f
                self.t, self.y, self.f = t_new, y_new, f_new
                return True, None
            h *= 0.5
        return False, (f"RK4: no finite step from t = {t:.9g} s down to {2 * h:.3g} s (the rates are not finite "
                       "there: the state left the model's range)")

    def _try(self, t, y, f, h, left):
        """``(t_new, y_new, f_new)`` of one step of size ``h`` (unsigned)."""
        s = h * self.direction
        k2 = self.fun(t + 0.5 * s, y + 0.5 * s * f)
        k3 = self.fun(t + 0.5 * s, y + 0.5 * s * k2)
        k4 = self.fun(t + s, y + s * k3)
        y_new = y + s / 6.0 * (f + 2.0 * k2 + 2.0 * k3 + k4)
        t_new = self.t_bound if h == left else t + s
        return t_new, y_new, (self.fun(t_new, y_new) if np.all(np.isfinite(y_new)) else y_new)

    def _dense_output_impl(self):
        return _Hermite(self.t_old, self.t, self.y_old, self.y, self.f_old, self.f)


class _Hermite(DenseOutput):
    """Cubic Hermite interpolant on one step from end values and derivatives."""

    def __init__(self, t_old, t, y_old, y, f_old, f):
        super().__init__(t_old, t)
        self.h = t - t_old
        self.y_old, self.y1, self.f_old, self.f1 = y_old, y, f_old, f

    def _call_impl(self, t):
        s = (np.asarray(t, dtype=float) - self.t_old) / self.h
        h00 = (1 + 2 * s) * (1 - s) ** 2
        h10 = s * (1 - s) ** 2
        h01 = s * s * (3 - 2 * s)
        h11 = s * s * (s - 1)
        return (np.multiply.outer(self.y_old, h00) + np.multiply.outer(self.h * self.f_old, h10)
                + np.multiply.outer(self.y1, h01) + np.multiply.outer(self.h * self.f1, h11))
