"""Helpers of the live-pipeline tests (test_pipeline, test_faults): find and kill this test's
stage processes. The shared model, recording and offline result are fixtures in conftest."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path


def pids_of(stage: str, tmp_path: Path) -> list[int]:
    """Pids of this test's ``stage`` processes (their command line names ``tmp_path``)."""
    found = subprocess.run(["pgrep", "-f", f"rt_eeg.pipeline.stages {stage}"],
                           capture_output=True, text=True).stdout.split()  # fmt: skip
    return [int(p) for p in found if str(tmp_path) in Path(f"/proc/{p}/cmdline").read_text()]


def source_passed(kind: str, who: str, info: dict | None, frames: int) -> bool:
    """Whether an on_event call is a source heartbeat past ``frames`` streamed frames."""
    return kind == "heartbeat" and who == "source" and bool(info) and info["processed"] > frames


def killer(tmp_path: Path, stage: str, after_frames: int):
    """An on_event hook that SIGKILLs this test's ``stage`` process once the source has
    streamed ``after_frames`` frames; returns (hook, record of what it killed)."""
    killed: dict = {}

    def on_event(kind, who, info):
        if source_passed(kind, who, info, after_frames) and not killed:
            for pid in pids_of(stage, tmp_path):
                os.kill(pid, signal.SIGKILL)
                killed["pid"] = pid

    return on_event, killed
