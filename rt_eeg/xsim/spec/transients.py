"""Transient cerebral events: sleep graphoelements, benign variants, interictal discharges,
periodic and rhythmic patterns of the ictal-interictal continuum, procedure responses.

Each kind is a point process whose rate follows the vigilance weights; each event is a short
waveform times a spatial field. None of them is a seizure: generalized spike-wave bursts are
kept under 2.5 s, periodic and rhythmic patterns do not evolve and stay at <= 2.5 Hz.
"""

from __future__ import annotations

import numpy as np
from scipy.signal import fftconvolve

from . import geometry as geo
from .signals import (
    DT,
    add_event,
    burst_envelope,
    colored,
    gauss_peak,
    kappa_for,
    ou,
    outside,
    phase,
    poisson_times,
    shaped_wave,
    upsample,
    vonmises,
)
from .vigilance import W


def _g(t, mu, sd):
    return np.exp(-0.5 * ((t - mu) / sd) ** 2)


def _rate(tl: dict, per_min_by_state) -> np.ndarray:
    """Coarse-grid rate (per second) from per-minute rates in W, D, N2, N3, R."""
    return np.tensordot(np.asarray(per_min_by_state, float) / 60.0, tl["weights"], axes=1)


def _times(rng, tl, per_min, excl, min_gap=0.0, extra=None) -> np.ndarray:
    r = _rate(tl, per_min)
    if extra is not None:
        r = r * extra
    t = poisson_times(rng, r, min_gap)
    return t[outside(t, excl, 3.0, 5.0)]


def _train(n: int, sfreq: float, times, amps, template: np.ndarray, lead: int) -> np.ndarray:
    """Sum of ``template`` copies at ``times`` (s), ``lead`` samples before each time."""
    x = np.zeros(n + template.size, np.float32)
    idx = np.round(np.asarray(times) * sfreq).astype(int) - lead + template.size
    ok = (idx >= 0) & (idx < x.size)
    np.add.at(x, idx[ok], np.asarray(amps, np.float32)[ok])
    return fftconvolve(x, template, mode="full")[template.size : template.size + n].astype(
        np.float32
    )


def _osc_burst(sfreq, dur, f0, f1, kappa, skew, amp, rng, env="hann") -> np.ndarray:
    n = max(int(dur * sfreq), 4)
    f = np.linspace(f0, f1, n)
    w = shaped_wave(phase(f, sfreq, rng.uniform(0, 2 * np.pi)), kappa, skew)
    return (amp * burst_envelope(n, 0.25, env) * w).astype(np.float32)


