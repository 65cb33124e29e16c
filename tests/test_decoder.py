"""Decoder: streaming equals batch, channel independence, causality, config checks."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from lfcc_like import N_FEAT, lfcc_like

from rt_eeg.decoder import (
    FRAMES_PER_EPOCH,
    WINDOW_FRAMES,
    Decoder,
    n_valid_frames,
    normalise_windows,
    predict_recording,
    recording_windows,
    write_untrained_model,
)
from rt_eeg.errors import RtEegError

pytestmark = [
    pytest.mark.timeout(120),
    # Keras 3 internals on numpy 2 (model.save); not ours.
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]

#: The models of ``model_dirs``: (architecture, normalisation).
MODEL_KEYS = [("frame_lstm", "maxabs"), ("epoch_lstm", "maxabs"), ("frame_lstm", "zscore")]


@pytest.fixture(scope="module")
def model_dirs(model_dir, tmp_path_factory):
    """Untrained models (weights random but fixed): both architectures, both normalisations.

    ``(frame_lstm, maxabs)`` is the default model the pipeline tests share (conftest).
    """
    root = tmp_path_factory.mktemp("models")
    return {
        ("frame_lstm", "maxabs"): model_dir,
        ("epoch_lstm", "maxabs"): write_untrained_model(root / "a", arch="epoch_lstm", seed=1),
        ("frame_lstm", "zscore"): write_untrained_model(
            root / "b", arch="frame_lstm", normalisation="zscore", seed=2
        ),
    }


@pytest.fixture(scope="module")
def decoders(model_dirs):
    return {k: Decoder(v, device="cpu") for k, v in model_dirs.items()}


def _stream(decoder, feats, chunks):
    """Push ``feats`` in chunks cycling through ``chunks``; return (starts, probs)."""
    decoder.flush()
    starts, probs, i, k = [], [], 0, 0
    times = np.arange(len(feats)) * 0.1
    while i < len(feats):
        n = chunks[k % len(chunks)]
        s, p = decoder.push(feats[i : i + n], times[i : i + n])
        starts.append(s)
        probs.append(p)
        i, k = i + n, k + 1
    s, p = decoder.flush()
    starts.append(s)
    probs.append(p)
    return np.concatenate(starts), np.concatenate(probs)


@pytest.mark.parametrize("key", MODEL_KEYS)
@pytest.mark.parametrize("chunks", [[1], [3, 7, 10, 25], [9999]], ids=["1", "mixed", "whole"])
def test_streaming_equals_batch(decoders, rng, key, chunks):
    dec = decoders[key]
    feats = lfcc_like(rng, 437)  # 43 complete epochs + 7 frames never scored
    batch = dec.predict_recording(feats)
    starts, stream = _stream(dec, feats, chunks)
    assert batch.shape == (43, 22) and stream.shape == batch.shape
    np.testing.assert_allclose(stream, batch, atol=1e-5, rtol=0)
    np.testing.assert_allclose(starts, np.arange(43) * 1.0, atol=1e-9)
    assert np.all((batch > 0) & (batch < 1))
    # The outputs are not constant (the comparison above is informative).
    assert batch.std() > 1e-4


def test_predict_recording_function_and_random_chunks(decoders, model_dirs, rng):
    dec = decoders[("frame_lstm", "maxabs")]
    feats = lfcc_like(rng, 300, n_ch=20)
    np.testing.assert_array_equal(predict_recording(dec, feats), dec.predict_recording(feats))
    chunks = list(rng.integers(1, 23, size=50))
    _, stream = _stream(dec, feats, chunks)
    np.testing.assert_allclose(stream, dec.predict_recording(feats), atol=1e-5, rtol=0)


@pytest.mark.parametrize("n_ch", [22, 20, 16])
def test_channel_counts_and_independence(decoders, rng, n_ch):
    """Each channel is decoded on its own: a channel subset gives the same columns."""
    dec = decoders[("frame_lstm", "maxabs")]
    feats = lfcc_like(rng, 200, n_ch=22)
    full = dec.predict_recording(feats)
    keep = np.sort(rng.choice(22, n_ch, replace=False))
    sub = dec.predict_recording(feats[:, keep])
    assert sub.shape == (20, n_ch)
    np.testing.assert_allclose(sub, full[:, keep], atol=1e-5, rtol=0)
    _, stream = _stream(dec, feats[:, keep], [4])
    np.testing.assert_allclose(stream, sub, atol=1e-5, rtol=0)


@pytest.mark.parametrize("key", MODEL_KEYS)
def test_causal(decoders, rng, key):
    """Changing frames after epoch e never changes epochs <= e; it does change later ones."""
    dec = decoders[key]
    feats = lfcc_like(rng, 250)
    base = dec.predict_recording(feats)
    for e in (0, 3, 12):
        changed = feats.copy()
        changed[FRAMES_PER_EPOCH * (e + 1) :] *= np.float32(-3.0)
        changed[FRAMES_PER_EPOCH * (e + 1) :] += np.float32(7.0)
        probs = dec.predict_recording(changed)
        np.testing.assert_array_equal(probs[: e + 1], base[: e + 1])
        assert np.abs(probs[e + 1 :] - base[e + 1 :]).max() > 1e-4


def test_window_normalisation():
    rng = np.random.default_rng(7)
    w = rng.normal(3, 2, (5, WINDOW_FRAMES, N_FEAT)).astype(np.float32)
    nv = np.array([70, 10, 30, 60, 1])
    garbage = w.copy()
    pad = np.arange(WINDOW_FRAMES)[None, :] < (WINDOW_FRAMES - nv)[:, None]
    garbage[pad] = 1e6  # padding content must not matter
    for method in ("maxabs", "zscore"):
        x = normalise_windows(w, nv, method)
        np.testing.assert_array_equal(x, normalise_windows(garbage, nv, method))
        assert np.all(x[pad] == 0)
        for i, n in enumerate(nv):
            valid = x[i, WINDOW_FRAMES - n :]
            if method == "maxabs":
                np.testing.assert_allclose(np.abs(valid).max(axis=0), 1.0, rtol=1e-6)
            elif n > 1:
                np.testing.assert_allclose(valid.mean(axis=0), 0.0, atol=1e-5)
                np.testing.assert_allclose(valid.std(axis=0), 1.0, rtol=1e-4)
    # A feature that is 0 throughout stays 0 (no division by zero).
    z = np.zeros((1, WINDOW_FRAMES, N_FEAT), np.float32)
    assert np.all(normalise_windows(z, np.array([70]), "maxabs") == 0)


def test_recording_windows_padding(rng):
    feats = lfcc_like(rng, 95, n_ch=3)
    w, nv = recording_windows(feats, np.arange(9))
    np.testing.assert_array_equal(nv, np.repeat(n_valid_frames(np.arange(9)), 3))
    # Epoch 2, channel 1: 40 leading zeros then frames 0..29.
    row = w[2 * 3 + 1]
    assert np.all(row[:40] == 0)
    np.testing.assert_array_equal(row[40:], feats[:30, 1])
    # Epoch 8: frames 20..89, no padding.
    np.testing.assert_array_equal(w[8 * 3 + 2], feats[20:90, 2])


def test_predict_many_batches_streams(decoders, rng):
    dec = decoders[("frame_lstm", "maxabs")]
    a, b = lfcc_like(rng, 120, 22), lfcc_like(rng, 120, 16)
    sa, sb = dec.open_stream(22), dec.open_stream(16)
    got_a, got_b = [], []
    for i in range(0, 120, 5):
        (ta, pa), (tb, pb) = dec.predict_many(
            [(sa, a[i : i + 5], np.arange(i, i + 5) * 0.1), (sb, b[i : i + 5], None)]
        )
        got_a.append(pa)
        got_b.append(pb)
    np.testing.assert_allclose(np.concatenate(got_a), dec.predict_recording(a), atol=1e-5)
    np.testing.assert_allclose(np.concatenate(got_b), dec.predict_recording(b), atol=1e-5)


def test_refuses_mismatched_features_toml(model_dirs, tmp_path):
    from rt_eeg.features import FeatureConfig

    cfg = FeatureConfig()
    field = next(
        f.name
        for f in dataclasses.fields(cfg)
        if isinstance(getattr(cfg, f.name), float) and f.name != "sfreq"
    )
    other = dataclasses.replace(cfg, **{field: getattr(cfg, field) * 1.5})
    write_untrained_model(tmp_path / "m", feature_config=other)
    with pytest.raises(RtEegError, match=field) as info:
        Decoder(tmp_path / "m", device="cpu")
    assert "features.toml" in str(info.value)
    # The same folder is accepted when the running configuration matches.
    assert Decoder(tmp_path / "m", device="cpu", feature_config=other).device == "/CPU:0"


def test_bad_inputs(decoders, model_dirs, tmp_path):
    dec = decoders[("frame_lstm", "maxabs")]
    dec.flush()
    bad = np.zeros((10, 22, N_FEAT), np.float32)
    bad[3, 4, 5] = np.nan
    with pytest.raises(RtEegError, match="NaN"):
        dec.push(bad)
    with pytest.raises(RtEegError, match="shape"):
        dec.predict_recording(np.zeros((10, 22, 13), np.float32))
    dec.flush()
    dec.push(np.zeros((3, 22, N_FEAT), np.float32))
    with pytest.raises(RtEegError, match="channels"):
        dec.push(np.zeros((3, 20, N_FEAT), np.float32))
    dec.flush()
    with pytest.raises(RtEegError, match="model.keras"):
        Decoder(tmp_path, device="cpu")


def test_gpu_request_without_gpu(model_dirs):
    import tensorflow as tf

    if tf.config.list_physical_devices("GPU"):
        dec = Decoder(model_dirs[("frame_lstm", "maxabs")], device="gpu")
        assert dec.device == "/GPU:0"
    else:
        with pytest.raises(RtEegError, match="no GPU"):
            Decoder(model_dirs[("frame_lstm", "maxabs")], device="gpu")


def test_import_is_cheap():
    code = "import sys, rt_eeg.decoder, rt_eeg.store, rt_eeg.train, rt_eeg.commands.train\nassert 'tensorflow' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_command_line_parser_imports_neither_qt_nor_tensorflow():
    """Every ``rt-eeg`` call builds every command's parser: ``rt-eeg serve`` on a headless
    server must not load Qt (pyqtgraph, PySide6) or TensorFlow just to read its arguments."""
    code = (
        "import sys\nfrom rt_eeg.cli import build_parser\nbuild_parser()\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pyqtgraph', 'PySide6', "
        "'shiboken6', 'tensorflow', 'keras'})\nassert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("arch", ["frame_lstm", "epoch_lstm"])
def test_inference_is_bit_identical_whatever_the_batch(tmp_path, arch):
    """Online (one epoch per call) and offline (many epochs per call) give the same bits:
    the XLA-compiled inference does not depend on batch composition."""
    from rt_eeg.decoder import Decoder, write_untrained_model

    dec = Decoder(write_untrained_model(tmp_path / arch, arch=arch, seed=5), device="cpu")
    rng = np.random.default_rng(9)
    feats = rng.normal(0, 3, (300, 22, 26)).astype(np.float32)
    times = 0.1 * np.arange(300)
    stream = dec.open_stream(22)
    one_by_one = np.concatenate(
        [dec.predict_many([(stream, feats[i : i + 1], times[i : i + 1])])[0][1] for i in range(300)]
    )
    assert np.array_equal(one_by_one, dec.predict_recording(feats))
