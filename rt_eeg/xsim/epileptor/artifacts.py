"""Artifacts, added on the electrodes: eye blinks and movements, muscle (tonic, bursts,
chewing), electrode pops and drifts, sweat, ECG, mains hum, movement, rhythmic patting or
tremor, and stretches of heavy artifact."""

from __future__ import annotations

import numpy as np
from scipy import signal

from rt_eeg.xsim.base import electrode_xyz

from . import states as st
from .common import add_event, events_in, poisson_times
from .geometry import EIDX, electrode_weights

_XYZ = electrode_xyz()
#: Blink field: frontopolar, falling off backwards.
BLINK = np.exp(-np.maximum(0.0, 0.95 - _XYZ[:, 0]) / 0.22)
BLINK = BLINK / BLINK.max()
#: Horizontal eye movement field: F7 and F8 in opposite phase.
LATERAL = np.exp(-np.maximum(0.0, 0.9 - _XYZ[:, 0]) / 0.45) * _XYZ[:, 1]
LATERAL = LATERAL / np.abs(LATERAL).max()
#: Where scalp muscles (temporalis, frontalis) sit.
MUSCLE = 0.15 + np.maximum(electrode_weights("T3", 0.5), electrode_weights("T4", 0.5))
MUSCLE = np.maximum(MUSCLE, 0.8 * BLINK)


def _emg(rng, rows: int, m: int) -> np.ndarray:
    """Muscle noise: differenced white noise (energy at 20 Hz up to Nyquist), unit-ish sd."""
    x = rng.standard_normal((rows, m + 1), dtype=np.float32)
    return np.diff(x, axis=1) * np.float32(0.7)


def _blink_wave(sfreq, rng):
    d = rng.uniform(0.25, 0.45)
    t = np.arange(int(d * sfreq)) / sfreq
    return np.sin(np.pi * t / d) ** 2 * np.exp(-t / (0.8 * d))


def _saccade(sfreq, rng):
    """A step of eye position held for a while, then returning (the EOG of a glance)."""
    hold = rng.uniform(0.4, 2.0)
    t = np.arange(int((hold + 0.6) * sfreq)) / sfreq
    up = 1 - np.exp(-t / 0.015)
    down = np.where(t > hold, 1 - np.exp(-(t - hold) / 0.03), 0.0)
    return (up - down) * np.exp(-t / 3.0)


def render(p: dict, segs, n: int, sfreq: float, rng, events: list, heavy: list):
    """All artifacts of a recording, float32 ``(21, n)`` microvolts.

    Parameters
    ----------
    heavy : list of (float, float)
        Stretches of heavy artifact (dense EMG, movement, pops); chosen by the caller.
    """
    out = np.zeros((21, n), np.float32)
    dur = n / sfreq
    rates = st.per_second(segs, st.RATES, dur, smooth_s=1.0)
    a = p["artifacts"]
    # Eye blinks and lateral eye movements (waking), slow rolling (drowsy), REMs.
    tb = poisson_times(rng, rates[3] * a["blink"])
    for t in tb:
        add_event(out, sfreq, t, BLINK * rng.uniform(80, 220), _blink_wave(sfreq, rng))
    events_in(tb, 0.4, "blink", events)
    te = poisson_times(rng, rates[4] * a["eye"])
    for t in te:
        add_event(out, sfreq, t, LATERAL * rng.choice([-1, 1]) * rng.uniform(40, 140),
                  _saccade(sfreq, rng))  # fmt: skip
    events_in(te, 1.5, "eye_movement", events)
    for t in poisson_times(rng, rates[5] * a["eye"]):
        d = rng.uniform(3.0, 8.0)
        tt = np.arange(int(d * sfreq)) / sfreq
        add_event(out, sfreq, t, LATERAL * rng.uniform(40, 100), np.sin(np.pi * tt / d) ** 2
                  * np.sin(2 * np.pi * tt / d))  # fmt: skip
        events.append((round(t, 3), round(t + d, 3), "slow_eye_movement"))
    _muscle(p, segs, rates, out, sfreq, rng, events, heavy)
    _electrode(p, out, sfreq, rng, events, heavy)
    _physiological(p, out, sfreq, rng, events)
    return out


