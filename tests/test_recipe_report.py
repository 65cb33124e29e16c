"""tools/recipe_report.py: a judged seed's figures at its point, at a fixed configuration of its
grid, and its channel-epoch AUCs, read from what operating_point.py and evaluate stored."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
operating_point = pytest.importorskip("operating_point")
recipe_report = pytest.importorskip("recipe_report")
from test_operating_point import _corpus  # noqa: E402


def test_report_reads_the_chosen_point_a_fixed_point_and_aucs(tmp_path, capsys):
    # corpus A: seizures at 0.99995 on 6 channels; B: the same plus a near-seizure artifact
    specs = {
        "A": _corpus(tmp_path, "A", [((100, 160), None), ((300, 340), None)]),
        "B": _corpus(tmp_path, "B", [((100, 160), (400, 430)), (None, (200, 260))]),
    }
    ops = tmp_path / "ops"
    ops.mkdir()
    assert operating_point.main(
        ["--weigh", "corpora", "--quiet", "--target-fa", "5", "--out",
         str(ops / "operating_point_m1_v2.json"), "--toml", str(tmp_path / "op.toml")]
        + [a for s in specs.values() for a in ("--tune", s)]
    ) == 0  # fmt: skip
    for name in specs:  # evaluate's layout: WORK/eval_{model}_{EVAL}
        (tmp_path / f"eval_m1_{name}").symlink_to(tmp_path / name / "eval")
    out = tmp_path / "report.json"
    capsys.readouterr()
    assert recipe_report.main(
        ["m1", "--work", str(tmp_path), "--op-dir", str(ops), "--op-suffix", "v2",
         "--corpus", "A=A/list:A", "--corpus", "B=B/list:B", "--out", str(out)]
    ) == 0  # fmt: skip
    row = json.loads(out.read_text())["models"]["m1"]
    # the artifact (0.9992) is kept out by the chosen point: all seizures, no false alarm
    assert row["chosen"].startswith("top-")
    assert row["at_chosen"] == {"A": [100.0, 0.0], "B": [100.0, 0.0]}
    # at top-2 >= 0.995 for 2 the artifact passes: B's two artifacts are false alarms
    fixed = row["at_fixed"]["corpora"]
    assert fixed["A"] == [100.0, 0.0]
    assert fixed["B"][0] == 100.0 and fixed["B"][1] == pytest.approx(2 / 1200 * 86400, abs=0.1)
    # the six seizure channels score above everything else inside the seizure; the other 16
    # channels are labelled seizure too (csv_bi is whole-montage) but score 0.05: AUC < 1
    auc = row["channel_epoch_auc"]
    assert 0.5 < auc["A"] < 1.0 and auc["B"] < auc["A"]
    m2 = ["m2", "--work", str(tmp_path), "--op-dir", str(ops), "--op-suffix", "v2", "--corpus",
          "A=A/list:A", "--out", str(out)]  # fmt: skip
    with pytest.raises(SystemExit, match="no operating_point.py result for model m2"):
        recipe_report.main(m2)
    (ops / "operating_point_m2_v2.json").write_text((ops / "operating_point_m1_v2.json").read_text())
    with pytest.raises(SystemExit, match="no stored decoder outputs"):
        recipe_report.main(m2)
    assert json.loads(out.read_text())["models"].keys() == {"m1"}  # the report is not touched
