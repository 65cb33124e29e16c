"""Artifacts that fool naive detectors.

Eye blinks and eye movements (frontal, FP1/FP2 dominant), muscle bursts (20-70 Hz,
temporal or frontal), chewing (rhythmic 1-2 Hz bursts of muscle), electrode pops and slow
sway on single electrodes, ECG contamination of the ear and temporal leads, 50/60 Hz line
noise and electrodes that go flat or rail for a while; in family mode also sweat, movement
and rhythmic patting / tremor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.fft

from rt_eeg.sim.background import CTRL_SFREQ, Timeline, lowpass_noise
from rt_eeg.sim.layout import EIDX, ELECTRODES, N_ELECTRODES, distances_to, position
from rt_eeg.sim.profile import PatientProfile
from rt_eeg.sim.transients import Transient

_ALL = np.arange(N_ELECTRODES)

# eye dipoles: potentials fall off with distance from the eyes
_EYE_L = np.exp(-distances_to("EYE_L") / 0.45)
_EYE_R = np.exp(-distances_to("EYE_R") / 0.45)
_EYE_V = 0.5 * (_EYE_L + _EYE_R) / (0.5 * (_EYE_L + _EYE_R))[EIDX["FP1"]]
_EYE_H = (_EYE_L - _EYE_R) / (_EYE_L - _EYE_R)[EIDX["F7"]]

#: Regions of muscle artifact: electrode -> relative weight.
MUSCLE_REGIONS: dict[str, dict[str, float]] = {
    "left": {"F7": 1.0, "T3": 1.0, "T5": 0.6, "A1": 0.8, "FP1": 0.3, "F3": 0.2, "C3": 0.15},
    "right": {"F8": 1.0, "T4": 1.0, "T6": 0.6, "A2": 0.8, "FP2": 0.3, "F4": 0.2, "C4": 0.15},
    "frontal": {"FP1": 1.0, "FP2": 1.0, "F7": 0.7, "F8": 0.7, "F3": 0.4, "F4": 0.4, "FZ": 0.3},
    "both": {"F7": 0.9, "T3": 1.0, "T5": 0.5, "A1": 0.7, "F8": 0.9, "T4": 1.0, "T6": 0.5,
             "A2": 0.7, "FP1": 0.3, "FP2": 0.3},
}  # fmt: skip


def _band_noise(rng: np.random.Generator, n: int, k: int, lo: float, hi: float, sfreq: float):
    """``(n, k)`` unit-rms Gaussian noise band-limited to [lo, hi] Hz (FFT mask)."""
    nfft = scipy.fft.next_fast_len(n, real=True)  # noise is made longer, then cut to n
    x = rng.standard_normal((k, nfft), dtype=np.float32)
    spec = scipy.fft.rfft(x, axis=1)
    f = np.fft.rfftfreq(nfft, 1.0 / sfreq)
    hi = min(hi, 0.45 * sfreq)
    spec *= ((f >= lo) & (f <= hi))[None, :]
    y = scipy.fft.irfft(spec, nfft, axis=1)[:, :n]
    y /= np.maximum(y.std(axis=1, keepdims=True), 1e-9)
    return y.T


def _ramp(n: int, n_edge: int) -> np.ndarray:
    """``(n,)`` window: raised-cosine edges of ``n_edge`` samples, flat in between."""
    w = np.ones(n)
    m = max(1, min(n_edge, n // 2))
    edge = 0.5 - 0.5 * np.cos(np.pi * np.arange(m) / m)
    w[:m] = edge
    w[n - m :] = edge[::-1]
    return w


def render_blink(tr: Transient, sfreq: float):
    n = max(2, int(tr.duration * sfreq))
    x = np.arange(n) / n
    y = np.sin(np.pi * x**0.75) ** 2  # fast rise, slower fall
    return _ALL, (tr.amp * y[:, None] * _EYE_V[None, :]).astype(np.float32)


def render_saccade(tr: Transient, sfreq: float):
    """Horizontal eye movement: look aside (step with a 1 s high-pass decay), look back."""
    n = max(4, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    hold = max(0.2, tr.duration - 0.4)

    def step(u):
        return 0.5 + 0.5 * np.tanh(u / 0.015)

    y = step(t - 0.05) * np.exp(-np.clip(t - 0.05, 0, None) / 1.0)
    y -= step(t - 0.05 - hold) * np.exp(-np.clip(t - 0.05 - hold, 0, None) / 1.0) * math.exp(-hold)
    y -= y[-1] * np.linspace(0.0, 1.0, n)  # end at zero
    return _ALL, (tr.amp * y[:, None] * _EYE_H[None, :]).astype(np.float32)


def render_roving(tr: Transient, sfreq: float):
    """Slow lateral eye movements of drowsiness (0.2-0.4 Hz)."""
    n = max(4, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    y = np.sin(2 * np.pi * tr.param * t + tr.seed % 7) * np.hanning(n)
    return _ALL, (tr.amp * y[:, None] * _EYE_H[None, :]).astype(np.float32)


def _region(site: str) -> tuple[np.ndarray, np.ndarray]:
    reg = MUSCLE_REGIONS[site]
    return np.array([EIDX[e] for e in reg]), np.array(list(reg.values()))


def render_muscle(tr: Transient, sfreq: float):
    """Burst of scalp muscle activity: independent 20-70 Hz noise on each electrode."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    cols, w = _region(tr.site)
    w = w * rng.uniform(0.5, 1.0, len(w))
    y = _band_noise(rng, n, len(cols), 20.0, 70.0, sfreq)
    env = _ramp(n, int(rng.uniform(0.05, 0.3) * sfreq))
    env *= np.exp(0.4 * _band_noise(rng, n, 1, 0.2, 2.0, sfreq)[:, 0])
    return cols, (tr.amp * env[:, None] * y * w[None, :]).astype(np.float32)


