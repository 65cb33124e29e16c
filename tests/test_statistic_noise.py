"""How much of a selection figure is noise (tools/statistic_noise.py): replicate sd, seed sd,
paired differences, on operating-point results written here."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from statistic_noise import main, top_shared  # noqa: E402

VOICES = ("SS", "XS")


def _op(folder: Path, name: str, level: float) -> None:
    """A --weigh corpora result whose every figure is ``level`` plus the trial's offset: trials
    at 1, 3, 6 and 9 FA/24 h, sensitivities level, level + 10, + 20, + 30 on each voice."""
    trials = []
    for fa, up in ((1.0, 0.0), (3.0, 10.0), (6.0, 20.0), (9.0, 30.0)):
        corpora = {v: {"sensitivity": level + up, "fa_per_24h": fa} for v in VOICES}
        trials.append({"sensitivity": level + up, "fa_per_24h": fa, "corpora": corpora})
    chosen = {f"tune_{v}": {"sensitivity": level + 10, "fa_per_24h": 3.0,
                            "latency_median_s": 10.0} for v in VOICES}  # fmt: skip
    doc = {"figures": {"chosen": chosen}, "trials_pool": trials}
    (folder / f"operating_point_{name}_sel5.json").write_text(json.dumps(doc))


def test_top_shared_averages_the_best_points_within_the_rate():
    trials = [{"sensitivity": s, "fa_per_24h": f} for s, f in ((50, 4), (70, 6), (40, 5), (30, 1))]
    assert top_shared(trials, m=2) == 45.0  # 50 and 40; 70 is over 5 FA/24 h
    assert top_shared(trials, m=5) == 24.0  # fewer points than m count as 0
    assert top_shared([{"sensitivity": 90, "fa_per_24h": 8}]) == 0.0


def test_replicate_noise_seed_spread_and_pairs(tmp_path, capsys):
    for name, level in (("a1", 40.0), ("a2", 44.0), ("b1", 50.0), ("b2", 50.0),
                        ("c1", 46.0), ("c2", 52.0)):  # fmt: skip
        _op(tmp_path, name, level)
    out = tmp_path / "noise.json"
    assert main(["--dir", str(tmp_path), "--replicates", "s1=a1,a2", "--replicates", "s2=b1,b2",
                 "--pair", "C=c1:a1,c2:b1", "--out", str(out)]) == 0  # fmt: skip
    doc = json.loads(out.read_text())
    # within groups: (40, 44) and (50, 50): squares 8 + 0 over 2 degrees of freedom -> sd 2
    assert doc["replicate_noise_sd"]["select"] == pytest.approx(2.0)
    assert doc["seed_spread_sd"]["select"] == pytest.approx(math.sqrt(50.0), abs=0.01)  # 40, 50
    # DET mean: each voice's best within 1, 2, 5, 10, 20 FA/24 h = level + 0, 0, 10, 30, 30
    assert doc["replicate_groups"]["s1"]["a1"]["det_mean"] == pytest.approx(40.0 + 14.0)
    assert doc["replicate_groups"]["s1"]["a1"]["det_at5"] == pytest.approx(50.0)
    assert doc["replicate_groups"]["s1"]["a1"]["top5_shared"] == pytest.approx((40 + 50) / 5)
    pair = doc["pairs"]["C"]["select"]
    assert pair["differences"] == [6.0, 2.0] and pair["mean"] == 4.0
    assert pair["mean_over_noise"] == pytest.approx(4.0 / (2.0 * math.sqrt(2 / 2)))
    assert "select" in capsys.readouterr().out


def test_a_result_without_its_trials_is_refused(tmp_path):
    _op(tmp_path, "a1", 40.0)
    doc = json.loads((tmp_path / "operating_point_a1_sel5.json").read_text())
    del doc["trials_pool"]
    (tmp_path / "operating_point_a2_sel5.json").write_text(json.dumps(doc))
    with pytest.raises(SystemExit, match="no trials_pool"):
        main(["--dir", str(tmp_path), "--replicates", "s=a1,a2", "--out", str(tmp_path / "o.json")])
