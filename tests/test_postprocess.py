"""Postprocessor: crafted posterior sequences, streaming == batch, outputs end at the end."""

from __future__ import annotations

import numpy as np
import pytest

from rt_eeg.io.annotations import read_csv_bi, read_hyp, read_tse
from rt_eeg.outputs import write_outputs
from rt_eeg.postprocess import (
    PostprocessConfig,
    Postprocessor,
    complete_decisions,
    decisions_to_events,
    postprocess_recording,
)

CH = [f"C{i}" for i in range(22)]


def background(n, rng, level=0.05):
    return np.clip(rng.normal(level, 0.03, (n, len(CH))), 0, 1)


def run(probs, cfg=None):
    return postprocess_recording(np.arange(len(probs), dtype=float), probs, CH, cfg)


def test_flickering_seizure_stays_one_event(rng):
    p = background(200, rng)
    seiz = slice(60, 120)
    # 8 channels fluctuate: dips to 0.15 lasting 1 to 3 epochs, between 2 to 3 high epochs
    flicker = np.array([0.9, 0.9, 0.15, 0.9, 0.15, 0.15, 0.9, 0.9, 0.9, 0.15, 0.15, 0.15] * 5)
    p[seiz, :8] = flicker[:, None]
    events = decisions_to_events(run(p))
    assert len(events) == 1
    ev = events[0]
    assert 60 <= ev.start <= 63 and 119 <= ev.stop <= 126


def test_single_channel_two_second_blip_does_not_fire(rng):
    p = background(100, rng)
    p[40:42, 5] = 0.99
    assert decisions_to_events(run(p)) == []


def test_seizure_on_few_channels_fires(rng):
    p = background(100, rng)
    p[30:50, [2, 3, 9]] = 0.85
    events = decisions_to_events(run(p))
    assert len(events) == 1
    d = [x for x in run(p) if x.label == "seiz"]
    assert set(d[-1].channels) == {"C2", "C3", "C9"}


def test_onset_latency_is_onset_epochs(rng):
    p = background(60, rng)
    p[20:40, :6] = 0.95
    cfg = PostprocessConfig()
    first = next(d for d in run(p, cfg) if d.label == "seiz")
    # a clear onset at t=20 s is decided SEIZ when the epoch ending onset_epochs later is in
    assert first.stop - 20 == cfg.onset_epochs


def test_nearby_events_merge_and_far_events_do_not(rng):
    p = background(200, rng)
    p[20:40, :6] = 0.95
    p[43:60, :6] = 0.95  # 3 s gap inside the hold: merged
    p[120:140, :6] = 0.95  # far: separate
    events = decisions_to_events(run(p))
    assert len(events) == 2


# the candidate onset rules of issue #12 (dual threshold, spatial extent) change decisions
CANDIDATE = PostprocessConfig(
    threshold_on=0.9, threshold_off=0.4, onset_epochs=3, early_threshold=0.7, early_epochs=1,
    early_rise=0.3, min_channels=3, channel_level=0.6,
)


@pytest.mark.parametrize("cfg", [None, CANDIDATE], ids=["default", "candidate_options"])
def test_streaming_one_epoch_at_a_time_equals_batch(rng, cfg):
    p = background(400, rng)
    for s in (50, 150, 300):
        p[s : s + 30, :5] = rng.uniform(0.4, 1.0, (30, 5))
    p[200:215, :2] = 0.99  # two channels only: the spatial extent refuses it
    batch = run(p, cfg)
    assert any(d.label == "seiz" for d in batch)
    if cfg is not None:
        assert batch != run(p, cfg.replace(early_threshold=0.0, min_channels=1, channel_level=0.0))
    post = Postprocessor(CH, cfg)
    stream = []
    for i, row in enumerate(p):
        stream += post.push(float(i), row)
    assert stream == batch


