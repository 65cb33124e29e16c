"""Brief non-oscillatory waveforms added on the scalp: sleep transients and interictal spikes.

Vertex waves and K-complexes (drowsiness, N2), positive occipital sharp transients of sleep,
benign small sharp spikes, and the patient's interictal spikes at the seizure focus (single,
or a short run of a few, never long enough to be a seizure). Each is a waveform in time
times a smooth scalp topography (:func:`geometry.topography`).
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.hopf.geometry import electrode_point, topography
from rt_eeg.xsim.hopf.states import STATES


def _g(t: np.ndarray, c: float, w: float) -> np.ndarray:
    return np.exp(-(((t - c) / w) ** 2))


def vertex_wave(t):
    return -_g(t, 0.0, 0.05) + 0.35 * _g(t, 0.12, 0.07)


def k_complex(t):
    return -0.7 * _g(t, 0.0, 0.1) + _g(t, 0.42, 0.2) - 0.25 * _g(t, 0.9, 0.3)


def posts(t):
    return _g(t, 0.0, 0.05) - 0.25 * _g(t, 0.1, 0.06)


def small_spike(t):
    return -_g(t, 0.0, 0.012) + 0.4 * _g(t, 0.025, 0.015)


def spike_wave(t):
    return -_g(t, 0.0, 0.018) + 0.35 * _g(t, 0.04, 0.02) - 0.45 * _g(t, 0.2, 0.09)


#: kind: (waveform, support s, states, rate per minute, amplitude range uV, centres, width)
KINDS = {
    "vertex_wave": (vertex_wave, (-0.2, 0.4), ("n1", "n2"), 2.0, (50, 130), ("CZ",), 0.35),
    "k_complex": (k_complex, (-0.4, 1.5), ("n2",), 1.5, (80, 220), ("FZ", "CZ"), 0.55),
    "posts": (posts, (-0.2, 0.3), ("n2", "n3"), 3.0, (20, 50), ("O1", "O2"), 0.4),
    "bsss": (small_spike, (-0.1, 0.15), ("n1", "n2"), 0.5, (20, 45), ("T3", "T4", "T5"), 0.3),
}


def add(x: np.ndarray, sfreq: float, segs, duration: float, patient: dict,
        rng: np.random.Generator, quiet: list[tuple[float, float]]):
    """Draw transients and add them to ``x`` (shape (21, n_samples), microvolts), in place.

    ``quiet`` are intervals (the seizures) in which no transient is put.

    Returns
    -------
    list of (start_s, stop_s, kind)
    """
    n = x.shape[1]
    bounds = [sg[0] for sg in segs[1:]] + [duration]
    todo = []  # (time, waveform, support, topography, amplitude, kind)
    focus = electrode_point(patient["focus"])
    spike_topo = topography(focus, 0.3)
    for (t0, st, _), t1 in zip(segs, bounds, strict=True):
        t0, t1 = max(t0, 0.0), min(t1, duration)
        if t1 <= t0:
            continue
        name, span = STATES[st], (t1 - t0) / 60.0
        for kind, (fn, sup, states, rate, (lo, hi), cents, width) in KINDS.items():
            if name not in states or (kind == "bsss" and "bsss" not in patient["variants"]):
                continue
            for tt in rng.uniform(t0, t1, rng.poisson(rate * span)):
                topo = topography(electrode_point(str(rng.choice(list(cents)))), width)
                todo.append((tt, fn, sup, topo, rng.uniform(lo, hi), kind))
        # Interictal epileptiform discharges: more in sleep.
        srate = patient["spike_rate"] * (2.5 if name in ("n2", "n3") else 1.0)
        for tt in rng.uniform(t0, t1, rng.poisson(srate * span)):
            amp = rng.uniform(60, 180)
            reps = int(rng.integers(3, 7)) if rng.random() < 0.1 else 1
            period = rng.uniform(0.33, 0.5)
            for r in range(reps):
                todo.append((tt + r * period, spike_wave, (-0.1, 0.5), spike_topo,
                             amp * rng.uniform(0.8, 1.1), "spike_run" if reps > 1 else "spike"))
    events = []
    for tt, fn, (s0, s1), topo, amp, kind in sorted(todo, key=lambda e: e[0]):
        if any(a - 1.0 <= tt <= b + 1.0 for a, b in quiet):
            continue
        i0, i1 = int((tt + s0) * sfreq), int((tt + s1) * sfreq)
        if i0 < 0 or i1 > n:
            continue
        wav = amp * fn(np.arange(i0, i1) / sfreq - tt)
        x[:, i0:i1] += (topo[:, None] * wav[None, :]).astype(np.float32)
        if events and events[-1][2] == kind == "spike_run" and tt - events[-1][1] < 0.6:
            events[-1] = (events[-1][0], float(tt + s1), kind)
        else:
            events.append((float(tt + s0), float(tt + s1), kind))
    return events
