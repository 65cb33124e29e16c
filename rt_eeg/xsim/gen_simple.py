"""A compact engineer's scalp-EEG simulator (generator ``simple``).

Written the way a signal-processing engineer who reads clinical EEG builds a test bench for a
seizure detector: a few spatially smeared noise and oscillator sources for the background, one
rhythmic-template engine reused for seizures, benign rhythms and rhythmic artifacts, Gaussian
bumps for spikes, blinks and pops, and wide random ranges everywhere. This entry module holds
the patient traits and the pipeline; the stages live in :mod:`rt_eeg.xsim.simple`.

:func:`render` runs five stages, each on its own generator seeded from ``rng`` (so adding a
seizure changes nothing before its onset):

1. vigilance (awake with eyes open/closed, drowsy, N2, N3) on a 0.25 s control grid;
2. background sources mixed onto the electrodes by Gaussian fields on the sphere;
3. physiological transients, benign variants, interictal discharges, photic, hyperventilation;
4. seizures (background attenuation, ictal waveform, ictal artifacts, post-ictal changes);
5. per-electrode gains, artifacts, ECG, line noise, amplifier filters, bad channels.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, Rendered
from rt_eeg.xsim.simple.artifacts import artifacts
from rt_eeg.xsim.simple.background import background, vigilance
from rt_eeg.xsim.simple.events import brain_events
from rt_eeg.xsim.simple.prims import IX, NC, XYZ, Rec, nudge, unit
from rt_eeg.xsim.simple.seizures import GENERALIZED, SEIZURE_TYPES, seizure

NAME = "simple"
DESCRIPTION = (
    "compact engineer's simulator: Gaussian-field mixed 1/f and oscillator sources, "
    "template-based evolving seizures, table-driven artifacts"
)

__all__ = ["DESCRIPTION", "NAME", "SEIZURE_TYPES", "draw_patient", "render"]


def draw_patient(rng: np.random.Generator) -> dict:
    """A patient's fixed traits (JSON-serialisable).

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    dict
        Age, background rhythm, amplitudes, benign-variant flags, seizure types, focus and
        spread propensity, artifact proneness, ECG and line-noise traits.
    """
    u = rng.uniform
    grp = int(rng.choice(4, p=[0.15, 0.12, 0.55, 0.18]))
    age = float(u(*[(1, 12), (12, 20), (20, 65), (65, 92)][grp]))
    enceph = bool(rng.random() < [0.06, 0.05, 0.12, 0.3][grp])
    setting = str(
        rng.choice(["routine", "emu", "icu"], p=[0.2, 0.2, 0.6] if enceph else [0.45, 0.45, 0.1])
    )
    pdr = float(
        np.interp(age, [1, 3, 8, 15, 60, 92], [5.5, 7.0, 8.5, 9.8, 10.0, 8.8]) + rng.normal(0, 0.5)
    )
    if enceph:
        pdr -= u(1.0, 2.5)
    w = {
        "focal_evolving": 0.26,
        "focal_lvfa": 0.12,
        "focal_rhythmic_delta": 0.12,
        "subtle_focal": 0.12,
        "absence": 0.03,
        "generalized_polyspike": 0.07,
        "tonic_clonic": 0.13,
        "evolving_lpd": 0.05,
    }
    if age < 13:
        w.update(absence=0.25, generalized_polyspike=0.06, evolving_lpd=0.01)
    elif age < 25:
        w.update(absence=0.08, generalized_polyspike=0.14)
    if enceph or age > 65:
        w.update(evolving_lpd=0.18, focal_rhythmic_delta=0.18, absence=0.0)
    names, p = list(w), np.array(list(w.values()))
    primary = str(rng.choice(names, p=p / p.sum()))
    p2 = p * (np.array(names) != primary)
    types = [primary, str(rng.choice(names, p=p2 / p2.sum()))]
    fw = {
        e: 3.0
        if e in ("F7", "F8", "T3", "T4", "T5", "T6")
        else 1.5
        if e in ("FP1", "FP2", "F3", "F4")
        else 0.3
        if e in ("FZ", "CZ", "PZ")
        else 0.0
        if e in ("A1", "A2")
        else 0.8
        for e in ELECTRODES
    }
    pw = np.array(list(fw.values()))
    focus = str(rng.choice(ELECTRODES, p=pw / pw.sum()))
    fxyz = nudge(rng, XYZ[IX[focus]], 0.12)
    slow_focus = focus if rng.random() < 0.5 else str(rng.choice(ELECTRODES, p=pw / pw.sum()))
    child = age < 13
    return {
        "age": round(age, 1),
        "encephalopathy": enceph,
        "setting": setting,
        "scale": float(
            np.interp(age, [1, 12, 20, 65, 92], [1.8, 1.4, 1.1, 1.0, 0.8]) * rng.lognormal(0, 0.25)
        ),
        "slope": float(u(1.1, 1.9)),
        "bb_amp": float(u(8, 16)),
        "ind_amp": float(u(2.5, 5)),
        "pdr_hz": float(np.clip(pdr, 4.5, 12.0)),
        "alpha_amp": float(u(15, 55) * (0.35 if enceph else 1.0)),
        "alpha_lr": float(u(0.75, 1.3)),
        "alpha_block": float(u(0.1, 0.4) if enceph else u(0.55, 0.95)),
        "alpha_h2": float(u(0.0, 0.15)),
        "beta_amp": float(
            rng.lognormal(np.log(3.0), 0.35) * (u(2.5, 5) if rng.random() < 0.15 else 1)
        ),
        "beta_hz": float(u(16, 25)),
        "theta_amp": float(u(3, 8) * (u(1.5, 3) if enceph else 1)),
        "delta_amp": float(u(3, 8) * (u(2, 4) if enceph else 1)),
        "sws_amp": float(u(25, 60)),
        "spindle_hz": float(u(11.5, 14.5)),
        "spindle_amp": float(u(10, 40)),
        "mu": bool(rng.random() < 0.1),
        "mu_hz": float(u(8.5, 11)),
        "slow_focus": slow_focus if rng.random() < (0.45 if enceph else 0.2) else "",
        "slow_amp": float(u(8, 30)),
        "benign": sorted(
            {
                v
                for v, q in (
                    ("wicket", 0.06 if age > 30 else 0.0),
                    ("rmtd", 0.05),
                    ("hypnagogic", 0.5 if child else 0.0),
                    ("posts", 0.5 if 15 < age < 40 else 0.15),
                    ("lambda", 0.3),
                    ("six_fourteen", 0.15 if 10 < age < 30 else 0.0),
                    ("firda", 0.6 if enceph else 0.03),
                    ("triphasic", 0.4 if enceph else 0.0),
                )
                if rng.random() < q
            }
        ),
        "photic_amp": float(u(3, 25)),
        "photomyogenic": bool(rng.random() < 0.08),
        "hv_amp": float(u(30, 100) if age < 20 else u(5, 30)),
        "sz_types": types,
        "p_secondary": float(u(0.0, 0.35)),
        "atypical_absence": bool(rng.random() < 0.25),
        "focus": focus,
        "focus_xyz": [float(v) for v in fxyz],
        "p_spread": float(u(0.1, 0.9)),
        "p_bilateral": float(u(0.0, 0.5)),
        "ictal_amp": float(rng.lognormal(np.log(130), 0.35)),
        "ied_rate": float(0.0 if rng.random() < 0.3 else rng.lognormal(np.log(15), 1.0)),
        "ied_sharp": float(u(0, 1)),
        "gsw_rate": float(u(2, 20) if primary in GENERALIZED[:2] else 0.0),
        "tirda": bool(rng.random() < 0.2),
        "art_prone": float(rng.lognormal(0, 0.4)),
        "blink_rate": float(u(6, 25)),
        "tremor": bool(rng.random() < (0.12 if age > 55 else 0.03)),
        "patting": bool(rng.random() < (0.35 if child or setting == "icu" else 0.05)),
        "sweaty": float(rng.lognormal(0, 0.8)),
        "hr": float(u(75, 120) if child else u(55, 100)),
        "ecg_amp": float(np.clip(rng.lognormal(np.log(4), 0.8), 0.3, 40)),
        "ecg_axis": [float(v) for v in unit([-0.3, 0.6, -1.0] + 0.5 * rng.standard_normal(3))],
        "pulse": bool(rng.random() < 0.1),
        "line_hz": 60.0 if rng.random() < 0.85 else 50.0,
    }


def render(
    patient: dict,
    duration_s: float,
    sfreq: float,
    seizures: list[tuple[float, float]],
    rng: np.random.Generator,
) -> Rendered:
    """Render one recording of ``patient``.

    Parameters
    ----------
    patient : dict
        From :func:`draw_patient`.
    duration_s : float
    sfreq : float
    seizures : list of (start_s, stop_s)
        Sorted, disjoint; seizure activity is put exactly there.
    rng : numpy.random.Generator

    Returns
    -------
    Rendered
        21 potentials in microvolts (float32), the seizure types, the other events.
    """
    fs = float(sfreq)
    S = Rec(fs=fs, n=int(round(duration_s * fs)))
    # Independent streams: a seizure (r_sz) leaves everything before its onset unchanged.
    r_st, r_bg, r_ev, r_sz, r_art = (
        np.random.default_rng(int(s)) for s in rng.integers(0, 2**62, 5)
    )
    vigilance(r_st, patient, S)
    out = np.zeros((NC, S.n), dtype=np.float32)
    background(out, r_bg, patient, S)
    brain_events(out, r_ev, patient, S, seizures)
    types = [seizure(out, r_sz, patient, S, float(a), float(b)) for a, b in seizures]
    gain = r_bg.lognormal(0, 0.12, NC) * np.where(
        np.isin(np.arange(NC), [IX["A1"], IX["A2"]]), 0.7, 1.0
    )
    out *= gain.astype(np.float32)[:, None]
    artifacts(out, r_art, patient, S, seizures)
    np.nan_to_num(out, copy=False)
    S.events.sort()
    return Rendered(eeg=out, seizure_types=types, events=S.events)
