"""``atlas``: a clinical EEG atlas, waveform by waveform (an independent xsim generator).

Written as a neurophysiologist's atlas of ICU and epilepsy-monitoring EEG: each page (a
rhythm, a transient, a discharge, a seizure, an artifact) is synthesised from explicit
waveform shapes placed in time with jitter and projected onto the 21 electrodes through
cortical-source fields. It leans on the hard cases of long-term monitoring: seizures with
subtle or gradual onsets and seizures that grow out of periodic discharges, rhythmic and
periodic patterns that are not seizures (LPDs, GPDs, triphasic waves, LRDA/GRDA, benign
variants, breach rhythm), medication beta, encephalopathy, burst-suppression and the
artifacts of a busy ward.

Pages live in :mod:`rt_eeg.xsim.atlas`; this module is the contract's entry point.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.atlas import artifacts, background, discharges, states, variants, ward
from rt_eeg.xsim.atlas import seizures as ictal
from rt_eeg.xsim.atlas.context import Ctx
from rt_eeg.xsim.atlas.patient import SEIZURE_TYPES
from rt_eeg.xsim.atlas.patient import draw_patient as _draw_patient
from rt_eeg.xsim.base import Rendered

__all__ = ["DESCRIPTION", "NAME", "SEIZURE_TYPES", "draw_patient", "render"]

NAME = "atlas"
DESCRIPTION = (
    "Clinical EEG atlas: explicit waveform templates (spikes, triphasic waves, evolving ictal "
    "rhythms, LPDs, benign variants, ward artifacts) placed with jitter on dipolar fields"
)


def draw_patient(rng: np.random.Generator) -> dict:
    """A patient's fixed traits (setting, age, background, foci, patterns, artifacts).

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    dict
        JSON-serialisable traits shared by all recordings of the patient.
    """
    return _draw_patient(rng)


def render(
    patient: dict,
    duration_s: float,
    sfreq: float,
    seizures: list[tuple[float, float]],
    rng: np.random.Generator,
) -> Rendered:
    """Render one recording of ``patient``.

    Parameters
    ----------
    patient : dict
        From :func:`draw_patient`.
    duration_s, sfreq : float
        Length (s) and sampling rate (Hz).
    seizures : list of (start_s, stop_s)
        Sorted, disjoint seizure intervals; ictal activity is rendered exactly there.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    Rendered
        Potentials (uV, float32, (21, n)), the seizure morphology of each seizure and the
        non-seizure events drawn.
    """
    ctx = Ctx(patient, rng, float(duration_s), float(sfreq),
              [(float(a), float(b)) for a, b in seizures])  # fmt: skip
    states.build_states(ctx)
    ctx.seizure_types = ictal.choose_types(ctx)
    background.render_background(ctx)
    discharges.render_periodic(ctx)
    discharges.render_ieds(ctx)
    variants.render_variants(ctx)
    variants.render_activation(ctx)
    ictal.render_seizures(ctx)
    # Brain activity is seen through skull and electrode impedance; artifacts are not.
    g = patient["gain"] * np.asarray(patient["elec_gain"]) * ctx.brain_gain
    ctx.eeg *= g.astype(np.float32)[:, None]
    artifacts.render_physiological(ctx)
    ward.render_ward(ctx)
    eeg = np.nan_to_num(ctx.eeg, copy=False, nan=0.0, posinf=0.0, neginf=0.0)
    return Rendered(eeg=eeg, seizure_types=list(ctx.seizure_types),
                    events=sorted(ctx.events))  # fmt: skip
