"""The tide generator's parts (see :mod:`rt_eeg.xsim.gen_tide`): signal primitives
(``core``), the vigilance state machine (``vigilance``), background rhythms and sleep
transients (``background``), benign variants (``variants``), artifacts (``artifacts``),
seizures (``ictal``) and patient traits (``patient``).
"""
