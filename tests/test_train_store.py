"""The training feature store: windows against their source, incomplete stores refused, epoch and
per-channel labels."""

from __future__ import annotations

import numpy as np
import pytest
from train_helpers import N_FEAT, recording

from rt_eeg.decoder import FRAMES_PER_EPOCH, WINDOW_FRAMES
from rt_eeg.errors import RtEegError
from rt_eeg.store import FeatureStore, StoreWriter, channel_labels, epoch_labels_from_intervals

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def test_store_windows_match_source(store_and_recs):
    store, recs = store_and_recs
    assert store.features.shape == (
        sum(r.features.shape[0] * r.features.shape[1] for r in recs),
        N_FEAT,
    )
    rng = np.random.default_rng(0)
    for rows in (store.rows("train"), store.rows("dev")):
        pick = rng.choice(rows, 200, replace=False)
        w, nv, y = store.windows(pick)
        assert w.shape == (200, WINDOW_FRAMES, N_FEAT) and w.dtype == np.float32
        for k, row in enumerate(pick):
            t = np.searchsorted(store.label_offset, row, side="right") - 1
            rec = recs[store.track_recording[t]]
            ch = rec.ch_names.index(store.index["channels"][store.track_channel[t]])
            e = row - store.label_offset[t]
            stop = FRAMES_PER_EPOCH * (e + 1)
            start = max(0, stop - WINDOW_FRAMES)
            np.testing.assert_array_equal(
                w[k, WINDOW_FRAMES - (stop - start) :], rec.features[start:stop, ch]
            )
            assert np.all(w[k, : WINDOW_FRAMES - (stop - start)] == 0)
            assert nv[k] == stop - start
            assert y[k] == rec.labels[e, ch]
    # Every label row is used exactly once across the splits; 437 frames -> 43 epochs.
    n_rows = sum(r.labels.size for r in recs)
    assert len(store.rows("train")) + len(store.rows("dev")) == n_rows == len(store.labels)


def test_store_incomplete_is_refused(tmp_path):
    w = StoreWriter(tmp_path, N_FEAT)
    w.add(recording(np.random.default_rng(1), "a_1.edf", "train"))
    w.abort()
    with pytest.raises(RtEegError, match="not a complete feature store"):
        FeatureStore(tmp_path)


def test_epoch_labels_half_coverage():
    # [2.5, 5.2): epochs 2 (0.5 covered), 3, 4 seiz; 5 (0.2) bckg; overlaps are merged.
    lab = epoch_labels_from_intervals([(2.5, 5.2), (3.0, 4.0), (7.6, 8.1)], 10)
    np.testing.assert_array_equal(lab, [0, 0, 1, 1, 1, 0, 0, 0, 0, 0])


def test_channel_labels_per_channel_csv_and_term(tmp_path):
    from rt_eeg.io.annotations import Event, write_csv, write_csv_bi

    edf = tmp_path / "p_s001_t000.edf"
    edf.write_bytes(b"")  # only its name is used
    chans = ["FP1-F7", "F7-T3", "C3-CZ"]
    write_csv_bi(edf.with_suffix(".csv_bi"), [Event(2.0, 6.0, "seiz")], 10.0)
    term = channel_labels(edf, edf.with_suffix(".csv_bi"), chans, 10)
    np.testing.assert_array_equal(term, np.repeat([[0, 0, 1, 1, 1, 1, 0, 0, 0, 0]], 3, 0).T)
    # A per-channel .csv beside the EDF wins: only F7-T3 (a TUSZ subtype label) is seizure.
    write_csv(
        edf.with_suffix(".csv"),
        [Event(0.0, 10.0, "bckg", channel="FP1-F7"), Event(3.0, 5.0, "fnsz", channel="F7-T3")],
        10.0,
    )
    per = channel_labels(edf, edf.with_suffix(".csv_bi"), chans, 10)
    np.testing.assert_array_equal(per[:, 1], [0, 0, 0, 1, 1, 0, 0, 0, 0, 0])
    assert per[:, [0, 2]].sum() == 0
