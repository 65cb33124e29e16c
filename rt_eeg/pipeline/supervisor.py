"""The supervisor: starts the stage processes, waits until all are ready, starts the source,
watches heartbeats, restarts a dead or silent stage, shuts everything down cleanly and
writes ``metrics.json``.

Lifecycle (after timeflux's manager and pyzmq's heartbeat example):

1. Validate the recording (a bad file fails here, before any process or output exists).
2. Start source, features, decoder, postprocess (and the monitor, if asked).
3. Ready before go: source, features and postprocess report ``ready`` once their sockets
   are up; then the source is told ``go``. The decoder is not waited for: it binds its input
   before it loads the model, so the signal is shown and features are extracted while it
   loads, and it catches up from its queue (lossless: a full queue back-pressures the
   source). A decoder that fails before it is ready still fails the run with its error.
4. Heartbeats every second; a stage that exited or has been silent for ``dead_after_s`` is
   killed and restarted with an incremented incarnation (alive = expected & seen). A
   restarted stage is not expected to heartbeat until it reports ready again (TensorFlow's
   import alone takes seconds); it gets ``ready_timeout_s`` for that. A stage restarted
   ``MAX_RESTARTS`` times ends the run (outputs are still written).
5. End of stream flows down the data path; the run ends when the postprocessor reports
   ``done`` (outputs written). Ctrl-C, SIGTERM and SIGHUP tell the source to stop, which
   sends end-of-stream, so outputs are still flushed; if the postprocessor has not finished
   ``STOP_TIMEOUT_S`` later, the supervisor writes the outputs from the decision journal.
   Remaining children are terminated, then killed; the ipc folder is removed.

Step 1 and the output folder's lock live in :mod:`rt_eeg.pipeline.preflight`, the metrics
in :mod:`rt_eeg.pipeline.run_metrics`; this module owns the processes and the main loop.
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
from rt_eeg.pipeline.preflight import (  # noqa: F401 - _pid_alive, reclaim_folder: re-exported
    LOCK,
    _pid_alive,
    check_model,
    check_source,
    reclaim_folder,
)
from rt_eeg.pipeline.run_metrics import _count, run_metrics
from rt_eeg.pipeline.transport import default_endpoints, make_socket

log = logging.getLogger("rt_eeg.pipeline")
DETECTION_STAGES = ("source", "features", "decoder", "postprocess")
#: Stages the source waits for before it streams (the decoder catches up from its queue).
GO_AFTER = ("source", "features", "postprocess")
UPSTREAM = {"features": "source", "decoder": "features", "postprocess": "decoder"}
INPUT = {"features": ("features_in", "signal"), "decoder": ("decoder_in", "features"),
         "postprocess": ("postprocess_in", "probs")}  # fmt: skip
#: Restarts in a row without the stage becoming ready in between, after which the run ends.
MAX_RESTARTS = 5
#: Seconds from a stop request (Ctrl-C, SIGTERM, SIGHUP) to giving up on a clean flush.
STOP_TIMEOUT_S = 15.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


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
        self.ch_names, self.duration, self.montage, self.source_info, default_name = check_source(
            self.source, self.edf
        )  # validate before anything starts
        self.live = self.duration is None
        self._stop_requested = False
        model = Path(self.cfg.model)
        features = check_model(model)
        if (
            self.live
            and (self.out_dir / f"{self.name_for(default_name, name)}.index.json").exists()
        ):
            # A new live run starts a new time line: it must not append to an earlier one's parts.
            raise RtEegError(f"a live run named {self.name_for(default_name, name)!r} already wrote "
                             "here; use another --out or --name", self.out_dir)  # fmt: skip
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.run_dir = self.out_dir / ".run"
        self.recovered = self._claim_run_dir()
        self.endpoints, self._ipc_dir = default_endpoints(self.cfg.transport, self.cfg.endpoints)
        (self.run_dir / "ipc_dir").write_text(str(self._ipc_dir or ""))
        self.name = self.name_for(default_name, name)
        self.run = {
            "edf": str(self.edf) if self.edf else None, "source": self.source,
            "out_dir": str(self.out_dir), "run_dir": str(self.run_dir),
            "name": self.name, "speed": speed, "model": str(model), "config": self.cfg.to_dict(),
            "features": features.to_toml(),  # the model's, read once: every stage runs these
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
        self.t_stage_ready: dict[str, float] = {}  # first incarnation's ready, wall time
        self.spawned_wall: dict[str, float] = {}
        self.stats: dict[tuple[str, int], dict] = {}  # last counters of every incarnation
        self.malformed_control = 0
        self.stop_signal: int | None = None
        self.gave_up: str | None = None
        self.failed_starts: dict[str, int] = {}
        self.outputs_by = "postprocess"

    def _claim_run_dir(self) -> dict | None:
        """Take ``.run/`` for this run: refuse while another supervisor uses the folder;
        clear what a killed one (SIGKILL) left, its ipc folder included, and say so."""
        lock = self.run_dir / LOCK
        recovered = reclaim_folder(self.run_dir, lock, "rteeg-", "rt-eeg")
        self.run_dir.mkdir()
        lock.write_text(str(os.getpid()))
        return recovered

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
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "RT_EEG_SUPERVISOR_PID": str(os.getpid())}
        if not env.get("RT_EEG_DEBUG"):
            env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        log_file = open(self.run_dir / f"{stage}.log", "a")  # noqa: SIM115 - owned by the child
        self.procs[stage] = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, env=env,
                                             start_new_session=True)  # fmt: skip
        log_file.close()
        self.last_seen[stage] = time.monotonic()
        self.spawned_wall[stage] = time.time()

    def _spawn_monitor(self) -> None:
        # The monitor is the CLI's own command; the wrapper makes it die with the supervisor.
        wrapper = ("import sys; from rt_eeg.lifetime import die_with_parent; "
                   f"die_with_parent({os.getpid()}); from rt_eeg.cli import main; "
                   "sys.exit(main(sys.argv[1:]))")  # fmt: skip
        cmd = [sys.executable, "-c", wrapper, "monitor",
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
        # Not "ready" again until it says so (TensorFlow's import, a live source finding its
        # stream): silence is only a failure once a stage is running.
        self.ready.discard(stage)
        self.restarts.append({"stage": stage, "reason": reason, "wall_time": time.time(),
                              "incarnation": self.incarnation[stage]})  # fmt: skip
        log.warning("restarting %s (%s)", stage, reason)
        self.on_event("restart", stage, reason)
        self._spawn(stage)
        up = UPSTREAM.get(stage)
        if up in self.done:
            # Its upstream already finished: the end-of-stream it sent died with the old
            # incarnation, so send one on its behalf.
            self._send_eos(stage)

    # -- main loop ------------------------------------------------------------------------
    def run_pipeline(self) -> dict:
        """Run to completion; returns the metrics (also written to ``metrics.json``).

        Ctrl-C, SIGTERM and SIGHUP stop the run the same way (end of stream, outputs written
        up to the stop); a second one stops waiting for the stages.
        """
        ctx = zmq.Context()
        try:
            control = make_socket(ctx, zmq.PULL, self.endpoints["control"], bind=True)
            cmd = make_socket(ctx, zmq.PUSH, self.endpoints["source_cmd"], bind=False)
        except (zmq.ZMQError, KeyError, TypeError) as err:
            # Whatever the [endpoints] table holds, a bad one is a one-line error, not a crash.
            ctx.destroy(linger=0)
            if self._ipc_dir is not None:
                shutil.rmtree(self._ipc_dir, ignore_errors=True)
            (self.run_dir / LOCK).unlink(missing_ok=True)
            raise RtEegError(f"cannot open the control endpoints ({err})", self.run_json) from None
        previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
        signals: list[int] = []
        for sig in STOP_SIGNALS:
            signal.signal(sig, lambda signum, _frame: signals.append(signum))
        stop_deadline = None
        go_sent = False
        failed = True  # until the loop ends normally: a run that raises writes no outputs
        try:
            # The decoder (TensorFlow import, model load, XLA warm-up) takes longest: start it first.
            for stage in sorted(DETECTION_STAGES, key=lambda st: st != "decoder"):
                self._spawn(stage)
            if self.monitor:
                self._spawn_monitor()
            deadline_ready = time.monotonic() + self.cfg.ready_timeout_s
            while "postprocess" not in self.done:
                stop_now = False
                if signals and self.stop_signal is None:
                    self.stop_signal = signals[0]
                    log.warning("%s: stopping the source; outputs will be flushed",
                                signal.Signals(self.stop_signal).name)  # fmt: skip
                    stop_now = True
                if self._stop_requested is True and go_sent:  # request_stop()
                    self._stop_requested = "sent"
                    stop_now = True
                if stop_now and stop_deadline is None:
                    cmd.send(json.dumps({"cmd": "stop"}).encode())
                    stop_deadline = time.monotonic() + STOP_TIMEOUT_S
                    if not go_sent:
                        break
                if len(signals) > 1 or (stop_deadline and time.monotonic() > stop_deadline):
                    log.warning("stages did not finish in time; writing outputs from the journal")
                    break
                self._poll_control(control)
                if not go_sent and self.ready >= set(GO_AFTER):
                    self.t_ready = time.time()
                    cmd.send(json.dumps({"cmd": "go"}).encode())
                    go_sent = True
                    self.on_event("go", "source", None)
                if not go_sent and time.monotonic() > deadline_ready:
                    missing = sorted(set(GO_AFTER) - self.ready)
                    raise RtEegError(f"stages not ready after {self.cfg.ready_timeout_s:.0f} s: {', '.join(missing)} "
                                     f"(see {self.run_dir}/*.log)")  # fmt: skip
                self._watch(go_sent)
                if self.gave_up:
                    break
            failed = False
        finally:
            self._shutdown()
            ctx.destroy(linger=0)
            if self._ipc_dir is not None:
                shutil.rmtree(self._ipc_dir, ignore_errors=True)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if not go_sent or failed:  # nothing to write: the folder is free again
                (self.run_dir / LOCK).unlink(missing_ok=True)
        if "postprocess" not in self.done and not self.live:
            # A stop always leaves outputs (all na before go). A live run's rotating parts
            # are written as decisions are made, so they are already on disk.
            self._outputs_from_journal()
        metrics = self.metrics(self.stop_signal is not None)
        write_json_atomic(self.out_dir / "metrics.json", metrics)
        (self.run_dir / LOCK).unlink(missing_ok=True)
        return metrics

    def _outputs_from_journal(self) -> None:
        """The postprocessor did not finish (stop timeout, gave up on a stage): write the
        outputs from every decision it journalled; the rest is marked not analysed."""
        from rt_eeg.outputs import write_outputs
        from rt_eeg.pipeline.journal import read_journal

        decisions, _ = read_journal(self.run_dir / "decisions.jsonl")
        write_outputs(self.out_dir, self.name, decisions, self.duration)
        self.outputs_by = "supervisor (from the journal)"
        log.warning("outputs written from the journal (%d decisions)", len(decisions))

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
                if msg.topic != "control":
                    raise MessageError(f"topic {msg.topic} on the control socket")
                if msg.stream not in self.incarnation:
                    raise MessageError(f"unknown stage {msg.stream[:40]!r}")
            except MessageError as err:
                self.malformed_control += 1
                if self.malformed_control <= 10 or self.malformed_control % 100 == 0:
                    log.warning("supervisor: malformed control message #%d dropped (%s)",
                                self.malformed_control, err)  # fmt: skip
                continue
            stage, kind = msg.stream, msg.kind
            if msg.incarnation != self.incarnation[stage]:
                continue  # from a killed predecessor
            if isinstance(msg.header.get("stats"), dict):
                self.stats[(stage, msg.incarnation)] = msg.header["stats"]
            self.last_seen[stage] = time.monotonic()
            if msg.header.get("error"):
                self.errors.append({"stage": stage, "error": msg.header["error"]})
                self.on_event("error", stage, msg.header["error"])
            if kind == "ready":
                self.ready.add(stage)
                self.t_stage_ready.setdefault(stage, time.time())
                self.failed_starts[stage] = 0
                self.on_event("ready", stage, None)
            elif kind == "heartbeat":
                self.on_event("heartbeat", stage, msg.header.get("stats"))
            elif kind == "eos":  # the stage finished; its header carries its statistics
                self.done[stage] = msg.header.get("stats", {})
                self.on_event("done", stage, self.done[stage])
                down = next((d for d, u in UPSTREAM.items() if u == stage), None)
                if down and self.spawned_wall.get(down, 0) > msg.header.get("t_emit", 0):
                    # Downstream restarted after this end-of-stream was sent: it died with
                    # the old incarnation's queue.
                    self._send_eos(down)

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
                self._restart_or_give_up(stage, f"exited with code {proc.returncode}")
            elif stage in self.ready and now - self.last_seen[stage] > self.cfg.dead_after_s:
                self._restart_or_give_up(stage, f"silent for {now - self.last_seen[stage]:.1f} s")
            elif stage not in self.ready and now - self.last_seen[stage] > self.cfg.ready_timeout_s:
                self._restart_or_give_up(
                    stage, f"not ready {self.cfg.ready_timeout_s:.0f} s after its restart"
                )

    def _restart_or_give_up(self, stage: str, reason: str) -> None:
        # Restarts in a row that never got the stage running (ready) again: a stage that
        # cannot start is not transient. One that runs between failures (a flaky live stream
        # over days) is restarted every time.
        self.failed_starts[stage] = self.failed_starts.get(stage, 0) + 1
        if self.failed_starts[stage] > MAX_RESTARTS:
            self.gave_up = stage
            self.errors.append({"stage": stage, "error": f"{reason} after {MAX_RESTARTS} restarts; "
                                "the run ends here and the rest is not analysed"})  # fmt: skip
            log.error("%s: %s after %d restarts; ending the run", stage, reason, MAX_RESTARTS)
            return
        self.restart(stage, reason)

    def request_stop(self) -> None:
        """Ask the source to stop (as Ctrl-C does); the run then flushes and ends. Safe to
        call from ``on_event``."""
        self._stop_requested = True

    def _end_stream_for_source(self, returncode: int) -> None:
        """The source died mid-stream. It cannot resume at the right sample, so the run ends
        here: end-of-stream is sent on its behalf, the stages flush, and the outputs mark the
        rest of the recording not analysed."""
        self.errors.append({"stage": "source", "error": f"exited with code {returncode} mid-stream; "
                            f"the rest of the recording was not analysed"})  # fmt: skip
        frames = _count((self.stats.get(("source", 0)) or {}).get("processed"))
        self.done["source"] = {"failed": True, "frames": frames}
        self._send_eos("features")

    def _send_eos(self, stage: str) -> None:
        """Send end-of-stream into ``stage``'s input on behalf of its (finished or dead)
        upstream. The PUSH socket queues it until the stage has bound its input."""
        from rt_eeg.pipeline.messages import encode

        endpoint, topic = INPUT[stage]
        ctx = zmq.Context.instance()
        sock = make_socket(ctx, zmq.PUSH, self.endpoints[endpoint], bind=False)
        sock.setsockopt(zmq.LINGER, 5000)
        header = {"kind": "eos", "stream": "supervisor", "seq": 0, "t_emit": time.time(),
                  "interrupted": True}  # fmt: skip
        sock.send_multipart(encode(topic, header))
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
        """The run's metrics (written to ``metrics.json``); see :func:`run_metrics`."""
        return run_metrics(self, interrupted)
