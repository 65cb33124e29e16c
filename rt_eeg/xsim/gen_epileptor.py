"""Network Epileptor generator: seizures from a connectome of 6-D Epileptors whose slow
permittivity variable is swept through the onset and offset bifurcations at the planner's
times, over a spectral interictal background with vigilance states, benign variants and
artifacts, all projected to the 21 electrodes by a radial-dipole lead field.

The bulk lives in :mod:`rt_eeg.xsim.epileptor`.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import Rendered
from rt_eeg.xsim.epileptor import artifacts, background, geometry, seizures
from rt_eeg.xsim.epileptor import states as st

NAME = "epileptor"
DESCRIPTION = (
    "Network Epileptor (Jirsa 2014) seizures on a distance-dependent connectome of cortical "
    "nodes, spectral state-dependent background, variants and artifacts, dipole lead field"
)


def _geometry(p: dict) -> dict:
    """The patient's head: nodes, lead field, connectome, regions (from its layout seed)."""
    rng = np.random.default_rng(p["layout_seed"])
    nodes = geometry.node_positions(rng, p["n_nodes"])
    depth = np.clip(rng.normal(p["depth"], 0.04, nodes.shape[0]), 0.55, 0.85)
    w = geometry.connectome(nodes, rng, p["conn_length"])
    return {
        "nodes": nodes,
        "depth": depth,
        "L": geometry.lead_field(nodes, depth),
        "W": w,
        "D": geometry.graph_distance(w),
        "regions": geometry.region_weights(nodes),
    }


def draw_patient(rng: np.random.Generator) -> dict:
    """A patient's fixed traits (JSON-serialisable)."""
    age = str(rng.choice(["child", "adult", "elderly"], p=[0.25, 0.55, 0.2]))
    p: dict = {
        "age": age,
        "n_nodes": int(rng.integers(18, 33)),
        "layout_seed": int(rng.integers(2**31 - 1)),
        "depth": float(rng.uniform(0.62, 0.74)),
        "conn_length": float(rng.uniform(0.25, 0.5)),
        "mains_hz": int(rng.choice([50, 60])),
        "sleepiness": float(rng.uniform(0.1, 1.0)),
        "slope": float(rng.uniform(1.6, 2.6)),
        "bg_uv": float(rng.uniform(8.0, 15.0) * (1.4 if age == "child" else 1.0)),
        "alpha_hz": float(
            {
                "child": rng.uniform(7.8, 9.5),
                "adult": rng.uniform(9.0, 11.5),
                "elderly": rng.uniform(8.0, 9.8),
            }[age]
        ),  # fmt: skip
        "alpha_uv": float(rng.uniform(6.0, 16.0) * (1.4 if age == "child" else 1.0)),
        "theta_hz": float(rng.uniform(4.5, 6.8)),
        "theta_uv": float(rng.uniform(4.0, 9.0)),
        "delta_uv": float(rng.uniform(9.0, 18.0) * (1.4 if age == "child" else 1.0)),
        "beta_uv": float(rng.uniform(1.5, 4.0) * (3.0 if rng.random() < 0.2 else 1.0)),
        "mu_uv": float(rng.uniform(5.0, 10.0) if rng.random() < 0.3 else 0.0),
        "mu_hz": float(rng.uniform(9.0, 11.0)),
        "spindle_hz": float(rng.uniform(12.0, 14.2)),
        "spindle_uv": float(rng.uniform(15.0, 35.0)),
        "ied_per_min": float(0.0 if rng.random() < 0.4 else rng.lognormal(np.log(0.4), 0.8)),
        "ictal_uv": float(rng.uniform(35.0, 75.0)),
        "type_p": [float(x) for x in rng.dirichlet(np.full(len(seizures.TYPES), 0.6))],
        "k_z": float(rng.uniform(0.1, 0.3)),
        "k_2": float(rng.uniform(0.0, 0.08)),
    }
    variants = {}
    for name, prob in (("wicket", 0.15 if age != "child" else 0.02), ("rmtd", 0.12),
                       ("sreda", 0.12 if age == "elderly" else 0.01), ("posts", 0.4)):  # fmt: skip
        if rng.random() < prob:
            variants[name] = float(rng.uniform(0.5, 2.0))
    p["variants"] = variants
    p["artifacts"] = {
        "blink": float(rng.uniform(0.5, 1.5)),
        "eye": float(rng.uniform(0.5, 1.5)),
        "emg": float(rng.lognormal(np.log(2.5), 0.5)),
        "chewing": float(0.0 if rng.random() < 0.6 else rng.uniform(0.03, 0.3)),
        "pop": float(rng.lognormal(np.log(0.1), 0.8)),
        "drift": float(rng.uniform(0.0, 0.05)),
        "sweat": float(0.0 if rng.random() < 0.6 else rng.uniform(0.005, 0.03)),
        "tremor": float(0.0 if rng.random() < 0.8 else rng.uniform(0.03, 0.2)),
        "ecg_uv": float(rng.uniform(1.0, 10.0)),
        "hr_bpm": float(rng.uniform(55.0, 100.0) * (1.3 if age == "child" else 1.0)),
        "mains_uv": float(rng.lognormal(np.log(2.0), 0.8)),
        "heavy_per_h": float(rng.uniform(0.0, 3.0)),
    }
    # The epileptogenic zone: mostly temporal, else frontal, else anywhere.
    geo = _geometry(p)
    r = geo["regions"]
    lobe = str(rng.choice(["temporal", "frontal", "any"], p=[0.55, 0.25, 0.2]))
    if lobe == "temporal":
        score = r["temporal_l"] if rng.random() < 0.5 else r["temporal_r"]
    elif lobe == "frontal":
        score = r["frontal"] * (1.0 + 0.5 * np.sign(geo["nodes"][:, 1]) * rng.choice([-1, 1]))
    else:
        score = rng.random(p["n_nodes"])
    p["ez"] = int(np.argmax(score))
    return p


def render(patient: dict, duration_s: float, sfreq: float, seizures_, rng) -> Rendered:
    """One recording (see :mod:`rt_eeg.xsim.base`)."""
    p = patient
    n = int(round(duration_s * sfreq))
    dur = n / sfreq
    geo = _geometry(p)
    events: list[tuple[float, float, str]] = []
    segs = st.sequence(dur, p["sleepiness"], rng)
    events += [(round(a, 3), round(b, 3), f"state_{s}") for a, b, s in segs]
    eeg = background.rhythms(p, geo, segs, n, sfreq, rng)
    eeg += background.transients(p, geo, segs, n, sfreq, rng, events)
    sz = [(float(a), float(b)) for a, b in seizures_]
    ictal, types, plans = seizures.render(p, geo, sz, n, sfreq, rng, events)
    post, gain = seizures.postictal(p, geo, plans, n, sfreq, rng)
    eeg *= gain
    eeg += ictal
    del ictal
    eeg += post
    del post
    n_heavy = int(rng.poisson(p["artifacts"]["heavy_per_h"] * dur / 3600.0))
    heavy = []
    for _ in range(n_heavy):
        d = rng.uniform(30.0, 180.0)
        lo = rng.uniform(0.0, max(0.0, dur - d))
        heavy.append((lo, min(dur, lo + d)))
    eeg += artifacts.render(p, segs, n, sfreq, rng, events, heavy)
    eeg = np.nan_to_num(eeg, nan=0.0, posinf=0.0, neginf=0.0).astype(np.float32, copy=False)
    events.sort()
    return Rendered(eeg=eeg, seizure_types=types, events=events)
