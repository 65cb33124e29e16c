"""Training-time augmentation of the context inputs (rt_eeg.augment)."""

from __future__ import annotations

import numpy as np
import pytest

from rt_eeg.augment import STALE_MAX_EPOCHS, STALE_MIN_EPOCHS, stale_centers
from rt_eeg.decoder import WINDOW_FRAMES
from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter, epoch_labels_from_intervals

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]
N_FEAT = 26
CH = ["FP1-F7", "F7-T3", "T3-T5"]


@pytest.fixture(scope="module")
def long_store(tmp_path_factory):
    """Two 25 min recordings whose background changes state half-way (a step in every
    feature), each with one seizure on its first two channels."""
    rng = np.random.default_rng(11)
    recs = []
    for i, split in enumerate(("train", "dev")):
        n_ep = 1500
        feats = rng.normal(0, 1, (n_ep * 10, len(CH), N_FEAT)).astype(np.float32)
        feats[n_ep * 5 :] += 3.0  # the patient's state changes at 12.5 min
        onset = 400 + 300 * i
        feats[onset * 10 : (onset + 20) * 10, :2, :8] += 4.0
        lab = np.zeros((n_ep, len(CH)), np.uint8)
        lab[:, :2] = epoch_labels_from_intervals([(onset, onset + 20)], n_ep)[:, None]
        recs.append(RecordingFeatures(f"p{i}_s001_t000.edf", split, f"p{i}", CH, feats, lab))
    path = tmp_path_factory.mktemp("long_store")
    with StoreWriter(path, N_FEAT, {"key": "augment-test"}) as w:
        for r in recs:
            w.add(r)
    return FeatureStore(path)


def test_stale_centres_come_from_the_same_channel_minutes_earlier(long_store):
    store = long_store
    rows = store.rows("train")
    centers, stale = stale_centers(store, rows, 0.5, np.random.default_rng(3))
    own = store.centers(rows)
    labels = np.asarray(store.labels[rows])
    track = np.searchsorted(store.label_offset, rows, side="right") - 1
    epoch = rows - store.label_offset[track]
    np.testing.assert_array_equal(centers[~stale], own[~stale])  # the rest untouched
    assert not stale[labels == 1].any()  # a seizure sample keeps its true background
    assert not stale[epoch < 2 * STALE_MIN_EPOCHS].any()  # no settled earlier background
    eligible = (labels == 0) & (epoch >= STALE_MIN_EPOCHS + STALE_MAX_EPOCHS)
    assert 0.45 < stale[eligible].mean() < 0.55  # the share asked for
    for i in np.flatnonzero(stale)[::97]:  # each a centre of its own track, 1-20 min before
        t, e = track[i], epoch[i]
        earlier = store.label_offset[t] + np.arange(e - STALE_MAX_EPOCHS, e - STALE_MIN_EPOCHS + 1)
        earlier = earlier[earlier >= store.label_offset[t]]
        assert (store.centers(earlier) == centers[i]).all(axis=1).any()
    # after the state change, a stale centre from before it is the old state's background
    # (the own context has followed the new state by epoch 1000; the change was at 750)
    after = stale & (epoch >= 1000)
    assert (own[after, 0] > 2.0).all()
    assert 0.2 < (centers[after, 0] < 1.0).mean() < 0.8  # some drawn from before the change
    # the same generator draws the same centres
    again, stale2 = stale_centers(store, rows, 0.5, np.random.default_rng(3))
    np.testing.assert_array_equal(again, centers)
    np.testing.assert_array_equal(stale2, stale)


def _tiny_runs(store, tmp_path, option: str, value: float) -> dict:
    """One-epoch trainings of a tiny context model, seed 2: ``a`` and ``b`` with
    ``option=value``, ``off`` with 0."""
    from rt_eeg.features import FeatureConfig
    from rt_eeg.train import train_from_store
    from rt_eeg.train_config import TrainConfig

    tiny = {"epochs": 1, "units": 8, "dense_units": 16, "batch_size": 64, "samples_per_epoch": 512}
    return {
        name: train_from_store(
            store,
            tmp_path / name,
            TrainConfig(seed=2, normalisation="context", **{option: v}, **tiny),
            feature_config=FeatureConfig(),
            device="cpu",
            log=lambda _: None,
        )
        for name, v in (("a", value), ("b", value), ("off", 0.0))
    }


