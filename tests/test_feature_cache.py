"""The feature cache: a replayed recording gives the detector's results byte for byte."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from rt_eeg.feature_cache import FeatureCache


def _same(a, b) -> None:
    assert a.probs.tobytes() == b.probs.tobytes() and a.probs.shape == b.probs.shape
    assert a.epoch_starts.tobytes() == b.epoch_starts.tobytes()
    assert a.decisions == b.decisions
    assert list(a.ch_names) == list(b.ch_names)
    assert (a.duration, a.montage) == (b.duration, b.montage)


def _no_edf_reading(monkeypatch) -> None:
    import rt_eeg.io.edf

    def refuse(*_a, **_k):
        raise AssertionError("the EDF file was read although its features are cached")

    monkeypatch.setattr(rt_eeg.io.edf, "open_recording", refuse)


@pytest.fixture(scope="module")
def decoder(model_dir):
    from rt_eeg.decoder import Decoder

    return Decoder(model_dir, device="cpu")


def test_a_cached_recording_is_replayed_push_by_push_without_reading_it(recording, decoder, tmp_path, monkeypatch):
    from rt_eeg.detector import detect_recording

    plain = detect_recording(recording, decoder, chunk_s=7.0)
    cache = FeatureCache(tmp_path / "cache")
    first = detect_recording(recording, decoder, chunk_s=7.0, feature_cache=cache)
    _same(first, plain)
    (entry,) = (tmp_path / "cache").glob("*.npz")
    assert entry.name.startswith(recording.stem + "-")
    with np.load(entry) as z:
        lengths, feats = z["lengths"], z["features"]
    # 45 s in 7 s blocks: 7 pushes and the flush, each push's frames kept as they came (the
    # first push is 6 frames short: the feature stage's lookahead; the flush emits them)
    assert lengths.tolist() == [64, 70, 70, 70, 70, 70, 30, 6] and len(feats) == 450
    assert feats.dtype == np.float32 and feats.shape[1:] == (len(plain.ch_names), 26)

    _no_edf_reading(monkeypatch)
    again = detect_recording(recording, decoder, chunk_s=7.0, feature_cache=cache)
    _same(again, plain)
    with pytest.raises(AssertionError, match="was read"):  # another chunking is another entry
        detect_recording(recording, decoder, chunk_s=60.0, feature_cache=cache)


def test_a_changed_file_or_a_damaged_entry_is_a_miss(recording, decoder, tmp_path, caplog):
    from rt_eeg.detector import detect_recording

    edf = tmp_path / recording.name
    edf.write_bytes(recording.read_bytes())
    cache = FeatureCache(tmp_path / "cache")
    plain = detect_recording(edf, decoder)
    detect_recording(edf, decoder, feature_cache=cache)
    entry = cache.path_for(edf, 15000)
    assert entry.is_file()

    entry.write_bytes(b"not a cache entry")
    _same(detect_recording(edf, decoder, feature_cache=cache), plain)
    assert "damaged feature-cache entry ignored" in caplog.text
    assert cache.load(edf, 15000) is not None  # rewritten whole

    st = edf.stat()
    os.utime(edf, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # the file changed
    assert cache.path_for(edf, 15000) != entry and cache.load(edf, 15000) is None
    _same(detect_recording(edf, decoder, feature_cache=cache), plain)
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 2


def test_an_entry_over_the_size_limit_is_not_written(recording, decoder, tmp_path, monkeypatch):
    import rt_eeg.feature_cache
    from rt_eeg.detector import detect_recording

    monkeypatch.setattr(rt_eeg.feature_cache, "MAX_ENTRY_BYTES", 1000)
    detect_recording(recording, decoder, feature_cache=FeatureCache(tmp_path / "cache"))
    assert not list(tmp_path.glob("cache/*.npz"))


def test_the_size_limit_is_decided_before_the_features_are_held(recording, decoder, tmp_path, monkeypatch):
    import rt_eeg.detector
    import rt_eeg.feature_cache
    from rt_eeg.detector import detect_recording

    cache = FeatureCache(tmp_path / "cache")
    detect_recording(recording, decoder, feature_cache=cache)
    (entry,) = (tmp_path / "cache").glob("*.npz")
    with np.load(entry) as z:
        n_bytes, frame_bytes, duration = z["features"].nbytes, z["features"][0].nbytes, float(z["duration"])
        n_ch = len(z["ch_names"])
    # the estimate from duration and channels is the entry's true size, give or take one frame
    monkeypatch.setattr(rt_eeg.feature_cache, "MAX_ENTRY_BYTES", n_bytes + frame_bytes)
    assert cache.fits(duration, n_ch)
    monkeypatch.setattr(rt_eeg.feature_cache, "MAX_ENTRY_BYTES", n_bytes - 1)
    assert not cache.fits(duration, n_ch) and cache.fits(duration / 2, n_ch)

    held = []
    real = rt_eeg.detector.Detector

    class Spy(real):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            held.append(self.feature_chunks is not None)

    monkeypatch.setattr(rt_eeg.detector, "Detector", Spy)
    entry.unlink()
    detect_recording(recording, decoder, feature_cache=cache)  # too long: never held, not written
    assert held == [False] and not list(tmp_path.glob("cache/*.npz"))


def test_evaluate_with_a_feature_cache_gives_the_same_outputs(model_dir, tmp_path, monkeypatch):
    from edf_factory import tuh_like

    from rt_eeg.decoder import write_untrained_model
    from rt_eeg.evaluate import evaluate
    from rt_eeg.io.annotations import Event, write_csv_bi
    from rt_eeg.io.corpus import find_recordings
    from rt_eeg.postprocess import PostprocessConfig

    d = tmp_path / "corpus"
    d.mkdir()
    for k in range(2):
        p, _ = tuh_like(d / f"aaaaaaac_s001_t00{k}.edf", 30.0, 256, rng=np.random.default_rng(k))
        write_csv_bi(p.with_suffix(".csv_bi"), [Event(8.0, 20.0, "seiz")], 30.0, bname=p.stem)
    (d / "aaaaaaac_s001_t009.edf").write_bytes(b"garbage" * 100)  # fails, and is never cached
    items = find_recordings(d)
    run = dict(post=PostprocessConfig(), workers=1, progress=False)
    plain = evaluate(items, tmp_path / "plain", model_dir, **run)
    from rt_eeg.cli import main

    rc = main(["evaluate", "--corpus", str(d), "--model", str(model_dir), "--out", str(tmp_path / "cached"),
               "--workers", "1", "--quiet", "--feature-cache", str(tmp_path / "fc")])  # fmt: skip
    assert rc == 0
    cached = json.loads((tmp_path / "cached" / "report.json").read_text())
    assert len(list((tmp_path / "fc").glob("*.npz"))) == 2
    other = write_untrained_model(tmp_path / "other", seed=7)  # a second model reuses them
    monkeypatch.setattr("rt_eeg.io.edf.Recording.chunks", lambda *_a: (_ for _ in ()).throw(AssertionError))
    second = evaluate(items, tmp_path / "second", other, feature_cache=tmp_path / "fc", **run)
    assert second["failed"] and len(second["failed"]) == 1 and not any(
        r["status"] == "failed" and "AssertionError" in r.get("error", "") for r in second["recordings"])
    for k in range(2):
        name = f"aaaaaaac_s001_t00{k}"
        for suffix in (".probs.npz", ".hyp", ".csv_bi"):
            assert (tmp_path / "cached" / (name + suffix)).read_bytes() == (tmp_path / "plain" / (name + suffix)).read_bytes()
    assert cached["scores"]["ovlp"] == plain["scores"]["ovlp"]
    assert [f["error"] for f in cached["failed"]] == [f["error"] for f in plain["failed"]]
    with np.load(tmp_path / "second" / "aaaaaaac_s001_t000.probs.npz") as a, np.load(
        tmp_path / "plain" / "aaaaaaac_s001_t000.probs.npz"
    ) as b:
        assert a["probs"].shape == b["probs"].shape and not np.array_equal(a["probs"], b["probs"])


def test_a_reduced_recording_replays_with_its_montage_and_warning(decoder, tmp_path, caplog):
    from edf_factory import write_edf

    from rt_eeg.detector import detect_recording

    eight = ["Fp1", "Fp2", "C3", "C4", "T3", "T4", "O1", "O2"]
    sig = np.random.default_rng(4).normal(0, 30, (8, 30 * 100))
    edf = write_edf(tmp_path / "ref8_s001_t000.edf", sig, [f"EEG {e}-REF" for e in eight], 100)
    cache = FeatureCache(tmp_path / "cache")
    plain = detect_recording(edf, decoder)
    assert plain.montage == "reduced"
    detect_recording(edf, decoder, feature_cache=cache)
    caplog.clear()
    _same(detect_recording(edf, decoder, feature_cache=cache), plain)
    assert cache.load(edf, 15000).note and "reduced" in caplog.text


def test_a_missing_recording_fails_as_it_does_without_a_cache(decoder, tmp_path):
    from rt_eeg.detector import detect_recording
    from rt_eeg.errors import RtEegError

    missing = tmp_path / "gone_s001_t000.edf"
    with pytest.raises(RtEegError) as plain:
        detect_recording(missing, decoder)
    with pytest.raises(RtEegError) as cached:
        detect_recording(missing, decoder, feature_cache=FeatureCache(tmp_path / "cache"))
    assert str(cached.value) == str(plain.value) and "gone_s001_t000.edf" in str(cached.value)
    assert not (tmp_path / "cache").exists()
