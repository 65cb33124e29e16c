"""Modules of the ``dip`` generator (physical source model; entry point ``gen_dip.py``).

``head``: the multi-shell spherical head, its cortical source grid and lead fields;
``signals``: filtered noise and waveform helpers; ``patient``: a patient's traits;
``states``: vigilance and eye states over a recording; ``background``: the ongoing rhythms
as spatially correlated dipole fields; ``transients``: sleep graphoelements, benign variants,
interictal discharges, activation procedures; ``ictal``: seizures as growing synchronised
patches; ``artifacts``: eyes, muscles, tongue, heart, movement; ``electrodes``: contact
effects and mains interference.
"""
