"""Statistical/spectral EEG generator (``spec``).

Background: multichannel coloured Gaussian noise synthesised in the frequency domain per
component (1/f, alpha, drowsy alpha, theta, delta, beta, focal delta, amplifier floor) with
distance-decaying spatial coherence, scaled by the weights of a semi-Markov vigilance chain
(awake with reactive posterior alpha, drowsy, N2 with spindles, K-complexes and vertex waves,
N3 with delta, REM) and log-normal gain fluctuations. Seizures are waveform processes with
explicit frequency, amplitude, morphology and spatial-spread trajectories. Artifacts and
benign transients are point processes with clinically motivated rates, shapes and fields.
The code lives in :mod:`rt_eeg.xsim.spec`.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, Rendered
from rt_eeg.xsim.spec import artifacts, background, transients, vigilance
from rt_eeg.xsim.spec import geometry as geo
from rt_eeg.xsim.spec import patient as _patient
from rt_eeg.xsim.spec import seizures as _seizures
from rt_eeg.xsim.spec.signals import child

NAME = "spec"
DESCRIPTION = (
    "Spectral/statistical: coloured multichannel noise with distance-decaying coherence under a "
    "semi-Markov vigilance chain; chirping, sharpening, spreading seizure waveform processes; "
    "statistically modelled artifacts and benign transients."
)

# Seizure types after which the patient is obtunded for a while (drowsy background).
_OBTUNDING = {
    "focal_evolving_theta",
    "focal_lvfa",
    "focal_rhythmic_delta",
    "focal_periodic_evolving",
    "hypermotor_frontal",
    "focal_to_bilateral_tc",
    "gtc",
    "tonic_fast",
}


def draw_patient(rng: np.random.Generator) -> dict:
    """Draw a patient's fixed traits (JSON-serialisable dict)."""
    return _patient.draw_patient(rng)


def _recording(rng, patient: dict, duration: float) -> dict:
    """Per-recording traits: artifact load, electrode contact, bad and loose electrodes."""
    art = patient["artifacts"]
    load = art["agitation"] * float(np.exp(rng.normal(0, 0.35)))
    if rng.uniform() < 0.06:  # an agitated day: near-continuous muscle and movement
        load *= rng.uniform(4, 8)
    load = min(load, 12.0)
    line = art["line_uv"] * np.exp(rng.normal(0, 0.3)) * np.exp(rng.normal(0, 0.6, geo.N_CH))
    drift = rng.uniform(3, 15) * np.exp(rng.normal(0, 0.6, geo.N_CH))
    loose = []
    if rng.uniform() < art["loose_prob"]:
        for ch in rng.choice(geo.N_CH, size=1 + int(rng.uniform() < 0.25), replace=False):
            loose.append((int(ch), float(rng.uniform(0.3, 8))))
            line[ch] *= rng.uniform(3, 10)
            drift[ch] *= rng.uniform(2, 5)
    bad = []
    u = rng.uniform()
    n_bad = 2 if u < 0.03 else 1 if u < 0.13 else 0
    for ch in rng.choice(geo.N_CH, size=n_bad, replace=False):
        bad.append((int(ch), str(rng.choice(["flat", "noisy", "disconnected"], p=[0.4, 0.3, 0.3]))))
    return {
        "load": float(load),
        "gain": np.exp(rng.normal(0, 0.07, geo.N_CH)),
        "line_ch_uv": line,
        "drift_uv": drift,
        "loose": loose,
        "bad": bad,
        "ecg_factor": float(np.exp(rng.normal(0, 0.25))),
        "line_hz": float(art["line_hz"]),
        "pulse_ch": int(rng.integers(0, geo.N_CH)) if rng.uniform() < art["pulse_prob"] else -1,
    }


def _free_slot(rng, duration, length, busy) -> float | None:
    """Start of a random window of ``length`` s avoiding ``busy`` windows (60 s margins)."""
    for _ in range(30):
        t = rng.uniform(60.0, max(duration - length - 30.0, 60.0))
        if t + length <= duration and all(t + length + 60 < a or t > b + 60 for a, b in busy):
            return float(t)
    return None


