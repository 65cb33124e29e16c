"""Training: bit-identical reproducibility, the train command end to end, the recipe's options and
architectures, the manifest."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from train_helpers import N_FEAT, TINY, fit, recording, train_twice, weights, write_corpus

from rt_eeg.decoder import WINDOW_FRAMES, Decoder
from rt_eeg.errors import RtEegError
from rt_eeg.store import FeatureStore, StoreWriter
from rt_eeg.train import train_from_store
from rt_eeg.train_config import TrainConfig
from rt_eeg.train_corpus import parse_variants

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def test_parse_variants():
    assert parse_variants("compare") == (
        ("frame_lstm", "maxabs", 1.0, 0.0, None),
        ("epoch_lstm", "maxabs", 1.0, 0.0, None),
    )
    spec = "frame_lstm:zscore,epoch_lstm,frame_lstm:context:3,frame_lstm:context:3:0.5@7"
    assert parse_variants(spec, "zscore", default_hard=0.25) == (
        ("frame_lstm", "zscore", 1.0, 0.25, None),
        ("epoch_lstm", "zscore", 1.0, 0.25, None),
        ("frame_lstm", "context", 3.0, 0.25, None),
        ("frame_lstm", "context", 3.0, 0.5, 7),
    )
    for bad in (
        "gru",
        "frame_lstm:context:0.5",
        "frame_lstm:context:x",
        "frame_lstm:nope",
        "frame_lstm:context:3:1.5",
        "frame_lstm:context:3:0.5:9",
        "frame_lstm:context:3@x",
        "frame_lstm@-1",
    ):
        with pytest.raises(RtEegError, match="bad variant"):
            parse_variants(bad)


def test_same_seed_bit_identical_different_seed_differs(store_and_recs, tmp_path):
    from rt_eeg.features import FeatureConfig

    store, _ = store_and_recs
    fcfg = FeatureConfig()
    runs = {}
    for name, seed in (("a", 11), ("b", 11), ("c", 12)):
        runs[name] = train_from_store(
            store,
            tmp_path / name,
            TrainConfig(seed=seed, **TINY),
            feature_config=fcfg,
            device="cpu",
            manifest_extra={"command_line": "test"},
            log=lambda _: None,
        )
    wa, wb, wc = (weights(tmp_path / n) for n in "abc")
    assert len(wa) == len(wb) and all(np.array_equal(x, y) for x, y in zip(wa, wb, strict=True))
    assert all(x.dtype == np.float32 for x in wa)
    assert any(not np.array_equal(x, y) for x, y in zip(wa, wc, strict=True))
    oa, ob, oc = (np.load(tmp_path / n / "data_order.npy") for n in "abc")
    np.testing.assert_array_equal(oa, ob)
    assert oa.shape == (2, 384) and not np.array_equal(oa, oc)
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"] != runs["c"]["weights_sha256"]
    # Training moved the weights away from their initialisation and learned something.
    assert runs["a"]["history"][-1]["train_loss"] < runs["a"]["history"][0]["train_loss"] + 0.05

    m = json.loads((tmp_path / "a" / "manifest.json").read_text())
    for key in ("corpus", "file_list_sha256", "command_line"):
        assert key not in m or m[key]  # corpus-level keys are added by train_corpus
    for key in (
        "seed",
        "data_order_file",
        "libraries",
        "training_seconds",
        "architecture",
        "throughput",
        "dev_scores",
        "decoder",
        "determinism",
    ):
        assert key in m, key
    assert m["seed"] == 11 and m["command_line"] == "test"
    assert set(m["libraries"]) >= {"tensorflow", "keras", "numpy", "scipy", "python"}
    assert m["numeric_environment"]["machine"] and "isa_variables" in m["numeric_environment"]
    assert m["throughput"]["train_samples_per_second"] > 0
    assert 0 <= m["dev_scores"]["auc"] <= 1
    # The saved folder is a working decoder.
    dec = Decoder(tmp_path / "a", device="cpu", feature_config=fcfg)
    probs = dec.predict_recording(store_and_recs[1][4].features)
    assert probs.shape == (60, 5) and np.all((probs >= 0) & (probs <= 1))


def test_train_command_end_to_end(tmp_path):
    from rt_eeg.cli import main

    corpus = write_corpus(tmp_path / "corpus", np.random.default_rng(5))
    out = tmp_path / "models" / "tiny"
    # epoch_lstm here, so both architectures go through training in these tests.
    opts = "--seed 3 --epochs 2 --units 8 --samples-per-epoch 256 --batch-size 64 --workers 1"
    argv = ["train", "--corpus", str(corpus), "--out", str(out), *opts.split(),
            "--store", str(tmp_path / "store"), "--device", "cpu", "--arch", "epoch_lstm"]  # fmt: skip
    assert main(argv) == 0
    m = json.loads((out / "manifest.json").read_text())
    assert m["n_recordings"] == {"train": 3, "dev": 1}
    assert len(m["file_list_sha256"]) == 64 and m["corpus"] == str(corpus.resolve())
    assert m["seed"] == 3 and "train" in m["command_line"]
    assert (
        m["samples"]["train_seiz"] > 0 and m["samples"]["train_bckg"] > m["samples"]["train_seiz"]
    )
    for name in ("model.keras", "model.tflite", "features.toml", "data_order.npy"):
        assert (out / name).is_file()
    # the CPU runs the LiteRT twin, converted from this very model.keras
    assert m["litert"]["converted_from_sha256"] == m["files_sha256"]["model.keras"]
    assert Decoder(out, device="cpu").runtime == "litert"
    store = FeatureStore(tmp_path / "store")
    assert store.index["file_list_sha256"] == m["file_list_sha256"]
    assert len(store.index["recordings"]) == 4 and not store.index["skipped"]
    # Labels follow the csv_bi: 8 s seizures, every channel (TERM) -> 8 epochs x 22 channels.
    assert int(np.asarray(store.labels).sum()) == 4 * 8 * 22
    # A second run, in a fresh process, reuses the store and reproduces the weights bit for bit.
    out2 = tmp_path / "models" / "tiny2"
    argv2 = [*argv[:4], str(out2), *argv[5:]]
    proc = subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", *argv2], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "reusing feature store" in proc.stdout
    # issue #13 item 7: none of TensorFlow's, XLA's or the converter's log lines on a terminal
    chatter = r"absl|cudart|cuInit|oneDNN|XLA|TensorFlow|MLIR|^[IWE]\d{4} "
    assert not [ln for ln in proc.stderr.splitlines() if re.search(chatter, ln)], proc.stderr
    m2 = json.loads((out2 / "manifest.json").read_text())
    assert m2["weights_sha256"] == m["weights_sha256"]
    assert m2["files_sha256"]["model.tflite"] == m["files_sha256"]["model.tflite"]
    np.testing.assert_array_equal(np.load(out2 / "data_order.npy"), np.load(out / "data_order.npy"))
    # tail averaging from the command line (the store reused); refused, with nothing written,
    # where it cannot apply
    out3, out4 = tmp_path / "models" / "tail", tmp_path / "models" / "bad"
    assert main([*argv[:4], str(out3), *argv[5:], "--keep", "last", "--average-epochs", "1"]) == 0
    m3 = json.loads((out3 / "manifest.json").read_text())
    assert m3["weight_average"] == {"epochs": 1, "steps": 256 // 64}
    assert m3["weights_sha256"] != m["weights_sha256"]
    assert main([*argv[:4], str(out4), *argv[5:], "--average-epochs", "1"]) != 0
    assert not out4.exists()


def test_hard_negative_training_is_reproducible(store_and_recs, tmp_path):
    """A mined run is bit-identical for a seed, records what it mined, and draws background
    the plain run does not."""

    store, _ = store_and_recs
    runs = {}
    for name in ("a", "b"):
        runs[name] = fit(
            store,
            tmp_path / name,
            seed=5,
            hard_negatives=0.5,
            hard_pool=2,
            hard_margin_epochs=3,
            **TINY,
        )
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    oa, ob = (np.load(tmp_path / n / "data_order.npy") for n in "ab")
    np.testing.assert_array_equal(oa, ob)
    hist = runs["a"]["history"]
    assert "hard_negatives" not in hist[0] and hist[1]["hard_negatives"]["mined"] > 0
    assert runs["a"]["train_config"]["hard_negatives"] == 0.5
    with pytest.raises(RtEegError, match="hard_negatives"):
        TrainConfig(hard_negatives=1.5)


def test_keep_last_runs_every_epoch_and_keeps_the_final_weights(store_and_recs, tmp_path):
    """keep='last' ignores early stopping and keeps the last epoch's weights; 'best' restores
    the lowest dev loss; the same seed gives the same first epochs either way."""

    store, _ = store_and_recs
    cfg = dict(TINY, epochs=4, patience=1)
    runs = {}
    for keep in ("best", "last"):
        runs[keep] = fit(store, tmp_path / keep, seed=3, keep=keep, **cfg)
    last, best = runs["last"], runs["best"]
    assert last["epochs_run"] == 4 and last["best_epoch"] == 4
    assert last["train_config"]["keep"] == "last"
    n = best["epochs_run"]
    assert [h["dev_balanced_bce"] for h in last["history"][:n]] == [
        h["dev_balanced_bce"] for h in best["history"]
    ]
    bces = [h["dev_balanced_bce"] for h in best["history"]]
    assert best["best_epoch"] == 1 + int(np.argmin(bces))
    if best["best_epoch"] != 4:  # different epochs kept: different weights
        assert last["weights_sha256"] != best["weights_sha256"]
    with pytest.raises(RtEegError, match="keep"):
        TrainConfig(keep="median")


def test_tail_average_keeps_the_mean_of_the_step_weights(store_and_recs, tmp_path):
    """average_epochs=N keeps the uniform mean of the weights after every step of the last N
    epochs: with one step per epoch, the mean of a 1-epoch run's weights and a 2-epoch run's
    (the same seed draws the same first epoch); with several steps, a model other than the last
    step's, reproducibly, and the manifest says how many steps it averaged."""

    store, _ = store_and_recs
    one_step = dict(TINY, batch_size=64, samples_per_epoch=64)

    def train(name, **kw):
        return fit(store, tmp_path / name, seed=8, keep="last", **kw)

    train("e1", **dict(one_step, epochs=1))
    train("e2", **one_step)
    avg = train("avg", average_epochs=2, **one_step)
    w1, w2, wa = weights(tmp_path / "e1"), weights(tmp_path / "e2"), weights(tmp_path / "avg")
    assert any(not np.array_equal(x, y) for x, y in zip(w1, w2, strict=True))
    for x, y, a in zip(w1, w2, wa, strict=True):
        expected = ((x.astype(np.float64) + y) / 2).astype(np.float32)
        np.testing.assert_array_equal(a, expected)
    assert avg["weight_average"] == {"epochs": 2, "steps": 2}
    assert avg["train_config"]["average_epochs"] == 2

    last = train("last", **TINY)
    tails = [train(f"tail{i}", average_epochs=1, **TINY) for i in range(2)]
    assert tails[0]["weight_average"]["steps"] == TINY["samples_per_epoch"] // TINY["batch_size"]
    assert tails[0]["weights_sha256"] == tails[1]["weights_sha256"] != last["weights_sha256"]
    assert tails[0]["dev_scores"] != last["dev_scores"]  # scored with the averaged weights
    assert "weight_average" not in last
    with pytest.raises(RtEegError, match="keep='last'"):
        TrainConfig(average_epochs=1)  # keep='best' chooses an epoch; an average is not one
    with pytest.raises(RtEegError, match="average_epochs"):
        TrainConfig(keep="last", epochs=2, average_epochs=3)


