"""The one wire format: multipart ``[topic, header JSON, raw float32 payload]``. No pickle.

Header keys (all messages): ``v`` (format version), ``kind`` (``data``, ``eos``,
``heartbeat``, ``ready``), ``stream``, ``seq`` (per-sender sequence number), ``t_emit`` (wall
clock when the source emitted the frame this message derives from, for latency). Data
messages add ``t0`` (signal seconds), ``shape`` and ``dtype`` describing the payload; topics
add their own keys (``sfreq`` and ``ch_names`` for ``signal``; ``start``, ``stop``, ``label``,
``confidence``, ``channels`` for ``decision``). The payload is the raw C-contiguous
little-endian float32 buffer, time-first. :func:`decode` validates everything and raises
:class:`MessageError` (never anything else) for a malformed message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

VERSION = 1
KINDS = frozenset({"data", "eos", "heartbeat", "ready"})
TOPICS = frozenset({"signal", "features", "probs", "decision", "control"})
MAX_PAYLOAD_BYTES = 64 << 20


class MessageError(ValueError):
    """A malformed message: counted and logged by the receiver, never fatal."""


@dataclass
class Message:
    """A decoded message. ``payload`` is None for control kinds (eos, heartbeat, ready)."""

    topic: str
    header: dict
    payload: np.ndarray | None = field(default=None)

    @property
    def kind(self) -> str:
        return self.header["kind"]

    @property
    def seq(self) -> int:
        return self.header["seq"]


def encode(topic: str, header: dict, payload: np.ndarray | None = None) -> list[bytes]:
    """Encode a message as three frames; ``shape`` and ``dtype`` are filled from ``payload``."""
    h = {"v": VERSION, **header}
    if payload is not None:
        payload = np.ascontiguousarray(payload, dtype="<f4")
        h["shape"] = list(payload.shape)
        h["dtype"] = "float32"
        body = payload.tobytes()
    else:
        h.pop("shape", None)
        body = b""
    return [topic.encode("ascii"), json.dumps(h, separators=(",", ":")).encode("utf-8"), body]


def decode(parts: list[bytes]) -> Message:
    """Decode and validate a multipart message.

    Raises
    ------
    MessageError
        Wrong number of frames, unknown topic or kind, bad JSON, missing keys, or a payload
        whose size does not match its declared shape.
    """
    if len(parts) != 3:
        raise MessageError(f"expected 3 frames, got {len(parts)}")
    topic_b, header_b, body = (bytes(p) for p in parts)
    try:
        topic = topic_b.decode("ascii")
    except UnicodeDecodeError:
        raise MessageError("topic is not ASCII") from None
    if topic not in TOPICS:
        raise MessageError(f"unknown topic {topic!r}")
    try:
        header = json.loads(header_b)
    except (ValueError, UnicodeDecodeError) as err:
        raise MessageError(f"header is not JSON ({err})") from None
    if not isinstance(header, dict):
        raise MessageError("header is not a JSON object")
    if header.get("v") != VERSION:
        raise MessageError(f"unsupported version {header.get('v')!r}")
    if header.get("kind") not in KINDS:
        raise MessageError(f"unknown kind {header.get('kind')!r}")
    if not isinstance(header.get("seq"), int) or isinstance(header.get("seq"), bool):
        raise MessageError("missing or non-integer seq")
    if header["kind"] != "data":
        if body:
            raise MessageError(f"{header['kind']} message carries a payload")
        return Message(topic, header, None)
    shape = header.get("shape")
    if (
        header.get("dtype") != "float32"
        or not isinstance(shape, list)
        or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)
    ):
        raise MessageError("data message without a valid float32 shape")
    if not isinstance(header.get("t0"), (int, float)):
        raise MessageError("data message without numeric t0")
    n = int(np.prod(shape, dtype=np.int64)) * 4
    if n != len(body) or n > MAX_PAYLOAD_BYTES:
        raise MessageError(f"payload of {len(body)} bytes does not match shape {shape}")
    payload = np.frombuffer(body, dtype="<f4").reshape(shape)
    if not np.isfinite(payload).all():
        raise MessageError("payload holds NaN or Inf")
    return Message(topic, header, payload)
