"""Ward service: many beds, one batched decoder; equality with the offline detector per bed,
add/remove while running, isolation of a dead bed, decoder restart, control errors, SIGTERM."""

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
import zmq
from edf_factory import tuh_like, write_edf

from rt_eeg.io.annotations import read_hyp
from rt_eeg.ward.config import load_ward_config, ward_from_dict
from rt_eeg.ward.control import request

ROOT = Path(__file__).resolve().parents[1]
CHB = ["FP1-F7", "F7-T7", "T7-P7", "P7-O1", "FP1-F3", "F3-C3", "C3-P3", "P3-O1", "FP2-F4", "F4-C4",
       "C4-P4", "P4-O2", "FP2-F8", "F8-T8", "T8-P8", "P8-O2", "FZ-CZ", "CZ-PZ"]  # fmt: skip
SECONDS = 30.0


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    """Three recordings with different rates and montages, and a small untrained model."""
    from rt_eeg.decoder import write_untrained_model

    d = tmp_path_factory.mktemp("ward")
    out = {"model": write_untrained_model(d / "m", seed=3)}
    out["a"], _ = tuh_like(d / "a_s001_t000.edf", SECONDS, 250, rng=np.random.default_rng(1))
    out["b"], _ = tuh_like(d / "b_s001_t000.edf", SECONDS, 256, ears=False, rng=np.random.default_rng(2))
    rng = np.random.default_rng(3)
    out["c"] = write_edf(d / "c_s001_t000.edf", rng.normal(0, 20, (len(CHB), int(SECONDS * 512))), CHB, 512)
    out["d"], _ = tuh_like(d / "d_s001_t000.edf", SECONDS, 250, rng=np.random.default_rng(4))
    return out


@pytest.fixture(scope="module")
def offline(files, tmp_path_factory) -> dict:
    """Each recording's outputs from the offline detector (what rt-eeg evaluate writes)."""
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.outputs import write_outputs

    dec = Decoder(files["model"], device="cpu")
    d = tmp_path_factory.mktemp("offline")
    montages = {}
    for bed in "abcd":
        res = detect_recording(files[bed], dec)
        write_outputs(d / bed, files[bed].stem, res.decisions, res.duration)
        montages[bed] = res.montage
    assert montages == {"a": "01_tcp_ar", "b": "03_tcp_ar_a", "c": "bipolar", "d": "01_tcp_ar"}
    return {"dir": d, "montages": montages}


def _outputs(folder: Path, stem: str) -> dict:
    return {s: (folder / f"{stem}{s}").read_text() for s in (".hyp", ".csv_bi", ".tse", "_events.tsv")}


def _write_config(tmp_path: Path, files: dict, beds: dict, **ward) -> Path:
    lines = ["[ward]", f'model = "{files["model"]}"', 'device = "cpu"', f'output = "{tmp_path / "out"}"',
             "warm_windows = 256", "dead_after_s = 3.0", "backoff_s = 0.5"]  # fmt: skip
    lines += [f"{k} = {json.dumps(v)}" for k, v in ward.items()]
    for name, speed in beds.items():
        lines += ["[[bed]]", f'name = "{name}"', f'edf = "{files[name]}"', f"speed = {json.dumps(speed)}"]
    path = tmp_path / "ward.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


