"""Network Epileptor scalp-EEG generator (see :mod:`rt_eeg.xsim.gen_epileptor`)."""
