"""Seizure alarms of a ward: raised from each bed's decisions, logged, published, acknowledged.

:class:`AlarmManager` runs inside the ward service. It is fed every decision of every bed
(:meth:`AlarmManager.on_decision`) and keeps one alarm per seizure event per bed:

- the first SEIZ decision of an event **raises** an alarm (onset = that epoch's start, in
  signal seconds); further SEIZ decisions of the same event update its confidence and
  channels but raise nothing new;
- the first BCKG decision after it **ends** the alarm. A not-analysed epoch (``na``: a gap,
  a restart) neither ends nor re-raises it: data that stopped mid-seizure must not silence
  the alarm, and a seizure seen again after the gap is still the same page;
- a user **acknowledges** an alarm (active or ended) by id; acknowledged or not, an alarm
  stays in :meth:`AlarmManager.all_recent`.

Each raise, end and acknowledgement is one JSON line in the alarm log (append, flush, fsync)
and one ``alarm`` wire message handed to ``publish``. A configured command (an argv list,
never a shell string) runs per raised alarm in a background thread with a timeout; its exit
status and output go to the log, and its failures never reach detection.

Alarm log lines::

    {"time": 1763900000.12, "event": "raise", "alarm": {ALARM}}
    {"time": ..., "event": "ack", "alarm": {ALARM with acknowledged_by/at}}
    {"time": ..., "event": "end", "alarm": {ALARM with state "ended", offset, ended_at}}
    {"time": ..., "event": "command", "alarm_id": "A7", "argv": [...], "rc": 0,
     "elapsed_s": 0.03, "output": "...", "error": null}

A restarted manager reads the log back (a torn last line, from a power cut mid-write, is cut
off first), continues the alarm numbering, and keeps showing alarms that were active or not
yet acknowledged; it then appends to the same file.
"""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rt_eeg.errors import RtEegError
from rt_eeg.io.rotating import repair_torn_tail
from rt_eeg.pipeline.messages import ALARM_FIELDS, encode, record_problem

log = logging.getLogger(__name__)

TOPIC = b"alarm"
#: Seconds a configured command may run before it is killed.
COMMAND_TIMEOUT_S = 10.0
#: Characters of a command's output kept in the log.
COMMAND_OUTPUT_CHARS = 2000
#: Alarms kept in memory besides the active and unacknowledged ones.
KEEP_RECENT = 500


def read_alarm_log(path: str | os.PathLike) -> list[dict]:
    """The records of an alarm log, oldest first.

    A last line without a newline (a write torn by a crash) is ignored; an unreadable line
    elsewhere is skipped with a warning naming the file and line.

    Parameters
    ----------
    path : path-like
        The alarm log (JSON lines). A missing file reads as no records.
    """
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    lines = text.split("\n")[:-1]  # the last element is "" or a torn line
    out = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            log.warning("%s: line %d is not JSON, skipped", path, i)
            continue
        if isinstance(rec, dict):
            out.append(rec)
        else:
            log.warning("%s: line %d is not a JSON object, skipped", path, i)
    return out


