"""``rt-eeg live --lsl NAME --out DIR``: detect seizures on a live LSL stream (an amplifier).

The run has no end: decisions and events are appended to rotating parts as they are made
(``--rotate-min``, hourly by default) with ``<name>.index.json`` listing them; Ctrl-C (or
``--duration``) ends it and assembles the usual single-file outputs from the parts.
"""

from __future__ import annotations

import argparse
import json
import os

from rt_eeg.errors import RtEegError

HELP = "run the detector on a live LSL stream (an amplifier), writing decisions as made"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--lsl", metavar="NAME", help="LSL stream name")
    which.add_argument("--lsl-type", metavar="TYPE", help="LSL stream type, e.g. EEG (first found)")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--channel-map", metavar="TOML",
                        help="amplifier label -> 10-20 electrode (and unit), for non-10-20 labels")  # fmt: skip
    parser.add_argument("--name", help="output file stem (default: the stream name)")
    parser.add_argument("--rotate-min", type=float, default=60.0,
                        help="minutes of signal per output part (default 60)")  # fmt: skip
    parser.add_argument("--duration", type=float, metavar="S",
                        help="stop after S seconds of signal (default: run until Ctrl-C)")  # fmt: skip
    parser.add_argument("--resolve-timeout", type=float, default=10.0, metavar="S",
                        help="seconds to look for the stream (default 10)")  # fmt: skip
    parser.add_argument("--headless", action="store_true",
                        help="no window: the monitor renders offscreen and saves monitor.png")  # fmt: skip
    parser.add_argument("--no-monitor", action="store_true", help="do not start the monitor at all")
    parser.add_argument("--model", help="model folder (default: models/default or the config's)")
    parser.add_argument("--config", help="pipeline TOML file (endpoints, stage parameters, model)")
    parser.add_argument("--device", choices=("auto", "cpu", "gpu"), help="decoder device (default auto)")
    parser.add_argument("--insecure", action="store_true",
                        help="allow the config's non-loopback endpoints without CURVE (explicit escape hatch)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from rt_eeg.config import load_pipeline_config
    from rt_eeg.pipeline.supervisor import Supervisor
    from rt_eeg.sources.lsl import load_channel_map

    if args.rotate_min <= 0:
        raise RtEegError(f"--rotate-min must be positive, got {args.rotate_min:g}")
    cfg = load_pipeline_config(args.config, insecure=args.insecure)
    if args.model:
        cfg = dataclasses.replace(cfg, model=os.path.abspath(args.model))
    if args.device:
        cfg = dataclasses.replace(cfg, device=args.device)
    spec = {"kind": "lsl", "name": args.lsl, "type": args.lsl_type,
            "resolve_timeout_s": args.resolve_timeout}  # fmt: skip
    if args.channel_map:
        spec["channel_map"] = load_channel_map(args.channel_map)
    monitor = (
        None
        if args.no_monitor
        else ("headless" if args.headless or not os.environ.get("DISPLAY") else "window")
    )
    print(f"looking for LSL stream {args.lsl or 'of type ' + args.lsl_type} ...", flush=True)
    errors_seen: set[str] = set()

    def progress(kind, stage, info):
        if kind == "go":
            print("all stages ready; analysing the stream (Ctrl-C to stop)", flush=True)
        elif kind == "restart":
            print(f"restarted {stage}: {info}", flush=True)
        elif kind == "error" and info not in errors_seen:  # each problem once, one line
            errors_seen.add(info)
            print(f"error: {info}", flush=True)

    sup = Supervisor(spec, args.out, speed=None, config=cfg, monitor=monitor, on_event=progress,
                     name=args.name, rotate_s=args.rotate_min * 60.0,
                     stop_after_s=args.duration)  # fmt: skip
    print(f"stream {sup.source_info.get('stream')!r}: {len(sup.ch_names)} TCP channels "
          f"({sup.montage}) -> {args.out}/{sup.name}.*", flush=True)  # fmt: skip
    metrics = sup.run_pipeline()
    lat = metrics.get("end_to_end_latency_ms") or {}
    print(json.dumps({k: metrics[k] for k in ("duration_s", "frames_streamed", "restarts", "n_decisions")}
                     | {"latency_ms_p95": lat.get("p95")}))  # fmt: skip
    if "postprocess" not in sup.done:
        raise RtEegError(
            "pipeline ended before the postprocessor finished (see .run/*.log in the output folder)",
            args.out,
        )
    return 0
