"""Cross-channel decisions: one causal postprocessor, used online and offline alike.

For every 1 s epoch the decoder gives ``P(seizure)`` per channel. The postprocessor keeps
the last ``buffer_epochs`` (8 s) of them and decides, for the newest epoch only (no lookahead),
SEIZ or BCKG with a confidence:

1. **Cross-channel score.** Each channel's probability is smoothed over the last
   ``smooth_epochs``; the score is the mean of the ``top_k`` highest smoothed channels. A
   single channel cannot fire alone (its neighbours must agree), while a seizure seen on a
   few channels still can. With a ``cross_channel`` table (:mod:`rt_eeg.cross_channel`), the
   score is instead a tiny learned model over the last seconds of the smoothed channels.
2. **Hysteresis onset.** A seizure starts once the score has been ``>= threshold_on`` for
   ``onset_epochs`` consecutive epochs; or, when ``rise_delta > 0``, as soon as the score has
   *risen* by ``rise_delta`` within the last ``rise_epochs`` epochs to at least
   ``threshold_off`` (a fast path for evolving onsets, whose score climbs steadily before it
   reaches a strict ``threshold_on``); or, when ``early_threshold > 0``, once the score has
   been ``>= early_threshold`` for ``early_epochs`` epochs and has risen by at least
   ``early_rise`` within ``rise_epochs`` (a second, dual threshold: e.g. fire after one epoch
   at a lower level when the score jumped there, instead of waiting ``onset_epochs`` at the
   strict one); or, when ``cusum_h > 0``, instead of the run of ``onset_epochs``, once the
   evidence accumulated over epochs reaches ``cusum_h`` (Page's CUSUM on the score's logit:
   ``S_t = min(h, max(0, S_{t-1} + logit(score_t) - logit(threshold_on)))``, onset at ``S_t >=
   h``; a score far above the threshold fires in one epoch, one just above it in several, and an
   epoch under it subtracts instead of restarting the count). Every onset path also needs a
   minimum spatial extent: at least ``min_channels`` channels whose smoothed probability is
   ``>= channel_level`` (the defaults, 1 channel at 0, always hold). With ``adapt_epochs > 0`` every onset path also needs the
   epoch to stand out from **this recording's own recent background**: the logit of its score
   must exceed the ``adapt_quantile`` of the logits of the last ``adapt_epochs`` epochs decided
   BCKG by ``adapt_margin`` (inactive until ``adapt_min_epochs`` such epochs are held; epochs
   decided SEIZ never enter). A patient whose background often scores near the threshold must
   then show more than usual to raise an alarm; a quiet one needs only the threshold.
3. **Hold and minimum duration.** Once in a seizure, the decision stays SEIZ until the mean
   score over the last ``offset_epochs`` epochs falls below ``threshold_off`` (lower than
   ``threshold_on``) and the event has lasted ``min_duration_epochs``. Using a mean rather
   than a run of low epochs is what keeps a fluctuating seizure whole: a few weak epochs
   inside it cannot end it, while a real offset ends it within ``offset_epochs`` seconds.
   Bursts closer than that merge into one event.

Decision latency: an epoch's decision is made when that epoch's probabilities arrive, so the
earliest SEIZ decision comes ``onset_epochs`` epochs after the first epoch that contains the
onset, plus the feature lookahead (``FeatureConfig`` delay): with the defaults, between
``onset_epochs`` and ``onset_epochs + 1`` seconds after the true onset plus that delay.

Gaps (a restart, missing data) are explicit: :meth:`Postprocessor.gap` marks epochs 'na'
(not analysed) and resets the state, so nothing unanalysed is ever reported as background
(the patient-relative gate's background memory restarts too, and warms up again).
Offline (:func:`postprocess_recording`) runs the very same object over the array of epochs,
so offline and online decisions are identical by construction.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from rt_eeg.cross_channel import CrossChannelScorer
from rt_eeg.io.annotations import Event, HypEpoch
from rt_eeg.pairwise import MAX_N, pairwise_rows
from rt_eeg.postprocess_config import PostprocessConfig


def score_logit(p: float) -> float:
    """Logit of a score, clipped so that 0 and 1 stay finite."""
    p = min(max(p, 1e-7), 1.0 - 1e-7)
    return math.log(p / (1.0 - p))


def cusum_step(s: float, score: float, ref: float, h: float) -> float:
    """One epoch of the evidence-accumulating onset: ``min(h, max(0, s + logit(score) -
    ref))``, ``ref`` the threshold's logit. The online postprocessor and the tuner's bulk path
    (:mod:`rt_eeg.scored_events`) both step through this, so their sums are the same floats."""
    return min(h, max(0.0, s + (score_logit(float(score)) - ref)))


@dataclass(frozen=True)
class Decision:
    """The decision for one epoch.

    Attributes
    ----------
    start, stop : float
        Epoch bounds in signal seconds.
    label : str
        ``seiz``, ``bckg`` or ``na`` (not analysed).
    confidence : float
        Confidence in ``label`` (0..1; 0 for ``na``).
    channels : tuple of str
        Channels involved (SEIZ only).
    score : float
        Cross-channel seizure score of the epoch (nan for ``na``).
    """

    start: float
    stop: float
    label: str
    confidence: float
    channels: tuple[str, ...] = ()
    score: float = float("nan")

    def hyp(self) -> HypEpoch:
        return HypEpoch(self.start, self.stop, self.label, round(float(self.confidence), 4))


def effective_top_k(cfg: PostprocessConfig, ch_names) -> int:
    """Channels averaged into the cross-channel score for these channels: ``top_k``, or
    ``top_k_reduced`` when smaller and the channels are a reduced montage; at most all."""
    from rt_eeg.montage import is_reduced

    k = cfg.top_k
    if is_reduced(ch_names):
        k = min(k, cfg.top_k_reduced)
    return max(1, min(k, len(ch_names)))


class Postprocessor:
    """Causal cross-channel decision stage (see the module docstring).

    Parameters
    ----------
    ch_names : list of str
        Channel names, in the order of the probability vectors.
    config : PostprocessConfig
    """

    def __init__(self, ch_names: list[str], config: PostprocessConfig | None = None):
        self.ch_names = list(ch_names)
        self.cfg = config or PostprocessConfig()
        self.k = effective_top_k(self.cfg, self.ch_names)
        cc = self.cfg.cross_channel
        self.scorer = CrossChannelScorer(cc) if cc is not None else None
        self._cusum_ref = score_logit(self.cfg.threshold_on)  # the CUSUM's zero, in logits
        self._reset()

    def _reset(self) -> None:
        if self.scorer is not None:
            self.scorer.reset()
        self._history: deque[np.ndarray] = deque(maxlen=self.cfg.buffer_epochs)
        self._in_seizure = False
        self._above = 0  # consecutive epochs >= threshold_on
        self._cusum = 0.0  # evidence accumulated towards an onset (cusum_h > 0)
        self._above_early = 0  # consecutive epochs >= early_threshold
        self._scores: deque[float] = deque(maxlen=self.cfg.offset_epochs)
        self._recent: deque[float] = deque(maxlen=self.cfg.rise_epochs + 1)
        self._event_len = 0
        self._event_scores: list[float] = []
        self._event_channels: set[str] = set()
        self._next_start: float | None = None
        # Patient-relative gate: logits of the last adapt_epochs BCKG epochs, in arrival order
        # and sorted (a quantile per epoch in O(n) without numpy; deterministic nearest rank).
        self._bg_fifo: deque[float] = deque()
        self._bg_sorted: list[float] = []

    def _gate(self, score: float) -> bool:
        """Whether ``score`` stands out from this recording's recent background (or the gate
        is off or still warming up)."""
        cfg = self.cfg
        n = len(self._bg_sorted)
        if cfg.adapt_epochs <= 0 or n < cfg.adapt_min_epochs:
            return True
        q = self._bg_sorted[min(n - 1, int(cfg.adapt_quantile * (n - 1) + 0.5))]
        return score_logit(score) >= q + cfg.adapt_margin

    def _remember_background(self, score: float) -> None:
        cfg = self.cfg
        if cfg.adapt_epochs <= 0:
            return
        x = score_logit(score)
        self._bg_fifo.append(x)
        bisect.insort(self._bg_sorted, x)
        if len(self._bg_fifo) > cfg.adapt_epochs:
            old = self._bg_fifo.popleft()
            del self._bg_sorted[bisect.bisect_left(self._bg_sorted, old)]

    def push(self, start: float, probs: np.ndarray) -> list[Decision]:
        """Decide the epoch starting at ``start`` from its per-channel probabilities.

        Parameters
        ----------
        start : float
            Epoch start in signal seconds.
        probs : np.ndarray
            ``(n_channels,)`` P(seizure) per channel.

        Returns
        -------
        list of Decision
            'na' decisions for any epochs skipped since the last push (a gap), then the
            decision for this epoch.
        """
        out: list[Decision] = []
        if self._next_start is not None and start > self._next_start + 1e-6:
            out += self.gap(self._next_start, start)
        probs = np.asarray(probs, dtype=np.float64)
        if probs.shape != (len(self.ch_names),):
            raise ValueError(
                f"expected {len(self.ch_names)} probabilities, got shape {probs.shape}"
            )
        recent, score = self._score(probs)
        return self._decide(start, recent, score, out)

    def _score(self, probs: np.ndarray) -> tuple[np.ndarray, float]:
        """Smoothed channel probabilities ``(n_channels,)`` and the cross-channel score."""
        self._history.append(probs)
        recent = np.mean(list(self._history)[-self.cfg.smooth_epochs :], axis=0)
        if self.scorer is not None:
            return recent, self.scorer.push(recent)
        order = np.argsort(-recent, kind="stable")
        return recent, float(recent[order[: self.k]].mean())

    def _decide(
        self, start: float, recent: np.ndarray, score: float, out: list[Decision]
    ) -> list[Decision]:
        """The decision for the epoch at ``start`` from its smoothed probabilities and score
        (appended to ``out``, which is returned)."""
        cfg = self.cfg
        gate = self._gate(score)
        self._above = self._above + 1 if score >= cfg.threshold_on and gate else 0
        self._scores.append(score)
        self._recent.append(score)
        rise = score - min(self._recent)
        rising = (
            gate and cfg.rise_delta > 0 and score >= cfg.threshold_off and rise >= cfg.rise_delta
        )
        early = False
        if cfg.early_threshold > 0:
            self._above_early = self._above_early + 1 if score >= cfg.early_threshold else 0
            early = gate and self._above_early >= cfg.early_epochs and rise >= cfg.early_rise
        extent_ok = (cfg.min_channels <= 1 and cfg.channel_level <= 0) or int(
            np.count_nonzero(recent >= cfg.channel_level)
        ) >= cfg.min_channels
        if cfg.cusum_h > 0:
            self._cusum = cusum_step(self._cusum, score, self._cusum_ref, cfg.cusum_h)
            counted = gate and self._cusum >= cfg.cusum_h
        else:
            counted = self._above >= cfg.onset_epochs
        onset = (counted or rising or early) and extent_ok
        if not self._in_seizure and onset:
            self._in_seizure, self._event_len = True, 0
            self._event_scores, self._event_channels = [], set()
        elif (
            self._in_seizure
            and np.mean(self._scores) < cfg.threshold_off
            and self._event_len >= cfg.min_duration_epochs
        ):
            self._in_seizure = False
        stop = start + cfg.epoch_s
        if self._in_seizure:
            self._event_len += 1
            self._event_scores.append(score)
            if score >= cfg.threshold_on:  # only confident epochs say where the seizure is
                self._event_channels |= {
                    self.ch_names[i] for i in np.flatnonzero(recent >= cfg.channel_threshold)
                }
            # Confidence of an ongoing seizure: mean score over the buffered part of the event,
            # so one weak epoch inside a seizure does not make the alarm flicker.
            conf = float(np.mean(self._event_scores[-cfg.buffer_epochs :]))
            chans = tuple(c for c in self.ch_names if c in self._event_channels)
            out.append(Decision(start, stop, "seiz", min(1.0, max(conf, 0.5)), chans, score))
        else:
            out.append(Decision(start, stop, "bckg", min(1.0, max(1.0 - score, 0.5)), (), score))
            self._remember_background(score)
        self._next_start = stop
        return out

    def gap(self, start: float, stop: float) -> list[Decision]:
        """Mark ``[start, stop)`` not analysed and reset the state (a gap breaks any event)."""
        cfg = self.cfg
        out = []
        n = int(round((stop - start) / cfg.epoch_s))
        for i in range(n):
            s = start + i * cfg.epoch_s
            out.append(Decision(s, s + cfg.epoch_s, "na", 0.0))
        self._reset()
        self._next_start = start + n * cfg.epoch_s
        return out

    def restart(self, resume_at: float | None = None) -> None:
        """Forget the state after an upstream restart: no event continues across it.

        Parameters
        ----------
        resume_at : float, optional
            Start of the next epoch expected (epochs skipped before the next push are then
            marked 'na'); default: where this postprocessor left off.
        """
        nxt = self._next_start if resume_at is None else resume_at
        self._reset()
        self._next_start = nxt

    def flush(self) -> list[Decision]:
        """End of stream: nothing is pending (decisions are never delayed)."""
        return []


def postprocess_recording(
    epoch_starts: np.ndarray,
    probs: np.ndarray,
    ch_names: list[str],
    config: PostprocessConfig | None = None,
) -> list[Decision]:
    """Offline twin: the same :class:`Postprocessor` run over a whole recording.

    Parameters
    ----------
    epoch_starts : np.ndarray
        ``(n_epochs,)`` epoch start times in seconds.
    probs : np.ndarray
        ``(n_epochs, n_channels)`` P(seizure).
    """
    post = Postprocessor(ch_names, config)
    out: list[Decision] = []
    for t, p in zip(epoch_starts, probs, strict=True):
        out += post.push(float(t), p)
    return out + post.flush()


def score_series(
    epoch_starts: np.ndarray,
    probs: np.ndarray,
    ch_names: list[str],
    config: PostprocessConfig | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The smoothed probabilities and cross-channel scores :func:`postprocess_recording` would
    compute, for reuse by every configuration that shares them (:func:`postprocess_scored`).

    Returns
    -------
    (recents (n_epochs, n_channels), scores (n_epochs,)) or None
        None where they are not a function of the probabilities alone: epochs that are not
        contiguous (a gap resets the state). A learnt cross-channel stage's scores are (its
        window is the last epochs' smoothed probabilities), computed epoch by epoch by the
        online object itself.
    """
    post = Postprocessor(ch_names, config)
    starts = np.asarray(epoch_starts, dtype=np.float64)
    step = post.cfg.epoch_s
    if starts.size > 1 and np.abs(np.diff(starts) - step).max() > 1e-6:
        return None
    if post.scorer is not None or post.k > MAX_N:  # epoch by epoch, the online code
        pairs = [post._score(np.asarray(q, dtype=np.float64)) for q in probs]
        return np.array([q[0] for q in pairs]), np.array([q[1] for q in pairs], np.float64)
    # the per-epoch arithmetic of Postprocessor._score, for all epochs at once and bit for bit
    # (tested): np.mean over the history's rows adds them in order (an axis-0 reduction), the
    # top-k mean is numpy's pairwise sum of the k largest (rt_eeg.pairwise)
    p = np.asarray(probs, dtype=np.float64).reshape(len(starts), len(post.ch_names))
    n, m = len(p), max(1, min(post.cfg.smooth_epochs, post.cfg.buffer_epochs))
    recents = np.empty_like(p)
    for i in range(min(n, m - 1)):  # the first epochs average fewer rows
        acc = p[0].copy()
        for r in p[1 : i + 1]:
            acc = acc + r
        recents[i] = acc / (i + 1)
    if n >= m:
        acc = p[: n - m + 1].copy()
        for j in range(1, m):
            acc = acc + p[j : j + n - m + 1]
        recents[m - 1 :] = acc / m
    order = np.argsort(-recents, axis=1, kind="stable")[:, : post.k]
    top = np.take_along_axis(recents, order, axis=1)
    scores = pairwise_rows([top[:, j] for j in range(post.k)]) / post.k
    return recents, scores


