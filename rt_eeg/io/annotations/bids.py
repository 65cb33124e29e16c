"""BIDS / SzCORE ``*_events.tsv``: read and write, with the TUSZ <-> HED-SCORE label mapping."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations.checks import (
    _check_event,
    _check_no_overlap,
    _parse_float,
    _read_lines,
    check_within_recording,
)
from rt_eeg.io.annotations.model import (
    BACKGROUND_LABEL,
    MAX_TIME_S,
    TERM,
    Annotation,
    Event,
    _fmt,
    _sort_events,
    binary_label,
)
from rt_eeg.io.atomic import write_text_atomic

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
