"""Qt-free state of the monitor: signal history, decisions, seizure events, channel checks.

Everything the window draws is kept here so that it can be tested without a display and
so that the window itself only maps this state to pixels.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from rt_eeg.io.annotations import SEIZURE_LABELS

#: Display codes of decision segments.
NA, BCKG, SEIZ = 0, 1, 2
#: Decision colours, one palette for the monitor and the ward overview. Red and green are
#: always paired with words (SEIZ / SEIZURE, BCKG), never colour alone.
SEIZ_RGB = (215, 25, 28)
BCKG_RGB = (26, 150, 65)
NA_RGB = (150, 150, 150)
CODE_NAMES = {NA: "na", BCKG: "bckg", SEIZ: "seiz"}


def label_code(label: str) -> int:
    """Map a decision label to a display code.

    'seiz' and TUSZ seizure subtypes -> SEIZ, 'bckg' -> BCKG, 'na' -> NA.

    Raises
    ------
    ValueError
        For any other label (the feed counts the message as malformed).
    """
    lab = str(label).strip().lower()
    if lab in SEIZURE_LABELS:
        return SEIZ
    if lab == "bckg":
        return BCKG
    if lab == "na":
        return NA
    raise ValueError(f"unknown decision label {label!r}")


def format_time(t: float, *, decimals: int = 1) -> str:
    """Signal seconds as ``mm:ss.s`` or ``h:mm:ss.s`` (negative times keep their sign)."""
    sign = "-" if t < 0 else ""
    t = abs(t)
    h, rem = divmod(t, 3600.0)
    m, s = divmod(rem, 60.0)
    width = 3 + decimals if decimals else 2
    s_txt = f"{s:0{width}.{decimals}f}"
    if s_txt.startswith("60"):  # rounding up to the next minute
        s_txt = f"{0:0{width}.{decimals}f}"
        m += 1
        if m == 60:
            m, h = 0, h + 1
    if h:
        return f"{sign}{int(h)}:{int(m):02d}:{s_txt}"
    return f"{sign}{int(m):02d}:{s_txt}"


# --------------------------------------------------------------------------------------------
# signal history


class SignalHistory:
    """Preallocated ring of the most recent samples, addressed by absolute sample index.

    Frames are written where their ``t0`` says they belong: a gap in the stream (frames
    dropped on the lossy display path) is filled with NaN so that it is drawn as a gap and
    never bridged; nothing is shifted per frame (no ``np.roll``).

    Parameters
    ----------
    n_channels : int
    sfreq : float
        Hz.
    capacity_s : float
        Seconds of history kept.
    """

    def __init__(self, n_channels: int, sfreq: float, capacity_s: float):
        self.n_channels = int(n_channels)
        self.sfreq = float(sfreq)
        self.capacity = max(1, int(round(capacity_s * self.sfreq)))
        # (capacity, n_channels) float32 microvolts, time-first like every signal in rt_eeg.
        self._data = np.full((self.capacity, self.n_channels), np.nan, dtype=np.float32)
        self.t_origin: float | None = None  # signal seconds of absolute index 0
        self.first = 0  # absolute index of the oldest sample still held
        self.end = 0  # absolute index one past the newest sample
        self.n_gap_samples = 0

    @property
    def empty(self) -> bool:
        """True before the first frame."""
        return self.t_origin is None

    @property
    def t_first(self) -> float:
        """Signal seconds of the oldest sample held (0 when empty)."""
        return 0.0 if self.t_origin is None else self.t_origin + self.first / self.sfreq

    @property
    def t_end(self) -> float:
        """Signal seconds just after the newest sample (0 when empty)."""
        return 0.0 if self.t_origin is None else self.t_origin + self.end / self.sfreq

    def index_of(self, t: float) -> int:
        """Absolute sample index of signal time ``t`` (rounded)."""
        origin = 0.0 if self.t_origin is None else self.t_origin
        return int(round((t - origin) * self.sfreq))

    def write(self, t0: float, frame: np.ndarray) -> bool:
        """Store ``frame`` (n, n_channels) whose first sample is at signal time ``t0``.

        Returns False when the frame is older than the history held (dropped).
        """
        n = frame.shape[0]
        if self.t_origin is None:
            self.t_origin = float(t0)
        start = self.index_of(t0)
        if start + n <= self.end - self.capacity:
            return False
        if start > self.end:  # samples never received: NaN, drawn as a gap
            self.n_gap_samples += start - self.end
            self._fill_nan(max(self.end, start - self.capacity), start)
        if n > self.capacity:
            frame, start, n = frame[-self.capacity :], start + n - self.capacity, self.capacity
        lo = max(start, self.end - self.capacity)  # part of the frame still inside the ring
        if lo > start:
            frame, n, start = frame[lo - start :], n - (lo - start), lo
        self._put(start, frame)
        self.end = max(self.end, start + n)
        self.first = max(self.first, self.end - self.capacity)
        return True

    def _put(self, start: int, block: np.ndarray) -> None:
        pos = start % self.capacity
        k = min(block.shape[0], self.capacity - pos)
        self._data[pos : pos + k] = block[:k]
        if k < block.shape[0]:
            self._data[: block.shape[0] - k] = block[k:]

    def _fill_nan(self, start: int, stop: int) -> None:
        while start < stop:
            pos = start % self.capacity
            k = min(stop - start, self.capacity - pos)
            self._data[pos : pos + k] = np.nan
            start += k

    def read_into(self, start: int, out: np.ndarray) -> None:
        """Copy samples ``[start, start + len(out))`` (absolute indices) into ``out``.

        Samples outside ``[first, end)`` read as NaN. ``out`` is (n, n_channels) float32.
        """
        n = out.shape[0]
        lo, hi = max(start, self.first), min(start + n, self.end)
        if hi <= lo:
            out[:] = np.nan
            return
        out[: lo - start] = np.nan
        out[hi - start :] = np.nan
        pos = lo % self.capacity
        k = min(hi - lo, self.capacity - pos)
        out[lo - start : lo - start + k] = self._data[pos : pos + k]
        if k < hi - lo:
            out[lo - start + k : hi - start] = self._data[: hi - lo - k]


class SignalArray:
    """A whole saved recording (array or memmap) behind the :class:`SignalHistory` reads.

    Parameters
    ----------
    data : np.ndarray
        (n_samples, n_channels) microvolts; not copied.
    sfreq : float
    t0 : float
        Signal seconds of the first sample.
    """

    def __init__(self, data: np.ndarray, sfreq: float, t0: float = 0.0):
        self._data = data
        self.n_channels = data.shape[1]
        self.sfreq = float(sfreq)
        self.t_origin: float | None = float(t0)
        self.first = 0
        self.end = data.shape[0]
        self.n_gap_samples = 0

    empty = SignalHistory.empty
    t_first = SignalHistory.t_first
    t_end = SignalHistory.t_end
    index_of = SignalHistory.index_of

    def read_into(self, start: int, out: np.ndarray) -> None:
        """Copy samples ``[start, start + len(out))`` into ``out``; NaN outside the file."""
        n = out.shape[0]
        lo, hi = max(start, 0), min(start + n, self.end)
        if hi <= lo:
            out[:] = np.nan
            return
        out[: lo - start] = np.nan
        out[hi - start :] = np.nan
        out[lo - start : hi - start] = self._data[lo:hi]


def channel_flags(
    block: np.ndarray, *, flat_uv: float = 1.0, rail_uv: float = 1000.0, rail_fraction: float = 0.2
) -> list[str]:
    """Mark channels that cannot carry EEG: 'FLAT', 'RAIL' or '' per channel.

    Parameters
    ----------
    block : np.ndarray
        (n_samples, n_channels) microvolts, typically the last second shown. NaN samples
        (not received) are ignored; an all-NaN channel gets ''.
    flat_uv : float
        A channel whose peak-to-peak is below this is FLAT (disconnected or shorted).
    rail_uv : float
        A channel with at least ``rail_fraction`` of its samples at ``|x| >= rail_uv`` is
        RAIL (saturated amplifier, electrode off at full scale).

    Returns
    -------
    list of str
        (n_channels,) flags.
    """
    finite = np.isfinite(block)
    has = finite.any(axis=0)
    flags = [""] * block.shape[1]
    if not has.any():
        return flags
    with np.errstate(invalid="ignore"):
        safe = np.where(finite, block, 0.0)
        hi = np.where(finite, block, -np.inf).max(axis=0)
        lo = np.where(finite, block, np.inf).min(axis=0)
        railed = (np.abs(safe) >= rail_uv).sum(axis=0) >= rail_fraction * finite.sum(axis=0)
    for i in np.flatnonzero(has):
        if railed[i]:
            flags[i] = "RAIL"
        elif hi[i] - lo[i] < flat_uv:
            flags[i] = "FLAT"
    return flags


# --------------------------------------------------------------------------------------------
# decisions and seizure events


@dataclass
class SeizureEvent:
    """Consecutive SEIZ decisions merged into one event.

    Attributes
    ----------
    onset, stop : float
        Signal seconds.
    confidences : list of float
        Confidence of each SEIZ decision in the event.
    channel_counts : Counter
        How many decisions named each involved channel.
    """

    onset: float
    stop: float
    confidences: list[float] = field(default_factory=list)
    channel_counts: Counter = field(default_factory=Counter)

    @property
    def duration(self) -> float:
        """Seconds."""
        return self.stop - self.onset

    @property
    def confidence(self) -> float:
        """Mean confidence of the event's decisions."""
        return float(np.mean(self.confidences)) if self.confidences else 0.0

    def channels(self, order: list[str] | None = None) -> list[str]:
        """Involved channels, most often named first (montage order breaks ties)."""
        rank = {c: i for i, c in enumerate(order or [])}
        return sorted(
            self.channel_counts, key=lambda c: (-self.channel_counts[c], rank.get(c, 1 << 30), c)
        )

    def add(self, start: float, stop: float, confidence: float, channels: list[str]) -> None:
        """Extend the event with one SEIZ decision."""
        self.onset = min(self.onset, start)
        self.stop = max(self.stop, stop)
        self.confidences.append(float(confidence))
        self.channel_counts.update(channels)


