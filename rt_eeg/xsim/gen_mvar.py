"""Simulated scalp EEG from a time-varying multivariate autoregression (MVAR).

A patient has 10-12 latent cortical sources on the scalp sphere. Each source carries four
damped resonances (delta, theta, alpha, beta), each a time-varying AR(2) whose poles
(frequency, bandwidth) and gain follow the vigilance state block by block (2 s blocks, the
filter state carried across so the signal stays continuous). Sources are coupled by MVAR
cross-terms along a directed acyclic graph (a source is driven by the delayed output of at
most two earlier sources, more strongly when near), so coherence falls with distance. A smooth
distance-based lead field mixes sources to the 21 electrodes; a pink floor, mains hum, ECG,
artifacts and benign rhythmic variants are added on top.

Seizures are ictal AR(2) generators whose poles move towards the unit circle (narrow band,
frequency drifting, amplitude rising), spreading to neighbouring sources through MVAR coupling
to the focus, shaped nonlinearly through their phase (sharp waves, spike-and-wave, clonic
bursts), windowed exactly to the requested interval; post-ictal slowing may follow.
"""

from __future__ import annotations

import numpy as np
from scipy.signal import butter, hilbert, lfilter, sosfilt

from rt_eeg.xsim.base import ELECTRODES, Rendered, electrode_xyz

NAME = "mvar"
DESCRIPTION = (
    "time-varying multivariate autoregression: coupled AR(2) cortical sources with "
    "state-driven poles under a smooth lead field; ictal poles moving to the unit circle"
)

_XYZ = electrode_xyz()
_E = {e: i for i, e in enumerate(ELECTRODES)}
BLOCK_S, ICTAL_BLOCK_S = 2.0, 0.25
_CLASSES = ("occ", "par", "cen", "vert", "front", "temp", "extra")
# (class, polar, azimuth) in degrees, as base.py's electrode geometry
_SOURCES = (("occ", 100, 160), ("occ", 100, -160), ("par", 55, 180), ("cen", 45, 90),
            ("cen", 45, -90), ("vert", 10, 0), ("front", 65, 35), ("front", 65, -35),
            ("temp", 95, 90), ("temp", 95, -90))  # fmt: skip
BANDS = ("delta", "theta", "alpha", "beta")
STATES = ("awake", "eyes_open", "drowsy", "n2")
# amplitude multiplier per state, band and source class (order of _CLASSES)
_AMP = {
    "awake": {"delta": (.25, .25, .25, .25, .3, .25, .25), "theta": (.2,) * 7,
              "alpha": (1.0, .6, .3, .2, .1, .35, .3), "beta": (.1, .12, .15, .12, .18, .1, .12)},
    "eyes_open": {"delta": (.25,) * 7, "theta": (.15,) * 7,
                  "alpha": (.25, .15, .2, .1, .05, .1, .1), "beta": (.15, .15, .2, .15, .22, .15, .15)},
    "drowsy": {"delta": (.35,) * 7, "theta": (.35, .4, .5, .55, .5, .45, .4),
               "alpha": (.3, .2, .15, .1, .08, .2, .15), "beta": (.1,) * 7},
    "n2": {"delta": (.6, .6, .7, .8, .85, .6, .6), "theta": (.4,) * 7,
           "alpha": (.08,) * 7, "beta": (.08,) * 7},
}  # fmt: skip
SEIZURE_TYPES = ("evolving_focal", "lvfa_evolving", "spike_wave", "rhythmic_delta",
                 "subtle_focal", "tonic_clonic")  # fmt: skip
ARTIFACTS = ("blink", "eye_movement", "emg", "chewing", "electrode_pop", "sweat", "movement")
BENIGN = ("rmtd", "wicket", "mu")
# Kellet's pink-noise filter; its white-noise gain, to scale the floor in microvolts
_PINK_B = np.array([0.049922035, -0.095993537, 0.050612699, -0.004408786])
_PINK_A = np.array([1.0, -2.494956002, 2.017265875, -0.522189400])
_PINK_SD = float(np.sqrt(np.sum(lfilter(_PINK_B, _PINK_A, np.r_[1.0, np.zeros(40000)]) ** 2)))