def render_chew(tr: Transient, sfreq: float):
    """Chewing: muscle bursts at ``param`` Hz (1-2) on both temporal regions."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    cols, w = _region("both")
    t = np.arange(n) / sfreq
    phase = 2 * np.pi * tr.param * t * (1 + 0.05 * np.sin(2 * np.pi * 0.2 * t))
    gate = np.clip(np.cos(phase), 0.0, None) ** 3
    y = _band_noise(rng, n, len(cols), 20.0, 90.0, sfreq) * gate[:, None]
    y += 0.15 * np.sin(phase)[:, None]  # slow glossokinetic / movement component
    env = _ramp(n, int(0.3 * sfreq))
    return cols, (tr.amp * env[:, None] * y * w[None, :]).astype(np.float32)


def render_pop(tr: Transient, sfreq: float):
    """Electrode pop: sudden steps with exponential decay on one electrode."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    y = np.zeros(n)
    t = np.arange(n) / sfreq
    for _ in range(int(rng.integers(1, 6))):
        t0 = rng.uniform(0.0, max(tr.duration - 0.3, 0.01))
        tau = rng.uniform(0.08, 0.6)
        k = t >= t0
        y[k] += rng.choice([-1.0, 1.0]) * rng.uniform(0.4, 1.0) * np.exp(-(t[k] - t0) / tau)
    return np.array([EIDX[tr.site]]), (tr.amp * y[:, None]).astype(np.float32)


def render_sway(tr: Transient, sfreq: float):
    """Slow sway / sweat on a few neighbouring electrodes (0.1-0.5 Hz, large)."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    d = distances_to(tr.site)
    cols = np.flatnonzero(d < 0.7)
    w = np.exp(-((d[cols] / 0.4) ** 2))
    y = _band_noise(rng, n, 1, 0.08, 0.5, sfreq)[:, 0] * np.hanning(n)
    return cols, (tr.amp * y[:, None] * w[None, :]).astype(np.float32)


def render_sweat(tr: Transient, sfreq: float):
    """Sweat: very slow (0.03-0.15 Hz), large sways over a region of several electrodes."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    d = distances_to(tr.site)
    cols = np.flatnonzero(d < 0.9)
    w = np.exp(-((d[cols] / 0.6) ** 2)) * rng.uniform(0.7, 1.0, len(cols))
    y = _band_noise(rng, n, 2, 0.03, 0.15, sfreq)
    mix = np.stack([np.ones(len(cols)), rng.uniform(-0.5, 0.5, len(cols))])
    env = _ramp(n, int(0.2 * n))
    return cols, (tr.amp * env[:, None] * (y @ mix) * w[None, :]).astype(np.float32)


