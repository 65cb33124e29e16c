"""Modules of the ``mvar`` generator; its entry module is :mod:`rt_eeg.xsim.gen_mvar`."""
