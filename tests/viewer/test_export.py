"""The viewer's files without a browser: the scene against the trajectory it came from, the
HTML file standalone (no address fetched), the GIF's frame count, and the typed errors."""

import json
import re

import numpy as np
import pytest

from porthamiltonian.cli import main
from porthamiltonian.diagnostics.animation import animate_scene, animation_times
from porthamiltonian.errors import ParameterError, SerializationError
from porthamiltonian.viewer import load_scene, write_html


def test_the_scene_holds_the_trajectory_poses_and_meshes_on_the_ellipsoids(run_dir):
    scene = load_scene(run_dir / "view.json")
    traj = np.load(run_dir / "trajectory.npz")
    names = list(traj["names"])
    np.testing.assert_allclose(scene.times, traj["t"], rtol=1e-9, atol=0)
    bodies = {b["name"]: b for b in scene.data["bodies"]}
    assert sorted(bodies) == ["ground", "lower", "upper"]
    for name in ("lower", "upper"):
        start = names.index(f"{name}.pose[0]")
        np.testing.assert_allclose(bodies[name]["poses"], traj["x"][:, start:start + 7], rtol=1e-6, atol=1e-9)
        (mesh,) = bodies[name]["meshes"]
        v = np.reshape(mesh["vertices"], (-1, 3))
        np.testing.assert_allclose(np.sum((v / (0.25, 0.15, 0.1)) ** 2, axis=1), 1.0, atol=1e-5)  # 6 digits kept
    ground = np.reshape(bodies["ground"]["meshes"][0]["vertices"], (-1, 3))
    lo, hi = np.array(scene.data["box"])
    assert np.all(ground[:, 2] == 0.0)
    assert np.all(ground.min(axis=0)[:2] < lo[:2]) and np.all(ground.max(axis=0)[:2] > hi[:2])
    contacts = {c["name"]: c for c in scene.data["contacts"]}
    assert sorted(contacts) == ["lower_floor", "upper_floor", "upper_lower"]
    forces = np.load(run_dir / "contact_forces.npz")
    f = forces["lower_floor.normal"][:, None] * forces["lower_floor.normal_direction"] + forces["lower_floor.tangential"]
    np.testing.assert_allclose(contacts["lower_floor"]["force"], f, rtol=1e-6, atol=1e-9)
    assert np.linalg.norm(f[-1]) > 50.0        # landed: the arrow is drawn at the end


def test_the_html_file_is_standalone(run_dir):
    text = (run_dir / "view.html").read_text()
    assert "PorthamiltonianViewer.start" in text and "WebGLRenderer" in text
    # nothing to fetch: no external script, stylesheet, import or network call
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert not re.search(r"""\bimport\s*\(|\bfetch\s*\(|XMLHttpRequest""", text)
    scene = json.loads(re.search(r'<script id="scene" type="application/json">(.*?)</script>', text, re.S)
                       .group(1).replace("<\\/", "</"))
    assert scene == load_scene(run_dir / "view.json").data


def test_view_command_writes_the_viewer_and_a_gif_of_the_expected_frame_count(run_dir, tmp_path):
    from PIL import Image

    gif, html = tmp_path / "two.gif", tmp_path / "two.html"
    assert main(["view", str(run_dir), "--out", str(html), "--animate", str(gif), "--fps", "20",
                 "--speed", "0.5"]) == 0
    assert html.read_text() == (run_dir / "view.html").read_text()
    frames = animation_times(0.0, 0.25, 20.0, 0.5)
    assert len(frames) == 11                     # 0.25 s at half speed, 20 frames per second, both ends
    with Image.open(gif) as im:
        assert im.n_frames == len(frames)
        assert im.info["duration"] == 50         # [ms] per frame
        first = np.asarray(im.convert("RGB"), dtype=float)
        im.seek(im.n_frames - 1)
        last = np.asarray(im.convert("RGB"), dtype=float)
    assert np.mean(np.abs(first - last)) > 1.0   # the bodies moved


