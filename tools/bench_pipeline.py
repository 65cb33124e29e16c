"""Benchmark the live pipeline (separate processes, ZeroMQ); write JSON.

Measures, with the model given (default ``models/default``; an untrained model of the same
architecture if that is missing, which times identically):

- end-to-end processing latency at 1x speed (frame emitted at the source -> decision that
  includes it published, minus the algorithmic lookahead): p50, p95, max in ms;
- per-stage processing time; time from launch to ready and to the first decision;
- real-time factor at ``--speed max`` on the bundled 10-minute 22-channel recording
  (signal seconds / wall seconds, from launch to outputs written, and streaming only).

Usage: python tools/bench_pipeline.py [--out tools/results/bench_pipeline.json] [--realtime-s 60]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.config import DEFAULT_MODEL, PipelineConfig  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.pipeline.supervisor import Supervisor  # noqa: E402

SAMPLE = ROOT / "data_samples" / "sample_s001_t000.edf"


def excerpt(src: Path, seconds: float, dst: Path) -> Path:
    """The first ``seconds`` of ``src`` as an EDF (same channels and rates)."""
    import pyedflib

    with pyedflib.EdfReader(str(src)) as r:
        n = r.signals_in_file
        heads = r.getSignalHeaders()
        data = [r.readSignal(i, 0, int(seconds * r.getSampleFrequency(i))) for i in range(n)]
    with pyedflib.EdfWriter(str(dst), n, file_type=pyedflib.FILETYPE_EDFPLUS) as w:
        w.setSignalHeaders(heads)
        w.writeSamples(data)
    return dst


def run(edf: Path, out: Path, model: Path, speed) -> tuple[dict, float]:
    cfg = PipelineConfig(model=str(model), device="auto")
    t0 = time.perf_counter()
    metrics = Supervisor(edf, out, speed=speed, config=cfg, monitor=None).run_pipeline()
    return metrics, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_pipeline.json"))
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument(
        "--realtime-s", type=float, default=60.0, help="seconds streamed at 1x (default 60)"
    )
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_pipeline_"))
    model = Path(args.model)
    untrained = not (model / "model.keras").is_file()
    if untrained:
        from rt_eeg.decoder import write_untrained_model

        model = write_untrained_model(tmp / "model")
    short = excerpt(SAMPLE, args.realtime_s, tmp / "excerpt_s001_t000.edf")
    rt, rt_wall = run(short, tmp / "rt", model, 1.0)
    mx, mx_wall = run(SAMPLE, tmp / "max", model, None)
    stream_s = mx_wall - (mx["time_to_ready_s"] or 0.0)
    result = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg": os.getloadavg(),
        },
        "model": str(model) + (" (untrained, same architecture)" if untrained else ""),
        "decoder_device": rt["decoder_device"],
        "algorithmic_delay_s": rt["algorithmic_delay_s"],
        "realtime_1x": {
            "seconds_streamed": args.realtime_s,
            "end_to_end_latency_ms": rt["end_to_end_latency_ms"],
            "stage_processing_ms": rt["stage_processing_ms"],
            "time_to_ready_s": rt["time_to_ready_s"],
            "time_to_first_decision_s": rt["time_to_first_decision_s"],
            "first_decision_minus_signal_needed_s": None
            if rt["time_to_first_decision_s"] is None
            else round(rt["time_to_first_decision_s"] - 1.0 - rt["algorithmic_delay_s"], 3),
            "restarts": len(rt["restarts"]),
            "gaps": len(rt["detection_path_gaps"]),
        },
        "max_speed": {
            "recording_s": mx["duration_s"],
            "wall_s_launch_to_outputs": round(mx_wall, 3),
            "real_time_factor": round(mx["duration_s"] / mx_wall, 1),
            "real_time_factor_streaming": round(mx["duration_s"] / stream_s, 1),
            "time_to_ready_s": mx["time_to_ready_s"],
        },
        "targets": {
            "latency_p95_ms": 100,
            "first_decision_s": "3 + algorithmic delay (+ the 1 s epoch)",
            "max_speed_real_time_factor": 100,
        },
    }
    write_json_atomic(args.out, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
