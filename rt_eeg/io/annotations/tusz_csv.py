"""TUSZ v2 ``.csv_bi`` (term-based) and ``.csv`` (per channel): read and write.

csv_bi::

    # version = csv_v1.0.0
    # bname = aaaaaool_s004_t001
    # duration = 1831.0000 secs
    # montage_file = $NEDC_NFC/lib/nedc_eas_default_montage.txt
    #
    channel,start_time,stop_time,label,confidence
    TERM,733.9656,818.0202,seiz,1.0000

csv: the same layout with a TCP channel name (``FP1-F7``) in the first column.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations.checks import (
    _check_event,
    _check_no_overlap,
    _csv_records,
    _CsvHead,
    _parse_float,
    _validate_for_write,
)
from rt_eeg.io.annotations.model import (
    END_TOLERANCE_S,
    TERM,
    Annotation,
    Event,
    _fmt,
    _sort_events,
)
from rt_eeg.io.atomic import write_text_atomic

CSV_VERSION = "csv_v1.0.0"
CSV_HEADER = "channel,start_time,stop_time,label,confidence"
DEFAULT_MONTAGE_FILE = "$NEDC_NFC/lib/nedc_eas_default_montage.txt"


def _read_tusz_csv(path, *, term_only: bool) -> Annotation:
    head = _CsvHead()
    events: list[Event] = []
    lines_of: list[int] = []
    fields = f" ({CSV_HEADER})"
    for n, parts in _csv_records(path, head, CSV_HEADER, 5, note=fields, fold_case=True):
        channel, s_start, s_stop, label, s_conf = parts
        if not channel:
            raise RtEegError(f"line {n}: empty channel name", path)
        if term_only and channel != TERM:
            raise RtEegError(
                f"line {n}: channel {channel!r} in a term-based csv_bi file (expected 'TERM')",
                path,
            )
        start = _parse_float(s_start, "start time", n, path)
        stop = _parse_float(s_stop, "stop time", n, path)
        conf = _parse_float(s_conf, "confidence", n, path)
        label = label.lower()
        _check_event(start, stop, label, conf, n, path)
        events.append(Event(start, stop, label, conf, channel))
        lines_of.append(n)
    duration = head.duration
    if duration is not None:
        for n, ev in zip(lines_of, events, strict=True):
            if ev.stop > duration + END_TOLERANCE_S:
                raise RtEegError(
                    f"line {n}: event {ev.label} [{ev.start:g}, {ev.stop:g}] ends past "
                    f"the file's duration ({duration:g} secs)",
                    path,
                )
    if head.version is not None and head.version != CSV_VERSION:
        raise RtEegError(f"unsupported csv version {head.version!r} (expected {CSV_VERSION})", path)
    if not head.seen_header:
        raise RtEegError(f"no header row {CSV_HEADER!r} found", path)
    events = _sort_events(events)
    if duration is None and events:
        duration = max(ev.stop for ev in events)
    _check_no_overlap(events, path)
    return Annotation(Path(path), events, duration, head.montage_file)


def read_csv_bi(path: str | os.PathLike) -> Annotation:
    """Read a TUSZ v2 term-based ``.csv_bi`` file (every row has channel 'TERM')."""
    return _read_tusz_csv(path, term_only=True)


def read_csv(path: str | os.PathLike) -> Annotation:
    """Read a TUSZ v2 per-channel ``.csv`` file (channel names such as 'FP1-F7', or 'TERM')."""
    return _read_tusz_csv(path, term_only=False)


def _tusz_csv_text(events, duration, bname, montage_file) -> str:
    out = [
        f"# version = {CSV_VERSION}",
        f"# bname = {bname}",
        f"# duration = {_fmt(float(duration))} secs",
        f"# montage_file = {montage_file if montage_file is not None else DEFAULT_MONTAGE_FILE}",
        "#",
        CSV_HEADER,
    ]
    for ev in events:
        out.append(
            f"{ev.channel},{_fmt(ev.start)},{_fmt(ev.stop)},{ev.label},{_fmt(ev.confidence)}"
        )
    return "\n".join(out) + "\n"


def _bname(path, bname) -> str:
    return bname if bname is not None else Path(path).name.split(".")[0]


def write_csv_bi(
    path: str | os.PathLike,
    events: Sequence[Event],
    duration: float,
    *,
    bname: str | None = None,
    montage_file: str | None = None,
) -> None:
    """Write a TUSZ v2 ``.csv_bi`` file atomically (TERM events only, sorted by start).

    Parameters
    ----------
    path : path-like
        Output file.
    events : sequence of Event
        Events to write; events on other channels are refused.
    duration : float
        Recording length in seconds (``# duration`` header).
    bname : str, optional
        Base name for the header; default: the file name up to its first dot.
    montage_file : str, optional
        ``# montage_file`` header; default the NEDC default montage path as in TUSZ.
    """
    events = list(events)
    bad = [ev for ev in events if ev.channel != TERM]
    if bad:
        raise RtEegError(f"csv_bi holds TERM events only; got channel {bad[0].channel!r}", path)
    write_csv(path, events, duration, bname=bname, montage_file=montage_file)


def write_csv(
    path: str | os.PathLike,
    events: Sequence[Event],
    duration: float,
    *,
    bname: str | None = None,
    montage_file: str | None = None,
) -> None:
    """Write a TUSZ v2 per-channel ``.csv`` file atomically (sorted by channel, start)."""
    events = list(events)
    _validate_for_write(events, float(duration))
    text = _tusz_csv_text(_sort_events(events), duration, _bname(path, bname), montage_file)
    write_text_atomic(path, text)
