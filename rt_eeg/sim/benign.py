"""Benign variants: normal rhythmic or sharp patterns that are not seizures.

Wicket spikes (arciform 6-11 Hz temporal trains), rhythmic mid-temporal theta of drowsiness
(RMTD, notched 5-7 Hz runs), 14 and 6 Hz positive spikes (posterior temporal), SREDA
(subclinical rhythmic EEG discharge of adults: sharp delta that speeds up into rhythmic
theta over tens of seconds, bilateral parietal, for 40 s to minutes; it evolves like a
seizure but is not one) and positive occipital sharp transients of sleep (POSTS). None is
ever annotated. All are :class:`rt_eeg.sim.transients.Transient` renderers.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.sim.artifacts import poisson_times
from rt_eeg.sim.layout import EIDX
from rt_eeg.sim.transients import Transient

_SIDES = {
    # electrode -> weight on the left; the right mirrors it
    "wicket": {"T3": 1.0, "F7": 0.55, "T5": 0.5, "A1": 0.5, "C3": 0.2},
    "rmtd": {"T3": 1.0, "F7": 0.5, "T5": 0.6, "A1": 0.6, "C3": 0.25},
    "fourteen_six": {"T5": 1.0, "A1": 0.7, "O1": 0.5, "P3": 0.45, "T3": 0.35},
}
_MIRROR = {"FP1": "FP2", "F3": "F4", "C3": "C4", "P3": "P4", "O1": "O2", "F7": "F8",
           "T3": "T4", "T5": "T6", "A1": "A2"}  # fmt: skip
_SREDA = {"P3": 1.0, "P4": 1.0, "PZ": 0.9, "T5": 0.8, "T6": 0.8, "CZ": 0.6, "C3": 0.55,
          "C4": 0.55, "O1": 0.5, "O2": 0.5, "T3": 0.35, "T4": 0.35}  # fmt: skip
#: The benign families drawn here, one stream each: a fixed tuple, not ``FAMILIES["benign"]``
#: (the fresh benign families draw on a stream of their own; what this one draws must not
#: depend on the registry).
BENIGN_STREAMS = ("wicket", "rmtd", "fourteen_six", "sreda", "posts_vertex")
_POSTS = {"O1": 1.0, "O2": 1.0, "PZ": 0.3, "P3": 0.25, "P4": 0.25, "T5": 0.2, "T6": 0.2}


def _field(kind: str, site: str) -> tuple[np.ndarray, np.ndarray]:
    """Columns and weights of a lateralised pattern: site 'left', 'right' or 'both'."""
    left = _SIDES[kind]
    w: dict[str, float] = {}
    if site in ("left", "both"):
        w.update(left)
    if site in ("right", "both"):
        for e, v in left.items():
            w[_MIRROR[e]] = v
    return np.array([EIDX[e] for e in w]), np.array(list(w.values()))


def _phase(rng, n: int, f, sfreq: float) -> np.ndarray:
    return 2 * np.pi * np.cumsum(np.broadcast_to(f, (n,))) / sfreq + rng.uniform(0, 2 * np.pi)


def render_wicket(tr: Transient, sfreq: float):
    """Wicket train: arciform ``param`` Hz waves, sharp negative and rounded positive
    phase, waxing and waning, no evolution."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    f = tr.param * (1.0 + 0.02 * rng.standard_normal())
    phi = _phase(rng, n, f, sfreq)
    y = -(np.cos(phi) + 0.35 * np.cos(2 * phi)) / 1.35
    env = np.sin(np.pi * np.arange(n) / n) ** 0.7
    cols, w = _field("wicket", tr.site)
    return cols, (tr.amp * (env * y)[:, None] * w[None, :]).astype(np.float32)


def render_rmtd(tr: Transient, sfreq: float):
    """RMTD: a run of notched ``param`` Hz theta over the mid-temporal region, steady in
    frequency and amplitude (no evolution), smooth on and off."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    phi = _phase(rng, n, tr.param * (1.0 + 0.01 * np.sin(2 * np.pi * 0.1 * t)), sfreq)
    y = (np.sin(phi) + 0.45 * np.sin(2 * phi + 0.6)) / 1.2
    env = np.clip(np.minimum(t, tr.duration - t) / 1.0, 0.0, 1.0)
    cols, w = _field("rmtd", tr.site)
    return cols, (tr.amp * (env * y)[:, None] * w[None, :]).astype(np.float32)


def render_fourteen_six(tr: Transient, sfreq: float):
    """14 and 6 Hz positive spikes: a burst of surface-positive spiky waves at ``param`` Hz
    (14 or 6), posterior temporal."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    phi = _phase(rng, n, tr.param, sfreq)
    c0 = float(np.i0(5.0) * np.exp(-5.0))
    y = (np.exp(5.0 * (np.cos(phi) - 1.0)) - c0) / (1.0 - c0) - 0.25 * (1.0 - np.cos(phi))
    env = np.hanning(n) ** 0.5
    cols, w = _field("fourteen_six", tr.site)
    return cols, (tr.amp * (env * y)[:, None] * w[None, :]).astype(np.float32)


