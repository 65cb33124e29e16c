"""Vigilance over minutes: a semi-Markov chain of sleep-wake states plus eye opening.

The chain yields hard segments (for the event log) and smooth state weights on the coarse
grid (:data:`signals.DT`), which scale every background component, so that transitions take
seconds to tens of seconds as in real recordings.
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import uniform_filter1d

from .signals import DT, ou

W, D, N2, N3, R = range(5)
NAMES = ("W", "D", "N2", "N3", "R")


def _segments(rng, model: dict, duration: float) -> list[list]:
    """Hard state segments [t0, t1, state] from the semi-Markov model."""
    trans = np.asarray(model["trans"])
    dwell = np.asarray(model["dwell_s"])
    state = int(rng.choice(5, p=np.asarray(model["start"]) / np.sum(model["start"])))
    t, segs = None, []
    while t is None or t < duration:
        d = rng.gamma(2.0, dwell[state] / 2.0) + 10.0
        if t is None:  # the recording starts part-way through the first episode
            t = -rng.uniform(0, d - 5.0)
        segs.append([max(t, 0.0), min(t + d, duration), state])
        t += d
        row = trans[state]
        state = int(rng.choice(5, p=row / row.sum()))
    return [s for s in segs if s[1] > s[0]]


def _insert(segs: list[list], t0: float, t1: float, state: int) -> list[list]:
    """Overwrite [t0, t1) with ``state`` in a segment list."""
    out = []
    for a, b, s in segs:
        if b <= t0 or a >= t1:
            out.append([a, b, s])
            continue
        if a < t0:
            out.append([a, t0, s])
        if b > t1:
            out.append([t1, b, s])
    out.append([t0, t1, state])
    return sorted(out, key=lambda x: x[0])


def timeline(rng, patient: dict, duration: float, seizures, forced) -> dict:
    """Coarse-grid vigilance description of one recording.

    Parameters
    ----------
    forced : list of (t0, t1, state)
        Windows whose state is imposed (procedures done awake, post-ictal obtundation).

    Returns
    -------
    dict with ``weights`` (5, n_c) summing to 1, ``eyes_open`` (n_c,), ``alpha_drowsy``
    (n_c,) alpha intermittency in drowsiness, ``segments`` and ``eye_changes`` (times, 1 for
    opening, 0 for closing).
    """
    model = patient["state"]
    n_c = int(np.ceil(duration / DT)) + 2
    segs = _segments(rng, model, duration)
    # Brief arousals out of sleep (a few seconds awake, usually with movement and EMG).
    n_ar = rng.poisson(model["arousal_per_h"] * duration / 3600.0)
    for t in np.sort(rng.uniform(0, duration, n_ar)):
        st = next((s for a, b, s in segs if a <= t < b), W)
        if st in (N2, N3, R):
            segs = _insert(segs, t, min(t + rng.uniform(3, 15), duration), W)
    for t0, t1, st in forced:
        segs = _insert(segs, max(t0, 0.0), min(t1, duration), st)
    idx = np.zeros(n_c, int)
    for a, b, s in segs:
        idx[int(a / DT) : int(np.ceil(b / DT)) + 1] = s
    onehot = np.zeros((5, n_c))
    onehot[idx, np.arange(n_c)] = 1.0
    # Two passes of a 3 s box filter: triangular transitions of ~6 s.
    weights = uniform_filter1d(
        uniform_filter1d(onehot, 24, axis=1, mode="nearest"), 24, axis=1, mode="nearest"
    )
    weights /= weights.sum(axis=0, keepdims=True)

    # Eyes open/closed while awake: alternating gamma-distributed dwell times.
    frac = model["eyes_open_frac"]
    mean_open = model["eyes_dwell_s"] * frac / 0.5
    mean_closed = model["eyes_dwell_s"] * (1 - frac) / 0.5
    eyes = np.zeros(n_c)
    changes = []
    t, is_open = 0.0, rng.uniform() < frac
    while t < duration:
        d = rng.gamma(1.5, (mean_open if is_open else mean_closed) / 1.5) + 2.0
        i0, i1 = int(t / DT), int(min(t + d, duration) / DT) + 1
        eyes[i0:i1] = 1.0 if is_open else 0.0
        t += d
        is_open = not is_open
        if t < duration:
            changes.append((t, 1 if is_open else 0))
    for t0, t1, _ in forced:  # procedures are done with the eyes closed
        eyes[int(max(t0, 0) / DT) : int(min(t1, duration) / DT) + 1] = 0.0
    eyes = uniform_filter1d(eyes, 3, mode="nearest") * weights[W]
    awake_at = weights[W][
        np.clip((np.asarray([c[0] for c in changes]) / DT).astype(int), 0, n_c - 1)
    ]
    changes = [c for c, aw in zip(changes, awake_at, strict=True) if aw > 0.7]

    # Drowsy alpha comes and goes in fragments of seconds.
    alpha_drowsy = 1.0 / (1.0 + np.exp(-(1.6 * ou(rng, n_c, DT, 4.0) - 0.3)))
    return {
        "weights": weights.astype(np.float32),
        "eyes_open": eyes.astype(np.float32),
        "alpha_drowsy": alpha_drowsy.astype(np.float32),
        "segments": segs,
        "eye_changes": changes,
        "n_c": n_c,
    }
