"""Arousals from sleep: the ``arousal`` background family.

Sleep is broken by arousals: within a second or two the background desynchronises, delta
gives way to faster activity and alpha, and muscle tone returns, often in a burst. A brief
arousal lasts seconds (here 3-30 s) before sleep resumes; an awakening lasts. Such sudden,
generalised changes are among the commonest false alarms of seizure detectors on ward EEG.
Without this family the simulator's state mixture always changes smoothly over 20 s
(:data:`rt_eeg.sim.background.STATE_SMOOTH_S`), so every awakening it makes is gradual.

With the family allowed, a recording's awakenings from sleep or drowsiness are mostly abrupt
(the state mixture changes within :data:`RAMP_S`), brief arousals are added inside sleep, and
each arousal starts with a burst of muscle (:func:`burst_transients`). Everything is drawn on a stream of its own
(:class:`rt_eeg.sim.recording.RecordingGenerator` seeds it), so recordings that do not allow
the family are unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rt_eeg.sim.background import (
    CTRL_SFREQ,
    STATE_SMOOTH_S,
    STATES,
    Timeline,
    smooth_states,
    state_onehot,
)
from rt_eeg.sim.transients import Transient

#: Brief arousals per hour of sleep: each recording draws its rate in this range.
RATE_PER_H = (4.0, 20.0)
#: Duration of a brief arousal (s).
BRIEF_S = (3.0, 30.0)
#: Time the state mixture takes to change at an arousal's onset, and back at a brief
#: arousal's end (s).
RAMP_S = (0.5, 3.0)
#: Chance that an awakening from sleep or drowsiness is abrupt (the rest stay gradual).
ABRUPT_WAKING = 0.8
#: Muscle burst at an arousal's onset (a ``muscle`` transient of family ``emg``): duration
#: (s), rms amplitude (uV) and where (both temporal regions mostly: a generalised arousal).
BURST_S = (1.0, 8.0)
BURST_UV = (15.0, 60.0)
BURST_SITES = ("both", "both", "frontal", "left", "right")
#: Half-width of the stretch around a boundary where the abrupt mixture replaces the smooth
#: one (s), fading back to the smooth mixture over as long again.
_LOCAL_S = 10.0


@dataclass(frozen=True)
class Arousal:
    """One arousal (seconds).

    Attributes
    ----------
    start : float
        Onset.
    stop : float or None
        End of a brief arousal; None for an awakening (the recording stays awake).
    ramp_s : float
        Time the state mixture takes to change at the onset (and back at ``stop``).
    burst_s, burst_uv : float
        Duration (s) and rms amplitude (uV) of the muscle burst at the onset.
    burst_site : str
        Its region (:data:`rt_eeg.sim.artifacts.MUSCLE_REGIONS`).
    burst_seed : int
        Seeds its waveform.
    """

    start: float
    stop: float | None
    ramp_s: float
    burst_s: float
    burst_uv: float
    burst_site: str
    burst_seed: int


def draw_arousals(timeline: Timeline, duration: float, rng: np.random.Generator) -> list[Arousal]:
    """Arousals of one recording: its abrupt awakenings, and brief arousals inside sleep.

    Parameters
    ----------
    timeline : Timeline
        The recording's state sequence (``segments``) before arousals.
    duration : float
        Seconds.
    rng : np.random.Generator
        The family's own stream.

    Returns
    -------
    list of Arousal
        Sorted by onset; none overlap.
    """
    rate = rng.uniform(*RATE_PER_H) / 3600.0
    out: list[Arousal] = []
    segs = timeline.segments

    def burst() -> tuple:
        return (float(rng.uniform(*BURST_S)), float(rng.uniform(*BURST_UV)),
                str(rng.choice(BURST_SITES)), int(rng.integers(0, 2**31)))  # fmt: skip

    for (prev, _, _), (nxt, start, _) in zip(segs, segs[1:], strict=False):
        if nxt == "awake" and prev in ("sleep", "drowsy") and rng.random() < ABRUPT_WAKING:
            out.append(Arousal(start, None, float(rng.uniform(*RAMP_S)), *burst()))
    for name, a, b in segs:
        if name != "sleep":
            continue
        # keep clear of the segment's own boundaries (the smooth transition lives there)
        t = a + 30.0 + float(rng.exponential(1.0 / rate))
        while t + BRIEF_S[1] < b - 30.0 and t + BRIEF_S[1] < duration:
            length = float(rng.uniform(*BRIEF_S))
            out.append(Arousal(t, t + length, float(rng.uniform(*RAMP_S)), *burst()))
            t += length + 2 * _LOCAL_S + float(rng.exponential(1.0 / rate))
    return sorted(out, key=lambda x: x.start)


def _blend(w: np.ndarray, onehot: np.ndarray, ar: Arousal) -> None:
    """Let the arousal's sharp mixture take over ``w`` (in place) from :data:`_LOCAL_S` before
    its onset to as long after its end, fading back to ``w`` over as long again. Only that
    stretch (plus the smoothing's reach) is computed: the same values as over the whole
    recording (see :func:`rt_eeg.sim.background.smooth_states`)."""
    a, b = ar.start, ar.start if ar.stop is None else ar.stop
    reach = int(math.ceil(ar.ramp_s * CTRL_SFREQ)) + 2
    i0 = max(0, int(math.floor((a - 2 * _LOCAL_S) * CTRL_SFREQ)) - reach)
    i1 = min(w.shape[1], int(math.ceil((b + 2 * _LOCAL_S) * CTRL_SFREQ)) + 1 + reach)
    sharp = smooth_states(onehot[:, i0:i1], ar.ramp_s)
    t = np.arange(i0, i1) / CTRL_SFREQ
    d = np.maximum(np.maximum(a - t, t - b), 0.0)
    m = np.clip(2.0 - d / _LOCAL_S, 0.0, 1.0)
    w[:, i0:i1] = w[:, i0:i1] * (1.0 - m) + sharp * m


def apply_arousals(timeline: Timeline, arousals: list[Arousal]) -> None:
    """Put ``arousals`` into ``timeline``: state weights, state sequence and envelopes.

    Brief arousals become 'awake' stretches of the state sequence; at every arousal boundary
    the mixture changes within the arousal's ramp instead of over 20 s. Must run before
    anything attenuates an envelope (it remakes them all).
    """
    if not arousals:
        return
    segments = _with_brief_arousals(timeline.segments, arousals)
    onehot = state_onehot(segments, len(timeline.awake))
    w = smooth_states(onehot, STATE_SMOOTH_S)
    for ar in arousals:
        _blend(w, onehot, ar)
    timeline.reweight(w[0], w[1], w[2], segments)
    timeline.arousals = list(arousals)


def burst_transients(arousals: list[Arousal]) -> list[Transient]:
    """The muscle bursts of ``arousals``, as ``muscle`` transients (family ``emg``: a
    recording that does not allow it drops them with its other muscle artifacts)."""
    return [Transient("muscle", ar.start, ar.burst_s, ar.burst_uv, ar.burst_site, ar.burst_seed)
            for ar in arousals]  # fmt: skip


def _with_brief_arousals(segments: list, arousals: list[Arousal]) -> list:
    """The state sequence with each brief arousal cut into its segment as 'awake'."""
    out = list(segments)
    for ar in arousals:
        if ar.stop is None:
            continue
        for i, (name, a, b) in enumerate(out):
            if a <= ar.start and ar.stop <= b:
                out[i : i + 1] = [(name, a, ar.start), ("awake", ar.start, ar.stop),
                                  (name, ar.stop, b)]  # fmt: skip
                break
    return [(name, a, b) for name, a, b in out if b > a and name in STATES]