def test_gap_is_marked_not_analysed_and_resets(rng):
    p = background(30, rng)
    post = Postprocessor(CH)
    out = []
    for i in range(10):
        out += post.push(float(i), p[i])
    out += post.push(15.0, p[15])  # epochs 10..14 never arrived
    labels = [d.label for d in out]
    assert labels[10:15] == ["na"] * 5 and labels[15] == "bckg"


def test_config_validation():
    with pytest.raises(ValueError, match="threshold_off"):
        PostprocessConfig(threshold_on=0.3, threshold_off=0.5)


def test_outputs_cover_the_recording_and_end_exactly(tmp_path, rng):
    p = background(100, rng)
    p[30:60, :6] = 0.95
    duration = 99.6  # last epoch is partial
    decisions = run(p)[:100]
    paths = write_outputs(tmp_path, "rec", decisions, duration)
    epochs, dur = read_hyp(paths["hyp"])
    assert dur == pytest.approx(duration) and epochs[-1].stop == pytest.approx(duration)
    assert len(epochs) == 100
    ann = read_csv_bi(paths["csv_bi"])
    seiz = [e for e in ann.events if e.label == "seiz"]
    assert len(seiz) == 1 and ann.duration == pytest.approx(duration)
    tse = read_tse(paths["tse"])
    assert max(e.stop for e in tse.events) == pytest.approx(duration)
    assert (tmp_path / "rec_events.tsv").is_file()


def test_complete_decisions_fills_missing_with_na(rng):
    d = run(background(5, rng))
    full = complete_decisions(d, 8.0)
    assert [x.label for x in full[5:]] == ["na"] * 3


def _jump(rng, n_ch=6, level=0.995, at=20):
    p = background(60, rng)
    p[at:40, :n_ch] = level
    return p


def test_dual_threshold_fires_on_the_first_confident_epoch_of_a_jump(rng):
    strict = PostprocessConfig(threshold_on=0.99, threshold_off=0.5, onset_epochs=3)
    early = strict.replace(early_threshold=0.99, early_epochs=1, early_rise=0.3)
    p = _jump(rng)
    first = lambda cfg: next(d.start for d in run(p, cfg) if d.label == "seiz")  # noqa: E731
    # epoch 20 smooths the jump with the background (score ~0.5); epoch 21 is the first >= 0.99
    assert first(strict) == 23.0
    assert first(early) == 21.0


def test_dual_threshold_needs_the_rise_a_slow_drift_takes_the_strict_path(rng):
    p = background(80, rng)
    p[10:50, :6] = np.linspace(0.6, 0.995, 40)[:, None]  # +0.01 per epoch: no fast rise
    p[50:70, :6] = 0.995
    strict = PostprocessConfig(threshold_on=0.99, threshold_off=0.5, onset_epochs=3)
    early = strict.replace(early_threshold=0.99, early_epochs=1, early_rise=0.3)
    assert run(p, early) == run(p, strict)
    assert any(d.label == "seiz" for d in run(p, strict))


def test_min_channels_refuses_a_narrow_event_and_keeps_a_wide_one(rng):
    cfg = PostprocessConfig(top_k=2, threshold_on=0.9, threshold_off=0.45, onset_epochs=2)
    gated = cfg.replace(min_channels=4, channel_level=0.9)
    narrow, wide = _jump(rng, n_ch=3, level=0.999), _jump(rng, n_ch=6, level=0.999)
    assert len(decisions_to_events(run(narrow, cfg))) == 1
    assert decisions_to_events(run(narrow, gated)) == []
    assert decisions_to_events(run(wide, gated)) == decisions_to_events(run(wide, cfg))


def test_candidate_options_validated_and_loaded_from_toml(tmp_path):
    from rt_eeg.config import load_pipeline_config

    for bad in ({"early_threshold": 1.5}, {"channel_level": -0.1}, {"min_channels": 0},
                {"early_epochs": 0}):  # fmt: skip
        with pytest.raises(ValueError):
            PostprocessConfig(**bad)
    path = tmp_path / "run.toml"
    path.write_text("[postprocess]\nearly_threshold = 0.99\nearly_epochs = 1\nearly_rise = 0.3\n"
                    "min_channels = 4\nchannel_level = 0.9\n")  # fmt: skip
    post = load_pipeline_config(path).postprocess
    assert (post.early_threshold, post.early_rise, post.min_channels) == (0.99, 0.3, 4)


