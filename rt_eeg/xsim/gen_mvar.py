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

This module holds the contract (patient traits, background, render); the seizures, the
transients and artifacts, and the pieces they share live in :mod:`rt_eeg.xsim.mvar`.
"""

from __future__ import annotations

import numpy as np
from scipy.signal import butter, lfilter

from rt_eeg.xsim.base import Rendered
from rt_eeg.xsim.mvar.common import E, bump, lead_field, tvar2, unit
from rt_eeg.xsim.mvar.events import ARTIFACTS, artifacts, transients
from rt_eeg.xsim.mvar.seizures import seizure

NAME = "mvar"
DESCRIPTION = (
    "time-varying multivariate autoregression: coupled AR(2) cortical sources with "
    "state-driven poles under a smooth lead field; ictal poles moving to the unit circle"
)

BLOCK_S = 2.0
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
BENIGN = ("rmtd", "wicket", "mu")
# Kellet's pink-noise filter; its white-noise gain, to scale the floor in microvolts
_PINK_B = np.array([0.049922035, -0.095993537, 0.050612699, -0.004408786])
_PINK_A = np.array([1.0, -2.494956002, 2.017265875, -0.522189400])
_PINK_SD = float(np.sqrt(np.sum(lfilter(_PINK_B, _PINK_A, np.r_[1.0, np.zeros(40000)]) ** 2)))
_tvar2 = tvar2  # the name the tests use


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


def _add(x: np.ndarray, i0: int, sig: np.ndarray) -> None:
    """Add ``sig`` (..., m) into ``x`` (..., n) from sample ``i0``, clipped to the recording."""
    i1 = min(x.shape[-1], i0 + sig.shape[-1])
    if i1 > i0 >= 0:
        x[..., i0:i1] += sig[..., : i1 - i0]


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
    pos = np.array([unit(s[1], s[2]) for s in p["sources"]])
    gain_e = rng.uniform(0.9, 1.1, 21)
    L = (
        np.stack([lead_field(pos[i], s[3]) for i, s in enumerate(p["sources"])], 1)
        * gain_e[:, None]
    )
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
            ys[s] = tvar2(rng.standard_normal(n), f, np.full(nb, bws[band]), amps[s], blk, fs,
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
        seizure(kind, p, a_s, b_s, fs, n, pos, L, bg, rng, adds, emg_sos)
    transients(p, state, blk, fs, n, L, cls, rng, adds, events)
    artifacts(p, state, blk, fs, n, rng, adds, events, emg_sos)
    # continuous contaminants: mains hum (one or two bad electrodes stronger), ECG
    hum_amp = p["mains_uv"] * rng.lognormal(0, 0.5) * rng.uniform(0.3, 1.0, 21)
    hum_amp[rng.choice(21, int(rng.integers(0, 3)), replace=False)] *= rng.uniform(2, 6)
    hum_ph = rng.uniform(0, 2 * np.pi, 21)
    events.append((0.0, n / fs, f"mains_{p['mains_hz']}hz"))
    ecg = np.zeros(n)
    if p["ecg_uv"] > 0:
        qrs = (bump(fs, 0.5, 0.1, 0.012) - 0.35 * bump(fs, 0.5, 0.125, 0.012)
               + 0.15 * bump(fs, 0.5, 0.35, 0.05))  # fmt: skip
        t0, rr = float(rng.uniform(0, 1)), 60.0 / p["heart_bpm"]
        while t0 < n / fs:
            _add(ecg, int(t0 * fs), qrs * p["ecg_uv"])
            t0 += rr * rng.normal(1, 0.04)
        events.append((0.0, n / fs, "ecg"))
    ecg_lead = np.zeros(21)
    for e, g in (("A1", 1.0), ("T3", 0.5), ("T5", 0.6), ("A2", -0.5), ("T4", -0.25), ("T6", -0.3)):
        ecg_lead[E[e]] = g * rng.uniform(0.7, 1.3)
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
