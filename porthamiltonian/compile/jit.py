"""The compiled right-hand side: the generated code strung from the elements' numba kernels.

When every element on the evaluation path exports its kernels (`Element.kernel`) and the
plan has no nonlinear algebraic loop, `compile` also generates a numba
version of the right-hand side from the same plan walk as the Python one
(`porthamiltonian.compile.codegen`: multipliers, sensitivities and constraint rows included),
calling the kernels directly (through their machine code's symbols:
`porthamiltonian.kernels._njit.separate`, so that each is compiled once, on its own)::

    rhs(t, x, u_in, F, I) -> (xdot, status, event_values, multipliers, residuals, gaps)

(the last three None for a model without multipliers or constraints: boxing them as empty
arrays for a call from Python cost 0.8 us of the Go1's 21 us).

``F`` and ``I`` hold every element's packed constants (and the assembled linear matrices),
sliced in the generated code, so the source depends only on the model's structure: it is
written to a file named by its hash in the cache directory (``$PORTHAMILTONIAN_CACHE``, else
``$XDG_CACHE_HOME/porthamiltonian``, else ``~/.cache/porthamiltonian``) and compiled with
the kernels' options (`porthamiltonian.kernels._njit`: cached), so a model compiles once per
machine, and a parameter change or a sweep over parameters reuses it. The source names the digest of the kernel sources and of this
file (`porthamiltonian.kernels.SOURCES_DIGEST`): numba's cache of a function is not
invalidated when a function it calls from another file changes, so a new kernel (a package
upgrade) must give a new file rather than reuse machine code compiled against the old one. ``status`` is non-zero when a kernel met a state the
compiled path does not handle (a contact that needs re-charting or a global search, a
penetration outside the model's range, a singular contact matrix, a non-finite rate): the
caller then evaluates the Python right-hand side at the same state, which handles it or
raises the element's error. The compiled function is built after
`porthamiltonian.compile.system.JIT_AFTER` evaluations of a system in Python, or by
`simulate` `PATH_PROBE_AT` evaluations into a run expected to outlast that count
(`PHSystem._plan_path`; decided from the run's progress alone, never from the cache's state
or a clock, so a run switches at the same evaluation everywhere and reproduces bit for bit),
so short runs and models that are never integrated pay nothing; `PHSystem.compiled` builds it at once.

The multipliers (the unknowns of `PHSystem.evaluate`'s ``"u"``) and every constraint's
velocity residual and gap (concatenated in the plan's order) come with it, so that
post-processing over thousands of samples (`PHSystem.multipliers`,
`PHSystem.constraint_residuals`) costs a compiled call per sample.

The generated function is written for numba's compile time, which grows with every statement
and faster than the function (the 8-foot rimless wheel's: 12 s at 448 lines, 4.5 s now,
`benchmarks/results/rhs_compile.md`): blocks repeated at least `outline.MIN_USES` times (every
foot's constraint terms, rows, ledger powers and events; a contact's spring, damper and slip,
their steps made adjacent by `_JitGen.order_steps`, and its rates, ledger powers and events;
a robot joint's elements) are calls of one helper (`porthamiltonian.compile.outline`);
aliases and the statements nothing reads are dropped; concatenations, sums of three terms
or more and the packed matrices are calls of kernels compiled once
(`porthamiltonian.kernels.algebra`); the bodies' poses an element's kernels read are bound
once; the constraints' terms and the contacts' shared states are each tested once, by one
return statement (each return costs the release of every live array).

The same evaluation returns every element event function's value (`PHSystem.events` order)
where every element with events exports an events kernel (``HAS_EVENTS`` in the module): the
solver asks all of them at the end of every step, at the state where an explicit
Runge-Kutta method has just evaluated the rates, so `PHSystem.event_value` answers a dozen
event functions from that one call (from the Python event functions at any other state).
"""

from __future__ import annotations

import hashlib
import heapq
import importlib.util
import os
import re
import sys
from pathlib import Path

import numpy as np

from .. import kernels as _kernels
from .codegen import _Gen
from .outline import dealias, outline, prune

__all__ = ["generate_jit", "load_jit", "cache_dir"]


#: the largest sparse assembled matrix (entries) the compiled path takes, as a dense array
_SPARSE_DENSE_MAX = 1_000_000


