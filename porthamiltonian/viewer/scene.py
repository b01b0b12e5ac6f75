"""The viewer's scene: what a trajectory looks like, as plain data (meshes, poses, contacts, camera).

A `ViewerScene` is built once from a `Trajectory` (`scene_from_trajectory`): every body
touched by a contact carries the meshes of its contact surfaces (`geometry.tessellate`, in
the body frame; an unbounded ground plane becomes a finite patch under the motion), every
moving body its pose at each frame, every contact its frame and the force on its body b.
The scene is JSON (`ViewerScene.save`, `load_scene`): the command line writes it beside the
trajectory (``view.json``), and the HTML viewer (`porthamiltonian.viewer.html`) draws it,
also for the animations (`porthamiltonian.diagnostics.animation`, whose matplotlib 3D
fallback reads it too). It states its camera, so that a picture of it can be checked
against the poses, and carries the energy ledger at its frames for the viewer's chart.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from porthamiltonian.library import Frame, Ground, RigidBody

from .._files import write_text
from ..diagnostics.contact_forces import _leaves, contact_frames, contact_names
from ..errors import ModelError, ParameterError, SerializationError
from ..geometry import Plane
from ..geometry.tessellate import tessellate
from ..lie import quaternion
from .shapes import DEFAULT_RGBA, segment_radius, segment_shape, shape_mesh

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
        ``force_scale`` [m/N] with its caption; ``frame_length`` [m]; ``energy``, the
        energy ledger at the frames (``t`` [s]; ``stored`` (H - H(0)), ``supplied``,
        ``dissipated``, ``lost``, ``stabilization``, ``residual`` [J]), drawn as the chart
        beside the scene (optional: a scene without it has no chart).
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

def _drawn_elements(system):
    """``[(path, element)]`` of the elements that implement the drawing protocol
    (`porthamiltonian.viewer.shapes`), by path."""
    return sorted((p, o) for p, o in system.elements.items()
                  if callable(getattr(o, "drawn_bodies", None)) and callable(getattr(o, "drawn_poses", None)))


def _element_states(trajectory, path, idx):
    """``{block name: (n_frames, size)}`` of an element's state blocks at samples `idx`."""
    layout = trajectory.system.layout
    return {b.key[len(path) + 1:]: trajectory.x[idx][:, b.slice] for b in layout.blocks if b.element == path}


def _markers_by_body(system):
    """``{id(body): [point in the body frame, ...]}``: where the system's joints, springs and
    dampers hold each body (the origins of the `Frame` markers they take); and the links,
    ``[(Frame, Frame)]`` of the two-marker elements whose markers lie on two bodies."""
    points, links = {}, []
    for _, element in sorted(system.elements.items()):
        frames = [v for v in vars(element).values() if isinstance(v, Frame)]
        for fr in frames:
            points.setdefault(id(fr.body), []).append(fr.H_BF[:3, 3])
        if len(frames) == 2 and frames[0].body is not frames[1].body:
            links.append(tuple(frames))
    return points, links


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


def _frames(trajectory, max_frames):
    n = len(trajectory.t)
    if isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer)) or max_frames < 2:
        raise ParameterError(f"`max_frames` must be an integer >= 2, got {max_frames!r}")
    if n <= max_frames:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, max_frames).round().astype(int))


def _box(points):
    return points.min(axis=0), points.max(axis=0)


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
    """[m/N] and its caption: a reference force drawn `length` [m] long, the larger of the 90th
    percentile of the forces in touch (over frames and contacts: a standing load) and a
    quarter of the largest (a landing's peak is then drawn at most 4 `length` long, linearly)."""
    mags = np.concatenate([np.linalg.norm(np.array(c["force"], dtype=float).reshape(-1, 3), axis=1)
                           for c in contacts] or [np.zeros(0)])
    fmax = float(mags.max()) if mags.size else 0.0
    if fmax == 0.0:
        return 0.0, "no contact force"
    ref = max(float(np.percentile(mags[mags > 1e-9 * fmax], 90)), 0.25 * fmax)
    caption = f"{ref:.3g} N drawn {length:.3g} m long"
    if fmax > 1.001 * ref:
        caption += f" (the largest, {fmax:.3g} N, {fmax / ref:.2g} times as long)"
    return length / ref, caption


def _moves(body, by_element):
    """Whether a contact's body moves: its drawn element's (a robot's link is drawn by its
    robot, the `ArticulatedBody` it names in ``robot``); a body that no element draws moves
    unless it is the `Ground`."""
    for key in (id(body), id(getattr(body, "robot", None))):
        if key in by_element:
            return by_element[key]["moving"]
    return not isinstance(body, Ground)