def sleep_graphoelements(rng, out, sfreq, patient, tl, excl, events) -> None:
    """Vertex waves, K-complexes, spindles, POSTS and REM sawtooth waves."""
    bg = patient["background"]
    enc = bg["encephalopathy"]
    vertex = geo.site("CZ")
    fc = geo.site("FZ", "CZ")
    for t in _times(rng, tl, [0.1, 4.0, 1.2, 0.2, 0.1], excl, 1.0):
        a = bg["vertex_uv"] * np.exp(rng.normal(0, 0.25))
        tt = np.arange(-0.25, 0.3, 1 / sfreq)
        sd = rng.uniform(0.035, 0.06)
        wave = a * (-_g(tt, 0, sd) + 0.3 * _g(tt, -0.1, 0.05) + 0.35 * _g(tt, 0.12, 0.08))
        add_event(out, sfreq, t - 0.25, wave, geo.gauss_field(geo.jitter(rng, vertex, 0.06), 0.45))
        events.append((t - 0.1, t + 0.2, "vertex_wave"))
    spindle_t = list(_times(rng, tl, [0.0, 0.3, 1.0, 0.4, 0.0], excl, 2.5))
    rate = bg["spindle_per_min"]
    spindle_t += list(_times(rng, tl, [0, 0.05 * rate, rate, 0.4 * rate, 0.0], excl, 3.0))
    for t in _times(rng, tl, [0, 0.05, bg["kc_per_min"], 0.5 * bg["kc_per_min"], 0], excl, 4.0):
        a = bg["kc_uv"] * np.exp(rng.normal(0, 0.25))
        tt = np.arange(-0.3, 1.1, 1 / sfreq)
        wave = a * (0.15 * _g(tt, -0.1, 0.05) - 0.6 * _g(tt, 0, 0.09) + 0.4 * _g(tt, 0.38, 0.17))
        add_event(out, sfreq, t - 0.3, wave, geo.gauss_field(geo.jitter(rng, fc, 0.08), 0.65))
        events.append((t - 0.1, t + 0.8, "k_complex"))
        if rng.uniform() < 0.4:
            spindle_t.append(t + 0.6)
    for t in spindle_t:
        dur = rng.uniform(0.5, 2.0)
        slow = rng.uniform() < 0.3
        f0 = bg["spindle_hz"] - (1.5 if slow else 0.0) + rng.normal(0, 0.3)
        n = int(dur * sfreq)
        u = np.linspace(0, 1, n)
        amp = bg["spindle_uv"] * np.exp(rng.normal(0, 0.3)) * (1 - 0.5 * enc)
        wave = (
            amp * np.sin(np.pi * u) ** 1.5 * np.sin(phase(f0 - 0.6 * u, sfreq, rng.uniform(0, 6)))
        )
        centre = geo.site("FZ", "F3", "F4") if slow else geo.site("CZ", "PZ", "C3", "C4")
        add_event(
            out,
            sfreq,
            t,
            wave.astype(np.float32),
            geo.gauss_field(geo.jitter(rng, centre, 0.08), 0.55),
        )
        events.append((t, t + dur, "spindle"))
    if bg["posts"]:
        occ = geo.site("O1", "O2")
        for t in _times(rng, tl, [0, 3.0, 4.0, 1.0, 0], excl, 2.0):
            k = rng.integers(1, 6)
            tt = np.arange(-0.1, 0.25, 1 / sfreq)
            one = rng.uniform(15, 45) * (_g(tt, 0, 0.035) - 0.2 * _g(tt, 0.09, 0.05))
            iv = rng.uniform(0.2, 0.28)
            topo = geo.gauss_field(geo.jitter(rng, occ, 0.05), 0.35)
            for j in range(k):
                add_event(out, sfreq, t + j * iv - 0.1, one * rng.uniform(0.7, 1.1), topo)
            events.append((t, t + k * iv, "posts"))
    for t in _times(rng, tl, [0, 0, 0, 0, 2.0], excl, 4.0):
        dur = rng.uniform(1.0, 4.0)
        f = rng.uniform(2.0, 3.5)
        wave = _osc_burst(sfreq, dur, f, f, 1.5, 0.6, rng.uniform(20, 50), rng, "tukey")
        add_event(out, sfreq, t, wave, geo.gauss_field(geo.site("CZ", "FZ"), 0.6))
        events.append((t, t + dur, "sawtooth_waves"))


