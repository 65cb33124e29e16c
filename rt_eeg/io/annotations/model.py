"""The annotation model shared by every format: :class:`Event`, :class:`Annotation`, labels.

Also the constants every format obeys (time precision, how far an event may pass the end of
its recording, the longest span an annotation may describe) and the label mapping to the
binary seizure / background task.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rt_eeg.errors import RtEegError

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
#: Times in every format are written with 4 decimals (0.1 ms), as TUSZ does.
PRECISION = 4
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
