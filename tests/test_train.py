"""Training: feature store layout, labels, bit-identical reproducibility, manifest."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from rt_eeg.decoder import FRAMES_PER_EPOCH, WINDOW_FRAMES, Decoder
from rt_eeg.dev_metrics import dev_scores, roc_auc
from rt_eeg.errors import RtEegError
from rt_eeg.store import (
    FeatureStore,
    RecordingFeatures,
    StoreWriter,
    channel_labels,
    epoch_labels_from_intervals,
)
from rt_eeg.train import train_from_store
from rt_eeg.train_config import TrainConfig
from rt_eeg.train_corpus import parse_variants
from rt_eeg.train_data import balanced_order

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]
N_FEAT = 26
CH = ["FP1-F7", "F7-T3", "T3-T5", "T5-O1", "C3-CZ"]


def _recording(rng, name, split, n_frames=600, n_ch=5):
    """Synthetic LFCC-like features with one seizure on the first 3 channels."""
    feats = rng.normal(0, 1, (n_frames, n_ch, N_FEAT)).astype(np.float32)
    n_ep = n_frames // FRAMES_PER_EPOCH
    onset = int(rng.integers(8, n_ep - 20))
    t = np.arange(12 * FRAMES_PER_EPOCH)
    feats[onset * 10 : (onset + 12) * 10, :3, :8] += (3 * np.sin(t / 2))[:, None, None]
    lab = np.zeros((n_ep, n_ch), np.uint8)
    lab[:, :3] = epoch_labels_from_intervals([(onset, onset + 12)], n_ep)[:, None]
    return RecordingFeatures(name, split, name.split("_")[0], CH[:n_ch], feats, lab)


@pytest.fixture(scope="module")
def store_and_recs(tmp_path_factory):
    rng = np.random.default_rng(2024)
    recs = [_recording(rng, f"p{i}_s001_t000.edf", "train" if i < 4 else "dev") for i in range(6)]
    recs.append(_recording(rng, "p9_s001_t000.edf", "train", n_frames=437, n_ch=3))
    path = tmp_path_factory.mktemp("store")
    with StoreWriter(path, N_FEAT, {"key": "test"}) as w:
        for r in recs:
            w.add(r)
    return FeatureStore(path), recs


def test_store_windows_match_source(store_and_recs):
    store, recs = store_and_recs
    assert store.features.shape == (
        sum(r.features.shape[0] * r.features.shape[1] for r in recs),
        N_FEAT,
    )
    rng = np.random.default_rng(0)
    for rows in (store.rows("train"), store.rows("dev")):
        pick = rng.choice(rows, 200, replace=False)
        w, nv, y = store.windows(pick)
        assert w.shape == (200, WINDOW_FRAMES, N_FEAT) and w.dtype == np.float32
        for k, row in enumerate(pick):
            t = np.searchsorted(store.label_offset, row, side="right") - 1
            rec = recs[store.track_recording[t]]
            ch = rec.ch_names.index(store.index["channels"][store.track_channel[t]])
            e = row - store.label_offset[t]
            stop = FRAMES_PER_EPOCH * (e + 1)
            start = max(0, stop - WINDOW_FRAMES)
            np.testing.assert_array_equal(
                w[k, WINDOW_FRAMES - (stop - start) :], rec.features[start:stop, ch]
            )
            assert np.all(w[k, : WINDOW_FRAMES - (stop - start)] == 0)
            assert nv[k] == stop - start
            assert y[k] == rec.labels[e, ch]
    # Every label row is used exactly once across the splits; 437 frames -> 43 epochs.
    n_rows = sum(r.labels.size for r in recs)
    assert len(store.rows("train")) + len(store.rows("dev")) == n_rows == len(store.labels)


def test_store_incomplete_is_refused(tmp_path):
    w = StoreWriter(tmp_path, N_FEAT)
    w.add(_recording(np.random.default_rng(1), "a_1.edf", "train"))
    w.abort()
    with pytest.raises(RtEegError, match="not a complete feature store"):
        FeatureStore(tmp_path)


def test_epoch_labels_half_coverage():
    # [2.5, 5.2): epochs 2 (0.5 covered), 3, 4 seiz; 5 (0.2) bckg; overlaps are merged.
    lab = epoch_labels_from_intervals([(2.5, 5.2), (3.0, 4.0), (7.6, 8.1)], 10)
    np.testing.assert_array_equal(lab, [0, 0, 1, 1, 1, 0, 0, 0, 0, 0])


def test_channel_labels_per_channel_csv_and_term(tmp_path):
    from rt_eeg.io.annotations import Event, write_csv, write_csv_bi

    edf = tmp_path / "p_s001_t000.edf"
    edf.write_bytes(b"")  # only its name is used
    chans = ["FP1-F7", "F7-T3", "C3-CZ"]
    write_csv_bi(edf.with_suffix(".csv_bi"), [Event(2.0, 6.0, "seiz")], 10.0)
    term = channel_labels(edf, edf.with_suffix(".csv_bi"), chans, 10)
    np.testing.assert_array_equal(term, np.repeat([[0, 0, 1, 1, 1, 1, 0, 0, 0, 0]], 3, 0).T)
    # A per-channel .csv beside the EDF wins: only F7-T3 (a TUSZ subtype label) is seizure.
    write_csv(
        edf.with_suffix(".csv"),
        [Event(0.0, 10.0, "bckg", channel="FP1-F7"), Event(3.0, 5.0, "fnsz", channel="F7-T3")],
        10.0,
    )
    per = channel_labels(edf, edf.with_suffix(".csv_bi"), chans, 10)
    np.testing.assert_array_equal(per[:, 1], [0, 0, 0, 1, 1, 0, 0, 0, 0, 0])
    assert per[:, [0, 2]].sum() == 0


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


def test_onset_weighting_draws_onsets_more_often(tmp_path):
    """Onset ranks come from the label runs of each track, and weighted balanced orders draw
    the first seconds of a seizure in proportion to the weight."""
    from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter

    labels = np.zeros((40, 2), np.uint8)
    labels[10:30, 0] = 1  # a 20 s seizure on channel 0
    labels[35:40, 1] = 1  # and a 5 s one on channel 1
    feats = np.random.default_rng(0).normal(size=(400, 2, 26)).astype(np.float32)
    with StoreWriter(tmp_path / "s", 26) as w:
        w.add(RecordingFeatures("r", "train", "p", ["A-B", "C-D"], feats, labels))
    store = FeatureStore(tmp_path / "s")
    pos = np.flatnonzero(np.asarray(store.labels) == 1)
    rank = store.onset_rank(pos)
    assert rank.tolist() == list(range(20)) + list(range(5))
    weight = np.where(rank < 5, 4.0, 1.0)
    neg = np.arange(10**6, 10**6 + 5000)  # enough background rows for 2000 seizure draws
    order = balanced_order(np.random.default_rng(1), pos, neg, 4000, weight)
    drawn = order[np.isin(order, pos)]
    onset_share = np.isin(drawn, pos[rank < 5]).mean()
    # 10 onset rows of weight 4 against 15 later rows of weight 1: 40 / 55 of the draws
    assert onset_share == pytest.approx(40 / 55, abs=0.04)
    # store centres: background-only recording -> the gate never rejects; seizure epochs do
    assert store.centers(np.arange(store.labels.shape[0])).shape == (80, 26)


def test_seizure_balance_draws_short_seizures_as_often_as_long_ones(tmp_path):
    """Run lengths come from each track's label runs (a run never crosses into the next
    track); with seizure balance 1 a 4 s seizure is drawn as often in total as a 24 s one,
    and it still multiplies the onset weight."""
    from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter
    from rt_eeg.train_config import TrainConfig
    from rt_eeg.train_data import seizure_weights

    labels = np.zeros((40, 2), np.uint8)
    labels[6:30, 0] = 1  # a 24 s seizure on channel 0
    labels[36:40, 0] = 1  # a 4 s one at the end of channel 0's track
    labels[0:4, 1] = 1  # channel 1's track opens with one: a separate run of 4
    feats = np.random.default_rng(0).normal(size=(400, 2, 26)).astype(np.float32)
    with StoreWriter(tmp_path / "s", 26) as w:
        w.add(RecordingFeatures("r", "train", "p", ["A-B", "C-D"], feats, labels))
    store = FeatureStore(tmp_path / "s")
    pos = np.flatnonzero(np.asarray(store.labels) == 1)
    assert store.run_length(pos).tolist() == [24] * 24 + [4] * 8
    assert store.onset_rank(pos).tolist() == list(range(24)) + list(range(4)) * 2

    assert seizure_weights(store, pos, TrainConfig()) is None  # the default: uniform draws
    weight = seizure_weights(store, pos, TrainConfig(seizure_balance=1.0))
    neg = np.arange(10**6, 10**6 + 6000)
    order = balanced_order(np.random.default_rng(1), pos, neg, 6000, weight)
    drawn = order[np.isin(order, pos)]
    long_share = np.isin(drawn, pos[:24]).mean()
    assert long_share == pytest.approx(1 / 3, abs=0.03)  # three runs, each a third
    half = seizure_weights(store, pos, TrainConfig(seizure_balance=0.5))
    np.testing.assert_allclose(half * np.sqrt(store.run_length(pos)), 1.0)
    both = seizure_weights(
        store, pos, TrainConfig(seizure_balance=1.0, onset_weight=3.0, onset_epochs=2)
    )
    np.testing.assert_allclose(both, weight * np.where(store.onset_rank(pos) < 2, 3.0, 1.0))
    with pytest.raises(RtEegError, match="seizure_balance"):
        TrainConfig(seizure_balance=1.5)


def test_balanced_order_and_scores():
    rng = np.random.default_rng(0)
    pos, neg = np.arange(10), np.arange(100, 1000)
    order = balanced_order(rng, pos, neg, 64)
    assert len(order) == 64 and np.isin(order, pos).sum() == 32
    assert len(np.unique(order[np.isin(order, neg)])) == 32  # background without replacement
    assert np.bincount(order[np.isin(order, pos)]).min() >= 3  # every seizure row repeated
    y = np.array([0, 0, 1, 1])
    assert roc_auc(y, np.array([0.1, 0.4, 0.35, 0.8])) == pytest.approx(0.75)
    s = dev_scores(y, np.array([0.1, 0.4, 0.35, 0.8]))
    assert s["sensitivity"] == 0.5 and s["specificity"] == 1.0


# Dropout on: its seeded random masks are part of what must reproduce.
TINY = {
    "epochs": 2,
    "units": 8,
    "dense_units": 16,
    "dropout": 0.25,
    "batch_size": 64,
    "samples_per_epoch": 384,
}


def _weights(model_dir):
    import keras

    return keras.saving.load_model(model_dir / "model.keras", compile=False).get_weights()


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
    wa, wb, wc = (_weights(tmp_path / n) for n in "abc")
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


# --------------------------------------------------------------------------- end to end


def _write_corpus(root, rng):
    """A tiny TUSZ v2-like corpus: 30 s EDFs, a 3 Hz high-amplitude 'seizure' in each."""
    from edf_factory import TUH_ELECTRODES, write_edf

    from rt_eeg.io.annotations import Event, write_csv_bi

    sfreq, seconds = 250.0, 30
    labels = [f"EEG {e}-REF" for e in TUH_ELECTRODES]
    t = np.arange(int(sfreq * seconds)) / sfreq
    for split, patients in (
        ("train", ("aaaaaaaa", "aaaaaaab", "aaaaaaac")),
        ("dev", ("aaaaaaad",)),
    ):
        for p in patients:
            folder = root / "edf" / split / p / "s001_2020" / "01_tcp_ar"
            folder.mkdir(parents=True)
            onset = float(rng.integers(8, 18))
            data = rng.normal(0, 15, (len(labels), t.size))
            sz = (t >= onset) & (t < onset + 8)
            # Focal left: electrodes of the left temporal chain carry the rhythm.
            for k, e in enumerate(TUH_ELECTRODES):
                if e in ("F7", "T3", "T5", "FP1", "C3"):
                    data[k, sz] += 120 * np.sin(2 * np.pi * 3.0 * t[sz] + k)
            stem = f"{p}_s001_t000"
            write_edf(folder / f"{stem}.edf", data, labels, sfreq)
            write_csv_bi(
                folder / f"{stem}.csv_bi",
                [Event(onset, onset + 8, "seiz")],
                float(seconds),
                bname=stem,
            )
    return root


def test_train_command_end_to_end(tmp_path):
    from rt_eeg.cli import main

    corpus = _write_corpus(tmp_path / "corpus", np.random.default_rng(5))
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


# --------------------------------------------------------------------------- hard negatives


def test_minable_negatives_keep_away_from_seizures(store_and_recs):
    """Mining never draws background within the margin of a seizure of the same recording,
    on any channel (the labels there are the least certain), and draws all the rest."""
    from rt_eeg.hard_negatives import minable_negatives

    store, _ = store_and_recs
    rows = store.rows("train")
    neg = rows[np.asarray(store.labels[rows]) == 0]
    minable = minable_negatives(store, neg, margin_epochs=5)
    assert 0 < minable.size < neg.size
    track = np.searchsorted(store.label_offset, minable, side="right") - 1
    epoch = minable - store.label_offset[track]
    lab = np.asarray(store.labels, bool)
    for t, e in zip(track, epoch, strict=True):
        rec_tracks = np.flatnonzero(store.track_recording == store.track_recording[t])
        near = [
            lab[store.label_offset[u] + max(0, e - 5) : store.label_offset[u] + e + 6].any()
            for u in rec_tracks
        ]
        assert not any(near)
    # Channels 3-4 carry no seizure label, yet their epochs during the seizure are excluded.
    assert np.setdiff1d(neg, minable).size > 2 * 5 * len(store.index["recordings"])
    wider = minable_negatives(store, neg, margin_epochs=0)
    assert np.all(np.isin(minable, wider)) and wider.size > minable.size


def test_mine_order_takes_the_hardest_background():
    from rt_eeg.hard_negatives import mine_order

    rng = np.random.default_rng(3)
    order = np.concatenate([np.arange(100, 150), np.arange(1000, 1050)])
    labels = np.concatenate([np.ones(50), np.zeros(50)])
    minable = np.arange(2000, 3000)
    seen = []

    def score(rows):  # a model that finds the highest-numbered rows hardest
        seen.append(np.array(rows))
        return rows / 3000.0

    new, info = mine_order(order, labels, rng, minable, 0.5, 4, score)
    assert info["mined"] == 25 and info["candidates"] == 100
    assert sorted(new.tolist()) != sorted(order.tolist()) and new.size == order.size
    mined = np.setdiff1d(new, order)
    assert mined.size == 25 and np.all(np.isin(mined, minable))
    # The kept candidates are the top quarter of the scored pool.
    (pool,) = seen
    np.testing.assert_array_equal(np.sort(mined), np.sort(pool)[-25:])
    assert info["score_min"] == pytest.approx(np.sort(pool)[-25] / 3000.0, abs=1e-6)
    assert np.all(np.isin(np.arange(100, 150), new))  # seizure rows untouched
    assert np.isin(np.arange(1000, 1050), new).sum() == 25


def test_mine_order_balanced_between_sources():
    """With sources, the candidate pool is split equally between them however unequal their
    background, and the hardest are kept over the whole pool."""
    from rt_eeg.hard_negatives import mine_order

    rng = np.random.default_rng(4)
    order = np.concatenate([np.arange(100, 150), np.arange(1000, 1050)])
    labels = np.concatenate([np.ones(50), np.zeros(50)])
    minable = np.arange(2000, 3000)
    source = np.where(minable < 2900, 3, 7)  # 900 rows of one source, 100 of the other
    seen = []

    def score(rows):  # the small source's background is the hardest
        seen.append(np.array(rows))
        return np.where(rows >= 2900, 0.9, 0.1) + rows / 1e6

    new, info = mine_order(order, labels, rng, minable, 0.5, 4, score, source)
    (pool,) = seen
    assert info["candidates"] == 100 and (pool >= 2900).sum() == 50  # half the pool each
    assert np.unique(pool).size == 100
    assert info["mined"] == 25 and info["mined_per_source"] == [0, 25]
    assert np.all(np.setdiff1d(new, order) >= 2900)
    # In proportion, the small source would be a tenth of the pool: a pool too large for the
    # small source's share is capped, never drawn twice.
    _, info = mine_order(order, labels, rng, minable, 1.0, 8, score, source)
    assert info["candidates"] == 200 and info["mined"] == 25


def test_hard_negative_training_is_reproducible(store_and_recs, tmp_path):
    """A mined run is bit-identical for a seed, records what it mined, and draws background
    the plain run does not."""
    from rt_eeg.features import FeatureConfig

    store, _ = store_and_recs
    runs = {}
    for name in ("a", "b"):
        runs[name] = train_from_store(
            store,
            tmp_path / name,
            TrainConfig(seed=5, hard_negatives=0.5, hard_pool=2, hard_margin_epochs=3, **TINY),
            feature_config=FeatureConfig(),
            device="cpu",
            log=lambda _: None,
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
    from rt_eeg.features import FeatureConfig

    store, _ = store_and_recs
    cfg = dict(TINY, epochs=4, patience=1)
    runs = {}
    for keep in ("best", "last"):
        runs[keep] = train_from_store(
            store,
            tmp_path / keep,
            TrainConfig(seed=3, keep=keep, **cfg),
            feature_config=FeatureConfig(),
            device="cpu",
            log=lambda _: None,
        )
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


def test_label_smoothing_reaches_the_loss_and_is_folded_into_the_output(store_and_recs, tmp_path):
    """label_smoothing=eps trains against eps/2 and 1-eps/2 (no training loss can fall below
    the binary entropy of eps/2), and the exported model's output logit is the trained one times
    smoothing_logit_scale(eps): a monotone fold, so the dev AUC of the last epoch is kept while
    the dev cross-entropy, scored on the folded outputs, changes."""
    import math

    from rt_eeg.features import FeatureConfig
    from rt_eeg.train_config import smoothing_logit_scale

    store, _ = store_and_recs
    eps = 0.4
    quick = dict(TINY, learning_rate=0.03)  # fast enough that a 0/1 target's loss drops below
    runs = {
        name: train_from_store(
            store, tmp_path / name,
            TrainConfig(seed=8, keep="last", label_smoothing=ls, smoothed_top=top, **quick),
            feature_config=FeatureConfig(), device="cpu", log=lambda _: None,
        )  # fmt: skip
        for name, ls, top in (("plain", 0.0, 0.9998), ("smooth", eps, 0.9998),
                              ("again", eps, 0.9998), ("middle", eps, 0.995))
    }
    plain, smooth = runs["plain"], runs["smooth"]
    floor = -(eps / 2 * math.log(eps / 2) + (1 - eps / 2) * math.log(1 - eps / 2))  # 0.5004
    assert min(h["train_loss"] for h in smooth["history"]) >= floor - 1e-4
    assert min(h["train_loss"] for h in plain["history"]) < floor  # the bound is not vacuous
    assert smooth["label_smoothing"]["logit_scale"] == pytest.approx(smoothing_logit_scale(eps))
    assert smooth["label_smoothing"]["eps"] == eps and "label_smoothing" not in plain
    assert smooth["train_config"]["label_smoothing"] == eps
    assert smooth["weights_sha256"] == runs["again"]["weights_sha256"] != plain["weights_sha256"]
    # another fold target: the same trained weights but the output layer's, scaled by the ratio
    mid = runs["middle"]
    assert mid["label_smoothing"]["smoothed_top"] == 0.995
    assert mid["label_smoothing"]["logit_scale"] == pytest.approx(smoothing_logit_scale(eps, 0.995))
    w_top, w_mid = _weights(tmp_path / "smooth"), _weights(tmp_path / "middle")
    for a, b in zip(w_top[:-2], w_mid[:-2], strict=True):
        np.testing.assert_array_equal(a, b)
    ratio = smoothing_logit_scale(eps) / smoothing_logit_scale(eps, 0.995)
    for a, b in zip(w_top[-2:], w_mid[-2:], strict=True):  # the output layer's kernel and bias
        np.testing.assert_allclose(a, b * ratio, rtol=1e-5, atol=1e-6)
    last = smooth["history"][-1]
    assert smooth["dev_scores"]["auc"] == pytest.approx(last["dev_auc"], abs=1e-6)
    assert smooth["dev_scores"]["balanced_bce"] != pytest.approx(last["dev_balanced_bce"])
    # the fold sits in the saved model's output layer alone: undoing it gives the unfolded
    # model's probabilities, bounded away from 0/1 as the smoothed targets are
    import keras

    model = keras.saving.load_model(tmp_path / "smooth" / "model.keras", compile=False)
    k = smoothing_logit_scale(eps)
    x = np.random.default_rng(0).normal(size=(64, WINDOW_FRAMES, store.n_features))
    x = x.astype(np.float32)
    p = model.predict(x, verbose=0).ravel().astype(np.float64)
    kernel, bias = model.get_layer("p_seiz").get_weights()
    model.get_layer("p_seiz").set_weights([kernel / np.float32(k), bias / np.float32(k)])
    q = model.predict(x, verbose=0).ravel().astype(np.float64)
    logit = lambda v: np.log(v / (1 - v))  # noqa: E731
    np.testing.assert_allclose(logit(p), k * logit(q), rtol=1e-3, atol=1e-3)
    with pytest.raises(RtEegError, match="label_smoothing"):
        TrainConfig(label_smoothing=0.5)
    with pytest.raises(RtEegError, match="smoothed_top"):
        TrainConfig(label_smoothing=0.1, smoothed_top=1.0)
    with pytest.raises(RtEegError, match="needs label_smoothing"):
        TrainConfig(smoothed_top=0.995)
    with pytest.raises(RtEegError, match="frame_lstm_veto"):
        TrainConfig(arch="frame_lstm_veto", normalisation="context_history", label_smoothing=0.1,
                    init_from="x")  # fmt: skip


def test_background_focal_loss_weighs_the_background_scored_highest():
    """The focal loss is Keras' cross-entropy when gamma is ~0; with gamma = 1 the background's
    weights are p / mean(p) over the batch's background, so the two classes keep their shares
    and a background sample at 0.9 pulls its logit down 9x harder than one at 0.1 (relative
    to the plain loss), while seizure samples' gradients are untouched."""
    import keras
    import tensorflow as tf

    from rt_eeg.train import _background_focal_loss

    y = tf.constant([1, 1, 0, 0, 0, 0], tf.float32)
    p = tf.constant([0.7, 0.95, 0.1, 0.1, 0.5, 0.9], tf.float32)
    plain = float(keras.losses.BinaryCrossentropy()(y, p))
    assert float(_background_focal_loss(tf, 1e-9)(y, p)) == pytest.approx(plain, rel=1e-5)
    yn, pn = y.numpy().astype(np.float64), p.numpy().astype(np.float64)
    bce = -(yn * np.log(pn) + (1 - yn) * np.log(1 - pn))
    w = np.where(yn == 1, 1.0, pn / pn[yn == 0].mean())
    assert w[yn == 0].mean() == pytest.approx(1.0)
    assert float(_background_focal_loss(tf, 1.0)(y, p)) == pytest.approx(
        (w * bce).mean(), rel=1e-5
    )
    logit = tf.Variable(np.log(pn / (1 - pn)).astype(np.float32))
    grads = {}
    for name, fn in (("plain", keras.losses.BinaryCrossentropy()),
                     ("focal", _background_focal_loss(tf, 1.0))):  # fmt: skip
        with tf.GradientTape() as tape:
            loss = fn(y, tf.sigmoid(logit))
        grads[name] = tape.gradient(loss, logit).numpy()
    ratio = grads["focal"] / grads["plain"]
    np.testing.assert_allclose(ratio[:2], 1.0, rtol=1e-4)  # seizure samples untouched
    assert ratio[5] / ratio[2] == pytest.approx(9.0, rel=1e-3)
    np.testing.assert_allclose(ratio[2:], w[2:], rtol=1e-4)


