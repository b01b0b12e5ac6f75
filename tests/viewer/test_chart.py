"""The energy ledger's chart beside the scene (issue 35), in headless Chromium: its cursor is
at the shown time and moves with it, its curves are the ledger's (the dissipated energy's
pixels where the ledger's values put them on the chart's axes), and the residual it states is
the ledger's at that time.

The chart's axes are its documented layout (main.js `energyChart`): a 340 x 170 px canvas,
the plot box 46 px from its left, 8 px from its right and top, 20 px from its bottom; time
t0..t1 across, energy over [min, max] of the drawn series and 0, widened by 6 % of the span
at each end. The canvas's place on the page is asked from the browser.
"""

import colorsys
import json

import numpy as np
import pytest

from .test_browser import _chromium

WIDTH, HEIGHT = 1000, 640
LEFT, RIGHT, TOP, BOTTOM, W, H = 46, 8, 8, 20, 340, 170


def _hue_mask(img, color, tol=10):
    target = colorsys.rgb_to_hsv(*(int(color[i:i + 2], 16) / 255.0 for i in (1, 3, 5)))
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in img.reshape(-1, 3)]).reshape(img.shape)
    return (np.abs((hsv[..., 0] - target[0] + 0.5) % 1.0 - 0.5) < tol / 360) & (hsv[..., 1] > 0.45) & (hsv[..., 2] > 0.35)


def test_the_energy_chart_follows_the_shown_time_and_draws_the_ledger(run_dir):
    _chromium()
    from porthamiltonian.viewer.browser import HeadlessPage

    scene = json.loads((run_dir / "view.json").read_text())
    e = {k: np.asarray(v, dtype=float) for k, v in scene["energy"].items()}
    budget = np.load(run_dir / "trajectory.npz")
    np.testing.assert_allclose(e["t"], budget["t"], rtol=1e-9, atol=0)
    assert e["dissipated"][-1] > 0.1                      # the lower ellipsoid has landed and damped
    shown = [k for k in ("stored", "supplied", "dissipated", "lost", "stabilization", "residual")
             if k not in ("lost", "stabilization") or np.any(e[k] != 0)]
    lo = min(0.0, *(e[k].min() for k in shown))
    hi = max(0.0, *(e[k].max() for k in shown))
    lo, hi = lo - 0.06 * (hi - lo), hi + 0.06 * (hi - lo)
    t0, t1 = e["t"][0], e["t"][-1]

    def X(t):
        return LEFT + (t - t0) / (t1 - t0) * (W - LEFT - RIGHT)

    def Y(v):
        return (H - BOTTOM) - (v - lo) / (hi - lo) * (H - BOTTOM - TOP)

    with HeadlessPage(run_dir / "view.html", (WIDTH, HEIGHT), "ui=0&chart=1") as page:
        rect = page.evaluate("JSON.stringify(document.querySelector('#energy canvas').getBoundingClientRect())")
        rect = json.loads(rect)
        assert (rect["width"], rect["height"]) == (W, H)
        x0, y0 = int(round(rect["x"])), int(round(rect["y"]))
        cursors, images = {}, {}
        for t in (t0, 0.1, t1):
            assert page.show(t) == pytest.approx(t)
            img = np.asarray(page.screenshot(), dtype=float)[y0:y0 + H, x0:x0 + W] / 255.0
            images[t] = img
            cols = np.nonzero(_hue_mask(img, "#ff00ff").sum(axis=0) > 0.5 * (H - BOTTOM - TOP))[0]
            assert cols.size, f"no cursor in the chart at t = {t}"
            cursors[t] = cols.mean() + 0.5
            # the residual stated is the ledger's at t (interpolated between frames), 3 digits
            note = page.evaluate("document.getElementById('residual').textContent")
            stated = float(note.split("residual at t: ")[1].split(" J")[0])
            assert stated == pytest.approx(np.interp(t, e["t"], e["residual"]), rel=6e-3, abs=1e-300)
    # the cursor is a 2 px line at X(t) (antialiased: its centre within 1 px) and it moved
    for t, c in cursors.items():
        assert c == pytest.approx(X(t), abs=1.0), f"cursor at t = {t}: column {c:.1f}, expected {X(t):.1f}"
    assert cursors[t1] - cursors[t0] > 250
    # the stored and dissipated energies' curves: at frames where they are off the zero line (the
    # landing, the last 0.03 s), their pixels in that column are within 2 px of the ledger's
    # value (lines are 1.5 px, antialiased)
    for key, color in (("stored", "#1f77b4"), ("dissipated", "#d62728")):
        mask = _hue_mask(images[t0], color)
        checked = 0
        for t, v in zip(e["t"], e[key]):
            col = int(X(t))
            if abs(Y(v) - Y(0.0)) < 4 or col >= W - RIGHT - 1:
                continue
            rows = np.nonzero(mask[:, col])[0]
            assert rows.size, f"no {key} curve in column {col} (t = {t:.3f} s)"
            assert np.min(np.abs(rows + 0.5 - Y(v))) < 2.0, f"{key}, t = {t:.3f} s: rows {rows}, expected {Y(v):.1f}"
            checked += 1
        assert checked >= 2, f"{key}: {checked} frames off the zero line"
