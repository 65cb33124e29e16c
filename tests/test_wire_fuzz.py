"""Wire fuzz: the one decoder of the wire format drops every malformed message with a
MessageError (never another exception, never a stall), and a live run fed hostile messages
on every input socket and the control socket finishes with the clean run's outputs and
counts every bad message in metrics.json."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
import zmq
from edf_factory import tuh_like
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rt_eeg.config import PipelineConfig
from rt_eeg.pipeline.messages import Expect, MessageError, decode, encode
from rt_eeg.pipeline.transport import Receiver, make_socket

pytestmark = pytest.mark.timeout(120)
FUZZ = settings(max_examples=800, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])  # fmt: skip

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip
KEYS = ["v", "kind", "seq", "stream", "incarnation", "t0", "t_emit", "shape", "dtype", "reset",
        "stats", "error", "sfreq", "ch_names", "score", "channels", "label", "beds", "alarms",
        "alarm"]  # fmt: skip
GOOD = {"v": 1, "kind": "data", "seq": 3, "stream": "source", "t0": 1.0, "t_emit": 1.0}


def _decode_or_reject(parts) -> None:
    """decode() either returns a message or raises MessageError; nothing else, and no hang.

    The bound catches a hang (the 1e12 / huge-shape class of bug), not speed: decode's speed
    is a benchmark (``tools/fuzz_wire.py`` reports the slowest case, ~0.1 s on a loaded
    machine), and a timed pass/fail bound near it failed on a loaded CI machine."""
    t0 = time.perf_counter()
    try:
        msg = decode(parts)
    except MessageError:
        return
    finally:
        assert time.perf_counter() - t0 < 10.0
    assert msg.topic and isinstance(msg.header, dict)
    if msg.kind in ("data", "ward_status", "alarm"):
        assert msg.payload.nbytes == len(parts[2]) and np.isfinite(msg.payload).all()
    if msg.kind == "ward_status":
        assert msg.payload.ndim == 2 and len(msg.payload) == len(msg.header["beds"])


@FUZZ
@given(st.lists(st.binary(max_size=64), max_size=5))
def test_decode_random_frames(parts):
    _decode_or_reject(parts)


@FUZZ
@given(
    st.sampled_from(["signal", "features", "probs", "decision", "control", "ward", "alarm", "x"]),
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6),
    st.binary(max_size=64),
)
def test_decode_headers_with_wrong_types_in_every_field(topic, fields, body):
    header = json.dumps({**GOOD, **fields}, allow_nan=True).encode()
    _decode_or_reject([topic.encode(), header, body])


@FUZZ
@given(st.lists(st.integers(-5, 2**64), max_size=5), st.integers(0, 256))
def test_decode_declared_shapes(shape, n_bytes):
    header = json.dumps({**GOOD, "shape": shape, "dtype": "float32"}).encode()
    _decode_or_reject([b"signal", header, b"\0" * n_bytes])


# -- ward kinds: ward_status (beds + alarms + traces) and alarm --------------------------------
BED = {"name": "bed1", "state": "SEIZ", "confidence": 0.8, "signal_time": 10.0, "since_data_s": 0.2,
       "seiz_onset": 2.0, "seiz_duration_s": 8.0, "alarm": "A1", "detail": "",
       "monitor": {"signal": "ipc:///tmp/s", "decision": "ipc:///tmp/d"}}  # fmt: skip
ALARM = {"id": "A1", "bed": "bed1", "onset": 2.0, "wall": 1.7e9, "channels": ["T3-T5"],
         "confidence": 0.8, "state": "active", "acknowledged_by": None, "acknowledged_at": None}  # fmt: skip


@FUZZ
@given(
    st.sampled_from(["beds", "alarms"]),
    st.sampled_from(sorted(BED) + sorted(ALARM)),
    json_values,
    st.integers(0, 3),
    st.sampled_from(["ward", "alarm", "signal"]),
)
def test_decode_ward_records_with_wrong_types_in_every_field(where, key, value, n_rows, topic):
    beds, alarms = [dict(BED)], [dict(ALARM)]
    (beds if where == "beds" else alarms)[0][key] = value
    header = {"v": 1, "kind": "ward_status", "seq": 0, "stream": "ward", "t0": 1.7e9,
              "shape": [n_rows, 4], "dtype": "float32", "beds": beds, "alarms": alarms}  # fmt: skip
    _decode_or_reject([topic.encode(), json.dumps(header, allow_nan=True).encode(), b"\0" * 16])
    alarm = {
        "v": 1,
        "kind": "alarm",
        "seq": 0,
        "shape": [0],
        "dtype": "float32",
        "alarm": alarms[0],
    }
    _decode_or_reject([topic.encode(), json.dumps(alarm, allow_nan=True).encode(), b""])


@pytest.mark.parametrize(
    "header, body",
    [
        ({"kind": "ward_status", "t0": 1.0, "shape": [2, 4], "beds": [BED], "alarms": []}, 32),
        ({"kind": "ward_status", "t0": 1.0, "shape": [1, 4], "beds": [BED, BED], "alarms": []}, 16),
        ({"kind": "ward_status", "t0": 1.0, "shape": [2, 2], "beds": [BED, BED], "alarms": []}, 16),
        ({"kind": "ward_status", "t0": 1.0, "shape": [4], "beds": [BED], "alarms": []}, 16),
        ({"kind": "ward_status", "t0": 1.0, "shape": [1, 4], "alarms": []}, 16),
        ({"kind": "ward_status", "shape": [1, 4], "beds": [BED], "alarms": []}, 16),
        (
            {"kind": "ward_status", "t0": 1.0, "shape": [1, 4], "beds": [BED] * 300, "alarms": []},
            16,
        ),
        ({"kind": "alarm", "shape": [0], "alarm": ALARM}, 4),
        ({"kind": "alarm", "shape": [0]}, 0),
        ({"kind": "alarm", "alarm": ALARM}, 0),
        ({"kind": "alarm", "shape": [0], "alarm": {**ALARM, "state": "snoozed"}}, 0),
        ({"kind": "alarm", "shape": [0], "alarm": [ALARM]}, 0),
    ],
    ids=[
        "rows>beds",
        "beds>rows",
        "dup-names",
        "1-d",
        "no-beds",
        "no-t0",
        "300-beds",
        "alarm-payload",
        "no-alarm",
        "no-shape",
        "bad-state",
        "alarm-list",
    ],  # fmt: skip
)
def test_malformed_ward_messages_are_rejected(header, body):
    topic = b"alarm" if header["kind"] == "alarm" else b"ward"
    h = {"v": 1, "seq": 0, "dtype": "float32", **header}
    with pytest.raises(MessageError):
        decode([topic, json.dumps(h).encode(), b"\0" * body])


def test_ward_kinds_only_on_their_topics():
    status = encode("ward", {"kind": "ward_status", "seq": 0, "t0": 1.0, "beds": [BED],
                             "alarms": [ALARM]}, np.ones((1, 250), np.float32))  # fmt: skip
    assert decode(status).payload.shape == (1, 250)
    alarm = encode("alarm", {"kind": "alarm", "seq": 0, "alarm": ALARM}, np.zeros(0, np.float32))
    assert decode(alarm).header["alarm"] == ALARM
    for parts in (status, alarm):
        for topic in (b"signal", b"decision", b"control", b"ward" if parts is alarm else b"alarm"):
            with pytest.raises(MessageError, match="on topic"):
                decode([topic, *parts[1:]])


# The crafted messages of issues #15 and #13, each a regression test.
ISSUE_ATTACKS = {
    "deep_json": [b"signal", b"[" * 200_000, b""],
    "huge_shape": [b"features", json.dumps({**GOOD, "shape": [2**62, 4], "dtype": "float32"}).encode(), b""],
    "unhashable_stream": [b"control", b'{"v":1,"kind":"heartbeat","seq":0,"stream":[1]}', b""],
    "huge_header": [b"signal", b'{"v":1,"kind":"eos","seq":0,"x":"' + b"a" * 100_000 + b'"}', b""],
    "nan_t0": [b"signal", b'{"v":1,"kind":"data","seq":0,"t0":NaN,"shape":[0,22],"dtype":"float32"}', b""],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ISSUE_ATTACKS))
def test_crafted_messages_of_the_issues_are_rejected(name):
    with pytest.raises(MessageError):
        decode(ISSUE_ATTACKS[name])


def test_stream_context_checks_channels_and_t0():
    """[25, 5] frames on a 22-channel stream and t0 = 1e12 (which stalled the postprocessor)
    fail the input's expectations."""
    sig = Expect("signal", (22,), max_t0=47.0, step_s=1 / 250, streams=frozenset({"source"}))
    with pytest.raises(MessageError, match="shape"):
        sig.check(decode(encode("signal", {**GOOD, "seq": 0}, np.zeros((25, 5), np.float32))))
    probs = Expect("probs", (22,), time_axis=False, max_t0=47.0, step_s=1.0)
    with pytest.raises(MessageError, match="beyond"):
        probs.check(decode(encode("probs", {**GOOD, "t0": 1e12}, np.zeros(22, np.float32))))
    with pytest.raises(MessageError, match="sender"):
        sig.check(
            decode(encode("signal", {**GOOD, "stream": "evil"}, np.zeros((25, 22), np.float32)))
        )


