"""A model trained on other feature settings (``rt-eeg train --features``, pilot 111's 1 s
analysis window): the in-process paths compute its features with its own settings, the feature
cache keeps them apart, the live pipeline and the ward run the model's settings (equal to the
offline detector), a decoder told other settings refuses it, and settings the system cannot
run (another rate or frame) are refused everywhere with one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from train_helpers import both_labels_point

from rt_eeg.errors import RtEegError
from rt_eeg.features import FeatureConfig, compute_features

#: tools/features_w1s.toml's settings: a 1 s window, 16 filters, the same 26 features a frame
W1S = FeatureConfig(window_samples=250, buffer_samples=275, n_fft=256, n_filters=16)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The same untrained weights (seed 3) saved with the default settings and with W1S."""
    from rt_eeg.decoder import write_untrained_model

    root = tmp_path_factory.mktemp("settings")
    return (write_untrained_model(root / "default", seed=3),
            write_untrained_model(root / "w1s", seed=3, feature_config=W1S))  # fmt: skip


def test_the_recipe_file_holds_the_settings_the_tests_use():
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "features_w1s.toml"
    cfg = FeatureConfig.load(path)
    assert cfg == W1S and cfg.n_features == FeatureConfig().n_features
    # the centred 1 s window looks 0.4 s further ahead than the default 0.2 s one
    assert cfg.delay_s == pytest.approx(FeatureConfig().delay_s + 0.4)


def test_the_live_decoder_refuses_it_and_model_adopts_its_settings(models):
    from rt_eeg.decoder import Decoder

    with pytest.raises(RtEegError, match="window_samples") as info:
        Decoder(models[1], device="cpu")
    assert "features.toml" in str(info.value)
    assert Decoder(models[1], device="cpu", feature_config="model").feature_config == W1S
    assert Decoder(models[0], device="cpu", feature_config="model").feature_config == FeatureConfig()
    with pytest.raises(ValueError, match="'own'"):
        Decoder(models[1], device="cpu", feature_config="own")


def test_detection_computes_the_models_own_features(recording, models):
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.io.edf import open_recording

    with open_recording(recording) as rec:
        signal = rec.read()
    got = {}
    for path in models:
        dec = Decoder(path, device="cpu", feature_config="model")
        res = detect_recording(recording, dec, chunk_s=7.0)
        feats, _ = compute_features(signal, dec.feature_config)
        want = dec.predict_recording(feats)
        assert res.probs.shape == want.shape
        np.testing.assert_allclose(res.probs, want, atol=1e-5)
        got[path.name] = res.probs
    # same weights, other inputs: the settings reached the features
    assert np.abs(got["w1s"] - got["default"]).max() > 1e-3


def test_the_feature_cache_keeps_settings_apart(recording, models, tmp_path, monkeypatch):
    import rt_eeg.io.edf
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.feature_cache import FeatureCache

    cache = FeatureCache(tmp_path / "cache")
    chunk = 15000
    # the default's key is what it was before settings were part of the call: old entries hold
    assert cache.path_for(recording, chunk) == cache.path_for(recording, chunk, FeatureConfig())
    assert cache.path_for(recording, chunk, W1S) != cache.path_for(recording, chunk)
    decs = [Decoder(p, device="cpu", feature_config="model") for p in models]
    plain = [detect_recording(recording, d) for d in decs]
    first = [detect_recording(recording, d, feature_cache=cache) for d in decs]
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 2

    def refuse(*_a, **_k):
        raise AssertionError("the EDF file was read although its features are cached")

    monkeypatch.setattr(rt_eeg.io.edf, "open_recording", refuse)
    for d, p, f in zip(decs, plain, first, strict=True):
        again = detect_recording(recording, d, feature_cache=cache)
        assert again.probs.tobytes() == p.probs.tobytes() == f.probs.tobytes()
        assert again.decisions == p.decisions