def test_stale_context_changes_training_reproducibly(long_store, tmp_path):
    runs = _tiny_runs(long_store, tmp_path, "stale_context", 0.5)
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    assert runs["a"]["weights_sha256"] != runs["off"]["weights_sha256"]
    # half the draw is background, and half of that (the share) gets a stale centre where the
    # recording is long enough: about a quarter of the samples
    n_stale = runs["a"]["history"][0]["stale_centres"]
    assert 0.1 * 512 < n_stale < 0.5 * 512
    assert "stale_centres" not in runs["off"]["history"][0]
    assert WINDOW_FRAMES == 70  # the windows the store gives are the decoder's


def test_jitter_contrast_scales_each_sample_by_one_bounded_factor():
    """Every frame and context feature of a sample gets the same factor in [e^-j, e^j];
    padding stays 0; the window-normalised half of context_maxabs is left alone; the draw is
    the generator's."""
    from rt_eeg.augment import jitter_contrast

    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, WINDOW_FRAMES, 2 * N_FEAT)).astype(np.float32) + 3.0
    x[0, :20] = 0.0  # padding of a window at a recording's start
    orig = x.copy()
    jitter_contrast(x, "context_maxabs", 0.5, np.random.default_rng(7), N_FEAT)
    np.testing.assert_array_equal(x[:, :, N_FEAT:], orig[:, :, N_FEAT:])
    assert np.all(x[0, :20] == 0.0)
    factor = x[:, 30, 0] / orig[:, 30, 0]
    np.testing.assert_allclose(x[:, :, :N_FEAT], orig[:, :, :N_FEAT] * factor[:, None, None], rtol=1e-6)
    assert factor.min() >= np.exp(-0.5) - 1e-6 and factor.max() <= np.exp(0.5) + 1e-6
    assert factor.min() < 0.7 and factor.max() > 1.4  # the range is used, not a constant
    y = orig[:, :, :N_FEAT].copy()
    jitter_contrast(y, "context", 0.5, np.random.default_rng(7), N_FEAT)
    np.testing.assert_array_equal(y, x[:, :, :N_FEAT])  # same seed, same factors




