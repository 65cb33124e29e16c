"""Physiological artifacts: eyes, muscle, movement, heart.

Muscle is high-frequency noise that is local to the muscles under each electrode (temporalis
and masseter under F7/F8/T3/T4, frontalis under Fp1/Fp2, neck under O1/O2/T5/T6), never
volume-conducted like cortex. Eye artifacts are the corneo-retinal dipole seen by frontal
electrodes: blinks (Fp positive), lateral saccades (F7 and F8 of opposite sign), slow roving
movements of drowsiness, REM bursts, flutter. ECG is a far field from the chest, largest at
the ears.
"""

from __future__ import annotations

import numpy as np

from . import geometry as geo
from . import shapes as sh
from .context import CTRL_RATE, Ctx
from .states import env


def _w(pairs) -> np.ndarray:
    v = np.zeros(geo.N_CH)
    for names, val in pairs:
        v[geo.idx(names)] = val
    return v


EMG_TEMPORAL = _w([(("F7", "F8", "T3", "T4"), 1.0), (("A1", "A2"), 0.8), (("T5", "T6"), 0.5),
                   (("FP1", "FP2"), 0.3)])  # fmt: skip
EMG_FRONTAL = _w([(("FP1", "FP2"), 1.0), (("F7", "F8"), 0.6), (("F3", "F4", "FZ"), 0.4)])
EMG_NECK = _w([(("O1", "O2"), 1.0), (("T5", "T6"), 0.8), (("A1", "A2"), 0.7), (("P3", "P4"), 0.3)])
EMG_ALL = np.maximum(np.maximum(EMG_TEMPORAL, EMG_FRONTAL), EMG_NECK) + 0.25
BLINK_FIELD = _w([(("FP1", "FP2"), 1.0), (("F7", "F8"), 0.42), (("F3", "F4"), 0.34),
                  (("FZ",), 0.33), (("C3", "C4", "T3", "T4"), 0.1), (("CZ",), 0.08)])  # fmt: skip
HORIZ_FIELD = _w([(("F7",), 1.0), (("F8",), -1.0), (("FP1",), 0.35), (("FP2",), -0.35),
                  (("T3",), 0.3), (("T4",), -0.3), (("F3",), 0.15), (("F4",), -0.15),
                  (("A1",), 0.2), (("A2",), -0.2)])  # fmt: skip


def _emg_noise(rng, m, sf, k):
    hi = min(150.0, 0.47 * sf)
    return sh.spectral_noise(rng, m, sf, sh.band_gain(25.0, hi, 8.0), k)


def emg(ctx: Ctx, a, b, weights, amp, log=True, kind="emg", env_=None):
    """Muscle between ``a`` and ``b`` s over ``weights`` (per electrode), ``amp`` uV rms."""
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < 4:
        return
    ch = np.flatnonzero(weights > 0)
    x = _emg_noise(rng, m, sf, ch.size)
    if env_ is None:
        tt = np.arange(m) / sf
        flick = np.exp(0.5 * sh.slow_noise(rng, max(8, int(m / sf * 10)), 10.0, 0.15))
        env_ = np.interp(tt, np.arange(flick.size) / 10.0, flick)
        env_ = env_ * sh.ramp_env(m, sf, 0.1, 0.2)
    per = weights[ch] * rng.lognormal(0, 0.35, ch.size)
    env_ = np.asarray(env_, dtype=np.float32)
    for j, c in enumerate(ch):
        ctx.eeg[c, i0:i1] += np.float32(amp * per[j]) * x[j] * env_
    if log:
        ctx.event(a, b, kind)


def clonic_emg(ctx: Ctx, a, b, f0, f1, amp, focal=False):
    """Rhythmic jerks: brief muscle bursts (and small movement) at a slowing rate.

    ``focal`` jerks (one side of the face or a limb) reach only some electrodes.
    """
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < sf:
        return
    u = np.linspace(0, 1, m)
    f = f0 + (f1 - f0) * u
    ph = sh.phase_from_freq(f, sf) + np.cumsum(rng.normal(0, 0.5 / np.sqrt(sf), m))
    env_ = sh.vm_bump(ph, 0.0, sh.kappa_for(0.04, f))
    env_ = np.clip(env_, 0, None) * sh.ramp_env(m, sf, 0.2, 0.2)
    w = EMG_ALL * rng.uniform(0.2, 1.0, geo.N_CH)
    if focal:
        w = w * (rng.random(geo.N_CH) < 0.4)
    emg(ctx, a, b, w, amp, log=False, env_=env_)
    jolt = sh.spectral_noise(rng, m, sf, sh.band_gain(0.5, 4.0), 1)[0] * env_
    ctx.add(rng.uniform(0.0, 1.0, geo.N_CH) * (w > 0), (0.3 * amp * jolt).astype(np.float32), i0)


