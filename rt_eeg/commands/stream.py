"""``rt-eeg stream FILE.edf --name NAME``: publish a recording as an LSL stream (an amplifier
stand-in for ``rt-eeg live``)."""

from __future__ import annotations

import argparse
import signal

HELP = "publish an EDF recording as a Lab Streaming Layer (LSL) stream at wall-clock pace"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rt_eeg.commands.replay import parse_speed

    parser.add_argument("edf", help="EDF recording to publish")
    parser.add_argument("--name", required=True, help="LSL stream name (rt-eeg live --lsl NAME)")
    parser.add_argument("--speed", type=parse_speed, default=1.0,
                        help="1 (real time, default), N (N x faster) or max")  # fmt: skip
    parser.add_argument("--chunk-ms", type=float, default=40.0,
                        help="milliseconds of signal per pushed chunk (default 40)")  # fmt: skip
    parser.add_argument("--loop", action="store_true", help="start again at the end (timestamps continue)")
    parser.add_argument("--wait-s", type=float, default=0.0,
                        help="seconds to wait for a consumer before publishing (default: start at once)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import time

    from rt_eeg.io.edf import open_recording
    from rt_eeg.sources.lsl import _import_pylsl
    from rt_eeg.sources.outlet import make_outlet, publish_recording

    pylsl = _import_pylsl()
    with open_recording(args.edf) as rec:  # one clear line for a bad file, before publishing
        rec.native_blocks()  # (checks that the channels share one rate)
        labels, fs = rec.input_labels, rec.native_sfreq
        desc = f"{len(labels)} channels at {fs:g} Hz, {rec.duration:.0f} s"
    stop = {"flag": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(flag=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(flag=True))
    outlet = make_outlet(args.name, labels, fs)
    print(f"publishing {args.edf} as LSL stream {args.name!r} ({desc})", flush=True)
    if args.wait_s > 0 and not outlet.wait_for_consumers(args.wait_s):
        print("no consumer yet; publishing anyway", flush=True)
    start = pylsl.local_clock()
    total = 0
    while not stop["flag"]:
        n = publish_recording(args.edf, args.name, speed=args.speed, chunk_s=args.chunk_ms / 1000,
                              start=start + total / fs, should_stop=lambda: stop["flag"],
                              outlet=outlet)  # fmt: skip
        total += n
        if not args.loop or n == 0:
            break
    print(f"published {total} samples ({total / fs:.1f} s)", flush=True)
    time.sleep(0.5)  # let the last chunk reach the consumers before the outlet closes
    return 0
