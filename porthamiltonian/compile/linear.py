"""Compile-time assembly of the linear part of an evaluation plan into matrices.

An N-mass chain evaluated element by element costs N Python kernel calls per right-hand
side. Its linear part is instead assembled once, here, so that the generated code evaluates
it as a few matrix-vector products whatever N is.

What is linear (each element declares it, see `StorageElement.linear_matrices`,
`ResistorElement.linear_matrix`, `TwoPortElement.linear_matrix`):

- a storage with constant matrices and no references: ``dx/dt = A x + B inputs``,
  ``outputs = C x`` (linear C and I: A = 0, B = 1, C = K or M^-1);
- a resistor with a constant law in its chosen causality, a TF/GY with a constant modulus,
  and every junction step (copy of the common variable, signed sum of the others).

A step is *assembled* if it is a linear storage's output, or a linear step with at least one
assembled input: the assembled region grows from the linear storages through the linear
junction structure and stops at nonlinear elements. Steps whose inputs are all computed
elsewhere (the junctions between two rigid bodies) keep their per-step code, which for a
copy is a mere name binding. Every assembled variable is then, by composition at compile
time, a constant linear map of the *leaves*: the state x and the *external* variables
(outputs of sources and of non-assembled steps):

    v = A_v x + B_v w

Nonlinear elements may sit between assembled regions (a nonlinear spring in a linear
chain), so the assembled variables are evaluated in stages::

    stage of an assembled step     = max over its inputs of (stage of an assembled producer,
                                                             1 + stage of another producer)
    stage of a non-assembled step  = max over its inputs of the producers' stages (-1 if none)

and the generated code runs, for k = -1, 0, 1, ...: the non-assembled steps of stage k, then
block k + 1, one product giving every assembled variable of stage k + 1 that other code reads
(by name). A final block gives, after all of them, the rates of the linear storages whose
inputs do not depend on multipliers or loop tears (written straight into dx/dt) and the
per-element ledger powers of the assembled resistors and of the sources bonded to the
assembled region, as ``omega * e . f`` from two slices of the same product. Variables that
depend on the unknowns (multipliers, tears) are never assembled: they keep the batched
value-and-sensitivity code of `codegen`. A last block, evaluated only for ``full=True``,
gives every other assembled variable.

Matrices are dense when small and scipy CSR when large and sparse.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sps

__all__ = ["Block", "Assembly", "assemble"]

#: A matrix with at most this many entries is stored dense (a CSR product costs ~10 us of
#: overhead, a dense one of this size less).
_DENSE_MAX = 4096
#: A larger matrix is stored dense if more than this fraction of it is nonzero.
_DENSE_FILL = 0.25


@dataclass
class Block:
    """One product ``y = A @ x[x_cols] + B @ concatenate(ext)`` of the generated code.

    Attributes
    ----------
    name : str
        Prefix of its constants and of its result in the generated code.
    rows : int
        Size of y.
    x_cols : slice or None
        Range of x read by A (None: A is absent).
    A, B : ndarray or scipy.sparse.csr_array or None
        Constant matrices, shapes (rows, len(x_cols)) and (rows, sum of ext dims).
    ext : list of Var
        External variables concatenated into the right operand of B.
    outputs : list of (Var, int)
        Variables named from y, with the row where each starts.
    what : str
        What the block computes, for the comment above it in the generated source.
    """

    name: str
    rows: int
    x_cols: slice | None
    A: object
    B: object
    ext: list
    outputs: list
    what: str


@dataclass
class Assembly:
    """The assembled linear part of a plan (see module docstring).

    Attributes
    ----------
    assembled : set of int
        ids of the assembled steps (not emitted one by one).
    stage : dict
        id of every non-assembled pre-step -> its stage.
    blocks : list of Block
        Block k holds the named assembled variables of stage k (None if other code reads
        none of them).
    tail : Block or None
        Rates of the assembled storages (rows [0, n_rates)) and ledger efforts (scaled by
        the ledger sign) and flows (rows [n_rates, n_rates + n_pairs) and the next n_pairs).
    rate_index : slice or ndarray
        Positions in x of the assembled storages' states, in the order of the rate rows.
    n_rates, n_pairs : int
    ledger_index : slice or ndarray
        Positions in x of the assembled ledger entries.
    ledger_starts : ndarray or None
        First pair row of each ledger entry (for `np.add.reduceat`); None when every entry
        is one scalar product.
    storages : set of str
        Paths of the storages whose rates are assembled.
    ledger_paths : set of str
        Paths of the resistors and sources whose ledger entry is assembled.
    full : Block or None
        Every assembled variable not named by the blocks (for ``full=True``).
    """

    assembled: set
    stage: dict
    blocks: list
    tail: Block | None
    rate_index: object
    n_rates: int
    n_pairs: int
    ledger_index: object
    ledger_starts: object
    storages: set
    ledger_paths: set
    full: Block | None


# ---------------------------------------------------------------- linear maps
# A map is a list (one entry per component of a variable) of dicts column -> coefficient;
# columns [0, NX) are entries of x, the others components of external variables. Maps are
# shared between variables (a copy) and never modified in place.


def _scale(c, rows):
    if c == 1.0:
        return rows
    return [{k: c * a for k, a in r.items()} for r in rows]


def _add_into(acc, c, row):
    for k, a in row.items():
        acc[k] = acc.get(k, 0.0) + c * a


def _lincomb(terms, dim):
    """sum of c * map over (c, map) terms."""
    out = [dict() for _ in range(dim)]
    for c, rows in terms:
        for acc, r in zip(out, rows):
            _add_into(acc, c, r)
    return out


def _matmul(M, rows):
    """The map of M @ v for the map `rows` of v."""
    out = []
    for i in range(M.shape[0]):
        acc = {}
        for j in np.flatnonzero(M[i]):
            _add_into(acc, float(M[i, j]), rows[j])
        out.append(acc)
    return out


def _matrix(shape, triplets):
    rows, cols, vals = triplets
    n = shape[0] * shape[1]
    if n <= _DENSE_MAX or len(vals) > _DENSE_FILL * n:
        M = np.zeros(shape)
        if vals:
            np.add.at(M, (np.array(rows), np.array(cols)), np.array(vals))
        return M
    return sps.csr_array((np.array(vals, dtype=float), (np.array(rows), np.array(cols))), shape=shape)


def _index(positions):
    """A slice if the positions are a contiguous increasing range, else an int array."""
    pos = np.asarray(positions, dtype=np.intp)
    if pos.size and np.array_equal(pos, np.arange(pos[0], pos[0] + pos.size)):
        return slice(int(pos[0]), int(pos[0]) + pos.size)
    return pos


class _Builder:
    def __init__(self, plan):
        self.p = plan
        self.nx = plan.layout.size
        self.ext_col = {}  # var key -> first column of an external variable
        self.ext_var = {}  # first column -> Var
        self.base = {}  # column of an external variable -> its first column
        self.n_ext = 0
        self.maps = {}  # var key -> map of an assembled variable

    def leaf(self, v):
        """Map of variable v: its composition if assembled, else its own columns."""
        m = self.maps.get(v.key)
        if m is not None:
            return m
        c = self.ext_col.get(v.key)
        if c is None:
            c = self.nx + self.n_ext
            self.n_ext += v.dim
            self.ext_col[v.key] = c
            self.ext_var[c] = v
            self.base.update((c + r, c) for r in range(v.dim))
        return [{c + r: 1.0} for r in range(v.dim)]

    def block(self, name, rows, what, outputs=()):
        """A Block from a list of row maps (`rows`)."""
        xs, ws = ([], [], []), ([], [], [])
        x_lo, x_hi, used = self.nx, 0, set()
        for i, r in enumerate(rows):
            for k, a in r.items():
                if a == 0.0:
                    continue
                if k < self.nx:
                    x_lo, x_hi = min(x_lo, k), max(x_hi, k + 1)
                else:
                    used.add(self.base[k])
        ext = [self.ext_var[c] for c in sorted(used)]
        wcol, off = {}, 0
        for v in ext:
            wcol[self.ext_col[v.key]] = off
            off += v.dim
        for i, r in enumerate(rows):
            for k, a in r.items():
                if a == 0.0:
                    continue
                if k < self.nx:
                    xs[0].append(i), xs[1].append(k - x_lo), xs[2].append(a)
                else:
                    base = self.base[k]
                    ws[0].append(i), ws[1].append(wcol[base] + k - base), ws[2].append(a)
        A = _matrix((len(rows), x_hi - x_lo), xs) if xs[2] else None
        B = _matrix((len(rows), off), ws) if ws[2] else None
        return Block(name, len(rows), slice(x_lo, x_hi) if A is not None else None, A, B, ext, list(outputs), what)


def _linear_step(s, els):
    """The constant matrix applied by a linear pre-step, "junction" for copy/sum, or None."""
    if s.kind in ("copy", "sum"):
        return "junction"
    obj = els[s.element]
    if s.kind == "tf":
        return obj.linear_matrix()
    if s.kind == "resistor" and not obj.state_refs():
        return obj.linear_matrix(s.data["pattern"])
    return None


def _on_region(ports, maps):
    """True if a ledger entry's variables are free of unknowns and touch the assembled region."""
    vs = [v for _, e, f in ports for v in (e, f)]
    return not any(v.udep for v in vs) and any(v.key in maps for v in vs)


