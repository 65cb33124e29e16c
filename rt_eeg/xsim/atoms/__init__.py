"""The ``atoms`` generator: scalp EEG synthesised as a sum of time-frequency atoms.

The generative reading of matching pursuit (Durka, Blinowska): every signal is a sum of Gabor
atoms, asymmetric transients, steps and plateaus placed by state-dependent point processes,
each with a smooth spatial field over the 21 electrodes, plus a small residual noise.
:mod:`rt_eeg.xsim.gen_atoms` is the entry module; the modules here own one part each.
"""
