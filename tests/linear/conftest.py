"""Models shared by the linear-analysis tests, and their independent references."""

import numpy as np

import porthamiltonian as ph


def chain_graph(masses, stiffnesses, dampings):
    """A chain of N masses, each tied to the previous one (the first to a wall) by a spring
    and a damper in parallel; an external force input "F" on the last mass.

        wall |--k0,b0--[m0]--k1,b1--[m1]-- ... --[m_{N-1}] <- F

    Link i (spring k_i and damper b_i on one 1-junction) carries the relative velocity
    v_{i-1} - v_i (a 0-junction splits it off), v_{-1} = 0 for the wall.
    """
    N = len(masses)
    bg = ph.BondGraph("chain")
    bg.add(ph.Se("F", input=True))
    for i in range(N):
        bg.add(ph.Junction1(f"v{i}"), ph.I(f"m{i}", mass=masses[i]), ph.Junction1(f"L{i}"),
               ph.C(f"k{i}", stiffness=stiffnesses[i]), ph.R(f"b{i}", dampings[i]))
        bg.connect(f"v{i}", f"m{i}")
        bg.connect(f"L{i}", f"k{i}")
        bg.connect(f"L{i}", f"b{i}")
        if i == 0:
            bg.connect("v0", "L0")
        else:
            bg.add(ph.Junction0(f"z{i}"))
            bg.connect(f"v{i - 1}", f"z{i}")
            bg.connect(f"z{i}", f"v{i}")
            bg.connect(f"z{i}", f"L{i}")
    bg.connect("F", f"v{N - 1}")
    return bg


def chain_state_space(masses, stiffnesses, dampings):
    """The same chain written by hand: x = (p_0..p_{N-1}, q_0..q_{N-1}), q_i the elongation
    of link i (q_0' = v_0, q_i' = v_i - v_{i-1}), link force f_i = k_i q_i + b_i q_i' pulling
    mass i back and mass i-1 forward; input the force on the last mass, output its velocity.

    Returns
    -------
    A : ndarray, shape (2N, 2N); B : (2N, 1); C : (1, 2N)
    """
    m, k, b = (np.asarray(v, dtype=float) for v in (masses, stiffnesses, dampings))
    N = m.size
    v = np.zeros((N, 2 * N))  # velocities from the state
    v[np.arange(N), np.arange(N)] = 1.0 / m
    dq = v.copy()
    dq[1:] -= v[:-1]
    force = k[:, None] * np.eye(N, 2 * N, N) + b[:, None] * dq  # link forces from the state
    dp = -force.copy()
    dp[:-1] += force[1:]
    A = np.vstack((dp, dq))
    B = np.zeros((2 * N, 1))
    B[N - 1, 0] = 1.0
    C = v[N - 1 : N]
    return A, B, C
