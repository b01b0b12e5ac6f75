"""The standalone HTML viewer: one file holding the scene, three.js and the viewer's script.

Why three.js shipped inside the package, not meshcat: meshcat's static HTML is produced by
its server (a ZeroMQ/Tornado process) and its Python package would bring those and IPython
into the core dependencies, while a three.js build is one script with no dependency. The
script (`porthamiltonian/viewer/js/src/main.js`, bundled with three.js 0.187 by esbuild into
``static/viewer.min.js``: ``cd porthamiltonian/viewer/js && npm ci && npm run build``; npm is
needed to rebuild it only, never at install or view time) is written into every HTML file,
so the file works offline, from disk, with nothing fetched. Open it in any browser with
WebGL; ``?t=SECONDS`` (or ``#t=SECONDS``, or ``t=end``) after its address shows that time,
paused (``&ui=0`` hides the legend and the controls, for a clean picture); without it the
motion plays in a loop, with play/pause, a time slider and a speed.
"""

from __future__ import annotations

import html
import re
from importlib import resources
from pathlib import Path

from .._files import write_text
from ..errors import ParameterError

__all__ = ["write_html", "html_document"]

_MARK = re.compile(r"__(TITLE|SCENE|VIEWER)__")


def _static(name):
    return resources.files("porthamiltonian.viewer").joinpath("static", name).read_text(encoding="utf-8")


def html_document(scene):
    """The viewer page of a `ViewerScene`, as one string (script and data inline)."""
    # "</" inside a <script> element would end it: JSON allows "<\/" for "</"
    values = {"TITLE": html.escape(scene.data["title"]), "SCENE": scene.to_json().replace("</", "<\\/"),
              "VIEWER": _static("viewer.min.js")}
    return _MARK.sub(lambda m: values[m.group(1)], _static("template.html"))


def write_html(scene, path):
    """Write the standalone viewer of `scene` to `path` (atomically).

    Parameters
    ----------
    scene : ViewerScene
    path : str or path-like
        Ends in ``.html``; its directory must exist.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        If `path` does not end in .html or its directory does not exist.
    """
    path = Path(path)
    if path.suffix != ".html":
        raise ParameterError(f"`path` must end in .html, got {path.name!r}")
    if not path.parent.is_dir():
        raise ParameterError(f"`path` {str(path)!r}: the directory {str(path.parent)!r} does not exist "
                             "(it is not created; make it first)")
    return write_text(path, html_document(scene))
