"""Port-Hamiltonian structure matrices of a compiled system at a state (the analysis path).

On the extended state z (each storage's own state followed by copies of the blocks it
references, see `StorageElement`), the compiled system is

    dz/dt = (J - R) grad H(z) + B s + G lambda,     y = B^T grad H

with s the source values and lambda the multipliers (constraint efforts and loop tears
already eliminated). J is skew, R symmetric positive semidefinite for a passive model.
Nonlinear resistors are linearized at the state (their Jacobian), so for them R is the
incremental dissipation matrix.

The matrices are computed by propagating seeds through the evaluation plan (no finite
differences): storage outputs y = B_e^T grad H_e, source values and multipliers are seeded
with identity columns, and the junction structure maps them linearly to the storage inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError

__all__ = ["Analysis", "analyze"]


@dataclass(frozen=True)
class Analysis:
    """Structure of the compiled system at one state (see module docstring).

    Attributes
    ----------
    names : list of str
        Names of the extended state entries ("element.block[i]" and "element.ref:owner.block[i]").
    H : float
    grad_H : ndarray, shape (n_z,)
    J, R : ndarray, shape (n_z, n_z)
    B : ndarray, shape (n_z, n_s)
        Input matrix of the source values `s` (sources in evaluation order, named by
        `source_names`): constant and timed sources as well as external inputs.
    G : ndarray, shape (n_z, n_lambda)
    s : ndarray, shape (n_s,)
    lam : ndarray, shape (n_lambda,)
    zdot : ndarray, shape (n_z,)
        The rates computed by the compiled right-hand side (owners' rates for referenced blocks).
    source_names : list of str
        Name of each column of `B` and entry of `s`: the source's path, with "[i]" for the
        components of a multi-dimensional source.
    B_u : ndarray, shape (n_z, system.n_inputs)
        The columns of `B` of the external inputs, in the order of the input vector u
        (`system.inputs`: path -> slice of u), named by `input_names`.
    input_names : list of str
        Name of each entry of u, as `source_names`.
    """

    names: list
    H: float
    grad_H: np.ndarray
    J: np.ndarray
    R: np.ndarray
    B: np.ndarray
    G: np.ndarray
    s: np.ndarray
    lam: np.ndarray
    zdot: np.ndarray
    source_names: list
    B_u: np.ndarray
    input_names: list

    def structure_rates(self):
        """(J - R) grad H + B s + G lambda: should equal `zdot`."""
        return (self.J - self.R) @ self.grad_H + self.B @ self.s + self.G @ self.lam

    def check(self):
        """Numbers a user checks: skewness of J, smallest eigenvalue of R, rate mismatch."""
        scale = max(1.0, float(np.max(np.abs(self.zdot))) if self.zdot.size else 1.0)
        return {
            "J_skew_error": float(np.max(np.abs(self.J + self.J.T))) if self.J.size else 0.0,
            "R_min_eigenvalue": float(np.min(np.linalg.eigvalsh(self.R))) if self.R.size else 0.0,
            "rate_mismatch": float(np.max(np.abs(self.structure_rates() - self.zdot))) / scale if self.zdot.size else 0.0,
            "dissipated_power": float(self.grad_H @ self.R @ self.grad_H),
        }


def analyze(system, t, x, u=None):
    """Compute the `Analysis` of `system` at (t, x); see the module docstring.

    Phases: the extended state, its gradient and the storages' own structure
    (`_extended_state`); the seeds of the sensitivities (storage outputs, source values,
    unknowns: `_source_seeds`); every bond variable's sensitivity to the seeds, step by step
    (`_sensitivities`), with the loop tears eliminated (`_eliminate_tears`); the structure
    matrices from the storages' inputs (`_structure`) and the external inputs' columns
    (`_external_inputs`).
    """
    plan = system._plan
    ev = system.evaluate(t, x, u)
    refs_of = {p: tuple(x[s] for s in plan.refs[p]) for p in plan.report.flat.elements}
    ext = _extended_state(plan, t, x, ev, refs_of)
    src_slots, src_paths, n_s = _source_seeds(plan)
    n_seed = ext.n_y + n_s + plan.n_u
    S, cand = _sensitivities(plan, t, x, ev["vars"], refs_of, ext.out_slots, src_slots, ext.n_y, n_s, n_seed)
    if plan.tears:
        _eliminate_tears(plan, S, cand, ext.n_y + n_s)
    Jm, Rm, Bs, G, lam_idx = _structure(plan, S, ext, n_s, n_seed)
    svals = np.zeros(n_s)
    for name, (at, dim, sg) in src_slots.items():
        svals[at : at + dim] = sg * ev["vars"][name]
    lam = np.concatenate([ev["u"][v.unknown] for v in lam_idx]) if lam_idx else np.zeros(0)
    source_names, B_u, input_names = _external_inputs(system, plan, src_paths, Bs, ext.grad_H.size)
    H = system.energy(x)
    return Analysis(ext.names, H, ext.grad_H, Jm, Rm, Bs, G, svals, lam,
                    np.concatenate(ext.zdot) if ext.zdot else np.zeros(0), source_names, B_u, input_names)


@dataclass
class _Extended:
    """The extended state z of `analyze` (module docstring): entry names, grad H, the
    storages' own J_e and B_e blocks, their rates, and where each storage output sits among
    the seeds (`out_slots`: output variable name -> (offset, dim, sign); ("storage", path) ->
    (offset, size)); `n_y` storage outputs in all."""

    names: list
    grad_H: np.ndarray
    J_blocks: list
    B_blocks: list
    zdot: list
    out_slots: dict
    n_y: int


def _extended_state(plan, t, x, ev, refs_of):
    """Each storage's own state and referenced blocks: names, gradients, structure blocks,
    rates and output slots (`_Extended`)."""
    names, grads, Jb, Bb, zdot, out_slots = [], [], [], [], [], {}
    n_y = 0
    for st in plan.storages:
        p, obj = st["path"], st["obj"]
        xo = x[st["slice"]]
        refs = refs_of[p]
        blocks = [(b.name, b.size) for b in obj.state_blocks()]
        for bn, sz in blocks:
            names += [f"{p}.{bn}[{i}]" for i in range(sz)]
        for (owner, osl), sl in zip(plan.ref_owners[p], plan.refs[p]):
            names += [f"{p}.ref:{owner}[{i}]" for i in range(sl.stop - sl.start)]
        grads.append(np.asarray(obj.gradient(xo, refs), dtype=float))
        Je, Be = obj.structure(t, xo, refs)
        Jb.append(np.atleast_2d(Je))
        Bb.append(np.atleast_2d(Be))
        own_rate = ev["xdot"][st["slice"]]
        ref_rates = [ev["xdot"][s] for s in plan.refs[p]]
        zdot.append(np.concatenate([own_rate, *ref_rates]) if ref_rates else own_rate)
        dims = st["dims"]
        offs = np.cumsum([0] + dims)
        for k, pi in enumerate(st["ports"]):
            if pi is not None:
                out_slots[pi[2].name] = (n_y + offs[k], dims[k], pi[3])
        st_off = n_y
        n_y += offs[-1]
        out_slots[("storage", p)] = (st_off, offs[-1])
    grad_H = np.concatenate(grads) if grads else np.zeros(0)
    return _Extended(names, grad_H, Jb, Bb, zdot, out_slots, n_y)


def _source_seeds(plan):
    """``(slots, paths, n_s)``: each source's value among the source seeds (variable name ->
    (offset, dim, sign)), the sources in order as (path, offset, dim), and their count."""
    src_slots, src_paths, n_s = {}, [], 0
    for s in plan.pre_steps + plan.u_steps:
        if s.kind == "source":
            (v, sg), = s.outputs
            src_slots[v.name] = (n_s, v.dim, sg)
            src_paths.append((s.element, n_s, v.dim))
            n_s += v.dim
    return src_slots, src_paths, n_s


def _seed(n, at, dim, sign=1.0):
    """Rows ``sign * I`` at columns ``at:at + dim`` of an (dim, n) sensitivity."""
    m = np.zeros((dim, n))
    m[:, at : at + dim] = sign * np.eye(dim)
    return m


def _sensitivities(plan, t, x, V, refs_of, out_slots, src_slots, n_y, n_s, n_seed):
    """``(S, cand)``: every variable's sensitivity d(value)/d(seeds), shape (dim, n_seed), in
    the plan's step order, and the candidates the producers of torn variables write."""
    els = plan.report.flat.elements
    S = {}  # var name -> (dim, n_seed) sensitivity
    for v in plan.vars.values():
        if v.unknown is not None:
            S[v.name] = _seed(n_seed, n_y + n_s + v.unknown.start, v.dim)
    cand = {}
    for s in plan.pre_steps + plan.u_steps:
        el = s.element
        obj = els[el]
        if s.kind == "source":
            (v, sg), = s.outputs
            at, dim, _ = src_slots[v.name]
            out = {v.name: _seed(n_seed, n_y + at, dim, sg)}
        elif s.kind == "storage_out":
            out = {}
            for v, sg in s.outputs:
                at, dim, _ = out_slots[v.name]
                out[v.name] = _seed(n_seed, at, dim, sg)
        elif s.kind == "resistor":
            ins = tuple(sg * V[w.name] for w, sg in s.inputs)
            Jl = obj.law_jacobian(s.data["pattern"], t, ins, refs_of[el])
            Sin = np.concatenate([sg * S[w.name] for w, sg in s.inputs], axis=0)
            So = Jl @ Sin
            out, a = {}, 0
            for v, sg in s.outputs:
                out[v.name] = sg * So[a : a + v.dim]
                a += v.dim
        elif s.kind == "tf":
            (v, _), = s.outputs
            (w, _), = s.inputs
            m = obj.modulus(t, refs_of[el])
            mode, sg = s.data["mode"], s.data["sign"]
            A = {"m": m, "mT": m.T, "minv": np.linalg.inv(m) if mode == "minv" else None,
                 "minvT": np.linalg.inv(m).T if mode == "minvT" else None}[mode]
            out = {v.name: sg * (A @ S[w.name])}
        elif s.kind == "copy":
            (v, _), = s.outputs
            (w, _), = s.inputs
            out = {v.name: S[w.name]}
        elif s.kind == "sum":
            (v, _), = s.outputs
            acc = np.zeros((v.dim, n_seed))
            for w, c in s.inputs:
                acc = acc + c * S[w.name]
            out = {v.name: acc}
        elif s.kind == "cforce":
            (v, _), = s.outputs
            (lam, _), = s.inputs
            c = next(ci for ci in plan.constraints if ci["path"] == el)
            flows = tuple(sg * V[fv.name] for fv, sg, _, _ in c["ports"])
            Jc = obj.effort_map(t, x[c["slice"]], refs_of[el], flows)
            if Jc is None:
                Jc = obj.jacobian(t, x[c["slice"]], refs_of[el])
            cols = s.data["cols"]
            out = {v.name: Jc[:, cols].T @ S[lam.name]}
        else:  # pragma: no cover
            raise ModelError(f"analysis: unknown step {s.kind}")
        for name, val in out.items():
            if s.targets.get(name, name) != name:
                cand[name] = val
            else:
                S[name] = val
    return S, cand


