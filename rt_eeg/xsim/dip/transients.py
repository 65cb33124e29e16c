"""Brief cortical events: sleep graphoelements, benign variants, interictal discharges and the
responses to hyperventilation and photic stimulation.

Each is a cortical patch (Gaussian cap of dipoles, normal or with a set orientation) with a
time course; its scalp field comes from the lead field, so a midline generator peaks at the
vertex, a temporal one reverses phase around F7/T3 in bipolar chains, and a tangential one
(rolandic spikes) shows its positive end frontally. Amplitudes are the peak of the field on
the reference head (average reference); each patient's own head scales them.
"""

from __future__ import annotations

import numpy as np

from .background import mixing, region_weights
from .head import average_reference, landmark, standard_head
from .recording import Recording
from .signals import add_at, add_mixed_noise, gauss, poisson_times, sos, tukey


def jitter(center: np.ndarray, deg: float, rng) -> np.ndarray:
    """``center`` moved by a random angle of about ``deg`` degrees."""
    t = rng.standard_normal(3)
    t -= (t @ center) * center
    c = center + np.deg2rad(deg) * t
    return c / np.linalg.norm(c)


def patch_topo(rec: Recording, center, radius_cm: float, ori=None, std: bool = False):
    """Scalp field of a patch, scaled so that its peak would be 1 µV on the reference head
    (``std=True``: the field on the reference head itself)."""
    ref = standard_head()
    w0 = ref.patch(center, radius_cm)
    t0 = ref.topo(w0, ori)
    peak = max(float(np.max(np.abs(average_reference(t0)))), 1e-9)
    if std:
        return t0 / peak
    return rec.head.topo(rec.head.patch(center, radius_cm), ori) / peak


def named_topo(rec: Recording, name: str, side: str, radius_cm: float, std: bool = False):
    """Cached :func:`patch_topo` of a landmark (``side``: left, right or both, the pair
    scaled together to a unit peak on the reference head)."""
    key = ("topo", name, side, round(radius_cm, 3), std)
    if key not in rec.cache:
        if side == "both":
            pair = [named_topo(rec, name, s, radius_cm, True) for s in ("left", "right")]
            peak = np.max(np.abs(average_reference(pair[0] + pair[1])))
            t = (
                named_topo(rec, name, "left", radius_cm, std)
                + named_topo(rec, name, "right", radius_cm, std)
            ) / peak
        else:
            t = patch_topo(rec, landmark(name, side), radius_cm, std=std)
        rec.cache[key] = t
    return rec.cache[key]


def _times(rec: Recording, rng, per_min: dict, max_per_min: float, margin: float = 5.0):
    """Event onsets following the vigilance states, none within a seizure or post-ictal."""
    t = poisson_times(
        rng, lambda x: rec.plan.rate(x, per_min) / 60.0, rec.duration - 2.0, max_per_min / 60.0
    )
    return t[rec.free_mask(t, margin)]


# ---- waveforms (surface potential over the generator, negative = surface negative) -------


def spindle_wave(fs, f, dur, rng):
    t = np.arange(int(dur * fs)) / fs
    env = np.sin(np.pi * t / dur) ** 1.5 * (1 + 0.25 * np.sin(2 * np.pi * t / dur * 2))
    ph = 2 * np.pi * (f * t - 0.25 * t * t / dur) + rng.uniform(0, 2 * np.pi)
    return env * np.sin(ph)


def k_complex_wave(fs, rng):
    t = np.arange(int(1.3 * fs)) / fs
    a = rng.uniform(0.22, 0.32)
    return (
        0.15 * gauss(t, 0.07, 0.04)
        - gauss(t, a, rng.uniform(0.07, 0.11))
        + rng.uniform(0.45, 0.75) * gauss(t, a + 0.42, rng.uniform(0.14, 0.22))
    )


def vertex_wave(fs, rng, sharp: float):
    t = np.arange(int(0.45 * fs)) / fs
    w = 0.035 / sharp
    return 0.18 * gauss(t, 0.06, 0.02) - gauss(t, 0.13, w) + 0.3 * gauss(t, 0.13 + 2.5 * w, 1.8 * w)


def spike_wave(fs, rng, dur_spike: float, slow: bool):
    """A focal spike or sharp wave: surface-negative main phase, small positive flanks and
    (usually) an after-going slow wave."""
    t = np.arange(int(0.6 * fs)) / fs
    sd = dur_spike / 3.5
    t0 = 0.05
    w = (
        0.12 * gauss(t, t0 - 1.6 * sd, 0.7 * sd)
        - gauss(t, t0, sd)
        + 0.3 * gauss(t, t0 + 2.2 * sd, 1.2 * sd)
    )
    if slow:
        w -= rng.uniform(0.35, 0.7) * gauss(t, t0 + 2 * sd + 0.14, rng.uniform(0.05, 0.09))
    return w


