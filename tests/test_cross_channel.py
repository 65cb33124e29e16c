"""The cross-channel scorer: streaming == batch (with a gap and a restart), exact config round
trips, malformed tables refused, numpy == Keras, and the trainer end to end on a simulated
recording with a re-postprocessing evaluate."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import tomli_w
import tomllib

from rt_eeg.config import PipelineConfig, load_postprocess_config, save_postprocess_config
from rt_eeg.cross_channel import CrossChannelConfig, CrossChannelScorer, epoch_features
from rt_eeg.errors import RtEegError
from rt_eeg.postprocess import PostprocessConfig, Postprocessor, postprocess_recording

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

CH = [f"C{i}" for i in range(22)]
T, M = 8, 4
F = M + 2


def random_cc(rng, hidden=16, scale=0.3) -> CrossChannelConfig:
    n_in = T * F
    return CrossChannelConfig.from_arrays(rng.normal(0, scale, (n_in, hidden)), rng.normal(0, scale, hidden),
                                          rng.normal(0, scale, hidden), rng.normal(), epochs=T, top_m=M,
                                          trained_on="random, for a test")  # fmt: skip


def newest_mean_cc(centre: float, gain: float = 4.0) -> CrossChannelConfig:
    """Hand-made weights: score = sigmoid(gain * (logit of the newest epoch's channel mean - centre))."""
    w1 = np.zeros((T * F, 2))
    w1[(T - 1) * F + F - 1] = [gain, -gain]
    b1 = np.array([-gain * centre, gain * centre])
    return CrossChannelConfig.from_arrays(w1, b1, [1.0, -1.0], 0.0, epochs=T, top_m=M)


def crafted(rng, n=300):
    """Background with a slowly evolving few-channel seizure and a sudden all-channel artifact."""
    p = np.clip(rng.normal(0.05, 0.03, (n, len(CH))), 0, 1)
    p[60:100, :5] = np.linspace(0.3, 0.99, 40)[:, None]
    p[200:206, :] = 0.999
    return p


def test_streaming_with_gap_and_restart_equals_batch(rng):
    cfg = PostprocessConfig(threshold_on=0.6, threshold_off=0.4, onset_epochs=2,
                            cross_channel=newest_mean_cc(centre=-2.0))  # fmt: skip
    p = crafted(rng)
    starts = np.r_[np.arange(0, 120), np.arange(126, 300)].astype(float)  # epochs 120..125 lost
    keep = starts.astype(int)
    batch = postprocess_recording(starts, p[keep], CH, cfg)
    labels = [d.label for d in batch]
    assert labels.count("na") == 6 and "seiz" in labels and "bckg" in labels
    assert labels != [d.label for d in postprocess_recording(starts, p[keep], CH, cfg.replace(cross_channel=None))]
    post = Postprocessor(CH, cfg)
    stream = []
    for t, row in zip(starts, p[keep], strict=True):
        stream += post.push(float(t), row)
        if t == 126.0:  # right after the gap: every older epoch of the window is the pad
            pad = epoch_features(np.zeros(1), M)
            assert np.array_equal(post.scorer.last_inputs[: (T - 1) * F], np.tile(pad, T - 1))
    assert stream == batch
    # a restart forgets the history the same way a gap does
    post = Postprocessor(CH, cfg)
    for t in range(50):
        post.push(float(t), p[t])
    post.restart()
    assert np.array_equal(post.push(50.0, p[50])[0].score, Postprocessor(CH, cfg).push(50.0, p[50])[0].score)


def test_round_trips_are_bit_exact(rng, tmp_path):
    cc = random_cc(rng)
    cfg = PostprocessConfig(top_k=4, cross_channel=cc)
    assert np.array_equal(np.array(cc.w1, np.float32).astype(np.float64), np.array(cc.w1))  # float32 values
    d = cfg.to_dict()
    assert PostprocessConfig.from_dict(tomllib.loads(tomli_w.dumps(d))) == cfg
    assert PostprocessConfig.from_dict(json.loads(json.dumps(d))) == cfg
    save_postprocess_config(tmp_path, cfg, "a comment")
    assert load_postprocess_config(tmp_path) == cfg
    pc = PipelineConfig(postprocess=cfg)
    assert PipelineConfig.from_dict(json.loads(json.dumps(pc.to_dict()))) == pc
    # without the table nothing new is written
    assert "cross_channel" not in PostprocessConfig().to_dict()


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["cross_channel"].update(w1=d["cross_channel"]["w1"][:-1]), "cross_channel.w1 must have shape"),
    (lambda d: d["cross_channel"]["b1"].__setitem__(0, float("nan")), "cross_channel.b1 holds a non-finite"),
    (lambda d: d["cross_channel"].update(colour="red"), "unknown key cross_channel.colour"),
    (lambda d: d.update(buffer_epochs=4), "cross_channel.epochs (8) must be <= buffer_epochs (4)"),
    (lambda d: d["cross_channel"].pop("b2"), "cross_channel.b2 is missing"),
    (lambda d: d.update(cross_channel=[1.0]), "postprocess.cross_channel must be a table"),
])  # fmt: skip
def test_malformed_table_is_one_line_naming_the_file_and_key(rng, tmp_path, edit, message):
    d = PostprocessConfig(cross_channel=random_cc(rng)).to_dict()
    edit(d)
    (tmp_path / "postprocess.toml").write_text(tomli_w.dumps(d))
    with pytest.raises(RtEegError) as err:
        load_postprocess_config(tmp_path)
    text = str(err.value)
    assert "postprocess.toml" in text and message in text and "\n" not in text


