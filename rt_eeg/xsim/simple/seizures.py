"""Seizures of the ``simple`` generator: background attenuation, the ictal waveform and its
spread, ictal artifacts, post-ictal suppression and slowing."""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.simple.artifacts import chewing, emg_burst, movement
from rt_eeg.xsim.simple.prims import (
    BLINK,
    GEN,
    NC,
    Rec,
    add,
    arc,
    band,
    bump,
    flat_env,
    gauss_field,
    noise,
    nudge,
    rhythm,
    sstep,
)

SEIZURE_TYPES = (
    "focal_evolving",
    "focal_lvfa",
    "focal_rhythmic_delta",
    "subtle_focal",
    "absence",
    "generalized_polyspike",
    "tonic_clonic",
    "evolving_lpd",
)
GENERALIZED = ("absence", "generalized_polyspike", "tonic_clonic")


def seizure(out, rng, P: dict, S: Rec, a: float, b: float) -> str:
    """Render one seizure in ``[a, b]`` with its post-ictal tail; returns its type."""
    fs, n = S.fs, S.n
    st = P["sz_types"]
    kind = st[1] if rng.random() < P["p_secondary"] else st[0]
    i0, i1 = int(round(a * fs)), min(int(round(b * fs)), n)
    m = i1 - i0
    if m < 8:
        return kind
    T = m / fs
    tt = np.arange(m) / fs
    u = rng.uniform
    # Ictal amplitude: the patient's, but never below a few times the background level.
    amp = P["scale"] * max(P["ictal_amp"] * rng.lognormal(0, 0.25), u(2.5, 4) * P["bb_amp"])
    focus = nudge(rng, P["focus_xyz"], 0.08)
    dist = arc(focus)
    gen = kind in GENERALIZED
    w0 = GEN * rng.lognormal(0, 0.1, NC) if gen else gauss_field(focus, u(0.3, 0.5))
    att, post, spread = u(0.2, 0.5), u(0.2, 0.6), not gen
    end = min(u(0.3, 2.0), 0.15 * T)

    def ramp(r, lo):  # rise from lo to 1 over r seconds, slow AM, fade in the last `end` s
        am = np.exp(0.15 * np.interp(tt, np.arange(int(T) + 2), rng.standard_normal(int(T) + 2)))
        return (lo + (1 - lo) * sstep(tt / min(r, 0.5 * T))) * am * sstep((T - tt) / end)

    def rh(f0, f1, **kw):
        return rhythm(rng, m, fs, f0, f1, **kw)

    arts = []  # ictal artifacts: (kind, t0, t1)
    if kind == "focal_evolving":
        sh = (u(0, 0.3), u(0.4, 0.8))
        x = rh(
            u(4.5, 8), u(1.8, 3.5), p=u(0.6, 1.6), sharp=sh, jitter=0.2, fm=0.05, irr=u(0.2, 0.6)
        )
        x *= ramp(u(3, 15), u(0.1, 0.3))
    elif kind == "focal_lvfa":  # low-voltage fast onset with decrement, then rhythmic spikes
        L = min(0.35 * T, u(2, 12))
        fast = rh(u(15, 28), u(9, 13), jitter=0.3, fm=0.08, irr=0.5)
        rhy = rh(u(5, 8), u(2, 3.5), sharp=(0.3, 0.7), jitter=0.25, fm=0.05, irr=u(0.2, 0.5))
        ef = (0.3 + 0.7 * sstep(tt / L)) * (1 - sstep((tt - L) / 3))
        low = u(5, 20) * P["scale"] / amp  # the fast onset is low-voltage in absolute terms
        x = (low * fast * ef + rhy * sstep((tt - 0.7 * L) / u(3, 10))) * ramp(1, 1)
        att = u(0.5, 0.8)
    elif kind == "focal_rhythmic_delta":
        f, s = u(1.5, 3.0), u(0.35, 0.7)
        x = rh(f, f * u(0.75, 1.3), sharp=(s, s), jitter=0.25, fm=0.08, irr=u(0.3, 0.6))
        x *= ramp(u(3, 20), u(0.2, 0.4))
    elif kind == "subtle_focal":  # small, confined, hardly evolving
        f = u(*[(1.5, 3.0), (4, 7), (7.5, 11)][int(rng.integers(3))])
        x = rh(f, f * u(0.8, 1.1), sharp=(0, u(0, 0.3)), jitter=0.3, fm=0.05, irr=0.4)
        x *= ramp(u(2, 10), 0.3)
        amp = P["bb_amp"] * P["scale"] * u(1.2, 2.5)
        w0, att, post, spread = gauss_field(focus, u(0.25, 0.38)), 0.0, 0.0, False
    elif kind == "absence":
        aty = P["atypical_absence"]
        f = u(1.6, 2.5) if aty else u(2.8, 4.0)
        x = rh(f, f - u(0.2, 0.8), sw=1 + int(rng.random() < 0.25), spike_s=u(0.012, 0.025),
               jitter=0.12, cj=0.03, irr=u(0.05, 0.2))  # fmt: skip
        e = flat_env(m, fs, 1.5 if aty else u(0.15, 0.5))
        if T > 20:  # long absences show brief interruptions
            for t0 in rng.uniform(3, T - 3, int(T / 12)):
                e *= 1 - 0.8 * bump(tt, t0, 0.3)
        x *= e
        amp *= u(2.0, 4.0)
        att, post = 0.3, 0.0
        if rng.random() < 0.3:
            arts.append(("ictal_eyelid_flutter", 0.0, T))
    elif kind == "generalized_polyspike":
        f = u(2.5, 4.5)
        x = rh(f, f * u(0.7, 1.0), sw=int(rng.integers(2, 6)), spike_s=0.012, jitter=0.35,
               fm=0.15, cj=0.1, irr=0.3) * ramp(0.5, 0.5)  # fmt: skip
        if T > 10:  # fragmented runs
            kn = np.arange(int(T) + 2)
            x *= 0.25 + 0.75 * sstep(np.interp(tt, kn, rng.standard_normal(kn.size)) + 0.8)
        amp *= u(1.5, 3.0)
        post = u(0.0, 0.3)
        if rng.random() < 0.5:
            arts.append(("ictal_myoclonic_emg", 0.0, T))
    elif kind == "tonic_clonic":  # recruiting fast rhythm under tonic EMG, then clonic bursts
        tA = u(0.25, 0.5) * T
        tonic = rh(u(9, 13), u(6, 9), sharp=(0.1, 0.3), jitter=0.2, irr=0.4)
        tonic *= (0.2 + 0.6 * sstep(tt / tA)) * (1 - sstep((tt - tA) / 1.5))
        clonic = rh(u(3, 4.5), u(0.8, 1.5), sw=int(rng.integers(2, 5)), spike_s=0.012,
                    jitter=0.3, cj=0.1, irr=0.2)  # fmt: skip
        clonic *= sstep((tt - tA + 1) / 2)
        x = (tonic + clonic) * ramp(0.3, 1)
        amp *= u(1.5, 3.0)
        att, post = u(0.5, 0.8), u(0.7, 0.95)
        arts.append(("ictal_emg", u(0.3, 3), T))
        if rng.random() < 0.6:
            t0 = u(0.1, 0.8) * T
            arts.append(("ictal_movement", t0, min(T, t0 + u(1, 4))))
    else:  # evolving lateralised periodic discharges
        x = rh(u(0.6, 1.2), u(1.8, 3.0), p=0.7, sw=1, spike_s=u(0.03, 0.07), jitter=0.2,
               cj=0.1, irr=0.25) * ramp(u(5, 20), 0.5)  # fmt: skip
        w0 = gauss_field(focus, u(0.6, 0.9))
        amp *= u(1.0, 2.0)
        post, spread = u(0.1, 0.4), False
    if kind in ("focal_evolving", "focal_lvfa", "focal_rhythmic_delta"):
        if rng.random() < 0.3:
            t0 = u(0.1, 0.5) * T
            arts.append(("ictal_chewing", t0, min(T, t0 + u(5, 30))))
        if rng.random() < 0.25:
            t0 = u(0.2, 0.9) * T
            arts.append(("ictal_emg", t0, min(T, t0 + u(2, 15))))
    # Spread: a focal seizure recruits farther electrodes (or both hemispheres) late.
    w1, delay, rmp = w0, np.zeros(NC), 1.0
    if spread and rng.random() < P["p_spread"]:
        if rng.random() < P["p_bilateral"]:  # bilateral spread: background and PDR go
            wide, att, post = GEN * u(0.6, 1.0), max(att, u(0.6, 0.9)), max(post, u(0.5, 0.9))
        else:
            wide = gauss_field(focus, u(0.8, 1.4))
        w1 = np.maximum(w0, wide)
        delay = u(0.1, 0.5) * T + dist / u(0.08, 0.5)
        rmp = u(2, 6)
    lag = (dist * (u(0, 0.004) if gen else u(0.005, 0.03)) * fs).astype(int)
    wmax = np.maximum(w0, w1)
    edge = flat_env(m, fs, 0.5)
    for c in np.flatnonzero(wmax > 0.03):
        gc = w0[c] + (w1[c] - w0[c]) * np.clip((tt - delay[c]) / rmp, 0, 1)
        if att:  # the ictal rhythm replaces the background
            out[c, i0:i1] *= 1 - att * edge * gc / wmax.max()
        sig = np.zeros(m)
        sig[lag[c] :] = x[: m - lag[c]]
        out[c, i0:i1] += amp * gc * sig
    for kd, t0, t1 in arts:
        j0, j1 = int(t0 * fs), int(t1 * fs)
        if j1 - j0 < 4:
            continue
        if kd == "ictal_emg":
            gate = np.where(tt[j0:j1] < (tA if kind == "tonic_clonic" else T), 1.0, 0.0)
            if kind == "tonic_clonic":
                gate += np.clip(-clonic[j0:j1] - 0.3, 0, None) * 1.5
            X, ch = emg_burst(rng, fs, j1 - j0, "all" if gen else "LR", u(30, 150))
            add(out, i0 + j0, X * (gate * flat_env(j1 - j0, fs, 0.3)), ch)
        elif kd == "ictal_myoclonic_emg":
            X, ch = emg_burst(rng, fs, j1 - j0, "all", u(20, 80))
            add(out, i0 + j0, X * np.clip(-x[j0:j1] / (np.abs(x).max() + 1e-9) - 0.5, 0, None), ch)
        elif kd == "ictal_chewing":
            X, ch = chewing(rng, fs, j1 - j0, u(20, 100))
            add(out, i0 + j0, X, ch)
        elif kd == "ictal_movement":
            X, ch = movement(rng, fs, j1 - j0, u(80, 400))
            add(out, i0 + j0, X, ch)
        else:  # eyelid flutter at the discharge rate
            flt = np.clip(-x[j0:j1], 0, None) * flat_env(j1 - j0, fs, 0.3) * u(20, 60)
            add(out, i0 + j0, flt, BLINK)
        S.event(a + t0, a + t1, kd)
    if post > 0 and i1 < n:  # post-ictal suppression and polymorphic slowing
        lp = u(20, 150) * (2 if kind == "tonic_clonic" else 1)
        j1 = min(n, i1 + int(lp * fs))
        tp = np.arange(j1 - i1) / fs
        wf = w1 / w1.max()
        sup = np.exp(-tp / (lp / 3))
        dl = noise(rng, j1 - i1, fs, band(0.5, 3.0)) * amp * u(0.15, 0.4)
        dl *= sstep(tp / 5) * np.exp(-tp / (lp / 2))
        for c in np.flatnonzero(wf > 0.05):
            out[c, i1:j1] *= 1 - post * wf[c] * sup
            out[c, i1:j1] += wf[c] * dl
        S.event(b, b + lp, "postictal_slowing")
    return kind
