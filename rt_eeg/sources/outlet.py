"""A recording published as an LSL stream: what ``rt-eeg stream`` runs, and the tests' amplifier.

The montage inputs of an EDF file (referential or bipolar channels, as stored, microvolts,
native rate) are pushed in chunks stamped on the LSL clock at the recording's pace
(drift-free: each chunk is due at an absolute time, so waiting never accumulates error).
Samples are sent as ``double64`` so a file streamed and received is bit-identical to the
file read directly. The stream's metadata follows the XDF conventions (``<channels>`` with
``label``, ``unit``, ``type``), which is what :class:`~rt_eeg.sources.lsl.LslSource` reads.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np


def make_outlet(name: str, labels: list[str], sfreq: float, *, units: str | list[str] = "microvolts",
                stype: str = "EEG", source_id: str | None = None, chunk: int = 32,
                fmt: str = "double64"):  # fmt: skip
    """An LSL outlet with XDF channel metadata.

    Parameters
    ----------
    name, stype : str
        Stream name and type.
    labels : list of str
        Channel labels.
    sfreq : float
        Nominal rate in Hz.
    units : str or list of str
        Unit of every channel (or one per channel).
    source_id : str, optional
        Lets an inlet recover the stream after the outlet restarts; default from the name.
    """
    import pylsl

    units = [units] * len(labels) if isinstance(units, str) else list(units)
    info = pylsl.StreamInfo(name, stype, len(labels), sfreq, fmt, source_id or f"rt-eeg:{name}")
    chans = info.desc().append_child("channels")
    for lab, unit in zip(labels, units, strict=True):
        ch = chans.append_child("channel")
        ch.append_child_value("label", lab)
        ch.append_child_value("unit", unit)
        ch.append_child_value("type", "EEG")
    info.desc().append_child("acquisition").append_child_value("manufacturer", "rt-eeg stream")
    return pylsl.StreamOutlet(info, chunk, 360)


def publish_recording(path: str | os.PathLike, name: str, *, speed: float | None = 1.0,
                      chunk_s: float = 0.04, start: float | None = None,
                      should_stop: Callable[[], bool] = lambda: False,
                      on_outlet: Callable | None = None, outlet=None) -> int:  # fmt: skip
    """Push an EDF recording through an LSL outlet at ``speed`` x real time (None: at once).

    Parameters
    ----------
    path : path-like
        EDF recording (its montage inputs are published).
    name : str
        LSL stream name.
    speed : float or None
        1 for wall-clock pace, N for N x faster, None for as fast as possible (timestamps
        still say the recording's pace).
    chunk_s : float
        Seconds per pushed chunk (an amplifier typically sends 10-50 ms chunks).
    start : float, optional
        LSL time of the first sample (default: now).
    should_stop : callable
        Polled between chunks; True ends publishing early.
    on_outlet : callable, optional
        Called with the outlet once it exists (tests wait for a consumer with it).
    outlet : pylsl.StreamOutlet, optional
        Publish through this outlet (from :func:`make_outlet`) instead of a new one.

    Returns
    -------
    int
        Samples published.
    """
    import pylsl

    from rt_eeg.io.edf import open_recording

    with open_recording(path) as rec:
        fs = rec.native_sfreq
        blocks = rec.native_blocks()  # checks first: one rate for every channel
        if outlet is None:
            outlet = make_outlet(name, rec.input_labels, fs)
        if on_outlet is not None:
            on_outlet(outlet)
        t0_lsl = pylsl.local_clock() if start is None else start
        t0_wall = time.monotonic()
        n_chunk = max(1, int(round(chunk_s * fs)))
        sent = 0
        for block in blocks:
            for a in range(0, len(block), n_chunk):
                if should_stop():
                    return sent
                piece = np.ascontiguousarray(block[a : a + n_chunk])
                end = sent + len(piece)
                if speed:
                    due = t0_wall + end / fs / speed
                    while (wait := due - time.monotonic()) > 0:
                        time.sleep(min(wait, 0.05))
                        if should_stop():
                            return sent
                # timestamp = capture time of the chunk's last sample; liblsl back-fills the rest
                outlet.push_chunk(piece, t0_lsl + (end - 1) / fs)
                sent = end
        return sent
