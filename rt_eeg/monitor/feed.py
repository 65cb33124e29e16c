"""The monitor's subscription to the pipeline's display path (ZeroMQ SUB, lossy by design).

:class:`MonitorFeed` connects one SUB socket per endpoint (the pipeline publishes signal
frames and decisions from different stages), subscribes to ``signal`` and ``decision``, and
drains the sockets without blocking each time the window's timer ticks, with a cap per tick
so a burst never freezes the display. Every message goes through
:func:`rt_eeg.pipeline.messages.decode`; a malformed one is counted and logged, never fatal.
A gap in sequence numbers (frames the PUB side dropped because the monitor was slow) is
counted, and the window draws the missing time as a gap, not as a bridged line.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence

import zmq

from rt_eeg.pipeline.messages import Message, MessageError, decode

log = logging.getLogger(__name__)

TOPICS = (b"signal", b"decision")


class MonitorFeed:
    """Drain the display endpoints into a window.

    Parameters
    ----------
    endpoints : str or list of str
        ZeroMQ endpoints to connect to (e.g. ``ipc:///tmp/rteeg-x/display_signal``).
    window : MonitorWindow, optional
        Receives ``push_signal`` / ``push_decision`` / ``mark_eos`` / ``set_channels``; can be
        given later with :meth:`attach`.
    context : zmq.Context, optional
        Defaults to the process-wide instance.
    rcvhwm : int
        Receive high-water mark per socket, in messages (100 = 10 s of frames).
    max_per_tick : int
        Messages taken from each socket per :meth:`poll` at most.
    wall_clock : callable
        ``time.time``-like clock for the latency estimate (the header's ``t_emit`` is wall
        clock at the source).
    curve : (str, str), optional
        ``(server public key file, client secret key file)``: subscribe over CURVE to a
        pipeline whose display publishers require it (:mod:`rt_eeg.security`).
    """

    def __init__(
        self,
        endpoints: str | Sequence[str],
        window=None,
        *,
        context: zmq.Context | None = None,
        rcvhwm: int = 100,
        max_per_tick: int = 200,
        wall_clock: Callable[[], float] = time.time,
        curve: tuple[str, str] | None = None,
    ):
        self.endpoints = [endpoints] if isinstance(endpoints, str) else list(endpoints)
        if not self.endpoints:
            raise ValueError("no endpoint to connect to")
        self.max_per_tick = int(max_per_tick)
        self._wall = wall_clock
        self._ctx = context or zmq.Context.instance()
        self.sockets: list[zmq.Socket] = []
        for ep in self.endpoints:
            s = self._ctx.socket(zmq.SUB)
            s.setsockopt(zmq.LINGER, 0)
            s.setsockopt(zmq.RCVHWM, int(rcvhwm))
            for topic in TOPICS:
                s.setsockopt(zmq.SUBSCRIBE, topic)
            if curve is not None:
                from rt_eeg.security import curve_client_options

                curve_client_options(s, *curve)
            s.connect(ep)
            self.sockets.append(s)
        self.window = None
        self.n_signal = 0
        self.n_decision = 0
        self._last_decision_stop = float("-inf")
        self.n_malformed = 0
        self.n_dropped = 0  # messages missing by sequence number
        self.stage_status: dict[str, str] = {}  # topic -> last status line ("ok" when clear)
        self.n_other = 0
        self.eos_topics: set[str] = set()
        self.t_first_eos: float | None = None  # monotonic time of the first eos seen
        self.last_error = ""
        self.latency_ms: float | None = None  # smoothed source-to-monitor latency
        self._expected: dict[tuple[str, str, int], int] = {}
        if window is not None:
            self.attach(window)

    def attach(self, window) -> None:
        """Feed ``window`` and have its timer call :meth:`poll`."""
        self.window = window
        window.add_poller(self.poll)

    # ---------------------------------------------------------------------------------------

    def poll(self) -> int:
        """Take what is waiting (at most ``max_per_tick`` per socket), never blocking.

        Returns
        -------
        int
            Messages taken.
        """
        n = 0
        for sock in self.sockets:
            for _ in range(self.max_per_tick):
                try:
                    parts = sock.recv_multipart(zmq.NOBLOCK, copy=True)
                except zmq.Again:
                    break
                n += 1
                self.handle(parts)
        if self.window is not None:
            self.window.set_feed_status(self.status_text())
        return n

    def handle(self, parts: list[bytes]) -> None:
        """Decode and dispatch one multipart message; malformed ones are counted."""
        try:
            msg = decode(parts)
            self._dispatch(msg)
        except (MessageError, ValueError, KeyError, TypeError) as err:
            self._malformed(err)

    def _malformed(self, err: Exception) -> None:
        self.n_malformed += 1
        self.last_error = str(err)
        if self.n_malformed <= 5 or self.n_malformed % 100 == 0:
            log.warning("malformed display message #%d dropped: %s", self.n_malformed, err)

    def _check_seq(self, msg: Message) -> None:
        h = msg.header
        key = (msg.topic, str(h.get("stream", "")), int(h.get("incarnation", 0)))
        exp = self._expected.get(key)
        if exp is not None and msg.seq > exp:
            self.n_dropped += msg.seq - exp
        self._expected[key] = msg.seq + 1

    def _dispatch(self, msg: Message) -> None:
        kind, h, w = msg.kind, msg.header, self.window
        self._check_seq(msg)
        if kind == "eos":
            self.eos_topics.add(msg.topic)
            if self.t_first_eos is None:
                self.t_first_eos = time.monotonic()
            if msg.topic == "signal" and w is not None:
                w.mark_eos()
            return
        if kind == "heartbeat":
            if w is not None:
                w.note_heartbeat()
            if isinstance(h.get("status"), str):  # a stage's problem (no data, disk full) or "ok"
                self.stage_status[msg.topic] = h["status"]
            return
        if kind != "data":
            self.n_other += 1
            return
        if msg.topic == "signal":
            self._on_signal(msg)
        elif msg.topic == "decision":
            if w is not None:
                w.push_decision(
                    float(h["start"]),
                    float(h["stop"]),
                    str(h["label"]),
                    float(h["confidence"]),
                    [str(c) for c in h.get("channels") or []],
                )
            self.n_decision += 1
            self._last_decision_stop = max(self._last_decision_stop, float(h["stop"]))
        else:
            self.n_other += 1

    def last_decision_stop(self) -> float:
        """Signal time up to which decisions have arrived (-inf before the first)."""
        return self._last_decision_stop

    def _on_signal(self, msg: Message) -> None:
        h, w, frame = msg.header, self.window, msg.payload
        if frame is None or frame.ndim != 2:
            raise ValueError(f"signal payload has shape {getattr(frame, 'shape', None)}")
        if w is not None:
            names = h.get("ch_names")
            sfreq = float(h.get("sfreq", w.sfreq))
            if names is not None and (list(names) != w.ch_names or sfreq != w.sfreq):
                if len(names) != frame.shape[1]:
                    raise ValueError(f"{len(names)} channel names for {frame.shape[1]} columns")
                log.info("display stream: %d channels at %g Hz", len(names), sfreq)
                w.set_channels(list(names), sfreq)
            w.push_signal(float(h["t0"]), frame)
        self.n_signal += 1
        t_emit = h.get("t_emit")
        if isinstance(t_emit, (int, float)) and math.isfinite(t_emit):
            lat = (self._wall() - t_emit) * 1000.0
            self.latency_ms = lat if self.latency_ms is None else 0.9 * self.latency_ms + 0.1 * lat

    # ---------------------------------------------------------------------------------------

    def status_text(self) -> str:
        """One line for the window's status bar."""
        parts = [f"frames {self.n_signal}", f"decisions {self.n_decision}"]
        parts += [st for st in self.stage_status.values() if st != "ok"]
        if self.n_dropped:
            parts.append(f"dropped {self.n_dropped}")
        if self.n_malformed:
            parts.append(f"malformed {self.n_malformed}")
        if self.latency_ms is not None:
            parts.append(f"display latency {self.latency_ms:.0f} ms")
        return " · ".join(parts)

    def stats(self) -> dict:
        """Counters for ``monitor_stats.json``."""
        return {
            "endpoints": self.endpoints,
            "received": self.n_signal,
            "decisions": self.n_decision,
            "dropped": self.n_dropped,
            "malformed": self.n_malformed,
            "eos": sorted(self.eos_topics),
            "latency_ms": None if self.latency_ms is None else round(self.latency_ms, 1),
        }

    def close(self) -> None:
        """Close the sockets (linger 0)."""
        for s in self.sockets:
            s.close(linger=0)
        self.sockets = []

    def __enter__(self) -> MonitorFeed:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