def movement(ctx: Ctx, a, b, amp, log=True):
    """Gross movement: large irregular slow swings on many electrodes, muscle, pops."""
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < 4:
        return
    x = sh.spectral_noise(rng, m, sf, sh.pink_gain(2.0, 0.2, 0.15), 3)
    mix = rng.normal(0, 1, (geo.N_CH, 3)) * rng.uniform(0.2, 1.0, (geo.N_CH, 1))
    env_ = sh.ramp_env(m, sf, 0.3, 0.5).astype(np.float32)
    ctx.eeg[:, i0:i1] += (amp * (mix.astype(np.float32) @ x) * env_[None, :] / 1.5).astype(
        np.float32
    )
    emg(ctx, a, b, EMG_ALL, amp * rng.uniform(0.2, 0.5), log=False)
    for _ in range(int(rng.integers(0, 4))):
        pop(ctx, rng.uniform(a, b), int(rng.integers(geo.N_CH)), rng.uniform(80, 400), log=False)
    if log:
        ctx.event(a, b, "movement")


def pop(ctx: Ctx, t, ch, amp, log=True):
    """Electrode pop: an abrupt step on one electrode decaying over a fraction of a second."""
    rng, sf = ctx.rng, ctx.sfreq
    tau = rng.uniform(0.08, 0.8)
    m = int(5 * tau * sf)
    k = np.exp(-np.arange(m) / (tau * sf))
    k[: max(1, int(0.004 * sf))] *= np.linspace(0.3, 1, max(1, int(0.004 * sf)))
    sign = 1.0 if rng.random() < 0.5 else -1.0
    i = ctx.s(t)
    j = min(ctx.n, i + m)
    ctx.eeg[ch, i:j] += (sign * amp * k[: j - i]).astype(np.float32)
    if log:
        ctx.event(t, t + 2 * tau, "electrode_pop")


def eye_flutter(ctx: Ctx, a, b, log=True):
    """Rhythmic small lid movements (3-8 Hz) seen at Fp1/Fp2."""
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < 4:
        return
    f = rng.uniform(3.0, 8.0)
    tt = np.arange(m) / sf
    sig = (
        rng.uniform(20, 70)
        * (0.5 - 0.5 * np.cos(2 * np.pi * f * tt))
        * sh.ramp_env(m, sf, 0.3, 0.3)
    )
    ctx.add(BLINK_FIELD, sig.astype(np.float32), i0)
    if log:
        ctx.event(a, b, "eye_flutter")


def chewing(ctx: Ctx, a, b, log=True):
    """Chewing: 1-2 Hz bursts of temporalis muscle with small glossokinetic slow waves."""
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < sf:
        return
    f = rng.uniform(0.9, 2.0)
    ph = sh.phase_from_freq(np.full(m, f), sf) + np.cumsum(rng.normal(0, 0.8 / np.sqrt(sf), m))
    burst = np.clip(sh.vm_bump(ph, 0.0, sh.kappa_for(rng.uniform(0.06, 0.1), f)), 0, None)
    emg(ctx, a, b, EMG_TEMPORAL, rng.uniform(40, 150), log=False, env_=burst)
    gl = _w([(("F7", "F8", "T3", "T4"), 1.0), (("FP1", "FP2", "F3", "F4"), 0.5)])
    ctx.add(gl, (rng.uniform(10, 40) * np.sin(ph - 1.0)).astype(np.float32), i0)
    if log:
        ctx.event(a, b, "chewing")


def _blinks(ctx: Ctx, load):
    rng, sf = ctx.rng, ctx.sfreq
    enc = ctx.patient["background"]["enc"]
    rate = rng.uniform(8, 25) / 60 * env(ctx, "blink") * max(0.1, 1 - 0.4 * enc)
    fv = BLINK_FIELD * (1 + 0.1 * rng.normal(size=geo.N_CH)) * (BLINK_FIELD > 0)
    kern = [sh.phases(sf, [(0.0, rng.uniform(0.05, 0.09), rng.uniform(0.1, 0.16), 1.0)])
            for _ in range(4)]  # fmt: skip
    amp = ctx.patient["artifacts"]["blink_uv"]
    for t in sh.poisson_times(rng, rate * min(load, 2.0), CTRL_RATE):
        k, z = kern[int(rng.integers(4))]
        sh.place(ctx.eeg, fv, k, z, ctx.s(t), amp * rng.lognormal(0, 0.25))
        if rng.random() < 0.12:
            sh.place(ctx.eeg, fv, k, z, ctx.s(t + rng.uniform(0.3, 0.5)), amp * 0.8)
        ctx.event(t - 0.15, t + 0.4, "blink")


