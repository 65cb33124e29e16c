"""Seizures: synchronised cortical territories that grow, with evolving ictal time courses.

A focal seizure starts in a patch of cortex around the patient's focus; its edge advances
along the cortex (rings of dipoles join as the front reaches them, with a conduction lag that
grows with distance) and may cross to the homologous region of the other hemisphere. A
generalised seizure engages both hemispheres at once, frontally predominant, with small
lags between regions. The common time course evolves: frequency, amplitude, sharpness and
spike-wave content change over the seizure, in several morphologies. Within the involved
territory the ongoing background is replaced; after the seizure comes post-ictal suppression
and polymorphic slowing (not labelled seizure). Clinical accompaniments (tonic and clonic
muscle activity, oral automatisms, hypermotor movement) are rendered as the artifacts they
cause.
"""

from __future__ import annotations

import numpy as np

from . import artifacts as art
from .background import mixing, region_weights
from .head import CORTEX_R, average_reference, landmark, standard_head
from .patient import FOCAL_TYPES, GENERALISED_TYPES
from .recording import Recording
from .signals import add_mixed_noise, ramp, slow_noise, slow_series, sos
from .transients import jitter, named_topo

BIN_CM = 0.6


def choose_type(patient: dict, dur: float, rng) -> str:
    """The morphology of one seizure: usually the patient's own, varied with its length."""
    epi = patient["epilepsy"]
    w = dict(epi["type_weights"])
    if epi["class"] == "focal":
        if dur > 40 and rng.random() < epi["p_bilateral_tc"]:
            return "focal_to_bilateral_tonic_clonic"
        if dur < 12:
            w["focal_spike_train"] = w["focal_spike_train"] + 0.2
    else:
        if dur < 25:
            w["tonic_clonic"] *= 0.1
        if dur > 45:
            w["generalized_spike_wave"] *= 0.3
            w["tonic_fast"] *= 0.3
            w["tonic_clonic"] += 0.2
    if rng.random() < epi["p_primary"] and w.get(epi["primary"], 0) > 0.05:
        return epi["primary"]
    keys = list(w)
    p = np.array([w[k] for k in keys]) + 1e-3
    return str(rng.choice(keys, p=p / p.sum()))


def ictal_wave(phase, f, h, sw, nspk, spike_sd):
    """Surface potential over the ictal generator (negative = surface negative), ~unit peak.

    Parameters
    ----------
    phase : cycles; f : Hz; h : harmonic sharpness (0-1); sw : share of spike-and-wave
    (0-1); nspk : spikes per complex; spike_sd : spike half-width, s (all arrays or scalars).
    """
    x = 2 * np.pi * phase
    harm = -(np.cos(x) + h * np.cos(2 * x - 0.5) + 0.5 * h * h * np.cos(3 * x - 1.0))
    harm /= 1 + h + 0.5 * h * h
    frac = phase % 1.0
    tau = frac / f
    spikes = np.zeros_like(tau)
    for k in range(int(np.max(nspk))):
        on = nspk > k
        c = 0.04 + 0.055 * k
        spikes += on * (
            -np.exp(-0.5 * ((tau - c) / spike_sd) ** 2)
            + 0.3 * np.exp(-0.5 * ((tau - c - 2.2 * spike_sd) / (1.3 * spike_sd)) ** 2)
        )
    sc = np.minimum(0.55 / f, 0.22 + 0.05 * nspk)
    ssd = np.minimum(0.17 / f, 0.09)
    slow = -0.8 * np.exp(-0.5 * ((tau - sc) / ssd) ** 2)
    return (1 - sw) * harm + sw * (spikes + slow)


def _smooth(u):
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3 - 2 * u)


def _jitter_series(rng, m, fs, tau_s, sd):
    """Slow multiplicative jitter at the sample rate."""
    return np.exp(slow_series(rng, m, fs, tau_s, sd))


