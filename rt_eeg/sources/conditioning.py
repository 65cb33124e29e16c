"""Signal conditioning shared by every source: units, resampling, TCP montage, framing.

A source delivers native samples (its own rate, its own channels, microvolts); a
:class:`Conditioner` turns them into TCP-montage float32 microvolts at 250 Hz, and
:func:`rechunk` cuts the result into fixed-size blocks. The EDF reader and the live (LSL)
source use exactly this code, which is why a recording streamed over LSL gives the same
decisions as the file read offline.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from rt_eeg.montage import Montage
from rt_eeg.resample import StreamingResampler

ANALYSIS_SFREQ = 250.0

#: Unit spellings (lower case) -> factor to microvolts. EDF writes ``uV``; LSL's XDF
#: convention writes ``microvolts``. An empty unit is taken as microvolts, as EDF readers do.
UNIT_SCALE: dict[str, float] = {
    "uv": 1.0, "µv": 1.0, "μv": 1.0, "microvolt": 1.0, "microvolts": 1.0, "": 1.0,
    "mv": 1e3, "millivolt": 1e3, "millivolts": 1e3,
    "v": 1e6, "volt": 1e6, "volts": 1e6,
    "nv": 1e-3, "nanovolt": 1e-3, "nanovolts": 1e-3,
}  # fmt: skip


def unit_scale(unit: str) -> float | None:
    """Factor from ``unit`` to microvolts, or None when the unit is not a voltage we know."""
    return UNIT_SCALE.get(unit.strip().lower())


class Conditioner:
    """Native samples -> TCP montage at ``sfreq``, streaming, for inputs of one or more rates.

    Parameters
    ----------
    rates : list of float
        Native rate of each montage input (matrix row order).
    montage : Montage
        Formed from the source's channels; its ``input_labels`` are the inputs, in order.
    sfreq : float
        Output rate (250 Hz).
    n_total : int, optional
        Stop after this many output samples (a file's length); None for a live stream.

    Notes
    -----
    Blocks go in as ``{rate: (n, n_inputs_at_rate) float64 microvolts}`` and come out as
    ``(m, n_tcp)`` float32; the concatenated output equals conditioning the whole signal at
    once (``StreamingResampler`` == one ``resample_poly`` call), whatever the block sizes.
    """

    def __init__(self, rates: list[float], montage: Montage, sfreq: float = ANALYSIS_SFREQ,
                 n_total: int | None = None):  # fmt: skip
        self.rates = [float(r) for r in rates]
        self.montage = montage
        self.sfreq = float(sfreq)
        self.n_total = n_total
        self.groups: dict[float, list[int]] = {}
        for k, fs in enumerate(self.rates):
            self.groups.setdefault(fs, []).append(k)
        self._resamplers = {
            fs: StreamingResampler(fs, self.sfreq, len(ks)) for fs, ks in self.groups.items()
        }
        self._pending: dict[float, list[np.ndarray]] = {fs: [] for fs in self.groups}
        self.n_out = 0

    def push(self, raw: dict[float, np.ndarray] | np.ndarray) -> np.ndarray:
        """Feed native samples (a plain array when all inputs share one rate)."""
        if not isinstance(raw, dict):
            (fs,) = self.groups
            raw = {fs: raw}
        for fs, block in raw.items():
            self._pending[fs].append(self._resamplers[fs].push(block))
        return self._emit()

    def flush(self) -> np.ndarray:
        """End of signal: the resamplers' tails (zero padding past the end, as resample_poly)."""
        for fs, rs in self._resamplers.items():
            self._pending[fs].append(rs.flush())
        return self._emit()

    def _emit(self) -> np.ndarray:
        ready = min(sum(len(p) for p in parts) for parts in self._pending.values())
        if self.n_total is not None:
            ready = min(ready, self.n_total - self.n_out)
        if ready <= 0:
            return np.zeros((0, len(self.montage.ch_names)), np.float32)
        cols = np.empty((ready, len(self.rates)), dtype=np.float32)
        for fs, ks in self.groups.items():
            stacked = np.concatenate(self._pending[fs])
            cols[:, ks] = stacked[:ready]
            self._pending[fs] = [stacked[ready:]]
        self.n_out += ready
        return self.montage.apply(cols)


def rechunk(blocks: Iterable[np.ndarray], chunk_samples: int, n_channels: int
            ) -> Iterator[tuple[int, np.ndarray]]:  # fmt: skip
    """Cut a stream of ``(n_i, n_channels)`` blocks into ``(start, (chunk_samples, n_channels))``.

    The last block may be shorter; the concatenation is unchanged.
    """
    if chunk_samples < 1:
        raise ValueError("chunk_samples must be >= 1")
    pending = np.zeros((0, n_channels), dtype=np.float32)
    emitted = 0
    for block in blocks:
        pending = np.concatenate([pending, block]) if len(pending) else block
        while len(pending) >= chunk_samples:
            yield emitted, pending[:chunk_samples]
            emitted += chunk_samples
            pending = pending[chunk_samples:]
    if len(pending):
        yield emitted, pending
