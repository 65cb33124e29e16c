"""A patient's fixed traits: who they are, where they record, what their EEG shows.

Three settings: epilepsy-monitoring unit (``emu``, focal and generalised epilepsies, days and
nights of video-EEG), intensive care (``icu``, encephalopathy, sedation, periodic and
rhythmic patterns, ventilators and beds) and outpatient routine EEG (``outpatient``, short,
activation procedures, more children).
"""

from __future__ import annotations

import numpy as np

#: Every seizure morphology the atlas renders (the ``seizure_types`` it reports).
SEIZURE_TYPES: tuple[str, ...] = (
    "focal_rhythmic_theta",
    "low_voltage_fast",
    "focal_spike_train",
    "subtle_focal",
    "rhythmic_delta_evolving",
    "lpd_evolving",
    "gpd_evolving",
    "hypermotor",
    "absence_spike_wave",
    "atypical_spike_wave",
    "polyspike_wave",
    "tonic_clonic",
    "tonic_fast",
)

_FOCAL_REGIONS = (
    ("mesial_temporal", 0.34), ("temporal", 0.14), ("frontal", 0.17), ("frontopolar", 0.05),
    ("central", 0.08), ("parietal", 0.07), ("posterior_temporal", 0.08), ("occipital", 0.07),
)  # fmt: skip

#: Benign variants and the ages (years) in which they are seen.
VARIANT_AGES = {
    "wicket": (30, 95),
    "small_sharp_spikes": (18, 90),
    "rmtd": (13, 60),
    "fourteen_six": (8, 30),
    "sreda": (45, 95),
    "phantom_sw": (12, 45),
    "hypnagogic": (1, 12),
    "lambda": (4, 50),
    "posw": (4, 18),
}


def _pick(rng, items):
    """Weighted choice from ``[(item, weight), ...]``."""
    w = np.array([x[1] for x in items], dtype=float)
    return items[int(rng.choice(len(items), p=w / w.sum()))][0]


def _age(rng, setting: str) -> float:
    if setting == "icu":
        return float(rng.uniform(1, 17) if rng.random() < 0.12 else rng.uniform(20, 92))
    if setting == "emu":
        return float(rng.uniform(2, 18) if rng.random() < 0.2 else rng.uniform(18, 72))
    return float(rng.uniform(1, 18) if rng.random() < 0.35 else rng.uniform(18, 88))


def _pdr_hz(rng, age: float, enc: int) -> float:
    """Posterior dominant rhythm frequency: matures to ~10 Hz by adolescence, slows late."""
    if age < 3:
        f = 5.0 + 0.8 * age
    elif age < 12:
        f = 7.4 + 0.2 * (age - 3)
    elif age < 65:
        f = rng.normal(10.0, 0.7)
    else:
        f = rng.normal(9.3, 0.7)
    f += rng.normal(0, 0.3) - 1.3 * enc
    return float(np.clip(f, 4.5, 12.5))