def _time_courses(typ: str, dur: float, m: int, fs: float, patient: dict, rng) -> dict:
    """Frequency, amplitude, sharpness, spike-wave share and background suppression over
    one seizure (arrays over its samples) for a morphology."""
    epi = patient["epilepsy"]
    t = np.arange(m) / fs
    u = t / dur
    A = epi["ictal_uv"] * rng.lognormal(0, 0.2)
    ones = np.ones(m)
    c = {
        "nspk": ones.copy(),
        "spike_sd": 0.012,
        "supp": 0.5 * ones,
        "on": 0.6,
        "off": 0.3,
        "h": 0.2 * ones,
        "sw": 0 * ones,
    }
    if typ in ("focal_rhythmic", "focal_to_bilateral_tonic_clonic"):
        f0 = epi["onset_hz"] * rng.lognormal(0, 0.12)
        f1 = rng.uniform(1.5, 3.0)
        c["f"] = f0 * (f1 / f0) ** _smooth((u - 0.1) / 0.85)
        c["amp"] = A * (0.3 + 0.7 * _smooth(u / 0.4))
        c["h"] = 0.15 + 0.55 * _smooth(u / 0.7)
        c["sw"] = rng.uniform(0.3, 0.8) * _smooth((u - 0.55) / 0.4)
        c["spike_sd"] = rng.uniform(0.015, 0.03)
        if rng.random() < 0.5:  # clonic-like break-up towards the end
            per = rng.uniform(1.5, 3.5)
            # On/off bursts, in phase so that the seizure ends on a burst.
            gate = 0.6 + 0.4 * np.tanh(3 * np.cos(2 * np.pi * (t - dur + 0.1 * per) / per))
            late = _smooth((u - 0.75) / 0.2)
            c["amp"] = c["amp"] * (1 - late + late * gate)
    elif typ == "focal_lvfa":
        t1 = min(rng.uniform(0.15, 0.3) * dur, rng.uniform(4, 12))
        fast = rng.uniform(18, 30) * np.exp(-t / max(t1, 1) * 0.7)
        f0 = rng.uniform(5.0, 7.5)
        f1 = rng.uniform(1.8, 3.5)
        slow = f0 * (f1 / f0) ** _smooth((t - t1) / max(dur - t1, 1))
        mixw = _smooth((t - t1) / 2.0)
        c["f"] = (1 - mixw) * fast + mixw * slow
        c["amp"] = A * (
            (1 - mixw) * (0.18 + 0.2 * t / max(t1, 1))
            + mixw * (0.5 + 0.5 * _smooth((t - t1) / (0.3 * dur + 1)))
        )
        c["h"] = 0.05 + 0.5 * mixw * _smooth(u / 0.8)
        c["sw"] = 0.4 * _smooth((u - 0.6) / 0.35)
        c["supp"] = 0.9 - 0.4 * mixw
    elif typ == "focal_spike_train":
        fa, fb, fc = rng.uniform(0.8, 1.6), rng.uniform(2.5, 4.0), rng.uniform(1.0, 2.0)
        c["f"] = np.where(
            u < 0.4, fa + (fb - fa) * _smooth(u / 0.4), fb + (fc - fb) * _smooth((u - 0.4) / 0.6)
        )
        c["amp"] = A * (0.55 + 0.45 * _smooth(u / 0.3))
        c["sw"] = rng.uniform(0.75, 1.0) * ones
        c["nspk"] = ones * (2 if rng.random() < 0.25 else 1)
        c["spike_sd"] = rng.uniform(0.010, 0.02)
        c["supp"] = 0.35 * ones
    elif typ == "focal_subtle":
        f0 = rng.uniform(4.0, 9.0)
        c["f"] = f0 * (1 - 0.15 * u)
        c["amp"] = A * rng.uniform(0.28, 0.45) * (0.6 + 0.4 * _smooth(u / 0.3))
        c["h"] = 0.1 * ones
        c["supp"] = 0.2 * ones
        c["on"] = 1.5
    elif typ == "generalized_spike_wave":
        f0, f1 = rng.uniform(3.0, 4.0), rng.uniform(2.5, 3.0)
        c["f"] = f1 + (f0 - f1) * np.exp(-t / max(0.3 * dur, 1.0))
        c["amp"] = A * rng.uniform(2.2, 3.5) * ones
        c["sw"] = ones
        c["spike_sd"] = rng.uniform(0.008, 0.012)
        if rng.random() < 0.4:
            c["nspk"] = np.where(t < 1.2, 2.0, 1.0)
        c["supp"] = 0.8 * ones
        c["on"], c["off"] = 0.25, 0.25
    elif typ == "atypical_spike_wave":
        c["f"] = rng.uniform(1.5, 2.5) * _jitter_series(rng, m, fs, 1.5, 0.12)
        c["amp"] = A * rng.uniform(2.2, 3.2) * _jitter_series(rng, m, fs, 1.0, 0.2)
        c["sw"] = 0.8 * ones
        c["h"] = 0.5 * ones
        c["spike_sd"] = rng.uniform(0.018, 0.03)
        c["supp"] = 0.5 * ones
        c["on"], c["off"] = 1.5, 1.0
    elif typ == "polyspike_wave":
        c["f"] = rng.uniform(2.5, 4.5) * _jitter_series(rng, m, fs, 0.7, 0.12)
        gate = (slow_noise(rng, int(dur * 8) + 3, 0.8) > -0.6).astype(float)
        c["amp"] = (
            A * rng.uniform(2.0, 3.2) * (0.2 + 0.8 * np.interp(t, np.arange(len(gate)) / 8, gate))
        )
        c["sw"] = ones
        c["nspk"] = np.round(np.interp(t, [0, dur], [rng.integers(3, 6), rng.integers(2, 4)]))
        c["spike_sd"] = rng.uniform(0.007, 0.011)
        c["supp"] = 0.7 * ones
        c["on"], c["off"] = 0.3, 0.3
    elif typ == "tonic_fast":
        t_dec = rng.uniform(0.5, 2.0)
        c["f"] = rng.uniform(9, 12) + rng.uniform(6, 13) * np.exp(-t / max(0.5 * dur, 2))
        c["amp"] = A * np.where(t < t_dec, 0.15, 0.2 + 0.9 * _smooth((t - t_dec) / (0.5 * dur)))
        c["h"] = 0.1 * ones
        c["supp"] = 0.9 * ones
    elif typ == "tonic_clonic":
        c.update(_tonic_clonic(t, dur, A, rng))
    else:
        raise ValueError(typ)
    return c


