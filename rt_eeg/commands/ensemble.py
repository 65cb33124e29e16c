"""``rt-eeg ensemble --members DIR,DIR,... --out DIR``: average trained models into one."""

from __future__ import annotations

import argparse
import shlex

HELP = "combine trained model folders into one model that averages their P(seizure)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--members",
        required=True,
        help="comma list of model folders trained with the same features and decoder inputs "
        "(e.g. the same recipe with different --seed)",
    )
    parser.add_argument("--out", required=True, help="model folder to write")


def run(args: argparse.Namespace) -> int:
    from rt_eeg.ensemble import write_ensemble

    members = [m.strip() for m in args.members.split(",") if m.strip()]
    out = write_ensemble(
        members, args.out, command_line=shlex.join(["rt-eeg", *getattr(args, "argv", [])])
    )
    print(f"wrote {out}: mean of {len(members)} members")
    return 0