def variants(rng, out, sfreq, patient, tl, excl, events) -> None:
    """Benign variants and physiological rhythms that resemble epileptiform activity."""
    bg = patient["background"]
    v = bg["variants"]
    if bg["mu"]:
        mu = bg["mu"]
        for t in _times(rng, tl, [mu["per_min"], 0.3 * mu["per_min"], 0, 0, 0], excl, 3.0):
            dur = rng.uniform(1.0, 8.0)
            side = rng.choice(["C3", "C4", "both"])
            topo = (
                geo.gauss_field(geo.site("C3"), 0.3) + geo.gauss_field(geo.site("C4"), 0.3)
                if side == "both"
                else geo.gauss_field(geo.site(side), 0.3)
            )
            f = mu["hz"] + rng.normal(0, 0.2)
            add_event(
                out, sfreq, t, _osc_burst(sfreq, dur, f, f, 1.4, 0.55, mu["uv"], rng, "tukey"), topo
            )
            events.append((t, t + dur, "mu_rhythm"))
    if bg["lambda"]:
        occ = geo.site("O1", "O2")
        extra = tl["eyes_open"].astype(float) / np.maximum(tl["weights"][W], 1e-3)
        for t in _times(rng, tl, [25, 0, 0, 0, 0], excl, 0.4, np.clip(extra, 0, 1)):
            tt = np.arange(-0.1, 0.25, 1 / sfreq)
            wave = rng.uniform(15, 40) * (_g(tt, 0, 0.03) - 0.4 * _g(tt, 0.08, 0.05))
            add_event(out, sfreq, t - 0.1, wave, geo.gauss_field(occ, 0.4))
            events.append((t, t + 0.2, "lambda_wave"))
    temporal = {"L": geo.site("T3", "F7"), "R": geo.site("T4", "F8")}
    if v["wicket"] > 0:
        for t in _times(
            rng, tl, [0.3 * v["wicket"], v["wicket"], 0.5 * v["wicket"], 0, 0], excl, 3
        ):
            dur = rng.uniform(0.5, 3.0)
            f = rng.uniform(6, 11)
            topo = geo.gauss_field(temporal[rng.choice(["L", "R"])], 0.3)
            add_event(
                out,
                sfreq,
                t,
                _osc_burst(sfreq, dur, f, f, 2.5, 0.6, rng.uniform(25, 55), rng),
                topo,
            )
            events.append((t, t + dur, "wicket_spikes"))
    if v["rmtd"] > 0:
        for t in _times(rng, tl, [0.1 * v["rmtd"], v["rmtd"], 0.2 * v["rmtd"], 0, 0], excl, 20):
            dur = rng.uniform(5, 30)
            f = rng.uniform(5, 7)
            n = int(dur * sfreq)
            ph = phase(np.full(n, f) * (1 + 0.02 * np.sin(np.linspace(0, 6, n))), sfreq)
            wave = (np.sin(ph) + 0.45 * np.sin(2 * ph + 1.2)) * burst_envelope(n, 0.1, "tukey")
            sides = ["L", "R"] if rng.uniform() < 0.4 else [rng.choice(["L", "R"])]
            topo = sum(geo.gauss_field(temporal[s], 0.3) for s in sides)
            add_event(out, sfreq, t, (rng.uniform(25, 50) * wave).astype(np.float32), topo)
            events.append((t, t + dur, "rmtd"))
    if v["bsss"] > 0:
        for t in _times(rng, tl, [0.1 * v["bsss"], v["bsss"], 0.6 * v["bsss"], 0, 0], excl, 2):
            tt = np.arange(-0.1, 0.3, 1 / sfreq)
            wave = rng.uniform(20, 45) * (
                -_g(tt, 0, 0.012) + 0.5 * _g(tt, 0.025, 0.015) - 0.15 * _g(tt, 0.12, 0.06)
            )
            add_event(
                out, sfreq, t - 0.1, wave, geo.gauss_field(temporal[rng.choice(["L", "R"])], 0.6)
            )
            events.append((t, t + 0.1, "small_sharp_spike"))
    if v["pos14_6"] > 0:
        for t in _times(rng, tl, [0, v["pos14_6"], 0.5 * v["pos14_6"], 0, 0], excl, 3):
            dur = rng.uniform(0.5, 1.0)
            f = rng.choice([6.0, 14.0])
            side = geo.site("T5") if rng.uniform() < 0.5 else geo.site("T6")
            wave = -_osc_burst(sfreq, dur, f, f, 3.0, 0.5, rng.uniform(20, 45), rng)  # positive
            add_event(out, sfreq, t, wave, geo.gauss_field(side, 0.35))
            events.append((t, t + dur, "positive_14_6"))
    if v["phantom"] > 0:
        for t in _times(rng, tl, [0.5 * v["phantom"], v["phantom"], 0, 0, 0], excl, 5):
            dur = rng.uniform(1.0, 2.0)
            f = rng.uniform(5, 7)
            n = int(dur * sfreq)
            th = phase(np.full(n, f), sfreq)
            wave = 0.25 * vonmises(th, kappa_for(0.01, f)) + vonmises(th - 2.2, 1.5)
            topo = geo.gauss_field(geo.site("FZ") if rng.uniform() < 0.5 else geo.site("PZ"), 0.8)
            amp = rng.uniform(20, 40)
            add_event(
                out,
                sfreq,
                t,
                (-amp * wave * burst_envelope(n, 0.2, "tukey")).astype(np.float32),
                topo,
            )
            events.append((t, t + dur, "phantom_spike_wave"))
    if v["hypnagogic"] > 0:
        for t in _times(rng, tl, [0.05 * v["hypnagogic"], v["hypnagogic"], 0.1, 0, 0], excl, 5):
            dur = rng.uniform(1.0, 8.0)
            f = rng.uniform(3.0, 5.0)
            centre = geo.site("CZ", "FZ") if rng.uniform() < 0.6 else geo.site("PZ", "O1", "O2")
            wave = _osc_burst(
                sfreq,
                dur,
                f,
                f * rng.uniform(0.9, 1.05),
                0.6,
                0.0,
                rng.uniform(60, 130),
                rng,
                "tukey",
            )
            add_event(out, sfreq, t, wave, geo.gauss_field(centre, 0.9))
            events.append((t, t + dur, "hypnagogic_hypersynchrony"))
    if v["sreda"] > 0 and rng.uniform() < v["sreda"]:
        awake = np.nonzero(tl["weights"][W] > 0.9)[0] * DT
        awake = awake[outside(awake, excl, 70.0, 70.0)]
        if awake.size:
            t = float(rng.choice(awake))
            dur = rng.uniform(20, 60)
            n = int(dur * sfreq)
            u = np.linspace(0, 1, n)
            f = np.interp(u, [0, 0.25, 0.4, 1], [0.8, 2.0, 5.5, 5.5])
            wave = shaped_wave(phase(f, sfreq), 2.0, 0.3) * burst_envelope(n, 0.05, "tukey")
            topo = geo.gauss_field(geo.site("P3", "P4", "T5", "T6", "PZ"), 0.6)
            add_event(out, sfreq, t, (rng.uniform(40, 70) * wave).astype(np.float32), topo)
            events.append((t, t + dur, "sreda"))


