"""A ledger whose energies stop being finite (a failed run's last states) covers the part
before and says so: never a NaN figure (issue 36)."""

import json

import numpy as np

from porthamiltonian.diagnostics.ledger import PowerBudget


def _budget(H, dissipated):
    t = np.array([0.0, 0.1, 0.2, 0.3, 0.4])[: H.size]
    return PowerBudget(t, H.copy(), {"spring": H}, {"supplied": {}, "dissipated": {"damper": dissipated}, "lost": {}, "stabilization": {}}, {}, rtol=1e-8, atol=1e-10)


def test_the_ledger_stops_at_the_first_non_finite_sample():
    # a spring losing 0.1 J per sample to a damper; the state at t = 0.3 s could not be evaluated
    H = np.array([1.0, 0.9, 0.8, np.nan, 0.6])
    b = _budget(H, np.array([0.0, 0.1, 0.2, 0.3, np.inf]))
    assert b.unavailable_from == 0.3 and b.available
    assert np.array_equal(b.t, [0.0, 0.1, 0.2])
    # the totals are those at t = 0.2 s, the last sample covered: dH = -0.2 J, dissipated 0.2 J
    assert abs(b.residual[-1]) <= 4 * np.finfo(float).eps
    table = b.table()
    assert "nan" not in table.lower() and "inf" not in table.lower()
    assert "Energy ledger, t = 0 .. 0.2 s" in table
    assert "the energy ledger covers t = 0 .. 0.2 s only: the energies are not finite from t = 0.3 s" in table
    assert [c for c, _ in b.findings()] == ["ledger_incomplete"]
    d = b.to_dict()
    assert d["covers_until"] == 0.2 and d["unavailable_from"] == 0.3
    json.dumps(d, allow_nan=False)   # plain finite numbers


def test_a_ledger_without_a_finite_sample_says_it_is_unavailable():
    b = _budget(np.array([np.nan, 1.0]), np.array([0.0, 0.0]))
    assert not b.available and b.unavailable_from == 0.0
    assert b.table() == ("Energy ledger unavailable: the energy ledger is unavailable: the energies are not "
                         "finite from the first sample (t = 0 s)")
    json.dumps(b.to_dict(), allow_nan=False)
    assert "<p>" in b._repr_html_()


def test_a_complete_ledger_is_unchanged():
    H = np.array([1.0, 0.9, 0.8])
    b = _budget(H, np.array([0.0, 0.1, 0.2]))
    assert b.unavailable_from is None and b.t.size == 3 and b.findings() == []
