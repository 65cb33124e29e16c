"""Sources: shared conditioning, LSL input (metadata, channel map, gaps, errors), rotating
live outputs (parts + index == the offline outputs, torn tails, disk errors)."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from edf_factory import tuh_like, write_edf
from lsl_helpers import Publisher, pylsl, unique_name

from rt_eeg.errors import RtEegError
from rt_eeg.io.edf import open_recording
from rt_eeg.sources.lsl import LslSource, load_channel_map
from rt_eeg.sources.outlet import make_outlet

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def rec256(tmp_path_factory):
    path, _ = tuh_like(tmp_path_factory.mktemp("rec") / "r_s001_t000.edf", 30.0, 256,
                       rng=np.random.default_rng(3))  # fmt: skip
    return path


def _collect(src, until_s: float, timeout_s: float = 60.0):
    """Blocks from a live source until ``until_s`` of signal has arrived, then its tail."""
    blocks = []
    deadline = time.monotonic() + timeout_s
    for blk in src.blocks(25, idle_s=0.05):
        assert time.monotonic() < deadline, "the stream did not deliver in time"
        if blk is not None:
            blocks.append(blk)
        if src.received_s >= until_s:
            break
    return blocks + list(src.finish(25))


def test_lsl_stream_of_a_file_is_bit_identical_to_reading_the_file(rec256):
    name = unique_name()
    pub = Publisher(rec256, name, speed=50.0)
    pub.start()
    src = LslSource(name, resolve_timeout_s=20)
    try:
        assert src.stream_sfreq == 256 and src.montage == "01_tcp_ar" and len(src.ch_names) == 22
        blocks = _collect(src, 30.0)
    finally:
        src.close()
        pub.stop_flag.set()
    assert pub.error is None
    with open_recording(rec256) as rec:
        expected = rec.read()
    got = np.concatenate([b.data for b in blocks])
    assert [b.start for b in blocks] == list(np.cumsum([0] + [len(b.data) for b in blocks[:-1]]))
    assert not any(b.reset for b in blocks)
    assert got.shape == expected.shape and np.array_equal(got, expected)


def test_a_timestamp_gap_starts_a_new_segment_at_its_place(rec256):
    name = unique_name()
    # 0-12 s, 4 s of samples lost, 16-30 s: the second segment restarts the conditioning.
    pub = Publisher(rec256, name, speed=50.0, plan=[(0, 12, 0.0), (16, 30, 0.0)])
    pub.start()
    src = LslSource(name, resolve_timeout_s=20)
    try:
        blocks = _collect(src, 30.0)
    finally:
        src.close()
        pub.stop_flag.set()
    resets = [b for b in blocks if b.reset]
    assert len(resets) == 1 and resets[0].start == 16 * 250  # on the 0.1 s grid, at 16 s
    first = np.concatenate([b.data for b in blocks if b.start < resets[0].start])
    with open_recording(rec256) as rec:
        whole = rec.read()
    # The first segment ends where its samples end: equal to conditioning those 12 s alone.
    assert len(first) == 12 * 250
    assert np.allclose(first[:-100], whole[: 12 * 250 - 100], atol=1e-3)
    second = np.concatenate([b.data for b in blocks if b.start >= resets[0].start])
    assert len(second) == 14 * 250


def test_a_lost_stream_is_reported_and_a_restarted_outlet_is_picked_up(rec256):
    """The amplifier software stops (outlet gone) and starts again (same source id): the
    source says "no data", recovers the stream by itself, and marks the gap."""
    name = unique_name()
    with open_recording(rec256) as rec:
        data = np.concatenate(list(rec.native_blocks()))
        labels, fs = rec.input_labels, rec.native_sfreq
    t0 = pylsl.local_clock()

    def push(outlet, a_s, b_s):
        a, b = int(a_s * fs), int(b_s * fs)
        for i in range(a, b, 64):
            j = min(i + 64, b)
            outlet.push_chunk(np.ascontiguousarray(data[i:j]), t0 + (j - 1) / fs)

    outlet = make_outlet(name, labels, fs)
    src = LslSource(name, resolve_timeout_s=20)
    statuses, blocks = [], []
    try:
        push(outlet, 0, 10)
        it = src.blocks(25, idle_s=0.05)
        deadline = time.monotonic() + 60
        while src.received_s < 10 and time.monotonic() < deadline:
            blk = next(it)
            blocks += [blk] if blk is not None else []
        del outlet  # the amplifier software quits
        while not src.status.startswith("no data for 2") and time.monotonic() < deadline:
            blk = next(it)  # the rest of what arrived, then silence
            blocks += [blk] if blk is not None else []
            statuses.append(src.status)
        outlet = make_outlet(name, labels, fs)  # and comes back, 5 s of signal later
        rejoined = threading.Thread(target=outlet.wait_for_consumers, args=(30,))
        rejoined.start()
        while rejoined.is_alive():  # liblsl re-resolves the source id in the background
            assert next(it) is None and time.monotonic() < deadline
        push(outlet, 15, 30)
        while src.received_s < 30 and time.monotonic() < deadline:
            blk = next(it)
            blocks += [blk] if blk is not None else []
        blocks += list(src.finish(25))
    finally:
        src.close()
    assert any(st.startswith("no data for") for st in statuses) and src.status == "ok"
    resets = [b.start for b in blocks if b.reset]
    assert resets == [15 * 250]
    assert sum(len(b.data) for b in blocks) == 25 * 250


def _outlet(labels, units="microvolts", fs=500.0):
    name = unique_name()
    return name, make_outlet(name, labels, fs, units=units)


def test_channel_map_makes_amplifier_labels_usable(tmp_path):
    elec = "Fp1 Fp2 F7 F3 Fz F4 F8 T3 C3 Cz C4 T4 T5 P3 Pz P4 T6 O1 O2 A1 A2".split()
    name, outlet = _outlet([f"Ch{i + 1}" for i in range(len(elec))], units="")
    with pytest.raises(RtEegError, match=r"only 0 channels \(TCP or reduced\).*channel map"):
        LslSource(name, resolve_timeout_s=20)
    cmap = tmp_path / "amp.toml"
    cmap.write_text('unit = "mV"\n[channels]\n' + "".join(f'"Ch{i + 1}" = "{e}"\n' for i, e in enumerate(elec)))
    src = LslSource(name, channel_map=cmap, resolve_timeout_s=20)
    try:
        assert len(src.ch_names) == 22 and src.montage == "01_tcp_ar"
        assert np.all(src._scale == 1e3)  # millivolts from the map
    finally:
        src.close()
        del outlet


def test_channel_map_to_eight_electrodes_gives_the_reduced_montage(tmp_path):
    # An ICU amplifier with 8 scalp electrodes behind numbered labels, at 100 Hz.
    elec = "Fp1 Fp2 C3 C4 T3 T4 O1 O2".split()
    name, outlet = _outlet([f"Ch{i + 1}" for i in range(len(elec))] + ["Ch9"], fs=100.0)
    cmap = tmp_path / "icu.toml"
    cmap.write_text("[channels]\n" + "".join(f'"Ch{i + 1}" = "{e}"\n' for i, e in enumerate(elec)) + '"Ch9" = ""\n')
    src = LslSource(name, channel_map=cmap, resolve_timeout_s=20)
    try:
        assert src.montage == "reduced" and len(src.ch_names) == 11
        assert src.ch_names[:3] == ["T3-C3", "C4-T4", "FP1-T3"] and src.sfreq == 250
    finally:
        src.close()
        del outlet


def test_channel_map_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[channels]\n"Ch1" = "Nose"\n')
    with pytest.raises(RtEegError, match=r"bad\.toml: channel 'Ch1' maps to 'Nose'"):
        load_channel_map(bad)
    bad.write_text('unit = "furlongs"\n[channels]\n')
    with pytest.raises(RtEegError, match="unknown unit 'furlongs'"):
        load_channel_map(bad)
    with pytest.raises(RtEegError, match="channel map not found"):
        load_channel_map(tmp_path / "none.toml")


def test_unknown_unit_and_too_few_channels_are_one_line_errors():
    elec = "Fp1 Fp2 F7 F3 F4 F8 T3 C3 Cz C4 T4 T5 P3 P4 T6 O1 O2".split()
    name, outlet = _outlet(elec, units="furlongs")
    with pytest.raises(RtEegError) as err:
        LslSource(name, resolve_timeout_s=20)
    assert str(err.value) == f"lsl:{name}: channel 'Fp1' has unknown unit 'furlongs'"
    name2, outlet2 = _outlet(["Fp1", "F7", "T3"])
    with pytest.raises(RtEegError, match=r"only 2 channels \(TCP or reduced\) .* need 4") as err:
        LslSource(name2, resolve_timeout_s=20)
    assert "\n" not in str(err.value)
    with pytest.raises(RtEegError, match="no LSL stream found within 0.5 s"):
        LslSource(unique_name("absent"), resolve_timeout_s=0.5)
    del outlet, outlet2


def test_live_cli_reports_a_bad_stream_in_one_line(tmp_path):
    import os
    import subprocess
    import sys

    name, outlet = _outlet("Fp1 Fp2 F7 F3 F4 F8 T3 C3 Cz C4".split(), units="kelvin")
    proc = subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", "live", "--lsl", name, "--out", str(tmp_path / "o"),
         "--no-monitor", "--resolve-timeout", "20"],
        capture_output=True, text=True, timeout=120, env=os.environ.copy(),
    )  # fmt: skip
    del outlet
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert lines == [f"rt-eeg: lsl:{name}: channel 'Fp1' has unknown unit 'kelvin'"] or (
        len(lines) == 1 and "unknown unit 'kelvin'" in lines[0]
    ), proc.stderr
    assert not (tmp_path / "o").exists()  # nothing written for a bad input


def test_native_blocks_refuse_mixed_rates(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "mixed.edf"
    labels = ["EEG FP1-REF", "EEG F7-REF", "EEG T3-REF", "EEG T5-REF", "EEG O1-REF"]
    rows = [rng.normal(0, 10, 2560)] + [rng.normal(0, 10, 2500) for _ in labels[1:]]
    write_edf(path, rows, labels, [256, 250, 250, 250, 250])
    with open_recording(path) as rec, pytest.raises(RtEegError, match="different rates"):
        rec.native_blocks()


# -- rotating live outputs ------------------------------------------------------------------


def _decisions(hours: float, seed: int = 0):
    """Decisions of the real postprocessor over hours of made-up probabilities, with
    seizure-like stretches and a gap (as a live run makes them)."""
    from rt_eeg.postprocess import postprocess_recording

    rng = np.random.default_rng(seed)
    n = int(hours * 3600)
    probs = rng.uniform(0, 0.3, (n, 4))
    for onset in rng.integers(0, n - 200, 12):
        probs[onset : onset + rng.integers(20, 120)] += 0.6
    starts = np.arange(n, dtype=float)
    keep = (starts < 4000) | (starts >= 4030)  # a 30 s outage
    return postprocess_recording(starts[keep], np.clip(probs[keep], 0, 1), ["a", "b", "c", "d"])


def test_rotated_hours_concatenate_to_the_offline_outputs(tmp_path):
    from rt_eeg.io.annotations import read_hyp
    from rt_eeg.io.rotating import read_index, read_part
    from rt_eeg.outputs import LiveOutputs, write_outputs

    decisions = _decisions(3.0)
    duration = decisions[-1].stop
    live = LiveOutputs(tmp_path / "live", "run", rotate_s=600.0)
    for d in decisions:
        live.add(d)
    live.close(duration)
    write_outputs(tmp_path / "off", "run", decisions, duration)
    index = read_index(tmp_path / "live" / "run.index.json")
    assert index["closed"] and len(index["parts"]) == 18
    assert [p["start"] for p in index["parts"]] == [600.0 * k for k in range(18)]
    header = live.kinds["hyp"].header
    rows = [r for p in index["parts"] for r in read_part(tmp_path / "live" / p["hyp"], header)]
    off_rows = [ln for ln in (tmp_path / "off" / "run.hyp").read_text().splitlines()
                if ln and not ln.startswith("#")][1:]  # fmt: skip
    assert rows == off_rows
    for suffix in (".hyp", ".csv_bi", ".tse", "_events.tsv"):
        assert (tmp_path / "live" / f"run{suffix}").read_text() == (tmp_path / "off" / f"run{suffix}").read_text()
    epochs, _ = read_hyp(tmp_path / "live" / "run.hyp")
    assert [e.label for e in epochs[4000:4030]] == ["na"] * 30
    events = live.kinds["events"].records()
    off_events = (tmp_path / "off" / "run_events.tsv").read_text().splitlines()[1:]
    assert len(events) >= 5  # the seizure-like stretches were detected as they ended
    assert [e.split("\t")[:4] for e in events] == [e.split("\t")[:4] for e in off_events]


def test_a_torn_last_line_is_recovered_and_the_run_resumes(tmp_path):
    from rt_eeg.io.rotating import read_part
    from rt_eeg.outputs import LiveOutputs

    decisions = _decisions(0.2, seed=2)
    live = LiveOutputs(tmp_path, "run", rotate_s=300.0)
    for d in decisions[:400]:
        live.add(d)
    for w in live.kinds.values():  # a crash: files left as they are, no close
        w.sync()
    part = tmp_path / "run.p00001.decisions.jsonl"
    with open(part, "a") as fh:
        fh.write('{"start": 400.0, "stop": 4')  # the write the power cut tore
    with open(tmp_path / "run.p00001.hyp", "a") as fh:
        fh.write("400.0000,40")
    again = LiveOutputs(tmp_path, "run", rotate_s=300.0)  # a restarted postprocessor
    assert again.last_stop == decisions[399].stop
    for d in decisions[400:]:
        again.add(d)
    again.close(decisions[-1].stop)
    got = again.decisions()
    assert [(d.start, d.label) for d in got] == [(d.start, d.label) for d in decisions]
    assert len(read_part(tmp_path / "run.p00001.hyp", again.kinds["hyp"].header)) == 300


def test_an_unwritable_folder_is_one_error_and_detection_continues(tmp_path):
    from rt_eeg.outputs import LiveOutputs

    decisions = _decisions(0.1, seed=4)
    blocker = tmp_path / "out"
    blocker.write_text("a file where the output folder should be")
    live = LiveOutputs(blocker, "run", rotate_s=60.0)
    for d in decisions[:50]:
        live.add(d)  # must not raise
    assert live.error and str(blocker) in live.error and "\n" not in live.error
    blocker.unlink()
    blocker.mkdir()
    for w in live.kinds.values():
        w._next_retry = 0.0  # the next retry is due (normally after 5 s)
    for d in decisions[50:]:
        live.add(d)
    assert live.error is None
    live.close(decisions[-1].stop)
    assert [d.start for d in live.decisions()] == [d.start for d in decisions]  # held, then written
    assert json.loads((blocker / "run.index.json").read_text())["closed"]


def test_rotating_signal_splits_at_parts_and_gaps_and_survives_a_bad_folder(tmp_path):
    from rt_eeg.io.rotating import RotatingSignal, read_index
    from rt_eeg.io.signalfile import read_signal

    rng = np.random.default_rng(5)
    x = rng.normal(0, 10, (250 * 50, 3)).astype(np.float32)
    sig = RotatingSignal(tmp_path, "run", 250.0, ["a", "b", "c"], rotate_s=20.0)
    for a in range(0, 250 * 30, 25):  # 0-30 s
        sig.append(a, x[a : a + 25])
    for a in range(250 * 35, 250 * 50, 250):  # a 5 s gap, then 35-50 s in 1 s blocks
        sig.append(a, x[a : a + 250])
    sig.close()
    pieces = read_index(tmp_path / "run.signal-index.json")["pieces"]
    assert [(p["t0"], p["n_samples"]) for p in pieces] == [(0.0, 5000), (20.0, 2500), (35.0, 1250), (40.0, 2500)]
    data, sfreq, _ = read_signal(tmp_path / "run.p00001")
    assert np.array_equal(data, x[5000:7500])
    assert np.array_equal(read_signal(tmp_path / "run.p00001.g1")[0], x[8750:10000])

    blocker = tmp_path / "blocked"
    blocker.write_text("not a folder")
    bad = RotatingSignal(blocker, "run", 250.0, ["a", "b", "c"], rotate_s=20.0)
    bad.append(0, x[:250])  # must not raise
    assert bad.error and "cannot write the signal file" in bad.error and "\n" not in bad.error
    bad.close()


def test_a_signal_piece_left_open_by_a_crash_is_recovered(tmp_path):
    from rt_eeg.io.rotating import RotatingSignal, read_index
    from rt_eeg.io.signalfile import read_signal

    x = np.random.default_rng(6).normal(0, 10, (2500, 2)).astype(np.float32)
    sig = RotatingSignal(tmp_path, "run", 250.0, ["a", "b"], rotate_s=60.0)
    for a in range(0, 1000, 25):
        sig.append(a, x[a : a + 25])
    with open(tmp_path / ".run.p00000.signal.f32.part", "ab") as fh:
        fh.write(b"\x00\x01\x02")  # the crash tore the last sample
    # No close: a restarted source opens the same run and carries on after a gap.
    again = RotatingSignal(tmp_path, "run", 250.0, ["a", "b"], rotate_s=60.0)
    assert np.array_equal(read_signal(tmp_path / "run.p00000")[0], x[:1000])
    again.append(1500, x[1500:2500])
    again.close()
    pieces = read_index(tmp_path / "run.signal-index.json")["pieces"]
    assert [(p["file"], p["n_samples"]) for p in pieces] == [
        ("run.p00000.signal.f32", 1000), ("run.p00000.g1.signal.f32", 1000)]
    assert np.array_equal(read_signal(tmp_path / "run.p00000.g1")[0], x[1500:2500])


def test_a_new_live_run_never_appends_to_an_earlier_one(tmp_path):
    from rt_eeg.config import PipelineConfig
    from rt_eeg.pipeline.supervisor import Supervisor

    elec = "Fp1 Fp2 F7 F3 Fz F4 F8 T3 C3 Cz C4 T4 T5 P3 Pz P4 T6 O1 O2".split()
    name, outlet = _outlet(elec)
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "model.keras").write_bytes(b"")  # only its presence is checked here
    out = tmp_path / "out"
    out.mkdir()
    (out / "ward3.index.json").write_text("{}")
    spec = {"kind": "lsl", "name": name, "resolve_timeout_s": 20}
    with pytest.raises(RtEegError, match="a live run named 'ward3' already wrote here"):
        Supervisor(spec, out, speed=None, config=PipelineConfig(model=str(tmp_path / "model")), name="ward3")
    assert sorted(p.name for p in out.iterdir()) == ["ward3.index.json"]  # nothing touched
    del outlet


def test_a_stream_whose_rate_changes_is_refused_in_one_line(rec256):
    """An outlet declaring 256 Hz whose samples come 1/512 s apart (an amplifier restarted at
    another rate behind the same stream) must not be analysed on the old time line."""
    name = unique_name()
    with open_recording(rec256) as rec:
        outlet = make_outlet(name, rec.input_labels, 256.0)
        n_in = len(rec.input_labels)
    src = LslSource(name, resolve_timeout_s=20)
    try:
        t0 = pylsl.local_clock()
        x = np.random.default_rng(0).normal(0, 20, (512, n_in)).astype(np.float32)
        for k in range(12):  # 12 s of stamps at 512 Hz
            stamps = (t0 + (k * 512 + np.arange(512)) / 512.0).tolist()
            outlet.push_chunk(x, stamps)
        with pytest.raises(RtEegError) as err:
            _collect(src, 30.0, timeout_s=30)
        assert "stream rate changed: samples arrive at 512 Hz, the stream declares 256 Hz" in str(err.value)
        assert str(err.value).startswith(f"lsl:{name}:") and "\n" not in str(err.value)
    finally:
        src.close()
