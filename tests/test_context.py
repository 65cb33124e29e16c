"""Patient background context: causal statistics, streaming == batch == training store, gate,
gain invariance, and the window restart after a gap."""

from __future__ import annotations

import numpy as np
import pytest
from lfcc_like import lfcc_like

from rt_eeg.context import BLOCK_EPOCHS, BackgroundContext, gate_score, recording_centers
from rt_eeg.decoder import FRAMES_PER_EPOCH, Decoder, write_untrained_model
from rt_eeg.features import compute_features

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def ctx_decoders(tmp_path_factory):
    root = tmp_path_factory.mktemp("ctx_models")
    return {
        norm: Decoder(
            write_untrained_model(root / norm, normalisation=norm, seed=3), device="cpu"
        )
        for norm in ("context", "context_maxabs", "context_montage")
    }


def test_center_is_window_mean_at_start_then_background_median():
    ctx = BackgroundContext(2, 3, block_epochs=2, n_blocks=3)
    w = np.full((2, 3), 7.0, np.float32)
    assert np.array_equal(ctx.center(w), w)  # no block yet: window-relative
    for v in (1.0, 1.0, 2.0, 2.0, 3.0, 3.0):
        ctx.update(np.full((2, 3), v, np.float32), True)
    # blocks 1, 2, 3 and the window's 7: median 2.5
    assert np.allclose(ctx.center(w), 2.5)
    ctx.update(np.full((2, 3), 100.0, np.float32), False)  # gated out: never enters
    ctx.update(np.full((2, 3), 100.0, np.float32), False)
    assert ctx.n_rejected == 2 and np.allclose(ctx.center(w), 2.5)
    for _ in range(2):
        ctx.update(np.full((2, 3), 4.0, np.float32), True)  # ring drops the oldest block
    assert np.allclose(ctx.center(w), 3.5)


def test_center_is_numpy_median_bit_for_bit():
    # the incremental median (sorted blocks, the window inserted) against np.median over the
    # same pool: every ring fill level, ring wrap-around, ties, signed values and NaN
    rng = np.random.default_rng(5)
    for trial in range(3):
        ctx = BackgroundContext(3, 4, block_epochs=1, n_blocks=7)
        for step in range(20):
            if trial == 0:
                v = rng.integers(-3, 4, (3, 4)).astype(np.float32)  # many ties
            else:
                v = rng.standard_normal((3, 4)).astype(np.float32) * 10 ** rng.uniform(-3, 3)
            if trial == 2 and step == 12:
                v[1, 2] = np.nan  # a NaN block: np.median's rule (NaN) until it leaves the ring
            w = rng.standard_normal((3, 4)).astype(np.float32)
            if step == 5:
                w[0, 0] = np.nan
            m = ctx.n_blocks_filled
            pool = np.concatenate([ctx._blocks[:m], w[None]], axis=0)
            want = np.median(pool, axis=0).astype(np.float32) if m else w
            got = ctx.center(w)
            assert got.dtype == np.float32 and got.shape == (3, 4)
            nan = np.isnan(want)
            assert np.array_equal(np.isnan(got), nan), (trial, step, m)
            assert np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32)), (
                trial, step, m)  # fmt: skip
            ctx.update(v, True)
        assert ctx.n_blocks_filled == 7


def test_gate_score_top_k():
    p = np.array([[0.1, 0.9, 0.8, 0.2, 0.7, 0.6]], np.float32)
    assert gate_score(p, 4)[0] == pytest.approx((0.9 + 0.8 + 0.7 + 0.6) / 4)
    assert gate_score(p[:, :2], 4)[0] == pytest.approx(0.5)


@pytest.mark.parametrize("norm", ["context", "context_maxabs", "context_montage"])
@pytest.mark.parametrize("chunks", [[1], [3, 7, 10, 25], [99999]], ids=["1", "mixed", "whole"])
def test_streaming_equals_batch(ctx_decoders, norm, chunks):
    dec = ctx_decoders[norm]
    feats = lfcc_like(np.random.default_rng(5), 10 * 260, n_ch=8)
    want = dec.predict_recording(feats)
    stream = dec.open_stream(8)
    got, i, k = [], 0, 0
    while i < len(feats):
        n = chunks[k % len(chunks)]
        part = feats[i : i + n]
        times = np.arange(i, i + len(part)) * 0.1
        got.append(dec.predict_many([(stream, part, times)])[0][1])
        i, k = i + n, k + 1
    got = np.concatenate(got)
    assert got.shape == want.shape == (260, 8)
    assert np.array_equal(got, want)  # bit-identical, not just close
    # more than 200 s: blocks closed and in use
    assert stream.context.n_blocks_filled > 0


def test_store_centers_equal_decoder_centers(ctx_decoders):
    """The training store's centres (labels as the gate) equal the decoder's when the decoder
    makes the same calls: here every epoch accepted except a labelled stretch."""
    dec = ctx_decoders["context"]
    rng = np.random.default_rng(6)
    feats = lfcc_like(rng, 10 * 150, n_ch=4)
    accept = np.ones(150, bool)
    accept[60:90] = False
    want = recording_centers(feats, accept)
    stream = dec.open_stream(4)
    from rt_eeg.context import window_mean

    got = []
    for e in range(150):
        (win, nv, _, emean, _, _), = stream._advance(
            feats[e * FRAMES_PER_EPOCH : (e + 1) * FRAMES_PER_EPOCH], np.zeros(FRAMES_PER_EPOCH)
        )
        got.append(stream.context.center(window_mean(win, nv)))
        stream.context.update(emean, bool(accept[e]))
    assert np.array_equal(np.stack(got), want)
    assert stream.context.n_rejected == 30


