"""Non-cerebral signals: ocular, muscle, electrode, cardiac, mains and movement artifacts.

Episodic artifacts are drawn per state segment as Poisson events (rates per minute, scaled
by the patient's ``artifact_scale``) and returned as additive electrode-level pieces;
continuous ones (ECG, mains, 1/f amplifier noise) are produced chunk by chunk.
"""

from __future__ import annotations

import numpy as np
from scipy.signal import lfilter, oaconvolve

from rt_eeg.xsim.base import ELECTRODES

_E = {e: i for i, e in enumerate(ELECTRODES)}
#: Episodic artifact rates (per minute) by state; states not listed use ``drowsy``.
RATES = {
    "eye_blink": {"awake_eo": 12.0, "awake_ec": 0.5, "drowsy": 3.0, "arousal": 6.0},
    "lateral_eye_movement": {"awake_eo": 2.0, "awake_ec": 0.3, "rem": 5.0, "arousal": 2.0},
    "slow_eye_movement": {"drowsy": 2.0, "n1": 1.5},
    "emg": {"awake_eo": 0.8, "awake_ec": 0.4, "drowsy": 0.2, "n1": 0.1, "arousal": 4.0},
    "chewing": {"awake_eo": 0.15, "awake_ec": 0.05},
    "movement": {"awake_eo": 0.15, "awake_ec": 0.08, "drowsy": 0.05, "n1": 0.03, "n2": 0.03,
                 "n3": 0.02, "rem": 0.03, "arousal": 3.0},
    "electrode_pop": {"*": 0.3},
    "electrode_drift": {"*": 0.1},
}  # fmt: skip


def _vec(weights: dict) -> np.ndarray:
    v = np.zeros(len(ELECTRODES))
    for k, w in weights.items():
        v[_E[k]] = w
    return v