#: the generated code's local names of `porthamiltonian.kernels.algebra`'s kernels
_ALGEBRA = {"_solve": "solve", "_reduceat": "reduceat", "_mv": "mv", "_mva": "mv_add", "_mm": "mm", "_mtv": "mtv",
            "_mtm": "mtm", "_fin": "all_finite", "_bl": "blend", "_blr": "blend_rows", "_srow": "stabilized_row",
            "_rpow": "residual_power", "_dpow": "difference_power", "_cat": "join", "_catr": "join_rows",
            "_sc": "scaled", "_asc": "add_scaled", "_scr": "scaled_rows", "_ascr": "add_scaled_rows", "_mat": "matrix",
            "_putr": "put_rows"}


#: the fewest terms of a sum the generated code writes as kernel calls rather than numpy's
#: expression (`_JitGen.lincomb`). numba lowers an array expression anew at every place; a call
#: allocates an array per term. Measured 2026-11-29, one process, variants interleaved, compile
#: [s] / us per evaluation with every sum a call, from three terms (this), none: Go1's
#: robot-drop (20 sums of two terms) 4.98 / 26.2, 5.38 / 25.1, 5.94 / 24.8; the
#: main job 2.48 / 6.8, 2.68 / 6.5, 2.79 / 6.4.
LINCOMB_CALLS = 3

#: the generated function's array arguments, which its slices borrow (`_JitGen.span`)
ARGUMENTS = ("x", "u_in", "F", "I")


class NoJit(Exception):
    """The plan has a part the compiled right-hand side does not cover (the reason)."""


#: the kernels' digest and this file's: the header of every generated source
_SOURCES_DIGEST = hashlib.sha256((_kernels.SOURCES_DIGEST + Path(__file__).read_text()).encode()).hexdigest()[:20]


