"""Our HYP files: one line per decision epoch of the detector (read, write, one record).

::

    # version = rt_eeg_hyp_v1
    # duration = 600.0000 secs
    # epoch = 1.0 secs
    start_time,stop_time,label,confidence
    0.0000,1.0000,bckg,0.9731
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations.checks import _check_event, _csv_records, _CsvHead, _parse_float
from rt_eeg.io.annotations.model import _fmt
from rt_eeg.io.atomic import write_text_atomic

HYP_VERSION = "rt_eeg_hyp_v1"
HYP_HEADER = "start_time,stop_time,label,confidence"
HYP_LABELS = frozenset({"seiz", "bckg", "na"})


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
    head = _CsvHead()
    epochs: list[HypEpoch] = []
    for n, parts in _csv_records(path, head, HYP_HEADER, 4):
        start = _parse_float(parts[0], "start time", n, path)
        stop = _parse_float(parts[1], "stop time", n, path)
        conf = _parse_float(parts[3], "confidence", n, path)
        _check_event(start, stop, parts[2].lower(), conf, n, path, labels=HYP_LABELS)
        epochs.append(HypEpoch(start, stop, parts[2].lower(), conf))
    if head.version != HYP_VERSION:
        raise RtEegError(f"not a HYP file (version {head.version!r}, expected {HYP_VERSION})", path)
    if head.duration is None:
        raise RtEegError("missing '# duration = N secs' header", path)
    if not head.seen_header:
        raise RtEegError(f"no header row {HYP_HEADER!r} found", path)
    return epochs, head.duration
