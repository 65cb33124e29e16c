"""Soak test of the live pipeline: simulate a long recording (``rt_eeg.sim``), stream it
through the process pipeline at ``--speed max``, and check

- zero lost or reordered messages end to end: every receiver's sequence and time checks
  (``detection_path_gaps`` and ``malformed_messages`` in metrics.json stay empty/zero), and
  each stage processed exactly what the one before it sent (``stage_messages``);
- every 0.1 s frame streamed and every 1 s epoch decided;
- resident memory (RSS) of every process, sampled over the run against the signal time
  streamed so far, with growth per hour of recording from a least-squares line over the
  second half (after warm-up);
- outputs identical to the offline twin (``rt-eeg evaluate``'s detector) on the same file.

Usage: nice -n 10 python tools/soak.py --hours 2 [--out tools/results/soak.json]
(``--hours 24`` is for a quiet machine.)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.config import DEFAULT_MODEL, PipelineConfig  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def growth_mb_per_h(samples: list[tuple[float, float]]) -> float | None:
    """Slope of RSS over the second half of ``(signal seconds, MB)`` samples (MB per hour)."""
    half = samples[len(samples) // 2 :]
    if len(half) < 3:
        return None
    t, m = np.array(half).T
    return round(float(np.polyfit(t / 3600, m, 1)[0]), 3)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=24.0)
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--sample-every-s", type=float, default=0.5)
    ap.add_argument(
        "--workdir", help="where the simulated EDF and outputs go (default: a temp folder)"
    )
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "soak.json"))
    args = ap.parse_args()

    from rt_eeg.decoder import Decoder, write_untrained_model
    from rt_eeg.detector import detect_recording
    from rt_eeg.outputs import write_outputs
    from rt_eeg.pipeline.supervisor import Supervisor
    from rt_eeg.sim.recording import default_signals, plan_recording, write_plan

    work = Path(args.workdir or tempfile.mkdtemp(prefix="rteeg-soak-"))
    model = Path(args.model)
    if not (model / "model.keras").is_file():
        model = write_untrained_model(work / "model", seed=1)
    duration = round(args.hours * 3600)
    edf = work / "soak_s001_t000.edf"
    t0 = time.time()
    plan = plan_recording(float(duration), 250.0, seed=24, seizures=[(duration * 0.4, duration * 0.4 + 60)],
                          state="awake")  # fmt: skip
    write_plan(edf, plan, signals=default_signals(plan, "tuh"))
    simulate_s = time.time() - t0
    print(f"simulated {duration} s in {simulate_s:.0f} s -> {edf}", flush=True)

    cfg = PipelineConfig(model=str(model), device="cpu")
    streamed = {"s": 0.0}  # signal seconds the source has sent (from its heartbeats)

    def on_event(kind, who, info):
        if kind == "heartbeat" and who == "source" and info:
            streamed["s"] = info.get("processed", 0) / 10

    sup = Supervisor(edf, work / "live", speed=None, config=cfg, monitor=None, on_event=on_event)
    samples: dict[str, list[tuple[float, float]]] = {}
    stop = threading.Event()

    def sampler():
        while not stop.wait(args.sample_every_s):
            t = streamed["s"]
            if t <= 0:
                continue  # start-up: not part of the steady state
            for name, proc in [("supervisor", None), *list(sup.procs.items())]:
                m = rss_mb(os.getpid() if proc is None else proc.pid)
                if m is not None:
                    samples.setdefault(name, []).append((round(t, 2), round(m, 1)))

    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    t1 = time.time()
    metrics = sup.run_pipeline()
    wall = time.time() - t1
    stop.set()
    th.join()

    from rt_eeg.config import load_postprocess_config

    post = load_postprocess_config(str(model), cfg.postprocess)  # as the live run and evaluate
    res = detect_recording(edf, Decoder(model, device="cpu"), post)
    write_outputs(work / "offline", edf.stem, res.decisions, res.duration)
    identical = {
        sfx: (work / "live" / f"{edf.stem}{sfx}").read_bytes()
        == (work / "offline" / f"{edf.stem}{sfx}").read_bytes()
        for sfx in (".hyp", ".csv_bi", ".tse", "_events.tsv")
    }
    msgs = metrics["stage_messages"]
    chain = [("source", "features"), ("features", "decoder"), ("decoder", "postprocess")]
    counts_ok = all(msgs[d]["processed"] == msgs[u]["sent"] - 1 for u, d in chain)
    checks = {
        "no_gaps": not metrics["detection_path_gaps"],
        "no_malformed": metrics["malformed_messages_total"] == 0,
        "no_restarts": not metrics["restarts"],
        "every_frame_streamed": metrics["frames_streamed"] == duration * 10,
        "every_epoch_decided": metrics["n_decisions"] == math.ceil(duration),
        "stage_counts_chain": counts_ok,
        "identical_to_offline": all(identical.values()),
    }
    result = {
        "hours": args.hours, "recording_s": duration, "simulate_s": round(simulate_s, 1),
        "wall_s": round(wall, 1), "real_time_factor": round(duration / wall, 1),
        "checks": checks, "passed": all(checks.values()), "identical": identical,
        "stage_messages": msgs, "frames_streamed": metrics["frames_streamed"],
        "n_decisions": metrics["n_decisions"],
        "rss_mb": {n: {"first": s[0][1], "max": max(m for _, m in s), "last": s[-1][1],
                       "growth_mb_per_recording_h": growth_mb_per_h(s), "n": len(s)}
                   for n, s in samples.items() if s},
        "machine": {"cpus": os.cpu_count(), "load_avg": os.getloadavg()},
        "command": " ".join(sys.argv),
    }  # fmt: skip
    write_json_atomic(args.out, result)
    print(json.dumps({k: result[k] for k in ("wall_s", "real_time_factor", "checks", "rss_mb")}))
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
