"""Generator ``atoms``: scalp EEG as a sum of time-frequency atoms (matching pursuit read
generatively, after Durka and Blinowska).

Every signal is a sum of atoms (Gabor atoms with Gaussian envelopes of many widths, sharp
asymmetric transients, steps and plateaus), each with a smooth field over the 21 electrodes,
placed by point processes whose rates, frequencies, widths and fields follow the vigilance
state and the patient; plus a small residual noise. Seizures are atom processes that become
regular and self-similar and evolve (frequency, amplitude, shape, spatial extent); artifacts
are atom types of their own. The parts live in :mod:`rt_eeg.xsim.atoms`:

``render``      atom waveforms and the multirate renderer
``fields``      spatial topographies
``states``      vigilance states and state-dependent Poisson processes
``patient``     a patient's traits
``background``  background rhythms and activity
``complexes``   spikes, spike-and-wave, triphasic waves, rhythmic trains
``events``      sleep graphoelements, interictal discharges, benign variants, periodic patterns
``artifacts``   eye, muscle, movement, electrode, cardiac and rhythmic artifacts
``ictal``       seizure building blocks: cycles, fields, spread, post-ictal changes
``seizures``    seizure morphologies
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.atoms import events as E
from rt_eeg.xsim.atoms import fields as F
from rt_eeg.xsim.atoms.artifacts import Muscle, add_artifacts
from rt_eeg.xsim.atoms.background import add_background
from rt_eeg.xsim.atoms.patient import draw_patient as _draw_patient
from rt_eeg.xsim.atoms.render import Scene
from rt_eeg.xsim.atoms.seizures import choose_type, render_seizure
from rt_eeg.xsim.atoms.states import Timeline
from rt_eeg.xsim.base import Rendered

NAME = "atoms"
DESCRIPTION = (
    "Atomic decomposition synthesis: Gabor atoms, transients and steps with smooth scalp "
    "fields, placed by state-dependent point processes (matching pursuit read generatively)"
)
_EARS = (F.IDX["A1"], F.IDX["A2"])


def draw_patient(rng) -> dict:
    """A patient's fixed traits (age, rhythms, epilepsy, variants, artifact habits)."""
    return _draw_patient(rng)


def _draw_recording(patient: dict, rng) -> dict:
    """Traits of one recording: artifact load, flaky electrodes, gains, line noise."""
    heavy = float(rng.uniform(3.0, 6.0)) if rng.random() < 0.2 else 1.0
    scalp = [i for i in range(F.N_CH) if i not in _EARS]
    n_flaky = int(rng.random() < (0.5 if heavy > 1 else 0.2)) + int(rng.random() < 0.1)
    return {
        "heavy": heavy,
        "flaky": [int(e) for e in rng.choice(scalp, n_flaky, replace=False)],
        "sweat": bool(
            (patient["artifacts"]["sweat"] and rng.random() < 0.6) or rng.random() < 0.03
        ),
        "ventilator": bool(patient["setting"] == "icu" and rng.random() < 0.25),
        "gain": patient["gain"] * float(rng.uniform(0.85, 1.2)),
        "electrode_gain": np.exp(0.12 * rng.standard_normal(F.N_CH)),
        "line_freq": 60.0 if rng.random() < 0.95 else 50.0,
    }


