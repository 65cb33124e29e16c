"""Clinical artifacts of the bedside and the ICU (family mode only).

Three artifact families that real clinical EEG holds and that differ from the rhythmic
artifacts reserved for reporting (patting: focal jolts on two to four electrodes; chewing:
bitemporal muscle bursts; sweat: very slow sways):

- ``percussion``: chest physiotherapy, bed vibration or ventilator oscillation; a mechanical
  rhythm at one stable frequency (3-8 Hz), near-sinusoidal, on many electrodes at once with
  random gain and polarity per electrode (no physiological field), switched on and off
  abruptly;
- ``pulse``: an electrode over a scalp artery; a slow sawtooth-like wave at the heart rate
  on one electrode (sometimes a neighbour at half size), for minutes;
- ``glossokinetic``: tongue movement; irregular 1-3 Hz slow waves with a bifrontal /
  frontotemporal field falling off posteriorly, awake only.

They are drawn by :func:`draw_clinical_artifacts` from a random stream of their own, after
everything else, so a recording whose allowed families exclude them is bit-identical to
what the simulator wrote before they existed.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.sim.artifacts import _band_noise, _ramp, poisson_times
from rt_eeg.sim.layout import DIST, EIDX, N_ELECTRODES, XYZ, distances_to
from rt_eeg.sim.transients import Transient

#: Chance that a recording holds each clinical artifact family (when allowed).
CLINICAL_PRESENCE: dict[str, float] = {"percussion": 0.25, "pulse": 0.3, "glossokinetic": 0.3}

#: Electrodes that lie over a scalp artery (superficial temporal, occipital), with weights.
_PULSE_SITES = {"F7": 2.0, "F8": 2.0, "T3": 2.0, "T4": 2.0, "FP1": 1.0, "FP2": 1.0,
                "T5": 1.0, "T6": 1.0, "O1": 0.7, "O2": 0.7, "A1": 0.7, "A2": 0.7,
                "F3": 0.4, "F4": 0.4}  # fmt: skip
#: Electrodes of each side of the head (``left``: y > 0; the midline goes with both).
_SIDE = {
    "left": np.flatnonzero(XYZ[:, 1] > -1e-6),
    "right": np.flatnonzero(XYZ[:, 1] < 1e-6),
    "both": np.arange(N_ELECTRODES),
}


def render_percussion(tr: Transient, sfreq: float):
    """Mechanical rhythm at ``param`` Hz (3-8, drifting by at most 2 %), a sine with a weak
    second harmonic, on every electrode of ``site`` (``left``, ``right``, ``both``) with an
    independent gain (0.25-1) and polarity each: the leads shake, no cortical field.
    ``amp`` is the peak of the largest electrode; onset and offset ramps are under 0.3 s."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    cols = _SIDE[tr.site]
    k = len(cols)
    gain = rng.uniform(0.25, 1.0, k) * rng.choice([-1.0, 1.0], k)
    gain[int(rng.integers(k))] = 1.0  # the loosest lead at full size
    t = np.arange(n) / sfreq
    # frequency drifts linearly from f0 (1 - d) to f0 (1 + d), d <= 1 %: <= 2 % in all
    d = rng.uniform(0.0, 0.01) * rng.choice([-1.0, 1.0])
    u = t / max(tr.duration, 1e-9)
    phase = 2 * np.pi * tr.param * (t + d * tr.duration * (u * u - u)) + rng.uniform(0, 2 * np.pi)
    h2 = rng.uniform(0.03, 0.15, k)  # weak 2nd harmonic, its own per lead
    psi = rng.uniform(0, 2 * np.pi, k)
    y = np.sin(phase)[:, None] + h2[None, :] * np.sin(2 * phase[:, None] + psi[None, :])
    y /= 1.0 + h2[None, :]
    env = _ramp(n, int(rng.uniform(0.03, 0.25) * sfreq))
    return cols, (tr.amp * env[:, None] * y * gain[None, :]).astype(np.float32)


