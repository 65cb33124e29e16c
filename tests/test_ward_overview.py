"""The ward overview: tiles and banner rendered offscreen from a fake status publisher on
loopback (pixels checked), Acknowledge sent to a fake control server, the no-connection
state, a click on a tile, the grid for 32 beds, and the ``ward overview`` entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from monitor_helpers import FakeClock, pyqtgraph_or_skip

from rt_eeg.ward.demo import demo_ward
from rt_eeg.ward.overview_model import (
    BCKG_RGB,
    DISCONNECTED_RGB,
    SEIZ_RGB,
    STALE_RGB,
    grid_shape,
    monitor_argv,
    tile_view,
)
from rt_eeg.ward.status import encode_status

pg = pyqtgraph_or_skip()
zmq = pytest.importorskip("zmq")

from rt_eeg.ward.overview import WardOverview  # noqa: E402
from rt_eeg.ward.overview_feed import WardFeed  # noqa: E402

pytestmark = pytest.mark.timeout(60)
ROOT = Path(__file__).resolve().parents[1]
WALL = 1_763_906_400.0
BANNER_RGB = (215, 25, 28)


@pytest.fixture
def ctx():
    c = zmq.Context()
    yield c
    c.destroy(linger=0)


@pytest.fixture
def publisher(ctx):
    pub = ctx.socket(zmq.PUB)
    port = pub.bind_to_random_port("tcp://127.0.0.1")
    yield pub, f"tcp://127.0.0.1:{port}"
    pub.close(linger=0)


def dominant(img, rect) -> tuple[int, int, int]:
    """Most common colour inside ``rect`` (the tile's background, whatever the text)."""
    seen = Counter()
    for x in range(rect.left() + 8, rect.right() - 8, 5):
        for y in range(rect.top() + 8, rect.bottom() - 8, 5):
            c = img.pixelColor(x, y)
            seen[(c.red(), c.green(), c.blue())] += 1
    return seen.most_common(1)[0][0]


def close_to(rgb, want, tol: int = 12) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(rgb, want, strict=True))


