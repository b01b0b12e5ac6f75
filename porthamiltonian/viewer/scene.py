"""The viewer's scene: what a trajectory looks like, as plain data (meshes, poses, contacts, camera).

A `ViewerScene` is built once from a `Trajectory` (`scene_from_trajectory`): every body
touched by a contact carries the meshes of its contact surfaces (`geometry.tessellate`, in
the body frame; an unbounded ground plane becomes a finite patch under the motion), every
moving body its pose at each frame, every contact its frame and the force on its body b.
The scene is JSON (`ViewerScene.save`, `load_scene`): the command line writes it beside the
trajectory (``view.json``), and both renderers read it: the HTML viewer
(`porthamiltonian.viewer.html`) and the matplotlib animation
(`porthamiltonian.diagnostics.animation`). It states its camera, so that a picture of it
can be checked against the poses.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from porthamiltonian.library import Ground, RigidBody

from .._files import write_text
from ..diagnostics.contact_forces import _leaves, contact_frames, contact_names
from ..errors import ParameterError, SerializationError
from ..geometry.tessellate import tessellate
from ..lie import quaternion

__all__ = ["ViewerScene", "scene_from_trajectory", "load_scene", "BODY_COLORS"]

#: colours of the moving bodies, in order (none is a hue of the red/green/blue frame axes)
BODY_COLORS = ("#ff7f0e", "#17becf", "#9467bd", "#e377c2", "#bcbd22", "#8c564b")
#: fixed bodies (the ground)
FIXED_COLOR = "#b8b8b8"
FORCE_COLOR = "#222222"
BACKGROUND = "#f2f2f2"
#: camera direction: azimuth and elevation [deg] of the camera seen from the scene's centre
CAMERA_AZIMUTH, CAMERA_ELEVATION, CAMERA_FOV = -70.0, 20.0, 35.0
FORMAT = "porthamiltonian-viewer-scene/1"
#: the size [m] of a scene whose moving bodies all stay at one point (no surface, one frame)
MIN_SIZE = 0.2


@dataclass(frozen=True)
class ViewerScene:
    """A trajectory as the viewer draws it (JSON-ready data; see the module docstring).

    Attributes
    ----------
    data : dict
        ``title``; ``t`` (frame times [s]); ``bodies`` (``name``, ``color``,
        ``meshes`` of flat ``vertices`` [m] / ``normals`` / ``faces`` in the body frame,
        ``poses``: per frame ``[qw, qx, qy, qz, px, py, pz]``, or None and a fixed ``pose``);
        ``contacts`` (``name``, ``body_a``, ``body_b``, per frame ``point`` [m] (None off
        the surfaces), ``frame`` quaternion of H_WC and ``force`` on body b [N], world);
        ``camera`` (``position``, ``target``, ``up`` [m], vertical ``fov`` [deg], ``near``,
        ``far`` [m]); ``box``, the world box swept by the moving bodies (rows min, max [m]);
        ``force_scale`` [m/N] with its caption; ``frame_length`` [m].
    """

    data: dict

    @property
    def times(self) -> np.ndarray:
        """Frame times, shape (n_frames,) [s]."""
        return np.asarray(self.data["t"], dtype=float)

    def body_pose(self, name, k):
        """``H_WB`` (shape (4, 4)) of body `name` at frame `k`."""
        body = next((b for b in self.data["bodies"] if b["name"] == name), None)
        if body is None:
            raise ParameterError(f"the scene has no body {name!r}; its bodies are "
                                 f"{[b['name'] for b in self.data['bodies']]}")
        row = body["pose"] if body["poses"] is None else body["poses"][k]
        return _pose_matrix(np.asarray(row, dtype=float))

    def save(self, path):
        """Write the scene as JSON (atomically); returns the path."""
        return write_text(Path(path), self.to_json())

    def to_json(self) -> str:
        """The scene as compact JSON text."""
        return json.dumps(self.data, separators=(",", ":"))


def load_scene(path):
    """Read a scene written by `ViewerScene.save`.

    Raises
    ------
    SerializationError
        If the file is missing, not JSON, or not a viewer scene.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SerializationError(f"no viewer scene {str(path)!r} (`porthamiltonian run` writes view.json)") from None
    except (OSError, ValueError) as exc:
        raise SerializationError(f"{str(path)!r} is not a readable viewer scene: {exc}") from None
    _check_scene(data, path)
    return ViewerScene(data)


