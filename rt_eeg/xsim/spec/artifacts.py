"""Artifacts, each modelled statistically from its clinical description.

Rates follow the vigilance timeline and a per-recording artifact load (the patient's
agitation times a recording factor; a few recordings are very heavy: near-continuous muscle
and frequent movement). Fields are physical where that is simple: eye movements are a
corneo-retinal dipole seen at the frontal poles and the anterior temporal electrodes, ECG a
distant cardiac dipole, muscle is local to the temporalis, frontalis, masseter or neck
muscles, pops and drifts belong to single electrodes.
"""

from __future__ import annotations

import numpy as np
from scipy import signal as ss

from . import geometry as geo
from .signals import (
    DT,
    add_event,
    burst_envelope,
    colored,
    emg_noise,
    ou,
    phase,
    poisson_times,
    shaped_wave,
    smoothstep,
    upsample,
)
from .vigilance import N2, D, R, W

_EYES = geo.unit([0.8, 0.0, -0.6])


def _eye_topos() -> tuple[np.ndarray, np.ndarray]:
    """Fields of vertical (blink) and horizontal (look-left positive at F7) eye potentials."""
    d = geo.dist_to(_EYES)
    v = np.exp(-0.5 * (d / 0.42) ** 2)
    v /= v[geo.IDX["FP1"]]
    h = geo.XYZ[:, 1] * np.exp(-0.5 * (d / 0.7) ** 2)
    h /= h[geo.IDX["F7"]]
    return v, h


V_TOPO, H_TOPO = _eye_topos()
# Muscle groups (left-side centres; mirrored for the right) and their field radii.
_MUSCLES = {
    "temporalis": (geo.site("F7", "T3"), 0.3),
    "frontalis": (geo.site("FP1", "F3"), 0.33),
    "neck": (geo.unit([-0.75, 0.35, -0.55]), 0.4),
    "masseter": (geo.unit([0.35, 0.85, -0.45]), 0.3),
}


def muscle_topo(rng, group: str, side: str) -> np.ndarray:
    """Field of one muscle group; electrode contact varies strongly from site to site."""
    centre, r = _MUSCLES[group]
    sides = {"L": [centre], "R": [geo.mirror(centre)], "both": [centre, geo.mirror(centre)]}[side]
    g = sum(np.exp(-0.5 * (geo.dist_to(c) / r) ** 2) for c in sides)
    return np.minimum(g, 1.0) * np.exp(rng.normal(0, 0.4, geo.N_CH))


def _rate(tl, per_min) -> np.ndarray:
    return np.tensordot(np.asarray(per_min, float) / 60.0, tl["weights"], axes=1)


def _emg_burst(rng, out, sfreq, t0, dur, topo, uv, rise=0.1) -> None:
    n = int(dur * sfreq)
    if n < 8:
        return
    chs = np.nonzero(topo > 0.05)[0]
    x = emg_noise(rng, chs.size, n, sfreq)
    env = burst_envelope(n, min(rise / max(dur, 1e-3), 0.45), "tukey")
    m = max(int(dur / DT) + 2, 2)
    env = env * np.interp(
        np.linspace(0, 1, n), np.linspace(0, 1, m), np.exp(0.5 * ou(rng, m, DT, 0.5))
    )
    i0 = int(round(t0 * sfreq))
    a, b = max(i0, 0), min(i0 + n, out.shape[1])
    if b > a:
        out[chs, a:b] += (
            uv * topo[chs, None] * x[:, a - i0 : b - i0] * env[None, a - i0 : b - i0]
        ).astype(np.float32)