def render_pulse(tr: Transient, sfreq: float):
    """Pulse artifact: a slow sawtooth at ``param`` Hz (the heart rate) with a few per cent
    of beat-to-beat jitter on the electrode ``site``, sometimes (seed) also on its nearest
    neighbour at about half size. ``amp`` is the peak-to-peak of the main electrode."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    n_beats = int(1.2 * tr.duration * tr.param) + 4  # enough even when every beat is short
    rr = (1.0 / tr.param) * np.clip(1.0 + 0.03 * rng.standard_normal(n_beats), 0.9, 1.1)
    beats = np.concatenate([[-rng.uniform(0.0, rr[0])], np.cumsum(rr)])
    beats[1:] += beats[0]
    t = np.arange(n) / sfreq
    i = np.searchsorted(beats, t, side="right") - 1
    u = (t - beats[i]) / (beats[i + 1] - beats[i])  # phase within its beat, [0, 1)
    rise = rng.uniform(0.12, 0.25)  # fast upstroke, slow (slightly curved) fall
    gamma = rng.uniform(1.0, 1.8)
    y = np.where(u < rise, np.sin(0.5 * np.pi * u / rise),
                 ((1.0 - u) / (1.0 - rise)) ** gamma)  # fmt: skip
    y = (y - y.mean()) * rng.choice([-1.0, 1.0])
    y *= _ramp(n, int(1.0 * sfreq))
    main = EIDX[tr.site]
    if rng.random() < 0.35:
        near = int(np.argsort(DIST[main])[1])
        cols, w = np.array([main, near]), np.array([1.0, rng.uniform(0.4, 0.6)])
    else:
        cols, w = np.array([main]), np.array([1.0])
    return cols, (tr.amp * y[:, None] * w[None, :]).astype(np.float32)


def render_glossokinetic(tr: Transient, sfreq: float):
    """Tongue movement: irregular 1-3 Hz slow waves (band-limited noise, one source) with a
    field largest bifrontally and frontotemporally, falling off posteriorly with distance from
    the tongue (below the front of the head). ``amp`` is the peak of the largest electrode."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    lam = rng.uniform(0.35, 0.6)
    w = (rng.uniform(0.7, 1.0) * np.exp(-distances_to("PG1") / lam)
         + rng.uniform(0.7, 1.0) * np.exp(-distances_to("PG2") / lam))  # fmt: skip
    w /= w.max()
    cols = np.flatnonzero(w > 0.05)
    y = _band_noise(rng, n, 1, 1.0, 3.0, sfreq)[:, 0] * _ramp(n, int(0.3 * sfreq))
    y /= max(np.abs(y).max(), 1e-9)
    return cols, (tr.amp * y[:, None] * w[cols][None, :]).astype(np.float32)


CLINICAL_RENDERERS = {
    "percussion": render_percussion,
    "pulse": render_pulse,
    "glossokinetic": render_glossokinetic,
}


def draw_clinical_artifacts(
    duration: float, profile, timeline, variety, rng: np.random.Generator
) -> list[Transient]:
    """The clinical artifact transients of a family-mode recording.

    Each family decides whether the recording holds it (:data:`CLINICAL_PRESENCE`, or
    always when in ``variety.require``) and draws its events from its own generator, seeded
    up front from ``rng``: one family never shifts another, and a family that is not allowed
    draws nothing.

    Parameters
    ----------
    duration : float
        Seconds.
    profile : PatientProfile
        The pulse follows the patient's heart rate.
    timeline : Timeline
        Glossokinetic artifacts happen awake only.
    variety : Variety
        Allowed and required families, activity.
    rng : np.random.Generator
        A stream used by nothing else.

    Returns
    -------
    list of Transient
        Kinds ``percussion``, ``pulse``, ``glossokinetic``.
    """
    from rt_eeg.sim.variety import own_stream_presence

    rngs, has = own_stream_presence(rng, CLINICAL_PRESENCE, variety)
    out: list[Transient] = []

    def seed(r):
        return int(r.integers(2**31))

    r = rngs["percussion"]
    if "percussion" in has:
        sides, side_p = ["both", "left", "right"], [0.5, 0.25, 0.25]
        k = int(r.integers(1, 4))
        slot = duration / k  # one episode per slot: episodes never overlap
        for i in range(k):
            d = float(min(r.uniform(10.0, 120.0), slot))
            out.append(Transient("percussion", float(i * slot + r.uniform(0.0, slot - d + 1e-3)), d,
                                 float(r.uniform(15.0, 120.0)), str(r.choice(sides, p=side_p)),
                                 seed(r), float(r.uniform(3.0, 8.0))))  # fmt: skip
    r = rngs["pulse"]
    if "pulse" in has:
        sites = list(_PULSE_SITES)
        p = np.array(list(_PULSE_SITES.values()))
        d = float(min(r.uniform(60.0, 900.0), duration))
        rate = float(np.clip(profile.heart_bpm / 60.0 * r.uniform(0.97, 1.03), 0.8, 1.6))
        out.append(Transient("pulse", float(r.uniform(0.0, duration - d + 1e-3)), d,
                             float(r.uniform(20.0, 80.0)), str(r.choice(sites, p=p / p.sum())),
                             seed(r), rate))  # fmt: skip
    r = rngs["glossokinetic"]
    if "glossokinetic" in has:
        rate = r.uniform(2.0, 8.0) / 3600.0 * variety.activity * timeline.awake
        for t in poisson_times(r, rate, duration):
            out.append(Transient("glossokinetic", float(t), float(r.uniform(2.0, 20.0)),
                                 float(r.uniform(40.0, 150.0)), "", seed(r)))  # fmt: skip
    return [tr for tr in out if tr.start < duration]
