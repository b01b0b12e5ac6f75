"""Generate the Python source of a compiled system's right-hand side from its plan.

The generated function is straight-line code: no graph walking, no dictionaries, no object
building besides small numpy arrays; element kernels are called as bound methods placed in
its namespace. The linear part of the graph is evaluated by a few matrix-vector products
assembled at compile time (`porthamiltonian.compile.linear`), each under a comment saying
what it computes. `PHSystem.source` shows it, which makes the compiled model inspectable.

Signature of the generated function::

    rhs(t, x, u_in, full, associated) -> xdot                      (full=False)
    rhs(t, x, u_in, full, associated) -> dict of every quantity    (full=True)

``associated=True`` replaces every constraint's effort map D by its Jacobian J (the impulses'
matrices; `compile.impact_friction` blends in the non-associated ones). The full dict also
carries each constraint's J, D and port flows (``maps``).
"""

from __future__ import annotations

from contextlib import contextmanager
from itertools import groupby

import numpy as np

from ..bondgraph.element import ConstraintElement
from ..errors import IntegrationError, ModelError
from ..kernels import algebra as _algebra
from .linear import assemble
from .plan import Plan

__all__ = ["generate"]


#: `_solve` takes the least-squares solution when |A| |x| exceeds this times |b| (max norms):
#: the compiled solve's bound (`porthamiltonian.kernels.algebra.SINGULAR_GROWTH`), one value for both paths
SINGULAR_GROWTH = _algebra.SINGULAR_GROWTH


def _solve(A, b):
    """Solve the small KKT/loop system; minimum-norm least squares if it is singular.

    Singular includes numerically singular: redundant constraint rows (a rigid body standing
    on two no-slip feet holds its tangential squeeze with no row to fix it) leave LU a
    round-off pivot and a solution whose null-space part is huge, and only its product with
    the Jacobian is meaningful; a solution growing more than `SINGULAR_GROWTH` times past
    ``|b| / |A|`` is replaced by the minimum-norm one, which is exact for a consistent
    system and puts nothing in the null space.
    """
    try:
        x = np.linalg.solve(A, b)
        if np.abs(x).max(initial=0.0) * np.abs(A).max(initial=0.0) <= SINGULAR_GROWTH * np.abs(b).max(initial=0.0):
            return x
    except np.linalg.LinAlgError:
        pass
    return np.linalg.lstsq(A, b, rcond=None)[0]


def _component_of(path):
    """The component an element belongs to by its path: up to the last ``/`` (a contact's
    spring, damper and slip are ``foot0/spring``, ``foot0/damper``, ``foot0/slip``)."""
    return path.rpartition("/")[0] or path


def _by_component(steps, component):
    """`steps` cut into runs of one component each (`component(path)`); a copy (a junction
    handing a variable on) belongs to the run of the step after it, which reads it (the
    compiled path's `order_steps` puts it there)."""
    keys, key = [], None
    for st in reversed(steps):
        if st.kind != "copy" or key is None:
            key = component(st.element)
        keys.append(key)
    keys.reverse()
    return [[st for st, _ in run] for _, run in groupby(zip(steps, keys), key=lambda sk: sk[1])]


