"""A tide patient's fixed traits: age group, background rhythms, sleep habits, benign
variants, artifact habits, interictal discharges and seizure type (JSON-serialisable)."""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.tide.core import IDX, XYZ
from rt_eeg.xsim.tide.ictal import draw_seizure_traits


def _ln(rng, median: float, s: float) -> float:
    return float(median * rng.lognormal(0.0, s))


def draw(rng) -> dict:
    """Draw one patient.

    Amplitudes are clinical peak-to-peak microvolts at the field maximum; rates are per
    hour unless named otherwise.

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    dict
    """
    r = rng.random()
    group = "child" if r < 0.22 else ("adult" if r < 0.8 else "elderly")
    age = float({"child": rng.uniform(3, 17), "adult": rng.uniform(18, 65),
                 "elderly": rng.uniform(65, 90)}[group])  # fmt: skip
    if group == "child":
        alpha_f = 7.6 + 0.18 * (age - 3) + 0.4 * rng.standard_normal()
    elif group == "adult":
        alpha_f = 10.0 + 0.7 * rng.standard_normal()
    else:
        alpha_f = 9.2 + 0.6 * rng.standard_normal()
    scale = {"child": 1.6, "adult": 1.0, "elderly": 0.8}[group]
    enceph = float(rng.uniform(0.3, 1.0)) if rng.random() < (
        0.3 if group == "elderly" else 0.1) else 0.0  # fmt: skip
    p = {
        "age": round(age, 1),
        "group": group,
        "scale": _ln(rng, scale, 0.2),
        "alpha_f": float(np.clip(alpha_f - 1.5 * enceph, 6.5, 12.5)),
        "alpha_amp": _ln(rng, 45.0, 0.35) * (1.0 - 0.6 * enceph),
        "alpha_bw": float(rng.uniform(0.4, 1.4)),
        "alpha_asym": float(rng.uniform(0.85, 1.35)),  # right / left
        "alpha_kappa": float(rng.uniform(2.0, 5.0)),
        "beta_f": float(rng.uniform(15.0, 24.0)),
        "beta_amp": _ln(rng, 10.0, 0.3) * (3.0 if rng.random() < 0.2 else 1.0),
        "theta_amp": _ln(rng, 40.0, 0.3),
        "delta_amp": _ln(rng, 120.0, 0.3),
        "mu": bool(rng.random() < 0.25),
        "mu_f": float(np.clip(alpha_f + rng.uniform(-1.0, 1.0), 7.5, 12.0)),
        "mu_amp": float(rng.uniform(15.0, 40.0)),
        "spindle_f": float(rng.uniform(12.0, 14.5)),
        "spindle_amp": float(rng.uniform(25.0, 60.0)),
        "kc_amp": float(rng.uniform(80.0, 200.0)),
        "vertex_amp": float(rng.uniform(50.0, 140.0)),
        "posts_amp": float(rng.uniform(20.0, 50.0)) if rng.random() < 0.6 else 0.0,
        "sleepiness": float(rng.beta(2.0, 3.0)),
        "enceph": enceph,
        "focal_slowing": None,
        "emg_tone": _ln(rng, 3.0, 0.5),
        "blink_amp": float(rng.uniform(60.0, 200.0)),
        "saccade_amp": float(rng.uniform(20.0, 70.0)),
        "heart_rate": float(rng.uniform(80, 120) if group == "child" else rng.uniform(55, 100)),
        "ecg_amp": _ln(rng, 6.0, 0.6),
        "ecg_axis": float(rng.uniform(-0.6, 0.6)),
        "line_hz": 60.0 if rng.random() < 0.85 else 50.0,
        "line_amp": _ln(rng, 0.8, 0.8),
        "artifact_rate": _ln(rng, 1.0, 0.5),
        "tremor_f": float(rng.uniform(4.0, 7.0))
        if rng.random() < (0.2 if group == "elderly" else 0.04) else 0.0,  # fmt: skip
        "chewing": bool(rng.random() < 0.35),
        "patting": bool(rng.random() < (0.3 if group == "child" else 0.05)),
        "variants": {
            "wicket": bool(rng.random() < {"child": 0.0, "adult": 0.1, "elderly": 0.3}[group]),
            "rmtd": bool(rng.random() < (0.1 if group != "child" else 0.03)),
            "six14": bool(rng.random() < (0.35 if age < 25 else 0.05)),
            "bsss": bool(rng.random() < (0.25 if group != "child" else 0.05)),
            "sreda": bool(rng.random() < (0.1 if group == "elderly" else 0.0)),
            "hh": bool(rng.random() < (0.5 if group == "child" else 0.0)),
            "pswy": bool(rng.random() < (0.5 if age < 22 else 0.0)),
            "lambda": bool(rng.random() < 0.3),
            "hv": bool(rng.random() < 0.15),
        },
    }
    if rng.random() < 0.2 + 0.2 * enceph:
        lobe = ["F7", "T3", "T5", "F3", "C3", "P3", "O1"][int(rng.integers(7))]
        v = XYZ[IDX[lobe]] * np.array([1.0, 1.0 if rng.random() < 0.5 else -1.0, 1.0])
        p["focal_slowing"] = {"dir": [float(x) for x in v], "amp": float(rng.uniform(40, 120))}
    p["seizure"] = draw_seizure_traits(rng, group)
    if p["focal_slowing"] is None and p["seizure"]["kind"] == "focal" and rng.random() < 0.3:
        p["focal_slowing"] = {"dir": list(p["seizure"]["focus"]),
                              "amp": float(rng.uniform(30, 90))}  # fmt: skip
    return p
