"""tide: scalp EEG from damped stochastic resonators driven by a hidden vigilance state
machine, with evolving-oscillator seizures, benign variants and artifacts.

The model, layer by layer (each in :mod:`rt_eeg.xsim.tide`):

- ``vigilance``: a semi-Markov chain over awake eyes open / closed, drowsy, N2, N3, REM
  and postictal states, with brief arousals and abrupt awakenings, sets a vector of
  control features (rhythm gains, alpha slowing, event rates) that follow their state's
  targets with fast or slow time constants.
- ``background``: aperiodic activity from broad latent sources; posterior alpha, beta,
  mu, theta and delta as complex one-pole resonators driven by noise, their frequency
  and gain modulated by the controls; spindles, K-complexes, vertex waves, POSTS, REM
  sawtooth waves; focal or diffuse slowing in some patients.
- ``variants``: wicket spikes, rhythmic mid-temporal theta, 14-and-6 positive spikes,
  small sharp spikes, SREDA, hypnagogic hypersynchrony, hyperventilation build-up.
- ``ictal``: interictal discharges; each seizure an oscillator whose frequency, amplitude,
  sharpness and spatial extent evolve (focal, hemispheric, low-voltage fast onset,
  subtle, spike-and-wave, polyspike, tonic-clonic), gated exactly to its interval and
  replacing the background under it; postictal slowing or suppression after it.
- ``artifacts`` (eyes, muscle, movement, chewing, patting, tremor, ECG, pulse) and
  ``recording`` (electrode pops, drift, sweat, impedance gains and noise, mains, high-pass).

Fields on the 21 electrodes come from the 10-20 geometry (von Mises-Fisher profiles for
cortical patches, dipoles for the eyes and heart).
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, Rendered
from rt_eeg.xsim.tide import artifacts, background, ictal, patient, recording, variants
from rt_eeg.xsim.tide import vigilance as vigil

NAME = "tide"
DESCRIPTION = ("noise-driven damped resonators gated by a hidden vigilance state machine, "
               "evolving-oscillator seizures, benign variants and artifacts on 10-20 fields")  # fmt: skip


def draw_patient(rng: np.random.Generator) -> dict:
    """A patient's fixed traits (JSON-serialisable); see :func:`rt_eeg.xsim.tide.patient.draw`."""
    return patient.draw(rng)


def render(
    patient: dict,
    duration_s: float,
    sfreq: float,
    seizures: list[tuple[float, float]],
    rng: np.random.Generator,
) -> Rendered:
    """Render one recording.

    Parameters
    ----------
    patient : dict
        From :func:`draw_patient`.
    duration_s : float
    sfreq : float
    seizures : list of (float, float)
        Sorted, disjoint seizure intervals, seconds.
    rng : numpy.random.Generator

    Returns
    -------
    Rendered
        ``eeg`` float32, shape (21, round(duration_s * sfreq)), microvolts.
    """
    n = int(round(duration_s * sfreq))
    fs = float(sfreq)
    # independent streams per layer, drawn from the caller's stream (pure in its state)
    # (a seizure changes what comes after it, never what comes before: streams do not share)
    streams = [np.random.default_rng(int(s)) for s in rng.integers(0, 2**63 - 1, size=8)]
    r_vig, r_bg, r_var, r_ied, r_ict, r_art, r_rec, r_misc = streams
    seizures = [(float(a), float(b)) for a, b in seizures]
    sz_tr = patient["seizure"]
    amp = patient["scale"] * float(r_misc.lognormal(0.0, 0.15))
    post = [sz_tr["post_s"] * float(r_misc.lognormal(0.0, 0.3)) for _ in seizures]
    vig = vigil.simulate(duration_s, seizures, post, patient["sleepiness"], r_vig)
    out = np.zeros((len(ELECTRODES), n), dtype=np.float32)
    events = background.render(out, patient, amp, vig, fs, r_bg)
    events += variants.render(out, patient, amp, vig, fs, seizures, r_var)
    # interictal discharges are activated by sleep
    rate = np.choose(vig.state, [1.0, 1.0, 1.5, 2.5, 3.0, 0.5, 0.3])
    events += ictal.interictal(out, sz_tr, rate, vigil.DT, fs, seizures, r_ied, amp)
    types = []
    for (a, b), p in zip(seizures, post, strict=True):
        kind, ev = ictal.render_seizure(out, a, b, sz_tr, fs, r_ict, amp)
        types.append(kind)
        events += ev
        nxt = min([s for s, _e in seizures if s > b], default=duration_s)
        events += ictal.postictal(out, b, sz_tr, min(p, nxt - b), fs, r_ict, amp)
    events += artifacts.render(out, patient, amp, vig, fs, r_art)
    events += recording.render(out, patient, fs, r_rec)
    np.nan_to_num(out, copy=False)
    events = sorted((float(a), float(min(b, duration_s)), str(k)) for a, b, k in events
                    if a < duration_s)  # fmt: skip
    return Rendered(eeg=out, seizure_types=types, events=events)
