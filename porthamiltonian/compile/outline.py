"""Outlining: the generated right-hand side's repeated blocks as one compiled helper each.

A model with eight feet writes the same statements eight times, with other names and other
slices: each foot's constraint terms, rows, ledger powers. numba types, lowers and LLVM
optimizes every copy, and its compile time grows faster than the function (the 8-foot
rimless wheel's right-hand side: 448 lines, 2.2 MB of optimized IR, 11-12 s, LLVM 8 s of
it). Here each block the generator marks (`porthamiltonian.compile.codegen._Gen.block`) is
made a template: its own names renamed in order of appearance, the names it reads from the
function, the slices it takes of them (``_bsp(x, 13, 20)``, ``uf[2:5]``, ``D4[:, 0:6]``) and
the integer indices it writes at (``xdot[70] = ...``) made parameters. Blocks with the same
template become calls of one helper function, compiled once and called through its symbol
(`porthamiltonian.kernels._njit.separate`), which returns the names the rest of the
function reads.

Only templates met at least `MIN_USES` times are outlined: a helper costs a call at every
evaluation and a compile of its own, which a few repeats do not pay back. A block is split at
its compound statements (the compiled path's ``if ...: return ...``), which stay inline, and
only its runs of two or more calling statements are templates. The helpers compute what the
inline statements compute, in the same order, so outlining changes no result (a test
compares the two to the bit).
"""

from __future__ import annotations

import ast
import re

__all__ = ["outline", "dealias", "prune"]

#: the fewest blocks of one template that are outlined (module docstring). A helper's call
#: passes its contact's shared state in and its arrays out (their fields, their reference
#: counts) and the helper compiles on its own; each further block saves 0.2-0.5 s of compile.
#: Measured 2026-11-29, one process, variants interleaved (`benchmarks/results/rhs_compile.md`):
#: the 8-foot wheel on sliding-plane feet 9.4 -> 4.7 s of compile for 100.9 -> 105.5 us per
#: evaluation, on compliant feet 11.1 -> 9.1 s for 25.5 -> 27.1 us. Four repeats (Go1's
#: feet, whose blocks now hold the spring, slip, damper, rates, ledger powers and events;
#: `benchmarks/rhs_compile.py`, one process per model, session 12): the trot 6.4-6.8 -> 5.2-5.3
#: s, robot-drop 4.5-4.7 -> 3.6 s, for 3.6 % more per evaluation on touching feet (the
#: Go1-sized quadruped's bare rhs at `benchmarks/robot_profile.py`'s states, interleaved in one
#: process: 39.0-39.3 -> 40.5-40.7 us) and 9 % on culled ones (robot-drop's first state).
#: Not taken: a compile is paid once per model and machine (cached), an evaluation at every
#: step of every run and sweep point; and since its linear blocks take their inputs in a
#: buffer (session 13) the trot compiles in 4.1-4.3 s at six.
MIN_USES = 6

_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
_ALIAS = re.compile(r"^    ([A-Za-z_]\w*) = ([A-Za-z_]\w*)$")


class _Template(ast.NodeTransformer):
    """Rewrites one block's statements into a template (`outline`)."""

    def __init__(self, module_names):
        self.module = module_names
        self.params, self.args = [], []   # parameter names, the call site's argument sources
        self.local = {}                   # the block's own name -> its template name
        self.assigned = []                # the block's own names, in order of first assignment
        self._bound = 0

    def _param(self, source, share=True):
        """The parameter passing `source`: one for each name (`share`), one for each index."""
        if share and source in self.args:
            return ast.Name(self.params[self.args.index(source)], ast.Load())
        name = f"a{len(self.params)}"
        self.params.append(name)
        self.args.append(source)
        return ast.Name(name, ast.Load())

    def _index(self, node):
        """An integer literal made a parameter; any other node visited."""
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return self._param(repr(node.value), share=False)
        return self.visit(node) if node is not None else None

    def visit_Name(self, node):
        if node.id in self.module:
            return node
        if isinstance(node.ctx, ast.Store):   # a new template name at every binding
            self.local[node.id] = f"v{self._bound}"
            self._bound += 1
            if node.id not in self.assigned:
                self.assigned.append(node.id)
            return ast.Name(self.local[node.id], node.ctx)
        if node.id in self.local:
            return ast.Name(self.local[node.id], node.ctx)
        return self._param(node.id)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id in ("_sp", "_bsp", "_put"):   # span's bounds, put's offset
            node.args = [self._index(a) for a in node.args]
            return node
        return self.generic_visit(node)

    def visit_Slice(self, node):
        node.lower, node.upper = self._index(node.lower), self._index(node.upper)
        return node

    def visit_Subscript(self, node):
        """Slices' bounds and the index a value is stored at are parameters; an item of a tuple
        keeps its literal index (numba types a tuple's items by it)."""
        node.value = self.visit(node.value)
        store_at = isinstance(node.ctx, ast.Store) and isinstance(node.slice, ast.Constant)
        node.slice = self._index(node.slice) if store_at else self.visit(node.slice)
        return node

    def visit_Assign(self, node):
        node.value = self.visit(node.value)   # the value first: it reads the names before the targets bind
        node.targets = [self.visit(t) for t in node.targets]
        return node


def _statement(line):
    """The parsed statement of one generated line (a compound statement's header alone, its
    body's lines on their own)."""
    text = line.strip()
    body = ast.parse(text + " pass" if text.endswith(":") else text).body
    return body[0] if body else ast.Pass()   # a comment


def _compound(line):
    """Whether `line` is a compound statement's header or a line of its body."""
    return line.startswith("     ") or line.rstrip().endswith(":")


