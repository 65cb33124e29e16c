"""Append-only text files rotated by signal time, with an index: the outputs of a live run.

A live run has no end, so its outputs cannot be written once at the end. Each kind of
output (``hyp``, ``events``) is a series of parts; part ``k`` holds the records whose signal
time falls in ``[k * rotate_s, (k + 1) * rotate_s)``, named ``<name>.p<k:05d>.<suffix>``.
``<name>.index.json`` (rewritten atomically at every rotation and at the end) lists the
parts with their time ranges; concatenating the parts' records in index order gives the
whole run.

Durability: every record is written and flushed as it is made, and ``fsync``-ed at most
every ``fsync_s`` seconds (and at rotation), so a crash or a power cut loses at most the last
``fsync_s`` seconds. A part torn by a crash (a last line without its newline) is repaired
when the run is resumed or the parts are read (:func:`read_part`).

A failing disk (full, unwritable folder) never stops the run: :meth:`RotatingText.write`
keeps the records it could not write (bounded) and retries; ``error`` holds one line saying
what is wrong, for the monitor and the log.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from pathlib import Path

from rt_eeg.io.atomic import write_json_atomic

#: Records kept in memory while the disk refuses them (one hour of 1 s decisions).
MAX_BACKLOG = 3600
RETRY_S = 5.0


def part_name(name: str, k: int, suffix: str) -> str:
    return f"{name}.p{k:05d}.{suffix}"


def repair_torn_tail(path: Path) -> int:
    """Cut a last line that has no newline (a write torn by a crash); returns bytes cut."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with open(path, "rb+") as fh:
        tail_start = max(0, size - 65536)
        fh.seek(tail_start)
        tail = fh.read()
        if tail.endswith(b"\n"):
            return 0
        cut = tail.rfind(b"\n")
        keep = tail_start + cut + 1 if cut >= 0 else 0
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
        return size - keep


def read_part(path: str | os.PathLike, header: tuple[str, ...] | list[str] = ()) -> list[str]:
    """Records of one part: ``#`` comments, the ``header`` lines and a torn last line dropped."""
    text = Path(path).read_text(encoding="utf-8")
    lines = text.split("\n")
    complete = lines[:-1]  # the last element is "" after a final newline, else a torn line
    skip = set(header)
    return [ln for ln in complete if ln and not ln.startswith("#") and ln not in skip]


