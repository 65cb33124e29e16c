"""A patient's fixed traits: head, background rhythms, epilepsy, benign variants, habits.

Everything is drawn once per patient and is JSON-serialisable (plain floats, ints, strings,
lists, dicts), so every recording of a patient shares its anatomy, rhythms and seizures.
"""

from __future__ import annotations

import numpy as np

#: Focal onset zones and how often each is drawn (temporal lobe epilepsy dominates).
FOCI = {
    "anterior_temporal": 0.34,
    "mid_temporal": 0.14,
    "posterior_temporal": 0.06,
    "dorsolateral_frontal": 0.10,
    "inferior_frontal": 0.05,
    "mesial_frontal": 0.05,
    "frontopolar": 0.04,
    "central": 0.07,
    "parietal": 0.07,
    "occipital": 0.08,
}

#: Seizure morphologies of focal and generalised epilepsies (first: most often primary).
FOCAL_TYPES = ("focal_rhythmic", "focal_lvfa", "focal_spike_train", "focal_subtle")
GENERALISED_TYPES = (
    "generalized_spike_wave",
    "atypical_spike_wave",
    "polyspike_wave",
    "tonic_fast",
    "tonic_clonic",
)


def _f(x) -> float:
    return round(float(x), 5)


def _age(rng) -> float:
    u = rng.random()
    if u < 0.06:
        return rng.uniform(0.3, 3.0)
    if u < 0.25:
        return rng.uniform(3.0, 18.0)
    if u < 0.80:
        return rng.uniform(18.0, 65.0)
    return rng.uniform(65.0, 92.0)


def _pdr_hz(age: float, rng) -> float:
    """Posterior dominant rhythm frequency: ~5 Hz at 1 year, 8 Hz by 3-4, adult 9-11."""
    if age < 1:
        f = 4.5
    elif age < 3:
        f = 5.0 + 1.3 * (age - 1)
    elif age < 8:
        f = 7.5 + 0.3 * (age - 3)
    elif age < 16:
        f = 9.0 + 0.12 * (age - 8)
    elif age < 60:
        f = 10.0
    else:
        f = 10.0 - 0.04 * (age - 60)
    return float(np.clip(f + rng.normal(0, 0.6), 4.0, 12.5))


def _anatomy(age: float, rng) -> dict:
    """Head size and skull by age: children have small heads and thin, more conductive skulls
    (one physical reason why their EEG is larger)."""
    radius = np.interp(age, [0.3, 2, 6, 12, 18], [6.2, 7.4, 8.1, 8.6, 9.0]) + rng.normal(0, 0.35)
    ratio = np.interp(age, [0.3, 1, 5, 12, 18], [9, 12, 20, 30, 40]) * rng.lognormal(0, 0.2)
    skull = np.interp(age, [0.3, 5, 12, 18], [0.03, 0.045, 0.055, 0.07]) + rng.normal(0, 0.007)
    return {
        "seed": int(rng.integers(2**31)),
        "radius_cm": _f(np.clip(radius, 5.8, 10.0)),
        "skull_ratio": _f(np.clip(ratio, 7, 90)),
        "skull_frac": _f(np.clip(skull, 0.025, 0.09)),
        "scalp_frac": _f(rng.uniform(0.05, 0.09)),
        "tilt_sd": _f(rng.uniform(0.3, 0.6)),
        "local_sd": _f(rng.uniform(0.05, 0.15)),
    }


def _epilepsy(age: float, rng) -> dict:
    """Seizure class, focus and morphology preferences, interictal discharges."""
    generalised = rng.random() < (0.40 if age < 25 else 0.18 if age < 60 else 0.07)
    side = "left" if rng.random() < 0.5 else "right"
    names, p = list(FOCI), np.array(list(FOCI.values()))
    focus = str(rng.choice(names, p=p / p.sum()))
    if generalised:
        w = np.array([0.35 if age < 20 else 0.1, 0.15, 0.2 if age < 40 else 0.05, 0.12, 0.25])
        types = list(GENERALISED_TYPES)
    else:
        w = np.array([0.5, 0.2, 0.15, 0.15])
        if focus in ("dorsolateral_frontal", "mesial_frontal", "central"):
            w = np.array([0.3, 0.35, 0.25, 0.1])
        types = list(FOCAL_TYPES)
    w = w * rng.dirichlet(np.full(len(w), 2.0)) * len(w)
    w /= w.sum()
    primary = str(rng.choice(types, p=w))
    return {
        "class": "generalized" if generalised else "focal",
        "focus": focus,
        "side": side,
        "focus_offset_deg": [_f(rng.normal(0, 6)), _f(rng.normal(0, 8))],
        "primary": primary,
        "type_weights": {t: _f(x) for t, x in zip(types, w, strict=True)},
        "p_primary": _f(rng.uniform(0.55, 0.95)),
        # Focal seizures that spread to the other hemisphere / become bilateral tonic-clonic.
        "p_contralateral": _f(rng.uniform(0.1, 0.7)),
        "p_bilateral_tc": _f(rng.uniform(0.0, 0.35)),
        "onset_hz": _f(rng.uniform(4.5, 8.0)),
        "ictal_uv": _f(rng.lognormal(np.log(130), 0.3)),
        "spread_cm_s": _f(rng.lognormal(np.log(0.25), 0.5)),
        "p_automatisms": _f(rng.uniform(0.1, 0.6)),
        "postictal_s": _f(rng.lognormal(np.log(90), 0.6)),
        # Interictal discharges per hour awake (0 for a third: no discharges seen).
        "ied_per_h": _f(0.0 if rng.random() < 0.33 else rng.lognormal(np.log(12), 1.0)),
        "ied_sleep_factor": _f(rng.uniform(1.5, 4.0)),
        "ied_uv": _f(rng.lognormal(np.log(150), 0.3)),
        "rolandic": bool(not generalised and 4 < age < 13 and focus == "central"),
        "lpd": bool(not generalised and age > 50 and rng.random() < 0.1),
    }