@pytest.mark.parametrize("field, value", [("background_focal", 1.0), ("background_hinge", 0.6)])
def test_background_loss_training_is_reproducible_and_recorded(store_and_recs, tmp_path, field,
                                                                value):  # fmt: skip
    """A background loss (focal weighting, hinge) trains bit-identically for a seed, differs
    from the plain loss and is recorded in the manifest."""
    from rt_eeg.features import FeatureConfig

    store, _ = store_and_recs
    runs = {
        name: train_from_store(
            store, tmp_path / name, TrainConfig(seed=6, **{field: v}, **TINY),
            feature_config=FeatureConfig(), device="cpu", log=lambda _: None,
        )  # fmt: skip
        for name, v in (("a", value), ("b", value), ("plain", 0.0))
    }
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    assert runs["a"]["weights_sha256"] != runs["plain"]["weights_sha256"]
    assert runs["a"]["train_config"][field] == value
    assert runs["plain"]["train_config"][field] == 0.0


def test_background_losses_refuse_bad_values_and_combinations():
    """The focal weighting and the hinge refuse values out of range and what they cannot be
    combined with, each in one line naming the setting."""
    with pytest.raises(RtEegError, match="background_focal must be"):
        TrainConfig(background_focal=-1.0)
    with pytest.raises(RtEegError, match="label_smoothing"):
        TrainConfig(background_focal=1.0, label_smoothing=0.1)
    for bad in (0.3, 1.0):
        with pytest.raises(RtEegError, match="background_hinge must be"):
            TrainConfig(background_hinge=bad)
    with pytest.raises(RtEegError, match="hinge_weight must be"):
        TrainConfig(background_hinge=0.99, hinge_weight=0.0)
    for other in ({"label_smoothing": 0.1}, {"background_focal": 1.0}):
        with pytest.raises(RtEegError, match="not with label_smoothing, background_focal"):
            TrainConfig(background_hinge=0.99, **other)
    assert TrainConfig(background_hinge=0.99).hinge_weight == 1.0


