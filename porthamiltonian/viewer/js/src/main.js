// The porthamiltonian 3D viewer: draws a scene written by porthamiltonian.viewer (meshes in
// body frames, body poses over time, contact frames and forces) with three.js, and plays it.
//
// The page shows time t given as `?t=SECONDS` or `#t=SECONDS` (or `end`), paused; without
// it the motion plays in a loop. Beside it, the energy ledger's chart (`data.energy`);
// `PorthamiltonianViewer.show(t)` draws time t for the animation renderer. The camera is the one the scene states (`scene.camera`), so
// a screenshot can be checked against the poses projected with that camera.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

function requestedTime(times) {
  const query = new URLSearchParams(window.location.search).get('t');
  const hash = new URLSearchParams(window.location.hash.slice(1)).get('t');
  const raw = query !== null ? query : hash;
  if (raw === null) return null;
  if (raw === 'end') return times[times.length - 1];
  const t = Number(raw);
  return Number.isFinite(t) ? t : null;
}

// index k and weight w with t between times[k] and times[k + 1] (the later sample at a repeated
// event time: the state after the jump)
function bracket(times, t) {
  const n = times.length;
  if (t <= times[0]) return [0, 0];
  if (t >= times[n - 1]) return [n - 1, 0];
  let lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  const span = times[hi] - times[lo];
  return [lo, span > 0 ? (t - times[lo]) / span : 0];
}

function meshObject(mesh, color, fixed) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(mesh.vertices, 3));
  g.setAttribute('normal', new THREE.Float32BufferAttribute(mesh.normals, 3));
  g.setIndex(mesh.faces);
  // a fixed body's surfaces sit behind lines lying on them (the grid, the world axes on the floor);
  // a mesh with its own colour (a robot's visual) or opacity (the inertia ellipsoid) keeps it
  const opacity = mesh.opacity === undefined ? 1 : mesh.opacity;
  // (a translucent mesh shows its outer side only: one layer of tint, not two)
  const m = new THREE.MeshLambertMaterial({ color: mesh.color || color, side: opacity < 1 ? THREE.FrontSide : THREE.DoubleSide,
    polygonOffset: fixed, polygonOffsetFactor: 1, polygonOffsetUnits: 1,
    transparent: opacity < 1, opacity, depthWrite: opacity >= 1 });
  const obj = new THREE.Mesh(g, m);
  obj.castShadow = !fixed && opacity >= 1;
  obj.receiveShadow = true;
  return obj;
}

// the pose of a row [qw, qx, qy, qz, px, py, pz]
function setPose(obj, rows, k, w) {
  const a = rows[k], b = rows[Math.min(k + 1, rows.length - 1)];
  const qa = new THREE.Quaternion(a[1], a[2], a[3], a[0]).normalize();
  const qb = new THREE.Quaternion(b[1], b[2], b[3], b[0]).normalize();
  obj.quaternion.slerpQuaternions(qa, qb, w);
  obj.position.set(a[4] + w * (b[4] - a[4]), a[5] + w * (b[5] - a[5]), a[6] + w * (b[6] - a[6]));
}

// x red, y green, z blue, uniform (three's default fades them to orange, yellow and cyan)
function axes(size) {
  const helper = new THREE.AxesHelper(size);
  helper.setColors(new THREE.Color(0xff0000), new THREE.Color(0x00c000), new THREE.Color(0x0000ff));
  return helper;
}

function overlay(obj) {
  obj.traverse((o) => {
    o.renderOrder = 10;
    if (o.material) { o.material.depthTest = false; o.material.transparent = true; }
  });
  return obj;
}

function buildBodies(scene, data) {
  return data.bodies.map((body) => {
    const group = new THREE.Group();
    group.name = body.name;
    for (const mesh of body.meshes) group.add(meshObject(mesh, body.color, body.poses === null));
    if (body.poses === null) setPose(group, [body.pose], 0, 0);
    else {
      group.userData.axes = axes(data.frame_length);
      group.add(group.userData.axes);
    }
    scene.add(group);
    return { group, poses: body.poses };
  });
}