#: the keys of a scene (format 1) and their JSON types; a body's, a contact's, the camera's
_SCENE_KEYS = {"title": str, "t": list, "bodies": list, "contacts": list, "camera": dict, "box": list,
               "force_scale": (int, float), "force_scale_text": str, "force_color": str, "frame_length": (int, float),
               "background": str, "light": list}
_BODY_KEYS = {"name": str, "color": str, "meshes": list, "poses": (list, type(None))}
_CONTACT_KEYS = {"name": str, "body_a": str, "body_b": str, "point": list, "frame": list, "force": list}
_CAMERA_KEYS = {"position": list, "target": list, "up": list, "fov": (int, float), "near": (int, float),
                "far": (int, float)}


def _check_keys(obj, keys, where, path):
    if not isinstance(obj, dict):
        raise SerializationError(f"{str(path)!r}: {where} must be a JSON object, got {type(obj).__name__}")
    missing = [k for k in keys if k not in obj]
    if missing:
        raise SerializationError(f"{str(path)!r}: {where} lacks {', '.join(map(repr, missing))} "
                                 f"(a viewer scene, {FORMAT!r}, has {', '.join(keys)}); write it again with "
                                 "`porthamiltonian run`")
    for k, kind in keys.items():
        if not isinstance(obj[k], kind) or isinstance(obj[k], bool):
            raise SerializationError(f"{str(path)!r}: {where}'s {k!r} has the wrong type "
                                     f"({type(obj[k]).__name__})")


def _check_scene(data, path):
    """Raise SerializationError naming what is wrong unless `data` is a viewer scene of the
    format this release reads (`FORMAT`): every key the viewer and the animation read."""
    if not isinstance(data, dict) or not isinstance(data.get("format"), str):
        raise SerializationError(f"{str(path)!r} is not a viewer scene (no \"format\": {FORMAT!r})")
    name, _, version = data["format"].rpartition("/")
    if data["format"] != FORMAT:
        if name == FORMAT.rpartition("/")[0]:
            raise SerializationError(f"{str(path)!r} is a viewer scene of version {version!r}; this release reads "
                                     f"version {FORMAT.rpartition('/')[2]} ({FORMAT!r})")
        raise SerializationError(f"{str(path)!r} is not a viewer scene (format {data['format']!r}, expected {FORMAT!r})")
    _check_keys(data, _SCENE_KEYS, "the scene", path)
    _check_keys(data["camera"], _CAMERA_KEYS, "the camera", path)
    for k, body in enumerate(data["bodies"]):
        _check_keys(body, _BODY_KEYS, f"body {k}", path)
        if body["poses"] is None and "pose" not in body:
            raise SerializationError(f"{str(path)!r}: body {k} ({body['name']!r}) has neither poses nor a fixed pose")
    for k, contact in enumerate(data["contacts"]):
        _check_keys(contact, _CONTACT_KEYS, f"contact {k}", path)


def _pose_matrix(row):
    H = np.eye(4)
    H[:3, :3] = quaternion.to_matrix(row[:4] / np.linalg.norm(row[:4]))
    H[:3, 3] = row[4:7]
    return H


def _rows(a, digits=7):
    """Nested lists of floats with `digits` significant digits (None for NaN): compact JSON."""
    flat = np.asarray(a, dtype=float)
    out = [None if not math.isfinite(v) else float(f"{v:.{digits}g}") for v in flat.ravel().tolist()]
    if flat.ndim <= 1:
        return out
    width = int(np.prod(flat.shape[1:]))
    return [out[i:i + width] for i in range(0, len(out), width)]


def _points_or_none(a):
    return [None if r[0] is None else r for r in _rows(a)]


# ------------------------------------------------------------------ bodies and surfaces

def _rigid_bodies(system):
    """``[(path, body)]`` of the system's rigid bodies and grounds, by path."""
    return sorted((p, o) for p, o in system.elements.items() if isinstance(o, (RigidBody, Ground)))


def _surfaces_by_body(system):
    """``{id(body): [(surface, H_BS), ...]}`` from the contact pairs (each surface once)."""
    out = {}
    for name in contact_names(system):
        pair = system.elements[_leaves(system, name)[0]].pair
        for body, S, H in ((pair.body_a, pair.S1, pair.H_aS1), (pair.body_b, pair.S2, pair.H_bS2)):
            placed = out.setdefault(id(body), [])
            if not any(S is s and np.array_equal(H, h) for s, h in placed):
                placed.append((S, H))
    return out


