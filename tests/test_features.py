"""LFCC features: streaming == batch, spectral behaviour, tight causality, edge cases, CLI."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import scipy.fft

from rt_eeg.errors import RtEegError
from rt_eeg.features import (
    FEATURE_DELAY_S,
    FEATURE_NAMES,
    N_FEATURES,
    FeatureConfig,
    StreamingFeatures,
    compute_features,
)

SFREQ = 250.0
CHUNKINGS = [1, 3, 40, None]  # frames per push; None = the whole signal in one push


def eeg_like(
    *, seconds: float, n_channels: int, seed: int, sfreq: float = SFREQ, flat: bool = True
) -> np.ndarray:
    """Pink noise (~20 uV), electrode offsets, bursts of rhythmic 3 Hz spike-and-wave-like
    activity on random channel groups, and (``flat``) a disconnected, exactly-zero stretch.

    Returns ``(n_samples, n_channels)`` float32 microvolts.
    """
    rng = np.random.default_rng(seed)
    n = int(seconds * sfreq)
    spec = np.fft.rfft(rng.standard_normal((n, n_channels)), axis=0)
    f = np.fft.rfftfreq(n, 1 / sfreq)
    spec /= np.sqrt(np.maximum(f, 0.5))[:, None]  # 1/f power
    x = np.fft.irfft(spec, n=n, axis=0)
    x *= 20.0 / x.std()
    x += rng.uniform(-500, 500, n_channels)  # DC offsets
    t = np.arange(n) / sfreq
    for _ in range(max(1, int(seconds // 40))):
        start = rng.uniform(0, seconds - 20)
        dur = rng.uniform(5, 20)
        on = (t >= start) & (t < start + dur)
        chans = rng.choice(n_channels, size=max(1, n_channels // 3), replace=False)
        f0 = rng.uniform(2.5, 4.0)
        wave = sum(np.sin(2 * np.pi * h * f0 * t) / h for h in (1, 2, 3, 4))
        x[np.ix_(on, chans)] += 80.0 * wave[on, None]
    if flat:
        a = int(0.3 * n)
        x[a : a + int(30 * sfreq), n_channels // 2] = 0.0
    return x.astype(np.float32)


def stream(signal: np.ndarray, frames_per_push: int | None, cfg: FeatureConfig | None = None):
    """Run ``signal`` through a fresh StreamingFeatures in pushes of ``frames_per_push``."""
    cfg = cfg or FeatureConfig()
    ext = StreamingFeatures(signal.shape[1], cfg)
    n = (signal.shape[0] // cfg.frame_samples) * cfg.frame_samples
    step = n if frames_per_push is None else frames_per_push * cfg.frame_samples
    feats, times = [], []
    for a in range(0, n, max(step, 1)):
        f, t = ext.push(signal[a : min(a + step, n)])
        assert f.shape[0] == t.shape[0]
        feats.append(f)
        times.append(t)
    f, t = ext.flush()
    feats.append(f)
    times.append(t)
    return np.concatenate(feats), np.concatenate(times)


def assert_streaming_equals_batch(signal, cfg=None, chunkings=CHUNKINGS):
    batch_f, batch_t = compute_features(signal, cfg)
    for chunk in chunkings:
        f, t = stream(signal, chunk, cfg)
        assert f.shape == batch_f.shape, chunk
        np.testing.assert_array_equal(t, batch_t)
        np.testing.assert_allclose(f, batch_f, rtol=0, atol=1e-4, err_msg=f"chunk={chunk}")
        # Design goal, met: each frame gets the same arithmetic whatever the chunking.
        assert np.array_equal(f, batch_f), f"chunk={chunk}: within 1e-4 but not bit-identical"


# ----------------------------------------------------------------------------- streaming == batch


@pytest.fixture(scope="module")
def ten_minutes() -> np.ndarray:
    return eeg_like(seconds=600, n_channels=22, seed=7)


@pytest.fixture(scope="module")
def ten_minutes_batch(ten_minutes):
    return compute_features(ten_minutes)


@pytest.mark.parametrize("chunk", CHUNKINGS, ids=lambda c: f"{c}frames" if c else "whole")
def test_streaming_equals_batch_10_min_22_channels(ten_minutes, ten_minutes_batch, chunk):
    batch_f, batch_t = ten_minutes_batch
    assert batch_f.shape == (6000, 22, N_FEATURES)
    f, t = stream(ten_minutes, chunk)
    np.testing.assert_array_equal(t, batch_t)
    assert f.shape == batch_f.shape
    np.testing.assert_allclose(f, batch_f, rtol=0, atol=1e-4)
    assert np.array_equal(f, batch_f), "within 1e-4 but no longer bit-identical"


def test_streaming_equals_batch_on_real_tuh_snippets(shared_dir):
    import rt_eeg.io.edf as edf

    files = sorted((shared_dir / "data" / "tuh_real_snippets").glob("*.edf"))
    if not files:
        pytest.skip("no EDF in tuh_real_snippets")
    for path in files:
        with edf.open_recording(path) as rec:
            signal = rec.read()
        assert signal.shape[0] >= 25 * 100 and np.ptp(signal) > 10, path  # real, non-trivial
        assert_streaming_equals_batch(signal)


def test_streaming_fed_by_recording_chunks_equals_batch(shared_dir):
    """The live path: ``Recording.chunks(25)`` frame by frame (the 256 Hz file is resampled)."""
    import rt_eeg.io.edf as edf

    path = shared_dir / "data" / "tuh_real_snippets" / "00009578_s006_t001.edf"
    if not path.is_file():
        pytest.skip(f"{path.name} not found")
    with edf.open_recording(path) as rec:
        batch_f, batch_t = compute_features(rec.read())
        ext = StreamingFeatures(len(rec.ch_names))
        out = [ext.push(b) for _, b in rec.chunks(25) if len(b) == 25] + [ext.flush()]
    np.testing.assert_array_equal(np.concatenate([o[1] for o in out]), batch_t)
    np.testing.assert_array_equal(np.concatenate([o[0] for o in out]), batch_f)


def test_streaming_equals_batch_with_other_settings():
    cfg = FeatureConfig(
        sfreq=256.0,
        frame_samples=32,
        window_samples=63,
        buffer_samples=96,
        window="hamming",
        n_fft=128,
        n_filters=10,
        f_min=1.0,
        f_max=60.0,
        n_cepstra=5,
        remove_mean=False,
        log_floor=1e-3,
        diff_energy_frames=5,
        delta_half_width=2,
        accel_half_width=2,
    )
    assert cfg.n_features == 2 * 7 + 6
    signal = eeg_like(seconds=40, n_channels=5, seed=3, sfreq=256.0)
    f, _ = compute_features(signal, cfg)
    assert f.shape == (40 * 256 // 32, 5, cfg.n_features)
    assert_streaming_equals_batch(signal, cfg, chunkings=[1, 7, None])


@pytest.mark.parametrize("name", ["features_w05s.toml", "features_w1s.toml"])
@pytest.mark.parametrize("n_frames", [1, 4, 5, 12, 80])
def test_streaming_equals_batch_with_windows_longer_than_a_push(name, n_frames, rng):
    """A 0.5 s or 1 s analysis window reflects more of the start than one 0.1 s push holds
    (the live feature stage's pushes): the start is held until it can be, with no loss."""
    cfg = FeatureConfig.load(Path(__file__).resolve().parents[1] / "tools" / name)
    assert cfg.window_before > cfg.frame_samples
    signal = rng.normal(0, 30, (n_frames * 25, 3)).astype(np.float32)
    assert_streaming_equals_batch(signal, cfg, chunkings=[1, 2, None])


@pytest.mark.parametrize("n_frames", [1, 2, 6, 7, 12])
def test_streaming_equals_batch_on_very_short_signals(n_frames, rng):
    signal = rng.normal(0, 30, (n_frames * 25 + 11, 3)).astype(np.float32)
    assert_streaming_equals_batch(signal, chunkings=[1, 2, None])


# ----------------------------------------------------------------------------- spectral behaviour


def _relative_log_bands(features: np.ndarray) -> np.ndarray:
    """Log filterbank outputs minus their mean, recovered from c1..c7 by an orthonormal
    inverse DCT-II (independent of the code under test; c0 would only add a constant)."""
    ceps = features[..., 1:8]
    full = np.concatenate([np.zeros((*ceps.shape[:-1], 1)), ceps], axis=-1)
    return scipy.fft.idct(full, type=2, norm="ortho", axis=-1)


def test_pure_tone_dominates_its_filter():
    cfg = FeatureConfig()
    edges = np.linspace(cfg.f_min, cfg.f_max, cfg.n_filters + 2)
    t = np.arange(int(4 * SFREQ)) / SFREQ
    spacing = edges[1] - edges[0]
    for j, centre in enumerate(edges[1:-1]):
        # At the centre, and a third of the way to either neighbour's centre.
        for offset, margin in ((0.0, 0.3), (-spacing / 3, 0.0), (spacing / 3, 0.0)):
            freq = centre + offset
            tone = (50 * np.sin(2 * np.pi * freq * t + 0.4))[:, None].astype(np.float32)
            feats, _ = compute_features(tone)
            bands = _relative_log_bands(feats[10:-10, 0]).mean(axis=0)
            assert np.argmax(bands) == j, (freq, bands.round(2))
            runner_up = np.sort(bands)[-2]
            assert bands[j] - runner_up > margin, (freq, bands.round(2))  # 0.3: 1.3 dB


def test_mains_interference_is_outside_the_filterbank(rng):
    """50/60 Hz mains barely moves the cepstra; the same tone inside the band moves them a lot."""
    n = int(20 * SFREQ)
    t = np.arange(n) / SFREQ
    base = rng.normal(0, 10, (n, 4)).astype(np.float32)
    ref, _ = compute_features(base)

    def lfcc_change(freq: float) -> float:
        x = base + (50 * np.sin(2 * np.pi * freq * t))[:, None].astype(np.float32)
        f, _ = compute_features(x)
        return float(np.abs(f - ref)[10:-10, :, 1:8].mean())

    in_band = lfcc_change(30.0)
    assert lfcc_change(60.0) < 0.02 * in_band
    assert lfcc_change(50.0) < 0.1 * in_band


def test_log_energy_is_window_variance(rng):
    sigma = 12.0
    x = (rng.normal(0, sigma, (250 * 60, 2)) + 300.0).astype(np.float32)  # offset removed
    feats, _ = compute_features(x)
    energy = feats[..., FEATURE_NAMES.index("energy")]
    assert abs(np.median(energy) - np.log(sigma**2)) < 0.1
    # Differential energy is max - min of the energy over the trailing 0.9 s.
    d = feats[..., FEATURE_NAMES.index("diff_energy")]
    for i in (20, 300, 599):
        window = energy[i - 8 : i + 1]
        np.testing.assert_allclose(d[i], window.max(0) - window.min(0), rtol=0, atol=1e-6)


def test_deltas_follow_the_htk_regression(rng):
    feats, _ = compute_features(rng.normal(0, 20, (250 * 10, 2)).astype(np.float32))
    static, delta, accel = feats[..., :9], feats[..., 9:18], feats[..., 18:]
    i = 50
    want = sum(n * (static[i + n] - static[i - n]) for n in range(1, 5)) / 60.0
    np.testing.assert_allclose(delta[i], want, rtol=0, atol=1e-5)
    np.testing.assert_allclose(accel[i], (delta[i + 1, :, :8] - delta[i - 1, :, :8]) / 2, atol=1e-5)


# ----------------------------------------------------------------------------- causality


@pytest.mark.parametrize("offset", [161, 0, 1, 80, 137])
def test_causal_with_tight_stated_delay(offset):
    """Changing samples from time t on changes no frame stamped before t - delay_s, and does
    change the first frame stamped at or after it (so the stated delay is not padded)."""
    cfg = FeatureConfig()
    x = eeg_like(seconds=30, n_channels=3, seed=11, flat=False)
    ref, times = compute_features(x, cfg)
    s0 = 25 * 40 + offset  # first perturbed sample; offset 161 puts t - delay on a frame
    t = s0 / cfg.sfreq
    y = x.copy()
    y[s0:] += np.random.default_rng(5).normal(0, 20, y[s0:].shape).astype(np.float32)
    got, _ = compute_features(y, cfg)
    cut = t - cfg.delay_s
    before = times < cut - 1e-9
    np.testing.assert_array_equal(got[before], ref[before])
    first_after = np.flatnonzero(~before)[0]
    assert not np.array_equal(got[first_after], ref[first_after])


def test_delay_value_and_streaming_emits_as_soon_as_possible(rng):
    cfg = FeatureConfig()
    assert FEATURE_DELAY_S == cfg.delay_s
    assert cfg.delay_s == pytest.approx((25 + 12 - 1 + 5 * 25) / 250)  # 0.644 s
    assert cfg.delay_s < 1.1  # the original online system
    ext = StreamingFeatures(2, cfg)
    assert ext.delay_s == cfg.delay_s
    emitted = 0
    for j in range(30):
        f, t = ext.push(rng.normal(0, 10, (25, 2)).astype(np.float32))
        received_s = (j + 1) * cfg.frame_s
        # Everything whose last needed sample has arrived is out; nothing else.
        ready = int(np.sum(np.arange(30) * cfg.frame_s + cfg.delay_s < received_s - 1e-9))
        emitted += len(t)
        assert emitted == ready
        assert np.all(t + cfg.delay_s < received_s)
    assert ext.lag_frames == 6 and emitted == 30 - 6


# ----------------------------------------------------------------------------- sanity


def test_shapes_dtypes_times_and_partial_frames(rng):
    x = rng.normal(0, 20, (1013, 4)).astype(np.float32)  # 40 frames + 13 spare samples
    f, t = compute_features(x)
    assert f.shape == (40, 4, 26) and f.dtype == np.float32
    assert t.dtype == np.float64
    np.testing.assert_array_equal(t, np.arange(40) * 0.1)
    np.testing.assert_array_equal(f, compute_features(x[:1000])[0])  # spare samples unused
    np.testing.assert_array_equal(f, compute_features(x.astype(np.float64))[0])
    assert len(FEATURE_NAMES) == N_FEATURES == 26 and len(set(FEATURE_NAMES)) == 26
    empty_f, empty_t = compute_features(x[:24])
    assert empty_f.shape == (0, 4, 26) and empty_t.shape == (0,)
    ext = StreamingFeatures(4)
    assert ext.flush()[0].shape == (0, 4, 26)


def test_flat_channels_give_finite_floor_values(rng):
    x = rng.normal(0, 20, (250 * 10, 3)).astype(np.float32)
    x[:, 1] = 0.0
    x[:, 2] = 1234.567  # a disconnected electrode with an offset
    feats, _ = compute_features(x)
    assert np.isfinite(feats).all()
    floor_log = np.log(np.float32(FeatureConfig().log_floor))
    np.testing.assert_allclose(feats[:, 1:, 0], floor_log, rtol=0, atol=1e-5)
    assert np.all(feats[:, 1:, 8:] == 0)  # no energy change, no deltas
    f_stream, _ = stream(x, 1)
    np.testing.assert_array_equal(f_stream, feats)


def test_bad_inputs_are_refused(rng):
    x = rng.normal(0, 20, (500, 2)).astype(np.float32)
    x[321, 1] = np.nan
    with pytest.raises(RtEegError, match="sample 321"):
        compute_features(x)
    ext = StreamingFeatures(2)
    with pytest.raises(RtEegError, match="NaN"):
        ext.push(x[300:325])
    with pytest.raises(ValueError, match="multiple of 25"):
        ext.push(np.zeros((30, 2), np.float32))
    with pytest.raises(ValueError, match="3 channels, expected 2"):
        ext.push(np.zeros((25, 3), np.float32))
    with pytest.raises(ValueError, match="n_samples, n_channels"):
        compute_features(np.zeros(100, np.float32))


def test_reset_and_push_after_flush(rng):
    x = rng.normal(0, 20, (250 * 3, 2)).astype(np.float32)
    ext = StreamingFeatures(2)
    first = [ext.push(x), ext.flush()]
    with pytest.raises(RuntimeError, match="reset"):
        ext.push(x[:25])
    ext.reset()
    second = [ext.push(x), ext.flush()]
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])


