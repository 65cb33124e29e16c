"""Stage processes: each wraps the transport-free stage object the offline path uses.

Run as ``python -m rt_eeg.pipeline.stages NAME RUN_JSON INCARNATION``. ``RUN_JSON`` (written by
the supervisor) holds the endpoints, the recording, the model and the stage parameters.
``INCARNATION`` counts restarts: a restarted stage starts with empty state and tells the
stages after it (``reset`` in its first header), which is how a gap is recorded as
"not analysed" instead of being bridged silently.
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
from rt_eeg.pipeline.journal import decision_record, read_journal
from rt_eeg.pipeline.messages import Expect
from rt_eeg.pipeline.stage_base import FRAME, STATS_WINDOW, RelayStage, StageBase, log, preload
from rt_eeg.pipeline.transport import Sender, percentiles


class SourceStage(StageBase):
    """Preprocessor: a source (EDF file, LSL stream) -> 250 Hz TCP montage -> 0.1 s frames;
    paced (files) or as the stream delivers (live); records the signal file.

    A live run has no end: it stops on ``stop`` (Ctrl-C) or after ``stop_after_s`` of signal.
    A gap in a live stream is flagged ``reset`` on the next frame (the stages restart from
    empty state, the missing time is decided 'na'); the source's status ("no data for 3 s")
    is published on the display path as a heartbeat with a ``status`` key.
    """

    name = "source"

    def main(self) -> int:
        from rt_eeg.sources import source_from_spec

        cfg = self.run["config"]
        out = Sender(
            self.socket(zmq.PUSH, "features_in", bind=False, hwm=cfg["data_hwm"]),
            "source",
            self.incarnation,  # a restarted (live) source starts its seq at 0 again
        )
        self.pub = pub = Sender(
            self.socket(zmq.PUB, "display_signal", bind=True, hwm=cfg["display_hwm"]), "source"
        )
        cmd = self.socket(zmq.PULL, "source_cmd", bind=True)
        signal.signal(signal.SIGINT, lambda *_: setattr(self, "stopping", True))

        def on_term(*_):  # a stop before or during the stream is also the release
            self.stopping = self.released = True

        signal.signal(signal.SIGTERM, on_term)
        spec = dict(self.run["source"])
        live = self.run.get("duration") is None
        if live:
            spec["origin_file"] = str(Path(self.run["run_dir"]) / "source_origin.json")
        src = source_from_spec(spec)
        preload("scipy.signal")  # the resampler's
        self.ctl.send("ready")
        # A restarted (live) source carries on at once; the first one waits for the others.
        while self.incarnation == 0 and not self._command(cmd, 100) == "go":
            self.ctl.beat()
            if self.stopping:
                src.close()
                return 0
        speed = None if live else self.run["speed"]
        writer = self._signal_writer(src, live)
        stop_after = self.run.get("stop_after_s")
        t_start = time.monotonic()
        self.n_frames = 0
        self.t_end = 0.0
        self.status = "ok"
        self.first = self.incarnation > 0  # a restarted live source resets the stages
        abort = lambda: self.ctl.beat() or self.stopping  # noqa: E731
        # Paced runs send every 0.1 s frame as it is due. Unpaced (--speed max) runs send 1 s
        # blocks: the features are bit-identical whatever the chunking, so only the per-message
        # overhead changes.
        per_message = FRAME if speed or live else FRAME * 10
        try:
            for blk in src.blocks(per_message):
                if blk is None:  # a live source with nothing new: heartbeat, status, stop
                    if self._command(cmd, 0) == "stop":
                        self.stopping = True
                    self._publish_status(self._status(src, writer))
                    self.ctl.beat()
                    if self.stopping or (stop_after is not None and src.received_s >= stop_after):
                        break
                    continue
                if speed:  # drift-free pacing: sleep to an absolute target, never accumulate error
                    target = t_start + blk.start / src.sfreq / speed
                    while (wait := target - time.monotonic()) > 0 and not self.stopping:
                        if self._command(cmd, min(wait, 0.1) * 1000) == "stop":
                            self.stopping = True
                        self.ctl.beat()
                elif self._command(cmd, 0) == "stop":
                    self.stopping = True
                if self.stopping:
                    break
                self._publish_status(self._status(src, writer))
                if not self._emit(blk, src, out, pub, writer, abort):
                    break
                if stop_after is not None and live and src.received_s >= stop_after:
                    break  # what the source still holds comes out of finish()
            for blk in src.finish(per_message):  # a live stream's open segment: its tail
                self._emit(blk, src, out, pub, writer, abort)
        finally:
            writer.close()
            src.close()
        eos = {
            "kind": "eos",
            "t_emit": time.time(),
            "n_frames": self.n_frames,
            "t_end": self.t_end,
            "interrupted": self.stopping,
        }
        out.send("signal", eos, should_abort=lambda: self.ctl.beat())
        pub.send("signal", eos, block=False)
        self.ctl.send("eos", stats=self.stats() | {"frames": self.n_frames, "display_sent": pub.seq,
                                                    "t_end": self.t_end, "sent": out.seq})  # fmt: skip
        return 0

    def _signal_writer(self, src, live: bool):
        from rt_eeg.io.signalfile import SignalWriter

        out_dir = Path(self.run["out_dir"])
        self.rotating = live
        if not live:
            return SignalWriter(out_dir / self.run["name"], src.sfreq, src.ch_names)
        from rt_eeg.io.rotating import RotatingSignal

        return RotatingSignal(
            out_dir, self.run["name"], src.sfreq, src.ch_names, self.run["rotate_s"]
        )

    def _emit(self, blk, src, out, pub, writer, abort) -> bool:
        t0 = time.perf_counter()
        block = blk.data
        t_emit = time.time() if blk.t_capture is None else min(time.time(), blk.t_capture)
        header = {"kind": "data", "t0": blk.start / src.sfreq, "sfreq": src.sfreq,
                  "ch_names": src.ch_names, "t_emit": t_emit}  # fmt: skip
        if blk.reset or self.first:
            header["reset"] = True
        if self.rotating:
            writer.append(blk.start, block)
        else:
            writer.append(block)
        whole = len(block) // FRAME * FRAME  # a trailing partial frame is recorded, not analysed
        if whole:
            self.first = False
            if not out.send("signal", header, block[:whole], should_abort=abort):
                return False
        pub.send("signal", header, block, block=False)  # display path: may drop
        self.n_frames += len(block) // FRAME
        self.t_end = (blk.start + len(block)) / src.sfreq
        self.ctl.stats["processed"] = self.n_frames
        self.ctl.stats["t_signal"] = self.t_end
        self.proc_ms.append((time.perf_counter() - t0) * 1000)
        self.ctl.beat()
        return True

    def _status(self, src, writer) -> str:
        """One line: the source's problem (no data), else the signal file's (disk), else ok."""
        if src.status != "ok":
            return src.status
        error = getattr(writer, "error", None)
        if error and error != getattr(self, "_reported", None):
            self._reported = error
            self.ctl.send("heartbeat", error=error)  # the console shows it once
        return error or "ok"

    def _publish_status(self, status: str) -> None:
        """Tell the monitor (and the log) when the source's status changes; repeat it every
        second while something is wrong, for a monitor that connects late."""
        now = time.monotonic()
        changed = status != self.status
        if changed or (status != "ok" and now - getattr(self, "_status_sent", 0.0) >= 1.0):
            if changed:
                (log.warning if status != "ok" else log.info)("source status: %s", status)
            self.status = status
            self._status_sent = now
            self.pub.send("signal", {"kind": "heartbeat", "status": status, "t_emit": time.time()},
                          block=False)  # fmt: skip

    @staticmethod
    def _command(sock: zmq.Socket, timeout_ms: float) -> str | None:
        if sock.poll(int(timeout_ms)):
            try:
                return json.loads(sock.recv())["cmd"]
            except (ValueError, KeyError, TypeError, RecursionError):
                return None
        return None


class FeatureStage(RelayStage):
    """LFCC features: frames in, feature frames out (StreamingFeatures)."""

    name, in_name = "features", "features_in"

    def expect(self) -> Expect:
        return Expect("signal", (self._n_ch(),), max_t0=self._max_t0(), max_jump_s=self._max_jump_s(), step_s=1 / 250,
                      streams=frozenset({"source", "supervisor"}))  # fmt: skip

    def setup(self) -> None:
        preload("scipy.fft")  # the LFCC's FFT

        _ = self.features  # the model's settings parsed before ready: a bad model fails here, not on a frame
        self.out = Sender(self.socket(zmq.PUSH, "decoder_in", bind=False, hwm=self.run["config"]["data_hwm"]),
                          "features", self.incarnation)  # fmt: skip
        self.fx = None
        self.origin = 0.0

    def handle(self, msg) -> None:
        from rt_eeg.features import StreamingFeatures

        if self.fx is None or msg.header.get("reset"):
            # Fresh state (first start, restart, or a gap in a live stream): feature times
            # count from this frame. Features never bridge a gap; what is pending is dropped.
            self.reset = self.incarnation > 0 or self.fx is not None
            self.fx = StreamingFeatures(msg.payload.shape[1], self.features)
            self.origin = float(msg.header["t0"])
        feats, times = self.fx.push(msg.payload)
        self._send(feats, times, msg.header.get("t_emit", time.time()))

    def finish(self, msg) -> None:
        if self.fx is not None:
            feats, times = self.fx.flush()
            self._send(feats, times, msg.header.get("t_emit", time.time()))
        self.forward("features", {"kind": "eos", "t_emit": msg.header.get("t_emit", time.time()),
                                  "t_end": msg.header.get("t_end")})  # fmt: skip

    def _send(self, feats, times, t_emit) -> None:
        if len(feats) == 0:
            return
        header = {
            "kind": "data",
            "t0": self.origin + float(times[0]),
            "t_emit": t_emit,
            "reset": self.reset,
        }
        self.reset = False
        self.forward("features", header, feats)


class DecoderStage(RelayStage):
    """Channel-based LSTM: feature frames in, per-channel P(seizure) per 1 s epoch out."""

    name, in_name = "decoder", "decoder_in"

    def expect(self) -> Expect:
        return Expect("features", (self._n_ch(), self.features.n_features), step_s=0.1,
                      max_t0=self._max_t0(), max_jump_s=self._max_jump_s(), streams=frozenset({"features", "supervisor"}))  # fmt: skip

    def setup(self) -> None:
        from rt_eeg.decoder import Decoder, FrameFeed

        # The input is already bound (RelayStage.main): features queue up while the model
        # loads, and the source does not wait for this stage's ready (supervisor GO_AFTER).
        # The run's settings, not 'model': a folder changed since pre-flight is refused.
        self.decoder = Decoder(self.run["model"], device=self.run["config"]["device"],
                               feature_config=self.features)  # fmt: skip
        self.out = Sender(self.socket(zmq.PUSH, "postprocess_in", bind=False, hwm=self.run["config"]["data_hwm"]),
                          "decoder", self.incarnation)  # fmt: skip
        self.reset = self.incarnation > 0
        self.feed = FrameFeed(self.decoder)

    def handle(self, msg) -> None:
        # A window never bridges a gap; the patient's background context is kept across one.
        feats, times, _, interrupted = self.feed.take(
            msg.payload, float(msg.header["t0"]), bool(msg.header.get("reset"))
        )
        self.reset = self.reset or interrupted
        if len(times) == 0:
            return
        starts, probs = self.decoder.predict_many([(self.feed.stream, feats, times)])[0]
        self._send(starts, probs, msg.header.get("t_emit", time.time()))

    def finish(self, msg) -> None:
        # An incomplete trailing epoch is not scored (the outputs mark it not analysed).
        self.forward("probs", {"kind": "eos", "t_emit": msg.header.get("t_emit", time.time()),
                               "t_end": msg.header.get("t_end")})  # fmt: skip

    def _send(self, starts, probs, t_emit) -> None:
        for s, p in zip(starts, probs, strict=True):
            self.forward(
                "probs", {"kind": "data", "t0": float(s), "t_emit": t_emit, "reset": self.reset}, p
            )
            self.reset = False

    def extra_stats(self) -> dict:
        return {"device": self.decoder.device, "runtime": self.decoder.runtime}


class PostprocessStage(RelayStage):
    """Cross-channel decisions, published to the monitor and journalled for the outputs."""

    name, in_name = "postprocess", "postprocess_in"

    def expect(self) -> Expect:
        return Expect("probs", (self._n_ch(),), time_axis=False, step_s=1.0,
                      max_t0=self._max_t0(), max_jump_s=self._max_jump_s(), streams=frozenset({"decoder", "supervisor"}))  # fmt: skip

    def setup(self) -> None:
        from rt_eeg.config import PipelineConfig, load_postprocess_config
        from rt_eeg.postprocess import Postprocessor

        pcfg = PipelineConfig.from_dict(self.run["config"]).postprocess
        self.post = Postprocessor(
            self.run["ch_names"], load_postprocess_config(self.run["model"], pcfg)
        )
        self.pub = Sender(self.socket(zmq.PUB, "display_decision", bind=True, hwm=self.run["config"]["display_hwm"]),
                          "postprocess", self.incarnation)  # fmt: skip
        self.latency_ms: deque[float] = deque(maxlen=STATS_WINDOW)
        self.first_decision_wall: float | None = None
        self.n_decisions = 0
        self.live = None
        if self.run.get("duration") is None:
            # A live run has no end: decisions go to rotating parts on disk as they are made
            # (which is also the journal a restart resumes from); nothing accumulates here.
            from rt_eeg.outputs import LiveOutputs

            self.live = LiveOutputs(self.run["out_dir"], self.run["name"], self.run["rotate_s"])
            self.decisions = []
            if self.live.last_stop is not None:
                self.post.restart(resume_at=self.live.last_stop)
            self._disk_error: str | None = None
            return
        # The journal keeps every decision on disk as it is made, so a restarted postprocessor
        # (or a crash) loses nothing already decided.
        self.journal_path = Path(self.run["run_dir"]) / "decisions.jsonl"
        self.decisions, self.first_decision_wall = read_journal(self.journal_path, repair=True)
        if self.decisions:
            resume = self.decisions[-1].stop
            self.post.restart(resume_at=resume)  # carry on after them
            self.rx.expect_time("decoder", resume)  # what was lost in between shows as a gap
        self.journal = open(self.journal_path, "a", encoding="utf-8")  # noqa: SIM115

    def handle(self, msg) -> None:
        if msg.header.get("reset"):
            self.post.restart()
        for d in self.post.push(float(msg.header["t0"]), msg.payload):
            self._publish(d, msg.payload, msg.header.get("t_emit", time.time()))

    def _publish(self, d, probs, t_emit) -> None:
        now = time.time()
        rec = decision_record(d, now)
        self.n_decisions += 1
        if self.live is not None:
            self.live.add(d)
            self._report_disk(self.live.error)
        else:
            self.journal.write(json.dumps(rec) + "\n")
            self.journal.flush()
            self.decisions.append(d)
        header = {"kind": "data", "t0": d.start, "t_emit": t_emit, **rec}
        del header["wall"]
        header["score"] = None if np.isnan(d.score) else d.score
        self.pub.send("decision", header, np.asarray(probs, np.float32), block=False)
        if self.first_decision_wall is None:
            self.first_decision_wall = now
            self.ctl.stats["first_decision_wall"] = now  # heartbeats carry it past a restart
        if d.label != "na":
            self.latency_ms.append((now - t_emit) * 1000)

    def finish(self, msg) -> None:
        from rt_eeg.outputs import write_outputs

        if self.live is not None:
            # The run ends where the signal ended (or where decisions did, after a restart).
            t_end = msg.header.get("t_end") or self.live.last_stop
            self.live.close(t_end)
            self._report_disk(self.live.error)
        else:
            self.journal.close()
            write_outputs(
                self.run["out_dir"], self.run["name"], self.decisions, self.run["duration"]
            )
        self.pub.send("decision", {"kind": "eos", "t_emit": time.time()}, block=False)

    def _report_disk(self, error: str | None) -> None:
        """A disk problem is logged and shown on the monitor once when it starts, and when it
        clears; detection carries on meanwhile."""
        if error == self._disk_error:
            return
        self._disk_error = error
        status = error or "outputs written again"
        (log.error if error else log.warning)("%s", status)
        self.pub.send("decision", {"kind": "heartbeat", "status": status, "t_emit": time.time()},
                      block=False)  # fmt: skip
        if error:
            self.ctl.send("heartbeat", error=error)

    def extra_stats(self) -> dict:
        return {"latency_ms": percentiles(self.latency_ms), "first_decision_wall": self.first_decision_wall,
                "n_decisions": self.n_decisions if self.live else len(self.decisions)}  # fmt: skip


STAGES = {cls.name: cls for cls in (SourceStage, FeatureStage, DecoderStage, PostprocessStage)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    name, run_json, incarnation = argv[0], argv[1], int(argv[2])
    parent = os.environ.get("RT_EEG_SUPERVISOR_PID")
    die_with_parent(int(parent) if parent else None)
    logging.basicConfig(
        level=logging.WARNING, format=f"%(asctime)s {name}[{incarnation}] %(levelname)s %(message)s"
    )
    run = json.loads(Path(run_json).read_text())
    stage = STAGES[name](run, incarnation)
    try:
        rc = stage.main()
        stage.wait_for_release()
        return rc
    except Exception as err:  # report to the supervisor, then exit non-zero (it restarts us)
        log.exception("stage %s failed", name)
        stage.ctl.send("heartbeat", error=f"{type(err).__name__}: {err}")
        return 1
    finally:
        stage.close()


if __name__ == "__main__":
    sys.exit(main())