def _unit(polar: float, azimuth: float) -> np.ndarray:
    th, ph = np.deg2rad([polar, azimuth])
    return np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])


def _lead(pos: np.ndarray, width: float) -> np.ndarray:
    """Smooth lead field of a source at unit vector ``pos``, shape (21,), max 1."""
    d = np.linalg.norm(_XYZ - pos[None, :], axis=1)
    g = np.exp(-((d / width) ** 2)) + 0.04  # 0.04: volume conduction reaching everywhere
    return g / g.max()


def draw_patient(rng: np.random.Generator) -> dict:
    """A patient's fixed traits (JSON-serialisable): sources, rhythms, seizures, artifacts."""
    age = float(rng.uniform(2, 85))
    srcs = [[c, p + rng.normal(0, 6), a + rng.normal(0, 6)] for c, p, a in _SOURCES]
    for _ in range(int(rng.integers(0, 3))):
        srcs.append(["extra", float(rng.uniform(20, 100)), float(rng.uniform(-180, 180))])
    alpha = rng.uniform(6.5, 8.5) if age < 8 else rng.uniform(8.0, 12.0 if age < 60 else 10.5)
    candidates = [i for i, s in enumerate(srcs) if s[0] in ("temp", "front", "cen", "par", "extra")]
    kid = age < 16
    w = np.array([3.0, 2.0, 4.0 if kid else 0.7, 1.5, 1.5, 1.0])
    n_types = 1 if rng.random() < 0.6 else 2
    types = [str(t) for t in rng.choice(SEIZURE_TYPES, n_types, replace=False, p=w / w.sum())]
    arts = rng.dirichlet(np.ones(len(ARTIFACTS)) * 2) * np.array([2.5, 1, 1.5, 0.5, 0.7, 0.4, 0.5])
    return {
        "age": age,
        "sources": [[c, float(p), float(a), float(rng.uniform(0.45, 0.75))] for c, p, a in srcs],
        "amp_uv": float(np.clip(rng.lognormal(np.log(14), 0.3), 7, 30)),
        "freqs": {
            "delta": float(rng.uniform(1.0, 2.5)),
            "theta": float(rng.uniform(4.5, 7.0)),
            "alpha": float(alpha),
            "beta": float(rng.uniform(15, 24)),
        },
        "alpha_bw": float(rng.uniform(0.8, 1.8)),
        "spindle_hz": float(rng.uniform(11.5, 14.5)),
        "coupling": float(rng.uniform(0.6, 0.95)),
        "coupling_len": float(rng.uniform(1.0, 2.0)),
        "sleepiness": float(rng.uniform(0, 1)),
        "focal_slowing": int(rng.choice(candidates)) if rng.random() < 0.25 else -1,
        "floor_uv": float(rng.uniform(1.5, 5.0)),
        "mains_hz": 60 if rng.random() < 0.5 else 50,
        "mains_uv": float(rng.lognormal(np.log(1.0), 0.8)),
        "ecg_uv": float(rng.uniform(3, 20)) if rng.random() < 0.45 else 0.0,
        "heart_bpm": float(rng.uniform(55, 95)),
        "artifact_rate": float(rng.lognormal(np.log(2.0), 0.8)),  # events per minute
        "artifact_weights": [float(x) for x in arts / arts.sum()],
        "benign": [
            b
            for b, p in zip(BENIGN, (0.35, 0.25 if age > 30 else 0.05, 0.3), strict=True)
            if rng.random() < p
        ],  # fmt: skip
        "seizure_types": types,
        "type_loyalty": float(rng.uniform(0.75, 1.0)),
        "focus": int(rng.choice(candidates)),
        "extent": str(rng.choice(["focal", "hemi", "gen"], p=[0.5, 0.35, 0.15])),
        "sz_amp_uv": float(rng.uniform(35, 90)),
        "sharpness": float(rng.uniform(0, 1)),
    }


def _self_gain(f: float, bw: float, fs: float) -> float:
    """Variance gain of an AR(2) resonance for an input of its own (unit-variance) shape,
    relative to unit white noise: the MVAR cross-terms are scaled by it so that a coupling
    weight means a share of power, not a resonant blow-up."""
    r = np.exp(-np.pi * bw / fs)
    a = [1.0, -2 * r * np.cos(2 * np.pi * min(f, 0.45 * fs) / fs), r**2]
    k = int(min(20 * fs, np.log(1e-4) / np.log(r) + 8))
    h = lfilter([1.0], a, np.r_[1.0, np.zeros(k)])
    return float(np.sum(np.convolve(h, h) ** 2) / np.sum(h**2) ** 2)