# --- the patient-relative onset gate (adapt_*) -------------------------------------------------

ADAPT = PostprocessConfig(threshold_on=0.9, threshold_off=0.45, onset_epochs=2, adapt_epochs=300,
                          adapt_quantile=0.9, adapt_margin=1.0, adapt_min_epochs=60)  # fmt: skip


def restless(n, rng):
    """A patient whose background often scores near the threshold: bursts of 0.88-0.96 on a
    few channels every 10-20 s (a benign rhythm the decoder half-believes)."""
    p = background(n, rng)
    t = 5
    while t < n - 5:
        p[t : t + 4, :4] = rng.uniform(0.88, 0.96, (4, 4))
        t += int(rng.integers(10, 20))
    return p


def test_adapt_gate_off_by_default_and_not_written(rng):
    assert PostprocessConfig().adapt_epochs == 0
    assert not any(k.startswith("adapt_") for k in PostprocessConfig().to_dict())
    d = ADAPT.to_dict()
    assert d["adapt_epochs"] == 300 and PostprocessConfig.from_dict(d) == ADAPT
    p = restless(400, rng)
    # with the gate off, the restless background raises alarms at the bare threshold
    assert len(decisions_to_events(run(p, ADAPT.replace(adapt_epochs=0)))) >= 3


def test_adapt_gate_silences_a_restless_background_after_warm_up_and_keeps_a_seizure(rng):
    p = restless(600, rng)
    plain = decisions_to_events(run(p, ADAPT.replace(adapt_epochs=0)))
    gated = decisions_to_events(run(p, ADAPT))
    late = [e for e in gated if e.start >= 120]  # well after the 60-epoch warm-up
    assert len(plain) > len(gated) and late == []
    p[400:440, :6] = 0.995  # a seizure: far above anything this patient's background does
    gated = decisions_to_events(run(p, ADAPT))
    assert [(e.start >= 400 and e.start <= 404) for e in gated if e.start >= 120] == [True]


def test_adapt_gate_does_not_touch_a_quiet_patient(rng):
    p = background(600, rng)
    p[300:330, :6] = 0.93  # just above the threshold, far above a quiet background
    assert run(p, ADAPT) == run(p, ADAPT.replace(adapt_epochs=0))


def test_adapt_gate_streaming_equals_batch_and_restarts_after_a_gap(rng):
    p = restless(500, rng)
    p[350:380, :6] = 0.995
    batch = run(p, ADAPT)
    post = Postprocessor(CH, ADAPT)
    stream = []
    for i, row in enumerate(p):
        stream += post.push(float(i), row)
    assert stream == batch
    # a gap forgets the background: the first restless burst after it fires again
    post = Postprocessor(CH, ADAPT)
    out = []
    for i in range(300):
        out += post.push(float(i), p[i])
    assert all(d.label != "seiz" for d in out[150:300])
    for i in range(310, 500):
        out += post.push(float(i), p[i])
    after = [d for d in out if d.start >= 310 and d.label == "seiz"]
    assert after and after[0].start < 350


def test_adapt_options_validated_and_read_from_toml(tmp_path):
    from rt_eeg.config import read_postprocess_toml

    for bad in ({"adapt_epochs": -1}, {"adapt_quantile": 1.5}, {"adapt_margin": -1.0},
                {"adapt_epochs": 50, "adapt_min_epochs": 60}):  # fmt: skip
        with pytest.raises(ValueError):
            PostprocessConfig(**bad)
    path = tmp_path / "postprocess.toml"
    path.write_text("threshold_on = 0.99\nthreshold_off = 0.5\nadapt_epochs = 300\n"
                    "adapt_quantile = 0.99\nadapt_margin = 0.5\n")  # fmt: skip
    cfg = read_postprocess_toml(path)
    got = (cfg.adapt_epochs, cfg.adapt_quantile, cfg.adapt_margin, cfg.adapt_min_epochs)
    assert got == (300, 0.99, 0.5, 60)
    path.write_text("adapt_epochs = 300\nadapt_min_epochs = 0\n")
    with pytest.raises(Exception, match="adapt_min_epochs"):
        read_postprocess_toml(path)


