"""A patient's fixed traits: age, background rhythms, epilepsy, variants, artifact habits.

Everything is JSON-serialisable (numbers, strings, lists, dicts), drawn once per patient and
shared by all of that patient's recordings, so that they resemble each other.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.atoms.fields import jitter, region_centre

#: Seizure morphologies by epilepsy class, with their base probabilities.
FOCAL_TYPES = {
    "focal_evolving_rhythmic": 0.36, "focal_lvfa": 0.16, "focal_rhythmic_delta": 0.16,
    "subtle_focal": 0.12, "evolving_periodic": 0.08, "focal_to_bilateral": 0.12,
}  # fmt: skip
GENERALISED_TYPES = {
    "absence_spike_wave": 0.32, "atypical_spike_wave": 0.16, "tonic_clonic": 0.3,
    "electrodecremental": 0.1, "polyspike_wave": 0.12,
}  # fmt: skip

_FOCI = {
    "L_temporal": 0.16, "R_temporal": 0.16, "L_ant_temporal": 0.07, "R_ant_temporal": 0.07,
    "L_frontal": 0.1, "R_frontal": 0.1, "L_central": 0.04, "R_central": 0.04,
    "L_parietal": 0.05, "R_parietal": 0.05, "L_occipital": 0.04, "R_occipital": 0.04,
    "frontal": 0.04, "vertex": 0.02, "frontopolar": 0.02,
}  # fmt: skip


def _pick(d: dict, rng) -> str:
    keys = list(d)
    p = np.array([d[k] for k in keys], dtype=float)
    return str(keys[int(rng.choice(len(keys), p=p / p.sum()))])


def _lognormal(rng, median: float, sigma: float) -> float:
    return float(median * np.exp(sigma * rng.standard_normal()))


def _age(rng) -> float:
    if rng.random() < 0.13:
        return float(rng.uniform(1.0, 18.0))
    return float(np.clip(rng.normal(50.0, 18.0), 18.0, 95.0))


def _pdr_frequency(age: float, rng) -> float:
    if age < 3:
        f = rng.uniform(5.5, 7.5)
    elif age < 8:
        f = rng.uniform(7.5, 9.0)
    elif age < 15:
        f = rng.uniform(8.5, 10.5)
    elif age < 65:
        f = rng.normal(10.0, 0.8)
    else:
        f = rng.normal(9.3, 0.7)
    return float(np.clip(f, 5.5, 12.0))


def draw_patient(rng) -> dict:
    """Draw one patient's traits (see the module docstring)."""
    age = _age(rng)
    child = age < 18
    setting = _pick({"routine": 0.45, "emu": 0.3, "icu": 0.25}, rng)
    encephalopathy = (setting == "icu" and rng.random() < 0.4) or rng.random() < 0.05
    slowing = "diffuse" if encephalopathy else _pick({"none": 0.75, "focal": 0.25}, rng)

    # epilepsy: class, focus, seizure morphologies, interictal discharges
    gen = rng.random() < (0.45 if child else 0.22)
    focus_region = "generalised" if gen else _pick(_FOCI, rng)
    if gen:
        centre = jitter(region_centre("frontal"), 8.0, rng)
        types = dict(GENERALISED_TYPES)
        if child:
            types["absence_spike_wave"] *= 2.0
            types["atypical_spike_wave"] *= 1.5
        else:
            types["absence_spike_wave"] *= 0.4
    else:
        centre = jitter(region_centre(focus_region), 10.0, rng)
        types = dict(FOCAL_TYPES)
        if setting == "icu":
            types["focal_rhythmic_delta"] *= 2.0
            types["evolving_periodic"] *= 3.0
        if "temporal" in focus_region:
            types["focal_evolving_rhythmic"] *= 1.5
        if "frontal" in focus_region or "central" in focus_region:
            types["focal_lvfa"] *= 2.0
    primary = _pick(types, rng)
    epilepsy = {
        "generalised": bool(gen),
        "focus_region": focus_region,
        "centre": [float(v) for v in centre],
        "primary": primary,
        "types": {k: float(v) for k, v in types.items()},
        "p_primary": float(rng.uniform(0.65, 0.95)),
        "amp": _lognormal(rng, 130.0 if not child else 170.0, 0.3),
        "f_factor": float(rng.uniform(0.85, 1.15)),
        "p_generalise": float(rng.uniform(0.0, 0.5)),
        "p_muscle": float(rng.uniform(0.05, 0.6)),
        "p_automatism": float(rng.uniform(0.0, 0.5)) if "temporal" in focus_region else 0.05,
        "ied_rate": _lognormal(rng, 1.0, 1.0) if rng.random() < 0.6 else 0.0,
        "ied_width": float(rng.choice([1.0, 1.5, 2.5], p=[0.4, 0.3, 0.3])),
        "ied_amp": _lognormal(rng, 90.0, 0.35),
        "ied_slow": float(rng.uniform(0.2, 0.9)),
        "ied_dipolar": bool(rng.random() < 0.2),
        "ied_dir": [float(v) for v in rng.standard_normal(3)],
        "width": float(rng.uniform(20.0, 32.0)),
    }

    pdr_f = _pdr_frequency(age, rng)
    if encephalopathy:
        pdr_f = max(5.0, pdr_f - rng.uniform(1.5, 3.5))
    pdr = {
        "freq": pdr_f,
        "amp": _lognormal(rng, 55.0 if child else 35.0, 0.35) * (0.5 if encephalopathy else 1.0),
        "asym": float(np.exp(rng.normal(0.1, 0.15))),  # right / left
        "width": float(rng.uniform(32.0, 46.0)),
        "spread": float(rng.uniform(0.0, 0.6)),  # how far forward it reaches
        "present": bool(rng.random() < (0.55 if encephalopathy else 0.95)),
    }
    slow = {"kind": slowing, "amp": _lognormal(rng, 45.0, 0.35), "rhythmic": 0.0}
    if slowing == "focal":
        same = rng.random() < 0.6 and not gen
        c = centre if same else jitter(region_centre(_pick(_FOCI, rng)), 10.0, rng)
        slow["centre"] = [float(v) for v in c]
        slow["width"] = float(rng.uniform(22.0, 38.0))
    if slowing != "none" and rng.random() < 0.4:
        slow["rhythmic"] = _lognormal(rng, 0.4, 0.7)  # bursts of rhythmic delta per minute

    variants = {
        "mu": float(rng.uniform(15, 35)) if rng.random() < 0.2 else 0.0,
        "wicket": age > 30 and rng.random() < 0.1,
        "bets": age > 15 and rng.random() < 0.15,
        "pos14_6": 10 < age < 35 and rng.random() < 0.12,
        "rmtd": age > 12 and rng.random() < 0.06,
        "posts": rng.random() < 0.45,
        "hypersynchrony": child and rng.random() < 0.5,
        "lambda": rng.random() < 0.12,
    }
    periodic = "none"
    if setting == "icu" and rng.random() < 0.35:
        periodic = "triphasic" if slowing == "diffuse" and rng.random() < 0.6 else "lpd"
    artifacts = {
        "blink_rate": _lognormal(rng, 10.0, 0.4) / 60.0,
        "blink_amp": _lognormal(rng, 110.0, 0.3),
        "saccade_rate": _lognormal(rng, 6.0, 0.5) / 60.0,
        "emg": _lognormal(rng, 1.0, 0.7),
        "chew": _lognormal(rng, 0.08, 1.0) / 60.0,
        "move": _lognormal(rng, 0.25, 0.8) / 60.0,
        "tremor": bool(rng.random() < 0.05),
        "patting": bool(rng.random() < (0.2 if child else 0.03)),
        "ecg_amp": _lognormal(rng, 6.0, 0.8) if rng.random() < 0.7 else 0.5,
        "heart_rate": float(rng.uniform(55, 100) if not child else rng.uniform(75, 130)),
        "pulse": bool(rng.random() < 0.05),
        "sweat": bool(rng.random() < 0.1),
    }
    return {
        "age": age,
        "setting": setting,
        "sleepiness": float(rng.uniform(0.1, 1.0)),
        "gain": _lognormal(rng, 1.0, 0.2),
        "bg_amp": _lognormal(rng, 1.0, 0.2) * (1.3 if child else 1.0),
        "chi": float(rng.uniform(1.3, 2.0)),
        "beta": _lognormal(rng, 4.0, 0.3) * (3.5 if rng.random() < 0.18 else 1.0),
        "theta": _lognormal(rng, 1.0, 0.35) * (1.8 if child else 1.0),
        "spindle_freq": float(rng.uniform(11.5, 14.0)),
        "pdr": pdr,
        "slowing": slow,
        "epilepsy": epilepsy,
        "variants": {
            k: (bool(v) if isinstance(v, bool | np.bool_) else float(v))
            for k, v in variants.items()
        },
        "periodic": periodic,
        "artifacts": artifacts,
    }
