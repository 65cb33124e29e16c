"""Live pipeline: wire format, identity with the offline detector, restart, Ctrl-C shutdown."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import zmq
from pipeline_helpers import killer

from rt_eeg.config import PipelineConfig
from rt_eeg.io.annotations import read_csv_bi, read_hyp, read_tse
from rt_eeg.io.signalfile import read_signal
from rt_eeg.pipeline.messages import MessageError, decode, encode
from rt_eeg.pipeline.transport import Receiver, make_socket


def test_messages_round_trip_and_reject_malformed():
    frame = np.arange(25 * 3, dtype=np.float32).reshape(25, 3)
    msg = decode(encode("signal", {"kind": "data", "seq": 4, "t0": 1.5}, frame))
    assert msg.topic == "signal" and msg.seq == 4 and np.array_equal(msg.payload, frame)
    good = encode("signal", {"kind": "data", "seq": 0, "t0": 0.0}, frame)
    bad_cases = [
        good[:2],
        [b"nope", good[1], good[2]],
        [good[0], b"{not json", good[2]],
        [good[0], good[1], good[2][:-4]],
        [good[0], json.dumps({"v": 1, "kind": "data", "seq": "x"}).encode(), good[2]],
        encode(
            "signal", {"kind": "data", "seq": 0, "t0": 0.0}, np.full((2, 2), np.nan, np.float32)
        ),
        [b"signal", b'{"v": 1, "kind": "eos", "seq": 1}', b"payload"],
    ]
    for parts in bad_cases:
        with pytest.raises(MessageError):
            decode(parts)


def test_receiver_counts_malformed_and_sequence_gaps(tmp_path):
    ctx = zmq.Context()
    try:
        pull = make_socket(ctx, zmq.PULL, f"ipc://{tmp_path}/x", bind=True)
        push = make_socket(ctx, zmq.PUSH, f"ipc://{tmp_path}/x", bind=False)
        rx = Receiver(pull, "test")
        frame = np.zeros((25, 2), np.float32)
        push.send_multipart(
            encode("signal", {"kind": "data", "seq": 0, "t0": 0.0, "stream": "s"}, frame)
        )
        push.send_multipart([b"garbage"])
        push.send_multipart(
            encode("signal", {"kind": "data", "seq": 2, "t0": 0.2, "stream": "s"}, frame)
        )
        got = [rx.recv(2000) for _ in range(3)]
        assert [m.seq if m else None for m in got] == [0, None, 2]
        assert rx.malformed == 1 and rx.gaps == [
            {"stream": "s", "incarnation": 0, "expected_seq": 1, "got_seq": 2, "t": 0.2}
        ]
        push.close(linger=0)
        pull.close()
    finally:
        ctx.term()


def _run(edf, out, model_dir, speed=None, on_event=None):
    from rt_eeg.pipeline.supervisor import Supervisor

    cfg = PipelineConfig(model=str(model_dir), device="cpu")
    return Supervisor(
        edf, out, speed=speed, config=cfg, monitor=None, on_event=on_event
    ).run_pipeline()


def test_replay_max_speed_equals_offline_detector(
    recording, model_dir, offline_detection, tmp_path
):
    from rt_eeg.outputs import write_outputs

    metrics = _run(recording, tmp_path / "live", model_dir)
    res = offline_detection
    write_outputs(tmp_path / "off", recording.stem, res.decisions, res.duration)
    for suffix in (".hyp", ".csv_bi", ".tse", "_events.tsv"):
        live = (tmp_path / "live" / f"{recording.stem}{suffix}").read_text()
        off = (tmp_path / "off" / f"{recording.stem}{suffix}").read_text()
        assert live == off, suffix
    epochs, duration = read_hyp(tmp_path / "live" / f"{recording.stem}.hyp")
    assert duration == pytest.approx(45.0) and len(epochs) == 45
    assert (
        metrics["frames_streamed"] == 450
        and metrics["restarts"] == []
        and not metrics["detection_path_gaps"]
    )
    data, sfreq, ch_names = read_signal(tmp_path / "live" / recording.stem)
    assert data.shape == (45 * 250, 22) and sfreq == 250
    lat = metrics["end_to_end_latency_ms"]
    assert lat["n"] > 0 and lat["p95"] >= lat["p50"] > 0
    assert metrics["time_to_first_decision_s"] > 0


def test_replay_with_candidate_onset_options_equals_offline(recording, model_dir, tmp_path):
    """The dual-threshold and spatial-extent onsets (issue #12) decide the same live and offline."""
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.outputs import write_outputs
    from rt_eeg.pipeline.supervisor import Supervisor
    from rt_eeg.postprocess import PostprocessConfig

    # the untrained model scores ~0.6 everywhere: thresholds there make every rule matter
    base = PostprocessConfig(threshold_on=0.62, threshold_off=0.6, onset_epochs=2, offset_epochs=1,
                             min_duration_epochs=1)  # fmt: skip
    cfg = base.replace(early_threshold=0.605, early_epochs=2, min_channels=4, channel_level=0.6)
    decoder = Decoder(model_dir, device="cpu")
    res = detect_recording(recording, decoder, cfg)
    labels = [d.label for d in res.decisions]
    assert "seiz" in labels and "bckg" in labels
    assert labels != [d.label for d in detect_recording(recording, decoder, base).decisions]
    pcfg = PipelineConfig(model=str(model_dir), device="cpu", postprocess=cfg)
    Supervisor(recording, tmp_path / "live", config=pcfg, monitor=None).run_pipeline()
    write_outputs(tmp_path / "off", recording.stem, res.decisions, res.duration)
    for suffix in (".hyp", ".csv_bi", "_events.tsv"):
        live = (tmp_path / "live" / f"{recording.stem}{suffix}").read_text()
        assert live == (tmp_path / "off" / f"{recording.stem}{suffix}").read_text(), suffix


def test_replay_with_cross_channel_table_in_the_model_folder_equals_offline(
    recording, model_dir, offline_detection, tmp_path
):
    """A [cross_channel] table in the model's postprocess.toml travels to the live postprocessor."""
    import shutil

    from rt_eeg.config import load_postprocess_config, save_postprocess_config
    from rt_eeg.cross_channel import CrossChannelConfig
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.outputs import write_outputs
    from rt_eeg.postprocess import PostprocessConfig

    # Hand-made weights: score = sigmoid(20 * (logit of the newest channel mean - its median
    # over the recording)), so the untrained model's ~0.6 everywhere gives both labels.
    p = offline_detection.probs.astype(np.float64)
    smoothed = np.r_[p[:1], (p[1:] + p[:-1]) / 2].mean(1)
    centre = float(np.median(np.log(smoothed / (1 - smoothed))))
    t, f = 8, 6
    w1 = np.zeros((t * f, 2))
    w1[-1] = [20.0, -20.0]
    cc = CrossChannelConfig.from_arrays(w1, [-20.0 * centre, 20.0 * centre], [1.0, -1.0], 0.0,
                                        epochs=t, top_m=4)  # fmt: skip
    model = tmp_path / "model_cc"
    shutil.copytree(model_dir, model)
    save_postprocess_config(model, PostprocessConfig(threshold_on=0.5, threshold_off=0.4, onset_epochs=1,
                                                     offset_epochs=1, min_duration_epochs=1,
                                                     cross_channel=cc))  # fmt: skip
    res = detect_recording(recording, Decoder(model, device="cpu"), load_postprocess_config(model))
    labels = [d.label for d in res.decisions]
    assert "seiz" in labels and "bckg" in labels
    _run(recording, tmp_path / "live", model)
    write_outputs(tmp_path / "off", recording.stem, res.decisions, res.duration)
    for suffix in (".hyp", ".csv_bi", "_events.tsv"):
        live = (tmp_path / "live" / f"{recording.stem}{suffix}").read_text()
        assert live == (tmp_path / "off" / f"{recording.stem}{suffix}").read_text(), suffix


def test_killing_feature_extractor_mid_stream_is_survived(recording, model_dir, tmp_path):
    # Kill the feature extractor once the source has streamed ~15 s of signal.
    on_event, killed = killer(tmp_path, "features", 150)
    metrics = _run(recording, tmp_path / "live", model_dir, speed=5.0, on_event=on_event)
    assert killed.get("pid"), "the feature extractor was never killed"
    assert [r["stage"] for r in metrics["restarts"]] == ["features"]
    name = recording.stem
    epochs, duration = read_hyp(tmp_path / "live" / f"{name}.hyp")
    labels = [e.label for e in epochs]
    assert len(epochs) == 45 and epochs[-1].stop == pytest.approx(duration)
    assert "na" in labels, "the gap must be recorded as not analysed"
    assert (
        labels.count("na") < 20 and labels[-5:].count("na") == 0
    )  # it carried on after the restart
    read_csv_bi(tmp_path / "live" / f"{name}.csv_bi")
    read_tse(tmp_path / "live" / f"{name}.tse")
    assert read_signal(tmp_path / "live" / name)[0].shape[0] == 45 * 250


def test_ctrl_c_flushes_outputs_and_leaves_no_orphans(recording, model_dir, tmp_path):
    out = tmp_path / "live"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rt_eeg.cli", "replay", str(recording), "--out", str(out), "--speed", "1",
         "--no-monitor", "--model", str(model_dir), "--device", "cpu"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    line = ""
    while "streaming" not in line and time.monotonic() < deadline:
        line = proc.stdout.readline()
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(60)
    assert rc == 130
    epochs, duration = read_hyp(out / f"{recording.stem}.hyp")
    assert duration == pytest.approx(45.0)
    labels = [e.label for e in epochs]
    assert 0 < sum(lab != "na" for lab in labels) < 20  # analysed up to the interrupt
    assert json.loads((out / "metrics.json").read_text())["interrupted"] is True
    left = subprocess.run(
        ["pgrep", "-f", f"rt_eeg.pipeline.stages .*{out}"], capture_output=True, text=True
    )
    assert left.stdout.strip() == ""


def test_a_stage_that_cannot_start_fails_the_run_with_its_error(recording, model_dir, tmp_path):
    import shutil

    from rt_eeg.errors import RtEegError
    from rt_eeg.model_files import rehash_model

    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    # consistent hashes (the supervisor's pre-flight passes) but a file only the stage reads
    (broken / "model.tflite").unlink()
    (broken / "model.keras").write_bytes(b"not a keras file")
    rehash_model(broken)
    with pytest.raises(RtEegError, match="decoder stage failed to start"):
        _run(recording, tmp_path / "live", broken)
    left = subprocess.run(
        ["pgrep", "-f", f"rt_eeg.pipeline.stages .*{tmp_path}"], capture_output=True, text=True
    )
    assert left.stdout.strip() == ""


def test_source_dying_mid_stream_still_writes_valid_outputs(recording, model_dir, tmp_path):
    on_event, killed = killer(tmp_path, "source", 100)
    metrics = _run(recording, tmp_path / "live", model_dir, speed=5.0, on_event=on_event)
    assert killed and any(e["stage"] == "source" for e in metrics["errors"])
    epochs, duration = read_hyp(tmp_path / "live" / f"{recording.stem}.hyp")
    labels = [e.label for e in epochs]
    assert duration == pytest.approx(45.0) and labels[-1] == "na" and labels.count("na") < 45
    read_csv_bi(tmp_path / "live" / f"{recording.stem}.csv_bi")


def test_max_speed_on_ten_minutes_loses_nothing(model_dir, tmp_path):
    """Regression: stages that exited right after end-of-stream lost what the next stage had
    not read yet (ipc, full queues). Stages now wait for the supervisor's release."""
    sample = Path(__file__).resolve().parents[1] / "data_samples" / "sample_s001_t000.edf"
    metrics = _run(sample, tmp_path / "live", model_dir)
    epochs, _ = read_hyp(tmp_path / "live" / "sample_s001_t000.hyp")
    assert metrics["n_decisions"] == 600 and [e.label for e in epochs].count("na") == 0
    assert metrics["frames_streamed"] == 6000 and not metrics["detection_path_gaps"]


def test_killing_postprocessor_keeps_every_decision_already_made(recording, model_dir, tmp_path):
    on_event, killed = killer(tmp_path, "postprocess", 250)
    metrics = _run(recording, tmp_path / "live", model_dir, speed=5.0, on_event=on_event)
    assert killed and [r["stage"] for r in metrics["restarts"]] == ["postprocess"]
    epochs, _ = read_hyp(tmp_path / "live" / f"{recording.stem}.hyp")
    labels = [e.label for e in epochs]
    assert len(labels) == 45 and labels[:20].count("na") == 0  # journalled before the kill
    assert labels[-5:].count("na") == 0  # and it carried on after the restart
    # Regression (issue #13): time to first decision counts from launch to the first decision
    # ever, not from the restarted postprocessor's first one.
    restart_after_launch = metrics["restarts"][0]["wall_time"] - metrics["launch_wall_time"]
    assert metrics["time_to_first_decision_s"] < restart_after_launch
