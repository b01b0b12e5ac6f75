"""3D viewer: a trajectory's bodies, contact frames and forces as a standalone HTML file."""

from .html import ViewerPage, html_document, write_html
from .scene import ViewerScene, load_scene, scene_from_trajectory

__all__ = ["ViewerPage", "ViewerScene", "html_document", "load_scene", "scene_from_trajectory", "write_html"]
