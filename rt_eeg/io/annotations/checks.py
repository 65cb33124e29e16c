"""Checks and parsing helpers common to the annotation readers and writers.

Number parsing (finite, named in the error), per-event checks (times, labels, confidence),
no overlap on a channel, reading a text file (byte-order mark, one-line errors), the
``# key = value`` header and ``N secs`` duration, the records of the comma-separated formats
(TUSZ v2 csv / csv_bi and our HYP share one layout), and events past a recording's end.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations.model import (
    END_TOLERANCE_S,
    KNOWN_LABELS,
    MAX_TIME_S,
    Annotation,
    Event,
)


def _parse_float(text: str, what: str, n: int, path) -> float:
    try:
        value = float(text)
    except ValueError:
        raise RtEegError(f"line {n}: {what} {text.strip()!r} is not a number", path) from None
    if not math.isfinite(value):
        raise RtEegError(f"line {n}: {what} {text.strip()!r} is not finite", path)
    return value


def _check_event(
    start: float, stop: float, label: str, confidence: float, n: int, path, labels=KNOWN_LABELS
) -> None:
    if start < 0:
        raise RtEegError(f"line {n}: start time {start} is negative", path)
    if stop > MAX_TIME_S:
        raise RtEegError(
            f"line {n}: stop time {stop:g} s is beyond {MAX_TIME_S:g} s (30 days)", path
        )
    if not start < stop:
        raise RtEegError(f"line {n}: start time {start} is not before stop time {stop}", path)
    if label not in labels:
        raise RtEegError(
            f"line {n}: unknown label {label!r} (expected one of {', '.join(sorted(labels))})",
            path,
        )
    if not 0.0 <= confidence <= 1.0:
        raise RtEegError(f"line {n}: confidence {confidence} is outside [0, 1]", path)


def _check_no_overlap(events: Sequence[Event], path) -> None:
    """Refuse two events on the same channel that overlap: every consumer (background
    filling, scoring) needs one label per channel at a time."""
    by_channel: dict[str, list[Event]] = {}
    for ev in events:
        by_channel.setdefault(ev.channel, []).append(ev)
    for channel, evs in by_channel.items():
        evs = sorted(evs, key=lambda e: (e.start, e.stop))
        for a, b in zip(evs, evs[1:], strict=False):
            if b.start < a.stop - 1e-9:
                raise RtEegError(
                    f"overlapping events on {channel}: {a.label} [{a.start:g}, {a.stop:g}] and "
                    f"{b.label} [{b.start:g}, {b.stop:g}]",
                    path,
                )


def _read_lines(path) -> list[str]:
    path = Path(path)
    try:
        # utf-8-sig: a byte-order mark (Windows editors) is not part of the first line
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RtEegError("annotation file not found", path) from None
    except IsADirectoryError:
        raise RtEegError("is a directory, not an annotation file", path) from None
    except UnicodeDecodeError as err:
        raise RtEegError(f"not a text annotation file ({err.reason})", path) from None
    except OSError as err:
        raise RtEegError(f"cannot read annotation file ({err.strerror})", path) from None
    return text.splitlines()


_HEADER_RE = re.compile(r"^#\s*(\w+)\s*=\s*(.*?)\s*$")
_SECS_RE = re.compile(r"^([-+0-9.eE]+)\s*(?:secs?)?$")


def _parse_duration(value: str, n: int, path) -> float:
    m = _SECS_RE.match(value.strip())
    if not m:
        raise RtEegError(f"line {n}: duration {value!r} is not 'N secs'", path)
    dur = _parse_float(m.group(1), "duration", n, path)
    if dur <= 0:
        raise RtEegError(f"line {n}: duration {dur} is not positive", path)
    if dur > MAX_TIME_S:
        raise RtEegError(f"line {n}: duration {dur:g} s is beyond {MAX_TIME_S:g} s (30 days)", path)
    return dur


@dataclass
class _CsvHead:
    """What the ``# key = value`` lines and the header row of a comma-separated annotation
    file said (filled in by :func:`_csv_records` as it reads)."""

    version: str | None = None
    duration: float | None = None
    montage_file: str | None = None
    seen_header: bool = False


def _csv_records(
    path, head: _CsvHead, header_row: str, n_fields: int, *, note: str = "", fold_case: bool = False
) -> Iterator[tuple[int, list[str]]]:
    """The records of a comma-separated annotation file (TUSZ v2 csv / csv_bi, our HYP).

    ``# key = value`` lines fill ``head`` (``duration`` checked where it stands), the first
    other line must be ``header_row`` (spaces ignored; case too with ``fold_case``), every
    later line is a record of ``n_fields`` fields (``note`` names them in the error).

    Yields
    ------
    n : int
        Line number (from 1).
    fields : list of str, length n_fields
        The record's fields, stripped.
    """
    for n, raw in enumerate(_read_lines(path), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _HEADER_RE.match(line)
            if m:
                key, value = m.group(1).lower(), m.group(2)
                if key == "version":
                    head.version = value
                elif key == "duration":
                    head.duration = _parse_duration(value, n, path)
                elif key == "montage_file":
                    head.montage_file = value
            continue
        if not head.seen_header:
            found = line.replace(" ", "")
            if (found.lower() if fold_case else found) != header_row:
                raise RtEegError(
                    f"line {n}: expected the header row {header_row!r}, found {line[:80]!r}",
                    path,
                )
            head.seen_header = True
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != n_fields:
            raise RtEegError(
                f"line {n}: expected {n_fields} comma-separated fields{note}, found {len(parts)}",
                path,
            )
        yield n, parts


def _validate_for_write(events: Sequence[Event], duration: float) -> None:
    if not (math.isfinite(duration) and duration > 0):
        raise RtEegError(f"cannot write annotation: duration {duration} is not positive")
    for ev in events:
        if not ev.start < ev.stop or ev.label not in KNOWN_LABELS:
            raise RtEegError(f"cannot write annotation: invalid event {ev}")


def check_within_recording(ann: Annotation, duration: float, recording=None) -> None:
    """Refuse a reference whose events end past the recording they annotate.

    Parameters
    ----------
    ann : Annotation
    duration : float
        Length of the recording in seconds.
    recording : path-like, optional
        The recording, named in the error.

    Raises
    ------
    RtEegError
        Naming the annotation file, the first offending event and the recording's length.
    """
    for ev in ann.events:
        if ev.stop > duration + END_TOLERANCE_S:
            of = f" {Path(recording).name}" if recording is not None else ""
            raise RtEegError(
                f"event {ev.label} [{ev.start:g}, {ev.stop:g}] ends past the end of "
                f"the recording{of} ({duration:g} s)",
                ann.path,
            )