def emg_noise(n: int, sfreq: float, rng) -> np.ndarray:
    """Unit-RMS muscle noise: white noise shaped to 20 Hz .. Nyquist (peak ~60 Hz)."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1.0 / sfreq)
    spec *= (f / 20.0) ** 4 / (1.0 + (f / 20.0) ** 4) / (1.0 + (f / 150.0) ** 2)
    x = np.fft.irfft(spec, n)
    return x / (np.std(x) + 1e-12)


def emg_pattern(rng, both: bool = False) -> np.ndarray:
    """Temporalis/frontalis electrode weights, one side or both."""
    left = {"F7": 1.0, "T3": 1.0, "T5": 0.6, "A1": 0.7, "FP1": 0.4, "F3": 0.3}
    right = {"F8": 1.0, "T4": 1.0, "T6": 0.6, "A2": 0.7, "FP2": 0.4, "F4": 0.3}
    side = rng.random()
    w = _vec(left) * (1.0 if both or side < 0.5 else 0.1)
    w += _vec(right) * (1.0 if both or side >= 0.5 else 0.1)
    return w * rng.uniform(0.6, 1.4, len(ELECTRODES))


def _smooth_box(n, ramp):
    t = np.arange(n)
    r = max(int(ramp), 1)
    return np.clip(np.minimum(t + 1, n - t) / r, 0.0, 1.0)


def _one(kind: str, t0: float, pt: dict, sfreq: float, rng):
    """One artifact: (start_s, stop_s, electrode weights (21,), waveform)."""
    u = rng.uniform
    if kind == "eye_blink":
        d = u(0.2, 0.45)
        n = int(d * sfreq)
        w = np.sin(np.pi * np.arange(n) / n) ** 2 * u(80.0, 250.0)
        lr = u(0.85, 1.15)
        pat = _vec({"FP1": lr, "FP2": 1 / lr, "F3": 0.35, "F4": 0.35, "F7": 0.45, "F8": 0.45,
                    "FZ": 0.4, "C3": 0.08, "C4": 0.08, "CZ": 0.08})  # fmt: skip
    elif kind == "lateral_eye_movement":
        d = u(0.3, 1.5)
        n = int(d * sfreq)
        w = _smooth_box(n, 0.05 * sfreq) * u(40.0, 120.0) * rng.choice([-1.0, 1.0])
        pat = _vec({"F7": 1.0, "F8": -1.0, "FP1": 0.5, "FP2": -0.5, "T3": 0.25, "T4": -0.25})
    elif kind == "slow_eye_movement":
        d = u(4.0, 12.0)
        n = int(d * sfreq)
        t = np.arange(n) / sfreq
        w = np.sin(2 * np.pi * u(0.15, 0.4) * t + u(0, 6.3)) * np.sin(np.pi * t / d)
        w *= u(30.0, 100.0)
        pat = _vec({"F7": 1.0, "F8": -1.0, "FP1": 0.6, "FP2": -0.6, "T3": 0.3, "T4": -0.3})
    elif kind in ("emg", "chewing"):
        d = u(0.5, 5.0) if kind == "emg" else u(3.0, 10.0)
        n = int(d * sfreq)
        w = emg_noise(n, sfreq, rng) * _smooth_box(n, 0.1 * sfreq)
        if kind == "chewing":
            t = np.arange(n) / sfreq
            w *= np.clip(np.sin(2 * np.pi * u(1.0, 1.6) * t), 0.0, None) ** 2 * 1.8
        w *= u(20.0, 120.0) if kind == "emg" else u(50.0, 200.0)
        pat = emg_pattern(rng, both=kind == "chewing")
    elif kind == "movement":
        d = u(1.0, 6.0)
        n = int(d * sfreq)
        spec = np.fft.rfft(rng.standard_normal(n))
        f = np.fft.rfftfreq(n, 1.0 / sfreq)
        spec *= 1.0 / (1.0 + (f / 1.5) ** 4)
        w = np.fft.irfft(spec, n)
        w = w / (np.std(w) + 1e-9) * u(80.0, 300.0) * _smooth_box(n, 0.2 * sfreq)
        w += emg_noise(n, sfreq, rng) * u(20.0, 80.0) * _smooth_box(n, 0.1 * sfreq)
        pat = rng.uniform(0.3, 1.0, len(ELECTRODES)) * rng.choice([-1.0, 1.0])
    else:  # single-electrode: pops and drifts
        bad = pt["bad_electrodes"]
        e = int(rng.choice(bad)) if rng.random() < 0.7 else int(rng.integers(len(ELECTRODES)))
        pat = np.zeros(len(ELECTRODES))
        pat[e] = 1.0
        if kind == "electrode_pop":
            tau = u(0.05, 0.5)
            d = min(8.0, 5 * tau + u(0.0, 2.0))
            n = int(d * sfreq)
            t = np.arange(n) / sfreq
            w = np.zeros(n)
            for tk in np.sort(u(0.0, max(d - 5 * tau, 0.01), int(rng.integers(1, 4)))):
                k = t >= tk
                w[k] += u(100.0, 600.0) * rng.choice([-1.0, 1.0]) * np.exp(-(t[k] - tk) / tau)
        else:
            d = u(10.0, 60.0)
            n = int(d * sfreq)
            f = np.fft.rfftfreq(n, 1.0 / sfreq)
            spec = np.fft.rfft(rng.standard_normal(n)) / (1.0 + (f / 0.15) ** 4)
            w = np.fft.irfft(spec, n)
            w = w / (np.std(w) + 1e-9) * u(50.0, 250.0) * np.sin(np.pi * np.arange(n) / n)
    return t0, t0 + n / sfreq, pat, w


def draw_artifacts(segs, duration: float, pt: dict, sfreq: float, rng):
    """Episodic artifacts over the state timeline ``segs``.

    Returns
    -------
    pieces : list of (i0, pattern (21,), waveform)
    events : list of (start_s, stop_s, kind)
    """
    scale = float(pt["artifact_scale"])
    pieces, events = [], []
    for a, b, s in segs:
        for kind, rates in RATES.items():
            rate = rates.get("*", rates.get(s, rates.get("drowsy", 0.0) if "postictal" in s
                                            else 0.0))  # fmt: skip
            rate *= scale
            k = int(rng.poisson(rate * (b - a) / 60.0))
            for t0 in np.sort(rng.uniform(a, b, k)):
                t0, t1, pat, w = _one(kind, float(t0), pt, sfreq, rng)
                if t1 > duration:
                    continue
                pieces.append((int(round(t0 * sfreq)), pat, w))
                events.append((round(t0, 3), round(t1, 3), kind))
    return pieces, events


class Continuous:
    """ECG, mains and 1/f amplifier noise for consecutive chunks of one recording."""

    def __init__(self, pt: dict, n: int, sfreq: float, rng):
        self.sfreq = sfreq
        self.events = []
        duration = n / sfreq
        self.ecg = None
        if pt["ecg_uv"] > 0:
            rr = 60.0 / pt["heart_rate"]
            beats = np.cumsum(rr * rng.lognormal(0.0, 0.05, int(duration / rr * 1.2) + 4))
            beats = beats[beats < duration] - rng.uniform(0, rr)
            train = np.zeros(n)
            train[(beats[beats > 0] * sfreq).astype(int)] = 1.0
            t = np.arange(int(0.6 * sfreq)) / sfreq
            qrs = -(t - 0.05) / 0.012 * np.exp(-0.5 * ((t - 0.05) / 0.012) ** 2)
            tw = 0.3 * np.exp(-0.5 * ((t - 0.3) / 0.05) ** 2)
            self.ecg = oaconvolve(train, qrs + tw)[:n].astype(np.float32)
            self.ecg_pat = (_vec({"A1": 1.0, "T3": 0.5, "T5": 0.6, "A2": 0.45, "O1": 0.25,
                                  "T4": 0.2, "T6": 0.2, "P3": 0.15}) * pt["ecg_uv"]
                            ).astype(np.float32)  # fmt: skip
            self.events.append((0.0, round(duration, 3), "ecg"))
        self.mains = None
        fm = pt["mains_hz"]
        if pt["mains_uv"] > 0.5 and fm < 0.45 * sfreq:
            amp = pt["mains_uv"] * rng.lognormal(0.0, 0.5, len(ELECTRODES))
            amp[pt["bad_electrodes"]] *= 5.0
            self.mains = (fm, amp.astype(np.float32), rng.uniform(0, 2 * np.pi))
            self.events.append((0.0, round(duration, 3), f"mains_{fm}hz"))
        self.white = rng.uniform(0.2, 0.6, len(ELECTRODES))[:, None]
        self.pink = rng.uniform(0.7, 2.0, len(ELECTRODES))[:, None]
        poles = np.exp(-2 * np.pi * np.array([0.3, 3.0, 30.0]) / sfreq)
        self.filters = [([np.sqrt(1 - p**2) * w], [1.0, -p]) for p, w in
                        zip(poles, (1.0, 0.4, 0.1), strict=True)]  # fmt: skip
        self.zi = [np.zeros((len(ELECTRODES), 1)) for _ in poles]

    def chunk(self, i0: int, m: int, rng) -> np.ndarray:
        """Continuous artifacts for samples ``i0 .. i0 + m``, shape (21, m)."""
        x = rng.standard_normal((len(ELECTRODES), m))
        out = x * self.white
        for j, (bb, aa) in enumerate(self.filters):
            y, self.zi[j] = lfilter(bb, aa, x, axis=1, zi=self.zi[j])
            out += y * self.pink
        if self.ecg is not None:
            out += self.ecg_pat[:, None] * self.ecg[None, i0 : i0 + m]
        if self.mains is not None:
            fm, amp, ph = self.mains
            t = np.arange(i0, i0 + m) / self.sfreq
            out += amp[:, None] * np.sin(2 * np.pi * fm * t + ph)[None, :]
        return out