def _saccades(ctx: Ctx, load):
    """Lateral saccades (steps held for a fixation) in wake, bursts of them in REM."""
    rng, sf = ctx.rng, ctx.sfreq
    for name, per_min, hold in (("saccade", 8.0, (0.3, 2.5)), ("rem_eye", 15.0, (0.1, 0.5))):
        rate = per_min / 60 * env(ctx, name) * min(load, 2.0)
        for t in sh.poisson_times(rng, rate, CTRL_RATE):
            d = rng.uniform(*hold)
            m = int((d + 0.2) * sf)
            tt = np.arange(m) / sf
            rise = 1 / (1 + np.exp(-(tt - 0.05) / 0.008))
            fall = 1 / (1 + np.exp((tt - 0.05 - d) / 0.015))
            sig = rng.choice([-1, 1]) * rng.uniform(40, 140) * rise * fall
            vert = rng.normal(0, 0.25)
            ctx.add(HORIZ_FIELD + vert * BLINK_FIELD, sig.astype(np.float32), ctx.s(t))
            ctx.event(t, t + d, "saccade" if name == "saccade" else "rem_eye_movement")


def _slow_eye(ctx: Ctx):
    rng, sf = ctx.rng, ctx.sfreq
    e = env(ctx, "sem")
    if e.max() <= 0:
        return
    x = sh.spectral_noise(rng, ctx.n, sf, sh.band_gain(0.08, 0.5, 0.05))[0]
    ctx.add(HORIZ_FIELD, (rng.uniform(40, 110) * x * ctx.to_samples(e)))
    for a, b in _spans(ctx, e > 0.5):
        ctx.event(a, b, "slow_eye_movements")


def _spans(ctx: Ctx, mask: np.ndarray):
    """(start_s, stop_s) of runs of True on the control grid."""
    d = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    return [(s / CTRL_RATE, e / CTRL_RATE) for s, e in zip(np.flatnonzero(d == 1),
                                                           np.flatnonzero(d == -1), strict=True)]  # fmt: skip


def _ecg(ctx: Ctx):
    """ECG far field (QRS-T at the heart rate with variability), largest at the ears."""
    rng, sf, a = ctx.rng, ctx.sfreq, ctx.patient["artifacts"]
    g = geo._unit(np.array([rng.normal(0, 0.3), rng.choice([-1, 1]) * 1.0, -0.8]))
    fv = geo.XYZ @ g
    fv = fv - np.median(fv)
    fv[geo.idx(["A1", "A2"])] *= 1.8
    fv /= np.max(np.abs(fv))
    kern, z = sh.phases(sf, [(-0.04, 0.01, 0.01, -0.12), (0.0, 0.011, 0.012, 1.0),
                             (0.035, 0.01, 0.014, -0.3), (0.26, 0.05, 0.06, 0.22)])  # fmt: skip
    rr0 = 60.0 / a["hr_bpm"]
    n_beats = max(60, int(ctx.duration / rr0 * 1.3) + 2)
    drift = np.cumsum(rng.normal(0, 0.004, n_beats))
    drift -= np.convolve(drift, np.ones(50) / 50, mode="same")
    rsa = 0.03 * np.sin(2 * np.pi * np.arange(n_beats) * rr0 / (60 / a["resp_per_min"]))
    rr = np.clip(rr0 * (1 + drift + rsa + rng.normal(0, 0.01, n_beats)), 0.3, 2.0)
    beats = np.cumsum(rr) + rng.uniform(0, rr0)
    beats = beats[beats < ctx.duration]
    idx = np.round(beats * sf).astype(int)
    idx = idx[idx < ctx.n]
    train = np.zeros(ctx.n, dtype=np.float32)
    train[idx] = 1.0
    sig = np.convolve(train, kern.astype(np.float32))[z : z + ctx.n]
    ctx.add(fv, (a["ecg_uv"] * sig).astype(np.float32))
    if a["pulse"]:
        ch = int(rng.integers(geo.N_CH))
        pk, pz = sh.phases(sf, [(0.0, 0.08, 0.18, 1.0)])
        pulse = np.convolve(np.roll(train, int(0.22 * sf)), pk.astype(np.float32))[pz : pz + ctx.n]
        ctx.eeg[ch] += (rng.uniform(10, 40) * pulse).astype(np.float32)
        ctx.event(0.0, ctx.duration, f"pulse_{geo.ELECTRODES[ch]}")
    return beats


