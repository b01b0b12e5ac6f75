"""The Bezier rattleback (seed 002 Figs. 10-11): its patch against the closed form of its
docstring, and the spin reversal with the reduced contact at the seed's fixed step."""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.models import build_model
from porthamiltonian.models.bezier_rattleback import rattleback_patch


def test_the_patch_is_the_paraboloid_of_its_docstring():
    """Control heights k x^2 + l y^2 on an even grid give z = (2/3)(k x^2 + l y^2) + const in
    the patch's own axes: checked at random points, with the lowest point at -height, the
    normal down, and the principal curvatures 4k/3, 4l/3 along the turned axes there."""
    length, width, rl, ra, skew, h = 0.2, 0.2 / 3, 0.01, 0.012, math.radians(10.0), 0.02
    S = rattleback_patch(length, width, rl, ra, skew, h)
    a, b = length / 2, width / 2
    k, l_ = rl / a**2, ra / b**2
    rng = np.random.default_rng(5)
    c, s = math.cos(skew), math.sin(skew)
    for u, v in rng.uniform(0.0, 1.0, size=(20, 2)):
        p = S.point(u, v)
        x, y = c * p[0] + s * p[1], -s * p[0] + c * p[1]            # into the patch's axes
        assert p[2] == pytest.approx(2 / 3 * (k * x * x + l_ * y * y) - h, abs=1e-15)
    assert np.allclose(S.point(0.5, 0.5), (0.0, 0.0, -h), rtol=0, atol=1e-15)
    assert np.allclose(S.normal(0.5, 0.5), (0.0, 0.0, -1.0), rtol=0, atol=1e-15)
    pc = S.principal_curvatures(0.5, 0.5)
    assert sorted((pc.k1, pc.k2)) == pytest.approx(sorted((4 * k / 3, 4 * l_ / 3)), rel=1e-12)
    d_long = pc.d1 if abs(pc.k1 - 4 * k / 3) < abs(pc.k2 - 4 * k / 3) else pc.d2
    assert abs(d_long @ (c, s, 0.0)) == pytest.approx(1.0, abs=1e-12)   # the long axis, 10 degrees off x


def _reversals(t, spin, threshold=1.0):
    """Times the spin goes from below -threshold to above +threshold or back."""
    out, sign = [], np.sign(spin[0])
    for tk, w in zip(t, spin):
        if sign * w < -threshold:
            out.append(tk)
            sign = -sign
    return out


def test_the_rattleback_reverses_its_spin_once_between_4_and_12_s():
    """Spun at -3 rad/s about the vertical, slightly rocked, rolling without slip on the
    floor (reduced contact, RK4 at 10 ms): the spin turns to about +3 rad/s once, between 4
    and 12 s, after rocking with a period of a few tenths of a second; the top stays on its
    patch touching the floor to round-off, and the ledger closes to RK4's truncation error."""
    model = build_model("bezier-rattleback")
    assert model.solver == dict(method="RK4", step=0.01)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    traj = ph.simulate(system, (0.0, 12.0), x0, **model.solver)
    assert traj.status == 0 and not traj.events
    t = traj.t
    spin = np.array([model.observables["spin"](system, tk, x) for tk, x in zip(t, traj.x)])
    reversals = _reversals(t, spin)
    assert len(reversals) == 1 and 4.0 < reversals[0] < 12.0, reversals
    assert spin[t > reversals[0] + 1.0].max() > 2.5                      # it spins the other way
    roll = np.array([model.observables["roll"](system, tk, x) for tk, x in zip(t, traj.x)])
    w = (t > reversals[0] - 2.0) & (t < reversals[0] - 0.3)
    r = roll[w] - roll[w].mean()
    zeros = t[w][1:][np.sign(r[1:]) != np.sign(r[:-1])]
    period = 2 * np.diff(zeros).mean()
    assert 0.2 < period < 0.8, period                                  # seed: about 0.5 s
    el = system.elements["contact/constraint"]
    gaps = [el.distance(*system.element_state("contact/constraint", x)) for x in traj.x[::50]]
    assert np.abs(gaps).max() < 1e-12
    assert np.abs(traj.power_budget().residual).max() < 1e-4 * system.energy(x0)   # measured 1e-5


def test_a_centre_of_mass_above_the_bottom_curvature_is_refused():
    """Resting on a bottom whose radius of curvature across is below the centre's height is
    an unstable equilibrium: refused, naming the parameter and the radii."""
    with pytest.raises(ph.ParameterError, match=r"`height` = 0.08 m must be below the bottom's radii of curvature "
                                                r"0.75 m and 0.06944 m \(else the rest position is unstable\)"):
        build_model("bezier-rattleback", height=0.08)


def test_the_three_contact_models_reverse_together():
    """The same top with the sliding-plane constraint (multipliers, DOP853) and with a stiff
    compliant contact (k = 1e5 N/m, sticking friction) reverses when the reduced one does:
    the spin passes zero within 0.03 s of it (measured 7.994 and 7.981 s against 7.980 s)."""
    times = {}
    for kind in ("reduced", "sliding_plane", "compliant"):
        model = build_model("bezier-rattleback", contact=kind)
        system = ph.compile(model.graph, baumgarte=model.baumgarte)
        traj = ph.simulate(system, (0.0, 9.0), system.initial_state(model.initial), **model.solver)
        assert traj.status == 0 and not traj.events
        spin = np.array([model.observables["spin"](system, tk, x) for tk, x in zip(traj.t, traj.x)])
        times[kind] = traj.t[np.argmax(spin > 0.0)]
    assert 7.5 < times["reduced"] < 8.5
    assert abs(times["sliding_plane"] - times["reduced"]) < 0.03, times
    assert abs(times["compliant"] - times["reduced"]) < 0.03, times