def _muscle(p, segs, rates, out, sfreq, rng, events, heavy) -> None:
    n = out.shape[1]
    a = p["artifacts"]
    # Tonic EMG, state-dependent; generated on a 1 s grid of levels to stay cheap.
    lvl = st.to_samples(rates[6] * a["emg"], n, sfreq)
    chan = (MUSCLE * rng.lognormal(0.0, 0.4, 21)).astype(np.float32)
    out += _emg(rng, 21, n) * chan[:, None] * lvl
    dur = n / sfreq
    burst_rate = st.per_second(segs, {s: (1.5 if s.startswith("awake") else 0.2,)
                                      for s in st.STATES}, dur, 1.0)[0] * a["emg"]  # fmt: skip
    for lo, hi in heavy:
        burst_rate[int(lo) : int(hi)] += 12.0
    for t in poisson_times(rng, burst_rate):
        d = rng.uniform(0.5, 6.0)
        m = int(d * sfreq)
        env = np.hanning(m).astype(np.float32) ** 0.3
        w = MUSCLE * rng.lognormal(0.0, 0.5, 21) * rng.uniform(15, 80)
        i0 = int(t * sfreq)
        j1 = min(n, i0 + m)
        if j1 > i0:
            out[:, i0:j1] += _emg(rng, 21, j1 - i0) * env[: j1 - i0] * w[:, None].astype(np.float32)
        events.append((round(t, 3), round(t + d, 3), "emg"))
    if a["chewing"] > 0:  # rhythmic bursts of temporalis activity at 1-2 Hz
        for t in poisson_times(rng, np.full(int(dur), a["chewing"])):
            d = rng.uniform(4.0, 15.0)
            f = rng.uniform(1.0, 1.8)
            m = int(d * sfreq)
            tt = np.arange(m) / sfreq
            env = (np.maximum(0, np.sin(2 * np.pi * f * tt)) ** 2).astype(np.float32)
            i0 = int(t * sfreq)
            j1 = min(n, i0 + m)
            if j1 > i0:
                amp = (MUSCLE * rng.uniform(40, 120)).astype(np.float32)[:, None]
                out[:, i0:j1] += _emg(rng, 21, j1 - i0) * env[: j1 - i0] * amp
            events.append((round(t, 3), round(t + d, 3), "chewing"))
    for lo, hi in heavy:  # movement: large slow swings with the muscle bursts
        for t in np.sort(rng.uniform(lo, hi, int(rng.integers(2, 8)))):
            movement(out, sfreq, t, rng)
            events.append((round(t, 3), round(t + 3.0, 3), "movement"))
        events.append((round(lo, 3), round(hi, 3), "heavy_artifact"))


def movement(out, sfreq, t, rng, amp: float | None = None) -> None:
    """A body movement: a 1-4 s low-frequency swing on many electrodes."""
    d = rng.uniform(1.0, 4.0)
    m = int(d * sfreq)
    tt = np.arange(m) / sfreq
    f = rng.uniform(0.4, 2.0)
    w = np.hanning(m) * np.sin(2 * np.pi * f * tt + rng.uniform(0, 6.3))
    pat = rng.normal(0, 1, 21) + rng.normal(0, 1) * _XYZ[:, 1]
    add_event(out, sfreq, t, pat * (amp or rng.uniform(60, 250)), w)


