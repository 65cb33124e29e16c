"""``rt-eeg score``: NEDC-compatible (OVLP, TAES, EPOCH) and SzCORE scoring of annotation lists."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "score hypothesis annotations against references (NEDC OVLP/TAES/EPOCH, SzCORE)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ref-list",
        required=True,
        type=Path,
        help="file listing reference annotations (.csv_bi .csv .tse .tse_bi .lbl), one per line",
    )
    parser.add_argument(
        "--hyp-list",
        required=True,
        type=Path,
        help="file listing hypothesis annotations, paired line by line with --ref-list",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="also write summary.txt and scores.json to this folder",
    )


def run(args: argparse.Namespace) -> int:
    from rt_eeg.io.atomic import write_json_atomic, write_text_atomic
    from rt_eeg.scoring import format_summary, read_file_list, score_files

    refs = read_file_list(args.ref_list)
    hyps = read_file_list(args.hyp_list)
    result = score_files(refs, hyps)
    text = format_summary(result, ref_list=str(args.ref_list), hyp_list=str(args.hyp_list))
    if args.out is not None:
        write_text_atomic(args.out / "summary.txt", text)
        write_json_atomic(args.out / "scores.json", result)
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(text)
    return 0
