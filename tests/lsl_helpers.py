"""LSL in tests: this machine only (no network), unique stream names, an in-process outlet.

Importing this module points liblsl at a machine-only ``lsl_api.cfg`` (``LSLAPICFG``; the
stage processes inherit it) before pylsl is loaded, and skips the importing test module when
pylsl/liblsl is not installed.
"""

from __future__ import annotations

import os
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

from rt_eeg.sources.lsl import write_machine_only_config

if "LSLAPICFG" not in os.environ:
    _cfg_dir = Path(tempfile.mkdtemp(prefix="rt_eeg_lsl_"))
    os.environ["LSLAPICFG"] = str(write_machine_only_config(_cfg_dir / "lsl_api.cfg"))
pylsl = pytest.importorskip("pylsl", reason="pylsl (with liblsl) is not installed")


def unique_name(prefix: str = "rteeg") -> str:
    """A stream name no other test (or engineer's run on this machine) uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


class Publisher(threading.Thread):
    """Publish an EDF recording through an LSL outlet from a thread (the test's amplifier).

    ``plan`` is a list of ``(start_s, stop_s, pause_after_s)`` pieces of the recording to
    push; timestamps always follow the recording's time, so a piece that is skipped is a
    timestamp gap, and a pause is an outage seen by the inlet as silence.
    """

    def __init__(self, edf, name: str, *, speed: float, plan=None, wait_consumer_s: float = 120.0,
                 go: threading.Event | None = None):  # fmt: skip
        super().__init__(daemon=True)
        self.go = go
        self.edf, self.name, self.speed = edf, name, speed
        self.plan = plan
        self.wait_consumer_s = wait_consumer_s
        self.stop_flag = threading.Event()
        self.outlet_ready = threading.Event()
        self.pushed = threading.Event()
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        import time

        import numpy as np

        from rt_eeg.io.edf import open_recording
        from rt_eeg.sources.outlet import make_outlet

        try:
            with open_recording(self.edf) as rec:
                fs = rec.native_sfreq
                data = np.concatenate(list(rec.native_blocks()))
                outlet = make_outlet(self.name, rec.input_labels, fs)
            self.outlet_ready.set()
            outlet.wait_for_consumers(self.wait_consumer_s)
            if self.go is not None:  # e.g. the pipeline's "go": everything is listening
                self.go.wait(self.wait_consumer_s)
            plan = self.plan or [(0.0, len(data) / fs, 0.0)]
            t0_lsl = pylsl.local_clock()
            t0_wall = time.monotonic()
            n_chunk = max(1, int(fs * 0.04))
            for start_s, stop_s, pause_s in plan:
                a0, b0 = int(round(start_s * fs)), int(round(stop_s * fs))
                for a in range(a0, b0, n_chunk):
                    b = min(a + n_chunk, b0)
                    while (wait := t0_wall + b / fs / self.speed - time.monotonic()) > 0:
                        time.sleep(min(wait, 0.05))
                    if self.stop_flag.is_set():
                        return
                    outlet.push_chunk(np.ascontiguousarray(data[a:b]), t0_lsl + (b - 1) / fs)
                if pause_s:
                    time.sleep(pause_s)
                    t0_wall += pause_s  # pacing resumes after the outage
            self.pushed.set()
            self.stop_flag.wait(120)  # keep the outlet alive until the test is done with it
        except BaseException as err:  # reported by the test
            self.error = err
        finally:
            self.done.set()