def _tvar2(e, f, bw, amp, blk, fs, drive=None, kappa=0.0):
    """Time-varying AR(2): a damped resonance whose poles change at block boundaries.

    Parameters
    ----------
    e : ndarray, shape (n,)
        Unit white innovations.
    f, bw, amp : ndarray, shape (n_blocks,)
        Pole frequency (Hz), bandwidth (Hz) and stationary output std per block.
    blk : int
        Block length, samples.
    drive : ndarray, shape (n,), optional
        Cross-term input (delayed outputs of other sources, unit std): the MVAR coupling.
    kappa : float
        Weight of ``drive`` (innovations get ``sqrt(1 - kappa**2)``).

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    n = e.size
    r = np.exp(-np.pi * np.asarray(bw) / fs)
    a1, a2 = -2 * r * np.cos(2 * np.pi * np.minimum(f, 0.45 * fs) / fs), r**2
    var = (1 + a2) / ((1 - a2) * ((1 + a2) ** 2 - a1**2))
    b0 = np.asarray(amp) / np.sqrt(var)
    if drive is None:
        u = e
    else:  # a drive shaped like this resonance gains more through it than white noise does
        u = np.sqrt(1 - kappa**2) * e + drive / np.sqrt(_self_gain(np.median(f), np.median(bw), fs))
    y = np.empty(n)
    # stationary start (two innovations from the far end stand in for a burn-in)
    rho = -a1[0] / (1 + a2[0])
    y2 = amp[0] * e[-1]
    y1 = rho * y2 + amp[0] * np.sqrt(max(0.0, 1 - rho**2)) * e[-2]
    for j in range(int(np.ceil(n / blk))):
        i0, i1 = j * blk, min(n, (j + 1) * blk)
        zi = [-a1[j] * y1 - a2[j] * y2, -a2[j] * y1]
        y[i0:i1] = lfilter([b0[j]], [1.0, a1[j], a2[j]], u[i0:i1], zi=zi)[0]
        y1, y2 = y[i1 - 1], (y[i1 - 2] if i1 >= 2 else y1)
    return y


def _states(nb: int, blk_s: float, p: dict, rng) -> tuple[np.ndarray, list]:
    """Vigilance state index (into STATES) per block, and the state events."""
    out = np.zeros(nb, int)
    s = 0 if rng.random() > 0.4 * p["sleepiness"] else int(rng.choice([2, 3]))
    j, events = 0, []
    dwell = {0: 240, 2: 90, 3: 300}
    while j < nb:
        k = max(2, int(rng.exponential(dwell[s]) / blk_s))
        seg = np.full(min(k, nb - j), s)
        if s == 0:  # eyes open and closed alternate while awake
            i = 0
            while i < seg.size:
                i += max(1, int(rng.exponential(45) / blk_s))
                m = max(1, int(rng.exponential(12) / blk_s))
                seg[i : i + m] = 1
                if i < seg.size:
                    events.append(
                        ((j + i) * blk_s, (j + min(seg.size, i + m)) * blk_s, "eyes_open")
                    )
                i += m
        else:
            events.append((j * blk_s, (j + seg.size) * blk_s, STATES[s]))
        out[j : j + seg.size] = seg
        j += seg.size
        sleepy = p["sleepiness"]
        if s == 0:
            s = 2 if rng.random() < sleepy else 0
        elif s == 2:
            s = 3 if rng.random() < 0.3 + 0.5 * sleepy else 0
        else:
            s = 2 if rng.random() < 0.8 else 0
    return out, events


def _shape(y, sharp: float, kind: str):
    """Nonlinear shaping of a narrow-band rhythm through its phase, keeping its envelope.

    ``kind``: 'sharp' (sharp waves of one polarity), 'spike_wave' (negative spike then slow
    wave per cycle) or 'clonic' (a spike per cycle on a slow wave).
    """
    an = hilbert(y)
    env, ph = np.abs(an), np.angle(an)
    c = np.cos(ph)
    if kind == "spike_wave":
        wrap = np.angle(np.exp(1j * (ph - 2.3)))
        g = -(1.8 * np.maximum(c, 0) ** 9 + np.exp(-0.5 * (wrap / 0.7) ** 2)) + 0.55
    elif kind == "clonic":
        g = -(2.0 * np.maximum(c, 0) ** 12) + 0.5 * np.cos(ph - 2.0) + 0.25
    else:
        g = c - sharp * (np.maximum(c, 0) ** 6 - 0.23) * 1.5
    return env * g * (np.std(y) / (np.std(env * g) + 1e-9))


def _window(n: int, a: int, b: int, ramp: int) -> np.ndarray:
    """1 inside [a, b) with raised-cosine edges inside the interval, 0 outside, shape (n,)."""
    w = np.zeros(n)
    b = min(b, n)
    w[a:b] = 1.0
    r = min(ramp, (b - a) // 3)
    if r > 0:
        edge = 0.5 - 0.5 * np.cos(np.pi * np.arange(r) / r)
        w[a : a + r] = edge
        w[b - r : b] = edge[::-1]
    return w


def _seizure(kind, p, a_s, b_s, fs, n, src_pos, L, bg, rng, eeg_adds, emg_sos):
    """Put one seizure of morphology ``kind`` (one of SEIZURE_TYPES) on ``[a_s, b_s)``.

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
        e0 = int(rng.choice([_E[x] for x in ("T3", "T4", "F7", "F8", "C3", "C4", "T5", "T6")]))
        nb = np.argsort(np.linalg.norm(_XYZ - _XYZ[e0], axis=1))[1]
        lead_w = _lead((_XYZ[e0] + _XYZ[nb]) / np.linalg.norm(_XYZ[e0] + _XYZ[nb]), 0.4)
        lead_w = np.where(lead_w > 0.2, lead_w, 0.0)  # 2-4 electrodes only
        inv = [focus]
    else:  # tonic_clonic
        knots = ([0, 0.3, 0.36, 1], [rng.uniform(12, 18), 8.0, 4.5, 1.5])
        ampk, bwk = ([0, 0.3, 0.36, 1], [0.4, 1.0, 1.2, 1.0]), ([0, 1], [1.5, 0.6])
        inv, shape = order, "clonic"
    f = np.interp(t, *knots)
    bw = np.interp(t, *bwk)
    ampb = np.interp(t, *ampk) * amp
    w = _window(n, a, b, int(0.4 * fs))[a:b]
    sig_focus = None
    t_rec = 0.0
    build = np.ones(m)
    if kind == "lvfa_evolving":  # low-voltage fast onset; the evolving rhythm builds after it
        k1 = int(m * rng.uniform(0.1, 0.25))
        build = np.clip((np.arange(m) - k1) / fs / 3.0, 0, 1)
    for k, s in enumerate(inv):
        e = rng.standard_normal(m)
        if k == 0:
            y = _tvar2(e, f, bw, ampb, blk, fs)
            sig_focus = y / max(1e-9, float(np.std(y)))
            onset = 0.0
        else:  # MVAR cross-term from the focus, delayed; recruited later when focal
            d = min(m - 1, int(round(fs * rng.uniform(0.005, 0.03))))
            drive = np.r_[np.zeros(d), sig_focus[: m - d]] * 0.85
            rel = np.exp(-dist[s] / 0.9) if gains is None else gains[k]
            if shape == "sharp" or kind == "rhythmic_delta":
                t_rec += rng.uniform(1.0, 8.0) / max(1e-3, (b_s - a_s))
            onset = min(0.9, t_rec)
            y = _tvar2(e, f, bw, ampb * rel * (t >= onset), blk, fs, drive=drive, kappa=0.85)
        if shape != "sharp" or sharp > 0.2:
            y = _shape(y, sharp, shape)
        lead = lead_w if lead_w is not None else L[:, s]
        eeg_adds.append((a, lead, y * w * build))
    # background during and after the seizure on the involved sources
    att = np.ones(m)
    if kind == "lvfa_evolving":
        fast = _tvar2(rng.standard_normal(m), np.full(t.size, rng.uniform(15, 28)),
                      np.full(t.size, 3.0), np.full(t.size, rng.uniform(6, 12)), blk, fs)  # fmt: skip
        fw = _window(m, 0, k1 + int(fs), int(0.3 * fs))
        for s in inv[:3]:
            eeg_adds.append((a, L[:, s], fast * fw * w))
        att[: k1 + int(fs)] = 0.3
    if kind == "tonic_clonic":
        emg = sosfilt(emg_sos, rng.standard_normal(m))
        emg /= np.std(emg) + 1e-9
        ph = np.angle(hilbert(sig_focus))
        burst = np.where(np.arange(m) < 0.33 * m, 1.0, np.maximum(np.cos(ph), 0) ** 2 * 2)
        lead = 0.4 + 0.6 * np.abs(_XYZ[:, 1])  # temporal-frontal muscles strongest
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
                slow = _tvar2(rng.standard_normal(k), np.full(nbk, 1.2), np.full(nbk, 2.5),
                              np.full(nbk, p["amp_uv"] * 0.8), blk, fs)  # fmt: skip
                bg[s, b : b + k] += slow * dec * _window(k, 0, k, int(fs))