class DecisionStore:
    """Decisions kept sorted by start; consecutive SEIZ decisions form seizure events.

    Parameters
    ----------
    merge_gap_s : float
        SEIZ decisions separated by at most this much (seconds) belong to one event.
    """

    def __init__(self, merge_gap_s: float = 0.5):
        self.merge_gap_s = float(merge_gap_s)
        self.starts: list[float] = []
        self.stops: list[float] = []
        self.codes: list[int] = []
        self.confidences: list[float] = []
        self.channels: list[list[str]] = []
        self.events: list[SeizureEvent] = []
        self.version = 0  # bumped on every change, so the window knows when to repaint

    def __len__(self) -> int:
        return len(self.starts)

    def clear(self) -> None:
        """Forget every decision."""
        self.__init__(self.merge_gap_s)

    @property
    def last_code(self) -> int | None:
        """Code of the latest decision in time (None when there is none)."""
        return self.codes[-1] if self.codes else None

    @property
    def ongoing(self) -> bool:
        """True while the latest decision is SEIZ."""
        return self.last_code == SEIZ

    def add(
        self, start: float, stop: float, label: str, confidence: float, channels: list[str]
    ) -> None:
        """Add one decision (a decision with the same start replaces the earlier one).

        Raises
        ------
        ValueError
            Unknown label, non-finite or reversed times, confidence outside [0, 1].
        """
        code = label_code(label)
        start, stop, confidence = float(start), float(stop), float(confidence)
        if not (math.isfinite(start) and math.isfinite(stop) and start < stop):
            raise ValueError(f"decision times {start}..{stop} are not a valid interval")
        if not (0.0 <= confidence <= 1.0):
            raise ValueError(f"decision confidence {confidence} is outside [0, 1]")
        channels = [str(c) for c in channels]
        self.version += 1
        if not self.starts or start > self.starts[-1]:
            self._append(start, stop, code, confidence, channels)
            return
        # Out of order or a replacement: rare, so rebuild the events from scratch.
        i = bisect.bisect_left(self.starts, start)
        if i < len(self.starts) and self.starts[i] == start:
            del self.starts[i], self.stops[i], self.codes[i]
            del self.confidences[i], self.channels[i]
        self.starts.insert(i, start)
        self.stops.insert(i, stop)
        self.codes.insert(i, code)
        self.confidences.insert(i, confidence)
        self.channels.insert(i, channels)
        self._rebuild_events()

    def _append(self, start, stop, code, confidence, channels) -> None:
        self.starts.append(start)
        self.stops.append(stop)
        self.codes.append(code)
        self.confidences.append(confidence)
        self.channels.append(channels)
        self._extend_events(len(self.starts) - 1)

    def _extend_events(self, i: int) -> None:
        if self.codes[i] != SEIZ:
            return
        start, stop = self.starts[i], self.stops[i]
        prev_seiz = i > 0 and self.codes[i - 1] == SEIZ
        if (
            self.events
            and prev_seiz
            and start - self.events[-1].stop <= self.merge_gap_s
            and start >= self.events[-1].onset
        ):
            self.events[-1].add(start, stop, self.confidences[i], self.channels[i])
        else:
            ev = SeizureEvent(onset=start, stop=stop)
            ev.add(start, stop, self.confidences[i], self.channels[i])
            self.events.append(ev)

    def _rebuild_events(self) -> None:
        self.events = []
        for i in range(len(self.starts)):
            self._extend_events(i)

    def segments(
        self, x0: float, x1: float, cover0: float, cover1: float
    ) -> list[tuple[float, float, int]]:
        """Coloured segments covering the visible interval ``[x0, x1]``.

        Decisions are returned with their code; parts of the signal coverage
        ``[cover0, cover1]`` without any decision are NA ('not analysed'). Adjacent segments
        with the same code are merged (no seams between 1 s epochs).

        Returns
        -------
        list of (start, stop, code)
        """
        out: list[tuple[float, float, int]] = []

        def emit(a: float, b: float, code: int) -> None:
            if b <= a:
                return
            if out and out[-1][2] == code and a - out[-1][1] < 1e-6:
                out[-1] = (out[-1][0], b, code)
            else:
                out.append((a, b, code))

        def gap(a: float, b: float) -> None:
            emit(max(a, cover0), min(b, cover1), NA)

        cursor = x0
        i = max(0, bisect.bisect_right(self.stops, x0) - 1)
        while i < len(self.starts) and self.starts[i] < x1:
            a, b = max(self.starts[i], cursor), min(self.stops[i], x1)
            if b > a:
                if a > cursor:
                    gap(cursor, a)
                emit(a, b, self.codes[i])
                cursor = b
            i += 1
        if cursor < x1:
            gap(cursor, x1)
        return out

    def events_between(self, x0: float, x1: float) -> list[SeizureEvent]:
        """Seizure events overlapping ``[x0, x1]``."""
        return [ev for ev in self.events if ev.stop > x0 and ev.onset < x1]
