"""Artifacts of the ``simple`` generator: eye, muscle, movement, electrode, cardiac, sweat,
rhythmic and mains artifacts, amplifier filters and bad channels."""

from __future__ import annotations

import numpy as np
from scipy import signal

from rt_eeg.xsim.base import ELECTRODES
from rt_eeg.xsim.simple.prims import (
    BLINK,
    DT,
    HEOG,
    IX,
    MUSCLE,
    NC,
    XYZ,
    Rec,
    add,
    arc,
    band,
    bump,
    emg,
    flat_env,
    gauss_field,
    mixin,
    noise,
    nudge,
    poisson_times,
    rhythm,
    slow,
    sstep,
    toward,
)


def emg_burst(rng, fs, m, region, amp):
    """Muscle over a region: independent rows per electrode, random amplitude modulation."""
    w = MUSCLE[region] * rng.uniform(0.4, 1.0, NC)
    ch = np.flatnonzero(w > 0.15)
    kn = np.arange(int(m / fs * 4) + 2)
    am = np.interp(np.arange(m) / fs * 4, kn, np.exp(0.5 * rng.standard_normal(kn.size)))
    X = emg(rng, ch.size, m, fs) * (w[ch, None] * amp) * am * flat_env(m, fs, 0.1)
    return X, ch


def chewing(rng, fs, m, amp):
    """Rhythmic bilateral temporal EMG bursts at 1-2 Hz with a small glossokinetic wave."""
    X, ch = emg_burst(rng, fs, m, "LR", amp)
    f = rng.uniform(0.9, 2.0)
    ph = 2 * np.pi * f * np.arange(m) / fs + rng.uniform(0, 6)
    X *= np.clip(np.cos(ph), 0, None) ** 4
    return X + 0.15 * amp * np.sin(ph - 1.0) * flat_env(m, fs, 0.5), ch


def movement(rng, fs, m, amp):
    """Large slow transients of mixed polarity on a patch of electrodes, often with EMG."""
    w = gauss_field(nudge(rng, XYZ[rng.integers(NC)], 0.3), rng.uniform(0.5, 2.0))
    ch = np.flatnonzero(w > 0.2)
    shared = noise(rng, m, fs, band(0.2, 3.0))
    X = np.stack(
        [rng.choice([-1, 1]) * shared + 0.8 * noise(rng, m, fs, band(0.2, 3.0)) for _ in ch]
    )
    X *= w[ch, None] * amp * np.hanning(m)
    if rng.random() < 0.6:
        E, ech = emg_burst(rng, fs, m, "all", 0.2 * amp)
        hit = np.isin(ech, ch)
        X[np.searchsorted(ch, ech[hit])] += E[hit]
    return X, ch


