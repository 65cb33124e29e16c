"""A 2-D ring buffer with an explicit overflow policy and contiguous reads.

Storage is ``(2 * capacity, n_channels)``: every sample is written twice, at row ``i`` and at
row ``i + capacity`` (``i = sample_index % capacity``). Any run of up to ``capacity``
consecutive held samples then lies in consecutive rows, so :meth:`RingBuffer.latest` and
:meth:`RingBuffer.read` return contiguous views without copying and without ``np.roll``.
Writing costs two copies per sample, which for the buffers in this project (tens of samples
by tens of channels) is far cheaper than any per-read reassembly.
"""

from __future__ import annotations

import numpy as np

OVERFLOW_POLICIES = ("error", "overwrite")


class BufferOverflowError(RuntimeError):
    """A write into a ring buffer with ``overflow='error'`` would discard held samples."""


class RingBuffer:
    """Fixed-capacity buffer of the most recent samples of ``n_channels`` channels.

    Parameters
    ----------
    capacity : int
        Samples (rows) held at most.
    n_channels : int
        Columns.
    overflow : {'error', 'overwrite'}
        What a write does when the held samples plus the new ones exceed ``capacity``:
        ``'error'`` raises :class:`BufferOverflowError` and leaves the buffer unchanged (a
        FIFO whose consumer fell behind must not lose data silently); ``'overwrite'`` drops
        the oldest samples (a sliding history) and counts them in :attr:`n_dropped`.
    dtype : numpy dtype
        Sample type (float32 by default).

    Notes
    -----
    Views returned by :meth:`latest` and :meth:`read` are read-only and point into the
    buffer: they stay valid until the next :meth:`write`; copy them to keep them longer.
    """

    def __init__(
        self,
        capacity: int,
        n_channels: int,
        *,
        overflow: str = "error",
        dtype: np.typing.DTypeLike = np.float32,
    ):
        if int(capacity) < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        if int(n_channels) < 1:
            raise ValueError(f"n_channels must be >= 1, got {n_channels}")
        if overflow not in OVERFLOW_POLICIES:
            raise ValueError(f"overflow must be one of {OVERFLOW_POLICIES}, got {overflow!r}")
        self.capacity = int(capacity)
        self.n_channels = int(n_channels)
        self.overflow = overflow
        self._data = np.zeros((2 * self.capacity, self.n_channels), dtype=dtype)
        self._total = 0  # samples ever written
        self._count = 0  # samples held (<= capacity)
        self.n_dropped = 0  # samples discarded by 'overwrite' before being read

    @property
    def dtype(self) -> np.dtype:
        return self._data.dtype

    @property
    def count(self) -> int:
        """Number of samples currently held."""
        return self._count

    @property
    def total_written(self) -> int:
        """Number of samples written since construction (or :meth:`clear`)."""
        return self._total

    @property
    def free(self) -> int:
        """Samples that can be written without dropping any held sample."""
        return self.capacity - self._count

    def __len__(self) -> int:
        return self._count

    def clear(self) -> None:
        """Forget every sample (storage is kept)."""
        self._total = 0
        self._count = 0
        self.n_dropped = 0

    def write(self, block: np.ndarray) -> None:
        """Append ``block`` of shape ``(n, n_channels)`` (or ``(n_channels,)`` for one sample).

        Raises
        ------
        BufferOverflowError
            With ``overflow='error'`` when ``count + n > capacity`` (nothing is written).
        ValueError
            When the block does not have ``n_channels`` columns.
        """
        block = np.asarray(block)
        if block.ndim == 1:
            block = block[np.newaxis, :]
        if block.ndim != 2 or block.shape[1] != self.n_channels:
            raise ValueError(
                f"block must have shape (n, {self.n_channels}), got {tuple(block.shape)}"
            )
        n = block.shape[0]
        if n == 0:
            return
        excess = self._count + n - self.capacity
        if excess > 0:
            if self.overflow == "error":
                raise BufferOverflowError(
                    f"writing {n} samples into a ring buffer holding {self._count} of "
                    f"{self.capacity} would drop {excess} unread samples"
                )
            self.n_dropped += excess
        cap = self.capacity
        if n > cap:  # only the last `cap` samples can survive
            skipped = n - cap
            block = block[skipped:]
            self._total += skipped
            n = cap
        start = self._total % cap
        first = min(n, cap - start)  # rows up to the end of the lower half
        d = self._data
        d[start : start + first] = block[:first]
        d[start + cap : start + cap + first] = block[:first]
        if first < n:
            rest = n - first
            d[:rest] = block[first:]
            d[cap : cap + rest] = block[first:]
        self._total += n
        self._count = min(self._count + n, cap)

    def _end_row(self) -> int:
        # Row after the newest sample, taken in the upper half so that any run of up to
        # `capacity` samples before it starts at a row >= 0.
        return self._total % self.capacity + self.capacity

    def latest(self, n: int) -> np.ndarray:
        """The ``n`` most recent samples, oldest first: read-only contiguous view ``(n, n_ch)``.

        Does not consume anything. ``n`` must not exceed :attr:`count`.
        """
        n = int(n)
        if not 0 <= n <= self._count:
            raise ValueError(f"asked for the latest {n} samples but {self._count} are held")
        end = self._end_row()
        view = self._data[end - n : end]
        view.flags.writeable = False
        return view

    def read(self, n: int) -> np.ndarray:
        """Consume the ``n`` oldest held samples (FIFO): read-only contiguous view ``(n, n_ch)``."""
        n = int(n)
        if not 0 <= n <= self._count:
            raise ValueError(f"asked to read {n} samples but {self._count} are held")
        start = self._end_row() - self._count
        view = self._data[start : start + n]
        view.flags.writeable = False
        self._count -= n
        return view
