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

from rt_eeg.xsim.base import Rendered
from rt_eeg.xsim.hawkes import render as _render
from rt_eeg.xsim.hawkes.patient import SEIZURE_TYPES
from rt_eeg.xsim.hawkes.patient import draw_patient as _draw_patient

NAME = "hawkes"
DESCRIPTION = (
    "multivariate Hawkes (self/mutually exciting) E-I patch rates with state-set branching "
    "ratios, lead-field projected; seizures are supercritical saturated cascades"
)
__all__ = ["NAME", "DESCRIPTION", "SEIZURE_TYPES", "draw_patient", "render"]


def draw_patient(rng) -> dict:
    """A patient's fixed traits (JSON-serialisable).

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    dict
    """
    return _draw_patient(rng)


def render(patient: dict, duration_s: float, sfreq: float, seizures, rng) -> Rendered:
    """Render one recording.

    Parameters
    ----------
    patient : dict
        From :func:`draw_patient`.
    duration_s : float
    sfreq : float
        Sample rate, 100-1024 Hz.
    seizures : list of (start_s, stop_s)
        Sorted, disjoint intervals that get seizure activity (and nothing else does).
    rng : numpy.random.Generator

    Returns
    -------
    Rendered
        21 x round(duration_s * sfreq) float32 microvolts, one type from
        :data:`SEIZURE_TYPES` per seizure, and the drawn events (states, transients,
        artifacts).
    """
    return _render.render(patient, duration_s, sfreq, seizures, rng)
