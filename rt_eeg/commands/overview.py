"""``rt-eeg overview``: the ward overview window on a running ward service."""

from __future__ import annotations

import argparse

# The arguments live here, not in rt_eeg.ward.overview: that module imports Qt, and every
# command's parser is built for any ``rt-eeg`` call (``serve`` on a headless server too).
HELP = "open the ward overview (one tile per bed, alarms, acknowledge) on a running service"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_overview_arguments(parser)


def add_overview_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``rt-eeg overview``."""
    parser.add_argument("--config", metavar="WARD_TOML",
                        help="the running service's ward.toml (finds its status and control endpoints)")  # fmt: skip
    parser.add_argument("--status", metavar="ENDPOINT",
                        help="the ward service's status endpoint (ipc://... or tcp://HOST:PORT)")  # fmt: skip
    parser.add_argument("--control", metavar="ENDPOINT",
                        help="the service's control endpoint, for Acknowledge")  # fmt: skip
    parser.add_argument("--user", help="who acknowledges alarms (default: the login name)")
    parser.add_argument("--size", default="1600x900", metavar="WxH", help="window size (1600x900)")
    parser.add_argument("--screenshot", metavar="PNG",
                        help="render to PNG (offscreen without a display) once a status arrived, then exit")  # fmt: skip
    parser.add_argument("--after", type=float, default=1.0, metavar="S",
                        help="with --screenshot: seconds after the first status (1)")  # fmt: skip
    parser.add_argument("--wait", type=float, default=10.0, metavar="S",
                        help="with --screenshot: give up waiting for a status after S s (10)")  # fmt: skip
    from rt_eeg.commands.ward import add_key_arguments

    add_key_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from rt_eeg.ward.overview import run_overview

    return run_overview(args)
