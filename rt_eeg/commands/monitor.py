"""``rt-eeg monitor --connect ENDPOINT``: the live window on a running pipeline."""

from __future__ import annotations

import argparse
import math

from rt_eeg.errors import RtEegError

HELP = "open the live monitor on a running pipeline"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--connect",
        action="append",
        required=True,
        metavar="ENDPOINT",
        help="display endpoint to subscribe to (repeat for the signal and decision publishers)",
    )
    parser.add_argument(
        "--ch-names", metavar="A,B,...", help="expected channels (default: from the first frame)"
    )
    parser.add_argument("--sfreq", type=float, default=250.0, help="expected rate, Hz (250)")
    parser.add_argument(
        "--time-base", type=float, default=20.0, metavar="S", help="seconds on screen (20)"
    )
    parser.add_argument(
        "--uv-per-div", type=float, default=100.0, metavar="UV", help="sensitivity (100)"
    )
    parser.add_argument(
        "--screenshot",
        metavar="PNG",
        help="write the window to PNG and exit: after --after seconds, else at end of stream",
    )
    parser.add_argument("--after", type=float, metavar="S", help="screenshot after S seconds")
    parser.add_argument(
        "--at",
        type=float,
        metavar="T",
        help="also save --at-screenshot when the signal reaches T s",
    )
    parser.add_argument(
        "--at-screenshot", metavar="PNG", help="picture taken at --at (the run carries on)"
    )
    parser.add_argument("--exit-on-eos", action="store_true", help="exit when the stream ends")
    parser.add_argument(
        "--stats", metavar="JSON", help="counters written on exit (default: beside the PNG)"
    )
    parser.add_argument("--headless", action="store_true", help="render offscreen")
    parser.add_argument(
        "--server-key",
        metavar="FILE",
        help="the pipeline's public key (NAME.key): subscribe over CURVE (with --client-key)",
    )
    parser.add_argument(
        "--client-key",
        metavar="FILE",
        help="this monitor's secret key (NAME.key_secret from rt-eeg keys), listed on the server",
    )


def run(args: argparse.Namespace) -> int:
    for name in ("time_base", "uv_per_div", "sfreq"):
        v = getattr(args, name)
        if not (math.isfinite(v) and v > 0):
            raise RtEegError(f"--{name.replace('_', '-')} must be a positive number, got {v}")
    if args.after is not None and not (math.isfinite(args.after) and args.after >= 0):
        raise RtEegError(f"--after must be a non-negative number of seconds, got {args.after}")
    if (args.at is None) != (args.at_screenshot is None):
        raise RtEegError("--at and --at-screenshot go together")
    if args.after is not None and args.screenshot is None:
        raise RtEegError("--after needs --screenshot")
    ch_names = [c.strip() for c in args.ch_names.split(",") if c.strip()] if args.ch_names else None
    from rt_eeg.security import client_curve, parse_endpoint

    for ep in args.connect:
        try:
            parse_endpoint(ep)
        except ValueError as err:
            raise RtEegError(f"--connect: {err}") from None
    curve = client_curve(args.server_key, args.client_key)  # one line here, not in the window
    from rt_eeg.monitor.app import run_monitor

    return run_monitor(
        args.connect,
        ch_names=ch_names,
        sfreq=args.sfreq,
        window_s=args.time_base,
        uv_per_div=args.uv_per_div,
        screenshot=args.screenshot,
        after_s=args.after,
        exit_on_eos=args.exit_on_eos,
        stats_path=args.stats,
        headless=args.headless,
        at_signal_s=args.at,
        at_screenshot=args.at_screenshot,
        curve=curve,
    )