def _contacts(trajectory, idx, by_element):
    """Each contact's point, frame and force on body b per frame, and ``arrows``: the sign
    (+1 for body b, -1 for body a) of the force on each moving body of the pair (on body b
    when neither moves)."""
    system = trajectory.system
    out = []
    for name in contact_names(system):
        pair = system.elements[_leaves(system, name)[0]].pair
        f = trajectory.contact_forces(name)
        H = contact_frames(trajectory, name)[idx]
        force = f.normal[idx, None] * f.normal_direction[idx] + f.tangential[idx]
        quats = np.array([quaternion.from_matrix(h[:3, :3]) if np.isfinite(h).all() else np.full(4, np.nan)
                          for h in H])
        arrows = [sign for body, sign in ((pair.body_a, -1), (pair.body_b, 1)) if _moves(body, by_element)] or [1]
        out.append({"name": name, "body_a": f.body_a, "body_b": f.body_b, "point": _points_or_none(f.point[idx]),
                    "frame": _points_or_none(quats), "force": _rows(np.nan_to_num(force)), "arrows": arrows})
    return out


def _hex(rgba):
    return "#" + "".join(f"{int(round(255 * min(max(c, 0.0), 1.0))):02x}" for c in rgba[:3])


def _part(P, N, F, rgba=None):
    """A mesh's JSON data (vertices, normals in a body frame; faces), with its own colour and
    opacity when `rgba` is given."""
    out = {"vertices": _rows(np.asarray(P).ravel(), 6), "normals": _rows(np.asarray(N).ravel(), 4),
           "faces": np.asarray(F).ravel().tolist()}
    if rgba is not None:
        out["color"], out["opacity"] = _hex(rgba), float(rgba[3])
    return out


def _visual_part(P, N, F, rgba):
    """A drawn shape's mesh: its own colour, or its body's when its colour is the default grey
    (`porthamiltonian.viewer.shapes.DEFAULT_RGBA`, any alpha); its alpha as opacity."""
    if tuple(rgba[:3]) != tuple(DEFAULT_RGBA[:3]):
        return _part(P, N, F, rgba)
    part = _part(P, N, F)
    if rgba[3] < 1.0:
        part["opacity"] = float(rgba[3])
    return part


def _check_poses(path, element, poses, n_bodies, n_frames):
    shape = np.shape(poses)
    if len(shape) != 3 or shape[1:] != (n_bodies, 7) or shape[0] not in (1, n_frames):
        raise ModelError(f"element {path!r} ({type(element).__name__}): drawn_poses must return shape "
                         f"(n_frames={n_frames} or 1, n_bodies={n_bodies}, 7), got {shape}")


def _drawn(trajectory, idx):
    """The drawn bodies of every element of the drawing protocol: dicts with ``label``,
    ``element``, ``shapes``, ``rows`` (pose rows, (n_frames, 7) or (1, 7)) and ``moving``."""
    out = []
    for path, element in _drawn_elements(trajectory.system):
        drawn = list(element.drawn_bodies())
        states = _element_states(trajectory, path, idx)
        poses = np.asarray(element.drawn_poses(states), dtype=float)
        _check_poses(path, element, poses, len(drawn), len(idx))
        for j, (name, shapes) in enumerate(drawn):
            label = path if len(drawn) == 1 and name == element.name else f"{path}/{name}"
            out.append({"label": label, "element": element, "shapes": list(shapes), "rows": poses[:, j],
                        "moving": bool(states)})
    return out


def _encloses(parts, ellipsoid):
    """True if the bounding box (body frame) of the meshes `parts` holds the box of
    `ellipsoid`'s mesh, grown by 10 % of its size (the surfaces already show the body's extent)."""
    if not parts:
        return False
    pts = np.concatenate([P for P, _, _ in parts])
    lo, hi = _box(pts)
    elo, ehi = _box(shape_mesh(ellipsoid, 8)[0])
    grow = 0.1 * float(np.max(hi - lo))
    return bool(np.all(elo >= lo - grow) and np.all(ehi <= hi + grow))


def _rigid_extras(body, shapes, surfaces, markers, bounded):
    """A `RigidBody`'s shapes completed by the scene: without its inertia ellipsoid where its
    bounded contact surfaces enclose it, with segments from its centre of mass to its contact
    surfaces' origins and to the markers of the joints, springs and dampers on it."""
    ellipsoid = next((s for s in shapes if s.name == "inertia"), None)
    out = [s for s in shapes if not (s is ellipsoid and _encloses(bounded, ellipsoid))]
    if ellipsoid is None:
        return out
    radius = segment_radius(ellipsoid)
    targets = [H[:3, 3] for _, H in surfaces] + markers
    seen = []
    for p in targets:
        if any(np.allclose(p, q, atol=1e-9) for q in seen):
            continue
        seen.append(p)
        seg = segment_shape(body.com, p, radius)
        if seg is not None:
            out.append(seg)
    return out


