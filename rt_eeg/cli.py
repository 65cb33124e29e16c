"""The ``rt-eeg`` command.

Each subcommand lives in ``rt_eeg.commands.<name>`` and exposes ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int``. Modules import heavy libraries
(TensorFlow, Qt) inside ``run`` so that ``rt-eeg --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback

from rt_eeg import __version__
from rt_eeg.errors import RtEegError

#: Subcommands in the order ``--help`` lists them, with a fallback help line used while a
#: command's module does not exist yet.
COMMANDS: dict[str, str] = {
    "info": "describe an EDF recording: channels, montage, TCP channels, annotations",
    "replay": "stream an EDF file through the live pipeline and write decisions",
    "live": "run the detector on a live LSL stream (an amplifier), writing decisions as made",
    "stream": "publish an EDF recording as a Lab Streaming Layer (LSL) stream at wall-clock pace",
    "monitor": "open the live monitor on a running pipeline",
    "view": "review a saved signal file and HYP in the monitor window",
    "evaluate": "run the detector over a corpus and score it",
    "score": "score hypothesis annotations against references (NEDC OVLP/TAES/EPOCH, SzCORE)",
    "train": "train the channel-based LSTM decoder on a corpus",
    "ensemble": "combine trained model folders into one model that pools their P(seizure)",
    "simulate": "write a simulated EEG corpus in the TUSZ v2 layout",
    "features": "compute LFCC features of an EDF recording",
    "serve": "run the ward service: many beds, one batched decoder",
    "ward": "control a running ward service (list, add, remove, pause, resume, ack)",
    "overview": "open the ward overview (one tile per bed, alarms, acknowledge) on a running service",
    "bench": "run the benchmarks in tools/ and collect their JSON",
    "keys": "make a CURVE key pair for monitors on other machines",
}


def _load(name: str):
    try:
        return importlib.import_module(f"rt_eeg.commands.{name}")
    except ModuleNotFoundError as err:
        if err.name == f"rt_eeg.commands.{name}":
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="rt-eeg", description="Real-time EEG seizure detection (TCP montage, LFCC, LSTM)."
    )
    parser.add_argument("--version", action="version", version=f"rt-eeg {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, fallback in COMMANDS.items():
        module = _load(name)
        help_line = (
            getattr(module, "HELP", fallback) if module else f"{fallback} (not implemented yet)"
        )
        p = sub.add_parser(name, help=help_line, description=help_line)
        p.add_argument("--debug", action="store_true", help="show tracebacks on errors")
        if module is not None:
            module.add_arguments(p)
        p.set_defaults(_module=module, _name=name)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rt-eeg`` console script; returns the process exit code."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    args.argv = argv  # the command line as given, for manifests and reports
    if args.debug:  # child processes too (TensorFlow logs, see rt_eeg.decoder)
        os.environ["RT_EEG_DEBUG"] = "1"
    if args.command is None:
        parser.print_help()
        return 1
    if args._module is None:
        print(f"rt-eeg {args._name}: not implemented yet", file=sys.stderr)
        return 3
    try:
        return int(args._module.run(args) or 0)
    except RtEegError as err:
        if args.debug:
            traceback.print_exc()
        print(f"rt-eeg {args._name}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rt-eeg {args._name}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
