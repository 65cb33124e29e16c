"""What the ward service shows: bed states, the ward status message, the ``list`` rows,
``metrics.json``. A mixin of :class:`rt_eeg.ward.service.WardService` that only reads its
state (``beds``, ``decoder``, ``alarms``, ``cfg``)."""

from __future__ import annotations

import logging
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import zmq

from rt_eeg.io.atomic import write_json_atomic
from rt_eeg.pipeline.messages import MessageError
from rt_eeg.ward.config import BedConfig

log = logging.getLogger("rt_eeg.ward")
N_TRACE = 250  # samples of each bed's status trace (10 s at 25 Hz)


@dataclass
class BedEntry:
    """The service's view of one bed."""

    cfg: BedConfig
    out: Path
    stem: str
    ch_names: list
    t_added: float
    proc: subprocess.Popen | None = None
    inc: int = -1
    ready: bool = False
    finished: bool = False  # end of stream reported: outputs written
    removing: bool = False
    paused: bool = False
    error: str | None = None
    backoff_until: float | None = None
    fails_in_row: int = 0
    last_seen: float = 0.0
    spawned: float = 0.0
    stats: dict = field(default_factory=dict)
    stats_by_inc: dict = field(default_factory=dict)
    restarts: list = field(default_factory=list)
    n_decisions: int = 0
    #: End (signal time) of the newest decision the service has handled; the bed's own stats
    #: arrive on its heartbeat and can be older than an alarm raised from a newer decision.
    last_decision_stop: float | None = None
    first_decision_wall: float | None = None
    state: str = "STARTING"