def _grid(entries, surfaces, lo, hi):
    """The ground grid: on the first fixed plane contact surface, over the patch drawn under
    the motion (`_unbounded_meshes`; ``u``, ``v`` the patch's ranges along the plane's x and y
    axes from its ``pose``), else a horizontal square under the box; lines every ``step``
    (1, 2 or 5 x 10^k m), about 20 along the longer side."""
    size = float(np.max(hi - lo))
    H, extent = None, None
    for e in entries:
        if e["moving"]:
            continue
        H_WB = _pose_matrix(e["rows"][0])
        for S, H_BS in surfaces.get(id(e["element"]), []):
            if isinstance(S, Plane):
                H = H_WB @ H_BS
                extent = _surface_extent(S, H, lo, hi, 0.5 * size)
                break
        if H is not None:
            break
    if H is None:
        H = np.eye(4)
        H[:3, 3] = ((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0, lo[2])
        extent = ((-size, size), (-size, size))
    (u0, u1), (v0, v1) = extent
    raw = max(u1 - u0, v1 - v0) / 20.0
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw)
    return {"pose": _rows(np.concatenate((quaternion.from_matrix(H[:3, :3]), H[:3, 3]))),
            "u": [u0, u1], "v": [v0, v1], "step": step}


def _links(entries, links, idx_len):
    """World segments of the two-marker elements (a leg spring, a prismatic joint) between two
    moving bodies: per frame the two markers' world origins, when they are apart."""
    by_body = {id(e["element"]): e for e in entries}
    out, seen = [], []
    for fa, fb in links:
        ea, eb = by_body.get(id(fa.body)), by_body.get(id(fb.body))
        # to the ground, a marker is where a joint holds a body (a planar lock at the world
        # origin), not a part of the mechanism: only links between moving bodies are drawn
        if ea is None or eb is None or not (ea["moving"] and eb["moving"]):
            continue
        key = (id(fa.body), tuple(fa.H_BF[:3, 3]), id(fb.body), tuple(fb.H_BF[:3, 3]))
        if key in seen:
            continue
        seen.append(key)
        ends = []
        for e, fr in ((ea, fa), (eb, fb)):
            rows = np.broadcast_to(e["rows"], (idx_len, 7)) if len(e["rows"]) == 1 else e["rows"]
            ends.append(np.array([_pose_matrix(r) @ np.append(fr.H_BF[:3, 3], 1.0) for r in rows])[:, :3])
        if np.max(np.linalg.norm(ends[0] - ends[1], axis=1)) < 1e-9:
            continue
        out.append({"a": _rows(ends[0]), "b": _rows(ends[1]), "bodies": [ea["label"], eb["label"]]})
    return out


def _energy(trajectory, idx):
    """The energy ledger at the frames (`porthamiltonian.diagnostics.PowerBudget`): ``t`` [s];
    ``stored`` (H - H(0)), ``supplied``, ``dissipated``, ``lost``, ``stabilization`` and
    ``residual`` [J], each shape (n_frames,), 7 significant digits (the residual: its own)."""
    budget = trajectory.power_budget()
    series = {"stored": budget.H - budget.H[0], "supplied": budget.supplied, "dissipated": budget.dissipated,
              "lost": budget.lost, "stabilization": budget.stabilization, "residual": budget.residual}
    return {"t": _rows(budget.t[idx], 10), **{k: _rows(np.asarray(v)[idx]) for k, v in series.items()}}


