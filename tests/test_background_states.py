"""tools/background_states.py: the postprocessor's cross-channel score, shares of high scores by
event kind and by vigilance state (the state a recording starts in against one entered later),
seizures' surroundings kept out of the background."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
background_states = pytest.importorskip("background_states")


def test_cross_channel_score_smooths_each_channel_then_takes_the_top_k():
    p = np.array([[0.0, 1.0, 0.2], [1.0, 0.0, 0.4], [1.0, 0.0, 0.6]])
    s = background_states.cross_channel_score(p, top_k=2, smooth=2)
    # smoothed: [0, 1, .2], [.5, .5, .3], [1, 0, .5] -> top-2 means
    np.testing.assert_allclose(s, [0.6, 0.5, 0.75])


def _recording(root: Path, eval_dir: Path, name: str, score: np.ndarray, meta: dict) -> None:
    (root / "edf").mkdir(parents=True, exist_ok=True)
    (root / "edf" / f"{name}.xsim.json").write_text(json.dumps(meta))
    eval_dir.mkdir(exist_ok=True)
    n = len(score)
    probs = np.repeat(score[:, None], 3, axis=1).astype(np.float32)
    np.savez(eval_dir / f"{name}.probs.npz", epoch_starts=np.arange(n, dtype=np.float64),
             probs=probs, ch_names=np.array(["A", "B", "C"]), duration=np.float64(n),
             montage=np.array("tcp_ar"))  # fmt: skip


def test_shares_by_kind_and_by_state(tmp_path):
    n = 900
    score = np.full(n, 0.1)
    score[600:900] = 0.995  # awake after sleep: high throughout
    score[400:410] = 0.999  # a muscle burst during sleep
    score[100:160] = 0.999  # a seizure (and its guard) at 100-160 s
    meta = {
        "seizures": [[100.0, 160.0, "rhythmic"]],
        "events": [[0.0, 300.0, "state_awake"], [300.0, 600.0, "state_n2"],
                   [600.0, 900.0, "state_awake"], [0.0, 900.0, "ecg"],
                   [400.0, 410.0, "muscle"]],
    }  # fmt: skip
    _recording(tmp_path / "C", tmp_path / "E", "rec1", score, meta)
    out = tmp_path / "bs.json"
    rc = background_states.main(["--corpus", str(tmp_path / "C"), "--eval", str(tmp_path / "E"),
                                 "--out", str(out)])  # fmt: skip
    assert rc == 0
    doc = json.loads(out.read_text())
    kinds = doc["by_kind"]
    assert "ecg" not in kinds  # whole-recording events say nothing
    assert kinds["SEIZURE"]["epochs"] == 60
    # the first seizure epoch is smoothed with the 0.1 before it
    assert kinds["SEIZURE"]["share_at_or_above"]["0.998"] == round(100 * 59 / 60, 2)
    # the burst's epochs (1 s before it to 7 s after: the decoder's window) score high within it
    assert kinds["muscle"]["epochs"] == 18 and kinds["muscle"]["share_at_or_above"]["0.99"] == 50.0
    assert kinds["clean"]["share_at_or_above"]["0.998"] == 0.0
    awake = doc["by_state"]["awake"]
    start_total = sum(r["epochs"] for r in awake["start"].values())
    assert start_total == 300 - 150  # 70-220 s is the seizure's guard (30 s before, 60 after)
    assert all(r["share_at_or_above"]["0.99"] == 0.0 for r in awake["start"].values())
    entered = awake["entered"]
    assert list(entered)[0] == "0-30 s" and entered["0-30 s"]["epochs"] == 30
    assert entered["0-30 s"]["share_at_or_above"]["0.99"] == round(100 * 29 / 30, 2)  # smoothing
    assert all(r["share_at_or_above"]["0.99"] == 100.0 for r in list(entered.values())[1:])
    assert doc["by_state"]["n2"]["entered"]["0-30 s"]["share_at_or_above"]["0.9"] == 0.0
    rhythmic = doc["seizures_by_type"]["rhythmic"]
    assert rhythmic["seizures"] == 1 and rhythmic["peak_score_median"] == pytest.approx(0.999)
    # epoch 100 is smoothed with 0.1 (0.5495); epoch 101 is the first at 0.999, ending 2 s in
    assert rhythmic["reach_0.998"] == {"share": 100.0, "median_s_from_onset": 2.0}
    assert doc["seizures_by_type"]["all"]["seizures"] == 1


def test_no_matching_outputs_is_an_error(tmp_path):
    _recording(tmp_path / "C", tmp_path / "E", "rec1", np.zeros(5), {"seizures": [], "events": []})
    (tmp_path / "E" / "rec1.probs.npz").unlink()
    with pytest.raises(SystemExit, match="no NAME.probs.npz for any sidecar"):
        background_states.main(["--corpus", str(tmp_path / "C"), "--eval", str(tmp_path / "E"),
                                "--out", str(tmp_path / "x.json")])  # fmt: skip