def deliver(pub, feed, win, frames, *, until=lambda: True, timeout_s: float = 5.0) -> None:
    """Publish ``frames`` until the window has a status and ``until()`` holds (a SUB socket
    joins a PUB some time after connecting: keep sending, never sleep blindly)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pub.send_multipart(frames)
        if feed.sock.poll(50):
            win.tick()
            if win.header is not None and until():
                return
    raise AssertionError("the overview never got the status")


def status(n_beds: int, seiz=(4,), seq: int = 0, acked: str | None = None, others=("BCKG",)):
    beds, alarms, traces = demo_ward(n_beds, seizure_beds=seiz, wall=WALL, others=others)
    for a in alarms:
        if acked:
            a.update(acknowledged_by=acked, acknowledged_at=WALL + 1)
    return encode_status(seq, WALL, beds, alarms, traces)


def make_window(qapp, mono=None, **kw):
    win = WardOverview(clock=lambda: WALL + 5, monotonic=mono or time.monotonic, **kw)
    win.resize(1600, 900)
    win.show()
    qapp.processEvents()
    return win


def test_overview_renders_a_seizure_red_the_others_green_with_the_banner(qapp, ctx, publisher):
    pub, ep = publisher
    win = make_window(qapp)
    feed = WardFeed(ep, None, win, context=ctx)
    deliver(pub, feed, win, status(12))
    qapp.processEvents()
    img = win.grab_image()
    assert list(win.tiles) == [f"Bed {i:02d}" for i in range(1, 13)]
    for name in win.tiles:
        rgb = dominant(img, win.tile_rect(name))
        assert close_to(rgb, SEIZ_RGB if name == "Bed 05" else BCKG_RGB), (name, rgb)
    # The banner: visible above the tiles, red, naming the bed, one Acknowledge button.
    assert win.banner.isVisible() and list(win.banner.buttons) == ["A1"]
    banner = win.banner.geometry()
    assert banner.bottom() < min(win.tile_rect(n).top() for n in win.tiles)
    assert close_to(dominant(img, banner.adjusted(0, 40, 0, 0)), BANNER_RGB)
    label = win.banner.rows["A1"][0].text()
    assert "Bed 05" in label and "T3-T5" in label and "conf 0.91" in label
    assert not win.no_connection.isVisible()
    # 12 beds on 16:9: a 3 x 4 grid, tiles well above legible size.
    assert win._grid_shape == (3, 4) and win.tile_rect("Bed 01").height() > 150
    feed.close()
    win.close()


def test_acknowledge_sends_the_request_and_the_banner_follows_the_status(qapp, ctx, publisher):
    pub, ep = publisher
    rep = ctx.socket(zmq.REP)
    control = f"tcp://127.0.0.1:{rep.bind_to_random_port('tcp://127.0.0.1')}"
    got = []

    def serve():
        if rep.poll(10_000):
            got.append(rep.recv_json())
            rep.send_json({"ok": True, "alarm": {}})

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    win = make_window(qapp)
    feed = WardFeed(ep, control, win, user="nurse.kim", context=ctx)
    deliver(pub, feed, win, status(12))
    button = win.banner.buttons["A1"]
    button.click()
    assert button.text() == "Sending..." and not button.isEnabled()
    deadline = time.monotonic() + 10
    while win._pending.get("A1") != "Acknowledged" and time.monotonic() < deadline:
        time.sleep(0.02)
        win.tick()
    server.join(5)
    rep.close(linger=0)
    assert got == [{"cmd": "ack", "alarm": "A1", "by": "nurse.kim"}]
    assert win.banner.buttons["A1"].text() == "Acknowledged"
    # The next status says who acknowledged: the banner goes, the tile stays red.
    deliver(pub, feed, win, status(12, seq=1, acked="nurse.kim"),
            until=lambda: not win.unacknowledged())  # fmt: skip
    assert not win.banner.isVisible() and not win.tiles["Bed 05"].view.alarm
    img = win.grab_image()
    assert close_to(dominant(img, win.tile_rect("Bed 05")), SEIZ_RGB)
    feed.close()
    win.close()


def test_failed_acknowledge_gives_the_button_back(qapp, ctx, publisher):
    pub, ep = publisher
    win = make_window(qapp)
    nobody = "tcp://127.0.0.1:9"  # nothing answers there
    feed = WardFeed(ep, nobody, win, user="nurse.kim", context=ctx, ack_timeout_s=0.3)
    deliver(pub, feed, win, status(6))
    win.banner.buttons["A1"].click()
    deadline = time.monotonic() + 10
    while "A1" in win._pending and time.monotonic() < deadline:
        time.sleep(0.02)
        win.tick()
    assert win.banner.buttons["A1"].isEnabled()
    assert "acknowledging A1 failed" in win.status_line.text()
    feed.close()
    win.close()


def test_no_status_for_3_s_shows_no_connection(qapp):
    mono = FakeClock()
    win = make_window(qapp, mono=mono, source="ipc:///tmp/ward/status")
    assert win.no_connection.isVisible()  # nothing yet
    assert "waiting for the first status" in win.no_connection.text()
    beds, alarms, traces = demo_ward(8, seizure_beds=(2,), wall=WALL, others=("BCKG",))
    win.set_status({"seq": 0, "t0": WALL, "beds": beds, "alarms": alarms}, traces)
    win.tick()
    assert win.connected and not win.no_connection.isVisible()
    mono.t += 2.9
    win.tick()
    assert win.connected
    mono.t += 0.6  # 3.5 s without a status: the service is gone
    win.tick()
    qapp.processEvents()
    img = win.grab_image()
    assert not win.connected and win.no_connection.isVisible()
    assert win.no_connection.text().startswith("NO CONNECTION TO SERVICE")
    assert "3.5 s" in win.no_connection.text()
    assert close_to(dominant(img, win.no_connection.geometry()), STALE_RGB)
    for name in win.tiles:  # no tile claims a live state
        assert close_to(dominant(img, win.tile_rect(name)), DISCONNECTED_RGB), name
        assert win.tiles[name].view.state.endswith("?")
    assert not win.banner.buttons["A1"].isEnabled()  # nothing to send an ack to
    win.close()


def test_click_on_a_tile_opens_that_beds_monitor(qapp):
    from pyqtgraph.Qt import QtCore, QtTest

    from rt_eeg.cli import build_parser

    opened = []
    win = make_window(qapp, on_open_bed=opened.append)
    beds, alarms, traces = demo_ward(6, wall=WALL)
    win.set_status({"seq": 0, "t0": WALL, "beds": beds, "alarms": alarms}, traces)
    qapp.processEvents()
    QtTest.QTest.mouseClick(win.tiles["Bed 03"], QtCore.Qt.MouseButton.LeftButton)
    assert [b["name"] for b in opened] == ["Bed 03"]
    argv = monitor_argv(opened[0])
    assert argv[:3] == [sys.executable, "-m", "rt_eeg.cli"]
    args = build_parser().parse_args(argv[3:])
    assert args.command == "monitor" and args.connect == [
        beds[2]["monitor"]["signal"], beds[2]["monitor"]["decision"]]  # fmt: skip
    assert monitor_argv({**beds[2], "monitor": None}) is None
    win.close()


def test_malformed_messages_are_counted_and_the_last_status_stays(qapp, ctx, publisher):
    pub, ep = publisher
    win = make_window(qapp)
    feed = WardFeed(ep, None, win, context=ctx)
    deliver(pub, feed, win, status(4))
    bad = json.loads(status(4)[1])
    bad["beds"][0]["state"] = "ON FIRE"
    for parts in ([b"ward", json.dumps(bad).encode(), status(4)[2]], [b"ward", b"{", b""]):
        pub.send_multipart(parts)
    deadline = time.monotonic() + 5
    while feed.n_malformed < 2 and time.monotonic() < deadline:
        feed.sock.poll(50)
        win.tick()
    assert feed.n_malformed == 2 and win.tiles["Bed 01"].view.state == "BCKG"
    feed.close()
    win.close()


def test_32_beds_fit_a_full_hd_screen(qapp):
    assert grid_shape(32, 1920, 970) == (5, 7)
    assert grid_shape(12, 1600, 790) == (3, 4)
    assert grid_shape(16, 1600, 790) == (4, 4)
    assert grid_shape(1) == (1, 1)
    win = WardOverview(clock=lambda: WALL)
    win.resize(1920, 1080)
    win.show()
    beds, alarms, traces = demo_ward(32, seizure_beds=(4, 17), wall=WALL)
    win.set_status({"seq": 0, "t0": WALL, "beds": beds, "alarms": alarms}, traces)
    qapp.processEvents()
    rects = [win.tile_rect(n) for n in win.tiles]
    assert len(rects) == 32
    assert all(r.width() >= 240 and r.height() >= 150 for r in rects)
    assert all(win.rect().contains(r) for r in rects)
    win.close()


def test_tile_texts():
    beds, _, _ = demo_ward(16, wall=WALL)
    seiz = tile_view(beds[4], 2.0)
    assert seiz.state == "SEIZURE" and seiz.lines[0] == "conf 0.91 · 44 s" and seiz.bg == SEIZ_RGB
    err = tile_view(beds[15])
    assert err.state == "ERROR" and "rate changed" in err.lines[0]
    assert tile_view(beds[13]).lines[-1] == "no data received"
    assert tile_view(beds[0], 1.5).lines[-1] == "last data 1.7 s ago"


def test_overview_entry_point_writes_a_screenshot(tmp_path, ctx, publisher):
    pub, ep = publisher
    png = tmp_path / "ward.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(  # the installed command line: rt-eeg overview ...
        [sys.executable, "-m", "rt_eeg.cli", "overview", "--status", ep, "--control", "tcp://127.0.0.1:9",
         "--screenshot", str(png), "--after", "0.3", "--size", "1280x720", "--user", "t"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    frames = status(8)
    deadline = time.monotonic() + 40
    while proc.poll() is None and time.monotonic() < deadline:
        pub.send_multipart(frames)
        time.sleep(0.1)
    out = proc.communicate(timeout=10)[0].decode()
    assert proc.returncode == 0, out
    from pyqtgraph.Qt import QtGui

    img = QtGui.QImage(str(png))
    assert (img.width(), img.height()) == (1280, 720)
    assert close_to(dominant(img, img.rect().adjusted(0, 0, 0, -680)), BANNER_RGB)


def test_overview_entry_point_refuses_bad_endpoints():
    import argparse

    from rt_eeg.commands.overview import add_overview_arguments
    from rt_eeg.errors import RtEegError
    from rt_eeg.ward.overview import run_overview

    p = argparse.ArgumentParser()
    add_overview_arguments(p)
    with pytest.raises(RtEegError, match="--status"):
        run_overview(p.parse_args(["--status", "http://x"]))
    with pytest.raises(RtEegError, match="--config WARD_TOML or --status"):
        run_overview(p.parse_args([]))
    with pytest.raises(RtEegError, match="--size"):
        run_overview(p.parse_args(["--status", "tcp://127.0.0.1:5", "--size", "big"]))
    with pytest.raises(RtEegError, match="--wait"):
        run_overview(p.parse_args(["--status", "tcp://127.0.0.1:5", "--wait", "nan"]))
    with pytest.raises(RtEegError, match="--user"):
        run_overview(p.parse_args(["--status", "tcp://127.0.0.1:5", "--user", " "]))


def test_an_alarm_message_updates_the_banner_before_the_next_status(qapp, ctx, publisher):
    from rt_eeg.pipeline.messages import encode as wire_encode

    pub, ep = publisher
    win = make_window(qapp)
    feed = WardFeed(ep, None, win, context=ctx)
    deliver(pub, feed, win, status(6))
    assert list(win.banner.buttons) == ["A1"]
    alarm = dict(json.loads(status(6)[1])["alarms"][0], acknowledged_by="dr.lee",
                 acknowledged_at=WALL + 2)  # fmt: skip
    frames = wire_encode(
        "alarm", {"kind": "alarm", "seq": 0, "alarm": alarm}, np.zeros(0, np.float32)
    )
    deadline = time.monotonic() + 5
    while feed.n_alarm == 0 and time.monotonic() < deadline:
        pub.send_multipart(frames)
        feed.sock.poll(50)
        win.tick()
    assert feed.n_alarm >= 1 and win.unacknowledged() == [] and not win.banner.isVisible()
    feed.close()
    win.close()


def test_an_ack_the_service_never_confirms_gives_the_button_back(qapp):
    mono, sent = FakeClock(), []
    win = make_window(qapp, mono=mono, on_ack=sent.append)
    beds, alarms, traces = demo_ward(6, wall=WALL)
    header = {"seq": 0, "t0": WALL, "beds": beds, "alarms": alarms}
    win.set_status(header, traces)
    win.banner.buttons["A1"].click()
    win.ack_done("A1", True, None)
    assert sent == ["A1"] and win.banner.buttons["A1"].text() == "Acknowledged"
    mono.t += 5
    win.set_status(header, traces)  # still unacknowledged in the service's eyes
    assert not win.banner.buttons["A1"].isEnabled()
    mono.t += 6
    win.set_status(header, traces)
    button = win.banner.buttons["A1"]
    assert button.isEnabled() and button.text() == "Acknowledge"
    win.close()


def test_overview_re_exports_its_widgets():
    """The tile and banner widgets moved to overview_widgets; the old imports still work."""
    from rt_eeg.ward import overview, overview_widgets

    for name in ("BedTile", "AlarmBanner", "BANNER_STYLE"):
        assert getattr(overview, name) is getattr(overview_widgets, name), name
