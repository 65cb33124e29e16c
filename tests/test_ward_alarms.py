"""Ward alarms and the ward status message: raise/end/ack over a real Postprocessor run, the
alarm log (append, torn last line, restart), the per-alarm command (env, failures, hangs),
the ``alarm`` and ``ward_status`` wire kinds."""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import pytest

from rt_eeg.errors import RtEegError
from rt_eeg.pipeline.messages import MessageError, decode, encode
from rt_eeg.postprocess import Postprocessor, decisions_to_events
from rt_eeg.ward.alarms import AlarmManager, read_alarm_log
from rt_eeg.ward.status import bed_record, decode_status, encode_status

pytestmark = pytest.mark.timeout(60)
CH = ["FP1-F7", "F7-T3", "T3-T5", "T5-O1"]


def seizure_probs(rng, n_epochs: int, seizures: list[tuple[int, int]]) -> np.ndarray:
    """``(n_epochs, 4)`` P(seiz): low noise, high on the first two channels during seizures."""
    p = rng.uniform(0.0, 0.15, (n_epochs, len(CH)))
    for a, b in seizures:
        p[a:b, :2] = rng.uniform(0.8, 0.95, (b - a, 2))
    return p


def run_bed(mgr: AlarmManager, bed: str, probs: np.ndarray, t0: float = 0.0):
    """Feed a real Postprocessor's decisions to ``mgr``; returns (decisions, changes)."""
    post = Postprocessor(CH)
    decisions, changes = [], []
    for i, p in enumerate(probs):
        for d in post.push(t0 + i, p):
            decisions.append(d)
            top = [CH[j] for j in np.argsort(-p)[:2]]
            changes += mgr.on_decision(bed, d, CH, top)
    return decisions, changes


@pytest.fixture
def clock():
    t = {"now": 1_763_900_000.0}

    def now():
        t["now"] += 0.5
        return t["now"]

    return now


def test_one_alarm_per_seizure_event_raised_and_ended(tmp_path, rng, clock):
    published = []
    mgr = AlarmManager(tmp_path / "alarms.jsonl", publish=lambda t, f: published.append((t, f)),
                       clock=clock)  # fmt: skip
    decisions, changes = run_bed(mgr, "bed1", seizure_probs(rng, 90, [(20, 35), (60, 72)]))
    events = decisions_to_events(decisions)
    assert len(events) == 2
    raised = [a for a in changes if a["state"] == "active"]
    ended = [a for a in changes if a["state"] == "ended"]
    assert [a["onset"] for a in raised] == [ev.start for ev in events]
    assert [a["offset"] for a in ended] == [ev.stop for ev in events]
    assert [a["id"] for a in raised] == [a["id"] for a in ended] and len(
        {*[a["id"] for a in raised]}
    ) == 2
    assert all(a["channels"] == CH[:2] for a in ended)
    assert mgr.active() == []
    # Log: one line per raise and end, in order, with the alarm.
    recs = read_alarm_log(tmp_path / "alarms.jsonl")
    assert [(r["event"], r["alarm"]["id"]) for r in recs] == [
        ("raise", raised[0]["id"]), ("end", raised[0]["id"]),
        ("raise", raised[1]["id"]), ("end", raised[1]["id"])]  # fmt: skip
    # Published: alarm wire messages that decode, one per log line.
    assert len(published) == 4 and all(t == b"alarm" for t, _ in published)
    msgs = [decode(f) for _, f in published]
    assert [m.header["alarm"]["state"] for m in msgs] == ["active", "ended"] * 2
    assert all(m.kind == "alarm" and m.payload.shape == (0,) for m in msgs)
    mgr.close()