// a solid arrow along +y of unit length (shaft and head), scaled when drawn
function arrowObject(color) {
  const material = new THREE.MeshBasicMaterial({ color });
  const shaft = new THREE.Mesh(new THREE.CylinderGeometry(1, 1, 1, 12), material);
  const head = new THREE.Mesh(new THREE.ConeGeometry(1, 1, 16), material);
  const group = new THREE.Group();
  group.add(shaft, head);
  return { group, shaft, head };
}

// the arrow from p along f (world), `length` long, its thickness set by the scene's frame length
function placeArrow(arrow, p, f, length, frameLength) {
  const head = Math.min(0.35 * length, 0.6 * frameLength);
  const width = 0.06 * frameLength;
  arrow.shaft.scale.set(width, length - head, width);
  arrow.shaft.position.set(0, 0.5 * (length - head), 0);
  arrow.head.scale.set(2.5 * width, head, 2.5 * width);
  arrow.head.position.set(0, length - 0.5 * head, 0);
  arrow.group.position.set(p[0], p[1], p[2]);
  arrow.group.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), f);
}

function buildContacts(scene, data) {
  return data.contacts.map((c) => {
    const frame = overlay(axes(data.frame_length * 0.4));
    scene.add(frame);
    // drawn over the frame axes (a force along the normal would hide behind the z axis)
    const arrows = (c.arrows || [1]).map((sign) => {
      const arrow = arrowObject(data.force_color);
      overlay(arrow.group);
      arrow.group.traverse((o) => { o.renderOrder = 20; });
      scene.add(arrow.group);
      return { arrow, sign };
    });
    return { frame, arrows, c };
  });
}

function updateContact(item, k, w, scale, frameLength) {
  const { frame, arrows, c } = item;
  const j = w > 0.5 ? Math.min(k + 1, c.point.length - 1) : k;   // nearest sample
  const p = c.point[j];
  if (p === null) {
    frame.visible = false;
    for (const a of arrows) a.arrow.group.visible = false;
    return;
  }
  frame.visible = true;
  frame.position.set(p[0], p[1], p[2]);
  const q = c.frame[j];
  frame.quaternion.set(q[1], q[2], q[3], q[0]);
  const f = new THREE.Vector3(...c.force[j]);
  const length = f.length() * scale;
  for (const { arrow, sign } of arrows) {
    arrow.group.visible = length > 1e-9;
    if (arrow.group.visible) placeArrow(arrow, p, f.clone().multiplyScalar(sign).normalize(), length, frameLength);
  }
}

// segments between bodies (a leg's spring): a cylinder between two world points per frame
function buildLinks(scene, data) {
  return (data.links || []).map((link) => {
    const radius = 0.05 * data.frame_length;
    const mesh = new THREE.Mesh(new THREE.CylinderGeometry(radius, radius, 1, 12),
      new THREE.MeshLambertMaterial({ color: 0x555555 }));
    mesh.castShadow = true;
    scene.add(mesh);
    return { mesh, link };
  });
}

function updateLink(item, k, w) {
  const { mesh, link } = item;
  const k2 = Math.min(k + 1, link.a.length - 1);
  const lerp = (rows) => new THREE.Vector3(...rows[k]).lerp(new THREE.Vector3(...rows[k2]), w);
  const a = lerp(link.a), b = lerp(link.b);
  const d = b.clone().sub(a);
  const length = d.length();
  mesh.visible = length > 1e-9;
  if (!mesh.visible) return;
  mesh.position.copy(a).add(b).multiplyScalar(0.5);
  mesh.scale.set(1, length, 1);
  mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), d.normalize());
}

// the ground grid: lines every `step` over [u0, u1] x [v0, v1] in the plane z = 0 of its pose, just
// above the ground's surface (which is drawn behind lines lying on it)
function buildGrid(scene, data) {
  const g = data.grid;
  if (!g) return;
  const [u0, u1] = g.u, [v0, v1] = g.v;
  const pts = [];
  for (let u = Math.ceil(u0 / g.step) * g.step; u <= u1; u += g.step) pts.push(u, v0, 0, u, v1, 0);
  for (let v = Math.ceil(v0 / g.step) * g.step; v <= v1; v += g.step) pts.push(u0, v, 0, u1, v, 0);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(pts, 3));
  const grid = new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ color: 0x777777 }));
  setPose(grid, [g.pose], 0, 0);
  scene.add(grid);
}

