"""Where one right-hand side of the Go1-sized quadruped on a compliant floor goes.

Times, each the best of `REPEATS` passes over the same states, in CPU time of this process
(`time.process_time`: a pass that another process preempts is not charged for the wait, which
wall time would add on a loaded shared machine), the parts of one evaluation:

- the whole compiled rhs as `PHSystem.rhs` runs it (Python wrapper included), the bare
  numba function (``system._jit["fn"]``) called from Python, and the same called from a
  compiled loop (`compiled_loop_us`: what the compiled integrators pay);
- the articulated body's own kernels: forward kinematics + link velocities, the
  articulated-body algorithm, the element's rates and outputs kernels;
- the same robot and joint springs/dampers without the four foot contacts (the contacts'
  share is the difference);
- the generated Python rhs (the path taken before the compiled one);
- with ``--contact``, one foot's compliant contact kernel by kernel, each timed in a compiled
  loop (`in_numba_us`: no Python call overhead, which is larger than most of these kernels)
  at the touching states of the run: the kernels the generated rhs calls per contact (the
  spring's outputs, which compute the pair state once; its rates; the damper's and the slip's
  laws; the events) and the stages inside them (pair state, closed form, Newton's confirming
  evaluation, kinematics, ...);

Usage: ``PYTHONPATH=. python benchmarks/robot_profile.py [--states N] [--contact]``; prints
tables (µs).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

REPEATS = 7


def best_us(fn, args_list, repeats=REPEATS):
    """Best-of-`repeats` mean µs per call of ``fn(*args)`` over `args_list`."""
    for a in args_list:
        fn(*a)
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        for a in args_list:
            fn(*a)
        best = min(best, (time.process_time() - t0) / len(args_list))
    return best * 1e6


def compiled_loop_us(fn, ts, xs, u, F, I, repeats=REPEATS, passes=200):
    """Best-of-`repeats` µs per call of the compiled right-hand side `fn` called from a compiled
    loop over the states (what `integrate.compiled_rk` pays per evaluation): no Python call,
    no boxing of the arrays it returns (0.8-1.3 us of the call from Python, measured 2026-11-30)."""
    import numba

    @numba.njit
    def run(fn, n, ts, xs, u, F, I):
        s = 0.0
        for _ in range(n):
            for i in range(ts.shape[0]):
                s += fn(ts[i], xs[i], u, F, I)[0][0]
        return s

    xs = np.ascontiguousarray(xs)
    run(fn, 1, ts, xs, u, F, I)
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        run(fn, passes, ts, xs, u, F, I)
        best = min(best, (time.process_time() - t0) / (passes * len(ts)))
    return best * 1e6


def states(system, x0, n):
    import porthamiltonian as ph

    traj = ph.simulate(system, (0.0, 0.2), x0, method="RK4", step=1e-3)
    idx = np.linspace(0, traj.t.size - 1, n).astype(int)
    return traj.t[idx], traj.x[idx]


def profile(n_states=50, rhs_only=False, repeats=REPEATS):
    import porthamiltonian as ph
    from porthamiltonian.kernels import articulated as K
    from speed import quadruped_graph

    rows = {}
    bg, robot, q0 = quadruped_graph()
    system = ph.compile(bg)
    x0 = system.initial_state({"go1.q": q0})
    system.compiled
    ts, xs = states(system, x0, n_states)
    j = system._jit
    u0 = np.zeros(system.n_inputs)
    rows["rhs (PHSystem.rhs, compiled)"] = best_us(system.rhs, list(zip(ts, xs)), repeats)
    rows["bare compiled function"] = best_us(j["fn"], [(t, x, u0, j["F"], j["I"]) for t, x in zip(ts, xs)], repeats)
    rows["bare compiled function in a compiled loop"] = compiled_loop_us(j["fn"], ts, xs, u0, j["F"], j["I"], repeats)
    if rhs_only:
        return rows, system
    rows["Python generated rhs"] = best_us(lambda t, x: system._rhs(t, x, u0, False), list(zip(ts[:10], xs[:10])), 3)

    el = system.elements["go1"]
    sl = system.layout.element_slice("go1")
    own = [x[sl].copy() for x in xs]
    F, I = el._F, el._I
    n = I[0]
    W = np.zeros(sum(p.dim for p in el.ports()))
    Rl, tl, Rw, pw, vel, acc = (np.empty(s * n) for s in (9, 3, 9, 3, 6, 6))
    qdd = np.empty(el.nv)
    tau, fext = np.zeros(el.nv), np.zeros(6 * n)

    def fk(x):
        K.forward_kinematics(F, I, x[: el.nq], Rl, tl, Rw, pw)
        K.link_velocities(F, I, Rl, tl, x[el.nq : el.nq + el.nv], vel)

    def aba(x):
        K.aba(F, I, x[: el.nq], x[el.nq : el.nq + el.nv], tau, fext, Rl, tl, Rw, pw, vel, acc, qdd)

    rows["  FK + link velocities"] = best_us(fk, [(x,) for x in own])
    rows["  ABA (its FK included)"] = best_us(aba, [(x,) for x in own])
    # the robot's two kernels as the generated rhs calls them: the outputs kernel computes the
    # kinematics and shares them, the rates kernel reads them (`tree_rates_read`)
    shared = [K.tree_outputs_shared(x, F, I)[1] for x in own]
    inputs = (W,)
    rows["  robot outputs kernel (tree_outputs_shared: FK)"] = best_us(K.tree_outputs_shared,
                                                                           [(x, F, I) for x in own])
    rows["  robot rates kernel (tree_rates_read: no FK)"] = best_us(
        K.tree_rates_read, [(0.0, x, (), inputs, sh, F, I) for x, sh in zip(own, shared)])

    # without the contacts: robot, springs and dampers only
    from porthamiltonian.library import JointDamper, JointSpring  # noqa: F401 (the graph below)

    bg2, robot2, _ = quadruped_graph()
    for leg in ("FL", "FR", "RL", "RR"):
        bg2.remove(f"foot_{leg}")
    sys2 = ph.compile(bg2)
    sys2.compiled
    x2 = sys2.initial_state({"go1.q": q0})
    xs2 = []
    for x in xs:
        y = x2.copy()
        for path in sys2.elements:
            if path in system.elements:
                y[sys2.layout.element_slice(path)] = x[system.layout.element_slice(path)]
        xs2.append(y)
    j2 = sys2._jit
    u2 = np.zeros(sys2.n_inputs)
    rows["bare compiled function without contacts"] = best_us(j2["fn"], [(t, x, u2, j2["F"], j2["I"]) for t, x in zip(ts, xs2)])
    rows["=> four foot contacts (difference)"] = rows["bare compiled function"] - rows["bare compiled function without contacts"]
    rows["=> PHSystem.rhs wrapper (difference)"] = rows["rhs (PHSystem.rhs, compiled)"] - rows["bare compiled function"]
    return rows, system


def in_numba_us(kernel, args_list, calls=2000, repeats=5):
    """Best-of-`repeats` µs per call of `kernel` (a compiled kernel) called `calls` times in a
    compiled loop for each argument tuple of `args_list` (through `_njit.separate`, as the
    generated right-hand side calls it).

    Caveat (measured 2026-11-30): this loop hands a kernel the pair record (13 fields, 8
    arrays) through a chain of stack-relative pushes that the generated right-hand side does
    not emit (its machine code has none); an empty kernel taking the spring's events kernel's
    arguments costs 0.25 us here (0.03 us with the record's first 12 fields), so the rows of
    the kernels that take the record read up to that much high."""
    import numba

    from porthamiltonian.kernels._njit import separate

    names = ", ".join(f"a{i}" for i in range(len(args_list[0])))
    ns = {"call": separate(kernel)}
    exec(f"def run(n, {names}):\n    for _ in range(n):\n        call({names})\n", ns)
    run = numba.njit(ns["run"])
    run(1, *args_list[0])
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        for a in args_list:
            run(calls, *a)
        best = min(best, (time.process_time() - t0) / (calls * len(args_list)))
    return best * 1e6


def in_numba_allocations(kernel, args_list, calls=200):
    """Arrays allocated per call of `kernel` (numba runtime's allocation counter,
    ``rtsys.get_allocation_stats().alloc``), called `calls` times in a compiled loop for each
    argument tuple of `args_list` as `in_numba_us` calls it (the arguments' boxing, counted by
    a call of the loop with 0 iterations, is subtracted). Every `np.empty`, `np.zeros`, ``.copy()``, array arithmetic result counts one,
    which numba's reference counting then frees (`NRT_MemInfo_alloc` and an atomic
    decrement per array)."""
    import numba
    from numba.core.runtime import _nrt_python, rtsys

    from porthamiltonian.kernels._njit import separate

    names = ", ".join(f"a{i}" for i in range(len(args_list[0])))
    ns = {"call": separate(kernel)}
    exec(f"def run(n, {names}):\n    for _ in range(n):\n        call({names})\n", ns)
    run = numba.njit(ns["run"])
    run(1, *args_list[0])
    _nrt_python.memsys_enable_stats()   # what NUMBA_NRT_STATS=1 switches on at start-up
    try:
        total = 0
        for a in args_list:
            for n, sign in ((0, -1), (calls, 1)):   # 0 calls: the arguments' boxing, subtracted
                before = rtsys.get_allocation_stats().alloc
                run(n, *a)
                total += sign * (rtsys.get_allocation_stats().alloc - before)
        return total / (calls * len(args_list))
    finally:
        _nrt_python.memsys_disable_stats()


def contact_profile(system, ts, xs, foot="foot_FL", measure=in_numba_us):
    """One foot's compliant contact, kernel by kernel, at the run's states where it touches
    (`measure`: `in_numba_us`, or `in_numba_allocations` for the arrays allocated per call).
    Returns ``{row: µs}`` (or ``{row: arrays per call}``)."""
    from porthamiltonian.kernels import closest as KCL
    from porthamiltonian.kernels import compliant as KC
    from porthamiltonian.kernels import contact as K
    from porthamiltonian.kernels import lie as L

    plan = system._plan
    spring, damper, slip = (system.elements[f"{foot}/{e}"] for e in ("spring", "damper", "slip"))
    ks = spring.kernel("outputs")
    F, I = ks.F, ks.I
    sl = system.layout.element_slice(f"{foot}/spring")

    def refs_of(path, kern, x):
        return tuple(np.ascontiguousarray(r) for r in kern.pad(tuple(x[r] for r in plan.refs[path])))

    states = [(t, x) for t, x in zip(ts, xs) if x[sl][6] > 0.5][:10]
    A = [(t, np.ascontiguousarray(x[sl]), refs_of(f"{foot}/spring", ks, x), x) for t, x in states]
    shs = [KC.spring_outputs(t, x, r, F, I)[-1] for t, x, r, _ in A]
    assert all(sh[KC.P_STATUS] == K.OK and sh[KC.P_CULLED] == 0.0 for sh in shs)
    T = (np.array([0.1, 0.2, 0.3, 0.01, 0.02, 0.03]), np.zeros(6), np.array([0.01, 0.0, 0.0]))
    kd, kf = damper.kernel("law"), slip.kernel("law")
    rows = {}
    rows["spring outputs (pair state + spring efforts)"] = measure(KC.spring_outputs,
                                                                       [(t, x, r, F, I) for t, x, r, _ in A])
    rows["spring rates"] = measure(KC.spring_rates, [(t, x, r, T, sh, F, I) for (t, x, r, _), sh in zip(A, shs)])
    rows["damper law"] = measure(kd.function, [(t, T[:2], refs_of(f"{foot}/damper", kd, xf), sh, kd.F, kd.I)
                                                   for (t, _, _, xf), sh in zip(A, shs)])
    rows["slip law"] = measure(kf.function, [(t, (T[2],), refs_of(f"{foot}/slip", kf, xf), sh, kf.F, kf.I)
                                                 for (t, _, _, xf), sh in zip(A, shs)])
    rows["spring events"] = measure(KC.spring_events, [(t, x, r, sh, F, I) for (t, x, r, _), sh in zip(A, shs)])
    rows["= one touching contact, its five kernels"] = sum(rows.values())
    F1, I1, F2, I2 = KC._surfaces(F, I)
    H = [KC._mat(F, h, 4) for h in (KC.H_WA, KC.H_WB, KC.H_S1A, KC.H_BS2)]
    ev = [(F1, I1, F2, I2, r[0], r[1], H[0], H[1], x[0:4].copy(), int(round(x[4])), int(round(x[5])), F[KC.SCALE],
           F[KC.TOL], I[KC.MAX_ITER], F[KC.ALPHA], H[2], H[3], F[KC.REG_TOL]) for _, x, r, _ in A]
    rows["  outputs: evaluate (the pair state from the poses)"] = measure(K.evaluate, ev)
    poses = [(H[2], H[3], L.pose_to_matrix(r[0]), H[1]) for _, _, r, _ in A]
    H12 = [K.relative_pose(*p) for p in poses]
    rows["    relative pose"] = measure(K.relative_pose, poses)
    cf = [(F1, I1, F2, I2, h[:3, :3].copy(), h[:3, 3].copy(), int(round(x[4])), int(round(x[5])))
          for h, (_, x, _, _) in zip(H12, A)]
    rows["    closed form"] = measure(KCL.closed_form, cf)
    nw = [a[:6] + (KCL.closed_form(*a)[1],) + a[6:] + (F[KC.SCALE], F[KC.TOL], I[KC.MAX_ITER]) for a in cf]
    assert all(KCL.newton(*a)[3] == 0 for a in nw)   # the closed form is confirmed, not iterated
    # the pair state confirms it with one evaluation into scratch arrays, without Newton's call
    scratch = (np.empty(4), np.empty((4, 4)), np.empty(2), np.empty(3), np.empty(3))
    rows["    its confirmation (derivatives, residual, Jacobian)"] = measure(
        KCL.evaluate_into, [a[:9] + scratch for a in nw])
    res = [KCL._evaluate(*a[:9]) for a in nw]
    rows["    finish (normals, distance, curvature margin)"] = measure(
        KCL.finish, [(F1, F2, e[0], e[1], a[4], e[5], e[6], a[7], a[8], F[KC.REG_TOL]) for e, a in zip(res, nw)])
    rows["    contact frame and twist maps"] = measure(
        K.frame_and_maps, [(sh[KC.P_D1], sh[KC.P_H1C][:3, 2].copy(), -sh[KC.P_DELTA], F[KC.ALPHA], sh[KC.P_H12], H[2],
                            H[3]) for sh in shs])
    Ad_S2b, Ad_S1a = KC._mat(F, KC.AD_S2B, 6), KC._mat(F, KC.AD_S1A, 6)
    T12 = [K.relative_twist(sh[KC.P_H12], Ad_S2b, Ad_S1a, T[0], T[1]) for sh in shs]
    kin = [(sh[KC.P_D1], sh[KC.P_D2], sh[KC.P_H12][:3, :3].copy(), sh[KC.P_H12][:3, 3].copy(), tw)
           for sh, tw in zip(shs, T12)]
    rows["  rates: contact.spring_rates"] = measure(K.spring_rates, [
        (F1, I1, F2, I2, sh[KC.P_X], sh[KC.P_C1], sh[KC.P_C2], sh[KC.P_D1], sh[KC.P_D2], sh[KC.P_H12], sh[KC.P_H1C],
         sh[KC.P_GA], sh[KC.P_GB], Ad_S2b, Ad_S1a, T[0], T[1], T[2], x[0:4].copy(), int(round(x[4])),
         int(round(x[5])), F[KC.RELAX], x[7:10].copy(), True) for (_, x, _, _), sh in zip(A, shs)])
    rows["    kinematics (the contact points' rates)"] = measure(K.kinematics, kin)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=50)
    ap.add_argument("--contact", action="store_true", help="one foot's contact, kernel by kernel")
    ap.add_argument("--allocations", action="store_true",
                    help="with --contact: also the arrays each kernel allocates per call")
    ap.add_argument("--rhs-only", action="store_true",
                    help="only the rhs rows (PHSystem.rhs, the bare compiled function from Python and from a "
                         "compiled loop), best of --repeats")
    ap.add_argument("--repeats", type=int, default=REPEATS)
    a = ap.parse_args(argv)
    rows, system = profile(a.states, a.rhs_only, a.repeats)
    print(f"state size {system.layout.size}")
    for k, v in rows.items():
        print(f"{k:55s} {v:9.2f} µs")
    if a.contact:
        from speed import quadruped_graph

        _, _, q0 = quadruped_graph()
        ts, xs = states(system, system.initial_state({"go1.q": q0}), a.states)
        print("one foot's compliant contact, touching, each kernel in a compiled loop")
        for k, v in contact_profile(system, ts, xs).items():
            print(f"{k:60s} {v:9.3f} µs")
        if a.allocations:
            print("the same kernels: arrays allocated per call (numba runtime's counter)")
            for k, v in contact_profile(system, ts, xs, measure=in_numba_allocations).items():
                print(f"{k:60s} {v:9.1f}")


if __name__ == "__main__":
    main()
