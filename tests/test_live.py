"""``rt-eeg live`` on an LSL stream: same decisions as offline, outages are 'na' and the run
resumes, outputs rotate while the run goes on. The amplifier is an LSL outlet in this test
process, on this machine only (see lsl_helpers)."""

from __future__ import annotations

import threading

import pytest
from lsl_helpers import Publisher, unique_name

from rt_eeg.config import PipelineConfig
from rt_eeg.io.annotations import read_hyp

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def offline(offline_detection, tmp_path_factory):
    """The offline detector's outputs, named as the live runs name theirs ('amp')."""
    from rt_eeg.outputs import write_outputs

    out = tmp_path_factory.mktemp("off")
    write_outputs(out, "amp", offline_detection.decisions, offline_detection.duration)
    return out


def _live(name, out, model_dir, *, publisher, stop_after_s=45.0, rotate_s=15.0):
    from rt_eeg.pipeline.supervisor import Supervisor

    events: list = []

    def on_event(kind, stage, info):
        events.append((kind, stage, info))
        if kind == "go":
            publisher.go.set()

    spec = {"kind": "lsl", "name": name, "resolve_timeout_s": 30.0}
    # A generous heartbeat deadline: on a loaded 2-core machine a stage can miss 2 s, and a
    # restart (honest, but an 'na' gap) would make the exact comparison meaningless.
    cfg = PipelineConfig(model=str(model_dir), device="cpu", dead_after_s=15.0)
    sup = Supervisor(spec, out, speed=None, config=cfg,
                     monitor=None, on_event=on_event, name="amp", rotate_s=rotate_s,
                     stop_after_s=stop_after_s)  # fmt: skip
    try:
        metrics = sup.run_pipeline()
    finally:
        publisher.stop_flag.set()
    assert publisher.error is None
    return metrics, events


def test_lsl_live_run_equals_offline_and_rotates(recording, model_dir, offline, tmp_path):
    from rt_eeg.io.rotating import read_index, read_part

    name = unique_name()
    pub = Publisher(recording, name, speed=5.0, go=threading.Event())
    pub.start()
    metrics, _ = _live(name, tmp_path / "live", model_dir, publisher=pub)
    assert metrics["restarts"] == [] and metrics["errors"] == []
    assert metrics["duration_s"] == pytest.approx(45.0) and metrics["n_decisions"] == 45
    for suffix in (".hyp", ".csv_bi", ".tse", "_events.tsv"):
        live = (tmp_path / "live" / f"amp{suffix}").read_text()
        assert live == (offline / f"amp{suffix}").read_text(), suffix
    # The parts written during the run (15 s each here) concatenate to the same HYP.
    index = read_index(tmp_path / "live" / "amp.index.json")
    assert [p["part"] for p in index["parts"]] == [0, 1, 2] and index["closed"]
    rows = [r for p in index["parts"]
            for r in read_part(tmp_path / "live" / p["hyp"], ["start_time,stop_time,label,confidence"])]  # fmt: skip
    assert rows == (offline / "amp.hyp").read_text().splitlines()[4:]
    sig = read_index(tmp_path / "live" / "amp.signal-index.json")
    assert [p["n_samples"] for p in sig["pieces"]] == [15 * 250] * 3


def test_an_outage_is_not_analysed_and_the_run_resumes(recording, model_dir, offline, tmp_path):
    name = unique_name()
    # 20 s, then the amplifier goes silent for 5 s (wall clock) and the 5 s of signal in
    # between never arrive; then the rest.
    pub = Publisher(recording, name, speed=5.0, plan=[(0, 20, 5.0), (25, 45, 0.0)], go=threading.Event())
    pub.start()
    metrics, _ = _live(name, tmp_path / "live", model_dir, publisher=pub)
    epochs, duration = read_hyp(tmp_path / "live" / "amp.hyp")
    off, _ = read_hyp(offline / "amp.hyp")
    labels = [e.label for e in epochs]
    assert duration == pytest.approx(45.0) and len(epochs) == 45
    assert labels[20:25] == ["na"] * 5  # never a decision for time that was not analysed
    assert [e.label for e in epochs[:18]] == [e.label for e in off[:18]]  # same as offline before
    assert "na" not in labels[-10:]  # resumed by itself
    assert metrics["restarts"] == []  # a gap is not a failure
    log = (tmp_path / "live" / ".run" / "source.log").read_text()
    assert "source status: no data for" in log  # what the monitor was told


def test_live_cli_runs_until_ctrl_c_against_rt_eeg_stream(recording, model_dir, tmp_path):
    """The documented two-terminal use: ``rt-eeg stream`` in one, ``rt-eeg live`` in another;
    the live run has no end: parts appear while it runs, Ctrl-C ends it with the outputs."""
    import os
    import signal
    import subprocess
    import sys
    import time

    name = unique_name()
    env = os.environ.copy()
    out = tmp_path / "o"
    streamer = subprocess.Popen(
        [sys.executable, "-m", "rt_eeg.cli", "stream", str(recording), "--name", name, "--speed", "2",
         "--loop", "--wait-s", "120"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    live = subprocess.Popen(
        [sys.executable, "-m", "rt_eeg.cli", "live", "--lsl", name, "--out", str(out),
         "--no-monitor", "--model", str(model_dir), "--device", "cpu", "--rotate-min", "0.25",
         "--resolve-timeout", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while not (out / f"{name}.p00001.hyp").is_file():  # more than 15 s decided, still running
            assert live.poll() is None and time.monotonic() < deadline, live.stdout.read()
            time.sleep(0.2)
        assert (out / f"{name}.index.json").is_file() and not (out / f"{name}.hyp").exists()
        live.send_signal(signal.SIGINT)
        text, _ = live.communicate(timeout=90)
    finally:
        streamer.terminate()
        streamer.wait(30)
        if live.poll() is None:
            live.kill()
    assert live.returncode == 0, text
    epochs, duration = read_hyp(out / f"{name}.hyp")
    assert duration >= 15.0 and len(epochs) >= 15 and [e.label for e in epochs].count("na") < 5


def test_the_monitor_shows_a_stage_status_until_it_clears(tmp_path):
    from rt_eeg.monitor.feed import MonitorFeed
    from rt_eeg.pipeline.messages import encode

    feed = MonitorFeed(f"ipc://{tmp_path}/display")
    try:
        def status(topic, seq, text):
            feed.handle(encode(topic, {"kind": "heartbeat", "stream": topic, "seq": seq, "status": text}))

        status("signal", 0, "no data for 3 s")
        status("decision", 0, "/data/out: cannot write (No space left on device); detection continues")
        assert "no data for 3 s" in feed.status_text() and "No space left" in feed.status_text()
        status("signal", 1, "ok")
        assert "no data" not in feed.status_text() and "No space left" in feed.status_text()
    finally:
        feed.close()