def _tonic_clonic(t, dur, A, rng) -> dict:
    """Tonic phase (fast recruiting rhythm), then clonic polyspike-wave bursts whose
    intervals lengthen until the seizure stops."""
    tt = min(0.45 * dur, rng.uniform(8, 25))
    tonic = t < tt
    f_t = rng.uniform(8, 11) + rng.uniform(6, 10) * np.exp(-t / max(tt / 2, 1))
    uc = np.clip((t - tt) / max(dur - tt, 1), 0, 1)
    f_c = rng.uniform(3.0, 4.5) * (rng.uniform(0.6, 1.0) / 4.0) ** uc
    mixw = _smooth((t - tt) / 1.5)
    return {
        "f": (1 - mixw) * f_t + mixw * f_c,
        "amp": A * np.where(tonic, 0.25 + 0.9 * _smooth(t / max(tt, 1)), 1.6),
        "sw": mixw,
        "h": 0.1 + 0.3 * mixw,
        "nspk": np.where(tonic, 1.0, np.round(np.interp(uc, [0, 1], [4, 2]))),
        "spike_sd": 0.009,
        "supp": 0.92 * np.ones_like(t),
        "tonic_s": tt,
    }


# ---- spatial extent -----------------------------------------------------------------------


def _rings(rec: Recording, center: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Topographies (K, 21) of rings of unit moment density around ``center`` and their
    distances (cm), normalised so that a full 3 cm disc peaks at 1 µV on the reference head.
    """
    key = ("rings", tuple(np.round(center, 4)))
    if key in rec.cache:
        return rec.cache[key]
    head, std = rec.head, standard_head()
    ang = np.arccos(np.clip(head.src @ center, -1, 1))
    d = ang * CORTEX_R * head.radius_cm
    d_std = ang * CORTEX_R * std.radius_cm
    k = np.floor(d / BIN_CM).astype(int)
    taper = 1.0 / (1.0 + (d / 7.0) ** 2)
    topos, dists = [], []
    for b in range(int(k.max()) + 1):
        sel = k == b
        if sel.any():
            topos.append(head.lead[:, sel] @ (taper[sel] * head.area_mm2))
            dists.append((b + 0.5) * BIN_CM)
    full = std.lead[:, d_std < 3.0] @ np.full(int((d_std < 3.0).sum()), std.area_mm2)
    peak = float(np.max(np.abs(average_reference(full))))
    out = (np.asarray(topos) / peak, np.asarray(dists))
    rec.cache[key] = out
    return out


def _generalised_zones(rec: Recording, rng, asym: float = 0.0):
    """Topographies and lags of the regions a generalised discharge engages."""
    zones = [
        ("frontal_midline", 4.0, 1.0, 0.0),
        ("dorsolateral_frontal", 3.5, 0.8, 0.004),
        ("vertex", 4.0, 0.7, 0.008),
        ("parietal", 3.5, 0.45, 0.018),
        ("mid_temporal", 3.0, 0.35, 0.015),
        ("occipital", 3.0, 0.3, 0.025),
    ]
    topos, std, lags = [], [], []
    for name, r, amp, lag in zones:
        for side, s in (("left", 1 + asym), ("right", 1 - asym)):
            topos.append(named_topo(rec, name, side, r) * amp * s)
            std.append(named_topo(rec, name, side, r, std=True) * amp * s)
            lags.append(lag + rng.uniform(0, 0.006))
    std_peak = float(np.max(np.abs(average_reference(np.sum(std, axis=0)))))
    return np.asarray(topos) / std_peak, np.asarray(lags)


def render_seizures(rec: Recording, seizures, rng) -> list[str]:
    """Render every requested seizure; returns the morphology chosen for each."""
    types = []
    for i, (start, stop) in enumerate(seizures):
        sub = np.random.default_rng(rng.integers(2**63))
        typ = choose_type(rec.patient, stop - start, sub)
        nxt = seizures[i + 1][0] if i + 1 < len(seizures) else rec.duration
        _render_one(rec, float(start), float(stop), typ, float(nxt), sub)
        types.append(typ)
    return types


def _render_one(rec: Recording, start, stop, typ, next_start, rng) -> None:
    fs, p = rec.fs, rec.patient
    epi = p["epilepsy"]
    dur = stop - start
    a = rec.idx(start)
    m = min(rec.idx(stop), rec.n) - a
    if m < 8:
        return
    t = np.arange(m) / fs
    generalised = typ in GENERALISED_TYPES
    bilateral_tc = typ == "focal_to_bilateral_tonic_clonic"
    c = _time_courses(typ, dur, m, fs, p, rng)
    c["f"] = np.maximum(c["f"] * _jitter_series(rng, m, fs, 2.0, 0.04), 0.4)
    env = ramp(t, 0.0, c["on"]) * (1 - ramp(t, dur - c["off"], c["off"]))
    # Phase wander keeps the rhythm from being a pure oscillator.
    phase = np.cumsum(c["f"]) / fs + rng.uniform(0, 1) + slow_series(rng, m, fs, 0.4, 0.08)
    if generalised:
        topos, lags = _generalised_zones(
            rec,
            rng,
            rng.uniform(-0.25, 0.25) if typ == "atypical_spike_wave" else rng.uniform(-0.08, 0.08),
        )
        envs = np.broadcast_to(env.astype(np.float32), (len(topos), m))
        center = landmark("frontal_midline")
    else:
        center = jitter(_focus(epi), 4, rng)
        topos, envs, lags = _focal_extent(rec, center, typ, dur, t, env, rng)
    amp = c["amp"]
    rows = np.empty((len(topos), m), dtype=np.float32)
    for k in range(len(topos)):
        ph = phase - c["f"] * lags[k] + slow_series(rng, m, fs, 1.0, 0.03)
        w = ictal_wave(ph, c["f"], c["h"], c["sw"], c["nspk"], c["spike_sd"])
        rows[k] = envs[k] * amp * w * _jitter_series(rng, m, fs, 1.5, 0.15)
    if bilateral_tc:
        # Secondary generalisation: the focal rhythm hands over to a bilateral tonic-clonic
        # phase a third of the way through.
        i0 = int(0.35 * m)
        rows *= (1 - ramp(t, t[i0] + 1.0, 3.0))[None, :].astype(np.float32)
    rec.brain[:, a : a + m] += topos.T.astype(np.float32) @ rows
    inv = _involvement(topos, envs)
    if bilateral_tc:
        gtopo, g_rows, gc, gph = _bilateral_phase(rec, t[i0:] - t[i0], dur - t[i0], rng)
        rec.brain[:, a + i0 : a + m] += gtopo.T.astype(np.float32) @ g_rows
        inv[:, i0:] = np.maximum(inv[:, i0:], ramp(t[i0:] - t[i0], 0, 3.0)[None, :])
        _suppress(rec, a, m, inv, np.maximum(c["supp"], 0.9 * ramp(t, t[i0], 3.0)) * env)
        _motor(rec, start + t[i0], stop, gc, gph, rng)
        rec.event(start + t[i0], stop, "ictal_emg")
    else:
        _suppress(rec, a, m, inv, c["supp"] * env)
        _accompaniments(rec, typ, start, stop, c, phase, t, rng)
    _postictal(
        rec, typ, stop, dur, center, inv[:, -1], next_start, generalised or bilateral_tc, rng
    )


def _focus(epi: dict) -> np.ndarray:
    base = landmark(epi["focus"], epi["side"])
    dp, da = epi["focus_offset_deg"]
    pol = np.rad2deg(np.arccos(base[2])) + dp
    az = np.rad2deg(np.arctan2(base[1], base[0])) + da
    th, ph = np.deg2rad(pol), np.deg2rad(az)
    return np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])


def _focal_extent(rec: Recording, center, typ, dur, t, env, rng):
    """Ring topographies, their recruitment envelopes and lags for a focal seizure."""
    epi = rec.patient["epilepsy"]
    speed = epi["spread_cm_s"] * rng.lognormal(0, 0.3) * (1.6 if typ == "focal_lvfa" else 1.0)
    # About 20 cm^2 of synchronised cortex at the scalp onset (less shows no scalp sign).
    r0 = rng.uniform(2.0, 2.6) if typ == "focal_subtle" else rng.uniform(2.4, 3.2)
    rmax = {"focal_subtle": rng.uniform(2.6, 3.2), "focal_spike_train": rng.uniform(3.2, 5.0)}.get(
        typ, rng.uniform(3.5, 7.5)
    )
    if typ == "focal_to_bilateral_tonic_clonic":
        rmax = 12.0
    c_prop = rng.uniform(80, 300)  # cm/s: ictal discharges lag ~10 ms per 2 cm
    topos, d = _rings(rec, center)
    radius = np.minimum(r0 + speed * t, rmax)
    env32 = env.astype(np.float32)

    def fronts(rad, dists, gain):
        # Only rings the front ever reaches (the sigmoid is below 2 % 1.75 cm ahead of it).
        near = dists < rad.max() + 1.75
        out = np.empty((int(near.sum()), len(t)), dtype=np.float32)
        for i, dk in enumerate(dists[near]):
            out[i] = gain / (1 + np.exp(-(rad - dk) / 0.45))
        return near, out * env32

    near, envs = fronts(radius, d, 1.0)
    topos, lags = topos[near], d[near] / c_prop
    if typ != "focal_subtle" and dur > 15 and rng.random() < epi["p_contralateral"]:
        tc = rng.uniform(0.25, 0.7) * dur
        mirror = center * np.array([1.0, -1.0, 1.0])
        ct, cd = _rings(rec, mirror)
        rc = np.where(t > tc, np.minimum(1.0 + speed * (t - tc), 0.8 * rmax), -5.0)
        near_c, envs_c = fronts(rc, cd, 0.8)
        envs = np.concatenate([envs, envs_c])
        topos = np.concatenate([topos, ct[near_c]])
        lags = np.concatenate([lags, cd[near_c] / c_prop + rng.uniform(0.01, 0.03)])
    return topos, envs, lags


def _bilateral_phase(rec: Recording, t, dur, rng):
    """Field, rows and time courses of a bilateral tonic-clonic phase over times ``t``."""
    epi = rec.patient["epilepsy"]
    c = _tonic_clonic(t, dur, epi["ictal_uv"] * rng.lognormal(0, 0.2), rng)
    gtopo, glags = _generalised_zones(rec, rng, 0.1 if epi["side"] == "left" else -0.1)
    f = c["f"]
    ph = np.cumsum(f) / rec.fs
    env = ramp(t, 0, 2.0) * (1 - ramp(t, dur - 0.3, 0.3))
    rows = np.empty((len(gtopo), len(t)), dtype=np.float32)
    for k in range(len(gtopo)):
        rows[k] = (
            env
            * c["amp"]
            * ictal_wave(ph - f * glags[k], f, c["h"], c["sw"], c["nspk"], c["spike_sd"])
        )
    return gtopo, rows, c, ph


def _involvement(topos, envs) -> np.ndarray:
    """Per electrode and sample, how much of its field the seizure occupies (0-1)."""
    step = 8
    full = np.abs(average_reference(topos.sum(axis=0)))
    cur = np.abs(average_reference(topos.T @ envs[:, ::step]))
    inv = np.clip(cur / max(full.max(), 1e-9) * 1.6, 0, 1)
    idx = np.minimum(np.arange(envs.shape[1]) // step, inv.shape[1] - 1)
    return inv[:, idx]


def _suppress(rec: Recording, a: int, m: int, inv, depth) -> None:
    """The ongoing background gives way where the seizure is."""
    g = 1.0 - inv * depth[None, :]
    rec.bg[:, a : a + m] *= g.astype(np.float32)


def _accompaniments(rec: Recording, typ, start, stop, c, phase, t, rng) -> None:
    """What the patient does during the seizure, as it shows on the EEG."""
    epi = rec.patient["epilepsy"]
    dur = stop - start
    if typ in ("tonic_clonic",):
        _motor(rec, start, stop, c, phase, rng)
        rec.event(start, stop, "ictal_emg")
    elif typ == "tonic_fast":
        t_on = start + rng.uniform(0.5, 3.0)
        lvl = rng.lognormal(np.log(120), 0.5)
        mus = [
            (mm, s)
            for mm in ("frontalis", "temporalis", "masseter", "neck")
            for s in ("left", "right")
        ]
        art.emg(rec, t_on, stop, mus, lvl, rng, kind="ictal_emg")
    elif typ == "polyspike_wave":
        # Myoclonic jerks with some complexes.
        cyc = np.flatnonzero(np.diff(np.floor(phase)) > 0)
        for i in cyc:
            if rng.random() < 0.3:
                tj = start + t[i] + 0.03
                art.emg(
                    rec,
                    tj,
                    tj + rng.uniform(0.08, 0.2),
                    [
                        ("neck", "left"),
                        ("neck", "right"),
                        ("temporalis", "left"),
                        ("temporalis", "right"),
                    ],
                    rng.uniform(40, 150),
                    rng,
                    kind=None,
                )
                if rng.random() < 0.3:
                    art.movement(rec, tj, tj + rng.uniform(0.3, 1.0), rng, 0.7, kind=None)
        rec.event(start, stop, "ictal_myoclonus")
    elif typ == "generalized_spike_wave" and rng.random() < 0.3:
        # Eyelid myoclonia at the discharge rate.
        fld = art.eye_fields(rec)
        a = rec.idx(start)
        m = len(phase)
        w = (np.maximum(np.sin(2 * np.pi * phase), 0) ** 2 * rng.uniform(20, 60)).astype(np.float32)
        rec.extra[:, a : a + m] += np.outer(fld["lid"], w).astype(np.float32)
        rec.event(start, stop, "ictal_eyelid_myoclonia")
    elif typ not in GENERALISED_TYPES:
        temporal = "temporal" in epi["focus"]
        frontal = "frontal" in epi["focus"]
        if temporal and dur > 15 and rng.random() < epi["p_automatisms"]:
            t0 = start + rng.uniform(3, min(15, 0.5 * dur))
            art.chewing(rec, t0, stop - rng.uniform(0, 3), rng, kind="ictal_automatisms")
        if frontal and dur > 8 and rng.random() < 0.5:
            t0 = start + rng.uniform(1, min(6, 0.4 * dur))
            art.movement(rec, t0, stop, rng, rng.uniform(1.0, 2.5), kind="ictal_movement")
            art.emg(
                rec,
                t0,
                stop,
                [
                    ("temporalis", "left"),
                    ("temporalis", "right"),
                    ("neck", "left"),
                    ("neck", "right"),
                ],
                rng.lognormal(np.log(60), 0.5),
                rng,
                kind="ictal_emg",
            )
        elif rng.random() < 0.15 and dur > 10:
            t0 = start + rng.uniform(2, 0.5 * dur)
            side = epi["side"] if rng.random() < 0.7 else "left"
            art.emg(
                rec,
                t0,
                stop,
                [("temporalis", side), ("frontalis", side)],
                rng.lognormal(np.log(40), 0.5),
                rng,
                kind="ictal_emg",
            )


def _motor(rec: Recording, start, stop, c, phase, rng) -> None:
    """Tonic contraction (continuous EMG), then a clonic EMG burst with every complex."""
    mus = [
        (mm, s) for mm in ("frontalis", "temporalis", "masseter", "neck") for s in ("left", "right")
    ]
    tt = c.get("tonic_s", 0.4 * (stop - start))
    t_on = start + rng.uniform(0.5, 3.0)
    lvl = rng.lognormal(np.log(110), 0.5)
    art.emg(rec, t_on, start + tt, mus, lvl, rng, kind=None)
    n_cyc = np.flatnonzero(np.diff(np.floor(phase)) > 0)
    for i in n_cyc:
        tj = start + i / rec.fs
        if start + tt < tj < stop - 0.1:
            art.emg(rec, tj, min(tj + rng.uniform(0.1, 0.25), stop), mus, lvl * 0.8, rng, kind=None)
    if stop - start - tt > 4:
        art.movement(rec, start + tt, stop, rng, rng.uniform(1.0, 2.0), kind=None)


def _postictal(rec: Recording, typ, stop, dur, center, inv_end, next_start, diffuse, rng):
    """Post-ictal suppression, then polymorphic slowing over the involved region."""
    if typ in ("generalized_spike_wave", "polyspike_wave") or dur < 12:
        return
    epi = rec.patient["epilepsy"]
    post = epi["postictal_s"] * rng.lognormal(0, 0.3) * (2.0 if diffuse else 1.0)
    t_end = min(stop + post, next_start - 2.0, rec.duration)
    a, b = rec.idx(stop), rec.idx(t_end)
    if b - a < 8:
        return
    fs = rec.fs
    t = np.arange(b - a) / fs
    if diffuse:
        inv_end = np.ones_like(inv_end)
    depth = rng.uniform(0.75, 0.95) if diffuse else rng.uniform(0.3, 0.7)
    g = 1 - depth * inv_end[:, None] * np.exp(-t / (post / 3))[None, :]
    rec.bg[:, a:b] *= g.astype(np.float32)
    rec.event(stop, min(stop + post / 3, t_end), "postictal_suppression")
    if diffuse:
        w = region_weights(
            rec.head, [(landmark("vertex"), 180.0, 1.0), (landmark("frontal_midline"), 50.0, 0.5)]
        )
    else:
        w = region_weights(rec.head, [(center, 25.0, 1.0)])
    mix = mixing(rec.head, w, 1.5, 0.3 if diffuse else 0.0, rng.uniform(30, 70))
    env = (ramp(t, rng.uniform(1, 8), 6.0) * np.exp(-t / post)).astype(np.float32)
    add_mixed_noise(rec.brain[:, a:b], mix, sos("band", fs, 0.6, 3.0), env, rng, fs)
    rec.event(stop, t_end, "postictal_slowing")


__all__ = ["FOCAL_TYPES", "GENERALISED_TYPES", "choose_type", "ictal_wave", "render_seizures"]
