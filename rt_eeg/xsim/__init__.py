"""Independently written EEG generators, held out as wholes (issue #12).

``base.py`` is the contract, ``corpus.py`` the shared planner and writer (TUSZ v2 layout),
``gen_<name>.py`` one generator each, written without reading ``rt_eeg/sim`` or each other.
"""