def test_augmented_training_is_reproducible_and_changes_the_model(store_and_recs, tmp_path):
    """With contrast jitter a seed still gives bit-identical weights and the same data order;
    the weights differ from the same run without it; it is recorded and needs context inputs."""

    store, _ = store_and_recs
    runs = {}
    for name, j, st in (("a", 0.5, 0.0), ("b", 0.5, 0.0), ("off", 0.0, 0.0), ("stale", 0.0, 0.5)):
        runs[name] = fit(
            store,
            tmp_path / name,
            seed=4,
            normalisation="context",
            contrast_jitter=j,
            stale_context=st,
            **TINY,
        )
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    assert runs["a"]["weights_sha256"] != runs["off"]["weights_sha256"]
    np.testing.assert_array_equal(
        np.load(tmp_path / "a" / "data_order.npy"), np.load(tmp_path / "off" / "data_order.npy")
    )
    assert runs["a"]["train_config"]["contrast_jitter"] == 0.5
    # stale centres need recordings longer than 2 min: these are 1 min, so nothing is drawn
    # stale and the run equals the plain one bit for bit (the draws do not disturb training)
    assert runs["stale"]["weights_sha256"] == runs["off"]["weights_sha256"]
    assert runs["stale"]["train_config"]["stale_context"] == 0.5
    with pytest.raises(RtEegError, match="stale_context needs a context normalisation"):
        TrainConfig(stale_context=0.5)
    with pytest.raises(RtEegError, match="context normalisation"):
        TrainConfig(contrast_jitter=0.5)  # maxabs inputs have no background to be relative to
    with pytest.raises(RtEegError, match="contrast_jitter"):
        TrainConfig(normalisation="context", contrast_jitter=-0.1)