class _Gen:
    def __init__(self, plan: Plan):
        self.p = plan
        self.ns = {"np": np, "_solve": _solve, "_reduceat": np.add.reduceat, "IntegrationError": IntegrationError}
        self.lines = []
        self.ind = 1
        # element path -> position (the suffix of its names in the generated code)
        self._index = {path: i for i, path in enumerate(plan.report.flat.elements)}
        self._storage = {st["path"]: st for st in plan.storages}
        self.lin = assemble(plan)
        self.tan = {}  # var name -> has tangent sens (bool)
        self._rows_s = []
        self.blocks = []   # (start, stop) of the lines of one element's step (`block`)
        self._rate_refs = set()   # the elements whose ``rr<i>`` is bound (`rate_refs`)
        self._buffers = set()   # the assembled blocks that take their inputs in a buffer (`block_inputs`)
        self._gather = {}   # var name -> (buffer, slice) it is still to be copied to (`gather`)
        self._gather_from = {}   # block input name -> the variable copied there (its copies' source)

    # -- helpers
    def index(self, path):
        """Position of an element (names its kernels and variables in the generated code)."""
        return self._index[path]

    def emit(self, line):
        self.lines.append("    " * self.ind + line)

    @contextmanager
    def block(self):
        """Marks the lines emitted inside as one element's (or component's) step: blocks of
        equal shape repeated often enough (every foot's constraint rows on an 8-foot wheel)
        become calls of one helper in the compiled code (`porthamiltonian.compile.outline`);
        the Python code keeps them inline."""
        start = len(self.lines)
        yield
        self.blocks.append((start, len(self.lines)))

    def k(self, path, attr):
        """Namespace name of a kernel (bound method) of an element."""
        i = self.index(path)
        name = f"K{i}_{attr}"
        if name not in self.ns:
            self.ns[name] = getattr(self.p.report.flat.elements[path], attr)
        return name

    def call(self, path, attr, args):
        """Call expression of an element's kernel `attr` (a bound method here; the compiled
        generator, `porthamiltonian.compile.jit`, maps it to the element's numba kernel)."""
        return f"{self.k(path, attr)}({', '.join(args)})"

    # -- array algebra: numpy expressions here, compiled kernels in the compiled code (`jit`)
    @staticmethod
    def transposed_product(A, b, matrix):
        """Expression of ``A.T @ b`` (``b`` a vector, or a matrix)."""
        return f"{A}.T @ {b}"

    @staticmethod
    def mul(A, b, matrix=False):
        """Expression of ``A @ b`` (``b`` a vector, or a matrix)."""
        return f"{A} @ {b}"

    @staticmethod
    def mul_add(A, b, c):
        """Expression of ``A @ b + c`` (vectors)."""
        return f"{A} @ {b} + {c}"

    def sens_product(self, A, parts, dims, rows):
        """Expression of ``A @ concatenate(parts)`` for sensitivities (matrices of the
        unknowns' width stacked by rows), a part None being zero: only the columns of `A`
        that meet a nonzero part are multiplied, one product per run of adjacent nonzero parts,
        summed (all zero: the `rows` x n_u zeros). `A` is a name (it is sliced).

        A robot's rates read sixteen port efforts of which four (the feet's) depend on the
        contact multipliers: Go1's robot-drop on rigid feet multiplied its 89 x 36 input
        matrix by a 36-row stack joined from twelve zero blocks by fifteen nested calls."""
        runs, at, run = [], 0, None
        for part, d in zip(parts, dims):
            if part is None:
                run = None
            elif run is None:
                run = [at, at + d, [part]]
                runs.append(run)
            else:
                run[1] += d
                run[2].append(part)
            at += d
        if not runs:
            return self.zsens(rows)
        terms = [self.mul(A if (a, b) == (0, at) else f"{A}[:, {a}:{b}]", ps[0] if len(ps) == 1 else self.concat(ps, True),
                          True) for a, b, ps in runs]
        return " + ".join(terms)

    def stack(self, name, parts, dims, rows=False):
        """Expression of the concatenation of many `parts` of lengths `dims` (`rows`: matrices
        of the unknowns' width, stacked by rows), `name` the array it may be built in."""
        return self.concat(parts, rows)

    @staticmethod
    def concat(parts, rows=False):
        """Expression of the concatenation of `parts` (sources of vectors; `rows`: of
        matrices, stacked by rows)."""
        return f"np.concatenate(({', '.join(parts)},){', axis=0' if rows else ''})"

    @staticmethod
    def blend(a, row, lam, matrix):
        """Expression of a row of a constraint with activity ``a`` (1 active, 0 not):
        ``a * row + (1 - a) * lam``, and of its sensitivities (`matrix`: one row per entry)."""
        if matrix:
            return f"{a}[:, None] * {row} + (1.0 - {a})[:, None] * {lam}"
        return f"{a} * {row} + (1.0 - {a}) * {lam}"

    @staticmethod
    def stabilized_row(cd, c, g, kc, kg):
        """Expression of ``cd + kc c + kg nan_to_num(g)`` (the gap term only where ``kg``
        is not 0): a constraint's acceleration row with Baumgarte's terms."""
        row = f"{cd} + {kc!r} * {c}"
        return row + f" + {kg!r} * np.nan_to_num({g})" if kg else row

    def residual_power(self, lam, c, J, F):
        """Expression of ``lam . (c - J F)``."""
        return self.dot(lam, f"({c} - {J} @ {F})")

    def difference_power(self, lam, D, J, F):
        """Expression of ``lam . ((D - J) F)``."""
        return self.dot(lam, f"(({D} - {J}) @ {F})")

    def const(self, name, value):
        self.ns[name] = value
        return name

    @staticmethod
    def dot(a, b):
        """Expression of the dot product of two vectors (the ledger's powers)."""
        return f"({a} @ {b})"

    def zeros(self, n):
        return self.const(f"Z{n}", np.zeros(n))

    def zsens(self, n):
        return self.const(f"ZS{n}", np.zeros((n, self.p.n_u)))

    def xe(self, path):
        sl = self.p.layout.element_slice(path)
        return self.span("x", sl.start, sl.stop)

    @staticmethod
    def span(array, start, stop):
        """Source of the slice ``array[start:stop]`` of the state or the packed constants."""
        return f"{array}[{start}:{stop}]"

    def reference(self, path):
        """The line binding an element's references ``r<i>``: a tuple of slices of x."""
        sls = self.p.refs[path]
        return f"r{self.index(path)} = ({', '.join(self.span('x', s.start, s.stop) for s in sls)},)"

    def references(self):
        """The elements whose references `evaluation` binds first: all that have some."""
        return [path for path, sls in self.p.refs.items() if sls]

    def r(self, path):
        return f"r{self.index(path)}" if self.p.refs[path] else "()"

    @staticmethod
    def sgn(s, expr):
        return expr if s == 1.0 else f"(-{expr})"

    def lincomb(self, terms, rows=False):
        """Sum of (coef, name) terms (vectors; matrices with `rows`); names None are skipped.
        Returns None if empty."""
        parts = []
        for c, n in terms:
            if n is None:
                continue
            if c == 1.0:
                parts.append(("+", n))
            elif c == -1.0:
                parts.append(("-", n))
            else:
                parts.append(("+", f"{c!r} * {n}"))
        if not parts:
            return None
        s = ("-" if parts[0][0] == "-" else "") + parts[0][1]
        for op, n in parts[1:]:
            s += f" {op} {n}"
        return s

    # -- step emitters: value (and sensitivities for unknown-dependent steps), one method per kind
    def step_value(self, s, with_sens):
        """Emit a plan step's value (and, `with_sens`, its sensitivities to the unknowns)."""
        getattr(self, f"_value_{s.kind}")(s, with_sens)

    def _value_source(self, s, with_sens):
        (v, sg), = s.outputs
        sl = s.data["input"]
        u = f"u_in[{sl.start}:{sl.stop}]" if sl is not None else "None"
        call = self.call(s.element, "value", ["t", u])
        self.emit(f"{s.targets[v.name]} = {self.sgn(sg, call)}")

    def _value_storage_out(self, s, with_sens):
        el = s.element
        self.emit(f"_o = {self.call(el, 'outputs', ['t', self.xe(el), self.r(el)])}")
        for (v, sg), idx in zip(s.outputs, s.data["port_index"]):
            self.emit(f"{s.targets[v.name]} = {self.sgn(sg, f'_o[{idx}]')}")

    def _value_resistor(self, s, with_sens):
        el, tgt = s.element, s.targets
        ins = ", ".join(self.sgn(sg, v.name) for v, sg in s.inputs)
        pat = s.data["pattern"]
        self.emit(f"_o = {self.call(el, 'law', [str(pat), 't', f'({ins},)', self.r(el)])}")
        for j, (v, sg) in enumerate(s.outputs):
            self.emit(f"{tgt[v.name]} = {self.sgn(sg, f'_o[{j}]')}")
        if not with_sens:
            return
        dims = s.data["dims"]
        sens = [self.sgn(sg, v.name + "_s") if v.udep else None for v, sg in s.inputs]
        self.emit(f"_J = {self.call(el, 'law_jacobian', [str(pat), 't', f'({ins},)', self.r(el)])}")
        self.emit(f"_S = {self.sens_product('_J', sens, dims, sum(dims))}")
        a = 0
        for (v, sg), d in zip(s.outputs, dims):
            self.emit(f"{tgt[v.name]}_s = {self.sgn(sg, f'_S[{a}:{a + d}]')}")
            a += d

    def _value_tf(self, s, with_sens):
        el, tgt = s.element, s.targets
        (v, _), = s.outputs
        (w, _), = s.inputs
        m = self.modulus(el)
        mode, sg = s.data["mode"], s.data["sign"]
        expr = self.tf_apply(el, mode, m, w.name)
        self.emit(f"{tgt[v.name]} = {self.sgn(sg, expr)}")
        if with_sens and w.udep:
            self.emit(f"{tgt[v.name]}_s = {self.sgn(sg, self.tf_apply(el, mode, m, w.name + '_s'))}")

    def _value_copy(self, s, with_sens):
        (v, _), = s.outputs
        (w, _), = s.inputs
        self.emit(f"{s.targets[v.name]} = {w.name}")
        if with_sens:
            self.emit(f"{s.targets[v.name]}_s = {w.name}_s")

    def _value_sum(self, s, with_sens):
        (v, _), = s.outputs
        expr = self.lincomb([(c, w.name) for w, c in s.inputs]) or self.zeros(v.dim)
        self.emit(f"{s.targets[v.name]} = {expr}")
        if with_sens:
            sexpr = self.lincomb([(c, w.name + "_s" if w.udep else None) for w, c in s.inputs], rows=True)
            self.emit(f"{s.targets[v.name]}_s = {sexpr or self.zsens(v.dim)}")

    def _value_cforce(self, s, with_sens):
        (v, _), = s.outputs
        (lam, _), = s.inputs
        cols = s.data["cols"]
        D = f"D{self.index(s.element)}[:, {cols.start}:{cols.stop}]"
        self.emit(f"{s.targets[v.name]} = {self.transposed_product(D, lam.name, False)}")
        self.emit(f"{s.targets[v.name]}_s = {self.transposed_product(D, lam.name + '_s', True)}")

    def modulus(self, el):
        obj = self.p.report.flat.elements[el]
        i = self.index(el)
        if obj.modulated:
            return f"M{i}"
        self.const(f"M{i}", obj.m)
        if obj.invertible():
            self.const(f"Mi{i}", np.linalg.inv(obj.m))
        return f"M{i}"

    def tf_apply(self, el, mode, m, vec):
        obj = self.p.report.flat.elements[el]
        i = self.index(el)
        matrix = vec.endswith(("_s", "_ts"))   # a sensitivity: one column per unknown
        if mode == "m":
            return self.mul(m, vec, matrix)
        if mode == "mT":
            return self.transposed_product(m, vec, matrix)
        if not obj.modulated:
            return self.mul(f"Mi{i}", vec, matrix) if mode == "minv" else self.transposed_product(f"Mi{i}", vec, matrix)
        return f"np.linalg.solve({m}, {vec})" if mode == "minv" else f"np.linalg.solve({m}.T, {vec})"

    # -- tangents (time derivatives of variables read by constraints), one method per kind
    def step_tangent(self, s):
        """Emit a plan step's time derivative ``<name>_t`` (and its sensitivities ``_ts`` to the
        unknowns where it has any: `tan`)."""
        getattr(self, f"_tangent_{s.kind}")(s)

    def _tangent_source(self, s):
        (v, sg), = s.outputs
        call = self.call(s.element, "value_rate", ["t"])
        self.emit(f"{v.name}_t = {self.sgn(sg, call)}")
        self.tan[v.name] = False

    def _tangent_storage_out(self, s):
        el = s.element
        st = self._storage[el]
        i = self.index(el)
        has_x = st["obj"].n_states > 0
        parts = []
        if has_x:
            self.emit(f"_OJ = {self.call(el, 'output_jacobian', ['t', self.xe(el), self.r(el)])}")
            parts.append(self.mul("_OJ", f"xd{i}"))
        if self.p.refs[el]:
            parts.append(self.call(el, "output_ref_rate", ["t", self.xe(el), self.r(el), self.rate_refs(el)]))
        self.emit("_d = " + (" + ".join(parts) if parts else f"np.zeros({sum(st['dims'])})"))
        has_s = has_x and self.has_rate_sens(el)
        if has_s:
            self.emit(f"_ds = {self.mul('_OJ', f'xd{i}_s', True)}")
        offs = np.cumsum([0] + st["dims"])
        for (v, sg), idx in zip(s.outputs, s.data["port_index"]):
            a, b = offs[idx], offs[idx + 1]
            self.emit(f"{v.name}_t = {self.sgn(sg, self.span('_d', a, b))}")
            if has_s:
                self.emit(f"{v.name}_ts = {self.sgn(sg, f'_ds[{a}:{b}]')}")
            self.tan[v.name] = has_s

    def _tangent_tf(self, s):
        el = s.element
        (v, _), = s.outputs
        (w, _), = s.inputs
        obj = self.p.report.flat.elements[el]
        m = self.modulus(el)
        mode, sg = s.data["mode"], s.data["sign"]
        term = self.tf_apply(el, mode, m, w.name + "_t")
        if obj.modulated:
            self.ensure_modrate(el)
            md = f"Md{self.index(el)}"
            if mode == "m":
                term = self.mul_add(md, w.name, term)
            elif mode == "mT":
                term = f"{self.transposed_product(md, w.name, False)} + {term}"
            elif mode == "minv":  # d(m^-1 w) = m^-1 (w' - m' m^-1 w)
                term = f"np.linalg.solve({m}, {w.name}_t - {md} @ np.linalg.solve({m}, {w.name}))"
            else:
                term = f"np.linalg.solve({m}.T, {w.name}_t - {md}.T @ np.linalg.solve({m}.T, {w.name}))"
        self._pass_tangent(v, w, self.sgn(sg, term), lambda: self.sgn(sg, self.tf_apply(el, mode, m, w.name + "_ts")))

    def _tangent_copy(self, s):
        (v, _), = s.outputs
        (w, _), = s.inputs
        self._pass_tangent(v, w, f"{w.name}_t", lambda: f"{w.name}_ts")

    def _pass_tangent(self, v, w, tangent, sensitivity):
        """``v``'s tangent `tangent`, and its sensitivities (the expression `sensitivity()`)
        where ``w``, the step's input, has some."""
        self.emit(f"{v.name}_t = {tangent}")
        if self.tan.get(w.name):
            self.emit(f"{v.name}_ts = {sensitivity()}")
        self.tan[v.name] = bool(self.tan.get(w.name))

    def _tangent_sum(self, s):
        (v, _), = s.outputs
        texpr = self.lincomb([(c, w.name + "_t") for w, c in s.inputs]) or self.zeros(v.dim)
        self.emit(f"{v.name}_t = {texpr}")
        sexpr = self.lincomb([(c, w.name + "_ts" if self.tan.get(w.name) else None) for w, c in s.inputs], rows=True)
        if sexpr:
            self.emit(f"{v.name}_ts = {sexpr}")
        self.tan[v.name] = sexpr is not None

    def _tangent_resistor(self, s):
        el = s.element
        obj = self.p.report.flat.elements[el]
        if self.p.refs[el]:
            raise ModelError(f"{obj.label} reads other states and lies on a constraint's path: unsupported")
        ins = ", ".join(self.sgn(sg, v.name) for v, sg in s.inputs)
        pat = s.data["pattern"]
        dims = s.data["dims"]
        self.emit(f"_J = {self.call(el, 'law_jacobian', [str(pat), 't', f'({ins},)', '()'])}")
        tin = [self.sgn(sg, v.name + "_t") for v, sg in s.inputs]
        self.emit(f"_T = {self.mul('_J', self.concat(tin))}")
        any_s = any(self.tan.get(v.name) for v, _ in s.inputs)
        if any_s:
            ts = [self.sgn(sg, v.name + "_ts") if self.tan.get(v.name) else None for v, sg in s.inputs]
            self.emit(f"_TS = {self.sens_product('_J', ts, dims, sum(dims))}")
        a = 0
        for (v, sg), d in zip(s.outputs, dims):
            self.emit(f"{v.name}_t = {self.sgn(sg, self.span('_T', a, a + d))}")
            if any_s:
                self.emit(f"{v.name}_ts = {self.sgn(sg, f'_TS[{a}:{a + d}]')}")
            self.tan[v.name] = any_s
            a += d

    def has_rate_sens(self, path):
        return path in self._rate_sens

    def ensure_modrate(self, el):
        i = self.index(el)
        if f"Md{i}" in self._modrates:
            return
        self._modrates.add(f"Md{i}")
        self.emit(f"Md{i} = {self.call(el, 'modulus_rate', ['t', self.r(el), self.rate_refs(el)])}")

    def rate_refs(self, path):
        """``rr<i>``: the rates of the state blocks element `path` references (slices of their
        owners' ``xd``), bound where a tangent first reads them: only some elements' tangents
        do (a storage's output or a modulus that depends on another element's state)."""
        i = self.index(path)
        if i not in self._rate_refs:
            self._rate_refs.add(i)
            parts = [self.span(f"xd{self.index(owner)}", osl.start, osl.stop) for owner, osl in self.p.ref_owners[path]]
            self.emit(f"rr{i} = ({', '.join(parts)},)")
        return f"rr{i}"

    def terms(self, i, c):
        """``J{i}, b{i}, g{i}``: a constraint's rows, velocity bias and gaps."""
        self.emit(f"J{i}, b{i}, g{i} = {self.call(c['path'], 'terms', ['t', self.xe(c['path']), self.r(c['path'])])}")

    def constraint_terms(self, i, c):
        """A constraint's kernels that depend on the state only: ``J{i}, b{i}, g{i}``, its port
        flows ``F{i}``, velocity residual ``c{i}`` and effort map ``D{i}``, and its own state's
        rates (written into ``xdot``)."""
        self.terms(i, c)
        flows = [self.sgn(sg, fv.name) for fv, sg, _, _ in c["ports"]]
        self.emit(f"F{i} = {self.concat(flows)}")
        flows = ", ".join(flows)
        self.emit(f"c{i} = {self.mul_add(f'J{i}', f'F{i}', f'b{i}')}")
        if type(c["obj"]).effort_map is not ConstraintElement.effort_map:
            self.effort_map(i, c, flows)
        else:
            self.emit(f"D{i} = J{i}")
        if c["obj"].n_states:
            self.emit(f"xd{i} = {self.call(c['path'], 'rates', ['t', self.xe(c['path']), self.r(c['path']), f'({flows},)'])}")
            self.emit(self.put("xdot", c["slice"], f"xd{i}"))

    def check_terms(self, indices):
        """Hook after the constraints' terms: nothing here (the Python terms raise their errors)."""

    def effort_map(self, i, c, flows):
        """``D{i}``: the constraint's effort map (None from the element, or the associated
        system asked for: its Jacobian)."""
        self.emit(f"D{i} = {self.call(c['path'], 'effort_map', ['t', self.xe(c['path']), self.r(c['path']), f'({flows},)'])}")
        self.emit(f"if D{i} is None or associated:")
        self.emit(f"    D{i} = J{i}")

    def order_steps(self, steps):
        """The order `pre_pass` emits `steps` in: the plan's here."""
        return steps

    def component(self, path):
        """The component the generated code writes element `path`'s statements with (one block
        each, `_by_component`): the element's own `Element.component` where it names one (the
        elements on one joint of a robot, `library.joint_elements`), else its path's
        (`_component_of`)."""
        return getattr(self.p.report.flat.elements.get(path), "component", None) or _component_of(path)

    def check_shared(self):
        """Hook after the steps that do not depend on the unknowns: nothing here (the compiled
        code tests its shared contact states there)."""

    def constraint_events(self, c):
        """Hook after a constraint's ledger powers: nothing here (the compiled code writes its
        event values there)."""

    def component_events(self, component):
        """Hook after a component's rates and ledger powers: nothing here (the compiled code
        writes its elements' event values there)."""

    # -- whole function
    def build(self):
        self.emit("xdot = np.zeros(NX)")
        self.ns["NX"] = self.p.layout.size
        self.evaluation()
        self.finish_full()
        src = "def rhs(t, x, u_in=None, full=False, associated=False):\n" + "\n".join(self.lines) + "\n"
        return src, self.ns

    def evaluation(self):
        """Everything from the references to ``xdot`` (rates and ledger quadratures)."""
        p = self.p
        els = p.report.flat.elements
        # references
        for path in self.references():
            self.emit(self.reference(path))
        # modulated two-port moduli
        for path, obj in els.items():
            if obj.category == "twoport" and obj.modulated:
                self.emit(f"M{self.index(path)} = {self.call(path, 'modulus', ['t', self.r(path)])}")
        self.pre_pass()
        self.check_shared()
        # constraint kernels that depend on the state only
        for c in p.constraints:
            with self.block():
                self.constraint_terms(self.index(c["path"]), c)
        self.check_terms([self.index(c["path"]) for c in p.constraints])
        for j, ci in enumerate(p.cuts):
            self.emit(f"cc{j} = {ci['tail'].name} - {ci['head'].name}")
        self._rate_sens = set()
        self._modrates = set()
        nonlinear = not p.linear
        if p.n_u:
            self.ns["NU"] = p.n_u
            self.emit(f"ug = np.zeros({p.n_u})")
            if nonlinear:
                self.emit("for _it in range(30):")
                self.ind += 1
            self.unknown_pass()
            if nonlinear:
                self.emit("if np.linalg.norm(du) <= 1e-12 * (1.0 + np.linalg.norm(ug)):")
                self.emit("    break")
                self.emit("ug = ug + du")
                self.ind -= 1
                self.emit("else:")
                self.emit(
                    "    raise IntegrationError(f'Newton iteration for the algebraic loops/multipliers did not "
                    "converge at t={t:.6g} (|du| = {np.linalg.norm(du):.3g})')"
                )
            self.emit("uf = ug + du")
        else:
            self.emit("uf = np.zeros(0)")
            self.storage_rates()
        self.finish_rates()

    def pre_pass(self):
        """Steps that do not depend on the unknowns: per step, or by assembled blocks."""
        p, lin = self.p, self.lin
        if lin is None:
            for steps in _by_component(self.order_steps(p.pre_steps), self.component):   # a component's steps: one block
                with self.block():
                    for s in steps:
                        self.step_value(s, with_sens=False)
            return
        # stage k's steps, then the block of stage k + 1 (see `linear`)
        by_stage = {}
        for s in p.pre_steps:
            if id(s) not in lin.assembled:
                by_stage.setdefault(lin.stage[id(s)], []).append(s)
        self.block_inputs([b for b in lin.blocks if b is not None] + [lin.tail] * (lin.tail is not None))
        for k in range(-1, len(lin.blocks)):
            for steps in _by_component(self.order_steps(by_stage.get(k, [])), self.component):   # as above, per stage
                with self.block():
                    for s in steps:
                        self.step_value(s, with_sens=False)
                        self.gather(s)
            if k + 1 < len(lin.blocks) and lin.blocks[k + 1] is not None:
                self.emit_block(lin.blocks[k + 1])
        tail = lin.tail
        if tail is None:
            return
        y = self.emit_block(tail)
        nr, npr = lin.n_rates, lin.n_pairs
        if nr:
            self.emit(self.put_index("xdot", "LINR_X", lin.rate_index, self.span(y, 0, nr)))
        if npr:
            prod = f"{self.span(y, nr, nr + npr)} * {self.span(y, nr + npr, nr + 2 * npr)}"
            if lin.ledger_starts is not None:
                prod = f"_reduceat({prod}, {self.const('LINR_starts', lin.ledger_starts)})"
            self.emit(self.put_index("xdot", "LINR_ledger", lin.ledger_index, prod))
        # rates other code reads (the tangents of constraints, elements referencing the state)
        read = {s.element for s in p.tangent_steps if s.kind == "storage_out"}
        read |= {owner for owners in p.ref_owners.values() for owner, _ in owners}
        for path in sorted(read & lin.storages, key=self.index):
            sl = self._storage[path]["slice"]
            self.emit(f"xd{self.index(path)} = {self.span('xdot', sl.start, sl.stop)}")

    @staticmethod
    def put(target, sl, expr):
        """The statement ``target[sl] = expr`` (a slice of a 1-D array)."""
        return f"{target}[{sl.start}:{sl.stop}] = {expr}"

    @staticmethod
    def put_at(target, index, expr):
        """The statement ``target[index] = expr`` (an integer index array of a 1-D array)."""
        return f"{target}[{index}] = {expr}"

    def put_index(self, target, name, index, expr):
        """``target[index] = expr`` for a slice, or for an integer index array held as the
        constant `name`."""
        if isinstance(index, slice):
            return self.put(target, index, expr)
        return self.put_at(target, self.const(name, index), expr)

    def block_inputs(self, blocks):
        """Allocate each block's input buffer (``_in_<name>``) where it takes more than one
        variable, and note where each variable goes (`gather`, `emit_block`).

        A variable is copied into the buffer by the statement after the step that binds it,
        in that step's block: an outlined helper (`porthamiltonian.compile.outline`) then
        writes its leaves itself. A leaf that is a copy (a junction handing a variable on
        under another name) is copied when its source is bound. Measured on the trotting Go1
        (two blocks of 12 and 36 leaves), against joining the leaves by 47 nested calls of
        `algebra.join`: compile 6.0 -> 5.6 s, 53 -> 50 us per evaluation."""
        source = {s.outputs[0][0].name: s.inputs[0][0].name for s in self.p.pre_steps if s.kind == "copy"}
        for blk in blocks:
            if blk.B is None or len(blk.ext) < 2:
                continue
            self._buffers.add(blk.name)
            buf, at = f"_in_{blk.name.lower()}", 0
            self.emit(f"{buf} = np.empty({sum(v.dim for v in blk.ext)})")
            for v in blk.ext:
                name = v.name
                while name in source:
                    name = source[name]
                self._gather.setdefault(name, []).append((buf, slice(at, at + v.dim)))
                self._gather_from[v.name] = name
                at += v.dim

    def gather(self, s, names=None):
        """Copy the variables step `s` binds (or the sources of the block inputs `names`)
        into the block inputs that take them (`block_inputs`), once each."""
        if names is None:
            names = [v.name for v, _ in s.outputs if s.targets[v.name] == v.name]
        else:
            names = [self._gather_from[n] for n in names]
        for name in names:
            for buf, sl in self._gather.pop(name, ()):
                self.emit(self.put(buf, sl, name))

    def emit_block(self, blk, bind=True):
        """Emit one assembled product; returns the name of its result.

        With `bind`, its outputs are bound to their variable names; else the caller slices
        the result (every local name costs on every call of the function, which allocates
        and clears them all: the full evaluation's thousands of names would triple the cost
        of a 500-mass chain's right-hand side).
        """
        y = "_" + blk.name.lower()
        self.emit(f"# {blk.what}: a product of matrices assembled at compile time")
        terms = []
        if blk.A is not None:
            terms.append(self.mul(self.const(blk.name + '_A', blk.A), self.span("x", blk.x_cols.start, blk.x_cols.stop)))
        if blk.B is not None:
            names = [v.name for v in blk.ext]
            buf = f"_in_{blk.name.lower()}"
            if len(names) == 1:
                w = names[0]
            elif blk.name in self._buffers:
                self.gather(None, names)   # the variables no step of the pre-pass bound
                w = buf
            else:
                w = self.concat(names)
            terms.append(self.mul(self.const(blk.name + '_B', blk.B), w))
        self.emit(f"{y} = {' + '.join(terms) if terms else f'np.zeros({blk.rows})'}")
        if bind:
            for v, a in blk.outputs:
                self.emit(f"{v.name} = {self.span(y, a, a + v.dim)}")
        return y

    def unknown_pass(self):
        p = self.p
        # unknown roots
        for v in p.vars.values():
            if v.unknown is not None:
                sl = v.unknown
                self.const(f"SEL_{v.name}", np.eye(p.n_u)[sl.start : sl.stop])
                self.emit(f"{v.name} = {self.span('ug', sl.start, sl.stop)}")
                self.emit(f"{v.name}_s = SEL_{v.name}")
        for _, steps in groupby(p.u_steps, key=lambda s: s.element):   # an element's steps: one block
            with self.block():
                for s in steps:
                    self.step_value(s, with_sens=True)
        self.storage_rates()
        # tangents of what the constraints read
        for s in p.tangent_steps:
            self.step_tangent(s)
        rows_v, rows_s, dims = [], [], []
        for c in p.constraints:
            i = self.index(c["path"])
            with self.block():
                self.constraint_row(i, c)
            rows_v.append(f"row{i}")
            rows_s.append(f"row{i}_s")
            dims.append(c["lam"].dim)
        for j, ci in enumerate(p.cuts):
            t, h = ci["tail"].name, ci["head"].name
            self.emit(f"rc{j} = {t}_t - {h}_t + {2 * ci['alpha']!r} * cc{j}")
            sens = self.lincomb([(1.0, t + "_ts" if self.tan.get(t) else None), (-1.0, h + "_ts" if self.tan.get(h) else None)], rows=True)
            self.emit(f"rc{j}_s = {sens or self.zsens(ci['tail'].dim)}")
            rows_v.append(f"rc{j}")
            rows_s.append(f"rc{j}_s")
            dims.append(ci["tail"].dim)
        for v in p.tears:
            self.emit(f"rt_{v.name} = {v.name} - {v.name}_c")
            self.emit(f"rt_{v.name}_s = SEL_{v.name} - {v.name}_c_s")
            rows_v.append(f"rt_{v.name}")
            rows_s.append(f"rt_{v.name}_s")
            dims.append(v.dim)
        self._rows_s = rows_s
        A, b = self.stack("_A", rows_s, dims, True), self.stack("_b", rows_v, dims)
        self.emit(f"du = _solve({A}, -{b})")

    def constraint_row(self, i, c):
        """``row{i}``, ``row{i}_s``: a constraint's acceleration rows (Baumgarte's terms, the
        softening, the inactive rows' multipliers set to zero) and their sensitivities."""
        obj = c["obj"]
        ft = [self.sgn(sg, fv.name + "_t") for fv, sg, _, _ in c["ports"]]
        flows = ", ".join(self.sgn(sg, fv.name) for fv, sg, _, _ in c["ports"])
        bias = self.call(c['path'], 'acceleration_bias', ['t', self.xe(c['path']), self.r(c['path']), f'({flows},)'])
        self.emit(f"cd{i} = {self.mul_add(f'J{i}', self.concat(ft), bias)}")
        sens = [(self.sgn(sg, fv.name + "_ts") if self.tan.get(fv.name) else None) for fv, sg, _, _ in c["ports"]]
        self.emit(f"cd{i}_s = {self.sens_product(f'J{i}', sens, [fv.dim for fv, _, _, _ in c['ports']], c['lam'].dim)}")
        kg = c["beta"] ** 2 if type(obj).gap is not ConstraintElement.gap else 0.0
        row = self.stabilized_row(f"cd{i}", f"c{i}", f"g{i}", 2 * c["alpha"], kg)
        gamma = float(getattr(obj, "softening", 0.0) or 0.0)
        if gamma:
            row += f" + {gamma!r} * {c['lam'].name}"
        self.emit(f"row{i} = {row}")
        self.emit(f"row{i}_s = cd{i}_s" + (f" + {gamma!r} * SEL_{c['lam'].name}" if gamma else ""))
        if type(obj).active is not ConstraintElement.active:
            lam = c["lam"]
            self.emit(f"a{i} = {self.call(c['path'], 'active', [self.xe(c['path'])])}")
            self.emit(f"row{i} = {self.blend(f'a{i}', f'row{i}', lam.name, False)}")
            self.emit(f"row{i}_s = {self.blend(f'a{i}', f'row{i}_s', f'SEL_{lam.name}', True)}")

    def storage_rates(self):
        p = self.p
        done = self.lin.storages if self.lin is not None else ()
        for st in p.storages:
            path = st["path"]
            obj = st["obj"]
            if obj.n_states == 0 or path in done:
                continue
            i = self.index(path)
            ins, sens, any_s = [], [], False
            for pi, d in zip(st["ports"], st["dims"]):
                if pi is None:
                    ins.append(self.zeros(d))
                    sens.append(None)
                    continue
                vi, si, _, _, _ = pi
                ins.append(self.sgn(si, vi.name))
                if vi.udep:
                    any_s = True
                    sens.append(self.sgn(si, vi.name + "_s"))
                else:
                    sens.append(None)
            args = ["t", self.xe(path), self.r(path), "(" + "".join(a + ", " for a in ins) + ")"]  # () without ports
            with self.block():
                self.emit(f"xd{i} = {self.call(path, 'rates', args)}")
                if any_s:
                    self._rate_sens.add(path)
                    self.emit(f"_IM = {self.call(path, 'input_matrix', ['t', self.xe(path), self.r(path)])}")
                    self.emit(f"xd{i}_s = {self.sens_product('_IM', sens, st['dims'], obj.n_states)}")

    def final(self, v):
        """Expression of a variable's final value (after the unknowns are solved)."""
        if v.udep:
            return f"({self.mul_add(v.name + '_s', 'du', v.name)})"
        return v.name

    def finish_rates(self):
        """``xdot``: the storages' rates (plus their sensitivities times the unknowns' update)
        and the ledger quadratures."""
        p = self.p
        L = p.layout
        lin = self.lin
        done = lin.storages if lin is not None else ()
        writes = {}   # a component's lines, one block each (with its events: `component_events`)
        for st in p.storages:
            if st["obj"].n_states == 0 or st["path"] in done:
                continue
            i = self.index(st["path"])
            sl = st["slice"]
            expr = self.mul_add(f"xd{i}_s", "du", f"xd{i}") if st["path"] in self._rate_sens else f"xd{i}"
            writes.setdefault(self.component(st["path"]), []).append(self.put("xdot", sl, expr))
        # ledger quadratures
        NP = L.n_physical
        led = {(e.element, e.kind): NP + e.index for e in L.ledger}
        paired = lin.ledger_paths if lin is not None else ()  # written by the assembled block
        for rinfo in p.resistors:
            if rinfo["path"] in paired:
                continue
            terms = " + ".join(f"{om!r} * {self.dot(self.final(ev), self.final(fv))}" for ev, fv, om in rinfo["ports"])
            writes.setdefault(self.component(rinfo["path"]), []).append(
                f"xdot[{led[(rinfo['path'], 'dissipated')]}] = {terms}")
        for sinfo in p.sources:
            if sinfo["path"] in paired:
                continue
            writes.setdefault(self.component(sinfo["path"]), []).append(
                f"xdot[{led[(sinfo['path'], 'supplied')]}] = {-sinfo['omega']!r} * {self.dot(self.final(sinfo['e']), self.final(sinfo['f']))}"
            )
        for component, lines in writes.items():
            with self.block():
                for line in lines:
                    self.emit(line)
                self.component_events(component)
        for c in p.constraints:
            i = self.index(c["path"])
            sl = c["lam"].unknown
            with self.block():
                self.emit(f"lamF{i} = {self.span('uf', sl.start, sl.stop)}")
                self.emit(f"xdot[{led[(c['path'], 'stabilization')]}] = {self.dot(f'lamF{i}', f'c{i}')}")
                self.emit(f"xdot[{led[(c['path'], 'supplied')]}] = {self.residual_power(f'lamF{i}', f'c{i}', f'J{i}', f'F{i}')}")
                if (c["path"], "dissipated") in led:
                    self.emit(f"xdot[{led[(c['path'], 'dissipated')]}] = {self.difference_power(f'lamF{i}', f'D{i}', f'J{i}', f'F{i}')}")
                self.constraint_events(c)
        for j, ci in enumerate(p.cuts):
            sl = ci["mult"].unknown
            self.emit(f"xdot[{NP + ci['ledger']}] = {self.dot(self.span('uf', sl.start, sl.stop), f'cc{j}')}")

    def finish_full(self):
        """``return xdot`` unless `full`; else the dict of every quantity."""
        p = self.p
        lin = self.lin
        self.emit("if not full:")
        self.emit("    return xdot")
        # full evaluation: every bond variable's final value, multipliers, residuals
        sliced = {}
        if lin is not None and lin.full is not None:
            y = self.emit_block(lin.full, bind=False)
            sliced = {v.key: f"{y}[{a}:{a + v.dim}]" for v, a in lin.full.outputs}
        items = []
        for v in p.vars.values():
            if v.key[0] == "lam":
                continue
            items.append(f"{v.name!r}: {sliced.get(v.key) or self.final(v)}")
        self.emit(f"V = {{{', '.join(items)}}}")
        cs = ", ".join(f"{c['path']!r}: c{self.index(c['path'])}" for c in p.constraints)
        gs = ", ".join(f"{c['path']!r}: g{self.index(c['path'])}" for c in p.constraints)
        ccs = ", ".join(f"{j}: cc{j}" for j in range(len(p.cuts)))
        if p.n_u and self._rows_s:
            # d(rows)/du and d(xdot)/du: the matrices of impulses and projections
            self.emit(f"A = np.concatenate(({', '.join(self._rows_s)},), axis=0)")
            self.emit("Gx = np.zeros((NX, NU))")
            for st in p.storages:
                if st["path"] in self._rate_sens:
                    sl = st["slice"]
                    self.emit(f"Gx[{sl.start}:{sl.stop}] = xd{self.index(st['path'])}_s")
        else:
            self.emit("A = None")
            self.emit("Gx = None")
        # each constraint's rows J, effort map D and port flows F (c = J F + b): impulses with friction
        maps = ", ".join(f"{c['path']!r}: (J{i}, D{i}, F{i})" for c in p.constraints for i in [self.index(c['path'])])
        self.emit(f"return dict(xdot=xdot, u=uf, vars=V, c={{{cs}}}, g={{{gs}}}, cut_c={{{ccs}}}, A=A, Gx=Gx, "
                  f"maps={{{maps}}})")


def generate(plan: Plan):
    """Return (source, namespace) of the right-hand side for `plan`."""
    return _Gen(plan).build()