def render_movement(tr: Transient, sfreq: float):
    """Head or body movement: large irregular slow swings on many electrodes, each its own
    (leads and contacts move independently), with a muscle burst."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    d = distances_to(tr.site)
    cols = np.flatnonzero(d < rng.uniform(0.8, 1.6))
    k = len(cols)
    slow = _band_noise(rng, n, k, 0.3, 3.0, sfreq) * rng.uniform(0.3, 1.0, k)[None, :]
    fast = _band_noise(rng, n, k, 20.0, 70.0, sfreq) * rng.uniform(0.1, 0.35, k)[None, :]
    env = _ramp(n, int(0.3 * sfreq)) * np.exp(0.4 * _band_noise(rng, n, 1, 0.2, 1.0, sfreq)[:, 0])
    return cols, (tr.amp * env[:, None] * (slow + fast)).astype(np.float32)


def render_patting(tr: Transient, sfreq: float):
    """Rhythmic patting / tremor: a jolt of the leads every 1/``param`` s (2-8 Hz), large
    and sharp, on the electrode ``site`` and one to three neighbours."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    d = distances_to(tr.site)
    cols = np.argsort(d)[: int(rng.integers(2, 5))]
    sign = rng.choice([-1.0, 1.0], len(cols)) * rng.uniform(0.5, 1.0, len(cols))
    sign[0] = np.sign(sign[0])  # the patted electrode at full size
    tk = np.arange(int(0.4 * sfreq)) / sfreq
    tau1, tau2 = rng.uniform(0.04, 0.12), rng.uniform(0.008, 0.02)
    kern = np.exp(-tk / tau1) - np.exp(-tk / tau2)
    kern /= np.abs(kern).max()
    kern -= 0.25 * np.exp(-0.5 * ((tk - 2.5 * tau1) / tau1) ** 2)  # rebound
    imp = np.zeros(n)
    t = float(rng.uniform(0.0, 0.2))
    while t < tr.duration - 0.1:
        imp[int(t * sfreq)] = rng.uniform(0.75, 1.0)
        t += (1.0 / tr.param) * float(np.clip(1.0 + 0.06 * rng.standard_normal(), 0.8, 1.2))
    y = np.convolve(imp, kern)[:n] * _ramp(n, int(0.5 * sfreq))
    return cols, (tr.amp * y[:, None] * sign[None, :]).astype(np.float32)


ARTIFACT_RENDERERS = {
    "sweat": render_sweat,
    "movement": render_movement,
    "patting": render_patting,
    "blink": render_blink,
    "saccade": render_saccade,
    "roving": render_roving,
    "muscle": render_muscle,
    "chew": render_chew,
    "pop": render_pop,
    "sway": render_sway,
}


def poisson_times(rng: np.random.Generator, rate: np.ndarray, duration: float) -> np.ndarray:
    """Event times (s) of an inhomogeneous Poisson process by thinning.

    Parameters
    ----------
    rate : np.ndarray
        ``(n_ctrl,)`` events per second at :data:`CTRL_SFREQ`.
    """
    peak = float(np.max(rate)) if len(rate) else 0.0
    if peak <= 0 or duration <= 0:
        return np.zeros(0)
    t = np.sort(rng.uniform(0.0, duration, rng.poisson(peak * duration)))
    idx = np.minimum((t * CTRL_SFREQ).astype(int), len(rate) - 1)
    return t[rng.random(len(t)) < rate[idx] / peak]