class RotatingText:
    """One output kind of a live run, as time-rotated append-only parts.

    Parameters
    ----------
    out_dir : path-like
    name : str
        Run name (file stem).
    suffix : str
        File suffix of this kind (``hyp``, ``events.tsv``).
    header : list of str
        Lines written at the top of every part (``#`` comments and the column header).
    rotate_s : float
        Signal seconds per part.
    fsync_s : float
        Longest time a flushed record may wait for ``fsync``.
    """

    def __init__(self, out_dir, name: str, suffix: str, header: list[str], rotate_s: float,
                 fsync_s: float = 2.0):  # fmt: skip
        self.out_dir, self.name, self.suffix = Path(out_dir), name, suffix
        self.header = list(header)
        self.rotate_s = float(rotate_s)
        self.fsync_s = float(fsync_s)
        self.k: int | None = None
        self._fh = None
        self._last_sync = time.monotonic()
        self._backlog: deque[tuple[float, str]] = deque(maxlen=MAX_BACKLOG)
        self._next_retry = 0.0
        self.error: str | None = None
        self.n_lost = 0  # records dropped because the backlog overflowed

    def path(self, k: int) -> Path:
        return self.out_dir / part_name(self.name, k, self.suffix)

    def part_of(self, t: float) -> int:
        return int(t // self.rotate_s)

    def write(self, t: float, line: str) -> None:
        """Append one record (no newline) at signal time ``t``; never raises for disk errors."""
        if len(self._backlog) == self._backlog.maxlen:
            self.n_lost += 1
        self._backlog.append((t, line))
        if self.error and time.monotonic() < self._next_retry:
            return
        self._drain()

    def _drain(self) -> None:
        try:
            while self._backlog:
                t0, ln = self._backlog[0]
                self._open(self.part_of(t0))
                self._fh.write(ln + "\n")
                self._backlog.popleft()
            if self._fh is not None:
                self._fh.flush()
            if time.monotonic() - self._last_sync >= self.fsync_s:
                self.sync()
            self.error = None
        except OSError as err:
            self._fail(err)

    def _fail(self, err: OSError) -> None:
        where = err.filename or self.out_dir
        self.error = f"{where}: cannot write ({err.strerror or err}); detection continues, " \
                     f"{len(self._backlog)} records held"  # fmt: skip
        self._next_retry = time.monotonic() + RETRY_S
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:
                pass
            self._fh = None
            self.k = None

    def _open(self, k: int) -> None:
        if self._fh is not None and k == self.k:
            return
        if self._fh is not None:
            self.sync()
            self._fh.close()
            self._fh = None
        path = self.path(k)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        fresh = not path.exists() or path.stat().st_size == 0
        if not fresh:
            repair_torn_tail(path)  # resuming after a crash or a restart
        self._fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self.k = k
        if fresh:
            self._fh.write("".join(f"{h}\n" for h in self.header))

    def sync(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
        self._last_sync = time.monotonic()

    def close(self) -> None:
        if self._backlog:  # last chance for what the disk refused
            self._drain()
        if self._fh is not None:
            try:
                self.sync()
                self._fh.close()
            except OSError as err:
                self._fail(err)
            self._fh = None

    def parts(self) -> list[int]:
        """Indices of the parts on disk, in order."""
        pre, post = f"{self.name}.p", f".{self.suffix}"
        ks = []
        for p in self.out_dir.glob(f"{self.name}.p*.{self.suffix}"):
            mid = p.name[len(pre) : -len(post)]
            if mid.isdigit():
                ks.append(int(mid))
        return sorted(ks)

    def records(self) -> list[str]:
        """Every record on disk, in order (for the final assembly and for tests)."""
        out: list[str] = []
        for k in self.parts():
            out += read_part(self.path(k), self.header)
        return out


def write_index(path: Path, info: dict) -> None:
    """The index of a live run, rewritten atomically (never half-written)."""
    write_json_atomic(path, info)


def read_index(path: str | os.PathLike) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


class RotatingSignal:
    """The signal file of a live run, in pieces: one per ``rotate_s`` part, and a new piece
    after every gap (a signal file holds contiguous samples from its ``t0``).

    Pieces are ordinary signal files (:mod:`rt_eeg.io.signalfile`) named
    ``<name>.pNNNNN[.gJ].signal.f32`` + ``.json``; ``<name>.signal-index.json`` lists them
    with ``t0`` and ``n_samples``. The open piece is flushed every block and fsync-ed at most
    every ``fsync_s``; it is renamed into place when it closes (a crash leaves its samples in
    the hidden ``.part`` file beside it). A disk error drops samples, never the run: the
    detection path does not depend on this file.
    """

    def __init__(self, out_dir, name: str, sfreq: float, ch_names: list[str], rotate_s: float,
                 fsync_s: float = 2.0):  # fmt: skip
        self.out_dir, self.name = Path(out_dir), name
        self.sfreq, self.ch_names = float(sfreq), list(ch_names)
        self.per_part = max(1, int(round(rotate_s * sfreq)))
        self.fsync_s = float(fsync_s)
        self.index_path = self.out_dir / f"{name}.signal-index.json"
        self.pieces: list[dict] = []
        self._w = None
        self._next: int | None = None
        self._k: int | None = None
        self._last_sync = time.monotonic()
        self._next_retry = 0.0
        self.error: str | None = None
        self._resume()

    def _resume(self) -> None:
        """A restarted source (or a run after a crash) continues the index; a piece left open
        is recovered from its hidden partial file (whole samples only) with its header."""
        try:
            self.pieces = list(read_index(self.index_path)["pieces"])
        except (OSError, ValueError, KeyError):
            return
        n_ch = len(self.ch_names)
        for p in self.pieces:
            if p.get("closed"):
                continue
            data = self.out_dir / p["file"]
            part = data.with_name("." + data.name + ".part")
            if part.exists():
                n = part.stat().st_size // (4 * n_ch)
                with open(part, "rb+") as fh:
                    fh.truncate(n * 4 * n_ch)  # a torn last sample
                os.replace(part, data)
                meta = {"sfreq": self.sfreq, "ch_names": self.ch_names, "n_samples": n, "t0": p["t0"],
                        "units": "uV", "dtype": "float32", "layout": "time-first"}  # fmt: skip
                write_json_atomic(data.with_name(data.name[: -len(".signal.f32")] + ".signal.json"), meta)
                p["n_samples"] = n
            p["closed"] = True
        self._write_index()

    def append(self, start: int, block) -> None:
        """Record ``(n, n_ch)`` samples starting at analysis sample ``start``."""
        while len(block):
            k = start // self.per_part
            n = min(len(block), (k + 1) * self.per_part - start)
            self._write(k, start, block[:n])
            start, block = start + n, block[n:]

    def _write(self, k: int, start: int, block) -> None:
        from rt_eeg.io.signalfile import SignalWriter

        if self.error and time.monotonic() < self._next_retry:
            return
        try:
            if self._w is None or k != self._k or start != self._next:
                self._close_piece()
                gaps = sum(1 for p in self.pieces if p["part"] == k)  # pieces before this one
                stem = f"{self.name}.p{k:05d}" + (f".g{gaps}" if gaps else "")
                self.out_dir.mkdir(parents=True, exist_ok=True)
                self._w = SignalWriter(self.out_dir / stem, self.sfreq, self.ch_names, start / self.sfreq)
                self.pieces.append({"part": k, "file": stem + ".signal.f32", "t0": start / self.sfreq,
                                    "n_samples": 0, "closed": False})  # fmt: skip
                self._k = k
                self._write_index()
            self._w.append(block)
            self._w.flush()
            if time.monotonic() - self._last_sync >= self.fsync_s:
                os.fsync(self._w._fh.fileno())
                self._last_sync = time.monotonic()
            self.pieces[-1]["n_samples"] = self._w.n_samples
            self._next = start + len(block)
            self.error = None
        except OSError as err:
            self.error = f"{err.filename or self.out_dir}: cannot write the signal file " \
                         f"({err.strerror or err}); detection continues"  # fmt: skip
            self._next_retry = time.monotonic() + RETRY_S
            self._w = None
            self._next = None

    def _close_piece(self) -> None:
        if self._w is not None:
            w, self._w = self._w, None
            os.fsync(w._fh.fileno())
            w.close()
            self.pieces[-1]["closed"] = True
            self._write_index()

    def _write_index(self) -> None:
        write_index(self.index_path, {"name": self.name, "sfreq": self.sfreq,
                                      "ch_names": self.ch_names, "pieces": self.pieces})  # fmt: skip

    def close(self) -> None:
        try:
            self._close_piece()
        except OSError as err:
            self.error = f"{err.filename or self.out_dir}: cannot close the signal file ({err.strerror or err})"