def render_physiological(ctx: Ctx):
    """Eyes, muscle tone and bursts, chewing, talking, movement, ECG, pulse, tremor."""
    rng, a = ctx.rng, ctx.patient["artifacts"]
    load = a["load"]
    _blinks(ctx, load)
    _saccades(ctx, load)
    _slow_eye(ctx)
    # Continuous muscle tone in wake (temporalis, frontalis), varying slowly.
    tone = a["emg_tone"] * env(ctx, "emg") * np.exp(0.6 * sh.slow_noise(rng, ctx.n_ctrl,
                                                                         CTRL_RATE, 20.0))  # fmt: skip
    emg(ctx, 0.0, ctx.duration, np.maximum(EMG_TEMPORAL, EMG_FRONTAL), 1.0, log=False,
        env_=ctx.to_samples(tone))  # fmt: skip
    mv = env(ctx, "movement")
    for t in sh.poisson_times(rng, 30 / 3600 * load * mv, CTRL_RATE):
        d = float(np.clip(rng.lognormal(np.log(2.0), 0.9), 0.3, 40))
        chans = [EMG_TEMPORAL, EMG_FRONTAL, EMG_NECK, EMG_ALL][int(rng.integers(4))]
        emg(ctx, t, t + d, chans, rng.lognormal(np.log(25), 0.6))
    for t in sh.poisson_times(rng, 8 / 3600 * load * mv, CTRL_RATE):
        movement(ctx, t, t + float(np.clip(rng.lognormal(np.log(4), 0.8), 0.5, 40)),
                 rng.lognormal(np.log(60), 0.5))  # fmt: skip
    wake = env(ctx, "wake")
    for t in sh.poisson_times(rng, a["chewing"] / 3600 * wake * min(load, 3), CTRL_RATE):
        chewing(ctx, t, t + rng.uniform(5, 60))
    talk = (2.0 if ctx.patient["setting"] != "icu" else 0.3) * min(load, 3)
    for t in sh.poisson_times(rng, talk / 3600 * wake, CTRL_RATE):
        d = rng.uniform(5, 60)
        emg(ctx, t, t + d, np.maximum(EMG_TEMPORAL, EMG_FRONTAL), rng.uniform(15, 50), False)
        x = sh.spectral_noise(rng, ctx.s(t + d) - ctx.s(t), ctx.sfreq, sh.band_gain(0.5, 4.0))
        gl = _w([(("F7", "F8", "T3", "T4"), 1.0), (("FP1", "FP2", "F3", "F4", "FZ"), 0.6)])
        ctx.add(gl, (rng.uniform(10, 35) * x[0]).astype(np.float32), ctx.s(t))
        ctx.event(t, t + d, "talking")
    for t in sh.poisson_times(rng, 3 / 3600 * env(ctx, "drowsy") * load, CTRL_RATE):
        eye_flutter(ctx, t, t + rng.uniform(1, 5))
    _ecg(ctx)
    if a["tremor"] > 0:
        for t in sh.poisson_times(rng, a["tremor"] / 3600 * wake * 3, CTRL_RATE):
            _tremor(ctx, t, t + float(np.clip(rng.lognormal(np.log(30), 0.8), 5, 300)))


def _tremor(ctx: Ctx, a, b):
    rng, sf, p = ctx.rng, ctx.sfreq, ctx.patient["artifacts"]
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < sf:
        return
    f = p["tremor_hz"] * rng.uniform(0.95, 1.05)
    ph = sh.phase_from_freq(np.full(m, f), sf) + np.cumsum(rng.normal(0, 0.3 / np.sqrt(sf), m))
    tt = np.arange(m) / sf
    wax = np.exp(0.3 * np.interp(tt, np.arange(int(m / sf) + 2),
                                 rng.normal(size=int(m / sf) + 2)))  # fmt: skip
    sig = (np.sin(ph) + 0.3 * np.sin(2 * ph + 0.7)) * wax * sh.ramp_env(m, sf, 1, 1)
    fv = rng.uniform(0.2, 1.0, geo.N_CH) * (0.3 + EMG_ALL)
    ctx.add(fv / fv.max(), (rng.uniform(10, 45) * sig).astype(np.float32), i0)
    ctx.event(a, b, "tremor")
