"""Steady rhythms: rhythmic runs that do not evolve and are not seizures (opt-in family).

One benign family, ``steady_rhythm``, that a recording holds only when a corpus requires it
(``rt-eeg simulate --require-families steady_rhythm``; its chance otherwise is 0): every
corpus simulated before it existed, and every corpus that does not ask for it, keeps its
bytes. Its point is the one thing a rhythmic seizure has and these runs lack: evolution.
Each run holds its frequency (within 2 %), its field and its shape from start to end, with at
most a waxing and waning; it is never annotated. Three kinds, each randomised in every
property a reader would not use to tell it from a seizure:

- ``temporal_theta``: rhythmic temporal theta of drowsiness (RMTD's wider family): 4-7.5 Hz,
  a mid-temporal maximum (T3 / T4) whose field over F7 / T5 / A1 and the central chain is drawn
  per run; sinusoidal to notched or sharp (a second harmonic of random weight and phase);
  20-150 uV; 3-40 s; one side, the other, or both sides at slightly different frequencies;
  mostly drowsy, less awake or in light sleep;
- ``midline_theta``: frontal midline theta (Fz / Cz, 5-7 Hz, sinusoidal, 20-80 uV, 2-20 s),
  awake or drowsy;
- ``irda``: intermittent rhythmic delta (1.5-3 Hz, 40-160 uV, 2-12 s), frontal on both sides
  or temporal on one, sinusoidal to sawtooth, any state.

Renderers are :data:`rt_eeg.sim.transients.Renderer` functions: ``(transient, sfreq)`` ->
``(cols, wave)``, the electrode columns ``(k,)`` and the waveform ``(n, k)`` float32 uV,
``n = int(duration * sfreq)``, a pure function of the transient's fields. Draws come from a
stream of their own (``SeedSequence([seed, 0x57D])``), after every other transient.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.sim.artifacts import poisson_times
from rt_eeg.sim.layout import EIDX
from rt_eeg.sim.transients import Transient

FAMILY = "steady_rhythm"
#: Chance that a recording holds the family when allowed and not required: none (opt-in).
PRESENCE: dict[str, float] = {FAMILY: 0.0}
#: Transient kinds of the family.
KINDS = ("temporal_theta", "midline_theta", "irda")
#: Runs per minute of each kind, per behavioural state (awake, drowsy, sleep), before the
#: recording's own rate factor (0.5-2x) and activity.
RATES_PER_MIN = {
    "temporal_theta": (0.3, 1.5, 0.3),
    "midline_theta": (0.5, 0.8, 0.0),
    "irda": (0.4, 0.5, 0.4),
}

_MIRROR = {"T3": "T4", "F7": "F8", "T5": "T6", "A1": "A2", "C3": "C4", "F3": "F4", "P3": "P4",
           "FP1": "FP2"}  # fmt: skip


def _side_field(rng: np.random.Generator, base: dict[str, tuple[float, float]], side: str):
    """Weights ``{electrode: w}`` of a one-sided field (left names; 'right' mirrors)."""
    w = {e: float(rng.uniform(*lim)) for e, lim in base.items()}
    return w if side == "left" else {_MIRROR.get(e, e): v for e, v in w.items()}


def _cols(field: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    keys = [e for e, v in field.items() if v > 0.02]
    return np.array([EIDX[e] for e in keys]), np.array([field[e] for e in keys])


def _steady_wave(rng: np.random.Generator, n: int, f: float, sfreq: float, harmonic: float,
                 saw: float = 0.0) -> np.ndarray:  # fmt: skip
    """``(n,)`` unit-peak run at ``f`` Hz: drift within 2 %, a harmonic of random phase
    (notched / sharp), an optional sawtooth (third harmonic), a waxing and waning envelope
    and smooth ends; nothing evolves."""
    t = np.arange(n) / sfreq
    drift = 1.0 + 0.02 * rng.uniform(-1, 1) * np.sin(
        2 * np.pi * rng.uniform(0.02, 0.1) * t + rng.uniform(0, 6.3)
    )
    phi = 2 * np.pi * np.cumsum(f * drift) / sfreq + rng.uniform(0, 2 * np.pi)
    y = (np.sin(phi) + harmonic * np.sin(2 * phi + rng.uniform(0, 2 * np.pi))
         + saw * np.sin(3 * phi) / 3.0)  # fmt: skip
    y /= max(1e-6, float(np.max(np.abs(y[: int(sfreq / f) + 2]))))
    depth, period = rng.uniform(0.0, 0.5), rng.uniform(2.0, 6.0)
    wax = 1.0 - depth * 0.5 * (1 + np.sin(2 * np.pi * t / period + rng.uniform(0, 2 * np.pi)))
    ramp = rng.uniform(0.3, 2.0)
    dur = n / sfreq
    ends = np.clip(np.minimum(t, dur - t) / ramp, 0.0, 1.0)
    return y * wax * ends


def render_temporal_theta(tr: Transient, sfreq: float):
    """Temporal theta run at ``param`` Hz on ``site`` ('left', 'right' or 'both')."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    base = {"T3": (1.0, 1.0), "F7": (0.3, 0.9), "T5": (0.3, 0.9), "A1": (0.4, 0.9),
            "C3": (0.0, 0.4), "F3": (0.0, 0.25), "P3": (0.0, 0.25)}  # fmt: skip
    harmonic = rng.uniform(0.0, 0.6)
    sides = ["left", "right"] if tr.site == "both" else [tr.site]
    field: dict[str, np.ndarray] = {}
    for k, side in enumerate(sides):
        f = tr.param * (1.0 + (0.04 * rng.uniform(-1, 1) if k else 0.0))  # the two sides' own
        y = _steady_wave(rng, n, f, sfreq, harmonic) * (rng.uniform(0.6, 1.0) if k else 1.0)
        for e, w in _side_field(rng, base, side).items():
            field[e] = field.get(e, 0.0) + w * y
    cols = np.array([EIDX[e] for e in field])
    return cols, (tr.amp * np.stack(list(field.values()), axis=1)).astype(np.float32)


