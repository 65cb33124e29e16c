"""SzCORE event scoring through the ``timescoring`` package (EpilepsyBench conventions).

Defaults of ``timescoring.scoring.EventScoring.Parameters``: a reference seizure counts as
detected when a hypothesis seizure overlaps it extended by 30 s before and 60 s after;
events closer than 90 s are merged and events longer than 5 min are split; a hypothesis
event that touches no detected (extended) reference is a false positive. Counts are summed
over recordings (micro average) as the SzCORE framework does.
"""

from __future__ import annotations

from collections.abc import Sequence

from rt_eeg.scoring.nedc import ScoreEvent

__all__ = ["SZCORE_FS", "score_szcore", "szcore_counts"]

#: Annotation sampling rate handed to timescoring (it works at 10 Hz internally).
SZCORE_FS = 10
SECONDS_PER_DAY = 60 * 60 * 24


def _seizures(events: Sequence[ScoreEvent]) -> list[tuple[float, float]]:
    return [(ev.start, ev.stop) for ev in events if ev.label == "seiz"]


def szcore_counts(
    ref: Sequence[ScoreEvent], hyp: Sequence[ScoreEvent], duration: float
) -> dict[str, float]:
    """Event scoring of one recording.

    Parameters
    ----------
    ref, hyp : sequence of ScoreEvent
        Prepared binary events (see :func:`rt_eeg.scoring.nedc.prepare_events`).
    duration : float
        Recording length in seconds.

    Returns
    -------
    dict
        ``ref_events`` (after merging/splitting), ``tp``, ``fp``, ``duration_s``.
    """
    from timescoring.annotations import Annotation as TsAnnotation
    from timescoring.scoring import EventScoring

    # at least one sample: timescoring divides by the length (a 2 ms file crashed it)
    n_samples = max(1, round(duration * SZCORE_FS))
    ts_ref = TsAnnotation(_seizures(ref), SZCORE_FS, n_samples)
    ts_hyp = TsAnnotation(_seizures(hyp), SZCORE_FS, n_samples)
    scores = EventScoring(ts_ref, ts_hyp)
    return {
        "ref_events": int(scores.refTrue),
        "tp": int(scores.tp),
        "fp": int(scores.fp),
        "duration_s": n_samples / SZCORE_FS,
    }


def score_szcore(
    pairs: Sequence[tuple[Sequence[ScoreEvent], Sequence[ScoreEvent]]],
    durations: Sequence[float],
) -> dict:
    """Micro-averaged SzCORE event scores over recordings.

    Returns
    -------
    dict
        ``ref_events``, ``tp``, ``fp``, ``misses``, ``sensitivity`` and ``precision`` (percent,
        ``None`` when undefined), ``f1`` (fraction, ``None`` without any event),
        ``fa_per_24h``, ``duration_s``.
    """
    ref_events = tp = fp = 0
    total = 0.0
    for (ref, hyp), dur in zip(pairs, durations, strict=True):
        c = szcore_counts(ref, hyp, dur)
        ref_events += c["ref_events"]
        tp += c["tp"]
        fp += c["fp"]
        total += c["duration_s"]
    sens = 100.0 * tp / ref_events if ref_events else None
    prec = 100.0 * tp / (tp + fp) if tp + fp else None
    f1 = 2 * tp / (2 * tp + fp + (ref_events - tp)) if ref_events + fp else None
    return {
        "ref_events": ref_events,
        "tp": tp,
        "fp": fp,
        "misses": ref_events - tp,
        "sensitivity": sens,
        "precision": prec,
        "f1": f1,
        "fa_per_24h": fp / total * SECONDS_PER_DAY if total > 0 else 0.0,
        "duration_s": total,
    }
