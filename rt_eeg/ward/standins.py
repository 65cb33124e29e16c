"""Stand-ins for the other ward engineer's modules until that branch is merged.

``rt_eeg.ward.status.encode_status`` and ``rt_eeg.ward.alarms.AlarmManager`` (the ward
contract) are imported when present; otherwise these minimal versions with the same
signatures are used, so the service runs and is tested on its own. The lead removes this
module at merge.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time

import numpy as np

from rt_eeg.errors import RtEegError
from rt_eeg.pipeline.messages import encode


def encode_status(seq: int, wall: float, beds: list[dict], alarms: list[dict],
                  traces: np.ndarray) -> list[bytes]:  # fmt: skip
    """The ``ward_status`` message: ``[b"ward", header JSON, float32 (n_beds, n_trace)]``."""
    traces = np.nan_to_num(np.asarray(traces, np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    header = {"kind": "ward_status", "seq": seq, "stream": "ward", "t0": wall,
              "beds": beds, "alarms": alarms}  # fmt: skip
    return encode("ward", header, traces)


class AlarmManager:
    """Minimal alarm logic: one alarm per seizure event per bed, ended on return to BCKG."""

    def __init__(self, log_path, *, command: list[str] | None = None, publish=None,
                 clock=time.time):  # fmt: skip
        self.log_path, self.command, self.publish, self.clock = log_path, command, publish, clock
        self._alarms: dict[str, dict] = {}
        self._open: dict[str, str] = {}  # bed -> active alarm id
        self._log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115
        self._n = 0

    def _write(self, what: str, alarm: dict) -> None:
        self._log.write(json.dumps({"event": what, **alarm}) + "\n")
        self._log.flush()
        os.fsync(self._log.fileno())
        if self.publish is not None:
            self.publish(b"alarm", encode("alarm", {"kind": "alarm", "seq": self._n,
                                                    "alarm": alarm}, None))  # fmt: skip

    def on_decision(self, bed: str, decision, channels: list[str],
                    top_channels: list[str]) -> list[dict]:  # fmt: skip
        out = []
        active = self._open.get(bed)
        if decision.label == "seiz" and active is None:
            self._n += 1
            alarm = {"id": f"{bed}-{self._n}", "bed": bed, "onset": float(decision.start),
                     "wall": self.clock(), "channels": list(channels or top_channels),
                     "confidence": float(decision.confidence), "state": "active",
                     "acknowledged_by": None, "acknowledged_at": None}  # fmt: skip
            self._alarms[alarm["id"]] = alarm
            self._open[bed] = alarm["id"]
            self._write("raised", alarm)
            self._run_command(alarm)
            out.append(alarm)
        elif decision.label == "bckg" and active is not None:
            alarm = self._alarms[active]
            alarm["state"] = "ended"
            del self._open[bed]
            self._write("ended", alarm)
            out.append(alarm)
        return out

    def _run_command(self, alarm: dict) -> None:
        if not self.command:
            return
        env = {**os.environ, "RT_EEG_BED": alarm["bed"], "RT_EEG_ONSET": str(alarm["onset"]),
               "RT_EEG_CONFIDENCE": str(alarm["confidence"]),
               "RT_EEG_CHANNELS": ",".join(alarm["channels"]), "RT_EEG_ALARM_ID": alarm["id"]}

        def run():
            try:
                subprocess.run(self.command, env=env, timeout=30, check=False,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            except (OSError, subprocess.SubprocessError):
                pass  # an alarm command that fails never stops detection

        threading.Thread(target=run, daemon=True).start()

    def acknowledge(self, alarm_id: str, by: str) -> dict:
        alarm = self._alarms.get(alarm_id)
        if alarm is None:
            raise RtEegError(f"unknown alarm {alarm_id!r}")
        alarm["acknowledged_by"], alarm["acknowledged_at"] = by, self.clock()
        self._write("acknowledged", alarm)
        return alarm

    def active(self) -> list[dict]:
        return [self._alarms[i] for i in self._open.values()]

    def all_recent(self, n: int = 50) -> list[dict]:
        return list(self._alarms.values())[-n:]

    def close(self) -> None:
        self._log.close()


def load():
    """``(encode_status, AlarmManager)``: the real ones when merged, else these."""
    try:
        from rt_eeg.ward.status import encode_status as enc  # noqa: F811
    except ImportError:
        enc = encode_status
    try:
        from rt_eeg.ward.alarms import AlarmManager as am
    except ImportError:
        am = AlarmManager
    return enc, am