def draw_artifacts(
    duration: float, profile: PatientProfile, timeline: Timeline, rng: np.random.Generator
) -> list[Transient]:
    """Draw the artifact transients of one recording (rates follow the behavioural state)."""
    p, tl = profile, timeline
    open_awake = tl.awake * (1.0 - tl.eyes_closed)
    out: list[Transient] = []

    def seeds(k):
        return rng.integers(0, 2**31, k)

    rate = p.blink_rate / 60.0 * open_awake + 0.03 * tl.awake * tl.eyes_closed + 0.02 * tl.drowsy
    t = poisson_times(rng, rate, duration)
    amp = p.blink_uv * rng.lognormal(0.0, 0.25, len(t))
    dur = rng.uniform(0.22, 0.45, len(t))
    out += [
        Transient("blink", float(a), float(d), float(b))
        for a, d, b in zip(t, dur, amp, strict=True)
    ]

    t = poisson_times(rng, 0.15 * open_awake, duration)
    sign = rng.choice([-1.0, 1.0], len(t))
    amp = sign * rng.uniform(40.0, 140.0, len(t))
    dur = rng.uniform(0.6, 2.5, len(t))
    out += [
        Transient("saccade", float(a), float(d), float(b))
        for a, d, b in zip(t, dur, amp, strict=True)
    ]

    t = poisson_times(rng, 0.02 * tl.drowsy, duration)
    for a, s in zip(t, seeds(len(t)), strict=True):
        out.append(Transient("roving", float(a), float(rng.uniform(4, 15)), float(rng.uniform(30, 90)),
                             "", int(s), float(rng.uniform(0.2, 0.4))))  # fmt: skip

    t = poisson_times(rng, p.muscle_rate / 60.0 * (tl.awake + 0.3 * tl.drowsy), duration)
    for a, s in zip(t, seeds(len(t)), strict=True):
        site = str(rng.choice(list(MUSCLE_REGIONS), p=[0.3, 0.3, 0.2, 0.2]))
        out.append(Transient("muscle", float(a), float(rng.lognormal(np.log(1.5), 0.7)),
                             float(rng.uniform(15, 80)), site, int(s)))  # fmt: skip

    t = poisson_times(rng, p.chew_rate / 60.0 * tl.awake, duration)
    for a, s in zip(t, seeds(len(t)), strict=True):
        out.append(Transient("chew", float(a), float(rng.uniform(3, 15)), float(rng.uniform(40, 160)),
                             "both", int(s), float(rng.uniform(1.0, 2.0))))  # fmt: skip

    t = poisson_times(rng, np.full(len(tl.awake), p.pop_rate / 60.0), duration)
    for a, s in zip(t, seeds(len(t)), strict=True):
        out.append(Transient("pop", float(a), float(rng.uniform(0.5, 8.0)), float(rng.uniform(50, 400)),
                             str(rng.choice(ELECTRODES)), int(s)))  # fmt: skip

    t = poisson_times(rng, np.full(len(tl.awake), 0.1 / 60.0), duration)
    for a, s in zip(t, seeds(len(t)), strict=True):
        out.append(Transient("sway", float(a), float(rng.uniform(10, 60)), float(rng.uniform(15, 50)),
                             str(rng.choice(ELECTRODES)), int(s)))  # fmt: skip
    return [tr for tr in out if tr.start < duration]


