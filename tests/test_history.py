"""The ``'context_history'`` decoder input (a 70 s view: the channel's last 70 one-second epoch
means beside its last 7 s of frames): what the inputs hold, streaming == batch == training
store bit for bit, causality, and a gap restarting the history."""

from __future__ import annotations

import numpy as np
import pytest
from lfcc_like import N_FEAT, lfcc_like

from rt_eeg.context import recording_centers
from rt_eeg.decoder import (
    HISTORY_EPOCHS,
    NORMALISATIONS,
    WINDOW_FRAMES,
    Decoder,
    normalise_windows,
    recording_epoch_means,
    recording_history,
    recording_windows,
    write_untrained_model,
)
from rt_eeg.errors import RtEegError

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def hist_decoder(tmp_path_factory):
    root = tmp_path_factory.mktemp("hist_model")
    return Decoder(
        write_untrained_model(root / "m", normalisation="context_history", seed=4), device="cpu"
    )


def _wide_range(rng, n_frames, n_ch):
    """LFCC-like values whose magnitudes span 12 decades (a hard case for sums of 10)."""
    f = lfcc_like(rng, n_frames, n_ch)
    return (f * 10.0 ** rng.integers(-6, 6, f.shape)).astype(np.float32)


def test_history_rows_are_the_past_epoch_means():
    rng = np.random.default_rng(1)
    feats = lfcc_like(rng, 10 * 100, n_ch=3)
    means = recording_epoch_means(feats)
    assert means.shape == (100, 3, N_FEAT)
    np.testing.assert_allclose(means[42, 1], feats[420:430, 1].mean(axis=0), rtol=1e-6)
    hist, nh = recording_history(means, np.array([5, 99]))
    assert hist.shape == (6, HISTORY_EPOCHS, N_FEAT) and nh.tolist() == [6, 6, 6, 70, 70, 70]
    # epoch 5 of channel 2: 64 padding rows (before the recording), then epochs 0..5
    assert not hist[2, :64].any()
    np.testing.assert_array_equal(hist[2, 64:], means[0:6, 2])
    # epoch 99 of channel 0: epochs 30..99, the last row the decided epoch's own
    np.testing.assert_array_equal(hist[3], means[30:100, 0])


def test_inputs_are_the_context_inputs_beside_the_relative_history():
    rng = np.random.default_rng(2)
    feats = lfcc_like(rng, 10 * 90, n_ch=2)
    epochs = np.array([3, 89])
    centers = recording_centers(feats, np.ones(90, bool))[epochs].reshape(-1, N_FEAT)
    scale = rng.uniform(0.5, 2.0, N_FEAT).astype(np.float32)
    w, nv = recording_windows(feats, epochs)
    h, nh = recording_history(recording_epoch_means(feats), epochs)
    x = normalise_windows(w, nv, "context_history", centers, scale, history=h, n_history=nh)
    assert x.shape == (4, WINDOW_FRAMES, 2 * N_FEAT)
    np.testing.assert_array_equal(x[:, :, :N_FEAT], normalise_windows(w, nv, "context", centers, scale))
    want = (h - centers[:, None, :]) / scale
    np.testing.assert_array_equal(x[2:, :, N_FEAT:], want[2:])  # epoch 89: all 70 observed
    assert not x[:2, :66, N_FEAT:].any()  # epoch 3: padding is exactly 0, not -centre/scale
    np.testing.assert_array_equal(x[:2, 66:, N_FEAT:], want[:2, 66:])
    with pytest.raises(ValueError, match="needs history"):
        normalise_windows(w, nv, "context_history", centers, scale)


@pytest.mark.parametrize("chunks", [[1], [3, 7, 10, 25], [99999]], ids=["1", "mixed", "whole"])
def test_streaming_equals_batch(hist_decoder, chunks):
    feats = _wide_range(np.random.default_rng(5), 10 * 150, n_ch=6)
    feats[:, :, 0] = lfcc_like(np.random.default_rng(6), 10 * 150, n_ch=6)[:, :, 0]
    want = hist_decoder.predict_recording(feats)
    stream = hist_decoder.open_stream(6)
    got, i, k = [], 0, 0
    while i < len(feats):
        n = chunks[k % len(chunks)]
        part = feats[i : i + n]
        got.append(hist_decoder.predict_many([(stream, part, np.arange(i, i + len(part)) * 0.1)])[0][1])
        i, k = i + n, k + 1
    got = np.concatenate(got)
    assert got.shape == want.shape == (150, 6)
    assert np.array_equal(got, want)  # bit-identical, past the 70 s the history holds


