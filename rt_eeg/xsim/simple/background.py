"""Vigilance (hypnogram, eyes open/closed, photic and hyperventilation windows) and the
continuous background sources of the ``simple`` generator."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import uniform_filter1d

from rt_eeg.xsim.simple.prims import (
    DT,
    NC,
    XYZ,
    Rec,
    band,
    gauss_field,
    grid,
    mixin,
    noise,
    nudge,
    slow,
    sstep,
    toward,
)


def vigilance(rng, P: dict, S: Rec) -> None:
    """Hypnogram, eyes open/closed, photic and hyperventilation windows on the control grid."""
    dur = S.dur
    nc = int(np.ceil(dur / DT)) + 2
    S.tc = np.arange(nc) * DT
    sleepy = {"routine": rng.beta(1.5, 3), "emu": rng.beta(2, 2), "icu": rng.beta(3, 1.5)}
    sleepy = float(sleepy[P["setting"]])
    mean = (300.0 * (1.6 - sleepy), 100.0, 500.0, 600.0)
    s = 0 if rng.random() < 0.9 - 0.6 * sleepy else int(rng.choice([1, 2]))
    t, segs = 0.0, []
    while t < dur:
        d = mean[s] * rng.lognormal(0, 0.6)
        segs.append((t, min(t + d, dur), s))
        t += d
        r = rng.random()
        if s == 0:
            s = 1
        elif s == 1:
            s = 0 if r < 0.8 - 0.6 * sleepy else 2
        elif s == 2:
            s = 3 if r < 0.2 + 0.3 * sleepy else 1 if r < 0.75 else 0
        else:
            s = 2
    step = np.zeros(nc)
    for a, b, s in segs:
        step[int(a / DT) : int(np.ceil(b / DT)) + 1] = s
    forced = []
    if P["setting"] == "routine" and dur > 900:
        if rng.random() < 0.5:
            a = rng.uniform(0.1, 0.4) * dur
            S.hv = (a, min(a + rng.uniform(180, 300), dur))
            forced.append((S.hv[0], S.hv[1] + 60))
        if rng.random() < 0.6:
            fr = [1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 30]
            fr = fr[int(rng.integers(0, 3)) : len(fr) - int(rng.integers(0, 4))]
            train, gap = rng.uniform(6, 10), rng.uniform(4, 10)
            a = rng.uniform(0.5, 0.85) * dur
            if a + len(fr) * (train + gap) < dur:
                S.photic = (a, fr, train, gap)
                forced.append((a, a + len(fr) * (train + gap)))
    for a, b in forced:
        step[int((a - 20) / DT) : int((b + 20) / DT)] = 0
    S.depth = uniform_filter1d(step, 120, mode="nearest")  # 30 s transitions
    # Awake: alternate eyes open / closed (alpha blocks, blinks come with open eyes).
    eyes = np.zeros(nc)
    t, op = 0.0, rng.random() < 0.5
    m_open, m_closed = rng.uniform(8, 40), rng.uniform(10, 60)
    while t < dur:
        d = rng.exponential(m_open if op else m_closed) + 2.0
        if op:
            eyes[int(t / DT) : int((t + d) / DT)] = 1.0
        t += d
        op = not op
    eyes *= step == 0
    for a, b in forced:
        eyes[int(a / DT) : int(b / DT)] = 0.0
    S.closures = list(S.tc[1:][np.diff(eyes) < 0])
    S.eyes = uniform_filter1d(eyes, 3, mode="nearest")
    names = ("state_awake", "state_drowsy", "state_n2", "state_n3")
    i = 0
    while i < len(segs):  # merge repeats into one event per state run
        j = i
        while j + 1 < len(segs) and segs[j + 1][2] == segs[i][2]:
            j += 1
        S.event(segs[i][0], segs[j][1], names[segs[i][2]])
        i = j + 1


def background(out, rng, P: dict, S: Rec) -> None:
    """Broadband 1/f (shared patches + per electrode), alpha, mu, beta, theta, delta, focal
    slowing; amplitudes follow vigilance."""
    n, fs, d = S.n, S.fs, S.depth
    t = np.arange(n) / fs
    nc = S.tc.size

    def ip(ctrl):
        return np.interp(t, S.tc, ctrl)

    k = S.k = P["scale"] * rng.lognormal(0, 0.1)
    fg = grid(n, fs)[1]
    pk = (fg * fg + 0.6**2) ** (-P["slope"] / 2)  # 1/f^slope with a knee at 0.6 Hz

    def pink(f):
        return pk

    # Shared broadband: random cortical patches smeared by volume conduction (sigma ~ 30 deg),
    # rows normalised so each electrode has the same broadband power before its gain.
    cen = rng.standard_normal((40, 3))
    cen /= np.linalg.norm(cen, axis=1, keepdims=True)
    cen = cen[cen[:, 2] > -0.2][:12]
    W = np.exp(-0.5 * (np.arccos(np.clip(XYZ @ cen.T, -1, 1)) / 0.55) ** 2)
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    e = ip(P["bb_amp"] * k * np.interp(d, [0, 1, 2, 3], [1.0, 1.0, 1.3, 1.6]))
    for j in range(W.shape[1]):
        mixin(out, W[:, j], noise(rng, n, fs, pink) * e)
    pkf = pk + rng.uniform(1e-4, 2e-3)
    for c in range(NC):  # local part plus amplifier noise floor
        out[c] += (noise(rng, n, fs, lambda f: pkf) * P["ind_amp"] * k).astype(np.float32)
    # Posterior dominant rhythm: one phase, two hemispheric envelopes.
    aw = np.interp(d, [0, 0.5, 1.0, 1.5], [1, 0.7, 0.25, 0])
    fa = P["pdr_hz"] - 0.8 * np.clip(d, 0, 1) + 0.2 * slow(rng, nc, 10.0) + 0.4 * slow(rng, nc, 0.5)
    ph = 2 * np.pi * np.cumsum(ip(fa)) / fs + rng.uniform(0, 2 * np.pi)
    wax = np.exp(0.5 * slow(rng, nc, 1.0))
    base = P["alpha_amp"] * k * aw * (1 - P["alpha_block"] * S.eyes) * wax
    for side, ref, g in (("O1", "P3", 1.0), ("O2", "P4", P["alpha_lr"])):
        lag = rng.uniform(0, 0.4)
        x = np.sin(ph + lag) + P["alpha_h2"] * np.sin(2 * (ph + lag) + 1.0)
        env = ip(base * g * np.exp(0.15 * slow(rng, nc, 3.0)))
        mixin(out, gauss_field(toward(side, side, side, ref), 0.45), x * env)
    if P["mu"]:
        ph = 2 * np.pi * np.cumsum(ip(P["mu_hz"] + 0.2 * slow(rng, nc, 10.0))) / fs
        for side in ("C3", "C4"):
            burst = np.clip(slow(rng, nc, 2.0) - 0.3, 0, None) * aw
            x = np.cos(ph) + 0.4 * np.cos(2 * ph)  # arciform
            mixin(out, gauss_field(toward(side), 0.4), x * ip(burst * rng.uniform(6, 20) * k))
    groups = (
        (
            ("F3", "F4", "CZ"),
            0.7,
            lambda f: np.exp(-0.5 * ((f - P["beta_hz"]) / 4) ** 2) + 0.3 * band(13, 30)(f),
            P["beta_amp"] * np.interp(d, [0, 1, 2, 3], [1, 1.3, 0.8, 0.4]),
        ),
        (
            ("FZ", "T3", "T4", "CZ"),
            0.6,
            band(4, 7.5),
            P["theta_amp"] * np.interp(d, [0, 1, 2, 3], [0.5, 1.6, 1.2, 0.8]),
        ),
        (
            ("F3", "F4", "C3", "C4", "FZ", "PZ"),
            0.55,
            band(0.3, 2.2),
            P["delta_amp"] * (1 + np.clip(d, 0, 2)) + P["sws_amp"] * sstep(d - 2),
        ),
    )
    for sites, sig, psd, amp in groups:
        env = ip(amp * k)
        for e in sites:
            g = 1.3 if e in ("F3", "F4", "FZ") else 1.0  # frontal predominance
            x = noise(rng, n, fs, psd) * env * rng.uniform(0.7, 1.1) * g
            mixin(out, gauss_field(nudge(rng, toward(e), 0.1), sig), x)
    if P["slow_focus"]:
        inter = 0.4 + 1.2 * sstep(slow(rng, nc, 20.0))  # polymorphic, comes and goes
        env = ip(P["slow_amp"] * k * inter * (1 + 0.3 * d))
        x = noise(rng, n, fs, band(0.7, 4.0)) * env
        mixin(out, gauss_field(toward(P["slow_focus"]), 0.45), x)
