"""Root-cause detectors: one module per checklist id, registered in :mod:`rootline.detectors.registry`."""