def render_sreda(tr: Transient, sfreq: float):
    """SREDA: repetitive sharp delta that speeds up over ``param`` s into rhythmic sharp
    theta (5-7 Hz), bilateral parietal maximum, then stops abruptly. The background is not
    replaced and no post-ictal slowing follows (what tells it from a seizure)."""
    from rt_eeg.sim.seizures import _coherent_noise, rhythmic_wave

    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    rise = tr.param
    f_a, f_b = rng.uniform(1.5, 2.5), rng.uniform(5.0, 7.0)
    x = np.clip(t / rise, 0.0, 1.0)
    s = x * x * (3 - 2 * x)
    f = f_a + (f_b - f_a) * s
    phi = _phase(rng, n, f, sfreq)
    sharp = (0.75 - 0.4 * s)[:, None]
    A = (0.45 + 0.55 * s) * np.clip((tr.duration - t) / 0.4, 0.0, 1.0) * np.clip(t / 0.5, 0, 1)
    cols = np.array([EIDX[e] for e in _SREDA])
    w = np.array(list(_SREDA.values())) * rng.uniform(0.85, 1.1, len(_SREDA))
    jit = 1.0 + 0.15 * _coherent_noise(rng, n, cols, 0.2, 1.5, sfreq)
    y = rhythmic_wave(phi[:, None], sharp) * jit
    return cols, (tr.amp * A[:, None] * y * w[None, :]).astype(np.float32)


def render_posts(tr: Transient, sfreq: float):
    """POSTS: ``param`` (1-6) surface-positive triangular transients about 4-5 Hz apart,
    bilateral occipital."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    y = np.zeros(n)
    gap = rng.uniform(0.2, 0.28)
    for j in range(int(tr.param)):
        t0 = 0.05 + j * gap * rng.uniform(0.9, 1.1)
        rise, fall = rng.uniform(0.04, 0.06), rng.uniform(0.07, 0.11)
        up = np.clip((t - t0) / rise, 0, 1) * (t < t0 + rise)
        down = np.clip(1.0 - (t - t0 - rise) / fall, 0, 1) * (t >= t0 + rise)
        y += (up + down) * rng.uniform(0.7, 1.0)
    cols = np.array([EIDX[e] for e in _POSTS])
    w = np.array(list(_POSTS.values())) * rng.uniform(0.85, 1.15, len(_POSTS))
    return cols, (tr.amp * y[:, None] * w[None, :]).astype(np.float32)


BENIGN_RENDERERS = {
    "wicket": render_wicket,
    "rmtd": render_rmtd,
    "fourteen_six": render_fourteen_six,
    "sreda": render_sreda,
    "posts": render_posts,
}


def draw_benign(duration: float, timeline, variety, rng: np.random.Generator) -> list[Transient]:
    """Benign-variant transients of a recording: only the families ``variety`` holds, at
    rates following the behavioural state (wickets, RMTD, 14 and 6 in drowsiness and light
    sleep; POSTS in sleep; SREDA awake or drowsy)."""
    from rt_eeg.sim.variety import family_rngs

    tl, act, out = timeline, variety.activity, []
    has = variety.present
    side = str(rng.choice(["left", "right", "both"]))  # the recording's usual side
    rngs = family_rngs(rng, BENIGN_STREAMS)

    def seed():
        return int(rng.integers(2**31))

    rng = rngs["wicket"]
    if "wicket" in has:
        f0 = rng.uniform(6.5, 10.5)
        rate = 2.0 / 60.0 * act * (tl.drowsy + 0.5 * tl.sleep + 0.3 * tl.awake)
        for t in poisson_times(rng, rate, duration):
            s = side if rng.random() < 0.7 else str(rng.choice(["left", "right"]))
            out.append(Transient("wicket", float(t), float(rng.uniform(0.5, 4.0)),
                                 float(rng.uniform(60.0, 160.0)), s, seed(),
                                 float(np.clip(f0 + rng.normal(0, 0.4), 6.0, 11.0))))  # fmt: skip
    rng = rngs["rmtd"]
    if "rmtd" in has:
        f0 = rng.uniform(5.0, 7.0)
        rate = 1.0 / 60.0 * act * (tl.drowsy + 0.3 * tl.awake)
        for t in poisson_times(rng, rate, duration):
            s = side if rng.random() < 0.7 else str(rng.choice(["left", "right", "both"]))
            out.append(Transient("rmtd", float(t), float(rng.uniform(3.0, 15.0)),
                                 float(rng.uniform(60.0, 140.0)), s, seed(),
                                 float(np.clip(f0 + rng.normal(0, 0.2), 5.0, 7.0))))  # fmt: skip
    rng = rngs["fourteen_six"]
    if "fourteen_six" in has:
        rate = 1.5 / 60.0 * act * (tl.drowsy + tl.sleep)
        for t in poisson_times(rng, rate, duration):
            out.append(Transient("fourteen_six", float(t), float(rng.uniform(0.5, 1.2)),
                                 float(rng.uniform(30.0, 80.0)), str(rng.choice(["left", "right"])),
                                 seed(), 14.0 if rng.random() < 0.6 else 6.0))  # fmt: skip
    rng = rngs["sreda"]
    if "sreda" in has and duration >= 60.0:
        for _ in range(1 + int(rng.random() < 0.3)):
            d = float(min(rng.uniform(40.0, 180.0), 0.5 * duration))
            t = float(rng.uniform(0.0, duration - d))
            out.append(Transient("sreda", t, d, float(rng.uniform(50.0, 120.0)), "", seed(),
                                 float(rng.uniform(8.0, min(25.0, 0.4 * d)))))  # fmt: skip
    rng = rngs["posts_vertex"]
    if "posts_vertex" in has:
        for t in poisson_times(rng, 6.0 / 60.0 * tl.sleep, duration):
            out.append(Transient("posts", float(t), 2.0, float(rng.uniform(35.0, 90.0)), "", seed(),
                                 float(rng.integers(1, 7))))  # fmt: skip
    return [tr for tr in out if tr.start < duration]
