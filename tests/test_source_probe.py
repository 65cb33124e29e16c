"""tools/source_probe.py: a head fitted on a decoder's LSTM summaries names the source of
windows from two visibly different sources far above chance, and one from two alike sources
near it; a model without context is refused."""

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


def store_of(path, b_gain: float) -> FeatureStore:
    """Sources A and B (two train recordings each) and a dev recording; B's last eight
    coefficients vary ``b_gain`` times as much (a difference the context centre keeps)."""
    rng = np.random.default_rng(8)
    recs = [recording(rng, f"{s}/p{i}{s}_s001_t000.edf", "train") for s in "AB" for i in range(2)]
    for r in recs[2:]:
        r.features[..., -8:] *= b_gain
    recs.append(recording(rng, "D/p9_s001_t000.edf", "dev"))
    with StoreWriter(path, N_FEAT, {"key": "test"}) as w:
        for r in recs:
            w.add(r)
    return FeatureStore(path)


def test_source_probe_tells_different_sources_apart_and_refuses_plain_models(tmp_path, capsys):
    import source_probe

    cfg = dict(TINY, seed=1, keep="last", normalisation="context")
    acc = {}
    for gain in (1.0, 20.0):
        store = store_of(tmp_path / f"s{gain}", gain)
        fit(store, tmp_path / f"m{gain}", **cfg)
        out = tmp_path / f"probe{gain}.json"
        rc = source_probe.main([str(tmp_path / f"m{gain}"), "--store", str(store.path),
                                "--sources", "A,B", "--per-source", "60", "--out", str(out)])  # fmt: skip
        assert rc == 0
        got = json.loads(out.read_text())
        assert got["sources"] == ["A", "B"] and got["windows"] == 240
        acc[gain] = got["models"][str(tmp_path / f"m{gain}")]
        assert acc[gain]["chance"] == 0.5
    assert acc[20.0]["accuracy"] > 0.8
    assert acc[1.0]["accuracy"] < 0.65
    assert "source named" in capsys.readouterr().out
    plain = fit(store, tmp_path / "plain", **dict(cfg, normalisation="maxabs"))
    assert "context" not in plain["decoder"]
    rc = source_probe.main([str(tmp_path / "plain"), "--store", str(store.path), "--sources", "A,B"])
    assert rc == 2 and "not a context-normalised model" in capsys.readouterr().err