def test_beds_are_independent_and_a_gap_does_not_end_or_repeat_an_alarm(tmp_path, rng, clock):
    mgr = AlarmManager(tmp_path / "a.jsonl", clock=clock)
    run_bed(mgr, "bed1", seizure_probs(rng, 30, [(10, 30)]))
    (a1,) = mgr.active()
    assert a1["bed"] == "bed1"
    # bed2 in seizure too: its own alarm; bed1's stays.
    run_bed(mgr, "bed2", seizure_probs(rng, 20, [(5, 20)]))
    assert sorted(a["bed"] for a in mgr.active()) == ["bed1", "bed2"]
    # bed1's data stops (na), then the seizure is seen again after the gap: same alarm.
    assert mgr.on_decision("bed1", {"start": 30.0, "label": "na", "confidence": 0.0}, CH, []) == []
    again = mgr.on_decision("bed1", {"start": 35.0, "label": "seiz", "confidence": 0.7,
                                     "channels": ["T3-T5"]}, CH, [])  # fmt: skip
    assert again == [] and [a["id"] for a in mgr.active() if a["bed"] == "bed1"] == [a1["id"]]
    assert mgr.all_recent(1)[0]["bed"] == "bed2"
    bed1 = next(a for a in mgr.active() if a["bed"] == "bed1")
    assert bed1["channels"] == ["FP1-F7", "F7-T3", "T3-T5"] and bed1["confidence"] == 0.7
    mgr.close()


def test_acknowledge_logs_who_and_when(tmp_path, rng, clock):
    published = []
    mgr = AlarmManager(tmp_path / "a.jsonl", clock=clock, publish=lambda t, f: published.append(f))
    run_bed(mgr, "bed1", seizure_probs(rng, 30, [(10, 30)]))
    (alarm,) = mgr.unacknowledged()
    acked = mgr.acknowledge(alarm["id"], "nurse.kim")
    assert acked["acknowledged_by"] == "nurse.kim" and acked["acknowledged_at"] > alarm["wall"]
    assert mgr.acknowledge(alarm["id"], "someone.else")["acknowledged_by"] == "nurse.kim"
    assert mgr.unacknowledged() == [] and mgr.active()[0]["state"] == "active"
    with pytest.raises(RtEegError, match="unknown alarm"):
        mgr.acknowledge("A999", "nurse.kim")
    with pytest.raises(RtEegError, match="user name"):
        mgr.acknowledge(alarm["id"], "  ")
    recs = read_alarm_log(tmp_path / "a.jsonl")
    assert [r["event"] for r in recs] == ["raise", "ack"]
    assert recs[1]["alarm"]["acknowledged_by"] == "nurse.kim"
    assert decode(published[-1]).header["alarm"]["acknowledged_by"] == "nurse.kim"
    mgr.close()


def test_log_survives_a_torn_line_and_a_restart(tmp_path, rng, clock):
    path = tmp_path / "ward" / "alarms.jsonl"
    mgr = AlarmManager(path, clock=clock)
    run_bed(mgr, "bed1", seizure_probs(rng, 40, [(10, 25)]))
    run_bed(mgr, "bed2", seizure_probs(rng, 30, [(10, 30)]))  # still active at the "power cut"
    mgr.close()
    before = path.read_bytes()
    with open(path, "ab") as fh:  # a write torn by a power cut
        fh.write(b'{"time":1763900009.5,"event":"ack","alarm":{"id":"A1","bed":"be')
    assert len(read_alarm_log(path)) == 3  # the torn line is ignored on reading
    mgr = AlarmManager(path, clock=clock)
    assert path.read_bytes() == before  # torn tail cut, every complete line kept
    (still,) = mgr.active()
    assert still["bed"] == "bed2" and [a["id"] for a in mgr.unacknowledged()] == ["A1", "A2"]
    run_bed(mgr, "bed3", seizure_probs(rng, 20, [(5, 20)]))
    mgr.acknowledge("A1", "dr.lee")
    mgr.close()
    recs = read_alarm_log(path)
    assert [(r["event"], r["alarm"]["id"]) for r in recs] == [
        ("raise", "A1"), ("end", "A1"), ("raise", "A2"), ("raise", "A3"), ("ack", "A1")]  # fmt: skip
    assert path.read_bytes().startswith(before)


SCRIPT = """import json, os, sys
with open(sys.argv[1] + ".tmp", "w") as fh:
    json.dump({k: v for k, v in os.environ.items() if k.startswith("RT_EEG_")}, fh)
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
print("paged", os.environ["RT_EEG_BED"])
"""


