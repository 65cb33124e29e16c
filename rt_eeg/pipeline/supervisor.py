"""The supervisor: starts the stage processes, waits until all are ready, starts the source,
watches heartbeats, restarts a dead or silent stage, shuts everything down cleanly and
writes ``metrics.json``.

Lifecycle (after timeflux's manager and pyzmq's heartbeat example):

1. Validate the recording (a bad file fails here, before any process or output exists).
2. Start source, features, decoder, postprocess (and the monitor, if asked).
3. Ready before go: each stage reports ``ready`` once its sockets are up and its model is
   loaded and warmed; only then is the source told ``go``.
4. Heartbeats every second; a stage that exited or has been silent for ``dead_after_s`` is
   killed and restarted with an incremented incarnation (alive = expected & seen).
5. End of stream flows down the data path; the run ends when the postprocessor reports
   ``done`` (outputs written). Ctrl-C tells the source to stop, which sends end-of-stream, so
   outputs are still flushed. Remaining children are terminated, then killed.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import zmq

from rt_eeg.config import PipelineConfig
from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import write_json_atomic
from rt_eeg.pipeline.messages import MessageError, decode
from rt_eeg.pipeline.transport import default_endpoints, make_socket

log = logging.getLogger("rt_eeg.pipeline")
DETECTION_STAGES = ("source", "features", "decoder", "postprocess")


class Supervisor:
    """Run one recording through the live pipeline.

    Parameters
    ----------
    edf : path-like
        Recording to stream.
    out_dir : path-like
        Output folder (signal file, HYP, csv_bi, tse, events.tsv, metrics.json).
    speed : float or None
        1 for wall-clock speed, N for N times faster, None for as fast as the pipeline goes.
    config : PipelineConfig
    monitor : str or None
        ``None`` (no monitor), ``window`` (on the display), ``headless`` (offscreen; writes
        ``monitor.png`` beside the outputs at end of stream).
    screenshot_at : float, optional
        Also save ``monitor_at_<T>s.png`` when the monitor's signal reaches ``T`` seconds.
    on_event : callable, optional
        ``on_event(kind, stage, info)`` for progress and tests (e.g. kill a stage mid-run).
    """

    def __init__(self, edf, out_dir, *, speed: float | None = 1.0, config: PipelineConfig | None = None,
                 monitor: str | None = None, on_event=None, screenshot_at: float | None = None,
                 name: str | None = None, rotate_s: float = 3600.0, stop_after_s: float | None = None):  # fmt: skip
        from rt_eeg.montage import check_enough_channels
        from rt_eeg.sources import source_from_spec

        self.t_launch = time.time()
        # ``edf`` is a recording (a finite run) or a source description such as
        # {"kind": "lsl", "name": ...} (a live run: no end until stopped).
        if isinstance(edf, dict):
            self.source = dict(edf)
        else:
            self.source = {"kind": "edf", "path": str(Path(edf).resolve())}
        self.edf = Path(self.source["path"]) if "path" in self.source else None
        self.out_dir = Path(out_dir)
        self.cfg = config or PipelineConfig()
        self.speed = speed
        self.monitor = monitor
        self.screenshot_at = screenshot_at
        self.on_event = on_event or (lambda *a: None)
        src = source_from_spec({**self.source, "subscribe": False})  # validate before anything starts
        try:
            self.ch_names, self.duration, self.montage = src.ch_names, src.duration, src.montage
            self.source_info = src.describe()
            default_name = src.name
        finally:
            src.close()
        check_enough_channels(self.ch_names, self.edf or getattr(src, "where", None))
        self.live = self.duration is None
        self._stop_requested = False
        model = Path(self.cfg.model)
        if not (model / "model.keras").is_file():
            raise RtEegError("model folder has no model.keras", model)
        if self.live and (self.out_dir / f"{self.name_for(default_name, name)}.index.json").exists():
            # A new live run starts a new time line: it must not append to an earlier one's parts.
            raise RtEegError(f"a live run named {self.name_for(default_name, name)!r} already wrote "
                             "here; use another --out or --name", self.out_dir)  # fmt: skip
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.run_dir = self.out_dir / ".run"
        if self.run_dir.exists():
            shutil.rmtree(self.run_dir)
        self.run_dir.mkdir()
        self.endpoints, self._ipc_dir = default_endpoints(self.cfg.transport, self.cfg.endpoints)
        self.name = self.name_for(default_name, name)
        self.run = {
            "edf": str(self.edf) if self.edf else None, "source": self.source,
            "out_dir": str(self.out_dir), "run_dir": str(self.run_dir),
            "name": self.name, "speed": speed, "model": str(model), "config": self.cfg.to_dict(),
            "endpoints": self.endpoints, "ch_names": self.ch_names, "duration": self.duration,
            "montage": self.montage, "rotate_s": float(rotate_s), "stop_after_s": stop_after_s,
        }  # fmt: skip
        self.run_json = self.run_dir / "run.json"
        self.run_json.write_text(json.dumps(self.run, indent=2))
        self.procs: dict[str, subprocess.Popen] = {}
        self.incarnation = dict.fromkeys(DETECTION_STAGES, 0)
        self.last_seen: dict[str, float] = {}
        self.ready: set[str] = set()
        self.done: dict[str, dict] = {}
        self.errors: list[dict] = []
        self.restarts: list[dict] = []
        self.t_ready: float | None = None

    @staticmethod
    def name_for(default_name: str, name: str | None) -> str:
        """Output stem: ``name``, or the source's name made safe for a file name."""
        return name or "".join(c if c.isalnum() or c in "-_." else "_" for c in default_name)

    # -- processes ------------------------------------------------------------------------
    def _spawn(self, stage: str) -> None:
        cmd = [
            sys.executable,
            "-m",
            "rt_eeg.pipeline.stages",
            stage,
            str(self.run_json),
            str(self.incarnation[stage]),
        ]
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONUNBUFFERED": "1"}
        log_file = open(self.run_dir / f"{stage}.log", "a")  # noqa: SIM115 - owned by the child
        self.procs[stage] = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, env=env,
                                             start_new_session=True)  # fmt: skip
        log_file.close()
        self.last_seen[stage] = time.monotonic()

    def _spawn_monitor(self) -> None:
        cmd = [sys.executable, "-m", "rt_eeg.cli", "monitor",
               "--connect", self.endpoints["display_signal"], "--connect", self.endpoints["display_decision"],
               "--ch-names", ",".join(self.ch_names), "--stats", str(self.out_dir / "monitor_stats.json")]  # fmt: skip
        sec = self.cfg.security  # CURVE display endpoints: the local monitor is a client (h2)
        if sec is not None and sec.client_secret_key:
            cmd += ["--server-key", sec.server_public_key, "--client-key", sec.client_secret_key]
        env = dict(os.environ)
        if self.monitor == "headless":
            env["QT_QPA_PLATFORM"] = "offscreen"
            cmd += ["--screenshot", str(self.out_dir / "monitor.png"), "--exit-on-eos"]
        if self.screenshot_at is not None:
            cmd += [
                "--at",
                str(self.screenshot_at),
                "--at-screenshot",
                str(self.out_dir / f"monitor_at_{self.screenshot_at:g}s.png"),
            ]
        log_file = open(self.run_dir / "monitor.log", "a")  # noqa: SIM115
        self.procs["monitor"] = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, env=env,
                                                 start_new_session=True)  # fmt: skip
        log_file.close()

    def restart(self, stage: str, reason: str) -> None:
        """Kill (if needed) and start ``stage`` again with empty state."""
        proc = self.procs.get(stage)
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(5)
        self.incarnation[stage] += 1
        # Not "ready" again until it says so: a live source may take seconds to find its
        # stream, and silence is only a failure once a stage is running.
        self.ready.discard(stage)
        self.restarts.append({"stage": stage, "reason": reason, "wall_time": time.time(),
                              "incarnation": self.incarnation[stage]})  # fmt: skip
        log.warning("restarting %s (%s)", stage, reason)
        self.on_event("restart", stage, reason)
        self._spawn(stage)

    # -- main loop ------------------------------------------------------------------------
    def run_pipeline(self) -> dict:
        """Run to completion; returns the metrics (also written to ``metrics.json``)."""
        ctx = zmq.Context()
        control = make_socket(ctx, zmq.PULL, self.endpoints["control"], bind=True)
        cmd = make_socket(ctx, zmq.PUSH, self.endpoints["source_cmd"], bind=False)
        interrupted = False
        try:
            # The decoder (TensorFlow import, model load, XLA warm-up) takes longest: start it first.
            for stage in sorted(DETECTION_STAGES, key=lambda st: st != "decoder"):
                self._spawn(stage)
            if self.monitor:
                self._spawn_monitor()
            go_sent = False
            deadline_ready = time.monotonic() + self.cfg.ready_timeout_s
            while "postprocess" not in self.done:
                try:
                    self._poll_control(control)
                    if not go_sent and self.ready >= set(DETECTION_STAGES):
                        self.t_ready = time.time()
                        cmd.send(json.dumps({"cmd": "go"}).encode())
                        go_sent = True
                        self.on_event("go", "source", None)
                    if not go_sent and time.monotonic() > deadline_ready:
                        missing = sorted(set(DETECTION_STAGES) - self.ready)
                        raise RtEegError(f"stages not ready after {self.cfg.ready_timeout_s:.0f} s: {', '.join(missing)} "
                                         f"(see {self.run_dir}/*.log)")  # fmt: skip
                    self._watch(go_sent)
                    if self._stop_requested is True and go_sent:
                        self._stop_requested = "sent"
                        cmd.send(json.dumps({"cmd": "stop"}).encode())
                except KeyboardInterrupt:
                    if interrupted:
                        raise
                    interrupted = True
                    log.warning("interrupted: stopping the source; outputs will be flushed")
                    cmd.send(json.dumps({"cmd": "stop"}).encode())
                    if not go_sent:
                        break
        finally:
            self._shutdown()
            ctx.destroy(linger=0)
            if self._ipc_dir is not None:
                shutil.rmtree(self._ipc_dir, ignore_errors=True)
        metrics = self.metrics(interrupted)
        write_json_atomic(self.out_dir / "metrics.json", metrics)
        return metrics

    def _poll_control(self, control: zmq.Socket) -> None:
        if not control.poll(100):
            return
        while True:
            try:
                parts = control.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                msg = decode(parts)
            except MessageError as err:
                log.warning("supervisor: malformed control message (%s)", err)
                continue
            stage, kind = msg.header.get("stream"), msg.kind
            if msg.header.get("incarnation", 0) != self.incarnation.get(stage, 0):
                continue  # from a killed predecessor
            self.last_seen[stage] = time.monotonic()
            if msg.header.get("error"):
                self.errors.append({"stage": stage, "error": msg.header["error"]})
                self.on_event("error", stage, msg.header["error"])
            if kind == "ready":
                self.ready.add(stage)
                self.on_event("ready", stage, None)
            elif kind == "heartbeat":
                self.on_event("heartbeat", stage, msg.header.get("stats"))
            elif kind == "eos":  # the stage finished; its header carries its statistics
                self.done[stage] = msg.header.get("stats", {})
                self.on_event("done", stage, self.done[stage])

    def _watch(self, go_sent: bool) -> None:
        now = time.monotonic()
        for stage in DETECTION_STAGES:
            if stage in self.done:
                continue
            proc = self.procs[stage]
            if proc.poll() is not None:
                if stage == "source" and proc.returncode == 0:
                    continue
                if stage not in self.ready and self.incarnation[stage] == 0:
                    # Failing before ever being ready is a configuration problem (bad model,
                    # unreadable file): restarting would only fail again.
                    reported = [e["error"] for e in self.errors if e["stage"] == stage]
                    raise RtEegError(
                        f"{stage} stage failed to start: {(reported or [self._last_log_line(stage)])[-1]}"
                    )
                if stage == "source" and not self.live:
                    self._end_stream_for_source(proc.returncode)
                    continue
                self.restart(stage, f"exited with code {proc.returncode}")
            elif stage in self.ready and now - self.last_seen[stage] > self.cfg.dead_after_s:
                self.restart(stage, f"silent for {now - self.last_seen[stage]:.1f} s")

    def request_stop(self) -> None:
        """Ask the source to stop (as Ctrl-C does); the run then flushes and ends. Safe to
        call from ``on_event``."""
        self._stop_requested = True

    def _end_stream_for_source(self, returncode: int) -> None:
        """The source died mid-stream. It cannot resume at the right sample, so the run ends
        here: end-of-stream is sent on its behalf, the stages flush, and the outputs mark the
        rest of the recording not analysed."""
        from rt_eeg.pipeline.messages import encode

        self.errors.append({"stage": "source", "error": f"exited with code {returncode} mid-stream; "
                            f"the rest of the recording was not analysed"})  # fmt: skip
        self.done["source"] = {"failed": True}
        ctx = zmq.Context.instance()
        sock = make_socket(ctx, zmq.PUSH, self.endpoints["features_in"], bind=False)
        header = {
            "kind": "eos",
            "stream": "supervisor",
            "seq": 0,
            "t_emit": time.time(),
            "interrupted": True,
        }
        sock.send_multipart(encode("signal", header))
        sock.close()  # PUSH lingers until delivered

    def _last_log_line(self, stage: str) -> str:
        try:
            lines = [
                ln for ln in (self.run_dir / f"{stage}.log").read_text().splitlines() if ln.strip()
            ]
        except OSError:
            lines = []
        useful = [ln for ln in lines if "Error" in ln or "error" in ln] or lines
        return (
            useful[-1].strip() if useful else f"no output (see {self.run_dir / (stage + '.log')})"
        )

    def _shutdown(self) -> None:
        """Release every stage (SIGTERM; finished stages wait for it so that nothing they
        sent is lost), give the headless monitor time for its last screenshot, then make
        sure no child outlives the run."""
        monitor = self.procs.get("monitor")
        for proc in self.procs.values():
            if proc is not monitor and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        if monitor is not None and monitor.poll() is None:
            try:
                monitor.wait(10 if self.monitor == "headless" else 0.1)
            except subprocess.TimeoutExpired:
                monitor.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(3)

    # -- metrics --------------------------------------------------------------------------
    def metrics(self, interrupted: bool) -> dict:
        from rt_eeg.features import FeatureConfig

        post = self.done.get("postprocess", {})
        source = self.done.get("source", {})
        first = post.get("first_decision_wall")
        gaps = [g | {"stage": s} for s, st in self.done.items() for g in st.get("gaps", [])]
        monitor_stats = self._monitor_stats()
        return {
            "recording": str(self.edf) if self.edf else self.source_info,
            "duration_s": self.duration if not self.live else source.get("t_end"),
            "speed": self.speed if self.speed else "max",
            "interrupted": interrupted,
            "algorithmic_delay_s": FeatureConfig().delay_s,
            "end_to_end_latency_ms": post.get("latency_ms"),
            "stage_processing_ms": {s: st.get("processing_ms") for s, st in self.done.items()},
            "time_to_ready_s": round(self.t_ready - self.t_launch, 3) if self.t_ready else None,
            "time_to_first_decision_s": round(first - self.t_launch, 3) if first else None,
            "frames_streamed": source.get("frames"),
            "display_frames_sent": source.get("display_sent"),
            "display_frames_dropped": monitor_stats.get("dropped") if monitor_stats else None,
            "detection_path_gaps": gaps,
            "malformed_messages": {s: st.get("malformed", 0) for s, st in self.done.items()},
            "restarts": self.restarts,
            "errors": self.errors,
            "decoder_device": self.done.get("decoder", {}).get("device"),
            "n_decisions": post.get("n_decisions"),
        }

    def _monitor_stats(self) -> dict | None:
        path = self.out_dir / "monitor_stats.json"
        try:
            return json.loads(path.read_text()) if path.is_file() else None
        except ValueError:
            return None
