"""Seizures of the ``mvar`` generator: ictal AR(2) rhythms on the focus and the sources
it recruits, shaped through their phase, windowed to the asked interval; the background's
attenuation during them and post-ictal slowing after."""

from __future__ import annotations

import numpy as np
from scipy.signal import hilbert, sosfilt

from rt_eeg.xsim.mvar.common import XYZ, E, lead_field, shape_wave, tvar2, window

ICTAL_BLOCK_S = 0.25


def seizure(kind, p, a_s, b_s, fs, n, src_pos, L, bg, rng, eeg_adds, emg_sos):
    """Put one seizure of morphology ``kind`` (one of ``gen_mvar.SEIZURE_TYPES``) on ``[a_s, b_s)``.

    Parameters
    ----------
    src_pos : ndarray, shape (n_sources, 3)
        Source unit vectors.
    L : ndarray, shape (21, n_sources)
        Lead field.
    bg : ndarray of float32, shape (n_sources, n)
        Background source signals: attenuated and slowed on the involved sources, in place.
    eeg_adds : list
        Ictal signals are appended as ``(start_sample, lead (21,), signal (m,))``, every one
        zero outside the seizure.
    """
    a, b = int(round(a_s * fs)), min(n, int(round(b_s * fs)))
    m = b - a
    if m < 4:
        return
    blk = int(round(ICTAL_BLOCK_S * fs))
    t = np.linspace(0, 1, int(np.ceil(m / blk)) + 1)[:-1]  # block times, fraction of seizure
    focus = p["focus"]
    dist = np.linalg.norm(src_pos - src_pos[focus], axis=1)
    order = list(np.argsort(dist))
    extent = p["extent"] if rng.random() < 0.7 else str(rng.choice(["focal", "hemi", "gen"]))
    n_inv = {"focal": int(rng.integers(1, 3)), "hemi": int(rng.integers(3, 6)), "gen": len(order)}
    inv = order[: n_inv[extent]]
    amp = p["sz_amp_uv"] * rng.uniform(0.7, 1.3)
    sharp = float(np.clip(p["sharpness"] + rng.normal(0, 0.2), 0, 1))
    shape, gains, lead_w = "sharp", None, None
    if kind in ("evolving_focal", "lvfa_evolving"):
        f0, f1 = rng.uniform(4.5, 9.5), rng.uniform(2.0, 4.0)
        knots = ([0, 0.15, 1], [f0, f0 * rng.uniform(0.95, 1.15), f1])
        ampk = ([0, 0.3, 1], [0.35, 1.0, 1.1])
        bwk = ([0, 0.4, 1], [1.2, 0.4, 0.5])
    elif kind == "rhythmic_delta":
        f0 = rng.uniform(1.5, 3.2)
        knots, ampk, bwk = (
            ([0, 1], [f0, f0 * 0.85]),
            ([0, 0.2, 1], [0.5, 1.6, 1.6]),
            ([0, 1], [0.4, 0.3]),
        )
    elif kind == "spike_wave":
        f0 = rng.uniform(2.7, 4.0)
        knots, ampk, bwk = (
            ([0, 1], [f0, f0 - 0.6]),
            ([0, 0.05, 1], [0.8, 1.4, 1.2]),
            ([0, 1], [0.2, 0.2]),
        )
        inv, shape = order, "spike_wave"
        cls_gain = {"front": 1.0, "vert": 1.0, "cen": 0.8, "temp": 0.6, "par": 0.5, "occ": 0.35}
        gains = [cls_gain.get(p["sources"][i][0], 0.6) for i in inv]
    elif kind == "subtle_focal":
        f0 = rng.uniform(4.0, 8.0)
        knots, ampk, bwk = ([0, 1], [f0, f0 * 0.8]), ([0, 1], [0.35, 0.5]), ([0, 1], [0.6, 0.5])
        e0 = int(rng.choice([E[x] for x in ("T3", "T4", "F7", "F8", "C3", "C4", "T5", "T6")]))
        nb = np.argsort(np.linalg.norm(XYZ - XYZ[e0], axis=1))[1]
        lead_w = lead_field((XYZ[e0] + XYZ[nb]) / np.linalg.norm(XYZ[e0] + XYZ[nb]), 0.4)
        lead_w = np.where(lead_w > 0.2, lead_w, 0.0)  # 2-4 electrodes only
        inv = [focus]
    else:  # tonic_clonic
        knots = ([0, 0.3, 0.36, 1], [rng.uniform(12, 18), 8.0, 4.5, 1.5])
        ampk, bwk = ([0, 0.3, 0.36, 1], [0.4, 1.0, 1.2, 1.0]), ([0, 1], [1.5, 0.6])
        inv, shape = order, "clonic"
    f = np.interp(t, *knots)
    bw = np.interp(t, *bwk)
    ampb = np.interp(t, *ampk) * amp
    w = window(n, a, b, int(0.4 * fs))[a:b]
    sig_focus = None
    t_rec = 0.0
    build = np.ones(m)
    if kind == "lvfa_evolving":  # low-voltage fast onset; the evolving rhythm builds after it
        k1 = int(m * rng.uniform(0.1, 0.25))
        build = np.clip((np.arange(m) - k1) / fs / 3.0, 0, 1)
    for k, s in enumerate(inv):
        e = rng.standard_normal(m)
        if k == 0:
            y = tvar2(e, f, bw, ampb, blk, fs)
            sig_focus = y / max(1e-9, float(np.std(y)))
            onset = 0.0
        else:  # MVAR cross-term from the focus, delayed; recruited later when focal
            d = min(m - 1, int(round(fs * rng.uniform(0.005, 0.03))))
            drive = np.r_[np.zeros(d), sig_focus[: m - d]] * 0.85
            rel = np.exp(-dist[s] / 0.9) if gains is None else gains[k]
            if shape == "sharp" or kind == "rhythmic_delta":
                t_rec += rng.uniform(1.0, 8.0) / max(1e-3, (b_s - a_s))
            onset = min(0.9, t_rec)
            y = tvar2(e, f, bw, ampb * rel * (t >= onset), blk, fs, drive=drive, kappa=0.85)
        if shape != "sharp" or sharp > 0.2:
            y = shape_wave(y, sharp, shape)
        lead = lead_w if lead_w is not None else L[:, s]
        eeg_adds.append((a, lead, y * w * build))
    # background during and after the seizure on the involved sources
    att = np.ones(m)
    if kind == "lvfa_evolving":
        fast = tvar2(rng.standard_normal(m), np.full(t.size, rng.uniform(15, 28)),
                      np.full(t.size, 3.0), np.full(t.size, rng.uniform(6, 12)), blk, fs)  # fmt: skip
        fw = window(m, 0, k1 + int(fs), int(0.3 * fs))
        for s in inv[:3]:
            eeg_adds.append((a, L[:, s], fast * fw * w))
        att[: k1 + int(fs)] = 0.3
    if kind == "tonic_clonic":
        emg = sosfilt(emg_sos, rng.standard_normal(m))
        emg /= np.std(emg) + 1e-9
        ph = np.angle(hilbert(sig_focus))
        burst = np.where(np.arange(m) < 0.33 * m, 1.0, np.maximum(np.cos(ph), 0) ** 2 * 2)
        lead = 0.4 + 0.6 * np.abs(XYZ[:, 1])  # temporal-frontal muscles strongest
        eeg_adds.append((a, lead, emg * burst * w * rng.uniform(30, 80)))
        att[:] = 0.5
    if kind in ("lvfa_evolving", "tonic_clonic"):
        for s in inv:
            bg[s, a:b] *= att
    if kind not in ("subtle_focal", "spike_wave"):  # post-ictal slowing and attenuation
        k = min(n - b, int(fs * rng.uniform(20, 90)))
        if k > 4:
            dec = np.linspace(1, 0, k)
            nbk = int(np.ceil(k / blk))
            for s in inv[:6]:
                bg[s, b : b + k] *= 1 - 0.6 * dec
                slow = tvar2(rng.standard_normal(k), np.full(nbk, 1.2), np.full(nbk, 2.5),
                              np.full(nbk, p["amp_uv"] * 0.8), blk, fs)  # fmt: skip
                bg[s, b : b + k] += slow * dec * window(k, 0, k, int(fs))
