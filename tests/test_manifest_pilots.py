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


def test_a_single_comparison_records_the_one_model_and_its_lead(tmp_path):
    # an ensemble against a recipe's seeds (judge_recipes.py --single-margin, xgen_rules.sh pilot98)
    res, work, _, manifest = fixture(tmp_path)
    cmp = res / "recipe_e99x1_vs_k15ps_single_sel5mo.json"
    row = seed_row("e99x1", 41.0) | {"file": "tools/results/operating_point_e99x1_sel5mo.json"}
    ref = seed_row("k15ps12a", 30.0) | {"file": "tools/results/operating_point_k15ps12a_sel5mo.json"}
    write(cmp, {"reference": {"K15PS": {"seeds": [ref], "mean": 30.0, "det_mean": 50.0}},
                "candidate": {"E99X1": {"seeds": [row], "mean": 41.0, "det_mean": 52.0}},
                "lead": 11.0, "margin": 5.0, "det_difference": 2.0, "replaces_reference": True})  # fmt: skip
    write(res / "operating_point_e99x1_sel5mo.json",
          {"figures": {"chosen": {"bound_OD": {"hits": 40, "false_alarms": 0}}}})
    write(res / "operating_point_k15ps12a_sel5mo.json",
          {"figures": {"chosen": {"bound_OD": {"hits": 29, "false_alarms": 1}}}})
    write(work / "e99x1" / "manifest.json", {"weights_sha256": "cd" * 32, "history": []})
    r = run("--section", "candidates_new", "--entry", "pilot_128", "--comparison", cmp, "--work", work,
            "--results", res, "--protocol", "p", "--recipe", "r", "--manifest", manifest,
            "--with-reference")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "lead +11.0" in r.stdout
    e = json.loads(manifest.read_text())["candidates_new"]["pilot_128"]
    assert e["point"] == "_sel5mo" and list(e["models"]) == ["e99x1"] and e["replaces_reference"]
    assert e["models"]["e99x1"]["od_found"] == 40 and e["reference"]["k15ps12a"]["od_found"] == 29
    assert e["single"] == {"lead": 11.0, "margin": 5.0, "det_difference": 2.0,
                           "reference_mean": 30.0, "reference_det_mean": 50.0}  # fmt: skip
    assert "paired" not in e
    # a file whose name says neither paired nor single is refused, naming it
    odd = res / "recipe_e99x1_vs_k15ps.json"
    odd.write_text(cmp.read_text())
    r = run("--section", "candidates_new", "--entry", "x", "--comparison", odd, "--work", work,
            "--results", res, "--protocol", "p", "--recipe", "r", "--manifest", manifest)  # fmt: skip
    assert r.returncode == 2 and "recipe_e99x1_vs_k15ps.json" in r.stderr
