"""Modules of the ``spec`` generator (statistical/spectral signal model); see ``gen_spec``."""
