"""The postprocessor's seizure events of a whole recording, computed in bulk (the tuner's path).

A grid search (:mod:`rt_eeg.tuning`) scores hundreds of postprocess configurations on every
recording's stored score series. :func:`rt_eeg.postprocess.postprocess_scored` decides one
epoch at a time (the online object, run offline), about 5 us an epoch and configuration, and
that loop was most of a SELECT v2 judgement's tuning time (7.5 min of a model's 23 here).

For the configurations a grid searches, everything the state machine reads but its own state
is a function of the score series alone: the run of epochs at or above ``threshold_on`` (or the
evidence-accumulating sum, ``cusum_h``, stepped through the postprocessor's own function), the
rise within ``rise_epochs``, and the mean over the last ``offset_epochs``. Those are computed
here as arrays; the state machine then only jumps from one onset to the next offset, a step per
event. The result is **the very list of events** that
``decisions_to_events(complete_decisions(postprocess_scored(...), duration))`` gives, bit for
bit (tests compare both on random series and configurations): the means are numpy's pairwise
summation reproduced operation by operation (:mod:`rt_eeg.pairwise`), and the clipping and the
event confidences follow the per-epoch code exactly.

What it does not cover, and leaves to the per-epoch path (:func:`supports` says which): the
patient-relative gate (its memory depends on the decisions), the dual-threshold onset, a
spatial-extent rule, epochs that are not contiguous, a score
that is not finite, and an ``epoch_s`` other than 1 s.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.io.annotations import Event
from rt_eeg.pairwise import MAX_N, pairwise_rows, pairwise_sum
from rt_eeg.postprocess import PostprocessConfig, cusum_step, score_logit


def supports(cfg: PostprocessConfig) -> bool:
    """Whether :func:`scored_events` covers this configuration (its rules are state-free)."""
    return (
        cfg.adapt_epochs <= 0
        and cfg.early_threshold <= 0
        and cfg.min_channels <= 1
        and cfg.channel_level <= 0
        and cfg.epoch_s == 1.0
        and cfg.offset_epochs >= 1
        and cfg.buffer_epochs >= 1
    )


def sliding_mean(x: np.ndarray, w: int) -> np.ndarray:
    """``np.mean(x[max(0, i - w + 1) : i + 1])`` for every ``i``, bit for bit.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
    w : int
        Window length (>= 1). Up to MAX_N numpy's pairwise summation is reproduced over all
        windows at once; a longer window is averaged by ``np.mean`` epoch by epoch.

    Returns
    -------
    mean : ndarray of float64, shape (n,)
    """
    if w < 1:
        raise ValueError(f"window {w} < 1")
    x = np.asarray(x, np.float64)
    n = len(x)
    if w > MAX_N:
        return np.array([np.mean(x[max(0, i - w + 1) : i + 1]) for i in range(n)], np.float64)
    out = np.empty(n, np.float64)
    head = min(n, w - 1)  # the first epochs, whose window is still short
    short = min(head, 7)  # under 8 elements numpy adds in order, as a cumulative sum does
    out[:short] = np.cumsum(x[:short]) / np.arange(1, short + 1)
    for i in range(short, head):
        out[i] = pairwise_sum(x[: i + 1]) / (i + 1)
    if n >= w:
        k = n - w + 1
        out[w - 1 :] = pairwise_rows([x[j : j + k] for j in range(w)]) / w
    return out


def _run_lengths(b: np.ndarray) -> np.ndarray:
    """Length of the run of True ending at each index (0 where False)."""
    idx = np.arange(1, len(b) + 1)
    last_false = np.maximum.accumulate(np.where(b, 0, idx))
    return idx - last_false


def _window_min(x: np.ndarray, w: int) -> np.ndarray:
    """``min(x[max(0, i - w + 1) : i + 1])`` for every ``i``."""
    padded = np.concatenate([np.full(w - 1, np.inf), x])
    return np.lib.stride_tricks.sliding_window_view(padded, w).min(axis=1)


def _confidences(scores: np.ndarray, buffer: int) -> np.ndarray:
    """An event's per-epoch confidences: the mean of its last ``buffer`` scores, within
    [0.5, 1] (as :meth:`rt_eeg.postprocess.Postprocessor._decide` gives each SEIZ epoch)."""
    return np.minimum(1.0, np.maximum(sliding_mean(scores, buffer), 0.5))


class ScoredRecording:
    """One recording's score series, checked once for the bulk path; :meth:`events` per
    configuration (the tuner keeps one per recording and score key, :mod:`rt_eeg.tuning`).

    Build with :meth:`of`, which returns None where the bulk path does not apply to the
    recording: epochs that are not contiguous or whose rounded starts skip, non-finite scores.
    """

    def __init__(self, starts: np.ndarray, scores: np.ndarray, duration: float):
        self.starts, self.scores, self.duration = starts, scores, float(duration)
        # complete_decisions keeps the epochs whose rounded start falls in [0, ceil(duration))
        keys = np.rint(starts)  # its round(start), half to even like Python's
        self.kept = (keys >= 0) & (keys < int(np.ceil(self.duration / 1.0 - 1e-9)))
        self._cusums: dict[tuple[float, float], np.ndarray] = {}

    def cusum(self, threshold: float, h: float) -> np.ndarray:
        """The postprocessor's evidence sum after each epoch (``cusum_h`` = ``h``), kept per
        ``(threshold, h)``: a grid repeats them over top-k, off ratios and hold times."""
        key = (threshold, h)
        if key not in self._cusums:
            ref, s, out = score_logit(threshold), 0.0, np.empty(len(self.scores))
            for i, x in enumerate(self.scores.tolist()):  # a recursion: one epoch at a time
                s = out[i] = cusum_step(s, x, ref, h)
            self._cusums[key] = out
        return self._cusums[key]

    @classmethod
    def of(cls, epoch_starts: np.ndarray, scores: np.ndarray, duration: float) -> ScoredRecording | None:
        """The checked recording, or None where the per-epoch path must run."""
        starts = np.asarray(epoch_starts, np.float64)
        s = np.asarray(scores, np.float64)
        n = len(s)
        if n == 0 or not np.isfinite(s).all() or not np.isfinite(starts).all():
            return None
        # decisions_to_events merges a SEIZ epoch into the run before it when it starts where
        # that one stops (within 1e-6): here every epoch must, so an event is one run of epochs;
        # and complete_decisions would put 'na' epochs inside a run whose rounded starts skip
        if n > 1 and not (np.abs(starts[1:] - (starts[:-1] + 1.0)) < 1e-6).all():
            return None
        if n > 1 and not (np.diff(np.rint(starts)) == 1).all():
            return None
        return cls(starts, s, duration)

    def events(self, cfg: PostprocessConfig) -> list[Event]:
        """The seizure events under ``cfg`` (one :func:`supports` covers)."""
        s, starts, n = self.scores, self.starts, len(self.scores)
        on, off = cfg.threshold_on, cfg.threshold_off
        if cfg.cusum_h > 0:
            onset = self.cusum(on, cfg.cusum_h) >= cfg.cusum_h
        else:
            onset = _run_lengths(s >= on) >= cfg.onset_epochs
        if cfg.rise_delta > 0:
            rise = s - _window_min(s, cfg.rise_epochs + 1)
            onset |= (s >= off) & (rise >= cfg.rise_delta)
        low = sliding_mean(s, cfg.offset_epochs) < off
        onsets, lows = np.flatnonzero(onset), np.flatnonzero(low)
        hold = max(1, cfg.min_duration_epochs)  # the epochs an event lasts before it may end
        events: list[Event] = []
        i = 0
        while True:
            k = np.searchsorted(onsets, i)
            if k == len(onsets):
                break
            first = int(onsets[k])
            j = np.searchsorted(lows, first + hold)
            end = int(lows[j]) if j < len(lows) else n  # the first BCKG epoch after the event
            kept = np.flatnonzero(self.kept[first:end])
            if len(kept):
                # the kept epochs of one run are consecutive (keys rise by one per epoch)
                a, b = first + int(kept[0]), first + int(kept[-1])
                conf = _confidences(s[first:end], cfg.buffer_epochs)[kept[0] : kept[-1] + 1]
                mean_conf = float(np.clip(np.mean(conf), 0, 1))
                stop = min(float(starts[b]) + cfg.epoch_s, self.duration)
                events.append(Event(float(starts[a]), stop, "seiz", round(mean_conf, 4)))
            if end >= n:
                break
            i = end + 1
        return events


def scored_events(
    epoch_starts: np.ndarray, scores: np.ndarray, duration: float, cfg: PostprocessConfig
) -> list[Event] | None:
    """The seizure events of one recording under ``cfg``, from its score series.

    Parameters
    ----------
    epoch_starts : ndarray, shape (n_epochs,)
        Contiguous epoch starts (s).
    scores : ndarray of float64, shape (n_epochs,)
        The cross-channel score of each epoch (:func:`rt_eeg.postprocess.score_series`).
    duration : float
        Recording length (s): the last event is cut there, as
        :func:`rt_eeg.postprocess.complete_decisions` cuts it.
    cfg : PostprocessConfig

    Returns
    -------
    events : list of Event, or None
        TERM seizure events as :func:`rt_eeg.postprocess.decisions_to_events` gives them;
        None where this path does not apply (the caller runs the per-epoch one).
    """
    if not supports(cfg):
        return None
    rec = ScoredRecording.of(epoch_starts, scores, duration)
    return None if rec is None else rec.events(cfg)