def _seizure_types(rng, setting, generalised, region, periodic, age):
    """Primary and secondary seizure morphology of the patient."""
    if generalised:
        opts = [("tonic_clonic", 0.25), ("polyspike_wave", 0.15 if 10 < age < 40 else 0.04)]
        opts += [("absence_spike_wave", 0.4 if age < 25 else 0.08)]
        opts += [("atypical_spike_wave", 0.12 if age < 30 else 0.03)]
        opts += [("tonic_fast", 0.12 if age < 30 else 0.02)]
        if setting == "icu":
            opts += [("gpd_evolving", 0.3)]
    elif setting == "icu":
        opts = [("subtle_focal", 0.25), ("rhythmic_delta_evolving", 0.18)]
        opts += [("focal_rhythmic_theta", 0.15), ("low_voltage_fast", 0.07)]
        opts += [("focal_spike_train", 0.1)]
        if periodic == "lpd":
            opts += [("lpd_evolving", 0.8)]
        if periodic in ("gpd", "triphasic"):
            opts += [("gpd_evolving", 0.5)]
    elif region in ("mesial_temporal", "temporal"):
        opts = [("focal_rhythmic_theta", 0.55), ("low_voltage_fast", 0.1), ("subtle_focal", 0.12)]
        opts += [("rhythmic_delta_evolving", 0.1), ("focal_spike_train", 0.05)]
        opts += [("tonic_clonic", 0.08)]
    elif region in ("frontal", "frontopolar"):
        opts = [("hypermotor", 0.3), ("low_voltage_fast", 0.3), ("focal_spike_train", 0.12)]
        opts += [("subtle_focal", 0.1), ("focal_rhythmic_theta", 0.1), ("tonic_clonic", 0.08)]
    else:
        opts = [("low_voltage_fast", 0.3), ("focal_spike_train", 0.25)]
        opts += [("focal_rhythmic_theta", 0.2), ("subtle_focal", 0.12), ("tonic_clonic", 0.08)]
        opts += [("rhythmic_delta_evolving", 0.05)]
    first = _pick(rng, opts)
    rest = [o for o in opts if o[0] != first]
    second = _pick(rng, rest) if rest else first
    return [first, second]


def _periodic(rng, setting: str, enc: int, side: str, region: str):
    """A periodic or rhythmic ICU pattern, or ``None``."""
    if setting == "icu":
        opts = [(None, 0.35), ("lpd", 0.22), ("lrda", 0.14), ("grda", 0.09), ("bipd", 0.03)]
        opts += [("gpd", 0.07 + 0.03 * enc), ("triphasic", 0.04 + 0.05 * enc)]
    elif setting == "emu":
        opts = [(None, 0.85), ("lrda", 0.08), ("lpd", 0.03), ("firda", 0.04)]
    else:
        opts = [(None, 0.88), ("firda", 0.08), ("lrda", 0.04)]
    kind = _pick(rng, opts)
    if kind is None:
        return None
    freq = {
        "lpd": rng.uniform(0.5, 2.0), "gpd": rng.uniform(0.5, 2.2),
        "bipd": rng.uniform(0.5, 1.5), "triphasic": rng.uniform(1.3, 2.6),
        "lrda": rng.uniform(1.0, 2.8), "grda": rng.uniform(1.2, 2.8),
        "firda": rng.uniform(1.8, 3.0),
    }[kind]  # fmt: skip
    plus = "none"
    if kind in ("lpd", "gpd", "bipd") and rng.random() < 0.35:
        plus = str(rng.choice(["fast", "rhythmic"]))
    reg = region if kind in ("lpd", "lrda", "bipd") else "frontal"
    if kind == "lrda" and rng.random() < 0.6:
        reg = "temporal"
    return {
        "kind": kind, "freq": float(freq), "prevalence": float(rng.uniform(0.15, 0.85)),
        "amp_uv": float(rng.uniform(80, 250)), "plus": plus, "side": side, "region": reg,
        "run_min": float(rng.uniform(0.3, 12.0)),
    }  # fmt: skip


def _artifacts(rng, setting: str, age: float) -> dict:
    icu = setting == "icu"
    heavy = rng.random() < 0.22
    load = float(rng.lognormal(0.0, 0.4) * (rng.uniform(2.5, 5.0) if heavy else 1.0))
    return {
        "load": load,
        "heavy": bool(heavy),
        "line_hz": 60.0 if rng.random() < 0.8 else 50.0,
        "line_uv": float(rng.lognormal(np.log(0.8), 0.9)),
        "ecg_uv": float(rng.lognormal(np.log(6.0), 0.7)),
        "hr_bpm": float(rng.uniform(55, 100) + (25 if age < 8 else 0) + (10 if icu else 0)),
        "pulse": bool(rng.random() < 0.1),
        "ventilated": bool(icu and rng.random() < 0.45),
        "resp_per_min": float(rng.uniform(12, 24) + (10 if age < 8 else 0)),
        "bed": float(rng.uniform(0.5, 3.0) if icu and rng.random() < 0.4 else 0.0),
        "physio": float(rng.uniform(0.3, 1.5) if icu and rng.random() < 0.3 else 0.0),
        "iv_drip": bool(icu and rng.random() < 0.2),
        "patting": float(rng.uniform(1, 6) if age < 7 and rng.random() < 0.6 else 0.0),
        "tremor": float(rng.uniform(0.5, 4) if age > 55 and rng.random() < 0.15 else 0.0),
        "tremor_hz": float(rng.uniform(4.0, 6.5) if rng.random() < 0.6 else rng.uniform(6, 9)),
        "chewing": float(0.3 if icu else rng.uniform(1, 5)),
        "sweat": float(rng.uniform(0, 1.5)),
        "bad_channel_p": float(rng.uniform(0.1, 0.5) * (1.5 if heavy else 1.0)),
        "emg_tone": float(rng.lognormal(np.log(2.0), 0.6) * (0.4 if icu else 1.0)),
        "blink_uv": float(rng.uniform(60, 220)),
    }


