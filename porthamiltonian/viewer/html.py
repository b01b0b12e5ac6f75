"""The standalone HTML viewer: one file holding the scene, three.js and the viewer's script.

Why three.js shipped inside the package, not meshcat: meshcat's static HTML is produced by
its server (a ZeroMQ/Tornado process) and its Python package would bring those and IPython
into the core dependencies, while a three.js build is one script with no dependency. The
script (`porthamiltonian/viewer/js/src/main.js`, bundled with three.js 0.187 by esbuild into
``static/viewer.min.js``: ``cd porthamiltonian/viewer/js && npm ci && npm run build``; npm is
needed to rebuild it only, never at install or view time) is written into every HTML file,
so the file works offline, from disk, with nothing fetched. Open it in any browser with
WebGL; ``?t=SECONDS`` (or ``#t=SECONDS``, or ``t=end``) after its address shows that time,
paused; without it the motion plays in a loop, with play/pause, a time slider and a speed.
Beside the scene, the energy ledger's chart (stored, supplied, dissipated, lost energy and
the residual, a cursor at the shown time). Other settings after the address: ``ui=0`` hides
the legend, the controls and the chart, for a clean picture (``chart=1`` keeps the chart,
``caption=1`` adds the title and time); ``follow=LABEL`` makes the camera follow a body;
``axes=1`` or ``axes=0`` shows or hides the bodies' frame axes (shown for up to 8 moving
bodies). The page's ``PorthamiltonianViewer.show(t)`` draws time t, paused: the animation
renderer (`porthamiltonian.viewer.browser`) drives it. `ViewerPage` shows the page inline
in Jupyter.
"""

from __future__ import annotations

import html
import re
from importlib import resources
from pathlib import Path

from .._files import write_text
from ..errors import ParameterError

__all__ = ["ViewerPage", "write_html", "html_document"]

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


class ViewerPage:
    """The viewer of a scene, shown inline in Jupyter and written to a file on demand.

    What `Trajectory.view` returns. In a notebook (Jupyter, JupyterLab, VS Code) the object
    displays itself: `_repr_html_` is an ``<iframe>`` whose ``srcdoc`` holds the whole viewer
    page (the same single offline file as `write_html` writes: nothing is fetched), sandboxed
    to run scripts only. The notebook must be trusted for its scripts to run (outputs of
    cells run in the session are).

    Parameters
    ----------
    scene : ViewerScene
    path : pathlib.Path, optional
        Where the page was written (`save`), if it was.
    height : int
        Height of the inline frame [px] (its width is the cell's), 200 to 4000.

    Attributes
    ----------
    scene : ViewerScene
    path : pathlib.Path or None
        The file last written by `save` (``os.fspath(page)`` gives it).
    height : int

    Raises
    ------
    ParameterError
        If `height` is not an integer in [200, 4000].
    """

    def __init__(self, scene, path=None, *, height=540):
        if isinstance(height, bool) or not isinstance(height, int) or not 200 <= height <= 4000:
            raise ParameterError(f"`height` must be an integer number of pixels in [200, 4000], got {height!r}")
        self.scene, self.path, self.height = scene, None if path is None else Path(path), height

    @property
    def html(self) -> str:
        """The standalone page (`html_document`)."""
        return html_document(self.scene)

    def save(self, path):
        """Write the page to `path` (`write_html`: a .html file in an existing directory);
        returns the path, also kept in `path`."""
        self.path = write_html(self.scene, path)
        return self.path

    def __fspath__(self):
        if self.path is None:
            raise TypeError("this viewer page was not written to a file (call .save(path) first)")
        return str(self.path)

    def _repr_html_(self):
        # srcdoc is an attribute: the page escaped with quotes (html.escape), one line of text
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" title="{html.escape(self.scene.data["title"])}"'
                ' style="display: block; box-sizing: border-box; width: 100%; '
                f'height: {self.height}px; border: 1px solid #ddd;" sandbox="allow-scripts" loading="eager"></iframe>')

    def __repr__(self):
        where = f", written to {str(self.path)!r}" if self.path is not None else ""
        return (f"<ViewerPage {self.scene.data['title']!r}: {len(self.scene.data['t'])} frames, "
                f"{len(self.scene.data['bodies'])} bodies{where}>")
