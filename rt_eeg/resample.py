"""Streaming polyphase resampling, identical to one ``scipy.signal.resample_poly`` call.

The stream is resampled in pieces: each call runs ``resample_poly`` over the input kept since
a boundary that is a multiple of ``down`` (so output indices line up with the whole-signal
grid) plus enough margin for the anti-aliasing filter, and emits only the outputs whose
filter support is complete. The result equals resampling the whole signal at once, whatever
the chunking, so a 24-hour file never has to be loaded whole.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


class StreamingResampler:
    """Resample a multichannel stream from ``sfreq_in`` to ``sfreq_out``.

    Parameters
    ----------
    sfreq_in, sfreq_out : float
        Rates in Hz; their ratio must be rational with a small denominator (any pair of
        integer rates, or rates given to 1/1000 Hz).
    n_channels : int
        Number of channels (columns) of every block.
    """

    def __init__(self, sfreq_in: float, sfreq_out: float, n_channels: int):
        ratio = Fraction(sfreq_out).limit_denominator(1000) / Fraction(sfreq_in).limit_denominator(
            1000
        )
        self.up, self.down = ratio.numerator, ratio.denominator
        self.n_channels = n_channels
        # resample_poly's default filter has half-length 10 * max(up, down) at the upsampled
        # rate: that many input samples / up, plus one for rounding, on each side.
        self._margin = math.ceil(10 * max(self.up, self.down) / self.up) + 2
        self._buf = np.zeros((0, n_channels), dtype=np.float64)
        self._base = 0  # global input index of self._buf[0], always a multiple of down
        self._n_in = 0  # input samples received
        self._n_out = 0  # output samples emitted

    @property
    def identity(self) -> bool:
        """True when no resampling is needed (input rate equals output rate)."""
        return self.up == self.down

    def n_out_total(self, n_in: int) -> int:
        """Output length for ``n_in`` input samples, as ``resample_poly`` gives it."""
        return n_in if self.identity else math.ceil(n_in * self.up / self.down)

    def push(self, block: np.ndarray) -> np.ndarray:
        """Feed ``(n, n_channels)`` input samples; return the outputs now complete."""
        if self.identity:
            self._n_in += len(block)
            return np.asarray(block, dtype=np.float32)
        self._buf = np.concatenate([self._buf, np.asarray(block, dtype=np.float64)])
        self._n_in += len(block)
        # Output m needs input up to floor(m * down / up) + margin.
        last_ok = (self._n_in - self._margin) * self.up // self.down
        return self._emit(max(last_ok, self._n_out))

    def flush(self) -> np.ndarray:
        """End of stream: return the remaining outputs (zero padding past the end)."""
        if self.identity:
            return np.zeros((0, self.n_channels), dtype=np.float32)
        return self._emit(self.n_out_total(self._n_in))

    def _emit(self, stop: int) -> np.ndarray:
        if stop <= self._n_out or len(self._buf) == 0:
            return np.zeros((0, self.n_channels), dtype=np.float32)
        # Imported here, not at module level: scipy.signal takes ~0.8 s to import, and the
        # supervisor validates recordings through this module's importers before any stage
        # starts (the source stage loads it before it reports ready).
        from scipy.signal import resample_poly

        y = resample_poly(self._buf, self.up, self.down, axis=0)
        first = self._base * self.up // self.down
        out = y[self._n_out - first : stop - first].astype(np.float32)
        self._n_out = stop
        # Keep the input the next outputs still need, from a multiple of down.
        keep_from = max(0, (stop * self.down // self.up) - self._margin)
        keep_from -= keep_from % self.down
        if keep_from > self._base:
            self._buf = self._buf[keep_from - self._base :]
            self._base = keep_from
        return out