# ---- sleep -------------------------------------------------------------------------------


def sleep_elements(rec: Recording, rng) -> None:
    """Spindles, K-complexes, vertex waves, POSTS, REM sawtooth waves, hypnagogic
    hypersynchrony, into ``rec.bg``."""
    p, fs = rec.patient, rec.fs
    sl = p["sleep"]
    child = p["age"] < 13
    fast = (
        named_topo(rec, "vertex", "both", 2.5) * 0.5
        + named_topo(rec, "parietal_midline", "left", 3.0) * 0.25
        + named_topo(rec, "parietal_midline", "right", 3.0) * 0.25
    )
    slow = named_topo(rec, "frontal_midline", "both", 3.0)
    vertex = named_topo(rec, "vertex", "both", 1.6)
    kc = 0.6 * named_topo(rec, "frontal_midline", "both", 2.8) + 0.4 * vertex
    for t0 in _times(rec, rng, {"n2": 5.0, "n3": 1.5, "drowsy": 0.3}, 5.0):
        dur = float(np.clip(rng.lognormal(np.log(0.9), 0.35), 0.5, 2.5))
        frontal = rng.random() < 0.3
        f = sl["spindle_hz"] - (1.2 if frontal else 0.0) + rng.normal(0, 0.3)
        topo = slow if frontal else fast
        amp = sl["spindle_uv"] * rng.lognormal(0, 0.3)
        add_at(rec.bg, topo * amp, rec.idx(t0), spindle_wave(fs, f, dur, rng))
        rec.event(t0, t0 + dur, "spindle")
    for t0 in _times(rec, rng, {"n2": 1.6, "n3": 0.6, "drowsy": 0.1}, 1.6):
        amp = sl["kc_uv"] * rng.lognormal(0, 0.3)
        add_at(rec.bg, kc * amp, rec.idx(t0), k_complex_wave(fs, rng))
        if rng.random() < 0.4:
            f = sl["spindle_hz"] - 0.5
            add_at(
                rec.bg,
                fast * sl["spindle_uv"],
                rec.idx(t0 + 0.7),
                spindle_wave(fs, f, rng.uniform(0.6, 1.2), rng),
            )
        rec.event(t0, t0 + 1.3, "k_complex")
    for t0 in _times(rec, rng, {"drowsy": 3.0, "n2": 1.5}, 3.0):
        amp = sl["vertex_uv"] * rng.lognormal(0, 0.3)
        side = rng.normal(0, 0.1)  # slight asymmetry from one wave to the next
        topo = vertex + side * (
            named_topo(rec, "central", "left", 2.5) - named_topo(rec, "central", "right", 2.5)
        )
        add_at(rec.bg, topo * amp, rec.idx(t0), vertex_wave(fs, rng, 1.6 if child else 1.0))
        rec.event(t0, t0 + 0.45, "vertex_wave")
    if p["variants"]["posts"]:
        occ = named_topo(rec, "occipital", "both", 2.5)
        for t0 in _times(rec, rng, {"n2": 1.0, "n3": 0.4, "drowsy": 0.3}, 1.0):
            k = int(rng.integers(1, 6))
            amp = rng.uniform(20, 45)
            for j in range(k):
                tt = np.arange(int(0.2 * fs)) / fs
                w = np.clip(1 - np.abs(tt - 0.08) / 0.07, 0, None) ** 1.3  # triangular, positive
                add_at(rec.bg, occ * amp, rec.idx(t0 + j * rng.uniform(0.3, 0.6)), w)
            rec.event(t0, t0 + 0.5 * k, "posts")
    for t0 in _times(rec, rng, {"rem": 0.8}, 0.8):
        dur = rng.uniform(2, 6)
        f = rng.uniform(2.0, 4.0)
        tt = np.arange(int(dur * fs)) / fs
        saw = 2 * ((f * tt) % 1.0) - 1  # slow rise, sudden fall
        w = -saw * np.sin(np.pi * tt / dur) ** 0.5
        add_at(rec.bg, vertex * rng.uniform(25, 60), rec.idx(t0), w)
        rec.event(t0, t0 + dur, "sawtooth_waves")
    if p["variants"]["hypnagogic"]:
        topo = 0.5 * named_topo(rec, "frontal_midline", "both", 4.0) + 0.5 * vertex
        for t0 in _times(rec, rng, {"drowsy": 2.0}, 2.0):
            dur = rng.uniform(1.0, 5.0)
            f = rng.uniform(3.0, 5.0)
            tt = np.arange(int(dur * fs)) / fs
            w = np.sin(2 * np.pi * f * tt + rng.uniform(0, 6.3)) * tukey(len(tt), 0.4)
            add_at(rec.bg, topo * rng.uniform(80, 220), rec.idx(t0), w)
            rec.event(t0, t0 + dur, "hypnagogic_hypersynchrony")


