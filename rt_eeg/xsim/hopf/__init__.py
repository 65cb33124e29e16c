"""Internals of the ``hopf`` generator (:mod:`rt_eeg.xsim.gen_hopf`).

- :mod:`.geometry`: cortical nodes on the scalp sphere, connectome, lead field.
- :mod:`.network`: the Stuart-Landau network, integrated in the rotating frame.
- :mod:`.states`: vigilance states, spindles and benign variants as parameter trajectories.
- :mod:`.seizures`: seizures as bifurcation trajectories of an epileptogenic zone.
- :mod:`.transients`: vertex waves, K-complexes, POSTS, interictal spikes.
- :mod:`.artifacts`: eye, muscle, movement, electrode, ECG and mains artifacts.
"""
