"""Input the detector cannot judge is refused, not scored with confidence."""

from __future__ import annotations

import numpy as np
import pytest
from edf_factory import write_edf

from rt_eeg.decoder import write_untrained_model
from rt_eeg.errors import RtEegError
from rt_eeg.montage import MIN_TCP_CHANNELS

pytestmark = pytest.mark.timeout(300)


def test_too_few_channels_is_refused_with_the_file_and_the_channels(tmp_path):
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording

    rng = np.random.default_rng(0)
    labels = ["EEG FP1-REF", "EEG F7-REF", "EEG T3-REF"]  # forms FP1-F7 and F7-T3 only
    edf = write_edf(tmp_path / "two.edf", rng.normal(0, 30, (3, 250 * 60)), labels, 250)
    decoder = Decoder(write_untrained_model(tmp_path / "m"), device="cpu")
    with pytest.raises(RtEegError) as err:
        detect_recording(edf, decoder)
    msg = str(err.value)
    assert msg.startswith(str(edf)) and "only 2 of the 22" in msg and "FP1-F7, F7-T3" in msg
    assert f"at least {MIN_TCP_CHANNELS}" in msg and "\n" not in msg


def test_replay_refuses_before_any_process_starts(tmp_path):
    import subprocess
    import sys

    rng = np.random.default_rng(1)
    labels = ["EEG FP1-REF", "EEG F7-REF", "EEG T3-REF"]
    edf = write_edf(tmp_path / "two.edf", rng.normal(0, 30, (3, 250 * 20)), labels, 250)
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", "replay", str(edf), "--out", str(out), "--speed",
         "max", "--no-monitor"],
        capture_output=True, text=True, timeout=100,
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "only 2 of the 22" in lines[0] and "Traceback" not in r.stderr
    assert not (out / "two.hyp").exists()
