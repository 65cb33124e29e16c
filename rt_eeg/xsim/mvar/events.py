"""Transients and artifacts of the ``mvar`` generator: sleep transients and benign rhythmic
variants, eye, muscle, electrode and movement artifacts, each as (start, lead, signal)."""

from __future__ import annotations

import numpy as np
from scipy.signal import sosfilt

from rt_eeg.xsim.mvar.common import XYZ, bump, lead_field, shape_wave, tvar2, unit, window

ARTIFACTS = ("blink", "eye_movement", "emg", "chewing", "electrode_pop", "sweat", "movement")


def transients(p, state, blk, fs, n, L, src_cls, rng, adds, events):
    """Sleep transients (spindles, K-complexes, vertex waves) and benign rhythmic variants."""
    vert = L[:, src_cls.index("vert")]
    cen = [L[:, i] for i, c in enumerate(src_cls) if c == "cen"]
    temp = [L[:, i] for i, c in enumerate(src_cls) if c == "temp"]
    dur = n / fs

    def times(mask_states, rate_s):
        ok = np.isin(state, mask_states)
        k = rng.poisson(ok.sum() * blk / fs / rate_s) if ok.any() else 0
        blocks = rng.choice(np.flatnonzero(ok), k) if k else []
        return sorted(float((j + rng.random()) * blk / fs) for j in blocks)

    def rhythm(f, secs, sd, sharp, kind="sharp"):
        m = int(secs * fs)
        nbk = int(np.ceil(m / blk)) + 1
        y = tvar2(rng.standard_normal(m), np.full(nbk, f), np.full(nbk, 0.6),
                   np.full(nbk, sd), blk, fs)  # fmt: skip
        return shape_wave(y, sharp, kind) * np.sin(np.pi * np.arange(m) / m) ** 2

    for t0 in times([3], 8.0):
        secs = rng.uniform(0.5, 2.0)
        lead = vert * rng.uniform(0.5, 1) + sum(c * rng.uniform(0.3, 0.8) for c in cen)
        adds.append(
            (
                int(t0 * fs),
                lead / lead.max(),
                rhythm(p["spindle_hz"] + rng.normal(0, 0.3), secs, rng.uniform(6, 14), 0),
            )
        )
        events.append((t0, t0 + secs, "spindle"))
    for t0 in times([3], 45.0):
        A = rng.uniform(50, 140)
        kc = -A * bump(fs, 1.2, 0.3, 0.08) + 0.55 * A * bump(fs, 1.2, 0.65, 0.16)
        adds.append((int(t0 * fs), 0.7 * vert + 0.3 * lead_field(unit(40, 0), 0.7), kc))
        events.append((t0, t0 + 1.2, "k_complex"))
    for t0 in times([2, 3], 25.0):
        A = rng.uniform(30, 90)
        vw = -A * bump(fs, 0.5, 0.12, 0.035) + 0.3 * A * bump(fs, 0.5, 0.24, 0.05)
        adds.append((int(t0 * fs), vert, vw))
        events.append((t0, t0 + 0.5, "vertex_wave"))
    rate = 1.0 + 2.0 * rng.random()
    if "rmtd" in p["benign"]:  # rhythmic mid-temporal theta of drowsiness, notched
        for t0 in times([2], 90.0 / rate):
            secs = rng.uniform(3, 10)
            adds.append(
                (
                    int(t0 * fs),
                    temp[int(rng.integers(2))],
                    rhythm(rng.uniform(5, 6.8), secs, rng.uniform(15, 30), 0.8),
                )
            )
            events.append((t0, min(dur, t0 + secs), "rmtd"))
    if "wicket" in p["benign"]:  # arciform temporal trains in drowsiness and light sleep
        for t0 in times([2, 3], 60.0 / rate):
            secs = rng.uniform(0.5, 3.5)
            adds.append(
                (
                    int(t0 * fs),
                    temp[int(rng.integers(2))],
                    -rhythm(rng.uniform(6.5, 11), secs, rng.uniform(15, 35), 1.0),
                )
            )
            events.append((t0, min(dur, t0 + secs), "wicket"))
    if "mu" in p["benign"]:  # central arciform alpha, awake (blocked by movement)
        for t0 in times([0, 1], 30.0 / rate):
            secs = rng.uniform(1, 8)
            adds.append((int(t0 * fs), cen[int(rng.integers(2))],
                         -rhythm(p["freqs"]["alpha"] + rng.uniform(-1, 1), secs,
                                 rng.uniform(8, 20), 0.9)))  # fmt: skip
            events.append((t0, min(dur, t0 + secs), "mu"))


