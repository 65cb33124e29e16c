"""The README's ward overview picture: ``rt-eeg ward overview`` fed by a fake status publisher.

A thread publishes a made-up ward (:func:`rt_eeg.ward.demo.demo_ward`: 16 beds, one in seizure
with an unacknowledged alarm, a few stale / paused / without data / in error) on a loopback
port twice a second; the overview's own entry point (:func:`rt_eeg.ward.overview.run_overview`)
subscribes, renders offscreen and writes the PNG. No ward service is needed.

    .venv/bin/python tools/ward_screenshot.py --out docs/ward_overview.png
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import argparse
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import zmq  # noqa: E402

from rt_eeg.commands.overview import add_overview_arguments  # noqa: E402
from rt_eeg.ward.demo import demo_ward  # noqa: E402
from rt_eeg.ward.overview import run_overview  # noqa: E402
from rt_eeg.ward.status import encode_status  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "ward_overview.png"))
    ap.add_argument("--beds", type=int, default=16)
    ap.add_argument("--seizure", default="4", help="comma-separated bed indices in seizure (4)")
    ap.add_argument("--size", default="1600x900")
    args = ap.parse_args()
    seiz = tuple(int(x) for x in args.seizure.split(",") if x)
    ctx = zmq.Context()
    pub = ctx.socket(zmq.PUB)
    port = pub.bind_to_random_port("tcp://127.0.0.1")
    stop = threading.Event()

    def publish() -> None:
        seq = 0
        while not stop.is_set():
            wall = time.time()
            beds, alarms, traces = demo_ward(args.beds, seizure_beds=seiz, wall=wall)
            pub.send_multipart(encode_status(seq, wall, beds, alarms, traces))
            seq += 1
            stop.wait(0.5)

    thread = threading.Thread(target=publish, daemon=True)
    thread.start()
    parser = argparse.ArgumentParser()
    add_overview_arguments(parser)
    overview = parser.parse_args(
        ["--status", f"tcp://127.0.0.1:{port}", "--control", "tcp://127.0.0.1:9",
         "--user", "nurse.kim", "--size", args.size, "--screenshot", args.out, "--after", "1.2"]
    )  # fmt: skip
    try:
        return run_overview(overview)
    finally:
        stop.set()
        thread.join()
        pub.close(linger=0)
        ctx.term()


if __name__ == "__main__":
    sys.exit(main())
