"""Per-patient traits: who the patient is fixes most of what their recordings look like.

Everything drawn here is JSON-serialisable (floats, ints, strings, lists, dicts). Recordings
of one patient vary only through state sequences, artifact amounts and electrode contact.
"""

from __future__ import annotations

import numpy as np

from . import geometry as geo
from .seizures import draw_profile

# Vigilance states: awake, drowsy (N1), N2, N3 (slow-wave sleep), REM.
STATES = ("W", "D", "N2", "N3", "R")


def _f(x) -> float:
    return float(np.round(float(x), 5))


def _pt(p) -> list[float]:
    return [_f(v) for v in p]


def _lognorm(rng, median: float, sd: float) -> float:
    return float(median * np.exp(rng.normal(0.0, sd)))


def _age(rng) -> float:
    u = rng.uniform()
    if u < 0.14:
        return float(rng.uniform(1.0, 17.0))
    if u < 0.84:
        return float(rng.uniform(18.0, 70.0))
    return float(rng.uniform(70.0, 95.0))


def _pdr_hz(rng, age: float, enc: float) -> float:
    """Posterior dominant rhythm frequency: matures to ~10 Hz by adolescence, slows late."""
    if age < 3:
        base = 5.5 + 1.0 * age
    elif age < 12:
        base = 8.0 + 0.18 * (age - 3)
    elif age < 60:
        base = 10.0
    else:
        base = 10.0 - 0.04 * (age - 60)
    return float(np.clip(base + rng.normal(0, 0.6) - 2.8 * enc, 5.0, 12.5))


def _state_model(rng, setting: str, sleepiness: float, age: float) -> dict:
    """Semi-Markov vigilance model: mean dwell times (s) and transition probabilities."""
    if setting == "routine":
        start = [0.92, 0.08, 0.0, 0.0, 0.0]
        dwell = [rng.uniform(150, 700) * (1.2 - sleepiness), rng.uniform(40, 150), 240, 200, 1]
    elif setting == "icu":
        start = [0.35, 0.35, 0.25, 0.05, 0.0]
        dwell = [rng.uniform(120, 900), rng.uniform(90, 400), 500, 400, 400]
    else:
        start = [0.5, 0.15, 0.2, 0.1, 0.05]
        dwell = [rng.uniform(500, 2400) * (1.2 - sleepiness), rng.uniform(60, 240), 700, 900, 600]
    dwell = [max(d, 20.0) for d in dwell]
    s = sleepiness
    deep = 1.0 if age < 40 else 0.5 if age < 65 else 0.2  # slow-wave sleep fades with age
    trans = [
        [0.0, 1.0, 0.0, 0.0, 0.0],
        [0.55 - 0.35 * s, 0.0, 0.45 + 0.35 * s, 0.0, 0.0],
        [0.12, 0.18, 0.0, 0.45 * deep, 0.25 if setting != "routine" else 0.0],
        [0.08, 0.02, 0.9, 0.0, 0.0],
        [0.3, 0.2, 0.5, 0.0, 0.0],
    ]
    trans = [list(np.asarray(r) / sum(r)) for r in trans]
    if setting == "routine":  # a routine recording hardly reaches deep or REM sleep
        trans[2] = list(np.asarray([0.35, 0.55, 0.0, 0.1 * deep, 0.0]) / (0.9 + 0.1 * deep))
    return {
        "start": [_f(x) for x in start],
        "dwell_s": [_f(x) for x in dwell],
        "trans": [[_f(x) for x in r] for r in trans],
        "eyes_open_frac": _f(
            rng.uniform(0.2, 0.5) if setting == "routine" else rng.uniform(0.5, 0.85)
        ),
        "eyes_dwell_s": _f(rng.uniform(8, 60)),
        "arousal_per_h": _f(rng.uniform(4, 25)),
    }