def draw_patient(rng: np.random.Generator) -> dict:
    """A patient's fixed traits (see the module docstring)."""
    age = _age(rng)
    child = age < 13
    elderly = age > 65
    enceph = float(rng.uniform(0.3, 1.0)) if rng.random() < (0.18 if elderly else 0.08) else 0.0
    pdr = _pdr_hz(age, rng) - 2.0 * enceph
    # Generator strength by age; the small, thin-skulled heads of children already raise
    # their scalp amplitudes through the lead field (about x3 in infants, x1.8 at 5-12 years).
    amp_age = float(np.interp(age, [0.3, 2, 8, 13, 18, 65, 90], [0.4, 0.45, 0.6, 0.8, 1, 1, 0.7]))
    epi = _epilepsy(age, rng)
    focal_slow = rng.random() < (0.45 if epi["class"] == "focal" else 0.08)
    return {
        "age": _f(age),
        "anatomy": _anatomy(age, rng),
        "background": {
            "broad_uv": _f(rng.lognormal(np.log(12.0), 0.25) * amp_age**0.7),
            "broad_slope": _f(rng.uniform(1.4, 2.1) + (0.4 if age < 4 else 0.0)),
            "pdr_hz": _f(max(pdr, 4.0)),
            "pdr_bw": _f(rng.uniform(0.6, 1.4)),
            "pdr_uv": _f(rng.lognormal(np.log(21.0), 0.35) * amp_age * (1 - 0.5 * enceph)),
            "pdr_right_left": _f(rng.lognormal(np.log(1.1), 0.12)),
            "pdr_block": _f(rng.uniform(0.1, 0.45) + 0.4 * enceph),
            "pdr_anterior": _f(rng.uniform(0.0, 0.5)),
            "mu_uv": _f(rng.uniform(5, 14) if (rng.random() < 0.2 and 8 < age < 60) else 0.0),
            "mu_hz": _f(rng.uniform(8.5, 11.0)),
            # Medication (benzodiazepines, barbiturates) raises beta in some patients.
            "beta_uv": _f(
                rng.lognormal(np.log(3.0), 0.3)
                * amp_age**0.5
                * (rng.uniform(1.5, 2.5) if rng.random() < 0.15 else 1)
            ),
            "beta_hz": _f(rng.uniform(16, 25)),
            "theta_uv": _f(rng.lognormal(np.log(7.0), 0.3) * amp_age),
            "delta_uv": _f(rng.lognormal(np.log(6.0), 0.3) * amp_age),
            "sws_delta_uv": _f(rng.lognormal(np.log(75.0), 0.25) * amp_age**1.4),
            "enceph": _f(enceph),
            "focal_slow_uv": _f(rng.lognormal(np.log(22), 0.35) if focal_slow else 0.0),
            "focal_slow_same_as_focus": bool(rng.random() < 0.8),
        },
        "sleep": {
            "sleepiness": _f(rng.beta(2, 2)),
            "spindle_hz": _f(rng.uniform(12.0, 14.2) if age > 1 else 13.0),
            "spindle_uv": _f(rng.lognormal(np.log(38), 0.3) * amp_age**0.6),
            "kc_uv": _f(rng.lognormal(np.log(170), 0.3) * amp_age),
            "vertex_uv": _f(rng.lognormal(np.log(100), 0.3) * amp_age),
            "has_rem": bool(rng.random() < 0.85),
        },
        "variants": {
            "wicket": bool(age > 30 and rng.random() < 0.08),
            "bsss": bool(age > 18 and rng.random() < 0.12),
            "rmtd": bool(12 < age < 45 and rng.random() < 0.05),
            "posts": bool(rng.random() < 0.5),
            "lambda": bool(3 < age < 40 and rng.random() < 0.3),
            "hypnagogic": bool(0.5 < age < 13 and rng.random() < 0.45),
            "six_fourteen": bool(8 < age < 25 and rng.random() < 0.1),
            "sreda": bool(age > 50 and rng.random() < 0.04),
            "firda": bool(enceph > 0.3 and rng.random() < 0.6),
            "photic_driving": bool(rng.random() < 0.6),
            "hv_response": _f(rng.uniform(0.5, 1.5) if age < 20 else rng.uniform(0.0, 0.5)),
        },
        "epilepsy": epi,
        "habits": {
            "artifact_proneness": _f(rng.lognormal(0.0, 0.55) * (1.4 if child else 1.0)),
            "blink_uv": _f(rng.lognormal(np.log(140), 0.3)),
            "blink_per_min": _f(rng.lognormal(np.log(14), 0.4)),
            "saccade_uv_per_10deg": _f(rng.lognormal(np.log(45), 0.3)),
            "muscle_tension": _f(rng.lognormal(np.log(1.0), 0.6)),
            "tremor_hz": _f(rng.uniform(4.0, 6.5) if (elderly and rng.random() < 0.15) else 0.0),
            "patting": bool(age < 6 and rng.random() < 0.3),
            "ecg_uv": _f(rng.lognormal(np.log(7.0), 0.75)),
            "ecg_axis_deg": _f(rng.uniform(-20, 80)),
            "heart_rate": _f(
                np.clip(rng.normal(125 if age < 2 else 95 if child else 72, 10), 45, 160)
            ),
            "pulse_artifact": bool(rng.random() < 0.08),
            "line_hz": 60.0 if rng.random() < 0.92 else 50.0,
        },
    }
