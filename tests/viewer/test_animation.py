"""Animations rendered by the HTML viewer in headless Chromium (issue 35, item 2): a GIF of the
compass walker at 1280 x 720 has duration x fps (+ 1, both ends) frames, each showing the legs
where the trajectory's poses at the frame's time put them (the same projection and pixel
checks as the screenshot test); the renderer's choices and refusals."""

import json

import numpy as np
import pytest

from porthamiltonian.diagnostics.animation import animate_scene, animation_times
from porthamiltonian.errors import ParameterError
from porthamiltonian.viewer import load_scene

from .test_browser import _chromium, assert_legs_drawn

SIZE = (1280, 720)


def test_a_gif_of_the_compass_walker_shows_the_legs_at_their_poses(walker_dir, tmp_path):
    from PIL import Image

    _chromium()
    scene = load_scene(walker_dir / "view.json")
    traj = np.load(walker_dir / "trajectory.npz")
    names = list(traj["names"])
    fps, duration = 100.0, 0.05          # frames at the run's samples (every 0.01 s): poses exact
    gif = animate_scene(scene, tmp_path / "walker.gif", fps=fps, size=SIZE, renderer="browser")
    frames = animation_times(0.0, duration, fps, 1.0)
    np.testing.assert_allclose(frames, traj["t"], atol=1e-12)
    with Image.open(gif) as im:
        assert im.n_frames == round(duration * fps) + 1 == 6
        assert im.size == SIZE
        assert im.info["duration"] == 10               # [ms] per frame: 1000 / fps
        pictures = []
        for k in range(im.n_frames):
            im.seek(k)
            pictures.append(np.asarray(im.convert("RGB"), dtype=float) / 255.0)
    for k in (0, im.n_frames - 1):
        def pose_of(leg, k=k):
            start = names.index(f"{leg}.pose[0]")
            return traj["x"][k, start:start + 7]

        assert_legs_drawn(pictures[k], json.loads((walker_dir / "view.json").read_text()), pose_of, SIZE)
    assert np.mean(np.abs(pictures[0] - pictures[-1])) > 1e-3      # the swing leg moved


def test_renderer_choices_and_refusals(walker_dir, tmp_path, monkeypatch):
    scene = load_scene(walker_dir / "view.json")
    with pytest.raises(ParameterError, match=r"`renderer` must be one of 'auto', 'browser', 'matplotlib', got 'povray'"):
        animate_scene(scene, tmp_path / "a.gif", renderer="povray")
    with pytest.raises(ParameterError, match=r"`size` must be \(width, height\), two integers in \[16, 7680\] pixels, "
                                             r"got \(1280.0, 720\)"):
        animate_scene(scene, tmp_path / "a.gif", size=(1280.0, 720))
    monkeypatch.setattr("porthamiltonian.diagnostics.animation.find_ffmpeg", lambda: "/bin/false")
    with pytest.raises(ParameterError, match=r"an MP4 \(H.264, yuv420p\) needs an even width and height"):
        animate_scene(scene, tmp_path / "a.mp4", size=(641, 480))
    # without Chromium: "browser" refused naming it; "auto" falls back to matplotlib, and says so
    monkeypatch.setattr("porthamiltonian.viewer.browser.find_chromium", lambda: None)
    with pytest.raises(ParameterError, match="`renderer` 'browser' needs headless Chromium, and none is found"):
        animate_scene(scene, tmp_path / "a.gif", renderer="browser")
    with pytest.warns(UserWarning, match="no Chromium found .* drawn by the matplotlib 3D fallback"):
        path = animate_scene(scene, tmp_path / "a.gif", fps=40, size=(320, 240), dpi=80)
    from PIL import Image

    with Image.open(path) as im:
        assert im.n_frames == 3 and im.size == (320, 240)      # 0.05 s at 40 fps, both ends
    assert not list(tmp_path.glob("*.mp4"))


def test_an_mp4_of_the_compass_walker_decodes_to_the_frames_with_the_legs_at_their_poses(walker_dir, tmp_path):
    """The MP4 writer: H.264 from ffmpeg (on the PATH, or imageio-ffmpeg's); decoded again by
    ffmpeg, it has the GIF's frame count and size, and its first and last frames show the legs
    where the poses say (yuv420p's colour subsampling keeps their hue)."""
    import subprocess

    from porthamiltonian.diagnostics.animation import find_ffmpeg

    _chromium()
    ffmpeg = find_ffmpeg()
    if ffmpeg is None:
        pytest.skip("no ffmpeg (install it, or `pip install imageio-ffmpeg`)")
    scene = load_scene(walker_dir / "view.json")
    traj = np.load(walker_dir / "trajectory.npz")
    names = list(traj["names"])
    mp4 = animate_scene(scene, tmp_path / "walker.mp4", fps=100.0, size=SIZE, renderer="browser")
    raw = subprocess.run([ffmpeg, "-loglevel", "error", "-i", str(mp4), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         check=True, capture_output=True, timeout=60).stdout
    frames = np.frombuffer(raw, dtype=np.uint8).reshape(-1, SIZE[1], SIZE[0], 3) / 255.0
    assert len(frames) == 6                             # 0.05 s at 100 fps, both ends
    probe = subprocess.run([ffmpeg, "-i", str(mp4)], capture_output=True, text=True).stderr
    assert "h264" in probe and "1280x720" in probe and "100 fps" in probe
    for k in (0, len(frames) - 1):
        def pose_of(leg, k=k):
            start = names.index(f"{leg}.pose[0]")
            return traj["x"][k, start:start + 7]

        assert_legs_drawn(frames[k], json.loads((walker_dir / "view.json").read_text()), pose_of, SIZE)


def test_the_command_line_renders_in_a_fresh_process(tmp_path):
    """`porthamiltonian run MODEL --animate` in a process of its own: Chromium gets its DevTools
    pipes as fds 3 and 4 whatever the parent holds there (after a run, fds 3 and 4 are taken;
    giving them with pass_fds failed with "Bad file descriptor" there, not under pytest)."""
    import subprocess
    import sys
    from pathlib import Path

    from PIL import Image

    _chromium()
    gif = tmp_path / "w.gif"
    run = subprocess.run([sys.executable, "-m", "porthamiltonian.cli", "run", "compass-walker", "--t-end", "0.05",
                          "--samples", "6", "--no-progress", "--out", str(tmp_path / "out"), "--animate", str(gif),
                          "--fps", "40", "--animate-size", "320x240"],
                         cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    with Image.open(gif) as im:
        assert im.n_frames == 3 and im.size == (320, 240)        # 0.05 s at 40 fps, both ends
