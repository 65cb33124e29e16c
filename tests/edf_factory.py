"""Write small EDF files for tests (pyedflib), with TUH-style or custom channel labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np

TUH_ELECTRODES = ["FP1", "FP2", "F3", "F4", "C3", "C4", "P3", "P4", "O1", "O2", "F7", "F8",
                  "T3", "T4", "T5", "T6", "FZ", "CZ", "PZ", "A1", "A2"]  # fmt: skip


def write_edf(
    path: Path, data: np.ndarray, labels: list[str], sfreq: float | list[float], unit: str = "uV"
) -> Path:
    """Write ``data`` (n_channels, n_samples) microvolts as a 16-bit EDF+ file.

    ``sfreq`` may be one rate or one per channel (then each row is that channel's samples,
    padded with NaN-free zeros to the longest row by the caller).
    """
    import pyedflib

    rates = [sfreq] * len(labels) if np.isscalar(sfreq) else list(sfreq)
    headers = []
    for lab, fs in zip(labels, rates, strict=True):
        headers.append(
            {
                "label": lab,
                "dimension": unit,
                "sample_frequency": fs,
                "physical_max": 3276.7,
                "physical_min": -3276.8,
                "digital_max": 32767,
                "digital_min": -32768,
            }
        )
    with pyedflib.EdfWriter(str(path), len(labels), file_type=pyedflib.FILETYPE_EDFPLUS) as w:
        w.setSignalHeaders(headers)
        w.writeSamples([np.asarray(row, dtype=np.float64) for row in data])
    return path


def tuh_like(
    path: Path,
    seconds: float,
    sfreq: float,
    *,
    suffix: str = "REF",
    ears: bool = True,
    rng: np.random.Generator | None = None,
    extra: tuple[str, ...] = ("EEG EKG1-REF", "BURSTS"),
):
    """A TUH-named referential recording of noise; returns (path, data (n_ch, n_samples))."""
    rng = rng or np.random.default_rng(0)
    elec = [e for e in TUH_ELECTRODES if ears or e not in ("A1", "A2")]
    labels = [f"EEG {e}-{suffix}" for e in elec] + list(extra)
    n = int(round(seconds * sfreq))
    data = rng.normal(0, 20, (len(labels), n))
    return write_edf(path, data, labels, sfreq), data


#: Main-header fields: name -> (offset, width).
MAIN_FIELDS = {"version": (0, 8), "patient": (8, 80), "recording": (88, 80),
               "startdate": (168, 8), "starttime": (176, 8), "header_bytes": (184, 8),
               "reserved": (192, 44), "n_records": (236, 8), "record_duration": (244, 8),
               "n_signals": (252, 4)}  # fmt: skip
#: Per-signal fields in file order: (name, width).
SIGNAL_FIELDS = (("label", 16), ("transducer", 80), ("dimension", 8), ("physical_min", 8),
                 ("physical_max", 8), ("digital_min", 8), ("digital_max", 8),
                 ("prefiltering", 80), ("samples_per_record", 8), ("reserved", 32))  # fmt: skip


def field_span(
    data: bytes, name: str, signal: int | None = None, ns: int | None = None
) -> tuple[int, int]:
    """``(offset, width)`` of a header field; ``signal`` (0-based) for per-signal fields;
    ``ns`` the number of signals when the header's own field may be corrupt."""
    if signal is None:
        return MAIN_FIELDS[name]
    ns = int(data[252:256].decode("ascii").strip()) if ns is None else ns
    pos = 256
    for fname, width in SIGNAL_FIELDS:
        if fname == name:
            return pos + signal * width, width
        pos += width * ns
    raise KeyError(name)


def set_field(
    data: bytes, name: str, value: str | bytes, signal: int | None = None, ns: int | None = None
) -> bytes:
    """Return ``data`` with one header field replaced (space-padded/cut to its width)."""
    off, width = field_span(data, name, signal, ns)
    raw = value.encode("latin-1") if isinstance(value, str) else bytes(value)
    raw = raw[:width].ljust(width, b" ")
    return data[:off] + raw + data[off + width :]
