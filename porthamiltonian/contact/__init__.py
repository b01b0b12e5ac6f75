"""Placeholder: filled in by the module commit."""
