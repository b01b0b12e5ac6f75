"""Sphinx configuration of the porthamiltonian docs (``sphinx-build -W -b html docs OUT``)."""

project = "porthamiltonian"
author = "porthamiltonian developers"
copyright = "2026, porthamiltonian developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True  # an Attributes section as fields: a property of the same name is documented once

myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["wrap.css"]  # code blocks wrap at any width (issue 35)
