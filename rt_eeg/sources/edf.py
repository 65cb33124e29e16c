"""An EDF recording as a source (a finite run: ``duration`` is the file's)."""

from __future__ import annotations

import os
from collections.abc import Iterator

from rt_eeg.sources import SignalBlock


class EdfSource:
    """Blocks of an EDF file (:func:`rt_eeg.io.edf.open_recording`), never a gap.

    Parameters
    ----------
    path : path-like
        The recording; header problems raise ``RtEegError`` here, before any output exists.
    """

    status = "ok"

    def __init__(self, path: str | os.PathLike):
        from rt_eeg.io.edf import open_recording

        self.rec = open_recording(path)
        self.name = self.rec.path.stem
        self.sfreq = self.rec.sfreq
        self.ch_names = self.rec.ch_names
        self.montage = self.rec.montage
        self.duration: float | None = self.rec.duration

    @property
    def received_s(self) -> float:
        return self.duration

    def describe(self) -> dict:
        return {"kind": "edf", "path": str(self.rec.path)}

    def blocks(self, chunk_samples: int, idle_s: float = 0.1) -> Iterator[SignalBlock]:
        """``(chunk_samples, n_ch)`` blocks in order (the last may be shorter)."""
        for start, block in self.rec.chunks(chunk_samples):
            yield SignalBlock(start, block)

    def finish(self, chunk_samples: int) -> Iterator[SignalBlock]:
        """Nothing is held back: every block was yielded by :meth:`blocks`."""
        return iter(())

    def close(self) -> None:
        self.rec.close()