def test_bad_paths_and_files_are_refused(run_dir, tmp_path, monkeypatch):
    scene = load_scene(run_dir / "view.json")
    with pytest.raises(ParameterError, match=r"`path` must end in .html, got 'v.htm'"):
        write_html(scene, tmp_path / "v.htm")
    with pytest.raises(ParameterError, match="does not exist"):
        write_html(scene, tmp_path / "nowhere" / "v.html")
    with pytest.raises(ParameterError, match=r"\.gif or \.mp4 file .*got the suffix '\.avi'"):
        animate_scene(scene, tmp_path / "a.avi")
    with pytest.raises(ParameterError, match="`fps` must be a finite number > 0, got 0"):
        animate_scene(scene, tmp_path / "a.gif", fps=0)
    monkeypatch.setattr("porthamiltonian.diagnostics.animation.find_ffmpeg", lambda: None)
    with pytest.raises(ParameterError, match="no `ffmpeg` program for .mp4"):
        animate_scene(scene, tmp_path / "a.mp4")
    assert not list(tmp_path.glob("a.*"))
    with pytest.raises(SerializationError, match="no viewer scene"):
        load_scene(tmp_path / "view.json")
    (tmp_path / "view.json").write_text('{"format": "other"}')
    with pytest.raises(SerializationError, match="is not a viewer scene"):
        load_scene(tmp_path / "view.json")
    assert main(["view", str(tmp_path / "missing")]) == 2


def test_trajectory_view_of_a_body_without_surfaces(tmp_path):
    """`traj.view` in Python, on a model without contacts: the heavy top is drawn as the
    ellipsoid of its inertia (translucent, its vertices on the ellipsoid whose semi-axes give a
    uniform solid its principal moments) and a segment to where the joint holds it, its poses
    are the trajectory's, and no force arrow is scaled."""
    import porthamiltonian as ph
    from porthamiltonian.models import build_model
    from porthamiltonian.viewer import scene_from_trajectory

    model = build_model("heavy-top")
    system = ph.compile(model.graph)
    traj = ph.simulate(system, (0.0, 0.1), system.initial_state(model.initial), t_eval=np.linspace(0.0, 0.1, 11))
    path = traj.view(tmp_path / "top.html").path
    assert path.read_text().count("PorthamiltonianViewer.start") == 1
    # without a path: shown inline in Jupyter (the page in an iframe's srcdoc), no file written
    import html as _html
    import os

    page = traj.view(height=300)
    frame = page._repr_html_()
    assert _html.unescape(frame.split('srcdoc="', 1)[1].split('"', 1)[0]) == path.read_text()
    assert page.path is None and "height: 300px" in frame
    with pytest.raises(TypeError, match=r"not written to a file \(call .save\(path\) first\)"):
        os.fspath(page)
    with pytest.raises(ParameterError, match=r"`height` must be an integer number of pixels in \[200, 4000\], got 50"):
        traj.view(height=50)
    scene = scene_from_trajectory(traj, max_frames=6)
    top = next(b for b in scene.data["bodies"] if b["name"] == "top")
    assert scene.data["contacts"] == [] and scene.data["force_scale"] == 0.0
    ellipsoid, *segments = top["meshes"]
    assert ellipsoid["opacity"] < 1.0 and len(segments) >= 1 and all("opacity" not in m for m in segments)
    body = system.elements["top"]
    moments, axes = np.linalg.eigh(body.inertia)
    semi = np.sqrt(2.5 / body.mass * (moments.sum() - 2.0 * moments))   # I_1 = m (a_2^2 + a_3^2) / 5, ...
    local = (np.reshape(ellipsoid["vertices"], (-1, 3)) - body.com) @ axes
    np.testing.assert_allclose(np.sum((local / semi) ** 2, axis=1), 1.0, atol=1e-4)  # 6 digits kept
    np.testing.assert_allclose(scene.times, traj.t[::2])
    np.testing.assert_allclose(top["poses"], traj.state("top.pose")[::2], rtol=1e-6, atol=1e-9)
    from PIL import Image

    with Image.open(traj.animate(tmp_path / "top.gif", fps=50)) as im:
        assert im.n_frames == 6                  # 0.1 s at 50 frames per second, both ends
    with pytest.raises(ParameterError, match="`max_frames` must be an integer >= 2, got 1"):
        scene_from_trajectory(traj, max_frames=1)
    with pytest.raises(ParameterError, match="`resolution` must be an integer >= 4, got 3"):
        scene_from_trajectory(traj, resolution=3)


def test_run_refuses_an_unwritable_animation_before_simulating(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("porthamiltonian.diagnostics.animation.find_ffmpeg", lambda: None)
    out = tmp_path / "out"
    assert main(["run", "two-ellipsoids", "--t-end", "0.01", "--animate", str(tmp_path / "a.mp4"),
                 "--out", str(out)]) == 2
    assert "no `ffmpeg` program for .mp4" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "a.mp4").exists()