def _stretched_cepstra(f0: float, alpha: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Mean c1..c7 of a rhythm at ``f0`` over a 1/f background, and of the same signal played
    ``alpha`` times faster (every frequency times ``alpha``: a true frequency warp)."""
    from fractions import Fraction

    from scipy.signal import resample_poly

    from rt_eeg.features import FeatureConfig, compute_features

    rng = np.random.default_rng(seed)
    n = 250 * 40
    t = np.arange(2 * n) / 250
    walk = np.cumsum(rng.standard_normal(2 * n)) * 0.5
    walk -= np.convolve(walk, np.ones(250) / 250, "same")
    x = 30 * np.sin(2 * np.pi * f0 * t) + walk + 2 * rng.standard_normal(2 * n)
    ratio = Fraction(alpha).limit_denominator(50)
    fast = resample_poly(x, ratio.denominator, ratio.numerator)
    cols = slice(1, 8)
    out = []
    for sig in (x, fast):
        feats, _ = compute_features(sig[:n, None], FeatureConfig())
        out.append(feats[20:-20, 0, cols].mean(axis=0).astype(np.float64))
    return out[0], out[1]


def test_cepstral_warp_is_the_identity_at_one_and_follows_a_true_frequency_warp():
    """alpha = 1 changes nothing; on rhythms of 8-20 Hz the warp brings the cepstra much nearer those of the signal really
    played faster or slower than leaving them alone (below 8 Hz the 0.2 s window's +-10 Hz
    lobe blurs a shift, and the map is no nearer: it is an augmentation, not a resampler)."""
    from rt_eeg.augment import cepstral_warp
    from rt_eeg.features import FeatureConfig

    cfg = FeatureConfig()
    np.testing.assert_allclose(cepstral_warp(1.0, cfg), np.eye(cfg.n_cepstra), atol=1e-12)
    warped = unwarped = 0.0
    for f0 in (8.0, 10.0, 13.0, 16.0, 20.0):
        for alpha in (0.82, 0.9, 1.1, 1.22):
            c, true = _stretched_cepstra(f0, alpha)
            warped += np.linalg.norm(cepstral_warp(alpha, cfg) @ c - true)
            unwarped += np.linalg.norm(c - true)
    assert warped < 0.7 * unwarped, (warped, unwarped)


def test_warp_frequency_maps_each_samples_cepstra_and_nothing_else():
    """One factor per sample within the range; c1..c7, their deltas and accelerations of every
    departure block mapped by S^-1 W S (the same as warping the departures before scaling);
    energies and the window-normalised half of context_maxabs untouched; padding stays 0; the
    draw is the generator's."""
    from rt_eeg.augment import cepstral_columns, cepstral_warp, warp_frequency
    from rt_eeg.features import FeatureConfig

    cfg = FeatureConfig()
    rng = np.random.default_rng(0)
    scale = rng.uniform(0.5, 3.0, N_FEAT).astype(np.float32)
    raw = rng.normal(size=(64, WINDOW_FRAMES, 2 * N_FEAT))  # departures in feature units
    raw[0, :20] = 0.0  # padding of a window at a recording's start
    x = (raw / np.tile(scale, 2)).astype(np.float32)
    orig = x.copy()
    warp_frequency(x, "context_history", scale, 0.2, np.random.default_rng(5), cfg)
    cep = cepstral_columns(cfg).ravel()
    other = np.setdiff1d(np.arange(N_FEAT), cep)
    for block in (0, N_FEAT):
        np.testing.assert_array_equal(x[:, :, other + block], orig[:, :, other + block])
    assert np.all(x[0, :20] == 0.0)
    alphas = np.exp(np.random.default_rng(5).uniform(-0.2, 0.2, size=len(x)))
    assert alphas.min() < 0.88 and alphas.max() > 1.14  # the range is used
    for i in (0, 17, 63):
        m = cepstral_warp(alphas[i], cfg)
        for block in (0, N_FEAT):
            for cols in cepstral_columns(cfg):
                expect = raw[i][:, cols + block] @ m.T / scale[cols]
                np.testing.assert_allclose(x[i][:, cols + block], expect, rtol=1e-4, atol=1e-5)
    assert not np.allclose(x[:, :, cep], orig[:, :, cep])
    y = orig.copy()
    warp_frequency(y, "context_maxabs", scale, 0.2, np.random.default_rng(5), cfg)
    np.testing.assert_array_equal(y[:, :, N_FEAT:], orig[:, :, N_FEAT:])  # scale-free half
    np.testing.assert_array_equal(y[:, :, :N_FEAT], x[:, :, :N_FEAT])  # same seed, same factors


def test_freq_warp_changes_training_reproducibly_and_is_refused_without_context(
    long_store, tmp_path
):
    from rt_eeg.errors import RtEegError
    from rt_eeg.train_config import TrainConfig

    runs = _tiny_runs(long_store, tmp_path, "freq_warp", 0.2)
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    assert runs["a"]["weights_sha256"] != runs["off"]["weights_sha256"]
    from rt_eeg.train_data import batches

    with pytest.raises(ValueError, match="needs the FeatureConfig"):
        next(batches(long_store, long_store.rows("train")[:64], 64, "context", np.ones(N_FEAT), warp=0.2))
    with pytest.raises(RtEegError, match="freq_warp needs a context normalisation"):
        TrainConfig(normalisation="maxabs", freq_warp=0.2)
    with pytest.raises(RtEegError, match=r"freq_warp must be in \[0, 0.5\]"):
        TrainConfig(normalisation="context", freq_warp=0.7)


def test_warp_frequency_on_a_subset_warps_those_samples_as_the_full_warp_would():
    from rt_eeg.augment import warp_frequency
    from rt_eeg.features import FeatureConfig

    cfg = FeatureConfig()
    rng = np.random.default_rng(1)
    scale = rng.uniform(0.5, 3.0, N_FEAT).astype(np.float32)
    orig = rng.normal(size=(40, WINDOW_FRAMES, N_FEAT)).astype(np.float32)
    full = warp_frequency(orig.copy(), "context", scale, 0.2, np.random.default_rng(9), cfg)
    only = rng.random(40) < 0.5
    part = warp_frequency(orig.copy(), "context", scale, 0.2, np.random.default_rng(9), cfg, only)
    np.testing.assert_array_equal(part[only], full[only])  # the same factor each, bit for bit
    np.testing.assert_array_equal(part[~only], orig[~only])
    none = warp_frequency(orig.copy(), "context", scale, 0.2, np.random.default_rng(9), cfg, np.zeros(40, bool))
    np.testing.assert_array_equal(none, orig)


def test_freq_warp_on_background_moves_only_background_samples_in_training_batches(long_store):
    from rt_eeg.errors import RtEegError
    from rt_eeg.features import FeatureConfig
    from rt_eeg.train_config import TrainConfig
    from rt_eeg.train_data import batches

    rows = long_store.rows("train")
    labels = np.asarray(long_store.labels[rows]) >= 0.5
    order = np.concatenate([rows[labels][:64], rows[~labels][:64]])
    np.random.default_rng(0).shuffle(order)
    scale = np.ones(N_FEAT, np.float32)

    def batch(**kw):
        x, y, _, _ = next(batches(long_store, order, 128, "context", scale, seed=(1,), **kw))
        return x, np.asarray(y).reshape(len(y), -1)[:, 0] >= 0.5

    plain, seiz = batch()
    assert 0 < seiz.sum() < len(seiz)
    cfg = FeatureConfig()
    every, _ = batch(warp=0.2, feature_config=cfg)
    back, _ = batch(warp=0.2, feature_config=cfg, warp_on="background")
    only_seiz, _ = batch(warp=0.2, feature_config=cfg, warp_on="seizure")
    np.testing.assert_array_equal(back[seiz], plain[seiz])
    np.testing.assert_array_equal(back[~seiz], every[~seiz])
    np.testing.assert_array_equal(only_seiz[seiz], every[seiz])
    np.testing.assert_array_equal(only_seiz[~seiz], plain[~seiz])
    assert not np.array_equal(back[~seiz], plain[~seiz])
    with pytest.raises(ValueError, match="warp_on must be one of"):
        batch(warp=0.2, feature_config=cfg, warp_on="both")
    with pytest.raises(RtEegError, match="freq_warp_on must be one of"):
        TrainConfig(normalisation="context", freq_warp=0.2, freq_warp_on="both")
    with pytest.raises(RtEegError, match="needs a frequency warp"):
        TrainConfig(normalisation="context", freq_warp_on="background")


def test_mix_seizures_mixes_only_seizure_samples_with_seizure_partners():
    """A mixed sample is a*x_i + (1-a)*x_j of two seizure samples of the original batch with a
    in [0.25, 0.75]; background rows are untouched; the draw is the rng's; share 0 is a no-op."""
    from rt_eeg.augment import MIX_LOW, mix_seizures

    rng = np.random.default_rng(3)
    orig = rng.normal(size=(60, WINDOW_FRAMES, N_FEAT)).astype(np.float32)
    y = (np.arange(60) % 3 == 0).astype(np.float32)[:, None]  # 20 seizure samples
    x = orig.copy()
    n = mix_seizures(x, y, 0.6, np.random.default_rng(4))
    changed = np.flatnonzero(np.any(x != orig, axis=(1, 2)))
    seiz = np.flatnonzero(y[:, 0] >= 0.5)
    assert 0 < changed.size <= n and set(changed) <= set(seiz)
    flat_s = orig[seiz].reshape(seiz.size, -1)
    for i in changed:
        # x_i - x_j = a (orig_i - orig_j): the partner j is the seizure row that makes the ratio
        # one number in [MIX_LOW, 1 - MIX_LOW]
        d_new = (x[i] - flat_s.reshape(seiz.size, WINDOW_FRAMES, N_FEAT)).reshape(seiz.size, -1)
        d_old = orig[i].reshape(-1) - flat_s
        ok = []
        for d1, d0 in zip(d_new, d_old, strict=True):
            if np.abs(d0).max() == 0:
                continue
            a = np.dot(d1, d0) / np.dot(d0, d0)
            if np.allclose(d1, a * d0, atol=1e-4) and MIX_LOW - 1e-5 <= a <= 1 - MIX_LOW + 1e-5:
                ok.append(a)
        assert ok, f"row {i} is not a mix with a seizure partner"
    again = orig.copy()
    assert mix_seizures(again, y, 0.6, np.random.default_rng(4)) == n
    np.testing.assert_array_equal(again, x)
    none = orig.copy()
    assert mix_seizures(none, y, 0.0, np.random.default_rng(4)) == 0
    np.testing.assert_array_equal(none, orig)
    assert mix_seizures(none, np.zeros_like(y), 1.0, np.random.default_rng(4)) == 0


def test_seizure_mix_changes_training_reproducibly_and_is_recorded(long_store, tmp_path):
    from rt_eeg.errors import RtEegError
    from rt_eeg.train_config import TrainConfig

    runs = _tiny_runs(long_store, tmp_path, "seizure_mix", 0.5)
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    assert runs["a"]["weights_sha256"] != runs["off"]["weights_sha256"]
    assert runs["a"]["history"][0]["seizures_mixed"] > 0
    assert "seizures_mixed" not in runs["off"]["history"][0]
    assert runs["a"]["train_config"]["seizure_mix"] == 0.5
    with pytest.raises(RtEegError, match=r"seizure_mix must be in \[0, 1\]"):
        TrainConfig(seizure_mix=1.5)
