"""ZeroMQ plumbing shared by the stage processes and the supervisor.

Socket roles: every stage *binds* its input (PULL) so a restarted stage comes back on the same
address and its upstream PUSH reconnects by itself, with messages queued meanwhile (the
detection path blocks rather than drops). Display sockets are PUB with a small high-water
mark: a slow or absent monitor never slows detection.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import tempfile
import time
from pathlib import Path

import numpy as np
import zmq

from rt_eeg.config import ENDPOINT_NAMES
from rt_eeg.pipeline.messages import Message, MessageError, decode, encode
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


def die_with_parent() -> None:
    """Ask Linux to SIGTERM this process when its parent (the supervisor) dies: no orphans."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass  # not Linux: the supervisor's own cleanup still applies


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


class Receiver:
    """Receives, validates and sequence-checks messages; malformed ones are counted, not fatal."""

    def __init__(self, sock: zmq.Socket, name: str):
        self.sock, self.name = sock, name
        self.malformed = 0
        self.gaps: list[dict] = []
        self._expected: dict[tuple[str, int], int] = {}

    def recv(self, timeout_ms: int) -> Message | None:
        """One valid message, or None on timeout or a malformed message."""
        if not self.sock.poll(timeout_ms):
            return None
        parts = self.sock.recv_multipart()
        try:
            msg = decode(parts)
        except MessageError as err:
            self.malformed += 1
            log.warning("%s: malformed message dropped (%s)", self.name, err)
            return None
        key = (msg.header.get("stream", ""), int(msg.header.get("incarnation", 0)))
        exp = self._expected.get(key)
        if exp is not None and msg.seq != exp:
            self.gaps.append(
                {
                    "stream": key[0],
                    "expected_seq": exp,
                    "got_seq": msg.seq,
                    "t": msg.header.get("t0"),
                }
            )
            log.warning(
                "%s: sequence gap from %s: expected %d, got %d", self.name, key[0], exp, msg.seq
            )
        self._expected[key] = msg.seq + 1
        return msg


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
            self.send("heartbeat", stats=self.stats)
        return False


def percentiles(values_ms: list[float]) -> dict:
    """p50/p95/max (and count) of a list of milliseconds; None values when empty."""
    if not values_ms:
        return {"n": 0, "p50": None, "p95": None, "max": None}
    a = np.asarray(values_ms, dtype=np.float64)
    return {"n": int(a.size), "p50": round(float(np.percentile(a, 50)), 3),
            "p95": round(float(np.percentile(a, 95)), 3), "max": round(float(a.max()), 3)}  # fmt: skip
