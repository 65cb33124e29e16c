"""The ward's control socket: JSON request in, JSON reply out (REQ/REP).

Requests (the ward contract)::

    {"cmd": "list"}
    {"cmd": "add", "bed": {"name": ..., "edf": ... | "lsl": ..., ...}}
    {"cmd": "remove" | "pause" | "resume", "bed": NAME}
    {"cmd": "ack", "alarm": ID, "by": USER}

Replies are ``{"ok": true, ...}`` or ``{"ok": false, "error": "one line"}``; a malformed
request gets the latter, never a crash of the service.
"""

from __future__ import annotations

import json
import time

import zmq

from rt_eeg.errors import RtEegError

COMMANDS = ("list", "add", "remove", "pause", "resume", "ack")
MAX_REQUEST_BYTES = 64 << 10


class RequestError(ValueError):
    """A request the service cannot act on: its message is the one-line reply."""


def parse_request(raw: bytes) -> dict:
    """Decode and shape-check one request (``RequestError`` with a one-line reason)."""
    if len(raw) > MAX_REQUEST_BYTES:
        raise RequestError(f"request of {len(raw)} bytes exceeds {MAX_REQUEST_BYTES}")
    try:
        req = json.loads(raw, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except (ValueError, UnicodeDecodeError, RecursionError) as err:
        raise RequestError(f"request is not JSON ({str(err)[:80]})") from None
    if not isinstance(req, dict):
        raise RequestError("request must be a JSON object")
    cmd = req.get("cmd")
    if cmd not in COMMANDS:
        raise RequestError(f"unknown cmd {str(cmd)[:40]!r} (known: {', '.join(COMMANDS)})")
    if cmd in ("remove", "pause", "resume") and not isinstance(req.get("bed"), str):
        raise RequestError(f"{cmd} needs \"bed\": NAME")
    if cmd == "add" and not isinstance(req.get("bed"), dict):
        raise RequestError("add needs \"bed\": {name, edf|lsl, ...}")
    if cmd == "ack" and not (isinstance(req.get("alarm"), str) and isinstance(req.get("by"), str)):
        raise RequestError("ack needs \"alarm\": ID and \"by\": USER")
    return req


def request(endpoint: str, req: dict, timeout_s: float = 5, *,
            curve: tuple[str, str] | None = None) -> dict:  # fmt: skip
    """Send one request to a running ward service and return its reply.

    ``curve`` is ``(server public key file, client secret key file)`` for a service whose
    control socket is a CURVE server (``[security]``); a client it does not admit gets no
    reply, which reads as the timeout below.

    Raises
    ------
    RtEegError
        Nothing answered within ``timeout_s`` (no service there), or the reply is not JSON.
    """
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.REQ)
    sock.setsockopt(zmq.LINGER, 0)
    # REQ's send blocks while no peer is attached (a CURVE handshake the service refused
    # detaches it); without a send timeout a refused client hangs instead of timing out.
    sock.setsockopt(zmq.SNDTIMEO, max(1, int(timeout_s * 1000)))
    try:
        if curve is not None:
            from rt_eeg.security import curve_client_options

            curve_client_options(sock, *curve)
        sock.connect(endpoint)
        why = ("is rt-eeg serve running, and is this client's key in its authorized_keys_dir?"
               if curve is not None else "is rt-eeg serve running?")  # fmt: skip
        t0 = time.monotonic()
        try:
            sock.send(json.dumps(req).encode())
        except zmq.Again:
            raise RtEegError(f"no reply within {timeout_s:g} s ({why})", endpoint) from None
        left_ms = int(max(0.0, timeout_s - (time.monotonic() - t0)) * 1000)
        if not sock.poll(left_ms):
            raise RtEegError(f"no reply within {timeout_s:g} s ({why})", endpoint)
        try:
            reply = json.loads(sock.recv())
        except ValueError:
            raise RtEegError("reply is not JSON", endpoint) from None
        if not isinstance(reply, dict):
            raise RtEegError("reply is not a JSON object", endpoint)
        return reply
    finally:
        sock.close(0)
