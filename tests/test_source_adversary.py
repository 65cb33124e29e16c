"""Domain-adversarial training over the sources (rt_eeg.source_adversary, --source-adversary)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from train_helpers import N_FEAT, TINY, fit, recording

from rt_eeg.errors import RtEegError
from rt_eeg.source_adversary import epoch_summary, reversal_strength
from rt_eeg.store import FeatureStore, StoreWriter
from rt_eeg.train_config import TrainConfig

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def test_reversal_strength_follows_dann_schedule():
    """0 at the start, rising monotonically, top * (2 / (1 + e^-10) - 1) at the end; clipped."""
    got = [reversal_strength(p, 0.3) for p in np.linspace(0, 1, 21)]
    assert got[0] == 0.0
    assert all(b > a for a, b in zip(got, got[1:], strict=False))
    assert got[-1] == pytest.approx(0.3 * (2 / (1 + math.exp(-10)) - 1))
    assert reversal_strength(0.5, 1.0) == pytest.approx(2 / (1 + math.exp(-5)) - 1)
    assert reversal_strength(-1, 0.3) == 0.0 and reversal_strength(2, 0.3) == got[-1]


def test_gradient_reversal_is_identity_forward_and_negated_backward():
    """The value passes unchanged (bit for bit); the gradient comes back times -lam."""
    import tensorflow as tf

    from rt_eeg.source_adversary import gradient_reversal

    rev = gradient_reversal(tf)
    x = tf.constant(np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32))
    w = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) - 5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = rev(x, tf.constant(0.25))
        loss = tf.reduce_sum(w * y)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), -0.25 * w.numpy())


def two_source_store(tmp_path, shift: float):
    """Two train sources (folders A and B, two recordings each) and a dev recording; B's
    features are offset by ``shift`` in the last eight coefficients, so a head can tell them
    apart."""
    rng = np.random.default_rng(5)
    recs = [recording(rng, f"{s}/p{i}{s}_s001_t000.edf", "train") for s in "AB" for i in range(2)]
    for r in recs[2:]:
        r.features[..., -8:] += shift
    recs.append(recording(rng, "D/p9_s001_t000.edf", "dev"))
    with StoreWriter(tmp_path / "s", N_FEAT, {"key": "test"}) as w:
        for r in recs:
            w.add(r)
    return FeatureStore(tmp_path / "s")


def test_adversarial_training_is_reproducible_recorded_and_learns_the_sources(tmp_path):
    """With a weak reversal the head learns to tell two visibly different sources apart; a
    strong one keeps it nearer chance (the decoder's summary hides the source). Training is
    bit-identical for a seed, differs from training without the head, and the manifest records
    the setting and the head's loss, accuracy and strength per epoch."""
    store = two_source_store(tmp_path, shift=4.0)
    cfg = dict(TINY, seed=3, keep="last", epochs=3, samples_per_epoch=1536,
               balance_sources=("A", "B"))  # fmt: skip
    a = fit(store, tmp_path / "a", source_adversary=0.05, **cfg)
    b = fit(store, tmp_path / "b", source_adversary=0.05, **cfg)
    strong = fit(store, tmp_path / "strong", source_adversary=2.0, **cfg)
    plain = fit(store, tmp_path / "plain", **cfg)
    assert a["weights_sha256"] == b["weights_sha256"]
    assert a["weights_sha256"] != plain["weights_sha256"]
    assert a["train_config"]["source_adversary"] == 0.05
    assert plain["train_config"]["source_adversary"] == 0.0
    heads = [h["source_adversary"] for h in a["history"]]
    assert len(heads) == 3 and all("source_adversary" not in h for h in plain["history"])
    assert [h["reversal"] for h in heads] == sorted(h["reversal"] for h in heads)
    assert heads[-1]["reversal"] == pytest.approx(reversal_strength(1.0, 0.05), abs=1e-4)
    assert heads[-1]["head_accuracy"] > 0.75  # chance is 0.5: the sources are told apart
    assert heads[-1]["head_loss"] < heads[0]["head_loss"] - 0.05
    hidden = strong["history"][-1]["source_adversary"]
    assert hidden["head_accuracy"] < heads[-1]["head_accuracy"] - 0.1


def test_epoch_summary_weighs_batches_by_size():
    s = epoch_summary([(1.0, 0.5, 64), (0.4, 1.0, 192)], 0.123456)
    assert s == {"head_loss": 0.55, "head_accuracy": 0.875, "reversal": 0.1235}


def test_source_adversary_refuses_bad_values_and_combinations():
    """Out of range, without sources to tell apart, or on the frozen veto: one line each."""
    with pytest.raises(RtEegError, match="source_adversary must be in"):
        TrainConfig(source_adversary=-0.1, balance_sources=("A", "B"))
    with pytest.raises(RtEegError, match="needs balance_sources"):
        TrainConfig(source_adversary=0.3)
    with pytest.raises(RtEegError, match="frame_lstm_veto"):
        TrainConfig(
            source_adversary=0.3, balance_sources=("A", "B"), arch="frame_lstm_veto",
            normalisation="context_history", init_from="x",
        )  # fmt: skip


def test_source_adversary_option_reaches_the_config(tmp_path):
    """``rt-eeg train --source-adversary`` parses to a float, off by default."""
    import argparse

    from rt_eeg.commands.train import add_arguments

    p = argparse.ArgumentParser()
    add_arguments(p)
    base = ["--corpus", "c.list", "--out", str(tmp_path / "m")]
    assert p.parse_args(base).source_adversary == 0.0
    assert p.parse_args([*base, "--source-adversary", "0.3"]).source_adversary == 0.3


def test_source_adversary_beside_group_dro_records_both(tmp_path):
    """With group DRO on as well, each epoch's history keeps the head's summary beside the
    sources' shares and losses (neither overwrites the other)."""
    store = two_source_store(tmp_path, shift=4.0)
    cfg = dict(TINY, seed=3, keep="last", normalisation="context", balance_sources=("A", "B"))
    m = fit(store, tmp_path / "both", source_adversary=0.3, source_dro=1.0, **cfg)
    for h in m["history"]:
        assert {"source_adversary", "source_shares", "source_losses"} <= set(h)
