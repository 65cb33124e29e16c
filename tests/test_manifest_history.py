"""tools/manifest_history.py: a replacing model's manifest keeps the replaced one's record of
how it was chosen (candidate sections, predecessors newest first) and refuses to overwrite."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
manifest_history = pytest.importorskip("manifest_history")


def test_history_is_carried_and_predecessors_chain(tmp_path):
    k6 = {"name": "K6", "weights_sha256": "k6"}
    old = {"weights_sha256": "k15", "command_line": "rt-eeg train --seed 3", "decoder": {"x": 1},
           "heldout": {"O": {"ovlp_sensitivity": 100.0}}, "candidates_a": {"r": 1},
           "candidates_b": [2], "previous_default": k6, "earlier_defaults": [{"name": "K0"}]}  # fmt: skip
    new = {"weights_sha256": "e15", "ensemble": {"members": []}}
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    (tmp_path / "sec.json").write_text(json.dumps({"rule": "amendment 32"}))
    (tmp_path / "pp.toml").write_text("threshold_on = 0.995\nonset_epochs = 5\ntop_k = 4\n")
    assert manifest_history.main(["--old", str(tmp_path / "old.json"), "--new", str(tmp_path / "new.json"),
                                  "--previous-name", "K15s3", "--old-postprocess", str(tmp_path / "pp.toml"),
                                  "--section", f"candidates_c={tmp_path / 'sec.json'}"]) == 0  # fmt: skip
    out = json.loads((tmp_path / "new.json").read_text())
    assert out["weights_sha256"] == "e15" and out["ensemble"] == {"members": []}
    assert out["candidates_a"] == {"r": 1} and out["candidates_b"] == [2]
    assert out["candidates_c"] == {"rule": "amendment 32"}
    prev = out["previous_default"]
    assert prev["name"] == "K15s3" and prev["weights_sha256"] == "k15"
    assert prev["heldout"] == old["heldout"] and "decoder" not in prev
    assert prev["postprocess"]["threshold_on"] == 0.995 and prev["postprocess"]["top_k"] == 4
    assert out["earlier_defaults"] == [k6, {"name": "K0"}]
    assert json.loads((tmp_path / "old.json").read_text()) == old  # only read


def test_an_existing_section_and_a_bad_file_are_refused(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps({"candidates_a": 1}))
    (tmp_path / "s.json").write_text("{}")
    with pytest.raises(SystemExit, match="exists already"):
        manifest_history.main(["--old", str(tmp_path / "m.json"), "--new", str(tmp_path / "m.json"),
                               "--previous-name", "x", "--section", f"candidates_a={tmp_path / 's.json'}"])  # fmt: skip
    (tmp_path / "bad.json").write_text("[1, 2")
    with pytest.raises(SystemExit, match="bad.json: not a readable manifest"):
        manifest_history.main(["--old", str(tmp_path / "bad.json"), "--new", str(tmp_path / "m.json"),
                               "--previous-name", "x"])  # fmt: skip
    assert json.loads((tmp_path / "m.json").read_text()) == {"candidates_a": 1}


def test_a_rebuild_of_the_same_weights_keeps_the_record():
    old = {"weights_sha256": "e15", "candidates_a": 1, "previous_default": {"name": "K15s3"},
           "heldout": {"O": {}}}  # fmt: skip
    out = manifest_history.carry(old, {"weights_sha256": "e15", "seed": 0}, "itself")
    assert out == {"weights_sha256": "e15", "seed": 0, "candidates_a": 1,
                   "previous_default": {"name": "K15s3"}}  # fmt: skip


def test_a_round_that_replaced_nothing_adds_only_its_section(tmp_path, capsys):
    """--old and --new the same shipped manifest: the section is added, nothing else moves."""
    man = {"weights_sha256": "k15", "heldout": {"O": {"ovlp_sensitivity": 100.0}},
           "candidates_a": 1, "previous_default": {"name": "K6"}}  # fmt: skip
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(man))
    (tmp_path / "sec.json").write_text(json.dumps({"adopted": False}))
    assert manifest_history.main(["--old", str(path), "--new", str(path),
                                  "--section", f"candidates_b={tmp_path / 'sec.json'}"]) == 0  # fmt: skip
    assert json.loads(path.read_text()) == man | {"candidates_b": {"adopted": False}}
    assert "record kept; added candidates_b" in capsys.readouterr().out
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"weights_sha256": "e18"}))
    with pytest.raises(SystemExit, match="--previous-name is needed"):
        manifest_history.main(["--old", str(path), "--new", str(other)])
    assert json.loads(other.read_text()) == {"weights_sha256": "e18"}