// the energy ledger's chart: stored (H - H(0)), supplied, dissipated, lost, stabilization and the residual
// [J] against time, a cursor at the shown time and the residual there in words; `data.energy`
// is absent from scenes without a ledger (then the panel stays hidden)
const SERIES = [['stored', 'stored H - H(0)', '#1f77b4', []], ['supplied', 'supplied', '#2ca02c', []],
  ['dissipated', 'dissipated', '#d62728', []], ['lost', 'lost (events)', '#9467bd', []],
  ['stabilization', 'stabilization', '#8c564b', []],
  ['residual', 'residual', '#000000', [4, 3]]];
const CURSOR_COLOR = '#ff00ff';

function energyChart(data) {
  const panel = document.getElementById('energy');
  const e = data.energy;
  if (!panel || !e) return () => {};
  panel.style.display = 'block';
  const canvas = panel.querySelector('canvas');
  const note = panel.querySelector('#residual');
  // lost and stabilization only where they are not zero throughout
  const shown = SERIES.filter(([key]) => !['lost', 'stabilization'].includes(key) || e[key].some((v) => v !== 0));
  // its size in CSS pixels set here (a hidden panel has no layout size to read)
  const width = 340, height = 170;
  canvas.style.width = `${width}px`; canvas.style.height = `${height}px`;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
  const ctx = canvas.getContext('2d');
  ctx.scale(ratio, ratio);
  const t = e.t, t0 = t[0], t1 = t[t.length - 1];
  let lo = 0, hi = 0;
  for (const [key] of shown) for (const v of e[key]) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (hi - lo < 1e-12) { hi += 1; lo -= 1; }
  const pad = 0.06 * (hi - lo);
  lo -= pad; hi += pad;
  const box = { left: 46, right: width - 8, top: 8, bottom: height - 20 };
  const X = (s) => box.left + (t1 > t0 ? (s - t0) / (t1 - t0) : 0) * (box.right - box.left);
  const Y = (v) => box.bottom - (v - lo) / (hi - lo) * (box.bottom - box.top);
  const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(1) : v.toPrecision(3));
  const background = () => {
    ctx.clearRect(0, 0, width, height);
    ctx.strokeStyle = '#999'; ctx.lineWidth = 1; ctx.setLineDash([]);
    ctx.strokeRect(box.left, box.top, box.right - box.left, box.bottom - box.top);
    ctx.fillStyle = '#333'; ctx.font = '10px sans-serif';
    ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
    for (const v of [lo + pad, 0, hi - pad]) ctx.fillText(fmt(v), box.left - 3, Y(v));
    ctx.beginPath(); ctx.strokeStyle = '#ccc'; ctx.moveTo(box.left, Y(0)); ctx.lineTo(box.right, Y(0)); ctx.stroke();
    ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    ctx.fillText(`${fmt(t0)}`, box.left, box.bottom + 3); ctx.fillText(`t [s]`, (box.left + box.right) / 2, box.bottom + 3);
    ctx.fillText(`${fmt(t1)}`, box.right - 8, box.bottom + 3);
    ctx.save(); ctx.translate(10, (box.top + box.bottom) / 2); ctx.rotate(-Math.PI / 2);
    ctx.fillText('energy [J]', 0, -6); ctx.restore();
    for (const [key, , color, dash] of shown) {
      ctx.beginPath(); ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.setLineDash(dash);
      e[key].forEach((v, i) => (i ? ctx.lineTo(X(t[i]), Y(v)) : ctx.moveTo(X(t[i]), Y(v))));
      ctx.stroke();
    }
    ctx.setLineDash([]);
  };
  const keys = panel.querySelector('#keys');
  for (const [, label, color, dash] of shown) {
    const span = document.createElement('span');
    span.innerHTML = `<i style="border-top:2px ${dash.length ? 'dashed' : 'solid'} ${color}"></i>`;
    span.appendChild(document.createTextNode(label));
    keys.appendChild(span);
  }
  const worst = Math.max(...e.residual.map(Math.abs));
  return (s) => {
    background();
    ctx.beginPath(); ctx.strokeStyle = CURSOR_COLOR; ctx.lineWidth = 2;
    ctx.moveTo(X(s), box.top); ctx.lineTo(X(s), box.bottom); ctx.stroke();
    const [k, w] = bracket(t, s);
    const r = e.residual[k] + w * (e.residual[Math.min(k + 1, t.length - 1)] - e.residual[k]);
    note.textContent = `residual at t: ${r.toExponential(2)} J (largest ${worst.toExponential(2)} J)`;
  };
}