# ---- benign variants and non-epileptiform patterns ---------------------------------------


def benign_variants(rec: Recording, rng) -> None:
    """Wicket spikes, small sharp spikes, RMTD, 14&6 positive spikes, SREDA, FIRDA, LPDs."""
    p, fs = rec.patient, rec.fs
    v = p["variants"]
    sides = ("left", "right")
    if v["wicket"]:
        for t0 in _times(rec, rng, {"drowsy": 0.8, "wake_ec": 0.1, "n2": 0.2}, 0.8):
            dur = rng.uniform(0.5, 2.0)
            f = rng.uniform(6.5, 11)
            tt = np.arange(int(dur * fs)) / fs
            z = np.sin(2 * np.pi * f * tt)
            w = -(np.abs(z) ** 0.6) * np.sign(z) - 0.5 * np.abs(z)  # arciform, negative points
            side = sides[int(rng.integers(2))]
            add_at(
                rec.brain,
                named_topo(rec, "mid_temporal", side, 2.0) * rng.uniform(30, 80),
                rec.idx(t0),
                w * tukey(len(tt), 0.3),
            )
            rec.event(t0, t0 + dur, "wicket")
    if v["bsss"]:
        for t0 in _times(rec, rng, {"drowsy": 1.0, "n2": 0.8}, 1.0):
            c = jitter(landmark("mid_temporal", sides[int(rng.integers(2))]), 10, rng)
            # An oblique generator: the field reverses across the head.
            ori = jitter(np.array([0.0, 0.0, 1.0]), 40, rng)
            topo = patch_topo(rec, c, 1.2, ori)
            add_at(
                rec.brain,
                topo * rng.uniform(20, 45),
                rec.idx(t0),
                spike_wave(fs, rng, 0.045, slow=False),
            )
            rec.event(t0, t0 + 0.1, "small_sharp_spike")
    if v["rmtd"]:
        for t0 in _times(rec, rng, {"drowsy": 0.3}, 0.3):
            dur = rng.uniform(3, 12)
            f = rng.uniform(5.0, 6.8)
            tt = np.arange(int(dur * fs)) / fs
            z = np.sin(2 * np.pi * f * tt)
            w = np.tanh(2.2 * z) + 0.3 * np.sin(4 * np.pi * f * tt)  # flat-topped, notched
            side = sides[int(rng.integers(2))] if rng.random() < 0.6 else "both"
            add_at(
                rec.brain,
                named_topo(rec, "mid_temporal", side, 2.0) * rng.uniform(30, 60),
                rec.idx(t0),
                w * tukey(len(tt), 0.25),
            )
            rec.event(t0, t0 + dur, "rmtd")
    if v["six_fourteen"]:
        for t0 in _times(rec, rng, {"drowsy": 0.4, "n2": 0.3}, 0.4):
            dur = rng.uniform(0.5, 1.0)
            f = 14.0 if rng.random() < 0.6 else 6.0
            tt = np.arange(int(dur * fs)) / fs
            w = np.maximum(np.sin(2 * np.pi * f * tt), 0) ** 3  # positive spiky arches
            side = sides[int(rng.integers(2))]
            add_at(
                rec.brain,
                named_topo(rec, "posterior_temporal", side, 1.8) * rng.uniform(20, 50),
                rec.idx(t0),
                w * tukey(len(tt), 0.3),
            )
            rec.event(t0, t0 + dur, "14_and_6_positive_spikes")
    if v["sreda"] and rng.random() < 0.35:
        t0s = _times(rec, rng, {"wake_eo": 0.05, "wake_ec": 0.05}, 0.05, margin=120.0)
        for t0 in t0s[:1]:
            dur = rng.uniform(25, 70)
            tt = np.arange(int(dur * fs)) / fs
            f = 5.5 + 1.0 * np.sin(np.pi * tt / dur)
            ph = 2 * np.pi * np.cumsum(f) / fs
            w = (np.sin(ph) + 0.35 * np.sin(2 * ph + 0.8)) * tukey(len(tt), 0.5)
            topo = named_topo(rec, "parietal", "both", 3.0)
            add_at(rec.brain, topo * rng.uniform(40, 80), rec.idx(t0), w)
            rec.event(t0, t0 + dur, "sreda")
    if v["firda"]:
        topo = named_topo(rec, "frontal_midline", "both", 4.0)
        for t0 in _times(rec, rng, {"wake_eo": 0.8, "wake_ec": 0.8, "drowsy": 1.2}, 1.2):
            dur = rng.uniform(1.5, 6.0)
            f = rng.uniform(1.8, 3.0)
            tt = np.arange(int(dur * fs)) / fs
            w = np.sin(2 * np.pi * f * tt) * tukey(len(tt), 0.4)
            add_at(rec.brain, topo * rng.uniform(50, 130), rec.idx(t0), w)
            rec.event(t0, t0 + dur, "firda")
    epi = p["epilepsy"]
    if epi["lpd"] and rng.random() < 0.6:
        _lpds(rec, rng)