def test_montage_training_is_reproducible_and_the_model_decodes_live(store_and_recs, tmp_path):
    """``context_montage`` trains from the store (recordings of 5 and 3 channels), a seed
    gives bit-identical weights, and the decoder takes the model: 2 x 26 inputs per frame,
    every channel of a recording decoded."""
    store, recs = store_and_recs
    runs = train_twice(store, tmp_path, seed=5, normalisation="context_montage")
    assert runs[0]["weights_sha256"] == runs[1]["weights_sha256"]
    assert runs[0]["decoder"]["normalisation"] == "context_montage"
    assert "feature_scale" in runs[0]["decoder"]["context"]
    dec = Decoder(tmp_path / "a", device="cpu")
    assert dec.n_features == N_FEAT and dec.uses_context
    for rec in (recs[0], recs[-1]):  # 5 and 3 channels
        probs = dec.predict_recording(rec.features)
        assert probs.shape == rec.labels.shape and np.isfinite(probs).all()


def test_source_balanced_training(tmp_path):
    """Sources are the recordings' top-level folders: training is reproducible, records the
    sources' sample counts, and a folder in no source is a clear error."""
    from rt_eeg.train_data import parse_sources

    rng = np.random.default_rng(7)
    names = ["A/p1_s001_t000.edf", "A/p2_s001_t000.edf", "B/p3_s001_t000.edf", "C/p4_s001_t000.edf"]
    recs = [recording(rng, n, "train") for n in names] + [recording(rng, "D/p5.edf", "dev")]
    with StoreWriter(tmp_path / "s", N_FEAT, {"key": "test"}) as w:
        for r in recs:
            w.add(r)
    store = FeatureStore(tmp_path / "s")
    assert parse_sources(" A+B , C ") == ("A+B", "C")
    cfg = {"seed": 3, "normalisation": "context", **TINY}
    runs = [fit(store, tmp_path / f"m{i}", balance_sources=("A", "B+C"), **cfg) for i in range(2)]
    assert runs[0]["weights_sha256"] == runs[1]["weights_sha256"]
    counts = runs[0]["balanced_sources"]
    assert list(counts) == ["A", "B+C"]
    y_train = np.asarray(store.labels)[store.rows("train")]
    _, tr, _ = store.track_epoch(store.rows("train"))
    from_a = store.track_recording[tr] < 2
    assert counts["A"] == {"seizure": int(y_train[from_a].sum()),
                           "background": int((y_train[from_a] == 0).sum())}  # fmt: skip
    assert counts["B+C"]["seizure"] == int(y_train[~from_a].sum())
    order = np.load(tmp_path / "m0" / "data_order.npy")[0]
    _, track, _ = store.track_epoch(order)
    in_a = store.track_recording[track] < 2
    labels = np.asarray(store.labels)[order] == 1
    # half of each class from folder A (2 recordings), half from B + C (2 recordings)
    assert in_a[labels].mean() == pytest.approx(0.5, abs=0.01)
    assert in_a[~labels].mean() == pytest.approx(0.5, abs=0.01)
    assert list(runs[0]["train_config"]["balance_sources"]) == ["A", "B+C"]
    mined = [
        fit(
            store,
            tmp_path / f"h{i}",
            balance_sources=("A", "B+C"),
            balance_mining=True,
            hard_negatives=0.5,
            hard_pool=2,
            hard_margin_epochs=0,
            **cfg,
        )
        for i in range(2)
    ]
    assert mined[0]["weights_sha256"] == mined[1]["weights_sha256"]
    info = mined[0]["history"][1]["hard_negatives"]
    assert len(info["mined_per_source"]) == 2 and sum(info["mined_per_source"]) == info["mined"]
    assert mined[0]["train_config"]["balance_mining"] is True
    with pytest.raises(RtEegError, match="balance_mining needs balance_sources"):
        TrainConfig(balance_mining=True)
    halves = fit(
        store, tmp_path / "halves", balance_sources=("A", "B+C"), balance_halves="seizure", **cfg
    )
    assert halves["train_config"]["balance_halves"] == "seizure"
    order = np.load(tmp_path / "halves" / "data_order.npy")[0]
    _, track, _ = store.track_epoch(order)
    in_a = store.track_recording[track] < 2
    assert in_a[np.asarray(store.labels)[order] == 1].mean() == pytest.approx(0.5, abs=0.01)
    with pytest.raises(RtEegError, match="balance_halves"):
        TrainConfig(balance_halves="background")
    with pytest.raises(RtEegError, match=r"\['C'\] are in no source"):
        fit(store, tmp_path / "bad", balance_sources=("A", "B"), **cfg)


