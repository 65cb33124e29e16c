"""Vigilance states over a recording and the per-state weights the atom processes read.

States change over minutes (awake eyes open / eyes closed, drowsiness, N2, N3, REM); every
atom process has a rate or amplitude per state, and :meth:`Timeline.mix` gives their weighted
value at any time, so that transitions are gradual (a second or so between eyes open and
closed, several seconds between sleep stages).
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter1d

STATES = ("wake_eo", "wake_ec", "drowsy", "n2", "n3", "rem")
EO, EC, DROWSY, N2, N3, REM = range(6)

#: Dwell times (s): log-uniform between the two values.
_DWELL = {
    EO: (8.0, 60.0), EC: (15.0, 120.0), DROWSY: (20.0, 240.0),
    N2: (60.0, 900.0), N3: (60.0, 900.0), REM: (120.0, 900.0),
}  # fmt: skip

_RES = 0.25  # s per weight bin


def _next_state(s: int, sleepy: float, awake_bias: float, rng) -> int:
    """One Markov step; ``sleepy`` (0-1) favours falling asleep, ``awake_bias`` (0-1)
    the routine-EEG alternation of eyes open and closed."""
    p = np.zeros(6)
    if s == EO:
        p[EC], p[DROWSY] = 0.4 + awake_bias, 0.5 * sleepy
    elif s == EC:
        p[EO], p[DROWSY] = 0.4 + awake_bias, 0.8 * sleepy
    elif s == DROWSY:
        p[EO], p[EC], p[N2] = 0.3, 0.2, 1.2 * sleepy
    elif s == N2:
        p[DROWSY], p[N3], p[REM], p[EO] = 0.2, 0.6 * sleepy, 0.25, 0.15
    elif s == N3:
        p[N2], p[EO] = 1.0, 0.1
    else:
        p[N2], p[EO], p[DROWSY] = 0.6, 0.25, 0.2
    return int(rng.choice(6, p=p / p.sum()))


class Timeline:
    """The state sequence of one recording.

    Parameters
    ----------
    duration : float
        Seconds.
    patient : dict
        Uses ``setting`` and ``sleepiness``.
    rng : numpy.random.Generator
    """

    def __init__(self, duration: float, patient: dict, rng):
        self.duration = float(duration)
        setting = patient["setting"]
        sleepy = float(np.clip(patient["sleepiness"] * rng.uniform(0.5, 1.5), 0.02, 1.0))
        awake_bias = {"routine": 0.8, "emu": 0.2, "icu": 0.0}[setting]
        if setting == "icu":
            first = rng.choice([EO, DROWSY, N2], p=[0.35, 0.45, 0.2])
        elif setting == "emu":
            first = rng.choice([EO, EC, DROWSY, N2, N3], p=[0.3, 0.2, 0.2, 0.2, 0.1])
        else:
            first = rng.choice([EO, EC], p=[0.4, 0.6])
        segs: list[tuple[float, float, int]] = []
        t, s = 0.0, int(first)
        while t < self.duration:
            lo, hi = _DWELL[s]
            d = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
            if setting == "icu" and s in (EO, EC):
                d *= 0.5
            segs.append((t, min(t + d, self.duration), s))
            t += d
            s = _next_state(s, sleepy, awake_bias, rng)
        self.segments = segs
        nb = int(np.ceil(self.duration / _RES)) + 1
        onehot = np.zeros((6, nb))
        for a, b, st in segs:
            onehot[st, int(a / _RES) : int(np.ceil(b / _RES)) + 1] = 1.0
        # eyes open/closed switch within a second, sleep stages drift over ~10 s
        wake = gaussian_filter1d(onehot[:2], 0.6 / _RES, axis=1, mode="nearest")
        sleep = gaussian_filter1d(onehot[2:], 6.0 / _RES, axis=1, mode="nearest")
        w = np.vstack([wake, sleep])
        self.w = w / np.maximum(w.sum(0, keepdims=True), 1e-9)

    def weights(self, t) -> np.ndarray:
        """State weights at times ``t`` (s), shape (6, len(t)), columns summing to one."""
        i = np.clip(np.asarray(t, dtype=np.float64) / _RES, 0, self.w.shape[1] - 1)
        return self.w[:, np.round(i).astype(int)]

    def mix(self, t, per_state) -> np.ndarray:
        """``sum_s weight_s(t) * per_state[s]`` at times ``t``."""
        return np.asarray(per_state, dtype=np.float64) @ self.weights(t)

    def events(self) -> list[tuple[float, float, str]]:
        """The state segments as events ``(start, stop, 'state_<name>')``."""
        out: list[tuple[float, float, str]] = []
        for a, b, s in self.segments:
            if out and out[-1][2] == f"state_{STATES[s]}":
                out[-1] = (out[-1][0], b, out[-1][2])
            else:
                out.append((a, b, f"state_{STATES[s]}"))
        return out

    def transitions(self, a: int, b: int) -> list[float]:
        """Times where state ``a`` is followed by state ``b``."""
        segs = self.segments
        return [s1[0] for s0, s1 in zip(segs, segs[1:], strict=False) if s0[2] == a and s1[2] == b]


def poisson_times(
    tl: Timeline, rate_per_state, rng, *, t0: float = 0.0, t1=None, scale: float = 1.0
) -> np.ndarray:
    """Event times of an inhomogeneous Poisson process whose rate (per s) follows the state.

    Parameters
    ----------
    tl : Timeline
    rate_per_state : sequence of 6 floats
        Rate (events per second) in each state.
    rng : numpy.random.Generator
    t0, t1 : float
        Interval (default the whole recording).
    scale : float
        Multiplies every rate.
    """
    t1 = tl.duration if t1 is None else t1
    if t1 <= t0:
        return np.empty(0)
    edges = np.arange(t0, t1, _RES)
    rate = np.maximum(tl.mix(edges + 0.5 * _RES, rate_per_state) * scale, 0.0)
    widths = np.minimum(edges + _RES, t1) - edges
    counts = rng.poisson(rate * widths)
    starts = np.repeat(edges, counts)
    return np.sort(starts + rng.random(len(starts)) * np.repeat(widths, counts))
