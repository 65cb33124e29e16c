"""``rt-eeg serve``: the ward service process.

It owns no detection state itself. It spawns one decoder process (:mod:`rt_eeg.ward.batcher`)
and one process per bed (:mod:`rt_eeg.ward.bed`), watches their heartbeats, restarts what
dies (the decoder at once, a bed with exponential back-off), answers the control socket,
calls the alarm manager on every decision, publishes the ward status once per second (and
on every state change) and writes each bed's ``metrics.json``. With ``[security]`` the status
publisher and the control socket are CURVE servers (:class:`rt_eeg.security.CurveServer`:
ZAP allow-list, each refused key logged once), so a nurses' station can use them from
another machine.

Lifecycle idioms are the pipeline supervisor's: children die with the service
(``PR_SET_PDEATHSIG``), ``<output>/.ward/serve.pid`` makes one service per output root (a
killed one's leftovers are cleared and reported), the sockets live in a private 0700 folder
that is removed at the end. SIGTERM, SIGHUP and Ctrl-C stop every bed (each writes its
outputs up to the stop, with the decoder still serving it), then the decoder; a second
signal, or ``STOP_TIMEOUT_S``, kills what is left and writes the file beds' outputs from
their journals.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zmq

from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import write_json_atomic, write_text_atomic
from rt_eeg.pipeline.messages import MessageError, decode
from rt_eeg.pipeline.transport import make_socket
from rt_eeg.security import CurveServer
from rt_eeg.ward.alarms import AlarmManager
from rt_eeg.ward.config import BedConfig, WardConfig, bed_from_dict
from rt_eeg.ward.control import RequestError, parse_request
from rt_eeg.ward.status import encode_status
from rt_eeg.ward.views import BedEntry, WardViews

log = logging.getLogger("rt_eeg.ward")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_TIMEOUT_S = 40.0
LOCK = "serve.pid"
#: Decoder starts in a row that fail before it is ready, after which the service stops.
MAX_DECODER_FAILS = 3
STATUS_EVERY_S = 1.0
METRICS_EVERY_S = 10.0


class WardService(WardViews):
    """The ward service (see the module docstring).

    Parameters
    ----------
    cfg : WardConfig
    on_event : callable, optional
        ``on_event(kind, who, info)`` for tests and benchmarks (``ready``, ``decision``,
        ``restart``, ``exit``, ``status``).
    """

    def __init__(self, cfg: WardConfig, *, on_event=None):
        self.cfg = cfg
        self.on_event = on_event or (lambda *a: None)
        from rt_eeg.pipeline.preflight import check_model

        # the model's files against its manifest, and its feature settings, read once: the
        # decoder and every bed run these (a folder changed since is refused by the decoder)
        self.features = check_model(Path(cfg.model)).to_toml()
        self.root = Path(cfg.output)
        self.root.mkdir(parents=True, exist_ok=True)
        self.ward_dir = self.root / ".ward"
        self.beds: dict[str, BedEntry] = {}
        for bed in cfg.beds:  # every configured bed is checked before anything starts
            self.beds[bed.name] = self._entry(bed)
        self.recovered = self._claim()
        if cfg.ipc_dir:
            self.ipc = Path(cfg.ipc_dir)
            self.ipc.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(self.ipc, 0o700)
            self._own_ipc = False
        else:
            self.ipc = Path(tempfile.mkdtemp(prefix="rteeg-ward-"))  # 0700, short path
            self._own_ipc = True
        write_text_atomic(self.ward_dir / "ipc_dir", str(self.ipc))
        self.ep = {
            "reports": f"ipc://{self.ipc}/reports",
            "decoder": f"ipc://{self.ipc}/decoder",
            "control": cfg.control or f"ipc://{self.ipc}/control",
            "status": cfg.status or f"ipc://{self.ipc}/status",
        }
        self.decoder = {"proc": None, "inc": -1, "ready": False, "last_seen": 0.0, "spawned": 0.0,
                        "stats": {}, "stats_by_inc": {}, "restarts": [], "t_ready": None}  # fmt: skip
        self.signals: list[int] = []
        self.stop_signal: int | None = None
        self.status_seq = 0
        self.malformed_reports = 0
        self.t_launch = time.time()
        self.curve: CurveServer | None = None

    # -- setup ---------------------------------------------------------------------------
    def _entry(self, bed: BedConfig) -> BedEntry:
        """Pre-flight one bed (an EDF's header, calibration and montage) before it starts."""
        out = self.cfg.bed_out(bed)
        if bed.edf:
            from rt_eeg.montage import check_enough_channels
            from rt_eeg.sources import source_from_spec

            src = source_from_spec(bed.source_spec())
            try:
                stem, ch = src.name, list(src.ch_names)
            finally:
                src.close()
            check_enough_channels(ch, bed.edf)
        else:
            stem, ch = bed.name, []
        return BedEntry(bed, out, stem, ch, time.time())

    def _claim(self) -> dict | None:
        """One service per output root: refuse while another lives; clear a killed one's files."""
        from rt_eeg.pipeline.preflight import reclaim_folder

        lock = self.ward_dir / LOCK
        recovered = reclaim_folder(self.ward_dir, lock, "rteeg-ward-", "rt-eeg serve")
        (self.ward_dir / "beds").mkdir(parents=True)
        (self.ward_dir / "logs").mkdir()
        lock.write_text(str(os.getpid()))
        return recovered

    # -- processes -----------------------------------------------------------------------
    def _popen(self, module: str, spec_path: Path, inc: int, log_name: str) -> subprocess.Popen:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "RT_EEG_SUPERVISOR_PID": str(os.getpid())}
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        with open(self.ward_dir / "logs" / f"{log_name}.log", "a") as log_file:
            return subprocess.Popen([sys.executable, "-m", module, str(spec_path), str(inc)],
                                    stdout=log_file, stderr=subprocess.STDOUT, env=env,
                                    start_new_session=True)  # fmt: skip

    def _spawn_decoder(self, reason: str | None = None) -> None:
        d = self.decoder
        if d["proc"] is not None and d["proc"].poll() is None:
            d["proc"].kill()
            d["proc"].wait(5)
        d["inc"] += 1
        if reason:
            d["restarts"].append({"reason": reason, "wall_time": time.time(), "incarnation": d["inc"]})
            log.warning("restarting the decoder (%s)", reason)
            self.on_event("restart", "decoder", reason)
        spec = {"model": self.cfg.model, "features": self.features, "device": self.cfg.device, "endpoints": self.ep,
                "heartbeat_s": self.cfg.heartbeat_s, "batch_wait_ms": self.cfg.batch_wait_ms,
                "data_hwm": self.cfg.data_hwm, "warm_windows": self.cfg.warm_windows}  # fmt: skip
        path = self.ward_dir / "decoder.json"
        write_json_atomic(path, spec)
        d["ready"] = False
        d["proc"] = self._popen("rt_eeg.ward.batcher", path, d["inc"], "decoder")
        d["spawned"] = d["last_seen"] = time.monotonic()

    def _bed_endpoints(self, name: str) -> dict:
        return {"reports": self.ep["reports"], "decoder": self.ep["decoder"],
                "display_signal": f"ipc://{self.ipc}/{name}.sig",
                "display_decision": f"ipc://{self.ipc}/{name}.dec"}  # fmt: skip

    def _spawn_bed(self, e: BedEntry) -> None:
        e.inc += 1
        e.out.mkdir(parents=True, exist_ok=True)
        spec = {"bed": e.cfg.to_dict(), "source": e.cfg.source_spec(), "out_dir": str(e.out),
                "stem": e.stem, "endpoints": self._bed_endpoints(e.cfg.name), "model": self.cfg.model,
                "features": self.features,
                "postprocess": self.cfg.postprocess.to_dict() if self.cfg.postprocess else None,
                "heartbeat_s": self.cfg.heartbeat_s, "data_hwm": self.cfg.data_hwm,
                "speed": e.cfg.speed, "rotate_s": 3600.0}  # fmt: skip
        path = self.ward_dir / "beds" / f"{e.cfg.name}.json"
        write_json_atomic(path, spec)
        e.ready = e.finished = False
        e.backoff_until = None
        e.proc = self._popen("rt_eeg.ward.bed", path, e.inc, f"bed-{e.cfg.name}")
        e.spawned = e.last_seen = time.monotonic()
        if e.paused:  # a restarted paused bed stays paused
            e.proc.send_signal(signal.SIGUSR1)

    def _bed_failed(self, e: BedEntry, reason: str) -> None:
        """Kill (if needed) and schedule a restart with doubling back-off."""
        if e.proc is not None and e.proc.poll() is None:
            e.proc.kill()
            e.proc.wait(5)
        e.error = e.error or reason
        wait = min(self.cfg.backoff_max_s, self.cfg.backoff_s * 2 ** min(e.fails_in_row, 20))
        e.fails_in_row += 1
        e.backoff_until = time.monotonic() + wait
        e.ready = False
        e.restarts.append({"reason": reason, "wall_time": time.time(), "incarnation": e.inc + 1,
                           "after_s": wait})  # fmt: skip
        log.warning("bed %s: %s; restarting in %g s", e.cfg.name, reason, wait)
        self.on_event("restart", e.cfg.name, reason)

    # -- main loop -----------------------------------------------------------------------
    def run(self) -> int:
        """Serve until a stop signal; returns the exit code (128 + signal)."""
        ctx = zmq.Context()
        # [security]: the two sockets a nurses' station may reach are CURVE servers behind the
        # ZAP allow-list, wherever they are bound; the internal ones stay private ipc.
        self.curve = CurveServer.from_config(ctx, self.cfg.security)
        try:
            reports = make_socket(ctx, zmq.PULL, self.ep["reports"], bind=True)
            reports.setsockopt(zmq.RCVHWM, 100_000)
            control = make_socket(ctx, zmq.REP, self.ep["control"], bind=True, curve=self.curve)
            status = make_socket(ctx, zmq.PUB, self.ep["status"], bind=True, hwm=50, curve=self.curve)
            alarm_pub = status
        except zmq.ZMQError as err:
            self._stop_curve()
            ctx.destroy(linger=0)
            self._cleanup()
            raise RtEegError(f"cannot open the ward endpoints ({err})", self.root) from None
        write_json_atomic(self.ward_dir / "endpoints.json",
                          {"control": self.ep["control"], "status": self.ep["status"],
                           "curve": self.curve is not None})  # fmt: skip
        self.encode_status = encode_status
        self.alarms = AlarmManager(
            str(self.root / self.cfg.alarm_log), command=list(self.cfg.alarm_command) or None,
            publish=lambda topic, frames: alarm_pub.send_multipart(frames, zmq.NOBLOCK),
        )
        previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
        for sig in STOP_SIGNALS:
            signal.signal(sig, lambda signum, _f: self.signals.append(signum))
        self.status_sock = status
        poller = zmq.Poller()
        poller.register(reports, zmq.POLLIN)
        poller.register(control, zmq.POLLIN)
        self._spawn_decoder()
        next_status = next_metrics = time.monotonic()
        stop_deadline = None
        try:
            while True:
                if self.signals and stop_deadline is None:
                    self.stop_signal = self.signals[0]
                    stop_deadline = time.monotonic() + STOP_TIMEOUT_S
                    self._begin_stop()
                events = dict(poller.poll(100))
                if reports in events:
                    self._read_reports(reports)
                if control in events:
                    self._serve_control(control)
                now = time.monotonic()
                self._supervise(now, stopping=stop_deadline is not None)
                if now >= next_status or self._state_changed():
                    self._publish_status()
                    next_status = now + STATUS_EVERY_S
                if now >= next_metrics:
                    for e in self.beds.values():
                        self._write_metrics(e)
                    next_metrics = now + METRICS_EVERY_S
                if stop_deadline is not None:
                    alive = [e for e in self.beds.values() if e.proc is not None and e.proc.poll() is None]
                    if not alive or len(self.signals) > 1 or now > stop_deadline:
                        break
        finally:
            self._finish(reports)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._publish_status()
            self._stop_curve()
            ctx.destroy(linger=0)
            self.alarms.close()
            self._cleanup()
        return 128 + self.stop_signal if self.stop_signal else 0

    def _stop_curve(self) -> None:
        if self.curve is not None:  # its ZAP thread holds a socket of ctx: stop it first
            self.curve.stop()

    def request_stop(self, signum: int = signal.SIGTERM) -> None:
        """Stop as a signal would (for embedding and tests)."""
        self.signals.append(signum)

    def _begin_stop(self) -> None:
        log.warning("stopping: every bed writes its outputs up to now")
        for e in self.beds.values():
            if e.proc is not None and e.proc.poll() is None:
                e.proc.send_signal(signal.SIGTERM)
            e.backoff_until = None  # nothing restarts while stopping

    def _finish(self, reports) -> None:
        """Kill what did not stop, write outputs from journals where a bed could not, stop the
        decoder, final metrics."""
        for e in self.beds.values():
            if e.proc is not None and e.proc.poll() is None:
                e.proc.kill()
                e.proc.wait(5)
                self._outputs_from_journal(e)
        try:
            self._read_reports(reports)
        except zmq.ZMQError:
            pass
        d = self.decoder["proc"]
        if d is not None and d.poll() is None:
            d.terminate()
            try:
                d.wait(5)
            except subprocess.TimeoutExpired:
                d.kill()
                d.wait(5)
        for e in self.beds.values():
            self._write_metrics(e)
        write_json_atomic(self.root / "ward_metrics.json", self.ward_metrics())

    def _outputs_from_journal(self, e: BedEntry) -> None:
        if not e.cfg.edf or e.finished:
            return
        from rt_eeg.outputs import write_outputs
        from rt_eeg.pipeline.journal import read_journal

        decisions, _ = read_journal(e.out / ".run" / "decisions.jsonl")
        src_duration = e.stats.get("duration")
        if src_duration is None:
            from rt_eeg.io.edf import open_recording

            with open_recording(e.cfg.edf) as rec:
                src_duration = rec.duration
        write_outputs(e.out, e.stem, decisions, src_duration)

    def _cleanup(self) -> None:
        if self._own_ipc:
            shutil.rmtree(self.ipc, ignore_errors=True)
        else:
            for p in self.ipc.glob("*"):
                if p.is_socket():
                    p.unlink(missing_ok=True)
        shutil.rmtree(self.ward_dir / "beds", ignore_errors=True)
        for name in ("endpoints.json", "decoder.json", "ipc_dir", LOCK):
            (self.ward_dir / name).unlink(missing_ok=True)

    # -- reports from beds and the decoder ----------------------------------------------------
    def _read_reports(self, sock) -> None:
        # At most 1000 per loop turn: a backlog (a decoder catching up) must not keep the
        # control socket and the status waiting.
        for _ in range(1_000):
            try:
                parts = sock.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                msg = decode(parts)
            except MessageError:
                self.malformed_reports += 1
                continue
            who = msg.stream
            if who == "decoder" and msg.topic == "control":
                self._decoder_report(msg)
                continue
            e = self.beds.get(who)
            if e is None or msg.incarnation != e.inc:
                continue  # a bed removed, or an older incarnation's last words
            if msg.topic == "decision" and msg.kind == "data":
                self._decision(e, msg)
            elif msg.topic == "control":
                self._bed_report(e, msg)
            else:
                self.malformed_reports += 1

    def _decoder_report(self, msg) -> None:
        d = self.decoder
        if msg.incarnation != d["inc"]:
            return
        d["last_seen"] = time.monotonic()
        if isinstance(msg.header.get("stats"), dict):
            d["stats"] = d["stats_by_inc"][d["inc"]] = msg.header["stats"]
        if msg.kind == "ready" and not d["ready"]:
            d["ready"], d["fails"] = True, 0
            d["t_ready"] = d["t_ready"] or time.time()
            self.on_event("ready", "decoder", d["stats"])
        if msg.header.get("error"):
            d["error"] = str(msg.header["error"])[:300]
            log.error("decoder: %s", d["error"])

    def _bed_report(self, e: BedEntry, msg) -> None:
        e.last_seen = time.monotonic()
        stats = msg.header.get("stats")
        if isinstance(stats, dict):
            e.stats = e.stats_by_inc[e.inc] = stats
        if msg.header.get("error"):
            e.error = str(msg.header["error"])[:300]
        if msg.kind == "ready":
            e.ready = True
            self.on_event("ready", e.cfg.name, None)
        elif msg.kind == "heartbeat" and e.ready and not msg.header.get("error") and e.stats.get("n_decisions"):
            e.fails_in_row = 0  # decisions again: the back-off starts over next time
            e.error = None
        elif msg.kind == "eos":
            e.finished = True
            self._write_metrics(e)
            self.on_event("eos", e.cfg.name, stats)

    def _decision(self, e: BedEntry, msg) -> None:
        from rt_eeg.postprocess import Decision

        h = msg.header
        try:
            d = Decision(float(h["start"]), float(h["stop"]), str(h["label"]), float(h["confidence"]),
                         tuple(h.get("channels") or ()), float("nan") if h.get("score") is None else float(h["score"]))  # fmt: skip
        except (KeyError, TypeError, ValueError):
            self.malformed_reports += 1
            return
        e.n_decisions += 1
        e.last_decision_stop = d.stop
        if e.first_decision_wall is None:
            e.first_decision_wall = h.get("wall") or time.time()
        top = h.get("top_channels") if isinstance(h.get("top_channels"), list) else []
        try:
            self.alarms.on_decision(e.cfg.name, d, list(d.channels), [str(c) for c in top][:8])
        except Exception:  # noqa: BLE001 - an alarm problem must never stop the ward
            log.exception("alarm manager failed on %s", e.cfg.name)
        self.on_event("decision", e.cfg.name, d)

    # -- supervision ---------------------------------------------------------------------
    def _supervise(self, now: float, *, stopping: bool) -> None:
        d = self.decoder
        proc = d["proc"]
        if proc.poll() is not None and not d["ready"]:
            d["fails"] = d.get("fails", 0) + 1
            if d["fails"] >= MAX_DECODER_FAILS:  # e.g. a model that cannot load: stop, say why
                raise RtEegError(f"the decoder failed {d['fails']} times before it was ready: "
                                 f"{d.get('error') or 'exit code ' + str(proc.returncode)}", self.cfg.model)
        if not stopping or any(e.proc is not None and e.proc.poll() is None for e in self.beds.values()):
            if proc.poll() is not None:
                self._spawn_decoder(f"exited with code {proc.returncode}")
            elif d["ready"] and now - d["last_seen"] > self.cfg.dead_after_s:
                self._spawn_decoder(f"silent for {now - d['last_seen']:.1f} s")
            elif not d["ready"] and now - d["spawned"] > self.cfg.ready_timeout_s:
                self._spawn_decoder(f"not ready after {self.cfg.ready_timeout_s:g} s")
        for name in list(self.beds):
            e = self.beds[name]
            if e.proc is None:
                # Beds start once the model is loaded (first decisions are not held up by it);
                # a failed bed waits out its back-off.
                if stopping or e.removing or not d["t_ready"]:
                    continue
                if e.backoff_until is None or now >= e.backoff_until:
                    self._spawn_bed(e)
                continue
            code = e.proc.poll()
            if code is not None:
                if e.removing:
                    self._write_metrics(e)
                    del self.beds[name]
                    self.on_event("removed", name, None)
                elif e.finished or stopping or code == 0:
                    e.finished = True  # a bed exits 0 only after writing its outputs
                else:
                    e.proc = None
                    self._bed_failed(e, f"exited with code {code}")
                continue
            if e.finished or stopping:
                continue
            silent = now - e.last_seen
            if e.ready and silent > self.cfg.dead_after_s:
                e.proc.kill()
                e.proc.wait(5)
                e.proc = None
                self._bed_failed(e, f"silent for {silent:.1f} s")
            elif not e.ready and silent > max(self.cfg.ready_timeout_s, 30.0):
                e.proc.kill()
                e.proc.wait(5)
                e.proc = None
                self._bed_failed(e, "never became ready")

    # -- control -------------------------------------------------------------------------
    def _serve_control(self, sock) -> None:
        try:
            raw = sock.recv(zmq.NOBLOCK)
        except zmq.Again:
            return
        try:
            reply = self.handle(parse_request(raw))
        except (RequestError, RtEegError, ValueError) as err:
            reply = {"ok": False, "error": str(err).splitlines()[0][:300] if str(err) else type(err).__name__}
        except Exception as err:  # noqa: BLE001 - a request never takes the service down
            log.exception("control request failed")
            reply = {"ok": False, "error": f"internal error: {type(err).__name__}: {err}"[:300]}
        sock.send(json.dumps(reply, default=str).encode())

    def handle(self, req: dict) -> dict:
        """Act on one parsed request; raises ``RequestError``/``RtEegError`` for the reply."""
        cmd = req["cmd"]
        if cmd == "list":
            return {"ok": True, "beds": [self._row(e) for e in self.beds.values()],
                    "decoder": self._decoder_row()}  # fmt: skip
        if cmd == "add":
            if any(s for s in self.signals):
                raise RequestError("the ward is stopping")
            bed = bed_from_dict(req["bed"], "bed")
            if bed.name in self.beds:
                raise RequestError(f"bed {bed.name!r} exists already")
            out = str(self.cfg.bed_out(bed))
            if any(str(e.out) == out for e in self.beds.values()):
                raise RequestError(f"another bed writes to {out}")
            e = self._entry(bed)
            self.beds[bed.name] = e
            if self.decoder["t_ready"]:
                self._spawn_bed(e)
            return {"ok": True, "bed": bed.name, "out": out}
        if cmd == "ack":
            return {"ok": True, "alarm": self.alarms.acknowledge(req["alarm"], req["by"])}
        e = self.beds.get(req["bed"])
        if e is None:
            raise RequestError(f"unknown bed {req['bed'][:40]!r}")
        if cmd == "remove":
            e.removing = True
            if e.proc is not None and e.proc.poll() is None:
                e.proc.send_signal(signal.SIGTERM)  # outputs written up to now
            else:
                e.proc = None
                self._write_metrics(e)
                del self.beds[e.cfg.name]
            return {"ok": True, "bed": e.cfg.name, "removing": True}
        if cmd in ("pause", "resume"):
            e.paused = cmd == "pause"
            if e.proc is not None and e.proc.poll() is None:
                e.proc.send_signal(signal.SIGUSR1 if e.paused else signal.SIGUSR2)
            return {"ok": True, "bed": e.cfg.name, "paused": e.paused}
        raise RequestError(f"unknown cmd {cmd!r}")
