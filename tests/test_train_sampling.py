"""Training draws: onset weighting, seizure balance, balanced orders, hard-negative mining and
source balancing."""

from __future__ import annotations

import numpy as np
import pytest

from rt_eeg.dev_metrics import dev_scores, roc_auc
from rt_eeg.errors import RtEegError
from rt_eeg.store import FeatureStore, RecordingFeatures, StoreWriter
from rt_eeg.train_config import TrainConfig
from rt_eeg.train_data import balanced_order

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def test_onset_weighting_draws_onsets_more_often(tmp_path):
    """Onset ranks come from the label runs of each track, and weighted balanced orders draw
    the first seconds of a seizure in proportion to the weight."""

    labels = np.zeros((40, 2), np.uint8)
    labels[10:30, 0] = 1  # a 20 s seizure on channel 0
    labels[35:40, 1] = 1  # and a 5 s one on channel 1
    feats = np.random.default_rng(0).normal(size=(400, 2, 26)).astype(np.float32)
    with StoreWriter(tmp_path / "s", 26) as w:
        w.add(RecordingFeatures("r", "train", "p", ["A-B", "C-D"], feats, labels))
    store = FeatureStore(tmp_path / "s")
    pos = np.flatnonzero(np.asarray(store.labels) == 1)
    rank = store.onset_rank(pos)
    assert rank.tolist() == list(range(20)) + list(range(5))
    weight = np.where(rank < 5, 4.0, 1.0)
    neg = np.arange(10**6, 10**6 + 5000)  # enough background rows for 2000 seizure draws
    order = balanced_order(np.random.default_rng(1), pos, neg, 4000, weight)
    drawn = order[np.isin(order, pos)]
    onset_share = np.isin(drawn, pos[rank < 5]).mean()
    # 10 onset rows of weight 4 against 15 later rows of weight 1: 40 / 55 of the draws
    assert onset_share == pytest.approx(40 / 55, abs=0.04)
    # store centres: background-only recording -> the gate never rejects; seizure epochs do
    assert store.centers(np.arange(store.labels.shape[0])).shape == (80, 26)


def test_seizure_balance_draws_short_seizures_as_often_as_long_ones(tmp_path):
    """Run lengths come from each track's label runs (a run never crosses into the next
    track); with seizure balance 1 a 4 s seizure is drawn as often in total as a 24 s one,
    and it still multiplies the onset weight."""
    from rt_eeg.train_data import seizure_weights

    labels = np.zeros((40, 2), np.uint8)
    labels[6:30, 0] = 1  # a 24 s seizure on channel 0
    labels[36:40, 0] = 1  # a 4 s one at the end of channel 0's track
    labels[0:4, 1] = 1  # channel 1's track opens with one: a separate run of 4
    feats = np.random.default_rng(0).normal(size=(400, 2, 26)).astype(np.float32)
    with StoreWriter(tmp_path / "s", 26) as w:
        w.add(RecordingFeatures("r", "train", "p", ["A-B", "C-D"], feats, labels))
    store = FeatureStore(tmp_path / "s")
    pos = np.flatnonzero(np.asarray(store.labels) == 1)
    assert store.run_length(pos).tolist() == [24] * 24 + [4] * 8
    assert store.onset_rank(pos).tolist() == list(range(24)) + list(range(4)) * 2

    assert seizure_weights(store, pos, TrainConfig()) is None  # the default: uniform draws
    weight = seizure_weights(store, pos, TrainConfig(seizure_balance=1.0))
    neg = np.arange(10**6, 10**6 + 6000)
    order = balanced_order(np.random.default_rng(1), pos, neg, 6000, weight)
    drawn = order[np.isin(order, pos)]
    long_share = np.isin(drawn, pos[:24]).mean()
    assert long_share == pytest.approx(1 / 3, abs=0.03)  # three runs, each a third
    half = seizure_weights(store, pos, TrainConfig(seizure_balance=0.5))
    np.testing.assert_allclose(half * np.sqrt(store.run_length(pos)), 1.0)
    both = seizure_weights(
        store, pos, TrainConfig(seizure_balance=1.0, onset_weight=3.0, onset_epochs=2)
    )
    np.testing.assert_allclose(both, weight * np.where(store.onset_rank(pos) < 2, 3.0, 1.0))
    with pytest.raises(RtEegError, match="seizure_balance"):
        TrainConfig(seizure_balance=1.5)