def test_receiver_drops_replayed_backward_and_jumping_messages(tmp_path):
    ctx = zmq.Context()
    pull = make_socket(ctx, zmq.PULL, f"ipc://{tmp_path}/x", bind=True)
    push = make_socket(ctx, zmq.PUSH, f"ipc://{tmp_path}/x", bind=False)
    try:
        rx = Receiver(pull, "t", Expect("signal", (2,), step_s=0.004, max_t0=1e4), start_t=0.0)
        frame = np.zeros((25, 2), np.float32)
        sent = [
            (0, 0.0),
            (1, 0.1),
            (1, 0.1),
            (0, 0.2),
            (2, 0.05),
            (3, 900.0),
            (20_000, 0.2),
            (2, 0.2),
        ]
        for seq, t0 in sent:
            push.send_multipart(
                encode("signal", {"kind": "data", "seq": seq, "t0": t0, "stream": "s"}, frame)
            )
        got = [rx.recv(5000) for _ in sent]
        assert [(m.seq, m.header["t0"]) if m else None for m in got] == [
            (0, 0.0),
            (1, 0.1),
            None,
            None,
            None,
            None,
            None,
            (2, 0.2),
        ]
        assert rx.malformed == 5 and rx.gaps == []
    finally:
        push.close(linger=0)
        pull.close()
        ctx.term()


