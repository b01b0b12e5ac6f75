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


def project(camera, points, size=(WIDTH, HEIGHT)):
    """Pixels (column, row) of world points for three.js' perspective camera looking from
    `position` at `target` with `up`, vertical field of view `fov` [deg], in a picture of
    `size` (width, height) [px]."""
    width, height = size
    eye, target, up = (np.asarray(camera[k], dtype=float) for k in ("position", "target", "up"))
    back = (eye - target) / np.linalg.norm(eye - target)
    right = np.cross(up, back)
    right /= np.linalg.norm(right)
    cam_up = np.cross(back, right)
    d = points - eye
    depth = -(d @ back)
    f = 1.0 / math.tan(math.radians(camera["fov"]) / 2.0)
    x = f / (width / height) * (d @ right) / depth
    y = f * (d @ cam_up) / depth
    return np.stack(((x + 1.0) / 2.0 * width, (1.0 - y) / 2.0 * height), axis=1)


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


def _distance_to_segment(points, a, b):
    d = b - a
    s = np.clip((points - a) @ d / (d @ d), 0.0, 1.0)
    return np.linalg.norm(points - (a + s[:, None] * d), axis=1)


def _tinted_by(scene, body, pose, points, pixels, size):
    """Which `points` (world, shape (n, 3)), at `pixels`, lie behind the translucent mesh of
    `body` at `pose`: inside its projected outline (the convex hull of its projected vertices:
    an ellipsoid's outline is convex) and farther from the camera than its centre."""
    from scipy.spatial import ConvexHull

    mesh = next(m for b in scene["bodies"] if b["name"] == body for m in b["meshes"] if m.get("opacity", 1) < 1)
    R = quaternion.to_matrix(pose[:4] / np.linalg.norm(pose[:4]))
    world = np.reshape(mesh["vertices"], (-1, 3)) @ R.T + pose[4:7]
    hull = ConvexHull(project(scene["camera"], world, size))
    inside = np.all(pixels @ hull.equations[:, :2].T + hull.equations[:, 2] <= 0.0, axis=1)
    eye = np.asarray(scene["camera"]["position"], dtype=float)
    centre = world.mean(axis=0)
    return inside & (np.linalg.norm(points - eye, axis=1) > np.linalg.norm(centre - eye))


def assert_legs_drawn(img, scene, pose_of, size=(WIDTH, HEIGHT)):
    """The compass walker's legs in a picture `img` of `size`: every pixel of a leg's colour
    on its projected hip-foot segment, and the segment drawn along its length. `pose_of(leg)`
    is the leg's pose row ``[qw, qx, qy, qz, px, py, pz]`` at the picture's time."""
    from scipy import ndimage

    colors = {b["name"]: b["color"] for b in scene["bodies"]}
    camera = scene["camera"]
    for leg in ("leg1", "leg2"):
        pose = pose_of(leg)
        R = quaternion.to_matrix(pose[:4] / np.linalg.norm(pose[:4]))
        hip, foot = pose[4:7], pose[4:7] + R @ (0.0, 0.0, -1.0)      # the model's leg: 1 m along -z
        a, b = project(camera, np.array([hip, foot]), size)
        mask = hue_mask(img, colors[leg])
        rows, cols = np.nonzero(mask)
        assert rows.size > 300, f"{leg}: {rows.size} pixels of its colour"
        # every pixel of the leg's colour lies on the projected hip-foot segment, within the foot
        # sphere's projected radius (0.05 m, 14 px at 800 x 600) and 2 px of antialiased edge
        cam = {k: np.asarray(camera[k], dtype=float) for k in ("position", "target", "up")}
        right = np.cross(cam["up"], cam["position"] - cam["target"])
        radius = np.linalg.norm(project(camera, (foot + 0.05 * right / np.linalg.norm(right))[None], size)[0] - b)
        far = _distance_to_segment(np.column_stack((cols + 0.5, rows + 0.5)), a, b).max()
        assert far < radius + 2.0, f"{leg}: a pixel of its colour {far:.1f} px from its projected segment"
        # and the segment is drawn along its whole length: points along it are at most 2 px
        # from a pixel of the leg's colour (where the other leg crosses in front, it hides it),
        # except behind the other leg's translucent inertia ellipsoid, whose tint changes the hue
        gap = ndimage.distance_transform_edt(~mask)
        along = a + np.linspace(0.05, 0.95, 19)[:, None] * (b - a)
        other = "leg2" if leg == "leg1" else "leg1"
        tinted = _tinted_by(scene, other, pose_of(other), hip + np.linspace(0.05, 0.95, 19)[:, None] * (foot - hip),
                            along, size)
        missing = [p for p, behind in zip(along, tinted) if gap[int(p[1]), int(p[0])] > 2.0 and not behind]
        assert len(missing) <= 3, f"{leg}: {len(missing)} of 19 points along its segment not drawn: {missing}"


def test_the_compass_walkers_legs_and_its_stance_force_are_drawn_where_the_trajectory_says(walker_dir, tmp_path):
    """Issue 35: a body without a contact surface of its size is drawn too (the compass walker's
    legs: segments from the hip to the feet), and the force arrow at standing load is seen (it
    would hide behind the contact frame's z axis, and was drawn on the ground pointing down)."""
    from scipy import ndimage

    browser = _chromium()
    out = walker_dir
    scene = json.loads((out / "view.json").read_text())
    traj = np.load(out / "trajectory.npz")
    names = list(traj["names"])
    img = screenshot(browser, out / "view.html", "0", tmp_path / "walker.png", tmp_path / "profile")

    def pose_of(leg):
        start = names.index(f"{leg}.pose[0]")
        return traj["x"][0, start:start + 7]

    assert_legs_drawn(img, scene, pose_of)
    # the stance foot's force, on the leg (up, not down into the ground), is drawn dark over its
    # length, beside the contact frame's z axis that it follows
    contact = max(scene["contacts"], key=lambda c: np.linalg.norm(c["force"][0]))
    assert contact["arrows"] == [-1]                   # on body a (the leg); the ground does not move
    p, f = np.array(contact["point"][0]), -np.array(contact["force"][0])
    assert f[2] > 0.0
    length = np.linalg.norm(f) * scene["force_scale"]
    shaft = project(scene["camera"], p + np.linspace(0.2, 0.6, 9)[:, None] * length * f / np.linalg.norm(f))
    dark = img.max(axis=2) < 0.3
    near = ndimage.binary_dilation(dark, np.ones((3, 3)))
    assert all(near[int(q[1]), int(q[0])] for q in shaft), "the stance force's arrow is not seen along its shaft"