def _resolution(surface, resolution):
    if surface.is_network:
        n = max(3, resolution // 6)
        return n, n
    return resolution, max(3, resolution // 2)


def _surface_extent(surface, H_WS, lo, hi, margin):
    """Parameter extent of an unbounded surface covering the world box ``[lo, hi]`` grown by
    `margin`: the box's corners projected on the surface's tangent axes at ``(0, 0)``."""
    D = surface.derivatives(0.0, 0.0, order=1)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    local = (corners - H_WS[:3, 3]) @ H_WS[:3, :3] - D[0, 0]
    out = []
    for axis in (D[1, 0], D[0, 1]):
        s = local @ axis / (axis @ axis)
        out.append((float(s.min()) - margin, float(s.max()) + margin))
    return out


def _unbounded_meshes(body, placed, lo, hi):
    """Finite patches of a body's unbounded surfaces: on a fixed body (the ground) the patch
    under the box ``[lo, hi]`` grown by half its size, on a moving one a square half the
    box's size about the parameter origin; 8 x 4 points (a plane needs 2 x 2, a cylinder more)."""
    size = float(np.max(hi - lo))
    out = []
    for S, H in placed:
        if S.domain(0).is_bounded:
            continue
        if isinstance(body, Ground):
            extent = _surface_extent(S, body.H_WG @ H, lo, hi, 0.5 * size)
        else:
            extent = ((-0.25 * size, 0.25 * size), (-0.25 * size, 0.25 * size))
        out.append((tessellate(S, 8, 4, extent=extent), H))
    return out


def _mesh_data(mesh, H_BS):
    R, p = H_BS[:3, :3], H_BS[:3, 3]
    return {"vertices": _rows((mesh.vertices @ R.T + p).ravel(), 6),
            "normals": _rows((mesh.normals @ R.T).ravel(), 4),
            "faces": mesh.faces.ravel().tolist()}


def _frames(trajectory, max_frames):
    n = len(trajectory.t)
    if isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer)) or max_frames < 2:
        raise ParameterError(f"`max_frames` must be an integer >= 2, got {max_frames!r}")
    if n <= max_frames:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, max_frames).round().astype(int))


def _box(points):
    return points.min(axis=0), points.max(axis=0)


