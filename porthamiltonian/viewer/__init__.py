"""3D viewer: a trajectory's bodies, contact frames and forces as a standalone HTML file."""

from .html import html_document, write_html
from .scene import ViewerScene, load_scene, scene_from_trajectory

__all__ = ["ViewerScene", "html_document", "load_scene", "scene_from_trajectory", "write_html"]
