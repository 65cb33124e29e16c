"""The one wire format: multipart ``[topic, header JSON, raw float32 payload]``. No pickle.

Header keys (all messages): ``v`` (format version), ``kind`` (``data``, ``eos``,
``heartbeat``, ``ready``), ``stream``, ``seq`` (per-sender sequence number), ``t_emit`` (wall
clock when the source emitted the frame this message derives from, for latency). Data
messages add ``t0`` (signal seconds), ``shape`` and ``dtype`` describing the payload; topics
add their own keys (``sfreq`` and ``ch_names`` for ``signal``; ``start``, ``stop``, ``label``,
``confidence``, ``channels`` for ``decision``). The payload is the raw C-contiguous
little-endian float32 buffer, time-first.

:func:`decode` validates everything that can be checked on one message (sizes, JSON depth,
the type of every known key, shape against payload length, finite numbers) and raises
:class:`MessageError` (never anything else) for a malformed message. What needs the stream's
context (channel count, sequence order, t0 against the recording) is checked by
:class:`Expect`, which the receivers apply after :func:`decode`.

The ward service adds two kinds, each on its own topic: ``ward_status`` (topic ``ward``: the
header lists every bed and the alarms to show, the payload is one trace row per bed,
``(n_beds, n_trace)``) and ``alarm`` (topic ``alarm``: one alarm record under ``alarm``, an
empty payload of shape ``[0]``). Their records are checked key by key (:data:`BED_FIELDS`,
:data:`ALARM_FIELDS`); :mod:`rt_eeg.ward.status` builds and reads them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

VERSION = 1
KINDS = frozenset({"data", "eos", "heartbeat", "ready", "ward_status", "alarm"})
TOPICS = frozenset({"signal", "features", "probs", "decision", "control", "ward", "alarm"})
#: Kinds allowed per topic: the control line carries no data; on the display topics a
#: heartbeat carries a source or disk ``status`` for the monitor; detection topics carry data.
TOPIC_KINDS = {
    "control": frozenset({"ready", "heartbeat", "eos"}),
    "signal": frozenset({"data", "eos", "heartbeat"}),
    "decision": frozenset({"data", "eos", "heartbeat"}),
    "features": frozenset({"data", "eos"}),
    "probs": frozenset({"data", "eos"}),
    "ward": frozenset({"ward_status"}),
    "alarm": frozenset({"alarm"}),
}
#: Kinds whose payload is a float32 array described by ``shape`` (the others carry none,
#: except ``alarm``, whose payload is empty with shape ``[0]``).
PAYLOAD_KINDS = frozenset({"data", "ward_status"})
MAX_PAYLOAD_BYTES = 64 << 20
MAX_HEADER_BYTES = 64 << 10
MAX_JSON_DEPTH = 8
MAX_NDIM = 4
MAX_STRING = 4096
MAX_BEDS = 256
MAX_ALARMS = 256
BED_STATES = ("STARTING", "NO DATA", "STALE", "BCKG", "SEIZ", "PAUSED", "ERROR")


class MessageError(ValueError):
    """A malformed message: counted and logged by the receiver, never fatal."""


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x) -> bool:
    return (_is_int(x) or isinstance(x, float)) and math.isfinite(x)


def _is_str(x) -> bool:
    return isinstance(x, str) and len(x) <= MAX_STRING


def _str_list(x) -> bool:
    return isinstance(x, list) and len(x) <= 1024 and all(_is_str(s) for s in x)


def _opt_num(x) -> bool:
    return x is None or _is_num(x)


def _name(x) -> bool:
    return isinstance(x, str) and 0 < len(x) <= 64


def _monitor(x) -> bool:
    return x is None or (
        isinstance(x, dict) and all(_is_str(x.get(k)) for k in ("signal", "decision"))
    )


#: The keys of one bed in a ``ward_status`` header (all required; see the ward contract).
BED_FIELDS = {
    "name": _name,
    "state": lambda x: x in BED_STATES,
    "confidence": lambda x: x is None or (_is_num(x) and 0 <= x <= 1),
    "signal_time": _opt_num,
    "since_data_s": lambda x: x is None or (_is_num(x) and x >= 0),
    "seiz_onset": _opt_num,
    "seiz_duration_s": lambda x: x is None or (_is_num(x) and x >= 0),
    "alarm": lambda x: x is None or _name(x),
    "detail": lambda x: isinstance(x, str) and len(x) <= 200,
    "monitor": _monitor,
}
#: The keys of one alarm record (all required; extra keys such as ``ended_at`` are allowed).
ALARM_FIELDS = {
    "id": _name,
    "bed": _name,
    "onset": _is_num,
    "wall": lambda x: _is_num(x) and x >= 0,
    "channels": _str_list,
    "confidence": lambda x: _is_num(x) and 0 <= x <= 1,
    "state": lambda x: x in ("active", "ended"),
    "acknowledged_by": lambda x: x is None or (isinstance(x, str) and 0 < len(x) <= 64),
    "acknowledged_at": _opt_num,
}


def record_problem(rec, fields: dict) -> str | None:
    """What is wrong with one bed or alarm record, or None when it passes ``fields``."""
    if not isinstance(rec, dict):
        return "is not an object"
    for key, ok in fields.items():
        if key not in rec:
            return f"has no {key}"
        if not ok(rec[key]):
            return f"has a bad {key}: {str(rec[key])[:60]!r}"
    return None


def _records(x, fields: dict, limit: int) -> bool:
    return (
        isinstance(x, list)
        and len(x) <= limit
        and all(record_problem(r, fields) is None for r in x)
    )


#: Every key a header may carry, with the check its value must pass. Unknown keys are
#: tolerated (forward compatibility) but must still fit the size and depth limits.
FIELDS = {
    "v": lambda x: _is_int(x) and x == VERSION,
    "kind": lambda x: isinstance(x, str) and x in KINDS,
    "seq": lambda x: _is_int(x) and x >= 0,
    "stream": lambda x: isinstance(x, str) and 0 < len(x) <= 64,
    "incarnation": lambda x: _is_int(x) and x >= 0,
    "t_emit": lambda x: _is_num(x) and x >= 0,
    "t0": lambda x: _is_num(x) and x >= 0,
    "dtype": lambda x: x == "float32",
    "shape": lambda x: (
        isinstance(x, list) and len(x) <= MAX_NDIM and all(_is_int(s) and s >= 0 for s in x)
    ),
    "reset": lambda x: isinstance(x, bool),
    "interrupted": lambda x: isinstance(x, bool),
    "n_frames": lambda x: _is_int(x) and x >= 0,
    "sfreq": lambda x: _is_num(x) and x > 0,
    "ch_names": _str_list,
    "pid": lambda x: _is_int(x) and x >= 0,
    "error": _is_str,
    "stats": lambda x: isinstance(x, dict),
    "start": _is_num,
    "stop": _is_num,
    "label": _is_str,
    "confidence": _is_num,
    "score": lambda x: x is None or _is_num(x),
    "channels": _str_list,
    "status": _is_str,
    "t_end": lambda x: x is None or (_is_num(x) and x >= 0),
    "beds": lambda x: _records(x, BED_FIELDS, MAX_BEDS),
    "alarms": lambda x: _records(x, ALARM_FIELDS, MAX_ALARMS),
    "alarm": lambda x: record_problem(x, ALARM_FIELDS) is None,
}


@dataclass
class Message:
    """A decoded message. ``payload`` is None for control kinds (eos, heartbeat, ready) and
    empty for ``alarm``."""

    topic: str
    header: dict
    payload: np.ndarray | None = field(default=None)

    @property
    def kind(self) -> str:
        return self.header["kind"]

    @property
    def seq(self) -> int:
        return self.header["seq"]

    @property
    def stream(self) -> str:
        return self.header.get("stream", "")

    @property
    def incarnation(self) -> int:
        return self.header.get("incarnation", 0)


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


def _reject_constant(name: str):
    raise MessageError(f"header holds {name}")


def _depth(obj, limit: int) -> int:
    """Nesting depth of a parsed JSON value (iterative: no recursion on hostile input)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        node, d = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, d)
            if deepest > limit:
                return deepest
            stack.extend((c, d + 1) for c in (node.values() if isinstance(node, dict) else node))
    return deepest