def epileptiform(rng, out, sfreq, patient, tl, excl, events, duration) -> None:
    """Interictal discharges, periodic discharges, triphasic waves and FIRDA."""
    ep = patient["epileptiform"]
    n = out.shape[1]
    r = ep["rate_per_min"]
    if r > 0:
        centres = _times(rng, tl, [r, 1.5 * r, 2.5 * r, 3.0 * r, 0.5 * r], excl, 1.0)
        tt = np.arange(-0.15, 0.6, 1 / sfreq)
        front = geo.gauss_field(geo.site("FZ", "F3", "F4"), 0.95)
        for c in centres:
            k = 1 + (rng.geometric(0.6) - 1 if rng.uniform() < 0.3 else 0)
            for t in c + np.cumsum(np.r_[0, rng.uniform(0.4, 3.0, k - 1)]):
                a = ep["uv"] * np.exp(rng.normal(0, 0.3))
                if ep["kind"] == "generalized":
                    dur = rng.uniform(0.25, 2.4)
                    f = rng.uniform(2.8, 4.5)
                    m = int(dur * sfreq)
                    th = phase(np.full(m, f), sfreq)
                    sp = vonmises(th, kappa_for(0.015, f))
                    if rng.uniform() < 0.4:  # polyspike-wave
                        sp += 0.8 * vonmises(th - 2 * np.pi * f * 0.06, kappa_for(0.012, f))
                    wave = (
                        -a
                        * (0.6 * sp + 0.8 * vonmises(th - 2.4, 2.0))
                        * burst_envelope(m, 0.1, "tukey")
                    )
                    add_event(out, sfreq, t, wave.astype(np.float32), front)
                    events.append((t, t + dur, "ied_generalized"))
                    continue
                sd = (
                    rng.uniform(0.012, 0.025) if ep["kind"] != "sharp" else rng.uniform(0.035, 0.06)
                )
                slow = (
                    rng.uniform(0.2, 0.5) if ep["kind"] != "spike_wave" else rng.uniform(0.6, 1.0)
                )
                wave = a * (
                    0.2 * _g(tt, -sd * 2.5, sd)
                    - _g(tt, 0, sd)
                    + 0.35 * _g(tt, sd * 2.5, sd * 1.5)
                    - slow * _g(tt, 0.2, rng.uniform(0.06, 0.1))
                )
                focus = ep["foci"][0 if rng.uniform() < 0.8 else rng.integers(0, len(ep["foci"]))]
                topo = geo.gauss_field(geo.jitter(rng, focus, 0.04), ep["radius"])
                add_event(out, sfreq, t - 0.15, wave.astype(np.float32), topo)
                events.append((t - 0.05, t + 0.3, f"ied_{ep['kind']}"))
    # Runs of periodic or rhythmic patterns (no evolution, <= 2.5 Hz).
    runs = []
    if ep["lpd"]:
        runs.append(("lpd", ep["lpd"], ep["lpd"]["fraction"], (60, 600)))
    if ep["triphasic"]:
        runs.append(("triphasic", ep["triphasic"], ep["triphasic"]["fraction"], (5, 60)))
    for kind, prm, frac, (lo, hi) in runs:
        t = rng.uniform(0, hi)
        while t < duration:
            dur = rng.uniform(lo, hi)
            stop = min(t + dur, duration)
            iv = 1.0 / prm["hz"]
            times = t + np.cumsum(iv * np.exp(rng.normal(0, 0.08, int((stop - t) / iv) + 1)))
            times = times[(times < stop) & outside(times, excl, 2.0, 20.0)]
            if times.size > 3:
                _periodic(rng, out, sfreq, kind, prm, times, patient, n)
                events.append((float(times[0]), float(times[-1]) + 0.3, kind))
            t = stop + dur * (1 - frac) / max(frac, 0.05) * rng.uniform(0.5, 1.5)
    if ep["firda"]:
        fi = ep["firda"]
        for t in _times(rng, tl, [fi["per_min"], 1.5 * fi["per_min"], 0.3, 0, 0], excl, 10):
            dur = rng.uniform(2.0, 8.0)
            f = fi["hz"] * rng.uniform(0.9, 1.1)
            wave = _osc_burst(sfreq, dur, f, f, 0.5, 0.2, fi["uv"], rng, "tukey")
            add_event(
                out, sfreq, t, wave, geo.gauss_field(geo.site("FP1", "FP2", "F3", "F4"), 0.65)
            )
            events.append((t, t + dur, "firda"))


