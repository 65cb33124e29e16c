"""tools/recording_shift.py: on crafted probabilities where one patient's whole background sits
above another patient's seizures, the recording-relative scores separate what the absolute
score cannot, and a missing decode is one line naming the file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
recording_shift = pytest.importorskip("recording_shift")

N = 900  # epochs (s) per recording


def _recording(folder: Path, name: str, background: float, seizure_level: float, rng) -> str:
    """Background around ``background`` on every channel, a seizure at 600-660 s around
    ``seizure_level`` on 6 of 22 channels; its csv_bi and stored probabilities."""
    from rt_eeg.io.annotations.model import Event
    from rt_eeg.io.annotations.tusz_csv import write_csv_bi

    probs = np.clip(background + rng.normal(0, 0.01, (N, 22)), 0.001, 0.999).astype(np.float32)
    probs[601:660, :6] = seizure_level
    edf = folder / f"{name}.edf"
    write_csv_bi(edf.with_suffix(".csv_bi"), [Event(600.0, 660.0, "seiz")], float(N))
    ev = folder / "eval"
    ev.mkdir(exist_ok=True)
    np.savez(ev / f"{name}.probs.npz", epoch_starts=np.arange(N, dtype=np.float64), probs=probs,
             ch_names=np.array([f"C{i}" for i in range(22)]), duration=np.float64(N))  # fmt: skip
    return str(edf)


def _corpus(tmp_path: Path, name: str, levels, rng) -> str:
    folder = tmp_path / name
    folder.mkdir()
    edfs = [_recording(folder, f"{name}_{i}", bg, sz, rng) for i, (bg, sz) in enumerate(levels)]
    (folder / "list").write_text("\n".join(edfs) + "\n")
    return f"{name}={folder / 'list'}:{folder / 'eval'}"


def test_relative_scores_separate_a_restless_patient_from_a_quiet_one(tmp_path, capsys):
    rng = np.random.default_rng(3)
    # restless: background 0.96, seizure 0.995; quiet: background 0.05, seizure 0.93 (below the
    # restless background: no absolute threshold finds it without the restless patient's alarms)
    a = _corpus(tmp_path, "A", [(0.96, 0.995)], rng)
    b = _corpus(tmp_path, "B", [(0.05, 0.93)], rng)
    out = tmp_path / "shift.json"
    assert recording_shift.main(["--corpus", a, "--corpus", b, "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    pooled = doc["pooled"]
    assert pooled["absolute"]["auc"] < 0.8
    assert pooled["oracle_minus_median"]["auc"] > 0.99
    assert pooled["causal_minus_q99"]["auc"] > 0.99
    # each corpus alone is separable by any of them; the shares are read at the pooled tail
    for name in ("A", "B"):
        fig = doc["corpora"][name]
        assert fig["seizure_epochs"] == 60 and fig["background_epochs"] == N - 60
        assert fig["absolute"]["auc"] > 0.99
        # the causal reference holds the seizure's own epochs once they are CAUSAL_LAG old: its
        # 0.99 quantile (the top 6 of 600) reaches the seizure's level after about 36 of its 60
        causal = fig["causal_minus_q99"]["seizure_above_tail"]
        assert 0.55 < causal < 0.7 and fig["oracle_minus_q99"]["seizure_above_tail"] > 0.9
    assert doc["corpora"]["B"]["absolute"]["seizure_above_tail"] == 0.0
    assert "causal_minus_q99" in capsys.readouterr().out


def test_missing_decode_is_one_line(tmp_path, capsys):
    rng = np.random.default_rng(0)
    a = _corpus(tmp_path, "A", [(0.05, 0.99)], rng)
    next((tmp_path / "A" / "eval").glob("*.npz")).unlink()
    out = tmp_path / "shift.json"
    assert recording_shift.main(["--corpus", a, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "A_0.probs.npz" in err and "missing" in err
    assert not out.exists()
