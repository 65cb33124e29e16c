"""Generator ``hawkes``: cortical patches as a multivariate Hawkes process at rate level.

Each of 32-48 patches under the scalp holds an excitatory and an inhibitory population whose
spike counts are a linear Hawkes process (E self-excitation with a branching ratio, delayed
E-I feedback that resonates at alpha, beta, theta or spindle frequencies). A slow hidden
brain state (wakefulness with eyes open or closed, drowsiness, N1-N3, REM, arousals,
postictal) sets every patch's branching ratio and loop gain; the scalp EEG is a smooth lead
field applied to the patches' synaptic currents, plus 1/f amplifier noise. Seizures push the
focus patches over criticality: a refractory-saturated cascade that bursts rhythmically,
slows, grows and spreads. See :mod:`rt_eeg.xsim.hawkes`.
"""

from __future__ import annotations

# The contract's functions live where they are implemented; this module names them.
from rt_eeg.xsim.hawkes.patient import SEIZURE_TYPES, draw_patient
from rt_eeg.xsim.hawkes.render import render

NAME = "hawkes"
DESCRIPTION = (
    "multivariate Hawkes (self/mutually exciting) E-I patch rates with state-set branching "
    "ratios, lead-field projected; seizures are supercritical saturated cascades"
)
__all__ = ["NAME", "DESCRIPTION", "SEIZURE_TYPES", "draw_patient", "render"]