def test_background_hinge_loss_pulls_only_the_background_above_its_level():
    """The hinge loss is Keras' cross-entropy while every background sample is at or below
    the level; above it, it adds weight * relu(z - logit(level))**2 per background sample
    (numpy check), and only those samples' gradients change: seizure samples scored above
    the level, and background below it, keep the plain gradient exactly."""
    import keras
    import tensorflow as tf

    from rt_eeg.train import _background_hinge_loss

    plain = keras.losses.BinaryCrossentropy()
    hinge = _background_hinge_loss(tf, 0.99, 1.0)
    y = tf.constant([1, 1, 0, 0, 0, 0], tf.float32)
    low = tf.constant([0.7, 0.9999, 0.1, 0.5, 0.9, 0.985], tf.float32)
    assert float(hinge(y, low)) == pytest.approx(float(plain(y, low)), rel=1e-6)
    z = np.array([0.8, 9.0, -2.0, 0.0, 6.0, 9.0])  # background 6.0 and 9.0 over logit(0.99)
    logit = tf.Variable(z.astype(np.float32))
    over = np.maximum(z - np.log(99.0), 0.0) * (np.arange(6) >= 2)
    p = tf.sigmoid(logit)
    assert float(hinge(y, p)) == pytest.approx(float(plain(y, p)) + (over**2).mean(), rel=1e-4)
    grads = {}
    for name, fn in (("plain", plain), ("hinge", hinge)):
        with tf.GradientTape() as tape:
            loss = fn(y, tf.sigmoid(logit))
        grads[name] = tape.gradient(loss, logit).numpy()
    extra = grads["hinge"] - grads["plain"]
    np.testing.assert_allclose(extra[:4], 0.0, atol=1e-7)  # seizures; background below level
    np.testing.assert_allclose(extra[4:], 2 * over[4:] / 6, rtol=1e-3)
    # at the grid's top (0.9998) one background sample's pull is ~9x the cross-entropy's
    top = tf.Variable(np.array([np.log(0.9998 / 0.0002)], np.float32))
    pulls = []
    for fn in (plain, hinge):
        with tf.GradientTape() as tape:
            loss = fn(tf.constant([0.0]), tf.sigmoid(top))
        pulls.append(float(tape.gradient(loss, top)[0]))
    assert pulls[1] / pulls[0] == pytest.approx(8.8, abs=0.1)