def _background(rng, age: float, enc: float, setting: str) -> dict:
    child = age < 16
    young = age < 25
    amp = (1.7 if age < 8 else 1.35 if age < 16 else 1.0 if age < 65 else 0.85) * _lognorm(
        rng, 1, 0.25
    )
    pdr = _pdr_hz(rng, age, enc)
    alpha_present = rng.uniform() > 0.07 + 0.5 * enc  # some adults have a low-voltage record
    bg = {
        "amp_scale": _f(amp),
        "pdr_hz": _f(pdr),
        "pdr_bw": _f(rng.uniform(0.25, 0.6) + 0.4 * enc),
        "alpha_uv": _f(
            (rng.uniform(12, 40) if alpha_present else rng.uniform(3, 8)) * (1 - 0.5 * enc)
        ),
        "alpha_lr": _f(np.exp(rng.normal(-0.08, 0.12))),  # left/right: right often a bit larger
        "alpha_radius": _f(rng.uniform(0.45, 0.8)),
        "reactivity": _f(np.clip(rng.uniform(0.1, 0.5) + 0.6 * enc, 0.05, 1.0)),
        "aperiodic_uv": _f(rng.uniform(6, 16)),
        "aperiodic_exp": _f(rng.uniform(1.4, 2.4)),
        "knee_hz": _f(rng.uniform(0.4, 2.0)),
        "beta_uv": _f(rng.uniform(1.5, 5.0) * (3.0 if rng.uniform() < 0.15 else 1.0)),
        "beta_hz": _f(rng.uniform(16, 24)),
        "theta_uv": _f(rng.uniform(7, 16) * (1.5 if child else 1.0)),
        "theta_hz": _f(rng.uniform(4.5, 6.5)),
        "delta_uv": _f(rng.uniform(25, 55) * (1.6 if young else 1.0) * (0.6 if age > 65 else 1.0)),
        "spindle_hz": _f(rng.uniform(12.0, 14.2)),
        "spindle_per_min": _f(rng.uniform(2.0, 7.0) * (1 - 0.6 * enc)),
        "spindle_uv": _f(rng.uniform(10, 30)),
        "kc_per_min": _f(rng.uniform(0.5, 2.5)),
        "kc_uv": _f(rng.uniform(70, 180) * (1.3 if young else 1.0)),
        "vertex_uv": _f(rng.uniform(40, 110) * (1.8 if child else 1.0)),
        "posts": bool(rng.uniform() < 0.35 + (0.3 if young else 0.0)),
        "lambda": bool(rng.uniform() < (0.25 if young else 0.08)),
        "hf_floor_uv": _f(rng.uniform(0.3, 1.2)),
        "encephalopathy": _f(enc),
    }
    # Focal slowing (lesion, post-surgical, post-ictal tendency) and breach rhythm.
    if rng.uniform() < (0.3 if setting == "icu" else 0.18):
        p = geo.jitter(rng, geo.XYZ[rng.integers(0, 16)], 0.12)
        bg["focal_slowing"] = {
            "point": _pt(p),
            "radius": _f(rng.uniform(0.25, 0.45)),
            "uv": _f(rng.uniform(12, 40)),
            "hz": _f(rng.uniform(1.0, 3.0)),
        }
    else:
        bg["focal_slowing"] = None
    if rng.uniform() < 0.05:
        p = geo.jitter(rng, geo.XYZ[rng.choice([2, 3, 4, 5, 6, 7, 12, 13])], 0.08)
        bg["breach"] = {
            "point": _pt(p),
            "radius": _f(rng.uniform(0.2, 0.35)),
            "gain": _f(rng.uniform(1.6, 2.8)),
        }
    else:
        bg["breach"] = None
    bg["mu"] = (
        {
            "hz": _f(rng.uniform(8.5, 11.0)),
            "uv": _f(rng.uniform(10, 30)),
            "per_min": _f(rng.uniform(1, 6)),
        }
        if rng.uniform() < 0.22
        else None
    )
    adult = age >= 25
    bg["variants"] = {
        "wicket": _f(rng.uniform(0.3, 3) if adult and rng.uniform() < 0.1 else 0.0),
        "rmtd": _f(rng.uniform(0.1, 0.6) if rng.uniform() < 0.05 else 0.0),
        "bsss": _f(rng.uniform(0.3, 3) if adult and rng.uniform() < 0.12 else 0.0),
        "pos14_6": _f(rng.uniform(0.3, 2) if 8 < age < 30 and rng.uniform() < 0.15 else 0.0),
        "phantom": _f(rng.uniform(0.1, 0.8) if rng.uniform() < 0.04 else 0.0),
        "sreda": _f(rng.uniform(0.3, 0.8) if age > 50 and rng.uniform() < 0.04 else 0.0),
        "hypnagogic": _f(rng.uniform(0.5, 3) if 0.3 < age < 13 and rng.uniform() < 0.6 else 0.0),
    }
    return bg