def test_scored_path_equals_the_postprocessor_for_every_configuration_sharing_the_scores(rng):
    """The tuner's shortcut (rt_eeg.tuning): scores computed once per score_key, then only the
    decisions per configuration, gives postprocess_recording's decisions exactly, the
    patient-relative gate and rising onsets included; a gap has no series (a learnt stage: tests/test_cross_channel.py)."""
    from rt_eeg.postprocess import postprocess_scored, score_key, score_series
    from rt_eeg.tuning import ovlp_for

    p = background(900, rng)
    for s in (100, 400, 700):
        p[s : s + 40, :6] = rng.uniform(0.5, 1.0, (40, 6))
    p[550:575, :8] = 0.993  # a near-seizure artifact
    starts = np.arange(900, dtype=float) + 12.0
    base = PostprocessConfig()
    configs = [
        base.replace(threshold_on=th, threshold_off=round(th / 2, 4), onset_epochs=o, top_k=k,
                     rise_delta=r)
        for th in (0.9, 0.99, 0.995) for o in (1, 3) for k in (2, 4) for r in (0.0, 0.3)
    ] + [base.replace(adapt_epochs=120, adapt_quantile=0.9, adapt_margin=0.5, adapt_min_epochs=30),
         base.replace(early_threshold=0.8, early_epochs=2, early_rise=0.2, min_channels=3,
                      channel_level=0.5)]  # fmt: skip
    series = {}
    for cfg in configs:
        key = score_key(cfg, CH)
        if key not in series:
            series[key] = score_series(starts, p, CH, cfg)
        assert postprocess_scored(starts, series[key], CH, cfg) == postprocess_recording(
            starts, p, CH, cfg
        )
    assert len(series) == 2  # top-2 and top-4: every other setting reuses one of them
    assert score_series(np.r_[starts[:10], starts[11:]], np.r_[p[:10], p[11:]], CH, base) is None
    # the tuner's figures from a cache filled by other configurations equal those from one
    # filled by the configuration itself
    from rt_eeg.io.annotations import Annotation, Event
    from rt_eeg.scoring.nedc import prepare_events

    ref = prepare_events(Annotation(None, [Event(112.0, 152.0, "seiz"), Event(412.0, 452.0, "seiz")],
                                    912.0))  # fmt: skip
    stored = {"epoch_starts": starts, "probs": p, "ch_names": CH, "duration": 912.0}
    hits = []
    for cfg in configs[:6]:
        shared = ovlp_for(cfg, [ref], [stored])
        own = ovlp_for(cfg, [ref], [{k: v for k, v in stored.items() if k != "_score_series"}])
        assert shared == own
        hits.append(shared["hits"])
    assert max(hits) == 2 and min(hits) == 0  # configurations that differ, scored alike
    assert len(stored["_score_series"]) == 2


# --- the evidence-accumulating onset (cusum_h, pilot 105) --------------------------------------

CUSUM = PostprocessConfig(threshold_on=0.99, threshold_off=0.495, cusum_h=4.0, top_k=2, smooth_epochs=1)


def first_seiz(decisions) -> float | None:
    return next((d.start for d in decisions if d.label == "seiz"), None)


def test_cusum_fires_fast_on_strong_evidence_and_slowly_on_weak(rng):
    """logit(0.99) = 4.60: a 0.9999 epoch (logit 9.21) brings 4.6 at once and fires in one
    epoch; 0.996 (5.52) brings 0.92 an epoch and needs five; the run count waits the same
    two epochs for both."""
    counted = CUSUM.replace(cusum_h=0.0, onset_epochs=2)
    for level, cusum_epochs in ((0.9999, 1), (0.996, 5)):
        p = background(60, rng)
        p[20:40, :4] = level
        assert first_seiz(run(p, CUSUM)) == 20 + cusum_epochs - 1, level
        assert first_seiz(run(p, counted)) == 21, level


