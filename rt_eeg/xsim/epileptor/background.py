"""Scalp background: the nodes' interictal activity as coloured noise plus state-dependent
rhythms, sleep graphoelements, benign variants and interictal spikes.

Between seizures the network sits at its stable interictal fixed point; what the scalp sees
there is the nodes' linear response to their inputs, modelled directly as Gaussian processes
with prescribed spectra (1/f background; delta, theta, alpha, beta and mu bands) whose gains
follow the vigilance state. Transients (spindles, K-complexes, variants) are added as
waveforms with the spatial pattern of the cortical region they come from.
"""

from __future__ import annotations

import numpy as np

from . import states as st
from .common import add_event, events_in, hann_burst, poisson_times, shaped_noise, slow_envelope


def _spectra(p: dict):
    """Amplitude spectra (functions of f in Hz) of the background components."""

    def hp(f, fc=0.4):
        return f / np.sqrt(f * f + fc * fc)

    def lp(f, fc=38.0):
        return 1.0 / np.sqrt(1.0 + (f / fc) ** 8)

    def bump(fc, bw):
        return lambda f: hp(f) * np.exp(-0.5 * ((f - fc) / bw) ** 2)

    return {
        "broad": lambda f: hp(f) * lp(f) * (1.0 + (f / 2.0) ** 2) ** (-p["slope"] / 4.0),
        "delta": lambda f: hp(f, 0.3) * np.exp(-0.5 * ((f - 1.2) / 0.9) ** 2),
        "theta": bump(p["theta_hz"], 1.0),
        "alpha": bump(p["alpha_hz"], 0.45),
        "beta": bump(20.0, 5.0),
        "mu": bump(p["mu_hz"], 0.5),
    }


def _node_weights(geo: dict) -> dict[str, np.ndarray]:
    r = geo["regions"]
    n = geo["nodes"].shape[0]
    return {
        "broad": np.ones(n),
        "delta": 0.5 + 0.7 * r["frontal"],
        "theta": 0.3 + 0.7 * np.maximum(r["frontal"], r["vertex"]),
        "alpha": r["occipital"] + 0.3 * r["parietal"],
        "beta": 0.2 + r["frontal"],
        "mu": r["central"],
    }


def pattern(geo: dict, v: np.ndarray) -> np.ndarray:
    """Scalp pattern (21,) of a coherent source with node weights ``v``, peak |.| 1."""
    x = geo["L"] @ v
    return x / np.max(np.abs(x))


def rhythms(p: dict, geo: dict, segs, n: int, sfreq: float, rng) -> np.ndarray:
    """Background rhythms projected to the scalp, float32 ``(21, n)`` microvolts."""
    dur = n / sfreq
    gains = st.per_second(segs, st.GAINS, dur)  # (6, n_sec)
    spec, wts = _spectra(p), _node_weights(geo)
    targets = {"broad": p["bg_uv"], "delta": p["delta_uv"], "theta": p["theta_uv"],
               "alpha": p["alpha_uv"], "beta": p["beta_uv"], "mu": p["mu_uv"]}  # fmt: skip
    out = np.zeros((21, n), np.float32)
    lf = geo["L"]
    for c, name in enumerate(st.COMPONENTS):
        if targets[name] <= 0 or gains[c].max() <= 0:
            continue
        v = wts[name]
        idx = np.flatnonzero(v > 0.05 * v.max())
        mix = lf[:, idx] * v[idx]  # (21, k)
        ch_sd = np.sqrt((mix**2).sum(1))
        ref = np.median(ch_sd) if name == "broad" else ch_sd.max()
        mix = (mix * (targets[name] / ref)).astype(np.float32)
        x = shaped_noise(rng, idx.size, n, sfreq, spec[name])
        if name in ("alpha", "mu", "theta", "beta"):
            x *= slow_envelope(rng, n, sfreq, tau_s=3.0, sd=0.35)  # waxing and waning
        g = st.to_samples(gains[c], n, sfreq)
        out += (mix @ x) * g
    return out