def _runs(lines, start, stop):
    """The block's runs of simple statements (one line each), split at compound ones; only
    runs with two or more statements that call a function: a single call gains no compile
    time from a helper and costs a call at every evaluation."""
    runs, run = [], []
    for k in range(start, stop + 1):
        line = lines[k] if k < stop else ":"   # past the block: ends the last run
        if _compound(line):
            if sum(any(isinstance(n, ast.Call) for n in ast.walk(_statement(lines[j]))) for j in run) > 1:
                runs.append(run)
            run = []
            continue
        run.append(k)
    return runs


def _read_later(names, uses, after):
    """The `names` that a line from `after` on reads before binding them again (`uses`: each
    line's (read, bound) names)."""
    out, open_ = set(), set(names)
    for read, bound in uses[after:]:
        out |= open_ & read
        open_ -= bound | read
        if not open_:
            break
    return out


def _uses(line):
    """(names read, names bound) by one line."""
    read, bound = set(), set()
    for n in ast.walk(_statement(line)):
        if isinstance(n, ast.Name):
            (bound if isinstance(n.ctx, ast.Store) else read).add(n.id)
    return read, bound


def outline(lines, blocks, module_names, prefix="_h", min_uses=MIN_USES):
    """``(lines, helpers)``: the function body's `lines` (each indented by four spaces) with
    the templates of `blocks` (``(start, stop)`` line ranges) met at least `min_uses` times
    replaced by calls, and the helpers' sources (module docstring). `module_names`: the names the
    generated module binds (the kernels, numpy), which stay names in a helper."""
    uses = [_uses(line) for line in lines]
    found = []   # (line indices, template, the names the rest of the function reads)
    for start, stop in blocks:
        for run in _runs(lines, start, stop):
            tpl = _Template(module_names)
            body = [tpl.visit(_statement(lines[k])) for k in run]
            later = _read_later(tpl.assigned, uses, run[-1] + 1)
            found.append((run, body, tpl, [n for n in tpl.assigned if n in later]))
    texts = {}
    for run, body, tpl, outs in found:
        texts.setdefault("\n".join("    " + ast.unparse(s) for s in body), []).append((run, tpl, outs))
    helpers, calls = [], {}
    for src, group in texts.items():
        if len(group) < min_uses:
            continue
        # returned: the k-th name a block binds, where any block's function reads it afterwards
        first = group[0][1]
        ret = [k for k in range(len(first.assigned)) if any(t.assigned[k] in outs for _, t, outs in group)]
        name = f"{prefix}{len(helpers)}"
        body = src + (f"\n    return {', '.join(first.local[first.assigned[k]] for k in ret)}" if ret else "")
        helpers.append(f"@njit\ndef {name}_({', '.join(first.params)}):\n{body}\n\n\n{name} = separate({name}_)\n")
        for run, t, _ in group:
            target = "".join(t.assigned[k] + ", " for k in ret)[:-2] + (" = " if ret else "")
            calls[run[0]] = (run, f"    {target}{name}({', '.join(t.args)})")
    out, skip = [], set()
    for k, line in enumerate(lines):
        if k in calls:
            run, call = calls[k]
            out.append(call)
            skip.update(run)
        elif k not in skip:
            out.append(line)
    return out, helpers


def dealias(lines, blocks=()):
    """``(lines, blocks)``: `lines` without their aliases ``a = b`` (two names, each bound once
    in the function), the later lines reading ``b`` for ``a``, and the `blocks`' line ranges
    in the new lines. The generator names every bond's variable, and the flows of a body's
    contacts are its twist under other names; numba and LLVM would carry each name, with its
    reference count, through the function (and a helper would return them)."""
    tree = ast.parse("\n".join(line[4:] for line in lines))
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound[node.id] = bound.get(node.id, 0) + 1
    alias, out, at = {}, [], []   # at[k]: the new index of old line k
    for line in lines:
        at.append(len(out))
        m = _ALIAS.match(line)
        if m and bound.get(m[1]) == 1 and bound.get(m[2], 0) <= 1:
            alias[m[1]] = alias.get(m[2], m[2])
            continue
        out.append(_WORD.sub(lambda w: alias.get(w[0], w[0]), line) if alias else line)
    at.append(len(out))
    return out, [(at[a], at[b]) for a, b in blocks]


def prune(lines, blocks=()):
    """``(lines, blocks)``: `lines` without the assignments whose names nothing reads afterwards
    (before binding them again), and the `blocks`' line ranges in the new lines. One sweep
    from the end: a line is kept if it binds a name read below it (by a kept line), writes
    (``xdot[k] = ...``, a ``_put``: the kernels that write into an array) or is a compound
    statement or its body; a kept line's reads are then live above it. Every other kernel
    writes into none of its arguments (`porthamiltonian.compile.jit._JitGen._zeros_of`), so
    its unread result can go, and with it what only it read. The generator writes what another
    phase may read: the efforts summed on a body without state (the ground), constants no
    kernel reads in the compiled code, sums of the unknowns' sensitivities nothing needs."""
    keep, live = [True] * len(lines), set()
    for k in range(len(lines) - 1, -1, -1):
        line = lines[k]
        read, bound = _uses(line)
        plain = not (_compound(line) or "_put" in line)
        node = _statement(line) if plain else None
        if (isinstance(node, ast.Assign) and bound and not bound & live
                and all(isinstance(t, (ast.Name, ast.Tuple)) for t in node.targets)):
            keep[k] = False
            continue
        if plain:
            live -= bound
        live |= read
    at, out = [], []   # at[k]: the new index of old line k
    for k, line in enumerate(lines):
        at.append(len(out))
        if keep[k]:
            out.append(line)
    at.append(len(out))
    return out, [(at[a], at[b]) for a, b in blocks]