def test_numpy_forward_equals_keras(rng):
    from train_cross_channel import keras_forward

    cc = random_cc(rng)
    x = rng.normal(0, 2, (500, cc.n_inputs))  # logit-sized inputs
    ours, theirs = CrossChannelScorer(cc).forward(x), keras_forward(cc, x)
    # float64 numpy against float32 Keras: equal to float32 rounding of the pre-activations
    assert 0.05 < ours.std() and np.max(np.abs(ours - theirs)) < 2e-6


def test_trainer_end_to_end_and_evaluate_reuses_probabilities(model_dir, tmp_path):
    """Simulated recording -> evaluate -> trainer -> a table that loads; re-postprocessing the
    stored probabilities with it gives the files a full detector run gives."""
    import train_cross_channel

    from rt_eeg.evaluate import evaluate
    from rt_eeg.io.corpus import find_recordings
    from rt_eeg.sim.corpus import simulate_corpus
    from rt_eeg.sim.families import resolve_families

    simulate_corpus(tmp_path / "C", 0.1, 1, 2, families=resolve_families(None, None), progress=False)
    edfs = sorted((tmp_path / "C").rglob("*.edf"))
    (tmp_path / "C.list").write_text("".join(f"{e}\n" for e in edfs))
    items = find_recordings(tmp_path / "C.list")
    evaluate(items, tmp_path / "ev", model_dir, post=PostprocessConfig(), workers=1, progress=False)
    out = tmp_path / "post.toml"
    rc = train_cross_channel.main(["--eval", str(tmp_path / "ev"), "--corpus", str(tmp_path / "C.list"),
                                   "--model", str(model_dir), "--out", str(out), "--epochs", "2"])  # fmt: skip
    assert rc == 0
    model = tmp_path / "model_cc"
    model.mkdir()
    out.replace(model / "postprocess.toml")
    cfg = load_postprocess_config(model)
    assert cfg.cross_channel is not None and "seed 0" in cfg.cross_channel.trained_on
    # stored probabilities copied into a new folder: only the postprocessor runs
    (tmp_path / "re").mkdir()
    for npz in (tmp_path / "ev").glob("*.probs.npz"):
        (tmp_path / "re" / npz.name).write_bytes(npz.read_bytes())
    re = evaluate(items, tmp_path / "re", model_dir, post=cfg, workers=1, progress=False)
    evaluate(items, tmp_path / "full", model_dir, post=cfg, workers=1, progress=False)
    assert [r["status"] for r in re["recordings"]] == ["repostprocessed"] * len(edfs)
    for e in edfs:
        for suffix in (".hyp", ".csv_bi", "_events.tsv"):
            name = e.stem + suffix
            assert (tmp_path / "re" / name).read_text() == (tmp_path / "full" / name).read_text(), name
    # a missing probabilities file is one line naming the recording
    rc = train_cross_channel.main(["--eval", str(tmp_path / "C"), "--corpus", str(tmp_path / "C.list"),
                                   "--model", str(model_dir), "--out", str(tmp_path / "x.toml")])  # fmt: skip
    assert rc == 2 and not (tmp_path / "x.toml").exists()


