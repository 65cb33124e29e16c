"""``rt-eeg keys --out DIR --name NAME``: a CURVE key pair for the display endpoints."""

from __future__ import annotations

import argparse

HELP = "make a CURVE key pair (NAME.key public, NAME.key_secret 0600) for remote monitors"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="folder for the key files (created 0700)")
    parser.add_argument(
        "--name", required=True, help="base name, e.g. 'server' or the workstation's name"
    )


def run(args: argparse.Namespace) -> int:
    from rt_eeg.security import write_keypair

    public, secret = write_keypair(args.out, args.name)
    print(f"public key {public}  (give it out: server -> monitors, monitor -> authorized_keys_dir)")
    print(f"secret key {secret}  (mode 0600; keep it on this machine)")
    return 0
