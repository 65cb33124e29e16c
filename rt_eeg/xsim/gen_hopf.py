"""Whole-brain network of noisy Stuart-Landau (Hopf normal-form) oscillators.

About 40 cortical nodes on the scalp sphere each carry one complex oscillator per band
(delta, theta, alpha, sigma, beta, plus a benign-variant and an ictal band), diffusively
coupled through a distance-decaying connectome with homotopic links. Vigilance states,
benign rhythms and seizures are trajectories of the bifurcation parameter, the carrier
frequency and the coupling; the node signals (real parts, wave-shaped for the variant and
ictal bands, plus a 1/f aperiodic component) reach the 21 electrodes through a smooth
Gaussian lead field; transients and artifacts are added on the scalp. See
:mod:`rt_eeg.xsim.hopf`.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, Rendered
from rt_eeg.xsim.hopf import artifacts, geometry, seizures, states, transients
from rt_eeg.xsim.hopf.network import B, Network

NAME = "hopf"
DESCRIPTION = (
    "Stuart-Landau (Hopf normal-form) oscillator network on the scalp sphere: states, "
    "variants and seizures as bifurcation-parameter, frequency and coupling trajectories"
)

#: Envelope samples per integration chunk (~32 s).
CHUNK = 1024
#: Seconds of envelope integration before t = 0, so the recording starts in steady state.
WARMUP_S = 4.0


def draw_patient(rng: np.random.Generator) -> dict:
    """A patient's fixed traits (JSON-serialisable)."""
    group = str(rng.choice(["child", "adult", "elderly"], p=[0.25, 0.55, 0.2]))
    age = {"child": rng.uniform(3, 16), "adult": rng.uniform(17, 65),
           "elderly": rng.uniform(65, 90)}[group]
    agef = {"child": 1.5, "adult": 1.0, "elderly": 0.85}[group]
    pdr = {"child": (7.5, 9.5), "adult": (9.0, 11.5), "elderly": (8.0, 10.0)}[group]
    lobe = str(rng.choice(list(seizures.FOCI), p=[0.5, 0.25, 0.1, 0.08, 0.07]))
    kinds = list(seizures.KINDS)
    kp = np.array([0.2, 0.2, 0.1, 0.1, 0.1, 0.12, 0.1, 0.08])
    if group == "child":
        kp[kinds.index("spike_wave")] *= 3
    primary = str(rng.choice(kinds, p=kp / kp.sum()))
    secondary = str(rng.choice(kinds, p=kp / kp.sum()))
    variant_p = {"mu": 0.35, "wicket": 0.2 if group != "child" else 0.05, "rmtd": 0.15,
                 "sreda": 0.2 if group == "elderly" else 0.03,
                 "14_6": 0.25 if group == "child" else 0.08, "bsss": 0.15}
    variants = [v for v, p in variant_p.items() if rng.random() < p]
    n_bad = int(rng.choice([0, 1, 2], p=[0.5, 0.35, 0.15]))
    bad = [str(e) for e in rng.choice(ELECTRODES, n_bad, replace=False)]
    return {
        "age_group": group,
        "age": round(float(age), 1),
        "node_seed": int(rng.integers(0, 2**31 - 1)),
        "lead_width": float(rng.uniform(0.27, 0.36)),
        "pdr_hz": float(rng.uniform(*pdr)),
        "delta_hz": float(rng.uniform(1.2, 2.5)),
        "theta_hz": float(rng.uniform(5.0, 6.5)),
        "spindle_hz": float(rng.uniform(11.5, 14.5)),
        "beta_hz": float(rng.uniform(17.0, 24.0)),
        "gain_uv": {
            "delta": float(rng.uniform(30, 50) * agef),
            "theta": float(rng.uniform(20, 32) * agef),
            "alpha": float(rng.uniform(30, 60) * agef),
            "sigma": float(rng.uniform(14, 24) * agef),
            "beta": float(rng.uniform(8, 14)),
            "variant": float(rng.uniform(25, 40) * agef),
        },
        "frontal_beta": float(rng.uniform(1.5, 3.0) if rng.random() < 0.15 else
                              rng.uniform(0.0, 0.6)),
        "aperiodic_uv": float(rng.uniform(8, 16) * agef),
        "aperiodic_beta": float(rng.uniform(1.0, 1.7)),
        "white_uv": float(rng.uniform(0.3, 1.0)),
        "sleepiness": float(rng.random()),
        "variants": variants,
        "focus": str(rng.choice(seizures.FOCI[lobe])),
        "seizure_kinds": [primary, secondary],
        "seizure_probs": [0.75, 0.25],
        "ictal_uv": float(rng.uniform(22, 40) * agef),
        "spike_rate": float(0.0 if rng.random() < 0.3 else rng.uniform(0.05, 2.0)),
        "mains_hz": float(rng.choice([50.0, 60.0])),
        "mains_uv": float(rng.uniform(0.3, 3.0)),
        "bad_electrodes": bad,
        "ecg_uv": float(0.0 if rng.random() < 0.3 else rng.uniform(2, 15)),
        "heart_bpm": float(rng.uniform(55, 95)),
        "artifact_level": float(np.exp(0.4 * rng.standard_normal())),
        "emg_level": float(rng.uniform(0.5, 2.0)),
        "patting_rate": float(rng.uniform(0.01, 0.05) if (group == "child" and rng.random() < 0.3)
                              or (group == "elderly" and rng.random() < 0.15) else 0.0),
    }