def draw_more_artifacts(duration: float, timeline: Timeline, variety, rng) -> list[Transient]:
    """Family-mode artifacts beyond the classic ones: sweat, longer drifts, movement and
    patting / tremor, for the families ``variety`` holds."""
    from rt_eeg.sim.variety import family_rngs

    tl, act, has, out = timeline, variety.activity, variety.present, []
    rngs = family_rngs(rng, ("sweat", "drift", "movement", "patting"))

    def seed():
        return int(rng.integers(2**31))

    rng = rngs["sweat"]
    if "sweat" in has:
        for _ in range(int(rng.integers(1, 4))):
            d = float(min(rng.uniform(30.0, 300.0), duration))
            out.append(Transient("sweat", float(rng.uniform(0.0, duration - d + 1e-3)), d,
                                 float(rng.uniform(80.0, 300.0)),
                                 str(rng.choice(["FP1", "FP2", "F7", "F8", "T3", "T4", "FZ"])), seed()))  # fmt: skip
    rng = rngs["drift"]
    if "drift" in has:
        for _ in range(int(rng.integers(1, 5))):
            d = float(min(rng.uniform(20.0, 120.0), duration))
            out.append(Transient("sway", float(rng.uniform(0.0, duration - d + 1e-3)), d,
                                 float(rng.uniform(30.0, 150.0)), str(rng.choice(ELECTRODES)), seed()))  # fmt: skip
    rng = rngs["movement"]
    if "movement" in has:
        rate = 0.3 / 60.0 * act * (tl.awake + 0.3 * tl.drowsy + 0.1 * tl.sleep)
        for t in poisson_times(rng, rate, duration):
            out.append(Transient("movement", float(t), float(rng.uniform(1.0, 10.0)),
                                 float(rng.uniform(80.0, 400.0)), str(rng.choice(ELECTRODES)), seed()))  # fmt: skip
    rng = rngs["patting"]
    if "patting" in has:
        for _ in range(int(rng.integers(1, 4))):
            d = float(min(rng.uniform(5.0, 60.0), duration))
            rate = rng.uniform(2.0, 4.0) if rng.random() < 0.7 else rng.uniform(4.0, 8.0)
            out.append(Transient("patting", float(rng.uniform(0.0, duration - d + 1e-3)), d,
                                 float(rng.uniform(100.0, 400.0)), str(rng.choice(ELECTRODES)),
                                 seed(), float(rate)))  # fmt: skip
    return [tr for tr in out if tr.start < duration]


# --------------------------------------------------------------------------------------------
# continuous artifacts and channel faults


def _ecg_template(sfreq: float) -> tuple[np.ndarray, int]:
    """One heartbeat (P, QRS, T) with unit R peak; returns (template, index of the R peak)."""
    t = np.arange(int(-0.3 * sfreq), int(0.45 * sfreq)) / sfreq
    waves = ((0.12, -0.20, 0.025), (-0.12, -0.03, 0.008), (1.0, 0.0, 0.010),
             (-0.28, 0.03, 0.010), (0.30, 0.25, 0.045))  # fmt: skip
    y = sum(a * np.exp(-0.5 * ((t - c) / w) ** 2) for a, c, w in waves)
    return y.astype(np.float32), int(0.3 * sfreq)


class Ecg:
    """Heartbeats of one recording: the EKG lead and its leak into the EEG.

    Parameters
    ----------
    duration : float
    profile : PatientProfile
    sfreq : float
    rng : np.random.Generator
    """

    #: Leak of the cardiac field into each electrode, relative to the EKG lead.
    LEAK = {"A1": 0.025, "A2": 0.03, "T5": 0.012, "T6": 0.015, "T3": 0.008, "T4": 0.01,
            "O1": 0.005, "O2": 0.006, "P3": 0.004, "P4": 0.005}  # fmt: skip

    def __init__(self, duration: float, profile: PatientProfile, sfreq: float, rng):
        self.sfreq = float(sfreq)
        rr = 60.0 / (profile.heart_bpm * rng.uniform(0.93, 1.07))
        n_ctrl = int(duration * CTRL_SFREQ) + 2
        hrv = 1.0 + 0.05 * lowpass_noise(rng, n_ctrl, 8.0)
        beats, t = [], float(rng.uniform(0.0, rr))
        while t < duration + 1.0:
            beats.append(t)
            t += rr * float(hrv[min(int(t * CTRL_SFREQ), n_ctrl - 1)])
        self.beats = np.array(beats)
        self.r_uv = float(rng.uniform(600.0, 1500.0)) * rng.choice([-1.0, 1.0])
        self.leak = np.zeros(N_ELECTRODES, dtype=np.float32)
        scale = float(rng.uniform(0.3, 1.5))
        for e, w in self.LEAK.items():
            self.leak[EIDX[e]] = w * scale
        self.template, self.r_index = _ecg_template(self.sfreq)

    def lead(self, s0: int, n: int) -> np.ndarray:
        """EKG lead, samples ``[s0, s0 + n)``: ``(n,)`` float32 microvolts."""
        out = np.zeros(n, dtype=np.float32)
        m = len(self.template)
        t0, t1 = (s0 - m) / self.sfreq, (s0 + n + m) / self.sfreq
        lo, hi = np.searchsorted(self.beats, [t0, t1])
        for b in self.beats[lo:hi]:
            a = int(round(b * self.sfreq)) - self.r_index
            i0, i1 = max(a, s0), min(a + m, s0 + n)
            if i1 > i0:
                out[i0 - s0 : i1 - s0] += self.template[i0 - a : i1 - a]
        return out * self.r_uv


