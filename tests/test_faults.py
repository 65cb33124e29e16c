"""Process faults on the live pipeline: stages killed or paused, the monitor killed, the
supervisor stopped by SIGTERM/SIGHUP or killed. Each run asserts complete, valid outputs
(HYP covering the recording, lost time ``na``, never background), no process and no ipc
folder left behind, and the exit code. Killing the features, postprocess and source stages
alone is covered in ``test_pipeline.py``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from pipeline_helpers import killer, pids_of, source_passed

from rt_eeg.config import PipelineConfig
from rt_eeg.io.annotations import read_csv_bi, read_hyp, read_tse

pytestmark = pytest.mark.timeout(150)


def _supervise(edf, out, model_dir, *, speed=5.0, on_event=None, monitor=None):
    from rt_eeg.pipeline.supervisor import Supervisor

    cfg = PipelineConfig(model=str(model_dir), device="cpu")
    sup = Supervisor(edf, out, speed=speed, config=cfg, monitor=monitor, on_event=on_event)
    return sup, sup.run_pipeline()


def _check_outputs(out: Path, name: str, duration: float = 45.0) -> list[str]:
    """HYP, csv_bi and tse parse and cover the recording; returns the HYP labels."""
    epochs, dur = read_hyp(out / f"{name}.hyp")
    assert dur == pytest.approx(duration) and epochs[-1].stop == pytest.approx(duration)
    read_csv_bi(out / f"{name}.csv_bi")
    read_tse(out / f"{name}.tse")
    labels = [e.label for e in epochs]
    assert len(labels) == int(np.ceil(duration)) and set(labels) <= {"bckg", "seiz", "na"}
    return labels


def _no_leftovers(out: Path, ipc_dir: str | None = None) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = subprocess.run(["pgrep", "-f", str(out)], capture_output=True, text=True).stdout
        left = [p for p in left.split() if int(p) != os.getpid()]
        if not left:
            break
        time.sleep(0.2)
    assert not left, f"processes left behind: {left}"
    if ipc_dir:
        assert not Path(ipc_dir).exists(), "ipc folder left behind"


def test_killed_decoder_restarts_once_and_is_given_its_start_up_time(
    recording, model_dir, tmp_path
):
    """Regression (issue #15): a restarted decoder was killed again 2 s later while still
    importing TensorFlow, forever. It must be restarted once and carry on."""
    import zmq

    from rt_eeg.pipeline.supervisor import Supervisor
    from rt_eeg.pipeline.transport import make_socket

    kill, killed = killer(tmp_path, "decoder", 100)
    cfg = PipelineConfig(model=str(model_dir), device="cpu")
    sup = Supervisor(recording, tmp_path / "live", speed=5.0, config=cfg)

    def on_event(kind, who, info):
        if kind == "go":  # three malformed messages for the first incarnation to count
            ctx = zmq.Context.instance()
            sock = make_socket(ctx, zmq.PUSH, sup.endpoints["decoder_in"], bind=False)
            for _ in range(3):
                sock.send_multipart([b"features", b"{", b""])
            sock.close()
        kill(kind, who, info)

    sup.on_event = on_event
    metrics = sup.run_pipeline()
    assert killed.get("pid"), "the decoder was never killed"
    assert [r["stage"] for r in metrics["restarts"]] == ["decoder"]
    # Regression (issue #13): only the last incarnation's count was reported (0).
    assert metrics["malformed_messages"]["decoder"] == 3
    labels = _check_outputs(tmp_path / "live", recording.stem)
    assert labels[-5:].count("na") == 0, "it carried on after the restart"
    assert metrics["outputs_written_by"] == "postprocess"
    _no_leftovers(tmp_path)


def test_two_stages_killed_at_once(recording, model_dir, tmp_path):
    killed: dict = {}

    def on_event(kind, who, info):
        if source_passed(kind, who, info, 120) and not killed:
            for stage in ("features", "decoder"):
                for pid in pids_of(stage, tmp_path):
                    os.kill(pid, signal.SIGKILL)
                    killed[stage] = pid

    sup, metrics = _supervise(recording, tmp_path / "live", model_dir, on_event=on_event)
    assert set(killed) == {"features", "decoder"}
    assert sorted(r["stage"] for r in metrics["restarts"]) == ["decoder", "features"]
    labels = _check_outputs(tmp_path / "live", recording.stem)
    assert "na" in labels and labels[-5:].count("na") == 0
    # What died in the killed stages' queues is reported, not bridged silently.
    assert any("lost_s" in g for g in metrics["detection_path_gaps"])
    _no_leftovers(tmp_path)


def test_paused_stage_longer_than_heartbeat_timeout_is_replaced(recording, model_dir, tmp_path):
    """SIGSTOP for longer than dead_after_s: the supervisor replaces the stage; SIGCONT then
    finds it gone (it cannot come back and write a second stream)."""
    paused: dict = {}

    def on_event(kind, who, info):
        if source_passed(kind, who, info, 100) and not paused:
            paused["pid"] = pids_of("features", tmp_path)[0]
            os.kill(paused["pid"], signal.SIGSTOP)
            paused["t"] = time.monotonic()
        elif kind == "restart" and paused and "cont" not in paused:
            try:
                os.kill(paused["pid"], signal.SIGCONT)
            except ProcessLookupError:
                pass
            paused["cont"] = time.monotonic() - paused["t"]

    sup, metrics = _supervise(recording, tmp_path / "live", model_dir, on_event=on_event)
    assert "cont" in paused, "the paused stage was never replaced"
    assert [r["stage"] for r in metrics["restarts"]] == ["features"]
    assert "silent" in metrics["restarts"][0]["reason"]
    labels = _check_outputs(tmp_path / "live", recording.stem)
    assert labels[-5:].count("na") == 0
    _no_leftovers(tmp_path)


def test_killed_headless_monitor_does_not_disturb_detection(
    recording, model_dir, offline_detection, tmp_path
):
    from rt_eeg.outputs import write_outputs

    done: dict = {}

    def on_event(kind, who, info):
        if source_passed(kind, who, info, 50) and not done:
            mon = sup_box["sup"].procs["monitor"]
            mon.kill()
            done["pid"] = mon.pid

    from rt_eeg.pipeline.supervisor import Supervisor

    # A generous heartbeat timeout: on a loaded machine a stage can stall past the 5 s default,
    # and a restart here would be load, not the monitor's death (what this test is about).
    cfg = PipelineConfig(model=str(model_dir), device="cpu", dead_after_s=15.0)
    sup = Supervisor(recording, tmp_path / "live", speed=5.0, config=cfg, monitor="headless",
                     on_event=on_event)  # fmt: skip
    sup_box = {"sup": sup}
    metrics = sup.run_pipeline()
    assert done and metrics["restarts"] == []
    res = offline_detection
    write_outputs(tmp_path / "off", recording.stem, res.decisions, res.duration)
    for suffix in (".hyp", ".csv_bi"):
        assert (tmp_path / "live" / f"{recording.stem}{suffix}").read_text() == (
            tmp_path / "off" / f"{recording.stem}{suffix}"
        ).read_text()
    _no_leftovers(tmp_path)


def _replay(recording, out, model_dir, *extra) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "rt_eeg.cli", "replay", str(recording), "--out", str(out),
         "--speed", "2", "--model", str(model_dir), "--device", "cpu", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def _wait_streaming(proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "streaming" in line or not line:
            break
    assert "streaming" in line, "the run never started streaming"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_supervisor_stop_signal_writes_outputs_and_leaves_nothing(
    sig, recording, model_dir, tmp_path
):
    """Regression (issue #13): SIGTERM wrote no outputs, orphaned the source and left the
    ipc folder. SIGTERM and SIGHUP must do what Ctrl-C does."""
    out = tmp_path / "live"
    proc = _replay(recording, out, model_dir, "--no-monitor")
    _wait_streaming(proc)
    time.sleep(3)
    t_stop = time.monotonic()
    proc.send_signal(sig)
    rc = proc.wait(60)
    assert rc == 128 + sig and time.monotonic() - t_stop < 20
    labels = _check_outputs(out, recording.stem)
    assert 0 < sum(lab != "na" for lab in labels) < 40  # analysed up to the stop, then na
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["interrupted"] is True and metrics["stop_signal"] == signal.Signals(sig).name
    _no_leftovers(out, (out / ".run" / "ipc_dir").read_text().strip())


def test_supervisor_sigkill_leaves_no_process_and_next_run_recovers(recording, model_dir, tmp_path):
    out = tmp_path / "live"
    proc = _replay(recording, out, model_dir, "--headless")
    _wait_streaming(proc)
    children = [int(p) for p in subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                                                text=True).stdout.split()]  # fmt: skip
    assert len(children) == 5, "four stages and the monitor"
    ipc_dir = (out / ".run" / "ipc_dir").read_text().strip()
    proc.kill()
    proc.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in children):
        time.sleep(0.1)
    # A child that died is reaped by init; /proc/PID vanishes (a zombie would still show).
    assert not [p for p in children if Path(f"/proc/{p}").exists()], "children outlived a SIGKILL"
    assert not (out / f"{recording.stem}.hyp").exists(), "a killed run leaves no outputs"
    # The next run in the same folder recovers: clears the killed run, never mixes with it.
    sup, metrics = _supervise(recording, out, model_dir, speed=None)
    assert metrics["recovered_from_killed_run"]["killed_pid"] == proc.pid
    assert not Path(ipc_dir).exists()
    labels = _check_outputs(out, recording.stem)
    assert labels.count("na") <= 1  # only a trailing partial epoch, if any
    _no_leftovers(out)


def test_folder_in_use_by_a_live_run_is_refused(recording, model_dir, tmp_path):
    from rt_eeg.errors import RtEegError
    from rt_eeg.pipeline.supervisor import Supervisor

    out = tmp_path / "live"
    (out / ".run").mkdir(parents=True)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "rt_eeg"])
    try:
        deadline = time.monotonic() + 30  # until it has exec'd (a fresh fork shows our cmdline)
        while b"rt_eeg" not in Path(f"/proc/{sleeper.pid}/cmdline").read_bytes():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        (out / ".run" / "supervisor.pid").write_text(str(sleeper.pid))
        with pytest.raises(RtEegError, match="in use by a running rt-eeg"):
            Supervisor(recording, out, config=PipelineConfig(model=str(model_dir)))
    finally:
        sleeper.kill()
        sleeper.wait()


def test_stop_while_a_restarted_decoder_is_starting_still_writes_outputs(
    recording, model_dir, tmp_path
):
    """Regression (issue #15): after the decoder was killed, Ctrl-C did not end the run and
    no outputs were written although decisions sat in the journal."""
    kill, killed = killer(tmp_path, "decoder", 100)
    stopped: dict = {}

    def on_event(kind, who, info):
        kill(kind, who, info)
        if kind == "restart" and not stopped:  # the new decoder is still importing TensorFlow
            stopped["t"] = time.monotonic()
            os.kill(os.getpid(), signal.SIGINT)

    sup, metrics = _supervise(recording, tmp_path / "live", model_dir, on_event=on_event)
    assert stopped and time.monotonic() - stopped["t"] < 30
    assert metrics["stop_signal"] == "SIGINT" and metrics["interrupted"] is True
    labels = _check_outputs(tmp_path / "live", recording.stem)
    assert labels[:5].count("na") == 0 and labels[-1] == "na"  # decided before, na after
    assert metrics["n_decisions"] > 0
    _no_leftovers(tmp_path)
