"""The tuner's bulk events (rt_eeg.scored_events) against the per-epoch postprocessor."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rt_eeg.tuning as tuning
from rt_eeg.io.annotations import Annotation, Event
from rt_eeg.postprocess import (
    PostprocessConfig,
    complete_decisions,
    decisions_to_events,
    postprocess_scored,
    score_series,
)
from rt_eeg.scored_events import scored_events, sliding_mean, supports
from rt_eeg.scoring.nedc import prepare_events

CH = [f"C{i}" for i in range(8)]


def per_epoch(starts, scores, duration, cfg):
    """What the tuner computed before: the online postprocessor's decisions, then events."""
    recents = np.zeros((len(scores), len(CH)))  # only the scores decide without extent rules
    dec = postprocess_scored(starts, (recents, np.asarray(scores, float)), CH, cfg)
    return decisions_to_events(complete_decisions(dec, duration))


def series(rng, n):
    """A score series the way a saturating decoder gives them: quiet background, bursts near
    the strict thresholds, plateaus exactly at them, long lock-ins, single spikes."""
    s = np.clip(rng.normal(0.05, 0.05, n), 0, 1)
    for _ in range(max(1, n // 150)):
        a = int(rng.integers(0, n))
        b = min(n, a + int(rng.integers(1, 120)))
        kind = rng.integers(0, 4)
        if kind == 0:
            s[a:b] = rng.uniform(0.95, 0.9999, b - a)
        elif kind == 1:
            s[a:b] = rng.choice([0.995, 0.998, 0.4975, 0.99], b - a)
        elif kind == 2:
            s[a:b] = np.linspace(rng.uniform(0, 0.5), rng.uniform(0.9, 1.0), b - a)
        else:
            s[a] = 1.0
    return s


def test_sliding_mean_is_numpys_mean_bit_for_bit(rng):
    for w in (1, 2, 3, 6, 7, 8, 9, 15, 16, 17, 31, 64, 128, 129, 300):
        for x in (rng.random(300), 1 - 10 ** rng.uniform(-9, 0, 300),
                  rng.random(300) * 10 ** rng.uniform(-8, 3, 300), rng.random(5)):  # fmt: skip
            got = sliding_mean(x, w)
            want = np.array([np.mean(x[max(0, i - w + 1) : i + 1]) for i in range(len(x))])
            assert got.tobytes() == want.tobytes(), w
    with pytest.raises(ValueError):
        sliding_mean(np.zeros(3), 0)


configs = st.builds(
    lambda th, ratio, **kw: PostprocessConfig(threshold_on=th, threshold_off=round(th * ratio, 4), **kw),
    st.sampled_from([0.5, 0.9, 0.98, 0.99, 0.995, 0.998, 0.9995]),
    st.sampled_from([0.3, 0.4975 / 0.995, 0.5, 0.8, 0.95, 1.0]),
    onset_epochs=st.integers(1, 6),
    offset_epochs=st.integers(1, 12),
    min_duration_epochs=st.integers(1, 8),
    buffer_epochs=st.integers(2, 12),
    rise_delta=st.sampled_from([0.0, 0.3, 0.6]),
    rise_epochs=st.integers(1, 5),
    cusum_h=st.sampled_from([0.0, 0.0, 0.5, 2.0, 8.0]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs, seed=st.integers(0, 2**31 - 1), n=st.integers(1, 900),
       first=st.sampled_from([0.0, 7.0, 12.0]), cut=st.sampled_from([0.0, -0.5, -3.0, 4.0]))  # fmt: skip
def test_bulk_events_equal_the_per_epoch_postprocessor(cfg, seed, n, first, cut):
    """Random series and configurations, recordings that end inside the last epoch or before
    the decoder's last epochs (complete_decisions' cut) or after them: the same events, their
    confidences included."""
    rng = np.random.default_rng(seed)
    s = series(rng, n)
    starts = first + np.arange(n, dtype=float)
    duration = max(0.5, first + n + cut)
    assert supports(cfg)
    assert scored_events(starts, s, duration, cfg) == per_epoch(starts, s, duration, cfg)


def test_what_the_bulk_path_leaves_to_the_per_epoch_one(rng):
    s = series(rng, 400)
    starts = np.arange(400, dtype=float)
    base = PostprocessConfig(threshold_on=0.99, threshold_off=0.5)
    for cfg in (base.replace(adapt_epochs=120, adapt_quantile=0.9, adapt_min_epochs=30),
                base.replace(early_threshold=0.8), base.replace(min_channels=3, channel_level=0.5),
                base.replace(epoch_s=2.0)):  # fmt: skip
        assert not supports(cfg)
        assert scored_events(starts, s, 400.0, cfg) is None
    assert supports(base)
    assert scored_events(np.r_[starts[:10], starts[11:]], np.r_[s[:10], s[11:]], 400.0, base) is None
    assert scored_events(starts + 0.5, s, 400.0, base) is None  # rounding would skip an epoch
    bad = s.copy()
    bad[7] = np.nan
    assert scored_events(starts, bad, 400.0, base) is None
    assert scored_events(starts[:0], s[:0], 1.0, base) is None


def test_the_tuner_gives_the_same_figures_either_way(rng):
    """ovlp_for over a small corpus, bulk and per epoch: the same figures for the strict grid,
    a gap, an adaptive gate and a recording whose seizure runs to its end included."""
    refs, stored = [], []
    for r in range(4):
        n = 1800
        p = np.clip(rng.normal(0.05, 0.04, (n, len(CH))), 0, 1)
        events = []
        for a in range(300, n - 200, 500):
            p[a : a + 60, :4] = rng.uniform(0.97, 0.9999, (60, 4))
            events.append(Event(float(a), float(a + 60), "seiz"))
        p[1000:1030, :3] = 0.996  # an artifact near the strict thresholds
        starts = np.arange(n, dtype=float)
        if r == 1:  # a gap: no score series, the plain path for both
            starts[900:] += 30
        if r == 2:  # a seizure still running at the end
            p[-40:, :5] = 0.999
            events.append(Event(float(n - 40), float(n), "seiz"))
        dur = float(starts[-1] + 1)
        refs.append(prepare_events(Annotation(None, events, dur)))
        stored.append({"epoch_starts": starts, "probs": p, "ch_names": CH, "duration": dur})
    base = PostprocessConfig()
    grid = [base.replace(threshold_on=th, threshold_off=round(th * off, 4), onset_epochs=o,
                         top_k=k, rise_delta=rise)
            for th in (0.98, 0.995, 0.998) for o in (1, 3, 5) for k in (2, 4) for off in (0.5, 0.95)
            for rise in (0.0, 0.3)] + [base.replace(adapt_epochs=120, adapt_min_epochs=30)]  # fmt: skip
    bulk = [tuning.ovlp_for(c, refs, stored) for c in grid]
    try:
        tuning.BULK_EVENTS = False
        plain = [tuning.ovlp_for(c, refs, stored) for c in grid]
    finally:
        tuning.BULK_EVENTS = True
    assert bulk == plain
    assert any(f["hits"] for f in bulk) and any(f["false_alarms"] for f in bulk)
    # the series the bulk path reads is the one the postprocessor computes
    s = stored[0]
    assert tuning._series(base, s)[1].tobytes() == score_series(
        s["epoch_starts"], s["probs"], CH, base)[1].tobytes()  # fmt: skip


def test_score_series_is_the_online_scores_bit_for_bit(rng):
    """postprocess.score_series computes all epochs at once; every smoothing and top-k, NaN
    channels and a reduced montage included, it equals Postprocessor._score epoch by epoch."""
    from rt_eeg.postprocess import Postprocessor

    p = rng.random((300, len(CH))) * 10 ** rng.uniform(-6, 0, (300, len(CH)))
    p[50:60, 2] = np.nan
    p[100:110] = 0.995  # ties: the stable order decides which channels, not the values
    starts = 3.0 + np.arange(300, dtype=float)
    for smooth in range(1, 9):
        for k in (1, 2, 4, 7, 8):
            cfg = PostprocessConfig(smooth_epochs=smooth, buffer_epochs=8, top_k=k)
            recents, scores = score_series(starts, p, CH, cfg)
            post = Postprocessor(CH, cfg)
            want = [post._score(row) for row in p]
            assert recents.tobytes() == np.array([w[0] for w in want]).tobytes(), (smooth, k)
            assert scores.tobytes() == np.array([w[1] for w in want]).tobytes(), (smooth, k)
    assert score_series(starts[:0], p[:0], CH, PostprocessConfig())[1].shape == (0,)


def test_pairwise_helpers_are_numpys_sum(rng):
    from rt_eeg.pairwise import pairwise_rows, pairwise_sum

    for n in range(1, 129):
        x = rng.random(n) * 10 ** rng.uniform(-8, 3, n)
        assert pairwise_sum(x.tolist()) == np.add.reduce(x), n
        rows = rng.random((n, 5))
        assert pairwise_rows(list(rows)).tobytes() == np.array([np.add.reduce(c) for c in rows.T]).tobytes()
    with pytest.raises(ValueError):
        pairwise_sum([0.0] * 129)
    with pytest.raises(ValueError):
        pairwise_rows([])