def test_command_runs_per_alarm_with_env_vars(tmp_path, rng, clock):
    script = tmp_path / "page.py"
    script.write_text(SCRIPT)
    out = tmp_path / "env.json"
    mgr = AlarmManager(tmp_path / "a.jsonl", command=[sys.executable, str(script), str(out)],
                       clock=clock)  # fmt: skip
    _, changes = run_bed(mgr, "bed 7", seizure_probs(rng, 30, [(10, 30)]))
    mgr.close(timeout_s=20)
    (alarm,) = changes
    env = json.loads(out.read_text())
    assert env == {"RT_EEG_BED": "bed 7", "RT_EEG_ONSET": f"{alarm['onset']:.3f}",
                   "RT_EEG_CONFIDENCE": f"{alarm['confidence']:.4f}",
                   "RT_EEG_CHANNELS": ",".join(alarm["channels"]),
                   "RT_EEG_ALARM_ID": alarm["id"]}  # fmt: skip
    cmd = [r for r in read_alarm_log(tmp_path / "a.jsonl") if r["event"] == "command"]
    assert len(cmd) == 1 and cmd[0]["rc"] == 0 and cmd[0]["output"].strip() == "paged bed 7"
    assert cmd[0]["error"] is None and cmd[0]["alarm_id"] == alarm["id"]


@pytest.mark.parametrize(
    "argv, error",
    [
        ([sys.executable, "-c", "import sys; print('no modem'); sys.exit(3)"], "exit status 3"),
        (["/nonexistent/pager"], "FileNotFoundError"),
        ([sys.executable, "-c", "import time; time.sleep(60)"], "killed after 0.5 s"),
    ],
    ids=["fails", "missing", "hangs"],
)
def test_failing_or_hanging_command_never_blocks_detection(tmp_path, rng, clock, argv, error):
    mgr = AlarmManager(tmp_path / "a.jsonl", command=argv, clock=clock, command_timeout_s=0.5)
    probs = seizure_probs(rng, 30, [(10, 30)])
    t0 = time.perf_counter()
    _, changes = run_bed(mgr, "bed1", probs)
    assert time.perf_counter() - t0 < 0.4  # the command runs beside, not in, the decision path
    assert len(changes) == 1
    mgr.close(timeout_s=20)
    cmd = [r for r in read_alarm_log(tmp_path / "a.jsonl") if r["event"] == "command"]
    assert len(cmd) == 1 and error in cmd[0]["error"]


def test_command_must_be_an_argv_list(tmp_path):
    with pytest.raises(RtEegError, match="argv"):
        AlarmManager(tmp_path / "a.jsonl", command="echo hi; rm -rf /")
    with pytest.raises(RtEegError, match="alarm log"):
        AlarmManager(tmp_path)  # a directory


# -- ward status -------------------------------------------------------------------------------
def ward(n_beds: int, rng):
    beds = [bed_record(f"bed{i}", "BCKG", confidence=0.9, signal_time=100.0, since_data_s=0.1,
                       monitor={"signal": f"ipc:///tmp/b{i}s", "decision": f"ipc:///tmp/b{i}d"})
            for i in range(n_beds)]  # fmt: skip
    beds[1] = bed_record("bed1", "SEIZ", confidence=0.8, seiz_onset=90.0, seiz_duration_s=10.0,
                         alarm="A1", detail="22 ch at 250 Hz")  # fmt: skip
    alarms = [{"id": "A1", "bed": "bed1", "onset": 90.0, "wall": 1.7e9, "channels": ["T3-T5"],
               "confidence": 0.8, "state": "active", "acknowledged_by": None,
               "acknowledged_at": None}]  # fmt: skip
    return beds, alarms, rng.normal(0, 50, (n_beds, 250)).astype(np.float32)


def test_status_round_trip(rng):
    beds, alarms, traces = ward(12, rng)
    traces[3, :10] = np.nan  # no data there: sent as zeros
    header, got = decode_status(encode_status(7, 1.7e9, beds, alarms, traces))
    assert header["seq"] == 7 and header["t0"] == 1.7e9 and header["kind"] == "ward_status"
    assert header["beds"] == beds and header["alarms"] == alarms
    assert got.shape == (12, 250) and np.all(got[3, :10] == 0)
    np.testing.assert_array_equal(got[4], traces[4])