def test_sweep_tunes_thresholds_over_the_learned_score(rng):
    """tune() keeps the weights in every candidate, returns them, and keeps them out of the trials."""
    from rt_eeg.io.annotations import Annotation, Event
    from rt_eeg.scoring.nedc import prepare_events
    from rt_eeg.tuning import default_grid, ovlp_for, tune

    p = crafted(rng)
    stored = [{"epoch_starts": np.arange(300.0), "probs": p, "ch_names": CH, "duration": 300.0}]
    refs = [prepare_events(Annotation(None, [Event(60.0, 100.0, "seiz")], 300.0))]
    base = PostprocessConfig(cross_channel=newest_mean_cc(centre=-2.0))
    grid = default_grid(base)
    assert all(c.cross_channel == base.cross_channel for c in grid) and min(c.threshold_on for c in grid) < 0.5
    best, trials = tune(base, refs, stored, target_fa_per_24h=1e6)
    assert best.cross_channel == base.cross_channel and best in grid
    assert all(t["config"]["cross_channel"] == {"trained_on": ""} for t in trials)
    assert ovlp_for(best, refs, stored)["sensitivity"] == 100.0


def test_the_tuner_scores_a_learned_stage_once_and_decides_as_the_online_object(rng):
    """A learned stage's score is a function of the probabilities alone (contiguous epochs), so
    the tuner computes it once per recording and stage (not per configuration) and takes the bulk
    event path: the figures equal the per-epoch postprocessor's for every configuration of a
    grid, thresholds, confirmations, top-k, hysteresis and rises alike; a gap still has none."""
    from rt_eeg import tuning
    from rt_eeg.io.annotations import Annotation, Event
    from rt_eeg.postprocess import postprocess_scored, score_key, score_series
    from rt_eeg.scoring.nedc import prepare_events
    from rt_eeg.tuning import default_grid

    refs, stored = [], []
    for r in range(3):
        p = crafted(rng, n=400)
        p[300:330, 3:9] = np.linspace(0.2, 0.999, 30)[:, None]
        stored.append({"epoch_starts": np.arange(400.0) + 7 * r, "probs": p, "ch_names": CH,
                       "duration": 400.0 + 7 * r})  # fmt: skip
        ev = [Event(60.0 + 7 * r, 100.0 + 7 * r, "seiz"), Event(300.0 + 7 * r, 330.0 + 7 * r, "seiz")]
        refs.append(prepare_events(Annotation(None, ev, 400.0 + 7 * r)))
    cc = random_cc(rng, scale=0.6)
    grid = default_grid(PostprocessConfig(cross_channel=cc))[::7] + [
        PostprocessConfig(cross_channel=cc, threshold_on=0.5, threshold_off=0.25, top_k=k) for k in (2, 4)]
    assert len({score_key(c, CH) for c in grid}) == 1  # one series, whatever top_k and thresholds
    assert score_key(grid[0], CH) != score_key(grid[0].replace(cross_channel=random_cc(rng)), CH)
    s = stored[0]
    series = score_series(s["epoch_starts"], s["probs"], CH, grid[0])
    for cfg in grid[:12]:
        assert postprocess_scored(s["epoch_starts"], series, CH, cfg) == postprocess_recording(
            s["epoch_starts"], s["probs"], CH, cfg)  # fmt: skip
    bulk = [tuning.ovlp_for(c, refs, stored) for c in grid]
    saved = tuning._decisions  # the plain path: the postprocessor from the probabilities, per configuration
    try:
        tuning.BULK_EVENTS = False
        tuning._decisions = lambda cfg, x: postprocess_recording(x["epoch_starts"], x["probs"], x["ch_names"], cfg)
        plain = [tuning.ovlp_for(c, refs, [{k: v for k, v in x.items() if not k.startswith("_")}
                                           for x in stored]) for c in grid]  # fmt: skip
    finally:
        tuning.BULK_EVENTS = True
        tuning._decisions = saved
    assert bulk == plain
    assert len({(f["hits"], f["false_alarms"]) for f in bulk}) > 2  # the grid's points differ
    assert all(len(x["_score_series"]) == 1 for x in stored)
    gap = np.r_[np.arange(200.0), np.arange(205.0, 405.0)]
    assert score_series(gap, s["probs"], CH, grid[0]) is None
