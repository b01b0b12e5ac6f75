"""Animations of a viewer scene for papers and slides: GIF (Pillow) or MP4 (ffmpeg).

The frames are pictures of the HTML viewer itself (`porthamiltonian.viewer`): the same
three.js scene (bodies, shadows, grid, force arrows), rendered by headless Chromium at
1280 x 720 px by default (`porthamiltonian.viewer.browser.HeadlessPage`) at each frame's
time through the page's ``PorthamiltonianViewer.show(t)`` hook, then written by Pillow (GIF)
or piped to ffmpeg (MP4, H.264).

Decision on matplotlib 3D: it remains only as the fallback when no Chromium is found
(``renderer="auto"``, the default, warns and says so; ``renderer="matplotlib"`` asks for it).
It draws the same meshes from the same camera direction but without shadows or depth
sorting within a body, at ``size * dpi`` px; a figure for a paper should come from the
browser renderer. It gets pyplot through `plots` (the backend rule lives in one place) and
imports matplotlib only when called.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np

from .._files import atomic_file
from ..errors import ParameterError

__all__ = ["animate_scene", "animation_times", "check_animation_path", "check_animation_size", "find_ffmpeg",
           "RENDERERS"]

_WRITERS = {".gif": "pillow", ".mp4": "ffmpeg"}
#: the renderers `animate_scene` knows
RENDERERS = ("auto", "browser", "matplotlib")


def find_ffmpeg():
    """The ffmpeg program: ``ffmpeg`` on the PATH, else the one of the imageio-ffmpeg package
    when it is installed; None without either."""
    path = shutil.which("ffmpeg")
    if path is None:
        try:
            import imageio_ffmpeg
        except ImportError:
            return None
        try:
            path = imageio_ffmpeg.get_ffmpeg_exe()
        except RuntimeError:
            return None
    return path


def check_animation_path(path, name="path"):
    """The path, checked: a .gif or .mp4 file in an existing directory, and for .mp4 an
    ffmpeg program (`find_ffmpeg`). `name` is the argument's name in messages (the CLI's
    ``--animate``).

    Raises
    ------
    ParameterError
        If the suffix is neither, the directory does not exist, or .mp4 is asked without ffmpeg.
    """
    path = Path(path)
    if path.suffix not in _WRITERS:
        raise ParameterError(f"`{name}` {str(path)!r}: an animation must be written to a .gif or .mp4 file (GIF by "
                             f"Pillow, MP4 by ffmpeg), got the suffix {path.suffix or '(none)'!r}")
    if not path.parent.is_dir():
        raise ParameterError(f"`{name}` {str(path)!r}: the directory {str(path.parent)!r} does not exist")
    if path.suffix == ".mp4" and find_ffmpeg() is None:
        raise ParameterError(f"cannot write {path.name!r}: no `ffmpeg` program for .mp4 (install ffmpeg, e.g. "
                             "`apt-get install ffmpeg` or `pip install imageio-ffmpeg`, or write a .gif, which needs "
                             "only Pillow)")
    return path


def animation_times(t_start, t_end, fps, speed):
    """Frame times: from `t_start` every ``speed / fps`` seconds of simulated time up to
    `t_end` (included when it falls on the grid), shape (n,) [s]; at least one frame."""
    step = speed / fps
    n = int(math.floor((t_end - t_start) / step * (1.0 + 1e-12))) + 1
    return t_start + step * np.arange(n)


def _positive(value, name):
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise ParameterError(f"`{name}` must be a finite number > 0, got {value!r}")
    return v


def _world_meshes(body, H):
    """Per mesh: triangles in world coordinates (shape (m, 3, 3)) and face normals (m, 3)."""
    out = []
    for mesh in body["meshes"]:
        V = np.asarray(mesh["vertices"], dtype=float).reshape(-1, 3) @ H[:3, :3].T + H[:3, 3]
        N = np.asarray(mesh["normals"], dtype=float).reshape(-1, 3) @ H[:3, :3].T
        F = np.asarray(mesh["faces"], dtype=np.int64).reshape(-1, 3)
        n = N[F].sum(axis=1)
        out.append((V[F], n / np.maximum(np.linalg.norm(n, axis=1), 1e-300)[:, None]))
    return out


def _shade(color, normals, light):
    from matplotlib.colors import to_rgb

    lambert = np.clip(np.abs(normals @ light), 0.0, 1.0)   # two-sided, as in the viewer
    return np.clip(np.asarray(to_rgb(color)) * (0.45 + 0.55 * lambert)[:, None], 0.0, 1.0)


def _body_artists(ax, scene, body, light, zorder):
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    artists = []
    for tris, normals in _world_meshes(body, scene.body_pose(body["name"], 0)):
        shade = _shade(body["color"], normals, light)   # edges of the faces' colour: no seams
        coll = Poly3DCollection(tris, facecolors=shade, edgecolors=shade, linewidths=0.2, zorder=zorder)
        ax.add_collection3d(coll)
        artists.append(coll)
    return artists


def _limits(ax, box):
    """Equal axes holding the box swept by the moving bodies."""
    lo, hi = np.asarray(box, dtype=float)
    centre, half = (lo + hi) / 2.0, 0.6 * float(np.max(hi - lo))
    for k, setter in enumerate((ax.set_xlim, ax.set_ylim, ax.set_zlim)):
        setter(centre[k] - half, centre[k] + half)
    ax.set_box_aspect((1.0, 1.0, 1.0))


def _axes(fig, data):
    """3D axes seen from the scene camera's direction, equal scales; and the light direction
    (from the camera)."""
    ax = fig.add_subplot(projection="3d")
    cam = data["camera"]
    eye = np.asarray(cam["position"]) - np.asarray(cam["target"])
    ax.view_init(elev=math.degrees(math.asin(eye[2] / np.linalg.norm(eye))),
                 azim=math.degrees(math.atan2(eye[1], eye[0])))
    # matplotlib orders whole collections by a mean depth, which puts a large floor in front
    # of the bodies on it: the floor is drawn first, the bodies far to near, the arrows last
    ax.computed_zorder = False
    _limits(ax, data["box"])
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    return ax, eye / np.linalg.norm(eye)


def animate_scene(scene, path, *, fps=25, speed=1.0, size=(1280, 720), renderer="auto", chart=False,
                  caption=True, dpi=100):
    """Write an animation of `scene` (a `porthamiltonian.viewer.ViewerScene`) to a GIF or MP4.

    Parameters
    ----------
    scene : ViewerScene
    path : str or path-like
        ``.gif`` (Pillow, one palette per frame, looping) or ``.mp4`` (H.264 by ffmpeg,
        `find_ffmpeg`; yuv420p, so the width and height must be even).
    fps : float
        Frames per second of the file [1/s].
    speed : float
        Simulated seconds per second of the file (1: real time, 0.1: ten times slower).
    size : tuple of int
        ``(width, height)`` of the pictures [px], each 16 to 7680 (default 1280 x 720); the
        matplotlib fallback draws ``size / dpi`` inches at `dpi`.
    renderer : {"auto", "browser", "matplotlib"}
        ``"browser"``: the HTML viewer in headless Chromium (`porthamiltonian.viewer.browser`);
        ``"matplotlib"``: matplotlib 3D (coarser: no shadows, whole meshes depth-sorted);
        ``"auto"``: the browser when a Chromium is found, else matplotlib with a warning.
    chart : bool
        Browser renderer: the energy ledger's chart in the top right corner of each frame.
    caption : bool
        Browser renderer: the title and the time in the top left corner of each frame.
    dpi : float
        The matplotlib fallback's resolution [px/in].

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        If `path` is not a .gif/.mp4 in an existing directory, ffmpeg is missing for .mp4,
        `fps`, `speed` or `dpi` is not a positive number, `size` not two integers in
        [16, 7680] (even for .mp4), `renderer` unknown, or ``"browser"`` asked without a
        Chromium.
    porthamiltonian.viewer.browser.BrowserError
        If Chromium fails while rendering (its last output in the message).

    Notes
    -----
    Frame times are `animation_times` over the scene's time span: ``n = floor(T fps /
    speed) + 1`` frames for a span T (both ends when T fps / speed is an integer). The
    browser renderer shows each frame's exact time (poses interpolated between the scene's
    samples, as the viewer plays them); the matplotlib fallback the nearest sample. The
    file is written under a temporary name and renamed into place.
    """
    path = check_animation_path(path)
    fps, speed, dpi = _positive(fps, "fps"), _positive(speed, "speed"), _positive(dpi, "dpi")
    size = check_animation_size(size, path)
    if renderer not in RENDERERS:
        raise ParameterError(f"`renderer` must be one of {', '.join(map(repr, RENDERERS))}, got {renderer!r}")
    times = scene.times
    frames = animation_times(float(times[0]), float(times[-1]), fps, speed)
    if renderer != "matplotlib":
        from ..viewer.browser import CHROMIUM_NAMES, find_chromium

        browser = find_chromium()
        if browser is not None:
            return _animate_browser(scene, path, frames, fps, size, browser, chart, caption)
        if renderer == "browser":
            raise ParameterError(f"`renderer` 'browser' needs headless Chromium, and none is found (looked for "
                                 f"{', '.join(CHROMIUM_NAMES)} on the PATH and PORTHAMILTONIAN_CHROMIUM)")
        warnings.warn(f"no Chromium found (looked for {', '.join(CHROMIUM_NAMES)} on the PATH and "
                      "PORTHAMILTONIAN_CHROMIUM): the animation is drawn by the matplotlib 3D fallback (no shadows, "
                      "coarser); install chromium for the viewer's pictures", UserWarning, stacklevel=2)
    return _animate_matplotlib(scene, path, frames, fps, (size[0] / dpi, size[1] / dpi), dpi)


def check_animation_size(size, path):
    """``(width, height)`` checked: two integers in [16, 7680] px, even for an .mp4 `path`.

    Raises
    ------
    ParameterError
        Naming the rule broken.
    """
    even = Path(path).suffix == ".mp4"
    try:
        w, h = size
        ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 16 <= v <= 7680 for v in (w, h))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ParameterError(f"`size` must be (width, height), two integers in [16, 7680] pixels, got {size!r}")
    if even and (w % 2 or h % 2):
        raise ParameterError(f"`size` {size!r}: an MP4 (H.264, yuv420p) needs an even width and height")
    return int(w), int(h)


def _animate_browser(scene, path, frames, fps, size, browser, chart, caption):
    """The frames drawn by the HTML viewer in headless Chromium, written as GIF or MP4."""
    from ..viewer.browser import HeadlessPage
    from ..viewer.html import write_html

    query = "ui=0" + ("&chart=1" if chart else "") + ("&caption=1" if caption else "")
    with tempfile.TemporaryDirectory(prefix="porthamiltonian-animation-") as tmp:
        html = write_html(scene, Path(tmp) / "view.html")
        with HeadlessPage(html, size, query, browser=browser) as page, atomic_file(path) as out:
            writer = _Gif(out, fps) if path.suffix == ".gif" else _Mp4(out, fps, size)
            with writer:
                for t in frames:
                    page.show(t)
                    writer.add(page.screenshot())
    return path


class _Gif:
    """Frames collected and saved by Pillow: an adaptive palette per frame, ``1000 / fps`` ms
    each (GIF keeps 10 ms steps), looping."""

    def __init__(self, path, fps):
        self.path, self.fps, self.frames = path, fps, []

    def __enter__(self):
        return self

    def add(self, image):
        from PIL import Image

        self.frames.append(image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))

    def __exit__(self, kind, *exc):
        if kind is None:
            first, *rest = self.frames
            first.save(self.path, format="GIF", save_all=True, append_images=rest, loop=0,
                       duration=round(1000.0 / self.fps), disposal=1, optimize=False)
        return False


class _Mp4:
    """Frames piped to ffmpeg as raw RGB, encoded H.264 (yuv420p, CRF 18, ``+faststart``)."""

    def __init__(self, path, fps, size):
        self.path, self.fps, self.size = path, fps, size

    def __enter__(self):
        w, h = self.size
        cmd = [find_ffmpeg(), "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}",
               "-r", f"{self.fps:g}", "-i", "-", "-an", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "18",
               "-movflags", "+faststart", "-f", "mp4", str(self.path)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        return self

    def add(self, image):
        try:
            self.proc.stdin.write(image.tobytes())
        except BrokenPipeError:
            self._fail()

    def _fail(self):
        from ..viewer.browser import BrowserError

        err = self.proc.stderr.read().decode(errors="replace").strip()
        raise BrowserError(f"ffmpeg failed writing {str(self.path)!r} (status {self.proc.poll()}): {err}")

    def __exit__(self, kind, *exc):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        status = self.proc.wait()
        if kind is None and status != 0:
            self._fail()
        return False


def _animate_matplotlib(scene, path, frames, fps, size, dpi):
    """The matplotlib 3D fallback (see the module docstring)."""
    from matplotlib import animation

    from .plots import _plt

    data = scene.data
    times = scene.times
    plt = _plt()
    fig = plt.figure(figsize=size, dpi=dpi)
    ax, light = _axes(fig, data)
    eye = np.asarray(data["camera"]["position"])
    moving = [b for b in data["bodies"] if b["poses"] is not None]
    for body in data["bodies"]:
        if body["poses"] is None:
            _body_artists(ax, scene, body, light, zorder=0)
    artists = {b["name"]: _body_artists(ax, scene, b, light, zorder=1) for b in moving}
    arrows = [ax.plot([], [], [], color=data["force_color"], lw=1.5, zorder=len(moving) + 2)[0]
              for _ in data["contacts"]]
    title = ax.set_title("")

    def draw(t):
        k = int(np.argmin(np.abs(times - t)))
        poses = {b["name"]: scene.body_pose(b["name"], k) for b in moving}
        far_first = sorted(moving, key=lambda b: -float(np.linalg.norm(poses[b["name"]][:3, 3] - eye)))
        for order, body in enumerate(far_first):
            for coll, (tris, normals) in zip(artists[body["name"]], _world_meshes(body, poses[body["name"]])):
                coll.set_verts(tris)
                shade = _shade(body["color"], normals, light)
                coll.set_facecolor(shade)
                coll.set_edgecolor(shade)
                coll.set_zorder(1 + order)
        for line, c in zip(arrows, data["contacts"]):
            p, f = c["point"][k], np.asarray(c["force"][k], dtype=float)
            if p is None or not np.any(f):
                line.set_data_3d([], [], [])
            else:
                q = np.asarray(p) + data["force_scale"] * f
                line.set_data_3d([p[0], q[0]], [p[1], q[1]], [p[2], q[2]])
        title.set_text(f"{data['title']}: t = {times[k]:.3f} s")
        return []

    anim = animation.FuncAnimation(fig, draw, frames=frames, blit=False)
    try:
        import matplotlib

        with atomic_file(path) as tmp, matplotlib.rc_context({"animation.ffmpeg_path": find_ffmpeg() or "ffmpeg"}):
            anim.save(tmp, writer=_WRITERS[path.suffix], fps=fps, dpi=dpi)   # (tmp keeps the suffix)
    finally:
        plt.close(fig)
    return path
