"""tools/model_card.py's time called seizure: the figure OVLP cannot see (an alarm that never
ends is one hit and no false alarm), from a run's hypotheses and references."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
model_card = pytest.importorskip("model_card")


def _run(tmp: Path) -> Path:
    """An evaluate folder: one recording whose seizure (60 s) is found by a 68 s event, one
    seizure-free recording with a 100 s false alarm, a failed one and one whose hypothesis is
    gone (both left out)."""
    from rt_eeg.io.annotations import Event, write_csv_bi

    ev = tmp / "ev"
    ev.mkdir()
    rows = []
    cases = {"a": ([Event(100.0, 160.0, "seiz")], [Event(102.0, 170.0, "seiz")], "done"),
             "b": ([], [Event(300.0, 400.0, "seiz")], "repostprocessed"),
             "c": ([Event(10.0, 20.0, "seiz")], [Event(0.0, 600.0, "seiz")], "failed"),
             "d": ([Event(10.0, 20.0, "seiz")], None, "done")}  # fmt: skip
    for name, (ref, hyp, status) in cases.items():
        write_csv_bi(tmp / f"{name}_ref.csv_bi", ref, 600.0, bname=name)
        if hyp is not None:
            write_csv_bi(ev / f"{name}.csv_bi", hyp, 600.0, bname=name)
        rows.append({"name": name, "status": status, "csv_bi": str(ev / f"{name}.csv_bi"),
                     "ref": str(tmp / f"{name}_ref.csv_bi")})  # fmt: skip
    report = {"hours": 0.5, "n_recordings": 4, "recordings": rows,
              "scores": {"ovlp": {"seiz": {"sensitivity": 100.0, "targets": 1}},
                         "taes": {"seiz": {"sensitivity": 88.2}}}}  # fmt: skip
    (ev / "report.json").write_text(json.dumps(report))
    return ev


def test_time_called_sums_the_hypotheses_against_the_reference(tmp_path):
    ev = _run(tmp_path)
    tc = model_card.time_called(json.loads((ev / "report.json").read_text()))
    # 68 + 100 s called against 60 s of seizure; the failed and the unreadable runs left out
    assert tc == {"called_h": round(168 / 3600, 2), "reference_h": round(60 / 3600, 2),
                  "called_s": 168.0, "reference_s": 60.0, "ratio": 2.8, "longest_event_s": 100.0}  # fmt: skip
    assert model_card.time_called({"recordings": []}) is None


def test_time_called_table_and_a_folder_that_is_not_a_run(tmp_path, capsys):
    ev = _run(tmp_path)
    assert model_card.main(["--time-called", str(ev)]) == 0
    assert f"| {ev} | 0.5 | 100.0 % | 88.2 % | 0.05 h | 0.02 h | 2.8 | 100 s |" in capsys.readouterr().out
    assert model_card.main(["--time-called", str(tmp_path / "nothing")]) == 2
    assert "not an rt-eeg evaluate report" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        model_card.main([])  # neither --work nor --time-called


def test_eval_prefix_names_where_the_held_out_runs_are(tmp_path, capsys):
    """--eval-prefix reads PREFIX_<corpus>/report.json (a candidate's own decodes), not
    WORK/eval_<corpus>: the figures land in the model's manifest from the prefix's runs."""
    model = tmp_path / "mc_test_model"
    model.mkdir()
    (model / "manifest.json").write_text(json.dumps({"weights_sha256": "x"}))
    for folder, sens in ((tmp_path / "k53_O", 91.5), (tmp_path / "eval_O", 10.0)):
        folder.mkdir()
        report = {"hours": 10.0, "n_recordings": 3, "recordings": [],
                  "scores": {"ovlp": {"seiz": {"sensitivity": sens, "targets": 12, "fa_per_24h": 0.5}}},
                  "onset_latency_s": {"median": 4.0}}  # fmt: skip
        (folder / "report.json").write_text(json.dumps(report))
    args = ["--model", str(model), "--work", str(tmp_path)]
    assert model_card.main([*args, "--eval-prefix", str(tmp_path / "k53")]) == 0
    held = json.loads((model / "manifest.json").read_text())["heldout"]
    assert held["O"]["ovlp_sensitivity"] == 91.5 and held["O"]["seizures"] == 12
    assert set(held) == {"O"}
    assert model_card.main(args) == 0  # the default prefix: WORK/eval
    assert json.loads((model / "manifest.json").read_text())["heldout"]["O"]["ovlp_sensitivity"] == 10.0
    capsys.readouterr()