def _names(paths, els, n=3):
    labels = [els[p].label for p in paths]
    return ", ".join(labels) if len(labels) <= 2 * n else ", ".join(labels[:n]) + ", ..., " + ", ".join(labels[-n:])


def assemble(plan):
    """Assemble the linear part of `plan` (see module docstring).

    Phases: the linear storages (`_linear_storages`); the assembled region grown from them,
    with each assembled variable's map of the leaves and each step's stage
    (`_assemble_region`); the storages whose rates and the elements whose ledger powers come
    from the region (`_region_rates`, `_region_pairs`); the variables other code reads by
    name (`_read_by_name`); their blocks by stage (`_stage_blocks`), the block of the rates
    and ledger powers (`_rates_block`) and the block of the other variables (`_full_block`).

    Parameters
    ----------
    plan : Plan

    Returns
    -------
    Assembly or None
        None when the plan has no linear storage (nothing to gain: the per-element code is
        kept as is).
    """
    lin = _linear_storages(plan)
    if not lin:
        return None
    b = _Builder(plan)
    assembled, lst, nst = _assemble_region(plan, lin, b)
    rate_storages = _region_rates(plan, lin)
    pairs = _region_pairs(plan, b)
    done = {st["path"] for st in rate_storages}
    paired = {path for path, _ in pairs}
    need = _read_by_name(plan, b, assembled, done, paired)
    blocks = _stage_blocks(plan, b, assembled, lst, need)
    tail, n_rates, n_pairs, rate_pos, led_pos, starts = _rates_block(plan, b, lin, rate_storages, pairs)
    return Assembly(
        assembled=assembled, stage=nst, blocks=blocks, tail=tail, rate_index=_index(rate_pos), n_rates=n_rates,
        n_pairs=n_pairs, ledger_index=_index(led_pos),
        ledger_starts=None if n_pairs == len(pairs) else np.array(starts, dtype=np.intp), storages=done,
        ledger_paths=paired, full=_full_block(plan, b, assembled, need),
    )


