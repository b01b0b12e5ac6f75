"""Simultaneous impacts of sliding-plane feet: one Newton impact for the set (`PHSystem.apply_impulse`).

Scene: Go1 (example-robot-data URDF, the `robot-drop` model's description) standing level on its
four sphere feet, every foot touching the ground (gap 0, a symmetric pose) but detached, the base
moving down at 0.5 m/s: the four feet land at the same instant.

References (independent of the impulse solve):
- the impulse recovered from the velocity jump: M(q) (v+ - v-) = Jn^T Lambda, with M from the
  composite-rigid-body algorithm and the feet's normal rows Jn from the link Jacobians and the
  sphere centres (least squares; its residual says the impulse is purely normal);
- Newton's law as a complementarity problem on those rows: Lambda >= 0, post-impact approach
  rates c+ <= -e c-, Lambda_i (c+_i + e c-_i) = 0;
- the energy: H before minus H after equals the impact's `lost`, booked in the ledger.
"""

import numpy as np
import pytest

import porthamiltonian as ph

pytest.importorskip("yourdfpy")

E = 0.3          # the model's restitution
SPEED = 0.5      # m/s, downward, of the base at the landing


@pytest.fixture(scope="module")
def landing():
    from porthamiltonian.contact.materials import ContactMaterial
    from porthamiltonian.kernels import articulated as K
    from porthamiltonian.library import ArticulatedBody, Ground, add_joint_dynamics
    from porthamiltonian.models.robot_drop import IMPACT_GAP, attach_feet, robot_description, stand_on_feet

    # robot-drop's scene on sliding-plane feet
    description, feet = robot_description("go1", joint_stiffness=40.0, joint_damping=0.5)
    robot = ArticulatedBody("robot", description)
    ground = Ground("ground")
    bg = ph.BondGraph("landing")
    bg.add(robot, ground)
    add_joint_dynamics(bg, robot)
    attach_feet(bg, robot, feet, ground, "sliding_plane", material=ContactMaterial(friction=0.8, restitution=E),
                impact_gap=IMPACT_GAP)
    system = ph.compile(bg)
    q, heights = stand_on_feet(robot, feet, gap=0.0)
    assert max(heights.values()) - min(heights.values()) < 1e-12   # the four feet touch together
    v = np.zeros(robot.nv)
    v[5] = -SPEED                                                   # the level base's z
    feet_paths = sorted(p for p in system.elements if p.endswith("/constraint"))
    assert len(feet_paths) == 4
    x0 = system.initial_state({"robot.q": q, "robot.v": v, **{f"{p}.active": 0.0 for p in feet_paths}})
    traj = ph.simulate(system, (0.0, 2e-4), x0, method="DOP853", rtol=1e-10, atol=1e-12)

    # the feet's normal rows Jn (approach rate c = -Jn v) from the link Jacobians
    n = len(robot.joints)
    Rl, tl, Rw, pw = (np.empty(s * n) for s in (9, 3, 9, 3))
    K.forward_kinematics(robot._TF, robot._TI, q, Rl, tl, Rw, pw)
    J = K.link_jacobians(robot._TF, robot._TI, Rl, tl)
    rows = []
    for p in feet_paths:
        link = p.split("-contact")[0]
        i = robot.link_names.index(link)
        H, sphere = feet[link]
        R = Rw[9 * i : 9 * i + 9].reshape(3, 3)
        nb = R.T @ np.array([0.0, 0.0, 1.0])
        r = H[:3, 3] - sphere.radius * nb            # the contact point in the link frame
        rows.append(np.r_[np.cross(r, nb), nb] @ J[i])
    return dict(system=system, robot=robot, traj=traj, q=q, Jn=np.array(rows), paths=feet_paths)


def test_four_feet_landing_together_give_one_impact_event(landing):
    traj = landing["traj"]
    impacts = [e for e in traj.events if e.name.endswith(".impact")]
    assert len(impacts) == 1, [str(e) for e in traj.events]
    assert impacts[0].t == 0.0