def _wave_kc(sfreq):
    t = np.arange(int(1.1 * sfreq)) / sfreq
    return -np.exp(-(((t - 0.15) / 0.06) ** 2)) + 0.55 * np.exp(-(((t - 0.5) / 0.17) ** 2))


def _wave_vertex(sfreq):
    t = np.arange(int(0.45 * sfreq)) / sfreq
    return -np.exp(-(((t - 0.12) / 0.035) ** 2)) + 0.3 * np.exp(-(((t - 0.26) / 0.07) ** 2))


def spike_wave_complex(sfreq, rng, sharp: float = 0.03) -> np.ndarray:
    """An interictal spike (or sharp wave) and its after-going slow wave, peak 1."""
    t = np.arange(int(0.5 * sfreq)) / sfreq
    w = sharp * rng.uniform(0.8, 1.6)
    s = -np.exp(-(((t - 0.06) / w) ** 2)) + 0.25 * np.exp(-(((t - 0.1) / 0.02) ** 2))
    return s + 0.35 * np.exp(-(((t - 0.25) / 0.08) ** 2))


def transients(p: dict, geo: dict, segs, n: int, sfreq: float, rng, events: list) -> np.ndarray:
    """Sleep graphoelements, benign variants and interictal spikes, float32 ``(21, n)``."""
    out = np.zeros((21, n), np.float32)
    dur = n / sfreq
    rates = st.per_second(segs, st.RATES, dur, smooth_s=1.0)
    r = geo["regions"]
    pat_c = pattern(geo, r["central"] + 0.8 * r["vertex"])
    pat_v = pattern(geo, r["vertex"])
    pat_kc = pattern(geo, r["vertex"] + 0.7 * r["frontal"])
    # Spindles (often right after a K-complex).
    ts = poisson_times(rng, rates[0])
    for t in ts:
        d = rng.uniform(0.5, 1.8)
        w = hann_burst(sfreq, d, p["spindle_hz"] + rng.normal(0, 0.4), rng)
        add_event(out, sfreq, t, pat_c * p["spindle_uv"] * rng.uniform(0.6, 1.3), w)
    events_in(ts, 1.0, "spindle", events)
    tk = poisson_times(rng, rates[1])
    kc = _wave_kc(sfreq)
    for t in tk:
        add_event(out, sfreq, t, pat_kc * rng.uniform(70, 170), kc)
        if rng.random() < 0.5:
            w = hann_burst(sfreq, rng.uniform(0.6, 1.2), p["spindle_hz"], rng)
            add_event(out, sfreq, t + 0.9, pat_c * p["spindle_uv"], w)
    events_in(tk, 1.2, "k_complex", events)
    tv = poisson_times(rng, rates[2])
    vw = _wave_vertex(sfreq)
    for t in tv:
        add_event(out, sfreq, t, pat_v * rng.uniform(40, 110), vw)
    events_in(tv, 0.4, "vertex_wave", events)
    _variants(p, geo, segs, rates, out, sfreq, rng, events)
    _interictal(p, geo, segs, out, sfreq, rng, events)
    return out


def _state_rate(segs, dur, table: dict) -> np.ndarray:
    """Per-second rate from a ``state -> rate`` dict (missing states: 0)."""
    full = {s: (table.get(s, 0.0),) for s in st.STATES}
    return st.per_second(segs, full, dur, smooth_s=1.0)[0]


def _train(sfreq, dur, f0, f1, harm, rng, taper=0.2):
    """A rhythmic train whose frequency glides from f0 to f1, Tukey envelope, peak 1."""
    m = max(4, int(dur * sfreq))
    t = np.arange(m) / sfreq
    ph = 2 * np.pi * np.cumsum(np.linspace(f0, f1, m)) / sfreq + rng.uniform(0, 6.3)
    w = np.sin(ph) + harm * np.cos(2 * ph)
    k = max(1, int(taper * m))
    env = np.ones(m)
    ramp = 0.5 - 0.5 * np.cos(np.pi * np.arange(k) / k)
    env[:k], env[m - k :] = ramp, ramp[::-1]
    return (env * w / (1 + harm)).astype(np.float32), t