def scene_from_trajectory(trajectory, *, resolution=48, max_frames=2000, title=None, follow=None):
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
    follow : str, optional
        A moving body's label (its element path, or ``path/name`` in an element that moves
        several bodies) that the camera follows from the start (it can be switched in the
        viewer, or with ``?follow=LABEL`` after the file's address). Default: a fixed camera.

    Returns
    -------
    ViewerScene

    Raises
    ------
    ParameterError
        If `resolution` is not an integer >= 4, `max_frames` not an integer >= 2, or `follow`
        not a moving body's label.
    ModelError
        If an element's ``drawn_poses`` does not have the shape (n_frames, n_bodies, 7).

    Notes
    -----
    Every element of the drawing protocol (`porthamiltonian.viewer.shapes`: rigid bodies, the
    ground, articulated bodies) is drawn through its shapes, and each body through its contact
    surfaces too. A `RigidBody` is drawn as the ellipsoid of its inertia (translucent; left out
    when its bounded contact surfaces enclose it) and segments from its centre of mass to its
    frames, its contact surfaces and the markers of the joints, springs and dampers that hold
    it; a two-marker element between two moving bodies (a leg's spring) is drawn as a segment
    between its markers. An unbounded surface of a fixed body (the ground plane) is drawn as
    the patch under the box swept by the moving bodies, grown by half that box's size, with a
    grid on it;
    one of a moving body (a flat follower) as a square half that size about its parameter
    origin. The camera looks at the centre of that box from azimuth -70 deg and elevation
    20 deg (z up), far enough to hold it whole. A contact's force is drawn as an arrow from
    the contact point on each moving body of the pair, pointing the way the force acts on
    that body; arrows are linear in the force, a reference force drawn half the box's
    half-diagonal long: the 90th percentile of the forces in touch (the standing load, seen),
    or a quarter of the largest force if that is more (a landing's peak is then at most four
    times as long); the legend states both.

    The energy ledger (`Trajectory.power_budget`) at the frames goes with the scene: the
    viewer draws it as a chart beside the scene (stored energy H - H(0), supplied,
    dissipated, and lost at events and absorbed by stabilization where they are not zero,
    and the residual, with a cursor at the shown time and the residual there in words).
    """
    if isinstance(resolution, bool) or not isinstance(resolution, (int, np.integer)) or resolution < 4:
        raise ParameterError(f"`resolution` must be an integer >= 4, got {resolution!r}")
    system = trajectory.system
    idx = _frames(trajectory, max_frames)
    surfaces = _surfaces_by_body(system)
    markers, links = _markers_by_body(system)
    entries = _drawn(trajectory, idx)
    labels = [e["label"] for e in entries if e["moving"]]
    if follow is not None and follow not in labels:
        raise ParameterError(f"`follow` must be a moving body's label, one of {labels}, got {follow!r}")
    for e in entries:
        el = e["element"]
        placed = surfaces.get(id(el), [])
        e["bounded"] = [(P, N, F) for P, N, F in
                        ((m.vertices @ H[:3, :3].T + H[:3, 3], m.normals @ H[:3, :3].T, m.faces)
                         for m, H in ((tessellate(S, *_resolution(S, resolution)), H) for S, H in placed
                                      if S.domain(0).is_bounded))]
        if isinstance(el, RigidBody):
            e["shapes"] = _rigid_extras(el, e["shapes"], placed, markers.get(id(el), []), e["bounded"])
        e["visual"] = [(*shape_mesh(s, max(8, resolution // 2)), s.rgba) for s in e["shapes"]]
    moving = [e for e in entries if e["moving"]]
    points = []
    for e in moving:
        pts = [P for P, _, _ in e["bounded"]] + [P for P, _, _, _ in e["visual"]]
        pts = np.concatenate(pts) if pts else np.zeros((1, 3))
        points.append(pts[::max(1, len(pts) // 256)])
    lo, hi = _moving_box([e["rows"] for e in moving], points)
    camera, radius = _camera(lo, hi)
    out_bodies = []
    for e in entries:
        el = e["element"]
        parts = [_part(P, N, F) for P, N, F in e["bounded"]]
        parts += [_part(m.vertices @ H[:3, :3].T + H[:3, 3], m.normals @ H[:3, :3].T, m.faces)
                  for m, H in _unbounded_meshes(el, surfaces.get(id(el), []), lo, hi)] if isinstance(
                      el, (RigidBody, Ground)) else []
        parts += [_visual_part(P, N, F, rgba) for P, N, F, rgba in e["visual"]]
        entry = {"name": e["label"], "meshes": parts}
        if not e["moving"]:
            entry.update(color=FIXED_COLOR, poses=None, pose=_rows(e["rows"][0]))
        else:
            color = BODY_COLORS[len([b for b in out_bodies if b["poses"] is not None]) % len(BODY_COLORS)]
            entry.update(color=color, poses=_rows(e["rows"]))
        out_bodies.append(entry)
    contacts = _contacts(trajectory, idx, {id(e["element"]): e for e in entries})
    scale, caption = _force_scale(contacts, 0.5 * radius)
    data = {"format": FORMAT, "title": title or system.name, "t": _rows(trajectory.t[idx], 10),
            "bodies": out_bodies, "contacts": contacts, "links": _links(entries, links, len(idx)),
            "energy": _energy(trajectory, idx),
            "grid": _grid(entries, surfaces, lo, hi), "follow": follow, "camera": camera,
            "box": [_rows(lo), _rows(hi)], "force_scale": scale, "force_scale_text": caption,
            "force_color": FORCE_COLOR, "frame_length": 0.15 * radius, "background": BACKGROUND,
            "light": _rows(np.array(camera["target"]) + radius * np.array([2.0, -3.0, 5.0]))}
    return ViewerScene(data)
