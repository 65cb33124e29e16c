"""Physiological artifacts of the tide generator: eyes (blinks, eye closure, saccades,
slow roving and rapid eye movements, flutter, lambda waves), muscle (tone, bursts,
arousals and awakenings), movement, rhythmic artifacts (chewing, patting, tremor) and
the heart (ECG, pulse).

The eyes are corneo-retinal dipoles just below and behind FP1/FP2: rotating them upward
(blink, Bell's phenomenon) makes FP1/FP2 positive, looking left makes F7 positive and F8
negative. Muscle is independent noise per electrode, since motor units are local.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from rt_eeg.xsim.tide import core
from rt_eeg.xsim.tide.core import IDX, add, direction, place, poisson_times, vmf
from rt_eeg.xsim.tide.ictal import MUSCLE_CH
from rt_eeg.xsim.tide.vigilance import DT, Vigilance

_EYES = [np.array([0.78, 0.3, -0.42]), np.array([0.78, -0.3, -0.42])]
#: Field of an upward eye rotation (blink), FP1/FP2 = 1.
BLINK = core.dipole(_EYES[0], [0, 0, 1]) + core.dipole(_EYES[1], [0, 0, 1])
BLINK = BLINK / BLINK.max()
#: Field of a leftward gaze (F7 positive, F8 negative).
LATERAL = core.dipole(_EYES[0], [0, 1, 0]) + core.dipole(_EYES[1], [0, 1, 0])
LATERAL = LATERAL / np.abs(LATERAL).max()
#: Muscle weight of each electrode (temporalis, frontalis, masseter; neck at O1/O2).
_MUSCLE_W = {ch: 1.0 for ch in MUSCLE_CH} | {"F3": 0.5, "F4": 0.5, "O1": 0.4, "O2": 0.4}


def _blink(fs: float, rng) -> np.ndarray:
    d = rng.uniform(0.25, 0.45)
    t = np.arange(int(d * fs)) / fs
    k = t / (0.35 * d)
    return k**2 * np.exp(2.0 * (1.0 - k))  # peaks at 1 after about a third


def _gate(env: np.ndarray, a: float, b: float, fs: float, level: float) -> None:
    """Add a raised-cosine burst of ``level`` on [a, b) seconds into ``env``."""
    i, j = int(a * fs), min(env.size, int(b * fs))
    if j - i > 2:
        env[i:j] += level * np.hanning(j - i)


def _eyes(out, pt, amp, vig: Vigilance, fs, rng, rate) -> list:
    n = out.shape[1]
    events = []
    r_b, r_c, r_f, r_s, r_l, r_sem = core.fork(rng, 6)
    rng = r_b
    blink = np.zeros(n)
    times = poisson_times(vig.tick("blink") * rate, DT, rng)
    for t in np.sort(np.concatenate([times, np.asarray(vig.eye_openings)])):
        a = pt["blink_amp"] * rng.uniform(0.6, 1.3)
        place(blink, t, fs, _blink(fs, rng) * a)
        if rng.random() < 0.1:  # double blink
            place(blink, t + rng.uniform(0.3, 0.5), fs, _blink(fs, rng) * a * 0.8)
    rng = r_c
    for t in vig.eye_closures:  # eyes roll up and stay up for a while
        m = int(rng.uniform(1.0, 2.5) * fs)
        w = np.minimum(1.0, np.arange(m) / (0.15 * fs)) * np.exp(-np.arange(m) / (0.6 * fs))
        place(blink, t, fs, w * pt["blink_amp"] * rng.uniform(0.8, 1.3))
    rng = r_f
    for t in poisson_times((vig.state == 0) * 0.002 * rate, DT, rng):
        d = rng.uniform(1.0, 4.0)
        tt = np.arange(int(d * fs)) / fs
        w = (0.5 - 0.5 * np.cos(2 * np.pi * rng.uniform(3.0, 6.0) * tt)) * np.hanning(tt.size)
        place(blink, t, fs, w * rng.uniform(30, 80))
        events.append((float(t), float(t + d), "eye_flutter"))
    add(out, BLINK, blink * amp)
    del blink
    # horizontal gaze: piecewise constant with saccades (awake, REM), smooth roving in
    # drowsiness; lambda waves follow some saccades when the eyes scan
    rng = r_s
    sac = poisson_times(vig.tick("saccade") + vig.tick("rem_eye"), DT, rng)
    gaze = np.zeros(sac.size + 1)
    for i in range(sac.size):
        gaze[i + 1] = 0.5 * gaze[i] + rng.standard_normal()
    idx = np.searchsorted((sac * fs).astype(int), np.arange(n), side="right")
    g = gaze[idx]
    g = signal.sosfilt(signal.butter(2, min(15.0, 0.4 * fs), fs=fs, output="sos"), g)
    g = g * pt["saccade_amp"] / 2
    g += core.smooth_noise(n, fs, 0.15, r_sem) * vig.at("sem", n, fs) * pt["saccade_amp"]
    add(out, LATERAL, g * amp)
    if pt["variants"]["lambda"]:
        rng = r_l
        train = np.zeros(n)
        r_keep, r_amp = core.fork(rng, 2)
        for t in sac[r_keep.random(sac.size) < 0.4]:
            place(train, t + 0.1, fs, np.bartlett(int(0.12 * fs)) * r_amp.uniform(15, 35))
        add(out, vmf(direction("O1", "O2"), 4.0), train * amp)
    return events


def _muscle(out, pt, amp, vig: Vigilance, fs, rng, rate) -> list:
    n = out.shape[1]
    events = []
    tone = vig.at("emg", n, fs) * pt["emg_tone"]
    env = {"L": np.zeros(n), "R": np.zeros(n)}
    r_b, r_a, r_ar, r_n = core.fork(rng, 4)
    rng = r_b
    for t in poisson_times(0.01 * rate * (vig.tick("emg") + 0.1), DT, rng):
        d = float(np.clip(rng.lognormal(0.0, 0.8), 0.2, 8.0))
        lev = rng.uniform(8.0, 50.0)
        sides = [str(rng.choice(["L", "R"]))] if rng.random() < 0.5 else ["L", "R"]
        for s in sides:
            _gate(env[s], t, t + d, fs, lev)
        events.append((float(t), float(t + d), "muscle"))
    rng = r_a
    for t in vig.awakenings:
        d = rng.uniform(2.0, 10.0)
        for s in "LR":
            _gate(env[s], t, t + d, fs, rng.uniform(30, 80))
        _movement(out, t, rng.uniform(1.0, 4.0), fs, rng, amp)
        events.append((t, t + d, "awakening"))
    rng = r_ar
    for a, b in vig.arousals:
        for s in "LR":
            _gate(env[s], a, min(b, a + rng.uniform(1.0, 5.0)), fs, rng.uniform(15, 50))
        events.append((a, b, "arousal"))
    rng = r_n
    for ch, w in _MUSCLE_W.items():
        left = ch[-1] in "1357"
        mid = ch in ("F3", "F4", "O1", "O2")
        e = tone * w * rng.uniform(0.5, 1.5) + env["L" if left else "R"] * w * (0.6 if mid else 1)
        out[IDX[ch]] += (e * core.muscle_noise(n, fs, rng) * amp).astype(np.float32)
    return events


def _movement(out, t: float, d: float, fs: float, rng, amp: float) -> None:
    """High-amplitude irregular slow swings on a cluster of electrodes (head or cable
    movement), each electrode with its own gain."""
    m = int(d * fs)
    if m < 8:
        return
    i = int(t * fs)
    w = core.smooth_noise(m, fs, rng.uniform(0.8, 3.0), rng) * np.hanning(m)
    c = rng.standard_normal(3)
    field = vmf(c, rng.uniform(1.0, 3.0)) * rng.uniform(0.3, 1.0, size=21)
    add(out, field, w * rng.uniform(80, 300) * amp, i)


def _rhythmic(out, pt, amp, vig: Vigilance, fs, rng, rate) -> list:
    """Chewing, patting and tremor: rhythmic, seizure-like, extracerebral."""
    n = out.shape[1]
    dur = n / fs
    events = []
    awake = vig.state <= 1
    r_c, r_p, r_t, r_m = core.fork(rng, 4)

    def awake_time(g):
        """A uniform time, or None when asleep then (episodes happen awake)."""
        t = float(g.uniform(0, dur))
        return t if awake[min(awake.size - 1, int(t / DT))] else None

    rng = r_c
    if pt["chewing"] and rng.random() < 0.5:
        for g in core.fork(rng, int(rng.integers(1, 4))):
            t, d = awake_time(g), float(g.uniform(5.0, 40.0))
            if t is None:
                continue
            f = g.uniform(1.0, 1.8)
            env = np.zeros(n)
            for k in range(int(d * f)):
                _gate(env, t + k / f, t + k / f + g.uniform(0.2, 0.35), fs, 1.0)
            lev = g.uniform(40.0, 150.0) / 3
            for ch in ("T3", "T4", "F7", "F8", "A1", "A2", "T5", "T6"):
                i, j = int(t * fs), min(n, int((t + d + 1) * fs))
                if j > i:
                    x = env[i:j] * core.muscle_noise(j - i, fs, g) * lev * g.uniform(0.5, 1)
                    out[IDX[ch], i:j] += (x * amp).astype(np.float32)
            events.append((t, min(dur, t + d), "chewing"))
    rng = r_p
    if pt["patting"] and rng.random() < 0.5:
        for g in core.fork(rng, int(rng.integers(1, 4))):
            t, d = awake_time(g), float(g.uniform(5.0, 30.0))
            if t is None:
                continue
            m = int(d * fs)
            cyc = core.phase_oscillator(g.uniform(1.5, 4.0), m, fs, rng, diffusion=0.1)
            w = np.abs(np.sin(np.pi * cyc)) ** 3 * core.envelope(m, fs, 0, d, 0.5, 0.5)
            c = g.standard_normal(3)
            c[2] = abs(c[2])
            add(out, vmf(c, g.uniform(3.0, 6.0)), (w - w.mean()) * g.uniform(50, 200) * amp,
                int(t * fs))  # fmt: skip
            events.append((t, min(dur, t + d), "patting"))
    rng = r_t
    if pt["tremor_f"] > 0:
        for g in core.fork(rng, int(rng.integers(1, 5))):
            t, d = awake_time(g), float(g.uniform(5.0, 60.0))
            if t is None:
                continue
            m = int(d * fs)
            cyc = core.phase_oscillator(pt["tremor_f"], m, fs, rng, diffusion=0.05)
            w = np.sin(2 * np.pi * cyc) * core.envelope(m, fs, 0, d, 1.0, 1.0)
            w *= 1.0 + 0.3 * core.smooth_noise(m, fs, 0.3, g)
            c = g.standard_normal(3)
            add(out, vmf(c, g.uniform(1.5, 4.0)), w * g.uniform(5, 30) * amp, int(t * fs))
            events.append((t, min(dur, t + d), "tremor"))
    rng = r_m
    for t in poisson_times(0.002 * rate * (vig.state <= 1), DT, rng):
        d = float(rng.uniform(1.0, 6.0))
        _movement(out, t, d, fs, rng, amp)
        events.append((float(t), float(t + d), "movement"))
    return events


def _heart(out, pt, amp, fs, rng) -> list:
    n = out.shape[1]
    dur = n / fs
    rr0 = 60.0 / pt["heart_rate"]
    resp = rng.uniform(0.2, 0.33)
    beats, t = [], float(rng.uniform(0, rr0))
    while t < dur:
        beats.append(t)
        t += rr0 * (1 + 0.05 * np.sin(2 * np.pi * resp * t) + 0.02 * rng.standard_normal())
    tt = np.arange(int(0.7 * fs)) / fs
    qrs = (0.1 * np.exp(-0.5 * ((tt - 0.05) / 0.02) ** 2)  # P
           - 0.15 * np.exp(-0.5 * ((tt - 0.17) / 0.006) ** 2)  # Q
           + 1.0 * np.exp(-0.5 * ((tt - 0.19) / 0.009) ** 2)  # R
           - 0.3 * np.exp(-0.5 * ((tt - 0.215) / 0.008) ** 2)  # S
           + 0.25 * np.exp(-0.5 * ((tt - 0.45) / 0.05) ** 2))  # T  # fmt: skip
    train = np.zeros(n)
    for b in beats:
        place(train, b - 0.19, fs, qrs)
    heart = core.dipole([0.3, 0.5, -3.5], [0.2, pt["ecg_axis"] - 0.5, 1.0])
    add(out, heart, train * pt["ecg_amp"] * amp)
    events = []
    if rng.random() < 0.08:  # pulse artifact: an electrode over a scalp artery
        ch = int(rng.integers(21))
        pulse = np.zeros(n)
        w = np.sin(np.pi * np.arange(int(0.35 * fs)) / (0.35 * fs)) ** 2
        for b in beats:
            place(pulse, b + 0.2, fs, w)
        out[ch] += (pulse * rng.uniform(20, 60) * amp).astype(np.float32)
        events.append((0.0, dur, "pulse_artifact"))
    return events


def render(out: np.ndarray, pt: dict, amp: float, vig: Vigilance, fs: float, rng) -> list:
    """Add the physiological artifacts to ``out``.

    Parameters
    ----------
    out : ndarray of float32, shape (21, n)
    pt : dict
    amp : float
    vig : Vigilance
    fs : float
    rng : numpy.random.Generator

    Returns
    -------
    list of (float, float, str)
    """
    rate = pt["artifact_rate"] * float(rng.lognormal(0.0, 0.4))
    r_e, r_m, r_r, r_h = core.fork(rng, 4)
    events = _eyes(out, pt, amp, vig, fs, r_e, rate)
    events += _muscle(out, pt, amp, vig, fs, r_m, rate)
    events += _rhythmic(out, pt, amp, vig, fs, r_r, rate)
    events += _heart(out, pt, amp, fs, r_h)
    return events