def test_stream_store_and_batch_histories_are_bit_identical(tmp_path):
    from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter
    from rt_eeg.train_data import context_scale, model_inputs

    rng = np.random.default_rng(7)
    recs = []
    for i, n_ep in enumerate((85, 40)):
        feats = _wide_range(rng, 10 * n_ep, n_ch=3)
        lab = np.zeros((n_ep, 3), np.uint8)
        lab[20:30, 1] = 1
        recs.append(RecordingFeatures(f"p{i}_s001_t000.edf", "train", f"p{i}", ["A", "B", "C"], feats, lab))
    with StoreWriter(tmp_path / "store", N_FEAT, {"key": "h"}) as w:
        for r in recs:
            w.add(r)
    store = FeatureStore(tmp_path / "store")
    rows = store.rows("train")
    hist, nh = store.history(rows)
    track = np.searchsorted(store.label_offset, rows, side="right") - 1
    epoch = rows - store.label_offset[track]
    for k in range(len(rows)):
        r = recs[store.track_recording[track[k]]]
        ch = store.track_channel[track[k]]
        want, want_n = recording_history(recording_epoch_means(r.features), epoch[k : k + 1])
        assert nh[k] == want_n[ch]
        assert np.array_equal(hist[k].view(np.uint32), want[ch].view(np.uint32))
    # the stream's own history (through DecoderStream) of the longer recording, every epoch
    from rt_eeg.decoder import DecoderStream

    r = recs[0]
    s = DecoderStream(3, N_FEAT, context=True, history=True)
    eps = s._advance(r.features, np.arange(len(r.features)) * 0.1)
    batch, batch_n = recording_history(recording_epoch_means(r.features), np.arange(85))
    stream = np.concatenate([ep[4] for ep in eps])
    assert np.array_equal(stream.view(np.uint32), batch.view(np.uint32))
    assert [ep[5] for ep in eps] == batch_n[::3].tolist()
    # and the training inputs of channel 0 equal the decoder's live inputs of the same epochs
    scale = context_scale(store, rows)
    x, _ = model_inputs(store, rows[track == 0], "context_history", scale)
    centers = recording_centers(r.features, ~r.labels.any(axis=1))[:, 0]
    w, nv = recording_windows(r.features, np.arange(85))
    live = normalise_windows(
        w[::3], nv[::3], "context_history", centers, scale, history=batch[::3], n_history=batch_n[::3]
    )
    np.testing.assert_array_equal(x, live)


def test_history_is_causal_and_sees_70_seconds(hist_decoder, tmp_path):
    """With the context held at the window's own mean (every epoch gated out), a change 40 s
    before an epoch reaches it through the history alone: a 'context' model does not see it,
    the history model does, until it leaves the 70 s; nothing before the change moves."""
    ctx = Decoder(write_untrained_model(tmp_path / "c", normalisation="context", seed=4), device="cpu")
    rng = np.random.default_rng(9)
    feats = lfcc_like(rng, 10 * 90, n_ch=2)
    moved = feats.copy()
    moved[100:110] += 3.0  # epoch 10
    held = np.zeros(90, bool)
    base, after = (hist_decoder.predict_recording(f, accept=held) for f in (feats, moved))
    np.testing.assert_array_equal(after[:10], base[:10])  # causal
    assert (after[50] != base[50]).all()  # 40 s later: in the history
    np.testing.assert_array_equal(after[80:], base[80:])  # 70 s later: out of it
    c_base, c_after = (ctx.predict_recording(f, accept=held) for f in (feats, moved))
    np.testing.assert_array_equal(c_after[17:], c_base[17:])  # out of the 7 s window: unseen


def test_a_gap_restarts_the_history(hist_decoder):
    feats = lfcc_like(np.random.default_rng(10), 10 * 80, n_ch=2)
    stream = hist_decoder.open_stream(2)
    hist_decoder.predict_many([(stream, feats, None)])
    assert stream._history.any()
    stream.reset_window()
    eps = stream._advance(feats[:20], np.arange(20) * 0.1)
    assert [ep[5] for ep in eps] == [1, 2]
    assert not eps[1][4][:, :-2].any() and eps[1][4][:, -2:].all()


def test_manifest_must_name_the_history_length(hist_decoder, tmp_path):
    import json

    d = write_untrained_model(tmp_path / "m", normalisation="context_history", seed=1)
    man = json.loads((d / "manifest.json").read_text())
    assert man["decoder"]["history_epochs"] == HISTORY_EPOCHS
    man["decoder"]["history_epochs"] = 30
    (d / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(RtEegError, match="unsupported decoder settings"):
        Decoder(d, device="cpu")


def test_train_command_offers_every_normalisation():
    import argparse

    from rt_eeg.commands.train import add_arguments

    p = argparse.ArgumentParser()
    add_arguments(p)
    norm = next(a for a in p._actions if a.dest == "normalisation")
    assert tuple(norm.choices) == NORMALISATIONS


@pytest.mark.parametrize("norm", ["context", "context_history"])
def test_batch_twin_with_the_models_own_calls_equals_the_stream(tmp_path, norm):
    """predict_recording(features, accept) with accept = the stream's own gate calls is the
    stream, bit for bit: the batch path (recording_centers, recording_history, one model call
    per chunk) and the streaming path (per-epoch rounds) build the same inputs."""
    from rt_eeg.context import gate_score

    dec = Decoder(write_untrained_model(tmp_path / norm, normalisation=norm, seed=2), device="cpu")
    feats = lfcc_like(np.random.default_rng(11), 10 * 160, n_ch=5)
    probs = dec.predict_recording(feats)  # streaming (the model's own calls)
    dec.gate = float(np.median(gate_score(probs, dec.gate_top_k)))  # about half the epochs called
    probs = dec.predict_recording(feats)
    accept = gate_score(probs, dec.gate_top_k) < dec.gate
    assert 20 < (~accept).sum() < 140  # the gate is exercised both ways
    twin = dec.predict_recording(feats, accept=accept)
    assert np.array_equal(twin, probs)