def draw_patient(rng: np.random.Generator) -> dict:
    """Draw one patient's fixed traits (JSON-serialisable)."""
    setting = _pick(rng, [("emu", 0.45), ("icu", 0.35), ("outpatient", 0.2)])
    age = _age(rng, setting)
    child = age < 13
    if setting == "icu":
        enc = int(rng.choice(4, p=[0.25, 0.3, 0.3, 0.15]))
    else:
        enc = int(rng.random() < (0.1 if setting == "emu" else 0.12))
    side = "L" if rng.random() < 0.52 else "R"
    region = _pick(rng, _FOCAL_REGIONS)
    p_gen = {"emu": 0.2, "icu": 0.1, "outpatient": 0.25}[setting] * (1.4 if age < 25 else 1.0)
    generalised = bool(rng.random() < p_gen)
    periodic = _periodic(rng, setting, enc, side, region)
    pkind = periodic["kind"] if periodic else None
    child_amp = 1.6 if child else (1.2 if age < 20 else 1.0)

    bs = None
    if setting == "icu" and enc == 3 and rng.random() < 0.45:
        bs = {
            "burst_s": float(rng.uniform(0.8, 3.0)), "supp_s": float(rng.uniform(2.0, 15.0)),
            "supp_gain": float(rng.uniform(0.04, 0.15)), "burst_uv": float(rng.uniform(50, 150)),
            "fraction": float(rng.uniform(0.5, 1.0)),
        }  # fmt: skip
    focal_slowing = None
    if rng.random() < {"emu": 0.25, "icu": 0.45, "outpatient": 0.12}[setting]:
        same = rng.random() < 0.75
        focal_slowing = {
            "side": side if same else ("R" if side == "L" else "L"),
            "region": region if same else _pick(rng, _FOCAL_REGIONS),
            "amp_uv": float(rng.uniform(20, 70)), "continuity": float(rng.uniform(0.3, 1.0)),
        }  # fmt: skip
    breach = None
    if rng.random() < {"emu": 0.06, "icu": 0.15, "outpatient": 0.03}[setting]:
        breach = {
            "side": side if rng.random() < 0.7 else ("R" if side == "L" else "L"),
            "region": _pick(rng, [("temporal", 3), ("frontal", 2), ("central", 2), ("parietal", 1)]),
            "gain": float(rng.uniform(1.3, 2.0)), "fast_uv": float(rng.uniform(4, 10)),
        }  # fmt: skip

    med_beta = 0.0
    if rng.random() < {"emu": 0.3, "icu": 0.55, "outpatient": 0.15}[setting]:
        med_beta = float(rng.uniform(3, 10))
    background = {
        "pdr_hz": _pdr_hz(rng, age, enc),
        "pdr_uv": float(rng.uniform(10, 35) * child_amp * max(0.0, 1.0 - 0.4 * enc)),
        "pdr_asym": float(np.clip(rng.normal(1.05, 0.1), 0.75, 1.4)),
        "broad_uv": float(rng.uniform(8, 16) * child_amp),
        "alpha_exp": float(rng.uniform(1.7, 2.4)),
        "delta_uv": float(rng.uniform(22, 40) * child_amp),
        "theta_uv": float(rng.uniform(6, 12) * child_amp),
        "beta_uv": float(rng.uniform(1.5, 5.0)),
        "med_beta_uv": med_beta,
        "mu": bool(rng.random() < 0.15 and not child and enc == 0),
        "spindle_hz": float(rng.uniform(12.0, 14.0)),
        "enc": enc,
        "enc_delta_uv": float(rng.uniform(6, 14) * enc),
        "focal_slowing": focal_slowing,
        "breach": breach,
        "burst_suppression": bs,
        "noise_uv": float(rng.uniform(1.5, 4.0)),
    }

    ied_rate = 0.0
    u = rng.random()
    if u < 0.3:
        ied_rate = 0.0
    elif u < 0.7:
        ied_rate = float(rng.uniform(3, 60))
    else:
        ied_rate = float(rng.uniform(80, 600))
    if generalised:
        # Generalised discharges come as separate bursts; hundreds an hour would be status.
        ied_rate = min(ied_rate, float(rng.uniform(20, 150)))
    if generalised:
        kinds = [("spike_wave", 0.5), ("polyspike", 0.35), ("spike", 0.15)]
    elif child and region in ("central", "temporal") and rng.random() < 0.5:
        kinds = [("rolandic", 1.0)]
    else:
        kinds = [("spike", 0.45), ("sharp", 0.45), ("polyspike", 0.1)]
    foci = [{"region": region, "side": side, "weight": 1.0}]
    if not generalised and rng.random() < 0.25:
        foci.append({"region": region, "side": "R" if side == "L" else "L",
                     "weight": float(rng.uniform(0.1, 0.6))})  # fmt: skip
    if not generalised and rng.random() < 0.15:
        foci.append({"region": _pick(rng, _FOCAL_REGIONS), "side": side,
                     "weight": float(rng.uniform(0.1, 0.4))})  # fmt: skip
    ieds = {
        "rate_h": ied_rate, "kind": _pick(rng, kinds), "foci": foci,
        "amp_uv": float(rng.uniform(50, 180) * (1.3 if child else 1.0)),
        "generalised": generalised, "clustering": float(rng.uniform(0.3, 1.2)),
    }  # fmt: skip

    variants = {}
    for name, (lo, hi) in VARIANT_AGES.items():
        p = 0.18 if name in ("hypnagogic", "lambda", "posw", "fourteen_six") else 0.1
        if name == "sreda":
            p = 0.04
        if lo <= age <= hi and enc <= 1 and rng.random() < p:
            variants[name] = float(rng.lognormal(0, 0.5))

    seizure = {
        "types": _seizure_types(rng, setting, generalised, region, pkind, age),
        "p_primary": float(rng.uniform(0.65, 0.95)),
        "freq_scale": float(rng.uniform(0.8, 1.25)),
        "amp_uv": float(rng.uniform(100, 240) * (1.3 if child else 1.0)),
        "spread": float(rng.uniform(0.2, 1.0)),
        "muscle": float(rng.uniform(0.0, 1.0)),
        "postictal": float(rng.uniform(0.3, 1.0)),
    }
    gain = float(rng.lognormal(0.0, 0.2))
    return {
        "setting": setting, "age": round(age, 1), "side": side, "region": region,
        "generalised": generalised, "gain": gain,
        "elec_gain": [float(x) for x in np.clip(rng.lognormal(0.0, 0.12, 21), 0.6, 1.6)],
        "background": background, "ieds": ieds, "periodic": periodic,
        "variants": variants, "seizure": seizure, "artifacts": _artifacts(rng, setting, age),
        "night_p": {"emu": 0.4, "icu": 0.5, "outpatient": 0.05}[setting],
        "sleepiness": float(rng.uniform(0.2, 0.6) + (0.15 * enc)),
    }  # fmt: skip
