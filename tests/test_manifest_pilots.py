"""tools/manifest_pilots.py: a candidates section of the manifest from result files alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "manifest_pilots.py"


def seed_row(name, sel):
    return {"file": f"tools/results/operating_point_{name}_sel5o.json", "select_mean": sel,
            "det_mean": 50.0, "fa_mean": 3.0, "onset_mean_s": 12.5,
            "corpora": {"SS": sel, "XS": sel / 2}}  # fmt: skip


def write(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))


def fixture(tmp_path):
    res, work = tmp_path / "results", tmp_path / "work"
    cmp = res / "recipe_k99_vs_k15c12_paired_sel5o_detf.json"
    write(cmp, {"reference": {"K15C12": {"seeds": [seed_row("k15ps12a", 30.0)]}},
                "candidate": {"K99": {"seeds": [seed_row("k99s12a", 36.5)]}},
                "paired": {"differences": [6.5], "mean_difference": 6.5, "onset_differences_s": [-1.0],
                           "mean_onset_difference_s": -1.0, "det_differences": [0.5],
                           "mean_det_difference": 0.5, "means_rule": {}},
                "replaces_reference": False})  # fmt: skip
    for name, hits in (("k99s12a", 31), ("k15ps12a", 29)):
        write(res / f"operating_point_{name}_sel5o.json",
              {"figures": {"chosen": {"bound_OD": {"hits": hits, "false_alarms": 1}}}})
        write(work / name / "manifest.json", {"weights_sha256": "ab" * 32, "training_seconds": 120.5,
                                              "history": [{"dev_auc": 0.93456}, {"dev_auc": 0.94}]})  # fmt: skip
        write(res / f"family_scores_{name}_sel.json", {"generators": {"nmm": {"epochs_at_top": 7}}})
        write(res / f"real_checks_{name}.json", {"chbmit": {"patients": {
            "chb01": {"patient_context": {"auc": 0.98}}, "chb03": {"patient_context": {"auc": 1.0}}}}})
    manifest = tmp_path / "manifest.json"
    write(manifest, {"format": "rt_eeg_model_v1", "candidates_old": {"a": 1}})
    return res, work, cmp, manifest


def run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)  # fmt: skip


def test_section_written_from_the_result_files(tmp_path):
    res, work, cmp, manifest = fixture(tmp_path)
    base = ["--section", "candidates_new", "--comparison", cmp, "--work", work, "--results", res,
            "--protocol", "pilot 99", "--recipe", "K99", "--manifest", manifest]  # fmt: skip
    r = run(*base, "--entry", "pilot_99", "--with-reference", "--reading", "mixed")
    assert r.returncode == 0, r.stderr
    man = json.loads(manifest.read_text())
    assert man["candidates_old"] == {"a": 1}  # other sections untouched
    e = man["candidates_new"]["pilot_99"]
    assert e["seeds"] == [12] and e["point"] == "_sel5o" and e["reading"] == "mixed"
    m = e["models"]["k99s12a"]
    assert (m["select_v2"], m["od_found"], m["od_false_alarms"]) == (36.5, 31, 1)
    assert m["weights_sha256"] == "ab" * 6 and m["dev_auc_by_epoch"] == [0.9346, 0.94]
    assert m["nmm_background_epochs_at_0995"] == 7
    assert m["chbmit_auc_context"] == {"chb01": 0.98, "chb03": 1.0}
    assert e["reference"]["k15ps12a"]["od_found"] == 29
    assert e["paired"]["mean_difference"] == 6.5 and "means_rule" not in e["paired"]
    # a second entry joins the section
    assert run(*base, "--entry", "pilot_100").returncode == 0
    assert set(json.loads(manifest.read_text())["candidates_new"]) == {"pilot_99", "pilot_100"}


def test_a_missing_result_file_is_named_and_nothing_is_written(tmp_path):
    res, work, cmp, manifest = fixture(tmp_path)
    before = manifest.read_bytes()
    (work / "k99s12a" / "manifest.json").unlink()
    r = run("--section", "candidates_new", "--entry", "e", "--comparison", cmp, "--work", work,
            "--results", res, "--protocol", "p", "--recipe", "r", "--manifest", manifest)  # fmt: skip
    assert r.returncode == 2
    assert "k99s12a" in r.stderr and "no such file" in r.stderr and len(r.stderr.splitlines()) == 1
    assert manifest.read_bytes() == before
    r = run("--section", "other", "--entry", "e", "--comparison", cmp, "--work", work,
            "--protocol", "p", "--recipe", "r", "--manifest", manifest)  # fmt: skip
    assert r.returncode == 2 and "candidates" in r.stderr
