"""Non-cerebral signals, added in electrode space.

Eye blinks and eye movements (frontal, state dependent), muscle (EMG) bursts and chewing,
movement, electrode pops, slow drifts and sweat, rhythmic patting or tremor, ECG and mains
hum. Rates depend on the vigilance state and rise inside a few stretches of heavy artifact.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from rt_eeg.xsim.base import ELECTRODES
from rt_eeg.xsim.hopf.geometry import EIDX, electrode_point, topography


def _topo(weights: dict[str, float], floor: float = 0.0) -> np.ndarray:
    v = np.full(len(ELECTRODES), floor)
    for e, w in weights.items():
        v[EIDX[e]] = w
    return v


BLINK = _topo({"FP1": 1, "FP2": 1, "F3": 0.3, "F4": 0.3, "FZ": 0.35, "F7": 0.4, "F8": 0.4,
               "C3": 0.08, "C4": 0.08, "CZ": 0.08}, 0.02)
LATERAL = _topo({"F7": 1, "F8": -1, "FP1": 0.45, "FP2": -0.45, "T3": 0.3, "T4": -0.3,
                 "F3": 0.15, "F4": -0.15})
MUSCLE = {
    "left": _topo({"F7": 1, "T3": 1, "T5": 0.6, "A1": 0.8, "FP1": 0.3, "F3": 0.2}),
    "right": _topo({"F8": 1, "T4": 1, "T6": 0.6, "A2": 0.8, "FP2": 0.3, "F4": 0.2}),
    "frontal": _topo({"FP1": 1, "FP2": 1, "F7": 0.5, "F8": 0.5, "F3": 0.3, "F4": 0.3}),
}
MUSCLE["both"] = np.maximum(MUSCLE["left"], MUSCLE["right"])
ECG = _topo({"A1": 1, "A2": -0.5, "T3": 0.45, "T5": 0.55, "O1": 0.35, "P3": 0.25, "T4": -0.2,
             "T6": -0.25, "C3": 0.15})

#: kind: rate per minute by state (awake_ec, awake_eo, n1, n2, n3, rem), heavy multiplier
RATES = {
    "blink": ((3, 15, 1.5, 0, 0, 0), 3),
    "eye_movement": ((1, 6, 0, 0, 0, 6), 3),
    "slow_eye_movement": ((0, 0, 2, 0.2, 0, 0), 1),
    "emg": ((0.6, 0.8, 0.2, 0.1, 0.05, 0.05), 8),
    "chewing": ((0.05, 0.08, 0, 0, 0, 0), 4),
    "movement": ((0.2, 0.25, 0.1, 0.08, 0.04, 0.04), 8),
    "pop": ((0.15,) * 6, 3),
    "drift": ((0.06,) * 6, 3),
    "patting": ((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), 1),
}


def _rate_at(t: np.ndarray, seg_t0, seg_st, heavy, kind: str, patient: dict) -> np.ndarray:
    base, mult = RATES[kind]
    idx = np.clip(np.searchsorted(seg_t0, t, side="right") - 1, 0, len(seg_t0) - 1)
    r = np.asarray(base, float)[seg_st[idx]]
    if kind == "patting":
        r = np.full(t.shape, patient["patting_rate"])
    if kind in ("emg", "chewing", "movement"):
        r = r * patient["emg_level"]
    r = r * patient["artifact_level"]
    for a, b in heavy:
        r[(t >= a) & (t < b)] *= mult
    return r


def _hp_noise(n: int, sfreq: float, lo: float, rng) -> np.ndarray:
    sos = signal.butter(4, [lo, min(0.45 * sfreq, 150.0)], btype="band", fs=sfreq, output="sos")
    return signal.sosfilt(sos, rng.standard_normal(n + 64))[64:]


def _lp_noise(n: int, sfreq: float, hi: float, rng) -> np.ndarray:
    sos = signal.butter(2, hi, fs=sfreq, output="sos")
    y = signal.sosfiltfilt(sos, rng.standard_normal(n))
    return y / (np.std(y) + 1e-12)


def _taper(n: int, frac: float = 0.1) -> np.ndarray:
    return signal.windows.tukey(n, frac) if n > 2 else np.ones(n)


def _one(kind: str, sfreq: float, patient: dict, rng, force_dur: float | None = None):
    """One artifact: (duration_s, (21, L) waveform)."""
    if kind == "blink":
        d = rng.uniform(0.25, 0.5)
        tt = np.arange(int(d * sfreq)) / sfreq
        w = np.sin(np.pi * tt / d) ** 2 * (1 + 0.3 * np.sin(np.pi * tt / d))
        return d, BLINK[:, None] * rng.uniform(70, 220) * w[None]
    if kind == "eye_movement":
        d = rng.uniform(0.5, 2.5)
        m = int(d * sfreq)
        step = np.clip(np.arange(m) / (0.04 * sfreq), 0, 1) * np.clip((m - np.arange(m)) /
                                                                      (0.04 * sfreq), 0, 1)
        return d, LATERAL[:, None] * rng.choice([-1, 1]) * rng.uniform(30, 90) * step[None]
    if kind == "slow_eye_movement":
        d = rng.uniform(2, 8)
        m = int(d * sfreq)
        w = np.sin(np.pi * np.arange(m) / m) * np.sin(2 * np.pi * rng.uniform(0.15, 0.4) *
                                                      np.arange(m) / sfreq)
        return d, LATERAL[:, None] * rng.uniform(40, 110) * w[None]
    if kind in ("emg", "chewing"):
        d = force_dur or (rng.uniform(5, 20) if kind == "chewing" else rng.lognormal(1.0, 0.8))
        m = int(d * sfreq)
        topo = MUSCLE[str(rng.choice(["left", "right", "frontal", "both"]))]
        if kind == "chewing":
            topo = MUSCLE["both"]
        amp = rng.uniform(8, 45) * (1.8 if force_dur else 1.0)
        noise = np.stack([_hp_noise(m, sfreq, 25.0, rng) for _ in range(3)])
        mix = rng.random((len(ELECTRODES), 3))  # a few muscles, mixed differently per channel
        env = 1 + 0.5 * _lp_noise(m, sfreq, 2.0, rng)
        if kind == "chewing":
            rate = rng.uniform(0.8, 1.6)
            env = np.clip(np.sin(2 * np.pi * rate * np.arange(m) / sfreq), 0, None) ** 2 * 2.5
        w = (topo[:, None] * (mix @ noise)) * (amp * np.clip(env, 0, None) * _taper(m))[None]
        return d, w
    if kind == "movement":
        d = rng.uniform(1, 8)
        m = int(d * sfreq)
        slow = np.stack([_lp_noise(m, sfreq, 2.5, rng) for _ in range(2)])
        w = rng.standard_normal((len(ELECTRODES), 2)) @ slow * rng.uniform(40, 150)
        w += _one("emg", sfreq, patient, rng, force_dur=d)[1][:, :m] * 0.8
        return d, w * _taper(m, 0.3)[None]
    if kind == "pop":
        d = rng.uniform(0.5, 2.0)
        m = int(d * sfreq)
        bad = patient["bad_electrodes"] or ["T3"]
        e = str(rng.choice(bad)) if rng.random() < 0.7 else str(rng.choice(ELECTRODES))
        tt = np.arange(m) / sfreq
        w = np.zeros((len(ELECTRODES), m))
        w[EIDX[e]] = rng.choice([-1, 1]) * rng.uniform(80, 400) * np.exp(-tt / rng.uniform(0.1,
                                                                                         0.5))
        return d, w
    if kind == "drift":
        d = rng.uniform(20, 200)
        m = int(d * sfreq)
        c = electrode_point(str(rng.choice(ELECTRODES)))
        topo = topography(c, rng.uniform(0.2, 0.6)) * rng.choice([-1, 1], len(ELECTRODES),
                                                                 p=[0.2, 0.8])
        w = _lp_noise(m, sfreq, rng.uniform(0.05, 0.3), rng) * rng.uniform(25, 120)
        return d, topo[:, None] * (w * _taper(m, 0.2))[None]
    if kind == "patting":
        d = rng.uniform(5, 60)
        m = int(d * sfreq)
        rate = rng.uniform(1.5, 3.5) if patient["age_group"] == "child" else rng.uniform(4, 7)
        ph = 2 * np.pi * rate * np.arange(m) / sfreq + 0.3 * _lp_noise(m, sfreq, 0.3, rng)
        w = np.exp(4 * (np.cos(ph) - 1)) - np.exp(-4)
        c = electrode_point(str(rng.choice(ELECTRODES)))
        topo = topography(c, rng.uniform(0.3, 0.8)) * rng.uniform(20, 90)
        return d, topo[:, None] * (w * _taper(m, 0.1))[None]
    raise ValueError(kind)


def add(x: np.ndarray, sfreq: float, segs, duration: float, patient: dict,
        rng: np.random.Generator, emg_windows: list[tuple[float, float]]):
    """Draw artifacts and add them to ``x`` (shape (21, n_samples), microvolts), in place.

    ``emg_windows`` are stretches of forced heavy muscle (seizures obscured by it).

    Returns
    -------
    list of (start_s, stop_s, kind)
    """
    n = x.shape[1]
    seg_t0 = np.array([sg[0] for sg in segs])
    seg_st = np.array([sg[1] for sg in segs])
    events: list[tuple[float, float, str]] = []
    heavy = []
    for _ in range(rng.poisson(1.2 * patient["artifact_level"] * duration / 3600)):
        a = rng.uniform(0, duration)
        heavy.append((a, a + rng.uniform(30, 180)))
        events.append((a, min(heavy[-1][1], duration), "heavy_artifact"))
    todo = []
    for kind, (base, mult) in RATES.items():
        top = max(max(base), patient["patting_rate"] if kind == "patting" else 0.0)
        top *= mult * patient["artifact_level"] * (patient["emg_level"] if kind in
                                                  ("emg", "chewing", "movement") else 1)
        if top <= 0:
            continue
        cand = np.sort(rng.uniform(0, duration, rng.poisson(top * duration / 60)))
        keep = rng.random(cand.size) * top < _rate_at(cand, seg_t0, seg_st, heavy, kind, patient)
        todo += [(float(t), kind) for t in cand[keep]]
    _continuous(x, sfreq, patient, rng)
    # Forced muscle last: the draws before it do not depend on the seizures.
    todo += [(a, "emg_forced", b - a) for a, b in emg_windows]
    for item in todo:
        t, kind = item[0], item[1]
        if kind == "emg_forced":
            d, w = _one("emg", sfreq, patient, rng, force_dur=item[2])
            kind = "emg"
        else:
            d, w = _one(kind, sfreq, patient, rng)
        i0 = int(t * sfreq)
        m = min(w.shape[1], n - i0)
        if m <= 0:
            continue
        x[:, i0:i0 + m] += w[:, :m].astype(np.float32)
        events.append((t, min(t + d, duration), kind))
    return events


def _continuous(x: np.ndarray, sfreq: float, patient: dict, rng) -> None:
    """ECG and mains hum, the whole recording."""
    n = x.shape[1]
    hr = patient["heart_bpm"] / 60.0
    if patient["ecg_uv"] > 0:
        n_beats = int(n / sfreq * hr * 1.3) + 2
        ibi = (1 / hr) * (1 + 0.05 * rng.standard_normal(n_beats))
        beats = np.cumsum(np.clip(ibi, 0.3, 2.0)) - rng.uniform(0, 1 / hr)
        tt = np.arange(int(0.6 * sfreq)) / sfreq
        qrs = (np.exp(-(((tt - 0.1) / 0.012) ** 2)) - 0.25 * np.exp(-(((tt - 0.125) / 0.015) **
                                                                       2))
               + 0.2 * np.exp(-(((tt - 0.38) / 0.06) ** 2)))
        trace = np.zeros(n + qrs.size)
        for b in beats:
            i = int(b * sfreq)
            if 0 <= i < n:
                trace[i:i + qrs.size] += qrs
        trace = (trace[:n] * patient["ecg_uv"]).astype(np.float32)
        for c in np.flatnonzero(ECG):
            x[c] += ECG[c] * trace
    f = patient["mains_hz"]
    tt = np.arange(n) / sfreq
    s = np.sin(2 * np.pi * f * tt).astype(np.float32)
    co = np.cos(2 * np.pi * f * tt).astype(np.float32)
    mod = (1 + 0.3 * np.sin(2 * np.pi * tt / rng.uniform(60, 600))).astype(np.float32)
    amps = patient["mains_uv"] * rng.uniform(0.3, 1.5, len(ELECTRODES))
    for e in patient["bad_electrodes"]:
        amps[EIDX[e]] *= rng.uniform(4, 12)
    phases = rng.uniform(0, 2 * np.pi, len(ELECTRODES))
    for c in range(len(ELECTRODES)):
        x[c] += (amps[c] * (np.cos(phases[c]) * s + np.sin(phases[c]) * co)) * mod