def test_train_features_option(tmp_path, capsys):
    from train_helpers import write_corpus

    from rt_eeg.cli import main

    corpus = write_corpus(tmp_path / "corpus", np.random.default_rng(5))
    bad = tmp_path / "bad.toml"
    bad.write_text("[features]\nwindow_samples = 250\n")
    argv = ["train", "--corpus", str(corpus), "--out", str(tmp_path / "x"), "--features", str(bad)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "bad.toml" in err and "missing keys" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x").exists()

    good = tmp_path / "w1s.toml"
    W1S.save(good)
    out = tmp_path / "m"
    opts = "--seed 3 --epochs 1 --units 8 --samples-per-epoch 256 --batch-size 64 --workers 1"
    argv = ["train", "--corpus", str(corpus), "--out", str(out), *opts.split(), "--features", str(good),
            "--store", str(tmp_path / "store"), "--device", "cpu"]  # fmt: skip
    assert main(argv) == 0
    assert FeatureConfig.load(out / "features.toml") == W1S
    index = json.loads((tmp_path / "store" / "index.json").read_text())
    assert FeatureConfig.from_toml(index["feature_config"]) == W1S


def test_model_feature_config_reads_the_folder(tmp_path):
    from rt_eeg.features import model_feature_config

    assert model_feature_config(tmp_path) == FeatureConfig()  # a postprocess-only folder
    W1S.save(tmp_path / "features.toml")
    assert model_feature_config(tmp_path) == W1S
    (tmp_path / "features.toml").write_text("[features]\nn_fft = 'x'\n")
    with pytest.raises(RtEegError, match="features.toml"):
        model_feature_config(tmp_path)


def test_tuning_onsets_count_the_models_own_lookahead(tmp_path):
    # that module puts tools/ on the path and skips when operating_point cannot be imported
    from test_operating_point import _corpus, operating_point

    a = _corpus(tmp_path, "A", [((100, 160), None), ((300, 340), None)])
    onsets = {}
    for name, cfg in (("default", None), ("w1s", W1S)):
        model = tmp_path / name
        model.mkdir()
        (model / "postprocess.toml").write_text(
            "threshold_on = 0.998\nthreshold_off = 0.499\nonset_epochs = 2\ntop_k = 2\n"
        )
        if cfg is not None:
            cfg.save(model / "features.toml")
        out = tmp_path / f"{name}.json"
        assert operating_point.main(["--model", str(model), "--score-only", "--tune", a, "--fixed",
                                     f"p={model / 'postprocess.toml'}", "--out", str(out)]) == 0  # fmt: skip
        fig = json.loads(out.read_text())["figures"]["p"]["tune_A"]
        assert fig["hits"] == 2
        onsets[name] = fig["onset_latency_median_s"]
    assert onsets["w1s"] - onsets["default"] == pytest.approx(W1S.delay_s - FeatureConfig().delay_s, abs=1e-3)


def test_replay_runs_the_models_own_settings_equal_to_offline(recording, models, tmp_path):
    """The feature stage computes the model's settings (read once at pre-flight): the live
    outputs equal the offline detector's byte for byte, and the run's metrics state the model's
    own lookahead."""
    from rt_eeg.config import PipelineConfig
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.outputs import write_outputs
    from rt_eeg.pipeline.supervisor import Supervisor

    dec = Decoder(models[1], device="cpu", feature_config="model")
    post = both_labels_point(detect_recording(recording, dec))
    res = detect_recording(recording, dec, post)
    assert {"seiz", "bckg"} <= {d.label for d in res.decisions}
    write_outputs(tmp_path / "off", recording.stem, res.decisions, res.duration)
    pcfg = PipelineConfig(model=str(models[1]), device="cpu", postprocess=post)
    metrics = Supervisor(recording, tmp_path / "live", config=pcfg, monitor=None).run_pipeline()
    for suffix in (".hyp", ".csv_bi", ".tse", "_events.tsv"):
        live = (tmp_path / "live" / f"{recording.stem}{suffix}").read_text()
        assert live == (tmp_path / "off" / f"{recording.stem}{suffix}").read_text(), suffix
    assert metrics["restarts"] == [] and not metrics["detection_path_gaps"]
    assert metrics["algorithmic_delay_s"] == pytest.approx(W1S.delay_s)
    assert W1S.delay_s > FeatureConfig().delay_s + 0.3


def test_settings_the_system_cannot_run_are_refused_with_one_line(recording, tmp_path, capsys):
    """Another rate or frame length: every source gives 250 Hz in 0.1 s frames."""
    from train_helpers import write_corpus

    from rt_eeg.cli import main
    from rt_eeg.config import PipelineConfig
    from rt_eeg.decoder import Decoder, write_untrained_model
    from rt_eeg.features import check_runnable
    from rt_eeg.pipeline.supervisor import Supervisor

    check_runnable(W1S)
    for bad in (FeatureConfig(sfreq=200.0), FeatureConfig(frame_samples=20)):
        with pytest.raises(RtEegError, match="cannot run"):
            check_runnable(bad)
    bad = FeatureConfig(sfreq=200.0)
    model = write_untrained_model(tmp_path / "m200", seed=3, feature_config=bad)
    with pytest.raises(RtEegError, match="sfreq = 200") as info:
        Decoder(model, device="cpu", feature_config="model")
    assert "features.toml" in str(info.value)
    out = tmp_path / "live"
    with pytest.raises(RtEegError, match="sfreq = 200"):
        Supervisor(recording, out, config=PipelineConfig(model=str(model), device="cpu"), monitor=None)
    assert not out.exists()  # refused before anything was written

    corpus = write_corpus(tmp_path / "corpus", np.random.default_rng(5))
    bad.save(tmp_path / "r200.toml")
    argv = ["train", "--corpus", str(corpus), "--out", str(tmp_path / "x"), "--features",
            str(tmp_path / "r200.toml")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "r200.toml" in err and "cannot run" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_a_narrower_frame_trains_and_decodes(recording, tmp_path):
    """Fewer cepstra (22 features a frame, not 26): the store, the model and detection all take
    the settings' width."""
    from train_helpers import write_corpus

    from rt_eeg.cli import main
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.io.edf import open_recording

    narrow = FeatureConfig(n_cepstra=5)
    assert narrow.n_features < FeatureConfig().n_features
    narrow.save(tmp_path / "narrow.toml")
    corpus = write_corpus(tmp_path / "corpus", np.random.default_rng(5))
    out = tmp_path / "m"
    opts = "--seed 3 --epochs 1 --units 8 --samples-per-epoch 256 --batch-size 64 --workers 1"
    argv = ["train", "--corpus", str(corpus), "--out", str(out), *opts.split(), "--features",
            str(tmp_path / "narrow.toml"), "--store", str(tmp_path / "store"), "--device", "cpu"]  # fmt: skip
    assert main(argv) == 0
    index = json.loads((tmp_path / "store" / "index.json").read_text())
    assert FeatureConfig.from_toml(index["feature_config"]) == narrow
    dec = Decoder(out, device="cpu", feature_config="model")
    assert dec.feature_config == narrow and dec.n_features == narrow.n_features
    with open_recording(recording) as rec:
        feats, _ = compute_features(rec.read(), narrow)
    assert feats.shape[2] == narrow.n_features
    res = detect_recording(recording, dec)
    np.testing.assert_allclose(res.probs, dec.predict_recording(feats), atol=1e-5)