def test_three_second_decoder_reads_only_the_last_3_s(store_and_recs, tmp_path):
    """``frame_lstm_3s`` (pilot 77) trains bit-identically from the same 70-frame windows, its
    output does not move when the first 4 s of a window change and does when the last 3 s do,
    and the decoder takes it like any model."""
    from rt_eeg.decoder.model import SHORT_FRAMES, build_model

    model = build_model("frame_lstm_3s", n_features=N_FEAT, seed=3)
    x = np.random.default_rng(0).normal(size=(4, WINDOW_FRAMES, N_FEAT)).astype(np.float32)
    early, late = x.copy(), x.copy()
    early[:, : WINDOW_FRAMES - SHORT_FRAMES] += 5.0
    late[:, -1] += 5.0
    p, p_early, p_late = (model(v, training=False).numpy() for v in (x, early, late))
    np.testing.assert_array_equal(p, p_early)
    assert np.abs(p - p_late).max() > 1e-4
    store, recs = store_and_recs
    runs = train_twice(store, tmp_path, seed=5, arch="frame_lstm_3s", normalisation="context")
    assert runs[0]["weights_sha256"] == runs[1]["weights_sha256"]
    assert runs[0]["architecture"]["name"] == "frame_lstm_3s"
    probs = Decoder(tmp_path / "a", device="cpu").predict_recording(recs[0].features)
    assert probs.shape == recs[0].labels.shape and np.isfinite(probs).all()
    assert parse_variants("frame_lstm_3s:context:3:0.5")[0][:2] == ("frame_lstm_3s", "context")


