"""Signal sources: where the samples of a run come from (an EDF file, a live LSL stream).

Every source gives the same thing: TCP-montage float32 microvolts at 250 Hz, as
:class:`SignalBlock` objects carrying their signal time, formed by the shared conditioning
code (:mod:`rt_eeg.sources.conditioning`). The detection stages only ever see blocks, so
adding a source never touches them.

A source describes itself with ``name``, ``sfreq``, ``ch_names``, ``montage`` and
``duration`` (seconds, or ``None`` for a live stream that has no end) and yields blocks from
``blocks(chunk_samples, idle)``; a live source also yields ``None`` when no data has come for
a while (so the caller can heartbeat, check for stop and show "no data") and keeps a
one-line ``status``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SignalBlock:
    """Samples with their place in signal time.

    Attributes
    ----------
    start : int
        Index of the first sample at the analysis rate, counted from the start of the run
        (signal time ``start / sfreq`` seconds).
    data : np.ndarray
        ``(n, n_channels)`` float32 microvolts, TCP montage.
    reset : bool
        True on the first block after a gap (dropped samples, lost stream): the signal is
        not continuous with the previous block, so the stages start from empty state.
    t_capture : float or None
        Wall clock (``time.time``) at which the block's last sample was acquired, when the
        source knows it (LSL timestamps); latency is measured from it.
    """

    start: int
    data: np.ndarray
    reset: bool = False
    t_capture: float | None = None


def source_from_spec(spec: dict):
    """Open the source a run describes (``{"kind": "edf", "path": ...}`` or
    ``{"kind": "lsl", "name"/"type": ..., "channel_map": ...}``)."""
    kind = spec.get("kind", "edf")
    if kind == "edf":
        from rt_eeg.sources.edf import EdfSource

        return EdfSource(spec["path"])
    if kind == "lsl":
        from rt_eeg.sources.lsl import LslSource

        return LslSource.from_spec(spec)
    raise ValueError(f"unknown source kind {kind!r}")
