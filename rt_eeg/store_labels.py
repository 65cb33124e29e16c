"""Epoch labels of a recording's channels from its reference annotations.

Epoch ``e`` of a channel is 'seiz' when seizure events of that channel (per-channel ``.csv``
beside the EDF when present, else the recording's TERM events applied to every channel) cover
at least half of ``[e, e + 1)`` seconds. The training store (:mod:`rt_eeg.store`) holds these
labels, one row per complete epoch of every channel.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rt_eeg.decoder import EPOCH_S
from rt_eeg.errors import RtEegError

#: Fraction of an epoch seizure events must cover for the epoch to be labelled 'seiz'.
SEIZURE_FRACTION = 0.5


def _merge(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def epoch_labels_from_intervals(
    intervals: Sequence[tuple[float, float]], n_epochs: int
) -> np.ndarray:
    """Epoch labels from seizure intervals.

    Parameters
    ----------
    intervals : sequence of (start, stop) in seconds
    n_epochs : int

    Returns
    -------
    labels : ndarray of uint8, shape (n_epochs,)
        1 where the (merged) intervals cover >= half of ``[e, e + 1)``.
    """
    starts = np.arange(n_epochs, dtype=np.float64) * EPOCH_S
    covered = np.zeros(n_epochs, np.float64)
    for a, b in _merge([(float(a), float(b)) for a, b in intervals]):
        covered += np.clip(np.minimum(b, starts + EPOCH_S) - np.maximum(a, starts), 0.0, None)
    return (covered >= SEIZURE_FRACTION * EPOCH_S).astype(np.uint8)


def per_channel_file(edf, channel_ref=None) -> Path | None:
    """The per-channel TUSZ ``.csv`` a recording's labels come from: ``channel_ref``, else the
    ``.csv`` beside the EDF when it exists, else None."""
    if channel_ref is not None:
        return Path(channel_ref)
    beside = Path(edf).with_suffix(".csv")
    return beside if beside.is_file() else None


def channel_labels(
    edf: Path,
    ref: Path | None,
    ch_names: Sequence[str],
    n_epochs: int,
    channel_ref: Path | None = None,
) -> np.ndarray:
    """Per-channel epoch labels of one recording.

    Uses the per-channel TUSZ ``.csv`` (``channel_ref``, or the ``.csv`` beside the EDF) when
    it exists: events of a channel apply to that channel, channels without events are
    background. Otherwise ``ref`` (``.csv_bi``, ``.tse_bi``... or a CHB-MIT summary file)
    whose whole-recording (TERM) seizures apply to every channel.

    Returns
    -------
    labels : ndarray of uint8, shape (n_epochs, n_channels)
    """
    from rt_eeg.io.annotations import binary_label, read_annotation

    channel_ref = per_channel_file(edf, channel_ref)
    path = channel_ref if channel_ref is not None else ref
    if path is None:
        raise RtEegError("no reference annotation for this recording", edf)
    by_channel: dict[str, list[tuple[float, float]]] = {}
    annotated: set[str] = set()
    if Path(path).name.endswith("-summary.txt"):
        from rt_eeg.io.corpus import parse_chbmit_summary

        by_channel["TERM"] = list(parse_chbmit_summary(path).get(edf.name, []))
    else:
        for ev in read_annotation(path).events:
            annotated.add(ev.channel.upper())
            if binary_label(ev.label) == "seiz":
                by_channel.setdefault(ev.channel.upper(), []).append((ev.start, ev.stop))
    term = by_channel.get("TERM", [])
    out = np.zeros((n_epochs, len(ch_names)), np.uint8)
    for j, ch in enumerate(ch_names):
        out[:, j] = epoch_labels_from_intervals(
            term + _channel_seizures(ch.upper(), by_channel, annotated), n_epochs
        )
    return out


def _channel_seizures(ch: str, by_channel: dict, annotated: set[str]) -> list:
    """Seizure intervals of one channel. A TCP channel the per-channel file does not name
    is background (TUSZ lists every channel); an added reduced-montage channel it cannot
    name (FP1-C3) takes those of the TCP channels it spans (FP1-F3, F3-C3), and failing
    that every channel's (it is a bipolar channel of the same scalp)."""
    from rt_eeg.montage import SKIPPED_ELECTRODE, TCP_22

    if ch in annotated or ch in TCP_22 or "-" not in ch or not annotated - {"TERM"}:
        return by_channel.get(ch, [])
    a, b = ch.split("-", 1)
    mid = SKIPPED_ELECTRODE.get((a, b))
    if mid and f"{a}-{mid}" in annotated and f"{mid}-{b}" in annotated:
        return by_channel.get(f"{a}-{mid}", []) + by_channel.get(f"{mid}-{b}", [])
    return [iv for k, ivs in by_channel.items() if k != "TERM" for iv in ivs]