def render_midline_theta(tr: Transient, sfreq: float):
    """Frontal midline theta at ``param`` Hz: Fz or Cz maximum, symmetric."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    top = "FZ" if tr.site == "FZ" else "CZ"
    other = "CZ" if top == "FZ" else "FZ"
    s = rng.uniform(0.2, 0.6)
    field = {top: 1.0, other: rng.uniform(0.5, 0.9), "F3": s, "F4": s, "C3": 0.7 * s, "C4": 0.7 * s}
    cols, w = _cols(field)
    y = _steady_wave(rng, n, tr.param, sfreq, rng.uniform(0.0, 0.2))
    return cols, (tr.amp * y[:, None] * w[None, :]).astype(np.float32)


def render_irda(tr: Transient, sfreq: float):
    """Intermittent rhythmic delta at ``param`` Hz: ``site`` 'frontal', 'left' or 'right'
    (temporal)."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    if tr.site == "frontal":
        s = rng.uniform(0.5, 0.9)
        field = {"FP1": 1.0, "FP2": 1.0, "F3": s, "F4": s, "FZ": s, "F7": 0.7 * s, "F8": 0.7 * s,
                 "C3": 0.3 * s, "C4": 0.3 * s}  # fmt: skip
    else:
        field = _side_field(rng, {"T3": (1.0, 1.0), "F7": (0.4, 0.9), "T5": (0.4, 0.9),
                                  "A1": (0.5, 1.0), "C3": (0.0, 0.3)}, tr.site)  # fmt: skip
    cols, w = _cols(field)
    y = _steady_wave(rng, n, tr.param, sfreq, rng.uniform(0.0, 0.3), saw=rng.uniform(0.0, 1.0))
    return cols, (tr.amp * y[:, None] * w[None, :]).astype(np.float32)


STEADY_RENDERERS = {
    "temporal_theta": render_temporal_theta,
    "midline_theta": render_midline_theta,
    "irda": render_irda,
}


def draw_steady_rhythms(
    duration: float, timeline, variety, rng: np.random.Generator
) -> list[Transient]:
    """The steady-rhythm runs of a family-mode recording (none unless it holds the family).

    Parameters
    ----------
    duration : float
        Seconds.
    timeline : Timeline
        Rates follow its ``(n_ctrl,)`` state weights (:data:`RATES_PER_MIN`).
    variety : Variety
        Allowed and required families, activity.
    rng : np.random.Generator
        A stream used by nothing else.

    Returns
    -------
    list of Transient
        Kinds :data:`KINDS`; each recording holds each kind with chance 0.7 (one at least).
    """
    from rt_eeg.sim.variety import own_stream_presence

    rngs, has = own_stream_presence(rng, PRESENCE, variety)
    if FAMILY not in has:
        return []
    r = rngs[FAMILY]
    kinds = [k for k in KINDS if r.random() < 0.7] or [KINDS[int(r.integers(len(KINDS)))]]
    factor = float(r.uniform(0.5, 2.0))
    side = str(r.choice(["left", "right"]))  # the recording's usual side
    tl, act, out = timeline, variety.activity, []
    for kind in KINDS:  # every kind draws its rate even when absent: kinds never shift others
        awake, drowsy, sleep = RATES_PER_MIN[kind]
        rate = factor * act * (awake * tl.awake + drowsy * tl.drowsy + sleep * tl.sleep) / 60.0
        times = poisson_times(r, rate, duration)
        if kind not in kinds:
            continue
        for t in times:
            seed = int(r.integers(2**31))
            if kind == "temporal_theta":
                u = r.random()
                s = (
                    side
                    if u < 0.6
                    else ("both" if u < 0.8 else ("right" if side == "left" else "left"))
                )
                out.append(Transient(kind, float(t), float(r.uniform(3.0, 40.0)), float(r.uniform(20.0, 150.0)),
                                     s, seed, float(r.uniform(4.0, 7.5))))  # fmt: skip
            elif kind == "midline_theta":
                out.append(Transient(kind, float(t), float(r.uniform(2.0, 20.0)), float(r.uniform(20.0, 80.0)),
                                     str(r.choice(["FZ", "CZ"])), seed, float(r.uniform(5.0, 7.0))))  # fmt: skip
            else:
                s = (
                    "frontal"
                    if r.random() < 0.5
                    else (side if r.random() < 0.7 else str(r.choice(["left", "right"])))
                )
                out.append(Transient(kind, float(t), float(r.uniform(2.0, 12.0)), float(r.uniform(40.0, 160.0)),
                                     s, seed, float(r.uniform(1.5, 3.0))))  # fmt: skip
    return [tr for tr in out if tr.start < duration]
