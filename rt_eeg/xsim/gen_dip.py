"""``dip``: scalp EEG from a physical source model (cortical dipoles in a four-shell head).

The head is a concentric sphere of brain, CSF, skull and scalp (patient-specific size and
skull conductivity); about a thousand cortical dipoles, normal to a folded-looking cortex,
reach the 21 electrodes through the exact multi-shell lead field, so spatial spread, phase
reversals and polarity follow from physics. Background rhythms are spatially correlated
dipole fields with region-dependent spectra (occipital alpha, central mu, frontal beta and
drowsy theta, sleep delta) whose amplitudes follow a vigilance course (eyes open/closed,
drowsiness, N2 with spindles, K-complexes and vertex waves, N3, REM). Seizures are patches
of synchronised dipoles whose area grows along the cortex, possibly to the other hemisphere,
or that engage both hemispheres at once, with evolving time courses in several morphologies.
Artifacts come from physical sources too (corneoretinal dipoles, muscle dipoles outside the
skull, the tongue, the heart) and from the electrodes (impedance-dependent hum and noise,
pops, sweat, bridges, bad leads). Modules: :mod:`rt_eeg.xsim.dip`.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, Rendered
from rt_eeg.xsim.dip import artifacts, transients
from rt_eeg.xsim.dip.background import render_background
from rt_eeg.xsim.dip.electrodes import electrode_effects
from rt_eeg.xsim.dip.head import build_head
from rt_eeg.xsim.dip.ictal import render_seizures
from rt_eeg.xsim.dip.patient import draw_patient as _draw_patient
from rt_eeg.xsim.dip.recording import Recording
from rt_eeg.xsim.dip.states import plan_states

NAME = "dip"
DESCRIPTION = (
    "Physical source model: cortical dipoles in a four-shell spherical head, "
    "growing synchronised ictal patches, physically placed artifact sources"
)


def draw_patient(rng: np.random.Generator) -> dict:
    """A patient's fixed traits (head, rhythms, epilepsy, benign variants, habits).

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    dict
        JSON-serialisable traits shared by all recordings of the patient.
    """
    return _draw_patient(rng)


def _artifact_load(patient: dict, rng) -> float:
    """This recording's artifact load: the patient's proneness, the day, and now and then an
    artifact-heavy recording (restless patient, poor preparation, long ambulatory day)."""
    load = patient["habits"]["artifact_proneness"] * rng.lognormal(0.0, 0.4)
    if rng.random() < 0.18:
        load *= rng.uniform(2.0, 4.0)
    return float(load)


def render(patient: dict, duration_s: float, sfreq: float, seizures, rng) -> Rendered:
    """Render one recording.

    Parameters
    ----------
    patient : dict
        From :func:`draw_patient`.
    duration_s : float
    sfreq : float
    seizures : list of (float, float)
        Seizure intervals (s): electrographic onset and end.
    rng : numpy.random.Generator

    Returns
    -------
    Rendered
        21 potentials (µV, float32), the morphology of each seizure, the other events.
    """
    fs = float(sfreq)
    n = int(round(duration_s * fs))
    seizures = [(float(a), float(b)) for a, b in seizures]
    # Independent streams per part, so that each part is reproducible on its own.
    streams = [np.random.default_rng(s) for s in rng.integers(0, 2**63, size=8)]
    head = build_head(patient["anatomy"], streams[0])
    plan = plan_states(float(duration_s), patient, streams[1])
    bg = np.zeros((len(ELECTRODES), n), dtype=np.float32)
    other = np.zeros((len(ELECTRODES), n), dtype=np.float32)
    # 'brain' and 'extra' share one buffer: both are only ever added to.
    rec = Recording(
        fs,
        n,
        float(duration_s),
        patient,
        head,
        plan,
        _artifact_load(patient, streams[2]),
        bg,
        other,
        other,
    )
    post = patient["epilepsy"]["postictal_s"]
    rec.busy = [(a - 20.0, b + min(2 * post, 300.0)) for a, b in seizures]
    for a, b, s in plan.segments:
        rec.event(a, b, f"state_{s}")
    render_background(rec, streams[3])
    transients.sleep_elements(rec, streams[4])
    transients.procedures(rec, streams[4])
    transients.benign_variants(rec, streams[5])
    transients.interictal(rec, streams[5])
    types = render_seizures(rec, seizures, streams[6])
    art_rng = streams[7]
    artifacts.eyes(rec, art_rng)
    artifacts.muscles(rec, art_rng)
    artifacts.heart(rec, art_rng)
    artifacts.movements(rec, art_rng)
    bg += other
    rec.brain = rec.extra = other = None  # free the second buffer
    eeg = electrode_effects(rec, bg, art_rng)
    events = sorted(rec.events, key=lambda e: (e[0], e[1], e[2]))
    return Rendered(
        eeg=np.ascontiguousarray(eeg, dtype=np.float32), seizure_types=types, events=events
    )
