"""Benchmark ``rt-eeg live`` on an LSL stream; write JSON.

1. **Latency at 1x.** The bundled recording is published as an LSL stream at wall-clock pace
   (an outlet in this process, 40 ms chunks, as an amplifier sends) and analysed live for
   ``--realtime-s`` seconds. Latency runs from the moment the last sample of a decision's
   epoch was acquired (its LSL timestamp, so the LSL transport is included) to the decision
   being published: p50 / p95 / max in ms. It includes the algorithmic lookahead (reported
   beside it).
2. **Memory on a long run.** The recording is published in a loop at ``--long-speed`` x real
   time for ``--long-wall-s`` seconds with 1-minute rotation; the resident memory (RSS) of
   every stage process is sampled from ``/proc`` when 2 minutes of signal have been analysed
   and at the end: flat memory means the end is not above the start by more than noise.

LSL stays on this machine (a machine-only ``lsl_api.cfg``).

Usage: python tools/bench_live.py [--out tools/results/bench_live.json] [--realtime-s 60]
       [--long-speed 15] [--long-wall-s 90]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.sources.lsl import write_machine_only_config  # noqa: E402

_CFG = Path(tempfile.mkdtemp(prefix="bench_live_")) / "lsl_api.cfg"
os.environ.setdefault("LSLAPICFG", str(write_machine_only_config(_CFG)))

from rt_eeg.config import DEFAULT_MODEL, PipelineConfig  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.pipeline.supervisor import DETECTION_STAGES, Supervisor  # noqa: E402

SAMPLE = ROOT / "data_samples" / "sample_s001_t000.edf"


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def live_run(name: str, out: Path, model: Path, *, speed: float, loop: bool, stop_after_s: float,
             rotate_s: float, on_signal=None) -> tuple[dict, Supervisor]:  # fmt: skip
    from rt_eeg.sources.outlet import publish_recording

    stop = threading.Event()
    go = threading.Event()

    def publisher():
        from rt_eeg.io.edf import open_recording
        from rt_eeg.sources.outlet import make_outlet

        with open_recording(SAMPLE) as rec:
            outlet = make_outlet(name, rec.input_labels, rec.native_sfreq)
            fs = rec.native_sfreq
        go.wait(300)
        import pylsl

        start, total = pylsl.local_clock(), 0
        while not stop.is_set():
            total += publish_recording(SAMPLE, name, speed=speed, start=start + total / fs,
                                       should_stop=stop.is_set, outlet=outlet)  # fmt: skip
            if not loop:
                break

    th = threading.Thread(target=publisher, daemon=True)
    th.start()
    holder: dict = {}

    def on_event(kind, stage, info):
        if kind == "go":
            go.set()
        if kind == "heartbeat" and stage == "source" and info and on_signal is not None:
            on_signal(holder["sup"], info.get("t_signal", 0.0))

    time.sleep(1.0)  # the outlet exists before the supervisor looks for it
    cfg = PipelineConfig(model=str(model), device="auto")
    sup = Supervisor({"kind": "lsl", "name": name, "resolve_timeout_s": 30.0}, out, speed=None,
                     config=cfg, monitor=None, on_event=on_event, name="bench", rotate_s=rotate_s,
                     stop_after_s=stop_after_s)  # fmt: skip
    holder["sup"] = sup
    try:
        metrics = sup.run_pipeline()
    finally:
        stop.set()
        th.join(30)  # the recording is closed before the next run opens it (pyedflib: once)
    return metrics, sup


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_live.json"))
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--realtime-s", type=float, default=60.0)
    ap.add_argument("--long-speed", type=float, default=15.0)
    ap.add_argument("--long-wall-s", type=float, default=90.0)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_live_"))
    model = Path(args.model)
    untrained = not (model / "model.keras").is_file()
    if untrained:
        from rt_eeg.decoder import write_untrained_model

        model = write_untrained_model(tmp / "model")

    rt, _ = live_run(f"bench-rt-{os.getpid()}", tmp / "rt", model, speed=1.0, loop=False,
                     stop_after_s=args.realtime_s, rotate_s=3600.0)  # fmt: skip

    samples: dict = {}

    def on_signal(sup, t_signal):
        now = time.monotonic()
        if "t_wall0" not in samples:
            samples["t_wall0"] = now
        if t_signal >= 120 and "start" not in samples:
            samples["start"] = {"t_signal": t_signal, "rss_mb": {s: rss_mb(sup.procs[s].pid) for s in DETECTION_STAGES}}
        if t_signal > 120:
            samples["end"] = {"t_signal": t_signal, "rss_mb": {s: rss_mb(sup.procs[s].pid) for s in DETECTION_STAGES}}
        if now - samples["t_wall0"] > args.long_wall_s:
            sup.request_stop()

    t0 = time.perf_counter()
    lg, _ = live_run(f"bench-long-{os.getpid()}", tmp / "long", model, speed=args.long_speed, loop=True,
                     stop_after_s=None, rotate_s=60.0, on_signal=on_signal)  # fmt: skip
    long_wall = time.perf_counter() - t0
    parts = json.loads((tmp / "long" / "bench.index.json").read_text())["parts"]
    result = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load_avg": os.getloadavg()},
        "model": str(model) + (" (untrained, same architecture)" if untrained else ""),
        "decoder_device": rt["decoder_device"],
        "lsl_1x": {
            "seconds_analysed": rt["duration_s"],
            "latency_from_acquisition_ms": rt["end_to_end_latency_ms"],
            "algorithmic_delay_s": rt["algorithmic_delay_s"],
            "stage_processing_ms": rt["stage_processing_ms"],
            "time_to_first_decision_s": rt["time_to_first_decision_s"],
            "restarts": len(rt["restarts"]),
            "errors": rt["errors"],
        },
        "long_run": {
            "speed": args.long_speed,
            "signal_s": lg["duration_s"],
            "wall_s": round(long_wall, 1),
            "n_decisions": lg["n_decisions"],
            "parts_written": len(parts),
            "rss_after_2_min_signal": samples.get("start"),
            "rss_at_end": samples.get("end"),
            "restarts": len(lg["restarts"]),
        },
        "command": "python tools/bench_live.py " + " ".join(sys.argv[1:]),
    }
    write_json_atomic(args.out, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