class WardViews:
    """Read-only views of the service's state (see the module docstring)."""

    def _since_data(self, e: BedEntry) -> float | None:
        t = e.stats.get("t_last_data")
        return None if not isinstance(t, (int, float)) else max(0.0, time.time() - t)

    def bed_state(self, e: BedEntry) -> tuple[str, str]:
        """(state, detail) of a bed, from the contract's list."""
        since = self._since_data(e)
        last = e.stats.get("last") if isinstance(e.stats.get("last"), dict) else None
        detail = ""
        if not self.decoder["ready"] and self.decoder["inc"] > 0:
            detail = "decoder restarting"
        if e.paused:
            return "PAUSED", detail or "paused"
        if e.error and (e.proc is None or not e.ready):
            return "ERROR", e.error
        if e.finished:
            return "NO DATA", "recording ended"
        if e.proc is None or not e.ready:
            return "STARTING", detail or "starting"
        status = str(e.stats.get("status", "ok"))
        rate = e.stats.get("sfreq_in")
        detail = detail or (status if status != "ok" else (f"{rate:g} Hz" if isinstance(rate, (int, float)) else ""))
        if since is None:
            return ("NO DATA" if time.monotonic() - e.spawned > self.cfg.no_data_after_s else "STARTING"), detail
        if since > self.cfg.no_data_after_s:
            return "NO DATA", detail
        if since > self.cfg.stale_after_s:
            return "STALE", detail
        if last is None or last.get("label") not in ("seiz", "bckg"):
            return "STARTING", detail
        return ("SEIZ" if last["label"] == "seiz" else "BCKG"), detail

    def _state_changed(self) -> bool:
        changed = False
        for e in self.beds.values():
            state = self.bed_state(e)[0]
            if state != e.state:
                e.state, changed = state, True
        return changed

    def _bed_status(self, e: BedEntry) -> dict:
        state, detail = self.bed_state(e)
        last = e.stats.get("last") if isinstance(e.stats.get("last"), dict) else {}
        active = [a for a in self.alarms.active() if a.get("bed") == e.cfg.name]
        onset = dur = None
        if state == "SEIZ" and active:
            onset = active[-1].get("onset")
            if isinstance(onset, (int, float)) and e.last_decision_stop is not None:
                dur = e.last_decision_stop - onset
        ep = self._bed_endpoints(e.cfg.name)
        return {"name": e.cfg.name, "state": state, "confidence": last.get("confidence"),
                "signal_time": last.get("start"), "since_data_s": self._since_data(e),
                "seiz_onset": onset, "seiz_duration_s": dur,
                "alarm": active[-1]["id"] if active else None, "detail": detail,
                "monitor": {"signal": ep["display_signal"], "decision": ep["display_decision"]}
                if e.proc is not None and e.proc.poll() is None else None}  # fmt: skip

    def _publish_status(self) -> None:
        beds = list(self.beds.values())
        traces = np.zeros((len(beds), N_TRACE), np.float32)
        for i, e in enumerate(beds):
            tr = e.stats.get("trace")
            if isinstance(tr, list) and len(tr) == N_TRACE:
                traces[i] = np.nan_to_num(np.asarray(tr, np.float32))
        try:
            frames = self.encode_status(self.status_seq, time.time(), [self._bed_status(e) for e in beds],
                                        self.alarms.for_status(50), traces)  # fmt: skip
        except MessageError as err:  # a status we cannot vouch for is dropped; detection goes on
            if str(err) != getattr(self, "_status_error", None):  # once per distinct problem
                log.error("ward status not published: %s", err)
                self._status_error = str(err)
            return
        self.status_seq += 1
        try:
            self.status_sock.send_multipart(frames, zmq.NOBLOCK)
        except zmq.ZMQError:
            pass  # the display path may drop
        self.on_event("status", "ward", None)

    def _row(self, e: BedEntry) -> dict:
        state, detail = self.bed_state(e)
        last = e.stats.get("last") if isinstance(e.stats.get("last"), dict) else None
        lat = e.stats.get("latency_ms") if isinstance(e.stats.get("latency_ms"), dict) else {}
        return {"bed": e.cfg.name, "state": state, "detail": detail,
                "last_decision": None if last is None else f"{last['label']} @{last['start']:g}s",
                "since_data_s": self._since_data(e), "latency_p95_ms": lat.get("p95"),
                "drops": self._drops(e), "restarts": len(e.restarts), "out": str(e.out),
                "pid": e.proc.pid if e.proc is not None and e.proc.poll() is None else None}  # fmt: skip

    def _decoder_row(self) -> dict:
        d = self.decoder
        st = d["stats"]
        alive = d["proc"] is not None and d["proc"].poll() is None
        return {"ready": d["ready"], "incarnation": d["inc"], "restarts": len(d["restarts"]),
                "pid": d["proc"].pid if alive else None,
                "device": st.get("device"), "batch_hist": st.get("batch_hist"),
                "model_ms_p95": st.get("model_ms_p95")}  # fmt: skip

    def _drops(self, e: BedEntry) -> int:
        """Probabilities lost to this bed (decoder replies dropped, malformed messages on either
        side), summed over every incarnation."""
        n = 0
        for st in self.decoder["stats_by_inc"].values():
            pb = (st.get("per_bed") or {}).get(e.cfg.name) or {}
            n += int(pb.get("dropped", 0)) + int(pb.get("malformed", 0))
        for st in e.stats_by_inc.values():
            n += int(st.get("malformed", 0) or 0)
        return n

    def bed_metrics(self, e: BedEntry) -> dict:
        st = e.stats
        first = e.first_decision_wall
        first_sample = None
        for inc in sorted(e.stats_by_inc):
            first_sample = first_sample or e.stats_by_inc[inc].get("first_sample_wall")
        return {
            "bed": e.cfg.name, "source": e.cfg.source_spec(), "out": str(e.out), "stem": e.stem,
            "state": self.bed_state(e)[0], "finished": e.finished,
            "latency_ms": st.get("latency_ms"),
            "n_decisions": sum(int(s.get("n_decisions", 0) or 0) for s in e.stats_by_inc.values()),
            "n_na": sum(int(s.get("n_na", 0) or 0) for s in e.stats_by_inc.values()),
            "decoder_resets": sum(int(s.get("decoder_resets", 0) or 0) for s in e.stats_by_inc.values()),
            "drops": self._drops(e), "restarts": e.restarts,
            "added_wall": round(e.t_added, 3),
            "first_sample_to_first_decision_s": round(first - first_sample, 3) if first and first_sample else None,
            "added_to_first_decision_s": round(first - e.t_added, 3) if first else None,
            "signal_time_s": st.get("t_signal"), "frames": st.get("processed"),
        }  # fmt: skip

    def _write_metrics(self, e: BedEntry) -> None:
        if e.out.is_dir():
            try:
                write_json_atomic(e.out / "metrics.json", self.bed_metrics(e))
            except OSError as err:
                log.error("%s: cannot write metrics.json (%s)", e.out, err)

    def ward_metrics(self) -> dict:
        d = self.decoder
        return {"launch_wall_time": round(self.t_launch, 3),
                "decoder_ready_s": round(d["t_ready"] - self.t_launch, 3) if d["t_ready"] else None,
                "decoder": self._decoder_row(), "decoder_restarts": d["restarts"],
                "decoder_stats": d["stats"], "beds": [self._row(e) for e in self.beds.values()],
                "malformed_reports": self.malformed_reports, "recovered_from_killed_service": self.recovered,
                "stop_signal": signal.Signals(self.stop_signal).name if self.stop_signal else None}  # fmt: skip