def _linear_storages(plan):
    """Storage path -> its constant matrices (A, B, C), for the storages without references
    that declare them."""
    lin = {}
    for st in plan.storages:
        if plan.refs[st["path"]]:
            continue
        mats = st["obj"].linear_matrices()
        if mats is not None:
            lin[st["path"]] = tuple(np.atleast_2d(np.asarray(m, dtype=float)) for m in mats)
    return lin


def _assemble_region(plan, lin, b):
    """``(assembled, stage of assembled steps, stage of the others)``: grows the assembled
    region from the linear storages through the linear steps (module docstring), writing each
    assembled variable's map of the leaves into ``b.maps``."""
    els = plan.report.flat.elements
    storage_of = {st["path"]: st for st in plan.storages}
    producer = {v.key: s for s in plan.pre_steps for v, _ in s.outputs}
    assembled, lst, nst = set(), {}, {}
    for s in plan.pre_steps:
        prods = [producer[v.key] for v, _ in s.inputs]
        mat = None
        if s.kind == "storage_out":
            ok = s.element in lin
        else:
            ok = any(id(q) in assembled for q in prods) and (mat := _linear_step(s, els)) is not None
        if not ok:
            nst[id(s)] = max((lst[id(q)] if id(q) in assembled else nst[id(q)] for q in prods), default=-1)
            continue
        assembled.add(id(s))
        lst[id(s)] = max((lst[id(q)] if id(q) in assembled else nst[id(q)] + 1 for q in prods), default=0)
        _assembled_map(s, mat, b, lin, storage_of)
    return assembled, lst, nst