def test_the_impulse_solves_newtons_complementarity_problem(landing):
    system, robot, traj, Jn = landing["system"], landing["robot"], landing["traj"], landing["Jn"]
    lay = system.layout
    k = next(i for i in range(len(traj.t)) if traj.t[i] == 0.0 and not np.array_equal(traj.x[i], traj.x[0]))
    v_minus, v_plus = traj.x[0][lay["robot.v"]], traj.x[k][lay["robot.v"]]
    assert np.array_equal(traj.x[k][lay["robot.q"]], landing["q"])   # an impulse moves nothing
    M = robot.mass_matrix(landing["q"])
    lam, *_ = np.linalg.lstsq(Jn.T, M @ (v_plus - v_minus), rcond=None)
    scale = np.abs(M @ (v_plus - v_minus)).max()
    # the jump is a combination of the four normal rows only (the feet land without slip, so
    # their impulses carry no friction, `compile.impact_friction`):
    # round-off of the impulse solve and of M (18 x 18, condition ~1e4): 1e-10 of the jump
    assert np.abs(Jn.T @ lam - M @ (v_plus - v_minus)).max() < 1e-10 * scale
    c_minus, c_plus = -Jn @ v_minus, -Jn @ v_plus
    assert np.allclose(c_minus, SPEED, rtol=1e-12)                  # the level base: every foot at 0.5 m/s
    tol = 1e-9 * SPEED
    assert np.all(lam >= -1e-10 * np.abs(lam).max()), lam           # impulses push
    assert np.all(c_plus <= -E * c_minus + tol), c_plus             # separating at least e times as fast
    assert np.abs(lam * (c_plus + E * c_minus)).max() < tol * np.abs(lam).max()
    assert np.all(lam > 0.0)                                        # here every foot takes an impulse
    # all four bounced (e c- > rest_speed): every foot contact is off afterwards
    for p in landing["paths"]:
        assert traj.x[k][lay[f"{p}.active"]][0] == 0.0


def test_the_energy_lost_equals_the_ledger_entry(landing):
    system, traj = landing["system"], landing["traj"]
    k = next(i for i in range(len(traj.t)) if traj.t[i] == 0.0 and not np.array_equal(traj.x[i], traj.x[0]))
    impact = next(e for e in traj.events if e.name.endswith(".impact"))
    dH = system.energy(traj.x[0]) - system.energy(traj.x[k])
    assert impact.lost > 0.0
    assert abs(impact.lost - dH) < 1e-9 * abs(dH)
    # and the ledger closes over the run (integration tolerance: rtol 1e-10 over 0.2 ms)
    budget = traj.power_budget()
    assert np.abs(budget.residual).max() < 1e-8 * max(1.0, np.abs(budget.H).max())


def test_a_foot_touching_down_at_rest_stays_on(landing):
    """Go1 standing on its four feet (gap 0), two of them (rear) on, two detached, the base
    rising at 1e-11 m/s: every foot's normal velocity separates by a round-off-sized amount.
    The front-left foot's impact, joined by the front-right (within the impact gap), is plastic
    and takes no impulse; the foot stays on. Independent check, the unilateral contact's
    complementarity: with it on, its normal force at that state is positive (the robot's
    weight pushes it into the ground), so switching it off would leave it accelerating into
    the ground; before, a tolerance relative to the ~0 approach speed alone read the
    separation as real, switched it off, and its impact fired again at the same instant
    without end (robot-drop on the sliding plane, issue 33)."""
    system, robot, q, paths = landing["system"], landing["robot"], landing["q"], landing["paths"]
    element, partner = (next(p for p in paths if p.startswith(f"{leg}_foot")) for leg in ("FL", "FR"))
    v = np.zeros(robot.nv)
    v[5] = 1e-11
    x = system.initial_state({"robot.q": q, "robot.v": v,
                              **{f"{p}.active": 0.0 if p in (element, partner) else 1.0 for p in paths}})
    lay = system.layout
    b = next(b for b in system.events if b.element == element and b.spec.name == "impact")
    out = b.spec.handler(0.0, x[b.own], tuple(x[s] for s in b.refs))
    x[b.own] = out.x
    xn = system.apply_impulse(0.0, x, element, out.impulse)
    assert xn[lay[f"{element}.active"]][0] == 2.0   # on, and stuck: it touched down without slip
    assert system.multipliers(0.0, xn)[element][0] > 0.0
