"""The viewer inline in Jupyter (issue 35): a notebook run by nbclient in a kernel of this
Python displays a `ViewerPage` (what `traj.view()` returns; test_export checks that in
process) as HTML, an iframe holding the whole offline page, the same page its `save` writes;
that output, put in a page of its own and opened by headless Chromium, draws both bodies,
so the iframe's escaping and sandbox let the viewer run."""

import html
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from .test_browser import _chromium, hue_mask

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
CELLS = ['''
from porthamiltonian.viewer import ViewerPage, load_scene

page = ViewerPage(load_scene(SCENE), height=400)
page.save("two.html")
page
''', '''
print(repr(page), page.path.name, page.html == open(page).read())
''']


def test_the_viewer_displays_inline_in_a_notebook_and_draws_in_a_browser(run_dir, tmp_path, monkeypatch):
    browser = _chromium()
    cells = [c.strip().replace("SCENE", repr(str(run_dir / "view.json"))) for c in CELLS]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    monkeypatch.setenv("PYTHONPATH", str(ROOT))        # the kernel imports this checkout
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    (shown,) = [o for o in nb.cells[0].outputs if o.output_type == "execute_result"]
    frame = shown["data"]["text/html"]
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in frame and "height: 400px" in frame
    # the page inside the frame is the file written, byte for byte, and nothing in it is fetched
    page = html.unescape(re.search(r'srcdoc="([^"]*)"', frame).group(1))
    assert page == (tmp_path / "two.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    (printed,) = nb.cells[1].outputs
    n = len(json.loads((run_dir / "view.json").read_text())["t"])   # the samples, event times twice
    assert printed["text"].strip() == f"<ViewerPage 'two-ellipsoids': {n} frames, 3 bodies, written to 'two.html'> two.html True"

    # the notebook's output in a browser: both bodies drawn inside the frame
    outer = tmp_path / "notebook_output.html"
    outer.write_text(f"<!DOCTYPE html><html><body style='margin:0'>{frame}</body></html>")
    width, height = 1280, 420          # wide: the energy chart (top right, 340 px) beside the bodies
    shot = tmp_path / "shot.png"
    import subprocess

    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
                    f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", f"--window-size={width},{height}",
                    "--virtual-time-budget=5000", outer.absolute().as_uri()], check=True, capture_output=True, timeout=120)
    from PIL import Image

    img = np.asarray(Image.open(shot).convert("RGB"), dtype=float) / 255.0
    scene = json.loads(re.search(r'<script id="scene" type="application/json">(.*?)</script>', page, re.S)
                       .group(1).replace("<\\/", "</"))
    for body in scene["bodies"]:
        if body["poses"] is not None:
            rows, cols = np.nonzero(hue_mask(img, body["color"]))
            # the page plays from t = 0 (time runs under the virtual time budget): a body's size
            # varies with where it is when the picture is taken, 144 px at the least seen
            assert rows.size > 100, f"{rows.size} pixels of {body['name']}'s colour in the inline viewer"
            assert rows.max() < 400            # inside the frame (400 px high in a 420 px window)
