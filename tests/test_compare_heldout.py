"""tools/compare_heldout.py: the shipped point's figures and the DET column from crafted reports,
the folded low-threshold end left out, a missing report named, a malformed one a one-line error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
compare_heldout = pytest.importorskip("compare_heldout")


def _report(folder: Path, det: list[tuple[float, float, float]]) -> None:
    folder.mkdir(parents=True)
    doc = {
        "hours": 16.0,
        "scores": {"ovlp": {"seiz": {"targets": 20, "sensitivity": 50.0, "fa_per_24h": 3.0}},
                   "taes": {"seiz": {"sensitivity": 40.0}}},
        "onset_latency_s": {"median": 7.5, "p90": 20.0},
        "det_curve": [{"threshold_on": t, "sensitivity": s, "fa_per_24h": fa} for t, s, fa in det],
    }  # fmt: skip
    (folder / "report.json").write_text(json.dumps(doc))


def test_det_column_stops_where_the_curve_folds_back(tmp_path, capsys):
    # strict to loose: FA rises with sensitivity until 0.5, then events merge and FA falls
    det = [(0.999, 20.0, 0.0), (0.99, 50.0, 3.0), (0.9, 70.0, 12.0), (0.5, 90.0, 400.0),
           (0.3, 100.0, 20.0), (0.1, 100.0, 2.0)]  # fmt: skip
    _report(tmp_path / "evA_X", det)
    out = tmp_path / "cmp.json"
    rc = compare_heldout.main(["--model", f"A={tmp_path / 'evA'}", "--model", f"B={tmp_path / 'evB'}",
                               "--corpora", "X", "--fa", "5,14,30", "--out", str(out)])  # fmt: skip
    assert rc == 0
    f = json.loads(out.read_text())["models"]["A"]["X"]
    assert (f["ovlp_sensitivity"], f["ovlp_fa_per_24h"], f["taes_sensitivity"]) == (50.0, 3.0, 40.0)
    within = f["det_best_within_fa"]
    # the folded points (100 % at 20 and at 2 FA/24 h) are not operating points
    assert within["5"]["sensitivity"] == 50.0 and within["14"]["sensitivity"] == 70.0
    assert within["30"]["sensitivity"] == 70.0
    captured = capsys.readouterr()
    assert "evB_X" in captured.err and "| X (16.0 h, 20 seizures) | A | 50.0 % |" in captured.out


def test_malformed_report_is_one_line_error(tmp_path, capsys):
    (tmp_path / "ev_X").mkdir()
    (tmp_path / "ev_X" / "report.json").write_text("{not json")
    out = tmp_path / "cmp.json"
    rc = compare_heldout.main(["--model", f"A={tmp_path / 'ev'}", "--corpora", "X", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0 and "report.json" in err and not out.exists()
