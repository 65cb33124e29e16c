"""The signal file: frames in the order they were streamed, for review in the viewer.

``<stem>.signal.f32`` holds raw little-endian float32 samples, time-first
``(n_samples, n_channels)``; ``<stem>.signal.json`` holds ``sfreq``, ``ch_names``,
``n_samples``, ``t0`` and ``units``. The writer appends to a hidden partial file and renames
both files into place on ``close`` so a reader never sees a half-written recording.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import write_json_atomic


def _paths(stem: str | os.PathLike) -> tuple[Path, Path]:
    stem = Path(stem)
    name = stem.name
    for suffix in (".signal.f32", ".signal.json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    base = stem.with_name(name)
    return base.with_name(name + ".signal.f32"), base.with_name(name + ".signal.json")


class SignalWriter:
    """Append frames to a signal file.

    Parameters
    ----------
    stem : path-like
        Output path without suffix (``run/rec`` -> ``run/rec.signal.f32`` + ``.json``).
    sfreq : float
        Sampling rate in Hz.
    ch_names : list of str
        Channel names, column order of every frame.
    t0 : float
        Signal time of the first sample, in seconds.
    """

    def __init__(self, stem: str | os.PathLike, sfreq: float, ch_names: list[str], t0: float = 0.0):
        self.data_path, self.meta_path = _paths(stem)
        self.data_path.parent.mkdir(parents=True, exist_ok=True)
        self._part = self.data_path.with_name("." + self.data_path.name + ".part")
        self._fh = open(self._part, "wb")  # noqa: SIM115 - closed in close()
        self.sfreq, self.ch_names, self.t0 = float(sfreq), list(ch_names), float(t0)
        self.n_samples = 0

    def append(self, frame: np.ndarray) -> None:
        """Append ``(n, n_channels)`` samples."""
        frame = np.asarray(frame, dtype="<f4")
        if frame.ndim != 2 or frame.shape[1] != len(self.ch_names):
            raise ValueError(
                f"frame shape {frame.shape} does not match {len(self.ch_names)} channels"
            )
        self._fh.write(np.ascontiguousarray(frame).tobytes())
        self.n_samples += frame.shape[0]

    def flush(self) -> None:
        """Push buffered samples to the OS (the partial file survives a crash of the caller)."""
        self._fh.flush()

    def close(self) -> None:
        """Finish: rename the data into place and write the JSON header atomically."""
        if self._fh.closed:
            return
        self._fh.close()
        os.replace(self._part, self.data_path)
        meta = {
            "sfreq": self.sfreq,
            "ch_names": self.ch_names,
            "n_samples": self.n_samples,
            "t0": self.t0,
            "units": "uV",
            "dtype": "float32",
            "layout": "time-first",
        }
        write_json_atomic(self.meta_path, meta)

    def __enter__(self) -> SignalWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_signal(path: str | os.PathLike) -> tuple[np.ndarray, float, list[str]]:
    """Read a signal file written by :class:`SignalWriter`.

    Parameters
    ----------
    path : path-like
        The ``.signal.f32`` file, its ``.signal.json`` header, or the common stem.

    Returns
    -------
    data : np.ndarray
        ``(n_samples, n_channels)`` float32 memory map (read-only).
    sfreq : float
    ch_names : list of str
    """
    data_path, meta_path = _paths(path)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        sfreq, ch_names, n = float(meta["sfreq"]), list(meta["ch_names"]), int(meta["n_samples"])
    except FileNotFoundError:
        raise RtEegError("signal header not found", meta_path) from None
    except (ValueError, KeyError, TypeError) as err:
        raise RtEegError(f"malformed signal header ({err})", meta_path) from None
    if not data_path.is_file():
        raise RtEegError("signal data not found", data_path)
    expected = n * len(ch_names) * 4
    if data_path.stat().st_size != expected:
        raise RtEegError(
            f"size {data_path.stat().st_size} bytes does not match header ({n} samples x {len(ch_names)} channels)",
            data_path,
        )
    if n == 0:
        return np.zeros((0, len(ch_names)), np.float32), sfreq, ch_names
    return np.memmap(data_path, dtype="<f4", mode="r", shape=(n, len(ch_names))), sfreq, ch_names
