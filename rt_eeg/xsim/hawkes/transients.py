"""Brief cerebral transients that are not seizures: sleep graphoelements (spindles,
K-complexes, vertex waves), interictal spikes at the focus, and benign seizure-like variants
(rhythmic mid-temporal theta of drowsiness, wicket runs, hypnagogic hypersynchrony).

In the Hawkes picture these are transient excursions of a patch group's loop gain (spindles:
thalamic drive ringing the 12-14 Hz loop; K-complexes and vertex waves: a brief collapse
of excitatory rate, a down state; interictal spikes: a single saturated cascade) that stay
brief and non-evolving. Each is a waveform times the scalp pattern of its patches.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.hawkes.ictal import _vm
from rt_eeg.xsim.hawkes.leadfield import nearest_patches, pattern

#: Rates (per minute) by state; ``None``: taken from the patient (per hour of the states).
RATES = {
    "spindle": {"n2": 4.0, "n3": 1.5},
    "k_complex": {"n2": 1.2, "n3": 0.3},
    "vertex_wave": {"n1": 3.0, "n2": 0.8},
    "interictal_spike": {"awake_eo": 1.0, "awake_ec": 1.0, "drowsy": 1.5, "n1": 2.0,
                         "n2": 2.0, "n3": 2.0, "rem": 0.5},
    "rmtd": {"drowsy": 1.0, "n1": 0.5},
    "wicket": {"awake_ec": 0.5, "drowsy": 1.0, "n1": 0.8},
    "hypnagogic_hypersynchrony": {"drowsy": 1.0, "n1": 1.0},
}  # fmt: skip
_PATIENT_RATE = {"interictal_spike": "ii_spike_per_min", "rmtd": "rmtd_per_h",
                 "wicket": "wicket_per_h", "hypnagogic_hypersynchrony": "hypnagogic_per_h"}  # fmt: skip


def _rate(kind: str, state: str, pt: dict) -> float:
    r = RATES[kind].get(state, 0.0)
    key = _PATIENT_RATE.get(kind)
    if key is None:
        return r
    return r * float(pt[key]) / (1.0 if kind == "interictal_spike" else 60.0)


def _shape(kind: str, pt: dict, sfreq: float, rng, xyz, lf):
    u = rng.uniform
    scale = float(pt["amplitude_uv"]) / 22.0
    side = rng.choice([-1.0, 1.0])
    if kind == "spindle":
        d, f = u(0.5, 2.0), pt["spindle_hz"] + u(-0.5, 0.5)
        t = np.arange(int(d * sfreq)) / sfreq
        w = np.sin(2 * np.pi * f * t) * np.sin(np.pi * t / d) ** 2 * u(15.0, 45.0) * scale
        centre, rad = (0.0, 0.0, 1.0), 0.6
    elif kind in ("k_complex", "vertex_wave"):
        kc = kind == "k_complex"
        d = u(0.6, 1.2) if kc else u(0.25, 0.4)
        t = np.arange(int(d * sfreq)) / sfreq
        s1, s2 = (0.1, 0.22) if kc else (0.035, 0.06)
        t1 = 0.25 * d
        w = (-np.exp(-0.5 * ((t - t1) / s1) ** 2)
             + 0.55 * np.exp(-0.5 * ((t - t1 - 2.2 * s1 - s2) / s2) ** 2))  # fmt: skip
        w *= (u(70.0, 200.0) if kc else u(40.0, 120.0)) * scale
        centre, rad = ((0.45, 0.0, 0.9) if kc else (0.0, 0.0, 1.0)), (0.8 if kc else 0.35)
    elif kind == "interictal_spike":
        d = u(0.3, 0.45)
        t = np.arange(int(d * sfreq)) / sfreq
        sw = u(0.012, 0.025)
        w = -np.exp(-0.5 * ((t - 0.06) / sw) ** 2) - 0.45 * np.exp(-0.5 * ((t - 0.2) / 0.05)
                                                                    ** 2)  # fmt: skip
        w *= u(50.0, 150.0) * scale
        centre, rad = pt["focus"], u(0.15, 0.35)
    elif kind in ("rmtd", "wicket"):
        rm = kind == "rmtd"
        d = u(4.0, 10.0) if rm else u(0.5, 2.5)
        f = u(5.0, 7.0) if rm else u(6.0, 11.0)
        t = np.arange(int(d * sfreq)) / sfreq
        x = f * t
        if rm:  # notched, sharp-contoured theta: fundamental plus a locked harmonic
            w = np.sin(2 * np.pi * x) + 0.35 * np.sin(4 * np.pi * x + 1.2)
            env = 0.6 + 0.4 * np.sin(2 * np.pi * t / u(1.5, 3.0)) ** 2
        else:  # arciform: sharp negative, rounded positive
            w, env = -_vm(x, 2.5), np.ones_like(t)
        w *= env * np.sin(np.pi * t / d) ** 0.5 * u(35.0, 80.0) * scale
        centre, rad = (0.1, 0.95 * side, -0.1), 0.35
    else:  # hypnagogic hypersynchrony: generalised rhythmic 3-5 Hz
        d, f = u(1.0, 5.0), u(3.0, 5.0)
        t = np.arange(int(d * sfreq)) / sfreq
        w = np.sin(2 * np.pi * f * t) * np.sin(np.pi * t / d) * u(60.0, 160.0) * scale
        centre, rad = (0.3, 0.0, 0.95), 1.3
    idx, th = nearest_patches(xyz, centre, rad)
    pat = pattern(lf, idx, np.exp(-0.5 * (th / max(rad, 0.2)) ** 2))
    return d, pat, w


def draw_transients(segs, duration: float, pt: dict, sfreq: float, xyz, lf, seizures, rng):
    """Transients over the state timeline, none within 5 s of a seizure.

    Returns
    -------
    pieces : list of (i0, pattern (21,), waveform)
    events : list of (start_s, stop_s, kind)
    """
    pieces, events = [], []
    for a, b, s in segs:
        for kind in RATES:
            rate = _rate(kind, s, pt)
            k = int(rng.poisson(rate * (b - a) / 60.0)) if rate > 0 else 0
            for t0 in np.sort(rng.uniform(a, b, k)):
                d, pat, w = _shape(kind, pt, sfreq, rng, xyz, lf)
                t0, t1 = float(t0), float(t0) + w.size / sfreq
                if t1 > duration or any(t0 < sb + 5.0 and t1 > sa - 5.0 for sa, sb in seizures):
                    continue
                pieces.append((int(round(t0 * sfreq)), pat, w))
                events.append((round(t0, 3), round(t1, 3), kind))
    return pieces, events
