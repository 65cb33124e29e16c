"""The hidden vigilance state machine of the tide generator.

A semi-Markov chain over awake (eyes open / closed), drowsy, N2, N3, REM and postictal
states, with log-normal dwell times, brief arousals inside sleep and abrupt awakenings.
Each state sets targets for a vector of control features (rhythm gains, alpha frequency
offset, event rates); the features approach their targets with a state-change time
constant (seconds for falling asleep, a fraction of a second for awakenings and eye
opening), on a 0.25 s control grid that the renderers interpolate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rt_eeg.xsim.tide.core import smooth_noise

STATES = ("awake_eo", "awake_ec", "drowsy", "n2", "n3", "rem", "postictal")
FEATURES = (
    "alpha", "alpha_df", "beta", "theta", "delta", "emg", "blink", "saccade", "sem",
    "spindle", "kc", "vertex", "posts", "rem_eye", "mu", "drowsy",
)  # fmt: skip
#: Target of each feature in each state (rows: STATES, columns: FEATURES). Gains are
#: relative to the patient's amplitudes; rates are events per second.
TARGET = np.array([
    # alp  adf   bet  the  del  emg  blk  sac  sem  spi  kc   vx   pst  rem  mu   drw
    [.25, .20, 1.0, .10, .04, 1.0, .30, .50, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
    [1.0, 0.0, .80, .15, .05, .60, .05, .02, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, .80, 0.0],
    [.35, -.8, .90, .80, .15, .35, .03, 0.0, 1.0, 0.0, 0.0, .12, .05, 0.0, .30, 1.0],
    [.05, -1.2, .50, .90, .45, .20, 0.0, 0.0, .15, .12, .03, .06, .15, 0.0, 0.0, .60],
    [0.0, -1.5, .30, .60, 1.0, .15, 0.0, 0.0, 0.0, .04, .01, .01, .02, 0.0, 0.0, .10],
    [.15, -1.0, .70, .60, .15, .02, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, .30, 0.0, .20],
    [.05, -2.0, .30, .90, .90, .40, .05, .05, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, .30],
])  # fmt: skip
#: Median dwell time of each state, seconds.
DWELL = np.array([45.0, 25.0, 60.0, 240.0, 300.0, 400.0, 120.0])
DT = 0.25
_SLEEP = (3, 4, 5)
_AWAKE = (0, 1)


def _transitions(sigma: float) -> np.ndarray:
    """Row-stochastic transition matrix for a sleep drive ``sigma`` in [0, 1]."""
    s = sigma
    p = np.array([
        [0.0, 0.6, 0.05 + 0.4 * s, 0, 0, 0, 0],
        [0.2 + 0.6 * (1 - s), 0.0, 0.05 + 0.8 * s, 0, 0, 0, 0],
        [0.1 + 0.3 * (1 - s), 0.2, 0.0, 0.02 + 0.7 * s, 0, 0, 0],
        [0.03 + 0.12 * (1 - s), 0.05, 0.15, 0.0, 0.35 * s + 0.02, 0.12 * s, 0],
        [0.1, 0.0, 0.0, 0.85, 0.0, 0.0, 0],
        [0.25, 0.15, 0.0, 0.6, 0.0, 0.0, 0],
        [0.3, 0.2, 0.5, 0.0, 0.0, 0.0, 0],
    ])  # fmt: skip
    return p / p.sum(axis=1, keepdims=True)


@dataclass
class Vigilance:
    """The drawn state path and its control features.

    Attributes
    ----------
    state : ndarray of int, shape (m,)
        Index into :data:`STATES` per control tick of :data:`DT` seconds.
    ctl : ndarray, shape (m, len(FEATURES))
        Smoothed control features per tick.
    awakenings : list of float
        Times of abrupt awakenings from sleep (s).
    arousals : list of (float, float)
        Brief arousals inside sleep (s).
    eye_closures, eye_openings : list of float
        Times the eyes closed / opened while awake (s).
    """

    state: np.ndarray
    ctl: np.ndarray
    awakenings: list = field(default_factory=list)
    arousals: list = field(default_factory=list)
    eye_closures: list = field(default_factory=list)
    eye_openings: list = field(default_factory=list)

    def tick(self, name: str) -> np.ndarray:
        """Feature ``name`` per control tick, shape (m,)."""
        return self.ctl[:, FEATURES.index(name)]

    def at(self, name: str, n: int, fs: float) -> np.ndarray:
        """Feature ``name`` interpolated to ``n`` samples at ``fs``, shape (n,)."""
        tt = (np.arange(self.ctl.shape[0]) + 0.5) * DT
        return np.interp(np.arange(n) / fs, tt, self.tick(name))

    def fraction(self, states: tuple[str, ...]) -> float:
        """Share of ticks spent in ``states``."""
        idx = [STATES.index(s) for s in states]
        return float(np.isin(self.state, idx).mean()) if self.state.size else 0.0


def _segments(duration: float, sigma: float, rng) -> list[tuple[float, float, int]]:
    """Natural (seizure-free) state segments ``(start, stop, state)`` covering the
    recording, with brief arousals spliced into sleep."""
    trans = _transitions(sigma)
    r = rng.random()
    if r < 0.45 + 0.3 * (1 - sigma):
        s = 0
    elif r < 0.75:
        s = int(rng.choice([1, 2]))
    else:
        s = int(rng.choice([3, 4], p=[0.75, 0.25]))
    segs: list[tuple[float, float, int]] = []
    t = 0.0
    while t < duration:
        d = float(DWELL[s] * rng.lognormal(0.0, 0.7))
        d = max(d, 3.0)
        stop = min(duration, t + d)
        if s in _SLEEP and stop - t > 60 and rng.random() < 0.5:
            # a brief arousal: alpha and EMG for a few seconds, then back to sleep
            a = t + float(rng.uniform(20, stop - t - 20)) if stop - t > 40 else t
            la = float(rng.uniform(3.0, 15.0))
            if a > t and a + la < stop:
                segs += [(t, a, s), (a, a + la, int(rng.choice([1, 0], p=[0.7, 0.3]))),
                         (a + la, stop, s)]  # fmt: skip
                t = stop
                s = int(rng.choice(len(STATES), p=trans[s]))
                continue
        segs.append((t, stop, s))
        t = stop
        s = int(rng.choice(len(STATES), p=trans[s]))
    return segs


def simulate(duration: float, seizures, post_s, sleepiness: float, rng) -> Vigilance:
    """Draw a recording's state path.

    Parameters
    ----------
    duration : float
        Seconds.
    seizures : list of (float, float)
    post_s : list of float
        Postictal duration after each seizure (0: none, e.g. after an absence).
    sleepiness : float
        The patient's propensity to sleep during a recording, in [0, 1].
    rng : numpy.random.Generator

    Returns
    -------
    Vigilance
    """
    m = max(1, int(np.ceil(duration / DT)))
    sigma = float(np.clip(sleepiness + 0.25 * rng.standard_normal()
                          + 0.15 * np.log10(max(duration, 60) / 1200), 0, 1))  # fmt: skip
    r_post = np.random.default_rng(int(rng.integers(2**63 - 1)))
    segs = _segments(duration, sigma, rng)
    state = np.zeros(m, dtype=int)
    for a, b, s in segs:
        state[int(a / DT) : int(np.ceil(b / DT))] = s
    for (_a, b), p in zip(seizures, post_s, strict=True):
        if p > 0:
            i0, i1 = int(b / DT), int((b + p) / DT)
            state[i0:i1] = STATES.index("postictal")
            state[i1 : i1 + int(r_post.uniform(30, 120) / DT)] = STATES.index("drowsy")
    # time constant per tick: fast at awakenings, arousals and eye opening/closing
    tau = np.full(m, 6.0)
    vig = Vigilance(state=state, ctl=np.zeros((m, len(FEATURES))))
    change = np.flatnonzero(np.diff(state)) + 1
    for i in change:
        s0, s1, t = state[i - 1], state[i], i * DT
        if s0 in _SLEEP + (2, 6) and s1 in _AWAKE:
            tau[i : i + 8] = 0.3
            if s0 in _SLEEP:
                vig.awakenings.append(t)
        elif s0 in _AWAKE and s1 in _AWAKE:
            tau[i : i + 4] = 0.2
            (vig.eye_closures if s1 == 1 else vig.eye_openings).append(t)
        elif s1 == 6:
            tau[i : i + 8] = 1.0
    for a, b, s in segs:
        if s in _AWAKE and b - a <= 15.0 and a > 0:
            j = int(a / DT)
            if 0 < j < m and state[j - 1] in _SLEEP:
                vig.arousals.append((a, b))
    starts = {a for a, _b in vig.arousals}
    vig.awakenings = [t for t in vig.awakenings if min((abs(t - a) for a in starts),
                                                      default=1e9) > DT]  # fmt: skip
    target = TARGET[state]
    k = 1.0 - np.exp(-DT / tau)
    x = target[0].copy()
    ctl = vig.ctl
    for i in range(m):
        x += k[i] * (target[i] - x)
        ctl[i] = x
    # slow vigilance fluctuations inside a state (minutes), on the gains only
    wob = 1.0 + 0.2 * smooth_noise(m, 1.0 / DT, 0.01, rng)
    for name in ("alpha", "beta", "theta", "delta"):
        ctl[:, FEATURES.index(name)] *= np.clip(wob, 0.5, 1.5)
    return vig