function controlsBar(data, state) {
  const bar = document.getElementById('bar');
  const play = bar.querySelector('#play');
  const slider = bar.querySelector('#scrub');
  const label = bar.querySelector('#time');
  const speed = bar.querySelector('#speed');
  const t0 = data.t[0], t1 = data.t[data.t.length - 1];
  slider.min = t0; slider.max = t1; slider.step = (t1 - t0) / 2000 || 1;
  play.onclick = () => { state.playing = !state.playing; state.last = null; state.kick(); };
  slider.oninput = () => { state.playing = false; state.show(Number(slider.value)); };
  speed.onchange = () => { state.speed = Number(speed.value); };
  const caption = document.getElementById('caption');
  return (t) => {
    slider.value = t;
    label.textContent = `t = ${t.toFixed(3)} s`;
    if (caption) caption.textContent = `${data.title}   t = ${t.toFixed(3)} s`;
    play.textContent = state.playing ? 'pause' : 'play';
  };
}

function legend(data) {
  const box = document.getElementById('legend');
  const line = (text, color, parent = box) => {
    const div = document.createElement('div');
    if (color) {
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = color;
      div.appendChild(swatch);
    }
    div.appendChild(document.createTextNode(text));
    parent.appendChild(div);
  };
  const title = document.createElement('b');
  title.textContent = data.title;
  box.appendChild(title);
  // the bodies in a list that folds: open for a few, folded for a robot's dozens of links; a
  // body drawn only in its own colours (a robot's visual meshes) has no swatch
  const list = document.createElement('details');
  list.open = data.bodies.length <= 8;
  const summary = document.createElement('summary');
  summary.textContent = `${data.bodies.length} bodies`;
  list.appendChild(summary);
  for (const b of data.bodies) {
    const own = b.meshes.length > 0 && b.meshes.every((m) => m.color !== undefined);
    line(b.name, own ? null : b.color, list);
  }
  box.appendChild(list);
  line(`arrows: contact force on the body it acts on, from the contact point, ${data.force_scale_text}`);
  if ((data.links || []).length) line('grey rods: springs and joints between bodies');
  if (data.bodies.some((b) => b.meshes.some((m) => m.opacity !== undefined && m.opacity < 1))) {
    line('translucent: the ellipsoid of a body\'s inertia');
  }
  line('axes: x red, y green, z blue (world, bodies, contact frames)');
}

