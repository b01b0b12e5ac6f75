"""scipy's explicit Runge-Kutta methods with their step loop compiled: the stages, the error
estimate and the step-size control of one step run in numba, calling the system's compiled
right-hand side directly (no Python call per stage).

`CompiledRK23` and `CompiledRK45` are `scipy.integrate.RK23` / `RK45` (same tableaux, same
step-size control: ``SAFETY`` 0.9, factors in [0.2, 10], the error's RMS norm scaled by
``atol + rtol max(|y|, |y_new|)``, the first step chosen by scipy), so dense output, events
and `t_eval` keep working through solve_ivp and the trajectory equals scipy's method to
round-off (the stage sums are written out in another order; the error estimate, a
cancelling sum, carries that round-off into the step sizes at ~eps / rtol relative). Pass the class as the method:
``simulate(system, ..., method=CompiledRK23, rtol=..., atol=...)``.

One step is made in numba when `simulate` drives the solver with the system's compiled
right-hand side (``PHSystem.compiled == "numba"``, built: `simulate` builds it on its own
once a run proves long) and no input function; otherwise, and for any step where the
compiled right-hand side declines a stage (a contact it does not handle, a non-finite rate:
its status), the step is scipy's own, through `simulate`'s evaluator, exactly as the scipy
method would make it. After a compiled step the bookkeeping of `simulate`'s evaluator is
done in Python once per step: the evaluation count (``nfev``, the `max_nfev` budget and the
`timeout`), the last state (failure messages), the progress line, and the element event
values of the step's last stage (`PHSystem.event_values` answers the step's event look-up
from them, as after a scipy step). `simulate`'s one-time stiffness check (at its
`STIFF_CHECK_AT`-th evaluation, for the scipy methods it names) is not made for these
classes.

What it saves is the Python around each stage (scipy's stage arithmetic, the evaluator's
checks, the call into numba): for quadruped-trot at RK23 rtol 1e-4, 0-13 % of its CPU on a
loaded machine before the events were asked as one vector per step, 15-25 % after (the same
evaluations to an acceptance or two, the same ledger to 9 digits, the same accuracy against
a DOP853 reference; benchmarks/results/quadruped_trot.md). The per-step Python (scipy's
`OdeSolver.step` around the compiled step, the events' look-up, the step recorder) stays.

The step kernel is `_step`'s source written out for each compiled right-hand side, calling it
as a global (`_step_function`): a file beside the right-hand side's own in the cache directory
(`porthamiltonian.compile.jit.cache_dir`), compiled with the package's numba options and
cached, so it compiles once per machine and model structure (~15 s for a 3-mass chain on a
loaded 2-core machine, then ~1 s to load). Not a default anywhere yet: `simulate` takes the
class (its method names are scipy's and the fixed-step ones).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import RK23, RK45

__all__ = ["CompiledRK23", "CompiledRK45"]

#: scipy's step-size control (scipy.integrate._ivp.rk)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0


def _step(rhs, t, y, f, h_abs, direction, t_bound, min_step, rtol, atol, A, B, C, E, K, error_exponent, u, F, I):
    """One accepted step of an explicit Runge-Kutta pair from ``(t, y)`` with ``f = rhs(t, y)``.

    Returns ``(code, t_new, y_new, f_new, h_abs_new, h, event_values, nfev)``: code 0 accepted,
    1 the step fell below `min_step`, 2 a stage's status was not 0 (the caller makes the step
    in Python). `K` (shape (stages + 1, n)) holds the stages of the accepted step (dense
    output)."""
    n = y.shape[0]
    s_count = B.shape[0]
    nfev = 0
    rejected = False
    ev = np.empty(0)
    while True:
        if h_abs < min_step:
            return 1, t, y, f, h_abs, 0.0, ev, nfev
        h = h_abs * direction
        t_new = t + h
        if direction * (t_new - t_bound) > 0:
            t_new = t_bound
        h = t_new - t
        h_abs = abs(h)
        K[0, :] = f
        for s in range(1, s_count):
            ys = y.copy()
            for j in range(s):
                a = A[s, j] * h
                if a != 0.0:
                    for i in range(n):
                        ys[i] += a * K[j, i]
            out = rhs(t + C[s] * h, ys, u, F, I)
            nfev += 1
            if out[1] != 0:
                return 2, t, y, f, h_abs, 0.0, ev, nfev
            K[s, :] = out[0]
        y_new = y.copy()
        for j in range(s_count):
            b = B[j] * h
            if b != 0.0:
                for i in range(n):
                    y_new[i] += b * K[j, i]
        out = rhs(t_new, y_new, u, F, I)
        nfev += 1
        if out[1] != 0:
            return 2, t, y, f, h_abs, 0.0, ev, nfev
        f_new = out[0]
        K[s_count, :] = f_new
        acc = 0.0
        for i in range(n):
            e = 0.0
            for j in range(s_count + 1):
                e += K[j, i] * E[j]
            scale = atol[i] + max(abs(y[i]), abs(y_new[i])) * rtol[i]
            r = e * h / scale
            acc += r * r
        error_norm = math.sqrt(acc / n)
        if error_norm < 1.0:
            if error_norm == 0.0:
                factor = MAX_FACTOR
            else:
                factor = min(MAX_FACTOR, SAFETY * error_norm ** error_exponent)
            if rejected:
                factor = min(1.0, factor)
            return 0, t_new, y_new, f_new, h_abs * factor, h, out[2], nfev
        h_abs *= max(MIN_FACTOR, SAFETY * error_norm ** error_exponent)
        rejected = True


#: the header of a generated step module: the right-hand side's module by name (loaded by
#: `porthamiltonian.compile.jit.load_jit`, in `sys.modules`), the package's numba options
_HEADER = """\"\"\"Compiled Runge-Kutta step for {rhs} (porthamiltonian.integrate.compiled_rk; a cache file).\"\"\"
import math
import numpy as np
from porthamiltonian.kernels._njit import njit
from {rhs} import rhs as _rhs
SAFETY, MIN_FACTOR, MAX_FACTOR = {safety!r}, {min_factor!r}, {max_factor!r}