def test_balanced_order_and_scores():
    rng = np.random.default_rng(0)
    pos, neg = np.arange(10), np.arange(100, 1000)
    order = balanced_order(rng, pos, neg, 64)
    assert len(order) == 64 and np.isin(order, pos).sum() == 32
    assert len(np.unique(order[np.isin(order, neg)])) == 32  # background without replacement
    assert np.bincount(order[np.isin(order, pos)]).min() >= 3  # every seizure row repeated
    y = np.array([0, 0, 1, 1])
    assert roc_auc(y, np.array([0.1, 0.4, 0.35, 0.8])) == pytest.approx(0.75)
    s = dev_scores(y, np.array([0.1, 0.4, 0.35, 0.8]))
    assert s["sensitivity"] == 0.5 and s["specificity"] == 1.0


# --------------------------------------------------------------------------- hard negatives


def test_minable_negatives_keep_away_from_seizures(store_and_recs):
    """Mining never draws background within the margin of a seizure of the same recording,
    on any channel (the labels there are the least certain), and draws all the rest."""
    from rt_eeg.hard_negatives import minable_negatives

    store, _ = store_and_recs
    rows = store.rows("train")
    neg = rows[np.asarray(store.labels[rows]) == 0]
    minable = minable_negatives(store, neg, margin_epochs=5)
    assert 0 < minable.size < neg.size
    track = np.searchsorted(store.label_offset, minable, side="right") - 1
    epoch = minable - store.label_offset[track]
    lab = np.asarray(store.labels, bool)
    for t, e in zip(track, epoch, strict=True):
        rec_tracks = np.flatnonzero(store.track_recording == store.track_recording[t])
        near = [
            lab[store.label_offset[u] + max(0, e - 5) : store.label_offset[u] + e + 6].any()
            for u in rec_tracks
        ]
        assert not any(near)
    # Channels 3-4 carry no seizure label, yet their epochs during the seizure are excluded.
    assert np.setdiff1d(neg, minable).size > 2 * 5 * len(store.index["recordings"])
    wider = minable_negatives(store, neg, margin_epochs=0)
    assert np.all(np.isin(minable, wider)) and wider.size > minable.size


def test_mine_order_takes_the_hardest_background():
    from rt_eeg.hard_negatives import mine_order

    rng = np.random.default_rng(3)
    order = np.concatenate([np.arange(100, 150), np.arange(1000, 1050)])
    labels = np.concatenate([np.ones(50), np.zeros(50)])
    minable = np.arange(2000, 3000)
    seen = []

    def score(rows):  # a model that finds the highest-numbered rows hardest
        seen.append(np.array(rows))
        return rows / 3000.0

    new, info = mine_order(order, labels, rng, minable, 0.5, 4, score)
    assert info["mined"] == 25 and info["candidates"] == 100
    assert sorted(new.tolist()) != sorted(order.tolist()) and new.size == order.size
    mined = np.setdiff1d(new, order)
    assert mined.size == 25 and np.all(np.isin(mined, minable))
    # The kept candidates are the top quarter of the scored pool.
    (pool,) = seen
    np.testing.assert_array_equal(np.sort(mined), np.sort(pool)[-25:])
    assert info["score_min"] == pytest.approx(np.sort(pool)[-25] / 3000.0, abs=1e-6)
    assert np.all(np.isin(np.arange(100, 150), new))  # seizure rows untouched
    assert np.isin(np.arange(1000, 1050), new).sum() == 25


def test_mine_order_balanced_between_sources():
    """With sources, the candidate pool is split equally between them however unequal their
    background, and the hardest are kept over the whole pool."""
    from rt_eeg.hard_negatives import mine_order

    rng = np.random.default_rng(4)
    order = np.concatenate([np.arange(100, 150), np.arange(1000, 1050)])
    labels = np.concatenate([np.ones(50), np.zeros(50)])
    minable = np.arange(2000, 3000)
    source = np.where(minable < 2900, 3, 7)  # 900 rows of one source, 100 of the other
    seen = []

    def score(rows):  # the small source's background is the hardest
        seen.append(np.array(rows))
        return np.where(rows >= 2900, 0.9, 0.1) + rows / 1e6

    new, info = mine_order(order, labels, rng, minable, 0.5, 4, score, source)
    (pool,) = seen
    assert info["candidates"] == 100 and (pool >= 2900).sum() == 50  # half the pool each
    assert np.unique(pool).size == 100
    assert info["mined"] == 25 and info["mined_per_source"] == [0, 25]
    assert np.all(np.setdiff1d(new, order) >= 2900)
    # In proportion, the small source would be a tenth of the pool: a pool too large for the
    # small source's share is capped, never drawn twice.
    _, info = mine_order(order, labels, rng, minable, 1.0, 8, score, source)
    assert info["candidates"] == 200 and info["mined"] == 25


