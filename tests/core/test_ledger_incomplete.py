"""A ledger with samples whose energies are not finite (a failed run's last states; the
samples of a DOP853 step whose dense-output stages failed) leaves them out and says so:
never a NaN figure (issue 36)."""

import json

import numpy as np

from porthamiltonian.diagnostics.ledger import PowerBudget


def _budget(H, dissipated):
    t = np.array([0.0, 0.1, 0.2, 0.3, 0.4])[: H.size]
    return PowerBudget(t, H.copy(), {"spring": H}, {"supplied": {}, "dissipated": {"damper": dissipated}, "lost": {}, "stabilization": {}}, {}, rtol=1e-8, atol=1e-10)


def test_the_ledger_leaves_out_the_non_finite_samples():
    # a spring losing 0.1 J per sample to a damper; the state at t = 0.3 s could not be
    # evaluated (NaN energy), the damper's quadrature is infinite there
    H = np.array([1.0, 0.9, 0.8, np.nan, 0.6])
    b = _budget(H, np.array([0.0, 0.1, 0.2, np.inf, 0.4]))
    assert np.array_equal(b.omitted, [0.3]) and b.available
    assert np.array_equal(b.t, [0.0, 0.1, 0.2, 0.4])
    # the totals are cumulative: the sample after the gap is exact (dH = -0.4 J, dissipated 0.4 J)
    assert np.all(np.abs(b.residual) <= 4 * np.finfo(float).eps)
    table = b.table()
    assert "nan" not in table.lower() and "inf" not in table.lower()
    assert "Energy ledger, t = 0 .. 0.4 s" in table
    assert "the energy ledger leaves out 1 sample(s) whose energies are not finite (t = 0.3 s)" in table
    assert [c for c, _ in b.findings()] == ["ledger_incomplete"]
    d = b.to_dict()
    assert d["covers_until"] == 0.4 and d["omitted"] == [0.3] and d["dissipated"] == 0.4
    json.dumps(d, allow_nan=False)   # plain finite numbers


def test_a_failed_runs_last_states_are_left_out():
    H = np.array([1.0, 0.9, np.nan, np.nan])
    b = _budget(H, np.array([0.0, 0.1, np.nan, np.nan]))
    assert np.array_equal(b.t, [0.0, 0.1]) and np.array_equal(b.omitted, [0.2, 0.3])
    assert "nan" not in b.table().lower()


def test_a_ledger_without_a_finite_sample_says_it_is_unavailable():
    b = _budget(np.array([np.nan, 1.0]), np.array([0.0, 0.0]))
    assert not b.available and np.array_equal(b.omitted, [0.0, 0.1])
    assert b.table() == ("Energy ledger unavailable: the energy ledger is unavailable: the energies are not "
                         "finite at any sample (t = 0, 0.1 s)")
    json.dumps(b.to_dict(), allow_nan=False)
    assert "<p>" in b._repr_html_()


def test_a_complete_ledger_is_unchanged():
    H = np.array([1.0, 0.9, 0.8])
    b = _budget(H, np.array([0.0, 0.1, 0.2]))
    assert b.omitted.size == 0 and b.t.size == 3 and b.findings() == []
