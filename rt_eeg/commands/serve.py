"""``rt-eeg serve --config ward.toml``: the ward service (many beds, one batched decoder)."""

from __future__ import annotations

import argparse
import logging

HELP = "run the ward service: many beds (EDF replays or LSL streams), one batched decoder"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="ward.toml ([ward] and [[bed]] tables)")


def run(args: argparse.Namespace) -> int:
    from rt_eeg.security import is_loopback
    from rt_eeg.ward.config import load_ward_config
    from rt_eeg.ward.service import WardService

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s serve %(levelname)s %(message)s")
    cfg = load_ward_config(args.config)
    curve = cfg.security is not None and cfg.security.curve_server
    for key in ("status", "control"):
        ep = getattr(cfg, key)
        if ep and not is_loopback(ep) and not curve:  # allowed only by insecure = true
            logging.getLogger("rt_eeg.ward").warning(
                "ward.%s = %s is reachable from other machines in plain text (insecure = true)", key, ep
            )
    service = WardService(cfg)
    how = f" (CURVE, allow-list {cfg.security.authorized_keys_dir})" if curve else ""
    print(f"rt-eeg serve: {len(cfg.beds)} beds, outputs in {cfg.output}; "
          f"control {service.ep['control']}, status {service.ep['status']}{how}", flush=True)  # fmt: skip
    return service.run()