def _eliminate_tears(plan, S, cand, u_offset):
    """Solve the tears z = cand(z, others) for z in terms of the other seeds and substitute
    in every sensitivity of `S` (in place); `u_offset` is the unknowns' first seed column."""
    zs = [v for v in plan.tears]
    idx = np.concatenate([np.arange(u_offset + v.unknown.start, u_offset + v.unknown.stop) for v in zs])
    Cz = np.concatenate([cand[v.name] for v in zs], axis=0)  # rows: z components, cols: seeds
    A = np.eye(idx.size) - Cz[:, idx]
    rhs = Cz.copy()
    rhs[:, idx] = 0.0
    Zsol = np.linalg.solve(A, rhs)  # z = Zsol @ seeds (with z columns zeroed)
    for name in list(S):
        M = S[name]
        S[name] = M + M[:, idx] @ Zsol
        S[name][:, idx] = 0.0


def _structure(plan, S, ext, n_s, n_seed):
    """``(J, R, B_sources, G, multiplier variables)``: the storages' inputs in terms of the
    seeds give M = J_e + B_e L O (O = B_e^T: outputs y = B_e^T grad H_e), J and R its skew
    and negated symmetric parts, and the columns of the sources and of the multipliers."""
    n_y, n_z = ext.n_y, ext.grad_H.size
    L = np.zeros((0, n_seed))
    rows = []
    for st in plan.storages:
        for pi, d in zip(st["ports"], st["dims"]):
            if pi is None:
                rows.append(np.zeros((d, n_seed)))
            else:
                vi, si = pi[0], pi[1]
                rows.append(si * S[vi.name])
    if rows:
        L = np.concatenate(rows, axis=0)
    Bblk = _blockdiag(ext.B_blocks, n_z)
    Jblk = _blockdiag(ext.J_blocks, n_z)
    O = Bblk.T  # outputs y = B_e^T grad H_e
    M = Jblk + Bblk @ L[:, :n_y] @ O
    lam_idx = [v for v in plan.vars.values() if v.unknown is not None and not v.tear]
    lam_cols = np.concatenate([np.arange(n_y + n_s + v.unknown.start, n_y + n_s + v.unknown.stop) for v in lam_idx]) if lam_idx else np.zeros(0, int)
    G = Bblk @ L[:, lam_cols]
    Bs = Bblk @ L[:, n_y : n_y + n_s]
    Jm = 0.5 * (M - M.T)
    Rm = -0.5 * (M + M.T)
    return Jm, Rm, Bs, G, lam_idx


def _external_inputs(system, plan, src_paths, Bs, n_z):
    """``(source names, B_u, input names)``: a name per source column, the columns of the
    external inputs u (shape (n_z, n_inputs)) and a name per input."""
    source_names, B_u = [], np.zeros((n_z, system.n_inputs))
    for path, at, dim in src_paths:
        source_names += [path] if dim == 1 else [f"{path}[{i}]" for i in range(dim)]
        if path in plan.input_slices:
            B_u[:, plan.input_slices[path]] = Bs[:, at : at + dim]
    input_names = [""] * system.n_inputs
    for path, sl in plan.input_slices.items():
        n = sl.stop - sl.start
        input_names[sl] = [path] if n == 1 else [f"{path}[{i}]" for i in range(n)]
    return source_names, B_u, input_names


def _blockdiag(blocks, n_rows):
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    out = np.zeros((rows, cols))
    r = c = 0
    for b in blocks:
        out[r : r + b.shape[0], c : c + b.shape[1]] = b
        r += b.shape[0]
        c += b.shape[1]
    return out
