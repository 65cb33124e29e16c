"""Scoring of hypothesis annotations against references.

NEDC EEG evaluation v6.0.0 (OVLP, TAES, EPOCH; :mod:`rt_eeg.scoring.nedc`) and SzCORE event
scoring (:mod:`rt_eeg.scoring.szcore`).

Result layout of :func:`score_pairs` / :func:`score_files`::

    {
      "ovlp":  {"seiz": {...}, "bckg": {...}, "total": {...}},
      "taes":  {"seiz": {...}, "bckg": {...}, "total": {...}},
      "epoch": {"seiz": {...}, "bckg": {...}, "total": {...}, "confusion": {...}, "epoch_s": 0.25},
      "szcore": {"ref_events", "tp", "fp", "misses", "sensitivity", "precision", "f1",
                 "fa_per_24h", "duration_s"},
      "total_duration_s": float, "n_files": int,
      "files": [{"ref", "hyp", "duration_s", "ovlp": [hit, miss, fa], "taes": [...],
                 "epoch": [hits, subs, ins, dels]}, ...],
    }

Each label dict holds targets, hits, misses, false_alarms, insertions, deletions, tp, tn,
fp, fn and the derived measures: sensitivity, specificity, precision, npv, miss_rate, fpr,
fdr, false_omission_rate, accuracy, misclassification_rate, prevalence (percent, ``None``
where the denominator is zero), f1 and mcc (fractions) and fa_per_24h.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import Annotation, read_annotation
from rt_eeg.io.corpus import read_list
from rt_eeg.scoring.nedc import (
    check_same_end,
    prepare_events,
    score_epoch,
    score_ovlp,
    score_taes,
)
from rt_eeg.scoring.report import format_summary
from rt_eeg.scoring.szcore import score_szcore

__all__ = ["format_summary", "read_file_list", "score_files", "score_pairs"]


def score_pairs(pairs: Sequence[tuple[Annotation, Annotation]]) -> dict:
    """Score (reference, hypothesis) annotation pairs with OVLP, TAES, EPOCH and SzCORE.

    Parameters
    ----------
    pairs : sequence of (Annotation, Annotation)
        One pair per recording. The hypothesis must end where the reference ends (its
        ``duration``, or last stop time when it has no duration header).

    Returns
    -------
    dict
        See the module docstring.

    Raises
    ------
    RtEegError
        No pairs, durations that differ, overlapping events, unknown labels.
    """
    if not pairs:
        raise RtEegError("nothing to score: no reference/hypothesis pairs")
    prepared = []
    durations = []
    files = []
    for ref_ann, hyp_ann in pairs:
        ref = prepare_events(ref_ann)
        hyp_dur = hyp_ann.duration if hyp_ann.duration is not None else ref_ann.duration
        hyp = prepare_events(hyp_ann, duration=hyp_dur)
        check_same_end(ref, hyp, ref_ann.path, hyp_ann.path)
        prepared.append((ref, hyp))
        durations.append(ref[-1].stop)
        files.append(
            {
                "ref": None if ref_ann.path is None else str(ref_ann.path),
                "hyp": None if hyp_ann.path is None else str(hyp_ann.path),
                "duration_s": ref[-1].stop,
            }
        )
    # NEDC accumulates the reference end times
    total_duration = 0.0
    for d in durations:
        total_duration += d
    ovlp, ovlp_files = score_ovlp(prepared, total_duration)
    taes, taes_files = score_taes(prepared, total_duration)
    epoch, epoch_files = score_epoch(prepared, total_duration)
    for f, o, t, e in zip(files, ovlp_files, taes_files, epoch_files, strict=True):
        f["ovlp"] = list(o)
        f["taes"] = list(t)
        f["epoch"] = list(e)
    return {
        "ovlp": ovlp,
        "taes": taes,
        "epoch": epoch,
        "szcore": score_szcore(prepared, durations),
        "total_duration_s": total_duration,
        "n_files": len(prepared),
        "files": files,
    }


def score_files(
    ref_paths: Sequence[str | os.PathLike], hyp_paths: Sequence[str | os.PathLike]
) -> dict:
    """Read and score annotation files pairwise (any format :func:`read_annotation` reads)."""
    ref_paths = list(ref_paths)
    hyp_paths = list(hyp_paths)
    if len(ref_paths) != len(hyp_paths):
        raise RtEegError(
            f"{len(ref_paths)} reference files but {len(hyp_paths)} hypothesis files "
            "(the lists must pair up line by line)"
        )
    pairs = [
        (read_annotation(r), read_annotation(h)) for r, h in zip(ref_paths, hyp_paths, strict=True)
    ]
    return score_pairs(pairs)


def read_file_list(path: str | os.PathLike) -> list[Path]:
    """Read a list file of annotation paths (see :func:`rt_eeg.io.corpus.read_list`)."""
    return read_list(path, "annotation files")