def artifacts(p, state, blk, fs, n, rng, adds, events, emg_sos):
    """Eye, muscle, electrode and movement artifacts as (start, lead (21,), signal)."""
    dur = n / fs
    eye = lead_field(unit(115, 0), 0.5)
    eyes_lr = lead_field(unit(105, 30), 0.5) - lead_field(unit(105, -30), 0.5)
    for kind, wgt in zip(ARTIFACTS, p["artifact_weights"], strict=True):
        k = int(rng.poisson(p["artifact_rate"] * wgt * dur / 60.0))
        for _ in range(k):
            t0 = float(rng.uniform(0, dur))
            i0 = int(t0 * fs)
            if kind == "blink":
                if state[min(len(state) - 1, i0 // blk)] == 3:
                    continue
                secs = rng.uniform(0.25, 0.5)
                sig = rng.uniform(60, 250) * bump(fs, secs, secs * 0.4, secs * 0.18)
                lead = eye
            elif kind == "eye_movement":
                secs = rng.uniform(0.4, 2.0)
                m = int(secs * fs)
                sig = rng.uniform(30, 110) * rng.choice([-1, 1]) * window(m, 0, m, int(0.08 * fs))
                lead = eyes_lr / np.abs(eyes_lr).max()
            elif kind in ("emg", "chewing", "movement"):
                secs = rng.uniform(0.5, 6) if kind != "chewing" else rng.uniform(3, 10)
                m = int(secs * fs)
                sig = sosfilt(emg_sos, rng.standard_normal(m))
                sig *= rng.uniform(10, 60) / (np.std(sig) + 1e-9)
                if kind == "chewing":
                    ph = 2 * np.pi * rng.uniform(1.0, 1.7) * np.arange(m) / fs
                    sig *= np.maximum(np.sin(ph), 0) ** 2 * 2
                lead = lead_field(unit(95, 90 * rng.choice([-1, 1])), 0.6)
                if kind == "chewing" or rng.random() < 0.3:
                    lead = np.maximum(lead, lead_field(unit(95, -90), 0.6))
                if kind == "movement":
                    slow = np.cumsum(rng.standard_normal(m)) / np.sqrt(fs)
                    sig = sig * 2 + rng.uniform(20, 80) * slow / (np.abs(slow).max() + 1e-9)
                    lead = rng.uniform(0.4, 1.0, 21)
                sig = sig * window(m, 0, m, int(0.1 * fs))
            elif kind == "electrode_pop":
                secs = rng.uniform(0.5, 3)
                m = int(secs * fs)
                sig = np.zeros(m)
                for _j in range(int(rng.integers(1, 4))):
                    j0 = int(rng.uniform(0, 0.7) * m)
                    tau = rng.uniform(0.1, 0.5)
                    sig[j0:] += rng.uniform(60, 300) * np.exp(-np.arange(m - j0) / (tau * fs))
                sig *= rng.choice([-1, 1])
                lead = np.zeros(21)
                lead[int(rng.integers(21))] = 1.0
            else:  # sweat: slow large sway on a few neighbouring electrodes
                secs = rng.uniform(10, 60)
                m = int(secs * fs)
                tt = np.arange(m) / fs
                sig = rng.uniform(30, 150) * np.sin(2 * np.pi * rng.uniform(0.05, 0.3) * tt
                                                    + rng.uniform(0, 6.3))  # fmt: skip
                sig *= np.sin(np.pi * tt / secs)
                c = int(rng.integers(21))
                lead = lead_field(XYZ[c], 0.45)
                lead = np.where(lead > 0.3, lead, 0.0)
            adds.append((i0, lead, sig))
            events.append((t0, min(dur, t0 + len(sig) / fs), kind))