def render(patient: dict, duration_s: float, sfreq: float, seizures_req, rng) -> Rendered:
    """One recording (see :mod:`rt_eeg.xsim.base`).

    Parameters
    ----------
    patient : dict
        From :func:`draw_patient`.
    duration_s : float
    sfreq : float
    seizures_req : list of (start_s, stop_s)
    rng : numpy.random.Generator

    Returns
    -------
    Rendered
        ``eeg`` of shape (21, round(duration_s * sfreq)), float32, microvolts.
    """
    n = int(round(duration_s * sfreq))
    duration = float(duration_s)
    # Independent streams, so that (e.g.) asking for a seizure changes nothing before it.
    seeds = rng.integers(0, 2**63 - 1, size=6)
    r_state, r_burst, r_net, r_trans, r_art, r_sz = (np.random.default_rng(int(s)) for s in seeds)
    geo = geometry.build(patient["node_seed"], patient["lead_width"])
    detune = 0.25 * np.random.default_rng(patient["node_seed"] + 1).standard_normal((B, geo.n))
    detune[5:] = 0.0  # variant and ictal bands: one carrier for all nodes

    segs = states.draw_timeline(duration, patient, r_state)
    bursts = states.draw_bursts(segs, duration, patient, r_burst)
    plans = [seizures.plan(float(a), float(b), patient, geo, r_sz) for a, b in seizures_req]
    busy = [(p.start - 10.0, p.stop + p.post_s) for p in plans]
    bursts = [b for b in bursts if b.band != 5 or not any(
        b.t0 < hi and b.t0 + b.dur > lo for lo, hi in busy)]
    bg = states.Background(patient, geo, segs, bursts)
    net = Network(geo, detune, sfreq, patient["aperiodic_beta"], patient["white_uv"])
    up = net.up

    # Warm-up at the first state's operating point (outputs discarded).
    m = int(WARMUP_S * sfreq / up)
    net.integrate(bg.params(np.zeros(m + 1)), r_net)

    eeg = np.zeros((len(ELECTRODES), n), np.float32)
    n_env = -(-n // up)
    for j0 in range(0, n_env, CHUNK):
        j1 = min(j0 + CHUNK, n_env)
        t = np.arange(j0, j1 + 1) * up / sfreq
        p = bg.params(t)
        seizures.apply(p, t, plans)
        env = net.integrate(p, r_net)
        g = seizures.gate((j1 - j0) * up, j0 * up, sfreq, plans)
        x = net.synthesise(env, p, g, r_net)
        i1 = min(j1 * up, n)
        eeg[:, j0 * up:i1] = x[:, :i1 - j0 * up]

    quiet = [(p.start, p.stop) for p in plans]
    events = states.state_events(segs, duration)
    events += [(b.t0, b.t0 + b.dur, b.kind) for b in bursts]
    events += transients.add(eeg, sfreq, segs, duration, patient, r_trans, quiet)
    events += artifacts.add(eeg, sfreq, segs, duration, patient, r_art,
                            [w for p in plans for w in p.emg])
    np.nan_to_num(eeg, copy=False, nan=0.0, posinf=0.0, neginf=0.0)
    events = sorted((max(0.0, float(a)), min(float(b), duration), str(k)) for a, b, k in events)
    return Rendered(eeg=eeg, seizure_types=[p.kind for p in plans], events=events)
