"""Per-channel seizure labels for a generator's recording, read off its signal.

The generators say *when* a seizure is (the planner's TERM intervals), not *where*. The
decoder is channel-based and learns from per-channel labels (TUSZ ``.csv``); labelling every
channel seizure for the whole interval would teach it that the uninvolved channels of a focal
seizure (most of them) are seizure. So, as a technologist marks the channels a seizure is
seen on, each TCP channel is labelled from its own signal: involved when its line length
during the seizure is clearly above its own background before the seizure.

For every seizure ``[a, b)``:

- baseline: the channel's median 1 s line length over the 60 s before ``a`` (no epoch within
  30 s before or 120 s after any seizure); failing 10 such epochs, over every such epoch of
  the recording, and failing that over the whole recording;
- ratio: line length / baseline per epoch, smoothed over 3 epochs; a channel is *involved*
  when its mean ratio over the seizure reaches :data:`INVOLVED_RATIO`; the ``MIN_CHANNELS``
  channels with the highest mean ratio always are (a seizure is somewhere);
- the channel with the highest mean ratio carries the seizure from ``a``; every other
  involved channel from its first smoothed epoch at the ratio (its spread), or from ``a``
  if it never gets there; all until ``b``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from rt_eeg.io.annotations import Event, read_csv_bi, write_csv

#: Mean line-length ratio (seizure / the channel's background) of an involved channel.
INVOLVED_RATIO = 1.5
#: Channels every seizure is put on at least.
MIN_CHANNELS = 2
BASELINE_S = 60
GUARD_BEFORE_S, GUARD_AFTER_S = 30, 120


def _baseline_epochs(n_epochs: int, a: float, seizures) -> np.ndarray:
    ok = np.ones(n_epochs, bool)
    for s, t in seizures:
        ok[max(0, int(s) - GUARD_BEFORE_S) : min(n_epochs, int(np.ceil(t)) + GUARD_AFTER_S)] = False
    idx = np.arange(n_epochs)
    near = idx[ok & (idx < int(a)) & (idx >= int(a) - BASELINE_S)]
    if near.size >= 10:
        return near
    if ok.sum() >= 10:
        return idx[ok]
    return idx


def channel_events(
    tcp: np.ndarray,
    sfreq: float,
    ch_names: list[str],
    seizures: list[tuple[float, float]],
    duration: float,
) -> list[Event]:
    """Per-channel seizure and background events of one recording.

    Parameters
    ----------
    tcp : ndarray, shape (n_samples, n_channels)
        The recording in its TCP montage.
    sfreq : float
    ch_names : list of str
        TCP channel names (``'FP1-F7'``, ...), one per column.
    seizures : list of (start, stop)
        TERM seizure intervals, seconds.
    duration : float
        Recording length, seconds.

    Returns
    -------
    list of Event
        For every channel, 'seiz' events and 'bckg' events covering ``[0, duration]``.
    """
    fs = int(round(sfreq))
    n_epochs = tcp.shape[0] // fs
    x = np.asarray(tcp[: n_epochs * fs], np.float64).reshape(n_epochs, fs, -1)
    ll = np.abs(np.diff(x, axis=1)).sum(axis=1)  # (n_epochs, n_channels)
    kernel = np.ones(3) / 3.0
    by_ch: dict[int, list[tuple[float, float]]] = {j: [] for j in range(len(ch_names))}
    for a, b in seizures:
        e0, e1 = int(np.floor(a)), min(n_epochs, int(np.ceil(b)))
        if e1 <= e0:  # a seizure in the last partial second: the channels are unknown
            for j in by_ch:
                by_ch[j].append((a, b))
            continue
        base = np.median(ll[_baseline_epochs(n_epochs, a, seizures)], axis=0)
        ratio = ll[e0:e1] / np.maximum(base, 1e-6)[None, :]
        smooth = np.stack(
            [np.convolve(ratio[:, j], kernel, mode="same") for j in range(ratio.shape[1])], 1
        )
        mean = ratio.mean(axis=0)
        order = np.argsort(-mean, kind="stable")
        involved = set(order[:MIN_CHANNELS].tolist()) | set(
            np.flatnonzero(mean >= INVOLVED_RATIO).tolist()
        )
        for j in involved:
            start = a
            if j != order[0]:
                hits = np.flatnonzero(smooth[:, j] >= INVOLVED_RATIO)
                start = max(a, float(e0 + hits[0])) if hits.size else a
            if start < b:
                by_ch[j].append((start, b))
    events: list[Event] = []
    for j, name in enumerate(ch_names):
        t = 0.0
        for s, e in sorted(by_ch[j]):
            s, e = max(s, t), min(e, duration)
            if e <= s:
                continue
            if s > t:
                events.append(Event(round(t, 4), round(s, 4), "bckg", 1.0, name))
            events.append(Event(round(s, 4), round(e, 4), "seiz", 1.0, name))
            t = e
        if t < duration:
            events.append(Event(round(t, 4), round(float(duration), 4), "bckg", 1.0, name))
    return events


def label_recording(edf: str | os.PathLike) -> Path:
    """Write ``<stem>.csv`` (per-channel labels) beside a recording and its ``.csv_bi``.

    The signal is read as the detector reads it (TCP montage at 250 Hz).

    Returns
    -------
    Path
        The ``.csv`` written (atomically).
    """
    from rt_eeg.io.edf import open_recording

    edf = Path(edf)
    ann = read_csv_bi(edf.with_suffix(".csv_bi"))
    rec = open_recording(edf)
    seizures = [(e.start, e.stop) for e in ann.events if e.label != "bckg"]
    duration = float(ann.duration if ann.duration is not None else rec.duration)
    events = channel_events(rec.read(), rec.sfreq, list(rec.ch_names), seizures, duration)
    out = edf.with_suffix(".csv")
    write_csv(out, events, duration, bname=edf.stem)
    return out