def _assembled_map(s, mat, b, lin, storage_of):
    """Write the maps of the leaves of assembled step `s`'s outputs into ``b.maps`` (`mat`:
    the step's constant matrix, for a TF/GY or a resistor)."""
    if s.kind == "storage_out":
        st = storage_of[s.element]
        C = lin[s.element][2]
        offs = np.cumsum([0] + st["dims"])
        x0 = st["slice"].start
        for (v, sg), k in zip(s.outputs, s.data["port_index"]):
            b.maps[v.key] = [
                {x0 + j: sg * float(C[r, j]) for j in np.flatnonzero(C[r])} for r in range(offs[k], offs[k + 1])
            ]
    elif s.kind == "copy":
        (v, _), = s.outputs
        (w, _), = s.inputs
        b.maps[v.key] = b.leaf(w)
    elif s.kind == "sum":
        (v, _), = s.outputs
        b.maps[v.key] = _lincomb([(c, b.leaf(w)) for w, c in s.inputs], v.dim)
    elif s.kind == "tf":
        (v, _), = s.outputs
        (w, _), = s.inputs
        mode = s.data["mode"]
        M = mat if mode in ("m", "mT") else np.linalg.inv(mat)
        M = M.T if mode in ("mT", "minvT") else M
        b.maps[v.key] = _scale(s.data["sign"], _matmul(M, b.leaf(w)))
    else:  # linear resistor: outputs = M @ inputs, each in the element's sign convention
        ins = [r for w, sg in s.inputs for r in _scale(sg, b.leaf(w))]
        outs = _matmul(np.atleast_2d(np.asarray(mat, dtype=float)), ins)
        a = 0
        for v, sg in s.outputs:
            b.maps[v.key] = _scale(sg, outs[a : a + v.dim])
            a += v.dim


def _region_rates(plan, lin):
    """The linear storages with states whose inputs do not depend on the unknowns: their
    rates are assembled."""
    return [st for st in plan.storages
            if st["path"] in lin and st["obj"].n_states and not any(pi is not None and pi[0].udep for pi in st["ports"])]


def _region_pairs(plan, b):
    """``[(path, [(ledger sign, e var, f var)])]``: the resistors and sources with a port on
    the assembled region (their ledger powers are assembled)."""
    pairs = []
    for r in plan.resistors:
        ports = [(om, ev, fv) for ev, fv, om in r["ports"]]
        if _on_region(ports, b.maps):
            pairs.append((r["path"], ports))
    for src in plan.sources:
        ports = [(-src["omega"], src["e"], src["f"])]
        if _on_region(ports, b.maps):
            pairs.append((src["path"], ports))
    return pairs


