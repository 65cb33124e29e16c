"""``rt-eeg view --signal FILE --hyp FILE``: review a saved recording and its decisions."""

from __future__ import annotations

import argparse
import math

from rt_eeg.errors import RtEegError

HELP = "review a saved signal file and HYP in the monitor window"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--signal", required=True, metavar="FILE", help="signal file (<stem>.signal.f32 or .json)"
    )
    parser.add_argument("--hyp", metavar="FILE", help="per-epoch decisions (rt_eeg_hyp_v1)")
    parser.add_argument(
        "--events",
        metavar="FILE",
        help="reference annotations (.csv_bi, .csv, .tse, .tse_bi, .lbl) shown as a strip",
    )
    parser.add_argument("--start", type=float, metavar="S", help="first page starts at S seconds")
    parser.add_argument(
        "--time-base", type=float, default=20.0, metavar="S", help="seconds per page (20)"
    )
    parser.add_argument(
        "--uv-per-div", type=float, default=100.0, metavar="UV", help="sensitivity (100)"
    )
    parser.add_argument(
        "--screenshot", metavar="PNG", help="render the first page to PNG and exit (no display)"
    )
    parser.add_argument("--headless", action="store_true", help="render offscreen")


def run(args: argparse.Namespace) -> int:
    for name in ("time_base", "uv_per_div"):
        v = getattr(args, name)
        if not (math.isfinite(v) and v > 0):
            raise RtEegError(f"--{name.replace('_', '-')} must be a positive number, got {v}")
    from rt_eeg.monitor.app import run_view

    return run_view(
        args.signal,
        args.hyp,
        events_path=args.events,
        start_s=args.start,
        window_s=args.time_base,
        uv_per_div=args.uv_per_div,
        screenshot=args.screenshot,
        headless=args.headless,
    )