def artifacts(out, rng, P: dict, S: Rec, seizures) -> None:
    """Eye, muscle, movement, electrode, cardiac, sweat, rhythmic and mains artifacts,
    amplifier filters and bad channels."""
    fs, n, d, nc = S.fs, S.n, S.depth, S.tc.size
    u = rng.uniform
    heavy = rng.random() < 0.2
    mult = P["art_prone"] * (u(2.5, 5) if heavy else rng.lognormal(0, 0.4))
    if heavy:
        S.event(0, S.dur, "artifact_heavy_recording")
    awake = np.clip(1 - d, 0, 1)
    act = np.interp(d, [0, 1, 2, 3], [1, 0.35, 0.12, 0.08]) * np.exp(
        0.9 * slow(rng, nc, 90.0) - 0.4
    )

    def shared(fn, wfn, drange):
        def make(r):
            dur = r.uniform(*drange)
            tt = np.arange(int(dur * fs)) / fs
            return fn(r, tt, dur), wfn(r), dur

        return make

    def rows(fn, drange):
        def make(r):
            dur = r.uniform(*drange)
            X, ch = fn(r, int(dur * fs))
            return X, ch, dur

        return make

    def blink(r, tt, dur):
        return r.lognormal(np.log(120), 0.4) * bump(
            tt, 0.12, r.uniform(0.05, 0.09), r.uniform(0.1, 0.2)
        )

    def sacc(r, tt, dur):
        hold = r.uniform(0.3, 0.8) * dur
        return (
            r.choice([-1, 1]) * r.uniform(30, 120) * (sstep(tt / 0.04) - sstep((tt - hold) / 0.04))
        )

    def asym(base, spread=0.15):
        return lambda r: base * r.lognormal(0, spread, NC)

    def pop(r):
        tr, td = r.uniform(0.002, 0.02), r.uniform(0.05, 0.8)
        tt = np.arange(int(6 * td * fs)) / fs
        x = (
            r.choice([-1, 1])
            * r.lognormal(np.log(200), 0.7)
            * (1 - np.exp(-tt / tr))
            * np.exp(-tt / td)
        )
        return x[None, :], np.array([r.integers(NC)]), tt[-1]

    def sweat(r, m):
        w = gauss_field(
            nudge(r, toward(str(r.choice(["FP1", "FP2", "F7", "F8", "T3", "T4"]))), 0.2), 0.7
        )
        ch = np.flatnonzero(w > 0.2)
        s = noise(r, m, fs, band(0.03, 0.4))
        X = np.stack([0.7 * s + 0.5 * noise(r, m, fs, band(0.03, 0.4)) for _ in ch])
        return X * w[ch, None] * r.uniform(30, 200) * flat_env(m, fs, 10), ch

    def rhythmic(frange, arange_, sig, sharp):
        def make(r, m):
            w = gauss_field(nudge(r, XYZ[r.integers(NC)], 0.2), sig)
            ch = np.flatnonzero(w > 0.2)
            f = r.uniform(*frange)
            x = rhythm(r, m, fs, f, f * r.uniform(0.97, 1.03), sharp=(sharp, sharp), jitter=0.1)
            sg = r.choice([-1, 1], ch.size) * r.uniform(0.5, 1, ch.size)
            return (sg * w[ch])[:, None] * x * r.uniform(*arange_) * flat_env(m, fs, 1.0), ch

        return make

    def talking(r, m):
        X, ch = emg_burst(r, fs, m, str(r.choice(["F", "LR", "all"])), r.uniform(15, 60))
        kn = np.arange(int(m / fs * 5) + 2)  # syllables at ~5 Hz, irregular
        X *= np.clip(np.interp(np.arange(m) / fs * 5, kn, r.standard_normal(kn.size)), 0, None)
        gl = noise(r, m, fs, band(0.5, 3.0)) * r.uniform(15, 60) * flat_env(m, fs, 0.5)
        return X + gl * gauss_field(toward("FP1", "FP2"), 0.6)[ch, None], ch

    def flutter(r, tt, dur):  # eyelid flutter: rhythmic small blinks at 3-7 Hz
        x = np.clip(np.sin(2 * np.pi * r.uniform(3, 7) * tt), 0, None)
        return r.uniform(20, 70) * x * flat_env(tt.size, fs, 0.3)

    def roll(r, tt, dur):  # slow lateral eye movement of drowsiness
        return r.choice([-1, 1]) * r.uniform(40, 150) * np.sin(np.pi * tt / dur)

    def muscle(r):
        dur = float(np.clip(r.lognormal(np.log(1.5), 0.9), 0.2, 30))
        region = str(r.choice(["L", "R", "LR", "F", "all"], p=[0.3, 0.3, 0.2, 0.15, 0.05]))
        X, ch = emg_burst(r, fs, int(dur * fs), region, r.lognormal(np.log(30), 0.6))
        return X, ch, dur

    eyes, icu = S.eyes, P["setting"] == "icu"
    table = [
        (
            "blink",
            P["blink_rate"] / 60 * (eyes + 0.04) * awake * (0.3 if icu else 1),
            shared(blink, asym(BLINK), (0.4, 0.6)),
        ),
        ("eye_flutter", 3 / 3600 * (1 - eyes) * awake, shared(flutter, asym(BLINK), (1, 4))),
        ("saccade", 3 / 60 * eyes * awake * np.sqrt(mult), shared(sacc, asym(HEOG), (0.5, 3))),
        (
            "slow_eye_roll",
            np.interp(d, [0, 0.5, 1, 1.5, 2], [0, 0.5, 2, 1, 0]) / 60,
            shared(roll, asym(HEOG), (2, 8)),
        ),
        ("emg", 1.2 / 60 * act * mult, muscle),
        (
            "chewing",
            3 / 3600 * act * awake * mult,
            rows(lambda r, m: chewing(r, fs, m, r.uniform(20, 120)), (2, 20)),
        ),
        ("talking", 2 / 3600 * act * awake * mult, rows(talking, (3, 30))),
        (
            "movement",
            3 / 3600 * (act + 0.05) * mult,
            rows(lambda r, m: movement(r, fs, m, r.lognormal(np.log(200), 0.6)), (0.5, 5)),
        ),
        ("electrode_pop", 3 / 3600 * mult * np.ones(nc), pop),
        ("sweat_drift", 0.7 / 3600 * P["sweaty"] * np.ones(nc), rows(sweat, (30, 300))),
        (
            "patting",
            1 / 3600 * mult * P["patting"] * np.ones(nc),
            rows(rhythmic((1.5, 4), (30, 200), 0.6, 0.5), (5, 120)),
        ),
        (
            "rocking",
            0.3 / 3600 * mult * np.ones(nc),
            rows(rhythmic((0.5, 1.5), (50, 200), 1.0, 0.1), (5, 60)),
        ),
        (
            "tremor",
            4 / 3600 * awake * P["tremor"],
            rows(rhythmic((4, 7), (5, 30), 0.5, 0.1), (10, 120)),
        ),
        (
            "respiration",
            1 / 3600 * icu * np.ones(nc),
            rows(rhythmic((0.15, 0.4), (20, 100), 0.4, 0.0), (60, 600)),
        ),
    ]
    for kind, rate, make in table:
        for t0 in poisson_times(rng, rate):
            x, w, dur = make(rng)
            add(out, int(t0 * fs), x, w)
            S.event(t0, t0 + dur, kind)
    for t0 in S.closures:  # eye closure: Bell's phenomenon, a slow FP-positive deflection
        tt = np.arange(int(1.5 * fs)) / fs
        add(out, int(t0 * fs), u(80, 250) * bump(tt, 0.15, 0.08, u(0.2, 0.5)), asym(BLINK)(rng))
        S.event(t0, t0 + 1.0, "eye_closure")
    t = np.arange(n) / fs

    def ip(ctrl):
        return np.interp(t, S.tc, ctrl)

    # Continuous muscle tone on a few electrodes in tense patients.
    if rng.random() < 0.3 * min(mult, 2):
        w = MUSCLE[str(rng.choice(["L", "R", "LR", "F"]))]
        env = ip(act * u(2, 12))
        for c in np.flatnonzero(w > 0.4):
            out[c] += (emg(rng, 1, n, fs)[0] * env * w[c]).astype(np.float32)
        S.event(0, S.dur, "muscle_tone")
    # ECG pickup (strongest at the ears and low temporal electrodes) and pulse artifact.
    hr = P["hr"] * (1 + 0.05 * slow(rng, nc, 30.0)) * (1 + 0.03 * np.sin(2 * np.pi * 0.25 * S.tc))
    for a, b in seizures:  # ictal tachycardia (zero before onset)
        hr *= 1 + 0.3 * sstep((S.tc - a) / 10) * np.exp(-np.clip(S.tc - b, 0, None) / 60)
    beats = np.cumsum(hr / 60 * DT) + rng.random()
    bt = np.interp(np.arange(1, int(beats[-1])), beats, S.tc)
    bt = bt[(bt > 0) & (bt < S.dur - 0.01)]
    train = np.zeros(n)
    train[(bt * fs).astype(int)] = 1.0
    tk = np.arange(-0.3, 0.5, 1 / fs)
    qrs = (
        bump(tk, 0, 0.012)
        - 0.25 * bump(tk, -0.03, 0.01)
        - 0.35 * bump(tk, 0.03, 0.012)
        + 0.08 * bump(tk, -0.16, 0.025)
        + 0.2 * bump(tk, 0.25, 0.05)
    )
    ecg = signal.oaconvolve(train, qrs)[int(0.3 * fs) : int(0.3 * fs) + n]
    low = 1.3 - XYZ[:, 2]  # low electrodes (ears) see more of the heart
    w = XYZ @ np.array(P["ecg_axis"]) * low * P["ecg_amp"] * u(0.5, 1.5)
    mixin(out, w, ecg)
    if P["pulse"] and rng.random() < 0.7:
        c = int(rng.choice([IX[e] for e in ("FP1", "FP2", "F7", "F8", "T3", "T4", "T5", "T6")]))
        pulse = signal.oaconvolve(train, bump(tk, 0.25, 0.06, 0.15))[
            int(0.3 * fs) : int(0.3 * fs) + n
        ]
        out[c] += (pulse * u(10, 40)).astype(np.float32)
        S.event(0, S.dur, f"pulse_{ELECTRODES[c]}")
    # Mains interference: amplitude per electrode set by its impedance.
    line = rng.lognormal(np.log(0.5), 1.0) * rng.lognormal(0, 0.8, NC)
    bad = {}
    if rng.random() < (0.5 if icu else 0.25):
        for c in rng.choice(NC, int(rng.integers(1, 3)), replace=False):
            bad[int(c)] = str(
                rng.choice(["noisy", "flat", "bridge", "popping"], p=[0.4, 0.2, 0.2, 0.2])
            )
            S.event(0, S.dur, f"bad_channel_{bad[int(c)]}_{ELECTRODES[c]}")
    for c, kd in bad.items():
        if kd == "noisy":
            line[c] *= u(20, 100)
            out[c] += (noise(rng, n, fs, band(0.05, 1.0)) * u(20, 80)).astype(np.float32)
        elif kd == "popping":
            for t0 in poisson_times(rng, np.full(nc, u(5, 40) / 60)):
                x, _, _ = pop(rng)
                add(out, int(t0 * fs), x, [c])
    if line.max() > 5:
        S.event(0, S.dur, "line_noise")
    ph = ((P["line_hz"] * t) % 1.0 * (2 * np.pi)).astype(np.float32)
    lam = ip(np.exp(0.3 * slow(rng, nc, 60.0))).astype(np.float32)
    cs, sn = np.cos(ph) * lam, np.sin(ph) * lam
    del ph, lam
    for c in range(NC):
        q = rng.uniform(0, 2 * np.pi)
        out[c] += np.float32(line[c] * np.cos(q)) * cs + np.float32(line[c] * np.sin(q)) * sn
    del cs, sn
    # Amplifier: single-pole high-pass (time constant) and anti-alias low-pass, causal.
    hp = signal.butter(1, u(0.05, 0.5), "highpass", fs=fs, output="sos")
    lp = signal.butter(4, min(0.42 * fs, u(70, 120)), "lowpass", fs=fs, output="sos")
    sos = np.vstack([hp, lp])
    for c in range(NC):
        out[c] = signal.sosfilt(sos, out[c])
    for c, kd in bad.items():
        if kd == "flat":
            out[c] *= np.float32(u(0.0, 0.05))
        elif kd == "bridge":  # salt bridge: a neighbour's signal with a little of its own
            nb = int(np.argsort(arc(XYZ[c]))[1])
            out[nb] = 0.95 * out[c] + 0.05 * out[nb]
