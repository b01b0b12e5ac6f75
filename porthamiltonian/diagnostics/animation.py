"""Animations of a viewer scene for papers and slides: GIF (Pillow) or MP4 (ffmpeg), by matplotlib.

Why a module of its own beside `plots.py` (which DESIGN makes the matplotlib module): an
animation is not a plot of quantities but a renderer of `porthamiltonian.viewer.ViewerScene`
over time, with its own writers and their availability checks; it gets pyplot through
`plots` (so the backend rule lives in one place) and, like `plots`, imports matplotlib only
when called. It draws what the HTML viewer draws (body meshes shaded by their normals, the
ground patch, contact forces as segments from the contact points) from the same camera
direction.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .._files import atomic_file
from ..errors import ParameterError

__all__ = ["animate_scene", "animation_times", "check_animation_path"]

_WRITERS = {".gif": "pillow", ".mp4": "ffmpeg"}


def check_animation_path(path, name="path"):
    """The path, checked: a .gif or .mp4 file in an existing directory, and for .mp4 an
    ffmpeg that matplotlib can run. `name` is the argument's name in messages (the CLI's
    ``--animate``).

    Raises
    ------
    ParameterError
        If the suffix is neither, the directory does not exist, or .mp4 is asked without ffmpeg.
    """
    from matplotlib import animation

    path = Path(path)
    if path.suffix not in _WRITERS:
        raise ParameterError(f"`{name}` {str(path)!r}: an animation must be written to a .gif or .mp4 file (GIF by "
                             f"Pillow, MP4 by ffmpeg), got the suffix {path.suffix or '(none)'!r}")
    if not path.parent.is_dir():
        raise ParameterError(f"`{name}` {str(path)!r}: the directory {str(path.parent)!r} does not exist")
    if not animation.writers.is_available(_WRITERS[path.suffix]):
        raise ParameterError(f"cannot write {path.name!r}: matplotlib finds no `ffmpeg` program for .mp4 (install "
                             "ffmpeg, e.g. `apt-get install ffmpeg`, or write a .gif, which needs only Pillow)")
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


def animate_scene(scene, path, *, fps=25, speed=1.0, size=(6.4, 4.8), dpi=100):
    """Write an animation of `scene` (a `porthamiltonian.viewer.ViewerScene`) to a GIF or MP4.

    Parameters
    ----------
    scene : ViewerScene
    path : str or path-like
        ``.gif`` (matplotlib's Pillow writer) or ``.mp4`` (its ffmpeg writer; ffmpeg must be
        installed).
    fps : float
        Frames per second of the file [1/s].
    speed : float
        Simulated seconds per second of the file (1: real time, 0.1: ten times slower).
    size : tuple of float
        Figure size [in]; with `dpi`, the picture is ``size * dpi`` pixels.
    dpi : float

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        If `path` is not a .gif/.mp4 in an existing directory, ffmpeg is missing for .mp4,
        or `fps`, `speed` or `dpi` is not a positive number.

    Notes
    -----
    Frame times are `animation_times` over the scene's time span: ``n = floor(T fps /
    speed) + 1`` frames for a span T. Each frame shows the scene's sample nearest its time
    (the scene holds up to its `max_frames` samples), titled with that time. The file is
    written under a temporary name and renamed into place.
    """
    from matplotlib import animation

    from .plots import _plt

    path = check_animation_path(path)
    fps, speed, dpi = _positive(fps, "fps"), _positive(speed, "speed"), _positive(dpi, "dpi")
    data = scene.data
    times = scene.times
    frames = animation_times(float(times[0]), float(times[-1]), fps, speed)
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
        with atomic_file(path) as tmp:   # the temporary name keeps the suffix the writers read
            anim.save(tmp, writer=_WRITERS[path.suffix], fps=fps, dpi=dpi)
    finally:
        plt.close(fig)
    return path
