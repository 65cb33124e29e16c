"""The montage-wide departure input (``context_montage``): what it holds, that a recording's
inputs do not depend on what shares its batch, and that training feeds the model exactly what
the decoder gives it live."""

from __future__ import annotations

import numpy as np
import pytest
from lfcc_like import N_FEAT, lfcc_like

from rt_eeg.context import recording_centers
from rt_eeg.decoder import (
    FRAMES_PER_EPOCH,
    WINDOW_FRAMES,
    Decoder,
    departure_width,
    model_width,
    n_features_of,
    normalise_windows,
    recording_windows,
    write_untrained_model,
)

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def _inputs(rng, sizes, n_valid=WINDOW_FRAMES):
    n = sum(sizes)
    w = rng.normal(0, 1, (n, WINDOW_FRAMES, N_FEAT)).astype(np.float32)
    c = rng.normal(0, 1, (n, N_FEAT)).astype(np.float32)
    s = rng.uniform(0.5, 2, N_FEAT).astype(np.float32)
    return w, np.full(n, n_valid), c, s


def test_montage_half_is_the_group_mean_of_the_context_inputs():
    rng = np.random.default_rng(1)
    w, nv, c, s = _inputs(rng, [4, 3])
    out = normalise_windows(w, nv, "context_montage", c, s, [4, 3])
    rel = normalise_windows(w, nv, "context", c, s)
    assert out.shape == (7, WINDOW_FRAMES, 2 * N_FEAT) == (7, WINDOW_FRAMES, model_width("context_montage", N_FEAT))
    assert n_features_of("context_montage", 2 * N_FEAT) == N_FEAT
    # both halves are departures over the context scale (jitter and ensembles scale both)
    widths = [departure_width(m, N_FEAT) for m in ("maxabs", "context", "context_maxabs", "context_montage")]
    assert widths == [0, N_FEAT, N_FEAT, 2 * N_FEAT]
    np.testing.assert_array_equal(out[:, :, :N_FEAT], rel)  # own half: the context inputs
    for rows in (slice(0, 4), slice(4, 7)):
        want = rel[rows].mean(axis=0)
        for r in range(7)[rows]:
            np.testing.assert_allclose(out[r, :, N_FEAT:], want, rtol=1e-5, atol=1e-6)
    # a departure on every channel of group 0 moves every montage half of it by all of it; on
    # one channel, the others' montage halves by a quarter; group 1 never moves
    w2 = w.copy()
    w2[:4, :, 3] += 8.0 * s[3]
    moved = normalise_windows(w2, nv, "context_montage", c, s, [4, 3])
    np.testing.assert_allclose(moved[:4, :, N_FEAT + 3] - out[:4, :, N_FEAT + 3], 8.0, atol=1e-4)
    w3 = w.copy()
    w3[1, :, 3] += 8.0 * s[3]
    one = normalise_windows(w3, nv, "context_montage", c, s, [4, 3])
    np.testing.assert_allclose(one[0, :, N_FEAT + 3] - out[0, :, N_FEAT + 3], 2.0, atol=1e-4)
    np.testing.assert_array_equal(one[4:], out[4:])
    np.testing.assert_array_equal(moved[4:], out[4:])


def test_padding_stays_zero_and_groups_must_tile_the_rows():
    rng = np.random.default_rng(2)
    w, nv, c, s = _inputs(rng, [3, 3], n_valid=20)
    out = normalise_windows(w, nv, "context_montage", c, s, 3)  # an int: groups of 3
    assert (out[:, : WINDOW_FRAMES - 20] == 0).all() and (out[:, WINDOW_FRAMES - 20 :] != 0).any()
    with pytest.raises(ValueError, match="needs the windows' channel groups"):
        normalise_windows(w, nv, "context_montage", c, s)
    with pytest.raises(ValueError, match="do not tile 6 windows"):
        normalise_windows(w, nv, "context_montage", c, s, [4, 3])
    with pytest.raises(ValueError, match="do not tile 6 windows"):
        normalise_windows(w, nv, "context_montage", c, s, 4)
    none = normalise_windows(w[:0], nv[:0], "context_montage", c[:0], s, 22)  # nothing due
    assert none.shape == (0, WINDOW_FRAMES, 2 * N_FEAT)


def test_beds_of_other_sizes_in_one_call_change_nothing(tmp_path):
    """The ward decodes several beds in one model call: each bed's probabilities equal its
    own decode, whatever the other beds' channel counts (the mean is per bed and epoch)."""
    dec = Decoder(write_untrained_model(tmp_path / "m", normalisation="context_montage", seed=4), device="cpu")
    rng = np.random.default_rng(3)
    a, b = lfcc_like(rng, 10 * 60, n_ch=6), lfcc_like(rng, 10 * 45, n_ch=3)
    b[200:400, :, :5] += 3.0
    want_a, want_b = dec.predict_recording(a), dec.predict_recording(b)
    sa, sb = dec.open_stream(6), dec.open_stream(3)
    (_, got_a), (_, got_b) = dec.predict_many([(sa, a, None), (sb, b, None)])
    np.testing.assert_array_equal(got_a, want_a)
    np.testing.assert_array_equal(got_b, want_b)
    # and the montage half is live: the same bed's probabilities move when another of its
    # channels departs, even the ones that did not
    a2 = a.copy()
    a2[300:, 1:, :5] += 4.0
    moved = dec.predict_recording(a2)
    assert not np.array_equal(moved[35:, 0], want_a[35:, 0])
    np.testing.assert_array_equal(moved[:29], want_a[:29])  # causal: before the change, same