def _bump(fs: float, dur: float, centre: float, sd: float) -> np.ndarray:
    t = np.arange(int(dur * fs)) / fs
    return np.exp(-0.5 * ((t - centre) / sd) ** 2)


def _add(x: np.ndarray, i0: int, sig: np.ndarray) -> None:
    """Add ``sig`` (..., m) into ``x`` (..., n) from sample ``i0``, clipped to the recording."""
    i1 = min(x.shape[-1], i0 + sig.shape[-1])
    if i1 > i0 >= 0:
        x[..., i0:i1] += sig[..., : i1 - i0]


def _transients(p, state, blk, fs, n, L, src_cls, rng, adds, events):
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
        y = _tvar2(rng.standard_normal(m), np.full(nbk, f), np.full(nbk, 0.6),
                   np.full(nbk, sd), blk, fs)  # fmt: skip
        return _shape(y, sharp, kind) * np.sin(np.pi * np.arange(m) / m) ** 2

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
        kc = -A * _bump(fs, 1.2, 0.3, 0.08) + 0.55 * A * _bump(fs, 1.2, 0.65, 0.16)
        adds.append((int(t0 * fs), 0.7 * vert + 0.3 * _lead(_unit(40, 0), 0.7), kc))
        events.append((t0, t0 + 1.2, "k_complex"))
    for t0 in times([2, 3], 25.0):
        A = rng.uniform(30, 90)
        vw = -A * _bump(fs, 0.5, 0.12, 0.035) + 0.3 * A * _bump(fs, 0.5, 0.24, 0.05)
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


