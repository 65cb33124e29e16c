"""NEDC EEG evaluation (nedc_eeg_eval v6.0.0): OVLP, TAES and EPOCH scoring, reimplemented.

The scoring rules, including their quirks, follow the reference software so that the figures
agree with it to 4 decimals:

* Preparation (``nedc_eeg_eval_common.parse_files``): TERM events sorted by start; gaps filled
  with 'bckg' whose times are rounded to 4 decimals; consecutive events of the same label
  joined (keeping the first confidence). The reference file's end time (its duration) is
  added to the total duration.
* Labels are scored in the order SEIZ, BCKG; every event, background included, is a target.
* OVLP: a reference event is a hit when any hypothesis event of the same label overlaps it
  (``hyp.stop > ref.start and hyp.start < ref.stop``: touching is not overlapping), else a
  miss; a hypothesis event that overlaps no reference event of its label is a false alarm.
* TAES: fractional hits / misses / false alarms from the overlap durations relative to the
  reference event (``calc_hf``), with the reference's bookkeeping of consumed events and its
  coarse "any overlap" test on whole seconds (``int(start) .. int(stop)``).
* EPOCH: both annotations are sampled at the middle of 0.25 s epochs (0.125, 0.375, ... up
  to the reference end time) into a SEIZ/BCKG confusion matrix; false alarms are counted
  relative to the null class BCKG, and the false-alarm rate scales by the epoch length.
* Derived measures per label from (TP, TN, FP, FN) with TN = hits of the other labels
  (OVLP, TAES) or the confusion matrix (EPOCH); FA rate = FP / total duration * 86400. The
  summary F1 divides by the last label's (BCKG) precision + sensitivity, as the reference
  does.

Where the reference software would crash or silently produce inverted intervals, we refuse
the input instead (see :func:`prepare_events`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import TERM, Annotation, binary_label

__all__ = [
    "EPOCH_DURATION",
    "LABELS",
    "ScoreEvent",
    "derived_measures",
    "finish",
    "epoch_counts",
    "epoch_tables",
    "event_tables",
    "ovlp_counts",
    "prepare_events",
    "score_epoch",
    "score_ovlp",
    "score_taes",
    "taes_counts",
]

#: Scoring labels in the order of the NEDC parameter file's [MAP] (SEIZ first).
LABELS: tuple[str, str] = ("seiz", "bckg")
NULL_CLASS = "bckg"
EPOCH_DURATION = 0.25
SECONDS_PER_DAY = 60 * 60 * 24
#: Decimals used by NEDC for cursory float comparisons (ndt.MIN_PRECISION).
MIN_PRECISION = 4
#: Decimals used by NEDC for "is zero" checks (ndt.MAX_PRECISION).
MAX_PRECISION = 10


@dataclass(frozen=True)
class ScoreEvent:
    """A binary event ready for scoring: seconds, label 'seiz' or 'bckg'."""

    start: float
    stop: float
    label: str
    confidence: float = 1.0


# --------------------------------------------------------------------------------------------
# preparation


def prepare_events(ann: Annotation, *, duration: float | None = None) -> list[ScoreEvent]:
    """Turn an annotation into the contiguous binary event list NEDC scores.

    Parameters
    ----------
    ann : Annotation
        TERM events are used; when there are none, the union of the per-channel seizure
        events stands in for them (NEDC itself would score such a file as background only).
    duration : float, optional
        Recording length in seconds; default ``ann.duration`` (the ``# duration`` header).

    Returns
    -------
    list of ScoreEvent
        Covering [0, duration] without gaps; filler 'bckg' events start and stop at times
        rounded to 4 decimals; adjacent events of the same label joined.

    Raises
    ------
    RtEegError
        Unknown labels, overlapping events, no duration.
    """
    path = ann.path
    dur = ann.duration if duration is None else duration
    if dur is None or not math.isfinite(dur) or dur <= 0:
        raise RtEegError("annotation has no positive duration to score against", path)
    try:
        term = [ev for ev in ann.events if ev.channel == TERM]
        if term:
            events = [
                ScoreEvent(ev.start, ev.stop, binary_label(ev.label), ev.confidence) for ev in term
            ]
        else:
            events = _channel_union(ann)
    except RtEegError as err:
        raise RtEegError(err.problem, path) from None
    events.sort(key=lambda e: e.start)  # stable, like NEDC's sort on start time
    for a, b in zip(events, events[1:], strict=False):
        if b.start < a.stop:
            raise RtEegError(
                f"overlapping events {a.label} [{a.start:.4f}, {a.stop:.4f}] and "
                f"{b.label} [{b.start:.4f}, {b.stop:.4f}]",
                path,
            )
    # events past the end of the recording: clipped; wholly past it: dropped (NEDC would
    # produce an inverted background interval here)
    end = round(dur, MIN_PRECISION)
    clipped: list[ScoreEvent] = []
    for ev in events:
        if ev.start >= end:
            continue
        clipped.append(ev if ev.stop <= end else ScoreEvent(ev.start, end, ev.label, ev.confidence))
    return _join_repeats(_augment(clipped, dur))


def _channel_union(ann: Annotation) -> list[ScoreEvent]:
    seiz = sorted(
        (ev for ev in ann.events if binary_label(ev.label) == "seiz"), key=lambda e: e.start
    )
    out: list[ScoreEvent] = []
    for ev in seiz:
        if out and ev.start <= out[-1].stop:
            last = out[-1]
            out[-1] = ScoreEvent(last.start, max(last.stop, ev.stop), "seiz", last.confidence)
        else:
            out.append(ScoreEvent(ev.start, ev.stop, "seiz", ev.confidence))
    return out


def _augment(events: Sequence[ScoreEvent], duration: float) -> list[ScoreEvent]:
    """Fill gaps with background (``augment_annotation``): filler times rounded to 4 dp."""
    dur = round(duration, MIN_PRECISION)
    out: list[ScoreEvent] = []
    t = 0.0
    for ev in events:
        start = round(ev.start, MIN_PRECISION)
        if t != start:
            out.append(ScoreEvent(t, start, NULL_CLASS, 1.0))
        out.append(ev)
        t = round(ev.stop, MIN_PRECISION)
    if t != dur:
        out.append(ScoreEvent(t, dur, NULL_CLASS, 1.0))
    return out


def _join_repeats(events: Sequence[ScoreEvent]) -> list[ScoreEvent]:
    """Join runs of the same label (``remove_repeated_events``), first confidence kept."""
    out: list[ScoreEvent] = []
    for ev in events:
        if out and out[-1].label == ev.label:
            first = out[-1]
            out[-1] = ScoreEvent(first.start, ev.stop, first.label, first.confidence)
        else:
            out.append(ev)
    return out


def check_same_end(ref: Sequence[ScoreEvent], hyp: Sequence[ScoreEvent], ref_path, hyp_path):
    """NEDC requires both annotations to end at the same time (to 4 decimals)."""
    r, h = round(ref[-1].stop, MIN_PRECISION), round(hyp[-1].stop, MIN_PRECISION)
    if r != h:
        hyp_name = f"hypothesis {hyp_path}" if hyp_path is not None else "the hypothesis"
        raise RtEegError(
            f"reference ends at {r:.4f} s but {hyp_name} ends at {h:.4f} s (durations must match)",
            ref_path,
        )


# --------------------------------------------------------------------------------------------
# OVLP


def _overlaps(a_start: float, a_stop: float, b_start: float, b_stop: float) -> bool:
    # strict: an event that stops exactly where the other starts does not overlap it
    return b_stop > a_start and b_start < a_stop


def ovlp_counts(ref: Sequence[ScoreEvent], hyp: Sequence[ScoreEvent]) -> dict[str, dict[str, int]]:
    """Any-overlap counts for one file: {label: {targets, hits, misses, false_alarms}}."""
    counts = {lab: {"targets": 0, "hits": 0, "misses": 0, "false_alarms": 0} for lab in LABELS}
    for r in ref:
        c = counts[r.label]
        c["targets"] += 1
        if any(h.label == r.label and _overlaps(r.start, r.stop, h.start, h.stop) for h in hyp):
            c["hits"] += 1
        else:
            c["misses"] += 1
    for h in hyp:
        if not any(r.label == h.label and _overlaps(h.start, h.stop, r.start, r.stop) for r in ref):
            counts[h.label]["false_alarms"] += 1
    return counts


# --------------------------------------------------------------------------------------------
# TAES


def _any_overlap_whole_seconds(r: ScoreEvent, h: ScoreEvent) -> bool:
    # NEDC's anyovlp: the sets {int(start), ..., int(stop)} of the two events intersect
    return int(r.start) <= int(h.stop) and int(h.start) <= int(r.stop)


def _hit_fa(r: ScoreEvent, h: ScoreEvent) -> tuple[float, float]:
    """Fractional hit and false alarm of hypothesis ``h`` against reference ``r``."""
    ref_dur = r.stop - r.start
    if h.start <= r.start and h.stop <= r.stop:  # starts early, stops inside
        return (h.stop - r.start) / ref_dur, min((r.start - h.start) / ref_dur, 1.0)
    if h.start >= r.start and h.stop >= r.stop:  # starts inside, stops late
        return (r.stop - h.start) / ref_dur, min((h.stop - r.stop) / ref_dur, 1.0)
    if h.start < r.start and h.stop > r.stop:  # covers the reference
        return 1.0, min(((h.stop - r.stop) + (r.start - h.start)) / ref_dur, 1.0)
    return (h.stop - h.start) / ref_dur, 0.0  # inside the reference


def taes_counts(
    ref: Sequence[ScoreEvent], hyp: Sequence[ScoreEvent]
) -> tuple[dict[str, dict[str, float]], tuple[float, float, float]]:
    """Time-aligned event scoring of one file.

    Returns
    -------
    counts : dict
        {label: {targets, hits, misses, false_alarms}} (fractional).
    file_totals : tuple of float
        (hit, miss, false_alarm) summed over labels, as in NEDC's per-file report.
    """
    counts = {
        lab: {"targets": 0.0, "hits": 0.0, "misses": 0.0, "false_alarms": 0.0} for lab in LABELS
    }
    ref_free = [True] * len(ref)  # not yet consumed by a partial match
    hyp_free = [True] * len(hyp)
    hit = mis = fal = 0.0
    for i, r in enumerate(ref):
        counts[r.label]["targets"] += 1
        strictly_overlapped = any(
            h.label == r.label and _overlaps(r.start, r.stop, h.start, h.stop) for h in hyp
        )
        if not (strictly_overlapped and ref_free[i]):
            continue
        for j, h in enumerate(hyp):
            if h.label != r.label or not hyp_free[j]:
                continue
            p_hit, p_mis, p_fa = _taes_partial(ref, hyp, i, j, ref_free, hyp_free)
            hit += p_hit
            mis += p_mis
            fal += p_fa
            c = counts[r.label]  # NEDC books partial false alarms on the reference label
            c["hits"] += p_hit
            c["misses"] += p_mis
            c["false_alarms"] += p_fa
    # events never consumed count as whole misses / false alarms of their own label
    for i, r in enumerate(ref):
        if ref_free[i]:
            counts[r.label]["misses"] += 1
            mis += 1
    for j, h in enumerate(hyp):
        if hyp_free[j]:
            counts[h.label]["false_alarms"] += 1
            fal += 1
    return counts, (hit, mis, fal)


def _taes_partial(ref, hyp, i, j, ref_free, hyp_free) -> tuple[float, float, float]:
    r, h = ref[i], hyp[j]
    if not _any_overlap_whole_seconds(r, h):
        return 0.0, 0.0, 0.0
    p_hit, p_fa = _hit_fa(r, h)
    p_mis = 1.0 - p_hit
    ref_free[i] = False
    hyp_free[j] = False
    if h.stop >= r.stop:
        # the hypothesis may run over later references of its label: each is a whole miss
        for k in range(i + 1, len(ref)):
            if ref[k].label == h.label and _any_overlap_whole_seconds(ref[k], h):
                ref_free[k] = False
                p_mis += 1.0
    else:
        # later hypotheses of the label inside this reference add to its hit and false alarm
        for k in range(j + 1, len(hyp)):
            if hyp[k].label == r.label and _any_overlap_whole_seconds(r, hyp[k]):
                hyp_free[k] = False
                k_hit, k_fa = _hit_fa(r, hyp[k])
                p_hit += k_hit
                p_mis -= k_hit
                p_fa += k_fa
    return p_hit, p_mis, p_fa


# --------------------------------------------------------------------------------------------
# EPOCH


def _index_at(t: float, events: Sequence[ScoreEvent]) -> int:
    # first event with start <= t <= stop; NEDC falls back to index -1 (the last event)
    for idx, ev in enumerate(events):
        if ev.start <= t <= ev.stop:
            return idx
    return -1


def epoch_counts(
    ref: Sequence[ScoreEvent], hyp: Sequence[ScoreEvent], epoch: float = EPOCH_DURATION
) -> tuple[dict[str, dict[str, int]], tuple[int, int, int, int]]:
    """Sample both annotations every ``epoch`` seconds (at epoch centres).

    Returns
    -------
    confusion : dict
        confusion[ref_label][hyp_label] = number of epochs.
    file_totals : tuple of int
        (hits, substitutions, insertions, deletions) over the run-length-compressed label
        sequences, as NEDC's per-file epoch report counts them.
    """
    confusion = {a: dict.fromkeys(LABELS, 0) for a in LABELS}
    ref_seq = ["***"]
    hyp_seq = ["***"]
    stop_time = ref[-1].stop
    half = epoch / 2.0
    n = 0
    t = half
    while t <= stop_time:
        a = ref[_index_at(t, ref)].label
        b = hyp[_index_at(t, hyp)].label
        confusion[a][b] += 1
        ref_seq.append(a)
        hyp_seq.append(b)
        n += 1
        t = half + n * epoch  # integer counter: no accumulated round-off
    ref_seq.append("***")
    hyp_seq.append("***")
    ref_c, hyp_c = [ref_seq[0]], [hyp_seq[0]]
    for k in range(1, len(ref_seq)):
        if ref_seq[k] != ref_seq[k - 1] or hyp_seq[k] != hyp_seq[k - 1]:
            ref_c.append(ref_seq[k])
            hyp_c.append(hyp_seq[k])
    hits = subs = ins = dels = 0
    for a, b in zip(ref_c[1:-1], hyp_c[1:-1], strict=True):
        if a == "***" and b != "***":
            ins += 1
        elif a != "***" and b == "***":
            dels += 1
        elif a != b:
            subs += 1
        else:
            hits += 1
    return confusion, (hits, subs, ins, dels)


# --------------------------------------------------------------------------------------------
# derived measures


def _ratio(num: float, den: float) -> float | None:
    return num / den if den != 0 else None


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def _complement_pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * (1.0 - x)


def _mcc(tp, tn, fp, fn) -> float:
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    # <= 0: NEDC's counts can go negative on sub-epoch events (found by fuzzing); no sqrt
    if round(den, MAX_PRECISION) <= 0:
        return 0.0
    return (tp * tn - fp * fn) / math.sqrt(den)


def derived_measures(tp, tn, fp, fn, *, total_duration: float, fa_scale: float = 1.0) -> dict:
    """NEDC's derived measures of one 2x2 table.

    Percentages are ``None`` where their denominator is zero (NEDC prints 0 there). F1 is
    a fraction in [0, 1] (0 when precision + sensitivity is 0, as NEDC). ``fa_scale``
    converts FP counts to events (the epoch length for EPOCH scoring).
    """
    tpr = _ratio(tp, tp + fn)
    tnr = _ratio(tn, tn + fp)
    ppv = _ratio(tp, tp + fp)
    npv = _ratio(tn, tn + fn)
    total = tp + tn + fp + fn
    acc = _ratio(tp + tn, total)
    prv = _ratio(tp + fn, total)
    f1_den = (ppv or 0.0) + (tpr or 0.0)
    f1 = 0.0 if round(f1_den, MAX_PRECISION) == 0 else 2.0 * (ppv or 0.0) * (tpr or 0.0) / f1_den
    fa_rate = 0.0 if round(total_duration, MAX_PRECISION) == 0 else fp * fa_scale / total_duration
    return {
        "sensitivity": _pct(tpr),
        "specificity": _pct(tnr),
        "precision": _pct(ppv),
        "npv": _pct(npv),
        "miss_rate": _complement_pct(tpr),
        "fpr": _complement_pct(tnr),
        "fdr": _complement_pct(ppv),
        "false_omission_rate": _complement_pct(npv),
        "accuracy": _pct(acc),
        "misclassification_rate": _complement_pct(acc),
        "prevalence": _pct(prv),
        "f1": f1,
        "mcc": _mcc(tp, tn, fp, fn),
        "fa_per_24h": fa_rate * SECONDS_PER_DAY,
    }


def _f1_denominator(label_result: dict) -> float:
    return ((label_result["precision"] or 0.0) + (label_result["sensitivity"] or 0.0)) / 100.0


def finish(
    per_label: dict[str, dict], total_duration: float, *, fa_scale: float = 1.0
) -> dict[str, dict]:
    """Add TP/TN/FP/FN-derived measures per label and the NEDC summary ("total")."""
    out: dict[str, dict] = {}
    for lab in LABELS:
        c = per_label[lab]
        out[lab] = {
            **c,
            **derived_measures(
                c["tp"], c["tn"], c["fp"], c["fn"], total_duration=total_duration, fa_scale=fa_scale
            ),
        }
    keys = ("targets", "hits", "misses", "false_alarms", "insertions", "deletions")
    total = {k: sum(per_label[lab][k] for lab in LABELS) for k in keys}
    tp = sum(per_label[lab]["tp"] for lab in LABELS)
    tn = sum(per_label[lab]["tn"] for lab in LABELS)
    fp = sum(per_label[lab]["fp"] for lab in LABELS)
    fn = sum(per_label[lab]["fn"] for lab in LABELS)
    summary = derived_measures(tp, tn, fp, fn, total_duration=total_duration, fa_scale=fa_scale)
    # NEDC divides the summary F1 by the last label's (precision + sensitivity)
    last_den = _f1_denominator(out[LABELS[-1]])
    sens = (summary["sensitivity"] or 0.0) / 100.0
    prec = (summary["precision"] or 0.0) / 100.0
    f1 = 0.0 if round(last_den, MAX_PRECISION) == 0 else 2.0 * prec * sens / last_den
    out["total"] = {
        **total,
        "tp": tp,
        "fp": fp,
        "sensitivity": summary["sensitivity"],
        "miss_rate": summary["miss_rate"],
        "accuracy": summary["accuracy"],
        "misclassification_rate": summary["misclassification_rate"],
        "prevalence": summary["prevalence"],
        "f1": f1,
        "mcc": summary["mcc"],
        "total_duration_s": total_duration,
        "total_false_alarms": fp,  # NEDC prints the unscaled count (epochs for EPOCH)
        "fa_per_24h": summary["fa_per_24h"],
    }
    return out


def event_tables(counts: dict[str, dict[str, float]]) -> dict[str, dict]:
    """OVLP/TAES: TP = hits, TN = hits of the other labels, FP = false alarms, FN = misses."""
    out = {}
    for lab in LABELS:
        c = counts[lab]
        out[lab] = {
            "targets": c["targets"],
            "hits": c["hits"],
            "misses": c["misses"],
            "false_alarms": c["false_alarms"],
            "insertions": c["false_alarms"],
            "deletions": c["misses"],
            "tp": c["hits"],
            "tn": sum(counts[o]["hits"] for o in LABELS if o != lab),
            "fp": c["false_alarms"],
            "fn": c["misses"],
        }
    return out


def _zero_counts(value=0):
    return {
        lab: {"targets": value, "hits": value, "misses": value, "false_alarms": value}
        for lab in LABELS
    }


def _add_counts(acc, counts):
    for lab in LABELS:
        for k, v in counts[lab].items():
            acc[lab][k] += v


def score_ovlp(pairs: Sequence[tuple[list[ScoreEvent], list[ScoreEvent]]], total_duration: float):
    """OVLP over prepared pairs: (result dict, per-file (hit, miss, fa) list)."""
    acc = _zero_counts(0)
    per_file = []
    for ref, hyp in pairs:
        c = ovlp_counts(ref, hyp)
        _add_counts(acc, c)
        per_file.append(
            tuple(sum(c[lab][k] for lab in LABELS) for k in ("hits", "misses", "false_alarms"))
        )
    return finish(event_tables(acc), total_duration), per_file


def score_taes(pairs: Sequence[tuple[list[ScoreEvent], list[ScoreEvent]]], total_duration: float):
    """TAES over prepared pairs: (result dict, per-file (hit, miss, fa) list)."""
    acc = _zero_counts(0.0)
    per_file = []
    for ref, hyp in pairs:
        c, totals = taes_counts(ref, hyp)
        _add_counts(acc, c)
        per_file.append(totals)
    return finish(event_tables(acc), total_duration), per_file


def score_epoch(
    pairs: Sequence[tuple[list[ScoreEvent], list[ScoreEvent]]],
    total_duration: float,
    epoch: float = EPOCH_DURATION,
):
    """EPOCH over prepared pairs: (result dict with "confusion", per-file totals list)."""
    conf = {a: dict.fromkeys(LABELS, 0) for a in LABELS}
    per_file = []
    for ref, hyp in pairs:
        c, totals = epoch_counts(ref, hyp, epoch)
        for a in LABELS:
            for b in LABELS:
                conf[a][b] += c[a][b]
        per_file.append(totals)
    return epoch_tables(conf, total_duration, epoch), per_file


def epoch_tables(
    confusion: dict[str, dict[str, int]], total_duration: float, epoch: float = EPOCH_DURATION
) -> dict:
    """EPOCH results from a summed confusion matrix ``confusion[ref][hyp]`` (epoch counts)."""
    per_label = {}
    for lab in LABELS:
        others = [o for o in LABELS if o != lab]
        per_label[lab] = {
            "targets": sum(confusion[lab].values()),
            "hits": confusion[lab][lab],
            "misses": sum(confusion[lab][o] for o in others),
            # false alarms, insertions and deletions are relative to the null class (bckg)
            "false_alarms": confusion[NULL_CLASS][lab] if lab != NULL_CLASS else 0,
            "insertions": confusion[NULL_CLASS][lab] if lab != NULL_CLASS else 0,
            "deletions": confusion[lab][NULL_CLASS] if lab != NULL_CLASS else 0,
            "tp": confusion[lab][lab],
            "tn": sum(confusion[a][b] for a in others for b in others),
            "fp": sum(confusion[o][lab] for o in others),
            "fn": sum(confusion[lab][o] for o in others),
        }
    result = finish(per_label, total_duration, fa_scale=epoch)
    result["confusion"] = {a: dict(confusion[a]) for a in LABELS}
    result["epoch_s"] = epoch
    return result