class LineNoise:
    """Mains interference (60 Hz, or ``freq``): per-electrode amplitude, slowly varying,
    sometimes notched."""

    def __init__(self, duration: float, profile: PatientProfile, sfreq: float, rng,
                 freq: float = 60.0):  # fmt: skip
        self.sfreq = float(sfreq)
        amp = profile.line_uv * rng.lognormal(0.0, 0.5, N_ELECTRODES)
        if rng.random() < 0.35:
            amp[rng.integers(N_ELECTRODES)] *= rng.uniform(3.0, 10.0)  # a high-impedance lead
        if rng.random() < 0.3:
            amp *= 0.03  # notch filter on at acquisition
        self.amp = amp.astype(np.float32)
        self.phase = float(rng.uniform(0, 2 * np.pi))
        self.mod = np.exp(0.3 * lowpass_noise(rng, int(duration * CTRL_SFREQ) + 2, 20.0))
        self.freq = float(freq) if sfreq > 130.0 * freq / 60.0 else 0.0

    def block(self, s0: int, n: int) -> np.ndarray:
        """``(n, 21)`` float32 microvolts."""
        if self.freq == 0.0:
            return np.zeros((n, N_ELECTRODES), dtype=np.float32)
        k = np.arange(s0, s0 + n)
        # exact phase from the sample index: no drift over hours
        w = np.sin(2 * np.pi * ((self.freq * k) % self.sfreq) / self.sfreq + self.phase)
        m = np.interp(k / self.sfreq * CTRL_SFREQ, np.arange(len(self.mod)), self.mod)
        return ((w * m).astype(np.float32)[:, None]) * self.amp[None, :]


@dataclass(frozen=True)
class Fault:
    """An electrode that goes flat (0 uV) or rails (stuck at a level) for a while."""

    electrode: str
    start: float
    stop: float
    mode: str  # 'flat' | 'rail'
    level: float = 0.0


def draw_faults(duration: float, profile: PatientProfile, rng: np.random.Generator) -> list[Fault]:
    """At most one fault per recording, with probability ``profile.flat_prob``."""
    if rng.random() >= profile.flat_prob or duration < 60:
        return []
    length = float(min(rng.uniform(10.0, 180.0), 0.3 * duration))
    start = float(rng.uniform(0.0, duration - length))
    mode = "flat" if rng.random() < 0.6 else "rail"
    level = 0.0 if mode == "flat" else float(rng.choice([-1.0, 1.0]) * 1e5)  # past any range
    return [Fault(str(rng.choice(ELECTRODES)), start, start + length, mode, level)]


def derived_weights(site: str) -> np.ndarray:
    """``(21,)`` interpolation weights for an electrode outside the simulated 21 (T1, OZ...)."""
    d = np.linalg.norm(
        np.stack([position(e) for e in ELECTRODES]) - position(site)[None, :], axis=1
    )
    w = np.exp(-0.5 * (d / 0.25) ** 2)
    return (w / w.sum()).astype(np.float32)
