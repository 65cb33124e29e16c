"""tools/lovo_rule.py: a rule is scored on voices it did not choose on; a larger grid with a
latency clause is adopted only when the held-out voices show the earlier onset, and a file that
is not a per-voice tuning result is refused in one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
lovo_rule = pytest.importorskip("lovo_rule")

VOICES = ("A", "B", "C")


def _trial(name: str, figs: dict[str, tuple[float, float, float]]) -> dict:
    """A ``--weigh corpora`` trial: per voice (sensitivity, FA/24 h, median onset)."""
    per = {v: {"config": {"name": name}, "sensitivity": s, "fa_per_24h": fa,
               "latency_median_s": lat, "hits": 1, "targets": 2, "false_alarms": 0}
           for v, (s, fa, lat) in figs.items()}  # fmt: skip
    return {"corpora": per}


def _doc(path: Path, trials: list[dict]) -> str:
    path.write_text(json.dumps({"weigh": "corpora", "trials_pool": trials}))
    return str(path)


def test_held_out_voice_is_scored_at_the_point_chosen_on_the_others(tmp_path):
    # "slow" is the most sensitive everywhere; "fast" is 1 point less sensitive and 6 s earlier
    # on A and B, but fires 20 false alarms a day on C
    slow = _trial("slow", {v: (50.0, 1.0, 14.0) for v in VOICES})
    fast = _trial("fast", {"A": (49.0, 1.0, 8.0), "B": (49.0, 1.0, 8.0), "C": (49.0, 20.0, 8.0)})
    g0 = _doc(tmp_path / "g0.json", [slow])
    g1 = _doc(tmp_path / "g1.json", [fast])
    doc = lovo_rule.judge({"s0": [g0, g1]}, 5.0, 2.0, 2.0, 2.0, 1.0)
    seed = doc["seeds"]["s0"]
    # R0 takes the most sensitive point in every fold, with or without the extra grid
    assert {f["config"]["name"] for f in seed["G1R0"]["folds"].values()} == {"slow"}
    # R1 takes "fast" where C's false alarms are held out (choosing on A+B: mean FA 1), and
    # "slow" where C chooses (A+C or B+C: mean FA 10.5 for fast)
    folds = seed["G1R1"]["folds"]
    assert folds["C"]["config"]["name"] == "fast" and folds["C"]["fa_per_24h"] == 20.0
    assert folds["A"]["config"]["name"] == folds["B"]["config"]["name"] == "slow"
    assert seed["G1R1"]["latency_median_s"] == pytest.approx((14 + 14 + 8) / 3)
    assert seed["G1R1"]["fa_per_24h"] == pytest.approx((1 + 1 + 20) / 3)
    # chosen on every voice, "fast" fails the FA target (mean 22/3 > 5)
    assert seed["G1R1"]["all"]["config"]["name"] == "slow"
    # the FA rise on the held-out voice (+6.3) vetoes the candidate
    d = doc["decision"]
    assert d["onset_gain_s"] == pytest.approx(2.0) and d["fa_rise"] > 1.0 and not d["adopted"]


def test_an_earlier_point_that_holds_everywhere_is_adopted(tmp_path):
    slow = _trial("slow", {v: (50.0, 1.0, 14.0) for v in VOICES})
    fast = _trial("fast", {v: (49.0, 1.0, 8.0) for v in VOICES})
    doc = lovo_rule.judge({"s0": [_doc(tmp_path / "a.json", [slow]), _doc(tmp_path / "b.json", [fast])],
                           "s1": [_doc(tmp_path / "c.json", [slow]), _doc(tmp_path / "d.json", [fast])]},
                          5.0, 2.0, 2.0, 2.0, 1.0)  # fmt: skip
    assert doc["means"]["G1R1"]["latency_median_s"] == 8.0
    assert doc["means"]["G0R0"]["latency_median_s"] == doc["means"]["G0R1"]["latency_median_s"] == 14.0
    assert doc["decision"]["sensitivity_loss"] == pytest.approx(1.0) and doc["decision"]["adopted"]
    # a slack below the 1-point gap keeps the most sensitive point: no gain, not adopted
    doc = lovo_rule.judge({"s0": [str(tmp_path / "a.json"), str(tmp_path / "b.json")]},
                          5.0, 0.5, 2.0, 2.0, 1.0)  # fmt: skip
    assert doc["decision"]["onset_gain_s"] == 0.0 and not doc["decision"]["adopted"]


def test_a_pooled_tuning_result_is_refused_in_one_line(tmp_path, capsys):
    bad = tmp_path / "pooled.json"
    bad.write_text(json.dumps({"weigh": "seizures", "trials_pool": [{"sensitivity": 1}]}))
    out = tmp_path / "out.json"
    assert lovo_rule.main(["--seed", f"s0={bad}", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(bad) in err and "--weigh corpora" in err
    assert not out.exists()


def test_no_detection_anywhere_is_an_error_not_a_crash(tmp_path):
    blind = _trial("blind", {v: (0.0, 0.0, None) for v in VOICES})
    doc = _doc(tmp_path / "g.json", [blind])
    with pytest.raises(lovo_rule.RtEegError, match="no seed detected a seizure"):
        lovo_rule.judge({"s0": [doc]}, 5.0, 2.0, 2.0, 2.0, 1.0)