# ----------------------------------------------------------------------------- FeatureConfig


def test_config_toml_round_trip(tmp_path):
    cfg = FeatureConfig()
    assert FeatureConfig.from_toml(cfg.to_toml()) == cfg
    other = dataclasses.replace(cfg, f_max=45.0, window="hamming", remove_mean=False)
    assert other != cfg
    other.save(tmp_path / "features.toml")
    loaded = FeatureConfig.load(tmp_path / "features.toml")
    assert loaded == other and loaded.to_toml() == other.to_toml()
    # The decoder test scales the first float field after sfreq: must stay valid.
    first_float = next(
        f.name
        for f in dataclasses.fields(cfg)
        if isinstance(getattr(cfg, f.name), float) and f.name != "sfreq"
    )
    dataclasses.replace(cfg, **{first_float: getattr(cfg, first_float) * 1.5})


def test_config_errors_name_file_and_key(tmp_path):
    path = tmp_path / "features.toml"
    text = FeatureConfig().to_toml()
    path.write_text(text.replace("n_fft = 64\n", ""), encoding="utf-8")
    with pytest.raises(RtEegError, match="missing keys: n_fft") as info:
        FeatureConfig.load(path)
    assert str(path) in str(info.value)
    path.write_text(text + "hop = 3\n", encoding="utf-8")
    with pytest.raises(RtEegError, match="unknown keys: hop"):
        FeatureConfig.load(path)
    path.write_text(text.replace("n_fft = 64", "n_fft = 32"), encoding="utf-8")
    with pytest.raises(RtEegError, match="n_fft"):
        FeatureConfig.load(path)
    path.write_text(text.replace('window = "hann"', "window = 3"), encoding="utf-8")
    with pytest.raises(RtEegError, match="window must be str"):
        FeatureConfig.load(path)
    path.write_text("[features\n", encoding="utf-8")
    with pytest.raises(RtEegError, match="not valid TOML"):
        FeatureConfig.load(path)
    with pytest.raises(RtEegError, match="file not found"):
        FeatureConfig.load(tmp_path / "absent.toml")
    with pytest.raises(RtEegError, match="contain no FFT bin"):
        FeatureConfig(n_filters=30, n_cepstra=7)
    with pytest.raises(RtEegError, match="f_max"):
        FeatureConfig(f_max=200.0)


