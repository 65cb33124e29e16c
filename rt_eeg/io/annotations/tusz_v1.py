"""TUSZ v1 ``.tse`` / ``.tse_bi`` (term-based) and ``.lbl`` (per channel) files.

tse / tse_bi::

    version = tse_v1.0.0

    0.0000 17.0000 bckg 1.0000

lbl: ``version = lbl_v1.0.0``, ``montage = N, NAME: ...`` lines, ``number_of_levels``,
``level[i]``, ``symbols[i] = {0: 'null', 1: 'spsw', ...}``, then
``label = {level, sublevel, start, stop, channel, [p0, p1, ...]}`` lines where the label is
the symbol with the highest probability. tse is read and written; lbl is read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations.background import _fill
from rt_eeg.io.annotations.checks import (
    _check_event,
    _check_no_overlap,
    _parse_float,
    _read_lines,
    _validate_for_write,
)
from rt_eeg.io.annotations.model import TERM, Annotation, Event, _fmt, _sort_events
from rt_eeg.io.atomic import write_text_atomic

TSE_VERSION = "tse_v1.0.0"


def _content_lines(path) -> Iterator[tuple[int, str]]:
    """``(line number, stripped line)`` of every line that is neither blank nor a comment."""
    for n, raw in enumerate(_read_lines(path), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield n, line


def _v1_annotation(path, events: list[Event]) -> Annotation:
    """The events sorted and checked for overlap; the duration is the last stop time (v1
    files have no duration header)."""
    events = _sort_events(events)
    duration = max((ev.stop for ev in events), default=None)
    _check_no_overlap(events, path)
    return Annotation(Path(path), events, duration, None)


# --------------------------------------------------------------------------------------------
# tse / tse_bi (TUSZ v1)


def read_tse(path: str | os.PathLike) -> Annotation:
    """Read a TUSZ v1 ``.tse`` / ``.tse_bi`` file (``start stop label confidence`` lines).

    The duration is the last stop time (tse files cover the whole recording).
    """
    events: list[Event] = []
    saw_version = False
    for n, line in _content_lines(path):
        if line.replace(" ", "").startswith("version="):
            version = line.split("=", 1)[1].strip()
            if version != TSE_VERSION:
                raise RtEegError(
                    f"line {n}: unsupported tse version {version!r} (expected {TSE_VERSION})",
                    path,
                )
            saw_version = True
            continue
        parts = line.split()
        if len(parts) != 4:
            raise RtEegError(
                f"line {n}: expected 4 fields 'start stop label confidence', found {len(parts)}",
                path,
            )
        start = _parse_float(parts[0], "start time", n, path)
        stop = _parse_float(parts[1], "stop time", n, path)
        label = parts[2].lower()
        conf = _parse_float(parts[3], "confidence", n, path)
        _check_event(start, stop, label, conf, n, path)
        events.append(Event(start, stop, label, conf, TERM))
    if not saw_version:
        raise RtEegError(f"missing 'version = {TSE_VERSION}' line", path)
    return _v1_annotation(path, events)


def write_tse(path: str | os.PathLike, events: Sequence[Event], duration: float) -> None:
    """Write a TUSZ v1 ``.tse`` / ``.tse_bi`` file atomically.

    TERM events are written with background filling every gap so that the lines cover
    [0, duration] exactly, as TUSZ v1 files do. Labels are written as given (subtypes kept).
    """
    events = [ev for ev in events if ev.channel == TERM]
    _validate_for_write(events, float(duration))
    filled = _fill(events, float(duration), binary=False)
    out = [f"version = {TSE_VERSION}", ""]
    for ev in filled:
        out.append(f"{_fmt(ev.start)} {_fmt(ev.stop)} {ev.label} {_fmt(ev.confidence)}")
    write_text_atomic(path, "\n".join(out) + "\n")


# --------------------------------------------------------------------------------------------
# lbl (TUSZ v1 per-channel)

_LBL_MONTAGE_RE = re.compile(r"^montage\s*=\s*(\d+)\s*,\s*([^:]+?)\s*:")
_LBL_SYMBOLS_RE = re.compile(r"^symbols\s*\[\s*(\d+)\s*\]\s*=\s*\{(.*)\}\s*$")
_LBL_LABEL_RE = re.compile(r"^label\s*=\s*\{(.*)\[(.*)\]\s*\}\s*$")


def read_lbl(path: str | os.PathLike) -> Annotation:
    """Read a TUSZ v1 ``.lbl`` file.

    Each ``label = {level, sublevel, start, stop, channel, [probabilities]}`` line becomes
    one event whose label is the symbol of highest probability and whose channel is the
    montage name of that channel index (``TERM`` for 'all' / -1). Only level 0 is read.
    """
    montage: dict[int, str] = {}
    symbols: dict[int, dict[int, str]] = {}
    events: list[Event] = []
    saw_version = False
    for n, line in _content_lines(path):
        key = line.split("=", 1)[0].strip()
        if key == "version":
            saw_version = True
            continue
        if key == "montage":
            m = _LBL_MONTAGE_RE.match(line)
            if not m:
                raise RtEegError(f"line {n}: malformed montage line {line[:80]!r}", path)
            montage[int(m.group(1))] = m.group(2).upper()
            continue
        if key == "number_of_levels" or key.startswith("level"):
            continue
        if key.startswith("symbols"):
            m = _LBL_SYMBOLS_RE.match(line)
            if not m:
                raise RtEegError(f"line {n}: malformed symbols line {line[:80]!r}", path)
            mapping: dict[int, str] = {}
            for item in m.group(2).split(","):
                if not item.strip():
                    continue
                if ":" not in item:
                    raise RtEegError(f"line {n}: malformed symbol entry {item.strip()!r}", path)
                idx, name = item.split(":", 1)
                try:
                    mapping[int(idx.strip())] = name.strip().strip("'\"").lower()
                except ValueError:
                    raise RtEegError(f"line {n}: bad symbol index {idx.strip()!r}", path) from None
            symbols[int(m.group(1))] = mapping
            continue
        if key == "label":
            m = _LBL_LABEL_RE.match(line)
            if not m:
                raise RtEegError(f"line {n}: malformed label line {line[:80]!r}", path)
            fields = [f.strip() for f in m.group(1).split(",") if f.strip()]
            if len(fields) != 5:
                raise RtEegError(
                    f"line {n}: expected 'level, sublevel, start, stop, channel' before the "
                    f"probabilities, found {len(fields)} fields",
                    path,
                )
            try:
                level, _sub = int(fields[0]), int(fields[1])
            except ValueError:
                raise RtEegError(f"line {n}: level/sublevel are not integers", path) from None
            start = _parse_float(fields[2], "start time", n, path)
            stop = _parse_float(fields[3], "stop time", n, path)
            probs = [
                _parse_float(p, "probability", n, path) for p in m.group(2).split(",") if p.strip()
            ]
            if level not in symbols:
                raise RtEegError(f"line {n}: no symbols defined for level {level}", path)
            if level != 0:
                continue
            mapping = symbols[level]
            if len(probs) != len(mapping):
                raise RtEegError(
                    f"line {n}: {len(probs)} probabilities for {len(mapping)} symbols", path
                )
            best = max(range(len(probs)), key=lambda i: probs[i])
            label = mapping[sorted(mapping)[best]]
            chan_field = fields[4].strip("'\"")
            if chan_field.lower() in ("all", "-1", "term"):
                channel = TERM
            else:
                try:
                    idx = int(chan_field)
                except ValueError:
                    channel = chan_field.upper()
                else:
                    if idx not in montage:
                        raise RtEegError(f"line {n}: channel {idx} is not in the montage", path)
                    channel = montage[idx]
            conf = probs[best]
            _check_event(start, stop, label, conf, n, path)
            events.append(Event(start, stop, label, conf, channel))
            continue
        raise RtEegError(f"line {n}: unrecognised line {line[:80]!r}", path)
    if not saw_version:
        raise RtEegError("missing 'version = lbl_v1.0.0' line", path)
    return _v1_annotation(path, events)
