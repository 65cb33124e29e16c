"""Vigilance states: a semi-Markov sequence within a recording and the per-state gains of
the background rhythms and of state-bound events (spindles, blinks, ...)."""

from __future__ import annotations

import numpy as np

STATES = ("awake_eo", "awake_ec", "drowsy", "n2", "n3", "rem")

#: Mean dwell (s) and next-state probabilities; arousals go back to an awake state.
_DWELL = {"awake_eo": 150.0, "awake_ec": 90.0, "drowsy": 100.0, "n2": 360.0, "n3": 420.0,
          "rem": 300.0}  # fmt: skip
_NEXT = {
    "awake_eo": {"awake_ec": 0.6, "drowsy": 0.4},
    "awake_ec": {"awake_eo": 0.5, "drowsy": 0.5},
    "drowsy": {"n2": 0.5, "awake_eo": 0.25, "awake_ec": 0.25},
    "n2": {"n3": 0.35, "rem": 0.15, "drowsy": 0.2, "awake_eo": 0.3},
    "n3": {"n2": 0.8, "awake_eo": 0.2},
    "rem": {"n2": 0.5, "awake_eo": 0.3, "drowsy": 0.2},
}

#: Component gains per state (relative; the patient's traits set the absolute level).
#: broad: 1/f background, delta 0.5-3 Hz, theta 4-7 Hz, alpha, beta (frontal), mu (central).
GAINS = {
    #           broad delta theta alpha beta  mu
    "awake_eo": (1.00, 0.30, 0.35, 0.30, 1.00, 1.0),
    "awake_ec": (0.95, 0.30, 0.35, 1.00, 0.90, 0.6),
    "drowsy":   (0.90, 0.55, 1.20, 0.35, 1.30, 0.2),
    "n2":       (1.10, 1.30, 0.80, 0.05, 0.60, 0.0),
    "n3":       (1.00, 3.20, 0.60, 0.00, 0.30, 0.0),
    "rem":      (0.80, 0.50, 1.00, 0.20, 0.70, 0.0),
}  # fmt: skip
COMPONENTS = ("broad", "delta", "theta", "alpha", "beta", "mu")

#: Event rates per minute per state: spindles, K-complexes, vertex waves, blinks,
#: lateral eye movements, slow rolling eye movements; and tonic EMG level (relative).
RATES = {
    #           spin  kc   vert  blink  lem  srem  emg
    "awake_eo": (0.0, 0.0, 0.0, 14.0, 6.0, 0.0, 1.0),
    "awake_ec": (0.0, 0.0, 0.0, 2.0, 0.5, 0.0, 0.8),
    "drowsy":   (0.0, 0.0, 2.5, 1.0, 0.0, 2.0, 0.5),
    "n2":       (5.0, 1.5, 1.0, 0.0, 0.0, 0.0, 0.3),
    "n3":       (1.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.25),
    "rem":      (0.0, 0.0, 0.0, 0.0, 8.0, 0.0, 0.1),
}  # fmt: skip
RATE_KEYS = ("spindle", "k_complex", "vertex_wave", "blink", "eye_movement", "slow_eye", "emg")


def sequence(duration: float, sleepiness: float, rng: np.random.Generator):
    """Vigilance segments covering ``[0, duration)``.

    Parameters
    ----------
    duration : float
        Seconds.
    sleepiness : float
        0..1; how readily the patient falls asleep (and where a recording may start).

    Returns
    -------
    list of (float, float, str)
        ``(start_s, stop_s, state)``, contiguous.
    """
    if rng.random() < 0.25 * sleepiness:
        state = str(rng.choice(["drowsy", "n2", "n3"], p=[0.3, 0.5, 0.2]))
    else:
        state = "awake_eo" if rng.random() < 0.6 else "awake_ec"
    out, t = [], 0.0
    while t < duration:
        dwell = _DWELL[state] * rng.lognormal(0.0, 0.5)
        dwell = max(20.0, dwell)
        stop = min(duration, t + dwell)
        out.append((t, stop, state))
        t = stop
        nxt = dict(_NEXT[state])
        if state.startswith("awake") and "drowsy" in nxt:
            nxt["drowsy"] *= 2.0 * sleepiness  # alert patients mostly stay awake
        keys = list(nxt)
        p = np.array([nxt[k] for k in keys])
        state = str(rng.choice(keys, p=p / p.sum()))
    return out


def per_second(segments, table: dict, duration: float, smooth_s: float = 6.0) -> np.ndarray:
    """A state table (state -> tuple) as a smooth time course on a 1 s grid.

    Returns
    -------
    ndarray, shape (n_values, n_seconds + 1)
        Values at seconds ``0, 1, ..., ceil(duration)``; transitions are ramps of about
        ``smooth_s`` seconds (states blend rather than switch).
    """
    n_sec = int(np.ceil(duration)) + 1
    k = len(next(iter(table.values())))
    v = np.empty((k, n_sec))
    for a, b, s in segments:
        v[:, int(a) : int(np.ceil(b)) + 1] = np.asarray(table[s])[:, None]
    w = max(1, int(smooth_s))
    ker = np.ones(w) / w
    pad = np.pad(v, ((0, 0), (w, w)), mode="edge")
    sm = np.stack([np.convolve(r, ker, mode="same") for r in pad])[:, w:-w]
    return sm


def to_samples(curve: np.ndarray, n: int, sfreq: float) -> np.ndarray:
    """A 1 s grid curve, shape ``(n_seconds,)``, interpolated to ``n`` samples (float32)."""
    t = np.arange(n, dtype=np.float64) / sfreq
    return np.interp(t, np.arange(curve.size, dtype=np.float64), curve).astype(np.float32)


def state_at(segments, t: float) -> str:
    """The state at time ``t`` (s)."""
    for a, b, s in segments:
        if a <= t < b:
            return s
    return segments[-1][2]
