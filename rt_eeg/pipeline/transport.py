"""ZeroMQ plumbing shared by the stage processes and the supervisor.

Socket roles: every stage *binds* its input (PULL) so a restarted stage comes back on the same
address and its upstream PUSH reconnects by itself, with messages queued meanwhile (the
detection path blocks rather than drops). Display sockets are PUB with a small high-water
mark: a slow or absent monitor never slows detection.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import tempfile
import time
from pathlib import Path

import numpy as np
import zmq

from rt_eeg.config import ENDPOINT_NAMES
from rt_eeg.pipeline.messages import Expect, Message, MessageError, decode, encode
from rt_eeg.security import CurveServer

log = logging.getLogger("rt_eeg.pipeline")


def free_tcp_port() -> int:
    """A free loopback TCP port (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_endpoints(
    transport: str, overrides: dict | None = None
) -> tuple[dict[str, str], Path | None]:
    """Endpoints for one run: ``ipc://`` in a private short-named folder, or loopback TCP.

    Returns the endpoints and the ipc folder to remove afterwards (None for tcp).
    """
    overrides = overrides or {}
    if transport == "ipc":
        # ipc paths are limited to ~107 bytes, so use a short private folder, not the run dir;
        # mkdtemp makes it 0700, so no other user can reach the sockets.
        folder = Path(tempfile.mkdtemp(prefix="rteeg-"))
        eps = {name: f"ipc://{folder}/{name}" for name in ENDPOINT_NAMES}
    else:
        folder = None
        eps = {name: f"tcp://127.0.0.1:{free_tcp_port()}" for name in ENDPOINT_NAMES}
    eps.update(overrides)
    return eps, folder


#: How long a closing stage keeps delivering its queued detection-path messages (ms).
DATA_LINGER_MS = 30_000


def make_socket(
    ctx: zmq.Context,
    kind: int,
    endpoint: str,
    *,
    bind: bool,
    hwm: int | None = None,
    curve: CurveServer | None = None,
) -> zmq.Socket:
    """Create, configure and bind/connect a socket.

    Lossless senders (PUSH) linger so that a stage which finishes first still delivers what it
    queued, end-of-stream included; everything else is closed at once (linger 0). ``curve``
    (display publishers, when ``[security]`` is configured) makes the socket a CURVE server
    that admits only allow-listed clients. An ipc socket's missing folder is created private
    (0700): nobody else can connect to or replace the socket.
    """
    s = ctx.socket(kind)
    if curve is not None:
        curve.apply(s)
    s.setsockopt(zmq.LINGER, DATA_LINGER_MS if kind == zmq.PUSH else 0)
    if hwm is not None:
        s.setsockopt(zmq.SNDHWM, hwm)
        s.setsockopt(zmq.RCVHWM, hwm)
    if kind == zmq.SUB:
        s.setsockopt(zmq.SUBSCRIBE, b"")
    if bind:
        if endpoint.startswith("ipc://"):
            path = endpoint[len("ipc://") :]
            os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
            if os.path.exists(path):
                os.unlink(path)  # a stale socket file left by a killed predecessor
        s.bind(endpoint)
    else:
        s.connect(endpoint)
    return s


class Sender:
    """Stamps ``stream``, ``seq`` and ``incarnation`` on every message a stage sends."""

    def __init__(self, sock: zmq.Socket, stream: str, incarnation: int = 0):
        self.sock, self.stream, self.incarnation = sock, stream, incarnation
        self.seq = 0

    def send(
        self,
        topic: str,
        header: dict,
        payload: np.ndarray | None = None,
        *,
        block: bool = True,
        should_abort=None,
    ) -> bool:
        """Send one message. Blocking sends wait (back-pressure) but call ``should_abort``
        every 100 ms so the stage can keep heartbeating; returns False if not sent."""
        h = {"stream": self.stream, "seq": self.seq, "incarnation": self.incarnation, **header}
        parts = encode(topic, h, payload)
        if not block:
            try:
                self.sock.send_multipart(parts, flags=zmq.NOBLOCK)
            except zmq.Again:
                return False
            self.seq += 1
            return True
        while True:
            if self.sock.poll(100, zmq.POLLOUT):
                self.sock.send_multipart(parts)
                self.seq += 1
                return True
            if should_abort is not None and should_abort():
                return False


#: Gap records kept per receiver (a flood of bad sequence numbers must not grow memory).
MAX_GAP_RECORDS = 100
#: A jump of more sequence numbers than this within one incarnation is not believed.
MAX_SEQ_JUMP = 10_000
#: Seconds between two warnings about malformed messages (the count is always exact).
LOG_EVERY_S = 5.0


class Receiver:
    """Receives, validates and order-checks messages; malformed ones are counted, not fatal.

    Parameters
    ----------
    sock : zmq.Socket
        The bound PULL input.
    name : str
        Stage name, for the log.
    expect : Expect, optional
        Topic, payload shape and t0 range this input accepts.

    Everything that fails :func:`decode` or ``expect`` is dropped and counted in
    ``malformed``, and so is a message whose ``seq`` repeats or goes back within its
    sender's incarnation, or whose ``t0`` goes back in its stream. Sequence jumps and time
    jumps (signal lost, e.g. across an upstream restart) are recorded in ``gaps``.
    """

    def __init__(
        self,
        sock: zmq.Socket,
        name: str,
        expect: Expect | None = None,
        start_t: float | None = None,
    ):
        self.sock, self.name, self.expect = sock, name, expect
        self.start_t = start_t  # where a stream should begin (None: unknown, after a restart)
        self.malformed = 0
        self.gaps: list[dict] = []
        self.n_gaps = 0
        self._expected: dict[tuple[str, int], int] = {}
        self._next_t: dict[str, float] = {}
        self._last_log = -math.inf
        self._unlogged = 0

    def expect_time(self, stream: str, t: float) -> None:
        """Signal time the next data message of ``stream`` should start at (a restarted
        stage seeds it from what its predecessor finished, so a loss shows as a gap)."""
        self._next_t[stream] = t

    def recv(self, timeout_ms: int) -> Message | None:
        """One valid message, or None on timeout or a malformed message."""
        if not self.sock.poll(timeout_ms):
            return None
        parts = self.sock.recv_multipart()
        try:
            msg = decode(parts)
            if self.expect is not None:
                self.expect.check(msg)
            self._check_order(msg)
        except MessageError as err:
            self._drop(err)
            return None
        return msg

    def _drop(self, err: MessageError) -> None:
        self.malformed += 1
        now = time.monotonic()
        if now - self._last_log >= LOG_EVERY_S:
            more = f"; {self._unlogged} more since the last warning" if self._unlogged else ""
            log.warning("%s: malformed message dropped (%s)%s", self.name, err, more)
            self._last_log, self._unlogged = now, 0
        else:
            self._unlogged += 1

    def _gap(self, record: dict) -> None:
        self.n_gaps += 1
        if len(self.gaps) < MAX_GAP_RECORDS:
            self.gaps.append(record)
        log.warning("%s: gap %s", self.name, record)

    def _check_order(self, msg: Message) -> None:
        key = (msg.stream, msg.incarnation)
        exp = self._expected.get(key)
        if exp is not None and msg.seq < exp:
            raise MessageError(f"seq {msg.seq} from {key[0]} repeats or goes back (expected {exp})")
        if exp is not None and msg.seq > exp + MAX_SEQ_JUMP:
            raise MessageError(f"seq {msg.seq} from {key[0]} jumps ahead of {exp}")
        t0 = msg.header.get("t0") if msg.kind == "data" else None
        nxt = self._next_t.get(msg.stream)
        if t0 is not None and nxt is not None and t0 < nxt - 1e-3:
            raise MessageError(f"t0 {t0:g} from {key[0]} goes back (expected {nxt:g})")
        ref = nxt if nxt is not None else self.start_t
        # A live source flags a real outage (of any length) with ``reset``; only an unflagged
        # jump is bounded.
        if (
            t0 is not None
            and ref is not None
            and self.expect is not None
            and not msg.header.get("reset")
        ):
            if t0 > ref + self.expect.max_jump_s:
                raise MessageError(f"t0 {t0:g} from {key[0]} jumps ahead of {ref:g}")
        if exp is not None and msg.seq != exp:
            self._gap({"stream": key[0], "incarnation": key[1], "expected_seq": exp,
                       "got_seq": msg.seq, "t": t0})  # fmt: skip
        if t0 is not None and nxt is not None and t0 > nxt + 1e-3:
            self._gap({"stream": key[0], "incarnation": key[1], "from_t": round(nxt, 3),
                       "to_t": round(t0, 3), "lost_s": round(t0 - nxt, 3)})  # fmt: skip
        self._expected[key] = msg.seq + 1
        if t0 is not None and self.expect is not None:
            self._next_t[msg.stream] = t0 + self.expect.span_s(msg)

    def stats(self) -> dict:
        """Counters for the supervisor's metrics."""
        return {"malformed": self.malformed, "gaps": list(self.gaps), "n_gaps": self.n_gaps}


class Control:
    """A stage's line to the supervisor (topic ``control``): ``ready``; ``heartbeat`` every
    ``interval`` s (with an ``error`` field when the stage fails); ``eos`` when it finished,
    carrying its statistics."""

    def __init__(
        self, ctx: zmq.Context, endpoint: str, stage: str, incarnation: int, interval: float = 1.0
    ):
        self.sock = make_socket(ctx, zmq.PUSH, endpoint, bind=False)
        self.sock.setsockopt(zmq.LINGER, 2000)  # let 'done' reach the supervisor on exit
        self.sender = Sender(self.sock, stage, incarnation)
        self.interval = interval
        self._last = 0.0
        self.stats: dict = {}
        self.stats_fn = None  # when set, heartbeats carry stats_fn() (current counters)

    def send(self, kind: str, **extra) -> None:
        self.sender.send(
            "control",
            {"kind": kind, "t_emit": time.time(), "pid": os.getpid(), **extra},
            block=False,
        )
        self._last = time.monotonic()

    def beat(self) -> bool:
        """Send a heartbeat if one is due; always returns False (usable as ``should_abort``)."""
        if time.monotonic() - self._last >= self.interval:
            self.send("heartbeat", stats=self.stats_fn() if self.stats_fn else self.stats)
        return False


def percentiles(values_ms: list[float]) -> dict:
    """p50/p95/max (and count) of a list of milliseconds; None values when empty."""
    if not values_ms:
        return {"n": 0, "p50": None, "p95": None, "max": None}
    a = np.asarray(values_ms, dtype=np.float64)
    return {"n": int(a.size), "p50": round(float(np.percentile(a, 50)), 3),
            "p95": round(float(np.percentile(a, 95)), 3), "max": round(float(a.max()), 3)}  # fmt: skip