# -- live run --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    from rt_eeg.decoder import write_untrained_model

    return write_untrained_model(tmp_path_factory.mktemp("model") / "m", seed=3)


def _attacks(topic: str, n_ch: int, trailing: tuple) -> list[list[bytes]]:
    """Hand-picked hostile messages for an input carrying ``topic``."""
    good = encode(
        topic,
        {"kind": "data", "seq": 0, "t0": 1.0, "stream": "x"},
        np.zeros((1, *trailing), np.float32),
    )
    h = {"v": 1, "kind": "data", "seq": 0, "t0": 1.0, "dtype": "float32"}
    ok_stream = {"signal": "source", "features": "features", "probs": "decoder"}[topic]
    return [
        good[:2],  # wrong part count
        [topic.encode(), b"{bad json", b""],
        [topic.encode(), b"[" * 200_000, b""],  # RecursionError in the features stage (#15)
        [topic.encode(), json.dumps({**h, "shape": [2**62, 4]}).encode(), b""],  # reshape (#15)
        [topic.encode(), json.dumps({**h, "shape": [4], "dtype": "float64"}).encode(), b"\0" * 32],
        encode(topic, {"kind": "data", "seq": 0, "t0": 1.0, "stream": ok_stream},
               np.zeros((25, 5), np.float32)),  # wrong channel count (#15)
        encode(topic, {"kind": "data", "seq": 0, "t0": 1e12, "stream": ok_stream},
               np.zeros((1, *trailing), np.float32)),  # t0 far beyond the recording (#15)
        [topic.encode(), json.dumps({**h, "t0": -1, "shape": [0]}).encode(), b""],
        [topic.encode(), json.dumps({**h, "seq": -3, "shape": [0]}).encode(), b""],
        [topic.encode(), json.dumps({**h, "kind": "explode"}).encode(), b""],
        [topic.encode(), json.dumps({**h, "reset": "yes", "shape": [0]}).encode(), b""],
        [b"control", good[1], good[2]],  # another input's topic
    ]  # fmt: skip