def test_training_inputs_equal_the_decoders_live_inputs(tmp_path):
    """The training batch of a store sample (its recording's other channels gathered at the
    same epoch, the store's centres) equals the decoder's batch input of that epoch."""
    from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter
    from rt_eeg.train_data import context_scale, model_inputs

    rng = np.random.default_rng(5)
    chans = ["FP1-F7", "F7-T3", "T3-T5", "T5-O1", "C3-CZ"]
    recs = []
    for i, n_ch in enumerate((5, 3, 4)):
        feats = lfcc_like(rng, 10 * (80 + 20 * i), n_ch=n_ch)
        lab = np.zeros((feats.shape[0] // FRAMES_PER_EPOCH, n_ch), np.uint8)
        lab[30:45, 0] = 1
        recs.append(RecordingFeatures(f"p{i}_s001_t000.edf", "train", f"p{i}", chans[:n_ch], feats, lab))
    with StoreWriter(tmp_path / "store", N_FEAT, {"key": "t"}) as w:
        for r in recs:
            w.add(r)
    store = FeatureStore(tmp_path / "store")
    rows = store.rows("train")
    scale = context_scale(store, rows)
    pick = np.random.default_rng(0).choice(rows, 64, replace=False)
    x, y = model_inputs(store, pick, "context_montage", scale)
    assert x.shape == (64, WINDOW_FRAMES, 2 * N_FEAT)
    np.testing.assert_array_equal(y, store.labels[pick])
    track = np.searchsorted(store.label_offset, pick, side="right") - 1
    epoch = pick - store.label_offset[track]
    for k in range(64):
        r = recs[store.track_recording[track[k]]]
        n_ep, n_ch = r.labels.shape
        centers = recording_centers(r.features[: n_ep * FRAMES_PER_EPOCH], ~r.labels.any(axis=1))
        wins, nv = recording_windows(r.features, epoch[k : k + 1])
        live = normalise_windows(wins, nv, "context_montage", centers[epoch[k]], scale, n_ch)
        np.testing.assert_array_equal(x[k], live[store.track_channel[track[k]]])


def test_montage_rows_of_a_subset_view_are_those_of_its_recordings(tmp_path):
    """A view of some recordings of a larger store (training on a list the store holds)
    gathers the same channels at the same epoch as the full store does."""
    from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter

    rng = np.random.default_rng(9)
    chans = ["FP1-F7", "F7-T3", "T3-T5", "T5-O1"]
    with StoreWriter(tmp_path / "s", N_FEAT, {"key": "t"}) as w:
        for i, n_ch in enumerate((4, 2, 3)):
            feats = lfcc_like(rng, 10 * 40, n_ch=n_ch)
            lab = np.zeros((40, n_ch), np.uint8)
            w.add(RecordingFeatures(f"p{i}_s001_t000.edf", "train", f"p{i}", chans[:n_ch], feats, lab))
    full = FeatureStore(tmp_path / "s")
    view = full.subset([2, 0])
    rows = view.rows("train")
    g_rows, sizes, own = view.montage_rows(rows)
    assert set(sizes.tolist()) == {3, 4} and len(own) == len(rows)
    w_view = view.windows(g_rows)[0]
    np.testing.assert_array_equal(view.windows(rows)[0], w_view[own])  # own row is the sample
    # the same group gathered from the full store: recording 2 is tracks 6-8, recording 0 is 0-3
    k = int(np.flatnonzero(sizes == 3)[5])  # a sample of recording 2, epoch 5
    start = int(np.cumsum(sizes)[k] - sizes[k])
    epoch = 5
    full_rows = full.label_offset[[6, 7, 8]] + epoch
    np.testing.assert_array_equal(w_view[start : start + 3], full.windows(full_rows)[0])
    np.testing.assert_array_equal(view.centers(g_rows[start : start + 3]), full.centers(full_rows))


def test_a_store_whose_tracks_are_out_of_recording_order_is_refused(tmp_path):
    """montage_rows gathers a recording's channels as one run of tracks: an index.npz that
    breaks that (hand-edited or foreign) is a clear error when the store is opened."""
    from rt_eeg.errors import RtEegError
    from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter

    rng = np.random.default_rng(2)
    with StoreWriter(tmp_path / "s", N_FEAT, {"key": "t"}) as w:
        for i in range(2):
            feats = lfcc_like(rng, 10 * 30, n_ch=2)
            w.add(RecordingFeatures(f"p{i}_s001_t000.edf", "train", f"p{i}",
                                    ["FP1-F7", "F7-T3"], feats, np.zeros((30, 2), np.uint8)))  # fmt: skip
    FeatureStore(tmp_path / "s")  # as written: in order
    with np.load(tmp_path / "s" / "index.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["track_recording"] = arrays["track_recording"][[0, 2, 1, 3]]
    np.savez(tmp_path / "s" / "index.npz", **arrays)
    with pytest.raises(RtEegError, match="tracks are not in recording order"):
        FeatureStore(tmp_path / "s")