def _why(key: str, value) -> str:
    """The first bad record of a ``beds``/``alarms``/``alarm`` value, else the value."""
    fields = {"beds": BED_FIELDS, "alarms": ALARM_FIELDS}.get(key)
    if fields is not None and isinstance(value, list):
        if len(value) > (MAX_BEDS if key == "beds" else MAX_ALARMS):
            return f"{len(value)} records"
        for i, rec in enumerate(value):
            problem = record_problem(rec, fields)
            if problem:
                return f"record {i} {problem}"
    if key == "alarm":
        return f"record {record_problem(value, ALARM_FIELDS)}"
    return repr(str(value)[:60])


def _header(header_b: bytes) -> dict:
    if len(header_b) > MAX_HEADER_BYTES:
        raise MessageError(f"header of {len(header_b)} bytes exceeds {MAX_HEADER_BYTES}")
    try:
        header = json.loads(header_b, parse_constant=_reject_constant)
    except RecursionError:
        raise MessageError("header JSON nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as err:
        if isinstance(err, MessageError):
            raise
        raise MessageError(f"header is not JSON ({str(err)[:80]})") from None
    if not isinstance(header, dict):
        raise MessageError("header is not a JSON object")
    if _depth(header, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise MessageError(f"header JSON nested deeper than {MAX_JSON_DEPTH}")
    for key, ok in FIELDS.items():
        if key in header and not ok(header[key]):
            raise MessageError(f"bad {key}: {_why(key, header[key])}")
    for key in ("v", "kind", "seq"):
        if key not in header:
            raise MessageError(f"header without {key}")
    return header


def decode(parts: list[bytes]) -> Message:
    """Decode and validate a multipart message.

    Raises
    ------
    MessageError
        Wrong number of frames, unknown topic or kind, bad or oversized JSON, a known key of
        the wrong type or out of range, a kind that does not belong on the topic, or a
        payload whose size does not match its declared shape or holds NaN/Inf.
    """
    if not isinstance(parts, list | tuple) or len(parts) != 3:
        raise MessageError(
            f"expected 3 frames, got {len(parts) if hasattr(parts, '__len__') else '?'}"
        )
    topic_b, header_b, body = (bytes(p) for p in parts)
    try:
        topic = topic_b.decode("ascii")
    except UnicodeDecodeError:
        raise MessageError("topic is not ASCII") from None
    if topic not in TOPICS:
        raise MessageError(f"unknown topic {topic[:40]!r}")
    header = _header(header_b)
    kind = header["kind"]
    if kind not in TOPIC_KINDS[topic]:
        raise MessageError(f"{kind} message on topic {topic}")
    if kind == "alarm":
        if body or header.get("shape") != [0] or "alarm" not in header:
            raise MessageError("alarm message needs an alarm record and an empty [0] payload")
        return Message(topic, header, np.zeros(0, np.float32))
    if kind not in PAYLOAD_KINDS:
        if body:
            raise MessageError(f"{kind} message carries a payload")
        return Message(topic, header, None)
    shape = header.get("shape")
    if header.get("dtype") != "float32" or shape is None:
        raise MessageError(f"{kind} message without a float32 shape")
    if "t0" not in header:
        raise MessageError(f"{kind} message without t0")
    if kind == "ward_status":
        beds = header.get("beds")
        if beds is None or "alarms" not in header:
            raise MessageError("ward_status message without beds or alarms")
        if len(shape) != 2 or shape[0] != len(beds):
            raise MessageError(f"ward_status payload shape {shape} does not fit {len(beds)} beds")
        if len({b["name"] for b in beds}) != len(beds):
            raise MessageError("ward_status names a bed twice")
    n = 4
    for s in shape:  # Python ints: a declared [2**62, 4] cannot wrap around to 0
        if s > MAX_PAYLOAD_BYTES // 4:  # nor [0, 2**61] pass as empty and fail in reshape
            raise MessageError(f"declared shape {shape} has an absurd dimension")
        n *= s
        if n > MAX_PAYLOAD_BYTES:
            raise MessageError(f"declared shape {shape} exceeds {MAX_PAYLOAD_BYTES} bytes")
    if n != len(body):
        raise MessageError(f"payload of {len(body)} bytes does not match shape {shape}")
    payload = np.frombuffer(body, dtype="<f4").reshape(shape)
    if not np.isfinite(payload).all():
        raise MessageError("payload holds NaN or Inf")
    return Message(topic, header, payload)


@dataclass
class Expect:
    """What one input socket expects, checked after :func:`decode`.

    Parameters
    ----------
    topic : str
        The only topic accepted.
    trailing : tuple of int
        Payload shape after the time axis, e.g. ``(22,)`` for signal frames,
        ``(22, 26)`` for feature frames, ``()`` with ``ndim=1`` for probabilities.
    time_axis : bool
        Whether the payload's first axis is time (signal, features) or not (probs).
    max_t0 : float
        Latest plausible ``t0``: the recording's duration plus a margin.
    step_s : float
        Signal seconds per row of the time axis, or per message without one (an epoch).
    streams : frozenset of str
        Senders accepted on this input (the upstream stage; ``supervisor`` for the
        end-of-stream it sends on a dead stage's behalf). Empty: any.
    max_jump_s : float
        Largest plausible step of ``t0`` past where its stream should continue. Losses across
        a restart are bounded by the queues (high-water marks), far below this.
    """

    topic: str
    trailing: tuple[int, ...]
    time_axis: bool = True
    max_t0: float = math.inf
    step_s: float = 0.0
    streams: frozenset = frozenset()
    max_jump_s: float = 600.0

    def span_s(self, msg: Message) -> float:
        """Signal seconds a data message covers (where the next one should start)."""
        return self.step_s * (len(msg.payload) if self.time_axis else 1)

    def check(self, msg: Message) -> None:
        """Raise MessageError if ``msg`` does not fit this input."""
        if msg.topic != self.topic:
            raise MessageError(f"topic {msg.topic} on the {self.topic} input")
        if msg.kind not in ("data", "eos"):
            raise MessageError(f"{msg.kind} message on the {self.topic} input")
        if self.streams and msg.stream not in self.streams:
            raise MessageError(f"unexpected sender {msg.stream[:40]!r}")
        if msg.kind != "data":
            return
        shape = msg.payload.shape
        want = ("n", *self.trailing) if self.time_axis else self.trailing
        if (
            len(shape) != len(want)
            or tuple(shape[1:] if self.time_axis else shape) != self.trailing
        ):
            raise MessageError(f"payload shape {list(shape)} does not fit {list(want)}")
        if self.time_axis and shape[0] == 0:
            raise MessageError("empty payload")
        if msg.header["t0"] > self.max_t0:
            raise MessageError(
                f"t0 {msg.header['t0']:g} s is beyond the recording ({self.max_t0:g} s)"
            )