@njit
"""

_STEPS = {}   # rhs module name -> its compiled step


def _step_function(fn):
    """The step kernel for the compiled right-hand side `fn`: `_step`'s source with `fn` as
    the global it calls, written beside the right-hand side's cache file and compiled with the
    package's options (cached on disk: compiled once per machine and right-hand side; a
    function taking `fn` as an argument could not be cached)."""
    import inspect

    from ..compile.jit import load_jit

    name = fn.__module__
    if name in _STEPS:
        return _STEPS[name]
    body = inspect.getsource(_step).replace("def _step(rhs, ", "def step(").replace(" rhs(", " _rhs(")
    source = _HEADER.format(rhs=name, safety=SAFETY, min_factor=MIN_FACTOR, max_factor=MAX_FACTOR) + body
    module = load_jit(source, prefix="porthamiltonian_rk")
    _STEPS[name] = module.step
    return module.step


class _Compiled:
    """The compiled step for a scipy `RungeKutta` subclass (module docstring)."""

    def __init__(self, fun, t0, y0, t_bound, **options):
        from .simulate import _Evaluator

        # `simulate` hands solve_ivp its evaluator, which knows the system and keeps the
        # run's count, budget and progress; any other function: scipy's step throughout
        self._evaluator = fun if isinstance(fun, _Evaluator) and fun.ufun is None else None
        super().__init__(fun, t0, y0, t_bound, **options)
        self._rtol, self._atol = (np.broadcast_to(np.asarray(v, dtype=float), (self.n,)).copy() for v in (self.rtol, self.atol))

    def _step_impl(self):
        ev = self._evaluator
        call = None if ev is None else ev.system.compiled_call()
        if call is None or self.y.dtype != np.float64:
            return super()._step_impl()
        fn, u0, F, I = call
        t = self.t
        min_step = 10 * np.abs(np.nextafter(t, self.direction * np.inf) - t)
        h_abs = min(max(self.h_abs, min_step), self.max_step)
        code, t_new, y_new, f_new, h_abs, h, values, nfev = _step_function(fn)(
            t, self.y, self.f, h_abs, float(self.direction), float(self.t_bound), min_step,
            self._rtol, self._atol, self.A, self.B, self.C, self.E, self.K, self.error_exponent, u0, F, I)
        self._book(ev, nfev, t if code else t_new, self.y if code else y_new)
        if code == 2:   # a stage the compiled path declines: scipy's own step from the same state
            return super()._step_impl()
        if code == 1:
            return False, self.TOO_SMALL_STEP
        self.h_previous, self.y_old = h, self.y
        self.t, self.y, self.h_abs, self.f = t_new, y_new, h_abs, f_new
        ev.system.remember_event_values(t_new, y_new, values)
        return True, None

    def _book(self, ev, nfev, t, y):
        """`simulate`'s evaluator's bookkeeping for `nfev` compiled evaluations ending at (t, y)."""
        from .simulate import _check_budget

        self.nfev += nfev
        ev.nfev += nfev
        _check_budget(ev.budget, ev.nfev, t)
        ev.last_t, ev.last_x = t, y
        if ev.progress.enabled:
            ev.progress.update(t)


class CompiledRK23(_Compiled, RK23):
    """`scipy.integrate.RK23` (Bogacki-Shampine 3(2)) with its step compiled (module docstring)."""


class CompiledRK45(_Compiled, RK45):
    """`scipy.integrate.RK45` (Dormand-Prince 5(4)) with its step compiled (module docstring)."""
