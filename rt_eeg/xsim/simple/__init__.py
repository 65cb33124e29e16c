"""Modules of the ``simple`` generator; its entry module is :mod:`rt_eeg.xsim.gen_simple`."""
