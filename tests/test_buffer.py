"""RingBuffer: wraparound, overflow policies, contiguous read-only views."""

from __future__ import annotations

import numpy as np
import pytest

from rt_eeg.buffer import BufferOverflowError, RingBuffer


def _counter(start: int, n: int, n_channels: int) -> np.ndarray:
    """Samples whose values encode (sample index, channel): easy to check order and loss."""
    idx = np.arange(start, start + n, dtype=np.float32)[:, None]
    return idx * 10 + np.arange(n_channels, dtype=np.float32)


def test_latest_matches_history_across_many_wraps(rng):
    buf = RingBuffer(75, 3, overflow="overwrite")
    written = []
    total = 0
    for _ in range(300):
        n = int(rng.integers(0, 40))
        block = _counter(total, n, 3)
        buf.write(block)
        written.append(block)
        total += n
        history = np.concatenate(written)
        assert buf.count == min(total, 75)
        assert buf.total_written == total
        for m in {0, 1, buf.count // 2, buf.count}:
            view = buf.latest(m)
            np.testing.assert_array_equal(view, history[total - m :])
            assert view.flags.c_contiguous


def test_views_are_zero_copy_and_read_only():
    buf = RingBuffer(8, 2, overflow="overwrite")
    buf.write(_counter(0, 13, 2))  # wrapped: write pointer in the middle of the storage
    view = buf.latest(8)
    assert view.flags.c_contiguous
    assert np.shares_memory(view, buf._data)  # no copy was made
    with pytest.raises(ValueError):
        view[0, 0] = -1.0
    np.testing.assert_array_equal(view[:, 0], np.arange(5, 13) * 10)


def test_block_larger_than_capacity_keeps_the_tail():
    buf = RingBuffer(10, 2, overflow="overwrite")
    buf.write(_counter(0, 4, 2))
    buf.write(_counter(4, 23, 2))
    np.testing.assert_array_equal(buf.latest(10), _counter(17, 10, 2))
    assert buf.total_written == 27
    assert buf.n_dropped == 17


def test_single_sample_write_accepts_1d():
    buf = RingBuffer(3, 4, overflow="overwrite")
    for i in range(5):
        buf.write(_counter(i, 1, 4)[0])
    np.testing.assert_array_equal(buf.latest(3), _counter(2, 3, 4))


def test_error_policy_refuses_to_drop_unread_samples():
    buf = RingBuffer(10, 2, overflow="error")
    buf.write(_counter(0, 7, 2))
    with pytest.raises(BufferOverflowError, match="drop 2 unread"):
        buf.write(_counter(7, 5, 2))
    # Nothing was written by the refused call.
    assert buf.count == 7 and buf.total_written == 7
    np.testing.assert_array_equal(buf.latest(7), _counter(0, 7, 2))
    # Reading makes room; FIFO order survives the wraparound.
    np.testing.assert_array_equal(buf.read(4), _counter(0, 4, 2))
    buf.write(_counter(7, 5, 2))
    assert buf.count == 8 and buf.free == 2
    got = buf.read(8)
    assert got.flags.c_contiguous
    np.testing.assert_array_equal(got, _counter(4, 8, 2))
    assert buf.count == 0 and buf.n_dropped == 0


def test_error_policy_streaming_fifo_never_loses_or_reorders(rng):
    buf = RingBuffer(32, 2, overflow="error")
    produced = consumed = 0
    out = []
    for _ in range(500):
        n = int(rng.integers(0, 12))
        if n <= buf.free:
            buf.write(_counter(produced, n, 2))
            produced += n
        else:
            with pytest.raises(BufferOverflowError):
                buf.write(_counter(produced, n, 2))
        m = int(rng.integers(0, buf.count + 1))
        out.append(buf.read(m).copy())
        consumed += m
    np.testing.assert_array_equal(np.concatenate(out), _counter(0, consumed, 2))


def test_overwrite_counts_dropped_unread_samples():
    buf = RingBuffer(5, 1, overflow="overwrite")
    buf.write(np.zeros((4, 1), np.float32))
    buf.read(2)
    buf.write(np.ones((6, 1), np.float32))  # 2 held + 6 new: 3 held/new ones are lost
    assert buf.count == 5
    assert buf.n_dropped == 3


def test_bad_arguments():
    with pytest.raises(ValueError, match="overflow"):
        RingBuffer(4, 2, overflow="drop")
    with pytest.raises(ValueError, match="capacity"):
        RingBuffer(0, 2)
    buf = RingBuffer(4, 2, overflow="overwrite")
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        buf.write(np.zeros((3, 3), np.float32))
    buf.write(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match="2 are held"):
        buf.latest(3)
    with pytest.raises(ValueError, match="2 are held"):
        buf.read(3)
    buf.clear()
    assert buf.count == 0 and buf.total_written == 0