def test_status_keeps_under_the_header_limit_by_dropping_alarms(rng):
    beds, alarms, traces = ward(32, rng)
    many = [dict(alarms[0], id=f"A{i}", channels=[f"CH{j}-LONGNAME" for j in range(22)])
            for i in range(200)]  # fmt: skip
    header, _ = decode_status(encode_status(0, 1.7e9, beds, many, traces))
    assert 0 < len(header["alarms"]) < 200 and header["alarms"][0]["id"] == "A0"


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda b, a, t: b[2].update(state="ASLEEP"), "state"),
        (lambda b, a, t: b[2].pop("monitor"), "monitor"),
        (lambda b, a, t: b[2].update(confidence=1.5), "confidence"),
        (lambda b, a, t: b[3].update(name="bed2"), "twice"),
        (lambda b, a, t: a[0].update(channels="T3-T5"), "channels"),
        (lambda b, a, t: a[0].update(onset=float("nan")), "NaN"),
        (lambda b, a, t: b.pop(), "shape"),
    ],
    ids=["state", "missing key", "confidence", "duplicate", "channels", "nan", "shape"],
)
def test_malformed_status_is_rejected(rng, change, match):
    beds, alarms, traces = ward(6, rng)
    frames = encode_status(0, 1.7e9, beds, alarms, traces)
    header = json.loads(frames[1])
    change(header["beds"], header["alarms"], traces)
    bad = [frames[0], json.dumps(header, allow_nan=True).encode(), frames[2]]
    with pytest.raises(MessageError, match=match):
        decode_status(bad)
    with pytest.raises(MessageError):  # the service finds out first
        encode_status(0, 1.7e9, header["beds"], header["alarms"], traces)


def test_status_decoder_refuses_other_kinds():
    alarm = encode("alarm", {"kind": "alarm", "seq": 0, "alarm": {}}, np.zeros(0, np.float32))
    with pytest.raises(MessageError, match="alarm"):
        decode_status(alarm)
    with pytest.raises(MessageError, match="data message on topic ward"):
        decode_status([b"ward", b'{"v":1,"kind":"data","seq":0}', b""])


def test_status_carries_unacknowledged_alarms_first(tmp_path, rng, clock):
    mgr = AlarmManager(tmp_path / "a.jsonl", clock=clock)
    for i in range(6):
        run_bed(mgr, f"bed{i}", seizure_probs(rng, 30, [(10, 20)]))  # raised and ended
    for i in (0, 1, 2, 4):
        mgr.acknowledge(f"A{i + 1}", "nurse.kim")
    shown = mgr.for_status(n=3)
    assert [a["id"] for a in shown] == ["A4", "A6", "A5"]  # unacknowledged, then the newest
    assert all(a["state"] == "ended" for a in shown)
    beds = [bed_record(f"bed{i}", "BCKG") for i in range(6)]
    header, _ = decode_status(encode_status(0, 1.7e9, beds, shown, np.zeros((6, 250))))
    assert header["alarms"][0]["offset"] == shown[0]["offset"]  # extra keys travel along
    mgr.close()


def test_a_disk_that_refuses_the_log_never_stops_the_alarm(tmp_path, rng, clock, monkeypatch):
    published = []
    mgr = AlarmManager(tmp_path / "a.jsonl", clock=clock, publish=lambda t, f: published.append(f))

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("rt_eeg.ward.alarms.os.fsync", full)
    _, changes = run_bed(mgr, "bed1", seizure_probs(rng, 30, [(10, 30)]))
    assert len(changes) == 1 and len(published) == 1 and mgr.active()
    assert "No space left" in mgr.error and str(tmp_path / "a.jsonl") in mgr.error
    monkeypatch.undo()
    mgr.acknowledge("A1", "nurse.kim")  # the disk is back: the next line clears the error
    assert mgr.error is None
    mgr.close()
