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
