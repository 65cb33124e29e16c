"""The ward service's status building, in process (no bed or decoder processes): a bed's
reports arrive on the wire exactly as a bed sends them, through the service's report reader,
and the status it would publish is decoded as an overview would."""

from __future__ import annotations

import logging
import time

import numpy as np
import pytest
import zmq

from rt_eeg.pipeline.journal import decision_record
from rt_eeg.pipeline.transport import Sender
from rt_eeg.postprocess import Decision
from rt_eeg.ward.alarms import AlarmManager
from rt_eeg.ward.config import ward_from_dict
from rt_eeg.ward.service import WardService
from rt_eeg.ward.status import N_TRACE, decode_status, encode_status

pytestmark = pytest.mark.timeout(60)
CH = ["FP1-F7", "F7-T3", "T3-T5", "T5-O1"]


class Wire:
    """A socket stand-in: what is sent is queued, what is received comes off the queue."""

    def __init__(self):
        self.queue: list[list[bytes]] = []

    def send_multipart(self, parts, flags=0):
        self.queue.append(list(parts))

    def recv_multipart(self, flags=0):
        if not self.queue:
            raise zmq.Again()
        return self.queue.pop(0)


class Running:
    """A bed process as the service sees it: alive."""

    pid = 4242

    def poll(self):
        return None


class Bed:
    """Sends what :mod:`rt_eeg.ward.bed` sends on the reports socket: ``ready``/``heartbeat``
    with its stats, and one ``decision`` per epoch."""

    def __init__(self, name: str, wire: Wire):
        self.reports = Sender(wire, name, 0)
        self.last: dict | None = None

    def stats(self, **over) -> dict:
        st = {"processed": 0, "t_signal": 0.0, "t_last_data": time.time(), "paused": False,
              "status": "ok", "sfreq_in": 250.0, "last": self.last, "latency_ms": {},
              "n_decisions": 1, "n_na": 0, "malformed": 0, "decoder_resets": 0,
              "first_sample_wall": None, "first_decision_wall": None,
              "trace": [0.0] * N_TRACE, "trace_channel": CH[0]}  # fmt: skip
        return st | over

    def report(self, kind: str, **over) -> None:
        self.reports.send("control", {"kind": kind, "t_emit": time.time(), "pid": Running.pid,
                                      "stats": self.stats(**over)}, block=False)  # fmt: skip

    def decide(self, start: float, label: str, confidence: float = 0.9) -> None:
        chans = tuple(CH[:2]) if label == "seiz" else ()
        score = float("nan") if label == "na" else (0.9 if label == "seiz" else 0.1)
        d = Decision(start, start + 1.0, label, 0.0 if label == "na" else confidence, chans, score)
        now = time.time()
        self.last = {"label": d.label, "start": d.start, "stop": d.stop, "confidence": d.confidence,
                     "channels": list(d.channels), "score": None if np.isnan(d.score) else d.score,
                     "top_channels": CH[:2]}  # fmt: skip
        header = {"kind": "data", "t0": d.start, "t_emit": now, **decision_record(d, now)}
        del header["wall"]
        header["score"] = self.last["score"]
        self.reports.send("decision", {**header, "top_channels": CH[:2], "wall": now},
                          np.full(len(CH), 0.5, np.float32), block=False)  # fmt: skip


@pytest.fixture
def ward(tmp_path):
    """A :class:`WardService` with one bed, its sockets replaced by :class:`Wire` queues and
    its main loop never run; yields ``(service, bed, reports wire, status wire, events)``."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.keras").write_bytes(b"")  # the service only checks it is there
    cfg = ward_from_dict({"ward": {"model": str(model), "output": str(tmp_path / "out")},
                          "bed": [{"name": "bed1", "lsl": "amp"}]})  # fmt: skip
    events = []
    svc = WardService(cfg, on_event=lambda kind, who, info: events.append((kind, who)))
    reports, status = Wire(), Wire()
    svc.encode_status = encode_status
    svc.status_sock = status
    svc.alarms = AlarmManager(tmp_path / "out" / "alarms.jsonl", publish=lambda t, f: None)
    svc.decoder.update(ready=True, inc=0)
    e = svc.beds["bed1"]
    e.inc, e.proc = 0, Running()
    bed = Bed("bed1", reports)
    bed.report("ready")
    svc._read_reports(reports)
    try:
        yield svc, bed, reports, status, events
    finally:
        svc.alarms.close()
        svc._cleanup()


def _published(status: Wire) -> dict:
    assert len(status.queue) == 1, f"{len(status.queue)} statuses published"
    header, _ = decode_status(status.queue.pop())
    return header["beds"][0]


def test_seizure_duration_counts_from_the_newest_decision_not_a_stale_heartbeat(ward):
    svc, bed, reports, status, _ = ward
    for t in range(30, 40):
        bed.decide(t, "bckg")
    for t in range(40, 46):
        bed.decide(t, "seiz")  # raises A1 at 40
    bed.report("heartbeat")  # stats: last = seiz [45, 46]
    svc._read_reports(reports)
    svc._publish_status()
    rec = _published(status)
    assert (rec["state"], rec["alarm"], rec["seiz_onset"]) == ("SEIZ", "A1", 40.0)
    assert rec["seiz_duration_s"] == 6.0
    # The decoder restarts: the bed's held epochs come out 'na', then it catches up in a burst
    # faster than its heartbeat. The first seizure ends, a second one is raised at 53, while the
    # stats the service holds still say seiz [45, 46] (measured against them: 46 - 53 < 0).
    for t in range(46, 50):
        bed.decide(t, "na")
    for t in range(50, 53):
        bed.decide(t, "bckg")  # ends A1
    for t in range(53, 56):
        bed.decide(t, "seiz")  # raises A2 at 53
    svc._read_reports(reports)
    svc._publish_status()
    rec = _published(status)
    assert (rec["state"], rec["alarm"], rec["seiz_onset"]) == ("SEIZ", "A2", 53.0)
    assert rec["seiz_duration_s"] == 3.0
    bed.report("heartbeat")  # the bed's stats catch up: the same duration
    svc._read_reports(reports)
    svc._publish_status()
    assert _published(status)["seiz_duration_s"] == 3.0


def test_a_status_that_fails_validation_is_dropped_and_logged_once(ward, caplog):
    svc, bed, reports, status, events = ward
    for t in range(10):
        bed.decide(t, "bckg")
    bed.last = dict(bed.last, confidence=1.5)  # a bed reporting a number out of range
    bed.report("heartbeat")
    svc._read_reports(reports)
    with caplog.at_level(logging.ERROR, logger="rt_eeg.ward"):
        for _ in range(3):
            svc._publish_status()
        # Detection goes on meanwhile: decisions are read, an alarm is raised.
        bed.decide(10, "seiz")
        svc._read_reports(reports)
        svc._publish_status()
    assert status.queue == [] and svc.status_seq == 0 and ("status", "ward") not in events
    assert ("decision", "bed1") in events and [a["id"] for a in svc.alarms.active()] == ["A1"]
    logged = [r.getMessage() for r in caplog.records if "status not published" in r.getMessage()]
    assert len(logged) == 1 and "confidence" in logged[0], logged
    bed.report("heartbeat")  # the bed's next stats are sound: the status is published again
    svc._read_reports(reports)
    svc._publish_status()
    rec = _published(status)
    assert (rec["state"], rec["alarm"], rec["seiz_duration_s"]) == ("SEIZ", "A1", 1.0)
    assert svc.status_seq == 1 and ("status", "ward") in events