def eye(rng, out, sfreq, patient, tl, events, duration) -> None:
    """Blinks, eye closure (Bell's phenomenon), saccades, slow roving and REM eye movements."""
    art = patient["artifacts"]
    n = out.shape[1]
    w = tl["weights"]
    eyes = tl["eyes_open"]
    v = np.zeros(n, np.float32)
    h = np.zeros(n, np.float32)
    b = art["blink_per_min"] / 60.0
    rate = b * (eyes + 0.12 * (w[W] - eyes) + 0.08 * w[D])
    tt = np.arange(0, 0.8, 1 / sfreq)
    for t in poisson_times(rng, rate, 0.3):
        tp = rng.uniform(0.1, 0.18)
        a = art["blink_uv"] * np.exp(rng.normal(0, 0.2))
        x = (tt / tp) ** 3 * np.exp(3 * (1 - tt / tp))
        i = int(t * sfreq)
        m = max(min(x.size, n - i), 0)
        v[i : i + m] += (a * x[:m]).astype(np.float32)
        events.append((t, t + 0.4, "eye_blink"))
    for t, opening in tl["eye_changes"]:
        i = int(t * sfreq)
        if opening:
            m = max(min(tt.size, n - i), 0)
            v[i : i + m] += (art["blink_uv"] * (tt / 0.15) ** 3 * np.exp(3 * (1 - tt / 0.15)))[:m]
            events.append((t, t + 0.5, "eye_opening"))
        else:  # eyes roll up on closure; sometimes eyelid flutter
            m = max(int(min(3.0 * sfreq, n - i)), 0)
            u = np.arange(m) / sfreq
            x = 0.8 * art["blink_uv"] * smoothstep(u / 0.25) * np.exp(-u / 1.2)
            if rng.uniform() < 0.25:
                x += (
                    rng.uniform(15, 50)
                    * np.sin(2 * np.pi * rng.uniform(3, 7) * u)
                    * np.exp(-u / 1.0)
                )
            v[i : i + m] += x.astype(np.float32)
            events.append((t, t + 2.0, "eye_closure"))
    # Horizontal gaze: saccades while eyes open, slow roving in drowsiness, REM bursts.
    gain = art["eog_uv_per_deg"]
    sac_rate = 0.8 * eyes + 1.5 * w[R] * (ou(rng, tl["n_c"], DT, 5.0) > 0.5)
    times = poisson_times(rng, sac_rate, 0.15)
    if times.size:
        pos = np.clip(
            np.cumsum(rng.normal(0, 8, times.size)) * 0.3 + rng.normal(0, 6, times.size), -25, 25
        )
        idx = np.minimum((times * sfreq).astype(int), n - 1)
        steps = np.zeros(n, np.float32)
        steps[idx] = np.diff(np.r_[0.0, pos])
        pos_full = np.cumsum(steps)
        k = max(int(0.04 * sfreq), 1)
        h += np.convolve(pos_full, np.ones(k) / k, mode="same").astype(np.float32) * gain
        events.extend((t, t + 0.1, "saccade") for t in times[:: max(1, times.size // 200)])
    roving = ou(rng, tl["n_c"], DT, 2.5) * 12.0 * np.clip(w[D] - 0.2 * w[W], 0, 1)
    h += upsample(roving, n, sfreq) * gain
    # EOG is recorded through the EEG amplifier's ~0.05 Hz high-pass: steps decay.
    bb, aa = ss.butter(1, 0.05, btype="highpass", fs=sfreq)
    h = ss.lfilter(bb, aa, h).astype(np.float32)
    out += V_TOPO.astype(np.float32)[:, None] * v[None, :]
    out += H_TOPO.astype(np.float32)[:, None] * h[None, :]


def muscle(rng, out, sfreq, patient, tl, load, events, procs) -> None:
    """EMG bursts, tonic muscle activity (continuous when agitated), chewing."""
    art = patient["artifacts"]
    n = out.shape[1]
    groups = list(_MUSCLES)
    rate = _rate(tl, [1.5 * load, 0.3 * load, 0.04, 0.02, 0.01])
    for a, b_ in procs:  # hyperventilation and photic stimulation: people move and tense
        rate[int(a / DT) : int(b_ / DT)] += 2.0 / 60.0
    for t in poisson_times(rng, rate, 0.5):
        dur = float(np.clip(np.exp(rng.normal(0.5, 0.9)), 0.2, 30.0))
        g = groups[rng.choice(4, p=np.asarray(art["emg_sites"]) / np.sum(art["emg_sites"]))]
        side = str(rng.choice(["L", "R", "both"], p=[0.3, 0.3, 0.4]))
        uv = art["emg_uv"] * np.exp(rng.normal(0, 0.5))
        _emg_burst(rng, out, sfreq, t, dur, muscle_topo(rng, g, side), uv, rng.uniform(0.03, 0.4))
        events.append((t, t + dur, f"emg_{g}"))
    # Tonic muscle tone while awake, near-continuous bursts when agitated.
    duty = min(0.9, 0.05 + 0.12 * load)
    on = ou(rng, tl["n_c"], DT, rng.uniform(4, 20))
    thr = np.quantile(on, 1 - duty)
    level = (0.04 + 0.96 / (1 + np.exp(-(on - thr) * 4.0))) * (
        tl["weights"][W] + 0.3 * tl["weights"][D]
    )
    level *= art["emg_uv"] * (0.08 + 0.3 * min(load, 4.0) / 4.0)
    topo = muscle_topo(rng, "temporalis", "both") + 0.6 * muscle_topo(rng, "frontalis", "both")
    chs = np.nonzero(topo > 0.08)[0]
    block = int(120 * sfreq)
    for s in range(0, n, block):
        e = min(s + block, n)
        x = emg_noise(rng, chs.size, e - s, sfreq)
        out[chs, s:e] += (
            topo[chs, None].astype(np.float32) * x * upsample(level, e - s, sfreq, s)[None, :]
        )
    if load > 2.5:
        for t0, t1 in _on_periods((on > thr) & (tl["weights"][W] > 0.5), tl, 0.5):
            events.append((t0, t1, "emg_continuous"))
    # Chewing: rhythmic bursts of bilateral temporalis/masseter activity at ~1-1.5 Hz.
    chew_rate = art["chew_per_h"] / 3600.0 * tl["weights"][W]
    for t in poisson_times(rng, chew_rate, 40.0):
        chew(rng, out, sfreq, t, rng.uniform(3.0, 30.0), rng.uniform(50, 180), events)


def _on_periods(mask, tl, min_s) -> list:
    idx = np.flatnonzero(np.diff(np.r_[0, mask.astype(int), 0]))
    return [
        (a * DT, b * DT) for a, b in zip(idx[::2], idx[1::2], strict=True) if (b - a) * DT >= min_s
    ]


def chew(rng, out, sfreq, t0, dur, uv, events) -> None:
    """Chewing (or oral automatisms): EMG bursts with a slight glossokinetic slow wave."""
    hz = rng.uniform(0.9, 1.6)
    topo = muscle_topo(rng, "temporalis", "both") + muscle_topo(rng, "masseter", "both")
    t = t0
    while t < t0 + dur - 0.4:
        d = rng.uniform(0.15, 0.3)
        _emg_burst(rng, out, sfreq, t, d, topo, uv * np.exp(rng.normal(0, 0.2)), 0.05)
        t += (1.0 / hz) * np.exp(rng.normal(0, 0.06))
    n = int(dur * sfreq)
    slow = 20 * np.sin(phase(np.full(n, hz), sfreq)) * burst_envelope(n, 0.1, "tukey")
    add_event(
        out,
        sfreq,
        t0,
        slow.astype(np.float32),
        geo.gauss_field(geo.site("FP1", "FP2", "F7", "F8"), 0.6),
    )
    events.append((t0, t0 + dur, "chewing"))


def movement(rng, out, sfreq, t0, dur, uv, events, with_emg=True) -> None:
    """Gross movement: large irregular slow deflections in a region, muscle, maybe pops."""
    n = int(dur * sfreq)
    if n < 16:
        return
    centre = geo.unit(rng.normal(0, 1, 3) + np.array([0, 0, 0.6]))
    topo = geo.gauss_field(centre, rng.uniform(0.5, 1.2)) * np.exp(rng.normal(0, 0.5, geo.N_CH))
    x = colored(
        rng, n, sfreq, lambda f: 1.0 / (0.3 + f) ** 2.5, geo.N_CH, geo.coherence_mixer(0.5, 0.4)
    )
    env = burst_envelope(n, min(0.3 / dur, 0.4), "tukey")
    i0 = int(round(t0 * sfreq))
    m = min(n, out.shape[1] - i0)
    if m <= 0:  # an event time drawn at the very end of the recording
        return
    out[:, i0 : i0 + m] += (uv * topo[:, None] * x[:, :m] * env[None, :m]).astype(np.float32)
    if with_emg:
        g = str(rng.choice(["temporalis", "frontalis", "neck"]))
        _emg_burst(rng, out, sfreq, t0, dur, muscle_topo(rng, g, "both"), uv * 0.25, 0.1)
    for _ in range(rng.poisson(0.7)):
        pop(rng, out, sfreq, t0 + rng.uniform(0, dur), int(rng.integers(0, geo.N_CH)), events)
    events.append((t0, t0 + dur, "movement"))


def pop(rng, out, sfreq, t, ch: int, events, uv=None) -> None:
    """Electrode pop: an abrupt step at one electrode decaying exponentially."""
    tau = rng.uniform(0.05, 1.0)
    n = int(min(6 * tau, 4.0) * sfreq)
    a = (uv or rng.uniform(80, 600)) * rng.choice([-1, 1])
    x = a * np.exp(-np.arange(n) / (tau * sfreq))
    i = int(t * sfreq)
    m = min(n, out.shape[1] - i)
    if m > 0:
        out[ch, i : i + m] += x[:m].astype(np.float32)
        events.append((t, t + 0.5, f"electrode_pop:{geo.ELECTRODES[ch]}"))


def cardiac(rng, out, sfreq, patient, rec, events, duration) -> None:
    """ECG pickup (cardiac dipole field) and occasional pulse artifact under one electrode."""
    art = patient["artifacts"]
    amp = art["ecg_uv"] * rec["ecg_factor"]
    n = out.shape[1]
    if amp <= 0.3 and not rec["pulse_ch"] >= 0:
        return
    rr0 = 60.0 / (art["hr_bpm"] * np.exp(rng.normal(0, 0.05)))
    m = int(duration / rr0 * 1.3) + 10
    rr = rr0 * (
        1
        + 0.04 * np.sin(np.arange(m) * rr0 * 2 * np.pi * rng.uniform(0.2, 0.3))
        + 0.03 * ou(rng, m, 1.0, 30.0)
    )
    beats = np.cumsum(rr) - rng.uniform(0, rr0)
    beats = beats[(beats > 0) & (beats < duration)]
    tt = np.arange(-0.1, 0.45, 1 / sfreq)

    def g(mu, sd):
        return np.exp(-0.5 * ((tt - mu) / sd) ** 2)

    qrs = (
        -0.12 * g(-0.02, 0.008) + g(0, 0.011) - 0.3 * g(0.022, 0.01) + 0.25 * g(0.25, 0.05)
    ).astype(np.float32)
    lead = int(0.1 * sfreq)
    from .transients import _train

    if amp > 0.3:
        x = _train(n, sfreq, beats, np.exp(rng.normal(0, 0.03, beats.size)), qrs, lead)
        topo = geo.XYZ @ np.asarray(art["ecg_axis"])
        topo = (topo - topo.mean()) / np.abs(topo - topo.mean()).max() * amp
        out += topo.astype(np.float32)[:, None] * x[None, :]
        events.append((0.0, duration, "ecg"))
    if rec["pulse_ch"] >= 0:
        pul = (np.exp(-0.5 * ((tt - 0.25) / 0.09) ** 2)).astype(np.float32)
        x = _train(n, sfreq, beats, np.full(beats.size, rng.uniform(15, 50)), pul, lead)
        out[rec["pulse_ch"]] += x
        events.append((0.0, duration, f"pulse:{geo.ELECTRODES[rec['pulse_ch']]}"))


def line_noise(rng, out, sfreq, patient, rec, events, duration) -> None:
    """Mains interference: per-electrode amplitude set by contact impedance, slow drifts."""
    hz = patient["artifacts"]["line_hz"]
    n = out.shape[1]
    amps = rec["line_ch_uv"]
    mod = upsample(np.exp(0.3 * ou(rng, int(duration / DT) + 2, DT, 60.0)), n, sfreq)
    tt = np.arange(n) / sfreq
    ph = rng.normal(0, 0.3, geo.N_CH) + rng.uniform(0, 2 * np.pi)
    for k, rel in ((1, 1.0), (2, 0.08), (3, 0.2)):
        f = hz * k * (1 + rng.normal(0, 2e-4))
        if f >= 0.48 * sfreq:
            continue
        s = (np.sin(2 * np.pi * f * tt) * mod).astype(np.float32)
        c = (np.cos(2 * np.pi * f * tt) * mod).astype(np.float32)
        a = amps * rel
        out += (a * np.cos(ph * k)).astype(np.float32)[:, None] * s[None, :]
        out += (a * np.sin(ph * k)).astype(np.float32)[:, None] * c[None, :]
    events.append((0.0, duration, f"line_noise_{int(hz)}hz"))


def slow_drifts(rng, out, sfreq, patient, rec, tl, events, duration) -> None:
    """Electrode baseline wander, sweat artifact and respiration/ventilator artifact."""
    n = out.shape[1]
    n_c = tl["n_c"]
    for ch in range(geo.N_CH):
        x = ou(rng, n_c, DT, rng.uniform(8, 40)) * rec["drift_uv"][ch]
        out[ch] += upsample(x, n, sfreq)
    art = patient["artifacts"]
    if rng.uniform() < art["sweat"]:
        for t in poisson_times(rng, np.full(n_c, rng.uniform(2, 10) / 3600.0), 60.0):
            dur = rng.uniform(30, 600)
            m = int(min(dur, duration - t) * sfreq)
            if m < sfreq:
                continue
            centre = geo.site(*[str(rng.choice(["FP1", "FP2", "F7", "F8", "T3", "T4"]))])
            topo = geo.gauss_field(centre, rng.uniform(0.3, 0.7)) * rng.uniform(30, 150)
            x = colored(
                rng,
                m,
                sfreq,
                lambda f: 1.0 / (0.02 + f) ** 3 * (f < 0.6),
                geo.N_CH,
                geo.coherence_mixer(0.4, 0.5),
            )
            i = int(t * sfreq)
            out[:, i : i + m] += (
                topo[:, None] * x * burst_envelope(m, 0.1, "tukey")[None, :]
            ).astype(np.float32)
            events.append((t, t + m / sfreq, "sweat"))
    if art["ventilated"] or rng.uniform() < 0.25:
        hz = rng.uniform(0.2, 0.33)
        chs = rng.choice(geo.N_CH, size=int(rng.integers(1, 5)), replace=False)
        ph = phase(np.full(n, hz) * (1 + 0.03 * upsample(ou(rng, n_c, DT, 30.0), n, sfreq)), sfreq)
        kappa = 3.0 if art["ventilated"] else 0.8
        wave = shaped_wave(ph, kappa, 0.4).astype(np.float32)
        for ch in chs:
            out[ch] += rng.uniform(10, 50) * wave
        kind = "ventilator" if art["ventilated"] else "respiration"
        events.append((0.0, duration, f"{kind}:" + ",".join(geo.ELECTRODES[c] for c in chs)))


def rhythmic(rng, out, sfreq, patient, tl, load, events, excl) -> None:
    """Tremor, patting/percussion and rocking: rhythmic but non-evolving artifacts."""
    art = patient["artifacts"]
    w = tl["weights"]
    kinds = []
    if art["tremor"]:
        kinds.append(
            (
                "tremor",
                _rate(tl, [4, 1, 0, 0, 0]) / 60.0,
                (20, 300),
                art["tremor"]["hz"],
                art["tremor"]["uv"],
            )
        )
    if art["patting"]:
        kinds.append(
            (
                "patting",
                (w[W] + w[D] + w[N2]) * 3 / 3600.0,
                (8, 90),
                rng.uniform(1.5, 4.0),
                rng.uniform(40, 200),
            )
        )
    if art["rocking"]:
        kinds.append(
            (
                "rocking",
                (w[W] + w[D]) * 4 / 3600.0,
                (10, 180),
                rng.uniform(0.6, 1.5),
                rng.uniform(30, 120),
            )
        )
    for kind, rate, (lo, hi), hz, uv in kinds:
        for t in poisson_times(rng, rate * (1 + 0.2 * load), hi):
            dur = rng.uniform(lo, hi)
            n = int(dur * sfreq)
            f = hz * np.exp(rng.normal(0, 0.03)) * (1 + 0.02 * np.sin(np.linspace(0, 3, n)))
            th = phase(f, sfreq, rng.uniform(0, 6))
            kappa = {"tremor": 0.8, "patting": 6.0, "rocking": 0.4}[kind]
            wave = shaped_wave(th, kappa, rng.uniform(-0.4, 0.4)) * burst_envelope(
                n, min(1.0 / dur, 0.3), "tukey"
            )
            wave *= np.exp(0.15 * rng.standard_normal(int(np.ceil(th[-1] / (2 * np.pi))) + 2))[
                (th / (2 * np.pi)).astype(int)
            ]
            centre = geo.unit(
                rng.normal(0, 1, 3) + np.array([-0.3 if kind == "patting" else 0, 0, 0.3])
            )
            topo = geo.gauss_field(centre, rng.uniform(0.4, 1.0)) * np.exp(
                rng.normal(0, 0.4, geo.N_CH)
            )
            add_event(out, sfreq, t, (uv * wave).astype(np.float32), topo)
            events.append((t, t + dur, kind))
    mv_rate = _rate(tl, [0.25 * load, 0.06 * load, 0.01, 0.005, 0.005])
    big = load > 3
    for t in poisson_times(rng, mv_rate, 2.0):
        dur = float(np.clip(np.exp(rng.normal(0.7 + 0.3 * big, 0.8)), 0.4, 20))
        movement(rng, out, sfreq, t, dur, rng.uniform(60, 400), events)


def loose_electrodes(rng, out, sfreq, rec, tl, events) -> None:
    """Repeated pops on poorly attached electrodes, occasional pops anywhere."""
    n_c = tl["n_c"]
    for ch, rate in rec["loose"]:
        r = rate / 60.0 * np.exp(1.2 * ou(rng, n_c, DT, 60.0)) / np.exp(0.72)
        for t in poisson_times(rng, r, 0.3):
            pop(rng, out, sfreq, t, ch, events)
    for t in poisson_times(rng, np.full(n_c, 0.03 / 60.0)):
        pop(rng, out, sfreq, t, int(rng.integers(0, geo.N_CH)), events)


def ictal(rng, out, sfreq, reqs, events) -> None:
    """Motor signs of seizures, strictly inside the seizure interval."""
    for a in reqs:
        k = a["kind"]
        if k == "emg":
            topo = (
                muscle_topo(rng, "temporalis", "both") + muscle_topo(rng, "frontalis", "both")
                if a["sites"] == "all"
                else muscle_topo(rng, "temporalis", str(rng.choice(["L", "R"])))
            )
            _emg_burst(rng, out, sfreq, a["t0"], a["t1"] - a["t0"], topo, a["uv"], 0.8)
            events.append((a["t0"], a["t1"], "ictal_emg"))
        elif k == "emg_locked":
            topo = muscle_topo(rng, "temporalis", "both") + muscle_topo(rng, "frontalis", "both")
            for t in a["times"]:
                if rng.uniform() < a["p"]:
                    _emg_burst(rng, out, sfreq, t, rng.uniform(0.04, 0.12), topo, a["uv"], 0.01)
        elif k == "movement":
            t = a["t0"]
            while True:
                t += rng.exponential(60.0 / a["per_min"])
                d = rng.uniform(0.5, 3.0)
                if t + d >= a["t1"]:
                    break
                movement(rng, out, sfreq, t, d, rng.uniform(80, 300), events, with_emg=False)
        elif k == "chewing":
            if a["t1"] - a["t0"] > 2:
                chew(rng, out, sfreq, a["t0"], a["t1"] - a["t0"], rng.uniform(30, 120), events)
        elif k == "eyelid":
            n = int((a["t1"] - a["t0"]) * sfreq)
            x = (
                rng.uniform(20, 60)
                * np.sin(phase(np.full(n, a["hz"]), sfreq))
                * burst_envelope(n, 0.1, "tukey")
            )
            add_event(out, sfreq, a["t0"], x.astype(np.float32), V_TOPO)
            events.append((a["t0"], a["t1"], "eyelid_flutter"))


def bad_channels(rng, out, sfreq, rec, events, duration) -> None:
    """Flat, noisy or disconnected electrodes for the whole recording."""
    n = out.shape[1]
    for ch, kind in rec["bad"]:
        name = geo.ELECTRODES[ch]
        if kind == "flat":
            out[ch] = out[ch] * 0.03 + rng.normal(0, 0.4, n).astype(np.float32)
        elif kind == "noisy":
            out[ch] += emg_noise(rng, 1, n, sfreq, 3.0)[0] * rng.uniform(20, 60)
        else:  # disconnected: the input floats, picking up mains and drifting widely
            tt = np.arange(n) / sfreq
            drift = upsample(ou(rng, int(duration / DT) + 2, DT, 5.0), n, sfreq) * rng.uniform(
                100, 400
            )
            mains = np.sin(2 * np.pi * rec["line_hz"] * tt).astype(np.float32)
            out[ch] = drift + rng.uniform(50, 200) * mains
        events.append((0.0, duration, f"bad_channel:{name}:{kind}"))
