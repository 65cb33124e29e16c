"""What the training tests share: synthetic LFCC-like recordings, a tiny training config, a
tiny TUSZ-like corpus, two trainings for a reproducibility check, and a postprocess point that
makes an untrained model call both labels."""

from __future__ import annotations

import numpy as np

from rt_eeg.decoder import FRAMES_PER_EPOCH
from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter, epoch_labels_from_intervals
from rt_eeg.train import train_from_store
from rt_eeg.train_config import TrainConfig

N_FEAT = 26
CH = ["FP1-F7", "F7-T3", "T3-T5", "T5-O1", "C3-CZ"]


def recording(rng, name, split, n_frames=600, n_ch=5):
    """Synthetic LFCC-like features with one seizure on the first 3 channels."""
    feats = rng.normal(0, 1, (n_frames, n_ch, N_FEAT)).astype(np.float32)
    n_ep = n_frames // FRAMES_PER_EPOCH
    onset = int(rng.integers(8, n_ep - 20))
    t = np.arange(12 * FRAMES_PER_EPOCH)
    feats[onset * 10 : (onset + 12) * 10, :3, :8] += (3 * np.sin(t / 2))[:, None, None]
    lab = np.zeros((n_ep, n_ch), np.uint8)
    lab[:, :3] = epoch_labels_from_intervals([(onset, onset + 12)], n_ep)[:, None]
    return RecordingFeatures(name, split, name.split("_")[0], CH[:n_ch], feats, lab)


# Dropout on: its seeded random masks are part of what must reproduce.
TINY = {
    "epochs": 2,
    "units": 8,
    "dense_units": 16,
    "dropout": 0.25,
    "batch_size": 64,
    "samples_per_epoch": 384,
}


def weights(model_dir):
    import keras

    return keras.saving.load_model(model_dir / "model.keras", compile=False).get_weights()


# --------------------------------------------------------------------------- end to end


def write_corpus(root, rng):
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


def fit(store: FeatureStore, out, **cfg) -> dict:
    """One training of ``store`` into ``out`` with ``TrainConfig(**cfg)`` on the CPU, quietly:
    its manifest."""
    from rt_eeg.features import FeatureConfig

    return train_from_store(
        store,
        out,
        TrainConfig(**cfg),
        feature_config=FeatureConfig(),
        device="cpu",
        log=lambda _: None,
    )


def train_twice(store, tmp_path, **cfg) -> list[dict]:
    """Two TINY trainings with the same config into ``tmp_path/a`` and ``tmp_path/b``: their
    manifests (a reproducibility check compares their weights)."""
    return [fit(store, tmp_path / name, **cfg, **TINY) for name in ("a", "b")]


def small_store(tmp_path_factory) -> tuple[FeatureStore, list[RecordingFeatures]]:
    """Seven synthetic recordings (five train, two dev; one of 3 channels and 437 frames) written
    to a feature store under a fresh temporary folder: the store and its recordings."""
    rng = np.random.default_rng(2024)
    recs = [recording(rng, f"p{i}_s001_t000.edf", "train" if i < 4 else "dev") for i in range(6)]
    recs.append(recording(rng, "p9_s001_t000.edf", "train", n_frames=437, n_ch=3))
    path = tmp_path_factory.mktemp("store")
    with StoreWriter(path, N_FEAT, {"key": "test"}) as w:
        for r in recs:
            w.add(r)
    return FeatureStore(path), recs


def both_labels_point(result):
    """A postprocess point that calls both labels on ``result``'s scores (a ``detect_recording``
    result): an untrained model's scores are flat, so a threshold at their median makes every
    rule decide."""
    from rt_eeg.postprocess import PostprocessConfig

    thr = float(np.median([d.score for d in result.decisions if d.label != "na"]))
    return PostprocessConfig(threshold_on=thr, threshold_off=thr - 1e-6, onset_epochs=1,
                             offset_epochs=1, min_duration_epochs=1)  # fmt: skip
