"""Modules of the ``atlas`` generator (entry module: :mod:`rt_eeg.xsim.gen_atlas`).

A clinical-EEG atlas written page by page: every pattern is synthesised from explicit
waveform shapes (sinusoid fragments, spikes with after-going slow waves, triphasic waves,
...) placed in time with jitter and projected onto the 21 electrodes through dipolar fields.

``geometry`` owns electrode positions and source fields, ``shapes`` the waveform primitives,
``patient`` the per-patient traits, ``states`` the vigilance timeline, ``background`` the
ongoing activity, ``patterns`` the interictal, periodic, benign-variant and activation pages,
``seizures`` the ictal morphologies and ``artifacts`` the ward's artifacts and bad channels.
"""
