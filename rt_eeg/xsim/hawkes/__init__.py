"""The ``hawkes`` generator: EEG as the summed synaptic currents of cortical patches whose
excitatory and inhibitory populations spike as a multivariate Hawkes process.

Modules: :mod:`.patient` (traits), :mod:`.leadfield` (patches and scalp projection),
:mod:`.states` (hidden brain states), :mod:`.network` (Hawkes rate spectra and synthesis),
:mod:`.ictal` (seizures), :mod:`.transients` (graphoelements and benign variants),
:mod:`.artifacts` (non-cerebral signals), :mod:`.render` (assembly).
"""
