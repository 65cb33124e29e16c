"""The ward's one decoder process: every bed's feature frames in, one model call per round.

Run as ``python -m rt_eeg.ward.batcher SPEC_JSON INCARNATION`` by the ward service. A ROUTER
socket receives ``features`` frames from every bed (the bed is the DEALER's routing id);
each bed has its own :class:`~rt_eeg.decoder.DecoderStream` and its own checks (channel count
fixed by its first frame, ``seq`` and ``t0`` never going back). Each round drains what is
waiting (fair-queued across beds), waits ``batch_wait_ms`` for stragglers, and decodes every
epoch that is due, across beds, in one :meth:`~rt_eeg.decoder.Decoder.predict_many` call.
Replies (``probs``) never block: a bed that does not read its probabilities loses them
(counted as drops) instead of delaying the others.

A restarted decoder knows no bed: each bed's next frame opens a fresh window at the next
whole epoch and its first probabilities carry ``reset``, so the bed's postprocessor marks the
epochs never decoded as ``na``.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import zmq

from rt_eeg.lifetime import die_with_parent
from rt_eeg.pipeline.messages import Expect, MessageError, decode, encode
from rt_eeg.pipeline.transport import Sender, make_socket

log = logging.getLogger("rt_eeg.ward")
MAX_CHANNELS = 64
MAX_DRAIN = 4096  # messages taken per round at most (bounded latency per round)
MAX_BEDS = 512
#: A round (drain + model call + replies) longer than this is a hang: the watchdog stops
#: heartbeating for it.
MAX_CALL_S = 60.0


class BedStream:
    """What the decoder keeps per bed: stream state, checks, counters."""

    def __init__(self, name: str):
        self.name = name
        self.feed = None  # rt_eeg.decoder.FrameFeed, made once the model is loaded
        self.n_ch: int | None = None
        self.reset = False
        self.expected_seq: dict[int, int] = {}
        self.malformed = 0
        self.dropped = 0
        self.epochs = 0
        self.seq_out = 0
        self.pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # feats, times, t_emit


class Batcher:
    def __init__(self, spec: dict, incarnation: int):
        from rt_eeg.features import FeatureConfig

        self.spec, self.inc = spec, incarnation
        self.features = FeatureConfig.from_toml(spec["features"])  # the model's (pre-flight)
        self.n_features = self.features.n_features
        self.ctx = zmq.Context()
        ep = spec["endpoints"]
        self.ctl = Sender(make_socket(self.ctx, zmq.PUSH, ep["reports"], bind=False), "decoder",
                          incarnation)  # fmt: skip
        self.ctl.sock.setsockopt(zmq.LINGER, 2000)
        self.router = self.ctx.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.ROUTER_HANDOVER, 1)  # a restarted bed takes its name back
        self.router.setsockopt(zmq.ROUTER_MANDATORY, 1)  # a full bed queue raises, never blocks
        self.router.setsockopt(zmq.SNDHWM, 10_000)
        self.router.setsockopt(zmq.RCVHWM, spec["data_hwm"])
        self.router.setsockopt(zmq.LINGER, 0)
        path = ep["decoder"][len("ipc://"):] if ep["decoder"].startswith("ipc://") else None
        if path and os.path.exists(path):
            os.unlink(path)  # left by a killed predecessor
        self.router.bind(ep["decoder"])
        self.beds: dict[bytes, BedStream] = {}
        self.batch_hist: Counter[int] = Counter()
        self.rounds = 0
        self.model_ms: list[float] = []
        self.stopping = False
        self._last_beat = 0.0
        self.call_started: float | None = None
        threading.Thread(target=self._watchdog, args=(ep["reports"],), daemon=True).start()

    def _watchdog(self, endpoint: str) -> None:
        """Heartbeat while a round runs (a large backlog, a first-use XLA compile): the
        main loop cannot, and the service must not take a busy decoder for a dead one. A call
        that lasts beyond ``MAX_CALL_S`` gets no heartbeat, so a hang is still caught. Its own
        socket: ZeroMQ sockets are not shared between threads."""
        sock = make_socket(self.ctx, zmq.PUSH, endpoint, bind=False)
        sender = Sender(sock, "decoder", self.inc)
        period = self.spec["heartbeat_s"] / 2
        try:
            while not self.stopping:
                time.sleep(period)
                started = self.call_started
                if started is not None and time.monotonic() - started < MAX_CALL_S:
                    sender.send("control", {"kind": "heartbeat", "t_emit": time.time(),
                                            "pid": os.getpid()}, block=False)  # fmt: skip
        finally:
            sock.close(0)

    def report(self, kind: str, **extra) -> None:
        self.ctl.send("control", {"kind": kind, "t_emit": time.time(), "pid": os.getpid(), **extra},
                      block=False)  # fmt: skip

    def beat(self) -> None:
        if time.monotonic() - self._last_beat >= self.spec["heartbeat_s"]:
            self._last_beat = time.monotonic()
            self.report("heartbeat", stats=self.stats())

    def stats(self) -> dict:
        ms = np.asarray(self.model_ms[-1000:] or [0.0])
        return {
            "device": self.decoder.device, "warm_s": getattr(self, "warm_s", None), "rounds": self.rounds, "n_beds": len(self.beds),
            "batch_hist": {str(k): v for k, v in sorted(self.batch_hist.items())},
            "model_ms_p50": round(float(np.percentile(ms, 50)), 3),
            "model_ms_p95": round(float(np.percentile(ms, 95)), 3),
            "per_bed": {b.name: {"malformed": b.malformed, "dropped": b.dropped, "epochs": b.epochs}
                        for b in self.beds.values()},
        }  # fmt: skip

    def main(self) -> int:
        from rt_eeg.decoder import Decoder, FrameFeed

        self.decoder = Decoder(self.spec["model"], device=self.spec["device"],
                               feature_config=self.features)  # fmt: skip
        self.new_feed = lambda: FrameFeed(self.decoder)
        self.decoder.pad_batches = True
        t0 = time.perf_counter()
        self.decoder.warm_batches(self.spec.get("warm_windows", 2048))
        self.warm_s = round(time.perf_counter() - t0, 3)
        self.report("ready", stats=self.stats())
        wait_s = self.spec["batch_wait_ms"] / 1000.0
        while not self.stopping:
            self.beat()
            if not self.router.poll(100):
                continue
            eos: list[BedStream] = []
            # The watchdog heartbeats for the whole round, not only the model call: on a
            # saturated machine draining and validating a backlog from many beds can take
            # seconds too (64 beds starting at load 20: the decoder was killed as silent).
            self.call_started = time.monotonic()
            try:
                self._take(eos)
                if wait_s > 0:  # let the other beds' frames of this instant arrive
                    deadline = time.monotonic() + wait_s
                    while (left := deadline - time.monotonic()) > 0 and self.router.poll(left * 1000):
                        self._take(eos)
                self._decode()
                for b in eos:
                    self._reply(b, {"kind": "eos", "t_emit": time.time()})
                    self.beds.pop(b.name.encode(), None)
            finally:
                self.call_started = None
        return 0

    def _take(self, eos: list) -> None:
        for _ in range(MAX_DRAIN):
            try:
                parts = self.router.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            if len(parts) != 4:
                continue  # not a DEALER's three frames: nobody to answer, nothing to count
            ident = parts[0]
            bed = self.beds.get(ident)
            if bed is None:
                try:
                    name = ident.decode("ascii")
                except UnicodeDecodeError:
                    continue
                if len(self.beds) >= MAX_BEDS or not 0 < len(name) <= 32:
                    continue
                bed = self.beds[ident] = BedStream(name)
            try:
                msg = decode(parts[1:])
                self._check(bed, msg)
            except MessageError as err:
                bed.malformed += 1
                if bed.malformed <= 3 or bed.malformed % 1000 == 0:
                    log.warning("bed %s: malformed message dropped (%s; %d so far)", bed.name, err,
                                bed.malformed)  # fmt: skip
                continue
            if msg.kind == "eos":
                if bed not in eos:
                    eos.append(bed)
                continue
            self._add(bed, msg)

    def _check(self, bed: BedStream, msg) -> None:
        """The bed's own ``Expect`` (its channel count is fixed by its first frame) and order."""
        n_ch = bed.n_ch
        if msg.kind == "data":
            shape = msg.payload.shape
            if bed.n_ch is None or msg.header.get("reset"):
                if len(shape) != 3 or not 0 < shape[1] <= MAX_CHANNELS:
                    raise MessageError(f"payload shape {list(shape)} is not (n, channels, features)")
                n_ch = shape[1]
        Expect("features", (n_ch or 1, self.n_features), step_s=0.1,
               streams=frozenset({"features"})).check(msg)  # fmt: skip
        inc = msg.incarnation
        exp = bed.expected_seq.get(inc)
        if exp is not None and msg.seq < exp:
            raise MessageError(f"seq {msg.seq} repeats or goes back (expected {exp})")
        if msg.kind == "data":
            t0 = float(msg.header["t0"])
            next_t = bed.feed.next_t if bed.feed is not None else None
            if next_t is not None and t0 < next_t - 1e-3 and not msg.header.get("reset"):
                raise MessageError(f"t0 {t0:g} goes back (expected {next_t:g})")
            bed.n_ch = n_ch
        bed.expected_seq = {inc: msg.seq + 1}  # a restarted bed (new incarnation) starts over

    def _add(self, bed: BedStream, msg) -> None:
        """Queue a frame block for this round, starting a fresh window where needed (as the
        pipeline's decoder stage: a window never bridges a gap)."""
        if bed.feed is None:
            bed.feed = self.new_feed()
        t0 = float(msg.header["t0"])
        feats, times, fresh, interrupted = bed.feed.take(msg.payload, t0, bool(msg.header.get("reset")))
        if fresh:
            # A stream this decoder did not start from the bed's first frame (decoder restart,
            # or the bed's own reset/gap) tells the bed to mark what it missed.
            bed.reset = bed.reset or interrupted or self.inc > 0 or t0 > 0
            bed.pending = []  # frames queued for the old window are not decoded into the new one
        if len(times) == 0:
            return
        bed.pending.append((feats, times, np.full(len(times), msg.header.get("t_emit", time.time()))))

    def _decode(self) -> None:
        beds = [b for b in self.beds.values() if b.pending]
        if not beds:
            return
        items, emits = [], []
        for b in beds:
            feats = np.concatenate([p[0] for p in b.pending])
            times = np.concatenate([p[1] for p in b.pending])
            emits.append((times, np.concatenate([p[2] for p in b.pending])))
            items.append((b.feed.stream, feats, times))
            b.pending = []
        t0 = time.perf_counter()
        results = self.decoder.predict_many(items)
        n_epochs = sum(len(r[0]) for r in results)
        if n_epochs:
            self.model_ms.append((time.perf_counter() - t0) * 1000)
            del self.model_ms[:-10_000]
            self.batch_hist[n_epochs] += 1
            self.rounds += 1
        for b, (times, t_emit), (starts, probs) in zip(beds, emits, results, strict=True):
            for s, p in zip(starts, probs, strict=True):
                # The frame that completed the epoch: the decision's latency starts there.
                k = int(np.argmin(np.abs(times - (s + 0.9))))
                self._reply(b, {"kind": "data", "t0": float(s), "t_emit": float(t_emit[k]),
                                "reset": b.reset}, p)  # fmt: skip
                b.reset = False
                b.epochs += 1

    def _reply(self, bed: BedStream, header: dict, payload=None) -> None:
        h = {"stream": "decoder", "seq": bed.seq_out, "incarnation": self.inc, **header}
        try:
            self.router.send_multipart([bed.name.encode(), *encode("probs", h, payload)], zmq.NOBLOCK)
            bed.seq_out += 1
        except zmq.ZMQError:  # full queue or gone: this bed's loss only
            bed.dropped += 1

    def close(self) -> None:
        self.stopping = True
        time.sleep(self.spec["heartbeat_s"] / 2 + 0.05)  # the watchdog closes its socket
        self.router.close(0)
        self.ctl.sock.close()
        self.ctx.term()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    spec = json.loads(Path(argv[0]).read_text())
    inc = int(argv[1])
    parent = os.environ.get("RT_EEG_SUPERVISOR_PID")
    die_with_parent(int(parent) if parent else None)
    logging.basicConfig(level=logging.WARNING,
                        format=f"%(asctime)s decoder[{inc}] %(levelname)s %(message)s")  # fmt: skip
    b = Batcher(spec, inc)
    signal.signal(signal.SIGTERM, lambda *_: setattr(b, "stopping", True))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the service decides when we stop
    try:
        return b.main()
    except Exception as err:
        log.exception("decoder failed")
        b.report("heartbeat", error=f"{type(err).__name__}: {err}"[:400])
        return 1
    finally:
        b.close()


if __name__ == "__main__":
    sys.exit(main())
