"""Artifact parsers: one module per format, all registered in :mod:`rootline.parsers.registry`."""
