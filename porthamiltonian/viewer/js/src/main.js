// The porthamiltonian 3D viewer: draws a scene written by porthamiltonian.viewer (meshes in
// body frames, body poses over time, contact frames and forces) with three.js, and plays it.
//
// The page shows time t given as `?t=SECONDS` or `#t=SECONDS` (or `end`), paused; without
// it the motion plays in a loop. The camera is the one the scene states (`scene.camera`), so
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
  // a fixed body's surfaces sit behind lines lying on them (the world axes on the floor)
  const m = new THREE.MeshLambertMaterial({ color, side: THREE.DoubleSide, polygonOffset: fixed,
    polygonOffsetFactor: 1, polygonOffsetUnits: 1 });
  return new THREE.Mesh(g, m);
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
    else group.add(axes(data.frame_length));
    scene.add(group);
    return { group, poses: body.poses };
  });
}

function buildContacts(scene, data) {
  return data.contacts.map((c) => {
    const frame = overlay(axes(data.frame_length * 0.6));
    const arrow = overlay(new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1,
      data.force_color));
    scene.add(frame, arrow);
    return { frame, arrow, c };
  });
}

function updateContact(item, k, w, scale, frameLength) {
  const { frame, arrow, c } = item;
  const j = w > 0.5 ? Math.min(k + 1, c.point.length - 1) : k;   // nearest sample
  const p = c.point[j];
  if (p === null) { frame.visible = arrow.visible = false; return; }
  frame.visible = true;
  frame.position.set(p[0], p[1], p[2]);
  const q = c.frame[j];
  frame.quaternion.set(q[1], q[2], q[3], q[0]);
  const f = new THREE.Vector3(...c.force[j]);
  const length = f.length() * scale;
  arrow.visible = length > 1e-9;
  if (arrow.visible) {
    arrow.position.set(p[0], p[1], p[2]);
    arrow.setDirection(f.normalize());
    const head = Math.min(0.3 * length, 0.5 * frameLength);
    arrow.setLength(length, head, 0.5 * head);
  }
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
  return (t) => {
    slider.value = t;
    label.textContent = `t = ${t.toFixed(3)} s`;
    play.textContent = state.playing ? 'pause' : 'play';
  };
}

function legend(data) {
  const box = document.getElementById('legend');
  const line = (text, color) => {
    const div = document.createElement('div');
    if (color) {
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = color;
      div.appendChild(swatch);
    }
    div.appendChild(document.createTextNode(text));
    box.appendChild(div);
  };
  const title = document.createElement('b');
  title.textContent = data.title;
  box.appendChild(title);
  for (const b of data.bodies) line(b.name, b.color);
  line(`arrows: force on the contact's body b, ${data.force_scale_text}`);
  line('axes: x red, y green, z blue (world, bodies, contact frames)');
}

function start(data) {
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio);
  renderer.setSize(window.innerWidth, window.innerHeight);
  document.body.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(data.background);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x888888, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.4);
  sun.position.set(...data.light);
  scene.add(sun);
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
  const times = data.t;
  const state = { playing: false, speed: 1, t: times[0], last: null };
  const render = () => renderer.render(scene, camera);
  state.show = (t) => {
    state.t = t;
    const [k, w] = bracket(times, t);
    for (const b of bodies) if (b.poses !== null) setPose(b.group, b.poses, k, w);
    for (const c of contacts) updateContact(c, k, w, data.force_scale, data.frame_length);
    update(t);
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
  legend(data);
  controls.addEventListener('change', render);
  window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
    render();
  });

  const asked = requestedTime(times);
  state.show(asked === null ? times[0] : asked);
  if (asked === null) { state.playing = true; state.kick(); }
  document.title = `${data.title} (t = ${state.t.toFixed(3)} s)`;
}

window.PorthamiltonianViewer = { start };