# ----------------------------------------------------------------------------- CLI


def test_cli_features_batch_and_streaming(tmp_path):
    from edf_factory import tuh_like

    import rt_eeg.io.edf as edf
    from rt_eeg.cli import main

    path, _ = tuh_like(tmp_path / "rec.edf", 12.0, 256.0, rng=np.random.default_rng(2))
    with edf.open_recording(path) as rec:
        want_f, want_t = compute_features(rec.read())
        ch_names = list(rec.ch_names)
    for extra in ([], ["--streaming"]):
        out = tmp_path / f"f{len(extra)}.npz"
        assert main(["features", str(path), "--out", str(out), *extra]) == 0
        with np.load(out) as got:  # no pickle needed
            np.testing.assert_array_equal(got["features"], want_f)
            np.testing.assert_array_equal(got["times"], want_t)
            assert list(got["ch_names"]) == ch_names
            assert tuple(got["feature_names"]) == FEATURE_NAMES
            assert FeatureConfig.from_toml(str(got["feature_config"])) == FeatureConfig()
            assert got["features"].dtype == np.float32


def test_cli_features_bad_file(tmp_path, capsys):
    from rt_eeg.cli import main

    bad = tmp_path / "bad.edf"
    bad.write_bytes(b"not an edf at all")
    assert main(["features", str(bad), "--out", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.edf" in err[0]
    assert not (tmp_path / "x.npz").exists()