def _periodic(rng, out, sfreq, kind, prm, times, patient, n) -> None:
    """Lateralized periodic discharges or generalized triphasic waves with a spatial lag."""
    tt = np.arange(-0.1, 0.5, 1 / sfreq)
    if kind == "lpd":
        tpl = -_g(tt, 0, 0.04) + 0.5 * _g(tt, 0.1, 0.06) - 0.25 * _g(tt, 0.25, 0.1)
        if prm["plus"]:
            tpl += 0.25 * np.sin(2 * np.pi * 12 * tt) * _g(tt, 0.15, 0.08)
        topo = geo.gauss_field(patient["seizure"]["focus"], 0.5)
        lag = geo.dist_to(patient["seizure"]["focus"]) * 0.03
    else:
        tpl = 0.3 * _g(tt, -0.05, 0.03) - _g(tt, 0.05, 0.05) + 0.7 * _g(tt, 0.2, 0.09)
        topo = geo.gauss_field(geo.site("FZ", "F3", "F4"), 1.0)
        lag = (geo.XYZ[:, 0].max() - geo.XYZ[:, 0]) * 0.04  # anterior-posterior lag
    amps = prm["uv"] * np.exp(rng.normal(0, 0.2, times.size))
    i0 = max(int((times[0] - 1) * sfreq), 0)
    i1 = min(int((times[-1] + 1) * sfreq), n)
    local = times - i0 / sfreq
    for ch in np.nonzero(topo > 0.05)[0]:
        x = _train(
            i1 - i0,
            sfreq,
            local + lag[ch],
            amps * topo[ch],
            tpl.astype(np.float32),
            int(0.1 * sfreq),
        )
        out[ch, i0:i1] += x


def photic(rng, out, sfreq, t0, events) -> float:
    """Photic stimulation: 10 s trains at increasing flash rates; occipital driving."""
    drive = rng.uniform(3, 14) if rng.uniform() < 0.75 else 0.0
    occ = geo.gauss_field(geo.site("O1", "O2"), 0.4)
    tt = np.arange(0, 0.3, 1 / sfreq)
    vep = (_g(tt, 0.1, 0.015) - 0.8 * _g(tt, 0.14, 0.02)).astype(np.float32)
    t = t0
    for f in [1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 28, 30]:
        if f >= sfreq / 4:
            break
        flashes = t + np.arange(0, 10.0, 1.0 / f)
        gain = drive * np.exp(-0.5 * ((f - rng.uniform(8, 14)) / 8.0) ** 2)
        n = int(10.5 * sfreq)
        x = _train(n, sfreq, flashes - t, np.full(flashes.size, gain), vep, 0)
        add_event(out, sfreq, t, x, occ)
        events.append((t, t + 10.0, f"photic_{f}hz"))
        t += 20.0
    return t


def hyperventilation(rng, out, sfreq, t0, dur, patient, events) -> None:
    """Hyperventilation build-up: diffuse rhythmic delta growing over minutes."""
    age = patient["age"]
    amp = rng.uniform(40, 110) if age < 20 else rng.uniform(0, 30)
    n = int((dur + 60) * sfreq)
    centre = geo.site("FZ", "F3", "F4") if age > 8 else geo.site("PZ", "O1", "O2")
    x = colored(rng, n, sfreq, lambda f: gauss_peak(f, rng.uniform(2.0, 3.5), 0.6), 1)[0]
    u = np.arange(n) / sfreq
    env = np.clip(u / dur, 0, 1) ** 2 * np.exp(-np.maximum(u - dur, 0) / 20.0)
    burst = upsample(np.exp(0.5 * ou(rng, int((dur + 62) / DT), DT, 3.0)), n, sfreq)
    add_event(
        out, sfreq, t0, (amp * env * burst * x).astype(np.float32), geo.gauss_field(centre, 0.9)
    )
    events.append((t0, t0 + dur, "hyperventilation"))