def _body_points(body, meshes, n=256):
    """At most about `n` points of a body in its frame: its meshes' vertices, evenly picked,
    or else its frames' origins and its centre of mass."""
    if meshes:
        pts = np.concatenate([m.vertices @ H[:3, :3].T + H[:3, 3] for m, H in meshes])
        return pts[::max(1, len(pts) // n)]
    return np.array([H[:3, 3] for H in body.frames.values()] + [body.com])


def _moving_box(poses, points):
    """World bounding box of the moving bodies (their `points` in their frames) over the
    frames; `MIN_SIZE` wide about its centre when it is a point (bodies without surfaces
    that stay put), about the world origin without moving bodies."""
    pts = [np.zeros((1, 3))] if not poses else []
    for rows, local in zip(poses, points):
        for row in rows:
            H = _pose_matrix(row)
            pts.append(local @ H[:3, :3].T + H[:3, 3])
    lo, hi = _box(np.concatenate(pts))
    if np.max(hi - lo) < 1e-9 * MIN_SIZE:
        grow = (MIN_SIZE - (hi - lo)) / 2.0
        lo, hi = lo - grow, hi + grow
    return lo, hi


# ------------------------------------------------------------------------ the camera

def _camera(lo, hi):
    target = (lo + hi) / 2.0
    radius = max(float(np.linalg.norm(hi - lo)) / 2.0, 1e-3)
    az, el = math.radians(CAMERA_AZIMUTH), math.radians(CAMERA_ELEVATION)
    direction = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    distance = 1.25 * radius / math.sin(math.radians(CAMERA_FOV) / 2.0)
    return {"position": _rows(target + distance * direction), "target": _rows(target), "up": [0.0, 0.0, 1.0],
            "fov": CAMERA_FOV, "near": distance / 100.0, "far": distance * 20.0}, radius


# ------------------------------------------------------------------------- the scene

def _poses(trajectory, block, idx):
    """Pose rows ``[qw, qx, qy, qz, px, py, pz]`` of a state block at samples `idx`, unit
    quaternions."""
    rows = trajectory.x[idx][:, trajectory.system.layout[block]].copy()
    rows[:, :4] /= np.linalg.norm(rows[:, :4], axis=1)[:, None]
    return rows


def _force_scale(contacts, length):
    """[m/N] drawing the largest force `length` [m] long, and a caption saying so."""
    fmax = max([float(np.max(np.linalg.norm(np.array(c["force"]), axis=1))) for c in contacts] or [0.0])
    if fmax == 0.0:
        return 0.0, "no contact force"
    return length / fmax, f"the largest ({fmax:.3g} N) drawn {length:.3g} m long"


def _contacts(trajectory, idx):
    out = []
    for name in contact_names(trajectory.system):
        f = trajectory.contact_forces(name)
        H = contact_frames(trajectory, name)[idx]
        force = f.normal[idx, None] * f.normal_direction[idx] + f.tangential[idx]
        quats = np.array([quaternion.from_matrix(h[:3, :3]) if np.isfinite(h).all() else np.full(4, np.nan)
                          for h in H])
        out.append({"name": name, "body_a": f.body_a, "body_b": f.body_b, "point": _points_or_none(f.point[idx]),
                    "frame": _points_or_none(quats), "force": _rows(np.nan_to_num(force))})
    return out


def scene_from_trajectory(trajectory, *, resolution=48, max_frames=2000, title=None):
    """The viewer's scene of a trajectory.

    Parameters
    ----------
    trajectory : Trajectory
    resolution : int
        Grid points around a surface (``n_u``; ``n_v`` is half of it); a patch network's
        patches get ``resolution // 6`` points a side each (at least 3).
    max_frames : int
        At most this many frames, evenly spread over the samples (all of them when fewer).
    title : str, optional
        Shown in the viewer; default the system's name.

    Returns
    -------
    ViewerScene

    Raises
    ------
    ParameterError
        If `resolution` is not an integer >= 4 or `max_frames` not an integer >= 2.

    Notes
    -----
    Bodies are drawn through their contact surfaces (a body without contacts is drawn as its
    frame's axes). An unbounded surface of a fixed body (the ground plane) is drawn as the
    patch under the box swept by the moving bodies, grown by half that box's size; one of a
    moving body (a flat follower) as a square half that size about its parameter origin. The camera looks at the
    centre of that box from azimuth -70 deg and elevation 20 deg (z up), far enough to hold
    it whole; force arrows are scaled so that the largest is half the box's half-diagonal.
    """
    if isinstance(resolution, bool) or not isinstance(resolution, (int, np.integer)) or resolution < 4:
        raise ParameterError(f"`resolution` must be an integer >= 4, got {resolution!r}")
    system = trajectory.system
    idx = _frames(trajectory, max_frames)
    surfaces = _surfaces_by_body(system)
    bodies = _rigid_bodies(system)
    moving = [(p, b) for p, b in bodies if not isinstance(b, Ground)]
    poses = {p: _poses(trajectory, f"{p}.pose", idx) for p, _ in moving}
    meshes = {p: [(tessellate(S, *_resolution(S, resolution)), H) for S, H in surfaces.get(id(b), [])
                  if S.domain(0).is_bounded] for p, b in bodies}
    lo, hi = _moving_box([poses[p] for p, _ in moving], [_body_points(b, meshes[p]) for p, b in moving])
    camera, radius = _camera(lo, hi)
    out_bodies = []
    for path, body in bodies:
        parts = meshes[path] + _unbounded_meshes(body, surfaces.get(id(body), []), lo, hi)
        entry = {"name": path, "meshes": [_mesh_data(m, H) for m, H in parts]}
        if isinstance(body, Ground):
            pose = _rows(np.concatenate((quaternion.from_matrix(body.H_WG[:3, :3]), body.H_WG[:3, 3])))
            entry.update(color=FIXED_COLOR, poses=None, pose=pose)
        else:
            color = BODY_COLORS[len([b for b in out_bodies if b["poses"] is not None]) % len(BODY_COLORS)]
            entry.update(color=color, poses=_rows(poses[path]))
        out_bodies.append(entry)
    contacts = _contacts(trajectory, idx)
    scale, caption = _force_scale(contacts, 0.5 * radius)
    data = {"format": FORMAT, "title": title or system.name, "t": _rows(trajectory.t[idx], 10),
            "bodies": out_bodies, "contacts": contacts, "camera": camera, "box": [_rows(lo), _rows(hi)],
            "force_scale": scale, "force_scale_text": caption, "force_color": FORCE_COLOR,
            "frame_length": 0.15 * radius, "background": BACKGROUND,
            "light": _rows(np.array(camera["target"]) + radius * np.array([2.0, -3.0, 5.0]))}
    return ViewerScene(data)
