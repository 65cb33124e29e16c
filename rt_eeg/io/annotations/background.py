"""Background filling: events -> contiguous TERM events covering a whole recording.

What scoring and the tse writer need: one label at every moment, background in every gap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations.model import BACKGROUND_LABEL, TERM, Event, binary_label


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
