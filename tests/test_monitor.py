"""The monitor: state model, rendering (pixel colours), staleness, feed robustness.

Qt runs offscreen; one QApplication serves the whole session. Time is driven by an injected
clock, never by sleeping.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from monitor_helpers import (
    SFREQ,
    FakeClock,
    between_channels,
    eeg,
    is_green,
    is_grey,
    is_red,
    median_colour,
    pixel,
    pyqtgraph_or_skip,
)

from rt_eeg.io.annotations import HypEpoch, write_hyp
from rt_eeg.monitor.model import (
    BCKG,
    NA,
    SEIZ,
    DecisionStore,
    SignalHistory,
    channel_flags,
    format_time,
    label_code,
)
from rt_eeg.montage import TCP_22

pg = pyqtgraph_or_skip()
zmq = pytest.importorskip("zmq")


# --------------------------------------------------------------------------------------------
# Qt-free state


def test_signal_history_wraps_and_fills_gaps_with_nan(rng):
    hist = SignalHistory(3, SFREQ, capacity_s=1.0)  # 250 samples
    data = rng.normal(size=(1000, 3)).astype(np.float32)
    for k in range(0, 400, 25):
        assert hist.write(k / SFREQ, data[k : k + 25])
    out = np.empty((250, 3), np.float32)
    hist.read_into(150, out)  # oldest held sample is 400 - 250
    np.testing.assert_array_equal(out, data[150:400])
    # A dropped frame (400..425 never arrives) reads back as NaN, not as a bridge.
    hist.write(425 / SFREQ, data[425:450])
    hist.read_into(375, out[:75])
    np.testing.assert_array_equal(out[:25], data[375:400])
    assert np.isnan(out[25:50]).all()
    np.testing.assert_array_equal(out[50:75], data[425:450])
    assert hist.n_gap_samples == 25
    # Reads outside what is held are NaN.
    hist.read_into(0, out[:10])
    assert np.isnan(out[:10]).all()
    # A frame older than the whole history is refused.
    assert not hist.write(0.0, data[:25])


def test_decision_segments_mark_undecided_signal_as_not_analysed():
    store = DecisionStore()
    store.add(0, 1, "bckg", 0.9, [])
    store.add(1, 2, "bckg", 0.8, [])
    store.add(2, 3, "fnsz", 0.7, ["T3-T5"])  # subtype maps to SEIZ
    store.add(3, 4, "seiz", 0.9, ["T3-T5", "F7-T3"])
    store.add(4, 5, "na", 0.0, [])
    store.add(6, 7, "bckg", 0.9, [])
    segs = store.segments(0.5, 8.0, cover0=0.0, cover1=7.5)
    assert segs == [
        (0.5, 2.0, BCKG),  # the two BCKG epochs merged: no seam
        (2.0, 4.0, SEIZ),
        (4.0, 6.0, NA),  # 'na' decision, then no decision at all
        (6.0, 7.0, BCKG),
        (7.0, 7.5, NA),  # signal without a decision yet
    ]
    assert len(store.events) == 1
    ev = store.events[0]
    assert (ev.onset, ev.stop) == (2.0, 4.0)
    assert ev.confidence == pytest.approx(0.8)
    assert ev.channels(list(TCP_22)) == ["T3-T5", "F7-T3"]
    # Out-of-order arrival is merged into the same event.
    store.add(5, 6, "seiz", 0.5, [])
    assert [(e.onset, e.stop) for e in store.events] == [(2.0, 4.0), (5.0, 6.0)]
    assert store.segments(4.0, 7.0, 0.0, 7.0) == [
        (4.0, 5.0, NA),
        (5.0, 6.0, SEIZ),
        (6.0, 7.0, BCKG),
    ]
    with pytest.raises(ValueError):
        label_code("artifact")
    with pytest.raises(ValueError):
        store.add(8, 9, "seiz", 1.5, [])


def test_channel_flags_flat_and_railed(rng):
    block = rng.normal(0, 20, (250, 4)).astype(np.float32)
    block[:, 1] = 3.0 + rng.normal(0, 0.05, 250)  # flat: < 1 uV peak-to-peak
    block[:, 2] = 3200.0  # railed at full scale
    block[:, 3] = np.nan  # nothing received: not judged
    assert channel_flags(block) == ["", "FLAT", "RAIL", ""]


def test_format_time():
    assert format_time(133.04) == "02:13.0"
    assert format_time(3725.0) == "1:02:05.0"
    assert format_time(59.96) == "01:00.0"
    assert format_time(5.0, decimals=0) == "00:05"


# --------------------------------------------------------------------------------------------
# rendering


def test_review_window_colours_decisions(qapp, rng, tmp_path):
    from rt_eeg.io.annotations import read_hyp
    from rt_eeg.monitor.window import MonitorWindow

    ch = list(TCP_22)
    data = eeg(int(30 * SFREQ), len(ch), rng)
    labels = ["bckg"] * 8 + ["seiz"] * 6 + ["na"] * 3 + ["bckg"] * 13
    epochs = [
        HypEpoch(float(k), k + 1.0, lab, 0.0 if lab == "na" else 0.9)
        for k, lab in enumerate(labels)
    ]
    hyp = tmp_path / "rec.hyp"
    write_hyp(hyp, epochs, 30.0)
    read, _ = read_hyp(hyp)

    win = MonitorWindow(ch, SFREQ, live=False, window_s=20.0, uv_per_div=100.0)
    win.set_signal(data)
    win.set_decisions(read)
    win.scroll_to(0.0)
    img = win.grab_image()
    assert win.state == "review"
    strip = [win.strip_center_y + 0.3]  # above the strip's text
    bg = between_channels(win)

    assert is_green(median_colour(win, img, 1.0, 7.0, strip))
    assert is_red(median_colour(win, img, 9.0, 13.0, strip))
    assert is_grey(median_colour(win, img, 14.2, 16.8, strip))
    assert is_green(median_colour(win, img, 1.0, 7.0, bg))
    assert is_red(median_colour(win, img, 9.0, 13.0, bg))
    assert is_grey(median_colour(win, img, 14.2, 16.8, bg))
    # The traces are drawn (dark pixels on channel baselines inside the SEIZ span).
    dark = [
        pixel(img, win.data_to_pixel(t, win.channel_y(i)))
        for t in np.linspace(9, 13, 200)
        for i in range(0, 22, 5)
    ]
    assert sum(max(p) < 100 for p in dark) > 20
    assert "Seizure detected" in win.alert_banner_text
    assert "00:08.0" in win.alert_banner_text
    assert win.event_rows[0][:3] == ["00:08.0", "6 s", "0.90"]
    # Paging moves the view; Home goes back to the start.
    from pyqtgraph.Qt import QtCore, QtTest

    QtTest.QTest.keyClick(win, QtCore.Qt.Key.Key_PageDown)
    assert win.view_range()[0] == pytest.approx(10.0)  # clamped: file ends at 30 s
    QtTest.QTest.keyClick(win, QtCore.Qt.Key.Key_Home)
    assert win.view_range()[0] == pytest.approx(0.0)
    QtTest.QTest.keyClick(win, QtCore.Qt.Key.Key_Plus)
    assert win.uv_per_div < 100.0
    win.close()


def test_live_window_goes_stale_then_recovers_and_ends(qapp, rng):
    from rt_eeg.monitor.window import MonitorWindow

    ch = list(TCP_22)
    clock = FakeClock()
    win = MonitorWindow(ch, SFREQ, clock=clock, window_s=10.0)
    assert win.state == "waiting" and "NO DATA" in win.stale_banner_text
    data = eeg(int(12 * SFREQ), len(ch), rng)
    for k in range(120):  # 12 s of frames at 10 per second
        win.push_signal(k / 10, data[k * 25 : (k + 1) * 25])
        if k % 10 == 9 and k >= 19:
            win.push_decision(k / 10 - 1.9, k / 10 - 0.9, "bckg", 0.95, [])
        clock.t += 0.1
        win.tick()
    assert win.state == "live" and win.stale_banner_text == ""
    img = win.grab_image()
    bg = between_channels(win)
    assert is_green(median_colour(win, img, 6.0, 9.0, bg))

    clock.t += 0.9  # still within the 1 s allowance
    win.tick()
    assert win.state == "live"
    clock.t += 0.5  # now 1.4 s without a frame
    win.tick()
    assert win.state == "stale"
    assert "NO DATA" in win.stale_banner_text and "STALE" in win.stale_banner_text
    img = win.grab_image()
    # No reassuring green once data stopped: the same background is now grey.
    colour = median_colour(win, img, 6.0, 9.0, bg)
    assert not is_green(colour) and is_grey(colour)
    # Traces greyed.
    assert all(c.opts["pen"].color().red() > 150 for c in win.curves)

    win.push_signal(12.0, data[:25])
    win.tick()
    assert win.state == "live" and win.stale_banner_text == ""
    win.mark_eos()
    clock.t += 30.0
    win.tick()
    assert win.state == "eos" and win.stale_banner_text == ""
    win.close()


def test_state_badge_shows_its_whole_text_in_every_state(qapp, rng):
    """A shown window that goes from LIVE to END OF STREAM and is grabbed at once (the headless
    run's last screenshot): the badge was laid out for LIVE and cut its text to "ID OF STREA"."""
    from pyqtgraph.Qt import QtWidgets

    from rt_eeg.monitor.panels import _STATE_STYLE
    from rt_eeg.monitor.window import MonitorWindow

    ch = list(TCP_22)
    win = MonitorWindow(ch, SFREQ, clock=FakeClock(), window_s=10.0)
    win.show()
    QtWidgets.QApplication.processEvents()
    win.push_signal(0.0, eeg(25, len(ch), rng))
    win.tick()
    win.grab_image()
    QtWidgets.QApplication.processEvents()
    label = win._state_label
    assert win.state == "live" and label.text() == "LIVE"
    width = label.width()
    win.mark_eos()
    win.tick()
    win.grab_image()  # no event loop turn in between
    assert label.text() == "END OF STREAM"
    widest = max(label.fontMetrics().horizontalAdvance(t) for t, _ in _STATE_STYLE.values())
    assert label.contentsRect().width() >= widest
    assert label.width() == width  # sized once: the top bar does not jump when the state changes
    win.close()


def test_live_seizure_banner_and_event_list(qapp, rng):
    from rt_eeg.monitor.window import MonitorWindow

    ch = list(TCP_22)
    clock = FakeClock()
    win = MonitorWindow(ch, SFREQ, clock=clock, window_s=10.0)
    data = eeg(int(20 * SFREQ), len(ch), rng)
    for k in range(200):
        win.push_signal(k / 10, data[k * 25 : (k + 1) * 25])
        clock.t += 0.1
    for s in range(18):
        lab = "seiz" if s >= 12 else "bckg"
        win.push_decision(s, s + 1, lab, 0.8 if lab == "seiz" else 0.9, ["T3-T5", "F7-T3"])
    win.tick()
    assert "SEIZURE DETECTED" in win.alert_banner_text
    assert "00:12.0" in win.alert_banner_text and "T3-T5" in win.alert_banner_text
    # Equal counts: montage order (F7-T3 comes before T3-T5).
    assert win.event_rows == [["00:12.0", "6 s (ongoing)", "0.80", "F7-T3, T3-T5"]]
    win.push_decision(18, 19, "bckg", 0.9, [])
    win.tick()
    assert "ended" in win.alert_banner_text
    assert win.event_rows[0][1] == "6 s"
    # Pause freezes the view while frames keep arriving; End returns to the live edge.
    from pyqtgraph.Qt import QtCore, QtTest

    QtTest.QTest.keyClick(win, QtCore.Qt.Key.Key_Space)
    frozen = win.view_range()
    assert win.state == "paused"
    win.push_signal(20.0, data[:25])
    clock.t += 0.1
    win.tick()
    assert win.view_range() == frozen
    QtTest.QTest.keyClick(win, QtCore.Qt.Key.Key_Left)
    assert win.view_range()[0] == pytest.approx(frozen[0] - 1.0)
    QtTest.QTest.keyClick(win, QtCore.Qt.Key.Key_End)
    assert win.following and win.view_range()[1] == pytest.approx(20.1, abs=0.3)
    win.close()


def test_flat_and_railed_channels_are_marked(qapp, rng):
    from rt_eeg.monitor.window import MonitorWindow

    ch = list(TCP_22)
    clock = FakeClock()
    win = MonitorWindow(ch, SFREQ, clock=clock)
    data = eeg(int(3 * SFREQ), len(ch), rng)
    data[:, 3] = 0.0  # T5-O1 disconnected
    data[:, 7] = -3276.0  # T6-O2 saturated
    for k in range(30):
        win.push_signal(k / 10, data[k * 25 : (k + 1) * 25])
        clock.t += 0.1
        win.tick()
    assert win.flags[3] == "FLAT" and win.flags[7] == "RAIL"
    assert sum(bool(f) for f in win.flags) == 2
    assert "FLAT  T5-O1" in win._chan_axis.text_colours
    assert win.curves[3].opts["pen"].color().red() > 150  # drawn in the warning colour
    win.close()


def test_signal_path_never_rolls_the_buffer(qapp, rng, monkeypatch):
    from rt_eeg.monitor.window import MonitorWindow

    def forbidden(*a, **k):
        raise AssertionError("np.roll called on the display path")

    monkeypatch.setattr(np, "roll", forbidden)
    clock = FakeClock()
    win = MonitorWindow(list(TCP_22), SFREQ, clock=clock, history_s=5.0)
    data = eeg(int(12 * SFREQ), 22, rng)
    for k in range(120):  # wraps the 5 s history twice
        win.push_signal(k / 10, data[k * 25 : (k + 1) * 25])
        clock.t += 0.1
        win.tick()
    out = np.empty((250, 22), np.float32)
    win.signal.read_into(int(11 * SFREQ), out)
    np.testing.assert_array_equal(out, data[int(11 * SFREQ) : int(12 * SFREQ)])
    win.close()


# --------------------------------------------------------------------------------------------
# feed


def _wait_for(predicate, feed, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the feed")
        feed.sockets[0].poll(20)
        feed.poll()


def test_feed_counts_malformed_messages_and_keeps_going(qapp, rng, tmp_path):
    from rt_eeg.monitor.feed import MonitorFeed
    from rt_eeg.monitor.window import MonitorWindow
    from rt_eeg.pipeline.messages import encode

    ch = list(TCP_22)
    ctx = zmq.Context()
    endpoint = f"ipc://{tmp_path}/display"
    pub = ctx.socket(zmq.PUB)
    pub.setsockopt(zmq.LINGER, 0)
    pub.bind(endpoint)
    win = MonitorWindow([], SFREQ, clock=FakeClock())  # channels come from the stream
    feed = MonitorFeed(endpoint, win, context=ctx)
    data = eeg(int(2 * SFREQ), len(ch), rng)

    def frame(seq: int, t0: float, block=None) -> list[bytes]:
        h = {
            "kind": "data",
            "stream": "source",
            "seq": seq,
            "t0": t0,
            "sfreq": SFREQ,
            "ch_names": ch,
            "t_emit": time.time(),
        }
        return encode("signal", h, data[:25] if block is None else block)

    try:
        # Slow joiner: repeat the first frame until the subscription is in place.
        deadline = time.monotonic() + 5
        while feed.n_signal == 0:
            assert time.monotonic() < deadline, "subscriber never connected"
            pub.send_multipart(frame(0, 0.0))
            feed.sockets[0].poll(50)
            feed.poll()
        assert win.ch_names == ch
        bad = [
            [b"signal", b"{not json", b""],
            [b"signal"],
            encode(
                "decision",
                {
                    "kind": "data",
                    "stream": "post",
                    "seq": 0,
                    "t0": 0.0,
                    "start": 0.0,
                    "stop": 1.0,
                    "label": "maybe",
                    "confidence": 0.5,
                    "channels": [],
                },
                np.zeros(22, np.float32),
            ),
            frame(1, 0.1, np.zeros((25, 5), np.float32)),  # 5 columns for 22 names
        ]
        for parts in bad:
            pub.send_multipart(parts)
        pub.send_multipart(frame(2, 0.2))
        pub.send_multipart(frame(6, 0.6))  # seq 3..5 lost on the way
        _wait_for(lambda: win.signal.t_end >= 0.7 - 1e-9, feed)  # frame 6 is in
        assert feed.n_malformed == 4
        assert feed.n_dropped == 3
        assert "malformed 4" in feed.status_text()
        # The window still works: the decision after the bad ones is shown.
        pub.send_multipart(
            encode(
                "decision",
                {
                    "kind": "data",
                    "stream": "post",
                    "seq": 1,
                    "t0": 0.0,
                    "start": 0.0,
                    "stop": 1.0,
                    "label": "seiz",
                    "confidence": 0.7,
                    "channels": ["T3-T5"],
                },
                np.zeros(22, np.float32),
            )
        )
        _wait_for(lambda: feed.n_decision == 1, feed)
        assert len(win.decisions.events) == 1
        # Frames 1 (malformed) and 3-5 (lost) are a gap of 0.4 s, drawn as such, not bridged.
        assert win.signal.n_gap_samples == 100
        pub.send_multipart(encode("signal", {"kind": "eos", "stream": "source", "seq": 7}))
        _wait_for(lambda: "signal" in feed.eos_topics, feed)
        win.tick()
        assert win.state == "eos"
    finally:
        feed.close()
        pub.close(linger=0)
        ctx.term()
        win.close()