def score_key(cfg: PostprocessConfig, ch_names: list[str]) -> tuple:
    """What :func:`score_series` depends on besides the probabilities: the epochs smoothed
    and the channels averaged, or the learnt cross-channel stage, whose score does not read
    ``top_k`` (configurations with equal keys share their series)."""
    smooth = min(cfg.smooth_epochs, cfg.buffer_epochs)
    if cfg.cross_channel is not None:
        return smooth, 0, cfg.cross_channel
    return smooth, effective_top_k(cfg, ch_names), None


def postprocess_scored(
    epoch_starts: np.ndarray,
    series: tuple[np.ndarray, np.ndarray],
    ch_names: list[str],
    config: PostprocessConfig | None = None,
) -> list[Decision]:
    """:func:`postprocess_recording` from the recording's :func:`score_series` (computed with
    a configuration of the same :func:`score_key`): the same decisions, the scoring skipped."""
    post = Postprocessor(ch_names, config)
    out: list[Decision] = []
    for t, recent, score in zip(epoch_starts, series[0], series[1], strict=True):
        post._decide(float(t), recent, float(score), out)
    return out + post.flush()


def complete_decisions(
    decisions: list[Decision], duration: float, epoch_s: float = 1.0
) -> list[Decision]:
    """Cover ``[0, duration]``: 'na' for epochs without a decision, last epoch cut at the end.

    The HYP and the event files must end exactly at the recording's end (NEDC requires
    reference and hypothesis to end at the same time).
    """
    by_start = {round(d.start / epoch_s): d for d in decisions}
    n = int(np.ceil(duration / epoch_s - 1e-9))
    out = []
    for i in range(n):
        d = by_start.get(i) or Decision(i * epoch_s, (i + 1) * epoch_s, "na", 0.0)
        stop = min(d.stop, duration)
        out.append(dataclasses.replace(d, stop=stop) if stop != d.stop else d)
    return out


def decisions_to_events(decisions: list[Decision]) -> list[Event]:
    """Merge consecutive SEIZ epochs into TERM seizure events (confidence = mean score)."""
    events: list[Event] = []
    run: list[Decision] = []

    def close():
        if run:
            conf = float(np.clip(np.mean([d.confidence for d in run]), 0, 1))
            events.append(Event(run[0].start, run[-1].stop, "seiz", round(conf, 4)))

    for d in decisions:
        if d.label == "seiz" and run and abs(d.start - run[-1].stop) < 1e-6:
            run.append(d)
        else:
            close()
            run = [d] if d.label == "seiz" else []
    close()
    return events
