"""tools/selection_lovo.py: a model's held voice is scored at the point chosen on its other
voices, the choice among models is read against the held figures (a ranking that carries gives
R 1, one that reverses gives R -1), bounds such as OD still rule the point, and a file that is not
a per-voice tuning result is refused in one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
selection_lovo = pytest.importorskip("selection_lovo")


def _voice(sens: float, fa: float) -> dict:
    return {"sensitivity": sens, "fa_per_24h": fa, "latency_median_s": 10.0, "hits": 1,
            "targets": 2, "false_alarms": 0, "flag_ratio": 1.0}  # fmt: skip


def _trial(figs: dict[str, tuple[float, float]], bounds: dict | None = None) -> dict:
    """A ``--weigh corpora`` trial: per voice (sensitivity, FA/24 h)."""
    return {"corpora": {v: _voice(*f) for v, f in figs.items()}} | (
        {"bounds": {v: _voice(*f) for v, f in bounds.items()}} if bounds else {})


def _result(path: Path, trials: list[dict], **rule) -> str:
    doc = {"weigh": "corpora", "target_fa_per_24h": 5.0, "max_flag_ratio": None,
           "max_voice_fa": None, "min_voice_sens": None, "trials_pool": trials} | rule  # fmt: skip
    path.write_text(json.dumps(doc))
    return str(path)


def _models(tmp_path: Path, figs: dict[str, dict[str, float]]) -> dict:
    """One-configuration models (no choice of point to make), their folds by name."""
    return {name: selection_lovo.model_folds(*selection_lovo.load_model(_result(
        tmp_path / f"operating_point_{name}_sel5mo.json", [_trial({v: (s, 0.0) for v, s in f.items()})])))
        for name, f in figs.items()}  # fmt: skip


def test_the_held_voice_is_scored_at_the_point_its_other_voices_choose(tmp_path):
    # configuration 0 finds 90 % on both voices but fires 20 false alarms a day on X; configuration
    # 1 finds 50 % with none. On both voices the mean is over the target (10 > 5): 1 is chosen.
    # Left out, X is scored where Y alone chooses (0: X's own false alarms unseen), and Y where X
    # alone chooses (1).
    path = _result(tmp_path / "r.json", [_trial({"X": (90.0, 20.0), "Y": (90.0, 0.0)}),
                                         _trial({"X": (50.0, 0.0), "Y": (50.0, 0.0)})])  # fmt: skip
    folds = selection_lovo.model_folds(*selection_lovo.load_model(path))
    assert folds["all"]["trial"] == 1 and folds["all"]["sensitivity"] == 50.0
    assert folds["folds"]["X"] == {"selection": 90.0, "held": 90.0, "held_fa_per_24h": 20.0, "trial": 0}
    assert folds["folds"]["Y"] == {"selection": 50.0, "held": 50.0, "held_fa_per_24h": 0.0, "trial": 1}


def test_a_bound_voice_still_rules_the_point_in_every_fold(tmp_path):
    # the same two configurations, with OD bounded at 1 FA/24 h: configuration 0 fires 3 there,
    # so no fold may choose it, though Y alone would
    path = _result(tmp_path / "r.json",
                   [_trial({"X": (90.0, 20.0), "Y": (90.0, 0.0)}, {"OD": (100.0, 3.0)}),
                    _trial({"X": (50.0, 0.0), "Y": (50.0, 0.0)}, {"OD": (100.0, 0.0)})],
                   max_voice_fa={"OD": 1.0})  # fmt: skip
    folds = selection_lovo.model_folds(*selection_lovo.load_model(path))
    assert [f["trial"] for f in folds["folds"].values()] == [1, 1]
    assert folds["folds"]["X"]["held"] == 50.0


def test_a_ranking_that_carries_and_one_that_reverses(tmp_path):
    carries = selection_lovo.read_class(_models(tmp_path, {
        "good": {"X": 60.0, "Y": 60.0, "Z": 60.0}, "mid": {"X": 40.0, "Y": 40.0, "Z": 40.0},
        "poor": {"X": 20.0, "Y": 20.0, "Z": 20.0}}))  # fmt: skip
    assert carries["R"] == pytest.approx(1.0) and carries["spearman_mean"] == pytest.approx(1.0)
    assert carries["gain_out"] == pytest.approx(20.0) and carries["gain_in"] == pytest.approx(20.0)
    assert {v["best"] for v in carries["voices"].values()} == {"good"}
    assert selection_lovo.reading(carries["R"]) == "carries"
    # each model is best on one voice only: the one chosen on the other voice is the worst held
    reverses = selection_lovo.read_class(_models(tmp_path, {
        "x_only": {"X": 60.0, "Y": 0.0}, "y_only": {"X": 0.0, "Y": 60.0},
        "even": {"X": 30.0, "Y": 30.0}}))  # fmt: skip
    assert reverses["voices"]["X"]["best"] == "y_only"
    assert reverses["gain_out"] == pytest.approx(-30.0) and reverses["R"] == pytest.approx(-1.0)
    assert reverses["spearman_mean"] == pytest.approx(-1.0)
    assert selection_lovo.reading(reverses["R"]) == "mostly the draw"


def test_the_command_writes_its_json_and_refuses_a_file_that_is_not_a_result(tmp_path, capsys):
    for name, s in (("k1s1a", 60.0), ("k1s2a", 40.0), ("k1s3a", 20.0)):
        _result(tmp_path / f"operating_point_{name}_sel5mo.json",
                [_trial({"X": (s, 0.0), "Y": (s, 0.0)})])  # fmt: skip
    out = tmp_path / "out.json"
    glob = str(tmp_path / "operating_point_k1s*_sel5mo.json")
    assert selection_lovo.main(["--class", f"k1={glob}", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["classes"]["k1"]["models"] == ["k1s1a", "k1s2a", "k1s3a"]
    assert doc["classes"]["k1"]["reading"] == "carries"
    bad = tmp_path / "operating_point_k2s1a_sel5mo.json"
    bad.write_text(json.dumps({"weigh": "pool", "trials_pool": [{"sensitivity": 1}]}))
    capsys.readouterr()
    assert selection_lovo.main(["--class", f"k2={bad}", "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(bad) in err and "--weigh corpora" in err
    assert selection_lovo.main(["--class", f"k3={tmp_path}/none*.json", "--out", str(out)]) == 2
    assert "no file matches" in capsys.readouterr().err