def test_source_balanced_order_splits_each_half_equally():
    """With sources, each half is split equally between them whatever their sizes; a small
    source repeats its rows; the draw is seeded; a weighted seizure half stays per source."""
    from rt_eeg.train_data import source_balanced_half

    pos = np.arange(100)
    pos_src = np.r_[np.zeros(90, int), np.ones(7, int), np.full(3, 2)]  # 90 / 7 / 3 rows
    neg = np.arange(1000, 4000)
    neg_src = np.r_[np.zeros(2500, int), np.ones(400, int), np.full(100, 2)]
    order = balanced_order(np.random.default_rng(5), pos, neg, 600, sources=(pos_src, neg_src))
    again = balanced_order(np.random.default_rng(5), pos, neg, 600, sources=(pos_src, neg_src))
    np.testing.assert_array_equal(order, again)
    drawn_pos, drawn_neg = order[order < 1000], order[order >= 1000]
    assert len(drawn_pos) == len(drawn_neg) == 300
    assert np.bincount(pos_src[drawn_pos]).tolist() == [100, 100, 100]
    assert np.bincount(neg_src[drawn_neg - 1000]).tolist() == [100, 100, 100]
    # source 2 has 3 seizure rows for 100 draws: each repeated 33-34 times
    assert np.bincount(drawn_pos[pos_src[drawn_pos] == 2]).max() == 34
    # unbalanced, the 90-row source would take ~90 % of the seizure half
    plain = balanced_order(np.random.default_rng(5), pos, neg, 600)
    assert (pos_src[plain[plain < 1000]] == 0).mean() > 0.85
    # the seizure half only (--balance-halves seizure): background in proportion (2500 of 3000)
    seiz_only = balanced_order(np.random.default_rng(5), pos, neg, 600, sources=(pos_src, None))
    sp, sn = seiz_only[seiz_only < 1000], seiz_only[seiz_only >= 1000]
    assert np.bincount(pos_src[sp]).tolist() == [100, 100, 100]
    assert 0.75 < (neg_src[sn - 1000] == 0).mean() < 0.92 and np.unique(sn).size == 300
    # onset weights act within a source: only weighted rows of source 0 are drawn
    w = np.where(pos < 10, 1.0, 0.0) + (pos_src > 0)
    half = source_balanced_half(np.random.default_rng(0), pos, pos_src, 90, w)
    assert set(half[pos_src[half] == 0].tolist()) <= set(range(10))


def test_group_dro_shares_follow_the_losses_with_a_floor():
    """The DRO step moves share to the sources with the higher loss, leaves equal losses (or
    eta 0) where they were, keeps every share at or above half an equal one and sums to 1; the
    draws of a half follow the shares exactly (largest remainders), equal shares as before."""
    from rt_eeg.train_data import dro_shares, equal_shares, source_balanced_half, weighted_shares

    q = np.full(4, 0.25)
    np.testing.assert_allclose(dro_shares(q, np.full(4, 0.7), 3.0), q)
    np.testing.assert_allclose(dro_shares(q, np.array([0.1, 0.2, 0.3, 0.9]), 0.0), q)
    step = dro_shares(q, np.array([0.2, 0.3, 0.3, 0.6]), 2.0)
    assert step[3] > step[1] == step[2] > step[0] and step.sum() == pytest.approx(1.0)
    assert step[3] / step[0] == pytest.approx(np.exp(2.0 * 0.4))
    # a large step: the worst source takes what the floor (0.125 each) leaves
    big = dro_shares(q, np.array([0.1, 0.2, 0.3, 5.0]), 20.0)
    np.testing.assert_allclose(big, [0.125, 0.125, 0.125, 0.625])
    # repeated steps compound (online group DRO), never below the floor
    q2 = q
    for _ in range(5):
        q2 = dro_shares(q2, np.array([0.2, 0.25, 0.3, 0.35]), 1.0)
    assert np.all(np.diff(q2) > 0) and q2.min() >= 0.125 - 1e-12
    for k, f in ((10, [0.1, 0.2, 0.7]), (7, [1.0, 1.0, 1.0]), (1000, [0.125, 0.125, 0.125, 0.625])):
        share = weighted_shares(k, np.asarray(f))
        assert share.sum() == k and np.all(np.abs(share - k * np.asarray(f) / sum(f)) < 1)
    np.testing.assert_array_equal(weighted_shares(7, np.ones(3)), equal_shares(7, 3))
    rows = np.arange(300)
    src = np.repeat([0, 1, 2], 100)
    half = source_balanced_half(np.random.default_rng(0), rows, src, 200, shares=[0.2, 0.2, 0.6])
    assert np.bincount(src[half]).tolist() == [40, 40, 120]
    # shares are indexed by source and renormalised over the sources present
    part = source_balanced_half(
        np.random.default_rng(0), rows[100:], src[100:], 90, shares=[0.5, 0.1, 0.2]
    )
    assert np.bincount(src[part], minlength=3).tolist() == [0, 30, 60]
