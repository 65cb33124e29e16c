"""The ``'frame_lstm_veto'`` decoder (amendment 45): a trained 7 s decoder, frozen, times a veto
read from the 70 s history. Its output is P_7s x v, never above P_7s; training moves only the
veto; the model decodes like any other (LiteRT == Keras, streaming == batch)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from lfcc_like import N_FEAT, lfcc_like

from rt_eeg.decoder import (
    SEVEN_SECOND_LAYERS,
    Decoder,
    build_model,
    load_seven_second_decoder,
    write_untrained_model,
)
from rt_eeg.errors import RtEegError
from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter, epoch_labels_from_intervals

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]
CH = ["FP1-F7", "F7-T3", "T3-T5"]
TINY = {"epochs": 2, "batch_size": 64, "samples_per_epoch": 512}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Two 10 min recordings, each with one seizure on its first two channels."""
    rng = np.random.default_rng(5)
    recs = []
    for i, split in enumerate(("train", "dev")):
        n_ep = 600
        feats = rng.normal(0, 1, (n_ep * 10, len(CH), N_FEAT)).astype(np.float32)
        onset = 200 + 100 * i
        feats[onset * 10 : (onset + 30) * 10, :2, :8] += 3.0
        lab = np.zeros((n_ep, len(CH)), np.uint8)
        lab[:, :2] = epoch_labels_from_intervals([(onset, onset + 30)], n_ep)[:, None]
        recs.append(RecordingFeatures(f"p{i}_s001_t000.edf", split, f"p{i}", CH, feats, lab))
    path = tmp_path_factory.mktemp("veto_store")
    with StoreWriter(path, N_FEAT, {"key": "veto-test"}) as w:
        for r in recs:
            w.add(r)
    return FeatureStore(path)


@pytest.fixture(scope="module")
def seven_second(store, tmp_path_factory):
    """A trained 'frame_lstm' with 'context' inputs (the decoder the veto is put on)."""
    from rt_eeg.features import FeatureConfig
    from rt_eeg.train import train_from_store
    from rt_eeg.train_config import TrainConfig

    out = tmp_path_factory.mktemp("k15like") / "m"
    train_from_store(
        store, out, TrainConfig(seed=1, normalisation="context", **TINY),
        feature_config=FeatureConfig(), device="cpu", log=lambda _: None,
    )  # fmt: skip
    return out


def _train_veto(store, seven_second, out, **kw):
    from rt_eeg.features import FeatureConfig
    from rt_eeg.train import train_from_store
    from rt_eeg.train_config import TrainConfig

    cfg = TrainConfig(
        arch="frame_lstm_veto", normalisation="context_history", init_from=str(seven_second),
        seed=2, **TINY, **{"hard_negatives": 0.5, **kw},
    )  # fmt: skip
    return train_from_store(
        store, out, cfg, feature_config=FeatureConfig(), device="cpu", log=lambda _: None
    )


def test_output_is_the_7s_probability_times_the_veto():
    import keras

    model = build_model("frame_lstm_veto", n_features=2 * N_FEAT, seed=3)
    plain = build_model("frame_lstm", n_features=N_FEAT, seed=9)
    for name in SEVEN_SECOND_LAYERS:  # a separately made 7 s decoder, loaded by name
        model.get_layer(name).set_weights(plain.get_layer(name).get_weights())
    veto = keras.Model(model.input, model.get_layer("veto").output)
    x = np.random.default_rng(0).normal(0, 2, (64, 70, 2 * N_FEAT)).astype(np.float32)
    p = model(x).numpy().ravel()
    p7 = plain(x[..., :N_FEAT]).numpy().ravel()  # the 7 s decoder sees the first half only
    v = veto(x).numpy().ravel()
    np.testing.assert_allclose(p, p7 * v, rtol=1e-6)
    assert (p <= p7 * (1 + 1e-6)).all() and (v > 0).all() and (v < 1).all()
    # the veto reads the second half only: changing the first moves p only through p_7s
    y = x.copy()
    y[..., :N_FEAT] += 1.0
    np.testing.assert_array_equal(veto(y).numpy(), veto(x).numpy())
    y = x.copy()
    y[..., N_FEAT:] += 1.0
    np.testing.assert_allclose(plain(y[..., :N_FEAT]).numpy().ravel(), p7, rtol=0)
    assert not np.allclose(veto(y).numpy().ravel(), v)


