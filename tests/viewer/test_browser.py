"""The 3D viewer in a real browser (acceptance 1 of issue 14).

`porthamiltonian run two-ellipsoids --view` writes view.html; headless Chromium screenshots
it at t = 0 and at t = end, and each ellipsoid's pixels (found by its colour's hue) must be
where its pose in trajectory.npz puts it: the pixel box and centroid of the colour against
the ellipsoid's surface (closed form) projected with the scene's camera, by a pinhole
projection written here, not taken from the viewer.

Without Chromium the test skips, unless the environment variable CI is set (CI installs it).
"""

import colorsys
import json
import math
import os
import shutil
import subprocess

import numpy as np
import pytest

from porthamiltonian.lie import quaternion

WIDTH, HEIGHT = 800, 600
AXES = np.array([0.25, 0.15, 0.1])        # the model's default semi-axes [m]
BODIES = ("lower", "upper")
# measured: pixel boxes within 0.75 px of the projected outlines (antialiasing, rounding),
# centroids within 1.7 px of the projected centres (a silhouette's centroid is not the
# projection of the centre under perspective, and the frame axes drawn on top hide a few pixels)
TOL_BOX_PX, TOL_CENTROID_PX = 1.5, 3.0


def _chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but no chromium is installed (.ci/run installs it)")
        pytest.skip("no chromium on this machine (allowed only outside CI)")
    return path


def screenshot(browser, html, t, out, profile):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", f"--screenshot={out}", f"--window-size={WIDTH},{HEIGHT}",
           f"{html.absolute().as_uri()}?t={t}&ui=0"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    from PIL import Image

    return np.asarray(Image.open(out).convert("RGB"), dtype=float) / 255.0


def project(camera, points):
    """Pixels (column, row) of world points for three.js' perspective camera looking from
    `position` at `target` with `up`, vertical field of view `fov` [deg]."""
    eye, target, up = (np.asarray(camera[k], dtype=float) for k in ("position", "target", "up"))
    back = (eye - target) / np.linalg.norm(eye - target)
    right = np.cross(up, back)
    right /= np.linalg.norm(right)
    cam_up = np.cross(back, right)
    d = points - eye
    depth = -(d @ back)
    f = 1.0 / math.tan(math.radians(camera["fov"]) / 2.0)
    x = f / (WIDTH / HEIGHT) * (d @ right) / depth
    y = f * (d @ cam_up) / depth
    return np.stack(((x + 1.0) / 2.0 * WIDTH, (1.0 - y) / 2.0 * HEIGHT), axis=1)


def ellipsoid_points(pose, n=181):
    """Points of the ellipsoid at `pose` ([qw, qx, qy, qz, px, py, pz]), shape (n * n, 3)."""
    lon, lat = np.meshgrid(np.linspace(-math.pi, math.pi, n), np.linspace(-math.pi / 2, math.pi / 2, n))
    local = np.stack((np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)), -1).reshape(-1, 3) * AXES
    R = quaternion.to_matrix(pose[:4] / np.linalg.norm(pose[:4]))
    return local @ R.T + pose[4:7]


def hue_mask(img, color):
    """The largest blob of pixels of the hue of `color` (shaded: any brightness), saturated;
    thin features (antialiased edges of the 1-px frame axes) opened away first."""
    from scipy import ndimage

    target = colorsys.rgb_to_hsv(*(int(color[i:i + 2], 16) / 255.0 for i in (1, 3, 5)))[0]
    mx, mn = img.max(axis=2), img.min(axis=2)
    sat = np.where(mx > 0, (mx - mn) / np.maximum(mx, 1e-9), 0.0)
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    delta = np.maximum(mx - mn, 1e-9)
    h = np.where(mx == r, ((g - b) / delta) % 6, np.where(mx == g, (b - r) / delta + 2, (r - g) / delta + 4)) / 6
    dist = np.abs((h - target + 0.5) % 1.0 - 0.5)
    mask = ndimage.binary_opening((sat > 0.4) & (mx > 0.15) & (dist < 12 / 360), np.ones((3, 3)))
    labels, n = ndimage.label(mask)
    if n == 0:
        return mask
    sizes = ndimage.sum(mask, labels, range(1, n + 1))
    return labels == 1 + int(np.argmax(sizes))


def test_run_view_draws_the_ellipsoids_where_their_poses_say(run_dir, tmp_path):
    browser = _chromium()
    html = run_dir / "view.html"
    assert html.is_file()
    scene = json.loads((run_dir / "view.json").read_text())
    colors = {b["name"]: b["color"] for b in scene["bodies"]}
    traj = np.load(run_dir / "trajectory.npz")
    names = list(traj["names"])
    t_end = float(traj["t"][-1])
    assert t_end == pytest.approx(0.25)
    centres = {}
    for k, t in ((0, 0.0), (-1, t_end)):
        img = screenshot(browser, html, repr(t), tmp_path / f"t{k}.png", tmp_path / "profile")
        assert img.shape == (HEIGHT, WIDTH, 3)
        for body in BODIES:
            start = names.index(f"{body}.pose[0]")
            pose = traj["x"][k, start:start + 7]
            expected = project(scene["camera"], ellipsoid_points(pose))
            rows, cols = np.nonzero(hue_mask(img, colors[body]))
            assert rows.size > 500, f"{body} at t = {t}: {rows.size} pixels of its colour"
            found = np.array([[cols.min(), rows.min()], [cols.max() + 1, rows.max() + 1]], dtype=float)
            box = np.array([expected.min(axis=0), expected.max(axis=0)])
            np.testing.assert_allclose(found, box, atol=TOL_BOX_PX, err_msg=f"{body} at t = {t}: pixel box")
            centre = project(scene["camera"], pose[None, 4:7])[0]
            np.testing.assert_allclose([cols.mean() + 0.5, rows.mean() + 0.5], centre, atol=TOL_CENTROID_PX,
                                       err_msg=f"{body} at t = {t}: centroid of its pixels")
            centres[body, k] = centre
    # the frames differ: both bodies fell between the two pictures (tens of pixels)
    for body in BODIES:
        assert centres[body, -1][1] - centres[body, 0][1] > 20
