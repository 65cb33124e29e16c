"""tools/source_losses.py: each source's probe loss under a trained model is the one training
recorded for its last epoch (same probe, same model); a model without context is refused."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from train_helpers import N_FEAT, TINY, fit, recording

from rt_eeg.store import FeatureStore, StoreWriter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def test_source_losses_match_the_last_epochs_recorded_losses(tmp_path, capsys):
    import source_losses

    rng = np.random.default_rng(4)
    recs = [recording(rng, f"{s}/p{i}{s}_s001_t000.edf", "train") for s in "AB" for i in range(2)]
    recs.append(recording(rng, "D/p9_s001_t000.edf", "dev"))
    with StoreWriter(tmp_path / "s", N_FEAT, {"key": "test"}) as w:
        for r in recs:
            w.add(r)
    store = FeatureStore(tmp_path / "s")
    cfg = dict(TINY, seed=6, keep="last", normalisation="context", balance_sources=("A", "B"))
    manifest = fit(store, tmp_path / "m", source_dro=1.0, **cfg)
    out = tmp_path / "losses.json"
    rc = source_losses.main(
        [str(tmp_path / "m"), "--store", str(tmp_path / "s"), "--sources", "A,B", "--seed", "6",
         "--out", str(out)]
    )  # fmt: skip
    assert rc == 0
    got = json.loads(out.read_text())["losses"][str(tmp_path / "m")]
    want = manifest["history"][-1]["source_losses"]
    assert list(got) == ["A", "B"]
    assert got == pytest.approx(want, abs=2e-4)
    assert "A " in capsys.readouterr().out
    plain = fit(store, tmp_path / "plain", **dict(cfg, normalisation="maxabs", balance_sources=()))
    assert "context" not in plain["decoder"]
    rc = source_losses.main(
        [str(tmp_path / "plain"), "--store", str(tmp_path / "s"), "--sources", "A,B"]
    )
    assert rc == 2 and "not a context-normalised model" in capsys.readouterr().err