def test_training_moves_only_the_veto(store, seven_second, tmp_path):
    import keras

    m = _train_veto(store, seven_second, tmp_path / "v")
    again = _train_veto(store, seven_second, tmp_path / "v2")
    assert m["weights_sha256"] == again["weights_sha256"]  # reproducible
    src = keras.saving.load_model(seven_second / "model.keras")
    new = keras.saving.load_model(tmp_path / "v" / "model.keras")
    for name in SEVEN_SECOND_LAYERS:  # frozen: bit for bit the 7 s decoder's weights
        old, kept = src.get_layer(name).get_weights(), new.get_layer(name).get_weights()
        for a, b in zip(old, kept, strict=True):
            np.testing.assert_array_equal(a, b)
    fresh = build_model("frame_lstm_veto", n_features=2 * N_FEAT, seed=2)
    moved = [
        not np.array_equal(a, b)
        for a, b in zip(fresh.get_layer("veto_lstm").get_weights(),
                        new.get_layer("veto_lstm").get_weights(), strict=True)
    ]  # fmt: skip
    assert all(moved)
    src_manifest = json.loads((seven_second / "manifest.json").read_text())
    # the inputs use the 7 s decoder's own context scale, and the manifest says where it came from
    assert m["decoder"]["context"]["feature_scale"] == src_manifest["decoder"]["context"]["feature_scale"]
    assert m["init_from"]["path"] == str(seven_second)
    assert m["decoder"]["normalisation"] == "context_history"
    assert m["architecture"]["name"] == "frame_lstm_veto"


def test_a_veto_model_decodes_like_any_model(store, seven_second, tmp_path):
    """LiteRT (the CPU runtime) gives TensorFlow's probabilities, streaming in any chunks
    equals the whole recording, and the batch twin given the stream's own gate calls equals
    the stream bit for bit."""
    import shutil

    from rt_eeg.context import gate_score
    from rt_eeg.decoder import LITE_FILE, rehash_model

    _train_veto(store, seven_second, tmp_path / "v")
    shutil.copytree(tmp_path / "v", tmp_path / "tf")
    (tmp_path / "tf" / LITE_FILE).unlink()
    rehash_model(tmp_path / "tf")
    feats = lfcc_like(np.random.default_rng(8), 150 * 10, n_ch=4)
    lite, tf_dec = Decoder(tmp_path / "v", device="cpu"), Decoder(tmp_path / "tf", device="cpu")
    assert (lite.runtime, tf_dec.runtime) == ("litert", "tensorflow")
    p_lite = lite.predict_recording(feats)
    assert np.abs(p_lite - tf_dec.predict_recording(feats)).max() < 1e-5
    assert p_lite.shape == (150, 4) and 0 <= p_lite.min() and p_lite.max() <= 1
    stream = np.concatenate([lite.push(feats[i : i + 7])[1] for i in range(0, len(feats), 7)])
    np.testing.assert_array_equal(stream, p_lite)
    accept = gate_score(p_lite, lite.gate_top_k) < lite.gate
    np.testing.assert_array_equal(lite.predict_recording(feats, accept=accept), p_lite)