def _epileptiform(rng, profile: dict, setting: str, enc: float) -> dict:
    gen = profile["family"] == "generalized"
    rate = 0.0 if rng.uniform() < 0.2 else _lognorm(rng, 0.6, 1.0)
    foci = [profile["focus"]]
    if not gen and rng.uniform() < 0.15:  # independent contralateral spikes
        foci.append(_pt(geo.jitter(rng, geo.mirror(profile["focus"]), 0.1)))
    out = {
        "rate_per_min": _f(min(rate, 12.0)),
        "kind": "generalized" if gen else str(rng.choice(["spike", "sharp", "spike_wave"])),
        "uv": _f(rng.uniform(50, 160) * (1.5 if gen else 1.0)),
        "foci": foci,
        "radius": _f(rng.uniform(0.25, 0.45)),
        "lpd": None,
        "triphasic": None,
        "firda": None,
    }
    if setting == "icu" and not gen and rng.uniform() < 0.3:
        out["lpd"] = {
            "hz": _f(rng.uniform(0.5, 1.6)),
            "uv": _f(rng.uniform(50, 180)),
            "fraction": _f(rng.uniform(0.1, 0.6)),
            "plus": bool(rng.uniform() < 0.3),
        }
    if enc > 0.45 and rng.uniform() < 0.35:
        out["triphasic"] = {
            "hz": _f(rng.uniform(1.2, 2.0)),
            "uv": _f(rng.uniform(60, 150)),
            "fraction": _f(rng.uniform(0.05, 0.4)),
        }
    if enc > 0.25 and rng.uniform() < 0.35:
        out["firda"] = {
            "hz": _f(rng.uniform(1.5, 2.5)),
            "uv": _f(rng.uniform(40, 110)),
            "per_min": _f(rng.uniform(0.3, 2)),
        }
    return out


def _artifacts(rng, setting: str, age: float) -> dict:
    agitated = rng.uniform() < (0.15 if setting != "routine" else 0.07)
    agitation = _lognorm(rng, 1.0, 0.5) * (rng.uniform(4, 10) if agitated else 1.0)
    emg_sites = rng.dirichlet([3, 2, 1.2, 0.8])  # temporalis, frontalis, neck, masseter
    return {
        "agitation": _f(agitation),
        "blink_per_min": _f(rng.uniform(6, 28)),
        "blink_uv": _f(rng.uniform(60, 220)),
        "eog_uv_per_deg": _f(rng.uniform(3, 9)),
        "emg_uv": _f(rng.uniform(8, 40)),
        "emg_sites": [_f(x) for x in emg_sites],
        "ecg_uv": _f(0.0 if rng.uniform() < 0.3 else _lognorm(rng, 7, 0.6)),
        "ecg_axis": _pt(
            geo.unit([rng.normal(-0.2, 0.3), rng.normal(0.7, 0.3), rng.normal(-0.8, 0.3)])
        ),
        "hr_bpm": _f(
            rng.uniform(55, 95) + (25 if age < 8 else 0) + (10 if setting == "icu" else 0)
        ),
        "line_hz": 50.0 if rng.uniform() < 0.08 else 60.0,
        "line_uv": _f(_lognorm(rng, 1.0 if setting != "icu" else 3.0, 0.9)),
        "sweat": _f(rng.uniform(0, 1) ** 3),
        "tremor": (
            {"hz": _f(rng.uniform(4, 7)), "uv": _f(rng.uniform(10, 50))}
            if (age > 55 and rng.uniform() < 0.12)
            else None
        ),
        "chew_per_h": _f(rng.uniform(0, 8) if setting != "icu" else 0.0),
        "ventilated": bool(setting == "icu" and rng.uniform() < 0.4),
        "patting": bool((age < 4 or setting == "icu") and rng.uniform() < 0.35),
        "rocking": bool(age < 12 and rng.uniform() < 0.15),
        "pulse_prob": _f(rng.uniform(0, 0.3)),
        "loose_prob": _f(rng.uniform(0.05, 0.5)),
    }


def draw_patient(rng: np.random.Generator) -> dict:
    """Draw one patient's fixed traits (see module docstring)."""
    age = _age(rng)
    setting = str(rng.choice(["routine", "emu", "icu"], p=[0.4, 0.35, 0.25]))
    if setting == "icu":
        enc = float(rng.beta(2.0, 2.5))
    else:
        enc = float(rng.beta(1.2, 8.0)) if rng.uniform() < 0.3 else 0.0
    sleepiness = float(np.clip(rng.beta(2, 3) + 0.4 * enc, 0, 1))
    profile = draw_profile(rng, age, setting)
    bg = _background(rng, age, enc, setting)
    gains = np.exp(rng.normal(0.0, 0.12, geo.N_CH))
    gains *= np.exp(rng.normal(0, 0.06) * np.sign(geo.XYZ[:, 1]))  # mild hemispheric asymmetry
    return {
        "age": _f(age),
        "setting": setting,
        "reference": str(rng.choice(["AR", "LE"], p=[0.6, 0.4])),
        "electrode_gain": [_f(g) for g in gains],
        "background": bg,
        "state": _state_model(rng, setting, sleepiness, age),
        "epileptiform": _epileptiform(rng, profile, setting, enc),
        "seizure": profile,
        "artifacts": _artifacts(rng, setting, age),
        "procedures": setting == "routine" and rng.uniform() < 0.8,
    }
