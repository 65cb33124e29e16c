"""Seizures as waveform processes with explicit trajectories.

A seizure is one or more *ictal oscillators*. Each has a frequency trajectory (chirps such as
7 -> 3 Hz slowing, or 25 -> 12 Hz fast activity), an amplitude trajectory, and a morphology
trajectory that moves from sinusoidal through sharp (von Mises peaks of growing
concentration) to spike-and-wave and polyspike-wave. Each oscillator drives a spatial field
that starts focal and spreads (regionally, to the homologous region, or generalises) with
per-electrode propagation lags. Onsets are abrupt, gradual or electrodecremental (background
attenuated, low-voltage fast activity). Patients have a stereotyped seizure signature; single
seizures vary around it. Post-ictal suppression and slowing follow the interval; motor
seizures request muscle and movement artifacts inside the interval.
"""

from __future__ import annotations

import numpy as np

from . import geometry as geo
from .programs import ALL_TYPES, GENERALIZED, program
from .signals import DT, colored, kappa_for, knots, ou, phase, shaped_wave, smoothstep, vonmises

__all__ = ["ALL_TYPES", "draw_profile", "choose_type", "render"]

_LOBES = {
    "temporal": (0.52, [["T3", "F7"], ["T3"], ["T3", "T5"], ["F7"], ["F7", "A1"]]),
    "frontal": (0.24, [["F3"], ["F7", "F3"], ["FP1", "F3"], ["FZ", "F3"], ["FP1"]]),
    "central": (0.08, [["C3"], ["C3", "CZ"]]),
    "parietal": (0.07, [["P3"], ["P3", "PZ"]]),
    "occipital": (0.09, [["O1"], ["O1", "T5"]]),
}


def _f(x) -> float:
    return float(np.round(float(x), 5))


def _pick(rng, weights: dict) -> str:
    names = list(weights)
    p = np.asarray([weights[k] for k in names], float)
    return str(names[rng.choice(len(names), p=p / p.sum())])


def draw_profile(rng, age: float, setting: str) -> dict:
    """The patient's seizure signature: family, type(s), focus and stereotyped parameters."""
    p_gen = 0.45 if age < 18 else 0.1 if setting == "icu" else 0.18
    family = "generalized" if rng.uniform() < p_gen else "focal"
    lobe = _pick(rng, {k: v[0] for k, v in _LOBES.items()})
    names = _LOBES[lobe][1][rng.integers(0, len(_LOBES[lobe][1]))]
    focus = geo.jitter(rng, geo.site(*names), 0.05)
    if rng.uniform() < 0.5:
        focus = geo.mirror(focus)
    if family == "generalized":
        young = age < 20
        primary = _pick(
            rng,
            {
                "absence_spike_wave": 0.5 if young else 0.1,
                "atypical_spike_wave": 0.15,
                "gtc": 0.25,
                "tonic_fast": 0.12,
                "polyspike_wave": 0.15 if young else 0.08,
            },
        )
        secondary = _pick(rng, {t: 1.0 for t in GENERALIZED if t != primary})
        focus = geo.jitter(rng, geo.site("FZ", "F3", "F4"), 0.05)
    else:
        w = {
            "focal_evolving_theta": 0.4,
            "focal_lvfa": 0.18,
            "focal_rhythmic_delta": 0.12,
            "focal_periodic_evolving": 0.03,
            "subtle_focal": 0.12,
            "hypermotor_frontal": 0.0,
            "focal_to_bilateral_tc": 0.12,
        }
        if lobe == "frontal":
            w.update(hypermotor_frontal=0.2, focal_lvfa=0.3)
        if lobe == "temporal":
            w.update(focal_evolving_theta=0.55)
        if setting == "icu":
            w.update(focal_periodic_evolving=0.35, subtle_focal=0.25, focal_rhythmic_delta=0.25)
        primary = _pick(rng, w)
        secondary = _pick(rng, {k: v for k, v in w.items() if k != primary and v > 0})
    f_hi = rng.uniform(5.0, 8.0)
    return {
        "family": family,
        "lobe": lobe if family == "focal" else "generalized",
        "primary": primary,
        "secondary": secondary,
        "p_secondary": _f(rng.uniform(0.05, 0.3)),
        "focus": [_f(v) for v in focus],
        "f_hi": _f(f_hi),
        "f_lo": _f(rng.uniform(2.2, min(4.5, f_hi - 1.5))),
        "amp_uv": _f(rng.uniform(50, 180) * (1.4 if age < 16 else 1.0)),
        "gen_amp_uv": _f(rng.uniform(120, 280) * (1.3 if age < 16 else 1.0)),
        "sharp_max": _f(rng.uniform(0.3, 1.0)),
        "sw_late": _f(rng.uniform(0.0, 0.7)),
        "skew": _f(rng.uniform(-0.5, 0.5)),
        "spike_sd": _f(rng.uniform(0.012, 0.028)),
        "r0": _f(rng.uniform(0.18, 0.32)),
        "r1": _f(rng.uniform(0.35, 0.75)),
        "p_contra": _f(rng.uniform(0.0, 0.7)),
        "onset": [_f(x) for x in rng.dirichlet([3, 2, 1.5])],  # abrupt, gradual, decremental
        "p_emg": _f(rng.uniform(0.0, 0.6)),
        "p_automatism": _f(rng.uniform(0.0, 0.6)),
        "postictal": _f(rng.uniform(0.2, 1.0)),
        "sw_hz": _f(rng.uniform(3.0, 4.0)),
        "poly": int(rng.choice([1, 1, 2, 3])),
    }


