"""Annotation formats: TUSZ v2 csv_bi / csv, TUSZ v1 tse / tse_bi / lbl, our HYP, BIDS events.tsv.

Every reader returns an :class:`Annotation` (or, for HYP files, epochs) and raises
:class:`~rt_eeg.errors.RtEegError` naming the file and the line for malformed input. Every
writer writes atomically.

This package is the public face: import from ``rt_eeg.io.annotations``. Each module owns one
part (its docstring shows the format):

- :mod:`~rt_eeg.io.annotations.model`: ``Event``, ``Annotation``, labels, shared constants
- :mod:`~rt_eeg.io.annotations.checks`: parsing helpers and checks every format applies,
  ``check_within_recording``
- :mod:`~rt_eeg.io.annotations.tusz_csv`: TUSZ v2 ``.csv_bi`` / ``.csv``
- :mod:`~rt_eeg.io.annotations.tusz_v1`: TUSZ v1 ``.tse`` / ``.tse_bi`` / ``.lbl``
- :mod:`~rt_eeg.io.annotations.hyp`: our per-epoch HYP files
- :mod:`~rt_eeg.io.annotations.bids`: BIDS / SzCORE ``*_events.tsv``
- :mod:`~rt_eeg.io.annotations.background`: ``fill_background``
- :mod:`~rt_eeg.io.annotations.dispatch`: ``read_annotation`` (reader by suffix)
"""

from __future__ import annotations

# Every name the former single module defined is imported here, also those outside
# __all__ (rt_eeg.outputs imports HYP_HEADER, _TSV_COLUMNS, _sz_event_type and hyp_line), so
# existing imports keep working; F401 is off for this file in pyproject.toml.
from rt_eeg.io.annotations.background import (
    _fill,
    _merge_overlapping_seizures,
    fill_background,
)
from rt_eeg.io.annotations.bids import (
    _TSV_COLUMNS,
    _label_of_event_type,
    _sz_event_type,
    read_events_tsv,
    write_events_tsv,
)
from rt_eeg.io.annotations.checks import (
    _HEADER_RE,
    _SECS_RE,
    _check_event,
    _check_no_overlap,
    _parse_duration,
    _parse_float,
    _read_lines,
    _validate_for_write,
    check_within_recording,
)
from rt_eeg.io.annotations.dispatch import (
    _READERS,
    read_annotation,
)
from rt_eeg.io.annotations.hyp import (
    HYP_HEADER,
    HYP_LABELS,
    HYP_VERSION,
    HypEpoch,
    hyp_line,
    read_hyp,
    write_hyp,
)
from rt_eeg.io.annotations.model import (
    BACKGROUND_LABEL,
    END_TOLERANCE_S,
    KNOWN_LABELS,
    MAX_TIME_S,
    PRECISION,
    SEIZURE_LABELS,
    TERM,
    Annotation,
    Event,
    _fmt,
    _sort_events,
    binary_label,
)
from rt_eeg.io.annotations.tusz_csv import (
    CSV_HEADER,
    CSV_VERSION,
    DEFAULT_MONTAGE_FILE,
    _bname,
    _read_tusz_csv,
    _tusz_csv_text,
    read_csv,
    read_csv_bi,
    write_csv,
    write_csv_bi,
)
from rt_eeg.io.annotations.tusz_v1 import (
    _LBL_LABEL_RE,
    _LBL_MONTAGE_RE,
    _LBL_SYMBOLS_RE,
    TSE_VERSION,
    read_lbl,
    read_tse,
    write_tse,
)

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
