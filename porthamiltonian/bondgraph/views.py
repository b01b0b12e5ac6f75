"""The bond graph's convenience methods, wired to the modules that implement them.

`BondGraph.save`, `draw`, `_repr_html_` and `_repr_png_` delegate to `serialize.save`,
`diagnostics.plots.draw_bondgraph` / `bondgraph_png` and `diagnostics.html.bondgraph_html`. Those
modules import `graph` (they read and build graphs), so `graph` cannot import them without an
import circle; this module sits above all of them and hands the functions to the graph's table of
views (`graph._VIEWS`). `porthamiltonian.bondgraph` imports it, so the methods work whenever the
package is imported.
"""

from ..diagnostics.html import bondgraph_html
from ..diagnostics.plots import bondgraph_png, draw_bondgraph
from .graph import _VIEWS
from .serialize import save

_VIEWS.update(save=save, draw=draw_bondgraph, html=bondgraph_html, png=bondgraph_png)