class AlarmManager:
    """One ward's alarms (see the module docstring).

    Parameters
    ----------
    log_path : path-like
        The alarm log (JSON lines); created with its folder, appended to when it exists.
    command : list of str, optional
        argv run per raised alarm with ``RT_EEG_BED``, ``RT_EEG_ONSET``,
        ``RT_EEG_CONFIDENCE``, ``RT_EEG_CHANNELS`` (comma-separated) and
        ``RT_EEG_ALARM_ID`` added to the environment.
    publish : callable, optional
        ``publish(topic, frames)`` with ``topic = b"alarm"`` and ``frames`` an ``alarm`` wire
        message, per raise, end and acknowledgement. Its exceptions are logged, not raised.
    clock : callable
        Wall clock (``time.time``-like) for ``wall`` and the log's ``time``.
    command_timeout_s : float
        Seconds the command may run before it is killed.
    """

    def __init__(
        self,
        log_path: str | os.PathLike,
        *,
        command: list[str] | None = None,
        publish: Callable[[bytes, list[bytes]], None] | None = None,
        clock: Callable[[], float] = time.time,
        command_timeout_s: float = COMMAND_TIMEOUT_S,
    ):
        if command is not None and (
            isinstance(command, str | bytes)
            or not command
            or not all(isinstance(a, str) for a in command)
        ):
            raise RtEegError("alarm command must be a non-empty list of strings (argv)")
        self.log_path = Path(log_path)
        self.command = list(command) if command else None
        self.publish = publish
        self.clock = clock
        self.command_timeout_s = float(command_timeout_s)
        self.error: str | None = None  # the last log write failure, None when all written
        self._lock = threading.RLock()
        self._alarms: dict[str, dict] = {}  # id -> ALARM, in raise order
        self._active: dict[str, str] = {}  # bed -> id of its active alarm
        self._next = 1
        self._seq = 0
        self._threads: list[threading.Thread] = []
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            repair_torn_tail(self.log_path)
            self._restore(read_alarm_log(self.log_path))
            self._fh = open(self.log_path, "a", encoding="utf-8")  # noqa: SIM115 (kept open)
        except OSError as err:
            raise RtEegError(
                f"cannot open the alarm log ({err.strerror or err})", log_path
            ) from None

    # -- state -----------------------------------------------------------------------------

    def _restore(self, records: list[dict]) -> None:
        for rec in records:
            alarm = rec.get("alarm")
            if rec.get("event") not in ("raise", "ack", "end") or record_problem(
                alarm, ALARM_FIELDS
            ):
                continue
            self._alarms[alarm["id"]] = alarm
            num = alarm["id"][1:]
            if alarm["id"].startswith("A") and num.isdigit():
                self._next = max(self._next, int(num) + 1)
        for alarm in self._alarms.values():
            if alarm["state"] == "active":
                self._active[alarm["bed"]] = alarm["id"]
        self._trim()

    def _trim(self) -> None:
        """Forget old alarms that need no more attention (ended and acknowledged)."""
        done = [
            k
            for k, a in self._alarms.items()
            if a["state"] == "ended" and a["acknowledged_by"] is not None
        ]
        for k in done[: max(0, len(self._alarms) - KEEP_RECENT)]:
            del self._alarms[k]

    def on_decision(
        self, bed: str, decision, channels: list[str], top_channels: list[str]
    ) -> list[dict]:
        """Feed one decision of ``bed``; returns the alarms it raised or ended (copies).

        Parameters
        ----------
        bed : str
            Bed name.
        decision : Decision or dict
            A :class:`rt_eeg.postprocess.Decision` (or a dict with its fields, e.g. a decision
            header): ``start`` (signal s), ``label`` (``seiz``/``bckg``/``na``),
            ``confidence``, ``channels`` (involved channels).
        channels : list of str
            The bed's channel names: the alarm's channels are listed in this order.
        top_channels : list of str
            The channels with the highest P(seizure) now: the alarm's channels when the
            decision names none yet (an onset on the rising-score path).
        """
        label = str(_field(decision, "label")).lower()
        if label not in ("seiz", "bckg"):
            return []
        start = float(_field(decision, "start"))
        changed = []
        with self._lock:
            aid = self._active.get(bed)
            if label == "seiz":
                involved = _ordered(_field(decision, "channels") or top_channels, channels)
                conf = _unit(_field(decision, "confidence"))
                if aid is None:
                    alarm = self._raise(bed, start, involved, conf)
                    changed.append(alarm)
                else:  # the same event goes on: newest confidence, channels as they spread
                    alarm = self._alarms[aid]
                    alarm["confidence"] = conf
                    alarm["channels"] = _ordered(alarm["channels"] + involved, channels)
            elif aid is not None:
                alarm = self._alarms[aid]
                alarm.update(state="ended", offset=start, ended_at=self.clock())
                del self._active[bed]
                self._record("end", alarm)
                changed.append(alarm)
                self._trim()
        return [dict(a) for a in changed]

    def _raise(self, bed: str, onset: float, involved: list[str], conf: float) -> dict:
        alarm = {
            "id": f"A{self._next}",
            "bed": bed,
            "onset": onset,
            "wall": self.clock(),
            "channels": involved,
            "confidence": conf,
            "state": "active",
            "acknowledged_by": None,
            "acknowledged_at": None,
        }
        self._next += 1
        self._alarms[alarm["id"]] = alarm
        self._active[bed] = alarm["id"]
        self._record("raise", alarm)
        if self.command:
            self._start_command(alarm)
        return alarm

    def acknowledge(self, alarm_id: str, by: str) -> dict:
        """Acknowledge an alarm (active or ended) on behalf of ``by``; returns it (a copy).

        Acknowledging twice keeps the first acknowledgement.

        Raises
        ------
        RtEegError
            Unknown alarm id, or an empty or over-long user name.
        """
        if not isinstance(by, str) or not by.strip() or len(by.strip()) > 64:
            raise RtEegError(f"acknowledged by: need a user name of 1..64 characters, got {by!r}")
        with self._lock:
            alarm = self._alarms.get(alarm_id) if isinstance(alarm_id, str) else None
            if alarm is None:
                raise RtEegError(f"unknown alarm {str(alarm_id)[:64]!r}")
            if alarm["acknowledged_by"] is None:
                alarm.update(acknowledged_by=by.strip(), acknowledged_at=self.clock())
                self._record("ack", alarm)
                self._trim()
            return dict(alarm)

    def active(self) -> list[dict]:
        """Alarms whose seizure is going on, oldest first (copies)."""
        with self._lock:
            return [dict(a) for a in self._alarms.values() if a["state"] == "active"]

    def unacknowledged(self) -> list[dict]:
        """Alarms nobody has acknowledged yet, active or ended, oldest first (copies)."""
        with self._lock:
            return [dict(a) for a in self._alarms.values() if a["acknowledged_by"] is None]

    def all_recent(self, n: int = 50) -> list[dict]:
        """The last ``n`` alarms raised, oldest first (copies)."""
        with self._lock:
            return [dict(a) for a in list(self._alarms.values())[-n:]] if n > 0 else []

    def for_status(self, n: int = 50) -> list[dict]:
        """What a ward status should carry: unacknowledged alarms first, then recent ones."""
        with self._lock:
            first = [a for a in self._alarms.values() if a["acknowledged_by"] is None]
            ids = {a["id"] for a in first}
            rest = [a for a in list(self._alarms.values())[-n:] if a["id"] not in ids]
            return [dict(a) for a in (first + rest)[: max(n, len(first))]]

    # -- log, publish, command ---------------------------------------------------------------

    def _write(self, rec: dict) -> None:
        line = json.dumps(rec, separators=(",", ":"), default=_to_builtin) + "\n"
        with self._lock:
            try:
                self._fh.write(line)
                self._fh.flush()
                os.fsync(self._fh.fileno())
                self.error = None
            except (OSError, ValueError) as err:  # disk full, closed: detection goes on
                self.error = f"{self.log_path}: cannot write the alarm log ({err})"
                log.error("%s", self.error)

    def _record(self, event: str, alarm: dict) -> None:
        self._write({"time": self.clock(), "event": event, "alarm": alarm})
        if self.publish is None:
            return
        frames = encode(
            TOPIC.decode(),
            {"kind": "alarm", "seq": self._seq, "stream": "alarms", "alarm": dict(alarm)},
            np.zeros(0, np.float32),
        )
        self._seq += 1
        try:
            self.publish(TOPIC, frames)
        except Exception as err:  # a subscriber's problem must not stop the alarm
            log.error("alarm %s: publish failed: %s", alarm["id"], err)

    def _start_command(self, alarm: dict) -> None:
        env = dict(os.environ)
        env.update(
            RT_EEG_BED=alarm["bed"],
            RT_EEG_ONSET=f"{alarm['onset']:.3f}",
            RT_EEG_CONFIDENCE=f"{alarm['confidence']:.4f}",
            RT_EEG_CHANNELS=",".join(alarm["channels"]),
            RT_EEG_ALARM_ID=alarm["id"],
        )
        t = threading.Thread(
            target=self._run_command, args=(alarm["id"], env), name="alarm-command", daemon=True
        )
        self._threads = [x for x in self._threads if x.is_alive()] + [t]
        t.start()

    def _run_command(self, alarm_id: str, env: dict) -> None:
        t0 = time.monotonic()
        rec = {"event": "command", "alarm_id": alarm_id, "argv": self.command, "rc": None,
               "output": "", "error": None}  # fmt: skip
        try:
            proc = subprocess.Popen(
                self.command,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C at the service's terminal is not its
            )
            try:
                out, _ = proc.communicate(timeout=self.command_timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
                rec["error"] = f"killed after {self.command_timeout_s:g} s"
            rec["rc"] = proc.returncode
            rec["output"] = out.decode("utf-8", errors="replace")[-COMMAND_OUTPUT_CHARS:]
            if proc.returncode and rec["error"] is None:
                rec["error"] = f"exit status {proc.returncode}"
        except Exception as err:  # not found, not executable, ...: logged, never raised
            rec["error"] = f"{type(err).__name__}: {err}"
        rec["elapsed_s"] = round(time.monotonic() - t0, 3)
        if rec["error"]:
            log.warning("alarm %s: command %s failed: %s", alarm_id, self.command, rec["error"])
        self._write({"time": self.clock(), **rec})

    def close(self, timeout_s: float = 2.0) -> None:
        """Wait up to ``timeout_s`` for running commands (they log themselves), close the log."""
        deadline = time.monotonic() + timeout_s
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            self._fh.close()

    def __enter__(self) -> AlarmManager:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _field(obj, name: str):
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _unit(x) -> float:
    """A confidence clipped to [0, 1] (0 when missing or not finite)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return 0.0
    return min(1.0, max(0.0, x)) if math.isfinite(x) else 0.0


def _ordered(names, order: list[str]) -> list[str]:
    """Unique channel names, in montage order first, then any unknown ones as given."""
    names = [str(c) for c in names]
    known = [c for c in order if c in set(names)]
    return known + [c for c in dict.fromkeys(names) if c not in set(order)]


def _to_builtin(x):
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"{type(x).__name__} is not JSON")