def test_group_dro_draws_more_of_the_source_the_model_fits_worst(tmp_path):
    """--source-dro: source B's seizures carry no pattern, so its probe loss stays above A's and
    its share of the draws grows epoch by epoch; the draws follow the recorded shares, a seed
    reproduces the weights, and the option needs sources."""
    from rt_eeg.train_data import weighted_shares

    rng = np.random.default_rng(11)
    recs = [recording(rng, f"{s}/p{i}{s}_s001_t000.edf", "train") for s in "AB" for i in range(3)]
    for r in recs[3:]:  # B: the seizure rows' features are fresh noise, nothing to learn
        seiz = np.repeat(r.labels.max(axis=1) > 0, 10)
        r.features[seiz] = rng.normal(0, 1, r.features[seiz].shape).astype(np.float32)
    recs.append(recording(rng, "D/p9_s001_t000.edf", "dev"))
    with StoreWriter(tmp_path / "s", N_FEAT, {"key": "test"}) as w:
        for r in recs:
            w.add(r)
    store = FeatureStore(tmp_path / "s")
    cfg = dict(TINY, seed=2, keep="last", epochs=4, learning_rate=0.03, balance_sources=("A", "B"))
    runs = [fit(store, tmp_path / f"m{i}", source_dro=4.0, **cfg) for i in range(2)]
    assert runs[0]["weights_sha256"] == runs[1]["weights_sha256"]
    hist = runs[0]["history"]
    shares = [h["source_shares"] for h in hist]
    assert shares[0] == {"A": 0.5, "B": 0.5}  # the first epoch as without DRO
    assert all(h["source_losses"]["B"] > h["source_losses"]["A"] for h in hist)
    assert [s["B"] for s in shares] == sorted(s["B"] for s in shares) and shares[-1]["B"] > 0.6
    # each epoch's seizure half is split between A and B by that epoch's shares
    order = np.load(tmp_path / "m0" / "data_order.npy").astype(np.int64)
    y = np.asarray(store.labels)
    _, track, _ = store.track_epoch(order[-1])
    from_b = store.track_recording[track] >= 3
    seiz = y[order[-1]] == 1
    want = weighted_shares(int(seiz.sum()), np.array([shares[-1]["A"], shares[-1]["B"]]))
    assert int(from_b[seiz].sum()) == pytest.approx(want[1], abs=1)  # shares are rounded to 1e-4
    plain = fit(store, tmp_path / "plain", **cfg)
    assert "source_shares" not in plain["history"][0]
    assert plain["weights_sha256"] != runs[0]["weights_sha256"]
    with pytest.raises(RtEegError, match="source_dro needs balance_sources"):
        TrainConfig(source_dro=1.0)
    with pytest.raises(RtEegError, match="source_dro must be in"):
        TrainConfig(source_dro=-1.0, balance_sources=("A", "B"))
    with pytest.raises(RtEegError, match="source_dro does not apply to veto"):
        TrainConfig(
            source_dro=1.0, balance_sources=("A", "B"), arch="frame_lstm_veto",
            normalisation="context_history", veto_called=0.5,
        )  # fmt: skip
