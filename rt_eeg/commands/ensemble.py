"""``rt-eeg ensemble --members DIR,DIR,... --out DIR [--combine mean|logit]``: pool trained
models into one."""

from __future__ import annotations

import argparse
import shlex

HELP = "combine trained model folders into one model that pools their P(seizure)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--members",
        required=True,
        help="comma list of model folders trained with the same features and decoder inputs "
        "(e.g. the same recipe with different --seed)",
    )
    parser.add_argument("--out", required=True, help="model folder to write")
    parser.add_argument(
        "--combine",
        choices=("mean", "logit"),
        default="mean",
        help="mean: the mean of the members' P(seizure) (default); logit: the sigmoid of the "
        "mean of their logits, which keeps the members' consensus at the top of the scale",
    )


def run(args: argparse.Namespace) -> int:
    from rt_eeg.ensemble import write_ensemble

    members = [m.strip() for m in args.members.split(",") if m.strip()]
    argv = shlex.join(["rt-eeg", *getattr(args, "argv", [])])
    out = write_ensemble(members, args.out, combine=args.combine, command_line=argv)
    what = "mean" if args.combine == "mean" else "logit mean"
    print(f"wrote {out}: {what} of {len(members)} members")
    return 0