def _read_by_name(plan, b, assembled, done, paired):
    """The assembled variables other code reads by name: inputs of non-assembled and tangent
    steps, constrained flows, cut bonds' sides, inputs of storages whose rates are not
    assembled, ports of resistors and sources whose powers are not."""
    need = set()

    def read(v):
        if v.key in b.maps:
            need.add(v.key)

    for s in plan.pre_steps + plan.u_steps:
        if id(s) not in assembled:
            for v, _ in s.inputs:
                read(v)
    for s in plan.tangent_steps:  # (their code reads the values of a few inputs)
        for v, _ in s.inputs:
            read(v)
    for c in plan.constraints:
        for fv, _, _, _ in c["ports"]:
            read(fv)
    for ci in plan.cuts:
        read(ci["tail"])
        read(ci["head"])
    for st in plan.storages:
        if st["path"] not in done:
            for pi in st["ports"]:
                if pi is not None:
                    read(pi[0])
    for r in plan.resistors:
        if r["path"] not in paired:
            for ev, fv, _ in r["ports"]:
                read(ev)
                read(fv)
    for src in plan.sources:
        if src["path"] not in paired:
            read(src["e"])
            read(src["f"])
    return need


def _stage_blocks(plan, b, assembled, lst, need):
    """One block per stage (None for a stage without named variables): the assembled
    variables read by name, in step order."""
    by_stage = {}
    for s in plan.pre_steps:
        if id(s) in assembled:
            for v, _ in s.outputs:
                if v.key in need:
                    by_stage.setdefault(lst[id(s)], []).append(v)
    n_stages = max(lst.values(), default=-1) + 1
    blocks = []
    for k in range(n_stages):
        vs = by_stage.get(k, [])
        rows, outputs = [], []
        for v in vs:
            outputs.append((v, len(rows)))
            rows += b.maps[v.key]
        blocks.append(b.block(f"LIN{k}", rows, f"{len(vs)} variable(s) read by other elements", outputs) if vs else None)
    return blocks


def _rates_block(plan, b, lin, rate_storages, pairs):
    """``(block, n_rates, n_pairs, rate positions, ledger positions, pair starts)``: the final
    block, the assembled storages' rates then the paired elements' ledger efforts and flows
    (None if there are neither)."""
    els = plan.report.flat.elements
    rows, rate_pos = [], []
    for st in rate_storages:
        A, B, _ = lin[st["path"]]
        x0 = st["slice"].start
        inputs = []
        for pi, d in zip(st["ports"], st["dims"]):
            inputs += [dict() for _ in range(d)] if pi is None else _scale(pi[1], b.leaf(pi[0]))
        free = [{x0 + j: float(A[i, j]) for j in np.flatnonzero(A[i])} for i in range(A.shape[0])]
        rows += _lincomb([(1.0, free), (1.0, _matmul(B, inputs))], A.shape[0])
        rate_pos += range(st["slice"].start, st["slice"].stop)
    n_rates = len(rows)
    led = {(e.element, e.kind): plan.layout.n_physical + e.index for e in plan.layout.ledger}
    e_rows, f_rows, led_pos, starts = [], [], [], []
    for path, ports in pairs:
        starts.append(len(e_rows))
        led_pos.append(led[(path, "dissipated" if els[path].category == "resistor" else "supplied")])
        for sign, ev, fv in ports:
            e_rows += _scale(sign, b.leaf(ev))
            f_rows += b.leaf(fv)
    tail = None
    if rows or e_rows:
        what = []
        if rate_storages:
            what.append(f"rates of {len(rate_storages)} linear storage(s) ({_names([st['path'] for st in rate_storages], els)})")
        if pairs:
            what.append(f"ledger powers of {len(pairs)} element(s) ({_names([p for p, _ in pairs], els)})")
        tail = b.block("LINR", rows + e_rows + f_rows, " and ".join(what))
    return tail, n_rates, len(e_rows), rate_pos, led_pos, starts


def _full_block(plan, b, assembled, need):
    """The block of every other assembled variable (evaluated by the full evaluation only),
    or None."""
    rows, outputs = [], []
    for s in plan.pre_steps:
        if id(s) in assembled:
            for v, _ in s.outputs:
                if v.key not in need:
                    outputs.append((v, len(rows)))
                    rows += b.maps[v.key]
    return b.block("LINF", rows, "the other assembled variables (full evaluation only)", outputs) if rows else None
