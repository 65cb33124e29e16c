"""Tail averaging of weight snapshots (rt_eeg.weight_average)."""

from __future__ import annotations

import numpy as np
import pytest

from rt_eeg.weight_average import TailAverage


def test_mean_of_snapshots_in_float64_back_to_each_dtype():
    rng = np.random.default_rng(0)
    snaps = [[rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=5)] for _ in range(7)]
    avg = TailAverage()
    for s in snaps:
        avg.add(s)
    got = avg.mean()
    assert avg.count == 7 and [g.dtype for g in got] == [np.float32, np.float64]
    for i in range(2):
        expected = np.mean([s[i].astype(np.float64) for s in snaps], axis=0)
        np.testing.assert_array_equal(got[i], expected.astype(snaps[0][i].dtype))
    snaps[0][0][:] = 0  # the first snapshot was copied, not kept by reference
    np.testing.assert_array_equal(avg.mean()[0], got[0])


def test_refuses_mismatched_or_missing_snapshots():
    avg = TailAverage()
    with pytest.raises(ValueError, match="no weights"):
        avg.mean()
    avg.add([np.zeros(2)])
    with pytest.raises(ValueError, match="expected 1 weight arrays"):
        avg.add([np.zeros(2), np.zeros(2)])
