"""Backends: the embedded simulator (``sim``) and the protocol a live cluster implements (``base``)."""