def test_context_inputs_are_gain_invariant(ctx_decoders):
    """LFCC of 3x the signal differs only in log energy; relative to the patient's own
    background it does not differ at all (up to float rounding): the context model gives the
    same probabilities, while the raw log energy moved by log(9)."""
    dec = ctx_decoders["context"]
    rng = np.random.default_rng(7)
    t = np.arange(250 * 120) / 250.0
    sig = (20 * np.sin(2 * np.pi * 9 * t)[:, None] + rng.normal(0, 10, (t.size, 4))).astype(np.float32)
    f1, _ = compute_features(sig, dec.feature_config)
    f3, _ = compute_features(3 * sig, dec.feature_config)
    assert np.abs(f3[:, :, 0] - f1[:, :, 0]).mean() == pytest.approx(np.log(9), abs=0.01)
    p1, p3 = dec.predict_recording(f1), dec.predict_recording(f3)
    assert np.abs(p1 - p3).max() < 1e-3


def test_reset_window_keeps_context(ctx_decoders):
    dec = ctx_decoders["context"]
    feats = lfcc_like(np.random.default_rng(8), 10 * 40, n_ch=3)
    stream = dec.open_stream(3)
    dec.predict_many([(stream, feats, None)])
    n_acc = stream.context.n_accepted + stream.context.n_rejected
    assert n_acc == 40 and stream.context.n_blocks_filled == 40 // BLOCK_EPOCHS
    stream.reset_window()
    assert stream.n_epochs == 0 and stream.context.n_blocks_filled == 4
    starts, probs = dec.predict_many([(stream, feats[:25], np.arange(25) * 0.1 + 100.0)])[0]
    assert probs.shape == (2, 3) and starts[0] == pytest.approx(100.0)


def _always_seizure_model(folder, **context):
    """An untrained context model whose output bias makes every P(seizure) ~1, with optional
    extra ``decoder.context`` manifest settings; its hashes and LiteRT twin recorded."""
    import json

    import keras

    from rt_eeg.decoder import model_file_hashes
    from rt_eeg.model_files import add_tflite

    d = write_untrained_model(folder, normalisation="context", seed=0)
    model = keras.saving.load_model(d / "model.keras", compile=False)
    w = model.get_weights()
    w[-1][:] = 50.0  # output bias: sigmoid -> 1 for any input
    model.set_weights(w)
    model.save(d / "model.keras")
    # a deliberate edit of the weights: record its hash, as training would
    man = json.loads((d / "manifest.json").read_text())
    man["decoder"]["context"].update(context)
    man["files_sha256"] = model_file_hashes(d)
    (d / "manifest.json").write_text(json.dumps(man))
    add_tflite(d)  # and its LiteRT twin, which the CPU runs
    return d


def test_gate_keeps_called_seizure_out(tmp_path):
    """A model that calls everything seizure never updates the context (unbounded gate)."""
    dec = Decoder(_always_seizure_model(tmp_path / "m"), device="cpu")
    stream = dec.open_stream(4)
    feats = lfcc_like(np.random.default_rng(9), 10 * 30, n_ch=4)
    _, probs = dec.predict_many([(stream, feats, None)])[0]
    assert probs.min() > 0.99
    assert stream.context.n_accepted == 0 and stream.context.n_rejected == 30


def test_bounded_gate_accepts_again_after_the_bound():
    """After ``max_gated_epochs`` consecutive calls epochs enter again, so a lasting change of
    background is learnt; an uncalled epoch restarts the count; 0 never accepts a call."""
    ctx = BackgroundContext(1, 2, block_epochs=2, n_blocks=3, max_gated_epochs=3)
    w = np.zeros((1, 2), np.float32)
    for _ in range(6):
        ctx.update(np.full((1, 2), 1.0, np.float32), True)  # three blocks of the old state
    assert np.allclose(ctx.center(w), 1.0)
    for _ in range(3):
        ctx.update(np.full((1, 2), 9.0, np.float32), False)  # called: kept out
    assert ctx.n_rejected == 3 and np.allclose(ctx.center(w), 1.0)
    for _ in range(4):
        ctx.update(np.full((1, 2), 9.0, np.float32), False)  # past the bound: accepted
    assert ctx.n_rejected == 3 and ctx.n_accepted == 10
    # two new blocks of 9 and one old of 1, plus the window's 0: median 5; with the window at 9: 9
    assert np.allclose(ctx.center(w), 5.0)
    assert np.allclose(ctx.center(np.full((1, 2), 9.0, np.float32)), 9.0)
    ctx.update(w, True)  # a call stops: the count restarts
    for _ in range(3):
        ctx.update(w, False)
    assert ctx.n_rejected == 6
    never = BackgroundContext(1, 2, max_gated_epochs=0)
    for _ in range(500):
        never.update(w, False)
    assert never.n_accepted == 0 and never.n_rejected == 500


def test_decoder_reads_the_gate_bound_from_the_manifest(tmp_path):
    dec = Decoder(_always_seizure_model(tmp_path / "m", gate_max_epochs=10), device="cpu")
    assert dec.gate_max_epochs == 10
    stream = dec.open_stream(4)
    feats = lfcc_like(np.random.default_rng(9), 10 * 30, n_ch=4)
    _, probs = dec.predict_many([(stream, feats, None)])[0]
    assert probs.min() > 0.99
    assert stream.context.n_rejected == 10 and stream.context.n_accepted == 20


def test_a_negative_gate_bound_is_refused(tmp_path):
    from rt_eeg.errors import RtEegError

    with pytest.raises(RtEegError, match="gate_max_epochs -1 < 0"):
        Decoder(_always_seizure_model(tmp_path / "m", gate_max_epochs=-1), device="cpu")
