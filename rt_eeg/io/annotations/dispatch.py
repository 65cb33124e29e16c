"""Reading any supported annotation file, the reader chosen by the file's suffix."""

from __future__ import annotations

import os
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations.bids import read_events_tsv
from rt_eeg.io.annotations.model import Annotation
from rt_eeg.io.annotations.tusz_csv import read_csv, read_csv_bi
from rt_eeg.io.annotations.tusz_v1 import read_lbl, read_tse

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
