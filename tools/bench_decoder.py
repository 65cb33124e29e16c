"""Benchmark the decoder: per-epoch streaming latency and batch throughput.

Usage::

    python tools/bench_decoder.py [--model models/default [--model OTHER ...]] [--rounds 2]
                                  [--device cpu|gpu|auto] [--channels 22] [--epochs 300]
                                  [--note TEXT] [--out FILE]

Without ``--model`` an untrained model of each architecture (``frame_lstm_veto`` with its
``context_history`` inputs, the others ``maxabs``) is written to a temporary folder
(latency does not depend on the weights). Several ``--model`` folders are measured
alternately, ``--rounds`` times each, so that a shared machine's load falls on all of them
alike; ``summary`` then holds each model's median over the rounds. Writes JSON (default
``tools/results/bench_decoder.json``) and prints a short summary. ``--device gpu`` on a
machine without a GPU records the refusal in the JSON and exits 2.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.decoder import ARCHITECTURES, FRAMES_PER_EPOCH, Decoder, write_untrained_model  # noqa: E402
from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

#: The inputs an untrained model of an architecture is benchmarked with (default maxabs).
UNTRAINED_INPUTS = {"frame_lstm_veto": "context_history"}


def bench_one(model_dir: Path, device: str, n_ch: int, n_epochs: int, batch_seconds: float) -> dict:
    """Latency of one epoch push (n_ch channels) and batch throughput on one model."""
    t = time.perf_counter()
    dec = Decoder(model_dir, device=device)
    load_s = time.perf_counter() - t
    rng = np.random.default_rng(0)
    warm = 10
    feats = rng.standard_normal(((n_epochs + warm) * FRAMES_PER_EPOCH, n_ch, dec.n_features))
    feats = feats.astype(np.float32)
    lat = []
    for i in range(n_epochs + warm):
        chunk = feats[i * FRAMES_PER_EPOCH : (i + 1) * FRAMES_PER_EPOCH]
        t = time.perf_counter()
        _, probs = dec.push(chunk)
        lat.append(time.perf_counter() - t)
        assert probs.shape == (1, n_ch)
    lat_ms = np.asarray(lat[warm:]) * 1e3
    dec.flush()
    # Batch: a whole recording of batch_seconds (epochs of n_ch channels).
    rec = rng.standard_normal((int(batch_seconds * 10), n_ch, dec.n_features)).astype(np.float32)
    dec.predict_recording(rec[:2000])  # warm the large-batch path
    t = time.perf_counter()
    probs = dec.predict_recording(rec)
    batch_s = time.perf_counter() - t
    return {
        "model": str(model_dir),
        "arch": dec.manifest.get("architecture", {}).get("name"),
        "n_params": dec.manifest.get("architecture", {}).get("n_params"),
        "device": dec.device,
        "runtime": dec.runtime,
        "load_and_warmup_s": round(load_s, 3),
        "n_channels": n_ch,
        "latency_epoch_ms": {
            "p50": round(float(np.percentile(lat_ms, 50)), 3),
            "p99": round(float(np.percentile(lat_ms, 99)), 3),
            "max": round(float(lat_ms.max()), 3),
            "n": int(lat_ms.size),
        },
        "batch": {
            "recording_s": batch_seconds,
            "seconds": round(batch_s, 3),
            "epochs_per_second": round(probs.shape[0] / batch_s, 1),
            "channel_epochs_per_second": round(probs.size / batch_s, 1),
            "realtime_factor": round(batch_seconds / batch_s, 1),
        },
    }


def summarise(runs: list[dict]) -> list[dict]:
    """Each model's median p50 latency and batch rate over its rounds, in first-seen order."""
    by_model: dict[str, list[dict]] = {}
    for r in runs:
        by_model.setdefault(r["model"], []).append(r)
    return [
        {
            "model": m,
            "n_params": rs[0]["n_params"],
            "rounds": len(rs),
            "latency_epoch_p50_ms": round(float(np.median([r["latency_epoch_ms"]["p50"] for r in rs])), 3),
            "epochs_per_second": round(float(np.median([r["batch"]["epochs_per_second"] for r in rs])), 1),
        }
        for m, rs in by_model.items()
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--model", action="append", default=None,
        help="model folder; repeat to compare models (default: untrained models)",
    )
    p.add_argument("--rounds", type=int, default=1, help="times each model is measured, alternately")
    p.add_argument("--note", default=None, help="free text kept in the JSON (what was compared, why)")
    p.add_argument("--device", default="cpu", choices=("auto", "cpu", "gpu"))
    p.add_argument("--channels", type=int, default=22)
    p.add_argument("--epochs", type=int, default=300, help="streamed epochs timed")
    p.add_argument("--batch-seconds", type=float, default=3600.0, help="recording length for batch")
    p.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_decoder.json"))
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error(f"--rounds must be >= 1, got {args.rounds}")
    for m in args.model or []:
        if not Path(m).is_dir():
            p.error(f"--model {m}: no such model folder")

    from rt_eeg.runtime import import_tensorflow, quiet_native_stderr

    tf = import_tensorflow()
    with quiet_native_stderr():
        gpus = [d.name for d in tf.config.list_physical_devices("GPU")]
    result = {
        "benchmark": "decoder",
        "device_requested": args.device,
        "gpus_visible": gpus,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "tensorflow": tf.__version__,
        "runs": [],
    }
    if args.note:
        result["note"] = args.note
    code = 0
    with tempfile.TemporaryDirectory() as tmp:
        models = (
            [Path(m) for m in args.model]
            if args.model
            else [
                write_untrained_model(
                    Path(tmp) / a, arch=a, normalisation=UNTRAINED_INPUTS.get(a, "maxabs")
                )
                for a in ARCHITECTURES
            ]
        )
        try:
            for rnd in range(args.rounds):
                for m in models:
                    run = bench_one(m, args.device, args.channels, args.epochs, args.batch_seconds)
                    result["runs"].append({"round": rnd, **run})
        except RtEegError as err:
            result["error"] = str(err)
            code = 2
    result["summary"] = summarise(result["runs"])
    write_json_atomic(args.out, result)
    for r in result["runs"]:
        lat, b = r["latency_epoch_ms"], r["batch"]
        print(
            f"{r['arch']} on {r['device']} ({r['n_channels']} ch): epoch latency p50 {lat['p50']} ms, "
            f"p99 {lat['p99']} ms; batch {b['epochs_per_second']} epochs/s "
            f"({b['realtime_factor']}x real time)"
        )
    if args.rounds > 1 or len(models) > 1:
        for row in result["summary"]:
            print(
                f"{row['model']}: median over {row['rounds']} round(s): p50 {row['latency_epoch_p50_ms']} ms, "
                f"{row['epochs_per_second']} epochs/s"
            )
    if "error" in result:
        print(f"error: {result['error']}", file=sys.stderr)
    print(f"wrote {args.out}")
    return code


if __name__ == "__main__":
    sys.exit(main())