def test_cusum_a_weak_epoch_subtracts_instead_of_restarting(rng):
    """0.9999, 0.9999 ... with h = 8: two strong epochs hold 9.2 - cap -> 8 is not reached by
    one (4.6); a dip to 0.98 (logit 3.89, -0.71) between them only delays by what it takes
    away, where a run count of 2 restarts at the dip."""
    cfg = CUSUM.replace(cusum_h=8.0)
    p = background(60, rng)
    p[20, :4], p[21, :4], p[22:30, :4] = 0.9999, 0.98, 0.9999
    assert first_seiz(run(p, cfg)) == 22  # 4.61, 3.90, 8.0 (capped): fires at the third
    assert first_seiz(run(p, cfg.replace(cusum_h=0.0, onset_epochs=2))) == 23


def test_cusum_background_below_the_threshold_never_accumulates(rng):
    p = background(300, rng)
    p[:, :4] = rng.uniform(0.9, 0.989, (300, 4))  # a restless background just under 0.99
    assert first_seiz(run(p, CUSUM)) is None
    assert first_seiz(run(p, CUSUM.replace(threshold_on=0.95, threshold_off=0.475))) is not None


def test_cusum_is_capped_so_a_long_seizure_does_not_bank_evidence(rng):
    """After a long seizure ends, the next alarm needs fresh evidence: at most h is held, and
    the epochs that end the event take it away."""
    p = background(200, rng)
    p[20:120, :4] = 0.9999
    p[128:131, :4] = 0.992  # a weak bump soon after the offset: 3 x 0.23 < h
    events = decisions_to_events(run(p, CUSUM))
    assert len(events) == 1 and events[0].start == 20


def test_cusum_streaming_equals_batch_is_reset_by_a_gap_and_written_only_when_set(rng):
    p = background(400, rng)
    for s in (50, 150, 300):
        p[s : s + 30, :5] = rng.uniform(0.98, 1.0, (30, 5))
    batch = run(p, CUSUM)
    assert any(d.label == "seiz" for d in batch)
    post = Postprocessor(CH, CUSUM)
    stream = []
    for i, row in enumerate(p):
        stream += post.push(float(i), row)
    assert stream == batch
    # a gap forgets the evidence: 0.9999 for one epoch, a gap, one more: no onset at h = 8
    post = Postprocessor(CH, CUSUM.replace(cusum_h=8.0))
    hi = np.full(len(CH), 0.9999)
    out = post.push(0.0, hi) + post.push(5.0, hi)
    assert [d.label for d in out] == ["bckg", "na", "na", "na", "na", "bckg"]
    assert post.push(6.0, hi)[-1].label == "seiz"
    assert "cusum_h" not in PostprocessConfig().to_dict()
    assert PostprocessConfig.from_dict(CUSUM.to_dict()) == CUSUM
    for bad in (-1.0, 51.0):
        with pytest.raises(ValueError, match="cusum_h"):
            PostprocessConfig(cusum_h=bad)


def test_cusum_read_from_a_models_toml_and_refused_out_of_range(tmp_path):
    from rt_eeg.config import read_postprocess_toml
    from rt_eeg.errors import RtEegError

    path = tmp_path / "postprocess.toml"
    path.write_text("threshold_on = 0.99\nthreshold_off = 0.495\ncusum_h = 4\n")
    assert read_postprocess_toml(path).cusum_h == 4.0
    for bad in ("-4", "'x'", "60"):
        path.write_text(f"threshold_on = 0.99\nthreshold_off = 0.495\ncusum_h = {bad}\n")
        with pytest.raises(RtEegError, match="cusum_h"):
            read_postprocess_toml(path)