def render(patient: dict, duration_s: float, sfreq: float, seizures, rng) -> Rendered:
    """Render one recording; see :mod:`rt_eeg.xsim.base` for the contract."""
    n = int(round(duration_s * sfreq))
    seizures = [(float(a), float(b)) for a, b in seizures]
    r_rec, r_tl, r_bg, r_tr, r_sz, r_art = (child(rng) for _ in range(6))
    rec = _recording(r_rec, patient, duration_s)
    types = [_seizures.choose_type(r_sz, patient["seizure"], b - a) for a, b in seizures]
    events: list[tuple[float, float, str]] = []

    # Procedures (routine recordings): hyperventilation and photic stimulation, done awake.
    forced, procs = [], []
    if patient["procedures"] and duration_s >= 900:
        busy = list(seizures)
        t_hv = _free_slot(r_rec, duration_s, 250.0, busy)
        if t_hv is not None:
            procs.append(("hv", t_hv, t_hv + 180.0))
            busy.append((t_hv, t_hv + 250.0))
        t_ph = _free_slot(r_rec, duration_s, 290.0, busy)
        if t_ph is not None:
            procs.append(("photic", t_ph, t_ph + 280.0))
        forced += [(a, b + 30.0, vigilance.W) for _, a, b in procs]
    for (_, b), t in zip(seizures, types, strict=True):
        if t in _OBTUNDING:
            forced.append((b, b + r_sz.uniform(60, 600), vigilance.D))
    tl = vigilance.timeline(r_tl, patient, duration_s, seizures, forced)

    out = np.zeros((len(ELECTRODES), n), np.float32)
    background.synthesize(r_bg, background.build(r_bg, patient, tl, sfreq), n, sfreq, out)
    excl = list(seizures)
    transients.sleep_graphoelements(r_tr, out, sfreq, patient, tl, excl, events)
    transients.variants(r_tr, out, sfreq, patient, tl, excl, events)
    transients.epileptiform(r_tr, out, sfreq, patient, tl, excl, events, duration_s)
    for kind, a, b in procs:
        if kind == "hv":
            transients.hyperventilation(r_tr, out, sfreq, a, b - a, patient, events)
        else:
            transients.photic(r_tr, out, sfreq, a, events)

    ictal_reqs = []
    for k, ((a, b), t) in enumerate(zip(seizures, types, strict=True)):
        nxt = seizures[k + 1][0] if k + 1 < len(seizures) else duration_s
        res = _seizures.render(r_sz, patient["seizure"], t, a, b, sfreq, out, nxt)
        ictal_reqs += res["arts"]
        events += res["events"]

    # Skull and scalp thickness, electrode contact: scale cerebral signals per electrode.
    scale = patient["background"]["amp_scale"] * np.asarray(patient["electrode_gain"]) * rec["gain"]
    out *= scale.astype(np.float32)[:, None]

    load = rec["load"]
    artifacts.eye(r_art, out, sfreq, patient, tl, events, duration_s)
    artifacts.muscle(r_art, out, sfreq, patient, tl, load, events, [(a, b) for _, a, b in procs])
    artifacts.rhythmic(r_art, out, sfreq, patient, tl, load, events, excl)
    artifacts.loose_electrodes(r_art, out, sfreq, rec, tl, events)
    artifacts.cardiac(r_art, out, sfreq, patient, rec, events, duration_s)
    artifacts.slow_drifts(r_art, out, sfreq, patient, rec, tl, events, duration_s)
    artifacts.line_noise(r_art, out, sfreq, patient, rec, events, duration_s)
    artifacts.ictal(r_art, out, sfreq, ictal_reqs, events)
    artifacts.bad_channels(r_art, out, sfreq, rec, events, duration_s)

    # A common reference: average of the good electrodes, or linked ears.
    if patient["reference"] == "LE":
        out -= 0.5 * (out[geo.IDX["A1"]] + out[geo.IDX["A2"]])[None, :]
    else:
        good = [c for c in range(geo.N_CH) if c not in {b for b, _ in rec["bad"]}]
        out -= out[good].mean(axis=0, keepdims=True)
    np.clip(out, -3000.0, 3000.0, out=out)

    for a, b, s in tl["segments"]:
        events.append((float(a), float(b), f"state_{vigilance.NAMES[s]}"))
    if load > 3:
        events.append((0.0, duration_s, "artifact_heavy"))
    events = sorted(((float(a), float(b), str(k)) for a, b, k in events), key=lambda e: e[0])
    return Rendered(eeg=np.ascontiguousarray(out, np.float32), seizure_types=types, events=events)