def test_background_hinge_option_parses_level_and_weight():
    """``--background-hinge LEVEL[:WEIGHT]`` reaches TrainConfig; a malformed one is a usage
    error naming what was expected."""
    import argparse

    from rt_eeg.commands.train import _hinge_spec

    assert _hinge_spec("0.99") == (0.99, 1.0)
    assert _hinge_spec("0.995:0.5") == (0.995, 0.5)
    for bad in ("x", "0.99:1:2", "0.99:"):
        with pytest.raises(argparse.ArgumentTypeError, match="LEVEL\\[:WEIGHT\\]"):
            _hinge_spec(bad)


def test_train_command_default_smoothed_top_is_the_configs():
    """``--smoothed-top``'s default is spelt out in the command (importing train_config there
    costs every command start-up time); it must stay the config's :data:`SMOOTHED_TOP`."""
    import argparse

    from rt_eeg.commands.train import add_arguments
    from rt_eeg.train_config import SMOOTHED_TOP

    p = argparse.ArgumentParser()
    add_arguments(p)
    top = next(a for a in p._actions if a.dest == "smoothed_top")
    assert top.default == SMOOTHED_TOP == TrainConfig().smoothed_top


def test_tail_average_keeps_the_mean_of_the_step_weights(store_and_recs, tmp_path):
    """average_epochs=N keeps the uniform mean of the weights after every step of the last N
    epochs: with one step per epoch, the mean of a 1-epoch run's weights and a 2-epoch run's
    (the same seed draws the same first epoch); with several steps, a model other than the last
    step's, reproducibly, and the manifest says how many steps it averaged."""
    from rt_eeg.features import FeatureConfig

    store, _ = store_and_recs
    one_step = dict(TINY, batch_size=64, samples_per_epoch=64)

    def train(name, **kw):
        return train_from_store(
            store, tmp_path / name, TrainConfig(seed=8, keep="last", **kw),
            feature_config=FeatureConfig(), device="cpu", log=lambda _: None,
        )  # fmt: skip

    train("e1", **dict(one_step, epochs=1))
    train("e2", **one_step)
    avg = train("avg", average_epochs=2, **one_step)
    w1, w2, wa = _weights(tmp_path / "e1"), _weights(tmp_path / "e2"), _weights(tmp_path / "avg")
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
    from rt_eeg.features import FeatureConfig

    store, _ = store_and_recs
    runs = {}
    for name, j, st in (("a", 0.5, 0.0), ("b", 0.5, 0.0), ("off", 0.0, 0.0), ("stale", 0.0, 0.5)):
        runs[name] = train_from_store(
            store,
            tmp_path / name,
            TrainConfig(seed=4, normalisation="context", contrast_jitter=j, stale_context=st, **TINY),
            feature_config=FeatureConfig(),
            device="cpu",
            log=lambda _: None,
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


def _train_twice(store, tmp_path, **cfg) -> list[dict]:
    """Two TINY trainings with the same config into ``tmp_path/a`` and ``tmp_path/b``: their
    manifests (a reproducibility check compares their weights)."""
    from rt_eeg.features import FeatureConfig

    return [
        train_from_store(
            store,
            tmp_path / name,
            TrainConfig(**cfg, **TINY),
            feature_config=FeatureConfig(),
            device="cpu",
            log=lambda _: None,
        )
        for name in ("a", "b")
    ]


def test_montage_training_is_reproducible_and_the_model_decodes_live(store_and_recs, tmp_path):
    """``context_montage`` trains from the store (recordings of 5 and 3 channels), a seed
    gives bit-identical weights, and the decoder takes the model: 2 x 26 inputs per frame,
    every channel of a recording decoded."""
    store, recs = store_and_recs
    runs = _train_twice(store, tmp_path, seed=5, normalisation="context_montage")
    assert runs[0]["weights_sha256"] == runs[1]["weights_sha256"]
    assert runs[0]["decoder"]["normalisation"] == "context_montage"
    assert "feature_scale" in runs[0]["decoder"]["context"]
    dec = Decoder(tmp_path / "a", device="cpu")
    assert dec.n_features == N_FEAT and dec.uses_context
    for rec in (recs[0], recs[-1]):  # 5 and 3 channels
        probs = dec.predict_recording(rec.features)
        assert probs.shape == rec.labels.shape and np.isfinite(probs).all()


def test_source_balanced_order_splits_each_half_equally():
    """With sources, each half is split equally between them whatever their sizes; a small
    source repeats its rows; the draw is seeded; a weighted seizure half stays per source."""
    from rt_eeg.train_data import source_balanced_half

    pos = np.arange(100)
    pos_src = np.r_[np.zeros(90, int), np.ones(7, int), np.full(3, 2)]  # 90 / 7 / 3 rows
    neg = np.arange(1000, 4000)
    neg_src = np.r_[np.zeros(2500, int), np.ones(400, int), np.full(100, 2)]
    order = balanced_order(np.random.default_rng(5), pos, neg, 600, sources=(pos_src, neg_src))
    again = balanced_order(np.random.default_rng(5), pos, neg, 600, sources=(pos_src, neg_src))
    np.testing.assert_array_equal(order, again)
    drawn_pos, drawn_neg = order[order < 1000], order[order >= 1000]
    assert len(drawn_pos) == len(drawn_neg) == 300
    assert np.bincount(pos_src[drawn_pos]).tolist() == [100, 100, 100]
    assert np.bincount(neg_src[drawn_neg - 1000]).tolist() == [100, 100, 100]
    # source 2 has 3 seizure rows for 100 draws: each repeated 33-34 times
    assert np.bincount(drawn_pos[pos_src[drawn_pos] == 2]).max() == 34
    # unbalanced, the 90-row source would take ~90 % of the seizure half
    plain = balanced_order(np.random.default_rng(5), pos, neg, 600)
    assert (pos_src[plain[plain < 1000]] == 0).mean() > 0.85
    # the seizure half only (--balance-halves seizure): background in proportion (2500 of 3000)
    seiz_only = balanced_order(np.random.default_rng(5), pos, neg, 600, sources=(pos_src, None))
    sp, sn = seiz_only[seiz_only < 1000], seiz_only[seiz_only >= 1000]
    assert np.bincount(pos_src[sp]).tolist() == [100, 100, 100]
    assert 0.75 < (neg_src[sn - 1000] == 0).mean() < 0.92 and np.unique(sn).size == 300
    # onset weights act within a source: only weighted rows of source 0 are drawn
    w = np.where(pos < 10, 1.0, 0.0) + (pos_src > 0)
    half = source_balanced_half(np.random.default_rng(0), pos, pos_src, 90, w)
    assert set(half[pos_src[half] == 0].tolist()) <= set(range(10))


def test_source_balanced_training(tmp_path):
    """Sources are the recordings' top-level folders: training is reproducible, records the
    sources' sample counts, and a folder in no source is a clear error."""
    from rt_eeg.features import FeatureConfig
    from rt_eeg.train_data import parse_sources

    rng = np.random.default_rng(7)
    names = ["A/p1_s001_t000.edf", "A/p2_s001_t000.edf", "B/p3_s001_t000.edf", "C/p4_s001_t000.edf"]
    recs = [_recording(rng, n, "train") for n in names] + [_recording(rng, "D/p5.edf", "dev")]
    with StoreWriter(tmp_path / "s", N_FEAT, {"key": "test"}) as w:
        for r in recs:
            w.add(r)
    store = FeatureStore(tmp_path / "s")
    assert parse_sources(" A+B , C ") == ("A+B", "C")
    cfg = {"seed": 3, "normalisation": "context", **TINY}
    runs = [
        train_from_store(store, tmp_path / f"m{i}", TrainConfig(balance_sources=("A", "B+C"), **cfg),
                         feature_config=FeatureConfig(), device="cpu", log=lambda _: None)
        for i in range(2)
    ]  # fmt: skip
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
        train_from_store(store, tmp_path / f"h{i}", TrainConfig(
            balance_sources=("A", "B+C"), balance_mining=True, hard_negatives=0.5, hard_pool=2,
            hard_margin_epochs=0, **cfg), feature_config=FeatureConfig(), device="cpu",
            log=lambda _: None)
        for i in range(2)
    ]  # fmt: skip
    assert mined[0]["weights_sha256"] == mined[1]["weights_sha256"]
    info = mined[0]["history"][1]["hard_negatives"]
    assert len(info["mined_per_source"]) == 2 and sum(info["mined_per_source"]) == info["mined"]
    assert mined[0]["train_config"]["balance_mining"] is True
    with pytest.raises(RtEegError, match="balance_mining needs balance_sources"):
        TrainConfig(balance_mining=True)
    halves = train_from_store(store, tmp_path / "halves", TrainConfig(
        balance_sources=("A", "B+C"), balance_halves="seizure", **cfg),
        feature_config=FeatureConfig(), device="cpu", log=lambda _: None)  # fmt: skip
    assert halves["train_config"]["balance_halves"] == "seizure"
    order = np.load(tmp_path / "halves" / "data_order.npy")[0]
    _, track, _ = store.track_epoch(order)
    in_a = store.track_recording[track] < 2
    assert in_a[np.asarray(store.labels)[order] == 1].mean() == pytest.approx(0.5, abs=0.01)
    with pytest.raises(RtEegError, match="balance_halves"):
        TrainConfig(balance_halves="background")
    with pytest.raises(RtEegError, match=r"\['C'\] are in no source"):
        train_from_store(store, tmp_path / "bad", TrainConfig(balance_sources=("A", "B"), **cfg),
                         feature_config=FeatureConfig(), device="cpu", log=lambda _: None)  # fmt: skip


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
    runs = _train_twice(store, tmp_path, seed=5, arch="frame_lstm_3s", normalisation="context")
    assert runs[0]["weights_sha256"] == runs[1]["weights_sha256"]
    assert runs[0]["architecture"]["name"] == "frame_lstm_3s"
    probs = Decoder(tmp_path / "a", device="cpu").predict_recording(recs[0].features)
    assert probs.shape == recs[0].labels.shape and np.isfinite(probs).all()
    assert parse_variants("frame_lstm_3s:context:3:0.5")[0][:2] == ("frame_lstm_3s", "context")