function start(data) {
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio);
  renderer.setSize(window.innerWidth, window.innerHeight);
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = THREE.PCFSoftShadowMap;
  document.body.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(data.background);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x888888, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.4);
  sun.position.set(...data.light);
  // shadows from the sun over the box the motion sweeps
  const [lo, hi] = data.box;
  const centre = new THREE.Vector3(...lo).add(new THREE.Vector3(...hi)).multiplyScalar(0.5);
  const reach = 1.5 * new THREE.Vector3(...hi).sub(new THREE.Vector3(...lo)).length() + 1e-3;
  sun.target.position.copy(centre);
  sun.castShadow = true;
  sun.shadow.mapSize.set(2048, 2048);
  Object.assign(sun.shadow.camera, { left: -reach, right: reach, top: reach, bottom: -reach, near: 1e-3,
    far: 4 * reach + sun.position.distanceTo(centre) });
  sun.shadow.camera.updateProjectionMatrix();
  sun.shadow.bias = -0.0005;
  scene.add(sun, sun.target);
  buildGrid(scene, data);
  scene.add(axes(2 * data.frame_length));

  const cam = data.camera;
  const camera = new THREE.PerspectiveCamera(cam.fov, window.innerWidth / window.innerHeight, cam.near, cam.far);
  camera.up.set(...cam.up);
  camera.position.set(...cam.position);
  camera.lookAt(...cam.target);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.set(...cam.target);
  controls.update();

  const bodies = buildBodies(scene, data);
  const contacts = buildContacts(scene, data);
  const links = buildLinks(scene, data);
  const times = data.t;
  const state = { playing: false, speed: 1, t: times[0], last: null, follow: null };
  // following a body: the camera and its target move with the body's position (from frame 0)
  const asked = new URLSearchParams(window.location.search).get('follow');
  const followed = asked !== null ? asked : data.follow;
  const last = { x: null };
  const follow = (k, w) => {
    const body = bodies.find((b) => b.group.name === state.follow && b.poses !== null);
    if (!body) { last.x = null; return; }
    const p = body.group.position.clone();
    if (last.x !== null) {
      const d = p.clone().sub(last.x);
      camera.position.add(d);
      controls.target.add(d);
      sun.position.add(d);
      sun.target.position.add(d);
      controls.update();
    }
    last.x = p;
  };
  const render = () => renderer.render(scene, camera);
  state.show = (t) => {
    state.t = t;
    const [k, w] = bracket(times, t);
    for (const b of bodies) if (b.poses !== null) setPose(b.group, b.poses, k, w);
    for (const c of contacts) updateContact(c, k, w, data.force_scale, data.frame_length);
    for (const l of links) updateLink(l, k, w);
    follow(k, w);
    update(t);
    chart(t);
    render();
  };
  const tick = (now) => {
    if (!state.playing) return;
    if (state.last !== null) {
      let t = state.t + state.speed * (now - state.last) / 1000;
      if (t > times[times.length - 1]) t = times[0];
      state.show(t);
    }
    state.last = now;
    requestAnimationFrame(tick);
  };
  state.kick = () => { if (state.playing) requestAnimationFrame(tick); else update(state.t); };
  const update = controlsBar(data, state);
  const chart = energyChart(data);
  const select = document.getElementById('follow');
  if (select) {
    for (const b of data.bodies) if (b.poses !== null) select.add(new Option(b.name, b.name));
    select.onchange = () => { state.follow = select.value || null; last.x = null; state.show(state.t); };
    if (followed && data.bodies.some((b) => b.name === followed && b.poses !== null)) select.value = followed;
    state.follow = select.value || null;
  } else state.follow = followed || null;
  legend(data);
  // the bodies' frame axes: shown for a few bodies, hidden for a robot's dozens of links (they
  // would hide it); ?axes=1 or ?axes=0 after the address, or the check box, decides
  const axesAsked = new URLSearchParams(window.location.search).get('axes');
  const moving = bodies.filter((b) => b.poses !== null);
  const setAxes = (on) => {
    for (const b of moving) b.group.userData.axes.visible = on;
    render();
  };
  const axesBox = document.getElementById('axes');
  const axesOn = axesAsked !== null ? axesAsked === '1' : moving.length <= 8;
  if (axesBox) {
    axesBox.checked = axesOn;
    axesBox.onchange = () => setAxes(axesBox.checked);
  }
  for (const b of moving) b.group.userData.axes.visible = axesOn;
  controls.addEventListener('change', render);
  window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
    render();
  });

  // a followed body seen at time t: the camera moved with it from the first frame
  const at = requestedTime(times);
  if (state.follow && at !== null) state.show(times[0]);
  state.show(at === null ? times[0] : at);
  if (at === null) { state.playing = true; state.kick(); }
  document.title = `${data.title} (t = ${state.t.toFixed(3)} s)`;
  // the hook of the animation renderer (porthamiltonian.diagnostics.animation): show time t, paused
  window.PorthamiltonianViewer.show = (t) => { state.playing = false; state.show(t); return state.t; };
  window.PorthamiltonianViewer.ready = true;
}

window.PorthamiltonianViewer = { start, ready: false };