def _line_and_noise(x: np.ndarray, sfreq: float, rec: dict, rng) -> list:
    """Residual noise (amplifier, ~1 uV), mains pick-up, and the occasional bad channel."""
    n = x.shape[1]
    ev = []
    for c in range(F.N_CH):
        x[c] += rng.uniform(0.4, 1.2) * rng.standard_normal(n, dtype=np.float32)
    t = np.arange(n, dtype=np.float64) / sfreq
    amp = rng.uniform(0.1, 1.5) * np.exp(0.7 * rng.standard_normal(F.N_CH))
    if rng.random() < 0.2:
        amp[rng.choice(F.N_CH, int(rng.integers(1, 3)), replace=False)] += rng.uniform(5.0, 50.0)
        ev.append((0.0, n / sfreq, "line_noise"))
    lf = rec["line_freq"]
    # mains amplitude drifts slowly (people and equipment move around the bed)
    knots = np.exp(0.3 * rng.standard_normal(int(n / sfreq / 20) + 2))
    drift = np.interp(t, np.linspace(0, t[-1] if n else 1.0, len(knots)), knots)
    for h, rel in ((1, 1.0), (3, 0.15)):
        if h * lf < 0.45 * sfreq:
            wave = (np.sin(2 * np.pi * h * lf * t + rng.uniform(0, 6.3)) * drift * rel).astype(
                np.float32
            )
            for c in range(F.N_CH):
                x[c] += amp[c] * wave
    if rng.random() < 0.06 and n:
        e = int(rng.choice([i for i in range(F.N_CH) if i not in _EARS]))
        a = int(rng.uniform(0.0, 0.6) * n) if rng.random() < 0.5 else 0
        b = n if rng.random() < 0.6 else min(n, int(rng.uniform(a / n + 0.1, 1.0) * n))
        seg = slice(a, max(b, a + 1))
        m = seg.stop - seg.start
        mode = str(rng.choice(["disconnected", "noisy", "flat"]))
        if mode == "flat":
            x[e, seg] = x[e, seg] * 0.02 + rng.uniform(0.3, 1.0) * rng.standard_normal(m)
        else:
            walk = (
                np.cumsum(rng.standard_normal(m)) * np.sqrt(1.0 / sfreq) * rng.uniform(20.0, 80.0)
            )
            walk -= np.linspace(walk[0], walk[-1], m)
            extra = walk + rng.uniform(10.0, 40.0) * rng.standard_normal(m)
            if mode == "disconnected":
                x[e, seg] *= 0.1
                extra += rng.uniform(50.0, 300.0) * np.sin(2 * np.pi * lf * t[seg])
            x[e, seg] += extra.astype(np.float32)
        ev.append((a / sfreq, seg.stop / sfreq, f"bad_channel_{mode}_{F.ELECTRODES[e]}"))
    return ev


def render(patient: dict, duration_s: float, sfreq: float, seizures, rng) -> Rendered:
    """One recording (see :mod:`rt_eeg.xsim.base` for the contract)."""
    seizures = [(float(a), float(b)) for a, b in seizures]
    rec = _draw_recording(patient, rng)
    tl = Timeline(duration_s, patient, rng)
    scene = Scene(duration_s, sfreq)
    events: list[tuple[float, float, str]] = tl.events()
    add_background(scene, tl, patient, rng, patient["bg_amp"])
    events += E.sleep_graphoelements(scene, tl, patient, rng)
    events += E.interictal(scene, tl, patient, rng, seizures)
    events += E.benign_variants(scene, tl, patient, rng)
    events += E.periodic_patterns(scene, tl, patient, rng, seizures)
    mus = Muscle(scene, rng)
    art, saccades = add_artifacts(scene, tl, patient, rec, mus, rng)
    events += art
    if patient["variants"]["lambda"]:
        events += E.lambda_waves(scene, saccades, rng)
    types = []
    for a, b in seizures:
        stype = choose_type(patient, rng)
        types.append(stype)
        events += render_seizure(scene, mus, patient, a, b, stype, rng)
    x = scene.render()
    x *= (rec["gain"] * rec["electrode_gain"]).astype(np.float32)[:, None]
    events += _line_and_noise(x, float(sfreq), rec, rng)
    events = sorted(
        (max(0.0, float(a)), min(float(duration_s), float(b)), str(k))
        for a, b, k in events
        if b > 0 and a < duration_s
    )
    return Rendered(
        eeg=np.ascontiguousarray(x, dtype=np.float32), seizure_types=types, events=events
    )
