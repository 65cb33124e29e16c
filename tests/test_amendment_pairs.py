"""tools/amendment_pairs.py: a paired amendment's per-pair record, read from the committed
results of amendment 127's pair 24 and from generated files."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import amendment_pairs  # noqa: E402

RESULTS = ROOT / "tools" / "results"
RECORD = RESULTS / "amendment127_pairs.json"


def _manifest(work: Path, name: str, weights: str, seconds: float, auc: float, cpu: str | None):
    (work / name).mkdir(parents=True, exist_ok=True)
    env = {} if cpu is None else {"cpu_id": cpu}
    doc = {"weights_sha256": weights + "0" * 52, "training_seconds": seconds,
           "dev_scores": {"auc": auc}, "numeric_environment": env}  # fmt: skip
    (work / name / "manifest.json").write_text(json.dumps(doc))


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    # the record names its files relative to the repository root, where the tool runs
    monkeypatch.chdir(ROOT)


def _work_for_pair24(tmp_path: Path, k66_cpu="AuthenticAMD family 25 model 1") -> Path:
    """A WORK whose manifests say what pair 24's did (the models' weights are not in the repo)."""
    rec = json.loads(RECORD.read_text())["pairs"]["24"]["_sel5mo"]
    work = tmp_path / "work"
    for key, name, cpu in (("k53", "k53es24a", None), ("k66", "k66s24a", k66_cpu)):
        # k53es24a was trained before manifests said the CPU
        m = rec[key]
        _manifest(work, name, m["weights_sha256"], m["training_seconds"], m["dev_auc"], cpu)
    _manifest(work, "model", "e648298b0487", 100.0, 0.9, None)
    return work


def test_pair_24_is_read_again_as_recorded(tmp_path, capsys):
    """The committed record (written by the session's own script) comes back key for key from
    the committed operating-point, trials and real-check files."""
    work = _work_for_pair24(tmp_path)
    out = tmp_path / "pairs.json"
    shutil.copy(RECORD, out)
    assert amendment_pairs.main(["--out", str(out), "--work", str(work), "24"]) == 0
    assert (
        json.loads(out.read_text())["pairs"]["24"] == json.loads(RECORD.read_text())["pairs"]["24"]
    )
    assert "SELECT +8.23" in capsys.readouterr().out


def test_a_new_file_holds_the_figures_and_hand_notes_are_kept(tmp_path):
    work = _work_for_pair24(tmp_path)
    out = tmp_path / "pairs.json"
    assert amendment_pairs.main(["--out", str(out), "--work", str(work), "24"]) == 0
    doc = json.loads(out.read_text())
    assert doc["what"] == amendment_pairs.WHAT
    p = doc["pairs"]["24"]
    assert p["_sel5mo"]["select_diff"] == pytest.approx(
        p["_sel5mo"]["k66"]["select_mean"] - p["_sel5mo"]["k53"]["select_mean"], abs=0.01
    )
    assert (
        p["cpu_id"] == "AuthenticAMD family 25 model 1"
        and p["machine_k15s3_weights"] == "e648298b0487"
    )
    assert "matched_note" not in p
    doc["pairs"]["24"]["matched_note"] = "by hand"
    out.write_text(json.dumps(doc))
    assert amendment_pairs.main(["--out", str(out), "--work", str(work), "24"]) == 0
    assert json.loads(out.read_text())["pairs"]["24"]["matched_note"] == "by hand"


def test_members_trained_on_different_cpus_are_refused(tmp_path, capsys):
    work = _work_for_pair24(tmp_path)
    _manifest(work, "k53es24a", "05241957505b", 1.0, 0.9, "GenuineIntel family 6 model 85")
    out = tmp_path / "pairs.json"
    assert amendment_pairs.main(["--out", str(out), "--work", str(work), "24"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "different CPUs" in err and "GenuineIntel" in err
    assert not out.exists()


def test_a_missing_member_is_one_line_naming_the_file_and_nothing_is_written(tmp_path, capsys):
    work = _work_for_pair24(tmp_path)
    out = tmp_path / "pairs.json"
    out.write_text('{"pairs": {}}')
    assert amendment_pairs.main(["--out", str(out), "--work", str(work), "24", "99"]) == 1
    err = capsys.readouterr().err.strip()
    assert "operating_point_k53es99a_sel5mo.json" in err and "\n" not in err
    assert json.loads(out.read_text()) == {"pairs": {}}  # seed 24 read fine, but nothing written
    shutil.rmtree(work / "k66s24a")
    assert amendment_pairs.main(["--out", str(out), "--work", str(work), "24"]) == 1
    assert "k66s24a/manifest.json" in capsys.readouterr().err