def test_the_veto_needs_a_fitting_7s_decoder(tmp_path, seven_second):
    from rt_eeg.train_config import TrainConfig

    with pytest.raises(RtEegError, match="needs init_from"):
        TrainConfig(arch="frame_lstm_veto", normalisation="context_history")
    with pytest.raises(RtEegError, match="normalisation must be one of"):
        TrainConfig(arch="frame_lstm_veto", normalisation="context", init_from="x")
    with pytest.raises(RtEegError, match="frame_lstm_veto only"):
        TrainConfig(normalisation="context", init_from=str(seven_second))
    with pytest.raises(RtEegError, match="frame_lstm_veto reads"):
        write_untrained_model(tmp_path / "bad", arch="frame_lstm_veto", normalisation="context")
    other = write_untrained_model(tmp_path / "maxabs", normalisation="maxabs")
    model = build_model("frame_lstm_veto", n_features=2 * N_FEAT)
    with pytest.raises(RtEegError, match="frame_lstm model with 'context' inputs"):
        load_seven_second_decoder(model, other)
    wide = build_model("frame_lstm_veto", n_features=2 * N_FEAT, units=8)
    with pytest.raises(RtEegError, match="does not fit"):
        load_seven_second_decoder(wide, seven_second)


def test_called_rows_keeps_what_the_frozen_decoder_calls():
    from rt_eeg.hard_negatives import called_rows

    def score(rows):  # a fixed "decoder": calls the rows whose number ends in 0-2
        return np.where(np.asarray(rows) % 10 < 3, 0.9, 0.1)

    pos = np.arange(1000, 1100)
    minable = np.arange(0, 1000)
    source = (minable >= 800).astype(np.int64)  # source 1 has 200 rows, source 0 800
    keep, neg, neg_src, info = called_rows(
        np.random.default_rng(1), pos, minable, score, 0.5, pool=300, minable_source=source
    )
    np.testing.assert_array_equal(keep, pos % 10 < 3)
    assert (neg % 10 < 3).all() and len(set(neg.tolist())) == neg.size  # called, distinct
    assert info["background_scored"] == 300 and info["background_called"] == neg.size
    np.testing.assert_array_equal(neg_src, (neg >= 800).astype(np.int64))  # the pool: 150 + 150
    assert 30 < (neg_src == 1).sum() < 60 and 30 < (neg_src == 0).sum() < 60
    again = called_rows(np.random.default_rng(1), pos, minable, score, 0.5, pool=300,
                        minable_source=source)  # fmt: skip
    np.testing.assert_array_equal(again[1], neg)
    with pytest.raises(RtEegError, match="nothing for a veto"):
        called_rows(np.random.default_rng(1), pos, minable, score, 0.95, pool=300)


def test_the_veto_can_train_on_the_calls_alone(store, seven_second, tmp_path):
    """--veto-called: the epochs hold only the seizure and background rows the frozen 7 s
    decoder calls; its weights stay frozen; the manifest counts the rows."""
    import keras

    from rt_eeg.train_data import model_inputs

    m = _train_veto(store, seven_second, tmp_path / "c", veto_called=0.5, hard_negatives=0.0)
    rows = m["veto_training_rows"]
    seven = keras.saving.load_model(seven_second / "model.keras")
    scale = np.asarray(m["decoder"]["context"]["feature_scale"], np.float32)
    order = np.load(tmp_path / "c" / "data_order.npy").astype(np.int64).ravel()
    p7 = seven.predict(model_inputs(store, order, "context", scale)[0], verbose=0).ravel()
    assert (p7 >= 0.5 - 1e-6).all()  # nothing the 7 s decoder rejects
    labels = np.asarray(store.labels[order])
    assert 0 < labels.mean() < 1
    train = store.rows("train")
    pos = train[np.asarray(store.labels[train]) == 1]
    p_pos = seven.predict(model_inputs(store, pos, "context", scale)[0], verbose=0).ravel()
    assert abs(rows["seizure_called"] - int((p_pos >= 0.5).sum())) <= 2  # XLA vs Keras last bits
    assert rows["seizure_total"] == pos.size and m["samples"]["train_seiz"] == rows["seizure_called"]
    assert m["train_config"]["veto_called"] == 0.5
    with pytest.raises(RtEegError, match="set hard_negatives to 0"):
        _train_veto(store, seven_second, tmp_path / "x", veto_called=0.5)
