"""``rt-eeg replay FILE.edf --out DIR``: stream a recording through the live pipeline."""

from __future__ import annotations

import argparse
import json
import os

from rt_eeg.errors import RtEegError

HELP = (
    "stream an EDF file through the live pipeline (separate processes, ZeroMQ) and write decisions"
)


def parse_speed(text: str) -> float | None:
    """``1`` (wall clock), ``N`` (N times faster) or ``max`` (as fast as the pipeline goes)."""
    if text.lower() == "max":
        return None
    try:
        speed = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"speed must be a positive number or 'max', got {text!r}"
        ) from None
    if speed <= 0:
        raise argparse.ArgumentTypeError(f"speed must be positive, got {text!r}")
    return speed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("edf", help="EDF recording to stream")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument(
        "--speed",
        type=parse_speed,
        default=1.0,
        help="1 (real time, default), N (N x faster) or max",
    )
    parser.add_argument(
        "--headless",
        action="store_true",
        help="no window: the monitor renders offscreen and saves monitor.png",
    )
    parser.add_argument("--no-monitor", action="store_true", help="do not start the monitor at all")
    parser.add_argument(
        "--screenshot-at",
        type=float,
        metavar="T",
        help="save monitor_at_<T>s.png when the signal reaches T s",
    )
    parser.add_argument("--model", help="model folder (default: models/default or the config's)")
    parser.add_argument("--config", help="pipeline TOML file (endpoints, stage parameters, model)")
    parser.add_argument(
        "--device", choices=("auto", "cpu", "gpu"), help="decoder device (default auto)"
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="allow the config's non-loopback endpoints without CURVE (explicit escape hatch)",
    )


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from rt_eeg.config import load_pipeline_config
    from rt_eeg.pipeline.supervisor import Supervisor

    cfg = load_pipeline_config(args.config, insecure=args.insecure)
    if args.model:
        cfg = dataclasses.replace(cfg, model=os.path.abspath(args.model))
    if args.device:
        cfg = dataclasses.replace(cfg, device=args.device)
    monitor = (
        None
        if args.no_monitor
        else ("headless" if args.headless or not os.environ.get("DISPLAY") else "window")
    )
    speed = "max" if args.speed is None else f"{args.speed:g}x"
    print(
        f"replaying {args.edf} at {speed} -> {args.out} (monitor: {monitor or 'off'})", flush=True
    )

    def progress(kind, stage, info):
        if kind == "go":
            print("all stages ready; streaming", flush=True)
        elif kind == "restart":
            print(f"restarted {stage}: {info}", flush=True)

    sup = Supervisor(
        args.edf,
        args.out,
        speed=args.speed,
        config=cfg,
        monitor=monitor,
        on_event=progress,
        screenshot_at=args.screenshot_at,
    )
    metrics = sup.run_pipeline()
    lat = metrics.get("end_to_end_latency_ms") or {}
    print(json.dumps({k: metrics[k] for k in ("time_to_first_decision_s", "frames_streamed", "restarts", "n_decisions")}
                     | {"latency_ms_p95": lat.get("p95")}))  # fmt: skip
    if "postprocess" not in sup.done:
        raise RtEegError(
            "pipeline ended before the postprocessor finished (see .run/*.log in the output folder)",
            args.out,
        )
    return 130 if metrics["interrupted"] else 0
