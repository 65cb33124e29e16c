"""Benchmark the monitor's frame rate while streaming (offscreen Qt, CPU raster).

A publisher thread sends 0.1 s frames of 22-channel synthetic EEG at ``--rate`` frames per
second (10 = real time) plus one decision per second over ZeroMQ (or pushes them straight
into the window with ``--transport direct``); the window drains its subscription on its
timer and redraws. The viewport's paint events are counted, and every tick and every paint
is timed.

    .venv/bin/python tools/bench_monitor.py --seconds 10 --out tools/results/bench_monitor.json
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"

import argparse
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _pct(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "p50": None, "p95": None, "max": None}
    a = np.asarray(values) * 1000.0
    return {
        "n": int(a.size),
        "p50": round(float(np.percentile(a, 50)), 2),
        "p95": round(float(np.percentile(a, 95)), 2),
        "max": round(float(a.max()), 2),
    }


PREFILL_FRAMES = 250  # 25 s of history before streaming: a full screen, steady state


def _publisher(endpoint, data, ch_names, rate, stop, ctx):
    import zmq

    from rt_eeg.pipeline.messages import encode

    sock = ctx.socket(zmq.PUB)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SNDHWM, 100)
    sock.bind(endpoint)
    t_start = time.monotonic() + 0.5  # let the subscriber connect
    n_frames = data.shape[0] // 25
    k = PREFILL_FRAMES
    while not stop.is_set():
        target = t_start + (k - PREFILL_FRAMES) / rate  # drift-free pacing
        wait = target - time.monotonic()
        if wait > 0:
            stop.wait(wait)
            continue
        i = k % n_frames
        t0 = k / 10.0
        h = {
            "kind": "data",
            "stream": "bench",
            "seq": k,
            "t0": t0,
            "sfreq": 250.0,
            "ch_names": ch_names,
            "t_emit": time.time(),
        }
        sock.send_multipart(encode("signal", h, data[i * 25 : (i + 1) * 25]), zmq.NOBLOCK)
        if k % 10 == 9 and k >= 19:
            s = t0 - 1.9
            h = {
                "kind": "data",
                "stream": "bench-dec",
                "seq": k // 10,
                "t0": s,
                "start": s,
                "stop": s + 1.0,
                "label": "seiz" if (k // 100) % 2 else "bckg",
                "confidence": 0.9,
                "channels": ["T3-T5"],
                "t_emit": time.time(),
            }
            sock.send_multipart(encode("decision", h, np.zeros(len(ch_names), np.float32)))
        k += 1
    sock.close(linger=0)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="monitor frame-rate benchmark (offscreen)")
    p.add_argument("--seconds", type=float, default=10.0, help="measured streaming time")
    p.add_argument("--rate", type=float, default=10.0, help="frames (0.1 s) sent per second")
    p.add_argument("--refresh-hz", type=float, default=30.0, help="display timer rate")
    p.add_argument("--window-s", type=float, default=20.0, help="time base")
    p.add_argument("--transport", choices=("zmq", "direct"), default="zmq")
    p.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_monitor.json"))
    args = p.parse_args(argv)

    import pyqtgraph as pg
    import zmq
    from pyqtgraph.Qt import QtCore

    from rt_eeg.io.atomic import write_json_atomic
    from rt_eeg.monitor.demo import synthetic_onset
    from rt_eeg.monitor.feed import MonitorFeed
    from rt_eeg.monitor.window import MonitorWindow

    _app = pg.mkQApp("bench")  # the QApplication lives for the whole run
    data, ch_names = synthetic_onset(duration_s=60.0, onset_s=30.0, seizure_s=20.0)
    win = MonitorWindow(ch_names, 250.0, window_s=args.window_s, refresh_hz=args.refresh_hz)
    for k in range(PREFILL_FRAMES):
        win.push_signal(k / 10.0, data[k * 25 : (k + 1) * 25])
    win.go_live()
    paint_s: list[float] = []
    tick_s: list[float] = []

    # Time every paint of the plot and every tick, without touching the library classes.
    view_cls = type(win._plotw)
    orig_paint = view_cls.paintEvent

    def timed_paint(self, ev):
        t = time.perf_counter()
        orig_paint(self, ev)
        paint_s.append(time.perf_counter() - t)

    view_cls.paintEvent = timed_paint
    orig_tick = win.tick

    def timed_tick(**kw):
        t = time.perf_counter()
        orig_tick(**kw)
        tick_s.append(time.perf_counter() - t)

    win._timer.timeout.disconnect()
    win._timer.timeout.connect(timed_tick)

    stop = threading.Event()
    ctx = zmq.Context()
    feed = None
    if args.transport == "zmq":
        endpoint = f"ipc://{tempfile.mkdtemp(prefix='rteeg-bench-')}/display"
        pub = threading.Thread(
            target=_publisher, args=(endpoint, data, ch_names, args.rate, stop, ctx), daemon=True
        )
        pub.start()
        feed = MonitorFeed(endpoint, win, context=ctx)
    else:
        state = {"k": PREFILL_FRAMES}

        def push():
            k = state["k"]
            i = k % (data.shape[0] // 25)
            win.push_signal(k / 10.0, data[i * 25 : (i + 1) * 25])
            if k % 10 == 9 and k >= 19:
                s = k / 10.0 - 1.9
                win.push_decision(s, s + 1, "bckg", 0.9, [])
            state["k"] = k + 1

        feeder = QtCore.QTimer()
        feeder.timeout.connect(push)
        feeder.start(int(round(1000 / args.rate)))

    win.show()
    win.start()

    def run_loop(seconds: float) -> None:
        # A real event loop (no busy polling), stopped by a timer.
        loop = QtCore.QEventLoop()
        QtCore.QTimer.singleShot(int(seconds * 1000), loop.quit)
        loop.exec()

    run_loop(2.0)  # warm-up: first frames, caches
    paint_s.clear()
    tick_s.clear()
    n0, frames0 = win.paint_counter.count, win.n_frames
    t0, cpu0 = time.monotonic(), time.process_time()
    run_loop(args.seconds)
    elapsed, cpu = time.monotonic() - t0, time.process_time() - cpu0
    paints = win.paint_counter.count - n0
    stamps = list(win.paint_counter.times)[-(paints + 1) :] if paints else []
    intervals = list(np.diff(stamps)) if len(stamps) > 1 else []
    stop.set()
    win.stop()
    result = {
        "what": "monitor redraws while streaming, offscreen Qt (CPU raster)",
        "n_channels": len(ch_names),
        "window_s": args.window_s,
        "window_px": [win.width(), win.height()],
        "transport": args.transport,
        "frame_rate_in": args.rate,
        "refresh_hz": args.refresh_hz,
        "seconds": round(elapsed, 2),
        "frames_received": win.n_frames - frames0,
        "frames_dropped": feed.n_dropped if feed else 0,
        "paints": paints,
        "fps": round(paints / elapsed, 1),
        "frame_interval_ms": _pct(intervals),
        # CPU time of this process (all threads) per drawn frame: independent of other load
        # on the machine; 1000 / cpu_ms_per_frame is the rate one free core could sustain.
        "cpu_ms_per_frame": round(cpu * 1000 / max(paints, 1), 2),
        "cpu_fraction": round(cpu / elapsed, 3),
        "paint_ms": _pct(paint_s),
        "tick_ms": _pct(tick_s),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_avg_1min": round(os.getloadavg()[0], 2),
    }
    if feed is not None:
        feed.close()
    ctx.term()
    write_json_atomic(args.out, result)
    print(
        f"fps {result['fps']} ({paints} paints in {elapsed:.1f} s, refresh {args.refresh_hz:g} Hz); "
        f"frame interval p50/p95 {result['frame_interval_ms']['p50']}/"
        f"{result['frame_interval_ms']['p95']} ms; paint p50/p95 {result['paint_ms']['p50']}/"
        f"{result['paint_ms']['p95']} ms; tick p50/p95 {result['tick_ms']['p50']}/"
        f"{result['tick_ms']['p95']} ms; frames in {result['frames_received']}, "
        f"dropped {result['frames_dropped']}; CPU {result['cpu_ms_per_frame']} ms/frame "
        f"(load avg {result['load_avg_1min']}) -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