class Serve:
    """``rt-eeg serve`` as a subprocess, with its control endpoint."""

    def __init__(self, config: Path):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.cfg = load_ward_config(config)
        # Its output goes to a file: a pipe nobody reads fills (64 KB) and blocks the service's
        # logging, and so the whole service, mid-test.
        self.log = Path(config).with_suffix(".log")
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "rt_eeg.cli", "serve", "--config", str(config)],
                env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
        eps = Path(self.cfg.output) / ".ward" / "endpoints.json"
        self.until(lambda: eps.exists(), 30, "the service never opened its endpoints")
        self.control = json.loads(eps.read_text())["control"]
        self.ipc_dir = Path(self.control[len("ipc://"):]).parent

    def ask(self, req: dict) -> dict:
        return request(self.control, req, timeout_s=10)

    def beds(self) -> dict:
        return {b["bed"]: b for b in self.ask({"cmd": "list"})["beds"]}

    def until(self, pred, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = pred()
            if got:
                return got
            assert self.proc.poll() is None, f"serve exited early: {self.log.read_text()[-3000:]}"
            time.sleep(0.1)
        raise AssertionError(what)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def _finished(serve: Serve, names) -> bool:
    beds = serve.beds()
    return all(n in beds and beds[n]["detail"] == "recording ended" for n in names)


def _gone(pids) -> bool:
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        if Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z":
            return False
    return True


def test_ward_config_checks_every_key(tmp_path):
    base = {"ward": {}, "bed": [{"name": "a", "edf": "x.edf"}]}
    assert ward_from_dict(base).beds[0].speed == 1.0
    bad = [
        ({"ward": {"heartbeat_s": "fast"}}, "ward.heartbeat_s must be a number"),
        ({"ward": {"dead_after_s": 0.5}}, "ward.dead_after_s (0.5) must exceed"),
        ({"ward": {"alarm_command": "page me"}}, "ward.alarm_command must be a list"),
        ({"ward": {"control": "tcp://0.0.0.0:5000"}}, "ward.control = 'tcp://0.0.0.0:5000' binds off this machine without CURVE"),
        ({"ward": {"status": "http://x"}}, "ward.status must be an ipc://PATH or tcp://HOST:PORT endpoint"),
        ({"ward": {"colour": 1}}, "unknown key ward.colour"),
        ({"bed": [{"name": "../etc", "edf": "x"}]}, "bed[0].name must be"),
        ({"bed": [{"name": "a"}]}, "bed[0] needs exactly one of edf"),
        ({"bed": [{"name": "a", "lsl": "S", "speed": 2}]}, "bed[0].speed applies to edf beds"),
        ({"bed": [{"name": "a", "edf": "x", "speed": -1}]}, "bed[0].speed must be"),
        ({"bed": [{"name": "a", "edf": "x"}, {"name": "a", "edf": "y"}]}, "bed[1].name 'a' is used"),
        ({"bed": {"name": "a"}}, "bed must be an array of tables"),
        ({"ward": {"postprocess": {"top_k": 0}}}, "ward.postprocess.top_k"),
    ]
    for data, text in bad:
        with pytest.raises(ValueError) as err:
            ward_from_dict(data)
        assert text in str(err.value), (data, str(err.value))
        assert "\n" not in str(err.value)
    example = load_ward_config(ROOT / "docs" / "ward.example.toml")
    assert [b.name for b in example.beds] == ["bed01", "bed02"] and example.beds[1].live
    path = tmp_path / "ward.toml"
    path.write_text('[ward]\nheartbeat_s = "x"\n')
    proc = subprocess.run([sys.executable, "-m", "rt_eeg.cli", "serve", "--config", str(path)],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"rt-eeg serve: error: {path}: invalid config: ward.heartbeat_s "
                                   "must be a number, got 'x'")  # fmt: skip


def test_three_beds_equal_offline_add_remove_and_control_errors(files, offline, tmp_path):
    serve = Serve(_write_config(tmp_path, files, {"a": "max", "b": "max", "c": "max"}))
    try:
        # The ward status: once per second, every bed with its state and a 10 s trace.
        ctx = zmq.Context.instance()
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.SUBSCRIBE, b"ward")
        sub.connect(json.loads((Path(serve.cfg.output) / ".ward" / "endpoints.json").read_text())["status"])
        assert sub.poll(15_000), "no ward status within 15 s"
        topic, head, body = sub.recv_multipart()
        sub.close()
        header = json.loads(head)
        traces = np.frombuffer(body, "<f4").reshape(header["shape"])
        assert topic == b"ward" and header["kind"] == "ward_status" and header["stream"] == "ward"
        assert [b["name"] for b in header["beds"]] == ["a", "b", "c"] and traces.shape == (3, 250)
        assert all(b["state"] in ("STARTING", "NO DATA", "STALE", "BCKG", "SEIZ", "PAUSED", "ERROR")
                   for b in header["beds"]) and np.isfinite(traces).all()  # fmt: skip
        # Control errors are one-line replies; the service carries on.
        raw = ctx.socket(zmq.REQ)
        raw.setsockopt(zmq.LINGER, 0)
        raw.connect(serve.control)
        raw.send(b"{not json")
        assert raw.poll(10_000)
        reply = json.loads(raw.recv())
        raw.close()
        assert reply["ok"] is False and reply["error"].startswith("request is not JSON")
        for req, text in [({"cmd": "remove", "bed": "nobody"}, "unknown bed 'nobody'"),
                          ({"cmd": "add", "bed": {"name": "a", "edf": str(files["a"])}}, "bed 'a' exists already"),
                          ({"cmd": "add", "bed": {"name": "z", "edf": str(files["a"]), "speed": "fast"}}, "bed.speed must be"),
                          ({"cmd": "add", "bed": {"name": "z", "edf": str(tmp_path / "none.edf")}}, "none.edf"),
                          ({"cmd": "fly"}, "unknown cmd 'fly'"),
                          ({"cmd": "ack", "alarm": "nope", "by": "me"}, "unknown alarm")]:  # fmt: skip
            reply = serve.ask(req)
            assert reply["ok"] is False and text in reply["error"] and "\n" not in reply["error"], reply
        # Garbage into the decoder, as a rogue bed and as bed "a" itself: dropped and counted.
        rogue = ctx.socket(zmq.DEALER)
        rogue.setsockopt(zmq.LINGER, 0)
        rogue.setsockopt(zmq.ROUTING_ID, b"rogue")
        rogue.connect(f"ipc://{serve.ipc_dir}/decoder")
        for parts in ([b"features", b"{bad", b""], [b"x"], [b"features", b'{"v":1,"kind":"data","seq":0}', b"12"]):
            rogue.send_multipart(parts)
        rogue.close()
        # A bed whose source cannot be opened: ERROR with its message, restarted with back-off.
        from lsl_helpers import unique_name  # machine-only LSL config, inherited by the beds

        assert serve.ask({"cmd": "add", "bed": {"name": "ghost", "lsl": unique_name("absent")}})["ok"]
        # A bed added while the others run, and one removed while it streams at 1x.
        assert serve.ask({"cmd": "add", "bed": {"name": "d", "edf": str(files["d"]), "speed": "max"}})["ok"]
        assert serve.ask({"cmd": "add", "bed": {"name": "e", "edf": str(files["d"]), "speed": 1.0}})["ok"]
        serve.until(lambda: _finished(serve, "abcd"), 90, "beds a-d never finished")
        serve.until(lambda: (serve.beds()["e"].get("last_decision") or "").startswith(("bckg", "seiz")),
                    30, "bed e never decided")  # fmt: skip
        assert serve.ask({"cmd": "remove", "bed": "e"})["ok"]
        serve.until(lambda: "e" not in serve.beds(), 30, "bed e was never removed")
        ghost = serve.until(lambda: serve.beds()["ghost"]["restarts"] >= 1 and serve.beds()["ghost"],
                            60, "the failing bed was not restarted")  # fmt: skip
        assert ghost["state"] == "ERROR" and "absent-" in ghost["detail"], ghost
        assert serve.ask({"cmd": "remove", "bed": "ghost"})["ok"]
        serve.until(lambda: "ghost" not in serve.beds(), 30, "bed ghost was never removed")
        # Acknowledge an alarm over the control socket (the overview does the same).
        lines = [json.loads(ln) for ln in (Path(serve.cfg.output) / "alarms.jsonl").read_text().splitlines()]
        if lines:
            first = lines[0].get("alarm", lines[0])
            reply = serve.ask({"cmd": "ack", "alarm": first["id"], "by": "nurse"})
            assert reply["ok"] and reply["alarm"]["acknowledged_by"] == "nurse"
        rows = serve.beds()
        assert sorted(rows) == ["a", "b", "c", "d"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cli = [sys.executable, "-m", "rt_eeg.cli", "ward"]
        table = subprocess.run(cli + ["list", "--config", str(tmp_path / "ward.toml")], env=env,
                               capture_output=True, text=True)  # fmt: skip
        lines = table.stdout.splitlines()
        assert table.returncode == 0 and lines[0].split()[:3] == ["BED", "STATE", "LAST"]
        assert [ln.split()[0] for ln in lines[1:]] == ["a", "b", "c", "d"]
        bad = subprocess.run(cli + ["pause", "nobody", "--control", serve.control], env=env,
                             capture_output=True, text=True)  # fmt: skip
        assert bad.returncode == 2 and bad.stderr.strip().endswith("unknown bed 'nobody'")
        assert len(bad.stderr.strip().splitlines()) == 1
        assert all(r["restarts"] == 0 and r["drops"] == 0 for r in rows.values()), rows
    finally:
        code = serve.stop()
    assert code == 128 + signal.SIGTERM
    out = tmp_path / "out"
    for bed in "abcd":
        stem = files[bed].stem
        assert _outputs(out / bed, stem) == _outputs(offline["dir"] / bed, stem), bed
        m = json.loads((out / bed / "metrics.json").read_text())
        assert m["n_decisions"] == SECONDS and m["n_na"] == 0 and m["drops"] == 0 and m["restarts"] == []
        assert m["latency_ms"]["n"] == SECONDS
    # The removed bed wrote its outputs up to the stop: complete HYP, the rest not analysed.
    epochs, duration = read_hyp(out / "e" / f"{files['d'].stem}.hyp")
    labels = [e.label for e in epochs]
    assert duration == pytest.approx(SECONDS) and len(epochs) == SECONDS
    assert "na" in labels and labels[0] != "na"
    # The alarm manager saw every bed's decisions: one raised alarm per seizure event.
    lines = [json.loads(ln) for ln in (out / "alarms.jsonl").read_text().splitlines()]
    alarms = {(a["bed"], a["id"]) for a in (ln.get("alarm", ln) for ln in lines)}
    for bed in "abcd":
        events = (out / bed / f"{files[bed].stem}.tse").read_text().count(" seiz ")
        assert sum(b == bed for b, _ in alarms) == events, bed
    ward = json.loads((out / "ward_metrics.json").read_text())
    hist = ward["decoder_stats"]["batch_hist"]
    assert sum(int(k) * v for k, v in hist.items()) >= 4 * SECONDS
    assert not serve.ipc_dir.exists()
    assert not (out / ".ward" / "serve.pid").exists()


def test_dead_bed_is_restarted_and_others_are_unchanged(files, offline, tmp_path):
    serve = Serve(_write_config(tmp_path, files, {"a": 3.0, "b": 3.0, "c": 3.0}))
    try:
        serve.until(lambda: (serve.beds()["b"].get("last_decision") or "").startswith(("bckg", "seiz")),
                    60, "bed b never decided")  # fmt: skip
        # Pausing a replay stops its clock: nothing is lost, its outputs stay identical.
        assert serve.ask({"cmd": "pause", "bed": "c"}) == {"ok": True, "bed": "c", "paused": True}
        serve.until(lambda: serve.beds()["c"]["state"] == "PAUSED", 10, "bed c not paused")
        pid = serve.beds()["b"]["pid"]
        os.kill(pid, signal.SIGKILL)
        serve.until(lambda: serve.beds()["b"]["restarts"] == 1, 20, "bed b was not restarted")
        assert serve.beds()["b"]["pid"] != pid or serve.beds()["b"]["state"] == "ERROR"
        assert serve.ask({"cmd": "resume", "bed": "c"})["ok"]
        serve.until(lambda: serve.beds()["c"]["state"] in ("BCKG", "SEIZ"), 10, "bed c not resumed")
        serve.until(lambda: _finished(serve, "abc"), 90, "beds never finished")
        pids = [r["pid"] for r in serve.beds().values() if r["pid"]]
        rows = serve.beds()
    finally:
        code = serve.stop()
    assert code == 128 + signal.SIGTERM and _gone(pids)
    out = tmp_path / "out"
    for bed in "ac":  # untouched by b's death (and c by its pause), byte for byte
        stem = files[bed].stem
        assert _outputs(out / bed, stem) == _outputs(offline["dir"] / bed, stem), bed
        assert rows[bed]["restarts"] == 0
    # b resumed after its last journalled decision: every epoch decided once, in order.
    epochs, duration = read_hyp(out / "b" / f"{files['b'].stem}.hyp")
    assert len(epochs) == SECONDS and duration == pytest.approx(SECONDS)
    assert [e.start for e in epochs] == list(np.arange(SECONDS))
    m = json.loads((out / "b" / "metrics.json").read_text())
    assert [r["reason"] for r in m["restarts"]] == ["exited with code -9"]


def test_decoder_killed_beds_resume_with_na_gap_then_sigterm(files, tmp_path):
    serve = Serve(_write_config(tmp_path, files, {"a": 2.0, "b": 2.0, "c": 2.0}))
    try:
        serve.until(lambda: all((r.get("last_decision") or "").startswith(("bckg", "seiz"))
                                for r in serve.beds().values()), 60, "beds never decided")  # fmt: skip
        dec = serve.ask({"cmd": "list"})["decoder"]
        # A hung decoder (its sockets' kernel buffers fill with frames), then killed: what it
        # held is lost and must come out as 'na', never as background.
        os.kill(dec["pid"], signal.SIGSTOP)
        time.sleep(1.0)
        os.kill(dec["pid"], signal.SIGKILL)
        serve.until(lambda: serve.ask({"cmd": "list"})["decoder"]["incarnation"] == 1, 20,
                    "decoder was not restarted")  # fmt: skip
        t_back = time.monotonic()
        serve.until(lambda: serve.ask({"cmd": "list"})["decoder"]["ready"], 60, "decoder never ready")
        first = {n: r["last_decision"] for n, r in serve.beds().items()}
        serve.until(lambda: all(r["last_decision"] != first[n] for n, r in serve.beds().items()),
                    30, "beds did not resume")  # fmt: skip
        assert time.monotonic() - t_back < 30
        pids = [r["pid"] for r in serve.beds().values()] + [serve.ask({"cmd": "list"})["decoder"]["pid"]]
        assert all(pids)
    finally:
        code = serve.stop()  # mid-stream: every bed writes its outputs up to now
    assert code == 128 + signal.SIGTERM and _gone(pids)
    assert not serve.ipc_dir.exists()
    out = tmp_path / "out"
    for bed in "abc":
        epochs, duration = read_hyp(out / bed / f"{files[bed].stem}.hyp")
        labels = [e.label for e in epochs]
        assert len(epochs) == SECONDS and duration == pytest.approx(SECONDS)
        decided = [i for i, lab in enumerate(labels) if lab != "na"]
        gap = [i for i in range(decided[0], decided[-1]) if labels[i] == "na"]
        assert gap, f"bed {bed}: the decoder's outage is not marked na: {labels}"
        assert labels[-1] == "na"  # stopped before the end of the recording
        m = json.loads((out / bed / "metrics.json").read_text())
        assert m["decoder_resets"] >= 1 and m["n_na"] >= len(gap)
    ward = json.loads((out / "ward_metrics.json").read_text())
    assert len(ward["decoder_restarts"]) == 1 and ward["stop_signal"] == "SIGTERM"


def test_lsl_bed_equals_offline(files, tmp_path):
    """A bed on a live LSL stream: decisions as they come, the usual files at the stop."""
    import threading

    from lsl_helpers import Publisher, unique_name

    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.outputs import write_outputs

    name = unique_name()
    pub = Publisher(files["a"], name, speed=4.0, go=threading.Event())
    pub.start()
    assert pub.outlet_ready.wait(30)
    cfg = _write_config(tmp_path, files, {})
    cfg.write_text(cfg.read_text() + f'[[bed]]\nname = "amp"\nlsl = "{name}"\n')
    pub.go.set()  # the publisher still waits for its consumer, the bed's inlet
    serve = Serve(cfg)
    try:
        assert pub.pushed.wait(90) and pub.error is None
        serve.until(lambda: (serve.beds()["amp"]["last_decision"] or "").endswith("@28s"), 30,
                    "the LSL bed did not decide the stream")  # fmt: skip
    finally:
        pub.stop_flag.set()
        code = serve.stop()
    assert code == 128 + signal.SIGTERM
    res = detect_recording(files["a"], Decoder(files["model"], device="cpu"))
    write_outputs(tmp_path / "off", "amp", res.decisions, res.duration)
    assert _outputs(tmp_path / "out" / "amp", "amp") == _outputs(tmp_path / "off", "amp")
    assert (tmp_path / "out" / "amp" / "amp.index.json").exists()


def _bed_a_equals_offline(tmp_path: Path, files: dict, model: Path, res) -> None:
    """Bed ``a`` served with ``model`` at max speed writes the offline result ``res``'s outputs
    byte for byte, and the service stops cleanly under SIGTERM."""
    from rt_eeg.outputs import write_outputs

    write_outputs(tmp_path / "off", files["a"].stem, res.decisions, res.duration)
    cfg = _write_config(tmp_path, {**files, "model": model}, {"a": "max"})
    serve = Serve(cfg)
    try:
        serve.until(lambda: _finished(serve, "a"), 90, "bed a never finished")
    finally:
        code = serve.stop()
    assert code == 128 + signal.SIGTERM
    stem = files["a"].stem
    assert _outputs(tmp_path / "out" / "a", stem) == _outputs(tmp_path / "off", stem)


def test_bed_with_cross_channel_table_in_the_model_folder_equals_offline(files, tmp_path):
    """A [cross_channel] table in the model's postprocess.toml reaches every bed's postprocessor:
    the ward's outputs equal the offline detector's with the same model folder, byte for byte."""
    import shutil

    from rt_eeg.config import load_postprocess_config, save_postprocess_config
    from rt_eeg.cross_channel import CrossChannelConfig
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.postprocess import PostprocessConfig

    # Hand-made weights (as the pipeline's test): score = sigmoid(20 * (logit of the newest
    # smoothed channel mean - its median over the recording)): both labels from the untrained
    # model, and labels that differ from the default top-k score's.
    decoder = Decoder(files["model"], device="cpu")
    p = detect_recording(files["a"], decoder).probs.astype(np.float64)
    smoothed = np.r_[p[:1], (p[1:] + p[:-1]) / 2].mean(1)
    centre = float(np.median(np.log(smoothed / (1 - smoothed))))
    t, f = 8, 6
    w1 = np.zeros((t * f, 2))
    w1[-1] = [20.0, -20.0]
    cc = CrossChannelConfig.from_arrays(w1, [-20.0 * centre, 20.0 * centre], [1.0, -1.0], 0.0,
                                        epochs=t, top_m=4, trained_on="hand-made, for a test")  # fmt: skip
    model = tmp_path / "model_cc"
    shutil.copytree(files["model"], model)
    post = PostprocessConfig(threshold_on=0.5, threshold_off=0.4, onset_epochs=1, offset_epochs=1,
                             min_duration_epochs=1, cross_channel=cc)  # fmt: skip
    save_postprocess_config(model, post)
    assert load_postprocess_config(model) == post
    # The other way a bed gets it, a [ward.postprocess] override, travels in the bed's JSON spec.
    over = ward_from_dict({"ward": {"postprocess": post.to_dict()}}).postprocess
    assert over == post
    assert PostprocessConfig.from_dict(json.loads(json.dumps(over.to_dict()))) == post
    res = detect_recording(files["a"], Decoder(model, device="cpu"), load_postprocess_config(model))
    labels = [d.label for d in res.decisions]
    assert "seiz" in labels and "bckg" in labels
    plain = detect_recording(files["a"], decoder, post.replace(cross_channel=None)).decisions
    assert labels != [d.label for d in plain]
    _bed_a_equals_offline(tmp_path, files, model, res)


def test_bed_runs_a_model_with_its_own_feature_settings_equal_to_offline(files, tmp_path):
    """A model trained with other LFCC settings (a 1 s analysis window, ``rt-eeg train
    --features``): the service reads them at pre-flight and every bed computes them, so the
    ward's outputs equal the offline detector's (which adopts the model's settings)."""
    from train_helpers import both_labels_point

    from rt_eeg.config import save_postprocess_config
    from rt_eeg.decoder import Decoder, write_untrained_model
    from rt_eeg.detector import detect_recording
    from rt_eeg.features import FeatureConfig

    w1s = FeatureConfig(window_samples=250, buffer_samples=275, n_fft=256, n_filters=16)
    model = write_untrained_model(tmp_path / "w1s", seed=3, feature_config=w1s)
    dec = Decoder(model, device="cpu", feature_config="model")
    post = both_labels_point(detect_recording(files["a"], dec))
    save_postprocess_config(model, post)
    res = detect_recording(files["a"], dec, post)
    assert {"seiz", "bckg"} <= {d.label for d in res.decisions}
    _bed_a_equals_offline(tmp_path, files, model, res)
