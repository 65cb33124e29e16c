"""The scaffolding every stage process shares: its control line, sockets, timing statistics and
release at the end of a run (``StageBase``), and the receive-transform-forward loop of the stages
between two hops (``RelayStage``). The stages themselves are in :mod:`rt_eeg.pipeline.stages`.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections import deque
from functools import cached_property

import zmq

from rt_eeg.pipeline.messages import Expect
from rt_eeg.pipeline.transport import Control, Receiver, make_socket, percentiles
from rt_eeg.security import DISPLAY_ENDPOINTS, CurveServer

log = logging.getLogger("rt_eeg.pipeline")
FRAME = 25  # samples per 0.1 s frame at 250 Hz
STATS_WINDOW = 100_000  # timings kept per stage (about 3 hours of 0.1 s frames)


def preload(*modules: str) -> threading.Thread:
    """Import slow modules (scipy.signal: 0.8 s, scipy.fft: 0.4 s) in a background thread.

    A stage reports ready at once and the import overlaps the wait for ``go`` and the first
    paced frames; the first use waits on Python's import lock if it is not finished yet.
    Pacing targets are absolute, so frames held up by it go out at once afterwards.
    """
    import importlib

    def work() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except ImportError:  # the first real use reports it
                log.debug("preload of %s failed", name, exc_info=True)

    thread = threading.Thread(target=work, name="preload", daemon=True)
    thread.start()
    return thread


class StageBase:
    """Common process scaffolding: context, control line, input receiver, timing stats."""

    name = "stage"

    def __init__(self, run: dict, incarnation: int):
        self.run = run
        self.ep = run["endpoints"]
        self.incarnation = incarnation
        self.ctx = zmq.Context()
        self.sockets: list[zmq.Socket] = []
        self.ctl = Control(
            self.ctx, self.ep["control"], self.name, incarnation, run["config"]["heartbeat_s"]
        )
        # Bounded: a live run lasts days; statistics cover the most recent messages.
        self.proc_ms: deque[float] = deque(maxlen=STATS_WINDOW)
        self.ctl.stats = {"processed": 0}
        self.stopping = False
        self.released = False  # SIGTERM already received: no release left to wait for
        self.curve = None

    def stats(self) -> dict:
        return {
            "processed": self.ctl.stats["processed"],
            "processing_ms": percentiles(self.proc_ms),
        }

    def socket(
        self, kind: int, endpoint_name: str, *, bind: bool, hwm: int | None = None
    ) -> zmq.Socket:
        curve = None
        if bind and endpoint_name in DISPLAY_ENDPOINTS:  # CURVE on display publishers (h2)
            security = self.run["config"].get("security")
            curve = self.curve = self.curve or CurveServer.from_config(self.ctx, security)
        sock = make_socket(self.ctx, kind, self.ep[endpoint_name], bind=bind, hwm=hwm, curve=curve)
        self.sockets.append(sock)
        return sock

    def wait_for_release(self) -> None:
        """After end of stream, stay alive (heartbeating) until the supervisor sends SIGTERM.

        A message counts as sent once it is in the kernel's socket buffer, so a stage that
        exits right after its last send can lose what the next stage has not read yet (seen
        with ipc:// when the receiver's queue was full). Only the supervisor knows when the
        whole run is finished.
        """
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "released", True))
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while not self.released:
            time.sleep(0.05)
            self.ctl.beat()

    def close(self) -> None:
        # Closing each socket (not ctx.destroy) honours its linger: queued data still goes out.
        for sock in self.sockets + [self.ctl.sock]:
            sock.close()
        if self.curve is not None:
            self.curve.stop()
        self.ctx.term()


class RelayStage(StageBase):
    """A detection stage between two PUSH/PULL hops; subclasses transform messages."""

    in_name = out_name = ""

    def main(self) -> int:
        cfg = self.run["config"]
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the source; eos ends us
        self.rx = Receiver(
            self.socket(zmq.PULL, self.in_name, bind=True, hwm=cfg["data_hwm"]),
            self.name,
            self.expect(),
            start_t=0.0 if self.incarnation == 0 else None,
        )
        self.ctl.stats_fn = lambda: self.ctl.stats | self.rx.stats()
        self.setup()
        self.ctl.send("ready")
        while True:
            msg = self.rx.recv(100)
            self.ctl.beat()
            if msg is None:
                continue
            if msg.kind == "eos":
                t0 = time.perf_counter()
                self.finish(msg)
                self.proc_ms.append((time.perf_counter() - t0) * 1000)
                break
            if msg.kind != "data":
                continue
            t0 = time.perf_counter()
            self.handle(msg)
            self.proc_ms.append((time.perf_counter() - t0) * 1000)
            self.ctl.stats["processed"] += 1
        self.ctl.send(
            "eos",
            stats=self.stats()
            | self.rx.stats()
            | {"sent": (self.out if hasattr(self, "out") else self.pub).seq}
            | self.extra_stats(),
        )
        return 0

    def expect(self) -> Expect:
        """What this stage's input accepts (topic, senders, payload shape, t0 range)."""
        raise NotImplementedError

    def _n_ch(self) -> int:
        return len(self.run["ch_names"])

    @cached_property
    def features(self):
        """The model's feature settings (``rt_eeg.features.FeatureConfig``), read at pre-flight."""
        from rt_eeg.features import FeatureConfig

        return FeatureConfig.from_toml(self.run["features"])

    def _max_t0(self) -> float:
        duration = self.run.get("duration")  # None: a live run, no end
        return float("inf") if duration is None else float(duration) + 2.0

    def _max_jump_s(self) -> float:
        # Signal lost across an upstream restart is bounded by the queues: two high-water
        # marks of at most 1 s messages, plus kernel buffers; anything further is not believed.
        return max(600.0, 3.0 * self.run["config"]["data_hwm"])

    def setup(self) -> None: ...
    def handle(self, msg) -> None: ...
    def finish(self, msg) -> None: ...
    def extra_stats(self) -> dict:
        return {}

    def forward(self, topic: str, header: dict, payload=None) -> None:
        self.out.send(topic, header, payload, should_abort=self.ctl.beat)