def _lpds(rec: Recording, rng) -> None:
    """Lateralised periodic discharges over the lesion, in stretches of minutes."""
    epi, fs = rec.patient["epilepsy"], rec.fs
    c = landmark(epi["focus"], epi["side"])
    t = rng.uniform(0, 0.3 * rec.duration)
    while t < rec.duration:
        dur = rng.lognormal(np.log(600), 0.8)
        period = rng.uniform(0.7, 2.0)
        amp = rng.uniform(60, 180)
        k, t1 = 0, min(t + dur, rec.duration)
        while t + k * period < t1:
            tk = t + k * period + rng.normal(0, 0.06 * period)
            k += 1
            if not rec.free(tk, tk + 0.6, 10.0):
                continue
            topo = patch_topo(rec, jitter(c, 4, rng), 2.0)
            w = spike_wave(fs, rng, rng.uniform(0.08, 0.16), slow=True)
            add_at(rec.brain, topo * amp * rng.lognormal(0, 0.15), rec.idx(tk), w)
        rec.event(t, t1, "lpd")
        t = t1 + rng.lognormal(np.log(400), 0.8)


# ---- interictal epileptiform discharges --------------------------------------------------


def interictal(rec: Recording, rng) -> None:
    """Spikes, sharp waves and brief generalised bursts of the patient's epilepsy."""
    p, fs = rec.patient, rec.fs
    epi = p["epilepsy"]
    if epi["ied_per_h"] <= 0:
        return
    base = epi["ied_per_h"] / 60.0 * rng.lognormal(0, 0.5)
    sf = epi["ied_sleep_factor"]
    rates = {
        "wake_ec": base,
        "wake_eo": base,
        "drowsy": base * sf,
        "n2": base * sf,
        "n3": base * sf * 1.2,
        "rem": base * 0.7,
    }
    focus = landmark(epi["focus"], epi["side"])
    other = landmark(epi["focus"], "right" if epi["side"] == "left" else "left")
    bilat = 0.25 if "temporal" in epi["focus"] else 0.08
    gen = epi["class"] == "generalized"
    gtopo = 0.6 * named_topo(rec, "frontal_midline", "both", 5.0) + 0.4 * named_topo(
        rec, "dorsolateral_frontal", "both", 4.0
    )
    for t0 in _times(rec, rng, rates, max(rates.values()), margin=3.0):
        amp = epi["ied_uv"] * rng.lognormal(0, 0.3)
        if gen and rng.random() < 0.8:
            dur = rng.uniform(0.3, 2.2)
            kind = "polyspike_burst" if rng.random() < 0.35 else "generalized_spike_wave_burst"
            w = _gsw_burst(fs, dur, kind, rng)
            add_at(rec.brain, gtopo * amp * 1.3, rec.idx(t0), w)
            rec.event(t0, t0 + dur, kind)
            continue
        c = other if rng.random() < bilat else focus
        c = jitter(c, 5, rng)
        ori = None
        if epi.get("rolandic"):
            # Centrotemporal spikes: a tangential dipole, negative centrotemporally and
            # positive frontally.
            ant = np.array([1.0, 0.0, 0.0]) - c[0] * c
            ori = c + 1.3 * ant / np.linalg.norm(ant)
            ori /= np.linalg.norm(ori)
        topo = patch_topo(rec, c, rng.uniform(1.2, 2.2), ori)
        sharp = rng.random() < 0.45
        dur = rng.uniform(0.07, 0.18) if sharp else rng.uniform(0.025, 0.07)
        add_at(rec.brain, topo * amp, rec.idx(t0), spike_wave(fs, rng, dur, rng.random() < 0.7))
        rec.event(t0, t0 + 0.5, "sharp_wave" if sharp else "spike")


