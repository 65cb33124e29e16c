"""One bed's process: its source, LFCC features and postprocessor; the ward's decoder is shared.

Run as ``python -m rt_eeg.ward.bed BED_JSON INCARNATION`` by the ward service. One process
per bed holds the bed's whole state (a dead or stalled bed can only hurt itself), and the
three stages run in-process: at 1x a bed's stages need a few ms per 0.1 s frame, so extra
processes per bed would cost memory and hops without using more than the 2 cores there are.

Wire (``rt_eeg.pipeline.messages`` everywhere):

- to the decoder, a DEALER whose routing id is the bed name: ``features`` frames
  ``(k, n_ch, 26)`` with ``t0``, ``t_emit`` and ``reset``; ``eos`` at the end. Sends block
  (back-pressure: ``--speed max`` stays lossless) but probabilities keep being read while
  they wait, so the decoder never waits on a bed.
- from the decoder: ``probs`` ``(n_ch,)`` per 1 s epoch; ``reset`` when the decoder started
  this bed's window afresh (a decoder restart): the postprocessor restarts and the epochs it
  never got are decided ``na``.
- to the service (PUSH): ``control`` ready / heartbeat (every ``heartbeat_s``, carrying the
  bed's status, metrics and display trace) / eos; ``decision`` per decision (payload: the
  per-channel probabilities) for the alarms.

Signals: SIGTERM or SIGINT stop the bed (outputs written up to the stop), SIGUSR1 pauses,
SIGUSR2 resumes. A file bed restarted after a crash resumes after the last journalled
decision (``<out>/.run/decisions.jsonl``), the lost stretch decided ``na``.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np
import zmq

from rt_eeg.lifetime import die_with_parent
from rt_eeg.pipeline.messages import Expect, MessageError, decode
from rt_eeg.pipeline.transport import Sender, make_socket, percentiles

log = logging.getLogger("rt_eeg.ward")
FRAME = 25  # samples per 0.1 s frame at 250 Hz
TRACE_RATE = 25  # Hz of the status trace
TRACE_N = 250  # samples of the status trace (10 s)
EOS_RESEND_S = 5.0  # the decoder may have restarted and lost our end of stream
EOS_GIVE_UP_S = 30.0
LATENCY_WINDOW = 100_000


class BedProcess:
    """The bed's loop. ``spec`` is the JSON the service wrote (see ``WardService._bed_spec``)."""

    def __init__(self, spec: dict, incarnation: int):
        self.spec, self.inc = spec, incarnation
        self.name = spec["bed"]["name"]
        self.out_dir = Path(spec["out_dir"])
        self.run_dir = self.out_dir / ".run"
        self.stopping = self.paused = False
        self.ctx = zmq.Context()
        ep = spec["endpoints"]
        self.reports = Sender(make_socket(self.ctx, zmq.PUSH, ep["reports"], bind=False), self.name,
                              incarnation)  # fmt: skip
        self.reports.sock.setsockopt(zmq.LINGER, 2000)
        self.dealer = self.ctx.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.ROUTING_ID, self.name.encode())
        self.dealer.setsockopt(zmq.SNDHWM, spec["data_hwm"])
        self.dealer.setsockopt(zmq.RCVHWM, 100_000)
        self.dealer.setsockopt(zmq.LINGER, 0)
        self.dealer.connect(ep["decoder"])
        self.to_dec = Sender(self.dealer, "features", incarnation)
        self.pub_sig = Sender(make_socket(self.ctx, zmq.PUB, ep["display_signal"], bind=True, hwm=20),
                              "source")  # fmt: skip
        self.pub_dec = Sender(make_socket(self.ctx, zmq.PUB, ep["display_decision"], bind=True, hwm=20),
                              "postprocess", incarnation)  # fmt: skip
        self.hb_s = float(spec["heartbeat_s"])
        self._last_beat = 0.0
        self._ready_sent = False
        # metrics
        self.latency_ms: deque[float] = deque(maxlen=LATENCY_WINDOW)
        self.latency_log: deque[tuple[float, float]] = deque(maxlen=LATENCY_WINDOW)  # (wall, ms)
        self.n_frames = 0
        self.n_decisions = 0
        self.n_na = 0
        self.malformed = 0
        self.decoder_resets = 0
        self.first_sample_wall: float | None = None
        self.first_decision_wall: float | None = None
        self.t_last_data: float | None = None
        self.t_signal = 0.0
        self.last: dict | None = None
        self.last_probs: np.ndarray | None = None
        self.eos_back = False
        self.decided_to: float | None = None  # end of the last decision (never decide twice)

    # -- signals and heartbeats ---------------------------------------------------------
    def install_signals(self) -> None:
        def stop(*_):
            self.stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGHUP, stop)
        signal.signal(signal.SIGUSR1, lambda *_: setattr(self, "paused", True))
        signal.signal(signal.SIGUSR2, lambda *_: setattr(self, "paused", False))

    def report(self, kind: str, **extra) -> None:
        self.reports.send("control", {"kind": kind, "t_emit": time.time(), "pid": os.getpid(),
                                      **extra}, block=False)  # fmt: skip

    def beat(self, force: bool = False) -> bool:
        """Heartbeat when due (always False: usable as ``should_abort``).

        The first call reports ``ready`` instead: a bed is ready once its loop runs (its first
        block read, resampled and sent, or a live source idle), not when its objects exist. The
        first block pays for lazy imports (scipy) and file reads, which take seconds when many
        beds start at once on a loaded machine; until ``ready`` the service allows
        ``ready_timeout_s``, after it only ``dead_after_s`` of silence."""
        now = time.monotonic()
        if not self._ready_sent:
            self._ready_sent = True
            self._last_beat = now
            self.report("ready", stats=self.stats())
        elif force or now - self._last_beat >= self.hb_s:
            self._last_beat = now
            self.report("heartbeat", stats=self.stats())
        return False

    def stats(self) -> dict:
        """Everything the service shows about this bed (list, status, metrics.json)."""
        trace, trace_ch = self._trace()
        return {
            "processed": self.n_frames, "t_signal": round(self.t_signal, 3),
            "t_last_data": self.t_last_data, "paused": self.paused,
            "status": getattr(self.src, "status", "ok") if hasattr(self, "src") else "starting",
            "sfreq_in": getattr(self, "sfreq_in", None), "last": self.last,
            "latency_ms": percentiles(self.latency_ms), "n_decisions": self.n_decisions,
            "n_na": self.n_na, "malformed": self.malformed, "decoder_resets": self.decoder_resets,
            "first_sample_wall": self.first_sample_wall,
            "first_decision_wall": self.first_decision_wall,
            "trace": trace, "trace_channel": trace_ch,
        }  # fmt: skip

    def _trace(self) -> tuple[list[float], str | None]:
        """Last 10 s of one channel at 25 Hz: the most likely seizure channel while in
        seizure, else the first."""
        if not hasattr(self, "ring"):
            return [0.0] * TRACE_N, None
        ch = 0
        if self.last and self.last["label"] == "seiz" and self.last_probs is not None:
            ch = int(np.argmax(self.last_probs))
        data = np.roll(self.ring[:, ch], -self.ring_pos)
        return [round(float(v), 2) for v in data], self.ch_names[ch]

    # -- decoder --------------------------------------------------------------------------
    def send_decoder(self, header: dict, payload=None) -> bool:
        """Blocking send (back-pressure) that keeps reading probabilities and heartbeating."""
        while True:
            ev = self.dealer.poll(100, zmq.POLLIN | zmq.POLLOUT)
            if ev & zmq.POLLIN:
                self.drain()
            if ev & zmq.POLLOUT:
                return self.to_dec.send("features", header, payload, block=False) or False
            self.beat()
            if self.stopping and self.hard_stop:
                return False

    def drain(self, timeout_ms: int = 0) -> None:
        """Read every probability message waiting (first waiting up to ``timeout_ms``)."""
        if timeout_ms and not self.dealer.poll(timeout_ms):
            return
        while True:
            try:
                parts = self.dealer.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                msg = decode(parts)
                self.expect.check(msg)
            except MessageError as err:
                self.malformed += 1
                log.warning("%s: malformed message from the decoder dropped (%s)", self.name, err)
                continue
            if msg.kind == "eos":
                self.eos_back = True
                continue
            if msg.header.get("reset"):
                self.decoder_resets += 1
                self.post.restart()  # the epochs it never decided become 'na'
            start = float(msg.header["t0"])
            if self.decided_to is not None and start < self.decided_to - 1e-6:
                self.malformed += 1  # an epoch decided already (never decide twice)
                continue
            for d in self.post.push(start, msg.payload):
                self.publish(d, msg.payload, msg.header.get("t_emit", time.time()))

    def publish(self, d, probs: np.ndarray, t_emit: float) -> None:
        from rt_eeg.pipeline.journal import decision_record

        now = time.time()
        rec = decision_record(d, now)
        self.n_decisions += 1
        self.decided_to = d.stop
        if self.live_out is not None:
            self.live_out.add(d)
        else:
            self.journal.write(json.dumps(rec) + "\n")
            self.journal.flush()
            self.decisions.append(d)
        if d.label == "na":
            self.n_na += 1
        else:
            self.latency_ms.append((now - t_emit) * 1000)
            self.latency_log.append((round(now, 3), round((now - t_emit) * 1000, 3)))
            self.last_probs = np.asarray(probs, np.float32)
        if self.first_decision_wall is None:
            self.first_decision_wall = now
        order = np.argsort(-np.asarray(probs), kind="stable")[:2]
        top = [self.ch_names[i] for i in order]
        self.last = {"label": d.label, "start": d.start, "stop": d.stop,
                     "confidence": d.confidence, "channels": list(d.channels),
                     "score": None if np.isnan(d.score) else d.score, "top_channels": top}  # fmt: skip
        header = {"kind": "data", "t0": d.start, "t_emit": t_emit, **rec}
        del header["wall"]
        header["score"] = self.last["score"]
        payload = np.asarray(probs, np.float32)
        self.pub_dec.send("decision", header, payload, block=False)
        self.reports.send("decision", {**header, "top_channels": top, "wall": now}, payload,
                          block=False)  # fmt: skip

    # -- main -----------------------------------------------------------------------------
    def main(self) -> int:
        from rt_eeg.config import load_postprocess_config
        from rt_eeg.features import FeatureConfig, StreamingFeatures
        from rt_eeg.postprocess import PostprocessConfig, Postprocessor
        from rt_eeg.sources import source_from_spec

        spec = self.spec
        bed = spec["bed"]
        live = bool(bed["lsl"])
        self.run_dir.mkdir(parents=True, exist_ok=True)
        src_spec = dict(spec["source"])
        if live:
            src_spec["origin_file"] = str(self.run_dir / "source_origin.json")
        self.src = src = source_from_spec(src_spec)
        self.ch_names = list(src.ch_names)
        self.sfreq_in = getattr(src, "stream_sfreq", None) or getattr(getattr(src, "rec", None), "native_sfreq", None)
        n_ch = len(self.ch_names)
        self.expect = Expect("probs", (n_ch,), time_axis=False, step_s=1.0,
                             streams=frozenset({"decoder"}))  # fmt: skip
        post_over = spec.get("postprocess")
        self.post = Postprocessor(self.ch_names, load_postprocess_config(
            spec["model"], PostprocessConfig.from_dict(post_over) if post_over else None))
        self.ring = np.zeros((TRACE_N, n_ch), np.float32)
        self.ring_pos = 0
        self.hard_stop = False
        self.live_out = None
        self.decisions = []
        resume_t = 0.0
        if live:
            from rt_eeg.io.rotating import RotatingSignal
            from rt_eeg.outputs import LiveOutputs

            self.live_out = LiveOutputs(self.out_dir, spec["stem"], spec["rotate_s"])
            if self.live_out.last_stop is not None:
                self.decided_to = self.live_out.last_stop
                self.post.restart(resume_at=self.live_out.last_stop)
            self.writer = RotatingSignal(self.out_dir, spec["stem"], src.sfreq, self.ch_names,
                                         spec["rotate_s"])  # fmt: skip
        else:
            from rt_eeg.pipeline.journal import read_journal

            self.writer = None  # a replayed file is its own recording
            jpath = self.run_dir / "decisions.jsonl"
            if self.inc == 0:
                jpath.unlink(missing_ok=True)  # a new run of this bed, not a resume
            self.decisions, self.first_decision_wall = read_journal(jpath, repair=True)
            if self.decisions:
                resume_t = self.decided_to = self.decisions[-1].stop
                self.post.restart(resume_at=resume_t)
            self.journal = open(jpath, "a", encoding="utf-8")  # noqa: SIM115
        speed = None if live else spec["speed"]
        per_message = FRAME if (speed or live) else FRAME * 10
        resume_n = int(round(resume_t * src.sfreq))
        self.fx = None
        self.first = self.inc > 0
        t_start = time.monotonic()
        paused_s = 0.0
        features = FeatureConfig.from_toml(spec["features"])  # the model's (pre-flight)
        make_fx = lambda: StreamingFeatures(n_ch, features)  # noqa: E731
        self._make_fx = make_fx
        try:
            for blk in src.blocks(per_message):
                if blk is None:  # live source idle: heartbeat, stop, probabilities
                    self.drain(0)
                    self.beat()
                    if self.stopping:
                        break
                    continue
                if blk.start < resume_n:
                    continue
                while self.paused and not self.stopping:
                    t_p = time.monotonic()
                    self.drain(100)
                    self.beat()
                    paused_s += time.monotonic() - t_p
                    if live:
                        self.first = True  # what arrives while paused is not analysed
                        break
                if self.paused and live:
                    continue
                if speed:  # drift-free pacing to an absolute target
                    target = t_start + paused_s + (blk.start - resume_n) / src.sfreq / speed
                    while (wait := target - time.monotonic()) > 0 and not self.stopping:
                        self.drain(max(1, int(min(wait, 0.1) * 1000)))
                        self.beat()
                if self.stopping:
                    break
                if not self.emit(blk, src):
                    break
                self.drain(0)
                self.beat()
            for blk in src.finish(per_message):
                self.emit(blk, src)
        finally:
            src.close()
        return self.finish(src)

    def emit(self, blk, src) -> bool:
        now = time.time()
        t_emit = now if blk.t_capture is None else min(now, blk.t_capture)
        data = blk.data
        if self.first_sample_wall is None:
            self.first_sample_wall = now
        self.t_last_data = now
        if self.writer is not None:
            self.writer.append(blk.start, data)
        self.pub_sig.send("signal", {"kind": "data", "t0": blk.start / src.sfreq, "sfreq": src.sfreq,
                                     "ch_names": self.ch_names, "t_emit": t_emit}, data, block=False)  # fmt: skip
        idx = np.arange((-blk.start) % (int(src.sfreq) // TRACE_RATE), len(data), int(src.sfreq) // TRACE_RATE)
        for row in data[idx]:
            self.ring[self.ring_pos] = row
            self.ring_pos = (self.ring_pos + 1) % TRACE_N
        whole = len(data) // FRAME * FRAME  # a trailing partial frame is not analysed
        self.t_signal = (blk.start + len(data)) / src.sfreq
        if not whole:
            return True
        reset = False
        if self.fx is None or blk.reset or self.first:
            # Fresh features (first start, resume, gap): times count from this frame.
            reset = self.fx is not None or self.first
            self.fx = self._make_fx()
            self.origin = blk.start / src.sfreq
            self.first = False
        feats, times = self.fx.push(data[:whole])
        self.n_frames += whole // FRAME
        if len(feats) == 0:
            self.pending_reset = reset or getattr(self, "pending_reset", False)
            return True
        reset = reset or getattr(self, "pending_reset", False)
        self.pending_reset = False
        header = {"kind": "data", "t0": self.origin + float(times[0]), "t_emit": t_emit,
                  "reset": reset}  # fmt: skip
        return self.send_decoder(header, feats)

    def finish(self, src) -> int:
        """Features' tail, end of stream through the decoder, outputs, final report."""
        if self.fx is not None:
            feats, times = self.fx.flush()
            if len(feats):
                self.send_decoder({"kind": "data", "t0": self.origin + float(times[0]),
                                   "t_emit": time.time(), "reset": False}, feats)  # fmt: skip
        self.hard_stop = True
        t0 = time.monotonic()
        sent_at = -1e9
        while not self.eos_back and time.monotonic() - t0 < EOS_GIVE_UP_S:
            if time.monotonic() - sent_at >= EOS_RESEND_S:
                # Never block here: a decoder that is gone must not hold up the outputs.
                self.to_dec.send("features", {"kind": "eos", "t_emit": time.time()}, block=False)
                sent_at = time.monotonic()
            self.drain(100)
            self.beat()
        if not self.eos_back:
            log.warning("%s: the decoder did not confirm the end of stream; the rest is 'na'", self.name)
        if self.live_out is not None:
            self.live_out.close(self.t_signal)
        else:
            from rt_eeg.outputs import write_outputs

            self.journal.close()
            write_outputs(self.out_dir, self.spec["stem"], self.decisions, src.duration)
        if self.writer is not None:
            self.writer.close()
        from rt_eeg.io.atomic import write_json_atomic

        # Every decision's latency with its wall time, for benchmarks over a time window.
        write_json_atomic(self.run_dir / "latencies.json", list(self.latency_log))
        self.report("eos", stats=self.stats() | {"interrupted": self.stopping})
        return 0

    def close(self) -> None:
        for s in (self.dealer, self.pub_sig.sock, self.pub_dec.sock):
            s.close(linger=0)
        self.reports.sock.close()
        self.ctx.term()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    spec_path, incarnation = argv[0], int(argv[1])
    parent = os.environ.get("RT_EEG_SUPERVISOR_PID")
    die_with_parent(int(parent) if parent else None)
    spec = json.loads(Path(spec_path).read_text())
    logging.basicConfig(level=logging.WARNING,
                        format=f"%(asctime)s bed {spec['bed']['name']}[{incarnation}] %(levelname)s %(message)s")  # fmt: skip
    bed = BedProcess(spec, incarnation)
    bed.install_signals()
    try:
        return bed.main()
    except Exception as err:  # report to the service (ERROR, restart with back-off), exit 1
        from rt_eeg.errors import RtEegError

        if isinstance(err, RtEegError):  # a bad input: one line, no traceback
            log.error("%s", err)
        else:
            log.exception("bed %s failed", bed.name)
        bed.report("heartbeat", error=f"{type(err).__name__}: {err}"[:400])
        return 1
    finally:
        bed.close()


if __name__ == "__main__":
    sys.exit(main())