def _electrode(p, out, sfreq, rng, events, heavy) -> None:
    """Pops (sudden impedance changes) and drifts on single electrodes; sweat sway."""
    n = out.shape[1]
    dur = n / sfreq
    a = p["artifacts"]
    rate = np.full(int(np.ceil(dur)), a["pop"])
    for lo, hi in heavy:
        rate[int(lo) : int(hi)] += 6.0
    bad = int(rng.integers(21))  # pops cluster on a loose electrode
    for t in poisson_times(rng, rate):
        e = bad if rng.random() < 0.7 else int(rng.integers(21))
        m = int(rng.uniform(0.3, 1.5) * sfreq)
        w = np.exp(-np.arange(m) / (rng.uniform(0.05, 0.4) * sfreq))
        pat = np.zeros(21)
        pat[e] = rng.choice([-1, 1]) * rng.uniform(80, 500)
        add_event(out, sfreq, t, pat, w)
        events.append((round(t, 3), round(t + m / sfreq, 3), "electrode_pop"))
    for t in poisson_times(rng, np.full(int(np.ceil(dur)), a["drift"])):
        d = rng.uniform(10.0, 90.0)
        m = int(d * sfreq)
        k = max(4, int(d * 2))
        walk = np.cumsum(rng.normal(0, 1, k))
        w = np.interp(np.arange(m), np.linspace(0, m - 1, k), walk - walk[0]) * np.hanning(m)
        pat = np.zeros(21)
        pat[int(rng.integers(21))] = rng.uniform(10, 40)
        add_event(out, sfreq, t, pat, w)
        events.append((round(t, 3), round(t + d, 3), "electrode_drift"))
    for t in poisson_times(rng, np.full(int(np.ceil(dur)), a["sweat"])):
        d = rng.uniform(30.0, 240.0)
        m = int(d * sfreq)
        tt = np.arange(m) / sfreq
        f = rng.uniform(0.08, 0.35)
        w = np.hanning(m) * np.sin(2 * np.pi * f * tt + rng.uniform(0, 6.3))
        pat = electrode_weights(str(rng.choice(["F7", "F8", "T3", "T4", "FP1", "FP2"])), 0.6)
        add_event(out, sfreq, t, pat * rng.uniform(40, 150), w)
        events.append((round(t, 3), round(t + d, 3), "sweat"))
    if a["tremor"] > 0:  # rhythmic patting / tremor: sharp 3-7 Hz artefact trains
        for t in poisson_times(rng, np.full(int(np.ceil(dur)), a["tremor"])):
            d = rng.uniform(5.0, 40.0)
            f = rng.uniform(3.0, 7.0)
            m = int(d * sfreq)
            ph = 2 * np.pi * f * np.arange(m) / sfreq
            w = np.hanning(m) ** 0.3 * np.sign(np.sin(ph)) * np.abs(np.sin(ph)) ** 3
            pat = electrode_weights(str(rng.choice(["O1", "O2", "P3", "P4", "T5", "T6", "C3",
                                                     "C4"])), 0.45)  # fmt: skip
            add_event(out, sfreq, t, pat * rng.uniform(30, 140), w)
            events.append((round(t, 3), round(t + d, 3), "rhythmic_patting"))


def _physiological(p, out, sfreq, rng, events) -> None:
    """ECG (left-lateral and ear electrodes) and mains hum (every electrode, unequal)."""
    n = out.shape[1]
    a = p["artifacts"]
    if a["ecg_uv"] > 0:
        hr = a["hr_bpm"] / 60.0
        ibi = 1.0 / hr * (1 + 0.05 * np.sin(np.arange(int(n / sfreq * hr * 1.2) + 2) * 0.7))
        beats = np.cumsum(ibi * rng.normal(1.0, 0.03, ibi.size)) + rng.uniform(0, 1)
        beats = beats[beats < n / sfreq - 1]
        tt = np.arange(int(0.7 * sfreq)) / sfreq
        tmpl = (np.exp(-(((tt - 0.2) / 0.012) ** 2)) - 0.25 * np.exp(-(((tt - 0.22) / 0.015) ** 2))
                + 0.12 * np.exp(-(((tt - 0.45) / 0.05) ** 2))
                + 0.08 * np.exp(-(((tt - 0.08) / 0.03) ** 2)))  # fmt: skip
        train = np.zeros(n)
        train[(beats * sfreq).astype(int)] = 1.0
        ecg = signal.fftconvolve(train, tmpl)[:n].astype(np.float32)
        pat = 0.25 + 0.6 * np.clip(_XYZ[:, 1], 0, None) - 0.4 * _XYZ[:, 2]
        pat[EIDX["A1"]] += 0.8
        pat[EIDX["A2"]] += 0.4
        out += (pat * a["ecg_uv"]).astype(np.float32)[:, None] * ecg
        events.append((0.0, round(n / sfreq, 3), "ecg"))
    f = float(p["mains_hz"])
    t = np.arange(n) / sfreq
    amp = a["mains_uv"] * rng.lognormal(0.0, 0.6, 21)
    amp[rng.integers(21)] *= 2.5  # one high-impedance electrode
    ph = rng.uniform(0, 0.4, 21)
    drift = 1.0 + 0.3 * np.sin(2 * np.pi * t / rng.uniform(200, 900))
    for h, rel in ((1, 1.0), (3, 0.15)):
        if h * f >= sfreq / 2 - 1:
            continue
        c = np.cos(2 * np.pi * h * f * t) * drift
        s = np.sin(2 * np.pi * h * f * t) * drift
        out += (np.outer(amp * rel * np.cos(h * ph), c) - np.outer(amp * rel * np.sin(h * ph), s)
                ).astype(np.float32)  # fmt: skip
    events.append((0.0, round(n / sfreq, 3), f"mains_{int(f)}hz"))
