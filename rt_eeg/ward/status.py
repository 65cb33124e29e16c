"""The ward status message: what the service publishes once a second for the ward overview.

One message in the project's wire format (:mod:`rt_eeg.pipeline.messages`): topic ``ward``,
kind ``ward_status``, header ``{"v", "kind", "seq", "stream": "ward", "t0": wall time,
"shape": [n_beds, n_trace], "beds": [BED, ...], "alarms": [ALARM, ...]}`` and a float32
payload ``(n_beds, n_trace)``: each bed's last seconds of one trace channel (zeros where there
is no data). BED and ALARM are the records of the ward contract, validated key by key by
:func:`rt_eeg.pipeline.messages.decode` (:data:`~rt_eeg.pipeline.messages.BED_FIELDS`,
:data:`~rt_eeg.pipeline.messages.ALARM_FIELDS`).

Pure functions, no sockets: the service encodes, the overview decodes.
"""

from __future__ import annotations

import json

import numpy as np

from rt_eeg.pipeline.messages import (
    BED_STATES,
    MAX_HEADER_BYTES,
    Message,
    MessageError,
    decode,
    encode,
)

TOPIC = b"ward"
#: Trace samples per bed in a status (10 s at 25 Hz).
N_TRACE = 250
TRACE_SFREQ = 25.0

__all__ = ["BED_STATES", "N_TRACE", "TOPIC", "bed_record", "decode_status", "encode_status"]


def bed_record(name: str, state: str, **fields) -> dict:
    """A BED record with every contract key, ``None`` (or ``""`` for ``detail``) where not given.

    Parameters
    ----------
    name : str
        Bed name (1..64 characters, unique in the ward).
    state : str
        One of :data:`BED_STATES`.
    **fields
        Any of ``confidence``, ``signal_time``, ``since_data_s``, ``seiz_onset``,
        ``seiz_duration_s``, ``alarm``, ``detail``, ``monitor``.
    """
    rec = {
        "name": name,
        "state": state,
        "confidence": None,
        "signal_time": None,
        "since_data_s": None,
        "seiz_onset": None,
        "seiz_duration_s": None,
        "alarm": None,
        "detail": "",
        "monitor": None,
    }
    unknown = set(fields) - set(rec)
    if unknown:
        raise ValueError(f"unknown bed keys: {', '.join(sorted(unknown))}")
    rec.update(fields)
    return rec


def encode_status(
    seq: int, wall: float, beds: list[dict], alarms: list[dict], traces: np.ndarray
) -> list[bytes]:
    """Encode one ward status message.

    Parameters
    ----------
    seq : int
        Sequence number of this status (per publisher, from 0).
    wall : float
        Unix wall time of the status (the header's ``t0``).
    beds : list of dict
        BED records, in display order (see :func:`bed_record`).
    alarms : list of dict
        ALARM records to show (active and unacknowledged ones first: when the header would
        exceed the wire limit, alarms are dropped from the end of the list).
    traces : np.ndarray
        ``(n_beds, n_trace)`` trace rows, one per bed; NaN/Inf become 0 (no data).

    Returns
    -------
    list of bytes
        ``[b"ward", header, payload]``.

    Raises
    ------
    MessageError
        A record that breaks the contract, duplicate bed names, or traces of the wrong shape.
    """
    traces = np.nan_to_num(np.asarray(traces, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    if traces.ndim != 2 or traces.shape[0] != len(beds):
        raise MessageError(f"traces of shape {list(traces.shape)} for {len(beds)} beds")
    header = {
        "kind": "ward_status",
        "seq": int(seq),
        "stream": "ward",
        "t0": float(wall),
        "beds": [_plain(b) for b in beds],
        "alarms": [_plain(a) for a in alarms],
    }
    frames = encode(TOPIC.decode(), header, traces)
    while len(frames[1]) > MAX_HEADER_BYTES and header["alarms"]:
        header["alarms"] = header["alarms"][: len(header["alarms"]) // 2]
        frames = encode(TOPIC.decode(), header, traces)
    decode(frames)  # fail here, at the service, rather than in every overview
    return frames


def decode_status(frames: list[bytes]) -> tuple[dict, np.ndarray]:
    """Decode and validate one ward status message.

    Returns
    -------
    header : dict
        With ``beds`` (BED records), ``alarms`` (ALARM records), ``seq`` and ``t0``.
    traces : np.ndarray
        ``(n_beds, n_trace)`` float32, finite.

    Raises
    ------
    MessageError
        Anything but a well-formed ward status (wrong topic or kind, a bad record, a payload
        that does not fit the beds).
    """
    msg: Message = decode(frames)
    if msg.kind != "ward_status":
        raise MessageError(f"{msg.kind} message where a ward status was expected")
    return msg.header, msg.payload


def _plain(rec: dict) -> dict:
    """A JSON-clean copy (numpy scalars to Python numbers, tuples to lists)."""
    return json.loads(json.dumps(rec, default=_to_builtin))


def _to_builtin(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple | set | frozenset):
        return list(x)
    raise TypeError(f"{type(x).__name__} is not JSON")