def _artifacts(p, state, blk, fs, n, rng, adds, events, emg_sos):
    """Eye, muscle, electrode and movement artifacts as (start, lead (21,), signal)."""
    dur = n / fs
    eye = _lead(_unit(115, 0), 0.5)
    eyes_lr = _lead(_unit(105, 30), 0.5) - _lead(_unit(105, -30), 0.5)
    for kind, wgt in zip(ARTIFACTS, p["artifact_weights"], strict=True):
        k = int(rng.poisson(p["artifact_rate"] * wgt * dur / 60.0))
        for _ in range(k):
            t0 = float(rng.uniform(0, dur))
            i0 = int(t0 * fs)
            if kind == "blink":
                if state[min(len(state) - 1, i0 // blk)] == 3:
                    continue
                secs = rng.uniform(0.25, 0.5)
                sig = rng.uniform(60, 250) * _bump(fs, secs, secs * 0.4, secs * 0.18)
                lead = eye
            elif kind == "eye_movement":
                secs = rng.uniform(0.4, 2.0)
                m = int(secs * fs)
                sig = rng.uniform(30, 110) * rng.choice([-1, 1]) * _window(m, 0, m, int(0.08 * fs))
                lead = eyes_lr / np.abs(eyes_lr).max()
            elif kind in ("emg", "chewing", "movement"):
                secs = rng.uniform(0.5, 6) if kind != "chewing" else rng.uniform(3, 10)
                m = int(secs * fs)
                sig = sosfilt(emg_sos, rng.standard_normal(m))
                sig *= rng.uniform(10, 60) / (np.std(sig) + 1e-9)
                if kind == "chewing":
                    ph = 2 * np.pi * rng.uniform(1.0, 1.7) * np.arange(m) / fs
                    sig *= np.maximum(np.sin(ph), 0) ** 2 * 2
                lead = _lead(_unit(95, 90 * rng.choice([-1, 1])), 0.6)
                if kind == "chewing" or rng.random() < 0.3:
                    lead = np.maximum(lead, _lead(_unit(95, -90), 0.6))
                if kind == "movement":
                    slow = np.cumsum(rng.standard_normal(m)) / np.sqrt(fs)
                    sig = sig * 2 + rng.uniform(20, 80) * slow / (np.abs(slow).max() + 1e-9)
                    lead = rng.uniform(0.4, 1.0, 21)
                sig = sig * _window(m, 0, m, int(0.1 * fs))
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
                lead = _lead(_XYZ[c], 0.45)
                lead = np.where(lead > 0.3, lead, 0.0)
            adds.append((i0, lead, sig))
            events.append((t0, min(dur, t0 + len(sig) / fs), kind))


def render(
    patient: dict,
    duration_s: float,
    sfreq: float,
    seizures: list[tuple[float, float]],
    rng: np.random.Generator,
) -> Rendered:
    """One recording of ``patient``, shape (21, round(duration_s * sfreq)), microvolts.

    Parameters
    ----------
    patient : dict
        From :func:`draw_patient`.
    duration_s, sfreq : float
    seizures : list of (start_s, stop_s)
        Where to put seizures (sorted, disjoint).
    rng : numpy.random.Generator

    Returns
    -------
    Rendered
    """
    p, fs = patient, float(sfreq)
    n = int(round(duration_s * fs))
    blk = int(round(BLOCK_S * fs))
    nb = max(1, int(np.ceil(n / blk)))
    events: list[tuple[float, float, str]] = []
    state, st_events = _states(nb, blk / fs, p, rng)
    events += st_events
    cls = [s[0] for s in p["sources"]]
    pos = np.array([_unit(s[1], s[2]) for s in p["sources"]])
    gain_e = rng.uniform(0.9, 1.1, 21)
    L = np.stack([_lead(pos[i], s[3]) for i, s in enumerate(p["sources"])], 1) * gain_e[:, None]
    ns = len(cls)
    ci = [_CLASSES.index(c) for c in cls]
    # slow drifts of amplitude (per source) and of frequency (per band), per block
    drift = np.exp(
        0.15 * lfilter([np.sqrt(1 - 0.9**2)], [1, -0.9], rng.standard_normal((ns, nb)), axis=1)
    )
    fdrift = 0.05 * lfilter(
        [np.sqrt(1 - 0.95**2)], [1, -0.95], rng.standard_normal((4, nb)), axis=1
    )
    bws = {"delta": 2.0, "theta": 2.5, "alpha": p["alpha_bw"], "beta": 6.0}
    kern = np.array([0.25, 0.5, 0.25])  # state changes fade over a few seconds
    bg = np.zeros((ns, n), np.float32)
    # MVAR coupling: each source driven by at most two earlier, nearby sources
    D = np.linalg.norm(pos[:, None] - pos[None], axis=2)
    coup = p["coupling"] * np.exp(-D / p["coupling_len"])
    parents = [[k for k in sorted(range(s), key=lambda k, s=s: D[s, k])[:2] if coup[s, k] > 0.1]
               for s in range(ns)]  # fmt: skip
    for bi, band in enumerate(BANDS):
        ys = np.zeros((ns, n), np.float32)
        f = p["freqs"][band] * (1 + fdrift[bi])
        amps = []
        for s in range(ns):
            mult = np.array([_AMP[STATES[k]][band][ci[s]] for k in range(4)])[state]
            if band == "delta" and s == p["focal_slowing"]:
                mult = mult * 3.0
            amp = np.convolve(np.r_[mult[0], mult, mult[-1]], kern, "valid") * drift[s]
            amps.append(np.maximum(amp * p["amp_uv"], 0.05))
            drive, kappa = None, 0.0
            if parents[s]:  # cross-terms: delayed, unit-scaled outputs of the parents
                drive = np.zeros(n)
                for k in parents[s]:
                    d = max(1, int(round(fs * (0.004 + 0.01 * D[s, k]))))
                    norm = np.repeat(amps[k], blk)[: n - d]
                    drive[d:] += coup[s, k] * ys[k, : n - d] / norm
                tot = float(np.sqrt(sum(coup[s, k] ** 2 for k in parents[s])))
                kappa = min(0.9, tot)
                drive *= kappa / tot
            ys[s] = _tvar2(rng.standard_normal(n), f, np.full(nb, bws[band]), amps[s], blk, fs,
                           drive, kappa)  # fmt: skip
        bg += ys
        del ys
    emg_sos = butter(4, [20.0, min(100.0, 0.42 * fs)], btype="band", fs=fs, output="sos")
    adds: list = []
    types = []
    for a_s, b_s in seizures:
        kind = (str(rng.choice(p["seizure_types"])) if rng.random() < p["type_loyalty"]
                else str(rng.choice(SEIZURE_TYPES)))  # fmt: skip
        types.append(kind)
        _seizure(kind, p, a_s, b_s, fs, n, pos, L, bg, rng, adds, emg_sos)
    _transients(p, state, blk, fs, n, L, cls, rng, adds, events)
    _artifacts(p, state, blk, fs, n, rng, adds, events, emg_sos)
    # continuous contaminants: mains hum (one or two bad electrodes stronger), ECG
    hum_amp = p["mains_uv"] * rng.lognormal(0, 0.5) * rng.uniform(0.3, 1.0, 21)
    hum_amp[rng.choice(21, int(rng.integers(0, 3)), replace=False)] *= rng.uniform(2, 6)
    hum_ph = rng.uniform(0, 2 * np.pi, 21)
    events.append((0.0, n / fs, f"mains_{p['mains_hz']}hz"))
    ecg = np.zeros(n)
    if p["ecg_uv"] > 0:
        qrs = (_bump(fs, 0.5, 0.1, 0.012) - 0.35 * _bump(fs, 0.5, 0.125, 0.012)
               + 0.15 * _bump(fs, 0.5, 0.35, 0.05))  # fmt: skip
        t0, rr = float(rng.uniform(0, 1)), 60.0 / p["heart_bpm"]
        while t0 < n / fs:
            _add(ecg, int(t0 * fs), qrs * p["ecg_uv"])
            t0 += rr * rng.normal(1, 0.04)
        events.append((0.0, n / fs, "ecg"))
    ecg_lead = np.zeros(21)
    for e, g in (("A1", 1.0), ("T3", 0.5), ("T5", 0.6), ("A2", -0.5), ("T4", -0.25), ("T6", -0.3)):
        ecg_lead[_E[e]] = g * rng.uniform(0.7, 1.3)
    # projection, floor and continuous contaminants, chunk by chunk (bounded temporaries)
    eeg = np.empty((21, n), np.float32)
    zi = np.zeros((21, 3))
    floor = p["floor_uv"] * rng.uniform(0.7, 1.4, 21) / _PINK_SD
    chunk = int(120 * fs)
    for c0 in range(0, n, chunk):
        c1 = min(n, c0 + chunk)
        pink, zi = lfilter(_PINK_B, _PINK_A, rng.standard_normal((21, c1 - c0)), axis=1, zi=zi)
        tt = np.arange(c0, c1) / fs
        hum = np.sin(2 * np.pi * p["mains_hz"] * tt[None, :] + hum_ph[:, None])
        x = L @ bg[:, c0:c1] + floor[:, None] * pink + hum_amp[:, None] * hum
        x += ecg_lead[:, None] * ecg[None, c0:c1]
        eeg[:, c0:c1] = x
    del bg
    for i0, lead, sig in adds:
        _add(eeg, i0, (np.asarray(lead)[:, None] * sig[None, :]).astype(np.float32))
    dur = float(duration_s)
    events = sorted(
        (round(float(a), 3), round(float(min(b, dur)), 3), k) for a, b, k in events if a < dur
    )
    return Rendered(eeg=eeg, seizure_types=types, events=events)
