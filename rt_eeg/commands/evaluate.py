"""``rt-eeg evaluate``: the complete detector over a corpus, scored NEDC/SzCORE-style."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys

HELP = (
    "run the detector over a corpus (local processes or Dask) and score it (OVLP/TAES/EPOCH/SzCORE)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpus", help="corpus folder (TUSZ v1/v2, CHB-MIT) or a list file of EDF paths"
    )
    parser.add_argument("--list", help="list file of EDF paths (alternative to --corpus)")
    parser.add_argument(
        "--split",
        choices=("train", "dev", "eval"),
        help="keep only this split (default for a corpus tree: eval, or dev with --sweep; a list is used as given)",
    )
    parser.add_argument("--model", default=None, help="model folder (default models/default)")
    parser.add_argument(
        "--out", required=True, help="output folder (hypotheses, report.json, report.md, det.png)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local worker processes (default: number of cores)",
    )
    parser.add_argument(
        "--dask", metavar="ADDRESS", help="run on an existing Dask cluster, e.g. tcp://host:8786"
    )
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "gpu"),
        default="cpu",
        help="decoder device (default cpu)",
    )
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="tune postprocess parameters on this split and write them to the model folder",
    )
    parser.add_argument(
        "--target-fa",
        type=float,
        default=1.0,
        help="false alarms per 24 h to tune for (default 1.0)",
    )
    parser.add_argument(
        "--max-flag-ratio",
        type=float,
        default=2.0,
        metavar="R",
        help="with --sweep: only points whose alarms cover at most R times the reference's "
        "seizure time (default 2; 0: no limit). OVLP alone rewards an alarm that never ends",
    )
    parser.add_argument(
        "--feature-cache",
        metavar="DIR",
        help="keep each recording's LFCC features in DIR and reuse them in later runs, of any "
        "model (same results; about half the time of a repeat run; ~80 MB per hour of EEG)",
    )
    parser.add_argument("--max-files", type=int, help="evaluate only the first N recordings")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from rt_eeg.config import DEFAULT_MODEL, load_postprocess_config
    from rt_eeg.errors import RtEegError
    from rt_eeg.evaluate import default_workers, evaluate, sweep_and_tune
    from rt_eeg.io.corpus import find_recordings

    source = args.list or args.corpus
    if not source:
        raise RtEegError("give --corpus DIR or --list FILE")
    if not args.max_flag_ratio >= 0:
        raise RtEegError(f"--max-flag-ratio must be >= 0 (0: no limit), got {args.max_flag_ratio}")
    items = find_recordings(source)
    # A corpus tree defaults to its eval split (dev when tuning); a list is taken as given.
    tree = not args.list and os.path.isdir(source)
    default = ("dev" if args.sweep else "eval") if tree and any(i.split for i in items) else None
    split = args.split or default
    if split:
        items = [i for i in items if i.split == split]
    if args.max_files:
        items = items[: args.max_files]
    if not items:
        raise RtEegError(f"no recordings found{f' in split {split!r}' if split else ''}", source)
    model = args.model or str(DEFAULT_MODEL)
    workers = args.workers or default_workers()
    base = load_postprocess_config(model)
    print(f"{len(items)} recordings{f' ({split})' if split else ''}, model {model}, "
          f"{'dask ' + args.dask if args.dask else f'{workers} worker(s)'}", file=sys.stderr)  # fmt: skip
    if args.sweep:
        result = sweep_and_tune(items, args.out, model, base=base, target_fa=args.target_fa, workers=workers,
                                dask=args.dask, device=args.device, progress=not args.quiet,
                                feature_cache=args.feature_cache,
                                max_flag_ratio=args.max_flag_ratio or None)  # fmt: skip
        shown = {k: result[k] for k in ("before", "after", "config", "written")}
        if shown["config"].get("cross_channel"):  # its weights are in the file, not on screen
            cc = shown["config"]["cross_channel"]
            shown["config"] = shown["config"] | {"cross_channel": {"trained_on": cc["trained_on"]}}
        print(json.dumps(shown, indent=2))
        return 0
    command = shlex.join(["rt-eeg", *getattr(args, "argv", sys.argv[1:])])
    report = evaluate(items, args.out, model, post=base, workers=workers, dask=args.dask, device=args.device,
                      progress=not args.quiet, command=command, feature_cache=args.feature_cache)  # fmt: skip
    print(open(f"{args.out}/report.md", encoding="utf-8").read())
    return 1 if report["failed"] and len(report["failed"]) == report["n_recordings"] else 0
