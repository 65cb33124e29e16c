"""tools/bench_decoder.py: several models measured alternately, a median per model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import bench_decoder  # noqa: E402


def test_two_models_alternate_and_summary_is_each_models_median(tmp_path):
    from rt_eeg.decoder import write_untrained_model

    small = write_untrained_model(tmp_path / "small", units=8, seed=1)
    wide = write_untrained_model(tmp_path / "wide", units=32, seed=2)
    out = tmp_path / "bench.json"
    code = bench_decoder.main([
        "--model", str(small), "--model", str(wide), "--rounds", "2", "--epochs", "5",
        "--batch-seconds", "20", "--channels", "4", "--note", "two sizes", "--out", str(out),
    ])
    assert code == 0
    result = json.loads(out.read_text())
    assert result["note"] == "two sizes"
    # Alternating: small, wide, small, wide; round numbers recorded.
    assert [(r["round"], Path(r["model"]).name) for r in result["runs"]] == [
        (0, "small"), (0, "wide"), (1, "small"), (1, "wide"),
    ]
    params = {Path(r["model"]).name: r["n_params"] for r in result["runs"]}
    assert params["small"] < params["wide"]
    for row in result["summary"]:
        runs = [r for r in result["runs"] if r["model"] == row["model"]]
        assert row["rounds"] == 2
        assert row["latency_epoch_p50_ms"] == pytest.approx(
            np.median([r["latency_epoch_ms"]["p50"] for r in runs]), abs=1e-3
        )
        assert row["epochs_per_second"] == pytest.approx(
            np.median([r["batch"]["epochs_per_second"] for r in runs]), abs=0.1
        )


def test_missing_model_folder_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "bench.json"
    with pytest.raises(SystemExit) as err:
        bench_decoder.main(["--model", str(tmp_path / "nope"), "--out", str(out)])
    assert err.value.code == 2
    assert "no such model folder" in capsys.readouterr().err
    assert not out.exists()
