"""Annotation formats: TUSZ v2 csv_bi / csv, TUSZ v1 tse / tse_bi / lbl, our HYP, BIDS events.tsv.

Every reader returns an :class:`Annotation` (or, for HYP files, epochs) and raises
:class:`~rt_eeg.errors.RtEegError` naming the file and the line for malformed input. Every
writer writes atomically.

Formats
-------
csv_bi (TUSZ v2, term-based)::

    # version = csv_v1.0.0
    # bname = aaaaaool_s004_t001
    # duration = 1831.0000 secs
    # montage_file = $NEDC_NFC/lib/nedc_eas_default_montage.txt
    #
    channel,start_time,stop_time,label,confidence
    TERM,733.9656,818.0202,seiz,1.0000

csv (TUSZ v2, per channel): the same layout with a TCP channel name (``FP1-F7``) in the
first column.

tse / tse_bi (TUSZ v1)::

    version = tse_v1.0.0

    0.0000 17.0000 bckg 1.0000

lbl (TUSZ v1 per-channel label files): ``version = lbl_v1.0.0``, ``montage = N, NAME: ...``
lines, ``number_of_levels``, ``level[i]``, ``symbols[i] = {0: 'null', 1: 'spsw', ...}``, then
``label = {level, sublevel, start, stop, channel, [p0, p1, ...]}`` lines where the label is
the symbol with the highest probability.

HYP (ours, one line per decision epoch)::

    # version = rt_eeg_hyp_v1
    # duration = 600.0000 secs
    # epoch = 1.0 secs
    start_time,stop_time,label,confidence
    0.0000,1.0000,bckg,0.9731
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import write_text_atomic

__all__ = [
    "BACKGROUND_LABEL",
    "CSV_VERSION",
    "DEFAULT_MONTAGE_FILE",
    "KNOWN_LABELS",
    "SEIZURE_LABELS",
    "TERM",
    "Annotation",
    "Event",
    "HypEpoch",
    "binary_label",
    "fill_background",
    "read_annotation",
    "read_csv",
    "read_csv_bi",
    "read_events_tsv",
    "check_within_recording",
    "read_hyp",
    "read_lbl",
    "read_tse",
    "write_csv",
    "write_csv_bi",
    "write_events_tsv",
    "write_hyp",
    "write_tse",
]

#: Channel name of whole-recording (term-based) events.
TERM = "TERM"
BACKGROUND_LABEL = "bckg"
#: TUSZ seizure labels: the generic 'seiz' and every TUSZ v1/v2 seizure type.
SEIZURE_LABELS: frozenset[str] = frozenset(
    {
        "seiz",
        "fnsz",  # focal non-specific
        "gnsz",  # generalised non-specific
        "spsz",  # simple partial
        "cpsz",  # complex partial
        "absz",  # absence
        "tnsz",  # tonic
        "cnsz",  # clonic
        "tcsz",  # tonic-clonic
        "atsz",  # atonic
        "mysz",  # myoclonic
        "nesz",  # non-epileptic
        "clsz",  # clonic (alternative code)
    }
)
KNOWN_LABELS: frozenset[str] = SEIZURE_LABELS | {BACKGROUND_LABEL}
CSV_VERSION = "csv_v1.0.0"
TSE_VERSION = "tse_v1.0.0"
HYP_VERSION = "rt_eeg_hyp_v1"
CSV_HEADER = "channel,start_time,stop_time,label,confidence"
HYP_HEADER = "start_time,stop_time,label,confidence"
DEFAULT_MONTAGE_FILE = "$NEDC_NFC/lib/nedc_eas_default_montage.txt"
#: Times in every format are written with 4 decimals (0.1 ms), as TUSZ does.
PRECISION = 4
HYP_LABELS = frozenset({"seiz", "bckg", "na"})
#: How far (s) an event may end past the recording: rounding of times written with 4 decimals
#: and of durations; anything beyond is a wrong file pairing or a corrupt annotation.
END_TOLERANCE_S = 1.0
#: Longest recording an annotation may describe (30 days). Beyond it a time is corrupt, and
#: per-epoch scoring of such a span would run for hours (found by fuzzing: 1e9 s hung).
MAX_TIME_S = 30 * 86400.0


@dataclass(frozen=True)
class Event:
    """One annotated interval.

    Attributes
    ----------
    start, stop : float
        Seconds from the start of the recording, ``start < stop``.
    label : str
        Lower-case: 'seiz', 'bckg' or a TUSZ seizure subtype ('fnsz', 'gnsz', ...).
    confidence : float
        In [0, 1].
    channel : str
        'TERM' for whole-recording events, else a TCP channel name such as 'FP1-F7'.
    """

    start: float
    stop: float
    label: str
    confidence: float = 1.0
    channel: str = TERM

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.stop - self.start


@dataclass
class Annotation:
    """The events of one annotation file.

    Attributes
    ----------
    path : Path or None
        The file read (None when built in memory).
    events : list of Event
        Sorted by (channel, start, stop).
    duration : float or None
        Recording length in seconds from the header (``# duration = N secs``) when present,
        else the last stop time.
    montage_file : str or None
        The ``# montage_file`` header of csv files.
    """

    path: Path | None
    events: list[Event] = field(default_factory=list)
    duration: float | None = None
    montage_file: str | None = None

    @property
    def term_events(self) -> list[Event]:
        """The whole-recording (TERM) events."""
        return [ev for ev in self.events if ev.channel == TERM]


def binary_label(label: str) -> str:
    """Map a TUSZ label to the binary task: any seizure type -> 'seiz', 'bckg' -> 'bckg'.

    Raises
    ------
    RtEegError
        For any other label.
    """
    lab = label.strip().lower()
    if lab in SEIZURE_LABELS:
        return "seiz"
    if lab == BACKGROUND_LABEL:
        return BACKGROUND_LABEL
    raise RtEegError(
        f"unknown label {label!r} (expected 'bckg' or a seizure type: "
        f"{', '.join(sorted(SEIZURE_LABELS))})"
    )


def _sort_events(events: Iterable[Event]) -> list[Event]:
    return sorted(events, key=lambda ev: (ev.channel, ev.start, ev.stop))


def _fmt(x: float) -> str:
    return f"{x:.{PRECISION}f}"


# --------------------------------------------------------------------------------------------
# parsing helpers


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


# --------------------------------------------------------------------------------------------
# csv_bi / csv (TUSZ v2)


def _read_tusz_csv(path, *, term_only: bool) -> Annotation:
    lines = _read_lines(path)
    duration = None
    montage_file = None
    version = None
    seen_header = False
    events: list[Event] = []
    lines_of: list[int] = []
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _HEADER_RE.match(line)
            if m:
                key, value = m.group(1).lower(), m.group(2)
                if key == "version":
                    version = value
                elif key == "duration":
                    duration = _parse_duration(value, n, path)
                elif key == "montage_file":
                    montage_file = value
            continue
        if not seen_header:
            if line.replace(" ", "").lower() != CSV_HEADER:
                raise RtEegError(
                    f"line {n}: expected the header row {CSV_HEADER!r}, found {line[:80]!r}",
                    path,
                )
            seen_header = True
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 5:
            raise RtEegError(
                f"line {n}: expected 5 comma-separated fields "
                f"(channel,start_time,stop_time,label,confidence), found {len(parts)}",
                path,
            )
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
    if duration is not None:
        for n, ev in zip(lines_of, events, strict=True):
            if ev.stop > duration + END_TOLERANCE_S:
                raise RtEegError(
                    f"line {n}: event {ev.label} [{ev.start:g}, {ev.stop:g}] ends past "
                    f"the file's duration ({duration:g} secs)",
                    path,
                )
    if version is not None and version != CSV_VERSION:
        raise RtEegError(f"unsupported csv version {version!r} (expected {CSV_VERSION})", path)
    if not seen_header:
        raise RtEegError(f"no header row {CSV_HEADER!r} found", path)
    events = _sort_events(events)
    if duration is None and events:
        duration = max(ev.stop for ev in events)
    _check_no_overlap(events, path)
    return Annotation(Path(path), events, duration, montage_file)


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


def _validate_for_write(events: Sequence[Event], duration: float) -> None:
    if not (math.isfinite(duration) and duration > 0):
        raise RtEegError(f"cannot write annotation: duration {duration} is not positive")
    for ev in events:
        if not ev.start < ev.stop or ev.label not in KNOWN_LABELS:
            raise RtEegError(f"cannot write annotation: invalid event {ev}")


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
    _validate_for_write(events, float(duration))
    text = _tusz_csv_text(_sort_events(events), duration, _bname(path, bname), montage_file)
    write_text_atomic(path, text)


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


# --------------------------------------------------------------------------------------------
# tse / tse_bi (TUSZ v1)


def read_tse(path: str | os.PathLike) -> Annotation:
    """Read a TUSZ v1 ``.tse`` / ``.tse_bi`` file (``start stop label confidence`` lines).

    The duration is the last stop time (tse files cover the whole recording).
    """
    lines = _read_lines(path)
    events: list[Event] = []
    saw_version = False
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
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
    events = _sort_events(events)
    duration = max((ev.stop for ev in events), default=None)
    _check_no_overlap(events, path)
    return Annotation(Path(path), events, duration, None)


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
    lines = _read_lines(path)
    montage: dict[int, str] = {}
    symbols: dict[int, dict[int, str]] = {}
    events: list[Event] = []
    saw_version = False
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
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
    events = _sort_events(events)
    duration = max((ev.stop for ev in events), default=None)
    _check_no_overlap(events, path)
    return Annotation(Path(path), events, duration, None)


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


# --------------------------------------------------------------------------------------------
# dispatch


_READERS = {
    ".csv_bi": read_csv_bi,
    ".csv": read_csv,
    ".tse": read_tse,
    ".tse_bi": read_tse,
    ".lbl": read_lbl,
    ".lbl_bi": read_lbl,
    ".tsv": lambda p: read_events_tsv(p),
}


def read_annotation(path: str | os.PathLike) -> Annotation:
    """Read any supported annotation file, chosen by suffix (.csv_bi .csv .tse .tse_bi .lbl
    .lbl_bi, BIDS/SzCORE .tsv)."""
    path = Path(path)
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise RtEegError(
            f"unknown annotation suffix {path.suffix!r} (expected one of {', '.join(_READERS)})",
            path,
        )
    return reader(path)


# --------------------------------------------------------------------------------------------
# background filling


def _merge_overlapping_seizures(events: list[Event]) -> list[Event]:
    out: list[Event] = []
    for ev in sorted(events, key=lambda e: (e.start, e.stop)):
        if out and ev.start <= out[-1].stop:
            last = out[-1]
            out[-1] = Event(
                last.start,
                max(last.stop, ev.stop),
                "seiz",
                max(last.confidence, ev.confidence),
                TERM,
            )
        else:
            out.append(ev)
    return out


def _fill(events: Sequence[Event], duration: float, *, binary: bool) -> list[Event]:
    """Sorted non-overlapping TERM events with bckg gaps covering [0, duration]."""
    evs = sorted(events, key=lambda e: (e.start, e.stop))
    for a, b in zip(evs, evs[1:], strict=False):
        if b.start < a.stop - 1e-9:
            raise RtEegError(
                f"overlapping events {a.label} [{a.start}, {a.stop}] and "
                f"{b.label} [{b.start}, {b.stop}]"
            )
    out: list[Event] = []
    t = 0.0
    for ev in evs:
        start, stop = max(ev.start, 0.0), min(ev.stop, duration)
        if stop <= start:
            continue  # wholly past the end of the recording
        if start > t:
            out.append(Event(t, start, BACKGROUND_LABEL, 1.0, TERM))
        label = binary_label(ev.label) if binary else ev.label
        out.append(Event(start, stop, label, ev.confidence, TERM))
        t = stop
    if t < duration:
        out.append(Event(t, duration, BACKGROUND_LABEL, 1.0, TERM))
    if not binary:
        return out
    # join consecutive events of the same label; keep the first one's confidence (as NEDC)
    merged: list[Event] = []
    for ev in out:
        if merged and merged[-1].label == ev.label and abs(merged[-1].stop - ev.start) < 1e-9:
            last = merged[-1]
            merged[-1] = Event(last.start, ev.stop, last.label, last.confidence, TERM)
        else:
            merged.append(ev)
    return merged


def fill_background(events: Sequence[Event], duration: float) -> list[Event]:
    """Binary TERM events with background filling every gap, covering [0, duration].

    Seizure subtypes become 'seiz'; adjacent events of the same label are joined (keeping
    the first one's confidence); events are clipped to [0, duration]. When ``events``
    holds no TERM event but per-channel seizure events, the TERM seizures are the union of
    the per-channel seizures (how TUSZ derives csv_bi from csv).

    Parameters
    ----------
    events : sequence of Event
    duration : float
        Recording length in seconds.

    Returns
    -------
    list of Event
        Contiguous, non-overlapping, labels 'seiz'/'bckg', channel 'TERM'.

    Raises
    ------
    RtEegError
        For overlapping TERM events or unknown labels.
    """
    duration = float(duration)
    if not (math.isfinite(duration) and duration > 0):
        raise RtEegError(f"duration {duration} is not positive")
    term = [ev for ev in events if ev.channel == TERM]
    if not term:
        seiz = [
            Event(ev.start, ev.stop, "seiz", ev.confidence, TERM)
            for ev in events
            if binary_label(ev.label) == "seiz"
        ]
        term = _merge_overlapping_seizures(seiz)
    return _fill(term, duration, binary=True)


# --------------------------------------------------------------------------------------------
# HYP (per-epoch decisions)


@dataclass(frozen=True)
class HypEpoch:
    """One decision epoch of the detector.

    Attributes
    ----------
    start, stop : float
        Seconds.
    label : str
        'seiz' | 'bckg' | 'na' (not analysed: gap, restart, flat signal).
    confidence : float
        In [0, 1]: confidence of the stated label; 0 for 'na'.
    """

    start: float
    stop: float
    label: str
    confidence: float


def write_hyp(path: str | os.PathLike, epochs: Sequence[HypEpoch], duration: float) -> None:
    """Write per-epoch decisions in the ``rt_eeg_hyp_v1`` format, atomically.

    The ``# epoch`` header is the length of the first epoch (1.0 s by default when empty).
    """
    duration = float(duration)
    if not (math.isfinite(duration) and duration >= 0):
        raise RtEegError(f"cannot write HYP: duration {duration} is not valid", path)
    epoch_len = (epochs[0].stop - epochs[0].start) if len(epochs) else 1.0
    out = [
        f"# version = {HYP_VERSION}",
        f"# duration = {_fmt(duration)} secs",
        f"# epoch = {epoch_len:.1f} secs",
        HYP_HEADER,
    ]
    for ep in epochs:
        if ep.label not in HYP_LABELS or not ep.start < ep.stop:
            raise RtEegError(f"cannot write HYP: invalid epoch {ep}", path)
        if not 0.0 <= ep.confidence <= 1.0:
            raise RtEegError(f"cannot write HYP: confidence outside [0, 1] in {ep}", path)
        out.append(hyp_line(ep))
    write_text_atomic(path, "\n".join(out) + "\n")


def hyp_line(ep: HypEpoch) -> str:
    """One HYP record, as :func:`write_hyp` writes it (also appended by live runs)."""
    return f"{_fmt(ep.start)},{_fmt(ep.stop)},{ep.label},{_fmt(ep.confidence)}"


def read_hyp(path: str | os.PathLike) -> tuple[list[HypEpoch], float]:
    """Read a HYP file written by :func:`write_hyp`.

    Returns
    -------
    epochs : list of HypEpoch
    duration : float
        Seconds, from the ``# duration`` header.
    """
    lines = _read_lines(path)
    duration = None
    version = None
    seen_header = False
    epochs: list[HypEpoch] = []
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _HEADER_RE.match(line)
            if m and m.group(1).lower() == "version":
                version = m.group(2)
            elif m and m.group(1).lower() == "duration":
                duration = _parse_duration(m.group(2), n, path)  # positive, finite
            continue
        if not seen_header:
            if line.replace(" ", "") != HYP_HEADER:
                raise RtEegError(
                    f"line {n}: expected the header row {HYP_HEADER!r}, found {line[:80]!r}",
                    path,
                )
            seen_header = True
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 4:
            raise RtEegError(
                f"line {n}: expected 4 comma-separated fields, found {len(parts)}", path
            )
        start = _parse_float(parts[0], "start time", n, path)
        stop = _parse_float(parts[1], "stop time", n, path)
        conf = _parse_float(parts[3], "confidence", n, path)
        _check_event(start, stop, parts[2].lower(), conf, n, path, labels=HYP_LABELS)
        epochs.append(HypEpoch(start, stop, parts[2].lower(), conf))
    if version != HYP_VERSION:
        raise RtEegError(f"not a HYP file (version {version!r}, expected {HYP_VERSION})", path)
    if duration is None:
        raise RtEegError("missing '# duration = N secs' header", path)
    if not seen_header:
        raise RtEegError(f"no header row {HYP_HEADER!r} found", path)
    return epochs, duration


# --------------------------------------------------------------------------------------------
# BIDS / SzCORE events.tsv

_TSV_COLUMNS = (
    "onset",
    "duration",
    "eventType",
    "confidence",
    "channels",
    "dateTime",
    "recordingDuration",
)


def _sz_event_type(label: str) -> str:
    """SzCORE (HED-SCORE) eventType of a TUSZ label, as epilepsy2bids converts TUSZ."""
    mapping = {
        "bckg": "bckg",
        "seiz": "sz",
        "fnsz": "sz_foc",
        "gnsz": "sz_gen",
        "spsz": "sz_foc_a",
        "cpsz": "sz_foc_ia",
        "absz": "sz_gen_nm",
        "tnsz": "sz_gen_m_tonic",
        "cnsz": "sz_gen_m_clonic",
        "clsz": "sz_gen_m_clonic",
        "tcsz": "sz_gen_m_tonicClonic",
        "atsz": "sz_gen_m_atonic",
        "mysz": "sz_gen_nm_myoclonic",
        "nesz": "sz",  # no SzCORE code for non-epileptic seizures: generic seizure
    }
    if label not in mapping:
        raise RtEegError(f"unknown label {label!r}")
    return mapping[label]


def write_events_tsv(
    path: str | os.PathLike,
    events: Sequence[Event],
    recording_duration: float,
    *,
    date_time: str | datetime | None = None,
) -> None:
    """Write a BIDS / SzCORE ``*_events.tsv`` atomically.

    Only seizure events are written (SzCORE convention); a recording without seizures gets
    one 'bckg' row spanning it. Events on several channels at the same times are not
    merged: TERM events get ``channels`` 'n/a', channel events their channel name.

    Parameters
    ----------
    path : path-like
    events : sequence of Event
    recording_duration : float
        Seconds.
    date_time : str or datetime, optional
        Start of the recording (``dateTime`` column, written ``YYYY-MM-DD HH:MM:SS`` as
        epilepsy2bids does); 'n/a' when unknown.
    """
    rec = float(recording_duration)
    if not (math.isfinite(rec) and rec > 0):
        raise RtEegError(f"recording duration {rec} is not positive", path)
    if isinstance(date_time, datetime):
        dt = date_time.strftime("%Y-%m-%d %H:%M:%S")
    else:
        dt = date_time if date_time else "n/a"
    rows = [
        ev
        for ev in sorted(events, key=lambda e: (e.start, e.stop, e.channel))
        if binary_label(ev.label) == "seiz"
    ]
    out = ["\t".join(_TSV_COLUMNS)]
    if not rows:
        # epilepsy2bids: a recording without seizures is one background event
        out.append("\t".join(["0.00", f"{rec:.2f}", "bckg", "n/a", "n/a", dt, f"{rec:.2f}"]))
    for ev in rows:
        out.append(
            "\t".join(
                [
                    f"{ev.start:.2f}",
                    f"{ev.stop - ev.start:.2f}",
                    _sz_event_type(ev.label),
                    f"{ev.confidence:.2f}",
                    "n/a" if ev.channel == TERM else ev.channel,
                    dt,
                    f"{rec:.2f}",
                ]
            )
        )
    write_text_atomic(path, "\n".join(out) + "\n")


def _label_of_event_type(event_type: str, n: int, path) -> str:
    """TUSZ label of a SzCORE eventType (inverse of the mapping used when writing)."""
    inverse = {"bckg": "bckg", "sz": "seiz", "sz_foc": "fnsz", "sz_gen": "gnsz",
               "sz_foc_a": "spsz", "sz_foc_ia": "cpsz", "sz_gen_nm": "absz",
               "sz_gen_m_tonic": "tnsz", "sz_gen_m_clonic": "cnsz",
               "sz_gen_m_tonicClonic": "tcsz", "sz_gen_m_atonic": "atsz",
               "sz_gen_nm_myoclonic": "mysz"}  # fmt: skip
    if event_type in inverse:
        return inverse[event_type]
    if event_type.startswith("sz"):  # any other HED-SCORE seizure code
        return "seiz"
    raise RtEegError(
        f"line {n}: unknown eventType {event_type!r} (expected bckg or a sz* code)", path
    )


def read_events_tsv(path: str | os.PathLike) -> Annotation:
    """Read a BIDS / SzCORE ``*_events.tsv`` (as :func:`write_events_tsv` writes).

    Columns ``onset``, ``duration`` and ``eventType`` are required; ``confidence`` ('n/a' ->
    1), ``channels`` ('n/a' -> TERM) and ``recordingDuration`` are optional. The annotation's
    duration is ``recordingDuration`` when given.
    """
    rows = [(n, ln) for n, ln in enumerate(_read_lines(path), start=1) if ln.strip()]
    if not rows:
        raise RtEegError("empty events file (no header row)", path)
    n0, head = rows[0]
    cols = [c.strip() for c in head.split("\t")]
    missing = [c for c in ("onset", "duration", "eventType") if c not in cols]
    if missing:
        raise RtEegError(
            f"line {n0}: header row lacks column(s) {', '.join(missing)} (found {head[:80]!r})",
            path,
        )
    idx = {c: cols.index(c) for c in cols}
    events: list[Event] = []
    durations = set()
    for n, line in rows[1:]:
        parts = [p.strip() for p in line.split("\t")]
        if len(parts) != len(cols):
            raise RtEegError(
                f"line {n}: {len(parts)} tab-separated fields, the header has {len(cols)}", path
            )
        onset = _parse_float(parts[idx["onset"]], "onset", n, path)
        length = _parse_float(parts[idx["duration"]], "duration", n, path)
        label = _label_of_event_type(parts[idx["eventType"]], n, path)
        conf_text = parts[idx["confidence"]] if "confidence" in idx else "n/a"
        conf = 1.0 if conf_text == "n/a" else _parse_float(conf_text, "confidence", n, path)
        _check_event(onset, onset + length, label, conf, n, path)
        chan = parts[idx["channels"]] if "channels" in idx else "n/a"
        channel = TERM if chan in ("n/a", "") else chan
        if "recordingDuration" in idx and parts[idx["recordingDuration"]] != "n/a":
            rec = _parse_float(parts[idx["recordingDuration"]], "recordingDuration", n, path)
            if not 0 < rec <= MAX_TIME_S:
                raise RtEegError(
                    f"line {n}: recordingDuration {rec:g} is not in (0, {MAX_TIME_S:g}] s", path
                )
            durations.add(rec)
        events.append(Event(onset, onset + length, label, conf, channel))
    if len(durations) > 1:
        raise RtEegError(
            f"rows disagree on recordingDuration ({', '.join(map(_fmt, sorted(durations)))})",
            path,
        )
    duration = durations.pop() if durations else max((e.stop for e in events), default=None)
    if duration is not None:
        check_within_recording(Annotation(Path(path), events, duration), duration)
    # SzCORE lists seizures only (one 'bckg' row for a seizure-free recording): background
    # is implied, so bckg rows carry nothing and are dropped
    events = [e for e in events if e.label != BACKGROUND_LABEL]
    _check_no_overlap(events, path)
    return Annotation(Path(path), _sort_events(events), duration, None)
