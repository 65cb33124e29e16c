"""``rt-eeg overview``: the ward overview window on a running ward service."""

from __future__ import annotations

import argparse

HELP = "open the ward overview (one tile per bed, alarms, acknowledge) on a running service"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rt_eeg.ward.overview import add_overview_arguments

    add_overview_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from rt_eeg.ward.overview import run_overview

    return run_overview(args)