def cache_dir():
    """Directory of the generated sources (module docstring)."""
    env = os.environ.get("PORTHAMILTONIAN_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porthamiltonian"


class _JitGen(_Gen):
    """`_Gen` emitting kernel calls and constants read from the packed arrays."""

    def __init__(self, plan):
        super().__init__(plan)
        self.F, self.I = [], []
        self.nF = self.nI = 0
        self._slices = {}       # id(array) -> its slice expression
        self.imports = {}       # kernel function -> its local name
        self.prologue = []
        self.shared = {}        # id(element object) -> name of its shared value
        self._consts = {}       # name -> value of the constants read at the top (`const`)
        self._n = 0
        self._unchecked = []    # the shared states not yet tested (`check_shared`)
        self._padded = {}       # (element, its padded references) -> their name (`padded`)
        self._cons = {c["path"]: c for c in plan.constraints}   # path -> constraint (events read its ports)
        self._ev_done = set()   # elements whose events are written (`component_events`)
        # the multipliers, residuals and gaps returned: None for a model without any (boxing
        # three empty arrays for Python costs 0.8 us of the Go1's 21 us call, issue 33)
        self._none = plan.n_u == 0 and not plan.constraints
        self._tail = "None, None, None" if self._none else "_E, _E, _E"

    # -- constants: slices of F and I
    def _pack(self, value):
        if hasattr(value, "toarray"):   # a scipy sparse assembled matrix (`compile.linear`)
            if value.shape[0] * value.shape[1] > _SPARSE_DENSE_MAX:
                raise NoJit(f"a sparse assembled matrix of shape {value.shape} (the Python path multiplies it sparse)")
            value = value.toarray()   # numba multiplies dense arrays; below the bound that costs little
        arr = np.asarray(value)
        key = id(value)
        if key in self._slices:
            return self._slices[key][1]
        if arr.dtype.kind in "iub":
            name, a = "I", self.nI
            self.I.append(arr.astype(np.int64).ravel())
            self.nI += arr.size
        else:
            name, a = "F", self.nF
            self.F.append(arr.astype(np.float64).ravel())
            self.nF += arr.size
        expr = self.span(name, a, a + arr.size)
        if arr.ndim == 2:   # a compiled reshape (`porthamiltonian.kernels.algebra.matrix`)
            expr = f"_mat({name}, {a}, {arr.shape[0]}, {arr.shape[1]})"
        elif arr.ndim > 2:
            expr += f".reshape({arr.shape})"
        self._slices[key] = (value, expr)   # holds the array: its id stays unique
        return expr

    def const(self, name, value):
        """A named constant: a slice of ``F`` or ``I`` read once at the top. A name asked for
        again (the sensitivity zeros ``ZS<n>``) is the same constant: its slice is not packed
        and reshaped again (a reshape calls into numba's C helper, which LLVM cannot drop)."""
        if np.ndim(value) == 0:
            raise NoJit(f"scalar constant {name}")
        if name in self._consts:
            if not np.array_equal(self._consts[name], value):
                raise AssertionError(f"constant {name} asked for with two values")
            return name
        self._consts[name] = value
        self.prologue.append(f"{name} = {self._pack(value)}")
        return name

    @staticmethod
    def dot(a, b):
        return f"_dot({a}, {b})"

    def zeros(self, n):
        return f"np.zeros({n})"

    def kernel(self, path, role):
        obj = self.p.report.flat.elements[path]
        kern = obj.kernel(role)
        if kern is None:
            raise NoJit(f"{obj.type_name} {path!r} exports no compiled {role} kernel")
        return obj, kern, self.imported(kern.function)

    @staticmethod
    def span(array, start, stop):
        """A slice as a call of `porthamiltonian.kernels.lie.span`: numba lowers each slice
        written in the source anew (tens of milliseconds of first-run compile each, some 160
        in the main job's right-hand side), a call of the compiled slice costs a call
        instruction, which LLVM inlines.

        A slice of one of the function's arguments (`ARGUMENTS`: the state, the inputs, the
        packed constants) is borrowed (`porthamiltonian.kernels.borrow.span`): it and every
        view a kernel takes of it then skip numba's reference counting, which the caller's
        reference to the argument makes unnecessary. The Go1 on four compliant feet: 3,830
        -> 2,360 counts per evaluation (`benchmarks/refcounts.py`), 37.2 -> 32.3 us
        (`benchmarks/robot_profile.py`, bare compiled function)."""
        return f"{'_bsp' if array in ARGUMENTS else '_sp'}({array}, {start}, {stop})"

    def references(self):
        """None here: `build` binds, at the top, the tuples the code reads. A kernel taking
        padded references takes its slices inline (`call`), and numba compiles every slice
        of a tuple it is given, read or not (0.9 s of the main job's first run)."""
        return []

    def imported(self, fn):
        """The local name of a kernel in the generated source (imported by its module, called
        by symbol: `porthamiltonian.kernels._njit.separate`)."""
        if fn not in self.imports:
            self.imports[fn] = f"_k{len(self.imports)}"
        return self.imports[fn]

    @staticmethod
    def put(target, sl, expr):
        """`porthamiltonian.kernels.lie.put`: a slice assignment would compile numba's
        formatted shape-error message into the right-hand side."""
        return f"_put({target}, {sl.start}, {expr})"

    @staticmethod
    def put_at(target, index, expr):
        """`porthamiltonian.kernels.lie.put_at`, for the reason `put` gives (measured: the two
        assignments of the trotting Go1's assembled linear block cost 1.4 s of its 6 s compile)."""
        return f"_putat({target}, {index}, {expr})"

    # -- array algebra: calls of `porthamiltonian.kernels.algebra` (its docstring says why)
    @staticmethod
    def transposed_product(A, b, matrix):
        return f"_mtm({A}, {b})" if matrix else f"_mtv({A}, {b})"

    @staticmethod
    def mul(A, b, matrix=False):
        return f"_mm({A}, {b})" if matrix else f"_mv({A}, {b})"

    @staticmethod
    def mul_add(A, b, c):
        return f"_mva({A}, {b}, {c})"

    def stack(self, name, parts, dims, rows=False):
        """`name`, bound to an array filled part by part (`porthamiltonian.kernels.lie.put`,
        `porthamiltonian.kernels.algebra.put_rows`): one allocation for many parts."""
        if len(parts) <= 2:
            return self.concat(parts, rows)
        self.emit(f"{name} = np.empty({(sum(dims), self.p.n_u) if rows else sum(dims)})")
        at = 0
        for part, d in zip(parts, dims):
            self.emit(f"{'_putr' if rows else '_put'}({name}, {at}, {part})")
            at += d
        return name

    @staticmethod
    def concat(parts, rows=False):
        """A concatenation as nested calls of `porthamiltonian.kernels.algebra.join` (one
        compiled version each, not numba's concatenation lowered for every tuple type)."""
        expr = parts[0]
        for part in parts[1:]:
            expr = f"{'_catr' if rows else '_cat'}({expr}, {part})"
        return expr

    def lincomb(self, terms, rows=False):
        """A sum of (coef, name) terms (names None skipped; None if empty): of `LINCOMB_CALLS`
        terms or more, nested calls of `porthamiltonian.kernels.algebra.scaled` and
        `add_scaled` (their matrix versions for `rows`); a shorter one as numpy's expression,
        which numba fuses into one loop and one array (a call allocates one per term)."""
        terms = [(float(c), n) for c, n in terms if n is not None]
        if len(terms) < LINCOMB_CALLS:
            return _Gen.lincomb(self, terms)
        (c, n), rest = terms[0], terms[1:]
        expr = n if c == 1.0 else f"{'_scr' if rows else '_sc'}({c!r}, {n})"
        for c, n in rest:
            expr = f"{'_ascr' if rows else '_asc'}({expr}, {c!r}, {n})"
        return expr

    @staticmethod
    def blend(a, row, lam, matrix):
        return f"_blr({a}, {row}, {lam})" if matrix else f"_bl({a}, {row}, {lam})"

    @staticmethod
    def stabilized_row(cd, c, g, kc, kg):
        return f"_srow({cd}, {c}, {g}, {float(kc)!r}, {float(kg)!r})"

    def residual_power(self, lam, c, J, F):
        return f"_rpow({lam}, {c}, {J}, {F})"

    def difference_power(self, lam, D, J, F):
        return f"_dpow({lam}, {D}, {J}, {F})"

    def call(self, path, attr, args):
        """The call expression of an element's kernel: the Python method's arguments (without
        the causal pattern of a law: the kernel is the preferred pattern's; the references
        padded as `Kernel.refs` says), then the shared value it reads, if any, and its packed
        constants."""
        obj, kern, name = self.kernel(path, attr)
        if attr in ("law", "law_jacobian"):
            if args[0] != "0":
                raise NoJit(f"{obj.label} in causal pattern {args[0]}")
            args = args[1:]
        if kern.refs is not None:
            own = self.r(path)
            args = [self.padded(path, kern.refs) if a == own else a for a in args]
        sh = None
        if kern.reads is not None:
            sh = self.shared.get(id(kern.reads))
            if sh is None:
                raise NoJit(f"{obj.label} reads a shared value not computed before it")
            if kern.idle is None and sh in self._unchecked:   # it must not read a failed state
                self.check_shared()
            args = args + [sh]
        packed = [self._pack(kern.F), self._pack(kern.I)]
        expr = f"{name}({', '.join(args + packed)})"
        if sh is not None and kern.idle is not None:   # a culled contact: its zeros, or a cheaper call
            if callable(kern.idle):
                idle = f"{self.imported(kern.idle)}({', '.join([args[0], args[1], f'{sh}[2]'] + packed)})"
            else:
                idle = self._zeros_of(kern.idle)
            expr = f"({idle} if {sh}[1] == 1.0{f' or {sh}[0] != 0' if sh in self._unchecked else ''} else {expr})"
        return expr

    def padded(self, path, refs):
        """An element's references padded as `Kernel.refs` says: a tuple of slices of x. A short
        one (the moving bodies' poses) is bound to a name at its first use: each kernel of the
        element reads it, and each tuple written out costs the compile its slices again (1 s of
        the 8-foot sliding-plane wheel's 5.4 s). A longer one (a compliant contact's own state
        and charts) is written where the call runs, which a culled contact skips: a bound tuple
        costs every evaluation its arrays' reference counts (0.3 us per compliant contact)."""
        sls = self.p.refs[path]
        tup = "(" + "".join(("_E" if k < 0 else self.span("x", sls[k].start, sls[k].stop)) + ", " for k in refs) + ")"
        if len(refs) > 2:
            return tup
        name = self._padded.get((path, tup))
        if name is None:
            name = self._padded[(path, tup)] = f"R{self.index(path)}_{len(self._padded)}"
            self.emit(f"{name} = {tup}")
        return name

    def order_steps(self, steps):
        """`steps` reordered so that each component's are adjacent where their dependencies
        allow (a contact's spring outputs, its copies, slip and damper laws, the sums of its
        efforts): a component's block is then one template, which `outline` makes a call
        where the component repeats. Of the steps whose dependencies (`_dependencies`) are
        emitted, one of the last step's component comes next, else the plan's first.

        A copy (a junction handing one variable on under another name: a body's twist to each
        of its contacts) is not scheduled on its own: it is emitted just before the first step
        that reads it, so that it joins that step's block (scheduled on their own, a body's
        copies came out together, between the first contact's spring and its damper, and cut
        every contact's block in two), and the copies no step reads at the end."""
        deps = self._dependencies(steps)
        copy = [st.kind == "copy" for st in steps]
        through = []   # each step's non-copy dependencies, through the copies it reads
        for k, d in enumerate(deps):
            through.append(set().union(*[through[j] if copy[j] else {j} for j in d]))
        after = [[] for _ in steps]
        waiting = []
        for k in range(len(steps)):
            waiting.append(0 if copy[k] else len(through[k]))
            for j in (() if copy[k] else through[k]):
                after[j].append(k)
        ready, by_component, order, last = [], {}, [], None
        taken = [False] * len(steps)

        def release(k):
            heapq.heappush(ready, k)
            heapq.heappush(by_component.setdefault(self.component(steps[k].element), []), k)

        def take(k):   # the copies `k` reads first, then `k`
            for j in sorted(deps[k]):
                if copy[j] and not taken[j]:
                    take(j)
            taken[k] = True
            order.append(steps[k])

        for k in range(len(steps)):
            if not copy[k] and not waiting[k]:
                release(k)
        while ready:
            same = by_component.get(last, [])
            for heap in (same, ready):   # a step sits in both heaps: drop the ones taken
                while heap and taken[heap[0]]:
                    heapq.heappop(heap)
            if not (same or ready):
                break
            k = heapq.heappop(same or ready)
            take(k)
            last = self.component(steps[k].element)
            for j in after[k]:
                waiting[j] -= 1
                if not waiting[j]:
                    release(j)
        for k in range(len(steps)):
            if not taken[k]:
                take(k)
        return order

    def _dependencies(self, steps):
        """Each step's set of earlier steps it must follow: those writing the variables it
        reads, and the outputs of the element whose shared value its kernels read."""
        writer = {v.name: k for k, st in enumerate(steps) for v, _ in st.outputs}
        outputs = {st.element: k for k, st in enumerate(steps) if st.kind == "storage_out"}
        path_of = {id(obj): path for path, obj in self.p.report.flat.elements.items()}
        deps = []
        for k, st in enumerate(steps):
            d = {writer[v.name] for v, _ in st.inputs if writer.get(v.name, k) < k}
            obj = self.p.report.flat.elements[st.element]
            for role in ("outputs", "law", "value"):
                kern = obj.kernel(role)
                if kern is not None and kern.reads is not None and outputs.get(path_of.get(id(kern.reads)), k) < k:
                    d.add(outputs[path_of[id(kern.reads)]])
            deps.append(d)
        return deps

    def check_shared(self):
        """The test of the shared states computed and not yet tested (`_value_storage_out`):
        one return for all, before the first kernel that reads one of them without a culled
        path (a return costs the compile every live array's release: 1.2 s of the 8-foot
        compliant rimless wheel's 10.8 s with one per foot). Until then the kernels that read
        them take their culled path where the state failed."""
        if self._unchecked:
            self.emit(f"if {' or '.join(f'{sh}[0] != 0' for sh in self._unchecked)}:")
            self.emit(f"    return xdot, 1, _E, {self._tail}")
            self._unchecked = []

    def _zeros_of(self, idle):
        """The source of `Kernel.idle`'s zeros, one array or a tuple of arrays: constants
        (``ZI<n>``) shared by every culled contact. Sharing them is safe because no kernel
        writes into its arguments (the generated code already passes one array to several
        kernels: a body's twist to each of its contacts); it takes two allocations per culled
        contact and kernel off the evaluation (3 % of the 8-foot rimless wheel on sand's)."""
        if isinstance(idle, (int, np.integer)):
            return self.const(f"ZI{int(idle)}", np.zeros(int(idle)))
        return "(" + "".join(self.const(f"ZI{int(n)}", np.zeros(int(n))) + ", " for n in idle) + ")"

    # -- constraints
    def terms(self, i, c):
        """A terms kernel that shares (`Kernel.shares`) returns, fourth, the value the
        constraint's later kernels read."""
        obj, kern, _ = self.kernel(c["path"], "terms")
        call = self.call(c["path"], "terms", ["t", self.xe(c["path"]), self.r(c["path"])])
        if not kern.shares:
            self.emit(f"J{i}, b{i}, g{i} = {call}")
            return
        self.emit(f"J{i}, b{i}, g{i}, SC{i} = {call}")
        self.shared[id(obj)] = f"SC{i}"

    def check_terms(self, indices):
        """A constraint kernel that meets a state it does not handle returns NaN terms (and its
        later kernels NaN or their declining values): the evaluation goes to Python, before
        the multipliers' solve, which would refuse them. One test for all the constraints: a
        return statement costs the compile every live array's release (1.1 s of the 8-foot
        rimless wheel's 7.3 s with one per foot)."""
        if indices:
            self.emit(f"if not ({' and '.join(f'_fin(J{i})' for i in indices)}):")
            self.emit(f"    return xdot, 3, _E, {self._tail}")

    def effort_map(self, i, c, flows):
        """``D{i}`` from the element's effort-map kernel, which returns its Jacobian where it
        has no map of its own (the compiled function never evaluates the associated system)."""
        self.emit(f"D{i} = {self.call(c['path'], 'effort_map', ['t', self.xe(c['path']), self.r(c['path']), f'({flows},)'])}")

    # -- steps (the other kinds as the Python generator writes them)
    def _value_storage_out(self, s, with_sens):
        el = s.element
        obj, kern, _ = self.kernel(el, "outputs")
        self._n += 1
        o = f"_o{self._n}"   # a fresh name: each element's outputs tuple has its own type
        self.emit(f"{o} = {self.call(el, 'outputs', ['t', self.xe(el), self.r(el)])}")
        if kern.shares:
            sh = f"SH{self.index(el)}"
            self.emit(f"{sh} = {o}[{len(obj.ports())}]")
            self._unchecked.append(sh)   # a failed state (status not 0) goes to Python: `check_shared`
            self.shared[id(obj)] = sh
        for (v, sg), idx in zip(s.outputs, s.data["port_index"]):
            self.emit(f"{s.targets[v.name]} = {self.sgn(sg, f'{o}[{idx}]')}")

    def _value_source(self, s, with_sens):
        """A signal with a kernel (t, F, I), or an input's (t, u, F, I)."""
        (v, sg), = s.outputs
        sl = s.data["input"]
        args = ["t"] if sl is None else ["t", self.span("u_in", sl.start, sl.stop)]
        self.emit(f"{s.targets[v.name]} = {self.sgn(sg, self.call(s.element, 'value', args))}")

    def build(self):
        p = self.p
        if not p.linear:
            raise NoJit("nonlinear algebraic loops (a Newton iteration)")
        self.emit(f"xdot = np.zeros({p.layout.size})")
        self.emit("_E = np.zeros(0)")
        self._ev_slots = self.event_slots()
        if self._ev_slots is None:   # the events stay in Python; the rates are still compiled
            self.emit("_ev = _E")
        else:
            self.emit(f"_ev = np.empty({sum(sl.stop - sl.start for sl in self._ev_slots.values())})")
        self.evaluation()
        for path in self._ev_slots or ():
            if path not in self._cons and path not in self._ev_done:   # the others: with their component
                with self.block():
                    self.emit(self.events_line(path))
        self.emit("if not _fin(xdot):")
        self.emit(f"    return xdot, 2, _E, {self._tail}")
        # the multipliers, the constraints' velocity residuals and gaps, for post-processing
        cs = [f"c{self.index(c['path'])}" for c in p.constraints]
        gs = [f"g{self.index(c['path'])}" for c in p.constraints]
        dims = [c["lam"].dim for c in p.constraints]
        # returned arrays are allocated here, never a (perhaps borrowed) view: one part is copied
        own = (lambda name, parts: f"{parts[0]}.copy()" if len(parts) == 1 else self.stack(name, parts, dims))
        both = f"{own('_C', cs)}, {own('_G', gs)}" if cs else "_E, _E"
        self.emit(f"return xdot, 0, _ev, {self._tail}" if self._none else f"return xdot, 0, _ev, uf, {both}")
        module = set(_ALGEBRA) | set(self.imports.values()) | {"np", "_sp", "_bsp", "_dot", "_put", "_putat"}
        self.lines, blocks = prune(*dealias(self.lines, self.blocks))
        self.lines, helpers = outline(self.lines, blocks, module)
        code = "\n".join(self.lines)
        prologue = [line for line in self.prologue if re.search(rf"\b{line.split(' = ')[0]}\b", code)]
        refs = [self.reference(path) for path in _Gen.references(self)
                if re.search(rf"\br{self.index(path)}\b", code)]
        body = ["    " + line for line in prologue + refs] + self.lines
        head = [
            '"""Compiled right-hand side generated by porthamiltonian.compile.jit (a cache file)."""',
            f"# kernels {_SOURCES_DIGEST}",
            "import numpy as np",
            "from porthamiltonian.kernels._njit import njit, separate",
            "from porthamiltonian.kernels.lie import dot as _dot, put as _put, put_at as _putat, span as _sp",
            "from porthamiltonian.kernels.borrow import span as _bsp",
            "from porthamiltonian.kernels import algebra as _alg",
        ]
        head += [f"{local} = separate(_alg.{name})" for local, name in _ALGEBRA.items()]
        for fn, name in self.imports.items():
            head += [f"from {fn.__module__} import {fn.__name__} as {name}_", f"{name} = separate({name}_)"]
        head += ["\n\n" + h for h in helpers]
        src = "\n".join(head) + "\n\n\n@njit\ndef rhs(t, x, u_in, F, I):\n" + "\n".join(body) + "\n"
        src += f"\n\nHAS_EVENTS = {self._ev_slots is not None}\n"
        F = np.concatenate(self.F) if self.F else np.zeros(0)
        I = np.concatenate(self.I) if self.I else np.zeros(0, dtype=np.int64)
        return src, F, I

    def event_slots(self):
        """Every element event's slice of ``_ev``, in the order of `PHSystem.events` (the
        solver reads them from the evaluation, one kernel call per element); None if an element
        with events exports no events kernel (then they stay in Python)."""
        slots, at = {}, 0
        for path, obj in self.p.report.flat.elements.items():
            specs = obj.events()
            if not specs:
                continue
            if obj.kernel("events") is None:
                return None
            slots[path] = slice(at, at + len(specs))
            at += len(specs)
        return slots or None

    def events_line(self, path):
        """The line writing an element's event values into ``_ev``, from the evaluation's
        shared values; a constraint's events read its multipliers and its port flows (`Kernel`)."""
        args = ["t", self.xe(path), self.r(path)]
        c = self._cons.get(path)
        if c is not None:
            args.append(self.span("uf", c["lam"].unknown.start, c["lam"].unknown.stop))
            args.append("(" + ", ".join(self.sgn(sg, fv.name) for fv, sg, _, _ in c["ports"]) + ",)")
        return self.put("_ev", self._ev_slots[path], self.call(path, "events", args))

    def component_events(self, component):
        """The event values of `component`'s elements (other than constraints), in the block of
        its rates and ledger powers: with them, a compliant foot's finish is one template
        (outlined where feet repeat, `outline`)."""
        for path in self._ev_slots or ():
            if path not in self._cons and path not in self._ev_done and self.component(path) == component:
                self._ev_done.add(path)
                self.emit(self.events_line(path))

    def constraint_events(self, c):
        """A constraint's events, written with its ledger powers (one helper for both, where
        the outlining finds their block repeated)."""
        if self._ev_slots and c["path"] in self._ev_slots:
            self.emit(self.events_line(c["path"]))


def generate_jit(plan):
    """``(source, F, I)`` of the compiled right-hand side, or ``(None, reason, None)`` when
    the plan has a part it does not cover."""
    try:
        return _JitGen(plan).build()
    except NoJit as exc:
        return None, str(exc), None


def load_jit(source, prefix="porthamiltonian_rhs"):
    """The module of a generated source (for a right-hand side: function ``rhs``, flag
    ``HAS_EVENTS``), imported from its cache file ``<prefix>_<digest of source>.py`` (module
    docstring), written atomically; falls back to a temporary directory if the cache
    directory is not writable. Other generated kernels (`integrate.compiled_rk`'s step) load
    through it with their own `prefix`."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:20]
    name = f"{prefix}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    path = cache_dir() / f"{name}.py"
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(source)
            os.replace(tmp, path)   # atomic: concurrent processes never read a partial file
    except OSError:
        import tempfile

        path = Path(tempfile.mkdtemp(prefix="porthamiltonian-")) / f"{name}.py"
        path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module