def _variants(p, geo, segs, rates, out, sfreq, rng, events) -> None:
    dur = out.shape[1] / sfreq
    r = geo["regions"]
    side = {"l": pattern(geo, r["temporal_l"]), "r": pattern(geo, r["temporal_r"])}
    v = p["variants"]
    if "wicket" in v:
        rate = _state_rate(segs, dur, {"drowsy": 1.5, "n2": 0.5, "awake_ec": 0.4})
        for t in poisson_times(rng, rate * v["wicket"]):
            d = rng.uniform(0.8, 4.0)
            f = rng.uniform(6.5, 10.5)
            w, _ = _train(sfreq, d, f, f, 0.55, rng, 0.1)
            add_event(out, sfreq, t, side[str(rng.choice(["l", "r"]))] * rng.uniform(35, 80), w)
            events.append((round(t, 3), round(t + d, 3), "wicket_spikes"))
    if "rmtd" in v:
        rate = _state_rate(segs, dur, {"drowsy": 0.8, "awake_ec": 0.2})
        for t in poisson_times(rng, rate * v["rmtd"]):
            d = rng.uniform(4.0, 20.0)
            f = rng.uniform(5.0, 6.8)
            w, _ = _train(sfreq, d, f, f + rng.normal(0, 0.2), 0.4, rng)
            add_event(out, sfreq, t, side[str(rng.choice(["l", "r"]))] * rng.uniform(30, 70), w)
            events.append((round(t, 3), round(t + d, 3), "rmtd"))
    if "sreda" in v:
        rate = _state_rate(segs, dur, {"awake_eo": 0.05, "awake_ec": 0.05})
        pat = pattern(geo, r["parietal"] + 0.5 * (r["temporal_l"] + r["temporal_r"]))
        for t in poisson_times(rng, rate * v["sreda"]):
            d = rng.uniform(20.0, 70.0)
            w, _ = _train(sfreq, d, rng.uniform(4.5, 5.5), rng.uniform(5.5, 7.0), 0.6, rng, 0.15)
            add_event(out, sfreq, t, pat * rng.uniform(40, 90), w)
            events.append((round(t, 3), round(t + d, 3), "sreda"))
    if "posts" in v:  # positive occipital sharp transients of sleep, in trains
        pat = pattern(geo, r["occipital"])
        vw = -_wave_vertex(sfreq)
        for t in poisson_times(rng, _state_rate(segs, dur, {"n2": 3.0, "drowsy": 1.0})):
            for k in range(int(rng.integers(2, 6))):
                add_event(out, sfreq, t + k * rng.uniform(0.25, 0.4), pat * rng.uniform(25, 50), vw)
            events.append((round(t, 3), round(t + 1.5, 3), "posts"))


def _interictal(p, geo, segs, out, sfreq, rng, events) -> None:
    """Interictal epileptiform discharges at the patient's focus, commoner in NREM sleep."""
    if p["ied_per_min"] <= 0:
        return
    dur = out.shape[1] / sfreq
    mult = {"awake_eo": 1.0, "awake_ec": 1.0, "drowsy": 1.5, "n2": 2.5, "n3": 3.0, "rem": 0.5}
    rate = _state_rate(segs, dur, mult) * p["ied_per_min"]
    w = geo["W"][p["ez"]]
    v = np.zeros(geo["nodes"].shape[0])
    v[p["ez"]] = 1.0
    v += 0.6 * w / w.max()
    pat = pattern(geo, v)
    for t in poisson_times(rng, rate):
        add_event(out, sfreq, t, pat * rng.uniform(50, 140), spike_wave_complex(sfreq, rng))
        events.append((round(t, 3), round(t + 0.4, 3), "interictal_spike"))
