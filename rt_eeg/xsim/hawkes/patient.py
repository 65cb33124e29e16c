"""A patient's fixed traits: age-dependent rhythms, amplitude, asymmetry, geometry, seizure
focus and types, artifact propensities. Everything is JSON-serialisable."""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES

#: Seizure types a patient can have (see :mod:`rt_eeg.xsim.hawkes.ictal`).
FOCAL_TYPES = ("focal_rhythmic_theta", "focal_rhythmic_delta", "lvfa_onset", "focal_spread",
               "subtle_focal", "muscle_obscured")  # fmt: skip
GENERALISED_TYPES = ("spike_wave", "polyspike")
SEIZURE_TYPES = FOCAL_TYPES + GENERALISED_TYPES

#: Where foci are drawn: (probability, unit-vector direction before jitter).
_FOCI = (
    (0.30, (0.25, 0.85, -0.05)),  # left temporal
    (0.25, (0.25, -0.85, -0.05)),  # right temporal
    (0.15, (0.80, 0.35, 0.35)),  # left frontal
    (0.12, (0.80, -0.35, 0.35)),  # right frontal
    (0.06, (0.0, 0.55, 0.80)),  # left central
    (0.06, (0.0, -0.55, 0.80)),  # right central
    (0.03, (-0.85, 0.30, 0.30)),  # left occipital
    (0.03, (-0.85, -0.30, 0.30)),  # right occipital
)


def _age(rng) -> float:
    u = rng.random()
    if u < 0.12:
        return float(rng.uniform(2.0, 12.0))
    if u < 0.22:
        return float(rng.uniform(12.0, 20.0))
    if u < 0.85:
        return float(rng.uniform(20.0, 65.0))
    return float(rng.uniform(65.0, 90.0))


def _alpha_hz(age: float, rng) -> float:
    """Posterior dominant rhythm: ~6 Hz at 3 y, ~8 at 8, adult 9-11.5, slower when old."""
    if age < 16:
        mu = 5.5 + 4.0 * (1.0 - np.exp(-(age - 2.0) / 5.0))
    elif age < 65:
        mu = 10.0
    else:
        mu = 10.0 - 0.04 * (age - 65.0)
    return float(np.clip(mu + rng.normal(0.0, 0.6), 5.5, 12.5))


def draw_patient(rng) -> dict:
    """Draw one patient's traits.

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    dict
        JSON-serialisable traits used by every recording of the patient.
    """
    age = _age(rng)
    child = age < 13
    amp = float(rng.lognormal(np.log(32.0 if child else (12.0 if age > 65 else 16.0)), 0.3))
    p = np.array([f[0] for f in _FOCI])
    k = int(rng.choice(len(_FOCI), p=p / p.sum()))
    focus = np.asarray(_FOCI[k][1]) + rng.normal(0.0, 0.12, 3)
    focus /= np.linalg.norm(focus)
    gen_p = 0.45 if age < 25 else 0.12
    if rng.random() < gen_p:
        main = str(rng.choice(GENERALISED_TYPES, p=[0.7, 0.3]))
        others = [t for t in SEIZURE_TYPES if t != main]
        o_p = np.array([1.0 if t in GENERALISED_TYPES else 0.25 for t in others])
    else:
        main = str(rng.choice(FOCAL_TYPES, p=[0.26, 0.16, 0.18, 0.18, 0.12, 0.10]))
        others = [t for t in SEIZURE_TYPES if t != main]
        o_p = np.array([0.15 if t in GENERALISED_TYPES else 1.0 for t in others])
    n_extra = int(rng.integers(1, 3))
    extra = [str(t) for t in rng.choice(others, size=n_extra, replace=False, p=o_p / o_p.sum())]
    w_main = float(rng.uniform(0.5, 0.85))
    types = [main] + extra
    weights = [w_main] + [(1.0 - w_main) / n_extra] * n_extra
    gains = rng.lognormal(0.0, 0.12, len(ELECTRODES))
    bad = [int(b) for b in rng.choice(len(ELECTRODES), size=int(rng.integers(1, 3)),
                                      replace=False)]  # fmt: skip
    return {
        "age": round(age, 1),
        "geometry_seed": int(rng.integers(2**31)),
        "n_patches": int(rng.integers(32, 49)),
        "leadfield_sigma": float(rng.uniform(0.26, 0.38)),
        "electrode_gain": [round(float(g), 4) for g in gains],
        "amplitude_uv": round(amp, 2),
        "alpha_hz": round(_alpha_hz(age, rng), 2),
        "beta_hz": round(float(rng.uniform(16.0, 25.0)), 2),
        "theta_hz": round(float(rng.uniform(4.5, 7.0)), 2),
        "spindle_hz": round(float(rng.uniform(11.5, 14.5)), 2),
        "left_right": round(float(rng.lognormal(0.0, 0.08)), 3),
        "alpha_asym": round(float(rng.lognormal(0.0, 0.1)), 3),
        "focal_slowing": round(float(rng.uniform(0.0, 0.25) if rng.random() < 0.4 else 0.0), 3),
        "focus": [round(float(v), 4) for v in focus],
        "seizure_types": types,
        "seizure_type_weights": [round(w, 4) for w in weights],
        "ii_spike_per_min": round(float(rng.exponential(0.6) if rng.random() < 0.6 else 0.0), 3),
        "sleep_drive": round(float(rng.beta(1.5, 2.5)), 3),
        "artifact_scale": round(float(rng.lognormal(0.0, 0.45)), 3),
        "bad_electrodes": bad,
        "mains_hz": 60 if rng.random() < 0.8 else 50,
        "mains_uv": round(float(rng.lognormal(np.log(1.5), 1.0)), 3),
        "ecg_uv": round(float(rng.lognormal(np.log(8.0), 0.5) if rng.random() < 0.5 else 0.0), 3),
        "heart_rate": round(float(rng.uniform(55.0, 100.0 if not child else 120.0)), 1),
        "rmtd_per_h": round(float(rng.exponential(4.0) if rng.random() < 0.25 else 0.0), 3),
        "wicket_per_h": round(
            float(rng.exponential(6.0) if age > 30 and rng.random() < 0.3 else 0.0), 3
        ),  # fmt: skip
        "hypnagogic_per_h": round(float(rng.uniform(5.0, 30.0) if age < 14 else 0.0), 3),
    }