CONTROL_ATTACKS = [
    [b"control", b'{"v":1,"kind":"heartbeat","seq":0,"stream":[1]}', b""],  # (#13)
    [b"control", b'{"v":1,"kind":"heartbeat","seq":0,"stream":"ghost"}', b""],
    [b"control", b'{"v":1,"kind":"ready","seq":0,"stream":"decoder","incarnation":"0"}', b""],
    [b"control", b'{"v":1,"kind":"eos","seq":0,"stream":"postprocess","stats":[1]}', b""],
    [b"control", b"[" * 100_000, b""],
    [b"signal", b'{"v":1,"kind":"eos","seq":0,"stream":"source"}', b""],
]


def test_live_run_survives_hostile_messages_on_every_socket(model_dir, tmp_path):
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.features import FeatureConfig
    from rt_eeg.outputs import write_outputs
    from rt_eeg.pipeline.supervisor import Supervisor

    rng = np.random.default_rng(5)
    edf, _ = tuh_like(tmp_path / "rec_s001_t000.edf", 30.0, 256, rng=rng)
    cfg = PipelineConfig(model=str(model_dir), device="cpu")
    sup = Supervisor(edf, tmp_path / "live", speed=3.0, config=cfg, monitor=None)
    n_ch = len(sup.ch_names)
    inputs = {"features_in": ("signal", (n_ch,)), "decoder_in": ("features", (n_ch, FeatureConfig().n_features)),
              "postprocess_in": ("probs", (n_ch,))}  # fmt: skip
    ctx = zmq.Context()
    sent: dict[str, int] = {}

    def on_event(kind, who, info):
        if kind != "go":
            return
        for ep, (topic, trailing) in inputs.items():
            sock = make_socket(ctx, zmq.PUSH, sup.endpoints[ep], bind=False)
            for parts in _attacks(topic, n_ch, trailing):
                sock.send_multipart(parts)
            sent[ep] = len(_attacks(topic, n_ch, trailing))
            sock.close()
        sock = make_socket(ctx, zmq.PUSH, sup.endpoints["control"], bind=False)
        for parts in CONTROL_ATTACKS:
            sock.send_multipart(parts)
        sock.close()

    sup.on_event = on_event
    try:
        metrics = sup.run_pipeline()
    finally:
        ctx.destroy(linger=0)
    assert metrics["restarts"] == [] and metrics["errors"] == []
    assert metrics["malformed_messages"] == {
        "features": sent["features_in"], "decoder": sent["decoder_in"],
        "postprocess": sent["postprocess_in"], "supervisor": len(CONTROL_ATTACKS)}  # fmt: skip
    res = detect_recording(edf, Decoder(model_dir, device="cpu"))
    write_outputs(tmp_path / "off", edf.stem, res.decisions, res.duration)
    for suffix in (".hyp", ".csv_bi", ".tse", "_events.tsv"):
        live = (tmp_path / "live" / f"{edf.stem}{suffix}").read_text()
        assert live == (tmp_path / "off" / f"{edf.stem}{suffix}").read_text(), suffix