def _gsw_burst(fs, dur, kind, rng):
    f = rng.uniform(2.8, 4.5)
    tt = np.arange(int(dur * fs)) / fs
    frac = (f * tt) % 1.0
    tau = frac / f
    w = -0.35 * gauss(frac, 0.55, 0.15)
    n_sp = int(rng.integers(2, 5)) if kind == "polyspike_burst" else 1
    for k in range(n_sp):
        w -= gauss(tau, 0.02 + k * 0.06, 0.008) * (1 - 0.15 * k)
        w += 0.25 * gauss(tau, 0.045 + k * 0.06, 0.012)
    return w * tukey(len(tt), 0.15)


# ---- activation procedures ----------------------------------------------------------------


def procedures(rec: Recording, rng) -> None:
    """Hyperventilation and intermittent photic stimulation of a routine recording, done
    during the opening wakefulness."""
    if rec.duration < 12 * 60 or rec.duration > 50 * 60:
        return
    t_wake_end = 0.0
    for _a, b, s in rec.plan.segments:
        if s not in ("wake_ec", "wake_eo"):
            break
        t_wake_end = b
    t = rng.uniform(120, 300)
    if (
        rng.random() < 0.55
        and t + 240 < min(t_wake_end, rec.duration - 60)
        and rec.free(t, t + 240, 30)
    ):
        _hyperventilation(rec, rng, t)
        t += 300 + rng.uniform(30, 120)
    if rng.random() < 0.55 and t + 200 < rec.duration - 30 and rec.free(t, t + 200, 10):
        _photic(rec, rng, t)


def _hyperventilation(rec: Recording, rng, t0: float) -> None:
    p, fs = rec.patient, rec.fs
    dur = rng.uniform(150, 200)
    resp = p["variants"]["hv_response"]
    rec.event(t0, t0 + dur, "hyperventilation")
    if resp < 0.05:
        return
    w = region_weights(
        rec.head, [(landmark("frontal_midline"), 45.0, 1.0), (landmark("vertex"), 180.0, 0.3)]
    )
    mix = mixing(rec.head, w, 3.0, 0.8, 45.0 * resp)
    a, b = rec.idx(t0), min(rec.n, rec.idx(t0 + dur + 60))
    tt = np.arange(b - a) / fs
    # Builds up over the second minute, falls within a minute after the end.
    env = np.clip((tt - 40) / 80, 0, 1) * np.clip(1 - (tt - dur) / 45, 0, 1)
    env = (env * (0.6 + 0.4 * np.abs(np.sin(2 * np.pi * tt / rng.uniform(6, 14))))).astype(
        np.float32
    )
    add_mixed_noise(rec.bg[:, a:b], mix, sos("band", fs, 1.8, 4.0), env, rng, fs)
    rec.event(t0 + 40, t0 + dur + 45, "hv_slowing")


def _photic(rec: Recording, rng, t0: float) -> None:
    p, fs = rec.patient, rec.fs
    freqs = [1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 30]
    drive = p["variants"]["photic_driving"]
    topo = named_topo(rec, "occipital_pole", "both", 2.5)
    pdr = p["background"]["pdr_hz"]
    tt = np.arange(int(0.3 * fs)) / fs
    # Flash-evoked response (N75-P100-N135), surface polarity over the occipital poles.
    vep = -0.5 * gauss(tt, 0.075, 0.012) + gauss(tt, 0.10, 0.015) - 0.6 * gauss(tt, 0.14, 0.02)
    t = t0
    for f in freqs:
        dur = rng.uniform(8, 10)
        if t + dur > rec.duration - 5:
            break
        a, b = rec.idx(t), rec.idx(t + dur)
        train = np.zeros(b - a + len(vep))
        flashes = (np.arange(0, dur, 1.0 / f) * fs).astype(int)
        train[flashes] = 1.0
        gain = (3 + 12 * np.exp(-0.5 * ((f - pdr) / 2.5) ** 2)) if drive else 2.0
        if f > 22:
            gain *= 0.4
        resp = np.convolve(train, vep)[: b - a + len(vep)]
        add_at(rec.bg, topo * gain * rng.lognormal(0, 0.2), a, resp)
        rec.event(t, t + dur, f"photic_{f}hz")
        t += dur + rng.uniform(5, 9)
    rec.event(t0, t, "photic")