def _field_matrix(spec, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Field (21, len(u)) over normalised time, and per-electrode lags (s per unit lag)."""
    if spec["kind"] == "generalized":
        g = geo.gauss_field(spec["centre"], spec["radius"]) * (1 + spec["asym"] * geo.XYZ[:, 1])
        lagw = geo.dist_to(spec["centre"]) * 0.15
        return np.repeat(g[:, None], u.size, axis=1), lagw
    d = geo.dist_to(spec["focus"])[:, None]
    dm = geo.dist_to(geo.mirror(spec["focus"]))[:, None]
    r = knots(u, spec["r"])[None, :]
    c = knots(u, spec["contra"])[None, :]
    # Difference of Gaussians: a tangential source shows opposite polarity farther away.
    g = (np.exp(-0.5 * (d / r) ** 2) - 0.25 * np.exp(-0.5 * (d / (2.2 * r)) ** 2)) / 0.75
    g = g + c * np.exp(-0.5 * (dm / (0.8 * r)) ** 2)
    g[geo.EARS] *= 0.7
    lagw = np.minimum(d[:, 0], dm[:, 0] + 0.5 * (dm[:, 0] < d[:, 0]))
    return np.clip(g, -0.3, 1.2), lagw


def _wave(th, f, sharp, sw, poly, spike_sd, wave_sd, skew):
    """Ictal waveform at cumulative phase ``th``; negative peaks ('spikes') at th = 2 pi k."""
    base = shaped_wave(th, 0.3 + sharp**2 * kappa_for(1.6 * spike_sd, f), skew)
    if not np.any(sw > 0):
        return base
    ks = kappa_for(spike_sd, f)
    spike = vonmises(th, ks)
    for j in range(1, poly):
        spike = spike + 0.85**j * vonmises(th - 2 * np.pi * f * 0.055 * j, ks)
    # The slow wave's negative dome peaks about half a cycle after the spike.
    tw = np.minimum(2 * np.pi * f * (0.04 * poly + 2.0 * wave_sd), 1.1 * np.pi)
    slow = vonmises(th - tw, np.maximum(kappa_for(wave_sd, f), 0.4))
    sw_wave = -(1.6 * spike + 0.8 * slow) / 1.5
    return (1.0 - sw) * base + sw * sw_wave


def _render_osc(rng, o, start, dur, sfreq, out, n_total, emg_times) -> np.ndarray:
    """Add one oscillator to ``out``; returns its field matrix on the coarse grid."""
    a = start + o["t"][0] * dur
    b = start + o["t"][1] * dur
    i0, i1 = int(round(a * sfreq)), min(int(round(b * sfreq)), n_total)
    n = i1 - i0
    if n < 8:
        return np.zeros((geo.N_CH, 1))
    u = np.linspace(0.0, 1.0, n)
    m = max(int(n / sfreq / DT) + 2, 2)
    uc = np.linspace(0.0, 1.0, m)
    f = knots(u, o["f"]) * np.exp(o["fj"] * np.interp(u, uc, ou(rng, m, DT, 0.7)))
    th = phase(f, sfreq, rng.uniform(0, 2 * np.pi))
    amp = knots(u, o["amp"]) * np.exp(0.25 * np.interp(u, uc, ou(rng, m, DT, 1.5)))
    sharp, sw = knots(u, o["sharp"]), knots(u, o["sw"])
    cyc = np.floor(th / (2 * np.pi)).astype(int)
    cyc_gain = np.exp(o["cj"] * rng.standard_normal(cyc.max() - cyc.min() + 3))
    fm, lagw = _field_matrix(o["field"], uc)
    # Disorganised ictal activity under the rhythm, so that no two cycles are alike.
    fmean = float(np.mean(f))
    irr = colored(
        rng,
        n,
        sfreq,
        lambda x: np.exp(-0.5 * (np.log(np.maximum(x, 1e-3) / fmean) / 0.6) ** 2),
        geo.N_CH,
        geo.coherence_mixer(0.8, 0.1),
    )
    for ch in range(geo.N_CH):
        if np.abs(fm[ch]).max() < 0.02:
            continue
        thc = th - 2 * np.pi * f * o["lag"] * lagw[ch]
        skew = o["skew"] + rng.normal(0, 0.2)
        w = _wave(thc, f, sharp, sw, o["poly"], o["spike_sd"], o["wave_sd"], skew)
        g = np.interp(u, uc, fm[ch]) * amp
        out[ch, i0:i1] += (g * (w * cyc_gain[cyc - cyc.min()] + o["noise"] * irr[ch])).astype(
            np.float32
        )
    if o["emg_locked"]:
        k = np.nonzero(np.diff(cyc) > 0)[0]
        emg_times.extend(list(a + k / sfreq))
    return fm


def choose_type(rng, prof: dict, dur: float) -> str:
    """The morphology of one seizure: mostly the patient's habitual type."""
    t = prof["secondary"] if rng.uniform() < prof["p_secondary"] else prof["primary"]
    if t == "focal_to_bilateral_tc" and dur < 30:
        t = "focal_evolving_theta"
    if t == "gtc" and dur < 20:
        t = "tonic_fast"
    if t == "absence_spike_wave" and dur > 45:
        t = "atypical_spike_wave"
    return t


def render(
    rng,
    prof: dict,
    t: str,
    start: float,
    stop: float,
    sfreq: float,
    out: np.ndarray,
    next_start: float,
) -> dict:
    """Render one seizure into the cerebral signal ``out`` (21, n); returns its description.

    Ictal activity lies inside [start, stop]; post-ictal suppression and slowing follow until
    ``next_start`` at the latest. Returns the type, artifact requests (absolute times) and
    events.
    """
    n_total = out.shape[1]
    dur = stop - start
    prog = program(rng, t, prof, dur)
    i0, i1 = int(round(start * sfreq)), min(int(round(stop * sfreq)), n_total)
    n = i1 - i0
    # Background attenuation inside the interval (the ictal rhythm replaces it).
    m = max(int(dur / DT) + 2, 2)
    uc = np.linspace(0, 1, m)
    fm, _ = _field_matrix(prog["atten"]["field"], uc)
    depth = knots(uc, prog["atten"]["depth"])
    mult = 1.0 - np.clip(depth[None, :] * np.minimum(fm, 1.0), 0, 0.95)
    u = np.linspace(0, 1, n)
    for ch in range(geo.N_CH):
        out[ch, i0:i1] *= np.interp(u, uc, mult[ch]).astype(np.float32)
    emg_times: list[float] = []
    for o in prog["osc"]:
        _render_osc(rng, o, start, dur, sfreq, out, n_total, emg_times)
    arts = []
    for a in prog["arts"]:
        a = dict(a)
        if "u" in a:
            a["t0"], a["t1"] = start + a["u"][0] * dur, start + a["u"][1] * dur
        if a["kind"] == "emg_locked":
            a["times"] = [x for x in emg_times if start < x < stop - 0.05]
        arts.append(a)
    events = _postictal(rng, prog, start, stop, sfreq, out, next_start)
    return dict(type=t, arts=arts, events=events)


def _postictal(rng, prog, start, stop, sfreq, out, next_start) -> list:
    """Suppression and polymorphic delta after the seizure (not seizure activity)."""
    post = prog["post"]
    n_total = out.shape[1]
    span = min(3 * max(post["delta_tau"], post["tau"]), 1200.0)
    end = min(next_start - 2.0, stop + span, n_total / sfreq)
    if end <= stop + 1.0 or (post["depth"] <= 0 and post["delta_uv"] <= 0):
        return []
    if post["general"]:
        fld = geo.gauss_field(geo.site("CZ"), 1.3)
    else:
        fm, _ = _field_matrix(prog["osc"][-1]["field"], np.ones(1))
        fld = np.minimum(fm[:, 0], 1.0)
    i0, i1 = int(round(stop * sfreq)), int(round(end * sfreq))
    tt = np.arange(i1 - i0) / sfreq
    fade = smoothstep(tt / 2.0) * smoothstep((tt[-1] - tt) / 2.0)
    sup = post["depth"] * np.exp(-tt / post["tau"])
    out[:, i0:i1] *= (1.0 - fld[:, None] * sup[None, :]).astype(np.float32)
    if post["delta_uv"] > 0:
        mix = fld[:, None] * geo.coherence_mixer(0.6, 0.15)
        x = colored(
            rng,
            i1 - i0,
            sfreq,
            lambda f: np.exp(-0.5 * (np.log(np.maximum(f, 1e-3) / 1.2) / 0.5) ** 2),
            geo.N_CH,
            mix,
        )
        env = post["delta_uv"] * np.exp(-tt / post["delta_tau"]) * fade
        out[:, i0:i1] += x * env.astype(np.float32)[None, :]
    return [(stop, end, "postictal")]
